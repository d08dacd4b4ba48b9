#!/bin/sh
# The command line's contract: exit statuses, messages, pipes, write errors,
# several inputs, -o, --strict, --help. Usage: tests/cli.sh ETLDUMP
set -u
etldump=$1
top=$(dirname "$0")/..
sample=$top/samples/demo-compact.etl
pass=0 fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# expect NAME STATUS COMMAND...: the command exits with STATUS.
expect() {
    name=$1 want=$2
    shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "cli: FAIL: $name: exit $rc, want $want: $(head -n 2 "$tmp/err")"
    fi
}
# check NAME CONDITION...: a shell test that must hold.
check() {
    name=$1
    shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "cli: FAIL: $name"; fi
}

expect "clean" 0 "$etldump" "$sample"
check "clean: nothing on stderr" test ! -s "$tmp/err"
expect "--help" 0 "$etldump" --help
check "--help names every option" sh -c "grep -q -- '--max-wait-reason' '$tmp/out' && grep -q -- '--strict' '$tmp/out'"
expect "--version" 0 "$etldump" --version
expect "unknown option" 2 "$etldump" --no-such-option "$sample"
# Options refused say why in one line, naming the option as given.
for pair in "--crlf=1|option '--crlf' takes no value" \
            "--strict=1|option '--strict' takes no value" \
            "--info=x|option '--info' takes no value" \
            "--crl=1|option '--crlf' takes no value" \
            "--s|option '--s' is ambiguous: --stats, --strict, --summary" \
            "--no-such=1|unknown option '--no-such'" \
            "-x|unknown option '-x'"; do
    arg=${pair%%|*} msg=${pair#*|}
    expect "$arg" 2 "$etldump" "$arg" "$sample"
    check "$arg: $msg" sh -c "head -n 1 '$tmp/err' | grep -qxF \"etldump: $msg\" &&
                              test \$(wc -l < '$tmp/err') -eq 2"
done
expect "no input" 2 "$etldump"
expect "bad format" 2 "$etldump" -f yaml "$sample"
expect "bad time" 2 "$etldump" --time=later "$sample"
expect "bad --events" 2 "$etldump" --events=Process,,Image "$sample"
expect "bad --max-wait-reason" 2 "$etldump" --max-wait-reason=0 "$sample"
expect "two views" 2 "$etldump" --info --stats "$sample"

# Numbers are decimal or 0x hex: a leading zero is not octal.
expect "--cpu=010" 0 "$etldump" --cpu=010 "$sample"
check "--cpu=010 is processor 10" grep -q 'note: --cpu=10: no buffer' "$tmp/err"
expect "--cpu=08" 0 "$etldump" --cpu=08,0x1 -f csv "$sample"
check "--cpu=08,0x1: processor 1's switches" \
    sh -c "test \"\$(cut -d, -f1 '$tmp/out' | sort -u | tr '\n' ' ')\" = '1 cpu '"
expect "--threads=08" 0 "$etldump" --threads=08 "$sample"
expect "--hook=0303" 0 "$etldump" --stats --hook=0303 "$sample"
check "--hook=0303 is HookId 0x012f" grep -q 'note: --hook=0x012f:' "$tmp/err"
expect "--groupmask=010" 0 "$etldump" --groupmask=010
check "--groupmask=010 is 0xa" grep -q '^ *0 0x0000000a ' "$tmp/out"
for arg in --cpu=+1 "--cpu= 1" --cpu=0x --threads=-1 "--threads= 2" --threads=0x; do
    expect "$arg" 2 "$etldump" "$arg" "$sample"
done

# Inputs that cannot be read or are not ETL: status 3, the others still dumped.
expect "missing file" 3 "$etldump" -f csv "$tmp/none.etl" "$sample"
check "missing file: the next input is dumped" test "$(wc -l < "$tmp/out")" -gt 800
check "missing file: message names it" grep -q "none.etl" "$tmp/err"
head -c 5000 /dev/urandom > "$tmp/random.bin"
expect "not ETL" 3 "$etldump" "$tmp/random.bin"
check "not ETL: file and offset named" grep -q "random.bin: offset 0x0: not an ETL file" "$tmp/err"
check "not ETL: nothing more said" test "$(wc -l < "$tmp/err")" -eq 1
# A trace after bytes of something else (a copy cut 30 bytes in with the
# trace after it; a saved HTTP response): read from its header buffer, at
# the file's offsets, said; from a pipe too.
"$etldump" -f csv "$sample" > "$tmp/whole.csv" 2> /dev/null
{ head -c 30 "$sample"; cat "$sample"; } > "$tmp/junk.etl"
expect "a trace after 30 bytes" 1 "$etldump" -f csv "$tmp/junk.etl"
check "a trace after 30 bytes: where it is said" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'junk.etl: offset 0x0: no logfile header at the start, but a trace.s header buffer at offset 0x1e, after 30 bytes that begin no trace: the trace is read from there\$' '$tmp/err'"
check "a trace after 30 bytes: read whole" cmp -s "$tmp/out" "$tmp/whole.csv"
"$etldump" --events=all --no-fields -f csv "$tmp/junk.etl" > "$tmp/out" 2> /dev/null
check "a trace after 30 bytes: its offsets the file's" sh -c "[ \$(grep -c '^0,[0-9]*,SYSTEM64,0x0000,,,0,2,[0-9]*,[0-9]*,[0-9]*,0.000000000,30,72,' '$tmp/out') -eq 1 ]"
{ printf 'HTTP/1.1 200 OK\r\n\r\n'; cat "$sample"; } > "$tmp/junk.etl"
expect "a trace after an HTTP header, from a pipe" 1 sh -c "cat '$tmp/junk.etl' | '$etldump' -f csv -"
check "a trace after an HTTP header, from a pipe: where it is said" grep -q '(standard input): offset 0x0: no logfile header at the start, but a trace.s header buffer at offset 0x13, after 19 bytes that begin no trace: the trace is read from there$' "$tmp/err"
check "a trace after an HTTP header, from a pipe: read whole" cmp -s "$tmp/out" "$tmp/whole.csv"
rm -f "$tmp/junk.etl"
# No logfile header at all: its record damaged, or the file's start cut
# off (a copy from a disk, carved). The buffers are read without it, said
# once; the clock taken as 10 MHz from the earliest event; the Windows
# build unknown (--max-wait-reason gives the compact switches' own).
mwr=--max-wait-reason=0x27
"$etldump" -f csv $mwr "$sample" 2> /dev/null | cut -d, -f1-2,4- > "$tmp/whole.csv"
cp "$sample" "$tmp/nohdr.etl"
dd if=/dev/zero of="$tmp/nohdr.etl" bs=1 seek=72 count=16 conv=notrunc 2> /dev/null
expect "logfile header's record zeroed" 1 "$etldump" -f csv $mwr "$tmp/nohdr.etl"
check "logfile header's record zeroed: said once" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'nohdr.etl: offset 0x0: no logfile header at the start (damaged, or the file.s start cut off): buffers read from offset 0x0 on without it: 10 MHz clock from the earliest event, no absolute time, build and processors unknown\$' '$tmp/err'"
check "logfile header's record zeroed: every switch read" sh -c "cut -d, -f1-2,4- '$tmp/out' | cmp -s - '$tmp/whole.csv'"
"$etldump" --info "$tmp/nohdr.etl" > "$tmp/out" 2> /dev/null
check "logfile header's record zeroed: --info says the build is unknown" grep -q '^build: 0$' "$tmp/out"
check "logfile header's record zeroed: --info gives no utc_offset (no start time)" sh -c "! grep -q '^utc_offset' '$tmp/out'"
"$etldump" --events=all --no-fields -f csv --time=local "$tmp/nohdr.etl" 2> /dev/null | cut -d, -f12 | sed -n '2,$p' | sort -u > "$tmp/out"
check "logfile header's record zeroed: --time=local at +00:00" sh -c "[ -s '$tmp/out' ] && ! grep -vq '+00:00\$' '$tmp/out'"
# Without --max-wait-reason, the one the first buffers' compact switches
# fit (build 0's, 0x1b, gives impossible states): every switch as it was.
expect "logfile header's record zeroed, no --max-wait-reason" 1 "$etldump" -f csv "$tmp/nohdr.etl"
check "logfile header's record zeroed, no --max-wait-reason: every switch read" sh -c "cut -d, -f1-2,4- '$tmp/out' | cmp -s - '$tmp/whole.csv'"
check "logfile header's record zeroed, no --max-wait-reason: the one chosen said" sh -c "[ \$(wc -l < '$tmp/err') -eq 2 ] && grep -q 'nohdr.etl: warning: the Windows build is unknown: compact switches are decoded with MaximumWaitReason 0x27, which the first buffers. switches fit, not 0x1b (build 0.s); --max-wait-reason gives another\$' '$tmp/err'"
tail -c +5001 "$sample" > "$tmp/nohdr.etl"
expect "the first 5000 bytes cut off" 1 "$etldump" -f csv $mwr "$tmp/nohdr.etl"
check "the first 5000 bytes cut off: where the buffers begin said" grep -q 'nohdr.etl: offset 0x0: no logfile header at the start (damaged, or the file.s start cut off): buffers read from offset 0xc78 on without it' "$tmp/err"
cut -d, -f1-18 "$tmp/whole.csv" | sort > "$tmp/a"
cut -d, -f1-2,4-19 "$tmp/out" | sort > "$tmp/b"
check "the first 5000 bytes cut off: the switches of the other buffers, as they were" sh -c "[ \$(wc -l < '$tmp/b') -gt 600 ] && [ -z \"\$(comm -13 '$tmp/a' '$tmp/b')\" ]"
"$etldump" --events=all --no-fields -f csv "$tmp/nohdr.etl" 2> /dev/null | sed -n 2p > "$tmp/out"
check "the first 5000 bytes cut off: times from the earliest event" grep -q '^[0-9]*,[0-9]*,[A-Z0-9]*,0x[0-9A-F]*,[^,]*,[^,]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,0.000000000,' "$tmp/out"
"$etldump" --events=all --no-fields -f csv --time=raw "$tmp/nohdr.etl" > "$tmp/out" 2> /dev/null
check "the first 5000 bytes cut off: the first buffer merged by time with the others" sh -c "[ \$(wc -l < '$tmp/out') -gt 30 ] && awk -F, 'NR > 2 && \$2 < last { bad = 1 } NR > 1 { last = \$2 } END { exit bad }' '$tmp/out'"
"$top/build/mktrace" --quiet --encoding=compact --cpus=4 --switches=20000 --seed=5 "$tmp/nohdr-big.etl" - ||
    echo "cli: FAIL: mktrace"
tail -c +5001 "$tmp/nohdr-big.etl" > "$tmp/nohdr.etl"
"$etldump" -f csv "$tmp/nohdr.etl" > "$tmp/whole.csv" 2> /dev/null
expect "the first 5000 bytes of 200 KB cut off, from a pipe" 1 sh -c "cat '$tmp/nohdr.etl' | '$etldump' -f csv -"
check "the first 5000 bytes of 200 KB cut off, from a pipe: as from the file" sh -c "[ \$(wc -l < '$tmp/out') -gt 19000 ] && cmp -s '$tmp/out' '$tmp/whole.csv'"
# Cut where a buffer begins, a compressed one, which is then at offset 0
# (where a header buffer's COMPRESSED flag is damage): every event of the
# buffers from there, with its fields (offsets less the 1024 bytes cut).
zsample=$top/samples/mixed-x86-circular-compressed.etl
tail -c +1025 "$zsample" > "$tmp/nohdr.etl"
"$etldump" --events=all -f csv "$zsample" 2> /dev/null | tail -n +2 |
    awk -F, 'BEGIN { OFS = "," } $13 >= 1024 { $13 -= 1024; $12 = ""; print }' | sort > "$tmp/a"
expect "a compressed trace cut where its second buffer begins" 1 "$etldump" --events=all -f csv "$tmp/nohdr.etl"
tail -n +2 "$tmp/out" | awk -F, 'BEGIN { OFS = "," } { $12 = ""; print }' | sort > "$tmp/b"
check "a compressed trace cut where its second buffer begins: every event after" sh -c "[ \$(wc -l < '$tmp/a') -gt 600 ] && cmp -s '$tmp/a' '$tmp/b'"
rm -f "$tmp/nohdr.etl" "$tmp/nohdr-big.etl" "$tmp/a" "$tmp/b" "$tmp/whole.csv"
expect "directory" 3 "$etldump" "$tmp"

# A trace of 8 KiB buffers, then a compressed one whose header buffer is
# 1 KiB and whose buffers are of processors the first does not count: the
# index found that header buffer from itself and came back to it without
# end. Every event of both is read.
cat "$top/samples/cswitch-v4-pmc-pebs.etl" "$zsample" > "$tmp/pair.etl"
expect "a trace, then a compressed one of other buffers" 0 timeout 60 "$etldump" --events=all --no-fields -f csv "$tmp/pair.etl"
n1=$("$etldump" --events=all --no-fields -f csv "$top/samples/cswitch-v4-pmc-pebs.etl" 2> /dev/null | wc -l)
n2=$("$etldump" --events=all --no-fields -f csv "$zsample" 2> /dev/null | wc -l)
check "a trace, then a compressed one of other buffers: every event of both" test "$(wc -l < "$tmp/out")" -eq $((n1 + n2 - 1))
rm -f "$tmp/pair.etl"
# A damaged SequenceNumber (one bit, 2^30, of the 10th buffer's, which is
# neither the first nor the last of its processor's): the times of the
# first events of its processor's buffers around it keep it in its place,
# said; every switch as in the undamaged trace (it was read last of its
# processor's, its switches linked wrongly).
"$top/build/mktrace" --quiet --encoding=compact --cpus=2 --switches=3000 --buffer-size=2048 --seed=12 "$tmp/seq.etl" - ||
    echo "cli: FAIL: mktrace"
"$etldump" -f csv "$tmp/seq.etl" > "$tmp/whole.csv" 2> /dev/null
printf '\100' | dd of="$tmp/seq.etl" bs=1 seek=$((9 * 2048 + 0x18 + 3)) conv=notrunc 2> /dev/null
expect "a damaged SequenceNumber" 1 "$etldump" -f csv "$tmp/seq.etl"
check "a damaged SequenceNumber: said" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'seq.etl: offset 0x4818: buffer SequenceNumber 1073741833 is out of line with those of processor 1.s buffers next to it in the file (7, 12), and the times of their first events keep it in its place there: read there\$' '$tmp/err'"
check "a damaged SequenceNumber: every switch in its place" cmp -s "$tmp/out" "$tmp/whole.csv"
# The same of a processor's only two buffers (processor 3's of the
# ReadyThread sample: 1 at 0x2000 becomes 33, after the other's 9).
"$etldump" -f csv "$top/samples/ready-dpc.etl" > "$tmp/whole.csv" 2> /dev/null
cp "$top/samples/ready-dpc.etl" "$tmp/seq.etl"
printf '\041' | dd of="$tmp/seq.etl" bs=1 seek=$((0x2000 + 0x18)) conv=notrunc 2> /dev/null
expect "a damaged SequenceNumber of two" 1 "$etldump" -f csv "$tmp/seq.etl"
check "a damaged SequenceNumber of two: said" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'seq.etl: offset 0x12018: buffer SequenceNumber 9 is below that of processor 3.s buffer before it in the file (33), whose first event is earlier: read after it\$' '$tmp/err'"
check "a damaged SequenceNumber of two: every switch in its place" cmp -s "$tmp/out" "$tmp/whole.csv"
rm -f "$tmp/seq.etl" "$tmp/whole.csv"

# Damage: status 1, a one-line message with the offset, the rest dumped.
cp "$sample" "$tmp/damaged.etl"
printf '\001\002\003\004' | dd of="$tmp/damaged.etl" bs=1 seek=$((8192 + 0x48)) conv=notrunc 2>/dev/null
expect "damaged event" 1 "$etldump" -f csv "$tmp/damaged.etl"
check "damaged: message names file and offset" grep -q "damaged.etl: offset 0x2048: not a trace header" "$tmp/err"
check "damaged: the rest is dumped" test "$(wc -l < "$tmp/out")" -gt 500
# A buffer whose size field is not the file's buffer size, where the file's
# size leads to the next buffer header: said, read at the file's size, no
# event lost (a bit flipped made the walk read the insides of buffers as
# buffers, or swallow the next buffer without a word).
"$etldump" --events=all -f csv "$sample" > "$tmp/whole.csv"
for pair in '8200|\010\040' '16384|\000\100' '8184|\370\037'; do
    size=${pair%%|*}
    cp "$sample" "$tmp/size.etl"
    printf "${pair#*|}" | dd of="$tmp/size.etl" bs=1 seek=$((2 * 8192)) conv=notrunc 2>/dev/null
    expect "buffer size $size" 1 "$etldump" --events=all -f csv "$tmp/size.etl"
    check "buffer size $size: said, read at the file's" \
        sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q \"size.etl: offset 0x4000: buffer size $size is not the file's 8192, whose next buffer follows: read as 8192 bytes\" '$tmp/err'"
    check "buffer size $size: every event" cmp -s "$tmp/whole.csv" "$tmp/out"
done
# A header buffer whose size field is damaged (0): the logfile header is
# there, the file is read whole (it was "not an ETL file").
cp "$sample" "$tmp/size.etl"
printf '\000\000\000\000' | dd of="$tmp/size.etl" bs=1 conv=notrunc 2>/dev/null
expect "header buffer size 0" 1 "$etldump" --events=all -f csv "$tmp/size.etl"
check "header buffer size 0: said, read at the file's" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q \"size.etl: offset 0x0: buffer size 0 is not the file's 8192, whose next buffer follows: read as 8192 bytes\" '$tmp/err'"
check "header buffer size 0: every event" cmp -s "$tmp/whole.csv" "$tmp/out"
# The logfile header's BufferSize (at 0x68) damaged to twice or four times
# the buffers' 8192, every buffer header sound: the buffers are read at
# their own sizes, nothing said (the header event's fields show the value
# as it is). The file's size ended the file at the last place it fitted,
# where the buffer was read at it and swallowed those after ("buffer size
# 8192 is not the file's 16384, whose next buffer follows": 353 of the 800
# switches lost, 669 for 32768).
"$etldump" --events=all --no-fields -f csv "$sample" > "$tmp/whole-nof.csv"
for pair in '16384|\000\100' '32768|\000\200'; do
    size=${pair%%|*}
    cp "$sample" "$tmp/size.etl"
    printf "${pair#*|}" | dd of="$tmp/size.etl" bs=1 seek=$((0x68)) conv=notrunc 2>/dev/null
    expect "logfile header's buffer size $size" 0 "$etldump" --events=all --no-fields -f csv "$tmp/size.etl"
    check "logfile header's buffer size $size: every event, nothing said" \
        sh -c "cmp -s '$tmp/whole-nof.csv' '$tmp/out' && [ ! -s '$tmp/err' ]"
done
# One bit of LogFileMode, COMPRESSED_MODE (0x04000000), set in a file of
# uncompressed buffers: no buffer after the header buffer was taken for one
# (12 of the 45 events read); NumberOfProcessors (at 0x74) 4 to 1 in a
# compressed file: the buffers of processors 1 to 3 were taken for none.
# Now the first buffer sound but for the field, and leading to another,
# says so once, and every buffer is read.
cp "$sample" "$tmp/mode.etl"
printf '\004' | dd of="$tmp/mode.etl" bs=1 seek=$((0x8b)) conv=notrunc 2>/dev/null
expect "LogFileMode with COMPRESSED_MODE, buffers not compressed" 1 "$etldump" --events=all --no-fields -f csv "$tmp/mode.etl"
check "LogFileMode with COMPRESSED_MODE: every event" cmp -s "$tmp/whole-nof.csv" "$tmp/out"
check "LogFileMode with COMPRESSED_MODE: said once" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'mode.etl: offset 0x2000: the logfile header says the buffers are compressed (LogFileMode 0x04000001), and this one is not, nor is it a header buffer: buffers are read whether they are compressed or not\$' '$tmp/err'"
cp "$top/samples/mixed-x86-circular-compressed.etl" "$tmp/mode.etl"
printf '\001' | dd of="$tmp/mode.etl" bs=1 seek=$((0x74)) conv=notrunc 2>/dev/null
"$etldump" -f csv "$top/samples/mixed-x86-circular-compressed.etl" > "$tmp/want.csv"
expect "compressed, NumberOfProcessors 1 of 4" 1 "$etldump" -f csv "$tmp/mode.etl"
check "compressed, NumberOfProcessors 1 of 4: every switch" cmp -s "$tmp/want.csv" "$tmp/out"
check "compressed, NumberOfProcessors 1 of 4: said once" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'mode.etl: offset 0x428: buffer of processor 2, past the 1 processor the logfile header counts: buffers of every processor are read\$' '$tmp/err'"
# In a file of compressed buffers, the logfile header's BufferSize bounds
# what each decompresses to: damaged below it (4096 to 1024 or 4088), every
# compressed buffer was skipped ("compressed buffer claims 4096 bytes") or
# taken for no header. Now the first compressed buffer past it whose header
# is otherwise sound and leads to another says so, once, and every buffer
# is read at the size it gives.
mixed=$top/samples/mixed-x86-circular-compressed.etl
"$etldump" -f csv "$mixed" > "$tmp/want.csv"
for pair in '1024|\000\004' '4088|\370\017'; do
    size=${pair%%|*}
    cp "$mixed" "$tmp/size.etl"
    printf "${pair#*|}" | dd of="$tmp/size.etl" bs=1 seek=$((0x68)) conv=notrunc 2>/dev/null
    expect "compressed, logfile header's buffer size $size" 1 "$etldump" -f csv "$tmp/size.etl"
    check "compressed, logfile header's buffer size $size: every switch" cmp -s "$tmp/want.csv" "$tmp/out"
    check "compressed, logfile header's buffer size $size: said once" \
        sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q \"size.etl: offset 0x404: compressed buffer decompresses to 4096 bytes, past the logfile header's buffer size $size: the compressed buffers are read at the sizes they give\$\" '$tmp/err'"
done
# Compressed buffers have sizes of their own: a damaged size field (the
# buffer's, or the one before it) is found out by scanning for the next
# buffer header; the buffers up to it are read whole when they can be
# (every event), else those of the wrecked header alone are lost (a bad
# size ended the index: the rest of the file was not read).
packed=$top/samples/mixed-x86-circular-compressed.etl
"$etldump" --events=all -f csv "$packed" > "$tmp/packed.csv"
packed_case() { # name, offset, four bytes; the message expected
    cp "$packed" "$tmp/packed.etl"
    printf "$3" | dd of="$tmp/packed.etl" bs=1 seek="$2" conv=notrunc 2>/dev/null
    expect "compressed, $1" 1 "$etldump" --events=all -f csv "$tmp/packed.etl"
    check "compressed, $1: said" \
        sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q \"^etldump: [^:]*packed.etl: $4\\\$\" '$tmp/err'"
}
packed_case "header buffer size 0" 0 '\000\000\000\000' \
    "offset 0x0: buffer size 0 is impossible: read up to the next buffer header, at offset 0x400"
check "compressed, header buffer size 0: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
packed_case "size 0" 3488 '\000\000\000\000' \
    "offset 0xda0: buffer size 0 is impossible: read up to the next buffer header, at offset 0x1817"
check "compressed, size 0: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
packed_case "size 100 too large" 3488 '\333\012\000\000' \
    "offset 0xda0: buffer size 2779 runs past a buffer header, at offset 0x1817: read as 2679 bytes"
check "compressed, size 100 too large: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
packed_case "size 100 too small" 3488 '\023\012\000\000' \
    "offset 0x17b3: no buffer header here (buffer size [0-9]*): the buffer at 0xda0 is read up to the next, at offset 0x1817"
check "compressed, size 100 too small: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
# Off by a few bytes: what the size leads to looks like a header shifted
# (its State field where the flags are), which is no buffer header for the
# scan (the index ended there: "buffer of 1573632 bytes is truncated").
packed_case "size 8 too small" 12456 '\057\001\000\000' \
    "offset 0x31d7: no buffer header here (buffer size 1573632): the buffer at 0x30a8 is read up to the next, at offset 0x31df"
check "compressed, size 8 too small: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
# A possible size past the end of the file, though a buffer header follows:
# not the last buffer of a file cut short (the rest was lost).
packed_case "size past the end" 6167 '\064\214\000\000' \
    "offset 0x1817: buffer size 35892 leads to no buffer header: read up to the next buffer header, at offset 0x244b"
check "compressed, size past the end: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
packed_case "header buffer size past the end" 0 '\000\004\100\000' \
    "offset 0x0: buffer size 4195328 leads to no buffer header: read up to the next buffer header, at offset 0x400"
check "compressed, header buffer size past the end: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
# A size that leads within 72 bytes of the end: no trailing bytes, the
# buffer before the last runs past its header (the last buffer was lost).
packed_case "size near the end" 17520 '\131\024\000\000' \
    "offset 0x4470: buffer size 5209 runs past a buffer header, at offset 0x4f93: read as 2851 bytes"
check "compressed, size near the end: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
# A header buffer's size too small for its logfile header (500: the
# record ends at 600): read from the file's first 64 KiB, the buffer up
# to the next header (it was "not an ETL file").
packed_case "header buffer size 500" 0 '\364\001\000\000' \
    "offset 0x0: buffer size 500 leads to no buffer header: read up to the next buffer header, at offset 0x400"
check "compressed, header buffer size 500: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
packed_case "last buffer size 0" 20371 '\000\000\000\000' \
    "offset 0x4f93: buffer size 0 is impossible: read up to the end of the file"
check "compressed, last buffer size 0: every event" cmp -s "$tmp/packed.csv" "$tmp/out"
# A header wiped whole: its buffer is lost, and only it.
cp "$packed" "$tmp/packed.etl"
head -c 72 /dev/zero | dd of="$tmp/packed.etl" bs=1 seek=3488 conv=notrunc 2>/dev/null
expect "compressed, header wiped" 1 "$etldump" --events=all -f csv "$tmp/packed.etl"
check "compressed, header wiped: said" grep -q "packed.etl: offset 0xda0: no buffer header here (buffer size 0): the buffer at 0x400 is read up to the next, at offset 0x1817\$" "$tmp/err"
grep -v '^3,' "$tmp/packed.csv" > "$tmp/packed-no3.csv"
grep -v '^3,' "$tmp/out" > "$tmp/packed-no3-wiped.csv"
check "compressed, header wiped: the other processors' events whole" \
    cmp -s "$tmp/packed-no3.csv" "$tmp/packed-no3-wiped.csv"
check "compressed, header wiped: some of processor 3's lost" \
    test "$(grep -c '^3,' "$tmp/out")" -lt "$(grep -c '^3,' "$tmp/packed.csv")"
# A CSwitch event's time made 10^12 ticks (100000 s) later: the time of
# its processor's events goes back at the next; a warning names where and
# how far (nothing was said: --summary's figures were nonsense silently).
# A second, an event's time made 0: the count, and still the most.
cp "$top/samples/cswitch-v4-pmc-pebs.etl" "$tmp/wild.etl"
settime() { # offset of the record; its new time, as eight little-endian bytes
    printf "$2" | dd of="$tmp/wild.etl" bs=1 seek=$(($1 + 8)) conv=notrunc 2>/dev/null
}
settime 8472 '\073\213\314\326\377\000\000\000' # 98820389691 + 10^12
for view in -f\ csv --summary --usage --events; do
    expect "a time 100000 s late, $view" 0 "$etldump" $view "$tmp/wild.etl"
    check "a time 100000 s late, $view: warned" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q \"^etldump: [^:]*wild.etl: warning: the time of processor 0's events goes back at offset 0x2158, from 100000.001194 s to 0.001242 s: the merge puts the events around it out of time order\\\$\" '$tmp/err'"
done
settime 8984 '\000\000\000\000\000\000\000\000'
expect "two times back" 0 "$etldump" -f csv "$tmp/wild.etl"
check "two times back: counted, the most named" grep -q "wild.etl: warning: the time of a processor's events goes back 2 times, the most at offset 0x2158 (processor 0, from 100000.001194 s to 0.001242 s): the merge puts the events around them out of time order\$" "$tmp/err"
# A file appended to itself: every buffer of the copy repeats one of the
# first byte for byte (its processor and SequenceNumber too) and is read
# once, with one warning (each event came twice, the merge out of order).
# A copy cut inside a buffer repeats the beginning of one: read once, the
# cut said. A copy with one byte of a buffer header changed (TimeStamp,
# +0x10, which nothing reads) is no repeat: both are read, and said.
cat "$top/samples/cswitch-v4-pmc-pebs.etl" "$top/samples/cswitch-v4-pmc-pebs.etl" > "$tmp/twice.etl"
"$etldump" -f csv --events=all "$top/samples/cswitch-v4-pmc-pebs.etl" > "$tmp/once.csv"
"$etldump" --summary "$top/samples/cswitch-v4-pmc-pebs.etl" | sed 1d > "$tmp/once.sum"
expect "appended to itself" 0 "$etldump" -f csv --events=all "$tmp/twice.etl"
check "appended to itself: each event once" cmp -s "$tmp/once.csv" "$tmp/out"
check "appended to itself: said once" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q '^etldump: [^:]*twice.etl: warning: 5 buffers repeat earlier ones byte for byte, the first at offset 0xa000 (the one at 0x0): each is read once\$' '$tmp/err'"
expect "appended to itself, --summary" 0 "$etldump" --summary "$tmp/twice.etl"
check "appended to itself, --summary: as once" sh -c "sed 1d '$tmp/out' | cmp -s '$tmp/once.sum' -"
expect "appended to itself, --stats" 0 "$etldump" -f csv --stats "$tmp/twice.etl"
check "appended to itself, --stats: events once, buffers of the file, those repeated" sh -c "grep -q ',total,events,$(grep -c . "$tmp/once.csv" | awk '{print $1 - 1}'),' '$tmp/out' && grep -q ',buffers,all,10,' '$tmp/out' && grep -q ',buffers,repeated,5,40960,,,\$' '$tmp/out'"
head -c $((40960 + 100)) "$tmp/twice.etl" > "$tmp/twice-cut.etl"
expect "appended, the copy cut" 1 "$etldump" -f csv --events=all "$tmp/twice-cut.etl"
check "appended, the copy cut: each event once" cmp -s "$tmp/once.csv" "$tmp/out"
check "appended, the copy cut: the repeat and the cut said" sh -c "grep -q 'warning: the buffer at offset 0xa000 repeats the one at 0x0 byte for byte: it is read once\$' '$tmp/err' && grep -q 'offset 0xa000: buffer of 8192 bytes is truncated: the file ends after 100\$' '$tmp/err'"
cp "$tmp/twice.etl" "$tmp/twice-other.etl"
printf '\001' | dd of="$tmp/twice-other.etl" bs=1 seek=$((40960 + 0x4000 + 0x10)) conv=notrunc 2>/dev/null
expect "appended, a header changed" 0 "$etldump" -f csv --events=all "$tmp/twice-other.etl"
check "appended, a header changed: that buffer read twice" sh -c "[ \$(grep -c . '$tmp/out') -gt \$(grep -c . '$tmp/once.csv') ]"
check "appended, a header changed: said" sh -c "grep -q 'warning: 4 buffers repeat earlier ones byte for byte, the first at offset 0xa000 (the one at 0x0): each is read once\$' '$tmp/err' && grep -q 'warning: the buffer at offset 0xe000 has the processor and sequence number of the one at 0x4000, but other bytes: both are read\$' '$tmp/err'"
printf '\001' | dd of="$tmp/twice-other.etl" bs=1 seek=$((40960 + 0x6000 + 0x10)) conv=notrunc 2>/dev/null
expect "appended, two headers changed" 0 "$etldump" -f csv --events=all "$tmp/twice-other.etl"
check "appended, two headers changed: said with the count" grep -q 'warning: 2 buffers have the processor and sequence number of earlier ones but other bytes, the first at offset 0xe000 (the one at 0x4000): all are read$' "$tmp/err"
# A compressed file appended to itself, a header of the copy wiped: the
# repeat before it is read up to the next header (the wiped buffer's bytes
# its own) and is still a repeat: its events are the bytes compared (a
# compressed buffer decompresses to its own size), not read twice (they
# were, with the time going back).
mixed=$top/samples/mixed-x86-circular-compressed.etl
cat "$mixed" "$mixed" > "$tmp/twice-wiped.etl"
head -c 72 /dev/zero | dd of="$tmp/twice-wiped.etl" bs=1 seek=$(($(wc -c < "$mixed") + 0xda0)) conv=notrunc 2>/dev/null
"$etldump" -f csv --events=all "$mixed" > "$tmp/mixed-once.csv"
expect "appended, a header of the copy wiped" 1 "$etldump" -f csv --events=all "$tmp/twice-wiped.etl"
check "appended, a header of the copy wiped: each event once" cmp -s "$tmp/mixed-once.csv" "$tmp/out"
check "appended, a header of the copy wiped: said" sh -c "[ \$(wc -l < '$tmp/err') -eq 2 ] && grep -q 'offset 0x6687: no buffer header here (buffer size 0): the buffer at 0x5ce7 is read up to the next, at offset 0x70fe\$' '$tmp/err' && grep -q 'warning: 10 buffers repeat earlier ones byte for byte, the first at offset 0x58e7 (the one at 0x0): each is read once\$' '$tmp/err'"
expect "appended, a header of the copy wiped, --stats" 1 "$etldump" -f csv --stats "$tmp/twice-wiped.etl"
check "appended, a header of the copy wiped: the copy's bytes all repeated" grep -q ",buffers,repeated,10,$(wc -c < "$mixed"),,,\$" "$tmp/out"
# Two traces in one file: the second's header buffer is said, with where
# the second begins (its buffers are read as the first's; one of them has
# a processor and SequenceNumber of the first's, and other bytes).
cat "$top/samples/demo-compact.etl" "$top/samples/ready-dpc.etl" > "$tmp/two.etl"
expect "two traces in one file" 0 "$etldump" --stats "$tmp/two.etl"
check "two traces in one file: said" sh -c "[ \$(wc -l < '$tmp/err') -eq 2 ] && grep -q 'two.etl: warning: a second header buffer, at offset 0xa000 (a second trace?): every buffer is read as one trace.s, with the first header.s clock; the second alone is the file from there (tail -c +40961)\$' '$tmp/err' && grep -q 'two.etl: warning: the buffer at offset 0xe000 has the processor and sequence number of the one at 0x4000, but other bytes: both are read\$' '$tmp/err'"
check "two traces in one file: the second from where it is said" sh -c "tail -c +40961 '$tmp/two.etl' | cmp -s - '$top/samples/ready-dpc.etl'"
# A trace with a buffer flagged BUFFER_LOST, appended to itself: the
# warning of lost data counts the flag of the buffer read, not its repeat.
"$top/build/mktrace" --quiet --encoding=compact --cpus=2 --switches=3000 --lost-cpu=1 --seed=2 "$tmp/lost.etl" - &&
    cat "$tmp/lost.etl" "$tmp/lost.etl" > "$tmp/lost2.etl"
expect "lost data, appended to itself" 0 "$etldump" --stats "$tmp/lost2.etl"
check "lost data, appended to itself: the flagged buffer counted once" grep -q "lost2.etl: warning: the trace lost data: 0 events and 1 buffers by its header; 0 buffers flagged as having lost events, 1 as following lost buffers\$" "$tmp/err"
expect "once, --stats" 0 "$etldump" -f csv --stats "$top/samples/cswitch-v4-pmc-pebs.etl"
check "once, --stats: no row of buffers repeated" sh -c "! grep -q ',repeated,' '$tmp/out'"
expect "appended to itself, -q" 0 "$etldump" -q "$tmp/twice.etl"
check "appended to itself, -q: nothing said" test ! -s "$tmp/err"
# Compressed buffers: two of processor 2's SequenceNumbers swapped (the
# headers are not compressed): its time goes back at the first event of
# the one now read second, said inside its decompressed bytes.
cp "$top/samples/mixed-x86-circular-compressed.etl" "$tmp/swapped.etl"
printf '\005' | dd of="$tmp/swapped.etl" bs=1 seek=$((0x4f93 + 0x18)) conv=notrunc 2>/dev/null
printf '\004' | dd of="$tmp/swapped.etl" bs=1 seek=$((0x400 + 0x18)) conv=notrunc 2>/dev/null
expect "compressed, time back" 0 "$etldump" -f csv "$tmp/swapped.etl"
check "compressed, time back: said in the decompressed buffer" grep -q "swapped.etl: warning: the time of processor 2's events goes back at byte 0x48 of the decompressed buffer at offset 0x4f93, from 29.105183 s to 0.001216 s: the merge puts the events around it out of time order\$" "$tmp/err"
# Zeros after the last compressed buffer (the space a logger preallocated
# and did not fill), or between two (a damaged size of 0 where the next
# buffer should be): at the end, a warning (no damage); between, the zeros
# are skipped to the next buffer header found. Every event is read each
# time.
"$etldump" -f csv --events=all "$top/samples/mixed-x86-circular-compressed.etl" | cut -d, -f1-12 > "$tmp/mixed.csv"
for z in "1000 end" "17825792 end" "17825792 0x3b20"; do
    set -- $z
    if [ "$2" = end ]; then
        { cat "$top/samples/mixed-x86-circular-compressed.etl"; head -c "$1" /dev/zero; } > "$tmp/zeros.etl"
    else
        { head -c $(($2)) "$top/samples/mixed-x86-circular-compressed.etl"; head -c "$1" /dev/zero
          tail -c +$(($2 + 1)) "$top/samples/mixed-x86-circular-compressed.etl"; } > "$tmp/zeros.etl"
    fi
    case $z in
    *end) rc=0 says="warning: the file ends in $1 bytes of zeros, from offset 0x58e7: no buffer is there" ;;
    *) rc=1 says="offset 0x3b20: no buffer header here (buffer size 0): 17825792 bytes skipped to the next, at offset 0x1103b20" ;;
    esac
    expect "compressed, $1 zeros at $2" $rc "$etldump" -f csv --events=all "$tmp/zeros.etl"
    check "compressed, $1 zeros at $2: every event" sh -c "cut -d, -f1-12 '$tmp/out' | cmp -s '$tmp/mixed.csv' -"
    check "compressed, $1 zeros at $2: said" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'zeros.etl: $says\$' '$tmp/err'"
