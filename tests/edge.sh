#!/bin/sh
# Edge cases no public trace has. build/mkedge (tests/edge/mkedge.c, written
# from doc/format.md alone) writes each file and what a correct reader must
# show of it; each file then goes through every view and output format.
#
# The standard for every file and view: no crash and no sanitizer report
# (the exit status is the documented one: 0 clean, 1 damaged data skipped),
# done within 60 s, at most one message per problem, each naming the file and
# the byte offset the writer damaged (the views that read what was damaged
# name every one of them), nothing else on standard error but warnings and
# notes, and peak memory under 64 MiB (build/peak; not measured when etldump
# is built with a sanitizer). Then, per case:
#   big        a sparse file over 4 GiB (16 MiB buffers): the switches of the
#              buffers past 4 GiB, their buffer offsets in --events=all, and
#              the damaged record there named by its 64-bit offset; peak
#              memory under 16 MiB, as no buffer is read whole (skipped
#              when the file system cannot hold the file);
#   cpus       1024 CPUs, a buffer on CPU 1500 (shown) and one on CPU 3000
#              (skipped with one message at its processor field);
#   clockback  time going back inside one CPU's buffers: every switch, each
#              CPU's in its stream order, no run of negative length;
#   farclock   switches 2^62 ticks before the trace's start and 2^61 after
#              it: their times and the durations between them saturated
#              at the ends of the int64 range of nanoseconds, not wrapped;
#   clock-*    each clock type and PerfFreq 0, negative, INT64_MIN and huge:
#              rel = ticks since the header event / frequency and abs =
#              StartTime + that, in CSV, JSON and XML (a frequency of 0 or
#              less is taken as 10 MHz, man/etldump.1 --time);
#   seq-*      repeated and wrapping sequence numbers, a circular file whose
#              buffers all share one: every switch, in stream order where
#              the sequence numbers define it;
#   oddsize    buffer sizes that are not a multiple of the page size (nor of
#              8), a bare buffer header among them;
#   toend      records whose size runs exactly to the buffer's end (shown),
#              past the valid data, past the buffer, or cut: one message each;
#   procs      2^19 + 2^16 processes, each with a thread (a compressed
#              rundown), past the map's limits: the threads of the
#              processes the map keeps are named, the others not
#              (documented limits), one warning; memory as above (built
#              with a sanitizer or under an emulator, without the switch
#              view's text, JSON and XML or --summary=routines);
#   tidreuse   a TID reused 100 us after its Thread End in another process:
#              the switch view names the first process before and the second
#              after, --summary keeps the two threads (and processes) apart;
#   utf16      names that are not valid UTF-16 (and an image that is not
#              UTF-8): U+FFFD where the bad unit is, in CSV, JSON, XML and
#              text; names without their terminator reported at their offset;
#   formula    images, command lines and thread names that begin as
#              spreadsheet formulas (=, +, -, @, tab, CR, full-width signs):
#              an apostrophe first in CSV, as they are with --csv-formulas
#              and in JSON (tests/csvformula.py), the same on 1 and 3 threads;
#   dst        a trace of US Pacific time across the change to daylight time
#              (12 March 2023, 10:00 UTC): --time=local shows -08:00 before and
#              -07:00 from there, --time=abs UTC, --info utc_offset -08:00;
#   manifest   EVENT_HEADER events shaped like EventSource manifest chunks
#              (Id 65534, Opcode 254) with a wrong magic byte or too few
#              bytes, and one chunk that is no XML: each shown where it lies,
#              --no-fields the same on one thread and on three;
#   learnt     an EventMetadata event in the last buffer that names events
#              of the first: named so, with the fields and without, on one
#              thread and on three;
#   lists      a thread that waits for each of the 256 wait reasons and a
#              processor that leaves each of the 256 C-states: --summary's
#              wait_reasons and idle_by_cstate hold every entry, whole.
#   sparsecpus buffers on the even processors only: a --cpu note lists those
#              the trace has as whole entries, cut with ",...";
#   readiers   three processes with images hundreds of bytes long ready a
#              thread 3, 2 and 1 times: its top_readiers holds the entries
#              that fit in 1023 bytes, whole (all, two with exactly 1023
#              bytes, one, none).
# Usage: tests/edge.sh ETLDUMP
set -u
etldump=$1
mkedge=${MKEDGE:-build/mkedge}
peakbin=${PEAK:-build/peak}
limit_kib=$((64 * 1024))
export LC_ALL=C TZ=UTC
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "edge: FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "edge: SKIP: $*"; }

if [ ! -x "$mkedge" ]; then
    bad "$mkedge not built (make build/mkedge)"
    echo "edge: $pass passed, $fail failed, $skip skipped"
    exit 1
fi
slow=
[ -n "${ETLDUMP_EMULATOR:-}" ] && slow=yes
nm "$etldump" 2>/dev/null | grep -q '__asan_init\|__msan_init\|__tsan_init\|__ubsan_handle' && slow=yes
measure=yes
if [ ! -x "$peakbin" ]; then
    measure=no
    skipped "peak memory: $peakbin not built"
elif nm "$etldump" 2>/dev/null | grep -q '__asan_init\|__msan_init\|__tsan_init'; then
    measure=no
    skipped "peak memory: $etldump is built with a sanitizer, whose allocator inflates it"
