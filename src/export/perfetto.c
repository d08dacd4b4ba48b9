/*
 * perfetto.c - -f perfetto: the context switches of one trace as a Perfetto
 * trace (perfetto.h has the field numbers).
 *
 * The file is a sequence of Trace.packet fields, all on one
 * trusted_packet_sequence_id:
 *
 *   1. a process_tree packet naming every process (PID, parent, image and
 *      command line) and thread (TID, owning PID, name) of the process map,
 *      each ID by its first lifetime, plus the Idle process (PID 0) and
 *      thread (TID 0); written before the first switch, split into packets
 *      of at most PF_TREE_BYTES;
 *   2. etw_events packets: one EtwTraceEventBundle per CPU holding that
 *      CPU's c_switch events in time order. Events are encoded as the switch
 *      reader hands them on (merged by time) into one arena; every
 *      PF_BUNDLE_EVENTS events the arena is written out as one bundle per
 *      CPU, so memory stays bounded whatever the trace's length;
 *   3. when a TID or PID starts a new lifetime (reuse), the bundles so far
 *      are written and a process_tree packet names the new lifetimes, before
 *      the first switch at or after their start.
 *
 * Clock: every timestamp (packets and events) is in ns since boot when the
 * logfile header gives a boot time at or before the trace's start (the
 * trace's start FILETIME minus BootTime, plus the time since the start),
 * else in ns since the trace started; times before 0 become 0. The packets
 * carry no clock id: the trace processor takes them as its default clock.
 *
 * Filters: --cpu and --range choose switches (each CPU's switches stay a
 * sequence); --tid, --pid and --process are left out with a warning, since
 * a CPU's schedule cannot be cut per thread.
 */
#include "export/perfetto.h"

#include <stdlib.h>
#include <string.h>

#include "export/pb.h"
#include "print/printer.h"
#include "sort.h"
#include "view/groupmask.h"
#include "view/usage.h"

/* Events written per flush of the arena ("bundles of a few thousand"). */
#define PF_BUNDLE_EVENTS 4096u
/* The process_tree part of one packet is cut after this many bytes. */
#define PF_TREE_BYTES (64u * 1024u)
/* The one sequence etldump writes. */
#define PF_SEQUENCE_ID 1u

/* ---- events -------------------------------------------------------------------- */

size_t etl_pf_cswitch_event(uint8_t *out, uint64_t ts, const struct etl_switch *sw)
{
    uint8_t cs[ETL_PF_EVENT_MAX];
    size_t c = 0;
    uint32_t h = sw->has;
    if (h & SW_NEW_TID)
        c += pb_put_varint_field(cs + c, PF_CS_NEW_THREAD_ID, sw->new_tid);
    if (h & SW_OLD_TID)
        c += pb_put_varint_field(cs + c, PF_CS_OLD_THREAD_ID, sw->old_tid);
    if (h & SW_NEW_PRIORITY)
        c += pb_put_varint_field(cs + c, PF_CS_NEW_THREAD_PRIORITY,
                                 pb_zigzag32(sw->new_priority));
    if (h & SW_OLD_PRIORITY)
        c += pb_put_varint_field(cs + c, PF_CS_OLD_THREAD_PRIORITY,
                                 pb_zigzag32(sw->old_priority));
    /* The C-state the idle thread left; other threads' values mean nothing. */
    if ((h & SW_PREV_CSTATE) && (h & SW_OLD_TID) && sw->old_tid == 0)
        c += pb_put_varint_field(cs + c, PF_CS_PREVIOUS_C_STATE, sw->prev_cstate);
    if (h & SW_IDEAL_CPU)
        c += pb_put_varint_field(cs + c, PF_CS_OLD_THREAD_WAIT_IDEAL_PROCESSOR,
                                 pb_zigzag32(sw->ideal_cpu));
    if (h & SW_NEW_WAIT_TIME)
        c += pb_put_varint_field(cs + c, PF_CS_NEW_THREAD_WAIT_TIME, sw->new_wait_time);
    if (h & SW_OLD_WAIT_REASON)
        c += pb_put_varint_field(cs + c, PF_CS_OLD_THREAD_WAIT_REASON_INT,
                                 pb_int32_bits(sw->old_wait_reason));
    if (h & SW_OLD_WAIT_MODE)
        c += pb_put_varint_field(cs + c, PF_CS_OLD_THREAD_WAIT_MODE_INT,
                                 pb_int32_bits(sw->old_wait_mode));
    if (h & SW_OLD_STATE)
        c += pb_put_varint_field(cs + c, PF_CS_OLD_THREAD_STATE_INT,
                                 pb_zigzag32(sw->old_state));
    size_t body = pb_varint_field_size(PF_EVENT_TIMESTAMP, ts) +
                  pb_len_field_size(PF_EVENT_C_SWITCH, c) +
                  pb_varint_field_size(PF_EVENT_CPU, sw->cpu);
    size_t n = pb_put_len_header(out, PF_BUNDLE_EVENT, body);
    n += pb_put_varint_field(out + n, PF_EVENT_TIMESTAMP, ts);
    n += pb_put_len_header(out + n, PF_EVENT_C_SWITCH, c);
    memcpy(out + n, cs, c);
    n += c;
    n += pb_put_varint_field(out + n, PF_EVENT_CPU, sw->cpu);
    return n;
}

