#!/bin/sh
# make valgrind: the Check unit tests (CK_FORK=no), the fuzz replays of the
# corpus, regression inputs and cut seeds (in one process each) and a sample
# of etldump runs (every view with every printer on the bundled samples and
# a few generated traces; every view on the small real traces when present;
# a few damaged inputs) under valgrind memcheck: no error and no byte leaked.
# Prints "valgrind: N passed, M failed" and the time taken.
set -u
cd "$(dirname "$0")/../.." || exit 1
shared=${ETLDUMP_SHARED:-../shared}
export LC_ALL=C TZ=UTC CK_FORK=no ETLDUMP_FUZZ_NOFORK=1
if ! command -v valgrind > /dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
        echo "valgrind: installing valgrind" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind > /dev/null 2>&1 ||
        { DEBIAN_FRONTEND=noninteractive apt-get update -q > /dev/null 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind > /dev/null 2>&1; }
    fi
    if ! command -v valgrind > /dev/null 2>&1; then
        echo "valgrind: valgrind is not installed; run: sudo apt-get install -y valgrind"
        echo "valgrind: 0 passed, 1 failed"
        exit 1
    fi
fi
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
pass=0 fail=0
start=$(date +%s)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# check WHAT CMD...: runs CMD under valgrind; a valgrind report fails it.
# etldump's own exit status (0, 1 or 3 on damaged input) is not judged here.
check() {
    what=$1; shift
    $vg "$@" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 99 ] || grep -q '^==[0-9]*==' "$tmp/err"; then
        fail=$((fail + 1)); echo "valgrind: FAIL: $what:"; sed -n '1,30p' "$tmp/err"
    elif [ "$rc" -ge 128 ]; then
        fail=$((fail + 1)); echo "valgrind: FAIL: $what: exit status $rc"
    else
        pass=$((pass + 1))
    fi
}

for t in build/tests/test_*; do
    [ -x "$t" ] && check "$t" "$t"
done
# The seeds tests/fuzz.sh cuts go to every target but fuzz_file, whose
# seeds (about 1500 whole files) would take an hour under valgrind; its
# corpus and regression inputs do go.
FUZZ_SEEDS="$tmp/seeds" FUZZ_SEEDS_ONLY=1 sh tests/fuzz.sh > /dev/null 2>&1 ||
    { fail=$((fail + 1)); echo "valgrind: FAIL: the fuzz seeds could not be cut"; }
for t in build/fuzz-replay/fuzz_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    set --
    [ -d "tests/fuzz/corpus/$name" ] && set -- "tests/fuzz/corpus/$name"
    [ -d "tests/fuzz/regressions/$name" ] && set -- "$@" "tests/fuzz/regressions/$name"
    [ "$name" != fuzz_file ] && [ -d "$tmp/seeds/$name" ] && set -- "$@" "$tmp/seeds/$name"
    [ $# -gt 0 ] || continue
    check "$t" "$t" -q "$@"
done

# Inputs: the bundled samples, a few generated traces, damaged variants.
mkdir -p "$tmp/in"
cp samples/*.etl "$tmp/in/"
build/mktrace --quiet --encoding=mixed --ptr=4 --compress --circular --lost-cpu=1 --cpus=3 \
    --switches=400 --buffer-size=2048 --seed=301 "$tmp/in/gen-mixed.etl" - 2> /dev/null
build/mktrace --quiet --encoding=compact --pmc=2 --pebs --cpus=2 --switches=200 \
    --buffer-size=1536 --seed=302 "$tmp/in/gen-compact-pmc.etl" - 2> /dev/null
for f in samples/*.etl; do
    b=$(basename "$f" .etl)
    head -c 20000 "$f" > "$tmp/in/$b-cut.etl"
    [ -x build/mutate ] && build/mutate flip "$f" "$tmp/in" 1 3 > /dev/null &&
        for m in "$tmp"/in/m-*.etl; do mv "$m" "$tmp/in/$b-$(basename "$m")"; done
done
# Every view with every printer on the samples; on the others every view
# with one printer, the printer changing from file to file.
k=0
for f in "$tmp"/in/*.etl; do
    for view in "" --events=all --stats --info --summary; do
        for fmt in text csv xml json; do
            k=$((k + 1))
            [ -f "samples/$(basename "$f")" ] || [ $((k % 4)) -eq 0 ] || continue
            check "etldump $view -f $fmt $(basename "$f")" ./etldump $view -f $fmt "$f"
        done
    done
    k=$((k + 1))
done
for f in "$shared"/samples/real/*.etl; do
    [ -f "$f" ] || continue
    [ "$(wc -c < "$f")" -le 300000 ] || continue
    for view in "" --events=all --stats; do
        check "etldump $view -f xml $(basename "$f")" ./etldump $view -f xml "$f"
    done
done
check "etldump, several files" ./etldump -f xml --stats samples/*.etl
# The summary's rows through its spill file (etldump-spill keeps 64 in
# memory): written out, merged, added up and sorted in runs.
build/mktrace --quiet --ready --dpc --processes --encoding=mixed --threads=300 --switches=4000 \
    --seed=303 "$tmp/spill.etl" - 2> /dev/null
for fmt in csv json; do
    check "etldump-spill --summary -f $fmt" build/tests/etldump-spill --summary -f $fmt "$tmp/spill.etl"
done
echo "valgrind: $(( $(date +%s) - start )) s"
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
