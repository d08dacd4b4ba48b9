#!/bin/sh
# Memory: no input inflates it, and running out of it ends a run cleanly.
#  1. Peak resident memory stays under 64 MiB for every view of crafted files
#     of a million minimal buffers (72-byte and 1 KiB ones) and of every real
#     trace (build/peak measures it), and does not grow with the length of
#     a trace of switches (the summary's once 16384 threads fill its table
#     in memory); with --threads=2, under 64 + 16 MiB (16 MiB for each
#     thread past the first), and flat likewise. Built with a sanitizer,
#     only the flat checks run (the peak would be its own).
#  2. Allocation failure: for each scenario, the run is repeated failing its
#     1st, 2nd, ... allocation (build/failalloc.so, LD_PRELOAD), up to the
#     number a run without failure makes (sampled in the middle of long
#     runs unless ETLDUMP_OOM_EVERY=1, see oom_runs): every failing run must
#     exit with status 5 (out of memory), leave no block allocated and not
#     crash.
#  3. Temporary files that cannot be read back (the same library fails the
#     Nth read of an unlinked file and every later one): the summary's rows
#     end the run with status 5 and their own message, the copy of standard
#     input as an input that cannot be read; nothing leaks.
# Usage: tests/memory.sh ETLDUMP [SHARED]
set -u
etldump=$1
shared=${2:-../shared}
limit_kib=$((64 * 1024))
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

san=
nm "$etldump" 2>/dev/null | grep -q '__asan_init\|__msan_init\|__tsan_init' && san=yes
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "memory: FAIL: $*"; }

# Peak of one run, in KiB.
peak() {
    build/peak "$etldump" "$@" 2>&1 >/dev/null | sed -n 's/^peak //p' | tail -n 1
}

# Under a sanitizer the peak is mostly the sanitizer's (shadow memory,
# redzones, the quarantine of freed blocks: 160 MiB on the 1 GB file of
# 1 KiB buffers that peaks at 28 MiB without one): the bound is checked by
# the builds without one, and these checks count as skipped.
san_said=
# Under an emulator (ETLDUMP_EMULATOR, set by tools/check-i386.sh when the
# i386 programs run under qemu-i386) the peak holds the emulator's own
# memory: the bounds apply to what a run takes above the peak of
# `etldump --version`.
base_kib=0
if [ -z "$san" ] && [ -n "${ETLDUMP_EMULATOR:-}" ]; then
    base_kib=$(peak --version)
    echo "memory: under $ETLDUMP_EMULATOR, peaks count above its own ${base_kib:=0} KiB (etldump --version)"
fi
check_peak() {
    if [ -n "$san" ]; then
        skip=$((skip + 1))
        [ -n "$san_said" ] || echo "memory: skipped the 64 MiB peak checks: $etldump is built with a sanitizer, whose own memory the peak would measure"
        san_said=yes
        return
    fi
    p=$(peak "$@")
    lim=$limit_kib
    case " $* " in *" --threads=2 "*) lim=$((limit_kib + 16 * 1024)) ;; esac
    if [ -n "$p" ] && [ $((p - base_kib)) -lt "$lim" ]; then ok; else bad "peak ${p:-?} KiB less $base_kib (limit $lim): etldump $*"; fi
}

[ -n "$san" ] || build/manybuf "$tmp/many72.etl" 1000000 72 4 || bad "manybuf 72"
for v in "" --events=all --stats --summary --info --usage; do
    check_peak $v -f csv "$tmp/many72.etl"
done
for v in "" --events=all; do
    check_peak --threads=2 $v -f csv "$tmp/many72.etl"
done
check_peak -f perfetto -o /dev/null "$tmp/many72.etl"
check_peak -f svg -o /dev/null "$tmp/many72.etl"
rm -f "$tmp/many72.etl"
# Their SequenceNumbers falling in file order: a table of them is kept
# while the file is indexed (a buffer found twice is read once).
[ -n "$san" ] || build/manybuf "$tmp/fall72.etl" 1000000 72 4 falling || bad "manybuf 72 falling"
for v in "" --events=all --stats; do
    check_peak $v -f csv "$tmp/fall72.etl"