fi
# Under an emulator (ETLDUMP_EMULATOR, set by tools/check-i386.sh when the
# i386 programs run under qemu-i386) the peak holds the emulator's own
# memory: the bounds apply to what a run takes above the peak of
# `etldump --version`.
base_kib=0
if [ "$measure" = yes ] && [ -n "${ETLDUMP_EMULATOR:-}" ]; then
    base_kib=$("$peakbin" "$etldump" --version 2>&1 >/dev/null | sed -n 's/^peak //p' | tail -n 1)
    echo "edge: under $ETLDUMP_EMULATOR, peaks count above its own ${base_kib:=0} KiB (etldump --version)"
fi
# build/peak stands in for timeout(1) in every run below: a command that
# does not end within PEAK_TIMEOUT seconds is killed, and peak exits 124.
if [ -x "$peakbin" ]; then
    t0=$(date +%s)
    PEAK_TIMEOUT=1 "$peakbin" sleep 30 2> /dev/null
    prc=$?
    if [ "$prc" -eq 124 ] && [ $(($(date +%s) - t0)) -lt 20 ]; then ok
    else bad "build/peak with PEAK_TIMEOUT=1: sleep 30 gave exit $prc after $(($(date +%s) - t0)) s"; fi
fi
havejq=yes
command -v jq > /dev/null 2>&1 || { havejq=no; skipped "JSON checks: jq not found"; }

# gen CASE NAME [ARG]: writes $tmp/NAME.etl and $tmp/NAME.exp; false (and a
# failure) when the writer fails.
gen() {
    "$mkedge" "$1" "$tmp/$2.etl" "$tmp/$2.exp" ${3:+"$3"} 2> "$tmp/gen.err"
    grc=$?
    [ "$grc" -eq 0 ] && return 0
    [ "$grc" -eq 77 ] && return 77
    bad "$2: mkedge $1: $(head -n 1 "$tmp/gen.err")"
    return 1
}

# tagged NAME TAG: the expectations of NAME with that tag, tag removed.
tagged() {
    sed -n "s/^$2 //p" "$tmp/$1.exp"
}

# cols FILE COLUMN...: those columns of a CSV file (no quoted fields), by
# header name, comma-separated; the header row is left out.
cols() {
    cf=$1; shift
    awk -F, -v want="$*" '
        NR == 1 { sub(/\r$/, ""); n = split(want, w, " ")
                  for (i = 1; i <= NF; i++) idx[$i] = i
                  for (k = 1; k <= n; k++) if (!(w[k] in idx)) { print "no column " w[k]; exit 1 }
                  next }
        { sub(/\r$/, ""); line = ""
          for (k = 1; k <= n; k++) line = line (k > 1 ? "," : "") $(idx[w[k]])
          print line }' "$cf"
}

# run NAME LABEL ARGS...: etldump ARGS on $tmp/NAME.etl (last) into
# $tmp/out and $tmp/err, with the standard checks; $rc is its status. The
# messages must name offsets the writer damaged, none twice; with "all"
# as LABEL's prefix every damaged offset must be named. The run goes
# through build/peak (its timeout and its figure in $tmp/peak) and its
# messages through one awk: the checks start no other process, as each
# costs about what a run does.
run() {
    rn=$1 label=$2; shift 2
    f=$tmp/$rn.etl
    if [ -x "$peakbin" ]; then
        PEAK_TIMEOUT=60 PEAK_FILE=$tmp/peak "$peakbin" "$etldump" "$@" "$f" > "$tmp/out" 2> "$tmp/err"
    else
        timeout 60 "$etldump" "$@" "$f" > "$tmp/out" 2> "$tmp/err"
    fi
    rc=$?
    kib=
    [ "$measure" = yes ] && read -r kib < "$tmp/peak"
    if [ "$measure" = yes ] && [ -z "$kib" ]; then
        bad "$rn: etldump $* ($label): no peak figure in $tmp/peak (exit $rc)"; return 1
    fi
    what="$rn: etldump $* ($label)"
    case $rc in
    124|137) bad "$what: no result within 60 s"; return 1 ;;
    0|1) ;;
    *) bad "$what: exit $rc: $(tail -n 3 "$tmp/err")"; return 1 ;;
    esac
    # Messages: problems at offsets (those of the "msg" lines of NAME.exp),
    # warnings, notes; nothing else. The status: 1 with a problem, else 0.
    case $label in all*) every=1 ;; *) every=0 ;; esac
    verdict=$(awk -v pre="etldump: $f: " -v every="$every" -v rc="$rc" '
        FILENAME == ARGV[1] { if (substr($0, 1, 4) == "msg ") want[substr($0, 5)] = 1; next }
        {
            if (substr($0, 1, length(pre)) != pre) { if (other == "") other = $0; next }
            rest = substr($0, length(pre) + 1)
            if (rest ~ /^(warning|note): /) next
            if (rest !~ /^offset 0x[0-9a-f]*: ./) { if (other == "") other = $0; next }
            off = substr(rest, 8)
            sub(/:.*/, "", off)
            if ((off in got) && twice == "") twice = off
            if (!(off in want) && stray == "") stray = $0
            got[off] = 1
            n++
        }
        END {
            if (other != "") { print "unexpected message: " other; exit }
            if (twice != "") { print "a problem reported twice: " twice; exit }
            if (stray != "") { print "a message at an offset nothing was damaged at: " stray; exit }
            if (every) {
                miss = ""
                for (o in want) if (!(o in got) && (miss == "" || o < miss)) miss = o
                if (miss != "") { print "no message for the damage at " miss; exit }
            }
            if (rc != (n > 0)) { print "exit " rc ", want " (n > 0); exit }
            print "ok"
        }' "$tmp/$rn.exp" "$tmp/err")
    [ "$verdict" = ok ] || { bad "$what: $verdict"; return 1; }
    if [ -n "$kib" ] && [ $((kib - base_kib)) -ge "${case_limit_kib:-$limit_kib}" ]; then
        bad "$what: peak memory $kib KiB less $base_kib, not under ${case_limit_kib:-$limit_kib}"; return 1
    fi
    [ -n "$kib" ] && echo "$kib $rn $label" >> "$tmp/peaks"
    return 0
}

