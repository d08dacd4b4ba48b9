/*
 * test_fields.c - the field list and its renderings, and the payload
 * decoders (kernel table, TraceLogging, the trace's own metadata) on payloads
 * taken from the real traces in shared/samples/real, with values checked by
 * hand against Microsoft's MOF classes and TraceLoggingProvider.h
 * (doc/format.md sections 18-20). The last tests walk every real trace
 * (skipped with a message when ../shared/samples/real is absent).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/dispatch.h"
#include "decode/kfields.h"
#include "decode/metadata.h"
#include "decode/payload.h"
#include "decode/tracelogging.h"
#include "fields.h"
#include "realtraces.h"
#include "unit.h"

static struct etl_fields fl;
static struct etl_ktable kt;
static char json[65536];

/* Renders f as JSON (or text) into the json buffer through a pipe-less
 * etl_out writing to a temporary file. */
static const char *render_of(const struct etl_fields *f, bool text)
{
    FILE *tmp = tmpfile();
    ck_assert_ptr_nonnull(tmp);
    struct etl_out o;
    ck_assert(etl_out_init(&o, fileno(tmp), 4096));
    ck_assert_int_eq(text ? etl_fields_text(f, &o) : etl_fields_json(f, &o), 0);
    ck_assert_int_eq(etl_out_flush(&o), 0);
    etl_out_fini(&o);
    rewind(tmp);
    size_t n = fread(json, 1, sizeof json - 1, tmp);
    json[n] = '\0';
    fclose(tmp);
    return json;
}

/* The same for fl. */
static const char *render(bool text)
{
    return render_of(&fl, text);
}

static void setup(void)
{
    etl_ktable_init(&kt);
    ck_assert(etl_fields_init(&fl, 256, 4096));
}

static void teardown(void)
{
    etl_fields_free(&fl);
}

#define NM(s) s, sizeof(s) - 1

