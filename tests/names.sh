#!/bin/sh
# What a trace carries, by name: --info's logger mode, clock type and group
# masks on the real traces (../shared/samples/real, skipped when absent) and
# on traces built by the test writer; the warning when switches are
# expected but missing; --groupmask with names and values mixed; and
# --logger-context on a WMI_LOGGER_CONTEXT laid out byte by byte here. Every
# format is checked: XML against the schema, JSON with jq, CSV one table.
# Prints one line per failure, then "names: N passed, M failed".
# Usage: tests/names.sh ETLDUMP [REALDIR [MKTRACE]]
set -u
etldump=$1
real=${2:-$(dirname "$0")/../../shared/samples/real}
mktrace=${3:-$(dirname "$0")/../build/mktrace}
xsd=$(dirname "$0")/../doc/etldump.xsd
export LC_ALL=C TZ=UTC
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "names: FAIL: $*"; }
finish() {
    if [ "$skip" -gt 0 ]; then
        echo "names: $pass passed, $fail failed, $skip skipped"
    else
        echo "names: $pass passed, $fail failed"
    fi
    [ "$fail" -eq 0 ]
    exit
}

for tool in jq xmllint dd od; do
    command -v "$tool" >/dev/null 2>&1 || { bad "$tool not found"; finish; }
done

# check LABEL COMMAND...: the command succeeds.
check() {
    label=$1
    shift
    if "$@"; then ok; else bad "$label"; fi
}

# jqtrue LABEL FILTER FILE: jq -e FILTER holds on FILE (JSON Lines slurped).
jqtrue() {
    if jq -e -s "$2" "$3" > /dev/null 2>&1; then ok; else bad "$1 ($2 on $(head -c 300 "$3"))"; fi
}

# valid LABEL FILE: the XML validates against the schema.
valid() {
    if xmllint --noout --schema "$xsd" "$2" > "$tmp/xmllint" 2>&1; then
        ok
    else
        bad "$1: does not validate: $(grep -v validates "$tmp/xmllint" | head -n 2 | tr '\n' ' ')"
    fi
}

# info NAME FILE: --info of FILE in every format into $tmp/NAME.{txt,json,csv,xml}
# (exit statuses 0 and nothing on stderr).
info() {
    for fmt in text json csv xml; do
        "$etldump" --info -f $fmt "$2" > "$tmp/$1.$fmt" 2> "$tmp/$1.$fmt.err"
        rc=$?
        if [ "$rc" -eq 0 ] && [ ! -s "$tmp/$1.$fmt.err" ]; then
            ok
        else
            bad "$1: --info -f $fmt: exit $rc: $(head -n 2 "$tmp/$1.$fmt.err")"
        fi
    done
    valid "$1 --info xml" "$tmp/$1.xml"
    # CSV: one table only, the trace row.
    recs=$(wc -l < "$tmp/$1.csv" | tr -d ' ')
    [ "$recs" = 2 ] && ok || bad "$1: --info CSV has $recs lines, want 2"
    head -n 1 "$tmp/$1.csv" | grep -q ',log_file_mode_names,clock_type_name,' && ok ||
        bad "$1: CSV header lacks the name columns"
}

# ---- real traces ---------------------------------------------------------

