#!/bin/sh
# Runs `make check` as a 32-bit build (gcc -m32, Debian's gcc-multilib).
# libxml2 and Check for i386 are taken from Debian's i386 packages: installed
# when apt-get can install them, else downloaded with `apt-get download` and
# unpacked into a build-local root (build/i386-root), which the build and
# the tests use through pkg-config and an rpath. Nothing else changes: the
# 64-bit build stays `make && make check`.
# Usage: tools/check-i386.sh [MAKE ARGS...]
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)/build/i386-root
lib=$root/usr/lib/i386-linux-gnu
lib2=$root/lib/i386-linux-gnu
pkgs="libxml2 libxml2-dev check libicu72 liblzma5 zlib1g libsubunit0 libsubunit-dev"
if ! [ -f "$lib/pkgconfig/libxml-2.0.pc" ] || ! [ -f "$lib/pkgconfig/check.pc" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        dpkg --print-foreign-architectures | grep -qx i386 || {
            dpkg --add-architecture i386
            apt-get update -q >/dev/null 2>&1 || true
        }
        dpkg -s gcc-multilib >/dev/null 2>&1 || apt-get install -y -q gcc-multilib >/dev/null
    fi
    dl=$(pwd)/build/i386-debs
    rm -rf "$dl" "$root"
    mkdir -p "$dl" "$root"
    list=""
    for p in $pkgs; do list="$list $p:i386"; done
    (cd "$dl" && apt-get download $list >/dev/null 2>&1) || {
        echo "check-i386: cannot download the i386 packages ($list); run as root on Debian" >&2
        exit 1
    }
    for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$root"; done
fi
pc="env PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$lib/pkgconfig pkg-config"
ldflags="-Wl,--disable-new-dtags,-rpath,$lib:$lib2 -Wl,-rpath-link,$lib:$lib2"
# Some kernels run no 32-bit programs (IA-32 emulation off). As root, with
# binfmt_misc, they then run under qemu-i386-static (Debian's
# qemu-user-static; qemu-user's qemu-i386 when that cannot be had), user-mode
# emulation of the same i386 code: registered for this run as
# etldump-i386 and removed when it ends. Without that, the build is still
# made, every warning an error, and the tests are said not run.
mkdir -p build
probe=build/i386-probe
printf 'int main(void) { return 0; }\n' | gcc -m32 -x c - -o "$probe"
binfmt=/proc/sys/fs/binfmt_misc
entry=
unregister() {
    if [ -n "$entry" ] && [ -e "$entry" ]; then
        echo -1 > "$entry" || echo "check-i386: could not remove $entry" >&2
    fi
}
emulate() {
    [ "$(id -u)" = 0 ] || return 1
    # The statically linked emulator starts a process in about half the
    # time (38 against 69 ms here), and the suite starts thousands.
    if ! command -v qemu-i386-static > /dev/null 2>&1 && command -v apt-get > /dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static > /dev/null 2>&1 ||
            command -v qemu-i386 > /dev/null 2>&1 ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user > /dev/null 2>&1 || return 1
    fi
    qemu=$(command -v qemu-i386-static || command -v qemu-i386) || return 1
    [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2> /dev/null || return 1
    [ -e "$binfmt/etldump-i386" ] && echo -1 > "$binfmt/etldump-i386"
    # An i386 ELF executable (ET_EXEC or ET_DYN, EM_386); the kernel reads
    # the \x escapes itself.
    printf '%s' ":etldump-i386:M::\\x7fELF\\x01\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\x03\\x00:\\xff\\xff\\xff\\xff\\xff\\xfe\\xfe\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:$qemu:" \
        > "$binfmt/register" 2> /dev/null || return 1
    entry=$binfmt/etldump-i386
    "$probe" 2> /dev/null
}
if ! "$probe" 2>/dev/null; then
    trap unregister EXIT
    trap 'exit 130' INT TERM
    if emulate; then
        echo "check-i386: this kernel runs no 32-bit programs; the tests run under $qemu (user-mode emulation)"
        # The peak-memory checks then count above the emulator's own memory,
        # and the four sweeps of thousands of runs (tests/hostile.sh,
        # tests/memory.sh, tests/fuzz.sh, tests/pairs.sh) are left to the 64-bit suites
        # (tests/run.sh counts them skipped): they would take 40 minutes
        # here. With ETLDUMP_EMULATED_SWEEPS=1 they run, hostile input and
        # allocation failures sampled more thinly (values set by the caller
        # are kept).
        export ETLDUMP_EMULATOR=qemu-i386
        export HOSTILE_VIEWS="${HOSTILE_VIEWS:-1}" HOSTILE_MUTANTS="${HOSTILE_MUTANTS:-10}"
        export HOSTILE_OFFSETS="${HOSTILE_OFFSETS:-5}" ETLDUMP_OOM_ENDS="${ETLDUMP_OOM_ENDS:-20}"
        export ETLDUMP_OOM_STRIDE="${ETLDUMP_OOM_STRIDE:-97}"
    else
        unregister
        entry=
        make test-programs CC="gcc -m32" PKG_CONFIG="$pc" LDFLAGS="$ldflags" "$@"
        echo "check-i386: this machine cannot run 32-bit programs (its kernel refuses i386 binaries):"
        echo "check-i386: the 32-bit build and its test programs compiled and linked, the tests NOT run"
        echo "check: 0 passed, 0 failed, 1 skipped"
        exit 0
    fi
fi
make check CC="gcc -m32" PKG_CONFIG="$pc" LDFLAGS="$ldflags" "$@"