START_TEST(json_scalars_and_nesting)
{
    static const uint8_t g[16] = { 0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                   0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 };
    static const uint8_t sid[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const uint8_t bin[] = { 0xde, 0xad, 0x01 };
    etl_fields_uint(&fl, NM("u"), UINT64_MAX);
    etl_fields_int(&fl, NM("i"), INT64_MIN);
    etl_fields_ptr(&fl, NM("p"), 0xfffff80000000000ull);
    etl_fields_double(&fl, NM("d"), 0.5);
    etl_fields_double(&fl, NM("nan"), NAN);
    etl_fields_double(&fl, NM("inf"), -INFINITY);
    etl_fields_bool(&fl, NM("b"), true);
    etl_fields_guid(&fl, NM("g"), g);
    etl_fields_sid(&fl, NM("s"), sid, sizeof sid);
    etl_fields_binary(&fl, NM("x"), bin, sizeof bin);
    /* 2020-09-14T22:29:07.4624863Z, Defunct ExitTime of MpCmdRun.exe. */
    etl_fields_filetime(&fl, NM("t"), 132445961474624863LL);
    etl_fields_struct_begin(&fl, NM("a"));
    etl_fields_array_begin(&fl, NM("arr"));
    etl_fields_uint(&fl, NULL, 0, 1);
    etl_fields_uint(&fl, NULL, 0, 2);
    etl_fields_array_end(&fl);
    etl_fields_struct_end(&fl);
    ck_assert_str_eq(render(false),
        "{\"u\":18446744073709551615,\"i\":-9223372036854775808,"
        "\"p\":18446735277616529408,\"d\":0.5,\"nan\":\"NaN\",\"inf\":\"-Infinity\","
        "\"b\":true,\"g\":\"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4\",\"s\":\"S-1-5-18\","
        "\"x\":\"dead01\",\"t\":\"2020-09-14T22:29:07.4624863Z\",\"a\":{\"arr\":[1,2]}}");
    ck_assert_str_eq(render(true),
        "u=18446744073709551615 i=-9223372036854775808 p=0xfffff80000000000 d=0.5 "
        "nan=NaN inf=-Infinity b=true g=e13c0d23-ccbc-4e12-931b-d9cc2eee27e4 s=S-1-5-18 "
        "x=dead01 t=2020-09-14T22:29:07.4624863Z a.arr[0]=1 a.arr[1]=2");
}
END_TEST

START_TEST(strings_are_valid_utf8)
{
    /* UTF-16: "a", an unpaired high surrogate, U+1F600 as a pair, "\"". */
    static const uint8_t w[] = { 'a', 0, 0x00, 0xD8, 0x3D, 0xD8, 0x00, 0xDE, '"', 0 };
    static const uint8_t bad8[] = { 'o', 'k', 0xFF, ' ', 'x' };
    etl_fields_str_utf16(&fl, NM("w"), w, sizeof w);
    etl_fields_str_utf8(&fl, NM("a"), bad8, sizeof bad8);
    etl_fields_str_utf8(&fl, NM("e"), NULL, 0);
    ck_assert_str_eq(render(false),
        "{\"w\":\"a\xEF\xBF\xBD\xF0\x9F\x98\x80\\\"\",\"a\":\"ok\xEF\xBF\xBD x\",\"e\":\"\"}");
    ck_assert_str_eq(render(true),
        "w=\"a\xEF\xBF\xBD\xF0\x9F\x98\x80\\\"\" a=\"ok\xEF\xBF\xBD x\" e=\"\"");
}
END_TEST

START_TEST(caps_set_truncated_and_close_open_levels)
{
    struct etl_fields small;
    ck_assert(etl_fields_init(&small, 3, 8));
    etl_fields_struct_begin(&small, NM("s"));
    etl_fields_uint(&small, NM("a"), 1);
    ck_assert(!etl_fields_str_utf8(&small, NM("b"), (const uint8_t *)"too long!", 9));
    ck_assert(small.truncated);
    ck_assert(!etl_fields_uint(&small, NM("c"), 3));
    struct etl_fields keep = fl;
    fl = small;
    ck_assert_str_eq(render(false), "{\"s\":{\"a\":1}}");
    fl = keep;
    etl_fields_reset(&small);
    ck_assert(!small.truncated);
    ck_assert_uint_eq(small.n, 0);
    etl_fields_free(&small);
}
END_TEST

/* An event of a kernel kind carrying payload d. */
static struct etl_event kevent(unsigned kind, uint16_t hook, unsigned version,
                               const uint8_t *d, size_t n)
{
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (uint8_t)kind;
    ev.ptr_size = (kind == ETL_KIND_PERFINFO32 || kind == ETL_KIND_SYSTEM32) ? 4 : 8;
    ev.hook_id = hook;
    ev.opcode = (uint8_t)(hook & 0xFF);
    ev.version = (uint16_t)version;
    ev.flags = ETL_EV_HOOK | ETL_EV_OPCODE | ETL_EV_VERSION;
    ev.data = d;
    ev.data_len = (uint32_t)n;
    return ev;
}

/* Process DCStart version 4 of fontdrvhost.exe (pv-diaghub-kernel.etl,
 * PERFINFO64, 128 payload bytes). */
static const uint8_t dcstart[] = {
    0xc0, 0x00, 0xd1, 0xe1, 0x04, 0xa8, 0xff, 0xff, 0x64, 0x02, 0x00, 0x00, 0xe8, 0x02,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0x10, 0xc9, 0xaa,
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x29, 0x0d, 0xd9, 0x83, 0xd3,
    0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x05, 0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x66, 0x6f, 0x6e, 0x74, 0x64, 0x72, 0x76, 0x68, 0x6f, 0x73, 0x74, 0x2e,
    0x65, 0x78, 0x65, 0x00, 0x22, 0x00, 0x66, 0x00, 0x6f, 0x00, 0x6e, 0x00, 0x74, 0x00,
    0x64, 0x00, 0x72, 0x00, 0x76, 0x00, 0x68, 0x00, 0x6f, 0x00, 0x73, 0x00, 0x74, 0x00,
    0x2e, 0x00, 0x65, 0x00, 0x78, 0x00, 0x65, 0x00, 0x22, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00,
};

START_TEST(kernel_process_v4)
{
    struct etl_event ev = kevent(ETL_KIND_PERFINFO64, 0x0303, 4, dcstart, sizeof dcstart);
    ck_assert_str_eq(etl_kernel_event_name(&ev), "Process/DCStart");
    struct etl_cursor c = etl_cur_make(ev.data, ev.data_len);
    size_t at;
    ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_OK);
    /* Process_V4_TypeGroup1: key 0xFFFFA804E1D100C0, PID 0x264, parent 0x2E8,
     * session 0, ExitStatus 0x103, DTB 0x4AAC91000, Flags 0, SID S-1-5-96-0-0. */
    ck_assert_str_eq(render(false),
        "{\"UniqueProcessKey\":18446647337654747328,\"ProcessId\":612,\"ParentId\":744,"
        "\"SessionId\":0,\"ExitStatus\":259,\"DirectoryTableBase\":20045172736,"
        "\"Flags\":0,\"UserSID\":\"S-1-5-96-0-0\",\"ImageFileName\":\"fontdrvhost.exe\","
        "\"CommandLine\":\"\\\"fontdrvhost.exe\\\"\",\"PackageFullName\":\"\","
        "\"ApplicationId\":\"\"}");
    /* The same bytes as version 3, whose layout has no Flags, then as 4
     * again: the layout goes by the version as well as the opcode (the
     * table's memo of its last lookup holds both). */
    for (unsigned version = 3; version <= 4; version++) {
        etl_fields_reset(&fl);
        ev = kevent(ETL_KIND_PERFINFO64, 0x0303, version, dcstart, sizeof dcstart);
        c = etl_cur_make(ev.data, ev.data_len);
        etl_kernel_fields(&kt, &ev, &c, &fl, &at);
        bool flags = strstr(render(false), "\"Flags\":") != NULL;
        ck_assert_msg(flags == (version == 4), "version %u: Flags %s", version,
                      flags ? "decoded" : "missing");
    }
}
END_TEST

/* The table's memo of recent lookups (by a hash of the kind and version)
 * gives what a new table gives, whatever came before. Every HookId with a
 * layout at versions 0 to 15, up then down (sixteen versions of one kind
 * share eight memo slots: some land on another version's), then the same
 * in a shuffled order (kinds land on each other's): each decoded by the
 * table and by a new one from the same payload bytes. */