if [ -f "$real/pv-diaghub-kernel.etl" ]; then
    info circ "$real/pv-gcevents-circular.etl"
    jqtrue "circular: mode names" '.[0].log_file_mode_names ==
        "EVENT_TRACE_FILE_MODE_CIRCULAR|EVENT_TRACE_INDEPENDENT_SESSION_MODE"' "$tmp/circ.json"
    jqtrue "circular: clock" '.[0].clock_type_name == "EVENT_TRACE_CLOCK_PERFCOUNTER"
        and .[0].clock_type == "PERFCOUNTER" and .[0].log_file_mode == "0x08000002"' "$tmp/circ.json"
    jqtrue "circular: no header extension, no masks" \
        '(.[0] | has("group_masks") or has("context_switches")) | not' "$tmp/circ.json"
    grep -q '^log_file_mode_names: EVENT_TRACE_FILE_MODE_CIRCULAR|' "$tmp/circ.text" && ok ||
        bad "circular: text lacks log_file_mode_names"

    info selfdesc "$real/pv-selfdescribing.etl"
    jqtrue "compressed: mode names" '.[0].log_file_mode_names | split("|") as $n
        | ($n | index("EVENT_TRACE_COMPRESSED_MODE")) and ($n | index("EVENT_TRACE_RELOG_MODE"))
          and ($n | index("EVENT_TRACE_FILE_MODE_SEQUENTIAL"))' "$tmp/selfdesc.json"

    info diaghub "$real/pv-diaghub-kernel.etl"
    jqtrue "diaghub: masks" '.[0] | .kernel_event_version == 80
        and .group_masks == "00000005 00000000 00000000 00000000 00000000 00000000 00000000 00000000"
        and .group_mask_names == "PERF_PROCESS|PERF_LOADER"
        and .enable_flag_names == "EVENT_TRACE_FLAG_PROCESS|EVENT_TRACE_FLAG_IMAGE_LOAD"
        and .context_switches == "none"' "$tmp/diaghub.json"
    jqtrue "diaghub: mode names" '.[0].log_file_mode_names ==
        "EVENT_TRACE_FILE_MODE_SEQUENTIAL|EVENT_TRACE_ADD_HEADER_MODE|EVENT_TRACE_RELOG_MODE"' \
        "$tmp/diaghub.json"
    # The changes: none, then PROCESS|LOADER, then none again, in time order.
    jqtrue "diaghub: mask changes" '[.[1:][] | .group_masks[0:8]] == ["00000000", "00000005", "00000000"]
        and ([.[1:][] | .timestamp] | . == sort)
        and ([.[1:][] | .hook_id] | all(. == "0x0005" or . == "0x0020"))
        and .[2].group_mask_names == "PERF_PROCESS|PERF_LOADER"' "$tmp/diaghub.json"
    n=$(xmllint --xpath 'count(/etldump/file/groupmask)' "$tmp/diaghub.xml" 2>/dev/null)
    [ "$n" = 3 ] && ok || bad "diaghub: $n <groupmask> elements, want 3"
    grep -q '^ *time hook_id group_masks' "$tmp/diaghub.text" && ok ||
        bad "diaghub: text lacks the change table"
    # Before another view, XML shows the masks of the first buffers but no
    # change table; text starts with the view's rows (--info has the rest).
    "$etldump" --stats -f xml "$real/pv-diaghub-kernel.etl" > "$tmp/dh.stats.xml" 2> "$tmp/dh.err"
    [ "$(xmllint --xpath 'string(/etldump/file/trace/@group_mask_names)' "$tmp/dh.stats.xml" 2>/dev/null)" = "PERF_PROCESS|PERF_LOADER" ] && ok ||
        bad "diaghub: --stats XML lacks the masks of the first buffers"
    [ "$(xmllint --xpath 'count(/etldump/file/groupmask)' "$tmp/dh.stats.xml" 2>/dev/null)" = 0 ] && ok ||
        bad "diaghub: change table before --stats"
    "$etldump" --stats "$real/pv-diaghub-kernel.etl" > "$tmp/dh.stats" 2> "$tmp/dh.err"
    [ "$(grep -c '^# ' "$tmp/dh.stats")" = 1 ] && sed -n 2p "$tmp/dh.stats" | grep -q '^section ' && ok ||
        bad "diaghub: --stats text does not start with one comment line and the table"
    # No switches, and none expected: no warning, one note saying what the
    # trace records and what to try, status 0; --quiet silences it.
    "$etldump" "$real/pv-diaghub-kernel.etl" > /dev/null 2> "$tmp/dh.err"
    rc=$?
    [ "$rc" -eq 0 ] && [ "$(wc -l < "$tmp/dh.err")" = 1 ] &&
        grep -q '^etldump: [^:]*pv-diaghub-kernel.etl: note: no context switches in this trace; it records 16335 events (Image [0-9]*, Process [0-9]*.*try --stats or --events=all$' "$tmp/dh.err" &&
        ok || bad "diaghub: switch view exit $rc: $(cat "$tmp/dh.err")"
    "$etldump" -q "$real/pv-diaghub-kernel.etl" > /dev/null 2> "$tmp/dh.err"
    [ $? -eq 0 ] && [ ! -s "$tmp/dh.err" ] && ok || bad "diaghub: --quiet still says: $(cat "$tmp/dh.err")"
    # The same note from every view of the switches, which would otherwise
    # show an empty table, a timeline of zeros or an empty picture.
    for v in --summary --summary=routines --usage "-f svg -o $tmp/dh.svg" "-f perfetto -o $tmp/dh.pftrace"; do
        "$etldump" $v "$real/pv-diaghub-kernel.etl" > /dev/null 2> "$tmp/dh.err"
        rc=$?
        [ "$rc" -eq 0 ] && [ "$(wc -l < "$tmp/dh.err")" = 1 ] &&
            grep -q '^etldump: [^:]*pv-diaghub-kernel.etl: note: no context switches in this trace; it records 16335 events (.*try --stats or --events=all$' "$tmp/dh.err" &&
            ok || bad "diaghub: $v: exit $rc: $(cat "$tmp/dh.err")"
    done

    info dnperf "$real/dnperf-dynamicevents.etl"
    jqtrue "dnperf: masks" '.[0] | .group_mask_names == "PERF_PROCESS|PERF_THREAD"
        and .kernel_event_version > 0' "$tmp/dnperf.json"
