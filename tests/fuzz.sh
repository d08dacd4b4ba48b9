#!/bin/sh
# Replays the fuzz corpus, the regression inputs (tests/fuzz/corpus/TARGET,
# tests/fuzz/regressions/TARGET) and seeds cut at replay time
# (build/fuzz-seeds/TARGET) through each fuzz target built with a plain
# driver (build/fuzz-replay/TARGET, from tests/fuzz/TARGET.c and driver.c),
# each input in a child process with a time limit. The seeds are cut by
# build/cutseeds (tests/fuzz/cutseeds.c) from samples/*.etl, from traces
# made by build/mktrace and, when present, from the real traces in
# ../shared/samples/real (read in place, nothing of them kept in the tree).
# Built with sanitizers (make check CC=clang CFLAGS=... -fsanitize=...),
# this is the regression run for every fuzzer finding.
# Usage: tests/fuzz.sh [ETLDUMP]   (ETLDUMP is not used)
# Environment: FUZZ_SEEDS (where the seeds go, default build/fuzz-seeds);
# FUZZ_SEEDS_ONLY=1 cuts the seeds and replays nothing.
set -u
here=$(dirname "$0")
root=$here/..
shared=${ETLDUMP_SHARED:-$root/../shared}
bin=${FUZZ_REPLAY_DIR:-$root/build/fuzz-replay}
targets="fuzz_file fuzz_cswitch fuzz_batch fuzz_header fuzz_logfile fuzz_lz77 fuzz_lznt1 fuzz_loggerctx
         fuzz_kfields fuzz_tracelogging fuzz_metadata fuzz_sched fuzz_export fuzz_args"
seeds=${FUZZ_SEEDS:-$root/build/fuzz-seeds}
cutseeds=${CUTSEEDS:-$root/build/cutseeds}
mktrace=${MKTRACE:-$root/build/mktrace}
pass=0 fail=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