START_TEST(kernel_memo_matches_fresh_table)
{
    static struct etl_ktable fresh;
    static struct { uint16_t hook; uint8_t version; } seq[2 * 8192];
    size_t n = 0;
    for (size_t l = 0; l < etl_nklayouts; l++) {
        const struct etl_klayout *k = &etl_klayouts[l];
        if (k->group > 0xFF)
            continue; /* classes known by GUID only */
        for (size_t i = 0; i < k->nops && n + 32 <= sizeof seq / sizeof seq[0] / 2; i++)
            for (unsigned v = 0; v < 32; v++) {
                seq[n].hook = (uint16_t)(k->group << 8 | k->ops[i]);
                seq[n++].version = (uint8_t)(v < 16 ? v : 31 - v);
            }
    }
    ck_assert_uint_gt(n, 1000);
    memcpy(seq + n, seq, n * sizeof seq[0]);
    uint32_t r = 12345;
    for (size_t i = n - 1; i > 0; i--) { /* the second half shuffled */
        r = r * 1103515245u + 12345u;
        size_t j = (r >> 8) % (i + 1);
        uint16_t h = seq[n + i].hook;
        uint8_t v = seq[n + i].version;
        seq[n + i] = seq[n + j];
        seq[n + j].hook = h;
        seq[n + j].version = v;
    }
    char want[4096];
    for (size_t i = 0; i < 2 * n; i++) {
        struct etl_event ev = kevent(ETL_KIND_PERFINFO64, seq[i].hook, seq[i].version, dcstart,
                                     sizeof dcstart);
        bool text = i % 16 == 0; /* the fields compared as text at times */
        etl_ktable_init(&fresh);
        etl_fields_reset(&fl);
        struct etl_cursor c = etl_cur_make(ev.data, ev.data_len);
        size_t at_fresh, at;
        enum etl_fdec rc_fresh = etl_kernel_fields(&fresh, &ev, &c, &fl, &at_fresh);
        size_t n_fresh = fl.n;
        if (text)
            snprintf(want, sizeof want, "%s", render(true));
        etl_fields_reset(&fl);
        c = etl_cur_make(ev.data, ev.data_len);
        enum etl_fdec rc = etl_kernel_fields(&kt, &ev, &c, &fl, &at);
        ck_assert_msg(rc == rc_fresh && at == at_fresh && fl.n == n_fresh &&
                          (!text || strcmp(render(true), want) == 0),
                      "HookId 0x%04x version %u (step %zu): not what a new table decodes",
                      seq[i].hook, seq[i].version, i);
    }
}
END_TEST

START_TEST(kernel_damage_and_newer_version)
{
    /* Cut inside ImageFileName: the string has no terminator. */
    struct etl_event ev = kevent(ETL_KIND_PERFINFO64, 0x0303, 4, dcstart, 0x50);
    struct etl_cursor c = etl_cur_make(ev.data, ev.data_len);
    size_t at;
    ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_DAMAGED);
    ck_assert_uint_eq(at, 0x48);
    ck_assert_uint_eq(fl.n, 8); /* the fields before ImageFileName */
    /* Thread SetName (dnperf-dynamicevents.etl): PID 7608, TID 3084,
     * ".NET Finalizer"; as version 3 with two extra bytes it is a newer
     * version: the known prefix, then the rest. */
    static const uint8_t setname[] = {
        0xb8, 0x1d, 0x00, 0x00, 0x0c, 0x0c, 0x00, 0x00, 0x2e, 0x00, 0x4e, 0x00, 0x45, 0x00,
        0x54, 0x00, 0x20, 0x00, 0x46, 0x00, 0x69, 0x00, 0x6e, 0x00, 0x61, 0x00, 0x6c, 0x00,
        0x69, 0x00, 0x7a, 0x00, 0x65, 0x00, 0x72, 0x00, 0x00, 0x00, 0xaa, 0xbb,
    };
    etl_fields_reset(&fl);
    ev = kevent(ETL_KIND_PERFINFO64, 0x0548, 2, setname, sizeof setname - 2);
    c = etl_cur_make(ev.data, ev.data_len);
    ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_OK);
    ck_assert_str_eq(render(true), "ProcessId=7608 ThreadId=3084 ThreadName=\".NET Finalizer\"");
    etl_fields_reset(&fl);
    ev = kevent(ETL_KIND_PERFINFO64, 0x0548, 3, setname, sizeof setname);
    c = etl_cur_make(ev.data, ev.data_len);
    ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_PARTIAL);
    ck_assert_uint_eq(at, sizeof setname - 2);
    /* Version 2 again, after 3 and after another key (the table remembers
     * its last lookup). */
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            etl_fields_reset(&fl);
            ev = kevent(ETL_KIND_PERFINFO64, 0x0303, 4, dcstart, sizeof dcstart);
            c = etl_cur_make(ev.data, ev.data_len);
            ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_OK);
        }
        etl_fields_reset(&fl);
        ev = kevent(ETL_KIND_PERFINFO64, 0x0548, 2, setname, sizeof setname - 2);
        c = etl_cur_make(ev.data, ev.data_len);
        ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_OK);
        ck_assert_str_eq(render(true),
                         "ProcessId=7608 ThreadId=3084 ThreadName=\".NET Finalizer\"");
    }
    /* An opcode with no layout. */
    etl_fields_reset(&fl);
    ev = kevent(ETL_KIND_SYSTEM64, 0x0b24, 2, setname, 4);
    c = etl_cur_make(ev.data, ev.data_len);
    ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_NO_LAYOUT);
    ck_assert_uint_eq(fl.n, 0);
}
END_TEST

