/*
 * test_reader.c - the byte cursor, every trace-header kind, the logfile
 * header in its 32- and 64-bit layouts, the buffer walk (end of events,
 * filler, damaged records) and the per-CPU order and merge.
 */
#include <check.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"
#include "etl/etl.h"
#include "etl/internal.h"
#include "etlw.h"
#include "fmt.h"
#include "realtraces.h"

/* --- a little byte builder ---------------------------------------------- */

struct bytes {
    uint8_t d[70000];
    size_t n;
};

static void b8(struct bytes *b, uint32_t v) { b->d[b->n++] = (uint8_t)v; }
static void b16(struct bytes *b, uint32_t v) { b8(b, v & 0xFF); b8(b, (v >> 8) & 0xFF); }
static void b32(struct bytes *b, uint32_t v) { b16(b, v & 0xFFFF); b16(b, v >> 16); }
static void b64(struct bytes *b, uint64_t v) { b32(b, (uint32_t)v); b32(b, (uint32_t)(v >> 32)); }
static void bfill(struct bytes *b, uint8_t v, size_t n) { memset(b->d + b->n, v, n); b->n += n; }
static void set16(struct bytes *b, size_t at, uint32_t v) { b->d[at] = (uint8_t)v; b->d[at + 1] = (uint8_t)(v >> 8); }
static void set32(struct bytes *b, size_t at, uint32_t v) { set16(b, at, v & 0xFFFF); set16(b, at + 2, v >> 16); }
static void balign8(struct bytes *b) { while (b->n % 8) b8(b, 0); }

/* Parses the single record at the start of b. */
static enum etl_parse_status parse1(const struct bytes *b, struct etl_event *ev, size_t *next)
{
    const char *why = NULL;
    return etl_parse_event(b->d, b->n, 0, ev, next, &why);
}

/* Checks that etl_parse_heads takes the record at the start of b's first
 * len bytes exactly when etl_parse_event parses it as PERFINFO64, with the
 * same fields; returns whether it took it. */
static bool heads_agree(const struct bytes *b, size_t len)
{
    struct etl_event ev;
    struct etl_head h[2];
    size_t next = 99, hnext = 99;
    const char *why = NULL;
    enum etl_parse_status st = etl_parse_event(b->d, len, 0, &ev, &next, &why);
    size_t n = etl_parse_heads(b->d, len, 0, h, 1, &hnext);
    bool whole = st == ETL_PARSE_OK && ev.kind == ETL_KIND_PERFINFO64;
    ck_assert_uint_eq(n, whole ? 1 : 0);
    if (!whole) {
        ck_assert_uint_eq(hnext, 0);
        return false;
    }
    ck_assert_uint_eq(hnext, next);
    ck_assert_uint_eq(h[0].hook_id, ev.hook_id);
    ck_assert_uint_eq(h[0].size, ev.size);
    ck_assert_int_eq(h[0].ts, ev.ts);
    return true;
}

/* Classes of HookIds for etl_parse_runs: every HookId of class 7, and none
 * of a class. */
static uint32_t class7[65536], class0[65536];

/* Checks that etl_parse_runs takes the record at the start of b's first len
 * bytes as a run of one exactly when etl_parse_heads takes it (and so when
 * etl_parse_event parses it as PERFINFO64), with the same fields, asking
 * for the bytes ahead or not; and never when its HookId has no class. */
static void runs_agree(const struct bytes *b, size_t len)
{
    if (class7[0] != 7)
        for (size_t i = 0; i < 65536; i++)
            class7[i] = 7;
    struct etl_head h[1];
    size_t hnext = 99;
    size_t nh = etl_parse_heads(b->d, len, 0, h, 1, &hnext);
    for (int ahead = 0; ahead < 2; ahead++) {
        struct etl_hook_run r[2];
        size_t next = 99;
        size_t n = etl_parse_runs(b->d, len, 0, class7, r, 2, &next, ahead);
        ck_assert_uint_eq(n, nh);
        ck_assert_uint_eq(next, hnext);
        if (n) {
            ck_assert_uint_eq(r[0].cls, 7);
            ck_assert_uint_eq(r[0].count, 1);
            ck_assert_uint_eq(r[0].bytes, h[0].size);
            ck_assert_int_eq(r[0].first, h[0].ts);
            ck_assert_int_eq(r[0].last, h[0].ts);
        }
        next = 99;
        ck_assert_uint_eq(etl_parse_runs(b->d, len, 0, class0, r, 2, &next, ahead), 0);
        ck_assert_uint_eq(next, 0);
    }
}

/* --- cursor -------------------------------------------------------------- */

START_TEST(cursor_bounds)
{
    static const uint8_t d[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    struct etl_cursor c = etl_cur_make(d, sizeof d);
    ck_assert_uint_eq(etl_cur_u16(&c), 0x0201);
    ck_assert_uint_eq(etl_cur_u32(&c), 0x06050403);
    ck_assert(etl_cur_ok(&c));
    ck_assert_uint_eq(etl_cur_u32(&c), 0); /* 3 bytes left: fails */
    ck_assert(!etl_cur_ok(&c));
    ck_assert_uint_eq(etl_cur_u8(&c), 0);  /* sticky */
    c = etl_cur_make(d, sizeof d);
    ck_assert_uint_eq(etl_cur_u64(&c), 0x0807060504030201ULL);
    struct etl_cursor s = etl_cur_sub(&c, 2);
    ck_assert(!etl_cur_ok(&s) && !etl_cur_ok(&c));
    c = etl_cur_make(d, sizeof d);
    etl_cur_skip(&c, 7);
    s = etl_cur_sub(&c, 2);
    ck_assert_uint_eq(etl_cur_u16(&s), 0x0908);
    ck_assert_uint_eq(etl_cur_left(&c), 0);
    etl_cur_skip(&c, SIZE_MAX); /* no overflow */
    ck_assert(!etl_cur_ok(&c));
}
END_TEST

/* --- trace headers ------------------------------------------------------- */

START_TEST(header_system_and_compact)
{
    for (unsigned ht = 1; ht <= 4; ht++) {
        struct bytes b = { .n = 0 };
        size_t fixed = ht <= 2 ? 0x20 : 0x18;
        b16(&b, 3); b8(&b, ht); b8(&b, 0xC0);
        b16(&b, (uint32_t)fixed + 5); b16(&b, 0x0301);
        b32(&b, 77); b32(&b, 88); b64(&b, 123456789);
        if (ht <= 2) { b32(&b, 1); b32(&b, 2); }
        bfill(&b, 0xAB, 5);
        struct etl_event ev;
        size_t next;
        ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
        ck_assert_uint_eq(ev.hook_id, 0x0301);
        ck_assert_uint_eq(ev.version, 3);
        ck_assert_uint_eq(ev.tid, 77);
        ck_assert_uint_eq(ev.pid, 88);
        ck_assert_int_eq(ev.ts, 123456789);
        ck_assert_uint_eq(ev.data_len, 5);
        ck_assert_uint_eq(ev.data[0], 0xAB);
        ck_assert_uint_eq(next, (fixed + 5 + 7) & ~7u);
        ck_assert_uint_eq(ev.ptr_size, ht % 2 ? 4 : 8);
        static const char *const names[] = { "", "SYSTEM32", "SYSTEM64", "COMPACT32",
                                             "COMPACT64" };
        ck_assert_str_eq(etl_kind_name(ev.kind), names[ht]);
    }
}
END_TEST

START_TEST(header_perfinfo_ext_items)
{
    /* PEBS flag and 3 PMC counters: data after 0x10 + 8 + 24 bytes. */
    struct bytes b = { .n = 0 };
    b16(&b, 0x8000 | 0x0300 | 4); b8(&b, 0x11); b8(&b, 0xC0);
    b16(&b, 0x10 + 32 + 0x18); b16(&b, 0x0524);
    b64(&b, 42);
    b64(&b, 0x1111); b64(&b, 1); b64(&b, 2); b64(&b, 3);
    bfill(&b, 0xCD, 0x18);
    struct etl_event ev;
    size_t next;
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
    ck_assert_str_eq(etl_kind_name(ev.kind), "PERFINFO64");
    for (unsigned k = 0; k <= ETL_KIND_COUNT; k++) /* and one past: UNKNOWN */
        ck_assert_uint_eq(etl_kind_name_len(k), strlen(etl_kind_name(k)));
    ck_assert_uint_eq(ev.version, 4);
    ck_assert_uint_eq(ev.pebs, 1);
    ck_assert_uint_eq(ev.pmc_count, 3);
    ck_assert_uint_eq(ev.data_len, 0x18);
    ck_assert_uint_eq(ev.data[0], 0xCD);
    ck_assert_uint_eq(etl_le64(ev.ext), 0x1111);
    ck_assert(!(ev.flags & ETL_EV_TID));
    /* Items that do not fit the record are damage. */
    set16(&b, 4, 0x20);
    const char *why = NULL;
    ck_assert_int_eq(etl_parse_event(b.d, b.n, 0, &ev, &next, &why), ETL_PARSE_BAD);
}
END_TEST

/* The usual PERFINFO64 record takes a shorter way through the parser: the
 * event it gives is the same whole event, whatever the structure held
 * before, and damage to it still gets the general way's answer. */
START_TEST(header_perfinfo_whole_and_damaged)
{
    struct bytes b = { .n = 0 };
    b16(&b, 2); b8(&b, 0x11); b8(&b, 0xC0);
    b16(&b, 0x1C); b16(&b, 0x0F2E);
    b64(&b, 0x0102030405060708ULL);
    bfill(&b, 0xAB, 0x0C);
    bfill(&b, 0x5A, 4); /* alignment */
    struct etl_event ev;
    size_t next;
    memset(&ev, 0xEE, sizeof ev);
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
    ck_assert(heads_agree(&b, b.n));
    ck_assert_uint_eq(ev.kind, ETL_KIND_PERFINFO64);
    ck_assert_uint_eq(ev.size, 0x1C);
    ck_assert_uint_eq(ev.ptr_size, 8);
    ck_assert_uint_eq(ev.version, 2);
    ck_assert_uint_eq(ev.hook_id, 0x0F2E);
    ck_assert_uint_eq(ev.opcode, 0x2E);
    ck_assert_int_eq(ev.ts, 0x0102030405060708LL);
    ck_assert_uint_eq(ev.flags, ETL_EV_TS | ETL_EV_HOOK | ETL_EV_OPCODE | ETL_EV_VERSION);
    ck_assert_uint_eq(ev.data_len, 0x0C);
    ck_assert(ev.data == b.d + 0x10);
    ck_assert(ev.ext == b.d + 0x10);
    ck_assert_uint_eq(next, 0x20);
    /* What a PERFINFO header does not carry is zero, not left over. */
    ck_assert_uint_eq(ev.event_offset, 0);
    ck_assert_uint_eq(ev.tid, 0);
    ck_assert_uint_eq(ev.pid, 0);
    ck_assert_uint_eq(ev.event_id, 0);
    ck_assert_uint_eq(ev.pebs, 0);
    ck_assert_uint_eq(ev.pmc_count, 0);
    ck_assert_uint_eq(ev.ext_items_len, 0);
    ck_assert(ev.ext_items == NULL);
    ck_assert_uint_eq(ev.cpu, 0);
    ck_assert_uint_eq(ev.compressed, 0);
    ck_assert_uint_eq(ev.buffer_offset, 0);
    for (int i = 0; i < 16; i++)
        ck_assert_uint_eq(ev.guid[i], 0);
    /* The marker's two spare high bits do not change the kind. */
    set32(&b, 0, 0xF0110002);
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
    ck_assert(heads_agree(&b, b.n));
    ck_assert_uint_eq(ev.kind, ETL_KIND_PERFINFO64);
    ck_assert_uint_eq(ev.data_len, 0x0C);
    /* Damage: each answered as the general way answers it. */
    const char *why = NULL;
    set32(&b, 0, 0xC0110002);
    set16(&b, 4, 0x0F);
    ck_assert_int_eq(etl_parse_event(b.d, b.n, 0, &ev, &next, &why), ETL_PARSE_BAD);
    ck_assert_str_eq(why, "record size smaller than its header");
    set16(&b, 4, 0x21);
    ck_assert_int_eq(etl_parse_event(b.d, b.n, 0, &ev, &next, &why), ETL_PARSE_BAD);
    ck_assert_str_eq(why, "record runs past the end of the buffer");
    set16(&b, 4, 0x1C);
    set32(&b, 0, 0xC0110702); /* seven PMC counters: 56 bytes of items */
    ck_assert_int_eq(etl_parse_event(b.d, b.n, 0, &ev, &next, &why), ETL_PARSE_BAD);
    ck_assert_str_eq(why, "PERFINFO extended items run past the record");
    ck_assert(!heads_agree(&b, b.n));
    set32(&b, 0, 0xC0110102); /* one: the data is what is left */
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
    ck_assert(heads_agree(&b, b.n));
    ck_assert_uint_eq(ev.pmc_count, 1);
    ck_assert_uint_eq(ev.data_len, 0x04);
    /* Fewer than 16 bytes left: too short for the header. */
    ck_assert_int_eq(etl_parse_event(b.d, 12, 0, &ev, &next, &why), ETL_PARSE_BAD);
    ck_assert_str_eq(why, "record runs past the end of the buffer");
    ck_assert_int_eq(etl_parse_event(b.d, 5, 0, &ev, &next, &why), ETL_PARSE_BAD);
    ck_assert_str_eq(why, "record size smaller than its header");
    /* The heads take a record exactly when the general way finds it sound:
     * every size, every count of items, every cut. */
    static const uint32_t marks[] = { 0xC0110002, 0xC0118002, 0xC0110302, 0xC0118702,
                                      0xC0100002, 0xFFFFFFFF, 0x80110002 };
    int took = 0;
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
        set32(&b, 0, marks[k]);
        for (uint32_t sz = 0; sz <= 0x28; sz++) {
            set16(&b, 4, sz);
            for (size_t len = 0; len <= b.n; len++) {
                took += heads_agree(&b, len);
                runs_agree(&b, len);
            }
        }
    }
    ck_assert_int_gt(took, 20);
}
END_TEST

