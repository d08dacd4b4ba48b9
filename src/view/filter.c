/*
 * filter.c - parsing and testing the row filters (see filter.h).
 */
#include "view/filter.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmt.h"

/* Bytes of seconds(): etl_fmt_seconds's sign, digits, point and nine
 * decimals, and the terminator. */
#define SECONDS_MAX (1 + ETL_FMT_NUM_MAX + 1 + 9 + 1)

/* Parses an unsigned number (decimal or 0x hex) up to max at *s, advancing
 * *s past it; false when there is none or it is too large. */
static bool parse_num(const char **s, uint32_t max, uint32_t *out)
{
    uint64_t v;
    const char *end;
    if (!etl_parse_u64(*s, &v, &end) || v > max)
        return false;
    *out = (uint32_t)v;
    *s = end;
    return true;
}

/* Adds a LIST ("1,4-7,0x10") to l; false when malformed or out of memory
 * (*nomem). */
static bool parse_list(struct etl_id_list *l, const char *arg, uint32_t max, bool *nomem)
{
    const char *s = arg;
    for (;;) {
        struct etl_id_range r;
        if (!parse_num(&s, max, &r.lo))
            return false;
        r.hi = r.lo;
        if (*s == '-') {
            s++;
            if (!parse_num(&s, max, &r.hi) || r.hi < r.lo)
                return false;
        }
        bool again = false; /* given before: one entry (and one note) */
        for (size_t i = 0; i < l->n && !again; i++)
            again = l->r[i].lo == r.lo && l->r[i].hi == r.hi;
        struct etl_id_range *nr = again ? l->r : realloc(l->r, (l->n + 1) * sizeof *nr);
        if (!nr) {
            *nomem = true;
            return false;
        }
        l->r = nr;
        if (!again)
            l->r[l->n++] = r;
        l->set = true;
        if (*s == '\0')
            return true;
        if (*s != ',')
            return false;
        s++;
    }
}

/* Parses seconds with up to nine decimals ("2", "2.5", ".25") into
 * nanoseconds; false when malformed. */
static bool parse_seconds(const char *s, const char *end, int64_t *ns)
{
    if (s == end)
        return false;
    int64_t whole = 0, frac = 0;
    int digits = 0, fdigits = 0;
    const char *p = s;
    for (; p < end && isdigit((unsigned char)*p); p++, digits++) {
        if (whole > (INT64_MAX / 1000000000 - 9) / 10)
            return false;
        whole = whole * 10 + (*p - '0');
    }
    if (p < end && *p == '.') {
        for (p++; p < end && isdigit((unsigned char)*p); p++, fdigits++) {
            if (fdigits >= 9)
                return false;
            frac = frac * 10 + (*p - '0');
        }
    }
    if (p != end || digits + fdigits == 0)
        return false;
    for (int i = fdigits; i < 9; i++)
        frac *= 10;
    *ns = whole * 1000000000 + frac;
    return true;
}

/* Appends a copy of s[0..n) to a list of names; false when out of memory. */
static bool add_name(char ***list, size_t *count, const char *s, size_t n)
{
    for (size_t i = 0; i < *count; i++)
        if (strncasecmp((*list)[i], s, n) == 0 && (*list)[i][n] == '\0')
            return true; /* given before, in any case: one entry (and one note) */
    char **nl = realloc(*list, (*count + 1) * sizeof *nl);
    if (!nl)
        return false;
    *list = nl;
    char *name = malloc(n + 1);
    if (!name)
        return false;
    memcpy(name, s, n);
    name[n] = '\0';
    (*list)[(*count)++] = name;
    return true;
}

/* Adds comma-separated names to a list; false when one is empty or out of
 * memory (*nomem). */
static bool parse_names(char ***list, size_t *count, const char *arg, bool *nomem)
{
    const char *s = arg;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        if (n == 0)
            return false;
        if (!add_name(list, count, s, n)) {
            *nomem = true;
            return false;
        }
        if (!comma)
            return true;
        s = comma + 1;
    }
}

