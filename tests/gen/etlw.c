/*
 * etlw: independent test trace writer (see etlw.h for what it writes and the
 * exact expectations it reports). Written from the format notes only.
 */
#define _POSIX_C_SOURCE 200809L

#include "etlw.h"

#include "lz77_compress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- format constants (format notes sections 2, 3, 4, 6, 7, 8) ---- */
#define BUF_HDR 0x48u             /* WMI_BUFFER_HEADER size */
#define BF_FLUSH_MARKER 0x0001u
#define BF_BUFFER_LOST 0x0004u
#define BF_PROC_INDEX 0x0020u
#define BF_COMPRESSED 0x0040u
#define BT_GENERIC 0u
#define BT_HEADER 4u
#define STATE_FLUSH 3u
#define MODE_SEQUENTIAL 0x00000001u
#define MODE_CIRCULAR 0x00000002u
#define MODE_COMPRESSED 0x04000000u
#define HOOK_HEADER 0x0000u
#define HOOK_HEADER_EXT 0x0005u
#define HOOK_RUNDOWN_COMPLETE 0x0008u
#define HOOK_GROUP_MASKS_END 0x0020u
#define HOOK_PARTITION_INFO 0x0050u
#define HOOK_CSWITCH 0x0524u
#define HOOK_CSWITCH_BATCH 0x0525u
#define HOOK_READY_THREAD 0x0532u
#define HOOK_SAMPLE 0x0F2Eu
#define SYS_HDR 0x20u
#define COMPACT_SYS_HDR 0x18u
#define PERF_HDR 0x10u
#define CSWAP_SIZE 0x18u
#define CCS_HDR 0x58u             /* PERFINFO_CCSWAP_BUFFER */
#define BATCH_MAX 0x400u          /* CCSWAP buffer + records */
#define CCS_TIDS 16u
#define EH_SIZE 0x50u             /* EVENT_HEADER */
#define FULL_HDR 0x30u            /* EVENT_TRACE_HEADER */
#define MIN_BUFFER 0x600u

#define FORM_IDLE_SHORT 0u
#define FORM_IDLE 1u
#define FORM_LITE 2u
#define FORM_FULL 3u

#define OUT_CAP ((size_t)1 << 20)

#if defined(__GNUC__)
#define ETLW_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ETLW_PRINTF(a, b)
#endif

struct row {
    struct etlw_expect e;
    uint32_t seg;   /* buffer segment the record landed in */
    uint8_t final;  /* all columns known */
};

struct cpu {
    uint8_t *buf;           /* current buffer, buffer_size bytes, 0xFF beyond off */
    uint32_t off;           /* fill offset (8-aligned) */
    uint16_t extra_flags;   /* BUFFER_LOST for the current buffer */
    uint32_t seg;           /* incremented when a BUFFER_LOST buffer starts */
    bool any_added;
    int64_t last_added;     /* last timestamp given for this CPU */
    int64_t last_written;   /* last event timestamp placed in the stream */
    bool any_sw;
    int64_t last_sw_ts;
    uint64_t pmc[7];
    uint64_t pebs;
    /* open compact batch */
    bool bopen;
    int64_t b_first_ts, b_prev_ts;
    unsigned b_ntids;
    uint32_t b_tids[CCS_TIDS];
    int8_t b_base[CCS_TIDS];
    uint32_t b_len;
    uint8_t b_rec[BATCH_MAX - CCS_HDR];
    uint64_t b_row_first;
    /* expected rows of this CPU, absolute indexes qhead..qtail */
    struct row *q;
    uint64_t qcap; /* power of two */
    uint64_t qhead, qtail;
    bool awaiting;
    uint64_t await_idx;
};

struct etlw {
    struct etlw_config cfg;
    char err[256];
    bool failed;
    int fd;
    struct cpu *cpus;
    uint64_t next_seq;
    uint64_t file_off;      /* bytes written so far (including staged) */
    uint32_t hdr_disk_size;
    uint8_t *zbuf;
    size_t zcap;
    uint8_t *obuf;
    size_t olen;
    bool any_feed;
    int64_t feed_max;       /* highest switch timestamp given (any CPU) */
    bool any_ts;
    int64_t max_ts;         /* highest timestamp of any event */
    uint32_t lost_count;
    struct etlw_stats st;
};

/* ---- little-endian stores ---- */
static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)((v >> 8) & 0xFFu);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)((v >> 8) & 0xFFu);
    p[2] = (uint8_t)((v >> 16) & 0xFFu);
    p[3] = (uint8_t)((v >> 24) & 0xFFu);
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v & 0xFFFFFFFFu));
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint32_t align8(uint32_t v) { return (v + 7u) & ~7u; }

/* UTF-16LE copy of an ASCII string plus NUL; returns bytes written. */
static uint32_t put_utf16z(uint8_t *p, const char *s)
{
    uint32_t n = 0;
    for (; *s; s++, n += 2)
        put16(p + n, (uint32_t)(unsigned char)*s);
    put16(p + n, 0);
    return n + 2;
}

