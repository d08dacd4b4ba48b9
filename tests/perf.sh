#!/bin/sh
# Performance guard that cannot flake: instructions counted by callgrind for
# fixed traces, per record, against bounds recorded in tests/perf-bounds
# (about 1.2 to 1.5 times what was measured when they were set, so a real
# regression fails and compiler noise does not).
# Usage: tests/perf.sh ETLDUMP [MKTRACE]
set -u
etldump=$1
mktrace=${2:-$(dirname "$0")/../build/mktrace}
bounds=$(dirname "$0")/perf-bounds
pass=0 fail=0 skip=0
if ! command -v valgrind >/dev/null 2>&1; then
    echo "perf: SKIPPED: valgrind is not installed"
    echo "perf: 0 passed, 0 failed, 1 skipped"; exit 0
fi
if nm "$etldump" 2>/dev/null | grep -q '__asan_init\|__ubsan_handle'; then
    echo "perf: SKIPPED: etldump is built with sanitizers; instruction counts mean nothing"
    echo "perf: 0 passed, 0 failed, 1 skipped"; exit 0
fi
case $(od -An -tx1 -j4 -N1 "$etldump" 2>/dev/null | tr -d ' ')$(od -An -tx1 -j18 -N1 "$etldump" 2>/dev/null | tr -d ' ') in
    023e) ;; # a 64-bit ELF for x86-64: what the bounds were measured on
    *) echo "perf: SKIPPED: the bounds are instruction counts of an x86-64 build; $etldump is another kind"
       echo "perf: 0 passed, 0 failed, 1 skipped"; exit 0 ;;
esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$mktrace" --quiet --encoding=compact --cpus=4 --switches=200000 --seed=5 "$tmp/compact.etl" -
"$mktrace" --quiet --encoding=cswitch --cpus=4 --switches=200000 --seed=5 "$tmp/cswitch.etl" -
# Compact batches among Process, Thread, ReadyThread, DPC and ISR events, as
# a kernel trace has them (counted per switch, every event included).
"$mktrace" --quiet --encoding=compact --cpus=4 --switches=200000 --seed=5 --processes --ready \
    --dpc "$tmp/ready.etl" -

# Instructions executed by etldump ARGS.
count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$etldump" "$@" \
        > /dev/null 2> "$tmp/vg" || true
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/cg"
}

while read -r name per trace args; do
    case $name in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086
    ir=$(count $args "$tmp/$trace.etl")
    got=$((ir / 200000))
    if [ -n "$ir" ] && [ "$got" -le "$per" ]; then
        pass=$((pass + 1))
        echo "perf: $name: $got instructions per switch (bound $per)"
    else
        fail=$((fail + 1))
        echo "perf: FAIL: $name: ${got:-?} instructions per switch, bound $per"
    fi
done < "$bounds"
echo "perf: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
