#!/bin/sh
# make bench: writes traces with the test writer into BENCH_DIR (kept between
# runs), then, with each file in the page cache and output to /dev/null,
# times etldump's views against the floor of the same run (build/floor: every
# byte of the file read and summed, mapped or copied, whichever is faster;
# for compressed buffers, every buffer decompressed alone) and prints one
# table: best of three runs, one thread (--threads=1) and all the cores
# (--threads=NPROC, at most 8) side by side, the all-cores speed-up, peak
# memory, the target and whether it is met.
# Usage: tools/bench.sh [ETLDUMP] [MKTRACE] [FLOOR]
# Environment: BENCH_DIR (default /tmp/etldump-bench), BENCH_RUNS (default 3).
set -eu
etldump=${1:-./etldump}
mktrace=${2:-build/mktrace}
floor=${3:-build/floor}
dir=${BENCH_DIR:-/tmp/etldump-bench}
runs=${BENCH_RUNS:-3}
export LC_ALL=C
mkdir -p "$dir"
cores=$(nproc 2>/dev/null || echo 1)
[ "$cores" -gt 8 ] && cores=8
[ "$cores" -lt 2 ] && cores=2

# The traces: 1 GB of compact batches (115 M switches), 1.1 GB of CSwitch
# events (27 M), a fifth of the compact one for the slower switch formats,
# and 400 MB of compressed buffers (mixed switches).
big=$dir/compact-115M.etl
csw=$dir/cswitch-27M.etl
mid=$dir/compact-20M.etl
zip=$dir/compressed-12M.etl
gen() {
    [ -f "$1" ] && return 0
    echo "bench: writing $1" >&2
    out=$1; shift
    "$mktrace" --quiet "$@" "$out.tmp" - && mv "$out.tmp" "$out"
}
gen "$big" --encoding=compact --cpus=8 --buffer-size=65536 --switches=115000000 --seed=7
gen "$csw" --encoding=cswitch --cpus=8 --buffer-size=65536 --switches=27000000 --seed=8
gen "$mid" --encoding=compact --cpus=8 --buffer-size=65536 --switches=20000000 --seed=7
gen "$zip" --encoding=mixed --compress --cpus=8 --buffer-size=65536 --switches=12000000 --seed=9

# Best (least) seconds of $runs runs of a command and the largest peak
# (KiB), output to /dev/null: "SECONDS KIB".
best() {
    b="" k=0
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2> "$dir/err" || true
        read -r s m < "$dir/time" || { s=0 m=0; }
        case $s in *[!0-9.]*|'') s=999999 ;; esac
        if [ -z "$b" ] || [ "$(echo "$s < $b" | bc)" -eq 1 ]; then b=$s; fi
        [ "$m" -gt "$k" ] && k=$m
        i=$((i + 1))
    done
    echo "$b $k"
}

# The floor's own seconds (it times itself), best of $runs.
floor_s() {
    b=""
    i=0
    while [ "$i" -lt "$runs" ]; do
        s=$("$floor" "$@" | sed -n 's/.*seconds \([0-9.]*\).*/\1/p')
        if [ -z "$b" ] || [ "$(echo "$s < $b" | bc)" -eq 1 ]; then b=$s; fi
        i=$((i + 1))
    done
    echo "$b"
}

calc() { echo "scale=6; $*" | bc -l; }
fmt2() { printf '%.2f' "$1"; }

printf '%-28s %-4s %7s %7s %5s %7s %5s %5s  %s\n' \
    run unit 1-core "$cores-core" speed x_floor MiB_1 MiB_n target
