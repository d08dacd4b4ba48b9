# Compares two CSV files (simple fields: no quotes) by column name: every
# column of the expected file (the first) must be in the second, with equal
# values, row by row. Prints the first differences and a count.
# Usage: awk -F, -f cmpcsv.awk EXPECTED GOT
BEGIN { OFS = "," }
FNR == 1 && NR == 1 { for (i = 1; i <= NF; i++) ecol[i] = $i; en = NF; next }
FNR == 1 { sub(/\r$/, ""); for (i = 1; i <= NF; i++) gcol[$i] = i;
           for (i = 1; i <= en; i++) if (!(ecol[i] in gcol)) { print "missing column " ecol[i]; bad++ }
           next }
NR == FNR { sub(/\r$/, ""); exp_row[FNR - 1] = $0; erows = FNR - 1; next }
{
    sub(/\r$/, "")
    grows = FNR - 1
    if (!((FNR - 1) in exp_row)) { if (extra++ < 3) print "extra row " FNR - 1 ": " $0; bad++; next }
    split(exp_row[FNR - 1], e, ",")
    for (i = 1; i <= en; i++) {
        g = $(gcol[ecol[i]])
        if (e[i] != g) {
            if (shown++ < 10) print "row " FNR - 1 " " ecol[i] ": got '" g "' want '" e[i] "'"
            bad++
        }
    }
}
END {
    if (grows < erows) { print "missing rows: got " grows " want " erows; bad++ }
    print (bad ? "DIFFER" : "SAME") " rows=" erows " differences=" bad + 0
    exit bad ? 1 : 0
}