# views NAME [LABEL...]: every view and format of NAME with the standard
# checks; built with a sanitizer or under an emulator, where a run costs
# many times more, the views of those labels are left out.
views() {
    vn=$1; shift
    leave=" $* "
    [ -n "$slow" ] || leave=
    for v in "all-switches -f csv" "all-events --events=all -f csv" "all-text" "all-json -f json" \
             "all-xml -f xml" "summary --summary -f csv" "routines --summary=routines" \
             "usage --usage -f csv" "stats --stats -f csv" "info --info -f csv" \
             "perfetto -f perfetto -o $tmp/o.pftrace" "svg -f svg -o $tmp/o.svg"; do
        set -- $v
        vl=$1; shift
        case $leave in *" $vl "*) continue ;; esac
        run "$vn" "$vl" "$@" && ok
    done
    rm -f "$tmp/o.pftrace" "$tmp/o.svg"
}

# switches NAME [ARGS]: the switch view's (cpu, timestamp, old_tid,
# new_tid) against the expected switches: those with a defined place in
# their CPU's order in that order, the others as a set.
switches() {
    sn=$1; shift
    run "$sn" "all-switches" -f csv "$@" || return
    cols "$tmp/out" cpu timestamp old_tid new_tid > "$tmp/sw.csv"
    tagged "$sn" sw > "$tmp/want.sw"
    tagged "$sn" swset | sort > "$tmp/want.set"
    cut -d, -f1 "$tmp/want.sw" | sort -u > "$tmp/cpus.ord"
    awk -F, 'FILENAME == ARGV[1] { o[$1] = 1; next } ($1 in o)' "$tmp/cpus.ord" "$tmp/sw.csv" |
        sort -s -t, -k1,1n > "$tmp/got.sw"
    awk -F, 'FILENAME == ARGV[1] { o[$1] = 1; next } !($1 in o)' "$tmp/cpus.ord" "$tmp/sw.csv" |
        sort > "$tmp/got.set"
    if ! cmp -s "$tmp/want.sw" "$tmp/got.sw"; then
        bad "$sn: switches in each CPU's order differ: $(diff "$tmp/want.sw" "$tmp/got.sw" | sed -n 2p) ($(wc -l < "$tmp/got.sw") of $(wc -l < "$tmp/want.sw"))"
    elif ! cmp -s "$tmp/want.set" "$tmp/got.set"; then
        bad "$sn: switches without a defined order differ: $(diff "$tmp/want.set" "$tmp/got.set" | sed -n 2p)"
    else
        ok
    fi
}

# in_time_order NAME: the switch view ($tmp/sw.csv) is in time order.
in_time_order() {
    if cut -d, -f2 "$tmp/sw.csv" | sort -c -n 2> /dev/null; then ok
    else bad "$1: switches not merged in time order"; fi
}

# events NAME HOOK...: --events=all rows of those HookIds (hook_id, cpu,
# timestamp, buffer_offset, event_offset, size) against the "ev" lines.
events() {
    en=$1; shift
    run "$en" "all-events" --events=all -f csv || return
    cols "$tmp/out" hook_id cpu timestamp buffer_offset event_offset size |
        tr 'A-F' 'a-f' | sed 's/^0x0*/0x/' > "$tmp/ev.csv"
    : > "$tmp/got.ev"
    for h in "$@"; do grep "^$h," "$tmp/ev.csv" >> "$tmp/got.ev"; done
    tagged "$en" ev | tr 'A-F' 'a-f' | sed 's/^0x0*/0x/' | sort > "$tmp/want.ev"
    sort -o "$tmp/got.ev" "$tmp/got.ev"
    if cmp -s "$tmp/want.ev" "$tmp/got.ev"; then ok
    else bad "$en: events differ: $(diff "$tmp/want.ev" "$tmp/got.ev" | sed -n 2p)"; fi
}

# ---- a file over 4 GiB ---------------------------------------------------
# A file system without sparse files would store 4 GiB: try 64 MiB first.
truncate -s 64M "$tmp/probe" 2> /dev/null
if [ "$(du -k "$tmp/probe" 2> /dev/null | cut -f1)" -gt 1024 ] 2> /dev/null || [ ! -f "$tmp/probe" ]; then
    echo "no sparse files here" > "$tmp/gen.err"
    grc=77
else
    gen big big
    grc=$?
fi
rm -f "$tmp/probe"
case $grc in
0)
    size=$(wc -c < "$tmp/big.etl")
    used=$(du -k "$tmp/big.etl" | cut -f1)
    if [ "$used" -gt 65536 ]; then
        skipped "big: the file system does not keep $tmp/big.etl sparse ($used KiB used)"
    else
        [ "$size" = "$(tagged big note)" ] && ok || bad "big: $size bytes written"
        # No buffer has events past 0x200 (the header buffer's first
        # record is all that is read of it): none is read whole.
        case_limit_kib=16384
        views big
        case_limit_kib=
        switches big
        in_time_order big
        events big 0x524
    fi ;;