/* Adds --hook entries: HookIds and ranges of them, or event names. */
static bool parse_hooks(struct etl_filter *f, const char *arg, bool *nomem)
{
    const char *s = arg;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        char item[64];
        if (n == 0)
            return false;
        /* A number or range is a HookId entry, anything else a name. */
        bool ok = false;
        if (isdigit((unsigned char)*s) && n < sizeof item) {
            memcpy(item, s, n);
            item[n] = '\0';
            ok = parse_list(&f->hook, item, 0xFFFF, nomem);
            if (*nomem)
                return false;
            if (!ok && strspn(item, "0123456789xXabcdefABCDEF-") == n)
                return false; /* a malformed number */
        }
        if (!ok &&
            !add_name(&f->hook_names.name, &f->hook_names.n, s, n)) {
            *nomem = true;
            return false;
        }
        if (!comma)
            return true;
        s = comma + 1;
    }
}

/* Makes *hit hold a flag per entry of a list of n, all clear; false when
 * out of memory. */
static bool hits(uint8_t **hit, size_t n)
{
    uint8_t *h = realloc(*hit, n ? n : 1);
    if (!h)
        return false;
    *hit = h;
    memset(h, 0, n);
    return true;
}

/* Marks the entries of l that hold v. */
static void id_hits(const struct etl_id_list *l, uint32_t v)
{
    for (size_t i = 0; i < l->n; i++)
        if (v >= l->r[i].lo && v <= l->r[i].hi)
            l->hit[i] = 1;
}

