#!/bin/sh
# The outputs that are not tables, and CPU usage over time.
#
#  1. -f perfetto: every file written here is decoded by protoc against
#     tests/perfetto/trace.proto (written from the field numbers of
#     Perfetto's schema); its c_switch events equal the CSV view's switches
#     one for one (time, CPU, threads, priorities, state, wait reason and
#     mode, wait time, ideal CPU, the C-state of the idle thread), all on one
#     clock: ns since boot (the header's start time minus its boot time,
#     plus the CSV's time); bundles hold one CPU's events; every packet is
#     on sequence 1; and the process tree, read in file order up to each
#     switch, names both threads with the PIDs and the processes with the
#     images the CSV gives at that switch (reused TIDs included). Written to
#     a terminal it is refused (exit 2).
#  2. -f svg: every picture is well-formed XML (xmllint), under 2 MB also
#     for a long trace, with one lane per CPU drawn (--cpu) over the span
#     asked (--range) and only the processes asked in its legend
#     (--process). Rendered by headless Chromium (skipped with a message
#     where it is missing), the picture is not blank, and in the middle of
#     the longest run of the test writer's schedule the run's lane shows
#     the colour the legend gives its process.
#  3. --usage: the intervals cover the trace (or --range) without gaps or
#     overlap, from its start to its last event; no interval holds more
#     CPU time than its length times the CPUs; percent is cpu_time over the
#     interval; each process's cpu_time summed over the intervals equals its
#     cpu_time in --summary within a clock tick (also with --cpu, --range);
#     --process keeps that process's rows as they were; INTERVAL parses; the
#     XML validates against doc/etldump.xsd and the JSON parses.
#  4. Damaged input: mutants of a trace through all three end with exit
#     status 0, 1 or 3, well-formed pictures and decodable Perfetto traces.
# Usage: tests/export.sh ETLDUMP [MKTRACE]
set -u
etldump=$1
here=$(dirname "$0")
case $etldump in /*) abs_etldump=$etldump ;; *) abs_etldump=$(pwd)/$etldump ;; esac
mktrace=${2:-$here/../build/mktrace}
proto=$here/perfetto/trace.proto
xsd=$here/../doc/etldump.xsd
export LC_ALL=C TZ=UTC
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "export: FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "export: SKIP: $*"; }
finish() {
    echo "export: $pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit
}

# gen NAME MKTRACE-OPTIONS...: builds $tmp/t.etl and the writer's $tmp/want.csv.
gen() {
    name=$1; shift
    if "$mktrace" --quiet --processes "$@" "$tmp/t.etl" "$tmp/want.csv" 2> "$tmp/gen.err"; then
        return 0
    fi
    bad "$name: mktrace: $(head -n 2 "$tmp/gen.err")"
    return 1
}

# run NAME OUT ARGS...: etldump ARGS > OUT, exit 0 and nothing on stderr
# but warnings and notes.
run() {
    rname=$1 out=$2; shift 2
    "$etldump" "$@" > "$out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -vq '^etldump: .*: \(warning\|note\): ' "$tmp/err"; then
        return 0
    fi
    bad "$rname: etldump $*: exit $rc: $(head -n 2 "$tmp/err")"
    return 1
}

# The header's start and boot times as FILETIMEs (trace info, CSV).
header_times() {
    "$etldump" --info -f csv "$1" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        NR == 2 { print $col["start_filetime"], $col["boot_time"] }'
}

# ISO 8601 with 7 decimals to a FILETIME (100 ns since 1601).
iso_filetime() {
    secs=$(date -u -d "$(echo "$1" | sed 's/\..*//')" +%s) || return 1
    frac=$(echo "$1" | sed 's/.*\.\([0-9]*\)Z/\1/' | sed 's/^0*//')
    echo $(( (secs + 11644473600) * 10000000 + ${frac:-0} ))
}

# sel CSV COLUMN...: those columns of every row of a CSV file, by their
# header names, comma-separated (columns before any quoted field only).
sel() {
    f=$1; shift
    awk -F, -v want="$*" '
        { sub(/\r$/, "") }
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(want, w, " "); next }
        {
            line = ""
            for (k = 1; k <= n; k++) line = line (k > 1 ? "," : "") $(col[w[k]])
            print line
        }' "$f"
}

# ---- 1. Perfetto ------------------------------------------------------------------

