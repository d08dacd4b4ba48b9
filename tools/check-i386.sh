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
# Some kernels run no 32-bit programs (IA-32 emulation off): then the build
# is still made, every warning an error, and the tests are said not run.
mkdir -p build
probe=build/i386-probe
printf 'int main(void) { return 0; }\n' | gcc -m32 -x c - -o "$probe"
if ! "$probe" 2>/dev/null; then
    make test-programs CC="gcc -m32" PKG_CONFIG="$pc" LDFLAGS="$ldflags" "$@"
    echo "check-i386: this machine cannot run 32-bit programs (its kernel refuses i386 binaries):"
    echo "check-i386: the 32-bit build and its test programs compiled and linked, the tests NOT run"
    echo "check: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
exec make check CC="gcc -m32" PKG_CONFIG="$pc" LDFLAGS="$ldflags" "$@"
