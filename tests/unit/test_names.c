/*
 * test_names.c - what a trace carries, by name: logger mode bits (with bits
 * left over), clock types, PERFINFO_GROUPMASK parsing and naming, the
 * header-extension payload, and the WMI_LOGGER_CONTEXT decoder on buffers
 * laid out at the offsets of doc/format.md §13.2 (and its layout tables checked for
 * overlaps).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/groupmask.h"
#include "decode/loggerctx.h"
#include "decode/modes.h"
#include "unit.h"

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* --- logger mode and clock ------------------------------------------------ */

START_TEST(logger_mode_names)
{
    char buf[2048];
    etl_logger_mode_str(0x00000001u, buf, sizeof buf);
    ck_assert_str_eq(buf, "EVENT_TRACE_FILE_MODE_SEQUENTIAL");
    etl_logger_mode_str(0x04010001u, buf, sizeof buf);
    ck_assert_str_eq(buf, "EVENT_TRACE_FILE_MODE_SEQUENTIAL|EVENT_TRACE_RELOG_MODE|"
                          "EVENT_TRACE_COMPRESSED_MODE");
    etl_logger_mode_str(0x08000002u, buf, sizeof buf);
    ck_assert_str_eq(buf, "EVENT_TRACE_FILE_MODE_CIRCULAR|"
                          "EVENT_TRACE_INDEPENDENT_SESSION_MODE");
    /* 0x40000000 has no name: left over, in hex */
    etl_logger_mode_str(0xC0000100u, buf, sizeof buf);
    ck_assert_str_eq(buf, "EVENT_TRACE_REAL_TIME_MODE|EVENT_TRACE_ADDTO_TRIAGE_DUMP|"
                          "0x40000000");
    etl_logger_mode_str(0x40000000u, buf, sizeof buf);
    ck_assert_str_eq(buf, "0x40000000");
    ck_assert_uint_eq(etl_logger_mode_str(0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    /* every bit: 31 names and one leftover */
    size_t n = etl_logger_mode_str(0xFFFFFFFFu, buf, sizeof buf);
    ck_assert_uint_eq(n, strlen(buf));
    ck_assert_ptr_nonnull(strstr(buf, "EVENT_TRACE_BLOCKING_MODE|"
                                      "EVENT_TRACE_ADDTO_TRIAGE_DUMP|0x40000000"));
    /* a small buffer: cut short, terminated, never overrun */
    char small[12];
    memset(small, 'x', sizeof small);
    n = etl_logger_mode_str(0x04010001u, small, 10);
    ck_assert_uint_eq(n, 9);
    ck_assert_str_eq(small, "EVENT_TRA");
    ck_assert_int_eq(small[10], 'x');
}
END_TEST

START_TEST(clock_names)
{
    ck_assert_str_eq(etl_clock_type_full_name(0), "EVENT_TRACE_CLOCK_RAW");
    ck_assert_str_eq(etl_clock_type_full_name(1), "EVENT_TRACE_CLOCK_PERFCOUNTER");
    ck_assert_str_eq(etl_clock_type_full_name(2), "EVENT_TRACE_CLOCK_SYSTEMTIME");
    ck_assert_str_eq(etl_clock_type_full_name(3), "EVENT_TRACE_CLOCK_CPUCYCLE");
    ck_assert_ptr_null(etl_clock_type_full_name(4));
}
END_TEST

/* --- group masks ------------------------------------------------------------ */

START_TEST(groupmask_parse_mixed)
{
    struct etl_groupmask g;
    char bad[32];
    ck_assert_int_eq(etl_groupmask_parse("PERF_CONTEXT_SWITCH,0x20000100, perf_process ,"
                                         "0x60000011,EVENT_TRACE_FLAG_CSWITCH,2",
                                         &g, bad, sizeof bad), ETL_GM_OK);
    ck_assert_uint_eq(g.masks[0], 0x13);
    ck_assert_uint_eq(g.masks[1], 0x104);
    ck_assert_uint_eq(g.masks[2], 0);
    ck_assert_uint_eq(g.masks[3], 0x11);
    for (int i = 4; i < 8; i++)
        ck_assert_uint_eq(g.masks[i], 0);
    ck_assert(etl_groupmask_test(&g, ETL_PERF_CONTEXT_SWITCH));
    ck_assert(etl_groupmask_test(&g, ETL_PERF_COMPACT_CSWITCH));
    ck_assert_int_eq(etl_groupmask_cswitch(&g), ETL_CS_COMPACT);

    /* combinations, second names, decimal */
    ck_assert_int_eq(etl_groupmask_parse("PERF_SPININSTR,PERF_PFSECTION,PERF_SYSCFG_ALL,"
                                         "PERF_PROC_THREAD,3758096385", &g, bad,
                                         sizeof bad), ETL_GM_OK);
    ck_assert_uint_eq(g.masks[0], 0x3);
    ck_assert_uint_eq(g.masks[1], 0x610000);
    ck_assert_uint_eq(g.masks[6], 0x1FFFFFFF);
    ck_assert_uint_eq(g.masks[7], 0x1); /* 3758096385 = 0xE0000001 */
    ck_assert_int_eq(etl_groupmask_cswitch(&g), ETL_CS_NONE);

    /* EVENT_TRACE_FLAG_* bits 29-31 have no conventional value */
    ck_assert_int_eq(etl_groupmask_parse("EVENT_TRACE_FLAG_EXTENSION", &g, bad, sizeof bad),
                     ETL_GM_OK);
    ck_assert_uint_eq(g.masks[0], 0x80000000u);

    /* errors name the item */
    ck_assert_int_eq(etl_groupmask_parse("PERF_THREAD, PERF_NOPE ,1", &g, bad, sizeof bad),
                     ETL_GM_UNKNOWN);
    ck_assert_str_eq(bad, "PERF_NOPE");
    ck_assert_int_eq(etl_groupmask_parse("0x100000000", &g, bad, sizeof bad), ETL_GM_RANGE);
    ck_assert_str_eq(bad, "0x100000000");
    ck_assert_int_eq(etl_groupmask_parse("12abc", &g, bad, sizeof bad), ETL_GM_RANGE);
    ck_assert_int_eq(etl_groupmask_parse("PERF_THREAD,,PERF_LOADER", &g, bad, sizeof bad),
                     ETL_GM_EMPTY);
    ck_assert_int_eq(etl_groupmask_parse("", &g, bad, sizeof bad), ETL_GM_EMPTY);
    ck_assert_int_eq(etl_groupmask_parse("PERF_CONTEXT_SWITCHX", &g, bad, sizeof bad),
                     ETL_GM_UNKNOWN);
}
END_TEST

START_TEST(groupmask_names)
{
    struct etl_groupmask g;
    memset(&g, 0, sizeof g);
    char buf[1024], hex[72];
    ck_assert_uint_eq(etl_groupmask_names(&g, buf, sizeof buf), 0);
    ck_assert_int_eq(etl_groupmask_cswitch(&g), ETL_CS_NONE);
    g.masks[0] = 0x08000013u;   /* PROCESS, THREAD, CSWITCH (no PERF name), unused bit */
    g.masks[1] = 0x00000104u;
    g.masks[3] = 0x00000011u;   /* nothing named in Masks[3] */
    g.masks[2] = 0x80000040u;   /* PERF_SYSCALL and a bit above 28 */
    etl_groupmask_names(&g, buf, sizeof buf);
    ck_assert_str_eq(buf, "PERF_PROCESS|PERF_THREAD|EVENT_TRACE_FLAG_CSWITCH|0x08000000|"
                          "PERF_CONTEXT_SWITCH|PERF_COMPACT_CSWITCH|PERF_SYSCALL|"
                          "Masks[2]:0x80000000|0x60000011");
    etl_groupmask_hex(&g, hex);
    ck_assert_str_eq(hex, "08000013 00000104 80000040 00000011 00000000 00000000 "
                          "00000000 00000000");
    etl_enable_flags_str(g.masks[0], buf, sizeof buf);
    ck_assert_str_eq(buf, "EVENT_TRACE_FLAG_PROCESS|EVENT_TRACE_FLAG_THREAD|"
                          "EVENT_TRACE_FLAG_CSWITCH|0x08000000");
    etl_groupmask_mask_names(1, 0x00400004u, buf, sizeof buf);
    ck_assert_str_eq(buf, "PERF_CONTEXT_SWITCH|PERF_SESSION");
    etl_groupmask_mask_names(0, 0xE0000000u, buf, sizeof buf);
    ck_assert_str_eq(buf, "EVENT_TRACE_FLAG_ENABLE_RESERVE|EVENT_TRACE_FLAG_FORWARD_WMI|"
                          "EVENT_TRACE_FLAG_EXTENSION");
    /* EVENT_TRACE_FLAG_CSWITCH alone counts as switches, not compact ones */
    memset(&g, 0, sizeof g);
    g.masks[0] = ETL_EVENT_TRACE_FLAG_CSWITCH;
    ck_assert_int_eq(etl_groupmask_cswitch(&g), ETL_CS_CSWITCH);
    g.masks[1] = 0x100; /* compact without PERF_CONTEXT_SWITCH itself */
    ck_assert_int_eq(etl_groupmask_cswitch(&g), ETL_CS_COMPACT);
    ck_assert_str_eq(etl_cswitch_expect_name(ETL_CS_COMPACT), "compact");
    ck_assert_str_eq(etl_cswitch_expect_name(ETL_CS_NONE), "none");

    /* every single-bit PERF_* name comes back from its value */
    for (size_t i = 0; i < etl_perf_count; i++) {
        uint32_t v = etl_perf_names[i].value;
        uint32_t bits = ETL_PERF_BITS(v);
        if (bits & (bits - 1))
            continue; /* a combination */
        etl_groupmask_mask_names(ETL_PERF_INDEX(v), bits, buf, sizeof buf);
        if (strcmp(etl_perf_names[i].name, "PERF_PFSECTION") == 0)
            ck_assert_str_eq(buf, "PERF_SESSION");
        else
            ck_assert_str_eq(buf, etl_perf_names[i].name);
    }
}
END_TEST

START_TEST(header_extension)
{
    uint8_t d[0x24];
    for (int i = 0; i < 8; i++)
        put32(d + 4 * i, (uint32_t)i * 0x11111111u);
    put32(d + 0x20, 80);
    struct etl_header_ext h;
    struct etl_cursor c = etl_cur_make(d, sizeof d);
    ck_assert(etl_decode_header_ext(&c, &h));
    ck_assert(h.has_version);
    ck_assert_uint_eq(h.version, 80);
    ck_assert_uint_eq(h.gm.masks[7], 0x77777777u);
    c = etl_cur_make(d, 0x20);
    ck_assert(etl_decode_header_ext(&c, &h));  /* before 6.0: no version */
    ck_assert(!h.has_version);
    c = etl_cur_make(d, 0x1F);
    ck_assert(!etl_decode_header_ext(&c, &h));
    ck_assert_uint_eq(h.gm.masks[0], 0);
}
END_TEST

/* --- WMI_LOGGER_CONTEXT --------------------------------------------------------- */

START_TEST(logger_context_win10_x64)
{
    static uint8_t b[0x398];
    memset(b, 0xEE, sizeof b); /* nothing is left at zero by accident */
    put32(b + 0x00, 0x21);                     /* LoggerId */
    put32(b + 0x04, 0x10000);                  /* BufferSize */
    put32(b + 0x08, 0xFFB8);                   /* MaximumEventSize */
    put32(b + 0x0C, 0x04010001u | 0x40000000u);/* LoggerMode */
    put32(b + 0x10, 1);                        /* AcceptNewEvents */
    put64(b + 0x30, 0xFFFF8C0123456080ull);    /* LoggerThread */
    put16(b + 0x98, 32);                       /* LoggerName.Length */
    put16(b + 0x9A, 34);                       /* .MaximumLength */
    put64(b + 0xA0, 0xFFFFA00011112222ull);    /* .Buffer */
    put32(b + 0xD8, 1);                        /* ClockType */
    put32(b + 0x100, 7);                       /* EventsLost */
    put32(b + 0x104, 0xFFFFFFFEu);             /* PeakBuffersCount: LONG -2 */
    put32(b + 0x150, 1);                       /* CollectionOn */
    for (int i = 0; i < 16; i++)
        b[0x124 + i] = (uint8_t)i;             /* InstanceGuid */
    put32(b + 0x340, 0x01038024u);             /* Flags */
    put32(b + 0x344, 0x00000301u);             /* RequestFlag */
    put64(b + 0x390, 0xFFFF800012340000ull);   /* ServerSilo */

    struct etl_logger_context lc;
    ck_assert(etl_decode_logger_context(b, sizeof b, ETL_WIN_100, ETL_ARCH_X64, &lc));
    ck_assert_uint_eq(lc.size, 0x398);
    ck_assert_uint_eq(lc.logger_id, 0x21);
    ck_assert_uint_eq(lc.buffer_size, 0x10000);
    ck_assert_uint_eq(lc.events_lost, 7);
    ck_assert_uint_eq(lc.clock_type, 1);
    ck_assert_uint_eq(lc.cell[LC_MAXIMUM_EVENT_SIZE].v[0], 0xFFB8);
    ck_assert_uint_eq(lc.cell[LC_ACCEPT_NEW_EVENTS].v[0], 1);
    ck_assert_uint_eq(lc.cell[LC_COLLECTION_ON].offset, 0x150);
    ck_assert_uint_eq(lc.cell[LC_COLLECTION_ON].v[0], 1);
    ck_assert_int_eq((int64_t)lc.cell[LC_PEAK_BUFFERS_COUNT].v[0], -2);
    ck_assert_uint_eq(lc.cell[LC_LOGGER_THREAD].v[0], 0xFFFF8C0123456080ull);
    ck_assert_uint_eq(lc.cell[LC_LOGGER_NAME].v[0], 32);
    ck_assert_uint_eq(lc.cell[LC_LOGGER_NAME].v[1], 34);
    ck_assert_uint_eq(lc.cell[LC_LOGGER_NAME].v[2], 0xFFFFA00011112222ull);
    ck_assert_uint_eq(lc.cell[LC_INSTANCE_GUID].nbytes, 16);
    ck_assert_uint_eq(lc.cell[LC_INSTANCE_GUID].bytes[15], 15);
    ck_assert_uint_eq(lc.cell[LC_SERVER_SILO].v[0], 0xFFFF800012340000ull);
    ck_assert_uint_eq(lc.cell[LC_EVENT_MARKER].nbytes, 8); /* ULONG[2] on x64 */
    ck_assert(!lc.cell[LC_NBQ_HEAD].present);          /* 6.1 only */
    ck_assert(!lc.cell[LC_BUFFER_CALLBACK].present);
    ck_assert(lc.cell[LC_TOKEN_ACCESS_INFORMATION].present);

    char buf[512];
    etl_logger_mode_str(lc.logger_mode, buf, sizeof buf);
    ck_assert_str_eq(buf, "EVENT_TRACE_FILE_MODE_SEQUENTIAL|EVENT_TRACE_RELOG_MODE|"
                          "EVENT_TRACE_COMPRESSED_MODE|0x40000000");
    ck_assert_str_eq(etl_clock_type_full_name(lc.clock_type), "EVENT_TRACE_CLOCK_PERFCOUNTER");
    etl_lc_flags_str(lc.win, lc.flags, buf, sizeof buf);
    /* 0x8000 is SpareFlags1; SystemLoggerIndex (3) is a number, not a name */
    ck_assert_str_eq(buf, "FsReady|KernelTrace|StackCaching|0x00008000");
    ck_assert_uint_eq(ETL_LC_SYSTEM_LOGGER_INDEX(lc.flags), 3);
    etl_lc_request_flag_str(lc.win, lc.request_flag, buf, sizeof buf);
    ck_assert_str_eq(buf, "DbgRequestNewFile|DbgRequestDeferredFlush|"
                          "DbgRequestDeferredFlushTimer");

    /* one byte short: refused, nothing decoded */
    ck_assert(!etl_decode_logger_context(b, sizeof b - 1, ETL_WIN_100, ETL_ARCH_X64, &lc));
    ck_assert_uint_eq(lc.logger_id, 0);
    ck_assert(!lc.cell[LC_LOGGER_ID].present);
    ck_assert(!etl_decode_logger_context(b, 0, ETL_WIN_61, ETL_ARCH_X86, &lc));
}
END_TEST

START_TEST(logger_context_win7_x86)
{
    static uint8_t b[0x238];
    memset(b, 0, sizeof b);
    put32(b + 0x00, 2);
    put32(b + 0x10, 0x00000002u);   /* LoggerMode at 0x10 in 6.1 */
    put32(b + 0x74, 3);             /* ClockType */
    put32(b + 0xA0, 9);             /* EventsLost */
    put32(b + 0x228, 0x00010021u);  /* Flags: bit 16 unnamed in 6.1 */
    put32(b + 0x22C, 0x00000045u);  /* RequestFlag: 0x40 unnamed in 6.1 */
    put16(b + 0x54, 8);             /* LoggerName */
    put16(b + 0x56, 10);
    put32(b + 0x58, 0x82345678u);
    struct etl_logger_context lc;
    ck_assert(etl_decode_logger_context(b, sizeof b, ETL_WIN_61, ETL_ARCH_X86, &lc));
    ck_assert_uint_eq(lc.logger_mode, 2);
    ck_assert_uint_eq(lc.clock_type, 3);
    ck_assert_uint_eq(lc.events_lost, 9);
    ck_assert_uint_eq(lc.cell[LC_LOGGER_NAME].v[2], 0x82345678u);
    ck_assert_uint_eq(lc.cell[LC_EVENT_MARKER].present, false);
    ck_assert_uint_eq(lc.cell[LC_COLLECTION_ON].offset, 0x0C);
    char buf[256];
    etl_lc_flags_str(lc.win, lc.flags, buf, sizeof buf);
    ck_assert_str_eq(buf, "Persistent|KernelTrace|0x00010000");
    etl_lc_request_flag_str(lc.win, lc.request_flag, buf, sizeof buf);
    ck_assert_str_eq(buf, "RequestNewFie|RequestFlush|0x00000040");
    etl_lc_request_flag_str(ETL_WIN_63, 0x101, buf, sizeof buf);
    ck_assert_str_eq(buf, "DbgRequestNewFie|DbgRequestDefferdFlush");
    ck_assert(!etl_decode_logger_context(b, sizeof b - 4, ETL_WIN_61, ETL_ARCH_X86, &lc));
}
END_TEST

/* Bytes a field of fixed size takes, or 0 for structures kept as bytes. */
static size_t fixed_size(enum etl_lc_type t, size_t ps)
{
    switch (t) {
    case LC_U32: case LC_I32: case LC_HEX32: return 4;
    case LC_I64: case LC_U64: return 8;
    case LC_PTR: return ps;
    case LC_GUID: return 16;
    case LC_USTR: case LC_BITMAP: return 2 * ps;
    case LC_LIST: return 2 * ps;
    case LC_U32ARRAY: return ps;
    default: return 0;
    }
}

/* The alignment of a field of fixed size (as the compilers of Windows lay
 * them out: 8-byte integers on 8 also on x86). */
static size_t alignment(enum etl_lc_type t, size_t ps)
{
    switch (t) {
    case LC_I64: case LC_U64: return 8;
    case LC_PTR: case LC_USTR: case LC_LIST: case LC_BITMAP: return ps;
    default: return 4;
    }
}

START_TEST(logger_context_layouts)
{
    /* Every layout: fields in increasing order never overlap, stay inside the
     * structure, and are naturally aligned; every field has a column. */
    for (int a = 0; a < ETL_ARCH_COUNT; a++) {
        size_t ps = a == ETL_ARCH_X64 ? 8 : 4;
        for (int w = 0; w < ETL_WIN_COUNT; w++) {
            size_t size = etl_lc_size((enum etl_win)w, (enum etl_arch)a);
            size_t end = 0, present = 0;
            for (size_t off = 0; off < size; off++) {
                for (size_t i = 0; i < LC_FIELD_COUNT; i++) {
                    const struct etl_lc_field *f = &etl_lc_fields[i];
                    if (f->off[a][w] != off)
                        continue;
                    present++;
                    ck_assert_msg(off >= end, "%s overlaps (%s %s)", f->name,
                                  etl_win_name((enum etl_win)w),
                                  etl_arch_name((enum etl_arch)a));
                    size_t n = fixed_size(f->type, ps);
                    if (n)
                        ck_assert_msg(off % alignment(f->type, ps) == 0, "%s misaligned",
                                      f->name);
                    end = off + (n ? n : 1);
                }
            }
            ck_assert_uint_le(end, size);
            /* fields absent from a version are absent, not placed past the end */
            size_t absent = 0;
            for (size_t i = 0; i < LC_FIELD_COUNT; i++)
                absent += etl_lc_fields[i].off[a][w] == ETL_LC_ABSENT;
            ck_assert_uint_eq(present + absent, LC_FIELD_COUNT);
        }
    }
    for (size_t i = 0; i < LC_FIELD_COUNT; i++) {
        ck_assert_ptr_nonnull(etl_lc_fields[i].column);
        ck_assert_ptr_nonnull(etl_lc_fields[i].name);
        for (size_t k = 0; k < i; k++)
            ck_assert_str_ne(etl_lc_fields[i].column, etl_lc_fields[k].column);
    }
    enum etl_win w;
    enum etl_arch a;
    ck_assert(etl_win_parse("10.0", &w) && w == ETL_WIN_100);
    ck_assert(etl_win_parse("6.1", &w) && w == ETL_WIN_61);
    ck_assert(!etl_win_parse("10", &w) && !etl_win_parse("6.0", &w));
    ck_assert(etl_arch_parse("x86", &a) && a == ETL_ARCH_X86);
    ck_assert(!etl_arch_parse("amd64", &a));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("names");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, logger_mode_names);
    tcase_add_test(tc, clock_names);
    tcase_add_test(tc, groupmask_parse_mixed);
    tcase_add_test(tc, groupmask_names);
    tcase_add_test(tc, header_extension);
    tcase_add_test(tc, logger_context_win10_x64);
    tcase_add_test(tc, logger_context_win7_x86);
    tcase_add_test(tc, logger_context_layouts);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