done
# The same in a file of fixed-size buffers (8 KiB: the demo's), where a
# bad header was a problem for each buffer's worth of bytes after it (128
# for 1 MiB of zeros at the end): zeros to the end, even too few for a
# header, are said once as a warning, which names the space the logger
# preallocated when LogFileMode (offset 0x88) says it did; a run of zeros
# between buffers is one problem. Every switch is read.
demo=$top/samples/demo-compact.etl
"$etldump" -f csv "$demo" > "$tmp/demo.csv"
cp "$demo" "$tmp/prealloc.etl"
printf '\041' | dd of="$tmp/prealloc.etl" bs=1 seek=$((0x88)) conv=notrunc 2>/dev/null
for z in "1048576 end" "5 end" "1048576 end prealloc" "24576 0x6000"; do
    set -- $z
    src=$demo
    [ "${3:-}" = prealloc ] && src=$tmp/prealloc.etl
    if [ "$2" = end ]; then
        { cat "$src"; head -c "$1" /dev/zero; } > "$tmp/zeros.etl"
    else
        { head -c $(($2)) "$src"; head -c "$1" /dev/zero; tail -c +$(($2 + 1)) "$src"; } > "$tmp/zeros.etl"
    fi
    case $z in
    *prealloc) rc=0 says="warning: the file ends in $1 bytes of zeros, from offset 0xa000: no buffer is there (space preallocated for the trace, EVENT_TRACE_FILE_MODE_PREALLOCATE, and not filled)" ;;
    *end) rc=0 says="warning: the file ends in $1 bytes of zeros, from offset 0xa000: no buffer is there" ;;
    *) rc=1 says="offset 0x6000: no buffer header here (buffer size 0): 24576 bytes skipped to the next, at offset 0xc000" ;;
    esac
    expect "fixed-size buffers, $1 zeros at $2${3:+ ($3)}" $rc "$etldump" -f csv "$tmp/zeros.etl"
    check "fixed-size buffers, $1 zeros at $2${3:+ ($3)}: every switch" cmp -s "$tmp/demo.csv" "$tmp/out"
    check "fixed-size buffers, $1 zeros at $2${3:+ ($3)}: said" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'zeros.etl: $says\$' '$tmp/err'"
