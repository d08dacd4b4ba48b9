#!/bin/sh
# Who ran: processes and threads, filters and the scheduling summary.
#
#  1. Traces built by the test writer with Process and Thread events
#     (mktrace --processes: rundowns, starts and ends, TID reuse across
#     processes) decode to switches whose old_pid, old_process, new_pid and
#     new_process (and the wait-analysis columns, --settled) are the writer's
#     truth, and --summary equals the writer's summary (also clipped by
#     --range and restricted by --cpu), without ReadyThread events.
#  2. Filters choose rows and change nothing else: the rows etldump prints
#     with --cpu, --tid, --pid, --process or --range are exactly the rows of
#     the unfiltered output that match, in all four formats alike; --hook
#     and --tid on --events=all likewise; summary rows keep their figures.
#  3. On the real traces (../shared/samples/real; skipped when absent) the
#     thread -> process map agrees with the Process and Thread records:
#     --events=all --process=IMAGE keeps exactly the thread records whose
#     process (by the file's own Process records) has that image.
# Usage: tests/processes.sh ETLDUMP [MKTRACE [SHARED]]
set -u
etldump=$1
mktrace=${2:-$(dirname "$0")/../build/mktrace}
shared=${3:-${ETLDUMP_SHARED:-$(dirname "$0")/../../shared}}
cmp=$(dirname "$0")/cmpcsv.awk
export LC_ALL=C TZ=UTC
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "processes: FAIL: $*"; }

# gen NAME MKTRACE-OPTIONS...: builds $tmp/t.etl, want.csv and sum.csv.
gen() {
    name=$1; shift
    if "$mktrace" --quiet --processes --settled --summary="$tmp/sum.csv" "$@" "$tmp/t.etl" "$tmp/want.csv" \
           2> "$tmp/gen.err"; then
        return 0
    fi
    bad "$name: mktrace: $(head -n 2 "$tmp/gen.err")"
    return 1
}

# same NAME WANT GOT: GOT has WANT's columns with WANT's values, row by row.
same() {
    if awk -F, -f "$cmp" "$2" "$3" > "$tmp/cmp" 2>&1; then
        ok
    else
        bad "$1:"; sed -n '1,6p' "$tmp/cmp"
    fi
}

# dump NAME ARGS...: etldump ARGS > $tmp/got, exit 0 and nothing on stderr
# but the warning about lost data of the traces that lost some (tests/cli.sh
# checks that warning).
dump() {
    name=$1; shift
    "$etldump" "$@" > "$tmp/got" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -v ': warning: the trace lost data: ' "$tmp/err" | grep -q .; then
        return 0
    fi
    bad "$name: etldump $*: exit $rc: $(head -n 2 "$tmp/err")"
    return 1
}

# ---- 1. the truth of generated traces -------------------------------------------

check_truth() {
    name=$1; shift
    gen "$name" "$@" || return
    if dump "$name switches" -f csv --time=raw "$tmp/t.etl"; then
        same "$name: switches" "$tmp/want.csv" "$tmp/got"
    fi
    if dump "$name summary" --summary -f csv "$tmp/t.etl"; then
        same "$name: summary" "$tmp/sum.csv" "$tmp/got"
    fi
}

for enc in cswitch compact mixed; do
    check_truth "$enc" --encoding=$enc --seed=51 --switches=6000
    check_truth "$enc ptr4" --encoding=$enc --ptr=4 --seed=52 --switches=4000
    check_truth "$enc end rundown only" --encoding=$enc --rundown=end --seed=53 --switches=4000
    check_truth "$enc start rundown only" --encoding=$enc --rundown=start --seed=54 --switches=4000
    check_truth "$enc lost buffer" --encoding=$enc --lost-cpu=1 --cpus=3 --buffer-size=2048 \
        --switches=5000 --seed=55
    check_truth "$enc compressed circular" --encoding=$enc --compress --circular --cpus=6 \
        --switches=8000 --seed=56
