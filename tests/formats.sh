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
# CSV, JSON and XML (the XML's read by xmllint).
# A file's five views are run first, then checked together: one awk reads
# every CSV and JSON output, one jq the JSON, one xmllint validates the XML
# and one xmllint shell reads its rows, and one awk compares what they found
# (a process costs milliseconds here, and the views are many).
# Prints one line per failure, then "formats: N passed, M failed".
# Usage: tests/formats.sh ETLDUMP FILE...
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 ETLDUMP FILE..." >&2
    exit 2
fi
etldump=$1
shift
xsd=$(cd "$(dirname "$0")/../doc" 2>/dev/null && pwd)/etldump.xsd
export LC_ALL=C TZ=UTC
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "formats: FAIL: $*"; }
finish() {
    echo "formats: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
}

for tool in xmllint jq awk wc; do
    command -v "$tool" >/dev/null 2>&1 || { bad "$tool not found"; finish; }
done
[ -f "$xsd" ] || { bad "schema $xsd not found"; finish; }
[ -x "$etldump" ] || { bad "$etldump is not executable"; finish; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
d=$tmp/out
mkdir "$d" || exit 1
printf '<none/>\n' > "$d/none.xml"

# What one file's views wrote, read by one awk: the views file ("ID ELEM
# COL1 COL2 FILTER NAME...", FILTER a JSON key that the view's rows carry
# and its other lines lack, or -), the sizes of the CSV outputs (wc -c),
# then each view's ID.csv, ID.crlf.csv and ID.json. Prints "ID<TAB>WHAT<TAB>
# VALUE" lines: csv.recs (the number of records) or csv.err (the first
# violation), crlf.recs or crlf.err the same for the --crlf CSV; for every
# record after the header csv.set (the names of its columns that are not
# empty, apart by commas), csv.c1 and csv.c2 (the two columns' values);
# json.lines (the view's rows), json.empty (an empty line), and json.c1 and
# json.c2 (the two keys' values as written, "" where a line lacks the key).
# The rows of a view with a FILTER go to ID.jf for jq. The CSV reader is
# strict RFC 4180: quotes only at a field's start and doubled inside, one
# field count throughout, every record ended by LF (or CRLF in ID.crlf.csv),
# the last one too (its bytes counted against wc's size: awk cannot see a
# missing last line end).
cat > "$tmp/facts.awk" <<'EOF'
function fail(msg) {
    if (err == "")
        err = "line " FNR ": " msg
    skip = 1
}
function end_field() {
    fields[++nfields] = field
    field = ""
}
function end_record(    k, out) {
    nrec++
    if (nrec == 1) {
        width = nfields
    } else if (nfields != width) {
        fail("record " nrec " has " nfields " fields, the header " width)
        return
    }
    if (!crlf) {
        if (nrec == 1) {
            c1i = c2i = 0
            for (k = 1; k <= nfields; k++) {
                names[k] = fields[k]
                if (fields[k] == col1[id])
                    c1i = k
                if (fields[k] == col2[id])
                    c2i = k
            }
        } else {
            out = ""
            for (k = 1; k <= nfields; k++)
                if (fields[k] != "")
                    out = out (out == "" ? "" : ",") names[k]
            print id "\tcsv.set\t" out
            if (c1i)
                print id "\tcsv.c1\t" fields[c1i]
            if (c2i)
                print id "\tcsv.c2\t" fields[c2i]
        }
    }
    nfields = 0
}
# The value of key in a JSON line as written ("" where it is absent).
function jcol(s, key,    i, v) {
    i = index(s, "\"" key "\":")
    if (!i)
        return ""
    v = substr(s, i + length(key) + 3)
    if (substr(v, 1, 1) == "\"") {
        v = substr(v, 2)
        return substr(v, 1, index(v, "\"") - 1)
    }
    match(v, /^[^,}]*/)
    return substr(v, 1, RLENGTH)
}
function start(file) {
    cur = file
    seen[file] = 1
    id = file
    sub(/\..*/, "", id)
    mode = file ~ /\.json$/ ? "json" : "csv"
    crlf = file ~ /\.crlf\.csv$/
    nrec = nfields = inq = width = skip = bytes = lastcr = empty = 0
    field = err = ""
    filt = filter[id]
    jf = id ".jf"
}
function finish(    kind, msg) {
    if (cur == "")
        return
    if (mode == "json") {
        print id "\tjson.lines\t" nrec
        if (empty)
            print id "\tjson.empty\t1"
        if (filt != "-")
            close(jf)
        cur = ""
        return
    }
    kind = crlf ? "crlf" : "csv"
    msg = err
    if (msg == "" && inq)
        msg = "end of input inside a quoted field"
    if (msg == "" && (size[cur] + 0 == 0 || bytes != size[cur] + 0))
        msg = "the last record has no line end"
    if (msg == "" && !crlf && lastcr)
        msg = "the last record ends in CRLF"
    if (msg == "")
        print id "\t" kind ".recs\t" nrec
    else
        print id "\t" kind ".err\t" msg
    cur = ""
}
FILENAME == views {
    ids[++nv] = $1
    col1[$1] = $3
    col2[$1] = $4
    filter[$1] = $5
    next
}
FILENAME == sizes {
    size[$2] = $1
    next
}
FILENAME != cur {
    finish()
    start(FILENAME)
}
skip {
    next
}
mode == "json" {
    if (filt != "-") {
        if (!index($0, "\"" filt "\":"))
            next
        print > jf
    }
    nrec++
    if ($0 == "")
        empty = 1
    print id "\tjson.c1\t" jcol($0, col1[id])
    print id "\tjson.c2\t" jcol($0, col2[id])
    next
}
{
    bytes += length($0) + 1
    lastcr = substr($0, length($0), 1) == "\r"
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
                next
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
            if (substr(f, length(f), 1) != "\r") {
                fail("record not ended by CRLF")
                next
            }
            f = substr(f, 1, length(f) - 1)
        }
        if (index(f, "\"")) {
            fail("quote inside an unquoted field")
            next
        }
        if (index(f, "\r")) {
            fail("CR inside an unquoted field")
            next
        }
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
    finish()
    # A file that awk saw no line of is empty.
    for (i = 1; i <= nv; i++) {
        if (!((ids[i] ".csv") in seen))
            print ids[i] "\tcsv.err\tan empty file"
        if (!((ids[i] ".crlf.csv") in seen))
            print ids[i] "\tcrlf.err\tan empty file"
        if (!((ids[i] ".json") in seen))
            print ids[i] "\tjson.lines\t0"
    }
}
EOF

