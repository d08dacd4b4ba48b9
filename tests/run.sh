#!/bin/sh
# Runs every test: the Check unit programs in build/tests and the scripts
# (real traces, generated traces, golden outputs, formats, hostile input).
# With ETLDUMP_QUICK=1 only the quick ones (make check-quick). The scripts
# run side by side, ETLDUMP_JOBS at a time (default: the processors online,
# at most 4), the unit programs one job among them; each one's log is
# printed whole, in a fixed order (the unit programs first), with the
# seconds it took. Temporary files go under build/tmp, each job's in a
# directory of its own (what one leaves behind is not another's), removed at
# the end.
# Prints one closing line "check: N passed, M failed, K skipped".
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
quick=${ETLDUMP_QUICK:-}

# The unit programs, one after another, as one job beside the scripts:
# their lines into logs/unit.log, their counts ("PASS FAIL NAMES...") into
# logs/unit.counts.
run_units() {
    mkdir -p "$tmpdir/unit" && TMPDIR=$tmpdir/unit && export TMPDIR
    upass=0 ufail=0 ufailed=""
    : > "$logs/unit.log"
    for t in build/tests/test_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        if "$t" > "$logs/unit.out" 2>&1; then st=ok; else st=FAIL; ufailed="$ufailed $name"; fi
        # Check prints "100%: Checks: 22, Failures: 0, Errors: 0".
        c=$(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' "$logs/unit.out" | tail -n 1)
        set -- $c 0 0 0
        upass=$((upass + $1 - $2 - $3)); ufail=$((ufail + $2 + $3))
        [ "$st" = FAIL ] && [ "$2" -eq 0 ] && [ "$3" -eq 0 ] && ufail=$((ufail + 1))
        echo "$name: $st ($1 checks, $2 failures, $3 errors)" >> "$logs/unit.log"
        [ "$st" = FAIL ] && sed -n '1,40p' "$logs/unit.out" >> "$logs/unit.log"
    done
    echo "$upass $ufail$ufailed" > "$logs/unit.counts"
    : > "$logs/unit.done"
}

scripts="real switches processes sched golden cli unix names formats export memory edge threads hostile fuzz perf pairs"
[ -n "$quick" ] && scripts="real golden cli unix names"
# Under an emulator (ETLDUMP_EMULATOR, set by tools/check-i386.sh when the
# i386 programs run under qemu-i386) every process costs many times more:
# the four sweeps of thousands of runs (hostile input, allocation failure
# and peaks, fuzz replays, traces put together) are left to the native
# suites and counted as skipped, unless ETLDUMP_EMULATED_SWEEPS=1.
if [ -n "${ETLDUMP_EMULATOR:-}" ] && [ -z "$quick" ] && [ "${ETLDUMP_EMULATED_SWEEPS:-}" != 1 ]; then
    for name in hostile memory fuzz pairs; do
        scripts=$(echo " $scripts " | sed "s/ $name / /")
        skip=$((skip + 1))
        echo "$name: skipped under $ETLDUMP_EMULATOR (ETLDUMP_EMULATED_SWEEPS=1 runs it)"
    done
fi
# The longest first, so that the scripts running side by side end together.
first="hostile memory fuzz edge perf threads export formats pairs"

# Runs one script into logs/NAME.log, its status and seconds beside it.
logs=$tmpdir/logs
mkdir -p "$logs" || exit 1
run_script() {
    s=tests/$1.sh
    case $1 in
        real) set -- "$ETLDUMP" "$shared/samples/real" ;;
        processes) set -- "$ETLDUMP" build/mktrace "$shared" ;;
        names) set -- "$ETLDUMP" "$shared/samples/real" ;;
        threads) set -- "$ETLDUMP" "$shared" ;;
        memory) set -- "$ETLDUMP" "$shared" ;;
        formats) set -- "$ETLDUMP" samples/*.etl "$shared"/samples/real/*.etl ;;
        pairs) set -- "$ETLDUMP" build/mktrace "$shared" ;;
        *) set -- "$ETLDUMP" ;;
    esac
    t0=$(date +%s)
    mkdir -p "$tmpdir/$name" && TMPDIR=$tmpdir/$name sh "$s" "$@" > "$logs/$name.log" 2>&1
    echo $? > "$logs/$name.rc"
    echo $(($(date +%s) - t0)) > "$logs/$name.secs"
    : > "$logs/$name.done"
}

# ETLDUMP_JOBS scripts at a time (default: the processors online, at most 4).
jobs=${ETLDUMP_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac
[ "$jobs" -gt 4 ] && [ -z "${ETLDUMP_JOBS:-}" ] && jobs=4
order=""
for name in $first $scripts; do
    case " $scripts " in *" $name "*) ;; *) continue ;; esac
    case " $order " in *" $name "*) continue ;; esac
    [ -f "tests/$name.sh" ] && order="$order $name"
done
started=0
order="unit $order"
for name in $order; do
    while [ "$(find "$logs" -name '*.done' | wc -l)" -le $((started - jobs)) ]; do
        sleep 0.2
    done
    if [ "$name" = unit ]; then run_units & else run_script "$name" & fi
    started=$((started + 1))
done
wait

if [ -f "$logs/unit.counts" ]; then
    cat "$logs/unit.log"
    read -r p f names < "$logs/unit.counts"
    pass=$((pass + p)); fail=$((fail + f)); failed="$failed${names:+ $names}"
else
    fail=$((fail + 1)); failed="$failed unit"
    echo "unit: FAIL (no status)"
fi
for name in $scripts; do
    [ -f "tests/$name.sh" ] || continue
    if [ ! -f "$logs/$name.rc" ]; then
        # Its status was lost (the logs removed under it): not a pass.
        fail=$((fail + 1)); failed="$failed $name"
        echo "$name: FAIL (no status)"
        continue
    fi
    if [ "$(cat "$logs/$name.rc")" -eq 0 ]; then st=ok; else st=FAIL; failed="$failed $name"; fi
    grep -v ': [0-9]* passed, [0-9]* failed' "$logs/$name.log" | sed -n '1,40p'
    tally "$logs/$name.log"
    [ "$st" = FAIL ] && ! grep -qE ' [1-9][0-9]* failed' "$logs/$name.log" && fail=$((fail + 1))
    echo "$name: $st ($(cat "$logs/$name.secs") s)"
done

[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