START_TEST(kernel_isr_and_isr_msi)
{
    /* An ISR-MSI record as laid out in doc/format.md section 17.2 (PERFINFO64,
     * 24 bytes): InitialTime, Routine, ReturnValue 1, Vector 0x91, Reserved 0,
     * MessageNumber 3; without its last 4 bytes it is the ISR payload. */
    static const uint8_t isr[] = {
        0x10, 0x32, 0x54, 0x76, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x20, 0x30, 0x00,
        0xf8, 0xff, 0xff, 0x01, 0x91, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    };
    struct etl_event ev = kevent(ETL_KIND_PERFINFO64, 0x0F32, 2, isr, sizeof isr);
    ck_assert_str_eq(etl_kernel_event_name(&ev), "PerfInfo/ISR-MSI");
    struct etl_cursor c = etl_cur_make(ev.data, ev.data_len);
    size_t at;
    ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_OK);
    ck_assert_str_eq(render(true), "InitialTime=1985229328 Routine=0xfffff80030201000 "
                                   "ReturnValue=1 Vector=145 Reserved=0 MessageNumber=3");
    etl_fields_reset(&fl);
    ev = kevent(ETL_KIND_PERFINFO64, 0x0F43, 2, isr, sizeof isr - 4);
    ck_assert_str_eq(etl_kernel_event_name(&ev), "PerfInfo/ISR");
    c = etl_cur_make(ev.data, ev.data_len);
    ck_assert_int_eq(etl_kernel_fields(&kt, &ev, &c, &fl, &at), ETL_FDEC_OK);
    ck_assert_str_eq(render(true), "InitialTime=1985229328 Routine=0xfffff80030201000 "
                                   "ReturnValue=1 Vector=145 Reserved=0");
}
END_TEST

/* Checks that every field of list (and of its structures) knows its name's
 * length, and that the name is what the entries' `plain` flag promises:
 * printable ASCII with no space, '=', quote, backslash, '&', '<' or '>'. */
static void check_lengths(const struct etl_kfield *list)
{
    for (; list->name; list++) {
        ck_assert_msg(list->nlen == strlen(list->name), "%s", list->name);
        for (const char *c = list->name; *c; c++)
            ck_assert_msg(*c > ' ' && *c < 0x7F && !strchr("=\"\\&<>", *c), "%s",
                          list->name);
        if (list->members)
            check_lengths(list->members);
    }
}

START_TEST(kernel_tables_are_consistent)
{
    for (size_t l = 0; l < etl_nklayouts; l++)
        check_lengths(etl_klayouts[l].fields);
    for (size_t i = 0; i < etl_npproviders; i++)
        for (size_t k = 0; k < etl_pproviders[i].nev; k++)
            check_lengths(etl_pproviders[i].ev[k].fields);
    /* The names are sorted by (group, opcode) for the binary search, and
     * every layout's opcodes have a name. */
    for (size_t i = 1; i < etl_nknames; i++) {
        uint32_t a = (uint32_t)etl_knames[i - 1].group << 8 | etl_knames[i - 1].op;
        uint32_t b = (uint32_t)etl_knames[i].group << 8 | etl_knames[i].op;
        ck_assert_msg(a < b, "%s before %s", etl_knames[i - 1].name, etl_knames[i].name);
    }
    for (size_t l = 0; l < etl_nklayouts; l++) {
        for (size_t k = 0; k < etl_klayouts[l].nops; k++) {
            bool found = false;
            for (size_t i = 0; i < etl_nknames; i++)
                found |= etl_knames[i].group == etl_klayouts[l].group &&
                         etl_knames[i].op == etl_klayouts[l].ops[k];
            ck_assert_msg(found, "layout %zu opcode %u has no name", l,
                          etl_klayouts[l].ops[k]);
        }
    }
}
END_TEST

START_TEST(one_name_per_event)
{
    /* Every HookId the dispatch table decodes is named by the kernel table,
     * the names' group parts are their group's name (the Process group's
     * old Image/Load hook aside), and every group has a name. */
    for (unsigned h = 0; h <= 0xFFFF; h++) {
        struct etl_event ev = kevent(ETL_KIND_PERFINFO64, (uint16_t)h, 2, NULL, 0);
        if (etl_dispatch(&ev)->kind != ETL_REC_NONE)
            ck_assert_msg(etl_kernel_event_name(&ev), "HookId 0x%04x has no name", h);
    }
    for (size_t i = 0; i < etl_nknames; i++) {
        const char *g = etl_kernel_group_name(etl_knames[i].group);
        ck_assert_ptr_nonnull(g);
        if (strcmp(etl_knames[i].name, "Image/Load") == 0)
            continue;
        size_t n = strlen(g);
        ck_assert_msg(strncmp(etl_knames[i].name, g, n) == 0 && etl_knames[i].name[n] == '/',
                      "%s is not in group %s", etl_knames[i].name, g);
    }
    ck_assert_str_eq(etl_kernel_hook_name(0x0524), "Thread/CSwitch");
    ck_assert_ptr_null(etl_kernel_hook_name(0x0599));
}
END_TEST

