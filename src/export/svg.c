/*
 * svg.c - -f svg: the schedule of one trace as one self-contained SVG
 * picture, drawn from the runs and the CPU usage of view/usage.h:
 *
 *   - a title: the file's name, the time span drawn and the CPUs;
 *   - a stacked chart of CPU usage by process over time (the usage
 *     intervals: about SVG_INTERVALS of them, or --usage=INTERVAL), 100%
 *     being one CPU and the chart's height all the CPUs drawn;
 *   - one lane per CPU across the time span, each run in its process's
 *     colour. Lanes are drawn in columns of `colw` pixels (1 unless there
 *     are many CPUs, so the file stays small): a column shows the process
 *     that ran most of it when busy threads ran at least as long as idle
 *     ones, else it stays blank (runs shorter than a column are merged
 *     into the column's dominant process);
 *   - a time axis in seconds since the trace started, and a legend of the
 *     busiest processes (SVG_COLOURS colours; the others share grey).
 *
 * Filters: --cpu chooses lanes, --range the span, --tid the runs counted,
 * --pid and --process the processes drawn (others count as blank). Strings
 * from the file reach the picture through svg_text alone. Memory grows with
 * the CPUs, the processes and the intervals, never with the switches.
 *
 * Elements carry data-* attributes that describe the geometry for scripts:
 * the lanes group gives the time span in ns (data-start-ns, data-end-ns)
 * and the x of its start and its width in pixels; each lane its CPU.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "grow.h"
#include "sort.h"
#include "decode/procmap.h"
#include "decode/swreader.h"
#include "print/printer.h"
#include "view/groupmask.h"
#include "view/usage.h"

/* Geometry, in pixels. */
#define SVG_WIDTH 1600
#define SVG_LEFT 90                         /* lane labels */
#define SVG_PLOT (SVG_WIDTH - SVG_LEFT - 30) /* the time axis */
#define SVG_CHART_TOP 56
#define SVG_CHART_H 180
#define SVG_LANE_H 16
#define SVG_LANE_GAP 4
/* Usage intervals of the chart by default, and at most. */
#define SVG_INTERVALS 300
#define SVG_MAX_INTERVALS 600
/* Lane segments the picture may hold: with CPUs x columns above this, the
 * columns widen. About 11 bytes each. */
#define SVG_SEGMENTS 120000
/* Characters of a process name in the legend. */
#define SVG_NAME_MAX 40
/* Processes with a colour of their own, and legend entries per row. */
#define SVG_PER_ROW 3
#define SVG_COLOURS 20

static const char *const palette[SVG_COLOURS] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#2f4b7c", "#a05195", "#d45087", "#ff7c43", "#665191",
    "#003f5c", "#7fb800", "#00a6a6", "#c44e52", "#8172b2", "#937860",
};
#define SVG_OTHER_COLOUR "#b8b8b8"

/* A process's time in the column being filled. */
struct cand {
    uint32_t proc;
    int64_t ns;
};

/* One CPU's lane. */
struct lane {
    uint32_t *col;            /* per column: process + 1 (colour class + 1 once
                                 drawn), 0 blank */
    int64_t cur;              /* the column being filled, -1 none */
    int64_t blank;            /* its idle (or not drawn) time */
    struct cand *c;           /* its busy processes */
    size_t n, cap;
};

/* One usage interval of the chart: entries [first, first + n). */
struct ival {
    int64_t start, end;
    size_t first, n;
};

struct svg {
    struct etl_out *out;
    struct etl_runs *runs;
    struct etl_usage *u;
    int64_t start, end, span;
    uint32_t ncols, colw;
    struct lane **lane;       /* ETL_MAX_CPUS, made on a CPU's first run */
    uint32_t nlanes;
    struct ival *iv;
    size_t niv, capiv;
    struct etl_usage_ent *ent;
    size_t nent, capent;
    uint32_t *cls;            /* per process: colour class (SVG_COLOURS: grey) */
    bool oom;
};

/* ---- writing -------------------------------------------------------------------- */