/* Appends a PERFINFO64 record of HookId hook, size bytes (at least 0x10,
 * its data 0xAB) and time ts, aligned to 8. */
static void perfinfo64(struct bytes *b, uint16_t hook, uint16_t size, int64_t ts)
{
    b16(b, 2); b8(b, 0x11); b8(b, 0xC0);
    b16(b, size); b16(b, hook);
    b64(b, (uint64_t)ts);
    bfill(b, 0xAB, size - 0x10u);
    balign8(b);
}

/* Runs of PERFINFO64 records: consecutive records of one class added up
 * (HookIds of the same class together, times in any order), each run ended
 * by another class, by a record of none (left for the general way), by
 * anything but such a record, and by the number of runs asked for. */
START_TEST(runs_by_class)
{
    static uint32_t cls[65536];
    cls[0x10] = cls[0x11] = 1;
    cls[0x20] = 2;
    struct bytes b = { .n = 0 };
    perfinfo64(&b, 0x10, 0x18, 5);
    perfinfo64(&b, 0x10, 0x10, 3);
    perfinfo64(&b, 0x11, 0x20, 9);
    perfinfo64(&b, 0x20, 0x10, 1);
    size_t at4 = b.n;
    perfinfo64(&b, 0x10, 0x13, 4);
    size_t at5 = b.n;
    perfinfo64(&b, 0x30, 0x10, 2); /* no class */
    size_t at6 = b.n;
    perfinfo64(&b, 0x20, 0x10, -7);
    perfinfo64(&b, 0x20, 0x28, -8);
    size_t at8 = b.n;
    b16(&b, 0); b8(&b, 0x01); b8(&b, 0xC0); /* SYSTEM32: not PERFINFO64 */
    b16(&b, 0x20); b16(&b, 0x20);
    bfill(&b, 0, 0x18);
    for (int ahead = 0; ahead < 2; ahead++) {
        struct etl_hook_run r[4];
        size_t next = 0;
        ck_assert_uint_eq(etl_parse_runs(b.d, b.n, 0, cls, r, 4, &next, ahead), 3);
        ck_assert_uint_eq(next, at5);
        const struct etl_hook_run want[3] = {
            { 1, 3, 0x18 + 0x10 + 0x20, 3, 9 }, { 2, 1, 0x10, 1, 1 }, { 1, 1, 0x13, 4, 4 },
        };
        for (int i = 0; i < 3; i++) {
            ck_assert_uint_eq(r[i].cls, want[i].cls);
            ck_assert_uint_eq(r[i].count, want[i].count);
            ck_assert_uint_eq(r[i].bytes, want[i].bytes);
            ck_assert_int_eq(r[i].first, want[i].first);
            ck_assert_int_eq(r[i].last, want[i].last);
        }
        ck_assert_uint_eq(etl_parse_runs(b.d, b.n, 0, cls, r, 2, &next, ahead), 2);
        ck_assert_uint_eq(next, at4);
        ck_assert_uint_eq(etl_parse_runs(b.d, b.n, 0, cls, r, 0, &next, ahead), 0);
        ck_assert_uint_eq(next, 0);
        ck_assert_uint_eq(etl_parse_runs(b.d, b.n, at5, cls, r, 4, &next, ahead), 0);
        ck_assert_uint_eq(next, at5);
        ck_assert_uint_eq(etl_parse_runs(b.d, b.n, at6, cls, r, 4, &next, ahead), 1);
        ck_assert_uint_eq(next, at8);
        ck_assert(r[0].cls == 2 && r[0].count == 2 && r[0].bytes == 0x38);
        ck_assert(r[0].first == -8 && r[0].last == -7);
        /* The buffer ends with the record: the run ends with it. */
        ck_assert_uint_eq(etl_parse_runs(b.d, at8, at6, cls, r, 4, &next, ahead), 1);
        ck_assert_uint_eq(next, at8);
        /* A record cut by the buffer's end ends the run before it. */
        ck_assert_uint_eq(etl_parse_runs(b.d, at8 - 1, at6, cls, r, 4, &next, ahead), 1);
        ck_assert_uint_eq(next, at6 + 0x10);
        ck_assert_uint_eq(r[0].count, 1);
        /* No classes: every HookId of class 1, one run to the first record
         * of another kind. */
        ck_assert_uint_eq(etl_parse_runs(b.d, b.n, 0, NULL, r, 4, &next, ahead), 1);
        ck_assert_uint_eq(next, at8);
        ck_assert(r[0].cls == 1 && r[0].count == 8 && r[0].first == -8 && r[0].last == 9);
        ck_assert_uint_eq(r[0].bytes, 0x18 + 0x10 + 0x20 + 0x10 + 0x13 + 0x10 + 0x10 + 0x28);
    }
}
END_TEST

START_TEST(header_full_and_instance)
{
    static const uint8_t guid[16] = { 0x91, 0xee, 0x79, 0x9b, 0xfd, 0xb5, 0xc0, 0x41,
                                      0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 };
    for (int inst = 0; inst < 2; inst++) {
        struct bytes b = { .n = 0 };
        size_t fixed = inst ? 0x48 : 0x30;
        b16(&b, (uint32_t)fixed + 4); b8(&b, inst ? 0x15 : 0x0A); b8(&b, 0xC0);
        b8(&b, 33); b8(&b, 4); b16(&b, 2);
        b32(&b, 5); b32(&b, 6); b64(&b, 99);
        memcpy(b.d + b.n, guid, 16); b.n += 16;
        b64(&b, 0);
        if (inst) bfill(&b, 0, 0x18);
        b32(&b, 0xDEADBEEF);
        struct etl_event ev;
        size_t next;
        ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
        ck_assert_str_eq(etl_kind_name(ev.kind), inst ? "INSTANCE64" : "FULL32");
        ck_assert_uint_eq(ev.opcode, 33);
        ck_assert_uint_eq(ev.version, 2);
        ck_assert_int_eq(ev.ts, 99);
        ck_assert(ev.flags & ETL_EV_GUID);
        char g[37];
        etl_guid_str(ev.guid, g);
        ck_assert_str_eq(g, "9b79ee91-b5fd-41c0-a243-4248e266e9d0");
        ck_assert_uint_eq(ev.data_len, 4);
    }
}
END_TEST

/* Appends an EVENT_HEADER with `items` extended items and `user` data bytes. */
static void event_header(struct bytes *b, int items, size_t user)
{
    size_t start = b->n;
    b16(b, 0); b16(b, 0xC013); b16(b, items ? 1 : 0); b16(b, 0);
    b32(b, 10); b32(b, 20); b64(b, 555);
    bfill(b, 0x11, 16);
    b16(b, 301); b8(b, 1); b8(b, 0); b8(b, 4); b8(b, 7); b16(b, 0); b64(b, 0);
    b64(b, 0); bfill(b, 0, 16);
    for (int i = 0; i < items; i++) {
        size_t ds = 11 + 12 * (size_t)i;
        size_t total = 8 + ((ds + 7) & ~(size_t)7);
        b16(b, (uint32_t)total); b16(b, 11); b16(b, i + 1 < items); b16(b, (uint32_t)ds);
        bfill(b, 0x22, total - 8);
    }
    bfill(b, 0x33, user);
    set16(b, start, (uint32_t)(b->n - start));
}