/* Frees a list of names. */
static void free_names(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

int etl_filter_add(struct etl_filter *f, enum etl_filter_opt which, const char *arg,
                   char *err, size_t errcap)
{
    bool ok = false, nomem = false;
    const char *what = "";
    switch (which) {
    case ETL_FILTER_CPU:
        ok = parse_list(&f->cpu, arg, ETL_MAX_CPUS - 1, &nomem);
        what = "a list of processors such as 0,2-3";
        break;
    case ETL_FILTER_TID:
        ok = parse_list(&f->tid, arg, UINT32_MAX, &nomem);
        nomem = nomem || !hits(&f->tid.hit, f->tid.n);
        what = "a list of thread IDs such as 1234,5600-5700";
        break;
    case ETL_FILTER_PID:
        ok = parse_list(&f->pid, arg, UINT32_MAX, &nomem);
        nomem = nomem || !hits(&f->pid.hit, f->pid.n);
        what = "a list of process IDs such as 4,1234";
        break;
    case ETL_FILTER_HOOK:
        ok = parse_hooks(f, arg, &nomem);
        nomem = nomem || !hits(&f->hook.hit, f->hook.n) ||
                !hits(&f->hook_names.hit, f->hook_names.n);
        what = "a list of HookIds and event names such as 0x0524,0x0501-0x0504,Process/Start";
        break;
    case ETL_FILTER_EVENTS:
        ok = parse_names(&f->events.name, &f->events.n, arg, &nomem);
        /* 'all' anywhere in the lists, in any case, is every event. */
        for (size_t i = 0; ok && i < f->events.n; i++)
            f->events_all = f->events_all || strcasecmp(f->events.name[i], "all") == 0;
        if (ok && f->events_all) {
            free_names(f->events.name, f->events.n);
            f->events.name = NULL;
            f->events.n = 0;
        }
        nomem = nomem || !hits(&f->events.hit, f->events.n);
        what = "'all' or event names and name prefixes such as Process,Image/Load";
        break;
    case ETL_FILTER_PROCESS:
        ok = parse_names(&f->process, &f->nprocess, arg, &nomem);
        what = "image names such as svchost.exe";
        break;
    case ETL_FILTER_RANGE: {
        what = "START:END in seconds since the trace started, either side may be empty";
        const char *colon = strchr(arg, ':');
        if (!colon || strchr(colon + 1, ':'))
            break;
        int64_t a = 0, b = 0;
        bool ha = colon > arg, hb = colon[1] != '\0';
        if ((ha && !parse_seconds(arg, colon, &a)) ||
            (hb && !parse_seconds(colon + 1, colon + strlen(colon), &b)))
            break;
        if (ha && hb && b < a) {
            what = "START:END with START not after END";
            break;
        }
        f->has_start = ha;
        f->has_end = hb;
        f->start_ns = a;
        f->end_ns = b;
        ok = true;
        break;
    }
    }
    if (nomem)
        return -2;
    if (!ok) {
        snprintf(err, errcap, "takes %s", what);
        return -1;
    }
    return 0;
}

struct etl_filter *etl_filter_new(void)
{
    return calloc(1, sizeof(struct etl_filter));
}

void etl_filter_free(struct etl_filter *f)
{
    if (!f)
        return;
    etl_filter_clear(f);
    free(f);
}

bool etl_filter_has_hook(const struct etl_filter *f)
{
    return f && (f->hook.set || f->hook_names.n);
}

bool etl_filter_names(const struct etl_filter *f)
{
    return f && (f->hook_names.n || f->events.n);
}

void etl_filter_clear(struct etl_filter *f)
{
    free(f->cpu.r);
    free(f->tid.r);
    free(f->tid.hit);
    free(f->pid.r);
    free(f->pid.hit);
    free(f->hook.r);
    free(f->hook.hit);
    free_names(f->hook_names.name, f->hook_names.n);
    free(f->hook_names.hit);
    free_names(f->events.name, f->events.n);
    free(f->events.hit);
    free_names(f->process, f->nprocess);
    memset(f, 0, sizeof *f);
}

bool etl_filter_any(const struct etl_filter *f)
{
    return f && (f->cpu.set || f->tid.set || f->pid.set || f->hook.set ||
                 f->hook_names.n || f->events.n || f->nprocess || f->has_start ||
                 f->has_end);
}

bool etl_id_list_has(const struct etl_id_list *l, uint32_t v)
{
    if (!l->set)
        return true;
    for (size_t i = 0; i < l->n; i++)
        if (v >= l->r[i].lo && v <= l->r[i].hi)
            return true;
    return false;
}

/* Returns the part of s after its last '\' or '/'. */
static const char *base_name(const char *s)
{
    const char *b = s;
    for (const char *p = s; *p; p++)
        if (*p == '\\' || *p == '/')
            b = p + 1;
    return b;
}

/* Returns true if a[0..n) and b[0..n) are equal ignoring ASCII case. */
static bool same_prefix(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return false;
    return true;
}

/* Compares a[0..n) with b case-insensitively (ASCII); true when equal. */
static bool same_name(const char *a, size_t n, const char *b)
{
    for (size_t i = 0; i < n; i++, b++)
        if (*b == '\0' || tolower((unsigned char)a[i]) != tolower((unsigned char)*b))
            return false;
    return *b == '\0';
}

/* Whether name is entry or a name under it (etl_name_list_has). */
static bool name_entry_has(const char *entry, const char *name)
{
    size_t n = strlen(entry);
    return same_prefix(entry, name, n) && (name[n] == '\0' || name[n] == '/');
}

bool etl_name_list_has(const struct etl_name_list *l, const char *name)
{
    for (size_t i = 0; name && i < l->n; i++)
        if (name_entry_has(l->name[i], name))
            return true;
    return false;
}

/* Marks the entries of l that name matches. */
static void name_hits(const struct etl_name_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->hit[i] && name_entry_has(l->name[i], name))
            l->hit[i] = 1;
}

/* Whether --process name `name` matches image (etl_filter_process). */
static bool process_matches(const char *name, const char *image)
{
    const char *img = base_name(image), *want = base_name(name);
    size_t n = strlen(want);
    if (same_name(want, n, img))
        return true;
    /* A name without an extension also matches NAME.exe. */
    size_t li = strlen(img);
    return !strchr(want, '.') && li == n + 4 && same_name(".exe", 4, img + n) &&
           same_prefix(want, img, n);
}

bool etl_filter_process(const struct etl_filter *f, const char *image)
{
    if (!f || f->nprocess == 0)
        return true;
    if (!image)
        return false;
    for (size_t i = 0; i < f->nprocess; i++)
        if (process_matches(f->process[i], image))
            return true;
    return false;
}

