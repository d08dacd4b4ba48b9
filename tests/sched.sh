#!/bin/sh
# Why a thread was not running: ReadyThread, DPC and ISR events.
#
#  1. Traces built by the test writer with ReadyThread, DPC and ISR events
#     (mktrace --ready --dpc --processes) in several configurations decode to
#     switches whose every column, the wait-analysis ones included
#     (new_since_last ... new_run), is the writer's truth, computed from its
#     own schedule; --summary equals the writer's summary truth, also clipped
#     by --range and restricted by --cpu.
#  2. The summary's sums are the per-switch columns' (from etldump's own CSV
#     output): per thread, ready_time the sum of new_ready, wait_time the sum
#     of new_waited, waits the switch-ins whose wait a ReadyThread ended,
#     the ready percentiles and maximum the nearest ranks of new_ready,
#     top_readiers the readying processes counted; per processor, dpc_time
#     and isr_time the routines table's totals; readied_at per --time.
#  3. --summary=routines, and the routines table after the summary where the
#     printer allows a second table.
#  4. The summary's spill file: build/tests/etldump-spill keeps 64 thread
#     rows in memory (etldump 16384), merges its runs past 4 and sorts 16 KiB
#     of rows at a time, so these traces' rows go through its file, are
#     merged by thread and sorted in runs; its summary must be etldump's,
#     which keeps them in memory: in every format, with the filters, with
#     more runs than it merges at once, and without a place for the file.
#     build/tests/etldump-spillcap, whose files take no rows past twice the
#     input's size, stops there and gives the same summary.
# Usage: tests/sched.sh ETLDUMP [MKTRACE [ETLDUMP-SPILL [ETLDUMP-SPILLCAP]]]
set -u
etldump=$1
mktrace=${2:-$(dirname "$0")/../build/mktrace}
spill=${3:-$(dirname "$0")/../build/tests/etldump-spill}
spillcap=${4:-$(dirname "$0")/../build/tests/etldump-spillcap}
cmp=$(dirname "$0")/cmpcsv.awk
export LC_ALL=C TZ=UTC
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "sched: FAIL: $*"; }

# same NAME WANT GOT: GOT has WANT's columns with WANT's values, row by row.
same() {
    if awk -F, -f "$cmp" "$2" "$3" > "$tmp/cmp" 2>&1; then
        ok
    else
        bad "$1:"; sed -n '1,8p' "$tmp/cmp"
    fi
}

# dump NAME OUT ARGS...: etldump ARGS > OUT, exit 0 and nothing on stderr
# but the warning about lost data of the traces that lost some (tests/unix.sh
# checks that warning).
dump() {
    name=$1 out=$2; shift 2
    "$etldump" "$@" > "$out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -v ': warning: the trace lost data: ' "$tmp/err" | grep -q .; then
        return 0
    fi
    bad "$name: etldump $*: exit $rc: $(head -n 2 "$tmp/err")"
    return 1
}

# ---- 1. the writer's truth ------------------------------------------------------------

# truth NAME [ETLDUMP SUMMARY OPTIONS --] MKTRACE-OPTIONS...
truth() {
    name=$1; shift
    sopt=""
    case " $* " in
        *" -- "*) while [ "$1" != -- ]; do sopt="$sopt $1"; shift; done; shift ;;
    esac
    summary=--summary="$tmp/sum.csv"
    case " $* " in *" --processes "*) ;; *) summary="" ;; esac
    # shellcheck disable=SC2086
    if ! "$mktrace" --quiet $summary "$@" "$tmp/t.etl" "$tmp/want.csv" 2> "$tmp/gen.err"; then
        bad "$name: mktrace: $(head -n 2 "$tmp/gen.err")"
        return
    fi
    dump "$name switches" "$tmp/got.csv" -f csv --time=raw "$tmp/t.etl" &&
        same "$name: switches" "$tmp/want.csv" "$tmp/got.csv"
    if [ -n "$summary" ]; then
        # shellcheck disable=SC2086
        dump "$name summary" "$tmp/got.csv" --summary -f csv $sopt "$tmp/t.etl" &&
            same "$name: summary" "$tmp/sum.csv" "$tmp/got.csv"
    fi
}