START_TEST(header_event_header_items)
{
    struct bytes b = { .n = 0 };
    event_header(&b, 3, 9);
    struct etl_event ev;
    size_t next;
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
    ck_assert_str_eq(etl_kind_name(ev.kind), "EVENT_HEADER64");
    ck_assert_uint_eq(ev.event_id, 301);
    ck_assert_uint_eq(ev.version, 1);
    ck_assert_uint_eq(ev.opcode, 7);
    ck_assert_uint_eq(ev.tid, 10);
    ck_assert_uint_eq(ev.pid, 20);
    ck_assert_uint_eq(ev.data_len, 9);
    ck_assert_uint_eq(ev.data[0], 0x33);
    /* An item claiming more than the record holds is damage. */
    set16(&b, 0x50, 0x4000);
    const char *why = NULL;
    ck_assert_int_eq(etl_parse_event(b.d, b.n, 0, &ev, &next, &why), ETL_PARSE_BAD);
    ck_assert(why != NULL);
}
END_TEST

START_TEST(header_message)
{
    /* OptionFlags: sequence, GUID, timestamp, tid/pid. */
    struct bytes b = { .n = 0 };
    b16(&b, 8 + 4 + 16 + 8 + 8 + 3); b8(&b, 0); b8(&b, 0x90);
    b16(&b, 12); b16(&b, 0x0001 | 0x0002 | 0x0008 | 0x0020);
    b32(&b, 1); bfill(&b, 0x44, 16); b64(&b, 777); b32(&b, 3); b32(&b, 4);
    bfill(&b, 0, 3);
    struct etl_event ev;
    size_t next;
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
    ck_assert_str_eq(etl_kind_name(ev.kind), "MESSAGE");
    ck_assert_uint_eq(ev.event_id, 12);
    ck_assert_int_eq(ev.ts, 777);
    ck_assert_uint_eq(ev.tid, 3);
    ck_assert(ev.flags & ETL_EV_GUID);
    ck_assert(!(ev.flags & ETL_EV_HOOK));
    ck_assert_uint_eq(ev.data_len, 3);
}
END_TEST

START_TEST(header_damage_and_end)
{
    struct bytes b = { .n = 0 };
    struct etl_event ev;
    size_t next;
    const char *why = NULL;
    bfill(&b, 0xFF, 16);
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_END);      /* filler */
    b.n = 3;
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_END);      /* too few */
    b.n = 0;
    b32(&b, 0x40020002); b32(&b, 0x20);
    bfill(&b, 0, 24);
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_BAD);      /* no 0x80 */
    set32(&b, 0, 0xC00C0000);
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_BAD);      /* type 0x0C */
    set32(&b, 0, 0xC0020002); set16(&b, 4, 0x10);
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_BAD);      /* < header */
    set16(&b, 4, 0x40);
    ck_assert_int_eq(etl_parse_event(b.d, b.n, 0, &ev, &next, &why), ETL_PARSE_BAD);
    ck_assert(strstr(why, "past the end") != NULL);
    set32(&b, 0, 0xB0000010);
    ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_BAD);      /* ULONG32_TIME */
}
END_TEST

/* --- logfile header and files ------------------------------------------- */

/* Appends a logfile-header event in the 32- (ptr 4) or 64-bit layout. */
static void logfile_event(struct bytes *b, unsigned ptr, uint32_t bufsize, uint32_t mode)
{
    size_t start = b->n;
    b16(b, 2); b8(b, ptr == 4 ? 1 : 2); b8(b, 0xC0); b16(b, 0); b16(b, 0);
    b32(b, 1); b32(b, 2); b64(b, 5000);              /* tid, pid, T0 */
    b32(b, 0); b32(b, 0);
    b32(b, bufsize);                                 /* BufferSize */
    b8(b, 10); b8(b, 0); b8(b, 1); b8(b, 5);         /* Version */
    b32(b, 19041); b32(b, 6);                        /* build, CPUs */
    b64(b, 132392018761387363ULL);                   /* EndTime */
    b32(b, 156250); b32(b, 0); b32(b, mode);         /* TimerRes, MaxSize, mode */
    b32(b, 3); b32(b, 1); b32(b, ptr); b32(b, 7);    /* written, start, ptr, lost */
    b32(b, 3000);                                    /* MHz */
    bfill(b, 0, 2 * ptr);                            /* LoggerName, LogFileName */
    /* TimeZone: Central Europe's rules; a standard name of 32 units, no
     * terminator (0x20AC, the euro sign, as the last), a daylight name
     * with one. */
    b32(b, (uint32_t)-60);                           /* Bias */
    for (unsigned i = 0; i < 31; i++)
        b16(b, 'A' + i % 26);
    b16(b, 0x20AC);
    b16(b, 0); b16(b, 10); b16(b, 0); b16(b, 5);     /* StandardDate */
    b16(b, 3); b16(b, 0); b16(b, 0); b16(b, 0);
    b32(b, 0);                                       /* StandardBias */
    b16(b, 'S'); b16(b, 'u'); b16(b, 0);
    bfill(b, 0x55, 64 - 6);                          /* past the terminator */
    b16(b, 0); b16(b, 3); b16(b, 0); b16(b, 5);      /* DaylightDate */
    b16(b, 2); b16(b, 0); b16(b, 0); b16(b, 0);
    b32(b, (uint32_t)-60);                           /* DaylightBias */
    b32(b, 0);                                       /* alignment */
    b64(b, 132390000000000000ULL);                   /* BootTime */
    b64(b, 10000000);                                /* PerfFreq */
    b64(b, 132392018711387363ULL);                   /* StartTime */
    b32(b, 1); b32(b, 9);                            /* clock, BuffersLost */
    b16(b, 'L'); b16(b, 'g'); b16(b, 0);
    b16(b, 'C'); b16(b, ':'); b16(b, 0xE9); b16(b, 0xD83D); b16(b, 0xDE00); b16(b, 0);
    set16(b, start + 4, (uint32_t)(b->n - start));
    balign8(b);
}