# The decoded trace as one line per c_switch event, in file order:
#   cpu ns old new old_prio new_prio state reason mode wait_time ideal cstate
#   old_pid new_pid old_image new_image
# where the PIDs and images are those the process tree named last, in file
# order, for the threads; absent fields are "-". Problems go to lines
# starting with "error". The processes' command lines (cmdline[1]) go to
# $tmp/cmdlines as "PID<TAB>command line".
decode_pf() {
    awk -v cmdfile="$tmp/cmdlines" '
    function unesc(s,   out, i, c, d) {
        out = ""
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c != "\\") { out = out c; continue }
            d = substr(s, i + 1, 1)
            if (d ~ /[0-7]/) {
                out = out sprintf("%c", (substr(s, i + 1, 1) * 64) + (substr(s, i + 2, 1) * 8) + substr(s, i + 3, 1))
                i += 3
            } else {
                out = out (d == "n" ? "\n" : d == "t" ? "\t" : d == "r" ? "\r" : d)
                i++
            }
        }
        return out
    }
    function v(k) { return (k in f) ? f[k] : "-" }
    function who(tid) { return (tid in tgid) ? tgid[tid] : "-" }
    function img(pid) { return (pid in image) ? image[pid] : "-" }
    /^ *[a-z_]+ \{$/ {
        name = $1; stack[++depth] = name
        if (name == "packet") { seq = "-"; npackets++ }
        if (name == "process_tree") trees++
        if (name == "etw_events" && !trees) print "error: etw_events before the first process_tree"
        if (name == "event" || name == "processes" || name == "threads") delete f
        if (name == "c_switch") cs = 1
        next
    }
    /^ *\}$/ {
        name = stack[depth--]
        if (name == "event" && cs) {
            if (v("cpu") != bcpu) print "error: event on CPU " v("cpu") " in the bundle of CPU " bcpu
            o = v("old_thread_id"); n = v("new_thread_id")
            print v("cpu"), v("timestamp"), o, n, v("old_thread_priority"), v("new_thread_priority"), \
                v("old_thread_state_int"), v("old_thread_wait_reason_int"), v("old_thread_wait_mode_int"), \
                v("new_thread_wait_time"), v("old_thread_wait_ideal_processor"), v("previous_c_state"), \
                who(o), who(n), img(who(o)), img(who(n))
            events++; cs = 0
        } else if (name == "processes") {
            image[f["pid"]] = ("cmdline" in f) ? f["cmdline"] : "-"
            if ("cmdline2" in f) printf "%s\t%s\n", f["pid"], f["cmdline2"] > cmdfile
        } else if (name == "threads") {
            tgid[f["tid"]] = v("tgid")
        } else if (name == "packet") {
            if (seq != 1) print "error: packet " npackets " on sequence " seq
        }
        next
    }
    {
        key = $1; sub(/:$/, "", key)
        val = $0; sub(/^ *[a-z_]+: /, "", val)
        if (val ~ /^".*"$/) val = unesc(substr(val, 2, length(val) - 2))
        where = stack[depth]
        if (where == "packet") {
            if (key == "trusted_packet_sequence_id") seq = val
            if (key == "sequence_flags" && npackets != 1) print "error: sequence_flags on packet " npackets
            if (key == "first_packet_on_sequence" && npackets != 1) print "error: first_packet_on_sequence on packet " npackets
        } else if (where == "etw_events") {
            if (key == "cpu") bcpu = val
        } else if (where == "event" || where == "c_switch" || where == "threads" || where == "processes") {
            if (key == "cmdline" && ("cmdline" in f)) { f["cmdline2"] = val; next }
            f[key] = val
        }
    }
    END { if (!events) print "error: no c_switch event" }
    '
}