/* Writes formatted text (no strings from the file: see svg_text). */
static void out_f(struct etl_out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void out_f(struct etl_out *o, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        etl_out_write(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Writes a string from the file as XML character data or attribute value:
 * markup characters escaped, and everything XML 1.0 cannot hold (control
 * characters, U+FFFE, U+FFFF, bytes that are not UTF-8) replaced by U+FFFD;
 * cut after `max` characters with an ellipsis (0: whole). The one place the
 * picture's text is escaped. */
static void svg_text(struct etl_out *o, const char *str, size_t max)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, start = 0, chars = 0;
    while (s[i]) {
        if (max && chars++ == max) {
            etl_out_write(o, s + start, i - start);
            etl_out_puts(o, "\xE2\x80\xA6");
            return;
        }
        const char *rep = NULL;
        size_t len = 1;
        unsigned char c = s[i];
        if (c == '&')
            rep = "&amp;";
        else if (c == '<')
            rep = "&lt;";
        else if (c == '>')
            rep = "&gt;";
        else if (c == '"')
            rep = "&quot;";
        else if (c == '\'')
            rep = "&apos;";
        else if (c < 0x20)
            rep = c == '\t' || c == '\n' || c == '\r' ? " " : "\xEF\xBF\xBD";
        else if (c >= 0x80) {
            unsigned cp;
            len = etl_utf8_decode(s + i, &cp);
            if (len == 0 || cp == 0xFFFE || cp == 0xFFFF) {
                rep = "\xEF\xBF\xBD";
                len = len ? len : 1;
            }
        }
        if (rep) {
            etl_out_write(o, s + start, i - start);
            etl_out_puts(o, rep);
            start = i + len;
        }
        i += len;
    }
    etl_out_write(o, s + start, i - start);
}

/* Formats ns as seconds with `dec` decimals. */
static const char *secs(int64_t ns, int dec, char *buf)
{
    size_t n = etl_fmt_seconds(ns, dec, buf);
    buf[n] = '\0';
    return buf;
}

/* ---- columns --------------------------------------------------------------------- */

/* Returns the start of column c (c <= ncols). */
static int64_t col_start(const struct svg *g, int64_t c)
{
    return g->start + (int64_t)etl_muldiv_u64((uint64_t)c, (uint64_t)g->span, g->ncols);
}

/* Returns the column holding time t (start <= t <= end). */
static int64_t col_of(const struct svg *g, int64_t t)
{
    if (g->span <= 0)
        return 0;
    int64_t c = (int64_t)etl_muldiv_u64((uint64_t)(t - g->start), g->ncols, (uint64_t)g->span);
    if (c >= (int64_t)g->ncols)
        c = (int64_t)g->ncols - 1;
    while (c > 0 && col_start(g, c) > t)
        c--;
    while (c + 1 < (int64_t)g->ncols && col_start(g, c + 1) <= t)
        c++;
    return c;
}

/* Decides the lane's current column: the busy process that ran most of it,
 * when busy threads ran at least as long as blank time; else blank. */
static void lane_settle(struct lane *l)
{
    if (l->cur < 0)
        return;
    int64_t busy = 0, best = -1;
    uint32_t who = 0;
    for (size_t i = 0; i < l->n; i++) {
        busy += l->c[i].ns;
        if (l->c[i].ns > best) {
            best = l->c[i].ns;
            who = l->c[i].proc;
        }
    }
    l->col[l->cur] = l->n && busy >= l->blank ? who + 1 : 0;
    l->cur = -1;
    l->blank = 0;
    l->n = 0;
}

/* Adds ns of process proc (or of blank time) to column c of the lane;
 * false when out of memory. */
static bool lane_add(struct lane *l, int64_t c, uint32_t proc, bool blank,
                     int64_t ns)
{
    if (c != l->cur) {
        lane_settle(l);
        l->cur = c;
    }
    if (blank) {
        l->blank += ns;
        return true;
    }
    size_t i = 0;
    while (i < l->n && l->c[i].proc != proc)
        i++;
    if (i == l->n) {
        if (!etl_grow(&l->c, &l->cap, l->n + 1, sizeof *l->c, 8))
            return false;
        l->c[l->n].proc = proc;
        l->c[l->n].ns = 0;
        l->n++;
    }
    l->c[i].ns += ns;
    return true;
}

/* Returns cpu's lane, making it; NULL when out of memory. */
static struct lane *lane_get(struct svg *g, uint16_t cpu)
{
    if (g->lane[cpu])
        return g->lane[cpu];
    struct lane *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->col = calloc(g->ncols ? g->ncols : 1, sizeof *l->col);
    if (!l->col) {
        free(l);
        return NULL;
    }
    l->cur = -1;
    g->lane[cpu] = l;
    g->nlanes++;
    return l;
}

/* ---- passes ---------------------------------------------------------------------- */

/* Returns true for the time left blank: idle, and the processes not drawn. */
static bool is_blank(const struct etl_run_proc *p)
{
    return !p->shown || (p->pid_known && p->pid == 0);
}

/* A run: into the usage and onto its CPU's lane, column by column. */
static bool svg_run(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a, int64_t b)
{
    (void)tid;
    struct svg *g = ctx;
    if (!etl_usage_add(g->u, proc, a, b))
        return false;
    struct lane *l = lane_get(g, cpu);
    if (!l)
        return false;
    if (a < g->start)
        a = g->start;
    if (b > g->end)
        b = g->end;
    if (b <= a || g->span <= 0)
        return true;
    bool blank = is_blank(etl_runs_proc(g->runs, proc));
    for (int64_t c = col_of(g, a);; c++) {
        int64_t ce = col_start(g, c + 1), part = etl_overlap(a, b, col_start(g, c), ce);
        if (part > 0 && !lane_add(l, c, proc, blank, part))
            return false;
        if (ce >= b || c + 1 >= (int64_t)g->ncols)
            return true;
    }
}

/* DPC and ISR time taken out of a run, or given back: for the chart, as
 * in --usage (the lanes show whole runs). */
static bool svg_intr(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a,
                     int64_t b, int sign)
{
    (void)cpu;
    (void)tid;
    struct svg *g = ctx;
    return etl_usage_credit(g->u, proc, a, b, sign);
}

/* A usage interval: kept for the chart (processes drawn, not idle). */
static bool svg_interval(void *ctx, int64_t start, int64_t end, struct etl_usage_ent *e,
                         size_t n)
{
    struct svg *g = ctx;
    if (!etl_grow(&g->iv, &g->capiv, g->niv + 1, sizeof *g->iv, 64))
        return false;
    struct ival *v = &g->iv[g->niv++];
    v->start = start;
    v->end = end;
    v->first = g->nent;
    v->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_blank(etl_runs_proc(g->runs, e[i].proc)) || e[i].ns <= 0)
            continue;
        if (!etl_grow(&g->ent, &g->capent, g->nent + 1, sizeof *g->ent, 256))
            return false;
        g->ent[g->nent++] = e[i];
        v->n++;
    }
    return true;
}