static void set_err(struct etlw *w, const char *fmt, ...) ETLW_PRINTF(2, 3);
static void set_err(struct etlw *w, const char *fmt, ...)
{
    if (w->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    w->failed = true;
}

const char *etlw_error(const struct etlw *w) { return w->err; }

const struct etlw_config *etlw_get_config(const struct etlw *w) { return &w->cfg; }

uint32_t etlw_cpu_seg(const struct etlw *w, unsigned cpu) { return cpu < w->cfg.ncpus ? w->cpus[cpu].seg : 0; }

void etlw_get_stats(const struct etlw *w, struct etlw_stats *st)
{
    *st = w->st;
    st->file_bytes = w->file_off;
}

unsigned etlw_default_max_wait_reason(uint32_t build) { return build <= 19041u ? 0x27u : 0x2Au; }

void etlw_config_defaults(struct etlw_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->ptr_size = 8;
    cfg->ncpus = 4;
    cfg->buffer_size = 8192;
    cfg->build = 19041;
    cfg->os_major = 10;
    cfg->os_minor = 0;
    cfg->perf_freq = 10000000;
    cfg->start_filetime = 132392018711387363LL; /* 2020-07-14 */
    cfg->t0 = 110000000000LL;
    cfg->clock_type = 1;
    cfg->timer_resolution = 156250;
    cfg->cpu_speed_mhz = 3000;
    cfg->cswitch_version = 4;
    cfg->max_wait_reason = etlw_default_max_wait_reason(cfg->build);
    cfg->kernel_event_version = 80;
    cfg->logger_id = 20;
    cfg->first_ts = ETLW_FTS_FIRST_SWITCH;
}

/* ---- names (format notes section 9) ---- */
static const char *const state_names[] = {
    "Initialized", "Ready", "Running", "Standby", "Terminated",
    "Waiting", "Transition", "DeferredReady", "GateWait", "WaitingForProcessInSwap",
};

static const char *const wait_reason_names[] = {
    "Executive", "FreePage", "PageIn", "PoolAllocation", "DelayExecution",
    "Suspended", "UserRequest", "WrExecutive", "WrFreePage", "WrPageIn",
    "WrPoolAllocation", "WrDelayExecution", "WrSuspended", "WrUserRequest", "WrEventPair",
    "WrQueue", "WrLpcReceive", "WrLpcReply", "WrVirtualMemory", "WrPageOut",
    "WrRendezvous", "WrKeyedEvent", "WrTerminated", "WrProcessInSwap", "WrCpuRateControl",
    "WrCalloutStack", "WrKernel", "WrResource", "WrPushLock", "WrMutex",
    "WrQuantumEnd", "WrDispatchInt", "WrPreempted", "WrYieldExecution", "WrFastMutex",
    "WrGuardedMutex", "WrRundown", "WrAlertByThreadId", "WrDeferredPreempt", "WrPhysicalFault",
    "WrIoRing", "WrMdlCache", "WrRcu",
};

const char *etlw_state_name(unsigned state)
{
    return state < sizeof state_names / sizeof state_names[0] ? state_names[state] : NULL;
}

const char *etlw_wait_reason_name(unsigned wr)
{
    return wr < sizeof wait_reason_names / sizeof wait_reason_names[0] ? wait_reason_names[wr] : NULL;
}

struct sbuf {
    char *p;
    size_t cap, len;
};

static void sb_add(struct sbuf *sb, const char *fmt, ...) ETLW_PRINTF(2, 3);
static void sb_add(struct sbuf *sb, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    for (int i = 0; i < n && tmp[i]; i++) {
        if (sb->len + 1 < sb->cap)
            sb->p[sb->len] = tmp[i];
        sb->len++;
    }
}

static void sb_name(struct sbuf *sb, const char *name, unsigned v)
{
    if (name)
        sb_add(sb, ",%s", name);
    else
        sb_add(sb, ",%u", v);
}

size_t etlw_format_expect(const struct etlw_expect *r, char *buf, size_t cap)
{
    struct sbuf sb = {buf, cap, 0};
    uint32_t h = r->has;
    sb_add(&sb, "%u,%lld,%lu", (unsigned)r->cpu, (long long)r->ts, (unsigned long)r->old_tid);
    if (h & ETLW_HAS_NEW_TID)
        sb_add(&sb, ",%lu", (unsigned long)r->new_tid);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_OLD_PRIORITY)
        sb_add(&sb, ",%d", (int)r->old_priority);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_NEW_PRIORITY)
        sb_add(&sb, ",%d", (int)r->new_priority);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_OLD_STATE)
        sb_name(&sb, etlw_state_name(r->old_state), r->old_state);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_OLD_WAIT_REASON)
        sb_name(&sb, etlw_wait_reason_name(r->old_wait_reason), r->old_wait_reason);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_OLD_WAIT_MODE)
        sb_add(&sb, ",%s", (r->old_wait_mode & 1u) ? "UserMode" : "KernelMode");
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_NEW_WAIT_TIME)
        sb_add(&sb, ",%lu", (unsigned long)r->new_wait_time);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_IDEAL_CPU)
        sb_add(&sb, ",%u", (unsigned)r->ideal_cpu);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_PREV_CSTATE)
        sb_add(&sb, ",%u", (unsigned)r->prev_cstate);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_NEW_PRIO_DECREMENT)
        sb_add(&sb, ",%d", (int)r->new_priority_decrement);
    else
        sb_add(&sb, ",");
    if (h & ETLW_HAS_OLD_REMAINING_QUANTUM)
        sb_add(&sb, ",%ld", (long)r->old_remaining_quantum);
    else
        sb_add(&sb, ",");
    sb_add(&sb, ",%s", r->source == ETLW_SRC_COMPACT ? "compact" : "cswitch");
    if (h & ETLW_HAS_OLD_RANK)
        sb_add(&sb, ",%u", (unsigned)r->old_rank);
    else
        sb_add(&sb, ",");
    if (cap > 0)
        buf[sb.len < cap ? sb.len : cap - 1] = '\0';
    return sb.len;
}

/* ---- output ---- */
static int out_flush(struct etlw *w)
{
    size_t done = 0;
    while (done < w->olen) {
        ssize_t n = write(w->fd, w->obuf + done, w->olen - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            set_err(w, "write: %s", strerror(errno));
            return -1;
        }
        done += (size_t)n;
    }
    w->olen = 0;
    return 0;
}

static int out_write(struct etlw *w, const uint8_t *p, size_t n)
{
    while (n > 0) {
        if (w->olen == OUT_CAP && out_flush(w) != 0)
            return -1;
        size_t k = OUT_CAP - w->olen;
        if (k > n)
            k = n;
        memcpy(w->obuf + w->olen, p, k);
        w->olen += k;
        p += k;
        n -= k;
        w->file_off += k;
    }
    return 0;
}

