#!/bin/sh
# Two traces put together: a copy of one, whole or cut short (to two
# thirds or a third of its bytes, less a few so the cut falls inside a
# buffer), and another after it, as a disk, a download or a careless cat
# leaves them. Of every pair of the traces below (the first may be the
# second), each file must be read through and within 30 s, with the exit
# status of damage at most (0 or 1), one line a message, and no buffer
# taken for one whose SequenceNumber is damaged (none is). Before, 81 of
# 2,028 such files hung the index (a scan for a buffer header that
# stopped where the index stood), the samples' CSwitch trace followed by
# their compressed one among them.
#
# The traces: 8 generated ones of other buffer sizes, processors,
# compression and wrapping, the samples, and the real traces of SHARED
# when it is there. Usage: tests/pairs.sh ETLDUMP MKTRACE [SHARED]
etldump=$1 mktrace=$2 shared=${3:-../shared}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

i=0
for args in "--buffer-size=1536 --cpus=2" "--buffer-size=2048 --compress --cpus=4" \
    "--buffer-size=4096 --cpus=8 --circular" "--buffer-size=8192 --compress --circular --cpus=3" \
    "--buffer-size=65536 --cpus=2 --encoding=compact" "--buffer-size=2048 --cpus=16 --encoding=mixed" \
    "--buffer-size=3072 --compress --cpus=1" "--buffer-size=8192 --cpus=4 --ptr=4"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$mktrace" --quiet --switches=4000 --seed=$i $args "$tmp/g$i.etl" - ||
        { fail=$((fail + 1)); echo "pairs: FAIL: mktrace $args"; }
done
set -- "$tmp"/g*.etl samples/*.etl
if ls "$shared"/samples/real/*.etl > /dev/null 2>&1; then
    set -- "$@" "$shared"/samples/real/*.etl
else
    echo "pairs: $shared/samples/real not found: the generated traces and the samples only"
fi

for a in "$@"; do
    size=$(wc -c < "$a")
    for b in "$@"; do
        for third in 3 2 1; do
            head -c $((size * third / 3 - (3 - third) * 37)) "$a" > "$tmp/pair.etl"
            cat "$b" >> "$tmp/pair.etl"
            timeout 30 "$etldump" -f csv "$tmp/pair.etl" > /dev/null 2> "$tmp/err"
            rc=$?
            what="$(basename "$a") ($third/3) + $(basename "$b")"
            if [ "$rc" -gt 1 ]; then
                fail=$((fail + 1))
                echo "pairs: FAIL: $what: exit $rc: $(head -n 2 "$tmp/err")"
            elif grep -v '^etldump: ' "$tmp/err" | grep -q .; then
                fail=$((fail + 1))
                echo "pairs: FAIL: $what: a message of more than one line"
            elif grep -q 'SequenceNumber [0-9]* is' "$tmp/err"; then
                fail=$((fail + 1))
                echo "pairs: FAIL: $what: $(grep 'SequenceNumber [0-9]* is' "$tmp/err" | head -n 1)"
            else
                pass=$((pass + 1))
            fi
        done
    done
done

echo "pairs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
