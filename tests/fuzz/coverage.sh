#!/bin/sh
# What `make fuzz-coverage` runs once the targets are built with clang's
# source-based coverage (build/cov/bin/TARGET): tests/fuzz.sh replays the
# corpus, the regression inputs and the cut seeds through them, each
# process adding its counts to build/cov/prof; llvm-profdata merges them and
# llvm-cov reports per source file of the library (src/, without src/main.c
# and the test programs). Fails when the library's line coverage is below
# COVERAGE_MIN percent (default 90).
# Environment: LLVM_PROFDATA, LLVM_COV (default: the unversioned tools, or
# those of clang 14).
set -u
root=$(dirname "$0")/../..
cov=$root/build/cov
min=${COVERAGE_MIN:-90}
tool() {
    for t in "$@"; do
        command -v "$t" > /dev/null 2>&1 && { echo "$t"; return 0; }
    done
    return 1
}
profdata=${LLVM_PROFDATA:-$(tool llvm-profdata llvm-profdata-14)} ||
    { echo "coverage: llvm-profdata not found"; exit 1; }
llvmcov=${LLVM_COV:-$(tool llvm-cov llvm-cov-14)} || { echo "coverage: llvm-cov not found"; exit 1; }

rm -rf "$cov/prof"
mkdir -p "$cov/prof"
# %m: one file per binary, merged into by every process that runs it.
LLVM_PROFILE_FILE="$cov/prof/fuzz-%4m.profraw" FUZZ_REPLAY_DIR="$cov/bin" \
    FUZZ_SEEDS="$cov/seeds" sh "$root/tests/fuzz.sh" || echo "coverage: some replays failed (above)"
"$profdata" merge -sparse "$cov"/prof/*.profraw -o "$cov/all.profdata" || exit 1

set --
for b in "$cov"/bin/*; do
    if [ $# -eq 0 ]; then set -- "$b"; else set -- "$@" -object "$b"; fi
done
report=$cov/report.txt
(cd "$root" && "$llvmcov" report "$@" -instr-profile="$cov/all.profdata" \
    -ignore-filename-regex='(^|/)(tests|usr)/|src/main\.c$') > "$report" || exit 1
cat "$report"
total=$(awk '$1 == "TOTAL" { printf "%d %d\n", $8, $9 }' "$report")
# shellcheck disable=SC2086
set -- $total
if [ $# -ne 2 ] || [ "$1" -le 0 ]; then
    echo "coverage: no TOTAL line in the report"
    exit 1
fi
pct=$(awk -v l="$1" -v m="$2" 'BEGIN { printf "%.2f", 100 * (l - m) / l }')
echo "coverage: library lines $(( $1 - $2 )) of $1 covered: $pct% (minimum $min%)"
awk -v p="$pct" -v m="$min" 'BEGIN { exit !(p + 0 >= m + 0) }'