# The seeds: cut afresh from the traces read in place.
rm -rf "$seeds"
mkdir -p "$seeds/gen"
set --
for f in "$root"/samples/*.etl; do
    [ -f "$f" ] && set -- "$@" "$f"
done
if [ -x "$mktrace" ]; then
    g() { name=$1; shift; "$mktrace" --quiet "$@" "$seeds/gen/gen-$name.etl" - 2> /dev/null; }
    g compact --encoding=compact --cpus=2 --switches=150 --buffer-size=2048 --seed=301
    g cswitch-pmc-pebs-ptr4 --encoding=cswitch --pmc=3 --pebs --ptr=4 --cpus=2 --switches=80 --buffer-size=2048 --seed=302
    g mixed-compressed-circular --encoding=mixed --compress --circular --cpus=3 --switches=400 --buffer-size=2048 --seed=303
    g compact-lost-win7 --encoding=compact --lost-cpu=1 --build=7601 --max-wait-reason=0x25 --cpus=2 --switches=300 --buffer-size=1536 --seed=304
    g processes-ready-dpc --processes --ready --dpc --cpus=2 --switches=300 --buffer-size=4096 --seed=305
    g processes-ready-compact --processes --ready --encoding=compact --cpus=3 --switches=400 --seed=306
    g cswitch-v2-ptr4-compressed --cswitch-version=2 --ptr=4 --compress --processes --dpc --cpus=2 --switches=200 --seed=307
    g rundown-start-mixed-pmc --rundown=start --processes --ready --dpc --encoding=mixed --pmc=2 --cpus=3 --switches=300 --seed=308
    g rundown-end-win7-circular --rundown=end --processes --build=7601 --circular --cpus=2 --switches=250 --buffer-size=2048 --seed=309
    g settled-lost --settled --processes --lost-cpu=0 --misc-rate=8 --cpus=2 --switches=300 --buffer-size=2048 --seed=310
    g kinds-short-payloads --kinds=300 --cpus=2 --switches=100 --buffer-size=4096 --seed=311
    for f in "$seeds"/gen/*.etl; do
        [ -f "$f" ] && set -- "$@" "$f"
    done
else
    echo "fuzz: $mktrace not built: no seeds from generated traces"
fi
if ls "$shared"/samples/real/*.etl > /dev/null 2>&1; then
    for f in "$shared"/samples/real/*.etl; do
        set -- "$@" "$f"
    done
else
    echo "fuzz: $shared/samples/real not found: no seeds from the real traces; replaying the rest"
fi
if [ ! -x "$cutseeds" ]; then
    fail=$((fail + 1))
    echo "fuzz: FAIL: $cutseeds not built (make build/cutseeds)"
elif ! "$cutseeds" "$seeds" "$@" > "$log" 2>&1; then
    fail=$((fail + 1))
    echo "fuzz: FAIL: cutseeds:"; sed -n '1,10p' "$log"
fi
[ "${FUZZ_SEEDS_ONLY:-0}" = 1 ] && { echo "fuzz: seeds in $seeds"; [ "$fail" -eq 0 ]; exit; }

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
    [ -d "$seeds/$t" ] && set -- "$@" "$seeds/$t"
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
# The driver itself, through a target that fails on purpose
# (tests/fuzz/selftest.c): each failing input named, the others passed, the
# same a child an input; a child failing as it exits has its inputs run
# again alone. A leak is found only when a leak checker is built in.
st=$bin/selftest
drv=$(mktemp -d) || exit 1
# expect_replay WHAT WANT_LINE WANT_NAMED ARGS...: the replay exits with
# status 1, closes with WANT_LINE and names exactly the inputs WANT_NAMED.
expect_replay() {
    what=$1 want=$2 named=$3
    shift 3
    "$@" > "$log" 2>&1
    rc=$?
    got=$(sed -n 's|^replay: FAIL: [^ ]*/\([a-z-]*\): .*|\1|p' "$log" | sort | tr '\n' ' ')
    if [ "$rc" -eq 1 ] && grep -qx "selftest: $want" "$log" && [ "$got" = "$named" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "fuzz: FAIL: driver: $what: status $rc, named '$got' (want '$named'), $(tail -n 1 "$log")"
    fi
}
if [ -x "$st" ]; then
    mkdir "$drv/a" "$drv/b"
    for i in 1 2 3 4 5 6 7 8; do echo "input $i" > "$drv/a/good$i"; done
    for w in crash hang abort atexit leak; do echo "$w" > "$drv/a/x-$w"; done
    echo "good" > "$drv/b/a-good"; echo arm > "$drv/b/b-arm"
    echo fire > "$drv/b/c-fire"; echo "good" > "$drv/b/d-good"
    leaks=
    if nm "$st" 2> /dev/null | grep -q __lsan_do_leak_check; then
        case ${ASAN_OPTIONS:-}:${LSAN_OPTIONS:-} in *detect_leaks=0*) ;; *) leaks=yes ;; esac
    fi
    if [ -n "$leaks" ]; then
        want="8 passed, 5 failed" named="x-abort x-atexit x-crash x-hang x-leak "
    else
        want="9 passed, 4 failed" named="x-abort x-atexit x-crash x-hang "
    fi
    expect_replay "a child for many inputs" "$want" "$named" "$st" -q -t 1 "$drv/a"
    expect_replay "a child an input" "$want" "$named" env ETLDUMP_FUZZ_EACH=1 "$st" -q -t 1 "$drv/a"
    expect_replay "inputs failing together, none alone" "4 passed, 1 failed" "" \
        "$st" -q -t 1 "$drv/b"
    if ! grep -q "the inputs run together (none fails alone): exit status 23" "$log"; then
        fail=$((fail + 1)); echo "fuzz: FAIL: driver: inputs failing together: not said"
    fi
else
    fail=$((fail + 1))
    echo "fuzz: FAIL: $st not built"
fi
rm -rf "$drv"

echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