done
# A copy cut short inside a buffer, then the whole trace (cat): the second
# copy's buffers lie off the file's 8 KiB stride. The buffer the cut falls
# in is read up to the buffer header found inside it (the second copy's
# header buffer), the index going on from there; each buffer of the copy
# that repeats one before it is read once, and the cut one, the beginning
# of its whole copy, is not read: the switches and events are the trace's
# alone. Before, every buffer of the second copy was lost, a problem said
# at each 8 KiB. A cut copy, then another trace: the second trace said,
# from where it begins.
{ head -c $((0x5064)) "$demo"; cat "$demo"; } > "$tmp/cutcat.etl"
expect "cut copy, then the trace" 1 "$etldump" -f csv "$tmp/cutcat.etl"
check "cut copy, then the trace: the buffer cut short said" grep -q "cutcat.etl: offset 0x4000: buffer size 8192 runs past a buffer header, at offset 0x5064: read as 4196 bytes\$" "$tmp/err"
check "cut copy, then the trace: one problem" test "$(grep -vc warning "$tmp/err")" -eq 1
check "cut copy, then the trace: the repeats said" grep -q "cutcat.etl: warning: 3 buffers repeat earlier ones byte for byte, the first at offset 0x5064 (the one at 0x0): each is read once\$" "$tmp/err"
check "cut copy, then the trace: the switches of the trace alone" cmp -s "$tmp/demo.csv" "$tmp/out"
"$etldump" -f csv --events=all --no-fields "$demo" | cut -d, -f1-11 > "$tmp/demo-events.csv"
"$etldump" -f csv --events=all --no-fields "$tmp/cutcat.etl" 2> /dev/null | cut -d, -f1-11 > "$tmp/out"
check "cut copy, then the trace: the events of the trace alone" cmp -s "$tmp/demo-events.csv" "$tmp/out"
{ head -c $((0x5064)) "$demo"; cat "$top/samples/ready-dpc.etl"; } > "$tmp/cutcat.etl"
expect "cut copy, then another trace" 1 "$etldump" -f csv "$tmp/cutcat.etl"
check "cut copy, then another trace: the second said" grep -q "cutcat.etl: warning: a second header buffer, at offset 0x5064 (a second trace?): every buffer is read as one trace.s, with the first header.s clock; the second alone is the file from there (tail -c +20581)\$" "$tmp/err"
check "cut copy, then another trace: the second from where it is said" sh -c "tail -c +20581 '$tmp/cutcat.etl' | cmp -s - '$top/samples/ready-dpc.etl'"
# A copy cut inside its logfile header (100 bytes in), the trace after it:
# the logfile header's fields past the cut were the trace's bytes (a
# buffer size of 608), and 1 of the 800 switches was read. The header
# buffer found inside that record gives the logfile header, said; the
# switches and events are the trace's.
{ head -c 100 "$demo"; cat "$demo"; } > "$tmp/cutcat.etl"
expect "copy cut in its logfile header, then the trace" 1 "$etldump" -f csv "$tmp/cutcat.etl"
check "copy cut in its logfile header: said" grep -q "cutcat.etl: offset 0x48: the logfile header is cut short by another trace's header buffer, at offset 0x64: that one's logfile header is read\$" "$tmp/err"
check "copy cut in its logfile header: the switches of the trace" cmp -s "$tmp/demo.csv" "$tmp/out"
"$etldump" -f csv --events=all --no-fields "$tmp/cutcat.etl" 2> /dev/null | cut -d, -f1-11 > "$tmp/out"
check "copy cut in its logfile header: the events of the trace" cmp -s "$tmp/demo-events.csv" "$tmp/out"
# A copy cut in the last bytes of a buffer (104 before its end), or where
# the header buffer of the trace after it holds, one buffer further on,
# bytes that pass for a buffer header of 8064 bytes: that header buffer
# was read as the tail of the cut buffer, or swallowed by the false one,
# and lost with the trace's second buffer. The cut buffer is now read up to
# the header buffer: the events are the trace's.
# cut_then_whole NAME FILE CUT: FILE cut at byte CUT, FILE whole after it,
# read with status 1 and the events of FILE alone (their first 11 columns:
# the offsets move).
cut_then_whole() {
    "$etldump" -f csv --events=all --no-fields "$2" | cut -d, -f1-11 > "$tmp/want.csv"
    { head -c "$3" "$2"; cat "$2"; } > "$tmp/cutcat.etl"
    expect "$1" 1 "$etldump" -f csv --events=all --no-fields "$tmp/cutcat.etl"
    cut -d, -f1-11 "$tmp/out" > "$tmp/got.csv"
    check "$1: the events of the trace" cmp -s "$tmp/want.csv" "$tmp/got.csv"
}
for c in 73624 81384; do
    cut_then_whole "copy cut $c bytes in, then the trace" "$top/samples/ready-dpc.etl" $c