# The same line from the CSV view (the columns before the process names,
# which hold no quoted text) and the JSON view (PIDs and images), joined row
# by row; offset is
# added to the CSV's times (ns). KTHREAD_STATE, KWAIT_REASON and
# KPROCESSOR_MODE numbers are those of Microsoft's documentation of CSwitch.
expect_pf() {
    offset=$1 csv=$2 json=$3
    jq -r '[(.old_pid // "-"), (.new_pid // "-"), (.old_process // "-"), (.new_process // "-")] | @tsv' \
        "$json" > "$tmp/pids.tsv" || return 1
    sel "$csv" cpu time old_tid new_tid old_priority new_priority old_state old_wait_reason \
        old_wait_mode new_wait_time ideal_cpu prev_cstate |
        paste -d '\t' - "$tmp/pids.tsv" | awk -F '\t' -v off="$offset" '
    BEGIN {
        n = split("Initialized Ready Running Standby Terminated Waiting Transition DeferredReady GateWait WaitingForProcessInSwap", a, " ")
        for (i = 1; i <= n; i++) st[a[i]] = i - 1
        n = split("Executive FreePage PageIn PoolAllocation DelayExecution Suspended UserRequest WrExecutive WrFreePage WrPageIn WrPoolAllocation WrDelayExecution WrSuspended WrUserRequest WrEventPair WrQueue WrLpcReceive WrLpcReply WrVirtualMemory WrPageOut WrRendezvous WrKeyedEvent WrTerminated WrProcessInSwap WrCpuRateControl WrCalloutStack WrKernel WrResource WrPushLock WrMutex WrQuantumEnd WrDispatchInt WrPreempted WrYieldExecution WrFastMutex WrGuardedMutex WrRundown WrAlertByThreadId WrDeferredPreempt WrPhysicalFault WrIoRing WrMdlCache WrRcu", a, " ")
        for (i = 1; i <= n; i++) wr[a[i]] = i - 1
        md["KernelMode"] = 0; md["UserMode"] = 1
    }
    function num(tab, s) { if (s == "") return "-"; return (s in tab) ? tab[s] : s }
    function d(s) { return s == "" ? "-" : s }
    {
        split($1, c, ",")
        split(c[2], t, ".")
        ns = t[1] * 1000000000 + t[2] + off
        cstate = c[3] == "0" ? d(c[12]) : "-"
        printf "%s %.0f %s %s %s %s %s %s %s %s %s %s %s %s %s %s\n", c[1], ns, d(c[3]), d(c[4]), d(c[5]), d(c[6]), \
            num(st, c[7]), num(wr, c[8]), num(md, c[9]), d(c[10]), d(c[11]), cstate, $2, $3, $4, $5
    }'
}

# Numbers each CPU's lines in order and sorts by CPU (then that order).
per_cpu() {
    awk '/^error/ { print; next } { k[$1]++; print $1, k[$1], $0 }' | sort -k1,1n -k2,2n
}

have_protoc=1
command -v protoc > /dev/null 2>&1 || have_protoc=0
have_jq=1
command -v jq > /dev/null 2>&1 || have_jq=0

# check_pf NAME FILE: the Perfetto export of FILE against its CSV and JSON views.
check_pf() {
    name=$1 f=$2
    run "$name: perfetto" "$tmp/out" -f perfetto -o "$tmp/t.pf" "$f" || return
    if [ -s "$tmp/out" ]; then bad "$name: -f perfetto -o wrote to standard output"; return; fi
    if [ "$have_protoc" = 0 ] || [ "$have_jq" = 0 ]; then
        skipped "$name: protoc or jq missing (Debian: protobuf-compiler, jq); Perfetto output not decoded"
        return
    fi
    if ! protoc --proto_path="$(dirname "$proto")" --decode=Trace "$proto" < "$tmp/t.pf" \
             > "$tmp/t.txt" 2> "$tmp/protoc.err"; then
        bad "$name: protoc cannot decode the trace: $(head -n 3 "$tmp/protoc.err")"
        return
    fi
    ok
    set -- $(header_times "$f")
    start=$1 boot=$(iso_filetime "$2")
    offset=$(( (start - boot) * 100 ))
    run "$name: csv" "$tmp/sw.csv" -f csv "$f" || return
    run "$name: json" "$tmp/sw.json" -f json "$f" || return
    : > "$tmp/cmdlines"
    decode_pf < "$tmp/t.txt" | per_cpu > "$tmp/got.txt"
    expect_pf "$offset" "$tmp/sw.csv" "$tmp/sw.json" | per_cpu > "$tmp/want.txt"
    # Command lines: each the one of a Process record of that PID.
    : > "$tmp/cmdlines.want"
    "$etldump" --events=all -f json "$f" 2> /dev/null |
        jq -r 'select((.command_line // "") != "") | "\(.process_id)\t\(.command_line)"' |
        sort -u > "$tmp/cmdlines.want"
    sort -u "$tmp/cmdlines" > "$tmp/cmdlines.got"
    if [ -s "$tmp/cmdlines.want" ] && [ ! -s "$tmp/cmdlines.got" ]; then
        bad "$name: no command line in the process tree"
    elif [ -n "$(comm -23 "$tmp/cmdlines.got" "$tmp/cmdlines.want")" ]; then
        bad "$name: command lines not in the trace: $(comm -23 "$tmp/cmdlines.got" "$tmp/cmdlines.want" | head -n 2)"
    else
        ok
    fi
    if grep -q '^error' "$tmp/got.txt"; then
        bad "$name: $(grep '^error' "$tmp/got.txt" | head -n 3)"
    elif [ ! -s "$tmp/want.txt" ]; then
        bad "$name: no switches to compare"
    elif cmp -s "$tmp/got.txt" "$tmp/want.txt"; then
        ok
    else
        bad "$name: the c_switch events differ from the CSV view's switches" \
            "($(wc -l < "$tmp/got.txt") against $(wc -l < "$tmp/want.txt") lines;" \
            "cpu k cpu ns old new oprio nprio state reason mode wait ideal cstate opid npid oimage nimage):"
        diff "$tmp/want.txt" "$tmp/got.txt" | head -n 6
    fi
}