# One row. $1 label, $2 unit (M/s: records; GB/s: input), $3 count (records
# or bytes), $4 floor seconds, $5 target text, $6 minimum of the one-core
# figure (or "-"), $7 "x" to time all the cores too; then etldump's arguments.
row() {
    label=$1 unit=$2 count=$3 fl=$4 target=$5 min=$6 both=$7
    shift 7
    set -- $(best "$etldump" --threads=1 "$@") "$@"
    s1=$1 k1=$2
    shift 2
    if [ "$both" = x ]; then
        set -- $(best "$etldump" --threads="$cores" "$@")
        sn=$1 kn=$2
    else
        sn=$s1 kn=$k1
    fi
    case $unit in
        M/s) f1=$(calc "$count / $s1 / 1000000"); fn=$(calc "$count / $sn / 1000000") ;;
        *) f1=$(calc "$count / $s1 / 1000000000"); fn=$(calc "$count / $sn / 1000000000") ;;
    esac
    up=$(calc "$s1 / $sn")
    xf=$(calc "$s1 / $fl")
    met=""
    if [ "$min" != - ]; then
        [ "$(echo "$f1 >= $min" | bc)" -eq 1 ] && met=met || met=missed
    fi
    if [ "$both" = x ] && [ -z "${no_speedup_target:-}" ] &&
       [ "$(echo "$up < 1.6" | bc)" -eq 1 ]; then met="${met:+$met, }speed-up<1.6"; fi
    [ "$k1" -ge 65536 ] && met="${met:+$met, }memory"
    [ "$kn" -ge $((65536 + 16384 * (cores - 1))) ] && [ "$k1" -lt 65536 ] && met="${met:+$met, }memory"
    [ "$both" = x ] || { fn=- up=-; }
    printf '%-28s %-4s %7s %7s %5s %7s %5s %5s  %s\n' "$label" "$unit" "$(fmt2 "$f1")" \
        "$( [ "$fn" = - ] && echo - || fmt2 "$fn")" "$( [ "$up" = - ] && echo - || fmt2 "$up")" \
        "$(fmt2 "$xf")" $((k1 / 1024)) $((kn / 1024)) "$target${met:+ ($met)}"
    last_s1=$s1 last_sn=$sn
}

# How many cores the machine gives this run now: two busy loops at once
# against one alone (2.00 on an idle two-core machine; less when other work
# shares it, and the all-cores figures then say little).
spin() { i=0; while [ "$i" -lt 200000 ]; do i=$((i + 1)); done; }
now() { date +%s.%N; }
t0=$(now); spin; t1=$(now); spin & sp=$!; spin; wait "$sp"; t2=$(now)
echo "cores free: $(fmt2 "$(calc "2 * ($t1 - $t0) / ($t2 - $t1)")") (two busy loops against one)"

# The traces held in memory for the whole run (floor --hold: a machine
# that trims its page cache would otherwise read them from the disk, and
# the figures would say more about the disk), then the floors.
rm -f "$dir/hold.in" "$dir/hold.out"
mkfifo "$dir/hold.in"
"$floor" --hold "$big" "$csw" "$mid" "$zip" < "$dir/hold.in" > "$dir/hold.out" &
exec 3> "$dir/hold.in"
rm -f "$dir/hold.in"
i=0
while [ ! -s "$dir/hold.out" ] && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "page cache: $(cat "$dir/hold.out" 2> /dev/null || echo 'not held: no answer')"
cat "$big" "$csw" "$mid" "$zip" > /dev/null
fb=$(floor_s "$big") fc=$(floor_s "$csw") fm=$(floor_s "$mid")
fz=$(floor_s --decompress "$zip")
bb=$(wc -c < "$big") bc_=$(wc -c < "$csw") bz=$(wc -c < "$zip")
ways=$("$floor" "$big" | sed -n 's/.*\(mapped [0-9.]*\) \(copied [0-9.]*\).*/\1 s, \2 s/p')
echo "floor: read and sum every byte: $(fmt2 "$(calc "$bb / $fb / 1000000000")") GB/s ($(basename "$big"); the faster way: $ways)"
echo "floor: decompress every buffer alone: $fz s ($(basename "$zip"))"