done
# A copy cut inside a buffer's header, the trace after it: the header read
# there is made of the cut one's first bytes and the trace's (its flags a
# lost buffer's, 10 bytes in: the scheduling state was reset), and the
# index looked for the trace only past those 72 bytes, reading the cut one
# with its made-up header. The trace's header buffer is found inside it,
# and the bytes before are said to be no buffer: the switches and events
# are the trace's. A compressed trace's likewise (its buffer before was
# read up to the trace, and so was not found repeated: every buffer of the
# trace was read twice).
for c in 10 40; do
    { head -c $((8192 + c)) "$demo"; cat "$demo"; } > "$tmp/cutcat.etl"
    expect "copy cut $c bytes into a buffer header, then the trace" 1 "$etldump" -f csv "$tmp/cutcat.etl"
    check "copy cut $c bytes into a buffer header: the switches of the trace" cmp -s "$tmp/demo.csv" "$tmp/out"
    "$etldump" -f csv --events=all --no-fields "$tmp/cutcat.etl" 2> /dev/null | cut -d, -f1-11 > "$tmp/out"
    check "copy cut $c bytes into a buffer header: the events of the trace" cmp -s "$tmp/demo-events.csv" "$tmp/out"
done
check "copy cut into a buffer header: said" sh -c "[ \$(grep -vc warning '$tmp/err') -eq 1 ] && grep -q 'cutcat.etl: offset 0x2000: buffer header cut short by a buffer header, at offset 0x2028: its 40 bytes are no buffer\$' '$tmp/err'"
mixed=$top/samples/mixed-x86-circular-compressed.etl
cut_then_whole "compressed copy cut into a buffer header, then the trace" "$mixed" 3493
# A compressed trace's copy cut in its header buffer, the trace after it:
# a scan for the next buffer stopped at no header buffer, and the trace's
# was read as part of the cut one (its events lost); one that holds a
# logfile header now ends the cut buffer.
cut_then_whole "compressed copy cut in its header buffer, then the trace" "$mixed" 400
rm -f "$tmp/got.csv"
# A copy cut short, then a trace of other buffers (another size, or
# compressed): the second trace's buffers were looked for at the first's
# size alone, and every one of its events was lost (a problem at each
# place); a buffer cut short by the end of the file held the second trace
# whole. Another trace's header buffer is found whatever its size, inside
# the buffer before or the one the file ends in, and its buffers read with
# the bounds its logfile header gives: every event of the second trace is
# read (with the first's clock, as said).
"$top/build/mktrace" --quiet --encoding=cswitch --buffer-size=65536 --cpus=2 --switches=4000 --seed=4 "$tmp/big64.etl" - ||
    echo "cli: FAIL: mktrace --buffer-size=65536"