size_t etl_pf_ready_event(uint8_t *out, uint64_t ts, uint32_t cpu, uint32_t readying_tid,
                          uint32_t tid, int32_t adjust_reason, int32_t adjust_increment,
                          int32_t flag)
{
    uint8_t rt[ETL_PF_EVENT_MAX];
    size_t r = pb_put_varint_field(rt, PF_RT_T_THREAD_ID, tid);
    r += pb_put_varint_field(rt + r, PF_RT_ADJUST_INCREMENT, pb_zigzag32(adjust_increment));
    r += pb_put_varint_field(rt + r, PF_RT_ADJUST_REASON_INT, pb_int32_bits(adjust_reason));
    r += pb_put_varint_field(rt + r, PF_RT_FLAG_INT, pb_int32_bits(flag));
    size_t body = pb_varint_field_size(PF_EVENT_TIMESTAMP, ts) +
                  pb_len_field_size(PF_EVENT_READY_THREAD, r) +
                  pb_varint_field_size(PF_EVENT_CPU, cpu) +
                  pb_varint_field_size(PF_EVENT_THREAD_ID, readying_tid);
    size_t n = pb_put_len_header(out, PF_BUNDLE_EVENT, body);
    n += pb_put_varint_field(out + n, PF_EVENT_TIMESTAMP, ts);
    n += pb_put_len_header(out + n, PF_EVENT_READY_THREAD, r);
    memcpy(out + n, rt, r);
    n += r;
    n += pb_put_varint_field(out + n, PF_EVENT_CPU, cpu);
    n += pb_put_varint_field(out + n, PF_EVENT_THREAD_ID, readying_tid);
    return n;
}

/* ---- the writer ---------------------------------------------------------------- */

/* One encoded event in the arena. */
struct pf_ev {
    uint32_t off;
    uint16_t len;
    uint16_t cpu;
};

/* A lifetime that starts after the first of its ID (a reused TID or PID). */
struct pf_later {
    int64_t start;            /* raw clock */
    uint32_t index;
    bool thread;
};

struct pf {
    struct etl_out *out;
    const struct etl_clock *clk;
    const struct etl_procmap *map;
    int64_t offset;           /* ns from the clock's origin to the trace start */
    struct pb_buf arena;
    struct pf_ev *ev;         /* PF_BUNDLE_EVENTS */
    uint32_t nev;
    uint32_t *order;          /* PF_BUNDLE_EVENTS: events by CPU */
    uint32_t *count;          /* ETL_MAX_CPUS: events per CPU in the arena */
    uint32_t *bytes;          /* ETL_MAX_CPUS: their bytes */
    uint64_t *first_ts;       /* ETL_MAX_CPUS: the time of each one's first */
    uint16_t *cpus;           /* the CPUs in the arena */
    uint32_t ncpus;
    struct pb_buf tree;       /* the ProcessTree being built */
    uint64_t tree_ts;
    struct pf_later *later;
    size_t nlater, next_later;
    bool tree_done, first_packet;
};

