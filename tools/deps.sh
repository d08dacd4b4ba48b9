#!/bin/sh
# Makes sure what etldump needs to build (and, with "check", to test) is
# installed. As root on a machine with apt-get it installs what is missing;
# otherwise it names the command to run and fails.
set -u
what=${1:-build}
pkgs=""
need() { pkgs="$pkgs $1"; }

command -v pkg-config >/dev/null 2>&1 || need pkg-config
if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists libxml-2.0 || need libxml2-dev
else
    need libxml2-dev
fi
if [ "$what" = check ]; then
    if command -v pkg-config >/dev/null 2>&1; then
        pkg-config --exists check || need check
    else
        need check
    fi
    command -v xmllint >/dev/null 2>&1 || need libxml2-utils
    command -v jq >/dev/null 2>&1 || need jq
    command -v valgrind >/dev/null 2>&1 || need valgrind
    command -v strace >/dev/null 2>&1 || need strace
fi
if [ "$what" = bench ]; then
    [ -x /usr/bin/time ] || need time
    command -v bc >/dev/null 2>&1 || need bc
fi
[ -z "$pkgs" ] && exit 0

cmd="apt-get install -y$pkgs"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "etldump: installing:$pkgs" >&2
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null || {
            echo "etldump: could not install:$pkgs; run: $cmd" >&2
            exit 1
        }
    fi
    exit 0
fi
echo "etldump: missing build dependencies; run: sudo $cmd" >&2
exit 1
