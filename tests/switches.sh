#!/bin/sh
# Traces built by the independent test writer (tests/gen, written from the
# seed documents) must decode to exactly the switches that went into them,
# field by field and in time order. The census of each (--stats) must be the
# same with a filter that passes every event, which counts each event by its
# whole header, as without one, which counts PERFINFO64 events by their heads.
# Usage: tests/switches.sh ETLDUMP [MKTRACE]
set -u
etldump=$1
mktrace=${2:-$(dirname "$0")/../build/mktrace}
cmp=$(dirname "$0")/cmpcsv.awk
pass=0 fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run NAME [MKTRACE OPTIONS] -- [ETLDUMP OPTIONS]
run() {
    name=$1; shift
    gen=""; dump=""; side=gen
    for a in "$@"; do
        if [ "$a" = "--" ]; then side=dump; continue; fi
        if [ $side = gen ]; then gen="$gen $a"; else dump="$dump $a"; fi
    done
    if ! "$mktrace" --quiet $gen "$tmp/t.etl" "$tmp/want.csv" 2> "$tmp/gen.err"; then
        fail=$((fail + 1)); echo "switches: FAIL: $name: mktrace: $(cat "$tmp/gen.err")"; return
    fi
    "$etldump" -f csv --time=raw $dump "$tmp/t.etl" > "$tmp/got.csv" 2> "$tmp/err"
    rc=$?
    # A warning (a trace whose masks promise switches it lacks) is no failure.
    if [ "$rc" -ne 0 ] || grep -v '^etldump: [^:]*: warning: ' "$tmp/err" | grep -q .; then
        fail=$((fail + 1)); echo "switches: FAIL: $name: exit $rc: $(head -n 3 "$tmp/err")"; return
    fi
    if awk -F, -f "$cmp" "$tmp/want.csv" "$tmp/got.csv" > "$tmp/cmp" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "switches: FAIL: $name:"; sed -n '1,8p' "$tmp/cmp"
    fi
    "$etldump" --stats -f csv --time=raw "$tmp/t.etl" > "$tmp/heads.csv" 2>&1
    "$etldump" --stats -f csv --time=raw --cpu=0-2047 "$tmp/t.etl" > "$tmp/whole.csv" 2>&1
    if [ -s "$tmp/heads.csv" ] && cmp -s "$tmp/heads.csv" "$tmp/whole.csv"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "switches: FAIL: $name: --stats differs with --cpu=0-2047:"
        diff "$tmp/heads.csv" "$tmp/whole.csv" | sed -n '1,6p'
    fi
}

for enc in cswitch compact mixed; do
    for ptr in 4 8; do
        run "$enc ptr$ptr" --encoding=$enc --ptr=$ptr --seed=11 --cpus=4 --switches=4000
    done
    run "$enc 16 cpus 8 KiB buffers" --encoding=$enc --cpus=16 --buffer-size=8192 --switches=20000 --seed=12
    run "$enc pmc+pebs" --encoding=$enc --pmc=3 --pebs --seed=13 --switches=5000
    run "$enc pmc7 ptr4" --encoding=$enc --pmc=7 --ptr=4 --seed=14 --switches=3000
    run "$enc circular" --encoding=$enc --circular --cpus=8 --buffer-size=4096 --switches=20000 --seed=15
    run "$enc compressed" --encoding=$enc --compress --cpus=6 --switches=8000 --seed=16
    run "$enc circular compressed" --encoding=$enc --compress --circular --cpus=3 --switches=8000 --seed=17
    run "$enc lost buffer" --encoding=$enc --lost-cpu=1 --cpus=3 --buffer-size=2048 --switches=6000 --seed=18
    run "$enc large buffers" --encoding=$enc --buffer-size=1048576 --cpus=2 --switches=30000 --seed=19
    run "$enc small buffers" --encoding=$enc --buffer-size=1536 --cpus=2 --switches=3000 --seed=20
    run "$enc first-ts prev" --encoding=$enc --first-ts=prev --switches=3000 --seed=21
    run "$enc one cpu" --encoding=$enc --cpus=1 --switches=500 --seed=22