else
    echo "names: SKIPPED: real-trace checks: $real not found (the real traces live beside the project in shared/samples/real)"
    skip=$((skip + 1))
fi

# ---- traces from the test writer ----------------------------------------

if [ -x "$mktrace" ]; then
    for enc in cswitch compact mixed; do
        "$mktrace" --quiet --encoding=$enc --switches=500 --seed=3 "$tmp/$enc.etl" - 2> "$tmp/gen.err" ||
            { bad "mktrace $enc: $(cat "$tmp/gen.err")"; continue; }
        info "gen-$enc" "$tmp/$enc.etl"
        if [ $enc = cswitch ]; then
            names=PERF_CONTEXT_SWITCH cs=cswitch m1=00000004
        else
            names="PERF_CONTEXT_SWITCH|PERF_COMPACT_CSWITCH" cs=compact m1=00000104
        fi
        jqtrue "$enc: masks" ".[0] | .group_mask_names == \"$names\" and .context_switches == \"$cs\"
            and .group_masks == \"00000000 $m1 00000000 00000000 00000000 00000000 00000000 00000000\"
            and .log_file_mode_names == \"EVENT_TRACE_FILE_MODE_SEQUENTIAL\"
            and .clock_type_name == \"EVENT_TRACE_CLOCK_PERFCOUNTER\"
            and (.kernel_event_version | type) == \"number\"" "$tmp/gen-$enc.json"
        # The writer repeats the same masks mid-trace: one row, no change.
        jqtrue "$enc: one group-mask row" 'length == 2 and .[1].group_mask_names != null' "$tmp/gen-$enc.json"
        grep -q "^context_switches: $cs\$" "$tmp/gen-$enc.text" && ok || bad "$enc: text context_switches"
        # The switch view: switches found, no warning.
        "$etldump" -f csv "$tmp/$enc.etl" > /dev/null 2> "$tmp/sw.err"
        rc=$?
        [ "$rc" -eq 0 ] && [ ! -s "$tmp/sw.err" ] && ok || bad "$enc: switch view exit $rc: $(cat "$tmp/sw.err")"
        # Before another view, XML carries the masks (no change table); valid.
        "$etldump" --stats -f xml "$tmp/$enc.etl" > "$tmp/st.xml" 2> /dev/null
        valid "$enc --stats xml" "$tmp/st.xml"
        n=$(xmllint --xpath 'count(/etldump/file/trace[@context_switches="'$cs'"])' "$tmp/st.xml" 2>/dev/null)
        m=$(xmllint --xpath 'count(/etldump/file/groupmask)' "$tmp/st.xml" 2>/dev/null)
        [ "$n" = 1 ] && [ "$m" = 0 ] && ok || bad "$enc: --stats XML: $n trace with context_switches, $m groupmask"
    done
    # The masks say switches, the trace has none: a warning, exit status 0.
    "$mktrace" --quiet --switches=0 --misc-rate=0 "$tmp/none.etl" - 2> /dev/null
    for fmt in text csv; do
        "$etldump" -f $fmt "$tmp/none.etl" > "$tmp/none.out" 2> "$tmp/none.err"
        rc=$?
        [ "$rc" -eq 0 ] && ok || bad "no switches ($fmt): exit $rc"
        grep -q "^etldump: $tmp/none.etl: warning: .*PERF_CONTEXT_SWITCH.*none were found" "$tmp/none.err" &&
            ok || bad "no switches ($fmt): no warning: $(cat "$tmp/none.err")"
    done
    # --info alone decodes no switches: no warning there.
    "$etldump" --info "$tmp/none.etl" > /dev/null 2> "$tmp/none.err"
    [ ! -s "$tmp/none.err" ] && ok || bad "--info warns: $(cat "$tmp/none.err")"
