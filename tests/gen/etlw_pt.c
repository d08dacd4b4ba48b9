/*
 * etlw_pt: Process and Thread events (see etlw_pt.h for the layouts). Built
 * from the format notes only; shares no code with etldump.
 */
#define _POSIX_C_SOURCE 200809L

#include "etlw_pt.h"

#include <string.h>

#define HOOK_PROCESS_BASE 0x0300u
#define HOOK_DEFUNCT 0x0327u
#define HOOK_THREAD_BASE 0x0500u
#define HOOK_SETNAME 0x0548u
#define PAYLOAD_MAX 8192u

/* A payload under construction; `bad` once it would overflow. */
struct pl {
    uint8_t b[PAYLOAD_MAX];
    uint32_t n;
    bool bad;
};

static void pl_bytes(struct pl *p, const void *src, uint32_t n)
{
    if (p->bad || n > PAYLOAD_MAX - p->n) {
        p->bad = true;
        return;
    }
    memcpy(p->b + p->n, src, n);
    p->n += n;
}

static void pl_u8(struct pl *p, unsigned v)
{
    uint8_t b = (uint8_t)v;
    pl_bytes(p, &b, 1);
}

static void pl_u32(struct pl *p, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    pl_bytes(p, b, 4);
}

static void pl_u64(struct pl *p, uint64_t v)
{
    pl_u32(p, (uint32_t)v);
    pl_u32(p, (uint32_t)(v >> 32));
}

static void pl_ptr(struct pl *p, unsigned ptr, uint64_t v)
{
    if (ptr == 8)
        pl_u64(p, v);
    else
        pl_u32(p, (uint32_t)v);
}

/* ANSI string and its NUL. */
static void pl_ansi(struct pl *p, const char *s)
{
    pl_bytes(p, s ? s : "", (uint32_t)strlen(s ? s : "") + 1u);
}

static void pl_u16(struct pl *p, unsigned u)
{
    pl_u8(p, u & 0xFFu);
    pl_u8(p, (u >> 8) & 0xFFu);
}

/* UTF-8 converted to UTF-16LE (surrogate pairs above U+FFFF), then a zero
 * unit. The input is the writer's own text: assumed valid. */
static void pl_utf16(struct pl *p, const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    while (*u) {
        uint32_t cp;
        if (u[0] < 0x80) {
            cp = u[0];
            u += 1;
        } else if ((u[0] & 0xE0) == 0xC0) {
            cp = ((uint32_t)(u[0] & 0x1F) << 6) | (u[1] & 0x3Fu);
            u += 2;
        } else if ((u[0] & 0xF0) == 0xE0) {
            cp = ((uint32_t)(u[0] & 0x0F) << 12) | ((uint32_t)(u[1] & 0x3F) << 6) | (u[2] & 0x3Fu);
            u += 3;
        } else {
            cp = ((uint32_t)(u[0] & 0x07) << 18) | ((uint32_t)(u[1] & 0x3F) << 12) |
                 ((uint32_t)(u[2] & 0x3F) << 6) | (u[3] & 0x3Fu);
            u += 4;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            pl_u16(p, 0xD800u + (cp >> 10));
            pl_u16(p, 0xDC00u + (cp & 0x3FFu));
        } else {
            pl_u16(p, cp);
        }
    }
    pl_u16(p, 0);
}

bool etlw_thread_names(uint32_t build) { return build >= 18362u; }

/* The Process payload of version v (3, 4 or 5). */
static void process_payload(struct pl *p, unsigned ptr, unsigned v, const struct etlw_process *x)
{
    pl_ptr(p, ptr, x->key);
    pl_u32(p, x->pid);
    pl_u32(p, x->parent_id);
    pl_u32(p, x->session_id);
    pl_u32(p, x->exit_status);
    pl_ptr(p, ptr, x->dtb);
    if (v >= 4)
        pl_u32(p, x->flags);
    if (x->no_sid) {
        pl_u32(p, 0);
    } else {
        /* TOKEN_USER: Sid pointer (low half non-zero), Attributes, padding. */
        pl_ptr(p, ptr, ptr == 8 ? 0xFFFFD38372A39BD0ull + (x->pid & 0xFF0u) : 0x8A39BD00u + (x->pid & 0xFF0u));
        pl_u32(p, x->pid & 4u ? 0x10u : 0u);
        if (ptr == 8)
            pl_u32(p, 0x0F505D8Bu ^ x->pid); /* arbitrary padding */
        pl_u8(p, 1);
        pl_u8(p, x->sid_count);
        for (int i = 0; i < 5; i++)
            pl_u8(p, 0);
        pl_u8(p, x->sid_authority);
        for (unsigned i = 0; i < x->sid_count && i < 15; i++)
            pl_u32(p, x->sid_sub[i]);
    }
    pl_ansi(p, x->image);
    pl_utf16(p, x->command_line);
    if (v >= 4) {
        pl_utf16(p, x->package);
        pl_utf16(p, x->app_id);
    }
    if (v >= 5)
        pl_u64(p, (uint64_t)x->exit_time);
}