/* Whether s is made of what ETL_CELL_PLAIN promises: ASCII letters,
 * digits, '/', '_', '-' and '.', at least one. */
static bool plain_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '/' || *s == '_' || *s == '-' || *s == '.'))
            return false;
    return true;
}

/* The names etl_payload_name_own calls etldump's own are plain: every
 * kernel event's and every built-in provider event's. */
START_TEST(own_names_are_plain)
{
    for (size_t i = 0; i < etl_nknames; i++)
        ck_assert_msg(plain_name(etl_knames[i].name), "\"%s\" is not plain", etl_knames[i].name);
    for (size_t i = 0; i < etl_npproviders; i++)
        for (size_t k = 0; k < etl_pproviders[i].nev; k++)
            ck_assert_msg(plain_name(etl_pproviders[i].ev[k].name), "\"%s\" is not plain",
                          etl_pproviders[i].ev[k].name);
    ck_assert(!plain_name("a,b"));
    ck_assert(!plain_name(" Thread/CSwitch"));
    ck_assert(!plain_name(""));
}
END_TEST

START_TEST(builtin_tables_are_sorted_and_named)
{
    for (size_t i = 0; i < etl_npproviders; i++) {
        const struct etl_pprovider *p = &etl_pproviders[i];
        size_t n = strlen(p->name);
        for (size_t k = 0; k < p->nev; k++) {
            const struct etl_pevent *e = &p->ev[k];
            ck_assert_uint_le(e->vmin, e->vmax);
            ck_assert_msg(strncmp(e->name, p->name, n) == 0 && e->name[n] == '/',
                          "%s is not named after %s", e->name, p->name);
            if (k)
                ck_assert_msg(p->ev[k - 1].id < e->id ||
                                  (p->ev[k - 1].id == e->id && p->ev[k - 1].vmax < e->vmin),
                              "%s: event %u out of order", p->name, e->id);
        }
    }
}
END_TEST

/* An event of provider guid: EVENT_HEADER64 with event id `id`, or (full)
 * a FULL64 record with opcode `id`; payload d[0..n). */
static struct etl_event guid_event(const uint8_t guid[16], bool full, unsigned id,
                                   unsigned version, const uint8_t *d, size_t n)
{
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = full ? ETL_KIND_FULL64 : ETL_KIND_EVENT_HEADER64;
    ev.ptr_size = 8;
    ev.flags = ETL_EV_GUID | ETL_EV_VERSION | (full ? ETL_EV_OPCODE : ETL_EV_EVENT_ID);
    if (full)
        ev.opcode = (uint8_t)id;
    else
        ev.event_id = (uint16_t)id;
    ev.version = (uint16_t)version;
    memcpy(ev.guid, guid, 16);
    ev.data = d;
    ev.data_len = (uint32_t)n;
    return ev;
}

/* An EVENT_HEADER event of the .NET runtime's provider. */
static struct etl_event clr_event(unsigned id, unsigned version, const uint8_t *d, size_t n)
{
    static const uint8_t clr[16] = { 0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                     0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 };
    return guid_event(clr, false, id, version, d, n);
}

