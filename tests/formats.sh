#!/bin/sh
# The four output formats agree with each other and with their standards.
# For every file and view (switches, --events=all, --summary, --stats, --info) it runs
# text, csv, xml and json and checks: every run exits 0 or 1 and all formats
# alike; the XML validates against doc/etldump.xsd (also with --time=abs);
# every JSON line is one JSON object (jq); the CSV is strict RFC 4180 (quotes
# only at field start and doubled inside, LF line ends (CRLF with --crlf),
# one field count throughout);
# CSV records = JSON lines + 1 header = XML row elements + 1; every row
# carries the same cells in CSV and JSON (its non-empty columns, its keys
# with non-empty values); and two columns per view hold the same values in
# CSV, JSON and XML.
# Prints one line per failure, then "formats: N passed, M failed".
# Usage: tests/formats.sh ETLDUMP FILE...
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 ETLDUMP FILE..." >&2
    exit 2
fi
etldump=$1
shift
xsd=$(dirname "$0")/../doc/etldump.xsd
export LC_ALL=C TZ=UTC
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "formats: FAIL: $*"; }
finish() {
    echo "formats: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
}

for tool in xmllint jq awk od; do
    command -v "$tool" >/dev/null 2>&1 || { bad "$tool not found"; finish; }
done
[ -f "$xsd" ] || { bad "schema $xsd not found"; finish; }
[ -x "$etldump" ] || { bad "$etldump is not executable"; finish; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# Strict RFC 4180 reader. Without col: prints the number of records. With
# col=NAME: prints that column of every record after the header, one a line.
# With set=1: prints, for every record after the header, the names of its
# columns that are not empty, apart by commas.
# With crlf=1 records end in CRLF, else in LF. Complains on stderr and exits
# 1 at the first violation. (The caller checks that the input ends in a line
# end: awk cannot see a missing last newline.)
cat > "$tmp/csv.awk" <<'EOF'
function fail(msg) {
    printf "line %d: %s\n", NR, msg > "/dev/stderr"
    err = 1
    exit 1
}
function end_field() {
    fields[++nfields] = field
    field = ""
}
function end_record(    k) {
    nrec++
    if (nrec == 1)
        width = nfields
    else if (nfields != width)
        fail("record " nrec " has " nfields " fields, the header " width)
    if (col != "") {
        if (nrec == 1) {
            for (k = 1; k <= nfields; k++)
                if (fields[k] == col)
                    colidx = k
            if (!colidx)
                fail("no column " col)
        } else {
            print fields[colidx]
        }
    }
    if (set) {
        if (nrec == 1) {
            for (k = 1; k <= nfields; k++)
                names[k] = fields[k]
        } else {
            out = ""
            for (k = 1; k <= nfields; k++)
                if (fields[k] != "")
                    out = out (out == "" ? "" : ",") names[k]
            print out
        }
    }
    nfields = 0
}
{
    line = $0
    n = length(line)
    pos = 1
    for (;;) {
        if (inq) {
            rest = substr(line, pos)
            q = index(rest, "\"")
            if (q == 0) {                       # the field goes on past LF
                field = field rest "\n"
                next
            }
            field = field substr(rest, 1, q - 1)
            pos += q
            if (substr(line, pos, 1) == "\"") { # doubled quote
                field = field "\""
                pos++
                continue
            }
            inq = 0
            c = substr(line, pos, 1)
            if (c == ",") {
                end_field()
                pos++
            } else if ((crlf && c == "\r" && pos == n) || (!crlf && pos == n + 1)) {
                end_field()
                end_record()
                next
            } else {
                fail("text after a closing quote")
            }
        }
        if (substr(line, pos, 1) == "\"") {
            inq = 1
            pos++
            continue
        }
        rest = substr(line, pos)
        c = index(rest, ",")
        f = c ? substr(rest, 1, c - 1) : rest
        if (!c && crlf) {
            if (substr(f, length(f), 1) != "\r")
                fail("record not ended by CRLF")
            f = substr(f, 1, length(f) - 1)
        }
        if (index(f, "\""))
            fail("quote inside an unquoted field")
        if (index(f, "\r"))
            fail("CR inside an unquoted field")
        field = f
        end_field()
        if (!c) {
            end_record()
            next
        }
        pos += c
    }
}
END {
    if (err)
        exit 1
    if (inq)
        fail("end of input inside a quoted field")
    if (col == "" && !set)
        print nrec
}
EOF

# Prints the value of key in each JSON line ("" where the key is absent).
# Values are numbers or strings without escapes; a key cannot match inside
# a string value, where its quotes would be escaped.
json_col() {
    awk -v key="\"$1\":" '{
        i = index($0, key)
        if (!i) { print ""; next }
        v = substr($0, i + length(key))
        if (substr(v, 1, 1) == "\"") {
            v = substr(v, 2)
            print substr(v, 1, index(v, "\"") - 1)
        } else {
            match(v, /^[^,}]*/)
            print substr(v, 1, RLENGTH)
        }
    }' "$2"
}