START_TEST(logfile_both_layouts)
{
    for (unsigned ptr = 4; ptr <= 8; ptr += 4) {
        struct bytes b = { .n = 0 };
        logfile_event(&b, ptr, 65536, 0x10001);
        struct etl_event ev;
        size_t next;
        ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
        struct etl_logfile h;
        ck_assert(etl_parse_logfile(&ev, &h));
        ck_assert_uint_eq(h.buffer_size, 65536);
        ck_assert_uint_eq(h.version[0], 10);
        ck_assert_uint_eq(h.version[3], 5);
        ck_assert_uint_eq(h.build, 19041);
        ck_assert_uint_eq(h.cpus, 6);
        ck_assert_uint_eq(h.pointer_size, ptr);
        ck_assert_uint_eq(h.events_lost, 7);
        ck_assert_uint_eq(h.cpu_mhz, 3000);
        ck_assert_int_eq(h.tz.bias, -60);
        ck_assert_int_eq(h.tz.standard_bias, 0);
        ck_assert_int_eq(h.tz.daylight_bias, -60);
        ck_assert_str_eq(h.tz.standard_name,
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDE\xe2\x82\xac");
        ck_assert_str_eq(h.tz.daylight_name, "Su");
        ck_assert_uint_eq(h.tz.standard_date[1], 10);
        ck_assert_uint_eq(h.tz.standard_date[3], 5);
        ck_assert_uint_eq(h.tz.standard_date[4], 3);
        ck_assert_uint_eq(h.tz.daylight_date[1], 3);
        ck_assert_uint_eq(h.tz.daylight_date[4], 2);
        ck_assert_int_eq(h.perf_freq, 10000000);
        ck_assert_int_eq(h.start_time, 132392018711387363LL);
        ck_assert_int_eq(h.end_time, 132392018761387363LL);
        ck_assert_int_eq(h.boot_time, 132390000000000000LL);
        ck_assert_uint_eq(h.clock_type, 1);
        ck_assert_uint_eq(h.buffers_lost, 9);
        ck_assert_uint_eq(h.log_file_mode, 0x10001);
        ck_assert_int_eq(h.t0, 5000);
        ck_assert_str_eq(h.logger_name, "Lg");
        ck_assert_str_eq(h.log_file_name, "C:\xc3\xa9\xf0\x9f\x98\x80");
        ck_assert_uint_eq(h.name_damage_at, 0);
        /* The record cut 5 bytes before its end: the log file name has no
         * terminator and its last byte is half a unit. */
        set16(&b, 4, (uint32_t)(b.d[4] | b.d[5] << 8) - 5);
        ck_assert_int_eq(parse1(&b, &ev, &next), ETL_PARSE_OK);
        ck_assert(etl_parse_logfile(&ev, &h));
        ck_assert_str_eq(h.logger_name, "Lg");
        ck_assert_str_eq(h.log_file_name, "C:\xc3\xa9\xef\xbf\xbd");
        ck_assert_uint_eq(h.name_damage_at, (ptr == 4 ? 0x110u : 0x118u) + 6);
    }
}
END_TEST

/* Appends a buffer header for `cpu` with `seq`; returns its start. */
static size_t buffer_start(struct bytes *b, uint32_t size, uint64_t seq, unsigned cpu,
                           unsigned flags, unsigned type)
{
    size_t at = b->n;
    b32(b, size); b32(b, 0); b32(b, 0); b32(b, 0);
    b64(b, 0); b64(b, seq); b64(b, 0);
    b16(b, cpu); b16(b, 0); b32(b, 3); b32(b, 0);
    b16(b, flags | 0x20); b16(b, type);
    bfill(b, 0, 16);
    return at;
}

/* Appends a PERFINFO64 event with HookId `hook` at time ts. */
static void perfinfo(struct bytes *b, unsigned hook, int64_t ts)
{
    b16(b, 2); b8(b, 0x11); b8(b, 0xC0); b16(b, 0x18); b16(b, hook);
    b64(b, (uint64_t)ts); b64(b, 0);
}

/* Closes a buffer: SavedOffset and Offset, 0xFF filler to its size. */
static void buffer_end(struct bytes *b, size_t at, uint32_t size, uint32_t saved,
                       uint32_t offset)
{
    set32(b, at + 4, saved ? saved : (uint32_t)(b->n - at));
    set32(b, at + 0x30, offset ? offset : (uint32_t)(b->n - at));
    bfill(b, 0xFF, at + size - b->n);
}

struct collected {
    int64_t ts[64];
    unsigned cpu[64];
    unsigned hook[64];
    int n;
};

static bool collect(void *ctx, const struct etl_event *ev)
{
    struct collected *c = ctx;
    if (c->n < 64) {
        c->ts[c->n] = ev->ts;
        c->cpu[c->n] = ev->cpu;
        c->hook[c->n] = ev->hook_id;
        c->n++;
    }
    return true;
}

struct diag_log {
    int count;
    uint64_t offset;
};

static void diag_cb(void *ctx, uint64_t offset, const char *msg)
{
    (void)msg;
    struct diag_log *l = ctx;
    if (l->count++ == 0)
        l->offset = offset;
}

/* Opens b as a memory block, with problems going to log. */
static struct etl_file *open_bytes(const struct bytes *b, struct diag_log *log,
                                   enum etl_open_status *st)
{
    struct etl_diag d = { diag_cb, NULL, NULL, NULL, log };
    return etl_open_mem(b->d, b->n, "test.etl", &d, st);
}

/* A header buffer and four event buffers of two CPUs in wrapped file order. */
static void build_file(struct bytes *b)
{
    b->n = 0;
    size_t at = buffer_start(b, 1024, 0, 0, 1, 4);
    logfile_event(b, 8, 1024, 2);
    /* An event between SavedOffset and Offset (format.md §2.1) must be read. */
    uint32_t saved = (uint32_t)(b->n - at);
    b16(b, 2); b8(b, 2); b8(b, 0xC0); b16(b, 0x20); b16(b, 0x0050);
    bfill(b, 0, 8); b64(b, 5000); bfill(b, 0, 8);
    buffer_end(b, at, 1024, saved, (uint32_t)(b->n - at));
    struct { uint64_t seq; unsigned cpu; int64_t t0; } bufs[] = {
        { 3, 1, 6000 }, { 4, 0, 7000 }, { 1, 0, 5100 }, { 2, 1, 5500 },
    };
    for (size_t i = 0; i < 4; i++) {
        at = buffer_start(b, 1024, bufs[i].seq, bufs[i].cpu, 0, 0);
        for (int k = 0; k < 3; k++)
            perfinfo(b, 0x0100 + (unsigned)(bufs[i].seq * 10) + (unsigned)k,
                     bufs[i].t0 + 100 * k);
        buffer_end(b, at, 1024, 0, 0);
    }
}

/* Checks the merged events of the file build_file makes. */
static void check_merge(struct etl_file *f, const struct diag_log *log)
{
    ck_assert_uint_eq(etl_file_totals(f)->buffers, 5);
    ck_assert_uint_eq(etl_file_header(f)->log_file_mode, 2);
    struct etl_streams *s = etl_streams_new(f);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(etl_streams_count(s), 2);
    struct collected c = { .n = 0 };
    etl_merge_events(s, collect, &c);
    ck_assert_int_eq(log->count, 0);
    ck_assert_int_eq(c.n, 2 + 12);
    ck_assert_uint_eq(c.hook[0], 0x0000);
    ck_assert_uint_eq(c.hook[1], 0x0050);  /* found past SavedOffset */
    for (int i = 3; i < c.n; i++)
        ck_assert_int_ge(c.ts[i], c.ts[i - 1]);
    ck_assert_uint_eq(c.hook[2], 0x0100 + 10);  /* seq 1 first */
    ck_assert_uint_eq(c.hook[c.n - 1], 0x0100 + 42);
    etl_streams_free(s);
}

START_TEST(file_order_and_merge)
{
    static struct bytes b;
    build_file(&b);
    struct diag_log log = { 0 };
    enum etl_open_status st;
    struct etl_file *f = open_bytes(&b, &log, &st);
    ck_assert_int_eq(st, ETL_OPEN_OK);
    check_merge(f, &log);
    ck_assert_str_eq(etl_file_name(f), "test.etl");
    etl_close(f);

    /* The same bytes through a descriptor (an unlinked temporary file). */
    FILE *tmp = tmpfile();
    ck_assert_ptr_nonnull(tmp);
    ck_assert_uint_eq(fwrite(b.d, 1, b.n, tmp), b.n);
    ck_assert_int_eq(fflush(tmp), 0);
    struct etl_diag d = { diag_cb, NULL, NULL, NULL, &log };
    f = etl_open_fd(fileno(tmp), "fd.etl", &d, &st);
    ck_assert_int_eq(st, ETL_OPEN_OK);
    check_merge(f, &log);
    etl_close(f);
    /* etl_open_fd read it whole though it stood at its end; _here reads
     * from where it stands: nothing there, then (from its start) all of it,
     * leaving it at its end. */
    ck_assert(etl_open_fd_here(fileno(tmp), "here.etl", NULL, &st) == NULL);
    ck_assert_int_eq(st, ETL_OPEN_EMPTY);
    ck_assert_int_eq(lseek(fileno(tmp), 0, SEEK_SET), 0);
    f = etl_open_fd_here(fileno(tmp), "here.etl", &d, &st);
    ck_assert_int_eq(st, ETL_OPEN_OK);
    ck_assert_int_eq(lseek(fileno(tmp), 0, SEEK_CUR), (off_t)b.n);
    check_merge(f, &log);
    etl_close(f);
    ck_assert_int_eq(fclose(tmp), 0); /* the descriptor was not closed by etl_close */
}
END_TEST

/* Counts events. */
static bool count_event(void *ctx, const struct etl_event *ev)
{
    (void)ev;
    (*(int *)ctx)++;
    return true;
}

/* Walks f in file order inside a scope that keeps no problem; returns the
 * events. */
static int walk_quietly(struct etl_file *f)
{
    struct etl_scope sc;
    int n = 0;
    etl_scope_begin(f, &sc, false);
    etl_walk_file(f, count_event, &n);
    etl_scope_end(f, &sc);
    etl_scope_replay(f, &sc);
    return n;
}

START_TEST(scopes)
{
    static struct bytes b;
    build_file(&b);
    size_t bad = 1024 * 3 + 0x48 + 0x18;
    set32(&b, bad, 0x12345678);
    struct diag_log log = { 0 };
    enum etl_open_status st;
    struct etl_file *f = open_bytes(&b, &log, &st);
    ck_assert_ptr_nonnull(f);
    /* A quiet scope: the damage is neither reported nor counted. The
     * damaged record is skipped, the next found (etl_bad_record). */
    int n = walk_quietly(f);
    ck_assert_int_eq(n, 2 + 12 - 1);
    ck_assert_int_eq(log.count, 0);
    ck_assert_uint_eq(etl_file_problems(f), 0);
    /* A holding scope: reported and counted only at the replay. */
    struct etl_scope sc;
    etl_scope_begin(f, &sc, true);
    etl_walk_file(f, count_event, &n);
    etl_scope_end(f, &sc);
    ck_assert_int_eq(log.count, 0);
    ck_assert_uint_eq(etl_file_problems(f), 0);
    etl_scope_replay(f, &sc);
    ck_assert_int_eq(log.count, 1);
    ck_assert_uint_eq(log.offset, bad);
    ck_assert_uint_eq(etl_file_problems(f), 1);
    /* Read again outside any scope: the place was named, not named twice. */
    etl_walk_file(f, count_event, &n);
    ck_assert_int_eq(log.count, 1);
    ck_assert_uint_eq(etl_file_problems(f), 1);
    etl_close(f);
    /* Outside any scope: reported at once. */
    struct diag_log log2 = { 0 };
    f = open_bytes(&b, &log2, &st);
    ck_assert_ptr_nonnull(f);
    etl_walk_file(f, count_event, &n);
    ck_assert_int_eq(log2.count, 1);
    ck_assert_uint_eq(log2.offset, bad);
    ck_assert_uint_eq(etl_file_problems(f), 1);
    etl_close(f);
}
END_TEST

START_TEST(file_damage)
{
    static struct bytes b;
    build_file(&b);
    /* Damage the second event of the third buffer (offset 1024*3 + 0x48 + 0x18). */
    size_t bad = 1024 * 3 + 0x48 + 0x18;
    set32(&b, bad, 0x12345678);
    struct diag_log log = { 0 };
    enum etl_open_status st;
    struct etl_file *f = open_bytes(&b, &log, &st);
    ck_assert_int_eq(st, ETL_OPEN_OK);
    struct etl_streams *s = etl_streams_new(f);
    struct collected c = { .n = 0 };
    etl_merge_events(s, collect, &c);
    ck_assert_int_eq(log.count, 1);
    ck_assert_uint_eq(log.offset, bad);
    ck_assert_int_eq(c.n, 2 + 12 - 1);   /* that record skipped, the next found */
    etl_streams_free(s);
    etl_close(f);

    /* The record after it earlier than the one before it: no place from
     * which the records go on with their times not going back, so the
     * rest of the buffer is skipped; the walk and the streams alike. */
    set32(&b, bad + 0x18 + 8, 5000); /* the third record's time, under 5100 */
    log.count = 0;
    f = open_bytes(&b, &log, &st);
    ck_assert_int_eq(st, ETL_OPEN_OK);
    s = etl_streams_new(f);
    c.n = 0;
    etl_merge_events(s, collect, &c);
    ck_assert_int_eq(c.n, 2 + 12 - 2);
    ck_assert_int_eq(log.count, 1);
    etl_streams_free(s);
    int walked = 0;
    etl_walk_file(f, count_event, &walked);
    ck_assert_int_eq(walked, 2 + 12 - 2);
    etl_close(f);
    set32(&b, bad + 0x18 + 8, 5300);

    /* Truncated: the last buffer loses its tail; earlier events still read. */
    b.n -= 1024 - 0x48 - 0x18 - 4;
    log.count = 0;
    f = open_bytes(&b, &log, &st);
    ck_assert_int_eq(st, ETL_OPEN_OK);
    ck_assert_int_eq(log.count, 1);
    ck_assert_uint_eq(log.offset, 1024 * 4);
    s = etl_streams_new(f);
    c.n = 0;
    etl_merge_events(s, collect, &c);
    ck_assert_int_eq(c.n, 2 + 12 - 1 - 2); /* damage above, and the cut */
    etl_streams_free(s);
    etl_close(f);

    /* Cut inside the logfile header: said so (it was "not an ETL file");
     * cut before its record's size, not ETL. */
    build_file(&b);
    b.n = ETL_BUF_HEADER_SIZE + 40;
    ck_assert_ptr_null(open_bytes(&b, &log, &st));
    ck_assert_int_eq(st, ETL_OPEN_CUT);
    b.n = ETL_BUF_HEADER_SIZE + 0x20;
    set32(&b, ETL_BUF_HEADER_SIZE, 0); /* no trace header's marker */
    ck_assert_ptr_null(open_bytes(&b, &log, &st));
    ck_assert_int_eq(st, ETL_OPEN_NOT_ETL);

    /* Not ETL at all. */
    memset(b.d, 'x', 4096);
    b.n = 4096;
    ck_assert_ptr_null(open_bytes(&b, &log, &st));
    ck_assert_int_eq(st, ETL_OPEN_NOT_ETL);
}
END_TEST

/* ---- read by copying or mapped ------------------------------------------ */

/* FNV-1a over n bytes, on top of h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}

/* What a reading saw: its events and its problems, each folded into a hash
 * in order; the problems also added up, a hash whatever their order. */
struct seen {
    uint64_t events, ev_hash;
    uint64_t problems, pr_hash, pr_sum;
    uint64_t last_buffer;      /* the largest buffer offset of an event */
    const struct etl_file *f;  /* the file walked, while it is */
    uint64_t in_place;         /* events seen while it was mapped */
};

static bool seen_event(void *ctx, const struct etl_event *ev)
{
    struct seen *x = ctx;
    uint64_t h = x->ev_hash;
    h = fnv(h, &ev->ts, sizeof ev->ts);
    h = fnv(h, &ev->buffer_offset, sizeof ev->buffer_offset);
    h = fnv(h, &ev->event_offset, sizeof ev->event_offset);
    h = fnv(h, &ev->cpu, sizeof ev->cpu);
    h = fnv(h, &ev->hook_id, sizeof ev->hook_id);
    h = fnv(h, &ev->data_len, sizeof ev->data_len);
    x->ev_hash = fnv(h, ev->data, ev->data_len);
    x->events++;
    if (x->f && x->f->map_len)
        x->in_place++;
    if (ev->buffer_offset > x->last_buffer)
        x->last_buffer = ev->buffer_offset;
    return true;
}

static void seen_problem(void *ctx, uint64_t offset, const char *msg)
{
    struct seen *x = ctx;
    x->pr_hash = fnv(fnv(x->pr_hash, &offset, sizeof offset), msg, strlen(msg));
    x->pr_sum += fnv(fnv(0xCBF29CE484222325ull, &offset, sizeof offset), msg, strlen(msg));
    x->problems++;
}

/* Reads path the given way, in file order (with threads) and merged in time
 * order, into x[0] and x[1]; with index_first, the walk in file order has
 * the buffers indexed before it, as they are after etl_open but for a file
 * read by copying, whose walk indexes them as it goes. */
static void read_way(const char *path, enum etl_read_way way, unsigned threads,
                     bool index_first, struct seen x[2],
                     void (*after_open)(const char *path, bool undo))
{
    memset(x, 0, 2 * sizeof *x);
    etl_read_way = way;
    for (int k = 0; k < 2; k++) {
        struct etl_diag d = { seen_problem, NULL, NULL, NULL, &x[k] };
        enum etl_open_status st;
        struct etl_file *f = etl_open_path(path, &d, &st);
        ck_assert_msg(f != NULL, "%s: open status %d", path, (int)st);
        /* Indexed at open unless read by copying and not compressed by its
         * header (EVENT_TRACE_COMPRESSED_MODE). */
        bool compressed = (etl_file_header(f)->log_file_mode & 0x04000000u) != 0;
        ck_assert_msg(f->indexed == (way == ETL_READ_MAP || compressed),
                      "%s: indexed at open: %d", path, (int)f->indexed);
        if (index_first)
            ck_assert(etl_file_index(f));
        if (after_open)
            after_open(path, false);
        ck_assert_msg((f->map_len != 0) == (way == ETL_READ_MAP), "%s: read %s", path,
                      f->map_len ? "mapped" : "by copying");
        if (k == 0) {
            etl_file_set_threads(f, threads);
            x[k].f = f;
            etl_walk_file(f, seen_event, &x[k]);
            x[k].f = NULL;
            /* A walk mapped for itself lets the mapping go at its end. */
            if (way == ETL_READ_WALK_MAP)
                ck_assert_msg(!f->map_len, "%s: still mapped after the walk", path);
        } else {
            struct etl_streams *s = etl_streams_new(f);
            ck_assert_ptr_nonnull(s);
            etl_merge_events(s, seen_event, &x[k]);
            etl_streams_free(s);
        }
        ck_assert_uint_eq(etl_file_problems(f), x[k].problems);
        ck_assert(f->indexed);
        etl_close(f);
        if (after_open)
            after_open(path, true); /* as it was for the next open */
    }
    etl_read_way = ETL_READ_CHOOSE;
}

/* Fails unless a and b (read the ways named an and bn) saw the same events
 * and the same problems: in the same order, or with by_sum in any. */
static void same_seen(const char *path, const struct seen *a, const struct seen *b,
                      const char *an, const char *bn, bool by_sum)
{
    ck_assert_msg(a->events == b->events && a->ev_hash == b->ev_hash,
                  "%s: events differ, %s %llu, %s %llu", path, an,
                  (unsigned long long)a->events, bn, (unsigned long long)b->events);
    ck_assert_msg(a->problems == b->problems &&
                      (by_sum ? a->pr_sum == b->pr_sum : a->pr_hash == b->pr_hash),
                  "%s: problems differ, %s %llu, %s %llu", path, an,
                  (unsigned long long)a->problems, bn, (unsigned long long)b->problems);
}

/* The same events and the same problems read by copying and mapped; with
 * at least min_events events and min_problems problems (after_open, when
 * not NULL, changes the file once it is open, and undoes that after). */
static void same_both_ways(const char *path, uint64_t min_events, uint64_t min_problems,
                           void (*after_open)(const char *path, bool undo))
{
    struct seen c[2], w[2], wm[2], m[2], m3[2];
    read_way(path, ETL_READ_COPY, 1, true, c, after_open);
    /* Indexed by the walk (but for a file after_open changes once the
     * index is built), and so through a mapping of the walk's own. */
    if (!after_open) {
        read_way(path, ETL_READ_COPY, 1, false, w, NULL);
        read_way(path, ETL_READ_WALK_MAP, 1, false, wm, NULL);
        ck_assert_msg(wm[0].in_place == wm[0].events, "%s: %llu of %llu events read in place",
                      path, (unsigned long long)wm[0].in_place,
                      (unsigned long long)wm[0].events);
    }
    read_way(path, ETL_READ_MAP, 1, false, m, after_open);
    read_way(path, ETL_READ_MAP, 3, false, m3, after_open); /* compressed: decompressed ahead */
    for (int k = 0; k < 2; k++) {
        ck_assert_msg(c[k].events >= min_events, "%s: %llu events", path,
                      (unsigned long long)c[k].events);
        ck_assert_msg(c[k].problems >= min_problems, "%s: %llu problems", path,
                      (unsigned long long)c[k].problems);
        same_seen(path, &c[k], &m[k], "copied", "mapped", false);
        /* Indexed by the walk: the same events, and the same problems, the
         * index's said where the walk comes to them (in another order). */
        if (!after_open) {
            same_seen(path, &c[k], &w[k], "indexed first", "by the walk", true);
            same_seen(path, &w[k], &wm[k], "by the walk copied", "mapped", false);
        }
        ck_assert_uint_eq(m3[k].events, m[k].events);
        ck_assert_uint_eq(m3[k].ev_hash, m[k].ev_hash);
        ck_assert_uint_eq(m3[k].pr_hash, m[k].pr_hash);
    }
}

/* What a walk saw, added up as a count by HookId adds it up: by processor
 * (modulo 64) and class (1 to 5 for a PERFINFO64 event, from its HookId,
 * but 0 for a sixth of the HookIds; 0 for every other event): events,
 * bytes, least and greatest time. A walk by runs learns a HookId's class
 * from its first event whole; with stop, it stops at its first runs. The
 * plain walk keeps where each event was (seq); the walk by runs checks that
 * the events it is given whole come in that order (pos: the next to look
 * at), and that every event of class 0 does. */
struct by_class {
    struct { uint64_t count, bytes; int64_t first, last; } t[64][6];
    uint32_t cls[65536];
    uint64_t as_runs, after_stop;
    uint64_t odd; /* runs or classes that cannot be, events out of order
                   * (checked at the end: an assertion a call costs a write) */
    uint64_t *seq;
    size_t nseq, cap, pos;
    bool stop, stopped, check;
};

static unsigned class_of(const struct etl_event *ev)
{
    if (ev->kind != ETL_KIND_PERFINFO64 || ev->hook_id % 6u == 0)
        return 0;
    return ev->hook_id % 5u + 1u;
}

/* Where an event is: its buffer and its offset in it. */
static uint64_t event_place(const struct etl_event *ev)
{
    return ev->buffer_offset << 24 ^ ev->event_offset;
}

/* Keeps an event's place (the plain walk), or finds it among those kept
 * past the last one found (the walk by runs). */
static void class_order(struct by_class *x, const struct etl_event *ev)
{
    uint64_t at = event_place(ev);
    if (!x->check) {
        if (x->nseq == x->cap) {
            x->cap = x->cap ? 2 * x->cap : 4096;
            x->seq = realloc(x->seq, x->cap * sizeof *x->seq);
            ck_assert_ptr_nonnull(x->seq);
        }
        x->seq[x->nseq++] = at;
        return;
    }
    while (x->pos < x->nseq && x->seq[x->pos] != at)
        x->pos++;
    if (x->pos == x->nseq)
        x->odd++;
    else
        x->pos++;
}

static void class_add(struct by_class *x, unsigned cpu, unsigned k, uint64_t count,
                      uint64_t bytes, int64_t first, int64_t last)
{
    if (k > 5) {
        x->odd++;
        return;
    }
    cpu %= 64;
    if (!x->t[cpu][k].count) {
        x->t[cpu][k].first = first;
        x->t[cpu][k].last = last;
    }
    x->t[cpu][k].first = first < x->t[cpu][k].first ? first : x->t[cpu][k].first;
    x->t[cpu][k].last = last > x->t[cpu][k].last ? last : x->t[cpu][k].last;
    x->t[cpu][k].count += count;
    x->t[cpu][k].bytes += bytes;
}

static bool class_event(void *ctx, const struct etl_event *ev)
{
    struct by_class *x = ctx;
    x->after_stop += x->stopped;
    unsigned k = class_of(ev);
    if (k)
        x->cls[ev->hook_id] = k;
    class_add(x, ev->cpu, k, 1, ev->size, ev->ts, ev->ts);
    class_order(x, ev);
    return true;
}

static bool class_runs(void *ctx, unsigned cpu, const struct etl_hook_run *r, size_t n)
{
    struct by_class *x = ctx;
    x->after_stop += x->stopped;
    x->odd += n == 0;
    for (size_t i = 0; i < n; i++) {
        x->odd += r[i].cls == 0 || r[i].count == 0;
        class_add(x, cpu, r[i].cls, r[i].count, r[i].bytes, r[i].first, r[i].last);
        x->as_runs += r[i].count;
    }
    x->stopped = x->stop;
    return !x->stop;
}

/* Walks path in file order with etl_walk_file and with etl_walk_file_runs,
 * read by copying and mapped: the same events added up by class, the
 * events given whole in the plain walk's order, the same problems; at
 * least min_runs of the events in runs (by copying); a walk whose runs ask
 * to stop calls nothing more. */
static void same_by_runs(const char *path, uint64_t min_runs)
{
    struct by_class *x = calloc(3, sizeof *x);
    ck_assert_ptr_nonnull(x);
    const enum etl_read_way ways[2] = { ETL_READ_COPY, ETL_READ_MAP };
    for (int w = 0; w < 2; w++) {
        struct seen pr[3];
        memset(x, 0, 3 * sizeof *x);
        memset(pr, 0, sizeof pr);
        x[2].stop = true;
        etl_read_way = ways[w];
        for (int k = 0; k < 3; k++) {
            struct etl_diag d = { seen_problem, NULL, NULL, NULL, &pr[k] };
            enum etl_open_status st;
            struct etl_file *f = etl_open_path(path, &d, &st);
            ck_assert_msg(f != NULL, "%s: open status %d", path, (int)st);
            if (k == 0) {
                etl_walk_file(f, class_event, &x[k]);
            } else {
                x[k].seq = x[0].seq;
                x[k].nseq = x[0].nseq;
                x[k].check = true;
                etl_walk_file_runs(f, class_event, class_runs, x[k].cls, &x[k]);
            }
            etl_close(f);
        }
        etl_read_way = ETL_READ_CHOOSE;
        free(x[0].seq);
        ck_assert_msg(memcmp(x[0].t, x[1].t, sizeof x[0].t) == 0,
                      "%s: counts differ by runs (way %d)", path, w);
        ck_assert_msg(pr[0].problems == pr[1].problems && pr[0].pr_hash == pr[1].pr_hash,
                      "%s: problems differ: %llu, by runs %llu", path,
                      (unsigned long long)pr[0].problems, (unsigned long long)pr[1].problems);
        ck_assert_msg(w == 1 || x[1].as_runs >= min_runs, "%s: %llu events in runs", path,
                      (unsigned long long)x[1].as_runs);
        ck_assert_uint_eq(x[2].after_stop, 0);
        ck_assert_uint_eq(x[0].odd + x[1].odd + x[2].odd, 0);
        ck_assert(x[2].stopped || x[2].as_runs == 0);
    }
    free(x);
}

/* Writes a trace of n switches on 4 CPUs to path, in buffers of bufsize
 * bytes: compact batches and CSwitch events, plain, compressed or circular. */
static void write_trace(const char *path, int n, uint32_t bufsize, bool compress,
                        bool circular)
{
    struct etlw_config cfg;
    etlw_config_defaults(&cfg);
    cfg.ncpus = 4;
    cfg.buffer_size = bufsize;
    cfg.uses_compact = true;
    cfg.compress = compress;
    cfg.circular = circular;
    char err[200];
    struct etlw *w = etlw_open(path, &cfg, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    for (int i = 0; i < n; i++) {
        struct etlw_switch sw;
        memset(&sw, 0, sizeof sw);
        sw.cpu = (uint16_t)(i % 4);
        sw.ts = 100000 + 37 * (int64_t)i;
        sw.old_tid = (uint32_t)(100 + i % 13);
        sw.new_tid = (uint32_t)(100 + (i + 4) % 13);
        sw.old_state = 5;
        sw.old_wait_reason = (uint8_t)(i % 7);
        sw.old_priority = 8;
        sw.old_base_priority = 8;
        sw.new_wait_time = (uint32_t)(i % 5);
        int r = i % 3 ? etlw_add_compact(w, &sw) : etlw_add_cswitch(w, &sw);
        ck_assert_int_eq(r, 0);
    }
    ck_assert_msg(etlw_close(w, NULL, err, sizeof err) == 0, "%s", err);
}

/* Overwrites n bytes of path at off with v. */
static void smash(const char *path, off_t off, const void *v, size_t n)
{
    int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, v, n, off), (ssize_t)n);
    close(fd);
}