/* Notes each --process name that no process of map m has, nor Idle. */
static void note_processes(const struct etl_filter *f, const struct etl_procmap *m,
                           const struct etl_file *file)
{
    /* A map that left records out (its warning says so) may lack the
     * process a name is of: no note then. */
    if (!m || etl_procmap_left_out(m, NULL) > 0)
        return;
    for (size_t i = 0; i < f->nprocess; i++) {
        bool found = process_matches(f->process[i], "Idle");
        for (size_t k = 0; !found && k < etl_procmap_nprocesses(m); k++) {
            const char *img = etl_procmap_str(m, etl_procmap_process(m, (uint32_t)k)->image);
            found = img && process_matches(f->process[i], img);
        }
        if (!found)
            etl_note(file, "--process=%s: no process in this trace has that name; "
                           "--summary or --events=Process lists those it has",
                     f->process[i]);
    }
}

/* Whether bit c of a processor set is set. */
static bool cpu_in(const uint64_t *set, uint32_t c)
{
    return (set[c / 64] >> (c % 64)) & 1u;
}

/* Writes the processors of set as a LIST ("0-3,8") into buf[cap]; one
 * too long for it ends in ",...". */
static void cpu_list(const uint64_t *set, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t c = 0; c < ETL_MAX_CPUS; c++) {
        if (!cpu_in(set, c))
            continue;
        uint32_t hi = c;
        while (hi + 1 < ETL_MAX_CPUS && cpu_in(set, hi + 1))
            hi++;
        char item[24];
        int n = hi == c ? snprintf(item, sizeof item, "%s%u", len ? "," : "", (unsigned)c)
                        : snprintf(item, sizeof item, "%s%u-%u", len ? "," : "", (unsigned)c,
                                   (unsigned)hi);
        if (len + (size_t)n + sizeof ",..." > cap) {
            memcpy(buf + len, ",...", sizeof ",...");
            return;
        }
        memcpy(buf + len, item, (size_t)n + 1);
        len += (size_t)n;
        c = hi;
    }
}

/* Notes each --cpu entry that names no processor with buffers in file. */
static void note_cpus(const struct etl_filter *f, struct etl_file *file)
{
    const uint64_t *set = etl_file_totals(file)->cpus;
    bool any = false;
    for (size_t w = 0; w < ETL_MAX_CPUS / 64; w++)
        any |= set[w] != 0;
    if (!any)
        return;
    for (size_t i = 0; i < f->cpu.n; i++) {
        const struct etl_id_range *r = &f->cpu.r[i];
        bool found = false;
        for (uint32_t c = r->lo; c <= r->hi && !found; c++)
            found = cpu_in(set, c);
        if (found)
            continue;
        char have[128];
        cpu_list(set, have, sizeof have);
        if (r->lo == r->hi)
            etl_note(file, "--cpu=%u: no buffer of this trace is of processor %u; "
                           "its buffers are of processors %s",
                     (unsigned)r->lo, (unsigned)r->lo, have);
        else
            etl_note(file, "--cpu=%u-%u: no buffer of this trace is of processors %u-%u; "
                           "its buffers are of processors %s",
                     (unsigned)r->lo, (unsigned)r->hi, (unsigned)r->lo, (unsigned)r->hi, have);
    }
}

void etl_filter_notes(const struct etl_filter *f, const struct etl_procmap *m,
                      struct etl_file *file)
{
    if (!f)
        return;
    if (f->cpu.set)
        note_cpus(f, file);
    note_processes(f, m, file);
    /* The entries matched are counted per file, from here. */
    if (f->hook.n)
        memset(f->hook.hit, 0, f->hook.n);
    if (f->tid.n)
        memset(f->tid.hit, 0, f->tid.n);
    if (f->pid.n)
        memset(f->pid.hit, 0, f->pid.n);
    if (f->hook_names.n)
        memset(f->hook_names.hit, 0, f->hook_names.n);
    if (f->events.n)
        memset(f->events.hit, 0, f->events.n);
}

/* Writes ns as seconds into buf, without trailing zeros ("2.5"). */
static void seconds(int64_t ns, char buf[SECONDS_MAX])
{
    size_t n = etl_fmt_seconds(ns, 9, buf);
    while (buf[n - 1] == '0')
        n--;
    if (buf[n - 1] == '.')
        n--;
    buf[n] = '\0';
}

/* Notes each entry of name list l (of option opt) that no event matched. */
static void note_names(const struct etl_name_list *l, const char *opt, struct etl_file *file)
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->hit[i])
            etl_note(file, "%s=%s: no event of this trace has that name or a name under it; "
                           "--stats lists the names it has",
                     opt, l->name[i]);
}