START_TEST(clr_loh_compact_and_dynamic_event)
{
    /* GCLOHCompact of pv-gcevents-circular.etl: ClrInstanceID 8, one value
     * of 32 bytes: TimePlan 1, TimeCompact 17, TimeRelocate 0, four bytes of
     * padding before the 8-byte TotalRefs, ZeroRefs. */
    uint8_t loh[36] = { 0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11 };
    struct etl_event ev = clr_event(208, 0, loh, sizeof loh);
    struct etl_cursor c = etl_cur_make(ev.data, ev.data_len);
    const char *name;
    size_t at;
    ck_assert_int_eq(etl_builtin_fields(&ev, &c, &fl, &name, &at), ETL_FDEC_OK);
    ck_assert_str_eq(name, "Microsoft-Windows-DotNETRuntime/GarbageCollection/GCLOHCompact");
    ck_assert_str_eq(render(false),
        "{\"ClrInstanceID\":8,\"Count\":1,\"Values\":[{\"TimePlan\":1,\"TimeCompact\":17,"
        "\"TimeRelocate\":0,\"TotalRefs\":0,\"ZeroRefs\":0}]}");
    /* Padding that is not zero is not padding: the values are damaged and
     * given back whole. */
    loh[16] = 0xAA;
    etl_fields_reset(&fl);
    c = etl_cur_make(ev.data, ev.data_len);
    ck_assert_int_eq(etl_builtin_fields(&ev, &c, &fl, &name, &at), ETL_FDEC_DAMAGED);
    ck_assert_uint_eq(at, 4);
    ck_assert_str_eq(render(false), "{\"ClrInstanceID\":8,\"Count\":1}");
    /* GCDynamicEvent of dnperf-dynamicevents.etl: a name, a byte count and
     * that many bytes. */
    static const uint8_t dyn[] = {
        'C', 0, 'o', 0, 'm', 0, 'm', 0, 'i', 0, 't', 0, 't', 0, 'e', 0, 'd', 0, 'U', 0,
        's', 0, 'a', 0, 'g', 0, 'e', 0, 0, 0, 0x04, 0, 0, 0, 0x01, 0x00, 0x00, 0x70,
        0x09, 0x00,
    };
    etl_fields_reset(&fl);
    ev = clr_event(39, 0, dyn, sizeof dyn);
    c = etl_cur_make(ev.data, ev.data_len);
    ck_assert_int_eq(etl_builtin_fields(&ev, &c, &fl, &name, &at), ETL_FDEC_OK);
    ck_assert_str_eq(render(true),
        "Name=CommittedUsage DataSize=4 Data=01000070 ClrInstanceID=9");
    /* A version above the table's newest: its known prefix, then the rest. */
    etl_fields_reset(&fl);
    ev = clr_event(39, 7, dyn, sizeof dyn);
    c = etl_cur_make(ev.data, ev.data_len);
    ck_assert_int_eq(etl_builtin_fields(&ev, &c, &fl, &name, &at), ETL_FDEC_OK);
    ck_assert_ptr_null(etl_builtin_event_name(&(struct etl_event){ .kind = ETL_KIND_FULL64 }));
}
END_TEST

START_TEST(tracelogging_hw3d)
{
    /* hw3d-trace.etl: provider traits "Atum-Hw3d", event "WinMain" with
     * lpCmdLine (ANSI string) and nCmdShow (INT32); extended items as in the
     * file, then the 5 payload bytes. */
    static const uint8_t items[] = {
        0x18, 0x00, 0x0c, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x0c, 0x00, 'A', 't', 'u', 'm',
        '-', 'H', 'w', '3', 'd', 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x0b, 0x00,
        0x00, 0x00, 0x20, 0x00, 0x20, 0x00, 0x00, 'W', 'i', 'n', 'M', 'a', 'i', 'n',
        0x00, 'l', 'p', 'C', 'm', 'd', 'L', 'i', 'n', 'e', 0x00, 0x02, 'n', 'C', 'm',
        'd', 'S', 'h', 'o', 'w', 0x00, 0x07, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t payload[] = { 0x00, 0x0a, 0x00, 0x00, 0x00 };
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETL_KIND_EVENT_HEADER64;
    ev.ptr_size = 8;
    ev.flags = ETL_EV_GUID | ETL_EV_EVENT_ID;
    ev.ext_items = items;
    ev.ext_items_len = sizeof items;
    ev.data = payload;
    ev.data_len = sizeof payload;
    char name[128];
    ck_assert(etl_tl_event_name(&ev, name, sizeof name));
    ck_assert_str_eq(name, "Atum-Hw3d/WinMain");
    struct etl_cursor c = etl_cur_make(ev.data, ev.data_len);
    size_t at;
    ck_assert_int_eq(etl_tl_fields(&ev, &c, &fl, &at), ETL_FDEC_OK);
    /* SW_SHOWDEFAULT is 10. */
    ck_assert_str_eq(render(false), "{\"lpCmdLine\":\"\",\"nCmdShow\":10}");
    /* One byte short: damaged inside nCmdShow, lpCmdLine kept. */
    etl_fields_reset(&fl);
    c = etl_cur_make(ev.data, ev.data_len - 1);
    ck_assert_int_eq(etl_tl_fields(&ev, &c, &fl, &at), ETL_FDEC_DAMAGED);
    ck_assert_uint_eq(at, 1);
    ck_assert_uint_eq(fl.n, 1);
}
END_TEST

/* A FULL64 WinSAT event (opcode op) of payload d[0..n). */
static struct etl_event winsat_event(unsigned op, const uint8_t *d, size_t n)
{
    static const uint8_t guid[16] = { 0xf8, 0xdf, 0x54, 0xed, 0x09, 0xc4, 0xf6, 0x4c,
                                      0xbf, 0x83, 0x05, 0xe1, 0xe6, 0x1a, 0x09, 0xc4 };
    return guid_event(guid, true, op, 0, d, n);
}

/* Decodes ev with pl and returns its fields as JSON. */
static const char *json_of(struct etl_payload *pl, const struct etl_event *ev,
                           enum etl_fdec *st, const char **name, size_t *at)
{
    *st = etl_payload_decode(pl, ev, name, at);
    return render_of(&pl->fields, false);
}

START_TEST(winsat_events)
{
    /* State 1, UncompressedLength 10, then one uncompressed chunk of the
     * UTF-16 XML "<a/>" and its U+0000 (header 0x3000 | (10 - 1)). */
    uint8_t d[64] = { 1, 0, 0, 0, 10, 0, 0, 0, 0x09, 0x30,
                      '<', 0, 'a', 0, '/', 0, '>', 0, 0, 0 };
    size_t n = 20;
    struct etl_payload *pl = etl_payload_new();
    ck_assert_ptr_nonnull(pl);
    enum etl_fdec st;
    const char *name;
    size_t at;
    struct etl_event ev = winsat_event(37, d, n);
    const char *js = json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_OK);
    ck_assert_str_eq(name, "WinSAT/SystemConfig");
    ck_assert_str_eq(js, "{\"State\":1,\"UncompressedLength\":10,\"Xml\":\"<a/>\"}");
    ev = winsat_event(33, d, n);
    json_of(pl, &ev, &st, &name, &at);
    ck_assert_str_eq(name, "WinSAT/WinSPR");
    /* An UncompressedLength the data does not reach: damage at the Xml
     * field (offset 8), State and UncompressedLength kept, the compressed
     * data as payload_hex. */
    d[4] = 12;
    ev = winsat_event(35, d, n);
    js = json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_DAMAGED);
    ck_assert_str_eq(name, "WinSAT/Metrics");
    ck_assert_uint_eq(at, 8);
    ck_assert_ptr_nonnull(pl->why);
    ck_assert_str_eq(js, "{\"State\":1,\"UncompressedLength\":12,"
                         "\"payload_hex\":\"09303c0061002f003e000000\"}");
    /* Over 64 KiB: not decompressed; the same fields, the payload_hex from
     * offset 8 (the length is not shown twice). */
    d[4] = 0;
    d[6] = 2; /* 0x20000 */
    ev = winsat_event(33, d, n);
    js = json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_DAMAGED);
    ck_assert_uint_eq(at, 8);
    ck_assert_ptr_nonnull(strstr(pl->why, "64 KiB"));
    ck_assert_str_eq(js, "{\"State\":1,\"UncompressedLength\":131072,"
                         "\"payload_hex\":\"09303c0061002f003e000000\"}");
    /* Exactly 64 KiB is still decoded (the data must give all of it). */
    d[6] = 1; /* 0x10000 */
    ev = winsat_event(33, d, n);
    json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_DAMAGED);
    ck_assert_ptr_null(strstr(pl->why, "64 KiB"));
    /* Data that does not decompress says why, in LZNT1's words. */
    d[6] = 0;
    d[4] = 10;
    d[9] = 0x10; /* a chunk header without its signature 3 */
    ev = winsat_event(33, d, n);
    json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_DAMAGED);
    ck_assert_uint_eq(at, 8);
    ck_assert_str_eq(pl->why, "Xml does not decompress: chunk header without its signature");
    d[9] = 0x30;
    /* Payloads cut short: damage at the field that runs past. */
    ev = winsat_event(33, d, 6);
    json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_DAMAGED);
    ck_assert_uint_eq(at, 4);
    ev = winsat_event(33, d, 2);
    json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_DAMAGED);
    ck_assert_uint_eq(at, 0);
    /* Another opcode has no layout. */
    ev = winsat_event(34, d, n);
    json_of(pl, &ev, &st, &name, &at);
    ck_assert_int_eq(st, ETL_FDEC_NO_LAYOUT);
    etl_payload_free(pl);
}
END_TEST