mixed=$top/samples/mixed-x86-circular-compressed.etl
for pair in "$demo 20000 $mixed" "$demo 20000 $tmp/big64.etl" "$tmp/big64.etl 100000 $demo" "$tmp/big64.etl 70000 $mixed" "$tmp/big64.etl 65546 $demo"; do
    set -- $pair
    { head -c "$2" "$1"; cat "$3"; } > "$tmp/pair.etl"
    "$etldump" -f csv --events=all --no-fields "$3" | cut -d, -f1-11 | sort > "$tmp/want.csv"
    expect "$(basename "$1") cut at $2, then $(basename "$3")" 1 "$etldump" -f csv --events=all --no-fields "$tmp/pair.etl"
    cut -d, -f1-11 "$tmp/out" | sort > "$tmp/got.csv"
    check "$(basename "$1") cut at $2, then $(basename "$3"): every event of the second" \
        sh -c "[ -z \"\$(comm -23 '$tmp/want.csv' '$tmp/got.csv')\" ]"
    check "$(basename "$1") cut at $2, then $(basename "$3"): the second said" grep -q "warning: a second header buffer, at offset 0x[0-9a-f]* (a second trace?)" "$tmp/err"
done
# The last: cut 10 bytes into the buffer the file then ends in, those 10
# bytes no buffer.
check "big64.etl cut at 65546, then demo-compact.etl: the fragment said" grep -q "pair.etl: offset 0x10000: buffer header cut short by a buffer header, at offset 0x1000a: its 10 bytes are no buffer\$" "$tmp/err"
rm -f "$tmp/pair.etl" "$tmp/big64.etl" "$tmp/want.csv" "$tmp/got.csv"
# A byte of a compressed buffer's data damaged so that decoding stops (a
# match reaching before the output's start): the buffer was skipped; the
# bytes it gave before that are its start, and their records are read (the
# first ten of the buffer at 0x400, the eleventh cut there).
mixed=$top/samples/mixed-x86-circular-compressed.etl
cp "$mixed" "$tmp/zdmg.etl"
printf '\377' | dd of="$tmp/zdmg.etl" bs=1 seek=1396 conv=notrunc 2>/dev/null
"$etldump" -f csv --events=all --no-fields "$mixed" | awk -F, '$13 == 1024' > "$tmp/want.csv"
expect "compressed data damaged" 1 "$etldump" -f csv --events=all --no-fields "$tmp/zdmg.etl"
awk -F, '$13 == 1024' "$tmp/out" > "$tmp/got.csv"
check "compressed data damaged: the records before the damage read" \
    sh -c "[ \$(wc -l < '$tmp/got.csv') -eq 10 ] && head -n 10 '$tmp/want.csv' | cmp -s - '$tmp/got.csv'"