all="--ready --dpc --processes"
for enc in cswitch compact mixed; do
    truth "$enc" $all --encoding=$enc --seed=201 --switches=6000
    truth "$enc ptr4" $all --encoding=$enc --ptr=4 --seed=202 --switches=5000
    truth "$enc lost buffer" $all --encoding=$enc --lost-cpu=1 --cpus=3 --buffer-size=2048 \
        --switches=6000 --seed=203
    truth "$enc lost buffer ptr4" $all --encoding=$enc --ptr=4 --lost-cpu=0 --cpus=2 \
        --buffer-size=1536 --switches=4000 --seed=204
    truth "$enc compressed circular" $all --encoding=$enc --compress --circular --cpus=6 \
        --switches=8000 --seed=205
    truth "$enc pmc pebs" $all --encoding=$enc --pmc=3 --pebs --seed=206 --switches=4000
    truth "$enc ReadyThread only" --ready --processes --encoding=$enc --seed=207 --switches=5000
    truth "$enc DPC/ISR only" --dpc --processes --encoding=$enc --seed=208 --switches=5000
    truth "$enc no processes" --ready --dpc --encoding=$enc --seed=209 --switches=4000
    truth "$enc --range --cpu" --range=1.5:20 --cpu=0,2 -- $all --summary-range=1.5:20 \
        --summary-cpus=0,2 --encoding=$enc --seed=210 --switches=8000
    truth "$enc --range" --range=:3.25 -- $all --summary-range=:3.25 --encoding=$enc --seed=211 \
        --switches=8000
done
truth "16 cpus small buffers" $all --encoding=mixed --cpus=16 --buffer-size=1536 --switches=20000 \
    --threads=80 --seed=212
truth "Windows 7 compact" $all --build=7601 --encoding=compact --max-wait-reason=0x25 --seed=213
# 24000 threads at once: the summary keeps 16384 rows in memory, so rows go
# to its temporary file and come back from it all along.
truth "more threads than the summary keeps" $all --encoding=mixed --threads=24000 --switches=90000 \
    --seed=214