/* Returns the export's time of raw clock value ts. */
static uint64_t pf_time(const struct pf *x, int64_t ts)
{
    int64_t ns = etl_clock_ns(x->clk, ts);
    if (ns > INT64_MAX - x->offset)
        return (uint64_t)INT64_MAX;
    ns += x->offset;
    return ns < 0 ? 0 : (uint64_t)ns;
}

/* Writes a TracePacket: its timestamp, one message field (`field`, with the
 * message's key and length in head[0..nhead) followed by body[0..nbody)),
 * the sequence id and, on the first packet, the sequence flags. */
static void pf_packet(struct pf *x, uint64_t ts, uint32_t field, size_t msg_len,
                      const uint8_t *head, size_t nhead)
{
    uint8_t h[4 * PB_VARINT_MAX + 16];
    size_t tail = pb_varint_field_size(PF_PACKET_SEQUENCE_ID, PF_SEQUENCE_ID);
    if (x->first_packet)
        tail += pb_varint_field_size(PF_PACKET_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED) +
                pb_varint_field_size(PF_PACKET_FIRST_ON_SEQUENCE, 1);
    size_t len = pb_varint_field_size(PF_PACKET_TIMESTAMP, ts) +
                 pb_len_field_size(field, msg_len) + tail;
    size_t n = pb_put_len_header(h, PF_TRACE_PACKET, len);
    n += pb_put_varint_field(h + n, PF_PACKET_TIMESTAMP, ts);
    n += pb_put_len_header(h + n, field, msg_len);
    etl_out_write(x->out, h, n);
    etl_out_write(x->out, head, nhead);
}

/* Writes the end of a packet begun by pf_packet (after the message body). */
static void pf_packet_end(struct pf *x)
{
    uint8_t h[3 * (PB_VARINT_MAX + 2)];
    size_t n = pb_put_varint_field(h, PF_PACKET_SEQUENCE_ID, PF_SEQUENCE_ID);
    if (x->first_packet) {
        n += pb_put_varint_field(h + n, PF_PACKET_SEQUENCE_FLAGS,
                                 PF_SEQ_INCREMENTAL_STATE_CLEARED);
        n += pb_put_varint_field(h + n, PF_PACKET_FIRST_ON_SEQUENCE, 1);
        x->first_packet = false;
    }
    etl_out_write(x->out, h, n);
}

/* Orders the CPUs of the arena. */
static int cmp_cpu(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;
    return (x > y) - (x < y);
}

/* Writes the arena as one etw_events packet per CPU and empties it. */
static void pf_flush_events(struct pf *x)
{
    if (x->nev == 0)
        return;
    if (x->ncpus > 1)
        etl_sort(x->cpus, x->ncpus, sizeof *x->cpus, cmp_cpu, NULL);
    /* Counting sort: each CPU's events keep their order. */
    uint32_t pos = 0;
    for (uint32_t i = 0; i < x->ncpus; i++) {
        uint16_t c = x->cpus[i];
        uint32_t k = x->count[c];
        x->count[c] = pos;
        pos += k;
    }
    for (uint32_t i = 0; i < x->nev; i++)
        x->order[x->count[x->ev[i].cpu]++] = i;
    pos = 0;
    for (uint32_t i = 0; i < x->ncpus; i++) {
        uint16_t c = x->cpus[i];
        uint8_t cpu_field[PB_VARINT_MAX + 1];
        size_t ncf = pb_put_varint_field(cpu_field, PF_BUNDLE_CPU, c);
        pf_packet(x, x->first_ts[c], PF_PACKET_ETW_EVENTS, ncf + x->bytes[c], cpu_field, ncf);
        for (; pos < x->count[c]; pos++) {
            const struct pf_ev *e = &x->ev[x->order[pos]];
            etl_out_write(x->out, x->arena.p + e->off, e->len);
        }
        pf_packet_end(x);
        x->count[c] = x->bytes[c] = 0;
    }
    x->nev = x->ncpus = 0;
    x->arena.len = 0;
}