check "compressed data damaged: said" grep -q "zdmg.etl: offset 0x573: compressed buffer does not decompress (match distance before start of output): the 479 bytes it gives before that are read\$" "$tmp/err"
rm -f "$tmp/zdmg.etl" "$tmp/want.csv" "$tmp/got.csv"
# The first buffer's flags with COMPRESSED set (one bit): the buffer of the
# logfile header never is compressed; said, and read as it is (before, the
# file was "not an ETL file"), from a file and from a pipe.
for f in demo-compact mixed-x86-circular-compressed; do
    cp "$top/samples/$f.etl" "$tmp/flag.etl"
    printf '\101' | dd of="$tmp/flag.etl" bs=1 seek=$((0x34)) conv=notrunc 2>/dev/null
    "$etldump" -f csv "$top/samples/$f.etl" > "$tmp/want.csv"
    expect "$f, first buffer flagged compressed" 1 "$etldump" -f csv "$tmp/flag.etl"
    check "$f, first buffer flagged compressed: every switch" cmp -s "$tmp/want.csv" "$tmp/out"
    check "$f, first buffer flagged compressed: said" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'flag.etl: offset 0x34: the first buffer says it is compressed, which the one holding the logfile header never is: read as it is\$' '$tmp/err'"
    expect "$f, first buffer flagged compressed, from a pipe" 1 sh -c "cat '$tmp/flag.etl' | '$etldump' -f csv -"
    check "$f, first buffer flagged compressed, from a pipe: every switch" cmp -s "$tmp/want.csv" "$tmp/out"
done
rm -f "$tmp/flag.etl" "$tmp/want.csv"
# 80 bytes zeroed inside a buffer, over two records: the records after them
# are found (the next place from which records follow one another to the
# end of the buffer's events, their times not going back), said once;
# before, the rest of the buffer was lost (85 records). Every record but
# the two, in every view that reads them.
procs=$top/samples/demo-processes.etl
cp "$procs" "$tmp/holed.etl"
dd if=/dev/zero of="$tmp/holed.etl" bs=1 seek=$((16384 + 344)) count=80 conv=notrunc 2>/dev/null
"$etldump" -f csv --events=all --no-fields "$procs" > "$tmp/want.csv"
expect "80 bytes zeroed in a buffer" 1 "$etldump" -f csv --events=all --no-fields "$tmp/holed.etl"
check "80 bytes zeroed in a buffer: said once" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'holed.etl: offset 0x4158: not a trace header (marker bit 0x80000000 clear): 80 bytes skipped to the next record, at offset 0x41a8\$' '$tmp/err'"
check "80 bytes zeroed in a buffer: every other record" sh -c "grep -v ',16384,3[48]4,' '$tmp/want.csv' | cmp -s - '$tmp/out'"
expect "80 bytes zeroed in a buffer, --stats" 1 "$etldump" --stats "$tmp/holed.etl"
check "80 bytes zeroed in a buffer, --stats: every other record" grep -q '^total    events  *564 ' "$tmp/out"
rm -f "$tmp/holed.etl" "$tmp/want.csv"
# The same inside a compressed buffer (mktrace --hole zeroes 80 bytes of a
# buffer's events before compressing it): said at the record's place in the
# decompressed buffer, and the records go on after it; the two records the
# bytes fell on are the only rows lost (the offsets aside, which the
# compressed sizes move).
for z in plain compressed; do
    zopt=
    [ $z = compressed ] && zopt=--compress
    "$top/build/mktrace" --quiet --encoding=mixed $zopt --cpus=2 --switches=3000 --seed=3 "$tmp/whole.etl" - &&
        "$top/build/mktrace" --quiet --encoding=mixed $zopt --cpus=2 --switches=3000 --seed=3 --hole=3 "$tmp/holed.etl" - ||
        echo "cli: FAIL: mktrace --hole"
    "$etldump" -f csv --events=all --no-fields "$tmp/whole.etl" | cut -d, -f1-12,15- > "$tmp/want.csv"
    expect "80 bytes zeroed in a $z buffer" 1 "$etldump" -f csv --events=all --no-fields "$tmp/holed.etl"
    cut -d, -f1-12,15- "$tmp/out" > "$tmp/got.csv"
    check "80 bytes zeroed in a $z buffer: two records lost, no other" \
        sh -c "[ \$(wc -l < '$tmp/want.csv') -eq \$((\$(wc -l < '$tmp/got.csv') + 2)) ] && [ -z \"\$(diff '$tmp/want.csv' '$tmp/got.csv' | grep '^>')\" ]"
    if [ $z = plain ]; then
        said='holed.etl: offset 0x7030: not a trace header (marker bit 0x80000000 clear): 80 bytes skipped to the next record, at offset 0x7080$'
    else
        said='holed.etl: offset 0x2c2e: record at 0x1030 of decompressed buffer: not a trace header (marker bit 0x80000000 clear): 80 bytes skipped to the next record, at 0x1080$'
    fi
    check "80 bytes zeroed in a $z buffer: said once" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q '$said' '$tmp/err'"
done
rm -f "$tmp/holed.etl" "$tmp/whole.etl" "$tmp/want.csv" "$tmp/got.csv"
rm -f "$tmp/prealloc.etl" "$tmp/cutcat.etl" "$tmp/demo-events.csv"
rm -f "$tmp/zeros.etl"
expect "damaged --strict" 1 "$etldump" -f csv --strict "$tmp/damaged.etl"
check "--strict stops early" test "$(wc -l < "$tmp/out")" -lt 500
# --info reads every event for the group-mask changes: with --strict it
# says the first problem alone and stops (it said each, then the changes).
cp "$tmp/damaged.etl" "$tmp/damaged2.etl"
printf '\001\002\003\004' | dd of="$tmp/damaged2.etl" bs=1 seek=$((3 * 8192 + 0x48)) conv=notrunc 2>/dev/null
expect "damaged twice --info" 1 "$etldump" --info "$tmp/damaged2.etl"
check "damaged twice --info: both said" test "$(wc -l < "$tmp/err")" -eq 2
expect "damaged twice --info --strict" 1 "$etldump" --info --strict "$tmp/damaged2.etl"
check "damaged twice --info --strict: the first alone" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'damaged2.etl: offset 0x2048: ' '$tmp/err' &&
           grep -q '^os_version: ' '$tmp/out'"
head -c 300 "$sample" > "$tmp/cut.etl"
expect "cut inside its logfile header" 3 "$etldump" "$tmp/cut.etl"
check "cut inside its logfile header: said" \
    grep -q "cut.etl: offset 0x0: truncated: the file ends inside its logfile header\$" "$tmp/err"
head -c 20000 "$sample" > "$tmp/cut.etl"
expect "truncated" 1 "$etldump" --events=all "$tmp/cut.etl"
check "truncated: message names the buffer" grep -q "cut.etl: offset 0x4000: buffer of 8192 bytes is truncated" "$tmp/err"
# --stats indexes the buffers as its walk reads them: the events before
# the cut counted, the problem said once; with --strict, as in every view,
# a problem of the index stops it before any event.
expect "truncated --stats" 1 "$etldump" --stats -f csv "$tmp/cut.etl"
check "truncated --stats: events before the cut" grep -q ',total,events,[1-9]' "$tmp/out"
check "truncated --stats: one message" test "$(grep -c 'offset 0x4000: buffer of 8192 bytes is truncated' "$tmp/err")" -eq 1
expect "truncated --stats --strict" 1 "$etldump" --stats --strict -f csv "$tmp/cut.etl"
check "truncated --stats --strict: no event" grep -q ',total,events,0,' "$tmp/out"
# So in every view: none reads an event (before, each took one; --usage
# then gave every interval to the trace's end, as idle).
for v in "-f csv" "-f json" "--events=all -f csv" "--events=all --no-fields -f csv" \
    "--summary -f csv" "--usage -f csv" "--usage=1 -f json"; do
    # shellcheck disable=SC2086
    expect "truncated $v --strict" 1 "$etldump" $v --strict "$tmp/cut.etl"
    check "truncated $v --strict: no row" test "$(grep -cv '^[a-z0-9_,]*$' "$tmp/out")" -eq 0