static int pwrite_all(struct etlw *w, const uint8_t *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t k = pwrite(w->fd, p, n, (off_t)off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            set_err(w, "pwrite: %s", strerror(errno));
            return -1;
        }
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

static int pread_all(struct etlw *w, uint8_t *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t k = pread(w->fd, p, n, (off_t)off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            set_err(w, "pread: %s", strerror(errno));
            return -1;
        }
        if (k == 0) {
            set_err(w, "pread: unexpected end of file");
            return -1;
        }
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* ---- time ---- */
static int64_t ticks_to_100ns(const struct etlw *w, int64_t d)
{
    int64_t f = w->cfg.perf_freq > 0 ? w->cfg.perf_freq : 10000000;
    return (d / f) * 10000000 + ((d % f) * 10000000) / f;
}

/* ---- header buffer ---- */
static const char *logger_name(const struct etlw *w)
{
    return w->cfg.logger_name ? w->cfg.logger_name : "NT Kernel Logger";
}

static const char *log_file_name(const struct etlw *w)
{
    return w->cfg.log_file_name ? w->cfg.log_file_name : "C:\\etlw\\trace.etl";
}

static void default_masks(const struct etlw *w, uint32_t masks[8])
{
    bool any = false;
    for (int i = 0; i < 8; i++) {
        masks[i] = w->cfg.group_masks[i];
        any = any || masks[i] != 0;
    }
    if (!any)
        masks[1] = 0x4u | (w->cfg.uses_compact ? 0x100u : 0u);
}

static void put_sys_header(uint8_t *p, unsigned htype, uint32_t size, uint32_t hook, int64_t ts)
{
    put16(p, 2);
    p[2] = (uint8_t)htype;
    p[3] = 0xC0;
    put16(p + 4, size);
    put16(p + 6, hook);
    put32(p + 8, 0x1F80);  /* ThreadId */
    put32(p + 12, 0x17E0); /* ProcessId */
    put64(p + 16, (uint64_t)ts);
    put32(p + 24, 1); /* KernelTime */
    put32(p + 28, 0); /* UserTime */
}

/* Builds the header buffer into hb (hdr_disk_size bytes). Returns SavedOffset. */
static uint32_t build_header_buffer(const struct etlw *w, uint8_t *hb, uint32_t disk_size, uint32_t buffers_written,
                                    int64_t end_ts)
{
    const struct etlw_config *c = &w->cfg;
    bool p8 = c->ptr_size == 8;
    uint32_t ps = p8 ? 8u : 4u;
    uint32_t tlh = p8 ? 0x118u : 0x110u;
    memset(hb, 0xFF, disk_size);
    uint32_t off = BUF_HDR;

    /* logfile header event */
    uint8_t *p = hb + off;
    uint32_t names = 2u * ((uint32_t)strlen(logger_name(w)) + 1u) + 2u * ((uint32_t)strlen(log_file_name(w)) + 1u);
    uint32_t size = SYS_HDR + tlh + names;
    memset(p, 0, align8(size));
    put_sys_header(p, p8 ? 2u : 1u, size, HOOK_HEADER, c->t0);
    uint8_t *t = p + SYS_HDR;
    put32(t + 0x00, c->buffer_size);
    t[0x04] = c->os_major;
    t[0x05] = c->os_minor;
    t[0x06] = c->compress ? 2 : 1;
    t[0x07] = c->compress ? 0 : 5;
    put32(t + 0x08, c->build);
    put32(t + 0x0C, c->ncpus);
    put64(t + 0x10, (uint64_t)(c->start_filetime + ticks_to_100ns(w, end_ts - c->t0)));
    put32(t + 0x18, c->timer_resolution);
    put32(t + 0x1C, 0); /* MaximumFileSize */
    put32(t + 0x20, (c->circular ? MODE_CIRCULAR : MODE_SEQUENTIAL) | (c->compress ? MODE_COMPRESSED : 0u));
    put32(t + 0x24, buffers_written);
    put32(t + 0x28, 1); /* StartBuffers */
    put32(t + 0x2C, ps);
    put32(t + 0x30, 0); /* EventsLost */
    put32(t + 0x34, c->cpu_speed_mhz);
    /* LoggerName / LogFileName: HAL timer sources since 6.1, not pointers */
    if (p8) {
        put64(t + 0x38, 10);
        put64(t + 0x40, 7);
    } else {
        put32(t + 0x38, 10);
        put32(t + 0x3C, 7);
    }
    uint8_t *tz = t + 0x38 + 2u * ps; /* TIME_ZONE_INFORMATION, 0xAC bytes */
    put32(tz, 0);                     /* Bias */
    put_utf16z(tz + 4, "Coordinated Universal Time");
    put_utf16z(tz + 4 + 64 + 16 + 4, "Coordinated Universal Time");
    /* 4-byte gap after the 0xAC-byte time zone, then BootTime */
    uint8_t *bt = tz + 0xAC + 4;
    put64(bt, (uint64_t)(c->start_filetime - ticks_to_100ns(w, c->t0)));
    put64(bt + 8, (uint64_t)c->perf_freq);
    put64(bt + 16, (uint64_t)c->start_filetime);
    put32(bt + 24, c->clock_type);
    put32(bt + 28, w->lost_count); /* BuffersLost */
    uint32_t n = put_utf16z(t + tlh, logger_name(w));
    put_utf16z(t + tlh + n, log_file_name(w));
    off += align8(size);

    /* header extension: group masks + kernel event version */
    p = hb + off;
    size = SYS_HDR + 0x24u;
    memset(p, 0, align8(size));
    put_sys_header(p, p8 ? 2u : 1u, size, HOOK_HEADER_EXT, c->t0);
    uint32_t masks[8];
    default_masks(w, masks);
    for (int i = 0; i < 8; i++)
        put32(p + SYS_HDR + 4u * (uint32_t)i, masks[i]);
    put32(p + SYS_HDR + 0x20, c->kernel_event_version);
    off += align8(size);

    /* partition info extension: SYSTEM64 in every sample, 0x30 zero bytes */
    p = hb + off;
    size = SYS_HDR + 0x30u;
    memset(p, 0, align8(size));
    put_sys_header(p, 2u, size, HOOK_PARTITION_INFO, c->t0);
    off += align8(size);

    /* WMI_BUFFER_HEADER */
    memset(hb, 0, BUF_HDR);
    put32(hb + 0x00, disk_size);
    put32(hb + 0x04, off);
    put32(hb + 0x08, off);
    put16(hb + 0x2A, c->logger_id);
    put32(hb + 0x2C, STATE_FLUSH);
    put32(hb + 0x30, off);
    put16(hb + 0x34, BF_FLUSH_MARKER);
    put16(hb + 0x36, BT_HEADER);
    return off;
}

/* ---- event buffers ---- */
static int flush_buffer(struct etlw *w, unsigned cpu, int64_t ts, bool final)
{
    struct cpu *c = &w->cpus[cpu];
    uint8_t *b = c->buf;
    uint32_t saved = c->off;
    uint16_t flags = (uint16_t)(BF_PROC_INDEX | c->extra_flags | (final ? BF_FLUSH_MARKER : 0u) |
                                (w->cfg.compress ? BF_COMPRESSED : 0u));
    uint64_t fake = 0xFFFF998700000000ull | ((uint64_t)cpu << 16) | ((w->next_seq & 0xFFFu) << 4);
    memset(b, 0, BUF_HDR);
    put32(b + 0x04, saved);
    put32(b + 0x08, w->cfg.buffer_size + saved); /* CurrentOffset: past the end, as in flushed buffers */
    put64(b + 0x10, (uint64_t)ts);
    put64(b + 0x18, w->next_seq);
    put64(b + 0x20, fake | 0x20u); /* stale pointer; readers ignore */
    put16(b + 0x28, cpu);
    put16(b + 0x2A, w->cfg.logger_id);
    put32(b + 0x2C, STATE_FLUSH);
    put32(b + 0x30, saved);
    put16(b + 0x34, flags);
    put16(b + 0x36, BT_GENERIC);
    put64(b + 0x38, fake | 0x38u);
    put64(b + 0x40, fake | 0x1038u);
    if (w->cfg.hole_buffer == w->st.buffers + 1 && saved > BUF_HDR + 160) {
        uint32_t at = BUF_HDR + ((saved - BUF_HDR) / 2 & ~7u);
        memset(b + at, 0, 80);
    }
    int rc;
    if (w->cfg.compress) {
        size_t clen = 0;
        if (saved > BUF_HDR) {
            clen = lz77_compress(b + BUF_HDR, saved - BUF_HDR, w->zbuf, w->zcap);
            if (clen == 0) {
                set_err(w, "lz77_compress failed");
                return -1;
            }
        }
        put32(b, BUF_HDR + (uint32_t)clen);
        rc = out_write(w, b, BUF_HDR);
        if (rc == 0)
            rc = out_write(w, w->zbuf, clen);
    } else {
        put32(b, w->cfg.buffer_size);
        rc = out_write(w, b, w->cfg.buffer_size);
    }
    if (rc != 0)
        return -1;
    w->next_seq++;
    w->st.buffers++;
    memset(b + BUF_HDR, 0xFF, saved - BUF_HDR);
    c->off = BUF_HDR;
    c->extra_flags = 0;
    return 0;
}

/* Space for one event of `size` bytes in the CPU's buffer (flushing first if
 * it does not fit); alignment padding is zeroed. */
static uint8_t *reserve(struct etlw *w, unsigned cpu, uint32_t size, int64_t ts)
{
    struct cpu *c = &w->cpus[cpu];
    uint32_t need = align8(size);
    if (need > w->cfg.buffer_size - BUF_HDR) {
        set_err(w, "event of %u bytes does not fit a buffer", (unsigned)size);
        return NULL;
    }
    if (c->off + need > w->cfg.buffer_size && flush_buffer(w, cpu, ts, false) != 0)
        return NULL;
    uint8_t *p = c->buf + c->off;
    memset(p, 0, need);
    c->off += need;
    c->last_written = ts;
    if (!w->any_ts || ts > w->max_ts)
        w->max_ts = ts;
    w->any_ts = true;
    return p;
}

/* PERFINFO header + PEBS/PMC items; returns the data pointer. */
static uint8_t *put_perfinfo(struct etlw *w, unsigned cpu, uint8_t *p, unsigned version, uint32_t size,
                             uint32_t hook, int64_t ts, bool pebs)
{
    struct cpu *c = &w->cpus[cpu];
    uint32_t marker = (version & 0xFFu) | ((uint32_t)w->cfg.pmc_count << 8) | (pebs ? 0x8000u : 0u) |
                      ((w->cfg.ptr_size == 8 ? 0x11u : 0x10u) << 16) | 0xC0000000u;
    put32(p, marker);
    put16(p + 4, size);
    put16(p + 6, hook);
    put64(p + 8, (uint64_t)ts);
    uint8_t *q = p + PERF_HDR;
    if (pebs) {
        c->pebs += 0x40u + (c->pebs & 0x3Fu);
        put64(q, c->pebs);
        q += 8;
    }
    for (unsigned k = 0; k < w->cfg.pmc_count; k++) {
        c->pmc[k] += 1000u + (uint64_t)k * 77u + ((c->pmc[k] >> 3) & 0x3FFu);
        put64(q, c->pmc[k]);
        q += 8;
    }
    return q;
}

static uint32_t perf_items(const struct etlw *w, bool pebs)
{
    return 8u * w->cfg.pmc_count + (pebs ? 8u : 0u);
}

/* ---- expected rows ---- */
static int q_push(struct etlw *w, struct cpu *c, const struct etlw_expect *e)
{
    if (c->qtail - c->qhead == c->qcap) {
        uint64_t ncap = c->qcap ? c->qcap * 2 : 256;
        struct row *nq = malloc((size_t)ncap * sizeof *nq);
        if (!nq) {
            set_err(w, "out of memory");
            return -1;
        }
        for (uint64_t i = c->qhead; i < c->qtail; i++)
            nq[i & (ncap - 1)] = c->q[i & (c->qcap - 1)];
        free(c->q);
        c->q = nq;
        c->qcap = ncap;
    }
    struct row *r = &c->q[c->qtail & (c->qcap - 1)];
    r->e = *e;
    r->seg = 0;
    r->final = 0;
    c->qtail++;
    return 0;
}

static struct row *q_at(struct cpu *c, uint64_t i) { return &c->q[i & (c->qcap - 1)]; }

/* Rows [from, to) of the CPU have landed in a buffer of segment seg. */
static void place_rows(struct cpu *c, uint64_t from, uint64_t to, uint32_t seg)
{
    for (uint64_t j = from; j < to; j++) {
        struct row *r = q_at(c, j);
        r->seg = seg;
        if (c->awaiting) {
            struct row *prev = q_at(c, c->await_idx);
            if (prev->seg == r->seg) {
                prev->e.new_tid = r->e.old_tid;
                prev->e.new_user = r->e.old_user;
                prev->e.has |= ETLW_HAS_NEW_TID;
            }
            prev->final = 1;
            c->awaiting = false;
        }
        if (r->e.source == ETLW_SRC_COMPACT) {
            c->awaiting = true;
            c->await_idx = j;
        } else {
            r->final = 1;
        }
    }
}

static void try_emit(struct etlw *w, bool closing)
{
    if (!w->cfg.expect_cb)
        return;
    for (;;) {
        struct row *best = NULL;
        struct cpu *bc = NULL;
        for (unsigned i = 0; i < w->cfg.ncpus; i++) {
            struct cpu *c = &w->cpus[i];
            if (c->qhead == c->qtail)
                continue;
            struct row *r = q_at(c, c->qhead);
            if (!best || r->e.ts < best->e.ts) { /* ties: lower CPU first */
                best = r;
                bc = c;
            }
        }
        if (!best || !best->final)
            return;
        if (!closing && !(best->e.ts < w->feed_max))
            return;
        best->e.seg = best->seg;
        w->cfg.expect_cb(w->cfg.expect_ctx, &best->e);
        bc->qhead++;
    }
}

/* ---- common checks ---- */
static int check_event(struct etlw *w, unsigned cpu, int64_t ts)
{
    if (w->failed)
        return -1;
    if (cpu >= w->cfg.ncpus) {
        set_err(w, "cpu %u out of range (ncpus %u)", cpu, w->cfg.ncpus);
        return -1;
    }
    struct cpu *c = &w->cpus[cpu];
    if (c->any_added && ts < c->last_added) {
        set_err(w, "cpu %u: timestamp %lld before previous %lld", cpu, (long long)ts, (long long)c->last_added);
        return -1;
    }
    return 0;
}

static int check_switch(struct etlw *w, const struct etlw_switch *sw)
{
    if (check_event(w, sw->cpu, sw->ts) != 0)
        return -1;
    if (w->cfg.expect_cb && w->any_feed && sw->ts < w->feed_max) {
        set_err(w, "switches must be added in global time order when expect_cb is set (%lld < %lld)",
                (long long)sw->ts, (long long)w->feed_max);
        return -1;
    }
    if (sw->old_wait_mode > 1) {
        set_err(w, "old_wait_mode %u not 0/1", (unsigned)sw->old_wait_mode);
        return -1;
    }
    return 0;
}

static void note_switch(struct etlw *w, struct cpu *c, int64_t ts)
{
    c->any_added = true;
    c->last_added = ts;
    c->any_sw = true;
    c->last_sw_ts = ts;
    if (!w->any_feed || ts > w->feed_max)
        w->feed_max = ts;
    w->any_feed = true;
}

/* ---- compact batches ---- */
static int close_batch(struct etlw *w, unsigned cpu)
{
    struct cpu *c = &w->cpus[cpu];
    if (!c->bopen)
        return 0;
    uint32_t size = PERF_HDR + perf_items(w, false) + CCS_HDR + c->b_len;
    int64_t ts = c->b_prev_ts > c->last_written ? c->b_prev_ts : c->last_written;
    uint8_t *p = reserve(w, cpu, size, ts);
    if (!p)
        return -1;
    uint8_t *q = put_perfinfo(w, cpu, p, 2, size, HOOK_CSWITCH_BATCH, ts, false);
    put64(q, (uint64_t)c->b_first_ts);
    for (unsigned i = 0; i < CCS_TIDS; i++)
        put32(q + 8 + 4 * i, c->b_tids[i]);
    for (unsigned i = 0; i < CCS_TIDS; i++)
        q[0x48 + i] = (uint8_t)c->b_base[i];
    memcpy(q + CCS_HDR, c->b_rec, c->b_len);
    c->bopen = false;
    w->st.compact_batches++;
    if (w->cfg.expect_cb)
        place_rows(c, c->b_row_first, c->qtail, c->seg);
    return 0;
}

static void open_batch(struct etlw *w, struct cpu *c, int64_t ts)
{
    int64_t first = ts;
    if (w->cfg.first_ts == ETLW_FTS_PREV_SWITCH && c->any_sw && ts - c->last_sw_ts < ((int64_t)1 << 30))
        first = c->last_sw_ts;
    c->bopen = true;
    c->b_first_ts = first;
    c->b_prev_ts = first;
    c->b_ntids = 0;
    memset(c->b_tids, 0, sizeof c->b_tids);
    memset(c->b_base, 0, sizeof c->b_base);
    c->b_len = 0;
    c->b_row_first = c->qtail;
}

int etlw_add_compact(struct etlw *w, const struct etlw_switch *sw)
{
    if (check_switch(w, sw) != 0)
        return -1;
    unsigned cpu = sw->cpu;
    struct cpu *c = &w->cpus[cpu];
    bool idle = sw->old_tid == 0;
    unsigned mwr = w->cfg.max_wait_reason;
    uint32_t swr = 0;
    if (!idle) {
        if (sw->old_priority < 0 || sw->old_priority > 31) {
            set_err(w, "compact: old_priority %d outside 0..31", (int)sw->old_priority);
            return -1;
        }
        if (sw->new_wait_time >= (1u << 17)) {
            set_err(w, "compact: new_wait_time %lu does not fit 17 bits", (unsigned long)sw->new_wait_time);
            return -1;
        }
        if (sw->old_state == ETLW_STATE_WAITING) {
            if (sw->old_wait_reason >= mwr) {
                set_err(w, "compact: wait reason %u >= MaximumWaitReason %u", (unsigned)sw->old_wait_reason, mwr);
                return -1;
            }
            swr = sw->old_wait_reason;
        } else {
            swr = (uint32_t)sw->old_state + mwr;
            if (swr > 63) {
                set_err(w, "compact: state %u + bias %u does not fit 6 bits", (unsigned)sw->old_state, mwr);
                return -1;
            }
        }
    }

    unsigned idx = 0;
    uint64_t delta = 0;
    unsigned form = 0;
    uint32_t rsize = 0;
    bool found = false;
    for (int attempt = 0;; attempt++) {
        if (attempt > 2) {
            set_err(w, "compact: internal error");
            return -1;
        }
        if (!c->bopen)
            open_batch(w, c, sw->ts);
        int64_t d = sw->ts - c->b_prev_ts;
        if (d >= ((int64_t)1 << 30)) {
            if (close_batch(w, cpu) != 0)
                return -1;
            continue;
        }
        delta = (uint64_t)d;
        found = false;
        if (!idle) {
            for (idx = 0; idx < c->b_ntids; idx++)
                if (c->b_tids[idx] == sw->old_tid)
                    break;
            found = idx < c->b_ntids;
            if (!found && c->b_ntids == CCS_TIDS) {
                if (close_batch(w, cpu) != 0)
                    return -1;
                continue;
            }
            int base = found ? c->b_base[idx] : sw->old_base_priority;
            int inc = sw->old_priority - base;
            if (sw->new_wait_time <= 1 && delta < (1u << 17) && inc >= 0 && inc <= 7) {
                form = FORM_LITE;
                rsize = 4;
            } else {
                form = FORM_FULL;
                rsize = 8;
            }
        } else if (delta < (1u << 14)) {
            form = FORM_IDLE_SHORT;
            rsize = 2;
        } else {
            form = FORM_IDLE;
            rsize = 4;
        }
        if (CCS_HDR + c->b_len + rsize > BATCH_MAX) {
            if (close_batch(w, cpu) != 0)
                return -1;
            continue;
        }
        break;
    }
    if (!idle && !found) {
        idx = c->b_ntids++;
        c->b_tids[idx] = sw->old_tid;
        c->b_base[idx] = sw->old_base_priority;
    }
    uint8_t *r = c->b_rec + c->b_len;
    uint32_t d32 = (uint32_t)delta;
    switch (form) {
    case FORM_IDLE_SHORT:
        put16(r, (d32 << 2) | FORM_IDLE_SHORT);
        break;
    case FORM_IDLE:
        put32(r, (d32 << 2) | FORM_IDLE);
        break;
    case FORM_LITE: {
        uint32_t inc = (uint32_t)(sw->old_priority - c->b_base[idx]);
        put32(r, FORM_LITE | ((uint32_t)idx << 2) | (inc << 6) | (swr << 9) | (d32 << 15));
        break;
    }
    default:
        put32(r, FORM_FULL | (d32 << 2));
        put32(r + 4, (uint32_t)idx | (swr << 4) | ((uint32_t)sw->old_priority << 10) | (sw->new_wait_time << 15));
        break;
    }
    c->b_len += rsize;
    c->b_prev_ts = sw->ts;
    w->st.compact_records[form]++;
    note_switch(w, c, sw->ts);

    if (w->cfg.expect_cb) {
        struct etlw_expect e;
        memset(&e, 0, sizeof e);
        e.cpu = sw->cpu;
        e.ts = sw->ts;
        e.old_tid = sw->old_tid;
        e.old_user = sw->old_user;
        e.source = ETLW_SRC_COMPACT;
        if (!idle) {
            e.old_priority = sw->old_priority;
            e.old_state = sw->old_state;
            e.has = ETLW_HAS_OLD_PRIORITY | ETLW_HAS_OLD_STATE;
            if (sw->old_state == ETLW_STATE_WAITING) {
                e.old_wait_reason = sw->old_wait_reason;
                e.has |= ETLW_HAS_OLD_WAIT_REASON;
            }
            if (form == FORM_FULL) {
                e.new_wait_time = sw->new_wait_time;
                e.has |= ETLW_HAS_NEW_WAIT_TIME;
            }
        }
        if (q_push(w, c, &e) != 0)
            return -1;
        try_emit(w, false);
    }
    return w->failed ? -1 : 0;
}

/* ---- CSwitch ---- */
int etlw_add_cswitch(struct etlw *w, const struct etlw_switch *sw)
{
    if (check_switch(w, sw) != 0)
        return -1;
    unsigned cpu = sw->cpu;
    struct cpu *c = &w->cpus[cpu];
    if (close_batch(w, cpu) != 0)
        return -1;
    bool pebs = w->cfg.pebs;
    uint32_t size = PERF_HDR + perf_items(w, pebs) + CSWAP_SIZE;
    uint8_t *p = reserve(w, cpu, size, sw->ts);
    if (!p)
        return -1;
    uint8_t *q = put_perfinfo(w, cpu, p, w->cfg.cswitch_version, size, HOOK_CSWITCH, sw->ts, pebs);
    uint8_t flag_mask = w->cfg.cswitch_version >= 4 ? 0x7E : w->cfg.cswitch_version == 3 ? 0x06 : 0x00;
    put32(q + 0x00, sw->new_tid);
    put32(q + 0x04, sw->old_tid);
    q[0x08] = (uint8_t)sw->new_priority;
    q[0x09] = (uint8_t)sw->old_priority;
    q[0x0A] = sw->old_tid == 0 ? sw->prev_cstate : sw->old_rank;
    q[0x0B] = (uint8_t)sw->new_priority_decrement;
    q[0x0C] = sw->old_wait_reason;
    q[0x0D] = (uint8_t)((sw->old_wait_mode & 1u) | (sw->wait_mode_flags & flag_mask));
    q[0x0E] = sw->old_state;
    q[0x0F] = sw->ideal_cpu;
    put32(q + 0x10, sw->new_wait_time);
    put32(q + 0x14, (uint32_t)sw->old_remaining_quantum);
    w->st.cswitch_events++;
    note_switch(w, c, sw->ts);

    if (w->cfg.expect_cb) {
        struct etlw_expect e;
        memset(&e, 0, sizeof e);
        e.cpu = sw->cpu;
        e.ts = sw->ts;
        e.source = ETLW_SRC_CSWITCH;
        e.old_tid = sw->old_tid;
        e.new_tid = sw->new_tid;
        e.old_user = sw->old_user;
        e.new_user = sw->new_user;
        e.old_priority = sw->old_priority;
        e.new_priority = sw->new_priority;
        e.old_state = sw->old_state;
        e.old_wait_reason = sw->old_wait_reason;
        e.old_wait_mode = sw->old_wait_mode & 1u;
        e.new_wait_time = sw->new_wait_time;
        e.ideal_cpu = sw->ideal_cpu;
        e.prev_cstate = sw->prev_cstate;
        e.old_rank = sw->old_rank;
        e.new_priority_decrement = sw->new_priority_decrement;
        e.old_remaining_quantum = sw->old_remaining_quantum;
        e.has = ETLW_HAS_NEW_TID | ETLW_HAS_OLD_PRIORITY | ETLW_HAS_NEW_PRIORITY | ETLW_HAS_OLD_STATE |
                ETLW_HAS_OLD_WAIT_REASON | ETLW_HAS_OLD_WAIT_MODE | ETLW_HAS_NEW_WAIT_TIME | ETLW_HAS_IDEAL_CPU |
                ETLW_HAS_NEW_PRIO_DECREMENT | ETLW_HAS_OLD_REMAINING_QUANTUM |
                (sw->old_tid == 0 ? ETLW_HAS_PREV_CSTATE : ETLW_HAS_OLD_RANK);
        if (q_push(w, c, &e) != 0)
            return -1;
        place_rows(c, c->qtail - 1, c->qtail, c->seg);
        try_emit(w, false);
    }
    return w->failed ? -1 : 0;
}

/* ---- other events ---- */
static void put_guid(uint8_t *p, uint32_t a, uint32_t salt)
{
    put32(p, a);
    put16(p + 4, 0x4A1Bu ^ (salt & 0xFFFFu));
    put16(p + 6, 0x4E2Cu);
    for (unsigned i = 0; i < 8; i++)
        p[8 + i] = (uint8_t)(0x90u + i * 17u + (salt >> (i & 3u)));
}

static int misc_event_header(struct etlw *w, unsigned cpu, int64_t ts, unsigned htype, uint32_t salt)
{
    uint32_t ds = 11u + salt % 16u;     /* extended item data */
    uint32_t item = 8u + align8(ds);
    uint32_t ud = 1u + salt % 23u;      /* user data */
    uint32_t size = EH_SIZE + item + ud;
    uint8_t *p = reserve(w, cpu, size, ts);
    if (!p)
        return -1;
    put16(p, size);
    p[2] = (uint8_t)htype;
    p[3] = 0xC0;
    put16(p + 4, 0x0001); /* EXTENDED_INFO */
    put16(p + 6, 0);
    put32(p + 8, 0x2000u + (salt & 0xFFCu));
    put32(p + 12, 0x1000u + (salt & 0x7FCu));
    put64(p + 16, (uint64_t)ts);
    put_guid(p + 0x18, 0x0CD1C309u, 7);
    put16(p + 0x28, salt % 100u); /* Id */
    p[0x2A] = 0;                  /* Version */
    p[0x2B] = 11;                 /* Channel */
    p[0x2C] = 4;                  /* Level */
    p[0x2D] = 0;                  /* Opcode */
    put16(p + 0x2E, 0);           /* Task */
    put64(p + 0x30, 0x8000000000000000ull);
    put64(p + 0x38, 0); /* Kernel/User time */
    put_guid(p + 0x40, salt, salt);
    uint8_t *x = p + EH_SIZE;
    put16(x, item);
    put16(x + 2, 12); /* EVENT_HEADER_EXT_TYPE_PROV_TRAITS */
    put16(x + 4, 0);  /* no linkage: last item */
    put16(x + 6, ds);
    put16(x + 8, ds);
    for (uint32_t i = 2; i < ds; i++)
        x[8 + i] = (uint8_t)('a' + (i + salt) % 26u);
    uint8_t *u = x + item;
    for (uint32_t i = 0; i < ud; i++)
        u[i] = (uint8_t)(0x24u + i * 3u);
    return 0;
}

int etlw_add_misc(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_misc kind, uint32_t salt)
{
    if (check_event(w, cpu, ts) != 0)
        return -1;
    struct cpu *c = &w->cpus[cpu];
    bool p8 = w->cfg.ptr_size == 8;
    uint8_t *p;
    uint32_t size;
    switch (kind) {
    case ETLW_MISC_EVENT_HEADER:
        if (misc_event_header(w, cpu, ts, p8 ? 0x13u : 0x12u, salt) != 0)
            return -1;
        break;
    case ETLW_MISC_EVENT_HEADER32:
        if (misc_event_header(w, cpu, ts, 0x12u, salt) != 0)
            return -1;
        break;
    case ETLW_MISC_MESSAGE: {
        uint32_t args = 1u + salt % 13u;
        size = 8u + 4u + 16u + 8u + 8u + args;
        if (!(p = reserve(w, cpu, size, ts)))
            return -1;
        put16(p, size);
        p[2] = 0;
        p[3] = 0x90;
        put16(p + 4, 10u + salt % 50u);            /* MessageNumber */
        put16(p + 6, 0x0001u | 0x0002u | 0x0008u | 0x0020u); /* seq, GUID, time, TID/PID */
        put32(p + 8, salt);
        put_guid(p + 12, 0x5EA1C0DEu, salt & 3u);
        put64(p + 28, (uint64_t)ts);
        put32(p + 36, 0x3000u + (salt & 0xFFCu));
        put32(p + 40, 0x1000u + (salt & 0x7FCu));
        for (uint32_t i = 0; i < args; i++)
            p[44 + i] = (uint8_t)(i + 1u);
        break;
    }
    case ETLW_MISC_SYSTEM_0050:
        size = SYS_HDR + 0x30u;
        if (!(p = reserve(w, cpu, size, ts)))
            return -1;
        put_sys_header(p, 2u, size, HOOK_PARTITION_INFO, ts);
        break;
    case ETLW_MISC_COMPACT_SYSTEM:
        size = COMPACT_SYS_HDR + 8u;
        if (!(p = reserve(w, cpu, size, ts)))
            return -1;
        put16(p, 2);
        p[2] = p8 ? 4 : 3;
        p[3] = 0xC0;
        put16(p + 4, size);
        put16(p + 6, HOOK_READY_THREAD);
        put32(p + 8, 0x2000u + (salt & 0xFFCu));
        put32(p + 12, 0x1000u + (salt & 0x7FCu));
        put64(p + 16, (uint64_t)ts);
        put32(p + 24, (w->cfg.misc_odd_tid ? 0x2001u : 0x2004u) + (salt & 0xFF8u));
        put32(p + 28, salt);
        break;
    case ETLW_MISC_FULL_HEADER: {
        uint32_t data = 4u + salt % 9u;
        size = FULL_HDR + data;
        if (!(p = reserve(w, cpu, size, ts)))
            return -1;
        put16(p, size);
        p[2] = p8 ? 0x14 : 0x0A;
        p[3] = 0xC0;
        p[4] = 1; /* Class.Type */
        p[5] = 4; /* Class.Level */
        put16(p + 6, 0);
        put32(p + 8, 0x2000u + (salt & 0xFFCu));
        put32(p + 12, 0x1000u + (salt & 0x7FCu));
        put64(p + 16, (uint64_t)ts);
        put_guid(p + 0x18, 0x68FDD900u, salt & 1u);
        put64(p + 0x28, 0);
        for (uint32_t i = 0; i < data; i++)
            p[FULL_HDR + i] = (uint8_t)(0xA0u + i);
        break;
    }
    case ETLW_MISC_PERFINFO_SAMPLE: {
        uint32_t ps = p8 ? 8u : 4u;
        size = PERF_HDR + perf_items(w, false) + ps + 8u;
        if (!(p = reserve(w, cpu, size, ts)))
            return -1;
        uint8_t *q = put_perfinfo(w, cpu, p, 2, size, HOOK_SAMPLE, ts, false);
        if (p8)
            put64(q, 0xFFFFF80212345000ull + salt);
        else
            put32(q, 0x82345000u + salt);
        put32(q + ps, 0x2000u + (salt & 0xFFCu));
        put16(q + ps + 4, 1);
        put16(q + ps + 6, 0);
        break;
    }
    case ETLW_MISC_GROUP_MASKS: {
        uint32_t masks[8];
        default_masks(w, masks);
        size = PERF_HDR + perf_items(w, false) + 0x24u;
        for (int k = 0; k < 2; k++) {
            if (!(p = reserve(w, cpu, size, ts)))
                return -1;
            uint8_t *q = put_perfinfo(w, cpu, p, 2, size, k == 0 ? HOOK_GROUP_MASKS_END : HOOK_HEADER_EXT, ts, false);
            for (int i = 0; i < 8; i++)
                put32(q + 4 * i, masks[i]);
            put32(q + 0x20, w->cfg.kernel_event_version);
        }
        w->st.misc_events++; /* two events; one more counted below */
        break;
    }
    case ETLW_MISC_RUNDOWN_COMPLETE:
        size = PERF_HDR + perf_items(w, false);
        if (!(p = reserve(w, cpu, size, ts)))
            return -1;
        put_perfinfo(w, cpu, p, 2, size, HOOK_RUNDOWN_COMPLETE, ts, false);
        break;
    default:
        set_err(w, "unknown misc event kind %d", (int)kind);
        return -1;
    }
    w->st.misc_events++;
    c->any_added = true;
    c->last_added = ts;
    return 0;
}

int etlw_add_raw(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_hdr hdr, uint16_t hook,
                 unsigned version, uint32_t tid, uint32_t pid, const uint8_t *data, uint32_t len)
{
    if (check_event(w, cpu, ts) != 0)
        return -1;
    bool p8 = w->cfg.ptr_size == 8;
    uint32_t size = (hdr == ETLW_HDR_SYSTEM ? SYS_HDR : PERF_HDR + perf_items(w, false)) + len;
    if (size > 0xFFFFu) {
        set_err(w, "event of %u bytes is too large", (unsigned)size);
        return -1;
    }
    uint8_t *p = reserve(w, cpu, size, ts);
    if (!p)
        return -1;
    uint8_t *q;
    if (hdr == ETLW_HDR_SYSTEM) {
        put16(p, version);
        p[2] = p8 ? 2 : 1; /* SYSTEM64 / SYSTEM32 */
        p[3] = 0xC0;
        put16(p + 4, size);
        put16(p + 6, hook);
        put32(p + 8, tid);
        put32(p + 12, pid);
        put64(p + 16, (uint64_t)ts);
        put32(p + 24, 2); /* KernelTime */
        put32(p + 28, 0); /* UserTime */
        q = p + SYS_HDR;
    } else {
        q = put_perfinfo(w, cpu, p, version, size, hook, ts, false);
    }
    if (len)
        memcpy(q, data, len);
    w->st.misc_events++;
    w->cpus[cpu].any_added = true;
    w->cpus[cpu].last_added = ts;
    return 0;
}

int etlw_mark_lost(struct etlw *w, unsigned cpu)
{
    if (w->failed)
        return -1;
    if (cpu >= w->cfg.ncpus) {
        set_err(w, "cpu %u out of range", cpu);
        return -1;
    }
    struct cpu *c = &w->cpus[cpu];
    if (c->off > BUF_HDR && flush_buffer(w, cpu, c->last_written, false) != 0)
        return -1;
    if (!(c->extra_flags & BF_BUFFER_LOST)) {
        c->extra_flags |= BF_BUFFER_LOST;
        c->seg++;
        w->lost_count++;
        w->st.lost_buffers++;
    }
    return 0;
}

/* ---- open / close ---- */
struct etlw *etlw_open(const char *path, const struct etlw_config *cfg, char *err, size_t errcap)
{
    const char *msg = NULL;
    if (cfg->ptr_size != 4 && cfg->ptr_size != 8)
        msg = "ptr_size must be 4 or 8";
    else if (cfg->ncpus < 1 || cfg->ncpus > 4096)
        msg = "ncpus must be 1..4096";
    else if (cfg->buffer_size < MIN_BUFFER || cfg->buffer_size % 8 != 0 || cfg->buffer_size > (1u << 30))
        msg = "buffer_size must be a multiple of 8, >= 0x600";
    else if (cfg->cswitch_version < 2 || cfg->cswitch_version > 4)
        msg = "cswitch_version must be 2, 3 or 4";
    else if (cfg->max_wait_reason < 1 || cfg->max_wait_reason > 54)
        msg = "max_wait_reason must be 1..54";
    else if (cfg->pmc_count > 7)
        msg = "pmc_count must be 0..7";
    else if (cfg->perf_freq <= 0)
        msg = "perf_freq must be positive";
    if (msg) {
        snprintf(err, errcap, "%s", msg);
        return NULL;
    }
    struct etlw *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    w->cfg = *cfg;
    w->fd = -1;
    w->next_seq = 1;
    w->cpus = calloc(cfg->ncpus, sizeof *w->cpus);
    w->obuf = malloc(OUT_CAP);
    w->zcap = (size_t)cfg->buffer_size + cfg->buffer_size / 8u + 64u;
    w->zbuf = cfg->compress ? malloc(w->zcap) : NULL;
    bool ok = w->cpus && w->obuf && (!cfg->compress || w->zbuf);
    for (unsigned i = 0; ok && i < cfg->ncpus; i++) {
        struct cpu *c = &w->cpus[i];
        c->buf = malloc(cfg->buffer_size);
        if (!c->buf) {
            ok = false;
            break;
        }
        memset(c->buf, 0xFF, cfg->buffer_size);
        c->off = BUF_HDR;
        c->last_written = cfg->t0;
        for (unsigned k = 0; k < 7; k++)
            c->pmc[k] = ((uint64_t)i << 40) + (uint64_t)k * 1000003u;
    }
    if (!ok) {
        snprintf(err, errcap, "out of memory");
        etlw_close(w, NULL, NULL, 0);
        return NULL;
    }
    w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (w->fd < 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        etlw_close(w, NULL, NULL, 0);
        return NULL;
    }
    w->max_ts = cfg->t0;
    w->any_ts = true;
    /* Header buffer: written now, rewritten at close with the final counts. */
    uint8_t *hb = malloc(cfg->buffer_size);
    if (!hb) {
        snprintf(err, errcap, "out of memory");
        etlw_close(w, NULL, NULL, 0);
        return NULL;
    }
    uint32_t saved = build_header_buffer(w, hb, cfg->buffer_size, 0, cfg->t0);
    w->hdr_disk_size = cfg->compress ? (saved + 0x1FFu) & ~0x1FFu : cfg->buffer_size;
    build_header_buffer(w, hb, w->hdr_disk_size, 1, cfg->t0);
    int rc = out_write(w, hb, w->hdr_disk_size);
    free(hb);
    if (rc != 0) {
        snprintf(err, errcap, "%s", w->err);
        etlw_close(w, NULL, NULL, 0);
        return NULL;
    }
    return w;
}

/* Moves [h, s) after [s, e) in the file, in place, with constant memory. */
static int rotate_file(struct etlw *w, uint64_t h, uint64_t s, uint64_t e)
{
    size_t chunk = OUT_CAP;
    uint8_t *tmp = w->obuf; /* staging buffer is empty now */
    uint64_t a = s - h;
    for (uint64_t done = 0; done < a;) { /* copy [h, s) to [e, e + a) */
        size_t n = (size_t)(a - done < chunk ? a - done : chunk);
        if (pread_all(w, tmp, n, h + done) != 0 || pwrite_all(w, tmp, n, e + done) != 0)
            return -1;
        done += n;
    }
    uint64_t len = e + a - s;
    for (uint64_t done = 0; done < len;) { /* copy [s, e + a) down to h */
        size_t n = (size_t)(len - done < chunk ? len - done : chunk);
        if (pread_all(w, tmp, n, s + done) != 0 || pwrite_all(w, tmp, n, h + done) != 0)
            return -1;
        done += n;
    }
    if (ftruncate(w->fd, (off_t)e) != 0) {
        set_err(w, "ftruncate: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int make_circular(struct etlw *w)
{
    uint64_t h = w->hdr_disk_size, e = w->file_off;
    if (w->st.buffers < 2)
        return 0;
    uint64_t target = h + (e - h) * 3 / 8;
    uint64_t pos = h;
    uint8_t b4[4];
    for (;;) {
        if (pread_all(w, b4, 4, pos) != 0)
            return -1;
        uint64_t next = pos + get32(b4);
        if (next >= e)
            break; /* never move the last buffer's end to e: keep split < e */
        pos = next;
        if (pos >= target)
            break;
    }
    if (pos <= h || pos >= e)
        return 0;
    return rotate_file(w, h, pos, e);
}

int etlw_close(struct etlw *w, struct etlw_stats *st, char *err, size_t errcap)
{
    if (!w)
        return -1;
    if (w->fd >= 0 && !w->failed) {
        for (unsigned i = 0; i < w->cfg.ncpus && !w->failed; i++)
            close_batch(w, i);
        for (unsigned i = 0; i < w->cfg.ncpus; i++) {
            struct cpu *c = &w->cpus[i];
            if (c->awaiting) { /* last switch on the CPU: new thread unknown */
                q_at(c, c->await_idx)->final = 1;
                c->awaiting = false;
            }
        }
        for (unsigned i = 0; i < w->cfg.ncpus && !w->failed; i++) {
            struct cpu *c = &w->cpus[i];
            if (c->off > BUF_HDR || (c->extra_flags & BF_BUFFER_LOST))
                flush_buffer(w, i, c->last_written, true);
        }
        if (!w->failed)
            try_emit(w, true);
        if (!w->failed)
            out_flush(w);
        if (!w->failed) {
            uint8_t *hb = malloc(w->hdr_disk_size > w->cfg.buffer_size ? w->hdr_disk_size : w->cfg.buffer_size);
            if (!hb) {
                set_err(w, "out of memory");
            } else {
                uint64_t n = w->st.buffers + 1u;
                build_header_buffer(w, hb, w->hdr_disk_size, (uint32_t)(n > 0xFFFFFFFFu ? 0xFFFFFFFFu : n),
                                    w->max_ts);
                pwrite_all(w, hb, w->hdr_disk_size, 0);
                free(hb);
            }
        }
        if (!w->failed && w->cfg.circular)
            make_circular(w);
    }
    if (st)
        etlw_get_stats(w, st);
    int rc = w->failed ? -1 : 0;
    if (w->fd >= 0 && close(w->fd) != 0 && !w->failed) {
        set_err(w, "close: %s", strerror(errno));
        rc = -1;
    }
    if (rc != 0 && err && errcap)
        snprintf(err, errcap, "%s", w->err);
    if (w->cpus) {
        for (unsigned i = 0; i < w->cfg.ncpus; i++) {
            free(w->cpus[i].buf);
            free(w->cpus[i].q);
        }
    }
    free(w->cpus);
    free(w->obuf);
    free(w->zbuf);
    free(w);
    return rc;
}