done
rm -f "$tmp/fall72.etl"
[ -n "$san" ] || build/manybuf "$tmp/many1k.etl" 1000000 1024 16 || bad "manybuf 1024"
for v in "" --events=all --summary; do
    check_peak $v -f csv "$tmp/many1k.etl"
done
check_peak --threads=2 --events=all -f json "$tmp/many1k.etl"
rm -f "$tmp/many1k.etl"
# Flat in the trace's length: the generator's threads end and new ones
# (new TIDs) take their place, about 58,000 in 3 M switches; what
# the switch views keep per thread must not grow with them.
build/mktrace --quiet --encoding=compact --cpus=8 --switches=300000 --seed=3 "$tmp/s.etl" - &&
build/mktrace --quiet --encoding=compact --cpus=8 --switches=3000000 --seed=3 "$tmp/l.etl" - ||
    bad "mktrace"
# The thread count is given: by default it grows with the input's size.
for v in "--threads=1 -f csv" "--usage -f csv" "-f perfetto -o /dev/null" "-f svg -o /dev/null" \
         "--threads=1 --events=all -f csv" "--threads=2 -f csv" "--threads=2 -f xml" "--threads=2 --events=all -f json"; do
    case "$v" in --threads=2*) if [ -n "$san" ]; then
        skip=$((skip + 1))
        echo "memory: skipped the flat check of etldump $v: a sanitizer's quarantine keeps the blocks the threads free"
        continue
    fi ;; esac
    ps=$(peak $v "$tmp/s.etl") pl=$(peak $v "$tmp/l.etl")
    if [ -n "$ps" ] && [ -n "$pl" ] && [ "$pl" -lt $((ps + 4096)) ]; then ok
    else bad "peak grows with the trace: ${ps:-?} KiB for 300k switches, ${pl:-?} KiB for 3M: etldump $v"; fi
done
# The summary keeps a row per thread, but past 16384 threads in memory the
# rows not seen lately go to a temporary file: from 3M switches (58k
# threads, the table in memory full) to 10M (190k threads) its peak is flat
# too.
if [ -n "$san" ]; then
    skip=$((skip + 1))
    echo "memory: skipped the flat check of etldump --summary: a sanitizer's quarantine keeps the blocks of the rows written out"
else
    build/mktrace --quiet --encoding=compact --cpus=8 --switches=10000000 --seed=3 "$tmp/xl.etl" - ||
        bad "mktrace xl.etl"
    pl=$(peak --summary -f csv "$tmp/l.etl") px=$(peak --summary -f csv "$tmp/xl.etl")
    if [ -n "$pl" ] && [ -n "$px" ] && [ "$px" -lt $((pl + 4096)) ]; then ok
    else bad "peak grows with the trace: ${pl:-?} KiB for 3M switches, ${px:-?} KiB for 10M: etldump --summary"; fi
    rm -f "$tmp/xl.etl"