done
expect "truncated -f perfetto --strict" 1 "$etldump" -f perfetto --strict -o "$tmp/cut.pb" "$tmp/cut.etl"
check "truncated -f perfetto --strict: not written" test ! -e "$tmp/cut.pb"
# --strict stops a census counting a run of PERFINFO64 events by their
# heads as it stops one counting whole events: a trace of CSwitch events
# alone, the first record of its fifth buffer damaged.
"$top/build/mktrace" --quiet --encoding=cswitch --misc-rate=0 --cpus=1 --switches=2000 \
    --buffer-size=4096 --seed=3 "$tmp/heads.etl" - 2>/dev/null
printf '\000\000\000\000' | dd of="$tmp/heads.etl" bs=1 seek=$((4096 * 4 + 0x48)) conv=notrunc 2>/dev/null
expect "damaged run --stats" 1 "$etldump" --stats -f csv "$tmp/heads.etl"
grep ',total,events,' "$tmp/out" | cut -d, -f4 > "$tmp/all"
expect "damaged run --stats --strict" 1 "$etldump" --stats --strict -f csv "$tmp/heads.etl"
grep ',total,events,' "$tmp/out" | cut -d, -f4 > "$tmp/strict"
check "damaged run --stats --strict: stops at the damage" \
    test "$(cat "$tmp/strict")" -gt 0 -a "$(cat "$tmp/strict")" -lt $(($(cat "$tmp/all") - 1000))
expect "several inputs: highest status" 3 "$etldump" "$sample" "$tmp/damaged.etl" "$tmp/none.etl"

# Output: -o, a full disk, a reader that goes away.
expect "-o" 0 "$etldump" -f json -o "$tmp/o.json" "$sample"
check "-o writes the file" test "$(wc -l < "$tmp/o.json")" -eq 800
expect "disk full" 4 "$etldump" -f csv -o /dev/full "$sample"
check "disk full: one clear message" sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'No space left on device' '$tmp/err'"
expect "stdout full" 4 sh -c "'$etldump' --events=all -f xml '$sample' > /dev/full"
big=$tmp/big.etl
"$top/build/mktrace" --quiet --switches=300000 --encoding=compact "$big" - 2>/dev/null
"$etldump" "$big" 2> "$tmp/err" | head -n 1 > /dev/null
check "pipe closed early: nothing on stderr" test ! -s "$tmp/err"
expect "pipe closed early: status 0" 0 sh -c "'$etldump' -f csv '$big' | head -n 1 > /dev/null; exit \$(( \$? ))"

# libxml2 is loaded only when XML output or an EventSource manifest needs
# it: etldump is not linked with it, and build/tests/etldump-noxml, which
# looks for it under a name no file has, is a machine without it.
if command -v readelf > /dev/null 2>&1; then
    check "etldump is not linked with libxml2" \
        sh -c "! readelf -d '$etldump' | grep -q 'NEEDED.*libxml2'"
fi
noxml=$top/build/tests/etldump-noxml
"$etldump" -f csv "$sample" > "$tmp/with" 2>&1
expect "without libxml2: csv" 0 "$noxml" -f csv "$sample"
check "without libxml2: csv as with it" cmp -s "$tmp/out" "$tmp/with"
expect "without libxml2: -f xml" 6 "$noxml" -f xml "$sample"
check "without libxml2: -f xml: nothing written, one message naming the library" \
    sh -c "[ ! -s '$tmp/out' ] && [ \$(wc -l < '$tmp/err') -eq 1 ] &&
           grep -q 'xml needs libxml2.*libxml2-not-here' '$tmp/err'"
echo keep > "$tmp/kept.xml"
expect "without libxml2: -f xml -o" 6 "$noxml" -f xml -o "$tmp/kept.xml" "$sample"
check "without libxml2: -o FILE left as it was" test "$(cat "$tmp/kept.xml")" = keep
"$top/build/mkedge" manifest "$tmp/manifest.etl" "$tmp/manifest.exp" 2> /dev/null
expect "manifests with libxml2" 0 "$etldump" --events=all -f csv "$tmp/manifest.etl"
echo keep > "$tmp/kept.csv"
expect "without libxml2: manifests" 6 "$noxml" --events=all -f csv -o "$tmp/kept.csv" \
    "$tmp/manifest.etl"
check "without libxml2: manifests: one message naming the file, and the -o FILE's" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 2 ] &&
           grep -q 'manifest.etl: its EventSource manifests need libxml2' '$tmp/err' &&
           tail -n 1 '$tmp/err' | grep -q '^etldump: .*kept.csv: left as it was\$'"
check "without libxml2: manifests: -o FILE left as it was" test "$(cat "$tmp/kept.csv")" = keep
expect "without libxml2: the switches of a trace with manifests" 0 "$noxml" "$tmp/manifest.etl"

# Time modes agree: abs = start + rel.
"$etldump" -f csv --time=abs "$sample" | sed -n 2p | cut -d, -f3 > "$tmp/abs"
check "--time=abs is ISO 8601 UTC with 100 ns digits" grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{7}Z$' "$tmp/abs"
"$etldump" -f csv --time=raw "$sample" | sed -n 2p | awk -F, '{ exit !($2 == $3) }'
check "--time=raw equals timestamp" test $? -eq 0

# Filter entries that can match nothing in the trace get a note, in every
# view that takes them: a --cpu entry naming no processor with buffers, a
# --range starting after the last event. The rows are those of the entries
# that match; at the edge (the last event's own time) there is no note.
views="--events=all --stats --summary --usage -f~svg -f~perfetto"
last=$("$etldump" --stats -f csv "$sample" | awk -F, '$2 == "total" { print $7 }')
last_s=$(echo "$last" | sed 's/0*$//; s/\.$//')
cpu_note="^etldump: [^:]*demo-compact.etl: note: --cpu=6-9: no buffer of this trace is of processors 6-9; its buffers are of processors 0-3\$"
range_note="^etldump: [^:]*demo-compact.etl: note: --range starts at 17.5 s, after the trace's last event (at $last_s s)\$"
check "the last event's time, from --stats" test -n "$last_s"
for v in "" $views; do
    v=$(echo "$v" | tr '~' ' ')
    out=$tmp/v.out
    case $v in *svg*|*perfetto*) o="-o $out" ;; *) o="" ;; esac
    # shellcheck disable=SC2086
    "$etldump" $v $o --cpu=1 "$sample" > "$tmp/one" 2> /dev/null
    [ -z "$o" ] || cp "$out" "$tmp/one"
    # shellcheck disable=SC2086
    expect "--cpu naming no processor ($v)" 0 "$etldump" $v $o --cpu=6-9,1 "$sample"
    [ -z "$o" ] || cp "$out" "$tmp/out"
    check "--cpu naming no processor ($v): one note" \
        sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q '$cpu_note' '$tmp/err'"
    check "--cpu naming no processor ($v): the rows of the others" cmp -s "$tmp/out" "$tmp/one"
    # shellcheck disable=SC2086
    expect "--cpu of processors with buffers ($v)" 0 "$etldump" $v $o --cpu=3-9 "$sample"
    check "--cpu of processors with buffers ($v): no note" test ! -s "$tmp/err"
    # shellcheck disable=SC2086
    expect "--range after the last event ($v)" 0 "$etldump" $v $o --range=17.5:20 "$sample"
    check "--range after the last event ($v): one note" \
        sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q \"$range_note\" '$tmp/err'"
    # shellcheck disable=SC2086
    expect "--range from the last event ($v)" 0 "$etldump" $v $o --range="$last": "$sample"
    check "--range from the last event ($v): no note" test ! -s "$tmp/err"
    # shellcheck disable=SC2086
    expect "-q: no notes ($v)" 0 "$etldump" -q $v $o --cpu=9 --range=17.5: "$sample"
    check "-q: no notes ($v): nothing on stderr" test ! -s "$tmp/err"
done
# A --range holding none of the switches (within the trace's events, and
# whatever the other filters leave): a note in the list of switches, with
# the times of the first and last; none in the views that count the time
# of runs spanning the range.
first_s=$("$etldump" -f csv "$sample" | sed -n 2p | cut -d, -f3 | sed 's/0*$//; s/\.$//')
last_sw=$("$etldump" -f csv "$sample" | tail -n 1 | cut -d, -f3 | sed 's/0*$//; s/\.$//')
span_note="^etldump: [^:]*demo-compact.etl: note: --range holds no context switch of this trace: its switches run from $first_s s to $last_sw s\$"
for r in 0:0.0002 5:5.001; do
    for t in 1 2; do
        expect "--range holding no switch ($r, $t threads)" 0 "$etldump" -f csv --threads=$t --range=$r "$sample"
        check "--range holding no switch ($r, $t threads): one note" \
            sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q \"$span_note\" '$tmp/err'"
        check "--range holding no switch ($r, $t threads): the header only" test "$(wc -l < "$tmp/out")" -eq 1
    done
done
expect "--range holding switches, --cpu leaving none" 0 "$etldump" -f csv --range=0:0.0005 --cpu=2 "$sample"
check "--range holding switches, --cpu leaving none: no note" test ! -s "$tmp/err"
check "--range holding switches, --cpu leaving none: no row" test "$(wc -l < "$tmp/out")" -eq 1
for v in --summary --usage; do
    expect "--range holding no switch ($v)" 0 "$etldump" $v --range=5:5.001 "$sample"
    check "--range holding no switch ($v): no note" test ! -s "$tmp/err"