# Without a place for that file, the rows stay in memory: the same summary,
# and one warning.
if TMPDIR=$tmp/nowhere "$etldump" --summary -f csv "$tmp/t.etl" > "$tmp/got.csv" 2> "$tmp/err" &&
   [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
   grep -q "warning: --summary: past 16384 threads the rows go to a temporary file in $tmp/nowhere, which could not be made" "$tmp/err"; then
    same "no temporary file: summary" "$tmp/sum.csv" "$tmp/got.csv"
else
    bad "no temporary file: etldump --summary: $(head -n 2 "$tmp/err")"
fi
truth "Windows 11" $all --build=22631 --encoding=mixed --cpus=8 --threads=120 --switches=20000 \
    --seed=214
truth "first-ts prev" $all --encoding=compact --first-ts=prev --seed=215 --switches=4000
truth "one cpu" $all --cpus=1 --switches=2000 --seed=216 --encoding=mixed

# ---- 2. the summary's sums are the per-switch columns' -------------------------------

# sums NAME MKTRACE-OPTIONS...: checks etldump's summary against its switch rows.
sums() {
    name=$1; shift
    if ! "$mktrace" --quiet "$@" "$tmp/t.etl" - 2> "$tmp/gen.err"; then
        bad "$name: mktrace: $(head -n 2 "$tmp/gen.err")"
        return
    fi
    dump "$name switches" "$tmp/sw.csv" -f csv "$tmp/t.etl" || return
    dump "$name summary" "$tmp/sum.csv" --summary -f csv "$tmp/t.etl" || return
    dump "$name routines" "$tmp/rt.csv" --summary=routines -f csv "$tmp/t.etl" || return
    # Per thread (PID:TID of the new thread), from the switch rows: the sums,
    # the waits that a ReadyThread ended (the thread's previous switch-out
    # was Waiting), the readying processes; the values of new_ready.
    tr -d '\r' < "$tmp/sw.csv" | awk -F, -v vals="$tmp/vals" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        {
            ot = $(c["old_pid"]) ":" $(c["old_tid"])
            if ($(c["old_tid"]) != "" && $(c["old_tid"]) != 0) out[ot] = $(c["old_state"])
            nt = $(c["new_pid"]) ":" $(c["new_tid"])
            if ($(c["new_tid"]) == "" || $(c["new_tid"]) == 0) next
            seen[nt] = 1
            r = $(c["new_ready"]); w = $(c["new_waited"])
            if (r != "") { ready[nt] += r; print nt, r > vals }
            if (w != "") { wait[nt] += w; if (out[nt] == "Waiting") waits[nt]++ }
            p = $(c["readying_process"])
            if (p != "") { rd[nt, p]++; rdn[nt] = rdn[nt] " " p }
        }
        END {
            for (t in seen) {
                printf "%s,%.9f,%.9f,%d,", t, ready[t], wait[t], waits[t]
                # the three readying processes that readied t most (ties by name)
                split(rdn[t], names, " "); delete done; s = ""
                for (k = 0; k < 3; k++) {
                    best = ""; bn = 0
                    for (j in names) { q = names[j]; if (q in done) continue
                        if (rd[t, q] > bn || (rd[t, q] == bn && q < best)) { best = q; bn = rd[t, q] } }
                    if (best == "") break
                    done[best] = 1; s = s (s == "" ? "" : " ") best ":" bn
                }
                print s
            }
        }' | sort > "$tmp/from_switches"
    # Nearest-rank percentiles of each thread's new_ready values.
    sort -k1,1 -k2,2g "$tmp/vals" | awk '
        function flush() {
            if (cur == "") return
            printf "%s", cur
            split("50 90 99", p, " ")
            for (k = 1; k <= 3; k++) { r = int((p[k] * n + 99) / 100); printf ",%s", v[r] }
            printf ",%s\n", v[n]
        }
        $1 != cur { flush(); cur = $1; n = 0 }
        { v[++n] = $2 }
        END { flush() }' | sort > "$tmp/pct_from_switches"
    tr -d '\r' < "$tmp/sum.csv" | awk -F, -v pct="$tmp/pct_from_summary" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 == "thread" && $(c["tid"]) != 0 {
            t = $(c["pid"]) ":" $(c["tid"])
            if ($(c["switch_ins"]) == 0) next
            printf "%s,%.9f,%.9f,%d,%s\n", t, $(c["ready_time"]), $(c["wait_time"]), $(c["waits"]), $(c["top_readiers"])
            if ($(c["ready_max"]) != "")
                print t "," $(c["ready_p50"]) "," $(c["ready_p90"]) "," $(c["ready_p99"]) "," $(c["ready_max"]) > pct
        }' | sort > "$tmp/from_summary"
    sort -o "$tmp/pct_from_summary" "$tmp/pct_from_summary"
    n=$(wc -l < "$tmp/from_summary" | tr -d ' ')
    if [ "$n" -gt 10 ] && cmp -s "$tmp/from_switches" "$tmp/from_summary"; then
        ok
    else
        bad "$name: $n thread rows; sums of the switch rows differ from the summary:"
        diff "$tmp/from_switches" "$tmp/from_summary" | sed -n '1,6p'
    fi
    if [ -s "$tmp/pct_from_summary" ] && cmp -s "$tmp/pct_from_switches" "$tmp/pct_from_summary"; then
        ok
    else
        bad "$name: ready percentiles differ from the switch rows' new_ready:"
        diff "$tmp/pct_from_switches" "$tmp/pct_from_summary" | sed -n '1,6p'
    fi
    # DPC and ISR time: the processors' is the routines'; the processes'
    # (the interrupted thread known) at most that.
    tr -d '\r' < "$tmp/rt.csv" | awk -F, 'NR > 1 { if ($1 ~ /ISR/) isr += $4; else dpc += $4 }
        END { printf "%.9f %.9f\n", dpc, isr }' > "$tmp/rt.tot"
    tr -d '\r' < "$tmp/sum.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 == "cpu" { dpc += $(c["dpc_time"]); isr += $(c["isr_time"]) }
        $1 == "process" { pd += $(c["dpc_time"]); pi += $(c["isr_time"]) }
        END { printf "%.9f %.9f\n", dpc, isr; if (pd > dpc + 1e-9 || pi > isr + 1e-9 || dpc == 0) exit 1 }' \
        > "$tmp/cpu.tot"
    st=$?
    if [ "$st" -eq 0 ] && cmp -s "$tmp/rt.tot" "$tmp/cpu.tot"; then
        ok
    else
        bad "$name: DPC/ISR time: routines $(cat "$tmp/rt.tot"), processors $(cat "$tmp/cpu.tot") (status $st)"
    fi
    # readied_at per --time: in seconds, new_ready is time - readied_at when
    # the wait ended with a ReadyThread (new_waited > 0 or no switch-out).
    tr -d '\r' < "$tmp/sw.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $(c["readied_at"]) != "" && $(c["new_ready"]) != "" && $(c["new_waited"]) + 0 > 0 {
            n++; d = $(c["time"]) - $(c["readied_at"]) - $(c["new_ready"])
            if (d > 2e-9 || d < -2e-9) { print "row " NR ": " $0; bad = 1 }
        }
        END { exit bad || n == 0 }' > "$tmp/cmp"
    if [ $? -eq 0 ]; then ok; else bad "$name: readied_at (seconds) and new_ready disagree:"; sed -n '1,3p' "$tmp/cmp"; fi
}