else
    bad "$mktrace not found (make build/mktrace)"
fi

# ---- --groupmask ---------------------------------------------------------

list="PERF_CONTEXT_SWITCH,0x20000100, perf_process ,0x60000011,EVENT_TRACE_FLAG_CSWITCH,PERF_SPININSTR"
for fmt in text json csv xml; do
    "$etldump" --groupmask="$list" -f $fmt > "$tmp/gm.$fmt" 2> "$tmp/gm.err"
    rc=$?
    [ "$rc" -eq 0 ] && [ ! -s "$tmp/gm.err" ] && ok || bad "--groupmask -f $fmt: exit $rc: $(cat "$tmp/gm.err")"
done
jqtrue "--groupmask json" 'length == 8 and ([.[].index] == [0,1,2,3,4,5,6,7])
    and .[0].mask == "0x00000011" and .[0].names == "PERF_PROCESS|EVENT_TRACE_FLAG_CSWITCH"
    and .[1].mask == "0x00210104"
    and .[1].names == "PERF_CONTEXT_SWITCH|PERF_COMPACT_CSWITCH|PERF_SPINLOCK|PERF_SPINLOCK_CNTRS"
    and .[3].mask == "0x00000011" and .[3].names == "0x60000011"
    and .[2].mask == "0x00000000" and .[2].names == ""' "$tmp/gm.json"
valid "--groupmask xml" "$tmp/gm.xml"
n=$(xmllint --xpath 'count(/etldump/mask)' "$tmp/gm.xml" 2>/dev/null)
[ "$n" = 8 ] && ok || bad "--groupmask xml: $n <mask> elements"
[ "$(wc -l < "$tmp/gm.csv" | tr -d ' ')" = 9 ] && head -n 1 "$tmp/gm.csv" | grep -q '^index,mask,names' && ok ||
    bad "--groupmask csv: $(head -n 2 "$tmp/gm.csv" | tr '\r\n' '  ')"
grep -q '^ *1 0x00210104 PERF_CONTEXT_SWITCH|PERF_COMPACT_CSWITCH|' "$tmp/gm.text" && ok ||
    bad "--groupmask text: $(sed -n 3p "$tmp/gm.text")"
for arg in PERF_NOPE "PERF_THREAD,,PERF_LOADER" 0x100000000 "PERF_THREAD,bogus_name"; do
    "$etldump" --groupmask="$arg" > "$tmp/gm.out" 2> "$tmp/gm.err"
    rc=$?
    [ "$rc" -eq 2 ] && [ ! -s "$tmp/gm.out" ] && ok || bad "--groupmask=$arg: exit $rc"
done
grep -q "unknown name 'bogus_name'" "$tmp/gm.err" && ok || bad "unknown name not named: $(cat "$tmp/gm.err")"
"$etldump" --groupmask=PERF_THREAD --info > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--groupmask with --info is not a usage error"

# ---- --logger-context ----------------------------------------------------