/* Returns room for one event in the arena; NULL when out of memory. */
static uint8_t *pf_room(struct pf *x)
{
    if (x->nev == PF_BUNDLE_EVENTS)
        pf_flush_events(x);
    return pb_buf_room(&x->arena, ETL_PF_EVENT_MAX);
}

/* Accounts for the event of len bytes just written at pf_room's pointer. */
static void pf_commit(struct pf *x, uint16_t cpu, uint64_t ts, size_t len)
{
    if (x->count[cpu] == 0) {
        x->cpus[x->ncpus++] = cpu;
        x->first_ts[cpu] = ts;
    }
    x->count[cpu]++;
    x->bytes[cpu] += (uint32_t)len;
    x->ev[x->nev].off = (uint32_t)x->arena.len;
    x->ev[x->nev].len = (uint16_t)len;
    x->ev[x->nev].cpu = cpu;
    x->nev++;
    x->arena.len += len;
}

/* ---- the process tree --------------------------------------------------------- */

/* Writes the process tree built so far as one packet. */
static void pf_flush_tree(struct pf *x)
{
    if (x->tree.len == 0)
        return;
    pf_packet(x, x->tree_ts, PF_PACKET_PROCESS_TREE, x->tree.len, x->tree.p, x->tree.len);
    pf_packet_end(x);
    x->tree.len = 0;
}

/* Appends one message field of the tree: its fields are in f[0..n). */
static bool pf_tree_entry(struct pf *x, uint32_t field, const uint8_t *f, size_t n)
{
    if (x->tree.len >= PF_TREE_BYTES)
        pf_flush_tree(x);
    return pb_buf_bytes_field(&x->tree, field, f, n);
}

/* Appends a process: its PID, parent and, when known, its image and
 * command line (cmdline[0] the image: the trace processor skips a process
 * without one). */
static bool pf_add_process(struct pf *x, uint32_t pid, uint32_t ppid, const char *image,
                           const char *cmdline)
{
    struct pb_buf b = { 0, 0, 0 };
    bool ok = pb_buf_varint_field(&b, PF_PROCESS_PID, pb_int32_bits((int32_t)pid)) &&
              pb_buf_varint_field(&b, PF_PROCESS_PPID, pb_int32_bits((int32_t)ppid));
    if (ok && image)
        ok = pb_buf_bytes_field(&b, PF_PROCESS_CMDLINE, image, strlen(image));
    if (ok && image && cmdline)
        ok = pb_buf_bytes_field(&b, PF_PROCESS_CMDLINE, cmdline, strlen(cmdline));
    ok = ok && pf_tree_entry(x, PF_TREE_PROCESSES, b.p, b.len);
    pb_buf_free(&b);
    return ok;
}

/* Appends a thread: its TID, owning PID and name when known. */
static bool pf_add_thread(struct pf *x, uint32_t tid, uint32_t pid, const char *name)
{
    uint8_t f[2 * (PB_VARINT_MAX + 1)];
    size_t n = pb_put_varint_field(f, PF_THREAD_TID, pb_int32_bits((int32_t)tid));
    n += pb_put_varint_field(f + n, PF_THREAD_TGID, pb_int32_bits((int32_t)pid));
    if (!name)
        return pf_tree_entry(x, PF_TREE_THREADS, f, n);
    struct pb_buf b = { 0, 0, 0 };
    uint8_t *o = pb_buf_room(&b, n);
    bool ok = o != NULL;
    if (ok) {
        memcpy(o, f, n);
        b.len = n;
        ok = pb_buf_bytes_field(&b, PF_THREAD_NAME, name, strlen(name)) &&
             pf_tree_entry(x, PF_TREE_THREADS, b.p, b.len);
    }
    pb_buf_free(&b);
    return ok;
}

