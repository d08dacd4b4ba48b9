#!/bin/sh
# Golden outputs: each case in tests/golden/CASES runs etldump on a bundled
# sample and compares standard output with tests/golden/NAME.out.
# Usage: tests/golden.sh ETLDUMP [--regen]
set -u
etldump=$1
regen=${2:-}
dir=$(dirname "$0")/golden
export TZ=UTC LC_ALL=C
pass=0 fail=0
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
while read -r name args; do
    case $name in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086
    "$etldump" $args > "$tmp" 2>&1
    rc=$?
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
done < "$dir/CASES"
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