77) skipped "big: the file system cannot hold a sparse file over 4 GiB: $(head -n 1 "$tmp/gen.err")" ;;
esac
rm -f "$tmp/big.etl"

# ---- 1024 CPUs and processor indexes above the header's count -----------------
if gen cpus cpus; then
    views cpus
    switches cpus
    in_time_order cpus
    # CPU 1500 is above the header's 1024 and shown; 3000 is not.
    if [ "$(cut -d, -f1 "$tmp/sw.csv" | sort -un | tail -n 2 | tr '\n' ' ')" = "1023 1500 " ]; then
        ok
    else
        bad "cpus: the highest CPUs shown are $(cut -d, -f1 "$tmp/sw.csv" | sort -un | tail -n 2 | tr '\n' ' ')"
    fi
    # --cpu notes go by the buffers, not the header's count: 1500 has one,
    # the processors between and 2047 none.
    if run cpus "cpu notes" --cpu=1024-1499,1500,2047 -f csv; then
        has="its buffers are of processors 0-1023,1500"
        [ "$(grep -c 'note: --cpu=' "$tmp/err")" -eq 2 ] &&
            grep -q "note: --cpu=1024-1499: no buffer of this trace is of processors 1024-1499; $has\$" "$tmp/err" &&
            grep -q "note: --cpu=2047: no buffer of this trace is of processor 2047; $has\$" "$tmp/err" &&
            [ "$(cut -d, -f1 "$tmp/out" | sed 1d | sort -u)" = 1500 ] && ok ||
            bad "cpus: --cpu=1024-1499,1500,2047: $(grep 'note: --cpu' "$tmp/err" | cut -c1-120)"
    fi
    rm -f "$tmp/cpus.etl"
fi

# ---- a clock going back on one CPU --------------------------------------------------
if gen clockback clockback; then
    views clockback
    switches clockback
    # A run lasts to the CPU's next switch; where that is earlier, its
    # length is unknown (empty), never negative. 10 MHz.
    awk -F, '{ cpu[NR] = $1; ts[NR] = $2 }
        END { for (i = 1; i <= NR; i++) {
                  r = ""
                  if (i < NR && cpu[i + 1] == cpu[i] && ts[i + 1] >= ts[i]) {
                      d = ts[i + 1] - ts[i]; r = sprintf("%d.%09d", d / 10000000, d % 10000000 * 100) }
                  print cpu[i] "," ts[i] "," r } }' "$tmp/want.sw" > "$tmp/want.run"
    run clockback all-switches -f csv && {
        cols "$tmp/out" cpu timestamp new_run | sort -s -t, -k1,1n > "$tmp/got.run"
        cmp -s "$tmp/want.run" "$tmp/got.run" && ok ||
            bad "clockback: new_run: $(diff "$tmp/want.run" "$tmp/got.run" | sed -n 2,3p | tr '\n' ' ')"
        # nor is any of the wait columns
        neg=$(cols "$tmp/out" new_since_last new_ready new_waited | grep -m1 -e '^-' -e ',-')
        [ -z "$neg" ] && ok || bad "clockback: a negative wait column: $neg"
    }
    # No duration is negative, whatever the clock did.
    run clockback summary --summary -f csv && {
        if grep -q ',-[0-9]' "$tmp/out"; then bad "clockback: a negative figure in --summary: $(grep -m1 ',-[0-9]' "$tmp/out")"
        else ok; fi
    }
fi

# ---- times and durations past the int64 range of nanoseconds -------------------------
if gen farclock farclock; then
    views farclock
    switches farclock
    # Saturated at the ends of the range, not wrapped round.
    run farclock all-switches -f csv && {
        cols "$tmp/out" timestamp time new_since_last new_run > "$tmp/got.far"
        tagged farclock far | cmp -s - "$tmp/got.far" && ok ||
            bad "farclock: $(tagged farclock far | diff - "$tmp/got.far" | sed -n 2,3p | tr '\n' ' ')"
    }
fi