sums "cswitch sums" --ready --dpc --processes --encoding=cswitch --seed=221 --switches=8000
sums "compact sums" --ready --dpc --processes --encoding=compact --seed=222 --switches=8000
sums "mixed lost sums" --ready --dpc --processes --encoding=mixed --lost-cpu=2 --buffer-size=2048 \
    --seed=223 --switches=8000

# ---- 3. the routines table -----------------------------------------------------------

"$mktrace" --quiet --ready --dpc --processes --encoding=mixed --seed=231 --switches=3000 \
    "$tmp/t.etl" - 2> /dev/null
if dump "routines" "$tmp/rt.csv" --summary=routines -f csv "$tmp/t.etl"; then
    hdr=$(head -n 1 "$tmp/rt.csv" | tr -d '\r')
    rows=$(($(wc -l < "$tmp/rt.csv") - 1))
    # sorted by total_time, most first
    if [ "$hdr" = "type,routine,count,total_time,mean_time,max_time" ] && [ "$rows" -gt 10 ] &&
       tr -d '\r' < "$tmp/rt.csv" | awk -F, 'NR > 2 && $4 + 0 > prev + 0 { exit 1 } { prev = $4 }'; then
        ok
    else
        bad "routines: header '$hdr', $rows rows, or not sorted by total_time"
    fi
fi
# After the summary rows in XML, JSON and text; not in CSV (one table).
dump "routines json" "$tmp/s.json" --summary -f json "$tmp/t.etl" &&
    { n=$(grep -c '"routine":' "$tmp/s.json"); [ "$n" = "$rows" ] && ok || bad "routines json: $n rows, want $rows"; }
dump "routines xml" "$tmp/s.xml" --summary -f xml "$tmp/t.etl" &&
    { n=$(grep -c '<routine ' "$tmp/s.xml"); [ "$n" = "$rows" ] && ok || bad "routines xml: $n rows, want $rows"; }
dump "summary csv" "$tmp/s.csv" --summary -f csv "$tmp/t.etl" &&
    { grep -q 'routine' "$tmp/s.csv" && bad "summary csv: holds the routines table" || ok; }
