#!/bin/sh
# make bench: builds large traces with the test writer, times every view and
# format of etldump on them (one core, file in the page cache, output to
# /dev/null) and prints one table: throughput, peak memory, and the ratio to
# reading the file with cat.
# Usage: tools/bench.sh [ETLDUMP] [MKTRACE]   (BENCH_DIR: where traces go)
set -eu
etldump=${1:-./etldump}
mktrace=${2:-build/mktrace}
dir=${BENCH_DIR:-/tmp/etldump-bench}
mkdir -p "$dir"
compact=$dir/compact-115M.etl
cswitch=$dir/cswitch-27M.etl
small=samples/demo-compact.etl

# 1.08 GB, 115 million switches in compact batches, 8 CPUs, 64 KiB buffers.
[ -f "$compact" ] || "$mktrace" --quiet --encoding=compact --cpus=8 --buffer-size=65536 \
    --switches=115000000 --seed=7 "$compact" -
# 1.1 GB, 27 million CSwitch events, 8 CPUs.
[ -f "$cswitch" ] || "$mktrace" --quiet --encoding=cswitch --cpus=8 --buffer-size=65536 \
    --switches=27000000 --seed=8 "$cswitch" -

# seconds and peak KB of a command, output to /dev/null
measure() {
    /usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2>"$dir/err" || true
    cat "$dir/time"
}

# warm the page cache
cat "$compact" "$cswitch" > /dev/null
printf '%-34s %9s %12s %14s %10s %8s\n' "run" "seconds" "MB/s" "records/s" "peak MiB" "x cat"
for f in "$compact" "$cswitch"; do
    bytes=$(wc -c < "$f")
    set -- $(measure cat "$f")
    cat_s=$1
    case $f in *compact*) sw=115000000 ;; *) sw=27000000 ;; esac
    name=$(basename "$f" .etl)
    printf '%-34s %9s %12.0f %14s %10.1f %8s\n' "$name: cat" "$cat_s" \
        "$(echo "$bytes / $cat_s / 1000000" | bc -l 2>/dev/null || echo 0)" "-" "$(echo "$2 / 1024" | bc -l)" "1.0"
    for run in "switches csv:-f csv" "switches json:-f json" "switches xml:-f xml" \
               "switches text:-f text" "switches perfetto:-f perfetto -o /dev/null" \
               "switches svg:-f svg -o $dir/bench.svg" "usage csv:--usage -f csv" \
               "events=all csv:--events=all -f csv" "stats:--stats"; do
        label=${run%%:*}
        args=${run#*:}
        # shellcheck disable=SC2086
        set -- $(measure "$etldump" $args "$f")
        s=$1 kb=$2
        case $label in switches*) recs=$(echo "$sw / $s" | bc) ;; *) recs="-" ;; esac
        printf '%-34s %9s %12.0f %14s %10.1f %8.1f\n' "$name: $label" "$s" \
            "$(echo "$bytes / $s / 1000000" | bc -l)" "$recs" "$(echo "$kb / 1024" | bc -l)" \
            "$(echo "$s / ($cat_s + 0.001)" | bc -l)"
    done
    echo "$name: the svg is $(wc -c < "$dir/bench.svg") bytes"
    rm -f "$dir/bench.svg"
done
set -- $(measure "$etldump" -f csv "$small")
printf '%-34s %9s %12s %14s %10.1f\n' "small trace: switches csv" "$1" "-" "-" "$(echo "$2 / 1024" | bc -l)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB"