# ---- clock types and frequencies --------------------------------------------------
for c in qpc systime cycles raw unknown freqhuge freq0 freqneg freqmin cycles0; do
    gen clock "clock-$c" "$c" || continue
    views "clock-$c"
    # Without a frequency, one warning says 10 MHz is used; else no message.
    run "clock-$c" all-switches -f csv && {
        case $c in freq0 | freqneg | freqmin | cycles0) want=1 ;; *) want=0 ;; esac
        n=$(grep -c "^etldump: $tmp/clock-$c.etl: warning: .*no clock frequency.*10 MHz" "$tmp/err")
        [ "$n" -eq "$want" ] && [ "$(wc -l < "$tmp/err")" -eq "$want" ] && ok ||
            bad "clock-$c: $n warnings about the frequency, want $want: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
    }
    tagged "clock-$c" time > "$tmp/want.time"
    cut -d, -f1,2 "$tmp/want.time" > "$tmp/want.rel"
    cut -d, -f3 "$tmp/want.time" > "$tmp/want.abs"
    run "clock-$c" rel -f csv --time=rel &&
        { cols "$tmp/out" timestamp time | cmp -s - "$tmp/want.rel" && ok ||
          bad "clock-$c: --time=rel: $(cols "$tmp/out" timestamp time | diff "$tmp/want.rel" - | sed -n 2,3p | tr '\n' ' ')"; }
    run "clock-$c" abs -f csv --time=abs &&
        { cols "$tmp/out" time | cmp -s - "$tmp/want.abs" && ok ||
          bad "clock-$c: --time=abs: $(cols "$tmp/out" time | diff "$tmp/want.abs" - | sed -n 2,3p | tr '\n' ' ')"; }
    run "clock-$c" json -f json --time=abs &&
        { sed -n 's/.*"time":"\([^"]*\)".*/\1/p' "$tmp/out" | cmp -s - "$tmp/want.abs" && ok ||
          bad "clock-$c: JSON times differ"; }
    cut -d, -f2 "$tmp/want.rel" > "$tmp/want.r2"
    run "clock-$c" xml -f xml --time=rel &&
        { sed -n 's/.* time="\([^"]*\)".*/\1/p' "$tmp/out" | cmp -s - "$tmp/want.r2" && ok ||
          bad "clock-$c: XML times differ"; }
done

# ---- sequence numbers ---------------------------------------------------------------
gen seq seq-repeat repeat && { views seq-repeat; switches seq-repeat; }
gen seq seq-wrap wrap && { views seq-wrap; switches seq-wrap; }
gen circular seq-circular && { views seq-circular; switches seq-circular; }

# ---- buffer sizes and records at the buffer's end -------------------------------------
gen oddsize oddsize && { views oddsize; switches oddsize; in_time_order oddsize; }
gen toend toend && { views toend; switches toend; events toend 0xf2e; }