/* Makes the third buffer of path claim 12 KiB, its events running on to
 * 8 KiB: larger than any buffer when the file was indexed; or undoes it. */
static void grow_buffer(const char *path, bool undo)
{
    static const uint8_t grown[8] = { 0x00, 0x30, 0, 0, 0x00, 0x20, 0, 0 };
    static uint8_t was[8];
    if (undo) {
        smash(path, 4096 * 2, was, sizeof was);
        return;
    }
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pread(fd, was, sizeof was, 4096 * 2), (ssize_t)sizeof was);
    close(fd);
    smash(path, 4096 * 2, grown, sizeof grown);
}

/* Creates an empty temporary file in $TMPDIR (or /tmp); its name into path. */
static void temp_file(char *path, size_t cap)
{
    snprintf(path, cap, "%s/reader-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

/* A walk in file order that cuts its file to CUT_SIZE bytes at its first
 * event (not at a page's end: a mapping faults only on the page after the
 * one the file now ends in), and what it saw: events, problems, and of them
 * those saying the file shrank. */
#define CUT_SIZE (65536 + 100)
struct cut {
    const char *path;
    uint64_t events, problems, shrank;
    uint64_t shrank_at;       /* the offset the shrinking was said at */
};

static bool cut_event(void *ctx, const struct etl_event *ev)
{
    struct cut *c = ctx;
    (void)ev;
    if (c->events++ == 0)
        ck_assert_int_eq(truncate(c->path, CUT_SIZE), 0);
    return true;
}

static void cut_problem(void *ctx, uint64_t offset, const char *msg)
{
    struct cut *c = ctx;
    c->problems++;
    if (strstr(msg, "the file shrank while it was read")) {
        c->shrank++;
        c->shrank_at = offset;
    }
}

/* A file that shrinks under a walk through a mapping of the walk's own: what
 * lies past the new end reads as zeros (a buffer's events end there), the
 * shrinking is said once, the walk ends, and the mapping is let go; the
 * same events as mapped for good. Left out under an emulator (qemu-i386),
 * where a SIGBUS of a mapped page past the end of a file is not delivered. */
START_TEST(walk_map_shrinks)
{
    char path[256];
    temp_file(path, sizeof path);
    struct cut c[2];
    const enum etl_read_way ways[2] = { ETL_READ_WALK_MAP, ETL_READ_MAP };
    for (int k = 0; k < 2; k++) {
        write_trace(path, 40000, 4096, false, false);
        struct stat sb;
        ck_assert_int_eq(stat(path, &sb), 0);
        ck_assert_int_gt(sb.st_size, 65536 * 4);
        etl_read_way = ways[k];
        memset(&c[k], 0, sizeof c[k]);
        c[k].path = path;
        struct etl_diag d = { cut_problem, NULL, NULL, NULL, &c[k] };
        enum etl_open_status st;
        struct etl_file *f = etl_open_path(path, &d, &st);
        ck_assert_ptr_nonnull(f);
        ck_assert(etl_file_index(f));
        etl_walk_file(f, cut_event, &c[k]);
        ck_assert_msg(c[k].shrank == 1, "way %d: said %llu times", k,
                      (unsigned long long)c[k].shrank);
        ck_assert_uint_eq(c[k].shrank_at, CUT_SIZE); /* the new end, where the zeros begin */
        ck_assert_msg(c[k].events > 0 && c[k].events < 40000, "way %d: %llu events", k,
                      (unsigned long long)c[k].events);
        ck_assert(k == 1 || f->map_len == 0);
        etl_close(f);
        etl_read_way = ETL_READ_CHOOSE;
    }
    ck_assert_uint_eq(c[0].events, c[1].events);
    ck_assert_uint_eq(c[0].problems, c[1].problems);
    unlink(path);
}
END_TEST

/* A file that shrinks during a pre-pass whose problems are dropped (a
 * scope that keeps none, as the process map's pass before the switches):
 * the pass after it still says so, once; before, the shrinking counted as
 * said, and the next pass lost the buffers past the new end without a
 * word. By copying, and through a mapping but under an emulator. */
START_TEST(shrinks_in_prepass)
{
    char path[256];
    temp_file(path, sizeof path);
    const enum etl_read_way ways[2] = { ETL_READ_COPY, ETL_READ_MAP };
    int nways = getenv("ETLDUMP_EMULATOR") ? 1 : 2; /* see walk_map_shrinks */
    for (int k = 0; k < nways; k++) {
        write_trace(path, 40000, 4096, false, false);
        etl_read_way = ways[k];
        struct cut c;
        memset(&c, 0, sizeof c);
        c.path = path;
        struct etl_diag d = { cut_problem, NULL, NULL, NULL, &c };
        enum etl_open_status st;
        struct etl_file *f = etl_open_path(path, &d, &st);
        ck_assert_ptr_nonnull(f);
        ck_assert(etl_file_index(f));
        struct etl_scope s;
        etl_scope_begin(f, &s, false);
        etl_walk_file(f, cut_event, &c); /* cuts the file at its first event */
        etl_scope_end(f, &s);
        etl_scope_replay(f, &s);
        ck_assert_uint_eq(c.problems, 0);
        uint64_t first = c.events;
        etl_walk_file(f, cut_event, &c);
        ck_assert_msg(c.shrank == 1, "way %d: said %llu times", k, (unsigned long long)c.shrank);
        ck_assert_uint_eq(c.shrank_at, CUT_SIZE);
        ck_assert(c.events - first > 0 && c.events - first <= first);
        etl_close(f);
        etl_read_way = ETL_READ_CHOOSE;
    }
    unlink(path);
}
END_TEST

START_TEST(read_copied_or_mapped)
{
    char path[256];
    temp_file(path, sizeof path);
    /* Small buffers plain, compressed and circular; large ones, of which
     * the reader reads a first part with the header, then the rest. */
    for (int kind = 0; kind < 4; kind++) {
        int n = kind == 3 ? 40000 : 6000;
        write_trace(path, n, kind == 3 ? 0x30000 : 4096, kind == 1, kind == 2);
        same_both_ways(path, (uint64_t)n / 3, 0, NULL);
        same_by_runs(path, (uint64_t)n / 4); /* a CSwitch event is PERFINFO64 */
        /* Damage: event headers and buffer headers, and a cut last buffer
         * (or, compressed, a cut stream). */
        struct stat sb;
        ck_assert_int_eq(stat(path, &sb), 0);
        static const uint8_t junk[4] = { 0xFF, 0x7F, 0x01, 0xF0 };
        for (off_t at = 4096 + 0x48 + 8; at + 4 < sb.st_size; at += 4096 * 3 + 1000)
            smash(path, at, junk, sizeof junk);
        smash(path, 4096 * 2 + 4, junk, sizeof junk);         /* SavedOffset */
        smash(path, 4096 * 4 + 0x30, junk + 1, sizeof junk - 1); /* Offset */
        ck_assert_int_eq(truncate(path, sb.st_size - 1500), 0);
        same_both_ways(path, 1000, 1, NULL);
        same_by_runs(path, 100);
        if (kind == 0) /* a buffer grows past the largest the index saw */
            same_both_ways(path, 1000, 3, grow_buffer);
    }
    unlink(path);
    /* The real traces, where they are. */
    const char *name;
    for (size_t k = 0; (name = real_trace(k)) != NULL; k++) {
        if (!real_trace_path("test_reader", name, path, sizeof path))
            continue;
        same_both_ways(path, 1, 0, NULL);
        same_by_runs(path, 0);
    }
}
END_TEST

/* Reads the 32-bit little-endian value at off of the file at path. */
static uint32_t peek32(const char *path, off_t off)
{
    uint8_t b[4];
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pread(fd, b, 4, off), 4);
    close(fd);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A file of compressed buffers (each of a size of its own) whose size
 * fields are damaged one at a time: the header buffer's, a buffer's made
 * impossible, 100 bytes too large or too small, the last one's: every event
 * is still read, copied or mapped, with the problem said (before, the index
 * ended at the first of them, or the file was not an ETL file); the totals
 * count the bytes of the file. A header wiped whole loses its buffer and
 * no other. */
START_TEST(compressed_sizes_damaged)
{
    char path[256];
    temp_file(path, sizeof path);
    write_trace(path, 6000, 4096, true, false);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    off_t at[64];
    size_t n = 0;
    for (off_t o = 0; o < sb.st_size && n < 64; o += peek32(path, o))
        at[n++] = o;
    ck_assert_uint_gt(n, 20);
    struct seen clean[2];
    read_way(path, ETL_READ_MAP, 1, false, clean, NULL);
    ck_assert_uint_gt(clean[0].events, 2000);
    for (int k = 0; k < 6; k++) {
        off_t o = k == 0 ? 0 : k == 4 ? at[n - 1] : at[n / 2];
        uint32_t was = peek32(path, o);
        uint32_t size = k == 2 ? was + 100 : k == 3 ? was - 100 : 0;
        uint8_t v[ETL_BUF_HEADER_SIZE] = { (uint8_t)size, (uint8_t)(size >> 8),
                                           (uint8_t)(size >> 16), (uint8_t)(size >> 24) };
        uint8_t keep[ETL_BUF_HEADER_SIZE];
        int fd = open(path, O_RDONLY);
        ck_assert_int_eq(pread(fd, keep, sizeof keep, o), (ssize_t)sizeof keep);
        close(fd);
        smash(path, o, v, k == 5 ? sizeof v : 4);
        struct seen c[2], m[2];
        read_way(path, ETL_READ_COPY, 1, true, c, NULL);
        read_way(path, ETL_READ_MAP, 3, false, m, NULL);
        for (int j = 0; j < 2; j++) {
            same_seen(path, &c[j], &m[j], "copied", "mapped", false);
            ck_assert_msg(c[j].problems == 1, "damage %d: %llu problems", k,
                          (unsigned long long)c[j].problems);
            if (k < 5)
                ck_assert_msg(c[j].events == clean[j].events &&
                                  c[j].ev_hash == clean[j].ev_hash,
                              "damage %d: %llu events of %llu", k,
                              (unsigned long long)c[j].events,
                              (unsigned long long)clean[j].events);
            else
                ck_assert_msg(c[j].events < clean[j].events && c[j].events > clean[j].events / 2,
                              "wiped: %llu events of %llu", (unsigned long long)c[j].events,
                              (unsigned long long)clean[j].events);
        }
        struct etl_file *f = etl_open_path(path, NULL, &(enum etl_open_status){ 0 });
        ck_assert_ptr_nonnull(f);
        ck_assert(etl_file_index(f));
        if (k < 5)
            ck_assert_uint_eq(etl_file_totals(f)->bytes, (uint64_t)sb.st_size);
        etl_close(f);
        smash(path, o, keep, sizeof keep);
    }
    unlink(path);
}
END_TEST

#if ETL_MAX_BUFFERS <= 4096
/* The problems that name "more than" in their message: how many, and
 * where the first is. */
struct past {
    uint64_t at, n;
};

static void past_bound(void *ctx, uint64_t offset, const char *msg)
{
    struct past *p = ctx;
    if (strstr(msg, "more than") && p->n++ == 0)
        p->at = offset;
}

/* The reader built with a bound of a few buffers (ETL_MAX_BUFFERS, see the
 * Makefile): a file of more, read by copying while the walk indexes it (up
 * to the bound, then the rest as etl_open indexes), indexed first, and
 * mapped, gives the events of the first ETL_MAX_BUFFERS buffers alone, and
 * one problem at the first buffer past them. */
START_TEST(read_past_max_buffers)
{
    char path[256];
    temp_file(path, sizeof path);
    for (int damaged = 0; damaged < 2; damaged++) {
        write_trace(path, 40000, 4096, false, false);
        struct stat sb;
        ck_assert_int_eq(stat(path, &sb), 0);
        uint64_t bound = (uint64_t)ETL_MAX_BUFFERS * 4096;
        ck_assert_msg((uint64_t)sb.st_size >= bound * 2, "%lld bytes",
                      (long long)sb.st_size);
        if (damaged) { /* the buffer past the bound says an impossible size: it is
                        * read at the file's, the next leading on, and so
                        * is the first past the bound all the same */
            static const uint8_t junk[4] = { 0x10, 0, 0, 0 };
            smash(path, (off_t)bound, junk, sizeof junk);
        }
        same_both_ways(path, 1000, 1, NULL);
        struct seen x[2];
        for (int way = 0; way < 2; way++) {
            read_way(path, way ? ETL_READ_MAP : ETL_READ_COPY, 1, false, x, NULL);
            for (int k = 0; k < 2; k++)
                ck_assert_msg(x[k].last_buffer == bound - 4096, "%s: last buffer %llu",
                              way ? "mapped" : "copied",
                              (unsigned long long)x[k].last_buffer);
        }
        struct past past = { 0, 0 };
        struct etl_diag d = { past_bound, NULL, NULL, NULL, &past };
        enum etl_open_status st;
        struct etl_file *f = etl_open_path(path, &d, &st);
        ck_assert_ptr_nonnull(f);
        etl_walk_file(f, seen_event, &x[0]);
        ck_assert_msg(past.n == 1 && past.at == bound,
                      "%llu problems past the bound, the first at %llu",
                      (unsigned long long)past.n, (unsigned long long)past.at);
        etl_close(f);
    }
    unlink(path);
}
END_TEST
#endif

/* Counts events up to a limit, then asks the walk to stop. */
static bool count_upto(void *ctx, const struct etl_event *ev)
{
    (void)ev;
    int *left = ctx;
    return --*left > 0;
}

/* Opens path with problems going to log. */
static struct etl_file *open_logged(const char *path, struct diag_log *log)
{
    struct etl_diag d = { diag_cb, NULL, NULL, NULL, log };
    enum etl_open_status st;
    struct etl_file *f = etl_open_path(path, &d, &st);
    ck_assert_msg(f != NULL, "%s: open status %d", path, (int)st);
    return f;
}

START_TEST(walk_indexes)
{
    char path[256];
    temp_file(path, sizeof path);
    write_trace(path, 6000, 4096, false, false);
    /* The tenth buffer's size made impossible: the index skips it. */
    static const uint8_t zero[4] = { 0 };
    smash(path, 4096 * 10, zero, sizeof zero);

    /* Indexed at once: the totals, and the one problem. */
    struct diag_log all = { 0 };
    struct etl_file *f = open_logged(path, &all);
    ck_assert(!f->indexed);
    ck_assert(etl_file_index(f));
    ck_assert_int_eq(all.count, 1);
    ck_assert_uint_eq(all.offset, 4096 * 10);
    struct etl_buffer_totals whole = *etl_file_totals(f);
    size_t nents = f->nents;
    etl_close(f);

    /* A walk that stops in the first buffers still leaves the whole index,
     * and the problem said. */
    struct diag_log log = { 0 };
    f = open_logged(path, &log);
    int left = 50;
    etl_walk_file(f, count_upto, &left);
    ck_assert_int_eq(left, 0);
    ck_assert(f->indexed);
    ck_assert_uint_eq(f->nents, nents);
    ck_assert_int_eq(memcmp(etl_file_totals(f), &whole, sizeof whole), 0);
    ck_assert_int_eq(log.count, 1);
    ck_assert_uint_eq(log.offset, 4096 * 10);
    etl_close(f);

    /* A walk inside a scope that keeps nothing: the index is the file's, its
     * problem said all the same. */
    struct diag_log quiet = { 0 };
    f = open_logged(path, &quiet);
    ck_assert_int_gt(walk_quietly(f), 1000);
    ck_assert(f->indexed);
    ck_assert_int_eq(quiet.count, 1);
    ck_assert_uint_eq(etl_file_problems(f), 1);
    ck_assert_int_eq(memcmp(etl_file_totals(f), &whole, sizeof whole), 0);
    etl_close(f);
    unlink(path);
}
END_TEST

/* What a reading of a file with repeated buffers said: problems, and the
 * warnings saying buffers repeat or have another's numbers. */
struct repeat_log {
    int problems, repeat, other, warnings;
    uint64_t done, total; /* the last progress reported */
};

static void repeat_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct repeat_log *l = ctx;
    l->done = done;
    l->total = total;
}

static void repeat_problem(void *ctx, uint64_t offset, const char *msg)
{
    (void)offset;
    (void)msg;
    ((struct repeat_log *)ctx)->problems++;
}

static void repeat_warning(void *ctx, const char *msg)
{
    struct repeat_log *l = ctx;
    l->warnings++;
    l->repeat += strstr(msg, "byte for byte") != NULL;
    l->other += strstr(msg, "but other bytes") != NULL;
}

/* Writes dst: the file at src, then its first `keep` bytes (all of it when
 * 0), byte `flip` of that copy (when not 0) changed. */
static void write_twice(const char *src, const char *dst, off_t keep, off_t flip,
                        uint8_t **bytes, size_t *len)
{
    struct stat sb;
    ck_assert_int_eq(stat(src, &sb), 0);
    size_t n = (size_t)sb.st_size, k = keep ? (size_t)keep : n;
    uint8_t *b = malloc(n + k);
    ck_assert_ptr_nonnull(b);
    int fd = open(src, O_RDONLY);
    ck_assert_int_eq(pread(fd, b, n, 0), (ssize_t)n);
    close(fd);
    memcpy(b + n, b, k);
    if (flip)
        b[n + (size_t)flip] ^= 1;
    fd = open(dst, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b, n + k), (ssize_t)(n + k));
    close(fd);
    *bytes = b;
    *len = n + k;
}