# ready_thread events: one per ReadyThread whose readying thread is known,
# in its CPU's bundle; each switch's last ReadyThread (readied_at in the CSV
# view) is among them with the thread made ready, the readying thread and
# the flag.
check_ready() {
    name=$1 f=$2
    [ "$have_protoc" = 1 ] || return
    protoc --proto_path="$(dirname "$proto")" --decode=Trace "$proto" < "$tmp/t.pf" > "$tmp/t.txt" 2>/dev/null
    set -- $(header_times "$f")
    offset=$(( ($1 - $(iso_filetime "$2")) * 100 ))
    awk '
    /^ *[a-z_]+ \{$/ { name = $1; stack[++depth] = name; if (name == "event") { delete f; rt = 0 } if (name == "ready_thread") rt = 1; next }
    /^ *\}$/ { name = stack[depth--]; if (name == "event" && rt) print f["cpu"], f["timestamp"], f["t_thread_id"], f["thread_id"], f["flag_int"] + 0; next }
    { k = $1; sub(":$", "", k); f[k] = $2 }' "$tmp/t.txt" | sort > "$tmp/ready.got"
    n_rt=$(wc -l < "$tmp/ready.got")
    n_ev=$("$etldump" --events=all -f csv --hook=0x0532 "$f" 2>/dev/null | awk -F, 'NR > 1 && $3 ~ /PERFINFO/' | wc -l)
    "$etldump" -f csv "$f" 2>/dev/null | awk -F, -v off="$offset" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["readying_tid"] != "" {
        split($c["readied_at"], t, "."); ns = t[1] * 1000000000 + t[2] + off
        printf "%s %.0f %s %s %d\n", $c["readying_cpu"], ns, $c["new_tid"], $c["readying_tid"], $c["readied_by_dpc"]
    }' | sort -u > "$tmp/ready.want"
    if [ "$n_rt" -gt 0 ] && [ "$n_rt" -le "$n_ev" ] && [ -s "$tmp/ready.want" ] &&
       [ -z "$(comm -23 "$tmp/ready.want" "$tmp/ready.got")" ]; then
        ok
    else
        bad "$name: ready_thread events ($n_rt of $n_ev ReadyThreads) do not hold the switches' readying: $(comm -23 "$tmp/ready.want" "$tmp/ready.got" | head -n 2)"
    fi
}

for args in "--encoding=compact --seed=76 --switches=6000 --ready --dpc --processes" \
            "--encoding=mixed --seed=77 --switches=6000 --ready --processes --ptr=4"; do
    # shellcheck disable=SC2086
    gen "perfetto $args" $args && check_pf "perfetto $args" "$tmp/t.etl" &&
        check_ready "perfetto $args" "$tmp/t.etl"
done

for args in "--encoding=cswitch --seed=71 --switches=6000" \
            "--encoding=compact --seed=72 --switches=6000" \
            "--encoding=mixed --seed=73 --switches=6000 --ptr=4" \
            "--encoding=compact --seed=74 --switches=20000 --cpus=6 --compress" \
            "--encoding=cswitch --seed=75 --switches=4000 --circular --rundown=end"; do
    # shellcheck disable=SC2086
    gen "perfetto $args" $args && check_pf "perfetto $args" "$tmp/t.etl"
done

