#!/bin/sh
# Runs every test: the Check unit programs in build/tests, then the scripts
# (real traces, generated traces, golden outputs, formats, hostile input).
# With ETLDUMP_QUICK=1 only the quick ones (make check-quick). Temporary
# files go under build/tmp, removed at the end. Prints one closing line
# "check: N passed, M failed, K skipped".
set -u
cd "$(dirname "$0")/.." || exit 1
export TZ=UTC LC_ALL=C
# Unit tests are not timed: the machine may be busy with other work.
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
ETLDUMP=${ETLDUMP:-./etldump}
shared=${ETLDUMP_SHARED:-../shared}
pass=0 fail=0 skip=0 failed=""

# Adds the "name: N passed, M failed[, K skipped]" line found in a log.
tally() {
    line=$(grep -E '^[a-z_-]+: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
    s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
}

tmpdir=$(pwd)/build/tmp
rm -rf "$tmpdir" && mkdir -p "$tmpdir" || exit 1
export TMPDIR="$tmpdir"
trap 'rm -rf "$tmpdir"' EXIT
log=$(mktemp) || exit 1
quick=${ETLDUMP_QUICK:-}

for t in build/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    if "$t" > "$log" 2>&1; then st=ok; else st=FAIL; failed="$failed $name"; fi
    # Check prints "100%: Checks: 22, Failures: 0, Errors: 0".
    c=$(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' "$log" | tail -n 1)
    set -- $c 0 0 0
    pass=$((pass + $1 - $2 - $3)); fail=$((fail + $2 + $3))
    [ "$st" = FAIL ] && [ "$2" -eq 0 ] && [ "$3" -eq 0 ] && fail=$((fail + 1))
    echo "$name: $st ($1 checks, $2 failures, $3 errors)"
    [ "$st" = FAIL ] && sed -n '1,40p' "$log"
done

scripts="tests/real.sh tests/switches.sh tests/processes.sh tests/sched.sh tests/golden.sh tests/cli.sh tests/unix.sh tests/names.sh tests/formats.sh tests/export.sh tests/memory.sh tests/edge.sh tests/threads.sh tests/hostile.sh tests/fuzz.sh tests/perf.sh"
[ -n "$quick" ] && scripts="tests/real.sh tests/golden.sh tests/cli.sh tests/unix.sh tests/names.sh"
for s in $scripts; do
    [ -f "$s" ] || continue
    name=$(basename "$s" .sh)
    case $name in
        real) set -- "$ETLDUMP" "$shared/samples/real" ;;
        processes) set -- "$ETLDUMP" build/mktrace "$shared" ;;
        names) set -- "$ETLDUMP" "$shared/samples/real" ;;
        threads) set -- "$ETLDUMP" "$shared" ;;
        memory) set -- "$ETLDUMP" "$shared" ;;
        formats) set -- "$ETLDUMP" samples/*.etl "$shared"/samples/real/*.etl ;;
        *) set -- "$ETLDUMP" ;;
    esac
    if sh "$s" "$@" > "$log" 2>&1; then st=ok; else st=FAIL; failed="$failed $name"; fi
    grep -v ': [0-9]* passed, [0-9]* failed' "$log" | sed -n '1,40p'
    tally "$log"
    [ "$st" = FAIL ] && ! grep -qE ' [1-9][0-9]* failed' "$log" && fail=$((fail + 1))
    echo "$name: $st"
done

[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