/* ---- the real traces ---- */

struct cov {
    struct etl_payload *pl;
    unsigned long events, named, decoded, pti, pti_ok, overrun, no_layout, other, own, made;
};

/* The kinds no public layout describes (README, "Decoded payloads"): a
 * provider (the first four bytes of its GUID as a number) and an opcode
 * (FULL records) or an event id (EVENT_HEADER records), -1 for any; or a
 * kernel HookId with provider 0. Every event of the real traces that is not
 * named and wholly decoded must be of one of these kinds. */
static const struct {
    uint32_t provider;
    int op, id;
    uint16_t hook;
} no_layout[] = {
    { 0xbf6ef1cbu, 33, -1, 0 }, { 0xbf6ef1cbu, 34, -1, 0 }, /* PerfTrack metadata */
    { 0x9b79ee91u, 36, -1, 0 }, { 0x9b79ee91u, 37, -1, 0 }, /* SystemConfigEx */
    { 0, -1, -1, 0x0B24 }, { 0, -1, -1, 0x0B25 },           /* SysConfig */
    { 0xa8a71ac1u, -1, 13, 0 },     /* PerfView/ClrEnableParameters' last bytes */
    { 0x9e5f9046u, -1, 1, 0 }, { 0x9e5f9046u, -1, 2, 0 }, { 0x9e5f9046u, -1, 5, 0 },
    { 0x6f669bfau, -1, 2, 0 },
    /* EventWriteString: the string is decoded; nothing names the provider. */
    { 0xe9c3da11u, -1, 0, 0 }, { 0x231cf54bu, -1, 0, 0 }, { 0x2b25961du, -1, 0, 0 },
    { 0x70e2503bu, -1, 0, 0 },
};