/* Orders process indexes: most CPU time first, then PID. */
static int cmp_busy(const void *a, const void *b, void *ctx)
{
    const struct etl_runs *r = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct etl_run_proc *px = etl_runs_proc(r, x), *py = etl_runs_proc(r, y);
    if (px->cpu_time != py->cpu_time)
        return px->cpu_time > py->cpu_time ? -1 : 1;
    if (px->pid != py->pid)
        return px->pid < py->pid ? -1 : 1;
    return (x > y) - (x < y);
}

/* Gives the busiest processes drawn their colours; returns how many have
 * one, their indexes in rank[0..]. NULL rank when out of memory. */
static uint32_t *svg_rank(struct svg *g, size_t *nrank)
{
    size_t np = etl_runs_nprocs(g->runs), n = 0;
    uint32_t *rank = malloc((np ? np : 1) * sizeof *rank);
    g->cls = malloc((np ? np : 1) * sizeof *g->cls);
    if (!rank || !g->cls) {
        free(rank);
        return NULL;
    }
    for (uint32_t i = 0; i < np; i++) {
        const struct etl_run_proc *p = etl_runs_proc(g->runs, i);
        g->cls[i] = SVG_COLOURS;
        if (!is_blank(p) && p->cpu_time > 0)
            rank[n++] = i;
    }
    if (n > 1)
        etl_sort(rank, n, sizeof *rank, cmp_busy, g->runs);
    for (size_t i = 0; i < n && i < SVG_COLOURS; i++)
        g->cls[rank[i]] = (uint32_t)i;
    *nrank = n;
    return rank;
}

/* ---- drawing ---------------------------------------------------------------------- */