done
check_truth "Windows 7 layouts" --build=7601 --encoding=compact --max-wait-reason=0x25 --seed=57
check_truth "Windows 8 ptr4" --build=9200 --max-wait-reason=0x26 --ptr=4 --encoding=mixed --seed=58
check_truth "Windows 11" --build=22631 --encoding=mixed --seed=59 --cpus=8 --threads=120 \
    --switches=30000
check_truth "one cpu" --cpus=1 --switches=2000 --seed=60
check_truth "many threads" --threads=400 --cpus=12 --switches=40000 --seed=61 --encoding=mixed

# The writer reused TIDs across processes: the map must have told them apart.
gen "reuse" --encoding=mixed --seed=62 --switches=20000 --threads=60
if [ -f "$tmp/want.csv" ]; then
    reused=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                      $3 != 0 { op = $(col["old_pid"]); if (($3 in p) && p[$3] != op) n[$3] = 1; p[$3] = op }
                      END { c = 0; for (k in n) c++; print c }' "$tmp/want.csv")
    if [ "$reused" -gt 0 ]; then ok; else bad "reuse: no TID changed process in the generated trace"; fi
    dump "reuse" -f csv --time=raw "$tmp/t.etl" && same "reuse: $reused reused TIDs" "$tmp/want.csv" "$tmp/got"
fi

# --range and --cpu in the summary: spans clipped, switches selected.
for r in 1.5:20 :3.25 10: 0.5:0.75; do
    for c in "" 0,2; do
        copt="" gopt=""
        [ -n "$c" ] && copt=--cpu=$c && gopt=--summary-cpus=$c
        if "$mktrace" --quiet --processes --settled --summary="$tmp/sum.csv" --summary-range=$r $gopt \
               --encoding=mixed --seed=63 --switches=8000 "$tmp/t.etl" - 2> "$tmp/gen.err"; then
            dump "summary --range=$r $copt" --summary -f csv --range=$r $copt "$tmp/t.etl" &&
                same "summary --range=$r $copt" "$tmp/sum.csv" "$tmp/got"
        else
            bad "summary range: mktrace: $(head -n 1 "$tmp/gen.err")"
        fi
    done
done

# ---- 2. filters choose rows, in every format ------------------------------------