/* Notes each entry of --tid or --pid list l (opt "tid" or "pid") that
 * nothing the view gave (seen) matched. */
static void note_ids(const struct etl_id_list *l, const char *opt, enum etl_filter_seen seen,
                     struct etl_file *file)
{
    bool tid = opt[0] == 't', sw = seen == ETL_SEEN_SWITCHES;
    const char *what = sw ? "context switch" : "event";
    const char *of = sw && !tid ? "a thread known to be of " : "";
    const char *kind = tid ? "thread" : "process";
    /* The switch views' pointer: the summary's rows are their threads. */
    const char *see = !sw ? "" : tid ? "; --summary lists the threads it has"
                                     : "; --summary lists the processes it has";
    for (size_t i = 0; seen != ETL_SEEN_NONE && i < l->n; i++) {
        const struct etl_id_range *r = &l->r[i];
        if (l->hit[i])
            continue;
        if (r->lo == r->hi)
            etl_note(file, "--%s=%u: no %s of this trace is of %s%s %u%s", opt, (unsigned)r->lo,
                     what, of, kind, (unsigned)r->lo, see);
        else
            etl_note(file, "--%s=%u-%u: no %s of this trace is of %sa %s in that range%s", opt,
                     (unsigned)r->lo, (unsigned)r->hi, what, of, kind, see);
    }
}

void etl_filter_notes_end_at(const struct etl_filter *f, bool any, int64_t last,
                             enum etl_filter_seen seen, const struct etl_switch_span *span,
                             struct etl_file *file)
{
    if (!f)
        return;
    const struct etl_clock *clk = etl_file_clock(file);
    int64_t last_ns = any ? etl_clock_ns(clk, last) : 0;
    if (any && f->has_start && f->start_ns > last_ns) {
        char start[SECONDS_MAX], end[SECONDS_MAX];
        seconds(f->start_ns, start);
        seconds(last_ns, end);
        etl_note(file, "--range starts at %s s, after the trace's last event (at %s s)", start,
                 end);
    } else if (span && span->n > 0 && span->in_range == 0 && etl_filter_ranged(f)) {
        char first[SECONDS_MAX], end[SECONDS_MAX];
        seconds(etl_clock_ns(clk, span->first), first);
        seconds(etl_clock_ns(clk, span->last), end);
        etl_note(file, "--range holds no context switch of this trace: its switches run "
                       "from %s s to %s s",
                 first, end);
    }
    for (size_t i = 0; i < f->hook.n; i++) {
        const struct etl_id_range *r = &f->hook.r[i];
        if (f->hook.hit[i])
            continue;
        if (r->lo == r->hi)
            etl_note(file, "--hook=0x%04x: no event of this trace has that HookId; "
                           "--stats lists the HookIds it has",
                     (unsigned)r->lo);
        else
            etl_note(file, "--hook=0x%04x-0x%04x: no event of this trace has a HookId in that "
                           "range; --stats lists the HookIds it has",
                     (unsigned)r->lo, (unsigned)r->hi);
    }
    note_names(&f->hook_names, "--hook", file);
    note_names(&f->events, "--events", file);
    note_ids(&f->tid, "tid", seen, file);
    note_ids(&f->pid, "pid", seen, file);
}

void etl_filter_notes_end(const struct etl_filter *f, const struct etl_streams *s,
                          enum etl_filter_seen seen, const struct etl_switch_span *span,
                          struct etl_file *file)
{
    int64_t last = 0;
    if (!f || !s)
        return;
    bool any = etl_streams_last_ts(s, &last);
    etl_filter_notes_end_at(f, any, last, seen, span, file);
}

/* Records the entries that thread tid of process w (when known) matches. */
static void thread_seen(const struct etl_filter *f, uint32_t tid, const struct etl_who *w)
{
    id_hits(&f->tid, tid);
    if (w->known)
        id_hits(&f->pid, w->pid);
}

void etl_filter_switch_seen(const struct etl_filter *f, const struct etl_switch *sw,
                            const struct etl_who *wo, const struct etl_who *wn)
{
    if (!etl_filter_who(f))
        return;
    if (sw->has & SW_OLD_TID)
        thread_seen(f, sw->old_tid, wo);
    if (sw->has & SW_NEW_TID)
        thread_seen(f, sw->new_tid, wn);
}

