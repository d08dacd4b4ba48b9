#!/bin/sh
# Hostile input: every sample (samples/*.etl, the real traces in
# ../shared/samples/real when present, a few traces made by build/mktrace)
# cut at many offsets (every buffer boundary and the bytes either side of it,
# inside buffer and record headers, ~20 more per file), and mutants with
# damaged buffer and trace header fields (build/mutate, tests/fuzz/mutate.c),
# each run through three of the 20 views and formats of combo() below
# (one when built with AddressSanitizer), which rotate from one input to
# the next so that every view and format meets every kind of damage (XML
# and SVG outputs checked for well-formedness by libxml2, as xmllint
# --noout would, through one build/xmlwf for each worker; -f svg writes
# nothing for an input it cannot read); with HOSTILE_LONG=1 every input
# runs through all of them.
# Every run must end within 10 s (build/alarm.so, preloaded, ends it by
# SIGALRM after that; timeout(1) where that preload does not work) with
# exit status 0, 1 or 3; with 1 or 3,
# the first message on standard error that is not a warning or a note must
# start with "etldump: FILE: offset 0x...:", and with 0 it must hold nothing
# but warnings and notes ("etldump: FILE: warning: ..."). Truncations of
# files over 256 KiB run --events=all alone; mutants of them are made from
# the first buffer and a run of whole buffers, 256 KiB at most.
# Usage: tests/hostile.sh ETLDUMP
# Environment: HOSTILE_MUTANTS (mutants per file, default 40),
# HOSTILE_OFFSETS (random truncation offsets per file, default 20),
# HOSTILE_JOBS (parallel workers, default 2), HOSTILE_KEEP (a directory where
# failing inputs are kept, default build/hostile-failures), HOSTILE_VIEWS
# (views and formats per input, 1 to 20, default 3; 1 when etldump is built
# with AddressSanitizer, where a run costs ten times as much: the views
# still rotate, each meeting every kind of damage), HOSTILE_FILES (the
# inputs, paths apart by spaces, instead of the usual ones), HOSTILE_LONG=1
# (every view and format for every input), HOSTILE_LEAKS_EVERY (built with
# AddressSanitizer: the leak check at exit in one run of this many, default
# 4, 1 for every run; it costs 34 of a run's 76 ms here, and the runs
# rotate through the views, so that every view is checked for leaks on
# every kind of damage; memory errors are caught in every run); MUTATE,
# XMLWF, MKTRACE and ALARM_SO (the test programs used, default those in
# build/).
set -u
etldump=$1
here=$(dirname "$0")
root=$here/..
mutate=${MUTATE:-$root/build/mutate}
xmlwf=${XMLWF:-$root/build/xmlwf}
mktrace=${MKTRACE:-$root/build/mktrace}
shared=${ETLDUMP_SHARED:-$root/../shared}
nmut=${HOSTILE_MUTANTS:-40}
noff=${HOSTILE_OFFSETS:-20}
jobs=${HOSTILE_JOBS:-2}
keep=${HOSTILE_KEEP:-$root/build/hostile-failures}
long=${HOSTILE_LONG:-0}
leaks_every=${HOSTILE_LEAKS_EVERY:-4}
case $leaks_every in ''|*[!0-9]*|0) leaks_every=4 ;; esac
# Built with a sanitizer, a run that trips it exits 86: its default status
# is 1, which a damaged input also gives, and its report would have passed
# for the messages after the first. ASAN_OPTIONS is set for each run (what
# it held, then detect_leaks and exitcode): the leak check is chosen run by
# run.
asan=
asan_options=${ASAN_OPTIONS:-}
nm "$etldump" 2>/dev/null | grep -q '__asan_init' && asan=yes
# An AddressSanitizer run takes ~26 ms (~33 with the leak check, the
# program's own globals left out of it: tests/mem/lsan.c) where the gcc
# build's takes ~4-6: one view per input there (the gcc build's sweep runs
# three).
views_default=3
[ -n "$asan" ] && views_default=1
nviews=${HOSTILE_VIEWS:-$views_default}
case $nviews in ''|*[!0-9]*) nviews=$views_default ;; esac
[ "$nviews" -ge 1 ] || nviews=1
[ "$nviews" -le 20 ] || nviews=20
if nm "$etldump" 2>/dev/null | grep -q '__ubsan_handle'; then
    UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86"
    export UBSAN_OPTIONS
