#!/bin/sh
# Real traces recorded on Windows (../shared/samples/real, beside the project):
# etldump's census must equal the independent census in EXPECTED.json, kind by
# kind; every file must exit 0; --events=all timestamps never go backwards;
# the XML of WinSAT events decompresses whole and well-formed; the time zone
# --info gives is what the header's bytes say, and every event's
# --time=local its --time=abs at that zone's offset (tests/tzcheck.py).
# Usage: tests/real.sh ETLDUMP [DIR]
set -u
etldump=$1
dir=${2:-$(dirname "$0")/../../shared/samples/real}
pass=0 fail=0
if [ ! -f "$dir/EXPECTED.json" ]; then
    echo "real: SKIPPED: $dir/EXPECTED.json not found (the real traces live beside the project in shared/samples/real)"
    echo "real: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "real: FAIL: $*"; }
skip=0
havepy=yes
command -v python3 > /dev/null 2>&1 ||
    { havepy=no; skip=$((skip + 1)); echo "real: SKIP: time zones: python3 not found (Debian: python3)"; }

n=$(jq length "$dir/EXPECTED.json")
i=0
while [ "$i" -lt "$n" ]; do
    jq ".[$i]" "$dir/EXPECTED.json" > "$tmp/want.json"
    name=$(jq -r .file "$tmp/want.json")
    f=$dir/$name
    i=$((i + 1))

    "$etldump" --stats --format=json "$f" > "$tmp/stats.json" 2> "$tmp/err"
    rc=$?
    # Nothing on stderr, but one warning when the header says data was lost
    # (status 0 all the same).
    el=$(jq .header.events_lost "$tmp/want.json")
    bl=$(jq .header.buffers_lost "$tmp/want.json")
    if [ "$el" = 0 ] && [ "$bl" = 0 ]; then
        [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "$name: --stats exit $rc: $(head -n 3 "$tmp/err")"
    else
        [ "$rc" -eq 0 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
            grep -q "^etldump: [^ ]*$name: warning: the trace lost data: $el events and $bl buffers by its header" "$tmp/err" &&
            ok || bad "$name: --stats exit $rc, want 0 and one warning of $el lost events: $(head -n 3 "$tmp/err")"
    fi
    "$etldump" --info --format=json "$f" > "$tmp/info.json" 2> "$tmp/err" || bad "$name: --info failed"
    # The recording machine's time zone and its offset at the start, against
    # the header's bytes read by Python (tests/tzcheck.py).
    if [ "$havepy" = yes ]; then
        if python3 "$(dirname "$0")/tzcheck.py" "$f" "$tmp/info.json" > "$tmp/tz" 2>&1; then ok
        else bad "$name: time zone: $(head -n 2 "$tmp/tz" | tr '\n' ' ')"; fi
        # Every event's --time=local is its --time=abs at that offset.
        "$etldump" --events=all --no-fields -f csv --time=abs "$f" > "$tmp/abs.csv" 2> /dev/null
        "$etldump" --events=all --no-fields -f csv --time=local "$f" > "$tmp/local.csv" 2> /dev/null
        if python3 "$(dirname "$0")/tzcheck.py" --times "$f" "$tmp/abs.csv" "$tmp/local.csv" \
               > "$tmp/tz" 2>&1; then ok
        else bad "$name: --time=local: $(head -n 2 "$tmp/tz" | tr '\n' ' ')"; fi
    fi

    # Our census, in the shape of EXPECTED.json.
    jq -s --slurpfile info "$tmp/info.json" '
      def clock: {"RAW":0,"PERFCOUNTER":1,"SYSTEMTIME":2,"CPUCYCLE":3}[.];
      {
        buffers: (map(select(.section=="buffers" and .name=="all"))[0].count),
        compressed_buffers: (map(select(.section=="buffers" and .name=="compressed"))[0].count),
        events: (map(select(.section=="total"))[0].count),
        events_per_cpu: (map(select(.section=="cpu") | {(.name): .count}) | add // {}),
        counts: (map(select(.section=="kind") | {(.name | sub(" -$"; " -")): .count}) | add // {}),
        header: ($info[0] | {
          buffer_size, build, cpus,
          log_file_mode: (.log_file_mode | ltrimstr("0x") | ascii_downcase | explode
                          | map(if . >= 97 then . - 87 else . - 48 end)
                          | reduce .[] as $d (0; . * 16 + $d)),
          buffers_written, pointer_size, events_lost, perf_freq,
          start_time: .start_filetime, clock_type: (.clock_type | clock), buffers_lost })
      }' "$tmp/stats.json" > "$tmp/got.json"
    jq '{buffers, compressed_buffers, events, events_per_cpu, counts, header}' \
        "$tmp/want.json" > "$tmp/want2.json"
    # jq reads numbers as doubles: compare the 64-bit start time as text.
    want_start=$(grep -o '"start_time": *[0-9]*' "$dir/EXPECTED.json" | sed -n "${i}p" | tr -dc 0-9)
    got_start=$("$etldump" -q --info --format=csv "$f" | awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "start_filetime") c = k }
                                                           NR == 2 { print $c }' | tr -dc 0-9)
    [ "$want_start" = "$got_start" ] && ok || bad "$name: start_time $got_start, want $want_start"
    for key in buffers compressed_buffers events events_per_cpu counts header; do
        if jq -e --slurpfile w "$tmp/want2.json" ".${key} == \$w[0].${key}" "$tmp/got.json" >/dev/null; then
            ok
        else
            bad "$name: $key differs: got $(jq -c ".${key}" "$tmp/got.json") want $(jq -c ".${key}" "$tmp/want2.json")"
        fi
    done

    # Every event in time order: timestamps never go backwards.
    "$etldump" --events=all --format=csv --time=raw "$f" > "$tmp/ev.csv" 2>/dev/null
    rc=$?
    back=$(awk -F, 'NR > 1 && $2 != "" { if (seen && $2 + 0 < last + 0) r++; last = $2; seen = 1 }
                     END { print r + 0 }' "$tmp/ev.csv")
    rows=$(($(wc -l < "$tmp/ev.csv") - 1))
    want_rows=$(jq .events "$tmp/want.json")
    if [ "$rc" -eq 0 ] && [ "$back" -eq 0 ] && [ "$rows" -eq "$want_rows" ]; then
        ok
    else
        bad "$name: --events=all exit $rc, $rows rows (want $want_rows), $back timestamps go backwards"
    fi

    # Filters of what the trace has get no note: every event name it has
    # (--events=NAMES: those events, --hook with --stats), every HookId
    # (--hook), every thread and process its events name (--tid, --pid:
    # those events), a --range from its last event on; one more nanosecond
    # is after the last event, and its note gives that event's time.
    "$etldump" --events=all --no-fields --format=json "$f" 2>/dev/null > "$tmp/ev.json"
    jq -r 'select(.event_name != null) | .event_name' "$tmp/ev.json" > "$tmp/named"
    names=$(sort -u "$tmp/named" | paste -sd, -)
    hooks=$(jq -r 'select(.section == "kind") | .name | split(" ")[1] | select(startswith("0x"))' \
        "$tmp/stats.json" | sort -u | paste -sd, -)
    last=$(jq -r 'select(.section == "total") | .last' "$tmp/stats.json")
    if [ -n "$names" ]; then
        "$etldump" --events="$names" --no-fields -f csv --no-header "$f" > "$tmp/by-name" 2> "$tmp/err"
        ! grep -q 'note:' "$tmp/err" && [ "$(wc -l < "$tmp/by-name")" -eq "$(wc -l < "$tmp/named")" ] && ok ||
            bad "$name: --events=NAMES of its events: $(wc -l < "$tmp/by-name") rows, want $(wc -l < "$tmp/named"): $(head -n 2 "$tmp/err")"
        "$etldump" --stats --hook="$names" "$f" > /dev/null 2> "$tmp/err"
        grep -q 'note:' "$tmp/err" && bad "$name: --stats --hook=NAMES of its events: $(head -n 2 "$tmp/err")" || ok
    fi
    if [ -n "$hooks" ]; then
        "$etldump" --events=all --no-fields --hook="$hooks" "$f" > /dev/null 2> "$tmp/err"
        grep -q 'note:' "$tmp/err" && bad "$name: --hook of its HookIds: $(head -n 2 "$tmp/err")" || ok
    fi
    for who in tid:thread_id pid:process_id; do
        opt=${who%%:*} col=${who#*:}
        ids=$(jq -r "(.$opt // empty), (.$col // empty)" "$tmp/ev.json" | sort -un | paste -sd, -)
        want=$(jq -c "select(.$opt != null or .$col != null)" "$tmp/ev.json" | wc -l)
        [ -n "$ids" ] || continue
        "$etldump" --events=all --no-fields -f csv --no-header --$opt="$ids" "$f" > "$tmp/by-id" 2> "$tmp/err"
        ! grep -q 'note:' "$tmp/err" && [ "$(wc -l < "$tmp/by-id")" -eq "$want" ] && ok ||
            bad "$name: --$opt of its events' IDs: $(wc -l < "$tmp/by-id") rows, want $want: $(head -n 2 "$tmp/err")"
        "$etldump" --stats --$opt="$ids" "$f" > /dev/null 2> "$tmp/err"
        grep -q 'note:' "$tmp/err" && bad "$name: --stats --$opt of its events' IDs: $(head -n 2 "$tmp/err")" || ok
    done
    "$etldump" --events=all --no-fields --range="$last": "$f" > /dev/null 2> "$tmp/err"
    grep -q 'note:' "$tmp/err" && bad "$name: --range=$last: (its last event): $(head -n 2 "$tmp/err")" || ok
    after=$(echo "$last" | awk -F. '{ printf "%s.%09d", $1, $2 + 1 }')
    last_s=$(echo "$last" | sed 's/0*$//; s/\.$//')
    "$etldump" --events=all --no-fields -f csv --no-header --range="$after": "$f" > "$tmp/out" 2> "$tmp/err"
    [ ! -s "$tmp/out" ] &&
        grep -q "note: --range starts at [0-9.]* s, after the trace's last event (at $last_s s)\$" "$tmp/err" && ok ||
        bad "$name: --range=$after: (after its last event): $(head -n 2 "$tmp/err")"

    # The WinSAT events' compressed XML decompresses to a well-formed
    # document: UncompressedLength bytes of UTF-16, its U+0000 the last two.
    "$etldump" --events=all --format=json "$f" 2>/dev/null |
        jq -c 'select(.event_name // "" | startswith("WinSAT/"))' > "$tmp/ws.json"
    k=0
    while read -r line; do
        k=$((k + 1))
        printf '%s' "$line" | jq -j .fields.Xml > "$tmp/ws.xml"
        u=$(printf '%s' "$line" | jq .fields.UncompressedLength)
        bytes=$(iconv -f UTF-8 -t UTF-16LE < "$tmp/ws.xml" 2>/dev/null | wc -c)
        if xmllint --noout "$tmp/ws.xml" 2>/dev/null && [ $((bytes + 2)) -eq "$u" ]; then
            ok
        else
            bad "$name: WinSAT event $k: Xml not well-formed, or $bytes bytes of UTF-16 (UncompressedLength $u)"
        fi
    done < "$tmp/ws.json"
done

# A field name that is not UTF-8 (a byte of pv-primitive-types' int64_type
# made 0xF3, in a copy) shows as U+FFFD in every format: the output stays
# valid UTF-8.
f=$dir/pv-primitive-types.etl
if [ -f "$f" ]; then
    cp "$f" "$tmp/badname.etl"
    off=$(grep -boa 'int64_type' "$tmp/badname.etl" | head -n 1 | cut -d: -f1)
    printf '\363' | dd of="$tmp/badname.etl" bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
    for fmt in text csv json xml; do
        "$etldump" -q --events=all -f $fmt "$tmp/badname.etl" > "$tmp/badname.$fmt"
        if iconv -f UTF-8 -t UTF-8 "$tmp/badname.$fmt" > /dev/null 2>&1 &&
           grep -q "int64_$(printf '\357\277\275')ype" "$tmp/badname.$fmt"; then
            ok
        else
            bad "a field name that is not UTF-8: the $fmt output is not UTF-8, or no U+FFFD"
        fi
    done
fi
# A field name the schema gives twice (pv-primitive-types' uint32_type made
# uint16_type, in a copy): the JSON keys differ, the second "uint16_type#2",
# so a reader keeps both values.
if [ -f "$f" ]; then
    cp "$f" "$tmp/dup.etl"
    off=$(grep -boa 'uint32_type' "$tmp/dup.etl" | head -n 1 | cut -d: -f1)
    printf 'uint16_type' | dd of="$tmp/dup.etl" bs=1 seek="$off" conv=notrunc 2>/dev/null
    "$etldump" -q --events=solar_system -f json "$tmp/dup.etl" | head -n 1 > "$tmp/dup.json"
    "$etldump" -q --events=solar_system -f json "$f" | head -n 1 > "$tmp/nodup.json"
    if [ "$(jq -c '.fields | [.uint16_type, ."uint16_type#2"]' "$tmp/dup.json")" = \
         "$(jq -c '.fields | [.uint16_type, .uint32_type]' "$tmp/nodup.json")" ] &&
       [ "$(jq '.fields | length' "$tmp/dup.json")" = "$(jq '.fields | length' "$tmp/nodup.json")" ]; then
        ok
    else
        bad "a field name given twice: $(jq -c .fields "$tmp/dup.json")"
    fi
fi
echo "real: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