done
for v in 2 3 4; do
    run "cswitch version $v" --encoding=cswitch --cswitch-version=$v --seed=3$v --switches=3000
done
# MaximumWaitReason: from the build, or as given.
run "compact Windows 11 build" --encoding=compact --build=22631 --seed=41 --switches=5000
run "compact Windows 7 build" --encoding=compact --build=7601 --max-wait-reason=0x25 --seed=42 --switches=5000
run "--max-wait-reason" --encoding=compact --max-wait-reason=0x2b --seed=43 --switches=5000 -- --max-wait-reason=0x2b
run "no switches" --switches=0 --seed=44
run "one switch" --switches=1 --seed=45 --encoding=compact

# bias NAME STATUS PATTERN MKTRACE-OPTIONS...: a compact trace written with
# those options makes etldump exit STATUS with PATTERN on stderr.
bias() {
    name=$1 want=$2 pat=$3; shift 3
    "$mktrace" --quiet --encoding=compact "$@" --switches=5000 "$tmp/t.etl" - 2>/dev/null
    "$etldump" -f csv "$tmp/t.etl" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq "$want" ] && grep -q "$pat" "$tmp/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "switches: FAIL: $name (exit $rc): $(head -n 2 "$tmp/err")"
    fi
}
# A wrong bias is noticed and named.
bias "wrong bias not reported" 1 'impossible thread state.*max-wait-reason' --max-wait-reason=0x2a --seed=46
# Every view that reads the switches counts them in one message that names
# the value in use, whence it came, and a documented one that fits.
for v in "" --summary --usage "-f svg -o $tmp/t.svg" "-f perfetto -o $tmp/t.pftrace" \
         "--max-wait-reason=0x28"; do
    # shellcheck disable=SC2086
    "$etldump" $v "$tmp/t.etl" > /dev/null 2> "$tmp/err"
    rc=$?
    case $v in
        --max*) was="0x28 (given by --max-wait-reason)" ;;
        *) was="0x27 (the default for build 19041)" ;;
    esac
    if [ "$rc" -eq 1 ] && grep -q "^etldump: [^:]*t.etl: offset 0x0: [0-9]* compact switches decode to impossible thread states with MaximumWaitReason $was; 0x2a gives none: try --max-wait-reason=0x2a\$" "$tmp/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "switches: FAIL: wrong bias counted and named ($v) (exit $rc): $(tail -n 1 "$tmp/err")"
    fi
done
# A bias too high decodes states as plausible wait reasons: a Windows 7 trace
# (0x25) read with the Windows 11 default (0x2A). The states contradict it,
# and a warning says so and names the option; with the trace's own bias, or
# with the build's default when it is right, nothing is said.
bias "a bias too high not reported" 0 \
    'warning: compact switch states fit MaximumWaitReason 0x25 better than 0x2a.*--max-wait-reason=0x25' \
    --build=22631 --max-wait-reason=0x25 --seed=47
for b in "--build=22631" "--build=19041" "--build=7601 --max-wait-reason=0x25" "--build=9200 --max-wait-reason=0x26" \
         "--build=22631 --max-wait-reason=0x25 -- --max-wait-reason=0x25" "--max-wait-reason=0x2b -- --max-wait-reason=0x2b"; do
    g=${b%% -- *} d=""
    [ "$g" != "$b" ] && d=${b#* -- }
    # shellcheck disable=SC2086
    "$mktrace" --quiet --encoding=mixed $g --seed=48 --switches=5000 "$tmp/t.etl" - 2>/dev/null
    # shellcheck disable=SC2086
    "$etldump" -f csv $d "$tmp/t.etl" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "switches: FAIL: right bias ($b) questioned (exit $rc): $(head -n 2 "$tmp/err")"
    fi
done

echo "switches: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