/* Appends lifetime i of the threads or the processes. */
static bool pf_lifetime(struct pf *x, bool thread, uint32_t i)
{
    if (thread) {
        const struct etl_pm_thread *t = etl_procmap_thread(x->map, i);
        return pf_add_thread(x, t->tid, t->pid, etl_procmap_str(x->map, t->name));
    }
    const struct etl_pm_process *p = etl_procmap_process(x->map, i);
    const char *img = etl_procmap_str(x->map, p->image);
    if (!img && p->pid == 0)
        img = "Idle";
    return pf_add_process(x, p->pid, p->parent_id, img, etl_procmap_str(x->map, p->cmdline));
}

/* Appends the first lifetime of every TID (or PID) and lists the later ones
 * (the map sorts lifetimes by ID, then start); *idle tells whether ID 0 was
 * among them. */
static bool pf_first_lifetimes(struct pf *x, bool thread, bool *idle)
{
    size_t n = thread ? etl_procmap_nthreads(x->map) : etl_procmap_nprocesses(x->map);
    uint32_t prev = 0;
    *idle = false;
    for (uint32_t i = 0; i < n; i++) {
        const struct etl_pm_thread *t = thread ? etl_procmap_thread(x->map, i) : NULL;
        const struct etl_pm_process *p = thread ? NULL : etl_procmap_process(x->map, i);
        uint32_t id = t ? t->tid : p->pid;
        if (i > 0 && id == prev) {
            x->later[x->nlater++] = (struct pf_later){ t ? t->start : p->start, i, thread };
            continue;
        }
        prev = id;
        *idle = *idle || id == 0;
        if (!pf_lifetime(x, thread, i))
            return false;
    }
    return true;
}