# Without DPC/ISR events: dpc_time and isr_time empty, and no routines.
"$mktrace" --quiet --ready --processes --seed=232 --switches=2000 "$tmp/t.etl" - 2> /dev/null
if dump "no dpc" "$tmp/s.csv" --summary -f csv "$tmp/t.etl"; then
    if tr -d '\r' < "$tmp/s.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $(c["dpc_time"]) != "" || $(c["isr_time"]) != "" { exit 1 }' &&
       [ "$("$etldump" --summary=routines -f csv "$tmp/t.etl" | wc -l)" -eq 1 ]; then
        ok
    else
        bad "no dpc: dpc_time/isr_time set or routines listed"
    fi
fi
"$etldump" --summary=threads "$tmp/t.etl" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "summary" "$tmp/err"; then ok; else bad "--summary=threads: exit $rc, want 2"; fi

# ---- 4. the summary's spill file ------------------------------------------------------

# spilt NAME FILE ARGS...: etldump-spill's --summary ARGS of FILE is etldump's.
spilt() {
    name=$1 f=$2; shift 2
    "$etldump" --summary "$@" "$f" > "$tmp/want" 2> "$tmp/want.err"
    want_rc=$?
    "$spill" --summary "$@" "$f" > "$tmp/got" 2> "$tmp/got.err"
    got_rc=$?
    if [ "$want_rc" -eq "$got_rc" ] && cmp -s "$tmp/want" "$tmp/got" &&
       cmp -s "$tmp/want.err" "$tmp/got.err"; then
        ok
    else
        bad "spill file: $name: --summary $* differs (exit $want_rc and $got_rc): $(cmp "$tmp/want" "$tmp/got" 2>&1 | head -n 1)"
    fi
}

if [ ! -x "$spill" ] || [ ! -x "$spillcap" ]; then
    echo "sched: FAIL: no $spill or $spillcap (make build/tests/etldump-spill build/tests/etldump-spillcap)"
    fail=$((fail + 1))
