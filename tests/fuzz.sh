#!/bin/sh
# Replays the fuzz corpus and the regression inputs (tests/fuzz/corpus/TARGET,
# tests/fuzz/regressions/TARGET) through each fuzz target built with a plain
# driver (build/fuzz-replay/TARGET, from tests/fuzz/TARGET.c and driver.c),
# each input in a child process with a 10 s limit. fuzz_file also replays
# samples/*.etl and, when present, the real traces in ../shared/samples/real
# (read in place). Built with sanitizers (make check CC=clang CFLAGS=...
# -fsanitize=...), this is the regression run for every fuzzer finding.
# Usage: tests/fuzz.sh [ETLDUMP]   (ETLDUMP is not used)
set -u
here=$(dirname "$0")
root=$here/..
shared=${ETLDUMP_SHARED:-$root/../shared}
bin=${FUZZ_REPLAY_DIR:-$root/build/fuzz-replay}
targets="fuzz_file fuzz_cswitch fuzz_batch fuzz_header fuzz_logfile fuzz_lz77 fuzz_loggerctx
         fuzz_kfields fuzz_tracelogging fuzz_metadata fuzz_sched fuzz_export"
pass=0 fail=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

for t in $targets; do
    if [ ! -x "$bin/$t" ]; then
        ${MAKE:-make} -s -C "$root" --no-print-directory ETLDUMP_DEPS_OK=1 \
            "build/fuzz-replay/$t" > "$log" 2>&1
    fi
    if [ ! -x "$bin/$t" ]; then
        fail=$((fail + 1))
        echo "fuzz: FAIL: $bin/$t could not be built:"; sed -n '1,10p' "$log"
        continue
    fi
    set --
    [ -d "$here/fuzz/corpus/$t" ] && set -- "$here/fuzz/corpus/$t"
    [ -d "$here/fuzz/regressions/$t" ] && set -- "$@" "$here/fuzz/regressions/$t"
    if [ "$t" = fuzz_file ]; then
        for f in "$root"/samples/*.etl "$shared"/samples/real/*.etl; do
            [ -f "$f" ] && set -- "$@" "$f"
        done
    fi
    "$bin/$t" -q -t 60 "$@" > "$log" 2>&1
    line=$(grep -E "^$t: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
    if [ -z "$p" ]; then
        fail=$((fail + 1))
        echo "fuzz: FAIL: $t: the replay did not finish:"; tail -n 20 "$log"
        continue
    fi
    pass=$((pass + p)); fail=$((fail + f))
    echo "fuzz: $t: $((p + f)) inputs replayed, $f failing"
    [ "$f" -gt 0 ] && grep -v "^$t: " "$log" | sed -n '1,40p'
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