# What the helpers found, compared view by view: the views file, the facts
# above and jq's lines ("ID<TAB>json.set<TAB>SET" for each JSON line, or
# json.err), xmllint's validation messages ("ID.xml validates"), and the
# xmllint shell's output for each view: a marker "@ ID count" and the count
# of its row elements, then "@ ID c1" and "@ ID c2" and a node for each row
# (" COL=\"VALUE\"" or the row element itself where it lacks COL). Prints a
# line for each failed check, and "PASSED FAILED" into the file counts.
cat > "$tmp/check.awk" <<'EOF'
function bad(msg) {
    nfail++
    print "formats: FAIL: " name[id] ": " msg
}
function at(what, i) {
    return i <= cnt[id, what] ? seq[id, what, i] : "(none)"
}
# The first row where the lists a and b (and c, if given) differ; 0: none.
function differ(a, b, c,    i, n) {
    n = cnt[id, a]
    if (cnt[id, b] > n)
        n = cnt[id, b]
    if (c != "" && cnt[id, c] > n)
        n = cnt[id, c]
    for (i = 1; i <= n; i++)
        if (at(a, i) != at(b, i) || (c != "" && at(a, i) != at(c, i)))
            return i
    return cnt[id, a] == cnt[id, b] && (c == "" || cnt[id, a] == cnt[id, c]) ? 0 : n + 1
}
FILENAME == views {
    ids[++nv] = $1
    elem[$1] = $2
    col[$1, "c1"] = $3
    col[$1, "c2"] = $4
    s = $6
    for (k = 7; k <= NF; k++)
        s = s " " $k
    name[$1] = s
    next
}
FILENAME == facts || FILENAME == jqout {
    t = index($0, "\t")
    i = substr($0, 1, t - 1)
    rest = substr($0, t + 1)
    t = index(rest, "\t")
    what = substr(rest, 1, t - 1)
    v = substr(rest, t + 1)
    if (what ~ /^(csv|json)\.(set|c1|c2)$/)
        seq[i, what, ++cnt[i, what]] = v
    else
        fact[i, what] = v
    next
}
FILENAME == valerr {
    if ($0 ~ / validates$/) {
        f = $0
        sub(/ validates$/, "", f)
        valid[f] = 1
        next
    }
    f = $0
    sub(/[: ].*/, "", f)
    if (nerr[f]++ < 2)
        verr[f] = verr[f] (nerr[f] > 1 ? " " : "") $0
    next
}
FILENAME == xmlout {
    s = $0
    while (substr(s, 1, 4) == "/ > ")
        s = substr(s, 5)
    if (index(s, "Object is a string : @ ") == 1) {
        split(substr(s, 24), a, " ")
        xid = a[1]
        xwhat = a[2]
        entry = 0
        next
    }
    if (xwhat == "count") {
        if (index(s, "Object is a number : ") == 1)
            fact[xid, "xml.count"] = substr(s, 22)
        next
    }
    if (xwhat == "c1" || xwhat == "c2") {
        if (s == " -------") {
            entry = 1
            next
        }
        if (entry) {
            pre = " " col[xid, xwhat] "=\""
            v = index(s, pre) == 1 ? substr(s, length(pre) + 1, length(s) - length(pre) - 1) : ""
            seq[xid, "xml." xwhat, ++cnt[xid, "xml." xwhat]] = v
            entry = 0
        }
    }
    next
}
END {
    for (n = 1; n <= nv; n++) {
        id = ids[n]
        for (x = 1; x <= 2; x++) {
            f = id (x == 1 ? ".xml" : ".abs.xml")
            if (valid[f])
                npass++
            else
                bad((x == 1 ? "xml" : "abs.xml") " does not validate: " verr[f])
        }

        jl = fact[id, "json.lines"] + 0
        if (!((id, "json.err") in fact) && cnt[id, "json.set"] + 0 == jl && !((id, "json.empty") in fact))
            npass++
        else
            bad("JSON lines do not parse one object each: " fact[id, "json.err"] \
                " (" jl " lines, " (cnt[id, "json.set"] + 0) " objects" \
                (((id, "json.empty") in fact) ? ", an empty line" : "") ")")

        if ((id, "csv.recs") in fact) {
            npass++
            recs = fact[id, "csv.recs"] + 0
        } else {
            bad("CSV is not strict RFC 4180 with LF line ends: " fact[id, "csv.err"])
            recs = -1
        }
        if ((id, "crlf.recs") in fact && fact[id, "crlf.recs"] + 0 == recs)
            npass++
        else if ((id, "crlf.recs") in fact)
            bad("--crlf CSV has " fact[id, "crlf.recs"] " records, the CSV " recs)
        else
            bad("--crlf CSV is not strict RFC 4180 with CRLF line ends: " fact[id, "crlf.err"])

        if (recs == jl + 1)
            npass++
        else
            bad(recs " CSV records for " jl " JSON lines")
        if (fact[id, "xml.count"] == jl "")
            npass++
        else
            bad(fact[id, "xml.count"] " <" elem[id] "> elements for " jl " JSON lines")

        if (!(r = differ("csv.set", "json.set")))
            npass++
        else
            bad("the cells of a row differ between CSV and JSON: row " r ": " \
                at("csv.set", r) " / " at("json.set", r))

        for (c = 1; c <= 2; c++) {
            k = "c" c
            # Where JSON has no rows the XML's columns are not read.
            if (!jl)
                cnt[id, "xml." k] = 0
            if (!(r = differ("json." k, "csv." k, "xml." k)))
                npass++
            else
                bad("column " col[id, k] " differs between JSON, CSV and XML (row " r ": " \
                    at("json." k, r) " / " at("csv." k, r) " / " at("xml." k, r) ")")
        }
    }
    print npass + 0, nfail + 0 > counts
}
EOF