/* Orders later lifetimes by start. */
static int cmp_later(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct pf_later *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread ? 1 : -1; /* processes before their threads */
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Writes the first tree (every ID's first lifetime, and Idle) at ts and
 * lists the later lifetimes; false when out of memory. */
static bool pf_first_tree(struct pf *x, uint64_t ts)
{
    size_t np = etl_procmap_nprocesses(x->map), nt = etl_procmap_nthreads(x->map);
    bool idle;
    x->later = malloc((np + nt ? np + nt : 1) * sizeof *x->later);
    if (!x->later)
        return false;
    x->tree_ts = ts;
    if (!pf_first_lifetimes(x, false, &idle) || (!idle && !pf_add_process(x, 0, 0, "Idle", NULL)))
        return false;
    if (!pf_first_lifetimes(x, true, &idle) || (!idle && !pf_add_thread(x, 0, 0, NULL)))
        return false;
    pf_flush_tree(x);
    if (x->nlater > 1)
        etl_sort(x->later, x->nlater, sizeof *x->later, cmp_later, NULL);
    x->tree_done = true;
    return true;
}

/* Names the lifetimes that start at or before raw time ts, after the events
 * so far; false when out of memory. */
static bool pf_later_tree(struct pf *x, int64_t ts)
{
    if (x->next_later >= x->nlater || x->later[x->next_later].start > ts)
        return true;
    pf_flush_events(x);
    x->tree_ts = pf_time(x, x->later[x->next_later].start);
    for (; x->next_later < x->nlater && x->later[x->next_later].start <= ts; x->next_later++) {
        const struct pf_later *l = &x->later[x->next_later];
        if (!pf_lifetime(x, l->thread, l->index))
            return false;
    }
    pf_flush_tree(x);
    return true;
}

/* ---- the export ---------------------------------------------------------------- */

/* The offset of the export's clock: ns from boot to the trace's start when
 * the header gives a usable boot time, else 0. */
static int64_t pf_offset(struct etl_file *f)
{
    int64_t boot = etl_file_header(f)->boot_time, start = etl_file_clock(f)->start_filetime;
    if (boot <= 0 || start < boot || start - boot > INT64_MAX / 100)
        return 0;
    return (start - boot) * 100;
}

static void pf_free(struct pf *x)
{
    pb_buf_free(&x->arena);
    pb_buf_free(&x->tree);
    free(x->ev);
    free(x->order);
    free(x->count);
    free(x->bytes);
    free(x->first_ts);
    free(x->cpus);
    free(x->later);
}

static int pf_export(struct etl_printer *p, struct etl_file *f, const struct etl_view_opts *o)
{
    const struct etl_filter *flt = etl_filter_any(o->filter) ? o->filter : NULL;
    if (flt && (flt->tid.set || flt->pid.set || flt->nprocess))
        etl_warn(f, "-f perfetto: --tid, --pid and --process are left out: the trace keeps "
                 "every thread's switches (--cpu and --range apply)");
    struct pf x;
    memset(&x, 0, sizeof x);
    x.out = p->out;
    x.clk = etl_file_clock(f);
    x.offset = pf_offset(f);
    x.first_packet = true;
    x.ev = malloc(PF_BUNDLE_EVENTS * sizeof *x.ev);
    x.order = malloc(PF_BUNDLE_EVENTS * sizeof *x.order);
    x.count = calloc(ETL_MAX_CPUS, sizeof *x.count);
    x.bytes = calloc(ETL_MAX_CPUS, sizeof *x.bytes);
    x.first_ts = calloc(ETL_MAX_CPUS, sizeof *x.first_ts);
    x.cpus = calloc(ETL_MAX_CPUS, sizeof *x.cpus);
    struct etl_switch_pass sp;
    memset(&sp, 0, sizeof sp);
    bool ok = x.ev && x.order && x.count && x.bytes && x.first_ts && x.cpus &&
              etl_switch_pass_open(f, o->max_wait_reason, &sp);
    x.map = sp.map;
    etl_filter_notes(flt, NULL, f);
    struct etl_sched_item it;
    /* --strict stops at the first problem, one found before any switch
     * (the index's) included. */
    while (ok && !p->out->err && !(o->strict && etl_file_problems(f)) &&
           etl_sched_next(sp.reader, &it)) {
        /* Switches, and ReadyThread events (format.md §16) whose readying
         * thread (the one running on that CPU then) is known. */
        if (it.kind == ETL_SCHED_INTR || (it.kind == ETL_SCHED_READY && !it.on_known))
            continue;
        if (!x.tree_done)
            ok = pf_first_tree(&x, pf_time(&x, it.ts));
        ok = ok && pf_later_tree(&x, it.ts);
        if (flt && (!etl_id_list_has(&flt->cpu, it.cpu) || !etl_filter_time(flt, x.clk, it.ts)))
            continue;
        uint8_t *room = ok ? pf_room(&x) : NULL;
        if (!room) {
            ok = false;
            break;
        }
        uint64_t ts = pf_time(&x, it.ts);
        if (it.kind == ETL_SCHED_SWITCH) {
            pf_commit(&x, it.cpu, ts, etl_pf_cswitch_event(room, ts, &it.u.sw));
        } else {
            const struct etl_ready *rd = &it.u.ready;
            pf_commit(&x, it.cpu, ts,
                      etl_pf_ready_event(room, ts, it.cpu, it.on_tid, rd->tid,
                                         rd->adjust_reason, rd->adjust_increment, rd->flag));
        }
    }
    if (ok && !x.tree_done)
        ok = pf_first_tree(&x, pf_time(&x, x.clk->t0));
    if (ok)
        pf_flush_events(&x);
    if (ok)
        etl_switch_reader_check_bias(sp.reader, o->max_wait_reason != 0);
    if (!ok)
        etl_file_nomem(f);
    else if (!p->out->err && !(o->strict && etl_file_problems(f)))
        etl_view_switches_end(f, sp.reader, sp.streams, o->filter, ETL_SEEN_NONE, NULL);
    pf_free(&x);
    etl_switch_pass_close(&sp);
    return etl_print_status(p);
}

const struct etl_printer_ops etl_export_perfetto = {
    .name = "perfetto",
    .export = pf_export,
};