bool etl_filter_time(const struct etl_filter *f, const struct etl_clock *clk, int64_t ts)
{
    if (!f || (!f->has_start && !f->has_end))
        return true;
    int64_t ns = etl_clock_ns(clk, ts);
    return (!f->has_start || ns >= f->start_ns) && (!f->has_end || ns <= f->end_ns);
}

/* Who an event is about: its header's thread and process (hdr), and a
 * Process or Thread event's own from its payload. */
struct ev_who {
    bool hdr, has_ptid, has_ppid;
    uint32_t ptid, ppid;
    const char *pimage;
    char imgbuf[256];
};

static void event_who(const struct etl_event *ev, const struct etl_record *rec,
                      struct ev_who *w)
{
    w->hdr = (ev->flags & ETL_EV_TID) != 0;
    w->has_ptid = w->has_ppid = false;
    w->ptid = w->ppid = 0;
    w->pimage = NULL;
    unsigned kind = rec && rec->valid ? rec->dec->kind : ETL_REC_NONE;
    if (kind == ETL_REC_PROCESS) {
        const struct etl_process_rec *r = &rec->u.proc;
        w->has_ppid = true;
        w->ppid = r->pid;
        if ((r->has & PR_IMAGE) && r->image_len < sizeof w->imgbuf) {
            memcpy(w->imgbuf, r->image, r->image_len);
            w->imgbuf[r->image_len] = '\0';
            w->pimage = w->imgbuf;
        }
    } else if (kind == ETL_REC_THREAD) {
        w->has_ptid = w->has_ppid = true;
        w->ptid = rec->u.thr.tid;
        w->ppid = rec->u.thr.pid;
    }
}

bool etl_filter_event(const struct etl_filter *f, const struct etl_clock *clk,
                      const struct etl_procmap *m, const struct etl_event *ev,
                      const struct etl_record *rec, const char *name)
{
    if (!etl_filter_any(f))
        return true;
    bool hook = (ev->flags & ETL_EV_HOOK) != 0;
    bool by_who = f->tid.set || f->pid.set || f->nprocess > 0;
    struct ev_who w;
    if (by_who)
        event_who(ev, rec, &w);
    /* The entries of --hook, --events, --tid and --pid that the trace has,
     * whatever the other filters say (etl_filter_notes_end). */
    if (hook)
        id_hits(&f->hook, ev->hook_id);
    if (name) {
        name_hits(&f->hook_names, name);
        name_hits(&f->events, name);
    }
    if (by_who) {
        if (w.hdr) {
            id_hits(&f->tid, ev->tid);
            id_hits(&f->pid, ev->pid);
        }
        if (w.has_ptid)
            id_hits(&f->tid, w.ptid);
        if (w.has_ppid)
            id_hits(&f->pid, w.ppid);
    }
    if (!etl_id_list_has(&f->cpu, ev->cpu) || !etl_filter_time(f, clk, ev->ts))
        return false;
    /* --hook: one of its HookIds or one of its names. */
    if ((f->hook.set || f->hook_names.n) &&
        !(f->hook.set && hook && etl_id_list_has(&f->hook, ev->hook_id)) &&
        !etl_name_list_has(&f->hook_names, name))
        return false;
    if (f->events.n && !etl_name_list_has(&f->events, name))
        return false;
    if (!by_who)
        return true;
    if (f->tid.set && !((w.hdr && etl_id_list_has(&f->tid, ev->tid)) ||
                        (w.has_ptid && etl_id_list_has(&f->tid, w.ptid))))
        return false;
    if (f->pid.set && !((w.hdr && etl_id_list_has(&f->pid, ev->pid)) ||
                        (w.has_ppid && etl_id_list_has(&f->pid, w.ppid))))
        return false;
    if (f->nprocess) {
        bool match = w.pimage && etl_filter_process(f, w.pimage);
        if (!match && w.hdr)
            match = etl_filter_process(f, etl_procmap_image(m, ev->pid, ev->ts));
        if (!match && w.has_ppid && !w.pimage)
            match = etl_filter_process(f, etl_procmap_image(m, w.ppid, ev->ts));
        if (!match)
            return false;
    }
    return true;
}