row "compact csv" M/s 20000000 "$fm" ">=15 M/s" 15 x -f csv "$mid"
csv=$last_s1
row "compact json" M/s 20000000 "$fm" "<=2x csv" - x -f json "$mid"
echo "  json/csv $(fmt2 "$(calc "$last_s1 / $csv")")"
row "compact xml" M/s 20000000 "$fm" "<=2x csv" - x -f xml "$mid"
echo "  xml/csv $(fmt2 "$(calc "$last_s1 / $csv")")"
row "compact text" M/s 20000000 "$fm" "<=2x csv" - x -f text "$mid"
echo "  text/csv $(fmt2 "$(calc "$last_s1 / $csv")")"
row "cswitch csv" M/s 27000000 "$fc" ">=12 M/s" 12 x -f csv "$csw"
row "compact --summary" M/s 20000000 "$fm" ">=20 M/s" 20 - --summary "$mid"
row "compact events=all no-fields" GB/s "$bb" "$fb" ">=1 GB/s" 1 x --events=all --no-fields -f csv "$big"
row "cswitch events=all no-fields" GB/s "$bc_" "$fc" ">=1 GB/s" 1 x --events=all --no-fields -f csv "$csw"
row "compact --stats" GB/s "$bb" "$fb" ">=5 GB/s" 5 - --stats "$big"
row "cswitch --stats" GB/s "$bc_" "$fc" ">=5 GB/s" 5 - --stats "$csw"
# The target is one core's; with more, other threads decompress ahead.
no_speedup_target=1
row "compressed --stats" GB/s "$bz" "$fz" "<=1/0.9 x decompress" - x --stats "$zip"
no_speedup_target=
echo "  compressed --stats / decompress alone $(fmt2 "$(calc "$last_s1 / $fz")") on one core" \
    "(target <= 1.11), $(fmt2 "$(calc "$last_sn / $fz")") on $cores"
# Switches of compressed buffers in time order: with more cores, other
# threads decompress each processor's next buffer ahead of the merge (no
# target of its own; x_floor against decompressing alone).
no_speedup_target=1
row "compressed --summary" M/s 12000000 "$fz" "-" - x --summary "$zip"
no_speedup_target=
# Every event with its decoded fields, on the largest real trace beside the
# project (BENCH_REAL; 3.9 MB): the file is given 40 times in one run so that
# start-up (about 5 ms here, 13 with libxml2 for xml) does not hide the
# rate. One thread (the default for a file this size).
real=${BENCH_REAL:-$(dirname "$0")/../../shared/samples/real/pv-diaghub-kernel.etl}
if [ -f "$real" ]; then
    reals="" i=0
    while [ "$i" -lt 40 ]; do reals="$reals $real"; i=$((i + 1)); done
    rb=$(($(wc -c < "$real") * 40))
    for f in csv json text xml; do
        # shellcheck disable=SC2086
        set -- $(best "$etldump" --threads=1 --events=all -f "$f" $reals)
        r=$(calc "$rb / $1 / 1000000")
        met=met
        [ "$(echo "$r >= 300" | bc)" -eq 1 ] || met=missed
        printf '%-28s %-4s %7s %7s %5s %7s %5s %5s  %s\n' "real events=all $f" MB/s \
            "$(printf '%.0f' "$r")" - - - $(($2 / 1024)) - ">=300 MB/s ($met)"
    done
else
    echo "real trace: $real absent (set BENCH_REAL), not measured"
fi
set -- $(best "$etldump" -f csv samples/demo-compact.etl)
echo "small trace (samples/demo-compact.etl) switches csv: peak $(($2 / 1024)) MiB"
# A fleet of small traces: 100 runs one after another, each one's own start
# included (libxml2 loaded by -f xml only).
per_run() {
    t0=$(now) i=0
    while [ "$i" -lt 100 ]; do "$etldump" "$@" > /dev/null 2>&1; i=$((i + 1)); done
    printf '%.1f' "$(calc "($(now) - $t0) * 10")"
}
echo "small trace, 100 runs: $(per_run -f csv samples/demo-compact.etl) ms a run as csv," \
    "$(per_run -f xml samples/demo-compact.etl) as xml; etldump --version $(per_run --version) ms"
t0=$(now); spin; t1=$(now); spin & sp=$!; spin; wait "$sp"; t2=$(now)
echo "cores free at the end: $(fmt2 "$(calc "2 * ($t1 - $t0) / ($t2 - $t1)")")"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; $(${CC:-cc} --version | head -n 1); $(date -u +%Y-%m-%d)"
exec 3>&- # the traces are let go
