#!/bin/sh
# The same bytes whatever --threads: every view and format, run with
# --threads=1 (no other thread) and with 2, 3 and 8 threads, over generated
# traces large enough to fill many chunks of rows (compact batches, CSwitch
# events with processes and ready threads, compressed buffers), the real
# traces in ../shared/samples/real (read in place, when present) and damaged
# files (problems reported between rows). Standard output, standard error and
# the exit status must be identical; so must the file written with -o (and
# no temporary file left beside it), and the runs with --strict. Built with
# a sanitizer or run under an emulator (ETLDUMP_EMULATOR), where a run costs
# many times more, the runs with 1 thread are compared with 3 alone (the
# plain build's suite compares all four; THREADS_OTHERS sets the list), and
# the switch view of the real traces, which hold no switch, is not run.
# Usage: tests/threads.sh ETLDUMP [SHARED]
set -u
etldump=$1
here=$(dirname "$0")
root=$here/..
mktrace=${MKTRACE:-$root/build/mktrace}
shared=${2:-${ETLDUMP_SHARED:-$root/../shared}}
export LC_ALL=C TZ=UTC
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

others="2 3 8"
slow=
if [ -n "${ETLDUMP_EMULATOR:-}" ] ||
   nm "$etldump" 2>/dev/null | grep -q '__asan_init\|__msan_init\|__tsan_init\|__ubsan_handle'; then
    others=3 slow=yes
fi
others=${THREADS_OTHERS:-$others}

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "threads: FAIL: $*"; }

# Runs etldump ARGS with --threads=1, then with each of $others, and
# compares.
same() {
    label=$1; shift
    "$etldump" --threads=1 "$@" > "$tmp/out1" 2> "$tmp/err1"
    st1=$?
    for n in $others; do
        "$etldump" --threads=$n "$@" > "$tmp/out$n" 2> "$tmp/err$n"
        st=$?
        if [ "$st" -ne "$st1" ]; then
            bad "$label: exit status $st with --threads=$n, $st1 with 1"; return
        fi
        if ! cmp -s "$tmp/out1" "$tmp/out$n"; then
            bad "$label: output differs with --threads=$n"
            cmp "$tmp/out1" "$tmp/out$n" | head -n 1; return
        fi
        # (Both empty, as most are: the same without a cmp, a process each.)
        if { [ -s "$tmp/err1" ] || [ -s "$tmp/err$n" ]; } && ! cmp -s "$tmp/err1" "$tmp/err$n"; then
            bad "$label: standard error differs with --threads=$n"
            diff "$tmp/err1" "$tmp/err$n" | head -n 6; return
        fi
    done
    ok
}

# The same for a format written with -o: the files must be the same.
same_o() {
    label=$1 fmt=$2 f=$3
    "$etldump" --threads=1 -f "$fmt" -o "$tmp/o1.$fmt" "$f" 2> "$tmp/err1"
    st1=$?
    for n in $others; do
        "$etldump" --threads=$n -f "$fmt" -o "$tmp/o$n.$fmt" "$f" 2> "$tmp/err$n"
        st=$?
        if [ "$st" -ne "$st1" ] ||
           { { [ -s "$tmp/err1" ] || [ -s "$tmp/err$n" ]; } && ! cmp -s "$tmp/err1" "$tmp/err$n"; } ||
           ! cmp -s "$tmp/o1.$fmt" "$tmp/o$n.$fmt"; then
            bad "$label: output, messages or status differ with --threads=$n"; return
        fi
    done
    [ "$st1" -le 1 ] && [ -s "$tmp/o1.$fmt" ] && ok || bad "$label: nothing written (status $st1)"
    rm -f "$tmp"/o*."$fmt"
}

# Every view and format of one trace.
views() {
    f=$1 name=$2
    for fmt in text csv xml json; do
        same "$name switches $fmt" -f "$fmt" "$f"
        same "$name events=all $fmt" --events=all -f "$fmt" "$f"
    done
    same "$name events=all no-fields csv" --events=all --no-fields -f csv "$f"
    same "$name events=Process,Thread json" --events=Process,Thread -f json "$f"
    same "$name switches csv abs pid" --time=abs --tid=1-4000 -f csv "$f"
    same "$name switches csv cpu range" --cpu=0,1 --range=0.001: -f csv "$f"
    same "$name summary" --summary "$f"
    same "$name summary csv" --summary -f csv "$f"
    same "$name usage csv" --usage -f csv "$f"
    same "$name stats" --stats "$f"
    same "$name stats json" --stats -f json "$f"
    same "$name info" --info "$f"
    same_o "$name perfetto" perfetto "$f"
    same_o "$name svg" svg "$f"
    same "$name strict csv" --strict -f csv "$f"
    same "$name strict events" --strict --events=all -f csv "$f"
}

# Generated traces: many chunks of rows each.
if [ ! -x "$mktrace" ]; then
    bad "$mktrace not built (make build/mktrace)"