# The real traces hold no context switches, but processes of their own: the
# trace (a process tree) decodes, with the exit status of the CSV view.
shared=${ETLDUMP_SHARED:-$here/../../shared}
if [ -d "$shared/samples/real" ] && [ "$have_protoc" = 1 ]; then
    for f in "$shared"/samples/real/*.etl; do
        "$etldump" -f csv "$f" > /dev/null 2>&1
        want=$?
        "$etldump" -f perfetto -o "$tmp/r.pf" "$f" > /dev/null 2>&1
        rc=$?
        if [ "$rc" -ne "$want" ]; then
            bad "perfetto $(basename "$f"): exit $rc, the CSV view's $want"
        elif protoc --proto_path="$(dirname "$proto")" --decode=Trace "$proto" < "$tmp/r.pf" \
                 2> "$tmp/protoc.err" | grep -q '^  process_tree {'; then
            ok
        else
            bad "perfetto $(basename "$f"): no process tree decoded: $(head -n 2 "$tmp/protoc.err")"
        fi
    done
else
    skipped "real traces: $shared/samples/real not found, or no protoc"
fi

# Refused on a terminal, before anything is read.
if command -v script > /dev/null 2>&1; then
    script -qec "'$etldump' -f perfetto '$tmp/t.etl'; echo status=\$?" /dev/null \
        > "$tmp/tty.out" 2>&1
    if grep -q 'status=2' "$tmp/tty.out" && grep -q 'not to a terminal' "$tmp/tty.out"; then
        ok
    else
        bad "perfetto to a terminal: $(tr -d '\r' < "$tmp/tty.out" | head -n 2)"
    fi
else
    skipped "perfetto to a terminal: script(1) missing"
fi
# Views other than the switches are a usage error, as is more than one input.
for args in "--summary -f perfetto" "--usage -f perfetto" "--stats -f svg" "--info -f svg"; do
    # shellcheck disable=SC2086
    "$etldump" $args -o "$tmp/x" "$tmp/t.etl" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q 'context switches' "$tmp/err"; then ok; else bad "$args: exit $rc"; fi
done
"$etldump" -f svg -o "$tmp/x" "$tmp/t.etl" "$tmp/t.etl" > /dev/null 2>&1
rc=$?
if [ "$rc" -eq 2 ]; then ok; else bad "-f svg with two inputs: exit $rc"; fi

# ---- 2. SVG --------------------------------------------------------------------

chromium=
for c in chromium chromium-browser google-chrome; do
    if command -v "$c" > /dev/null 2>&1; then chromium=$c; break; fi
done
have_python=1
command -v python3 > /dev/null 2>&1 || have_python=0

# svg NAME ARGS...: etldump -f svg ARGS -o $tmp/t.svg, well-formed, under 2 MB.
svg() {
    sname=$1; shift
    run "$sname" "$tmp/out" -f svg -o "$tmp/t.svg" "$@" || return 1
    size=$(wc -c < "$tmp/t.svg")
    if ! xmllint --noout "$tmp/t.svg" > "$tmp/xmllint" 2>&1; then
        bad "$sname: not well-formed: $(head -n 2 "$tmp/xmllint")"
        return 1
    fi
    if [ "$size" -ge 2000000 ]; then
        bad "$sname: $size bytes"
        return 1
    fi
    ok
}

# The runs of the writer's schedule, longest first: "cpu start_ns end_ns pid",
# from a switch-in to the next switch on its CPU when that switches the same
# thread out. Times from the CSV view, PIDs from the writer's truth.
runs_of() {
    "$etldump" -f csv "$1" > "$tmp/rows.csv"
    sel "$tmp/rows.csv" cpu time old_tid new_tid > "$tmp/rows"
    awk '
    function parse(line,   n, i, c, q, f) {
        n = 0; f = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (q) {
                if (c != "\"") f = f c
                else if (substr(line, i + 1, 1) == "\"") { f = f c; i++ }
                else q = 0
            } else if (c == "\"") q = 1
            else if (c == ",") { fld[++n] = f; f = "" }
            else f = f c
        }
        fld[++n] = f
        return n
    }
    NR == FNR { row[NR] = $0; next }
    FNR == 1 { n = parse($0); for (i = 1; i <= n; i++) col[fld[i]] = i; next }
    {
        parse($0); pid = fld[col["new_pid"]]
        split(row[FNR - 1], r, ",")
        split(r[2], t, "."); ns = t[1] * 1000000000 + t[2]
        cpu = r[1]
        if ((cpu in open) && r[3] == tid[cpu] && owner[cpu] != "" && owner[cpu] != 0)
            printf "%.0f %s %.0f %.0f %s\n", ns - since[cpu], cpu, since[cpu], ns, owner[cpu]
        open[cpu] = 1; tid[cpu] = r[4]; since[cpu] = ns; owner[cpu] = pid
    }' "$tmp/rows" "$2" | sort -k1,1nr | head -n 100 | cut -d' ' -f2- > "$tmp/runs"
}

if gen "svg" --encoding=mixed --seed=91 --switches=6000 && svg "svg" "$tmp/t.etl"; then
    lanes=$(grep -c '<g class="lane"' "$tmp/t.svg")
    if [ "$lanes" -eq 4 ]; then ok; else bad "svg: $lanes lanes for 4 CPUs"; fi
    if [ -z "$chromium" ] || [ "$have_python" = 0 ]; then
        skipped "svg rendering: no chromium or python3 (Debian: chromium, python3)"
    else
        runs_of "$tmp/t.etl" "$tmp/want.csv"
        set -- $(sed -n 's/^<svg [^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$tmp/t.svg")
        profile=$(mktemp -d)
        timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$profile" \
            --screenshot="$tmp/t.png" --window-size="$1,$2" "file://$tmp/t.svg" \
            > "$tmp/chromium.log" 2>&1
        rm -rf "$profile"
        if [ ! -s "$tmp/t.png" ]; then
            bad "svg: $chromium wrote no screenshot: $(tail -n 2 "$tmp/chromium.log")"
        elif python3 "$here/svgcheck.py" "$tmp/t.svg" "$tmp/t.png" "$tmp/runs" > "$tmp/check" 2>&1; then
            ok
            [ -n "${ETLDUMP_VERBOSE:-}" ] && cat "$tmp/check"
        else
            bad "svg rendering:"; cat "$tmp/check"
        fi
    fi
    # Filters: --cpu chooses lanes, --range the span, --process the legend.
    if svg "svg --cpu=1" --cpu=1 "$tmp/t.etl"; then
        got=$(sed -n 's/.*<g class="lane" data-cpu="\([0-9]*\)".*/\1/p' "$tmp/t.svg" | tr '\n' ' ')
        if [ "$got" = "1 " ]; then ok; else bad "svg --cpu=1: lanes of CPUs $got"; fi
    fi
    if svg "svg --range=1:2.5" --range=1:2.5 "$tmp/t.etl"; then
        if grep -q 'data-start-ns="1000000000" data-end-ns="2500000000"' "$tmp/t.svg" &&
           grep -q '1.000000 s to 2.500000 s' "$tmp/t.svg"; then ok; else
            bad "svg --range=1:2.5: span $(grep -o 'data-start-ns="[0-9]*" data-end-ns="[0-9]*"' "$tmp/t.svg")"
        fi
    fi
    proc=$(awk -F, 'NR > 1 && $3 != "" && $3 != 0 { print $4; exit }' "$tmp/out" 2>/dev/null)
    proc=$("$etldump" --summary -f csv "$tmp/t.etl" | awk -F, '$1 == "process" && $3 != 0 { print $5; exit }')
    if svg "svg --process" --process="$proc" "$tmp/t.etl"; then
        n=$(grep -c '<g class="entry">' "$tmp/t.svg")
        others=$(grep '<g class="entry">' "$tmp/t.svg" | grep -vc "<text [^>]*>$proc (")
        if [ "$n" -ge 1 ] && [ "$others" -eq 0 ]; then ok; else
            bad "svg --process=$proc: $n legend entries, $others of other processes"
        fi
    fi
    # --usage sets the chart's interval; too many intervals are widened, with
    # a warning.
    svg "svg --usage=0.5" --usage=0.5 "$tmp/t.etl"
    "$etldump" -f svg -o "$tmp/t.svg" --usage=1us "$tmp/t.etl" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q 'warning: -f svg: the chart.s interval is widened' "$tmp/err"; then
        ok
    else
        bad "svg --usage=1us: exit $rc: $(head -n 1 "$tmp/err")"
    fi