# Prints attribute attr of every <elem> in document order ("" where absent).
xml_col() {
    xmllint --xpath "/etldump/file/$1/@$2 | /etldump/file/$1[not(@$2)]" "$3" 2>/dev/null |
        awk -v pre=" $2=\"" '{
            if (index($0, pre) == 1) {
                v = substr($0, length(pre) + 1)
                print substr(v, 1, length(v) - 1)
            } else {
                print ""
            }
        }'
}

# Checks one file in one view; $1 file, $2 label, $3 row element, $4 $5 the
# columns compared, then etldump's view options.
check_view() {
    f=$1 label=$2 elem=$3 col1=$4 col2=$5
    shift 5
    name="$(basename "$f") $label"
    o=$tmp/out
    st=""
    for fmt in text csv xml json; do
        "$etldump" "$@" --format=$fmt "$f" > "$o.$fmt" 2> "$o.$fmt.err"
        st="$st $?"
    done
    "$etldump" "$@" --format=xml --time=abs "$f" > "$o.abs.xml" 2>/dev/null
    st_abs=$?
    "$etldump" "$@" --format=csv --crlf "$f" > "$o.crlf.csv" 2>/dev/null
    # --info: the JSON lines of the group-mask table that follows the trace
    # row (they have no os_version) are not rows of the view's table.
    if [ "$elem" = trace ]; then
        grep '"os_version":' "$o.json" > "$o.json.t"
        mv "$o.json.t" "$o.json"
    fi
    # --summary: likewise the DPC/ISR routines table after the summary rows.
    if [ "$elem" = summary ]; then
        grep '"scope":' "$o.json" > "$o.json.t"
        mv "$o.json.t" "$o.json"
    fi

    set -- $st
    if [ "$1" -le 1 ] && [ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$1" = "$4" ] &&
       [ "$1" = "$st_abs" ]; then
        ok
    else
        bad "$name: exit statuses (text csv xml json xml-abs):$st $st_abs: $(head -n 2 "$o.csv.err" | tr '\n' ' ')"
    fi

    # XML: valid against the schema, in both time modes.
    for x in xml abs.xml; do
        if xmllint --noout --schema "$xsd" "$o.$x" > "$tmp/xmllint.err" 2>&1; then
            ok
        else
            bad "$name: $x does not validate: $(grep -v validates "$tmp/xmllint.err" | head -n 2 | tr '\n' ' ')"
        fi
    done
    xml_rows=$(xmllint --xpath "count(/etldump/file/$elem)" "$o.xml" 2>/dev/null)

    # JSON: each line one object.
    json_lines=$(wc -l < "$o.json" | tr -d ' ')
    if jq -c 'if type == "object" then . else error("not an object") end' "$o.json" \
           > "$tmp/jq.out" 2> "$tmp/jq.err" &&
       [ "$(wc -l < "$tmp/jq.out" | tr -d ' ')" = "$json_lines" ] &&
       ! grep -q '^$' "$o.json"; then
        ok
    else
        bad "$name: JSON lines do not parse one object each: $(head -n 2 "$tmp/jq.err" | tr '\n' ' ')"
    fi

    # CSV: strict, ends in LF; with --crlf, in CRLF (and else the same).
    end=$(tail -c 2 "$o.csv" | od -An -tx1 | tr -d ' \n')
    if csv_recs=$(awk -v crlf=0 -f "$tmp/csv.awk" "$o.csv" 2> "$tmp/csv.err") &&
       [ "${end#??}" = 0a ] && [ "$end" != 0d0a ]; then
        ok
    else
        bad "$name: CSV is not strict RFC 4180 with LF line ends: $(head -n 1 "$tmp/csv.err")${end:+ (ends in $end)}"
        csv_recs=-1
    fi
    end=$(tail -c 2 "$o.crlf.csv" | od -An -tx1 | tr -d ' \n')
    if crlf_recs=$(awk -v crlf=1 -f "$tmp/csv.awk" "$o.crlf.csv" 2> "$tmp/csv.err") &&
       [ "$end" = 0d0a ] && [ "$crlf_recs" = "$csv_recs" ]; then
        ok
    else
        bad "$name: --crlf CSV is not strict RFC 4180 with CRLF line ends: $(head -n 1 "$tmp/csv.err")${end:+ (ends in $end)}"
    fi

    # Counts.
    if [ "$csv_recs" = $((json_lines + 1)) ]; then
        ok
    else
        bad "$name: $csv_recs CSV records for $json_lines JSON lines"
    fi
    if [ "$xml_rows" = "$json_lines" ]; then
        ok
    else
        bad "$name: $xml_rows <$elem> elements for $json_lines JSON lines"
    fi

    # The cells each row carries: the CSV's non-empty columns are the JSON
    # object's keys whose values are not empty (a view may put its CSV
    # cells one way and its JSON cells another).
    awk -v set=1 -v crlf=0 -f "$tmp/csv.awk" "$o.csv" > "$tmp/set.csv" 2>/dev/null
    jq -r '[to_entries[] | select(.value != "" and .value != null) | .key] | join(",")' \
        "$o.json" > "$tmp/set.json" 2>/dev/null
    if cmp -s "$tmp/set.csv" "$tmp/set.json"; then
        ok
    else
        bad "$name: the cells of a row differ between CSV and JSON:" \
            "$(diff "$tmp/set.csv" "$tmp/set.json" | sed -n 2,3p | tr '\n' ' ')"
    fi

    # Values.
    for col in $col1 $col2; do
        json_col "$col" "$o.json" > "$tmp/v.json"
        awk -v col="$col" -v crlf=0 -f "$tmp/csv.awk" "$o.csv" > "$tmp/v.csv" 2>/dev/null
        if [ "$json_lines" -gt 0 ]; then
            xml_col "$elem" "$col" "$o.xml" > "$tmp/v.xml"
        else
            : > "$tmp/v.xml"
        fi
        if cmp -s "$tmp/v.json" "$tmp/v.csv" && cmp -s "$tmp/v.json" "$tmp/v.xml"; then
            ok
        else
            bad "$name: column $col differs between JSON, CSV and XML" \
                "(first lines: $(head -n 1 "$tmp/v.json") / $(head -n 1 "$tmp/v.csv") / $(head -n 1 "$tmp/v.xml"))"
        fi
    done
}

first=""
for f in "$@"; do
    if [ ! -f "$f" ]; then
        echo "formats: skipped $f: no such file"
        continue
    fi
    [ -n "$first" ] || first=$f
    check_view "$f" switches switch timestamp cpu
    check_view "$f" events event timestamp event_offset --events=all
    check_view "$f" summary summary scope cpu_time --summary
    check_view "$f" stats stat count first --stats
    check_view "$f" info trace build start_filetime --info
done

# An input that cannot be opened: still one complete, valid document.
if [ -n "$first" ]; then
    "$etldump" --format=xml --stats "$first" "$tmp/no-such.etl" > "$tmp/missing.xml" 2>/dev/null
    rc=$?
    files=$(xmllint --xpath 'count(/etldump/file)' "$tmp/missing.xml" 2>/dev/null)
    problems=$(xmllint --xpath 'count(/etldump/file[2]/problem)' "$tmp/missing.xml" 2>/dev/null)
    if [ "$rc" -eq 3 ] && [ "$files" = 2 ] && [ "$problems" = 1 ] &&
       xmllint --noout --schema "$xsd" "$tmp/missing.xml" 2>/dev/null; then
        ok
    else
        bad "missing input: exit $rc, $files <file> elements, ${problems:-?} problems, or the document does not validate"
    fi
else
    echo "formats: no input files"
fi

finish