/* A file appended to itself (plain, compressed, circular): each buffer of
 * the copy repeats one of the first byte for byte and is read once: the
 * same events as the file alone, each way it can be read (copied, mapped,
 * decompressed ahead, as a memory block, indexed first or by the walk). A
 * copy cut inside a buffer (its beginning repeated) likewise, with the cut
 * said. A copy with a byte of a buffer header changed (TimeStamp, +0x10,
 * which nothing reads) is read whole: more events, and said. */
START_TEST(repeated_buffers)
{
    char path[256], twice[256];
    temp_file(path, sizeof path);
    temp_file(twice, sizeof twice);
    for (int kind = 0; kind < 3; kind++) {
        write_trace(path, 6000, 4096, kind == 1, kind == 2);
        struct seen clean[2];
        read_way(path, ETL_READ_MAP, 1, false, clean, NULL);
        struct stat sb;
        ck_assert_int_eq(stat(path, &sb), 0);
        off_t second = peek32(path, 0); /* the second buffer's offset */
        struct etl_file *one = etl_open_path(path, NULL, &(enum etl_open_status){ 0 });
        ck_assert_ptr_nonnull(one);
        ck_assert(etl_file_index(one));
        uint64_t nbuf = etl_file_totals(one)->buffers;
        ck_assert_uint_eq(etl_file_totals(one)->repeated, 0);
        etl_close(one);
        for (int how = 0; how < 3; how++) {
            uint8_t *bytes;
            size_t len;
            off_t keep = how == 1 ? sb.st_size / 2 + 100 : 0;
            write_twice(path, twice, keep, how == 2 ? second + 0x10 : 0, &bytes, &len);
            struct seen c[2];
            read_way(twice, ETL_READ_COPY, 1, false, c, NULL);
            same_both_ways(twice, 1000, how == 1, NULL);
            for (int j = 0; j < 2; j++) {
                ck_assert_uint_eq(c[j].problems, how == 1);
                if (how < 2) {
                    ck_assert_msg(c[j].events == clean[j].events &&
                                      c[j].ev_hash == clean[j].ev_hash,
                                  "kind %d, how %d: %llu events of %llu", kind, how,
                                  (unsigned long long)c[j].events,
                                  (unsigned long long)clean[j].events);
                } else {
                    ck_assert_uint_gt(c[j].events, clean[j].events);
                    ck_assert_uint_lt(c[j].events, clean[j].events + clean[j].events / 4);
                }
            }
            /* Said once, whether the file is indexed first or by the walk,
             * or is a memory block. */
            for (int way = 0; way < 3; way++) {
                struct repeat_log log = { 0 };
                struct etl_diag d = { repeat_problem, repeat_warning, NULL, repeat_progress,
                                      &log };
                enum etl_open_status st;
                struct etl_file *f = way == 2 ? etl_open_mem(bytes, len, "twice", &d, &st)
                                              : etl_open_path(twice, &d, &st);
                ck_assert_ptr_nonnull(f);
                struct seen x = { 0 };
                if (way == 1)
                    etl_walk_file(f, seen_event, &x);
                ck_assert(etl_file_index(f));
                if (way != 1)
                    etl_walk_file(f, seen_event, &x);
                ck_assert_uint_eq(x.events, c[0].events);
                ck_assert_uint_eq(x.ev_hash, c[0].ev_hash);
                ck_assert_int_eq(log.problems, how == 1);
                ck_assert_int_eq(log.repeat, 1);
                ck_assert_int_eq(log.other, how == 2);
                ck_assert_int_eq(log.warnings, 1 + (how == 2));
                /* Those not read, counted apart: every buffer of the copy
                 * but, with a byte changed, one. */
                const struct etl_buffer_totals *t = etl_file_totals(f);
                ck_assert_uint_eq(t->buffers - t->repeated, nbuf + (how == 2));
                if (how != 1)
                    ck_assert_uint_eq(t->buffers, 2 * nbuf);
                etl_close(f);
            }
            free(bytes);
        }
    }
    unlink(path);
    unlink(twice);
}
END_TEST