else
    g() { n=$1; shift; "$mktrace" --quiet "$@" "$tmp/$n.etl" - || bad "mktrace $n"; }
    g compact --encoding=compact --cpus=4 --switches=30000 --seed=61
    g cswitch --encoding=cswitch --cpus=3 --switches=20000 --processes --ready --dpc --seed=62
    g mixed --encoding=mixed --compress --circular --cpus=4 --switches=25000 --buffer-size=4096 --seed=63
    g lost --encoding=compact --lost-cpu=1 --cpus=2 --switches=12000 --buffer-size=2048 --seed=64
    for n in compact cswitch mixed lost; do
        [ -f "$tmp/$n.etl" ] && views "$tmp/$n.etl" "$n"
    done
    # Damage: bytes overwritten inside events and buffer headers through
    # the file, so problems are reported between rows of many chunks.
    # damage FILE: those bytes every 37011 from offset 20000 on.
    damage() {
        size=$(wc -c < "$1")
        off=20000
        while [ "$off" -lt "$size" ]; do
            printf '\377\377\377\377\377\377\377\377\001\002' |
                dd of="$1" bs=1 seek="$off" conv=notrunc 2> /dev/null
            off=$((off + 37011))
        done
    }
    if [ -f "$tmp/cswitch.etl" ]; then
        cp "$tmp/cswitch.etl" "$tmp/damaged.etl"
        damage "$tmp/damaged.etl"
        views "$tmp/damaged.etl" damaged
        "$etldump" -f csv "$tmp/damaged.etl" > /dev/null 2>&1
        [ $? -eq 1 ] && ok || bad "damaged: expected exit status 1"
    fi
    # Compressed buffers that do not decompress, or decompress to damaged
    # records: the buffers decompressed ahead on other threads (walks in
    # file order) report as the reader's own, in the same places.
    if [ -f "$tmp/mixed.etl" ]; then
        cp "$tmp/mixed.etl" "$tmp/damaged-z.etl"
        damage "$tmp/damaged-z.etl"
        views "$tmp/damaged-z.etl" damaged-z
        "$etldump" --stats "$tmp/damaged-z.etl" 2>&1 >/dev/null |
            grep -q 'compressed buffer does not decompress' && ok ||
            bad "damaged-z: no buffer that does not decompress"
    fi
    # Two inputs, a file column.
    same "two inputs csv" -f csv "$tmp/compact.etl" "$tmp/lost.etl"
    same "two inputs events" --events=all -f json "$tmp/mixed.etl" "$tmp/cswitch.etl"
    # A pipe: the spooled copy.
    "$etldump" --threads=1 -f csv - < "$tmp/compact.etl" > "$tmp/p1" 2>&1
    "$etldump" --threads=2 -f csv - < "$tmp/compact.etl" > "$tmp/p2" 2>&1
    cmp -s "$tmp/p1" "$tmp/p2" && ok || bad "standard input: output differs"
    # -o: the file written is the same, and nothing else is left.
    mkdir -p "$tmp/o"
    "$etldump" --threads=1 -f json -o "$tmp/o/one.json" "$tmp/cswitch.etl"
    "$etldump" --threads=3 -f json -o "$tmp/o/three.json" "$tmp/cswitch.etl"
    if cmp -s "$tmp/o/one.json" "$tmp/o/three.json" && [ "$(ls "$tmp/o" | wc -l)" -eq 2 ]; then
        ok
    else
        bad "-o: files differ or a temporary file is left"; ls "$tmp/o"
    fi
    # A write error with threads: status 4, the output file not replaced.
    if [ -w /dev/full ]; then
        "$etldump" --threads=2 -f csv "$tmp/compact.etl" > /dev/full 2> /dev/null
        [ $? -eq 4 ] && ok || bad "write error with --threads=2: expected exit status 4"
    fi
fi

# Real traces, read in place.
if [ -d "$shared/samples/real" ]; then
    for f in "$shared"/samples/real/*.etl; do
        [ -f "$f" ] || continue
        name=$(basename "$f" .etl)
        for fmt in csv json; do
            same "$name events=all $fmt" --events=all -f "$fmt" "$f"
        done
        same "$name events=all xml" --events=all -f xml "$f"
        same "$name events=all text no-fields" --events=all --no-fields "$f"
        same "$name events=all json no-fields" --events=all --no-fields -f json "$f"
        same "$name summary" --summary "$f"
        same "$name stats" --stats "$f"
        same "$name info" --info "$f"
        same "$name strict events" --strict --events=all -f csv "$f"
        same "$name usage" --usage -f csv "$f"
        same_o "$name perfetto" perfetto "$f"
        same_o "$name svg" svg "$f"
        # These traces hold no context switch: the switch view's four
        # formats compare tables without a row, left to the plain build's
        # suite, where a run costs a tenth.
        [ -n "$slow" ] && continue
        for fmt in csv json xml text; do
            same "$name switches $fmt" -f "$fmt" "$f"
        done
    done
else
    skip=$((skip + 1))
    echo "threads: SKIPPED: real traces: $shared/samples/real not found"
fi

echo "threads: --threads=1 against --threads=$(echo $others | tr " " ",")"
echo "threads: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