# put32 FILE OFFSET VALUE: writes VALUE little-endian at OFFSET.
put32() {
    v=$3
    bytes=""
    for k in 0 1 2 3; do
        bytes="$bytes\\$(printf %03o $((v % 256)))"
        v=$((v / 256))
    done
    # shellcheck disable=SC2059
    printf "$bytes" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

lc=$tmp/memory.raw
base=64      # the structure starts here; the image goes on after it
dd if=/dev/zero of="$lc" bs=1024 count=2 2> /dev/null
put32 "$lc" $((base + 0x000)) 33          # LoggerId
put32 "$lc" $((base + 0x004)) 65536       # BufferSize
put32 "$lc" $((base + 0x00C)) $((0x04010001))   # LoggerMode
put32 "$lc" $((base + 0x0D8)) 1           # ClockType
put32 "$lc" $((base + 0x100)) 7           # EventsLost
put32 "$lc" $((base + 0x340)) $((0x00030024))   # Flags: FsReady KernelTrace, index 3
put32 "$lc" $((base + 0x344)) $((0x00000004))   # RequestFlag
put32 "$lc" $((base + 0x0A0)) $((0x11112222))   # LoggerName.Buffer low
put32 "$lc" $((base + 0x0A4)) $((0xFFFFA000))   # and high
for fmt in text json csv xml; do
    "$etldump" --logger-context="$lc@$base" --windows=10.0 --arch=x64 -f $fmt > "$tmp/lc.$fmt" 2> "$tmp/lc.err"
    rc=$?
    [ "$rc" -eq 0 ] && [ ! -s "$tmp/lc.err" ] && ok || bad "--logger-context -f $fmt: exit $rc: $(cat "$tmp/lc.err")"
done
jqtrue "--logger-context json" 'length == 1 and (.[0] | .logger_id == 33 and .buffer_size == 65536
    and .logger_mode == "0x04010001"
    and .logger_mode_names == "EVENT_TRACE_FILE_MODE_SEQUENTIAL|EVENT_TRACE_RELOG_MODE|EVENT_TRACE_COMPRESSED_MODE"
    and .clock_type == 1 and .clock_type_name == "EVENT_TRACE_CLOCK_PERFCOUNTER"
    and .events_lost == 7 and .flags_names == "FsReady|KernelTrace" and .system_logger_index == 3
    and .request_flag_names == "DbgRequestFlush" and .logger_name_buffer == "0xffffa00011112222"
    and .size == "0x0398" and .offset == "0x00000040" and (has("nbq_head") | not))' "$tmp/lc.json"
valid "--logger-context xml" "$tmp/lc.xml"
grep -q '^events_lost: 7$' "$tmp/lc.text" && grep -q '^clock_type_name: EVENT_TRACE_CLOCK_PERFCOUNTER$' "$tmp/lc.text" &&
    ok || bad "--logger-context text"
[ "$(wc -l < "$tmp/lc.csv" | tr -d ' ')" = 2 ] && ok || bad "--logger-context csv: not two records"
for w in 6.1 6.2 6.3 10.0; do
    for a in x86 x64; do
        "$etldump" --logger-context="$lc" --windows=$w --arch=$a -f xml > "$tmp/lc2.xml" 2> /dev/null
        valid "--logger-context $w $a" "$tmp/lc2.xml"
    done
done
# Too short for the layout at that offset: exit 3, a message naming the file
# and the offset, nothing printed.
for fmt in text json csv; do
    "$etldump" --logger-context="$lc@0x500" --windows=10.0 --arch=x64 -f $fmt > "$tmp/lc.out" 2> "$tmp/lc.err"
    rc=$?
    [ "$rc" -eq 3 ] && [ ! -s "$tmp/lc.out" ] && ok || bad "short input ($fmt): exit $rc, $(wc -c < "$tmp/lc.out") bytes out"
done
grep -q "^etldump: $lc: offset 0x500: too short" "$tmp/lc.err" && ok || bad "short input message: $(cat "$tmp/lc.err")"
"$etldump" --logger-context="$lc@0x500" --windows=10.0 --arch=x64 -f xml > "$tmp/lc.out" 2> /dev/null
[ $? -eq 3 ] && ! grep -q logger_context "$tmp/lc.out" && ok || bad "short input (xml): a row was printed"
"$etldump" --logger-context="$tmp/no-such" --windows=6.1 --arch=x86 > /dev/null 2>&1
[ $? -eq 3 ] && ok || bad "missing --logger-context file: not exit 3"
"$etldump" --logger-context="$lc" --windows=10.0 > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--logger-context without --arch: not a usage error"
"$etldump" --logger-context="$lc" --windows=11 --arch=x64 > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--windows=11: not a usage error"

# ---- documentation: --help and the manual name every option and column ----

man=$(dirname "$0")/../man/etldump.1
"$etldump" --help > "$tmp/help" 2>&1
for opt in groupmask logger-context windows arch; do
    grep -q -- "--$opt=" "$tmp/help" && ok || bad "--help lacks --$opt"
    roff=$(echo "--$opt" | sed 's/-/\\-/g')    # --logger-context is \-\-logger\-context
    grep -qF -- "$roff" "$man" && ok || bad "man page lacks --$opt"
done
for col in log_file_mode_names clock_type_name kernel_event_version group_masks \
           group_mask_names enable_flag_names context_switches logger_mode_names \
           flags_names system_logger_index request_flag_names hook_id_map_size; do
    grep -q "$col" "$man" && ok || bad "man page lacks column $col"
done

finish