/* The name a process is shown by. */
static void proc_label(struct etl_out *o, const struct etl_run_proc *p)
{
    svg_text(o, p->image ? p->image : "(unknown process)", SVG_NAME_MAX);
    if (p->pid_known)
        out_f(o, " (%u)", (unsigned)p->pid);
}

/* Coordinates are computed in tenths of a pixel with integers, so the
 * picture is the same on every machine. Writes one as "12.3" after pre. */
static void put10(struct etl_out *o, const char *pre, int64_t v)
{
    out_f(o, "%s%lld.%d", pre, (long long)(v / 10), (int)(v % 10));
}

/* The x of time t, in tenths. */
static int64_t x10(const struct svg *g, int64_t t)
{
    if (g->span <= 0 || t <= g->start)
        return SVG_LEFT * 10;
    if (t >= g->end)
        return (SVG_LEFT + SVG_PLOT) * 10;
    return SVG_LEFT * 10 +
           (int64_t)etl_muldiv_u64((uint64_t)(t - g->start), SVG_PLOT * 10, (uint64_t)g->span);
}

/* The chart's y, in tenths, of ns of CPU time in an interval of len ns. */
static int64_t y10(int64_t ns, int64_t len, uint32_t ncpus)
{
    int64_t h = len > 0 ? (int64_t)(etl_muldiv_u64((uint64_t)ns, SVG_CHART_H * 10,
                                                   (uint64_t)len) / ncpus) : 0;
    return (SVG_CHART_TOP + SVG_CHART_H) * 10 - (h < SVG_CHART_H * 10 ? h : SVG_CHART_H * 10);
}

/* The stacked usage chart. */
static void draw_chart(struct svg *g, uint32_t ncpus, size_t nrank)
{
    struct etl_out *o = g->out;
    int bottom = SVG_CHART_TOP + SVG_CHART_H;
    out_f(o, "<g class=\"chart\">\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" "
          "height=\"%d\"/>\n", SVG_LEFT, SVG_CHART_TOP, SVG_PLOT, SVG_CHART_H);
    /* One gridline per CPU (or per few, with many). */
    uint32_t step = ncpus <= 8 ? 1 : (ncpus + 7) / 8;
    for (uint32_t k = step; k <= ncpus; k += step) {
        int64_t y = bottom * 10 - (int64_t)k * SVG_CHART_H * 10 / ncpus;
        out_f(o, "<path class=\"grid\" d=\"M%d", SVG_LEFT);
        put10(o, " ", y);
        out_f(o, "h%d\"/><text class=\"ylab\" x=\"%d\"", SVG_PLOT, SVG_LEFT - 6);
        put10(o, " y=\"", y + 40);
        out_f(o, "\">%u%%</text>\n", k * 100);
    }
    out_f(o, "<text class=\"ylab\" x=\"%d\" y=\"%d\">0%%</text>\n", SVG_LEFT - 6, bottom + 4);
    size_t nser = nrank < SVG_COLOURS ? nrank : SVG_COLOURS + 1;
    int64_t *base = calloc(g->niv ? g->niv : 1, sizeof *base);
    int64_t *top = calloc(g->niv ? g->niv : 1, sizeof *top);
    if (!base || !top) {
        g->oom = true;
        nser = 0;
    }
    /* Series from the busiest up: each a polygon from its top edge, left
     * to right, back along the one below it (base: the CPU time below). */
    for (uint32_t s = 0; s < nser; s++) {
        bool any = false;
        for (size_t i = 0; i < g->niv; i++) {
            const struct ival *v = &g->iv[i];
            int64_t ns = 0;
            for (size_t k = 0; k < v->n; k++)
                if (g->cls[g->ent[v->first + k].proc] == s)
                    ns += g->ent[v->first + k].ns;
            top[i] = base[i] + ns;
            any = any || ns > 0;
        }
        if (any) {
            out_f(o, "<path class=\"p%u\" d=\"", s);
            for (size_t i = 0; i < g->niv; i++) {
                const struct ival *v = &g->iv[i];
                int64_t y = y10(top[i], v->end - v->start, ncpus);
                put10(o, i ? "L" : "M", x10(g, v->start));
                put10(o, " ", y);
                put10(o, "L", x10(g, v->end));
                put10(o, " ", y);
            }
            for (size_t i = g->niv; i-- > 0;) {
                const struct ival *v = &g->iv[i];
                int64_t y = y10(base[i], v->end - v->start, ncpus);
                put10(o, "L", x10(g, v->end));
                put10(o, " ", y);
                put10(o, "L", x10(g, v->start));
                put10(o, " ", y);
            }
            out_f(o, "Z\"/>\n");
        }
        memcpy(base, top, g->niv * sizeof *base);
    }
    free(base);
    free(top);
    out_f(o, "<text class=\"label\" x=\"%d\" y=\"%d\">CPU usage by process "
          "(100%% = one CPU)</text>\n</g>\n", SVG_LEFT, SVG_CHART_TOP - 6);
}