fi
export LC_ALL=C TZ=UTC

# The views and formats, one run each: combo N sets the arguments of run N
# (from 1). The XML and SVG outputs are checked by build/xmlwf. The first is
# the only run for truncations of big files.
ncombos=20

if [ ! -x "$mutate" ]; then
    echo "hostile: FAIL: $mutate not built (make build/mutate)"
    echo "hostile: 0 passed, 1 failed"
    exit 1
fi
xml=yes
if [ ! -x "$xmlwf" ] && ! command -v xmllint > /dev/null 2>&1; then
    echo "hostile: neither $xmlwf nor xmllint found: XML output is not checked for well-formedness"
    xml=no
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
start=$(date +%s)

# A run's time limit: build/alarm.so preloaded, which costs no process, if
# it ends an etldump that waits for input that never comes (its standard
# input a FIFO it holds open itself) with SIGALRM; else timeout(1).
alarm=${ALARM_SO:-$root/build/alarm.so}
case $alarm in /*) ;; *) alarm=$(pwd)/$alarm ;; esac
limit="timeout(1)"
if [ -f "$alarm" ] && mkfifo "$tmp/never"; then
    timeout 20 env ALARM_SECONDS=1 LD_PRELOAD="$alarm${LD_PRELOAD:+ $LD_PRELOAD}" \
        "$etldump" --stats - <> "$tmp/never" > /dev/null 2>&1
    st=$?
    if [ "$st" -eq 142 ]; then
        limit=$alarm
    else
        echo "hostile: $alarm did not end a waiting run (exit $st): runs go through timeout(1)"
    fi
    rm -f "$tmp/never"
fi

# Built with AddressSanitizer, the sweep first shows that it fails the runs
# of an etldump that leaks (build/tests/etldump-leak, built the same way,
# which loses a block before main): on one small trace, every run checked
# for leaks, every input must fail with the sanitizer's report.
self_pass=0 self_fail=0
if [ -n "$asan" ] && [ -z "${HOSTILE_SELF:-}" ]; then
    leaky=$root/build/tests/etldump-leak
    small=$tmp/small.etl
    "$mktrace" --quiet --encoding=compact --cpus=1 --switches=30 --buffer-size=1024 --seed=1 \
        "$small" - 2> /dev/null || small=$root/samples/demo-compact.etl
    if nm "$leaky" 2>/dev/null | grep -q '__asan_init'; then
        HOSTILE_SELF=1 HOSTILE_FILES=$small HOSTILE_MUTANTS=1 \
            HOSTILE_OFFSETS=1 HOSTILE_LEAKS_EVERY=1 HOSTILE_KEEP=$tmp/self-keep \
            sh "$0" "$leaky" > "$tmp/self.log" 2>&1
        st=$?
        last=$(tail -n 1 "$tmp/self.log")
        if [ "$st" -ne 0 ] && grep -q "a sanitizer's report: .*LeakSanitizer" "$tmp/self.log" &&
           [ "${last#hostile: 0 passed, }" != "$last" ] && [ "$last" != "hostile: 0 passed, 0 failed" ]; then
            self_pass=1
            echo "hostile: a leaking etldump fails every run (${last#hostile: })"
        else
            self_fail=1
            echo "hostile: FAIL: a leaking etldump is not failed by the sweep (exit $st): $last"
            sed -n '1,5p' "$tmp/self.log"
        fi
    else
        self_fail=1
        echo "hostile: FAIL: $leaky is not built with AddressSanitizer as $etldump is"
    fi
fi

# The inputs: HOSTILE_FILES (paths apart by spaces), or the bundled samples,
# the real traces in place and a few generated ones.
: > "$tmp/files"
if [ -n "${HOSTILE_FILES:-}" ]; then
    for f in $HOSTILE_FILES; do
        [ -f "$f" ] && echo "$f" >> "$tmp/files"
    done
else
    for f in "$root"/samples/*.etl "$shared"/samples/real/*.etl; do
        [ -f "$f" ] && echo "$f" >> "$tmp/files"
    done
fi
if [ -x "$mktrace" ] && [ -z "${HOSTILE_FILES:-}" ]; then
    mkdir -p "$tmp/gen"
    g() { name=$1; shift; "$mktrace" --quiet "$@" "$tmp/gen/$name.etl" - 2> /dev/null &&
          echo "$tmp/gen/$name.etl" >> "$tmp/files"; }
    g compact --encoding=compact --cpus=2 --switches=150 --buffer-size=2048 --seed=201
    g cswitch-pmc-pebs-ptr4 --encoding=cswitch --pmc=3 --pebs --ptr=4 --cpus=2 --switches=80 --buffer-size=2048 --seed=202
    g mixed-compressed-circular --encoding=mixed --compress --circular --cpus=3 --switches=400 --buffer-size=2048 --seed=203
    g compact-lost-win7 --encoding=compact --lost-cpu=1 --build=7601 --max-wait-reason=0x25 --cpus=2 --switches=300 --buffer-size=1536 --seed=204
fi

# One worker: runs jobs (lines "trunc FILE" or "flip FILE") k, k+jobs, ...
# of $tmp/jobs, counting into $tmp/wK.pass and $tmp/wK.fail.
worker() {
    k=$1
    w=$tmp/w$k
    mkdir -p "$w/m"
    pass=0 fail=0 ntrunc=0 nmutants=0
    : > "$w.log"

    bad() {
        fail=$((fail + 1))
        echo "hostile: FAIL: $*" >> "$w.log"
        mkdir -p "$keep" 2> /dev/null && cp "$cur" "$keep/$(basename "$src" .etl)-$label.etl" 2> /dev/null
    }

    # first_message [nonempty]: the first line of $w/err that is not a
    # warning or a note (with "nonempty", nor empty), into $line; false when
    # there is none. Read by the shell itself: the runs are many, and a
    # process each costs.
    first_message() {
        line=
        while IFS= read -r l; do
            case $l in
            "etldump: $cur: warning: "*|"etldump: $cur: note: "*) ;;
            "") [ "${1:-}" = nonempty ] || { line=; return 0; } ;;
            *) line=$l; return 0 ;;
            esac
        done < "$w/err"
        return 1
    }

    # run ARGS...: one etldump run on $cur.
    nrun=0
    run() {
        nrun=$((nrun + 1))
        if [ -n "$asan" ]; then
            # One run of leaks_every, shifted by one every ncombos runs: the
            # views rotate by one a run, and a plain modulus would check
            # the same few views each time.
            leaks=0
            [ $(((nrun + nrun / ncombos) % leaks_every)) -eq 0 ] && leaks=1
            ASAN_OPTIONS="${asan_options:+$asan_options:}detect_leaks=$leaks:exitcode=86"
            export ASAN_OPTIONS
        fi
        if [ "$limit" = "timeout(1)" ]; then
            timeout 10 "$etldump" "$@" "$cur" > "$w/out" 2> "$w/err" 3>&- 4<&-
        else
            ALARM_SECONDS=10 LD_PRELOAD="$limit${LD_PRELOAD:+ $LD_PRELOAD}" \
                "$etldump" "$@" "$cur" > "$w/out" 2> "$w/err" 3>&- 4<&-
        fi
        rc=$?
        case $rc in
        0)
            # Warnings and notes ("etldump: FILE: warning: ...") leave the
            # status at 0.
            if first_message nonempty; then
                bad "$src $label ($*): exit 0 with messages: $line"
                return 1
            fi ;;
        1|3)
            # The first message that is not a warning or a note.
            first_message
            case $line in
            "etldump: $cur: offset 0x"[0-9a-f]*": "?*) ;;
            *)
                bad "$src $label ($*): exit $rc without 'etldump: FILE: offset 0x...:' first: $line"
                return 1 ;;
            esac ;;
        124|137|142)
            bad "$src $label ($*): no result within 10 s"
            return 1 ;;
        86)
            bad "$src $label ($*): a sanitizer's report: $(grep -m 1 -E 'ERROR|runtime error' "$w/err")"
            return 1 ;;
        *)
            bad "$src $label ($*): exit status $rc: $(tail -n 2 "$w/err")"
            return 1 ;;
        esac
        return 0
    }

    # well_formed FILE: whether FILE is well-formed XML, asked of this
    # worker's build/xmlwf through a pipe (one process for all its checks),
    # or of xmllint when xmlwf is not built; the reason in $why.
    why=
    if [ "$xml" = yes ] && [ -x "$xmlwf" ]; then
        rm -f "$w.q" "$w.a"
        mkfifo "$w.q" "$w.a"
        "$xmlwf" < "$w.q" > "$w.a" &
        exec 3> "$w.q" 4< "$w.a"
    fi
    well_formed() {
        if [ -x "$xmlwf" ]; then
            echo "$1" >&3
            IFS= read -r why <&4 || { why="$xmlwf ended"; return 1; }
            [ "$why" = ok ] && return 0
            why=${why#bad }
            return 1
        fi
        xmllint --noout --huge "$1" 2> "$w/xerr" && return 0
        why=$(head -n 1 "$w/xerr")
        return 1
    }

    # combo N: run number N of the list on $cur.
    combo() {
        case $1 in
        1) set -- --events=all -f csv ;;
        2) set -- ;;
        3) set -- -f xml --time=abs ;;
        4) set -- --events=all -f json --time=raw ;;
        5) set -- --stats ;;
        6) set -- --info -f xml ;;
        7) set -- --summary -f csv ;;
        8) set -- --summary=routines -f json ;;
        9) set -- --usage ;;
        10) set -- --usage=20ms -f xml --time=abs ;;
        11) set -- -f perfetto ;;
        12) set -- -f svg ;;
        13) set -- --usage -f svg ;;
        14) set -- --events=all -f text --no-header --time=local ;;
        15) set -- --stats -f json --time=abs ;;
        16) set -- --info -f csv ;;
        17) set -- -f json --crlf -H ;;
        18) set -- --summary -f xml --time=raw ;;
        19) set -- --usage=10ms -f csv ;;
        *) set -- --summary -f text ;;
        esac
        run "$@" || return 1
        case " $* " in
        *" xml "*|*" svg "*)
            # The outputs that are not tables write nothing for an input
            # that cannot be read.
            if [ "$rc" -eq 3 ] && [ ! -s "$w/out" ] && case " $* " in *" svg "*) true ;; *) false ;; esac; then
                return 0
            fi
            if [ "$xml" = yes ] && ! well_formed "$w/out"; then
                bad "$src $label ($*): not well-formed: $why"
                return 1
            fi ;;
        esac
        return 0
    }

    # all VIEWS: the runs for one input ("events" alone for big truncations):
    # nviews combos, rotating with the input's number n, or all of them.
    n=0
    all() {
        n=$((n + 1))
        if [ "$1" = events ]; then
            combo 1 && pass=$((pass + 1))
            return
        fi
        if [ "$long" = 1 ]; then
            c=1
            while [ "$c" -le "$ncombos" ]; do
                combo "$c" || return
                c=$((c + 1))
            done
        else
            j=0
            while [ "$j" -lt "$nviews" ]; do
                combo $(( (nviews * n + j + k) % ncombos + 1 )) || return
                j=$((j + 1))
            done
        fi
        pass=$((pass + 1))
    }

    i=0
    while read -r kind src; do
        i=$((i + 1))
        [ $(( (i - 1) % jobs )) -eq "$k" ] || continue
        size=$(wc -c < "$src")
        case $kind in
        trunc)
            # Cut from the end backwards: one copy, truncated step by step.
            views=all
            [ "$size" -gt 262144 ] && views=events
            cur=$w/t.etl
            cp "$src" "$cur"
            # A writer that fails must not leave the sweep without its runs.
            if ! "$mutate" offsets "$src" "$noff" > "$w/offsets" || [ ! -s "$w/offsets" ]; then
                label=offsets
                bad "$src: $mutate offsets gave no offsets"
                continue
            fi
            while read -r off; do
                truncate -s "$off" "$cur"
                label=trunc-$off
                ntrunc=$((ntrunc + 1))
                all $views
            done < "$w/offsets" ;;
        flip)
            rm -f "$w"/m/*
            if ! "$mutate" flip "$src" "$w/m" 1 "$nmut" 262144 > "$w/what"; then
                cur=$src label=flip
                bad "$src: $mutate flip failed"
                continue
            fi
            s=1
            while [ "$s" -le "$nmut" ]; do
                cur=$w/m/m-$s.etl
                label=m-$s
                nmutants=$((nmutants + 1))
                if [ ! -f "$cur" ]; then
                    bad "$src: $mutate flip wrote no $cur"
                    s=$((s + 1))
                    continue
                fi
                before=$fail
                all all
                if [ "$fail" -ne "$before" ]; then
                    grep "^m-$s.etl:" "$w/what" | sed 's/^/hostile:   mutation /' >> "$w.log"
                    echo "hostile:   reproduce: build/mutate one $src OUT $s 262144" >> "$w.log"
                fi
                rm -f "$cur"
                s=$((s + 1))
            done ;;
        esac
    done < "$tmp/jobs"
    if [ "$xml" = yes ] && [ -x "$xmlwf" ]; then
        exec 3>&- 4<&-
        wait
    fi
    echo "$pass $fail $ntrunc $nmutants" > "$w.count"
}

: > "$tmp/jobs"
while read -r f; do
    echo "trunc $f" >> "$tmp/jobs"
    echo "flip $f" >> "$tmp/jobs"
done < "$tmp/files"

k=0
while [ "$k" -lt "$jobs" ]; do
    worker "$k" &
    k=$((k + 1))
done
wait

pass=$self_pass fail=$self_fail ntrunc=0 nmutants=0
k=0
while [ "$k" -lt "$jobs" ]; do
    sed -n '1,30p' "$tmp/w$k.log"
    if [ -f "$tmp/w$k.count" ]; then
        read -r p f t m < "$tmp/w$k.count"
        pass=$((pass + p)); fail=$((fail + f))
        ntrunc=$((ntrunc + t)); nmutants=$((nmutants + m))
    else
        fail=$((fail + 1)); echo "hostile: FAIL: worker $k did not finish"
    fi
    k=$((k + 1))
done
nfiles=$(wc -l < "$tmp/files")
if [ "$long" = 1 ]; then runs="$ncombos runs each"; else runs="$nviews of $ncombos views and formats each, rotating"; fi
[ -n "$asan" ] && runs="$runs, leaks checked in 1 run of $leaks_every"
echo "hostile: $nfiles files, $ntrunc truncations, $nmutants mutants, $runs (1 for truncations of big files), each limited by ${limit##*/}, $(( $(date +%s) - start )) s"
[ "$fail" -gt 0 ] && echo "hostile: failing inputs kept in $keep"
echo "hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