# Runs one view of file f in the six ways, checks their exit statuses and
# adds the view to the file's list (ID ELEM COL1 COL2 FILTER NAME).
run_view() {
    nv=$((nv + 1))
    id=v$nv label=$1 elem=$2 col1=$3 col2=$4 filter=$5
    shift 5
    name="${f##*/} $label"
    st=""
    for fmt in text csv xml json; do
        "$etldump" "$@" --format=$fmt "$f" > "$d/$id.$fmt" 2> "$d/$id.$fmt.err"
        st="$st $?"
    done
    "$etldump" "$@" --format=xml --time=abs "$f" > "$d/$id.abs.xml" 2>/dev/null
    st_abs=$?
    "$etldump" "$@" --format=csv --crlf "$f" > "$d/$id.crlf.csv" 2>/dev/null
    set -- $st
    if [ "$1" -le 1 ] && [ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$1" = "$4" ] &&
       [ "$1" = "$st_abs" ]; then
        ok
    else
        bad "$name: exit statuses (text csv xml json xml-abs):$st $st_abs: $(head -n 2 "$d/$id.csv.err" | tr '\n' ' ')"
    fi
    [ "$filter" = - ] || : > "$d/$id.jf"
    echo "$id $elem $col1 $col2 $filter $name" >> "$d/views"
    csvs="$csvs $id.csv $id.crlf.csv"
    inputs="$inputs $id.csv $id.crlf.csv $id.json"
    if [ "$filter" = - ]; then jsons="$jsons $id.json"; else jsons="$jsons $id.jf"; fi
    xmls="$xmls $id.xml $id.abs.xml"
    printf 'load none.xml\nload %s.xml\nxpath "@ %s count"\nxpath count(/etldump/file/%s)\n' \
        "$id" "$id" "$elem" >> "$d/xml.cmds"
    for c in 1 2; do
        eval col=\$col$c
        printf 'xpath "@ %s c%s"\ncat /etldump/file/%s/@%s | /etldump/file/%s[not(@%s)]\n' \
            "$id" "$c" "$elem" "$col" "$elem" "$col" >> "$d/xml.cmds"
    done
}

# One JSON line's object: "ID<TAB>json.set<TAB>" and the keys whose values are
# not empty.
jqprog='(input_filename | split(".")[0]) as $id |
    if type == "object" then
        "\($id)\tjson.set\t" + ([to_entries[] | select(.value != "" and .value != null) | .key] | join(","))
    else error("not an object") end'

# Checks what the views of f wrote (see facts.awk and check.awk).
check_views() {
    (cd "$d" && wc -c $csvs) > "$d/sizes" 2>/dev/null
    (cd "$d" && awk -v views=views -v sizes=sizes -f "$tmp/facts.awk" views sizes $inputs) > "$d/facts"
    # jq 1.6 can exit 0 after an error on a line before the last: what it
    # writes on standard error counts too.
    if ! (cd "$d" && jq -r "$jqprog" $jsons) > "$d/jq.out" 2> "$d/jq.err" || [ -s "$d/jq.err" ]; then
        # A JSON error can stop jq: each file on its own, to say which.
        : > "$d/jq.out"
        for j in $jsons; do
            if ! (cd "$d" && jq -r "$jqprog" "$j") >> "$d/jq.out" 2> "$d/jq.err" || [ -s "$d/jq.err" ]; then
                read -r msg < "$d/jq.err" || msg="jq failed"
                printf '%s\tjson.err\t%s\n' "${j%%.*}" "$msg" >> "$d/jq.out"
            fi
        done
    fi
    (cd "$d" && xmllint --noout --schema "$xsd" $xmls) > /dev/null 2> "$d/val.err"
    (cd "$d" && xmllint --shell none.xml < xml.cmds) > "$d/xml.out" 2>/dev/null
    (cd "$d" && awk -v views=views -v facts=facts -v jqout=jq.out -v valerr=val.err \
         -v xmlout=xml.out -v counts=counts -f "$tmp/check.awk" views facts jq.out val.err xml.out)
    read -r p n < "$d/counts" || { p=0 n=0; bad "${f##*/}: the checks of its views did not run"; }
    pass=$((pass + p)) fail=$((fail + n))
}

first=""
for f in "$@"; do
    if [ ! -f "$f" ]; then
        echo "formats: skipped $f: no such file"
        continue
    fi
    [ -n "$first" ] || first=$f
    nv=0 csvs="" inputs="" jsons="" xmls=""
    : > "$d/views"
    : > "$d/xml.cmds"
    rm -f "$d/counts"
    run_view switches switch timestamp cpu -
    run_view events event timestamp event_offset - --events=all
    run_view summary summary scope cpu_time scope --summary
    run_view stats stat count first - --stats
    run_view info trace build start_filetime os_version --info
    check_views
done

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