/* The lanes, from y on; returns the y below them. */
static int draw_lanes(struct svg *g, int y)
{
    struct etl_out *o = g->out;
    out_f(o, "<g class=\"lanes\" data-start-ns=\"%lld\" data-end-ns=\"%lld\" data-x=\"%d\" "
          "data-width=\"%d\">\n", (long long)g->start, (long long)g->end, SVG_LEFT, SVG_PLOT);
    for (uint32_t cpu = 0; cpu < ETL_MAX_CPUS; cpu++) {
        struct lane *l = g->lane[cpu];
        if (!l)
            continue;
        lane_settle(l);
        for (uint32_t c = 0; c < g->ncols; c++)
            l->col[c] = l->col[c] ? g->cls[l->col[c] - 1] + 1 : 0;
        out_f(o, "<g class=\"lane\" data-cpu=\"%u\" data-y=\"%d\" data-height=\"%d\">"
              "<text class=\"cpu\" x=\"%d\" y=\"%d\">CPU %u</text>"
              "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
              cpu, y, SVG_LANE_H, SVG_LEFT - 8, y + SVG_LANE_H - 4, cpu, SVG_LEFT, y, SVG_PLOT,
              SVG_LANE_H);
        /* One path per colour: a horizontal stroke per run of equal
         * columns. */
        for (uint32_t k = 1; k <= SVG_COLOURS + 1; k++) {
            bool open = false;
            for (uint32_t c = 0; c < g->ncols;) {
                if (l->col[c] != k) {
                    c++;
                    continue;
                }
                uint32_t e = c;
                while (e < g->ncols && l->col[e] == k)
                    e++;
                if (!open)
                    out_f(o, "<path class=\"p%u\" d=\"", k - 1);
                open = true;
                out_f(o, "M%u %dh%u", SVG_LEFT + c * g->colw, y + SVG_LANE_H / 2,
                      (e - c) * g->colw);
                c = e;
            }
            if (open)
                out_f(o, "\"/>\n");
        }
        out_f(o, "</g>\n");
        y += SVG_LANE_H + SVG_LANE_GAP;
    }
    out_f(o, "</g>\n");
    return y;
}

/* Writes t (ns) in `unit` ns with `dec` decimals and the unit's name. */
static void time_label(struct etl_out *o, int64_t t, int64_t unit, int dec, const char *name)
{
    char buf[64];
    /* t / unit as seconds of `unit` ns each: scaled to ns for etl_fmt_seconds. */
    int64_t scaled = (int64_t)etl_muldiv_u64((uint64_t)(t < 0 ? -t : t), 1000000000u,
                                             (uint64_t)unit);
    size_t n = etl_fmt_seconds(scaled, dec ? dec : 1, buf);
    if (!dec)
        n -= 2; /* no decimals: cut ".0" */
    buf[n] = '\0';
    out_f(o, "%s%s %s", t < 0 ? "-" : "", buf, name);
}

/* The time axis under the lanes at y, with gridlines from the chart down;
 * returns the y below it. */