static bool of_no_layout(const struct etl_event *ev)
{
    uint32_t prov = (uint32_t)ev->guid[0] | (uint32_t)ev->guid[1] << 8 |
                    (uint32_t)ev->guid[2] << 16 | (uint32_t)ev->guid[3] << 24;
    bool header = ev->kind == ETL_KIND_EVENT_HEADER32 || ev->kind == ETL_KIND_EVENT_HEADER64;
    for (size_t i = 0; i < sizeof no_layout / sizeof no_layout[0]; i++) {
        if (no_layout[i].hook) {
            if (prov == 0 && ev->hook_id == no_layout[i].hook)
                return true;
        } else if (prov == no_layout[i].provider &&
                   (no_layout[i].op < 0 || (!header && ev->opcode == no_layout[i].op)) &&
                   (no_layout[i].id < 0 || (header && ev->event_id == no_layout[i].id))) {
            return true;
        }
    }
    return false;
}

static bool pre(void *ctx, const struct etl_event *ev)
{
    return etl_payload_learn(((struct cov *)ctx)->pl, ev);
}

/* Decodes one event the way the events view does. */
static bool walk(void *ctx, const struct etl_event *ev)
{
    struct cov *x = ctx;
    const char *name;
    size_t at;
    enum etl_fdec st = etl_payload_decode(x->pl, ev, &name, &at);
    bool decoded = st == ETL_FDEC_OK || (st == ETL_FDEC_NO_LAYOUT && ev->data_len == 0);
    x->events++;
    x->named += name != NULL;
    x->decoded += name != NULL && decoded;
    if (!(name != NULL && decoded)) {
        if (of_no_layout(ev))
            x->no_layout++;
        else
            x->other++;
    }
    x->overrun += at > ev->data_len;
    /* The name alone, as --no-fields finds it: the same, and called
     * etldump's own only when it is plain. */
    bool own;
    const char *alone = etl_payload_name_own(x->pl, ev, &own);
    ck_assert(name ? alone && strcmp(alone, name) == 0 : alone == NULL);
    ck_assert(!own || plain_name(alone));
    x->own += own;
    x->made += alone && !own;
    int g = etl_kernel_group(ev);
    if (g == 0x03 || g == 0x05 || g == 0x14) {
        x->pti++;
        x->pti_ok += name != NULL && decoded;
    }
    return true;
}

START_TEST(real_traces)
{
    unsigned long all = 0, all_named = 0, all_decoded = 0, own_all = 0, made_all = 0;
    const char *name;
    for (size_t k = 0; (name = real_trace(k)) != NULL; k++) {
        char path[512];
        if (!real_trace_path("test_fields", name, path, sizeof path))
            continue;
        enum etl_open_status st;
        struct etl_file *f = etl_open_path(path, NULL, &st);
        ck_assert_int_eq(st, ETL_OPEN_OK);
        struct cov x;
        memset(&x, 0, sizeof x);
        x.pl = etl_payload_new();
        ck_assert_ptr_nonnull(x.pl);
        etl_walk_file(f, pre, &x);
        etl_walk_file(f, walk, &x);
        etl_payload_free(x.pl);
        etl_close(f);
        printf("test_fields: %-30s events %6lu named %6lu decoded %6lu (%.1f%%), "
               "no public layout %lu\n", name, x.events, x.named, x.decoded,
               x.events ? 100.0 * (double)x.decoded / (double)x.events : 0.0, x.no_layout);
        ck_assert_uint_eq(x.overrun, 0);
        ck_assert_uint_eq(x.own + x.made, x.named);
        own_all += x.own;
        made_all += x.made;
        /* What is not decoded is only what no public layout describes. */
        ck_assert_msg(x.other == 0, "%s: %lu events neither decoded nor of a kind listed "
                      "as having no public layout", name, x.other);
        /* Every Process, Thread and Image event is named and decoded. */
        ck_assert_uint_eq(x.pti_ok, x.pti);
        all += x.events;
        all_named += x.named;
        all_decoded += x.decoded;
    }
    if (all) {
        printf("test_fields: all %lu events: named %lu (by etldump's own tables %lu, "
               "from the files %lu), decoded %lu (%.1f%%)\n", all, all_named, own_all,
               made_all, all_decoded, 100.0 * (double)all_decoded / (double)all);
        /* Both kinds of name occur in the real traces. */
        ck_assert_uint_gt(own_all, 0);
        ck_assert_uint_gt(made_all, 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fields");
    TCase *tc = tcase_create("fields");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, json_scalars_and_nesting);
    tcase_add_test(tc, strings_are_valid_utf8);
    tcase_add_test(tc, caps_set_truncated_and_close_open_levels);
    tcase_add_test(tc, kernel_process_v4);
    tcase_add_test(tc, kernel_damage_and_newer_version);
    tcase_add_test(tc, kernel_memo_matches_fresh_table);
    tcase_add_test(tc, kernel_isr_and_isr_msi);
    tcase_add_test(tc, kernel_tables_are_consistent);
    tcase_add_test(tc, one_name_per_event);
    tcase_add_test(tc, builtin_tables_are_sorted_and_named);
    tcase_add_test(tc, own_names_are_plain);
    tcase_add_test(tc, winsat_events);
    tcase_add_test(tc, clr_loh_compact_and_dynamic_event);
    tcase_add_test(tc, tracelogging_hw3d);
    tcase_add_test(tc, real_traces);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