fi
# The README's picture is what etldump draws now.
(cd "$here/.." && "$abs_etldump" -f svg -o "$tmp/demo.svg" samples/demo-processes.etl) 2> "$tmp/err"
if cmp -s "$tmp/demo.svg" "$here/../doc/demo-schedule.svg"; then ok; else
    bad "doc/demo-schedule.svg is not what etldump draws: remake it with the README's command"
fi
# Long traces stay small: pixel resolution whatever the number of switches.
if gen "svg long" --encoding=compact --seed=92 --switches=400000 --cpus=8 --buffer-size=65536; then
    svg "svg long" "$tmp/t.etl"
fi

# ---- damaged input ---------------------------------------------------------------

# Mutants of a trace (build/mutate: damaged buffer and trace headers, events)
# through the three outputs: each run ends with exit status 0, 1 or 3, the
# picture stays well-formed and the Perfetto trace decodable.
mutate=$here/../build/mutate
if [ -x "$mutate" ] && gen "mutants" --encoding=mixed --seed=95 --switches=3000; then
    mkdir -p "$tmp/m"
    "$mutate" flip "$tmp/t.etl" "$tmp/m" 1 40 262144 > /dev/null
    nbad=0
    for m in "$tmp"/m/*.etl; do
        for args in "-f perfetto -o $tmp/m.pf" "-f svg -o $tmp/m.svg" "--usage -f csv -o $tmp/m.csv"; do
            # shellcheck disable=SC2086
            "$etldump" $args "$m" > /dev/null 2> "$tmp/err"
            rc=$?
            case $rc in 0|1|3) ;; *) nbad=$((nbad + 1)); echo "export: $(basename "$m") $args: exit $rc" ;; esac
        done
        if [ -s "$tmp/m.svg" ] && ! xmllint --noout "$tmp/m.svg" 2> /dev/null; then
            nbad=$((nbad + 1)); echo "export: $(basename "$m"): the SVG is not well-formed"
        fi
        if [ "$have_protoc" = 1 ] && [ -s "$tmp/m.pf" ] &&
           ! protoc --proto_path="$(dirname "$proto")" --decode=Trace "$proto" < "$tmp/m.pf" \
                 > /dev/null 2>&1; then
            nbad=$((nbad + 1)); echo "export: $(basename "$m"): the Perfetto trace does not decode"
        fi
        rm -f "$tmp/m.pf" "$tmp/m.svg" "$tmp/m.csv"
    done
    if [ "$nbad" -eq 0 ]; then ok; else bad "$nbad failures on mutants"; fi
fi

# ---- 3. usage ------------------------------------------------------------------------

# ns of a time column ("12.345678900").
NS='function ns(s,  t) { split(s, t, "."); return t[1] * 1000000000 + substr(t[2] "000000000", 1, 9) }'

# check_usage NAME FILE CPUS [FILTERS...]: the usage view against the summary
# with the same filters (cpus: processors of the trace).
check_usage() {
    name=$1 f=$2 cpus=$3; shift 3
    run "$name: usage" "$tmp/u.csv" --usage -f csv "$@" "$f" || return
    run "$name: summary" "$tmp/s.csv" --summary -f csv "$@" "$f" || return
    run "$name: switches" "$tmp/w.csv" -f csv "$@" "$f" || return
    # Intervals: contiguous from the start, and reaching the last switch.
    from=0
    case "$*" in *--range=*) from=$(echo "$*" | sed 's/.*--range=\([0-9.]*\):.*/\1/') ;; esac
    last=$(sel "$tmp/w.csv" time | tail -n 1)
    awk -F, -v from="$from" -v last="$last" -v cpus="$cpus" "$NS"'
        NR == 1 { next }
        {
            key = $1 "," $2
            if (key != prev) {
                if (prev != "" && ns($1) != pend) { print "gap or overlap at " $1 " after " pend; bad = 1 }
                if (prev == "" && ns($1) != ns(from)) { print "first interval starts at " $1; bad = 1 }
                if (prev != "" && sum > (pend - pstart) * cpus) { print "interval at " prev " holds " sum " ns"; bad = 1 }
                prev = key; pstart = ns($1); pend = ns($2); sum = 0; n++
                if (pend <= pstart) { print "empty interval " key; bad = 1 }
            }
            sum += ns($(NF - 1))
            want = ns($(NF - 1)) * 100 / (pend - pstart)
            if ($NF - want > 0.0051 || want - $NF > 0.0051) { print "percent " $NF " for " want; bad = 1 }
        }
        END {
            if (sum > (pend - pstart) * cpus) { print "last interval holds " sum " ns"; bad = 1 }
            if (last != "" && pend < ns(last)) { print "intervals end at " pend " before the last switch " last; bad = 1 }
            if (n < 2) { print "only " n " intervals"; bad = 1 }
            exit bad
        }' "$tmp/u.csv" > "$tmp/cmp" 2>&1 && ok || { bad "$name: intervals:"; head -n 4 "$tmp/cmp"; }
    # Per process: the sum over the intervals against the summary (columns
    # found by name: both tables grow).
    awk -F, "$NS"'
        FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
        FILENAME == ARGV[1] {
            if ($c["scope"] != "process") next
            key = $c["pid"] "," $c["process"]
            want[key] += ns($c["cpu_time"]); next
        }
        {
            if ($c["pid"] == "") next
            key = $c["pid"] "," $c["process"]
            got[key] += ns($c["cpu_time"])
        }
        END {
            for (k in want) {
                d = want[k] - got[k]
                if (d > 100 || d < -100) { print k ": summary " want[k] " ns, usage " got[k] " ns"; bad = 1 }
                n++
            }
            for (k in got) if (!(k in want)) { print k ": in usage only"; bad = 1 }
            if (!n) { print "no process"; bad = 1 }
            exit bad
        }' "$tmp/s.csv" "$tmp/u.csv" > "$tmp/cmp" 2>&1 && ok || { bad "$name: cpu_time against --summary:"; head -n 4 "$tmp/cmp"; }
}