int etlw_add_process(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_pt_kind kind,
                     const struct etlw_process *x, uint32_t hdr_tid, uint32_t hdr_pid)
{
    const struct etlw_config *c = etlw_get_config(w);
    unsigned ptr = c->ptr_size == 4 ? 4u : 8u;
    unsigned v = c->build >= 9200u ? 4u : 3u;
    struct pl p;
    p.n = 0;
    p.bad = false;
    process_payload(&p, ptr, v, x);
    if (p.bad)
        return -1;
    bool rundown = kind == ETLW_PT_DCSTART || kind == ETLW_PT_DCEND;
    enum etlw_hdr h = rundown && c->build >= 9200u ? ETLW_HDR_PERFINFO : ETLW_HDR_SYSTEM;
    return etlw_add_raw(w, cpu, ts, h, (uint16_t)(HOOK_PROCESS_BASE + 1u + (unsigned)kind), v,
                        hdr_tid, hdr_pid, p.b, p.n);
}

int etlw_add_defunct(struct etlw *w, unsigned cpu, int64_t ts, const struct etlw_process *x)
{
    const struct etlw_config *c = etlw_get_config(w);
    unsigned ptr = c->ptr_size == 4 ? 4u : 8u;
    unsigned v = c->build >= 10240u ? 5u : 4u;
    struct pl p;
    p.n = 0;
    p.bad = false;
    process_payload(&p, ptr, v, x);
    if (p.bad)
        return -1;
    return etlw_add_raw(w, cpu, ts, ETLW_HDR_PERFINFO, HOOK_DEFUNCT, v, 0, 0, p.b, p.n);
}

int etlw_add_thread(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_pt_kind kind,
                    uint32_t pid, uint32_t tid, const char *name, uint32_t hdr_tid,
                    uint32_t hdr_pid)
{
    const struct etlw_config *c = etlw_get_config(w);
    unsigned ptr = c->ptr_size == 4 ? 4u : 8u;
    bool p8 = ptr == 8;
    struct pl p;
    p.n = 0;
    p.bad = false;
    pl_u32(&p, pid);
    pl_u32(&p, tid);
    uint64_t stack = p8 ? 0xFFFFF30000000000ull + (uint64_t)tid * 0x6000u : 0x90000000u + tid * 0x3000u;
    pl_ptr(&p, ptr, stack);                           /* StackBase */
    pl_ptr(&p, ptr, stack - 0x6000u);                 /* StackLimit */
    pl_ptr(&p, ptr, pid ? 0x7000000000ull + tid * 0x100000ull : 0); /* UserStackBase */
    pl_ptr(&p, ptr, pid ? 0x6FFFF00000ull + tid * 0x100000ull : 0);  /* UserStackLimit */
    pl_ptr(&p, ptr, pid ? 0xFFu : 1u);                /* Affinity */
    pl_ptr(&p, ptr, p8 ? 0x7FFB12340000ull + tid : 0x77120000u + tid); /* Win32StartAddr */
    pl_ptr(&p, ptr, pid ? 0x3E1000ull + tid * 0x2000ull : 0);        /* TebBase */
    pl_u32(&p, 0);                                    /* SubProcessTag */
    pl_u8(&p, 8);                                     /* BasePriority */
    pl_u8(&p, 5);                                     /* PagePriority */
    pl_u8(&p, 2);                                     /* IoPriority */
    pl_u8(&p, 0);                                     /* ThreadFlags */
    if (etlw_thread_names(c->build))
        pl_utf16(&p, kind == ETLW_PT_START ? NULL : name);
    if (p.bad)
        return -1;
    return etlw_add_raw(w, cpu, ts, ETLW_HDR_SYSTEM, (uint16_t)(HOOK_THREAD_BASE + 1u + (unsigned)kind),
                        3, hdr_tid, hdr_pid, p.b, p.n);
}

int etlw_add_thread_name(struct etlw *w, unsigned cpu, int64_t ts, uint32_t pid, uint32_t tid,
                         const char *name)
{
    struct pl p;
    p.n = 0;
    p.bad = false;
    pl_u32(&p, pid);
    pl_u32(&p, tid);
    pl_utf16(&p, name);
    if (p.bad)
        return -1;
    return etlw_add_raw(w, cpu, ts, ETLW_HDR_PERFINFO, HOOK_SETNAME, 2, 0, 0, p.b, p.n);
}