fi
rm -f "$tmp/s.etl" "$tmp/l.etl"
real=0
for f in "$shared"/samples/real/*.etl; do
    [ -f "$f" ] || continue
    real=$((real + 1))
    for v in "" --events=all --stats --summary --info; do
        check_peak $v -f csv "$f"
    done
    check_peak --threads=2 --events=all -f json "$f"
done
[ "$real" -eq 0 ] && { skip=$((skip + 1)); echo "memory: skipped the real traces: $shared/samples/real not found (it lives beside the project)"; }

# Allocation failure, every N.
shim=$(pwd)/build/failalloc.so
if nm "$etldump" 2>/dev/null | grep -q '__asan_init\|__msan_init\|__tsan_init'; then
    skip=$((skip + 1))
    echo "memory: skipped the allocation-failure runs: $etldump is built with a sanitizer, whose allocator $shim cannot replace"
elif ! FAILALLOC_AT=0 LD_PRELOAD=$shim "$etldump" --version >/dev/null 2>"$tmp/err"; then
    skip=$((skip + 1))
    echo "memory: skipped the allocation-failure runs: $etldump cannot run under $shim ($(head -n 1 "$tmp/err"))"
else
    # Every allocation of a run fails in turn; past the first and before the
    # last 100 allocations (a manifest parsed by libxml2 makes thousands)
    # every 31st one, so that a long run costs hundreds of runs, not
    # thousands. ETLDUMP_OOM_EVERY=1 fails every one; ETLDUMP_OOM_ENDS and
    # ETLDUMP_OOM_STRIDE set the 100 and the 31.
    oom_ends=${ETLDUMP_OOM_ENDS:-100}
    oom_stride=${ETLDUMP_OOM_STRIDE:-31}
    case $oom_ends in ''|*[!0-9]*) oom_ends=100 ;; esac
    case $oom_stride in ''|*[!0-9]*|0) oom_stride=31 ;; esac
    oom_runs() {
        FAILALLOC_AT=0 FAILALLOC_REPORT=$tmp/report LD_PRELOAD=$shim \
            "$etldump" "$@" >/dev/null 2>"$tmp/err"
        rc0=$?
        total=$(sed -n 's/^allocations=\([0-9]*\) .*/\1/p' "$tmp/report" 2>/dev/null)
        [ "$rc0" -le 1 ] || bad "the run without a failure exits $rc0: etldump $*"
        [ -n "$total" ] || { bad "no allocation count: etldump $*"; return; }
        n=1
        while [ "$n" -le "$total" ]; do
            if [ -z "${ETLDUMP_OOM_EVERY:-}" ] && [ "$n" -gt "$oom_ends" ] &&
               [ "$n" -le $((total - oom_ends)) ] && [ $((n % oom_stride)) -ne 0 ]; then
                n=$((n + 1))
                continue
            fi
            : > "$tmp/report"
            FAILALLOC_AT=$n FAILALLOC_REPORT=$tmp/report LD_PRELOAD=$shim \
                "$etldump" "$@" >/dev/null 2>"$tmp/err"
            rc=$?
            # The report and the message are read by the shell itself: the
            # runs are many, and a process each costs.
            r=
            IFS= read -r r < "$tmp/report"
            # Threads may make a run's count vary: one that ends without
            # reaching the Nth allocation ends the scenario.
            case "$r" in *failed=0) [ "$rc" -le 1 ] && break ;; esac
            said=no
            while IFS= read -r l; do
                case $l in *"out of memory"*) said=yes; break ;; esac
            done < "$tmp/err"
            if [ "$rc" -eq 5 ] && [ "$r" = "${r%live=*}live=0 failed=1" ] && [ "$said" = yes ]; then
                ok
            else
                bad "allocation $n of $total failed: exit $rc, $r: etldump $* ($(head -c 200 "$tmp/err"))"
            fi
            n=$((n + 1))
        done
    }
    for fmt in csv text json; do
        for v in "" --events=all --stats --summary --info; do
            oom_runs $v -f $fmt samples/demo-processes.etl
        done
    done
    oom_runs -f csv samples/mixed-x86-circular-compressed.etl
    for v in "" --summary --summary=routines; do
        oom_runs $v -f text samples/ready-dpc.etl
    done
    oom_runs --usage -f csv samples/demo-processes.etl
    # The summary's rows going through its temporary file: written out as
    # runs, the runs merged, the threads' rows added up and sorted in runs
    # (build/tests/etldump-spill, whose summary keeps 64 rows in memory).
    build/mktrace --quiet --ready --dpc --processes --encoding=mixed --threads=90 --switches=800 \
        --seed=12 "$tmp/sp.etl" - || bad "mktrace sp.etl"
    e0=$etldump
    etldump=build/tests/etldump-spill
    oom_runs --summary -f csv "$tmp/sp.etl"
    etldump=$e0
    # Those temporary files failing to be read back, as on a failing disk:
    # the Nth read of an unlinked file and every later one fail, for every
    # N a run makes. The run ends with status 5 and its own message (not
    # "out of memory"), and frees what it holds. The copy of standard input
    # is such a file too: reading it fails as an input that cannot be read
    # (status 3 before the first buffer, else a problem at an offset).
    tempread_runs() { # WANT_RC WANT_MESSAGE PIPED ETLDUMP ARGS... (PIPED: a file on stdin, or "")
        want_rc=$1 want_msg=$2 in=$3; shift 3
        tempread_run 0 "$@"
        reads=$(sed -n 's/.* tempreads=\([0-9]*\) .*/\1/p' "$tmp/report" 2>/dev/null)
        if [ "$rc" -ne 0 ] || [ "${reads:-0}" -eq 0 ]; then
            bad "temporary files: the run without a failure exits $rc after ${reads:-no} reads: $*"
            return
        fi
        n=1
        while [ "$n" -le "$reads" ]; do
            tempread_run "$n" "$@"
            r=
            IFS= read -r r < "$tmp/report"
            case "$rc:$r" in
                $want_rc:*" live=0 failed=1")
                    if grep -q "$want_msg" "$tmp/err" && ! grep -q "out of memory" "$tmp/err"; then
                        ok
                    else
                        bad "temporary file read $n of $reads failed: $(head -c 200 "$tmp/err"): $*"
                    fi ;;
                *) bad "temporary file read $n of $reads failed: exit $rc, $r: $*" ;;
            esac
            n=$((n + 1))
        done
    }
    tempread_run() { # N ETLDUMP ARGS...: sets rc
        at=$1; shift
        : > "$tmp/report"
        cat "${in:-/dev/null}" | FAILALLOC_AT=0 FAILALLOC_TEMPREAD_AT=$at \
            FAILALLOC_REPORT=$tmp/report LD_PRELOAD=$shim "$@" > /dev/null 2> "$tmp/err"
        rc=$?
    }
    tempread_runs 5 ": a temporary file could not be read back$" "" \
        build/tests/etldump-spill --summary -f csv "$tmp/sp.etl"
    tempread_runs '[13]' "(standard input): .*Input/output error" "$tmp/sp.etl" \
        "$etldump" --summary -f csv -
    rm -f "$tmp/sp.etl"
    # Rows formatted on worker threads: the Nth allocation falls on any of
    # them, or on starting one. (Not XML: libxml2 loses blocks of its own
    # when an allocation of its initialisation fails, whatever the threads.)
    build/mktrace --quiet --encoding=compact --cpus=2 --switches=6000 --seed=9 "$tmp/t.etl" - ||
        bad "mktrace t.etl"
    for v in "-f csv" "-f text" "--events=all -f json" "--events=all --no-fields -f text"; do
        oom_runs --threads=2 $v samples/demo-processes.etl
        oom_runs --threads=3 $v "$tmp/t.etl"
    done
    # Compressed buffers decompressed ahead on other threads (walks in file
    # order): the Nth allocation falls on a helper's slot, or starting one.
    for v in "--stats -f csv" "--info -f text" "-f csv"; do
        oom_runs --threads=2 $v samples/mixed-x86-circular-compressed.etl
        oom_runs --threads=3 $v samples/mixed-x86-circular-compressed.etl
    done
    oom_runs -f perfetto -o "$tmp/out.pftrace" samples/demo-processes.etl
    oom_runs -f svg -o "$tmp/out.svg" samples/demo-processes.etl
    oom_runs --events=all -f csv --process=svchost,abc --tid=1-5,7 --range=0.5: samples/demo-processes.etl
    oom_runs --groupmask=PERF_CONTEXT_SWITCH,0x20000100 -f csv
    oom_runs -f csv samples/demo-compact.etl samples/cswitch-v4-pmc-pebs.etl
    oom_runs --events=Process,Thread/SetName --hook=Process/Start,0x0524 -f csv samples/demo-processes.etl
    for f in "$shared"/samples/real/dnperf-dynamicevents.etl "$shared"/samples/real/pv-diaghub-kernel.etl \
             "$shared"/samples/real/jl-perfview.etl; do
        [ -f "$f" ] || continue
        for v in --events=all --stats --summary; do
            oom_runs $v -f csv "$f"
        done
    done
    # TraceLogging events.
    for f in "$shared"/samples/real/pv-selfdescribing.etl "$shared"/samples/real/pv-primitive-types.etl; do
        [ -f "$f" ] || continue
        oom_runs --events=all -f json "$f"
        oom_runs --events=all -f text "$f"
    done
fi
echo "memory: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
