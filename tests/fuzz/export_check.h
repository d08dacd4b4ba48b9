/*
 * export_check.h - what fuzz_file.c and fuzz_export.c check in the outputs
 * they keep: an output captured in a memory file, a Perfetto trace walked
 * as the protobuf wire format (Google's "Protocol Buffers Encoding"), and
 * XML (the xml printer, -f svg) read back with the streaming reader of
 * libxml2.
 *
 * The Perfetto walk follows src/export/perfetto.h's field numbers: the file
 * is Trace.packet fields only, with exact and shortest lengths; each packet
 * has a timestamp, sequence 1, and either a process_tree or etw_events; the
 * first packet alone carries the sequence flags; every field has its wire
 * type and its range (uint32, int32 sign-extended, zigzag sint32), and
 * every message its required fields; a bundle's events are on its CPU and
 * the packet's time is that of its first event. (A CPU's switches follow
 * the trace's own times, which damaged data can turn back: Perfetto's trace
 * processor sorts events by time, so that order is not checked.)
 */
#ifndef ETLDUMP_EXPORT_CHECK_H
#define ETLDUMP_EXPORT_CHECK_H

#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "etl/etl.h"

/* ---- capture --------------------------------------------------------------------- */

/* A memory file outputs are written to, and a copy of what it holds. */
struct capture {
    int fd;
    uint8_t *buf;
    size_t len, cap;
};

/* Empties the capture, creating its file on first use. */
static inline void capture_reset(struct capture *c)
{
    if (c->fd <= 0 && (c->fd = memfd_create("fuzz-out", MFD_CLOEXEC)) < 0)
        abort();
    if (ftruncate(c->fd, 0) != 0 || lseek(c->fd, 0, SEEK_SET) != 0)
        abort();
    c->len = 0;
}

/* Reads back what was written since the last reset. */
static inline void capture_read(struct capture *c)
{
    off_t end = lseek(c->fd, 0, SEEK_END);
    if (end < 0)
        abort();
    size_t n = (size_t)end;
    if (n > c->cap) {
        free(c->buf);
        c->cap = n;
        if (!(c->buf = malloc(n)))
            abort();
    }
    if (n && pread(c->fd, c->buf, n, 0) != (ssize_t)n)
        abort();
    c->len = n;
}

/* Frees the copy and closes the file (at exit, so a leak checker sees nothing). */
static inline void capture_free(struct capture *c)
{
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
    if (c->fd > 0)
        close(c->fd);
    c->fd = 0;
}

/* ---- the protobuf wire format ------------------------------------------------------ */

struct pbr {
    const uint8_t *p;
    size_t n, at;
};

/* Reads a varint, which must be in its shortest form. */
static inline uint64_t pbr_varint(struct pbr *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (r->at >= r->n || shift > 63)
            abort();
        uint8_t b = r->p[r->at++];
        if (shift == 63 && b > 1)
            abort();
        v |= (uint64_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u)) {
            if (b == 0 && shift > 0)
                abort(); /* not the shortest form */
            return v;
        }
    }
}

/* Reads the next field's key and, for a varint, its value; for a
 * length-delimited field, its content in *sub. Other wire types fail. */
static inline uint32_t pbr_field(struct pbr *r, unsigned *wire, uint64_t *v, struct pbr *sub)
{
    uint64_t key = pbr_varint(r);
    if (key >> 3 == 0 || key >> 3 > 0x1FFFFFFFu)
        abort();
    *wire = (unsigned)(key & 7u);
    if (*wire == 0) {
        *v = pbr_varint(r);
    } else if (*wire == 2) {
        uint64_t len = pbr_varint(r);
        if (len > r->n - r->at)
            abort(); /* a length past its message */
        sub->p = r->p + r->at;
        sub->n = (size_t)len;
        sub->at = 0;
        r->at += (size_t)len;
    } else {
        abort();
    }
    return (uint32_t)(key >> 3);
}

/* Value kinds: uint32, int32 (sign-extended to 64 bits), zigzag sint32,
 * uint64, bool. */
enum { PBV_U32, PBV_I32, PBV_S32, PBV_U64, PBV_BOOL };

static inline void pbv_check(uint64_t v, int kind)
{
    bool ok = kind == PBV_U64 || (kind == PBV_BOOL && v <= 1) ||
              ((kind == PBV_U32 || kind == PBV_S32) && v <= 0xFFFFFFFFu) ||
              (kind == PBV_I32 && (v <= 0x7FFFFFFFu || v >= 0xFFFFFFFF80000000u));
    if (!ok)
        abort();
}

/* Walks a message whose fields are all varints: kinds[f] is the kind of
 * field f (-1: not allowed), each at most once; returns the fields seen as
 * bits, their values in val[]. */
static inline uint32_t pbr_flat(struct pbr *m, const int *kinds, unsigned nkinds, uint64_t *val)
{
    uint32_t seen = 0;
    while (m->at < m->n) {
        unsigned wire;
        uint64_t v = 0;
        struct pbr sub;
        uint32_t f = pbr_field(m, &wire, &v, &sub);
        if (f >= nkinds || kinds[f] < 0 || wire != 0 || (seen & (1u << f)))
            abort();
        pbv_check(v, kinds[f]);
        seen |= 1u << f;
        val[f] = v;
    }
    return seen;
}

/* ---- Perfetto ----------------------------------------------------------------------- */

/* A process or thread of a process_tree. */
static inline void pf_tree_entry(struct pbr *m, bool thread)
{
    bool id = false;
    while (m->at < m->n) {
        unsigned wire;
        uint64_t v = 0;
        struct pbr sub;
        uint32_t f = pbr_field(m, &wire, &v, &sub);
        bool text = thread ? f == 2 : f == 3; /* thread name, process cmdline */
        if (f < 1 || f > 3 || (wire == 2) != text)
            abort();
        if (!text)
            pbv_check(v, PBV_I32);
        id = id || f == 1;
    }
    if (!id)
        abort();
}