static int draw_axis(struct svg *g, int y)
{
    struct etl_out *o = g->out;
    out_f(o, "<g class=\"axis\">\n<path class=\"tick\" d=\"M%d %dh%d\"/>\n", SVG_LEFT, y,
          SVG_PLOT);
    if (g->span > 0) {
        int64_t step = etl_usage_nice_interval(g->span, 10);
        int64_t unit = step >= 1000000000 ? 1000000000 : step >= 1000000 ? 1000000 : 1000;
        const char *name = unit == 1000000000 ? "s" : unit == 1000000 ? "ms" : "\xC2\xB5s";
        int dec = step % unit == 0 ? 0 : step * 10 % unit == 0 ? 1 : 2;
        int64_t t = g->start >= 0 ? (g->start + step - 1) / step * step : g->start / step * step;
        for (; t <= g->end; t += step) {
            int64_t x = x10(g, t);
            put10(o, "<path class=\"grid\" d=\"M", x);
            out_f(o, " %dV%d\"/>", SVG_CHART_TOP, y);
            put10(o, "<path class=\"tick\" d=\"M", x);
            out_f(o, " %dv5\"/>", y);
            put10(o, "<text class=\"tlab\" x=\"", x);
            out_f(o, "\" y=\"%d\">", y + 18);
            time_label(o, t, unit, dec, name);
            out_f(o, "</text>\n");
            if (t > INT64_MAX - step)
                break;
        }
    }
    out_f(o, "<text class=\"label\" x=\"%d\" y=\"%d\">time since the trace started</text>\n"
          "</g>\n", SVG_LEFT + SVG_PLOT / 2, y + 36);
    return y + 48;
}

/* The legend from y on. */
static void draw_legend(struct svg *g, const uint32_t *rank, size_t nrank, int y)
{
    struct etl_out *o = g->out;
    char b[40];
    out_f(o, "<g class=\"legend\">\n");
    size_t shown = nrank < SVG_COLOURS ? nrank : SVG_COLOURS;
    for (size_t i = 0; i <= shown; i++) {
        bool other = i == shown;
        if (other && nrank <= SVG_COLOURS)
            break;
        int x = SVG_LEFT + (int)(i % SVG_PER_ROW) * (SVG_PLOT / SVG_PER_ROW),
            yy = y + (int)(i / SVG_PER_ROW) * 20;
        out_f(o, "<g class=\"entry\"><rect class=\"p%u\" x=\"%d\" y=\"%d\" width=\"12\" "
              "height=\"12\"/><text x=\"%d\" y=\"%d\">", (unsigned)i, x, yy, x + 18, yy + 11);
        if (other) {
            int64_t t = 0;
            for (size_t k = SVG_COLOURS; k < nrank; k++)
                t += etl_runs_proc(g->runs, rank[k])->cpu_time;
            out_f(o, "%zu other processes: %s s", nrank - SVG_COLOURS, secs(t, 3, b));
        } else {
            const struct etl_run_proc *p = etl_runs_proc(g->runs, rank[i]);
            proc_label(o, p);
            out_f(o, ": %s s", secs(p->cpu_time, 3, b));
        }
        out_f(o, "</text></g>\n");
    }
    out_f(o, "</g>\n");
}

/* The whole picture. */
static void draw(struct svg *g, struct etl_file *f, uint32_t *rank, size_t nrank)
{
    struct etl_out *o = g->out;
    uint32_t ncpus = g->nlanes ? g->nlanes : 1;
    int lanes_top = SVG_CHART_TOP + SVG_CHART_H + 24;
    int lanes_h = (int)g->nlanes * (SVG_LANE_H + SVG_LANE_GAP);
    int legend_top = lanes_top + lanes_h + 56;
    size_t entries = (nrank < SVG_COLOURS ? nrank : SVG_COLOURS) + (nrank > SVG_COLOURS);
    int height = legend_top + (int)((entries + SVG_PER_ROW - 1) / SVG_PER_ROW) * 20 + 16;
    char b1[40], b2[40], b3[40];
    out_f(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\">\n<title>", SVG_WIDTH, height, SVG_WIDTH, height);
    svg_text(o, etl_file_name(f), 0);
    out_f(o, ": context switches</title>\n<style>\n"
          "text{font-family:sans-serif;font-size:12px;fill:#222}\n"
          ".title{font-size:16px;font-weight:bold}\n"
          ".cpu,.ylab{text-anchor:end;font-size:11px}\n"
          ".tlab,.axis .label{text-anchor:middle;font-size:11px}\n"
          ".frame{fill:#fafafa;stroke:#ddd}\n"
          ".grid{stroke:#e4e4e4;fill:none}\n"
          ".tick{stroke:#888;fill:none}\n"
          ".lane path{fill:none;stroke-width:%dpx}\n"
          ".chart path[class^=p]{stroke:none}\n", SVG_LANE_H);
    for (unsigned i = 0; i <= SVG_COLOURS; i++)
        out_f(o, ".p%u{fill:%s;stroke:%s}\n", i, i < SVG_COLOURS ? palette[i] : SVG_OTHER_COLOUR,
              i < SVG_COLOURS ? palette[i] : SVG_OTHER_COLOUR);
    out_f(o, "</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
          "<text class=\"title\" x=\"%d\" y=\"24\">", SVG_LEFT);
    svg_text(o, etl_file_name(f), 0);
    out_f(o, ": %s s to %s s (%s s), %u CPU%s</text>\n", secs(g->start, 6, b1),
          secs(g->end, 6, b2), secs(g->span, 6, b3), g->nlanes, g->nlanes == 1 ? "" : "s");
    draw_chart(g, ncpus, nrank);
    draw_axis(g, draw_lanes(g, lanes_top) + 4);
    draw_legend(g, rank, nrank, legend_top);
    out_f(o, "</svg>\n");
}