/* Progress of a file appended to itself counts to the bytes read, the
 * repeats left out (every PROGRESS_STEP, 8 MiB, of buffers loaded: the
 * last report is less than that before the end). A 12 MiB trace, read
 * copied and mapped. */
START_TEST(repeated_progress)
{
    char path[256], twice[256];
    temp_file(path, sizeof path);
    temp_file(twice, sizeof twice);
    write_trace(path, 240000, 65536, false, false);
    uint8_t *bytes;
    size_t len;
    write_twice(path, twice, 0, 0, &bytes, &len);
    free(bytes);
    ck_assert_uint_gt(len, 2 * 12000000u);
    for (int way = 0; way < 2; way++) {
        struct repeat_log log = { 0 };
        struct etl_diag d = { repeat_problem, repeat_warning, NULL, repeat_progress, &log };
        enum etl_open_status st;
        etl_read_way = way ? ETL_READ_MAP : ETL_READ_COPY;
        struct etl_file *f = etl_open_path(twice, &d, &st);
        ck_assert_ptr_nonnull(f);
        struct seen x = { 0 };
        etl_walk_file(f, seen_event, &x);
        const struct etl_buffer_totals *t = etl_file_totals(f);
        ck_assert_uint_eq(t->repeated_bytes, len / 2);
        ck_assert_uint_eq(log.total, len - t->repeated_bytes);
        ck_assert_msg(log.done <= log.total && log.done + 8 * 1024 * 1024 > log.total,
                      "progress ends at %llu of %llu", (unsigned long long)log.done,
                      (unsigned long long)log.total);
        ck_assert_int_eq(log.repeat, 1);
        etl_close(f);
    }
    unlink(path);
    unlink(twice);
}
END_TEST