else
    n=0
    for gen in "--ready --dpc --processes --encoding=mixed --threads=300 --switches=6000" \
               "--ready --processes --encoding=compact --threads=90 --switches=20000" \
               "--dpc --encoding=cswitch --threads=200 --switches=5000" \
               "--ready --dpc --processes --encoding=mixed --cpus=16 --threads=2000 --switches=30000"; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        "$mktrace" --quiet $gen --seed=$((240 + n)) "$tmp/sp$n.etl" - 2> /dev/null ||
            { bad "spill file: mktrace $gen"; continue; }
        for fmt in csv json xml text; do
            spilt "$gen" "$tmp/sp$n.etl" -f "$fmt"
        done
        spilt "$gen" "$tmp/sp$n.etl" -f csv --range=1:3 --cpu=0,1
        spilt "$gen" "$tmp/sp$n.etl" -f csv --pid=4-1000 --tid=1-4000
        spilt "$gen" "$tmp/sp$n.etl" -f csv --process=svchost.exe
        spilt "$gen" "$tmp/sp$n.etl" --summary=routines -f csv
    done
    for f in "$(dirname "$0")"/../samples/*.etl; do
        spilt "$(basename "$f")" "$f" -f csv
    done
    # Without a place for the file, the rows stay in memory (the same rows)
    # and one warning says so, for memory no longer stays flat.
    "$etldump" --summary -f csv "$tmp/sp1.etl" > "$tmp/want" 2> "$tmp/want.err"
    TMPDIR="$tmp/nowhere" "$spill" --summary -f csv "$tmp/sp1.etl" > "$tmp/got" 2> "$tmp/got.err"
    rc=$?
    nowhere="^etldump: [^:]*sp1.etl: warning: --summary: past 64 threads the rows go to a temporary file in $tmp/nowhere, which could not be made (No such file or directory): they stay in memory\$"
    if [ "$rc" -eq 0 ] && cmp -s "$tmp/want" "$tmp/got" && [ ! -s "$tmp/want.err" ] &&
       [ "$(wc -l < "$tmp/got.err")" -eq 1 ] && grep -q "$nowhere" "$tmp/got.err"; then
        ok
    else
        bad "spill file: no temporary file: exit $rc, $(head -n 2 "$tmp/got.err")"
    fi
    # Likewise when the disk fills up under the file: a 64 KiB file system
    # of its own, where root may mount one.
    mkdir "$tmp/full"
    if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k etldump-test "$tmp/full" 2>/dev/null; then
        "$etldump" --summary -f csv "$tmp/sp4.etl" > "$tmp/want" 2> "$tmp/want.err"
        TMPDIR="$tmp/full" "$spill" --summary -f csv "$tmp/sp4.etl" > "$tmp/got" 2> "$tmp/got.err"
        rc=$?
        left=$(ls -A "$tmp/full")
        umount "$tmp/full" 2>/dev/null || umount -l "$tmp/full"
        full="^etldump: [^:]*sp4.etl: warning: --summary: past 64 threads the rows go to a temporary file in $tmp/full, which could not be written (No space left on device): they stay in memory\$"
        if [ "$rc" -eq 0 ] && cmp -s "$tmp/want" "$tmp/got" && [ ! -s "$tmp/want.err" ] &&
           [ "$(wc -l < "$tmp/got.err")" -eq 1 ] && grep -q "$full" "$tmp/got.err" &&
           [ -z "$left" ]; then
            ok
        else
            bad "spill file: a full disk: exit $rc, $(head -n 2 "$tmp/got.err")${left:+; left: $left}"
        fi
    else
        skip=$((skip + 1)); echo "sched: skipped the full-disk spill test: a tmpfs cannot be mounted here (root only)"
    fi
    # The rows do go through a file: etldump-spill makes one in TMPDIR, and
    # etldump does not.
    if command -v strace > /dev/null 2>&1; then
        mkdir -p "$tmp/spilldir"
        for b in "$spill" "$etldump"; do
            TMPDIR=$tmp/spilldir strace -f -e trace=openat -o "$tmp/strace" "$b" --summary -f csv \
                "$tmp/sp4.etl" > /dev/null 2>&1
            # A file with no name (O_TMPFILE, Linux), or a named one.
            made=$(grep -F "\"$tmp/spilldir" "$tmp/strace" | grep -c -e 'spilldir/etldump-' -e O_TMPFILE)
            case "$b:$made" in
                "$spill:0"|"$etldump:"[1-9]*) bad "spill file: $b --summary made $made files in TMPDIR" ;;
                *) ok ;;
            esac
        done
        # The files take no rows past twice the input's size (and 1 GiB in
        # etldump; none in etldump-spillcap): on a trace of 20000 threads
        # whose rows are ten times its size, etldump-spill's largest file
        # passes that, etldump-spillcap's stops within a run of rows of it,
        # and the summary is the same.
        if "$mktrace" --quiet --encoding=compact --threads=20000 --switches=25000 --seed=7 \
               "$tmp/cap.etl" - 2> /dev/null; then
            twice=$((2 * $(wc -c < "$tmp/cap.etl")))
            for b in "$spill" "$spillcap"; do
                rm -f "$tmp/spilldir"/*
                TMPDIR=$tmp/spilldir strace -f -y -e trace=pwrite64 -o "$tmp/strace" "$b" \
                    --summary -f csv "$tmp/cap.etl" > /dev/null 2>&1
                # The largest offset + length written to one of its files.
                most=$(grep -a -F -e "<$tmp/spilldir/etldump-" -e "<$tmp/spilldir/#" "$tmp/strace" |
                       sed -n 's/.*, \([0-9][0-9]*\), \([0-9][0-9]*\)) = .*/\1 \2/p' |
                       awk '$1 + $2 > m { m = $1 + $2 } END { print m + 0 }')
                case $b in
                    "$spill") [ "$most" -gt $((twice + 65536)) ] ;;
                    *) [ "$most" -gt "$twice" ] && [ "$most" -le $((twice + 65536)) ] ;;
                esac && ok || bad "spill file: $b: largest file $most bytes, input twice $twice"
            done
            spill=$spillcap spilt "files full" "$tmp/cap.etl" -f csv
        else
            bad "spill file: mktrace of 20000 threads"
        fi
    else
        skip=$((skip + 1))
        echo "sched: skipped the checks that the rows go through a file and its bound: no strace"
    fi
fi

echo "sched: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