for args in "--encoding=cswitch --seed=81 --switches=8000" \
            "--encoding=compact --seed=82 --switches=8000 --cpus=3" \
            "--encoding=mixed --seed=83 --switches=8000 --lost-cpu=1" \
            "--encoding=compact --seed=85 --switches=8000 --ready --dpc --processes" \
            "--encoding=mixed --seed=86 --switches=8000 --ready --dpc --processes --lost-cpu=2"; do
    # (with DPC and ISR events, their time is out of both --usage and --summary)
    # shellcheck disable=SC2086
    gen "usage $args" $args || continue
    cpus=$("$etldump" --info -f csv "$tmp/t.etl" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cpus") c = i } NR == 2 { print $c }')
    check_usage "usage $args" "$tmp/t.etl" "$cpus"
    check_usage "usage $args --cpu=0,2" "$tmp/t.etl" "$cpus" --cpu=0,2
    check_usage "usage $args --range=0.5:3" "$tmp/t.etl" "$cpus" --range=0.5:3
done

# --process keeps that process's rows as they were (other intervals: one row
# without a process).
gen "usage --process" --encoding=cswitch --seed=84 --switches=5000 &&
if run "usage all" "$tmp/all.csv" --usage -f csv "$tmp/t.etl"; then
    proc=$(awk -F, 'NR > 1 && $3 != "" && $3 != 0 { print $4; exit }' "$tmp/all.csv")
    if run "usage --process" "$tmp/one.csv" --usage -f csv --process="$proc" "$tmp/t.etl"; then
        grep -F ",$proc," "$tmp/all.csv" > "$tmp/a"
        grep -F ",$proc," "$tmp/one.csv" > "$tmp/b"
        others=$(awk -F, -v p="$proc" 'NR > 1 && $4 != p && !($3 == "" && $4 == "")' "$tmp/one.csv" | wc -l)
        if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && [ "$others" -eq 0 ]; then ok; else
            bad "usage --process=$proc: rows differ, or $others rows of other processes"
        fi
    fi
    # INTERVAL: 20ms makes intervals of 0.020 s; nonsense is a usage error.
    if run "usage=20ms" "$tmp/i.csv" --usage=20ms -f csv "$tmp/t.etl" &&
       awk -F, 'NR == 2 { exit !($1 == "0.000000000" && $2 == "0.020000000") }' "$tmp/i.csv"; then
        ok
    else
        bad "--usage=20ms: first interval $(sed -n 2p "$tmp/i.csv" | cut -d, -f1-2)"
    fi
    for i in abc 0 -1 5x 1.5.2; do
        "$etldump" --usage="$i" "$tmp/t.etl" > /dev/null 2>&1
        rc=$?
        if [ "$rc" -eq 2 ]; then ok; else bad "--usage=$i: exit $rc"; fi
    done
    # Every format: the XML validates, the JSON parses.
    if run "usage xml" "$tmp/u.xml" --usage -f xml "$tmp/t.etl" &&
       xmllint --noout --schema "$xsd" "$tmp/u.xml" > "$tmp/xmllint" 2>&1; then ok; else
        bad "usage xml: $(head -n 2 "$tmp/xmllint")"
    fi
    if [ "$have_jq" = 1 ] && run "usage json" "$tmp/u.json" --usage -f json "$tmp/t.etl"; then
        if jq -e 'select((.interval_end | tonumber) <= (.interval_start | tonumber))' \
               "$tmp/u.json" > /dev/null 2>&1 ||
           ! jq -e . "$tmp/u.json" > /dev/null 2>&1; then bad "usage json"; else ok; fi
    fi
    if run "usage text" "$tmp/u.txt" --usage "$tmp/t.etl" && grep -q 'interval_start' "$tmp/u.txt"; then
        ok
    else
        bad "usage text: no header"
    fi
fi

finish