/* Writes dst: the first `at` bytes of src, then `zeros` zero bytes, then
 * the bytes of src from `from` on (none when from is its size). */
static void write_spliced(const char *src, const char *dst, size_t at, size_t zeros, size_t from)
{
    struct stat sb;
    ck_assert_int_eq(stat(src, &sb), 0);
    size_t n = (size_t)sb.st_size, len = at + zeros + (n - from);
    uint8_t *b = calloc(1, len), *s = malloc(n);
    ck_assert(b && s);
    int fd = open(src, O_RDONLY);
    ck_assert_int_eq(pread(fd, s, n, 0), (ssize_t)n);
    close(fd);
    memcpy(b, s, at);
    memcpy(b + at + zeros, s + from, n - from);
    fd = open(dst, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b, len), (ssize_t)len);
    close(fd);
    free(b);
    free(s);
}

/* A file of fixed-size buffers (4 KiB) whose buffers, past some bytes that
 * are none, lie off its stride (a copy cut inside a buffer, then the
 * trace), or after a run of zeros; or that ends in zeros: read the same
 * every way (the copy indexed first, or by the walk), the events of the
 * trace read once each. */
/* A place is named once: every place of the first 65,536 of a file,
 * whenever it is named again; past them, a place among the last 16 named
 * (the table being full), and no other, whatever was named before. */
START_TEST(places_named_once)
{
    struct bytes *b = malloc(sizeof *b);
    ck_assert_ptr_nonnull(b);
    build_file(b);
    struct diag_log log = { 0, 0 };
    enum etl_open_status st;
    struct etl_file *f = open_bytes(b, &log, &st);
    ck_assert_ptr_nonnull(f);
    uint64_t p0 = etl_file_problems(f);
    const uint64_t table = 1u << 16;
    for (uint64_t i = 0; i < table; i++)
        etl_report(f, 1000000 + i, "place %llu", (unsigned long long)i);
    ck_assert_uint_eq(etl_file_problems(f), p0 + table);
    /* Each again, in another order: none counted. */
    for (uint64_t i = table; i-- > 0;)
        etl_report(f, 1000000 + i, "place %llu again", (unsigned long long)i);
    ck_assert_uint_eq(etl_file_problems(f), p0 + table);
    /* Past the table: 20 new places, then the last 16 again (not counted),
     * then the first 4 of the 20 (out of the 16: counted again). */
    for (uint64_t i = 0; i < 20; i++)
        etl_report(f, 5000000 + i, "past %llu", (unsigned long long)i);
    ck_assert_uint_eq(etl_file_problems(f), p0 + table + 20);
    for (uint64_t i = 4; i < 20; i++)
        etl_report(f, 5000000 + i, "past %llu again", (unsigned long long)i);
    ck_assert_uint_eq(etl_file_problems(f), p0 + table + 20);
    for (uint64_t i = 0; i < 4; i++)
        etl_report(f, 5000000 + i, "past %llu once more", (unsigned long long)i);
    ck_assert_uint_eq(etl_file_problems(f), p0 + table + 24);
    /* A place of the table stays named past it. */
    etl_report(f, 1000000 + 12345, "from the table");
    ck_assert_uint_eq(etl_file_problems(f), p0 + table + 24);
    ck_assert_int_eq(log.count, (int)(p0 + table + 24));
    etl_close(f);
    free(b);
}
END_TEST

START_TEST(fixed_stride_realigned)
{
    char path[256], spliced[256];
    temp_file(path, sizeof path);
    temp_file(spliced, sizeof spliced);
    write_trace(path, 6000, 4096, false, false);
    struct seen clean[2];
    read_way(path, ETL_READ_MAP, 1, false, clean, NULL);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    size_t n = (size_t)sb.st_size;
    /* zeros at the end; three buffers of zeros; a copy cut 100 bytes into
     * its fifth buffer, then the trace */
    const size_t at[3] = { n, 4 * 4096, 4 * 4096 + 100 }, zeros[3] = { 200000, 3 * 4096, 0 };
    const size_t from[3] = { n, 4 * 4096, 0 };
    for (int k = 0; k < 3; k++) {
        write_spliced(path, spliced, at[k], zeros[k], from[k]);
        same_both_ways(spliced, clean[0].events, k > 0, NULL);
        struct seen x[2];
        read_way(spliced, ETL_READ_COPY, 1, false, x, NULL);
        ck_assert_msg(x[0].problems == (k > 0), "splice %d: %llu problems", k,
                      (unsigned long long)x[0].problems);
        /* the cut buffer read up to the copy's header buffer, then passed
         * by for its whole copy: the events of the trace (where they lie
         * differs but with the zeros at the end) */
        ck_assert_uint_eq(x[0].events, clean[0].events);
        if (k == 0)
            ck_assert_uint_eq(x[0].ev_hash, clean[0].ev_hash);
    }
    unlink(path);
    unlink(spliced);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reader");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, cursor_bounds);
    tcase_add_test(tc, header_system_and_compact);
    tcase_add_test(tc, header_perfinfo_ext_items);
    tcase_add_test(tc, header_perfinfo_whole_and_damaged);
    tcase_add_test(tc, runs_by_class);
    tcase_add_test(tc, header_full_and_instance);
    tcase_add_test(tc, header_event_header_items);
    tcase_add_test(tc, header_message);
    tcase_add_test(tc, header_damage_and_end);
    tcase_add_test(tc, logfile_both_layouts);
    tcase_add_test(tc, file_order_and_merge);
    tcase_add_test(tc, file_damage);
    tcase_add_test(tc, scopes);
    tcase_add_test(tc, read_copied_or_mapped);
    tcase_add_test(tc, walk_indexes);
    tcase_add_test(tc, compressed_sizes_damaged);
    tcase_add_test(tc, repeated_buffers);
    tcase_add_test(tc, repeated_progress);
    tcase_add_test(tc, fixed_stride_realigned);
    tcase_add_test(tc, places_named_once);
    if (getenv("ETLDUMP_EMULATOR"))
        fprintf(stderr, "test_reader: walk_map_shrinks left out under %s\n",
                getenv("ETLDUMP_EMULATOR"));
    else
        tcase_add_test(tc, walk_map_shrinks);
    tcase_add_test(tc, shrinks_in_prepass); /* copied only under an emulator */
    suite_add_tcase(s, tc);
    const char *only = NULL;
#if ETL_MAX_BUFFERS <= 4096
    /* Built with a bound of a few buffers: only what reaches the bound. */
    TCase *bound = tcase_create("bound");
    tcase_add_test(bound, read_past_max_buffers);
    suite_add_tcase(s, bound);
    only = "bound";
#endif
    SRunner *sr = srunner_create(s);
    srunner_run(sr, NULL, only, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