done
expect "--range holding no switch, -q" 0 "$etldump" -q --range=5:5.001 "$sample"
check "--range holding no switch, -q: nothing on stderr" test ! -s "$tmp/err"
# --events and --hook entries that no event of a file matches get a note on
# that file, whatever the other filters leave; entries matched in one file
# do not count for the next.
procs=$top/samples/demo-processes.etl
none_note() { # FILE OPTION=ENTRY
    echo "^etldump: [^:]*$1: note: $2: no event of this trace has that name or a name under it; --stats lists the names it has\$"
}
expect "--events names no event has" 0 "$etldump" --events=Process,Proces -f csv "$procs" "$sample"
check "--events names no event has: a note per file and name" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 3 ] && grep -q '$(none_note demo-processes.etl --events=Proces)' '$tmp/err' &&
           grep -q '$(none_note demo-compact.etl --events=Process)' '$tmp/err' &&
           grep -q '$(none_note demo-compact.etl --events=Proces)' '$tmp/err'"
"$etldump" --events=Process -f csv "$procs" > "$tmp/want" 2> /dev/null
check "--events names no event has: the rows of the others" sh -c \
    "'$etldump' --events=Process,Proces -f csv '$procs' 2> /dev/null | cmp -s - '$tmp/want'"
# Given twice, --events adds to its list; 'all' in any list, any case, is
# every event.
"$etldump" --events=Process,Image -f csv "$procs" > "$tmp/want" 2> /dev/null
expect "--events twice" 0 "$etldump" --events=Process --events=Image -f csv "$procs"
check "--events twice: the lists added up" cmp -s "$tmp/want" "$tmp/out"
"$etldump" --events=all -f csv "$procs" > "$tmp/want"
for arg in "--events=all,Process" "--events=ALL" "--events=Process --events=All"; do
    # shellcheck disable=SC2086
    expect "$arg" 0 "$etldump" $arg -f csv "$procs"
    check "$arg: every event, no note" sh -c "cmp -s '$tmp/want' '$tmp/out' && test ! -s '$tmp/err'"
done
expect "--stats twice" 0 "$etldump" --stats --stats "$sample"
# The file column of names that need quoting or escapes (measured once per
# input, not on each row): CSV quotes a comma, JSON escapes a quote, text
# shows a newline as \x0a; a plain name as it is.
mkdir -p "$tmp/names"
for n in 'a,b.etl' 'q"x.etl' "$(printf 'nl\nx.etl')" 'plain.etl'; do cp "$sample" "$tmp/names/$n"; done
in_names() { # runs etldump in $tmp/names with these arguments, the first line to $tmp/out
    all_names "$@"
    head -1 "$tmp/all" > "$tmp/out"
}
all_names() { # the same, every line to $tmp/all
    (abs=$(cd "$(dirname "$etldump")" && pwd)/$(basename "$etldump")
     cd "$tmp/names" && "$abs" "$@" > "$tmp/all")
}
# A plain name goes with the row that the view writes itself, another
# through the printer's loop: the rows after the file cell are the same.
for view in "" --events=all; do
    all_names -H -f csv $view plain.etl
    sed 's/^plain\.etl,//' "$tmp/all" > "$tmp/plain.rows"
    all_names -H -f csv $view 'a,b.etl'
    sed 's/^"a,b\.etl",//' "$tmp/all" > "$tmp/comma.rows"
    check "file column, CSV $view: rows the same whoever writes them" cmp -s "$tmp/plain.rows" "$tmp/comma.rows"
    all_names -H -f json $view plain.etl
    sed 's/^{"file":"plain\.etl",//' "$tmp/all" > "$tmp/plain.rows"
    all_names -H -f json $view 'q"x.etl'
    sed 's/^{"file":"q\\"x\.etl",//' "$tmp/all" > "$tmp/quote.rows"
    check "file column, JSON $view: rows the same whoever writes them" cmp -s "$tmp/plain.rows" "$tmp/quote.rows"
done
in_names -H --no-header -f csv 'a,b.etl'
check "file column: CSV quotes a comma" grep -q '^"a,b.etl",1,' "$tmp/out"
in_names -H -f json 'q"x.etl'
check "file column: JSON escapes a quote" grep -q '^{"file":"q\\"x.etl","cpu":1,' "$tmp/out"
in_names -H --no-header "$(printf 'nl\nx.etl')"
check "file column: text escapes a newline" grep -q '^nl\\x0ax.etl  *1 ' "$tmp/out"
in_names -H --no-header -f csv plain.etl
check "file column: a plain name" grep -q '^plain.etl,1,' "$tmp/out"
# -H: --groupmask reads no file, so has no file column (it had an empty one).
expect "--groupmask -H" 0 "$etldump" --groupmask=PERF_CONTEXT_SWITCH -H -f csv
check "--groupmask -H: no file column" sh -c "head -1 '$tmp/out' | grep -q '^index,mask,names\$'"
expect "--groupmask twice" 0 "$etldump" --groupmask=PERF_CONTEXT_SWITCH --groupmask=0x10
check "--groupmask twice: the lists added up" \
    sh -c "grep -q '^ *0 0x00000010 EVENT_TRACE_FLAG_CSWITCH' '$tmp/out' &&
           grep -q '^ *1 0x00000004 PERF_CONTEXT_SWITCH' '$tmp/out'"
expect "--groupmask twice, the first unknown" 2 "$etldump" --groupmask=BOGUS --groupmask=0x10
# (thread 5332 has events, none of them Process events)
expect "--events with other filters leaving no row" 0 "$etldump" --events=Process --tid=5332 "$procs"
check "--events with other filters leaving no row: no note" test ! -s "$tmp/err"
expect "--hook entries no event has" 0 "$etldump" --stats --hook=0x9990-0x9999,0x0301,Nosuch "$procs"
check "--hook entries no event has: a note each" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 2 ] && grep -q '$(none_note demo-processes.etl --hook=Nosuch)' '$tmp/err' &&
           grep -q 'note: --hook=0x9990-0x9999: no event of this trace has a HookId in that range; --stats lists the HookIds it has\$' '$tmp/err'"
expect "--hook a HookId no event has" 0 "$etldump" --events=all --hook=0x301,39321 "$procs"
check "--hook a HookId no event has: a note" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] &&
           grep -q 'note: --hook=0x9999: no event of this trace has that HookId; --stats lists the HookIds it has\$' '$tmp/err'"

# --tid and --pid entries that no switch (the views of switches) or no
# event (--events, --stats) of a file matches get a note on that file,
# whatever the other filters leave; -f perfetto leaves them out (its
# warning says so) and has none. Thread 5332 and process 1256 of
# demo-processes have switches and events; demo-compact knows no process
# but Idle.
tid_note() { # FILE ENTRY WHAT
    echo "^etldump: [^:]*$1: note: --tid=$2: no $3 of this trace is of thread $2"
}
for v in "" $views; do
    v=$(echo "$v" | tr '~' ' ')
    out=$tmp/v.out
    case $v in *svg*|*perfetto*) o="-o $out" ;; *) o="" ;; esac
    case $v in --events*|--stats) what=event of="" see="" ;;
               *) what="context switch" of="a thread known to be of " see="; --summary lists the" ;;
    esac
    # shellcheck disable=SC2086
    "$etldump" $v $o --tid=5332 --pid=1256 "$procs" > "$tmp/one" 2> /dev/null
    [ -z "$o" ] || cp "$out" "$tmp/one"
    # shellcheck disable=SC2086
    # (an entry given twice is one, with one note)
    expect "--tid, --pid entries nothing has ($v)" 0 "$etldump" $v $o --tid=5332,99999 \
        --tid=99999 --pid=99990-99999,1256,99990-99999 "$procs"
    [ -z "$o" ] || cp "$out" "$tmp/out"
    case $v in
    *perfetto*)
        check "--tid, --pid entries nothing has ($v): the warning only" \
            sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q 'warning: -f perfetto: --tid, --pid' '$tmp/err'" ;;
    *)
        check "--tid, --pid entries nothing has ($v): a note each" \
            sh -c "[ \$(wc -l < '$tmp/err') -eq 2 ] &&
                   grep -q '$(tid_note demo-processes.etl 99999 "$what")${see:+$see threads it has}\$' '$tmp/err' &&
                   grep -q '^etldump: [^:]*demo-processes.etl: note: --pid=99990-99999: no $what of this trace is of ${of}a process in that range${see:+$see processes it has}\$' '$tmp/err'"
        ;;
    esac
    check "--tid, --pid entries nothing has ($v): the rows of the others" cmp -s "$tmp/out" "$tmp/one"
    # shellcheck disable=SC2086
    expect "--tid, --pid entries the trace has, other filters leaving no row ($v)" 0 \
        "$etldump" $v $o --tid=5332 --pid=1256 --range=200: "$procs"
    check "--tid, --pid entries the trace has, other filters leaving no row ($v): no note of them" \
        sh -c "grep -q 'note: --range starts at 200 s' '$tmp/err' && ! grep -q 'note: --tid\\|note: --pid' '$tmp/err'"
done
# Per file: thread 5332 has switches in demo-processes only; demo-compact's
# threads have no known process but Idle's (0).
expect "--tid per file" 0 "$etldump" -f csv --tid=5332 --pid=0 "$procs" "$sample"
check "--tid per file: the note on the file without it" \
    sh -c "[ \$(wc -l < '$tmp/err') -eq 1 ] && grep -q '$(tid_note demo-compact.etl 5332 "context switch"); --summary lists the threads it has\$' '$tmp/err'"
expect "--pid of threads whose process is not known" 0 "$etldump" -f csv --pid=1256 "$sample"
check "--pid of threads whose process is not known: a note" \
    grep -q "note: --pid=1256: no context switch of this trace is of a thread known to be of process 1256; --summary lists the processes it has\$" "$tmp/err"

expect "--range from the last event: its row" 0 "$etldump" --events=all -f csv --no-header \
    --range="$last": "$sample"
check "--range from the last event: its row" test "$(wc -l < "$tmp/out")" -ge 1

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
