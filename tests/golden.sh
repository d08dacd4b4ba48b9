#!/bin/sh
# Golden outputs: each case in tests/golden/CASES runs etldump on a bundled
# sample and compares standard output with tests/golden/NAME.out. The cases
# of tests/golden/REAL do the same on the real traces of shared/samples/real
# (beside the project; REAL/ in their arguments stands for that folder), read
# in place; they are skipped with a message when it is absent.
# Usage: tests/golden.sh ETLDUMP [--regen]
set -u
etldump=$1
regen=${2:-}
dir=$(dirname "$0")/golden
real=${ETLDUMP_SHARED:-$(dirname "$0")/../../shared}/samples/real
export TZ=UTC LC_ALL=C
pass=0 fail=0 skip=0
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp" "$tmp.raw"' EXIT

# run CASEFILE: runs every case of CASEFILE.
run() {
    while read -r name args; do
        case $name in ''|'#'*) continue ;; esac
        # shellcheck disable=SC2086
        set -- $args
        for a in "$@"; do
            shift
            case $a in REAL/*) a=$real/${a#REAL/} ;; esac
            set -- "$@" "$a"
        done
        "$etldump" "$@" > "$tmp.raw" 2>&1
        rc=$?
        # Messages name the file: the folder of the real traces reads REAL.
        awk -v p="$real/" '{ while ((i = index($0, p)) > 0)
                                 $0 = substr($0, 1, i - 1) "REAL/" substr($0, i + length(p))
                             print }' "$tmp.raw" > "$tmp"
        echo "exit $rc" >> "$tmp"
        if [ "$regen" = --regen ]; then
            cat "$tmp" > "$dir/$name.out"
            pass=$((pass + 1))
        elif cmp -s "$tmp" "$dir/$name.out"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "golden: FAIL: $name (etldump $args)"
            diff "$dir/$name.out" "$tmp" | sed -n '1,10p'
        fi
    done < "$1"
}

run "$dir/CASES"
if [ -d "$real" ]; then
    run "$dir/REAL"
else
    skip=$((skip + 1))
    echo "golden: skipped the real-trace cases (tests/golden/REAL): $real not found (it lives beside the project)"
fi
echo "golden: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