static int svg_export(struct etl_printer *p, struct etl_file *f, const struct etl_view_opts *o)
{
    struct svg g;
    memset(&g, 0, sizeof g);
    g.out = p->out;
    int64_t want = o->view == ETL_VIEW_USAGE ? o->usage_interval_ns : 0, interval;
    etl_usage_bounds(f, o->filter, want, SVG_INTERVALS, &g.start, &g.end, &interval);
    g.span = g.end - g.start;
    if (g.span > 0 && g.span / interval > SVG_MAX_INTERVALS) {
        int64_t wider = etl_usage_nice_interval(g.span, SVG_MAX_INTERVALS / 2);
        if (want)
            etl_warn(f, "-f svg: the chart's interval is widened to %lld ns (at most %u "
                     "intervals)", (long long)wider, (unsigned)SVG_MAX_INTERVALS);
        interval = wider;
    }
    /* Columns of one pixel, wider when many CPUs would make many segments. */
    uint32_t cpus = etl_file_header(f)->cpus;
    cpus = cpus < 1 ? 1 : cpus > ETL_MAX_CPUS ? ETL_MAX_CPUS : cpus;
    g.colw = (cpus * SVG_PLOT + SVG_SEGMENTS - 1) / SVG_SEGMENTS;
    g.colw = g.colw < 1 ? 1 : g.colw;
    g.ncols = SVG_PLOT / g.colw;
    g.lane = calloc(ETL_MAX_CPUS, sizeof *g.lane);
    struct etl_switch_pass sp;
    memset(&sp, 0, sizeof sp);
    bool ok = g.lane && etl_switch_pass_open(f, o->max_wait_reason, &sp);
    etl_filter_notes(o->filter, sp.map, f);
    g.runs = ok ? etl_runs_new(sp.map, etl_file_clock(f), o->filter, svg_run, &g) : NULL;
    if (g.runs)
        etl_runs_on_intr(g.runs, svg_intr);
    g.u = g.runs ? etl_usage_new(g.start, g.end, interval, svg_interval, &g) : NULL;
    ok = g.u && etl_usage_pass(f, sp.reader, o->strict, g.runs, g.u);
    /* Colours are known only now: the pass drew each column's process by
     * index, so the lanes are settled after ranking. */
    size_t nrank = 0;
    uint32_t *rank = ok ? svg_rank(&g, &nrank) : NULL;
    if (rank)
        draw(&g, f, rank, nrank);
    if (ok)
        etl_switch_reader_check_bias(sp.reader, o->max_wait_reason != 0);
    if (!rank || g.oom)
        etl_file_nomem(f);
    else if (!(o->strict && etl_file_problems(f)))
        etl_view_switches_end(f, sp.reader, sp.streams, o->filter, ETL_SEEN_SWITCHES, NULL);
    free(rank);
    for (uint32_t c = 0; g.lane && c < ETL_MAX_CPUS; c++)
        if (g.lane[c]) {
            free(g.lane[c]->col);
            free(g.lane[c]->c);
            free(g.lane[c]);
        }
    free(g.lane);
    free(g.iv);
    free(g.ent);
    free(g.cls);
    etl_usage_free(g.u);
    etl_runs_free(g.runs);
    etl_switch_pass_close(&sp);
    return etl_print_status(p);
}

const struct etl_printer_ops etl_export_svg = {
    .name = "svg",
    .export = svg_export,
};