gen "filters" --encoding=mixed --seed=64 --switches=6000 --cpus=4
"$etldump" -f csv "$tmp/t.etl" | tr -d '\r' > "$tmp/all.csv"
hdr=$(head -n 1 "$tmp/all.csv")
col() { echo "$hdr" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
c_cpu=$(col cpu) c_time=$(col time) c_ot=$(col old_tid) c_nt=$(col new_tid)
c_op=$(col old_pid) c_np=$(col new_pid) c_oi=$(col old_process) c_ni=$(col new_process)
tid=$(awk -F, -v c="$c_ot" 'NR == 200 { print $c }' "$tmp/all.csv")
pid=$(awk -F, -v c="$c_op" 'NR > 1 && $c != 0 && $c != "" { print $c; exit }' "$tmp/all.csv")
img=$(awk -F, -v c="$c_oi" -v p="$c_op" 'NR > 1 && $p != 0 && $c != "" { print $c; exit }' "$tmp/all.csv")
# The same image in other letters and without its extension.
img_arg=$(echo "$img" | tr 'a-z' 'A-Z' | sed 's/\.EXE$//')

# filter LABEL AWK-CONDITION ETLDUMP-OPTIONS...
filter() {
    label=$1 cond=$2; shift 2
    awk -F, -v cpu="$c_cpu" -v t="$c_time" -v ot="$c_ot" -v nt="$c_nt" -v op="$c_op" \
        -v np="$c_np" -v oi="$c_oi" -v ni="$c_ni" "NR == 1 || ($cond)" "$tmp/all.csv" > "$tmp/want"
    rows=$(($(wc -l < "$tmp/want") - 1))
    if [ "$rows" -lt 1 ]; then
        bad "$label: no row matches in the unfiltered output"
        return
    fi
    if dump "$label" -f csv "$@" "$tmp/t.etl"; then
        tr -d '\r' < "$tmp/got" > "$tmp/got.csv"
        if cmp -s "$tmp/want" "$tmp/got.csv"; then
            ok
        else
            bad "$label: rows differ from the unfiltered rows that match ($rows expected):"
            diff "$tmp/want" "$tmp/got.csv" | sed -n '1,6p'
        fi
    fi
    # The other formats print as many rows.
    n_json=$("$etldump" -f json "$@" "$tmp/t.etl" | wc -l | tr -d ' ')
    n_xml=$("$etldump" -f xml "$@" "$tmp/t.etl" | grep -c '<switch ')
    n_text=$("$etldump" -f text "$@" "$tmp/t.etl" | awk '/^cpu +time/ { on = 1; next } on && NF' | wc -l | tr -d ' ')
    if [ "$n_json" = "$rows" ] && [ "$n_xml" = "$rows" ] && [ "$n_text" = "$rows" ]; then
        ok
    else
        bad "$label: $rows CSV rows, $n_json JSON, $n_xml XML, $n_text text"
    fi
}

filter "--cpu=1,3" '$cpu == 1 || $cpu == 3' --cpu=1,3
filter "--cpu=0-1" '$cpu <= 1' --cpu=0-1
filter "--tid=$tid" "\$ot == $tid || \$nt == $tid" --tid="$tid"
filter "--pid=$pid" "\$op == \"$pid\" || \$np == \"$pid\"" --pid="$pid"
filter "--process=$img_arg" "\$oi == \"$img\" || \$ni == \"$img\"" --process="$img_arg"
filter "--range=8:11.5" '$t + 0 >= 8 && $t + 0 <= 11.5' --range=8:11.5
filter "--range=:0.8" '$t + 0 <= 0.8' --range=:0.8
filter "--cpu --pid --range" "\$cpu == 2 && (\$op == \"$pid\" || \$np == \"$pid\") && \$t + 0 >= 1" \
    --cpu=2 --pid="$pid" --range=1:

# A compact switch's new thread comes from the next switch on its CPU, shown
# or not: with every other switch filtered out, new_tid is still there.
gen "compact" --encoding=compact --seed=65 --switches=3000 --cpus=2
if dump "compact --tid" -f csv --time=raw --tid="$(awk -F, 'NR == 40 { print $3 }' "$tmp/want.csv")" "$tmp/t.etl"; then
    tr -d '\r' < "$tmp/got" > "$tmp/got.csv"
    # every filtered row is the expected row with that timestamp and CPU
    if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
                NR == FNR { if (FNR > 1) w[$1 "," $2] = $3 "," $4 "," $(col["old_pid"]) "," $(col["new_pid"]); next }
                FNR == 1 { for (i = 1; i <= NF; i++) g[$i] = i; next }
                { n++; if (w[$1 "," $2] != $4 "," $5 "," $(g["old_pid"]) "," $(g["new_pid"])) { print "row " FNR ": " $0; bad = 1 } }
                END { exit bad || n == 0 }' "$tmp/want.csv" "$tmp/got.csv" > "$tmp/cmp"; then
        ok
    else
        bad "compact --tid: filtered rows lost their linked new thread:"; sed -n '1,4p' "$tmp/cmp"
    fi
fi

# --events=all: --hook and --tid choose events, never change them.
gen "events" --encoding=cswitch --seed=66 --switches=3000
"$etldump" --events=all -f json "$tmp/t.etl" > "$tmp/ev.json"
t1=$(jq -r 'select(.hook_id == "0x0501") | .thread_id' "$tmp/ev.json" | sed -n 3p)
for f in "--hook=0x0501-0x0504,0x0548|select(.hook_id | IN(\"0x0501\", \"0x0502\", \"0x0503\", \"0x0504\", \"0x0548\"))" \
         "--tid=$t1|select(.tid == $t1 or .thread_id == $t1)" \
         "--hook=0x0301,0x0302 --cpu=0|select((.hook_id == \"0x0301\" or .hook_id == \"0x0302\") and .cpu == 0)"; do
    opts=${f%%|*} sel=${f#*|}
    jq -c "$sel" "$tmp/ev.json" > "$tmp/want"
    # shellcheck disable=SC2086
    if dump "events $opts" --events=all -f json $opts "$tmp/t.etl"; then
        jq -c . "$tmp/got" > "$tmp/got.json"
        if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got.json"; then
            ok
        else
            bad "events $opts: $(wc -l < "$tmp/got.json") rows, want $(wc -l < "$tmp/want") (the unfiltered rows that match)"
        fi
    fi
done
# Process and Thread events carry their payload's fields.
n_img=$(jq -r 'select(.hook_id == "0x0303") | .image' "$tmp/ev.json" | grep -c .)
n_dc=$(jq -r 'select(.hook_id == "0x0303") | .hook_id' "$tmp/ev.json" | wc -l | tr -d ' ')
n_thr=$(jq -r 'select(.hook_id == "0x0501" and .thread_id != null and .process_id != null) | .hook_id' "$tmp/ev.json" | wc -l | tr -d ' ')
if [ "$n_dc" -gt 0 ] && [ "$n_img" = "$n_dc" ] && [ "$n_thr" -gt 0 ]; then
    ok
else
    bad "events: $n_img of $n_dc Process DCStart events have an image, $n_thr Thread Starts have IDs"
fi

# --summary rows chosen by --tid, --pid, --process keep their figures.
gen "summary filters" --encoding=mixed --seed=67 --switches=6000
"$etldump" --summary -f csv "$tmp/t.etl" | tr -d '\r' > "$tmp/sall"
sp=$(awk -F, '$1 == "process" && $3 != 0 { print $3; exit }' "$tmp/sall")
si=$(awk -F, -v p="$sp" '$1 == "process" && $3 == p { print $5; exit }' "$tmp/sall")
st=$(awk -F, -v p="$sp" '$1 == "thread" && $3 == p { print $4; exit }' "$tmp/sall")
for f in "--pid=$sp|\$1 != \"cpu\" && \$3 == $sp" "--tid=$st|\$1 == \"thread\" && \$4 == $st" \
         "--process=$si|\$1 != \"cpu\" && \$5 == \"$si\"" "--cpu=1|\$1 != \"cpu\" || \$2 == 1"; do
    opt=${f%%|*} cond=${f#*|}
    awk -F, "NR == 1 || ($cond)" "$tmp/sall" > "$tmp/want"
    if [ "$opt" = --cpu=1 ]; then
        # --cpu recomputes the figures: only check the CPU rows kept.
        n=$("$etldump" --summary -f csv --cpu=1 "$tmp/t.etl" | grep -c '^cpu,')
        [ "$n" = 1 ] && ok || bad "summary --cpu=1: $n CPU rows"
        continue
    fi
    if dump "summary $opt" --summary -f csv "$opt" "$tmp/t.etl"; then
        tr -d '\r' < "$tmp/got" > "$tmp/got.csv"
        if [ "$(wc -l < "$tmp/want")" -gt 1 ] && cmp -s "$tmp/want" "$tmp/got.csv"; then
            ok
        else
            bad "summary $opt: rows differ from the unfiltered rows that match"
            diff "$tmp/want" "$tmp/got.csv" | sed -n '1,4p'
        fi
    fi
done

# Bad filter arguments are usage errors.
for a in --cpu=x --cpu=5000 --tid=1-- --pid= --range=3 --range=2:1 --range=a:b --hook=0x10000 \
         "--hook=0x0524 --summary" --process=; do
    # shellcheck disable=SC2086
    "$etldump" $a "$tmp/t.etl" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then ok; else bad "etldump $a: exit $rc, want 2 with a message"; fi
done

# A damaged Process record is reported with its offset (status 1); the
# switches are still all there.
sample=$(dirname "$0")/../samples/demo-processes.etl
if [ -f "$sample" ]; then
    cp "$sample" "$tmp/dam.etl"
    loc=$("$etldump" --events=all -f json --hook=0x0303 "$sample" |
          jq -r '"\(.buffer_offset + .event_offset + 16) \(.size - 16)"' | sed -n 5p)
    off=${loc% *} len=${loc#* }
    # From the UserSID on (payload offset 0x24): "AAAA...", a SID of 65 sub-authorities.
    awk -v n=$((len - 36)) 'BEGIN { while (n-- > 0) printf "A" }' |
        dd of="$tmp/dam.etl" bs=1 seek=$((off + 36)) conv=notrunc 2>/dev/null
    want=$(printf 'offset 0x%x: Process event: damaged SID' $((off + 36)))
    for v in "" --events=all --summary; do
        # shellcheck disable=SC2086
        "$etldump" $v -f csv "$tmp/dam.etl" > "$tmp/got" 2> "$tmp/err"
        rc=$?
        if [ "$rc" -eq 1 ] && [ "$(grep -c "$want" "$tmp/err")" = 1 ]; then
            ok
        else
            bad "damaged Process record ($v): exit $rc, want 1 and one '$want': $(head -n 2 "$tmp/err")"
        fi
    done
    [ "$(($(wc -l < "$tmp/got") + 0))" -gt 1 ] || bad "damaged Process record: no summary"

    # A --process name that no process of the trace has gets one note, in
    # every view that filters by process; names that some process (or the
    # Idle process) has, in any case, with a path or without .exe, none; a
    # name given twice, in any case, is one.
    note="^etldump: [^:]*demo-processes.etl: note: --process=Nosuch.exe: no process in this trace has that name; --summary or --events=Process lists those it has\$"
    for v in "" --summary --usage --events=all --stats "-f svg -o $tmp/p.svg"; do
        # shellcheck disable=SC2086
        "$etldump" $v --process='teams,Nosuch.exe,IDLE,C:\Windows\System32\conhost.exe' \
            --process=nosuch.EXE "$sample" > /dev/null 2> "$tmp/err"
        rc=$?
        if [ "$rc" -eq 0 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "$note" "$tmp/err"; then
            ok
        else
            bad "--process with a name no process has ($v): exit $rc: $(head -n 3 "$tmp/err" | tr '\n' ' ')"
        fi
    done
fi

# ---- 3. the real traces -------------------------------------------------------------

real=$shared/samples/real
for name in pv-diaghub-kernel dnperf-dynamicevents; do
    f=$real/$name.etl
    if [ ! -f "$f" ]; then
        echo "processes: SKIPPED: $f not found (the real traces live beside the project in shared/samples/real)"
        skip=$((skip + 1))
        continue
    fi
    # The notes: a HookId entry that no event of the trace has, each by
    # --stats (pv-diaghub-kernel has no Thread events).
    "$etldump" --stats -f csv "$f" 2> /dev/null |
        awk -F, '$2 == "kind" { split($3, k, " "); if (k[2] ~ /^0x/) print k[2] }' > "$tmp/hooks"
    hooks=0x0301-0x0304,0x0327,0x0501-0x0504,0x0548
    want_notes=$(echo "$hooks" | tr ',' '\n' | while IFS=- read -r lo hi; do
        hi=${hi:-$lo} found=no
        for h in $(cat "$tmp/hooks"); do
            [ $((h)) -ge $((lo)) ] && [ $((h)) -le $((hi)) ] && found=yes
        done
        [ "$found" = no ] || continue
        if [ "$lo" = "$hi" ]; then
            echo "--hook=$lo: no event of this trace has that HookId"
        else
            echo "--hook=$lo-$hi: no event of this trace has a HookId in that range"
        fi
    done)
    "$etldump" --events=all -f json --hook="$hooks" "$f" > "$tmp/pt.json" 2> "$tmp/err"
    rc=$?
    got_notes=$(sed -n 's/^etldump: [^ ]*: note: \(.*\); --stats lists the HookIds it has$/\1/p' "$tmp/err")
    others=$(grep -v ': warning: the trace lost data: \|: note: --hook=' "$tmp/err" | head -n 2)
    if [ "$rc" -eq 0 ] && [ -z "$others" ] && [ "$got_notes" = "$want_notes" ]; then
        ok
    else
        bad "$name: etldump --events=all --hook=$hooks: exit $rc, notes '$got_notes', want '$want_notes': $others"
        continue
    fi
    # Every Process record has an image; every Thread record's process has a
    # Process record (reference section 7).
    jq -r 'select(.hook_id | startswith("0x03")) | "\(.process_id)\t\(.image)"' "$tmp/pt.json" |
        sort -u > "$tmp/images"
    n_pid=$(cut -f1 "$tmp/images" | sort -u | wc -l | tr -d ' ')
    n_pair=$(wc -l < "$tmp/images" | tr -d ' ')
    cut -f1 "$tmp/images" > "$tmp/pids"
    orphans=$(jq -r 'select(.hook_id | startswith("0x05")) | .process_id' "$tmp/pt.json" | sort -u |
              grep -vxF -f "$tmp/pids" | wc -l | tr -d ' ')
    if [ "$n_pid" = "$n_pair" ] && [ "$orphans" = 0 ] && ! grep -q '	null$' "$tmp/images"; then
        ok
    else
        bad "$name: $n_pair (PID, image) pairs for $n_pid PIDs, $orphans thread PIDs without a Process record"
    fi
    # The map, through --process: exactly the thread records whose process
    # (by the Process records) has the image, or whose header names it.
    cut -f2 "$tmp/images" | sort | uniq -c | sort -rn | sed -n 's/^ *[0-9]* //p' | sed -n '1,4p' > "$tmp/top"
    while IFS= read -r image; do
        jq -c --rawfile imgs "$tmp/images" '
            ($imgs | split("\n") | map(select(length > 0) | split("\t") | {(.[0]): .[1]}) | add) as $m
            | select(.hook_id | startswith("0x05"))
            | select(($m[.process_id | tostring] // "" | ascii_downcase) == ("'"$image"'" | ascii_downcase)
                     or ($m[(.pid // -1) | tostring] // "" | ascii_downcase) == ("'"$image"'" | ascii_downcase))' \
            "$tmp/pt.json" > "$tmp/want"
        # (-q: the notes on HookIds the trace lacks are checked above.)
        if dump "$name --process=$image" -q --events=all -f json --hook=0x0501-0x0504,0x0548 \
               --process="$image" "$f"; then
            jq -c . "$tmp/got" > "$tmp/got.json"
            if cmp -s "$tmp/want" "$tmp/got.json"; then
                ok
            else
                bad "$name --process=$image: $(wc -l < "$tmp/got.json") thread records, want $(wc -l < "$tmp/want")"
            fi
        fi
    done < "$tmp/top"
    # No switches: an empty summary, exit 0, and the note that says so (as
    # the switch view gives it).
    "$etldump" --summary -f csv "$f" > "$tmp/got" 2> "$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && [ "$(wc -l < "$tmp/got")" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
        grep -q ': note: no context switches in this trace; ' "$tmp/err" && ok ||
        bad "$name --summary: exit $rc, $(wc -l < "$tmp/got") lines: $(head -n 2 "$tmp/err")"
done

echo "processes: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