static inline void pf_tree(struct pbr *m)
{
    unsigned n = 0;
    while (m->at < m->n) {
        unsigned wire;
        uint64_t v;
        struct pbr sub;
        uint32_t f = pbr_field(m, &wire, &v, &sub);
        if ((f != 1 && f != 2) || wire != 2)
            abort();
        pf_tree_entry(&sub, f == 2);
        n++;
    }
    if (n == 0)
        abort();
}

/* One EtwTraceEvent of the bundle of cpu; returns its time. */
static inline uint64_t pf_event(struct pbr *m, uint64_t cpu)
{
    static const int cs_kinds[14] = { -1, PBV_U32, PBV_U32, PBV_S32, PBV_S32, PBV_U32, -1, -1,
                                      -1, PBV_S32, PBV_U32, PBV_I32, PBV_I32, PBV_S32 };
    static const int rt_kinds[7] = { -1, PBV_U32, -1, PBV_S32, -1, PBV_I32, PBV_I32 };
    uint64_t ts = 0, ecpu = UINT64_MAX;
    bool has_ts = false, has_tid = false;
    unsigned body = 0;
    while (m->at < m->n) {
        unsigned wire;
        uint64_t v = 0, val[14];
        struct pbr sub;
        uint32_t f = pbr_field(m, &wire, &v, &sub);
        if (f == 1 && wire == 0 && !has_ts) {
            has_ts = true;
            ts = v;
        } else if (f == 2 && wire == 2 && body == 0) {
            body = 2;
            pbr_flat(&sub, cs_kinds, 14, val);
        } else if (f == 3 && wire == 2 && body == 0) {
            body = 3;
            if (!(pbr_flat(&sub, rt_kinds, 7, val) & (1u << 1)))
                abort(); /* a ReadyThread names its thread */
        } else if (f == 4 && wire == 0 && ecpu == UINT64_MAX) {
            ecpu = v;
        } else if (f == 5 && wire == 0 && !has_tid) {
            pbv_check(v, PBV_U32);
            has_tid = true;
        } else {
            abort();
        }
    }
    if (!has_ts || body == 0 || ecpu != cpu || has_tid != (body == 3))
        abort();
    return ts;
}

/* An EtwTraceEventBundle in a packet of time packet_ts. */
static inline void pf_bundle(struct pbr *m, uint64_t packet_ts)
{
    unsigned wire;
    uint64_t cpu = 0;
    struct pbr sub;
    if (pbr_field(m, &wire, &cpu, &sub) != 1 || wire != 0 || cpu >= ETL_MAX_CPUS)
        abort(); /* the CPU first */
    unsigned n = 0;
    while (m->at < m->n) {
        uint64_t v;
        if (pbr_field(m, &wire, &v, &sub) != 2 || wire != 2)
            abort();
        uint64_t ts = pf_event(&sub, cpu);
        if (n++ == 0 && ts != packet_ts)
            abort();
    }
    if (n == 0)
        abort();
}

/* Walks a whole Perfetto trace; aborts at the first thing wrong. */
static inline void check_perfetto(const uint8_t *p, size_t n)
{
    struct pbr top = { p, n, 0 };
    bool first = true;
    while (top.at < top.n) {
        unsigned wire;
        uint64_t v;
        struct pbr pkt;
        if (pbr_field(&top, &wire, &v, &pkt) != 1 || wire != 2)
            abort(); /* Trace.packet */
        uint64_t ts = 0;
        bool has_ts = false, seq = false, flags = false, first_seq = false;
        unsigned body = 0;
        struct pbr msg = { NULL, 0, 0 };
        while (pkt.at < pkt.n) {
            struct pbr sub;
            uint32_t f = pbr_field(&pkt, &wire, &v, &sub);
            if (f == 8 && wire == 0 && !has_ts) {
                has_ts = true;
                ts = v;
            } else if (f == 10 && wire == 0 && !seq && v == 1) {
                seq = true;
            } else if (f == 13 && wire == 0 && !flags && v == 1) {
                flags = true;
            } else if (f == 87 && wire == 0 && !first_seq && v == 1) {
                first_seq = true;
            } else if ((f == 2 || f == 95) && wire == 2 && body == 0) {
                body = f;
                msg = sub;
            } else {
                abort();
            }
        }
        if (!has_ts || !seq || body == 0 || flags != first || first_seq != first)
            abort();
        if (body == 2)
            pf_tree(&msg);
        else
            pf_bundle(&msg, ts);
        first = false;
    }
}

/* ---- XML ---------------------------------------------------------------------------- */

/* Reads the document back with libxml2's streaming reader (memory stays
 * flat however long the output); it must be well-formed, and its root
 * called root (when not NULL). */
static inline void check_xml(const uint8_t *p, size_t n, const char *root)
{
    if (n > INT32_MAX)
        abort();
    xmlTextReaderPtr r = xmlReaderForMemory((const char *)p, (int)n, "out.xml", NULL,
                                            XML_PARSE_NONET | XML_PARSE_NOERROR |
                                            XML_PARSE_NOWARNING | XML_PARSE_HUGE);
    if (!r)
        abort();
    int rc, elements = 0;
    while ((rc = xmlTextReaderRead(r)) == 1) {
        if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT || elements++ > 0)
            continue;
        const xmlChar *name = xmlTextReaderConstName(r);
        if (root && (!name || strcmp((const char *)name, root) != 0))
            abort();
    }
    if (rc != 0 || elements == 0)
        abort(); /* not well-formed, or no root */
    xmlFreeTextReader(r);
}

#endif