# ---- 2^19 + 2^16 processes and threads ------------------------------------------
# The process map keeps the first 524288 thread and 262144 process records
# in file order (man/etldump.1, EXIT STATUS): the threads of the first
# 262144 processes are named, those of the next 262144 have their PID only,
# those of the last 65536 neither, and one warning names the first record
# left out.
tcap=524288 pcap=262144
if gen procs procs; then
    # Each run builds the map anew (0.5 s here, 1.3 with AddressSanitizer,
    # 2.9 under qemu-i386): built with a sanitizer or under an emulator,
    # the switch view is read as CSV alone, and --summary without its
    # routines' table (the other views read the same map).
    views procs all-text all-json all-xml routines
    switches procs
    cols "$tmp/out" timestamp old_tid new_tid old_pid old_process new_pid new_process |
        awk -F, '{ if ($3 != 0) print $1 "," $3 "," $6 "," $7; else print $1 "," $2 "," $4 "," $5 }' > "$tmp/got.pn"
    tagged procs pn | awk -F, -v t=$tcap -v p=$pcap '
        { pid = $4; img = $5; if ($3 >= p) img = ""; if ($3 >= t) pid = ""
          print $1 "," $2 "," pid "," img }' > "$tmp/want.pn"
    cmp -s "$tmp/want.pn" "$tmp/got.pn" && ok ||
        bad "procs: the threads' processes: $(diff "$tmp/want.pn" "$tmp/got.pn" | sed -n 2,3p | tr '\n' ' ')"
    loc=$(tagged procs at | awk -F, -v p=$pcap '$1 == p { print "offset " $2 " (byte " $3 " of the decompressed buffer)" }')
    n=$(grep -c "^etldump: $tmp/procs.etl: warning: $loc: the process map is full" "$tmp/err")
    [ "$n" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok ||
        bad "procs: want one warning at $loc, got: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
    # A process past the map's limits is not said to be missing from the
    # trace (the --process note): the warning alone.
    run procs "process past the limits" -f csv --process=p0589823.exe && {
        [ "$(grep -c "the process map is full" "$tmp/err")" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok ||
            bad "procs: --process past the limits: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
    }
    rm -f "$tmp/procs.etl"
fi

# summary_threads NAME TAG COLUMN...: those columns of the thread rows of the
# --summary CSV in $tmp/out (the idle thread's left out) against NAME's TAG
# lines.
summary_threads() {
    sn=$1 tag=$2; shift 2
    awk -F, 'NR == 1 || $1 == "thread"' "$tmp/out" > "$tmp/thr.csv"
    cols "$tmp/thr.csv" "$@" | grep -v '^0,0,' | sort > "$tmp/got.$tag"
    tagged "$sn" "$tag" | sort > "$tmp/want.$tag"
    cmp -s "$tmp/want.$tag" "$tmp/got.$tag" && ok ||
        bad "$sn: --summary $tag: $(diff "$tmp/want.$tag" "$tmp/got.$tag" | sed -n 2,3p | tr '\n' ' ')"
}

# ---- a TID reused within a millisecond ----------------------------------------------
if gen tidreuse tidreuse; then
    views tidreuse
    switches tidreuse
    # The thread each switch names (the one that is not idle) and its process.
    run tidreuse all-switches -f csv && {
        cols "$tmp/out" timestamp old_tid new_tid old_pid old_process new_pid new_process |
            awk -F, '{ if ($3 != 0) print $1 "," $3 "," $6 "," $7; else print $1 "," $2 "," $4 "," $5 }' > "$tmp/got.who"
        tagged tidreuse who > "$tmp/want.who"
        cmp -s "$tmp/want.who" "$tmp/got.who" && ok ||
            bad "tidreuse: switch view: $(diff "$tmp/want.who" "$tmp/got.who" | sed -n 2,3p | tr '\n' ' ')"
    }
    run tidreuse summary --summary -f csv && {
        summary_threads tidreuse thr pid tid process thread_name cpu_time
        awk -F, 'NR == 1 || $1 == "process"' "$tmp/out" > "$tmp/proc.csv"
        cols "$tmp/proc.csv" pid process cpu_time | grep -v '^0,' | sort > "$tmp/got.proc"
        tagged tidreuse proc | sort > "$tmp/want.proc"
        cmp -s "$tmp/want.proc" "$tmp/got.proc" && ok ||
            bad "tidreuse: --summary processes: $(diff "$tmp/want.proc" "$tmp/got.proc" | sed -n 2,3p | tr '\n' ' ')"
    }
fi

# ---- a TID that changes process while a CPU runs it --------------------------------------
# The switch-out after the new thread's start is the new thread's (its
# switch-in on the other CPU is a migration); the run stays the old one's.
if gen tidmove tidmove; then
    views tidmove
    switches tidmove
    run tidmove summary --summary -f csv && {
        summary_threads tidmove thr pid tid process thread_name cpu_time
        summary_threads tidmove mig pid tid switch_ins migrations
    }
fi

# ---- names that are not valid UTF-16 ---------------------------------------------------
if gen utf16 utf16; then
    views utf16
    switches utf16
    tagged utf16 thr | sort > "$tmp/want.thr"
    cut -d, -f1-4 "$tmp/want.thr" > "$tmp/want.names"
    run utf16 all-summary --summary -f csv && {
        awk -F, 'NR == 1 || $1 == "thread"' "$tmp/out" > "$tmp/thr.csv"
        cols "$tmp/thr.csv" pid tid process thread_name cpu_time | grep -v '^0,0,' | sort > "$tmp/got.thr"
        cmp -s "$tmp/want.thr" "$tmp/got.thr" && ok ||
            bad "utf16: --summary CSV: $(diff "$tmp/want.thr" "$tmp/got.thr" | sed -n 2,3p | tr '\n' ' ')"
    }
    if [ "$havejq" = yes ]; then
        run utf16 all-summary --summary -f json && {
            jq -r 'select(.scope == "thread" and .tid != 0) |
                   [.pid, .tid, .process, (.thread_name // "")] | map(tostring) | join(",")' \
                "$tmp/out" | sort > "$tmp/got.names"
            cmp -s "$tmp/want.names" "$tmp/got.names" && ok ||
                bad "utf16: --summary JSON: $(diff "$tmp/want.names" "$tmp/got.names" | sed -n 2,3p | tr '\n' ' ')"
        }
    fi
    run utf16 all-summary --summary -f xml && {
        # Attributes in schema order: pid, tid, process, thread_name.
        sed -n 's/.*scope="thread" pid="\([0-9]*\)" tid="\([0-9]*\)" process="\([^"]*\)"\( thread_name="\([^"]*\)"\)\{0,1\} cpu_time=.*/\1,\2,\3,\5/p' \
            "$tmp/out" | grep -v '^0,0,' | sort > "$tmp/got.names"
        cmp -s "$tmp/want.names" "$tmp/got.names" && ok ||
            bad "utf16: --summary XML: $(diff "$tmp/want.names" "$tmp/got.names" | sed -n 2,3p | tr '\n' ' ')"
    }
    # Text shows no thread names: the process columns of the switch view,
    # the image column of the events view.
    img=$(tagged utf16 name | sed -n 's/^image,//p')
    run utf16 all-switches && {
        grep -q " $img " "$tmp/out" && ok || bad "utf16: text switch view lacks $img"
    }
    run utf16 all-events --events=all && {
        grep -q " $img " "$tmp/out" && ok || bad "utf16: text events view lacks $img"
    }
    # The logfile header's names, with the one that has no terminator.
    tagged utf16 name | sed -n 's/^logger,//p; s/^logfile,//p' > "$tmp/want.names"
    run utf16 info --info -f csv && {
        cols "$tmp/out" logger_name | head -n 1 > "$tmp/got.names"
        cols "$tmp/out" log_file_name | head -n 1 >> "$tmp/got.names"
        cmp -s "$tmp/want.names" "$tmp/got.names" && ok ||
            bad "utf16: --info names: $(tr '\n' ' ' < "$tmp/got.names")"
    }
    if [ "$havejq" = yes ]; then
        run utf16 info --info -f json && {
            jq -r 'select(.logger_name) | .logger_name, .log_file_name' "$tmp/out" | head -n 2 |
                cmp -s "$tmp/want.names" - && ok || bad "utf16: --info JSON names"
        }
    fi
    run utf16 all-xml -f xml && {
        sed -n 's/.* logger_name="\([^"]*\)" log_file_name="\([^"]*\)".*/\1\
\2/p' "$tmp/out" | cmp -s "$tmp/want.names" - && ok || bad "utf16: XML trace names"
    }
    cmd=$(tagged utf16 name | sed -n 's/^cmdline,//p')
    run utf16 all-events --events=all -f csv && {
        cols "$tmp/out" command_line | grep -qx "$cmd" && ok || bad "utf16: command line $cmd not shown"
    }
fi

# ---- strings a spreadsheet takes for formulas ------------------------------------------
# tests/csvformula.py reads the outputs with Python's csv and json modules
# and holds the strings and what each format makes of them.
if ! command -v python3 > /dev/null 2>&1; then
    skipped "formula: python3 not found (Debian: python3)"
elif gen formula formula; then
    views formula
    fx=$(dirname "$0")/csvformula.py
    n=$(tagged formula fx | wc -l)
    [ "$n" -eq 14 ] && ok || bad "formula: mkedge wrote $n processes, the test knows 14"
    # formula LABEL CHECK COLUMNS ARGS...: etldump ARGS, its output checked.
    formula() {
        fl=$1 fm=$2 fc=$3; shift 3
        run formula "$fl" "$@" || return
        if python3 "$fx" "$fm" "$tmp/out" $fc > "$tmp/fx.err" 2>&1; then ok
        else bad "formula: etldump $* ($fm): $(head -n 2 "$tmp/fx.err" | tr '\n' ' ')"; fi
    }
    for spec in "switches old_process,new_process" \
                "events image,command_line,thread_name --events=all" \
                "summary process,thread_name --summary"; do
        set -- $spec
        fl=$1 fc=$(echo "$2" | tr , ' '); shift 2
        formula "$fl-csv" guarded "$fc" "$@" -f csv
        formula "$fl-kept" kept "$fc" "$@" -f csv --csv-formulas
        formula "$fl-json" json "$fc" "$@" -f json
    done
    # The same bytes whatever the threads (the rows are formatted on them).
    run formula one --events=all -f csv --threads=1 && cp "$tmp/out" "$tmp/fx1.csv" &&
        run formula three --events=all -f csv --threads=3 &&
        { cmp -s "$tmp/fx1.csv" "$tmp/out" && ok || bad "formula: --threads=1 and 3 differ"; }
    # A file column from the command line is guarded too.
    case $etldump in /*) fxe=$etldump ;; *) fxe=$PWD/$etldump ;; esac
    cp "$tmp/formula.etl" "$tmp/=fx.etl"
    (cd "$tmp" && "$fxe" -H -f csv =fx.etl > fxh.csv 2> /dev/null)
    first=$(sed -n 2p "$tmp/fxh.csv" | cut -d, -f1)
    [ "$first" = "'=fx.etl" ] && ok || bad "formula: file column of =fx.etl is $first"
    (cd "$tmp" && "$fxe" -H -f csv --csv-formulas =fx.etl > fxh.csv 2> /dev/null)
    first=$(sed -n 2p "$tmp/fxh.csv" | cut -d, -f1)
    [ "$first" = "=fx.etl" ] && ok || bad "formula: --csv-formulas file column is $first"
    rm -f "$tmp/=fx.etl"
fi

# ---- the recording machine's local time across a change to daylight time --------------
if gen dst dst; then
    views dst
    tagged dst tz | cut -d, -f1 > "$tmp/want.abs"
    tagged dst tz | cut -d, -f2 > "$tmp/want.local"
    for m in abs local; do
        run dst "time-$m" -f csv --time=$m && {
            cols "$tmp/out" time > "$tmp/got.$m"
            cmp -s "$tmp/want.$m" "$tmp/got.$m" && ok ||
                bad "dst: --time=$m: $(diff "$tmp/want.$m" "$tmp/got.$m" | sed -n 2,3p | tr '\n' ' ')"
        }
    done
    if [ "$havejq" = yes ]; then
        run dst time-local-json -f json --time=local && {
            jq -r .time "$tmp/out" | cmp -s "$tmp/want.local" - && ok || bad "dst: --time=local JSON"
        }
    fi
    run dst text-local --time=local && {
        head -n 1 "$tmp/out" | grep -q 'started 2023-03-12T01:59:00.0000000-08:00$' && ok ||
            bad "dst: text's first line with --time=local: $(head -n 1 "$tmp/out")"
    }
    run dst info-json --info -f json && {
        [ "$(head -n 1 "$tmp/out" | jq -r '.utc_offset + " " + .time_zone_daylight_name')" = \
          "-08:00 Pacific Daylight Time" ] && ok || bad "dst: --info utc_offset $(head -c 300 "$tmp/out")"
    }
    run dst stats-local --stats -f csv --time=local && {
        grep -q ',total,events,.*,2023-03-12T01:59:00.0000000-08:00,2023-03-12T03:01:00.0000000-07:00' \
            "$tmp/out" && ok || bad "dst: --stats first and last in local time: $(grep ',total,' "$tmp/out")"
    }
fi

# ---- events shaped like manifest chunks ------------------------------------------------
# --no-fields rows are named on the formatting threads from a copy of the
# event without its data, except those that may be manifest chunks: the
# same rows on one thread and on three.
if gen manifest manifest; then
    views manifest
    switches manifest
    events manifest ""
    for fmt in csv json; do
        run manifest all-events --events=all --no-fields -f $fmt --threads=1 &&
            mv "$tmp/out" "$tmp/one.$fmt" &&
            run manifest all-events --events=all --no-fields -f $fmt --threads=3 && {
                n=$(grep -c 65534 "$tmp/out")
                if [ "$n" -ne 8 ]; then bad "manifest: $n rows of the 8 events shaped like chunks ($fmt)"
                elif cmp -s "$tmp/one.$fmt" "$tmp/out"; then ok
                else bad "manifest: --no-fields -f $fmt differs on 1 and 3 threads: $(diff "$tmp/one.$fmt" "$tmp/out" | sed -n 2p)"; fi
            }
    done
fi

# ---- a name learnt from the last buffer ------------------------------------------------
# An EventMetadata event in the file's last buffer names events of its first
# and ninth: the names' pre-pass reads every buffer before the first row.
# The same names on one thread and on three, with the fields and without
# (--no-fields rows are named on the formatting threads, by decoders made
# after the pre-pass).
if gen learnt learnt; then
    events learnt ""
    want=$(tagged learnt name | sed -n 's/^event,//p' | sort | uniq -c | tr -s ' ')
    [ -n "$want" ] || bad "learnt: mkedge gave no names to expect"
    for t in 1 3; do
        for nf in "" --no-fields; do
            run learnt "names $t $nf" --events=all $nf -f csv --threads=$t && {
                got=$(cols "$tmp/out" event_id event_name | sed -n 's/^7,//p' | sort | uniq -c | tr -s ' ')
                [ "$got" = "$want" ] && ok ||
                    bad "learnt: --threads=$t $nf: names '$got', not '$want'"
            }
        done
    done
fi

# ---- lists in --summary cells -----------------------------------------------------------
# A thread waits for each of the 256 wait reasons (reason r 10 + r % 50
# times) and its processor leaves each of the 256 C-states: every entry of
# wait_reasons and idle_by_cstate, whole, with its count or time (cells cut
# at 2048 and 1024 bytes once dropped the rest, and could end in a cut
# number).
if gen lists lists; then
    views lists
    run lists "lists" --summary -f csv && {
        row=$(cols "$tmp/out" scope tid waits wait_reasons | awk -F, '$1 == "thread" && $2 == 1000')
        list=$(printf '%s\n' "$row" | cut -d, -f4 | tr ' ' '\n')
        want=$(tagged lists counts | tr ' ' '\n' | sort -n | tr '\n' ' ')
        got=$(printf '%s\n' "$list" | sed 's/.*://' | sort -n | tr '\n' ' ')
        sum=$(printf '%s\n' "$list" | awk -F: '{ s += $2 } END { print s }')
        waits=$(printf '%s\n' "$row" | cut -d, -f3)
        malformed=$(printf '%s\n' "$list" | grep -cv '^[A-Za-z0-9]*:[0-9][0-9]*$')
        [ "$got" = "$want" ] && [ "$sum" = "$waits" ] && [ "$malformed" -eq 0 ] && ok ||
            bad "lists: wait_reasons: $(printf '%s\n' "$list" | wc -l) entries summing to $sum of $waits waits, $malformed malformed"
        # The times in ticks of 100 ns (10 MHz), as mkedge counts them.
        tagged lists cstates | awk '{ for (i = 1; i <= NF; i++) printf "C%d:%d\n", i - 1, $i }' \
            > "$tmp/want.cst"
        cols "$tmp/out" scope idle_by_cstate | sed -n 's/^cpu,//p' | tr ' ' '\n' |
            awk -F: '{ split($2, s, "."); printf "%s:%d\n", $1, (s[1] * 1000000000 + s[2]) / 100 }' \
            > "$tmp/got.cst"
        cmp -s "$tmp/want.cst" "$tmp/got.cst" && ok ||
            bad "lists: idle_by_cstate: $(wc -l < "$tmp/got.cst") entries: $(diff "$tmp/want.cst" "$tmp/got.cst" | sed -n 2,3p | tr '\n' ' ')"
    }
fi

# ---- long names in top_readiers ---------------------------------------------------------
# Image names of 300 bytes: the three entries fit; of 509, the first two
# take exactly the 1023 bytes; of 510, the second would pass them; of 1100,
# the first would: the cell holds the entries that fit, whole, and none after.
for len in 300 509 510 1100; do
    gen readiers "readiers$len" "$len" || continue
    run "readiers$len" "readiers $len" --summary -f csv || continue
    want=$(sed -n 's/^cell //p; s/^cell$//p' "$tmp/readiers$len.exp")
    row=$(cols "$tmp/out" scope tid top_readiers | grep '^thread,9000,')
    got=${row#thread,9000,}
    [ -n "$row" ] && [ "$got" = "$want" ] && ok ||
        bad "readiers $len: top_readiers of ${#got} bytes, want ${#want}: $(printf '%s' "$got" | tail -c 40)"
done

# ---- a --cpu note's list of processors, past what a note holds -------------------
# Buffers on the 100 even processors 0-198: the list of those the trace has
# ends in ",..." after whole entries, under 128 bytes.
if gen sparsecpus sparsecpus && run sparsecpus "cpu note" --cpu=1 -f csv; then
    list=$(sed -n 's/.*note: --cpu=1: no buffer of this trace is of processor 1; its buffers are of processors //p' "$tmp/err")
    body=${list%,...}
    printf '%s\n' "$body" | tr ',' '\n' | awk '$0 != 2 * (NR - 1) { bad = 1 } END { exit bad || NR < 10 }' &&
        [ "$body" != "$list" ] && [ "${#list}" -lt 128 ] && ok ||
        bad "sparsecpus: --cpu=1: the note lists '$list'"
fi

if [ -f "$tmp/peaks" ]; then
    echo "edge: largest peaks (KiB): $(sort -rn "$tmp/peaks" | head -n 3 | tr '\n' ';')"
fi
echo "edge: $(( $(date +%s) - start )) s"
echo "edge: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
