/*
 * test_process.c - the Process and Thread decoders on payloads taken from
 * the real traces in shared/samples/real (extracted with a throw-away tool;
 * each array names its file and offset), and on payloads built by hand from
 * the layouts of doc/format.md §14-§15 for what the samples lack
 * (32-bit layouts, older versions, the zero-form SID, damage).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "decode/process.h"
#include "unit.h"

/* Decodes through a cursor over the event's data, as the dispatch table does. */
static enum etl_pt_status decode_process(const struct etl_event *ev,
                                         struct etl_process_rec *r, size_t *at)
{
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    return etl_decode_process(ev, &c, r, at);
}

static enum etl_pt_status decode_thread(const struct etl_event *ev,
                                        struct etl_thread_rec *r, size_t *at)
{
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    return etl_decode_thread(ev, &c, r, at);
}

/* pv-diaghub-kernel.etl, file offset 0x10058 (buffer 0x10000, record +0x48): Process DCStart
 * version 4, PERFINFO64, 128 bytes - fontdrvhost.exe, the example of the reference (2.1) */
static const uint8_t fontdrvhost[] = {
    0xc0, 0x00, 0xd1, 0xe1, 0x04, 0xa8, 0xff, 0xff, 0x64, 0x02, 0x00, 0x00,
    0xe8, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00,
    0x00, 0x10, 0xc9, 0xaa, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xa0, 0x29, 0x0d, 0xd9, 0x83, 0xd3, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x66, 0x6f, 0x6e, 0x74, 0x64, 0x72, 0x76, 0x68, 0x6f, 0x73, 0x74, 0x2e,
    0x65, 0x78, 0x65, 0x00, 0x22, 0x00, 0x66, 0x00, 0x6f, 0x00, 0x6e, 0x00,
    0x74, 0x00, 0x64, 0x00, 0x72, 0x00, 0x76, 0x00, 0x68, 0x00, 0x6f, 0x00,
    0x73, 0x00, 0x74, 0x00, 0x2e, 0x00, 0x65, 0x00, 0x78, 0x00, 0x65, 0x00,
    0x22, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* pv-diaghub-kernel.etl, file offset 0x134e0 (buffer 0x10000, record +0x34c0): Process Start
 * version 4, SYSTEM64, 208 bytes - conhost.exe */
static const uint8_t conhost[] = {
    0x40, 0x73, 0x6d, 0xf4, 0x04, 0xa8, 0xff, 0xff, 0x78, 0x2e, 0x00, 0x00,
    0xe4, 0x34, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00,
    0x00, 0xd0, 0x82, 0x70, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x60, 0x5f, 0x8e, 0xb1, 0x83, 0xd3, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x15, 0x00, 0x00, 0x00, 0xa0, 0x65, 0xcf, 0x7e, 0x78, 0x4b, 0x9b, 0x5f,
    0xe7, 0x7c, 0x87, 0x70, 0x13, 0xb9, 0x9e, 0x02, 0x63, 0x6f, 0x6e, 0x68,
    0x6f, 0x73, 0x74, 0x2e, 0x65, 0x78, 0x65, 0x00, 0x5c, 0x00, 0x3f, 0x00,
    0x3f, 0x00, 0x5c, 0x00, 0x43, 0x00, 0x3a, 0x00, 0x5c, 0x00, 0x57, 0x00,
    0x49, 0x00, 0x4e, 0x00, 0x44, 0x00, 0x4f, 0x00, 0x57, 0x00, 0x53, 0x00,
    0x5c, 0x00, 0x73, 0x00, 0x79, 0x00, 0x73, 0x00, 0x74, 0x00, 0x65, 0x00,
    0x6d, 0x00, 0x33, 0x00, 0x32, 0x00, 0x5c, 0x00, 0x63, 0x00, 0x6f, 0x00,
    0x6e, 0x00, 0x68, 0x00, 0x6f, 0x00, 0x73, 0x00, 0x74, 0x00, 0x2e, 0x00,
    0x65, 0x00, 0x78, 0x00, 0x65, 0x00, 0x20, 0x00, 0x30, 0x00, 0x78, 0x00,
    0x66, 0x00, 0x66, 0x00, 0x66, 0x00, 0x66, 0x00, 0x66, 0x00, 0x66, 0x00,
    0x66, 0x00, 0x66, 0x00, 0x20, 0x00, 0x2d, 0x00, 0x46, 0x00, 0x6f, 0x00,
    0x72, 0x00, 0x63, 0x00, 0x65, 0x00, 0x56, 0x00, 0x31, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00,
};

/* pv-diaghub-kernel.etl, file offset 0xf38c0 (buffer 0xf0000, record +0x38b0): Process Defunct
 * version 5, PERFINFO64, 91 bytes - MpCmdRun.exe with its ExitTime */
static const uint8_t defunct[] = {
    0x80, 0xb0, 0xa3, 0xe2, 0x04, 0xa8, 0xff, 0xff, 0x20, 0x11, 0x00, 0x00,
    0x30, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xd0, 0x4e, 0x0f, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xe0, 0xf7, 0xd3, 0x9f, 0x83, 0xd3, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    0x14, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x12, 0x00, 0x00, 0x00, 0x4d, 0x70, 0x43, 0x6d, 0x64, 0x52, 0x75, 0x6e,
    0x2e, 0x65, 0x78, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5f,
    0x4d, 0xa1, 0x75, 0xe6, 0x8a, 0xd6, 0x01,
};

/* pv-diaghub-kernel.etl, file offset 0x12bc0 (buffer 0x10000, record +0x2bb0): Process DCStart
 * version 4, PERFINFO64, 406 bytes - a packaged RuntimeBroker.exe (Flags 9) */
static const uint8_t broker[] = {
    0x80, 0x70, 0x33, 0xe5, 0x04, 0xa8, 0xff, 0xff, 0xb4, 0x2a, 0x00, 0x00,
    0x44, 0x02, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00,
    0x00, 0xf0, 0x24, 0xe4, 0x03, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00,
    0xa0, 0x5a, 0x0d, 0xd9, 0x83, 0xd3, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    0x83, 0xd3, 0xff, 0xff, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x15, 0x00, 0x00, 0x00, 0xa0, 0x65, 0xcf, 0x7e, 0x78, 0x4b, 0x9b, 0x5f,
    0xe7, 0x7c, 0x87, 0x70, 0x13, 0xb9, 0x9e, 0x02, 0x52, 0x75, 0x6e, 0x74,
    0x69, 0x6d, 0x65, 0x42, 0x72, 0x6f, 0x6b, 0x65, 0x72, 0x2e, 0x65, 0x78,
    0x65, 0x00, 0x43, 0x00, 0x3a, 0x00, 0x5c, 0x00, 0x57, 0x00, 0x69, 0x00,
    0x6e, 0x00, 0x64, 0x00, 0x6f, 0x00, 0x77, 0x00, 0x73, 0x00, 0x5c, 0x00,
    0x53, 0x00, 0x79, 0x00, 0x73, 0x00, 0x74, 0x00, 0x65, 0x00, 0x6d, 0x00,
    0x33, 0x00, 0x32, 0x00, 0x5c, 0x00, 0x52, 0x00, 0x75, 0x00, 0x6e, 0x00,
    0x74, 0x00, 0x69, 0x00, 0x6d, 0x00, 0x65, 0x00, 0x42, 0x00, 0x72, 0x00,
    0x6f, 0x00, 0x6b, 0x00, 0x65, 0x00, 0x72, 0x00, 0x2e, 0x00, 0x65, 0x00,
    0x78, 0x00, 0x65, 0x00, 0x20, 0x00, 0x2d, 0x00, 0x45, 0x00, 0x6d, 0x00,
    0x62, 0x00, 0x65, 0x00, 0x64, 0x00, 0x64, 0x00, 0x69, 0x00, 0x6e, 0x00,
    0x67, 0x00, 0x00, 0x00, 0x4d, 0x00, 0x69, 0x00, 0x63, 0x00, 0x72, 0x00,
    0x6f, 0x00, 0x73, 0x00, 0x6f, 0x00, 0x66, 0x00, 0x74, 0x00, 0x2e, 0x00,
    0x57, 0x00, 0x69, 0x00, 0x6e, 0x00, 0x64, 0x00, 0x6f, 0x00, 0x77, 0x00,
    0x73, 0x00, 0x2e, 0x00, 0x53, 0x00, 0x65, 0x00, 0x61, 0x00, 0x72, 0x00,
    0x63, 0x00, 0x68, 0x00, 0x5f, 0x00, 0x31, 0x00, 0x2e, 0x00, 0x31, 0x00,
    0x34, 0x00, 0x2e, 0x00, 0x30, 0x00, 0x2e, 0x00, 0x31, 0x00, 0x39, 0x00,
    0x30, 0x00, 0x34, 0x00, 0x31, 0x00, 0x5f, 0x00, 0x6e, 0x00, 0x65, 0x00,
    0x75, 0x00, 0x74, 0x00, 0x72, 0x00, 0x61, 0x00, 0x6c, 0x00, 0x5f, 0x00,
    0x6e, 0x00, 0x65, 0x00, 0x75, 0x00, 0x74, 0x00, 0x72, 0x00, 0x61, 0x00,
    0x6c, 0x00, 0x5f, 0x00, 0x63, 0x00, 0x77, 0x00, 0x35, 0x00, 0x6e, 0x00,
    0x31, 0x00, 0x68, 0x00, 0x32, 0x00, 0x74, 0x00, 0x78, 0x00, 0x79, 0x00,
    0x65, 0x00, 0x77, 0x00, 0x79, 0x00, 0x00, 0x00, 0x72, 0x00, 0x75, 0x00,
    0x6e, 0x00, 0x74, 0x00, 0x69, 0x00, 0x6d, 0x00, 0x65, 0x00, 0x62, 0x00,
    0x72, 0x00, 0x6f, 0x00, 0x6b, 0x00, 0x65, 0x00, 0x72, 0x00, 0x30, 0x00,
    0x37, 0x00, 0x66, 0x00, 0x34, 0x00, 0x33, 0x00, 0x35, 0x00, 0x38, 0x00,
    0x61, 0x00, 0x38, 0x00, 0x30, 0x00, 0x39, 0x00, 0x61, 0x00, 0x63, 0x00,
    0x39, 0x00, 0x39, 0x00, 0x61, 0x00, 0x36, 0x00, 0x34, 0x00, 0x61, 0x00,
    0x36, 0x00, 0x37, 0x00, 0x63, 0x00, 0x31, 0x00, 0x00, 0x00,
};

/* dnperf-dynamicevents.etl, compressed buffer at file offset 0x400, offset 0x138 of
 * the decompressed buffer (record +0x118): Thread DCStart version 3, SYSTEM64, 96 bytes -
 * TID 0 of PID 0 named "Idle Thread" */
static const uint8_t idle_thread[] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0xb2, 0x19,
    0x06, 0xf8, 0xff, 0xff, 0x00, 0xb0, 0xb1, 0x19, 0x06, 0xf8, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xa0, 0x52, 0xa2, 0x1d, 0x06, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00,
    0x49, 0x00, 0x64, 0x00, 0x6c, 0x00, 0x65, 0x00, 0x20, 0x00, 0x54, 0x00,
    0x68, 0x00, 0x72, 0x00, 0x65, 0x00, 0x61, 0x00, 0x64, 0x00, 0x00, 0x00,
};

/* dnperf-dynamicevents.etl, compressed buffer at file offset 0x4a31, decompressed offset
 * 0xff68 (record +0xff48): Thread Start version 3, SYSTEM64, 74 bytes - TID 7780 of PID 7608
 * with the empty ThreadName of build 18362 and later */
static const uint8_t thread_start[] = {
    0xb8, 0x1d, 0x00, 0x00, 0x64, 0x1e, 0x00, 0x00, 0x00, 0x80, 0x1e, 0x97,
    0x0f, 0xfd, 0xff, 0xff, 0x00, 0x10, 0x1e, 0x97, 0x0f, 0xfd, 0xff, 0xff,
    0x00, 0x00, 0xa8, 0xa8, 0x83, 0x00, 0x00, 0x00, 0x00, 0xf0, 0xa7, 0xa8,
    0x83, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x00, 0x00, 0x00,
    0xa0, 0xb4, 0xe9, 0xcc, 0xfc, 0x7f, 0x00, 0x00, 0x00, 0xe0, 0x51, 0xa8,
    0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x05, 0x02, 0x00,
    0x00, 0x00,
};

/* dnperf-dynamicevents.etl, compressed buffer at file offset 0xa5e6, decompressed offset
 * 0x678 (record +0x668): Thread SetName version 2, PERFINFO64, 38 bytes - ".NET Finalizer" */
static const uint8_t set_name[] = {
    0xb8, 0x1d, 0x00, 0x00, 0x0c, 0x0c, 0x00, 0x00, 0x2e, 0x00, 0x4e, 0x00,
    0x45, 0x00, 0x54, 0x00, 0x20, 0x00, 0x46, 0x00, 0x69, 0x00, 0x6e, 0x00,
    0x61, 0x00, 0x6c, 0x00, 0x69, 0x00, 0x7a, 0x00, 0x65, 0x00, 0x72, 0x00,
    0x00, 0x00,
};

/* Returns an event whose data is d[0..n). */
static struct etl_event event_of(const uint8_t *d, size_t n, unsigned hook, unsigned version,
                                 unsigned kind)
{
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.data = d;
    ev.data_len = (uint32_t)n;
    ev.hook_id = (uint16_t)hook;
    ev.version = (uint16_t)version;
    ev.kind = (uint8_t)kind;
    ev.ptr_size = (kind == ETL_KIND_SYSTEM32 || kind == ETL_KIND_PERFINFO32 ||
                   kind == ETL_KIND_COMPACT32) ? 4 : 8;
    ev.flags = ETL_EV_HOOK | ETL_EV_TS | ETL_EV_VERSION;
    ev.ts = 1000;
    return ev;
}

/* Returns the ANSI image of r as a string (static buffer). */
static const char *image_of(const struct etl_process_rec *r)
{
    static char buf[256];
    ck_assert(r->has & PR_IMAGE);
    ck_assert_uint_lt(r->image_len, sizeof buf);
    memcpy(buf, r->image, r->image_len);
    buf[r->image_len] = '\0';
    return buf;
}

/* Returns a UTF-16 field as UTF-8 (static buffer). */
static const char *utf8_of(const struct etl_u16str *s)
{
    static char buf[1024];
    etl_u16str_utf8(s, buf, sizeof buf);
    return buf;
}

/* Returns the SID of r as text (static buffer). */
static const char *sid_of(const struct etl_process_rec *r)
{
    static char buf[200];
    ck_assert(etl_process_sid(r, buf, sizeof buf));
    return buf;
}

START_TEST(process_v4_dcstart_fontdrvhost)
{
    struct etl_event ev = event_of(fontdrvhost, sizeof fontdrvhost, 0x0303, 4,
                                   ETL_KIND_PERFINFO64);
    struct etl_process_rec r;
    size_t at;
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.op, ETL_PT_DCSTART);
    ck_assert(r.key == 0xFFFFA804E1D100C0ull);
    ck_assert_uint_eq(r.pid, 0x264);
    ck_assert_uint_eq(r.parent_id, 0x2E8);
    ck_assert_uint_eq(r.session_id, 0);
    ck_assert_uint_eq(r.exit_status, 0x103);
    ck_assert(r.dtb == 0x4AAC91000ull);
    ck_assert_uint_eq(r.flags, 0);
    ck_assert_str_eq(sid_of(&r), "S-1-5-96-0-0");
    ck_assert_str_eq(image_of(&r), "fontdrvhost.exe");
    ck_assert_str_eq(utf8_of(&r.cmdline), "\"fontdrvhost.exe\"");
    ck_assert(r.has & PR_PACKAGE);
    ck_assert_uint_eq(r.package.len, 0);
    ck_assert_uint_eq(r.app_id.len, 0);
    ck_assert(!(r.has & PR_EXIT_TIME));
}
END_TEST

START_TEST(process_v4_start_conhost)
{
    struct etl_event ev = event_of(conhost, sizeof conhost, 0x0301, 4, ETL_KIND_SYSTEM64);
    struct etl_process_rec r;
    size_t at;
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.op, ETL_PT_START);
    ck_assert_uint_eq(r.pid, 11896);
    ck_assert_uint_eq(r.parent_id, 13540);
    ck_assert_uint_eq(r.session_id, 2);
    ck_assert_str_eq(image_of(&r), "conhost.exe");
    ck_assert_str_eq(utf8_of(&r.cmdline),
                     "\\??\\C:\\WINDOWS\\system32\\conhost.exe 0xffffffff -ForceV1");
    ck_assert_str_eq(sid_of(&r), "S-1-5-21-2127521184-1604012920-1887927527-43956499");
}
END_TEST

START_TEST(process_v5_defunct)
{
    struct etl_event ev = event_of(defunct, sizeof defunct, 0x0327, 5, ETL_KIND_PERFINFO64);
    struct etl_process_rec r;
    size_t at;
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.op, ETL_PT_DEFUNCT);
    ck_assert_uint_eq(r.pid, 0x1120);
    ck_assert_uint_eq(r.parent_id, 0x730);
    ck_assert_uint_eq(r.exit_status, 0);
    ck_assert_str_eq(image_of(&r), "MpCmdRun.exe");
    ck_assert_str_eq(sid_of(&r), "S-1-5-18");
    ck_assert(r.has & PR_EXIT_TIME);
    ck_assert(r.exit_time == 0x01D68AE675A14D5FLL);
    /* Read as version 4 (Windows 8's Defunct), the ExitTime is left over. */
    ev.version = 4;
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_TRAILING);
    ck_assert_uint_eq(at, 83);
    ck_assert(!(r.has & PR_IMAGE));
    ck_assert_uint_eq(r.pid, 0x1120);
}
END_TEST

START_TEST(process_v4_packaged)
{
    struct etl_event ev = event_of(broker, sizeof broker, 0x0303, 4, ETL_KIND_PERFINFO64);
    struct etl_process_rec r;
    size_t at;
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.flags, 9);
    ck_assert_str_eq(image_of(&r), "RuntimeBroker.exe");
    ck_assert_str_eq(utf8_of(&r.cmdline), "C:\\Windows\\System32\\RuntimeBroker.exe -Embedding");
    ck_assert_str_eq(utf8_of(&r.package),
                     "Microsoft.Windows.Search_1.14.0.19041_neutral_neutral_cw5n1h2txyewy");
    ck_assert_str_eq(utf8_of(&r.app_id), "runtimebroker07f4358a809ac99a64a67c1");
}
END_TEST

START_TEST(process_damage)
{
    struct etl_process_rec r;
    size_t at;
    /* Every cut of a real record fails cleanly, never reading past it: the
     * copy sits at the end of a heap block for the address sanitizer. */
    for (size_t n = 0; n < sizeof fontdrvhost; n++) {
        uint8_t *d = malloc(n ? n : 1);
        ck_assert_ptr_nonnull(d);
        memcpy(d, fontdrvhost, n);
        struct etl_event ev = event_of(d, n, 0x0303, 4, ETL_KIND_PERFINFO64);
        enum etl_pt_status st = decode_process(&ev, &r, &at);
        ck_assert_int_eq(st, n < 0x24 ? ETL_PT_SHORT : ETL_PT_BAD_STRING);
        if (n >= 0x24)
            ck_assert_uint_eq(r.pid, 0x264);
        free(d);
    }
    /* A byte too many: the strings are not trusted, the fixed fields are. */
    uint8_t more[sizeof fontdrvhost + 1];
    memcpy(more, fontdrvhost, sizeof fontdrvhost);
    more[sizeof fontdrvhost] = 0x41;
    struct etl_event ev = event_of(more, sizeof more, 0x0303, 4, ETL_KIND_PERFINFO64);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_TRAILING);
    ck_assert_uint_eq(at, sizeof fontdrvhost);
    ck_assert_uint_eq(r.parent_id, 0x2E8);
    ck_assert(!(r.has & (PR_IMAGE | PR_CMDLINE | PR_SID)));
    /* A SubAuthorityCount beyond 15 is damage. */
    memcpy(more, fontdrvhost, sizeof fontdrvhost);
    more[0x35] = 16;
    ev = event_of(more, sizeof fontdrvhost, 0x0303, 4, ETL_KIND_PERFINFO64);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_BAD_STRING);
    ck_assert_uint_eq(at, 0x24);
    /* A later version is read as its version 4/5 prefix. */
    ev = event_of(more, sizeof more, 0x0303, 9, ETL_KIND_PERFINFO64);
    memcpy(more, fontdrvhost, sizeof fontdrvhost);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_str_eq(image_of(&r), "fontdrvhost.exe");
    /* Terminate: the ProcessId alone. */
    static const uint8_t term[] = { 0x34, 0x12, 0, 0 };
    ev = event_of(term, sizeof term, 0x030B, 2, ETL_KIND_SYSTEM64);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.op, ETL_PT_TERMINATE);
    ck_assert_uint_eq(r.pid, 0x1234);
    ev.data_len = 3;
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_SHORT);
}
END_TEST

/* Appends bytes to a payload under construction. */
struct buf {
    uint8_t b[512];
    size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
    ck_assert_uint_le(b->n + n, sizeof b->b);
    memcpy(b->b + b->n, p, n);
    b->n += n;
}

static void put32(struct buf *b, uint32_t v)
{
    uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    put(b, x, 4);
}

static void put64(struct buf *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}

/* "S-1-5-18" after a TOKEN_USER of the given pointer size. */
static void put_sid18(struct buf *b, unsigned ptr)
{
    if (ptr == 8)
        put64(b, 0xFFFFD3839FD3F7E0ull);
    else
        put32(b, 0x9FD3F7E0u);
    put32(b, 0x10);                   /* Attributes */
    if (ptr == 8)
        put32(b, 0x0F505D8Bu);        /* padding junk */
    static const uint8_t sid[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    put(b, sid, sizeof sid);
}

START_TEST(process_32bit_and_zero_sid)
{
    /* Version 4, 32-bit: key, PID, parent, session, status, DTB, Flags at
     * 0x18, UserSID at 0x1C (the zero form: 4 bytes), image, command line
     * (with U+00FC and U+1D11E), package, application. */
    struct buf b = { { 0 }, 0 };
    put32(&b, 0x8A123450u);
    put32(&b, 1234);
    put32(&b, 4);
    put32(&b, 1);
    put32(&b, 0x103);
    put32(&b, 0x1AD000u);
    put32(&b, 2);
    put32(&b, 0);                     /* no SID */
    put(&b, "a.exe", 6);
    static const uint8_t cl[] = { 'x', 0, 0xFC, 0, 0x34, 0xD8, 0x1E, 0xDD, 0, 0 };
    put(&b, cl, sizeof cl);
    put(&b, "\0\0\0\0", 4);
    struct etl_event ev = event_of(b.b, b.n, 0x0303, 4, ETL_KIND_PERFINFO32);
    struct etl_process_rec r;
    size_t at;
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.pid, 1234);
    ck_assert_uint_eq(r.parent_id, 4);
    ck_assert_uint_eq(r.flags, 2);
    ck_assert(!(r.has & PR_SID));
    char sid[200];
    ck_assert(!etl_process_sid(&r, sid, sizeof sid));
    ck_assert_str_eq(image_of(&r), "a.exe");
    ck_assert_str_eq(utf8_of(&r.cmdline), "x\xc3\xbc\xf0\x9d\x84\x9e");
    /* The same with a SID, 32-bit: TOKEN_USER is 8 bytes. */
    struct buf c = { { 0 }, 0 };
    put(&c, b.b, 0x1C);
    put_sid18(&c, 4);
    put(&c, "b.exe", 6);
    put(&c, "\0\0\0\0\0\0", 6);
    ev = event_of(c.b, c.n, 0x0301, 4, ETL_KIND_SYSTEM32);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_str_eq(sid_of(&r), "S-1-5-18");
    ck_assert_str_eq(image_of(&r), "b.exe");
}
END_TEST

START_TEST(process_older_versions)
{
    struct etl_process_rec r;
    size_t at;
    /* Version 3, 64-bit (Windows 7): no Flags, SID at 0x20, image, command line. */
    struct buf b = { { 0 }, 0 };
    put64(&b, 0xFFFFFA8001234560ull);
    put32(&b, 2000);
    put32(&b, 600);
    put32(&b, 1);
    put32(&b, 0x103);
    put64(&b, 0x7A000000ull);
    put_sid18(&b, 8);
    put(&b, "taskhost.exe", 13);
    put(&b, "t\0\0\0", 4);
    struct etl_event ev = event_of(b.b, b.n, 0x0303, 3, ETL_KIND_SYSTEM64);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.pid, 2000);
    ck_assert(r.has & PR_DTB);
    ck_assert(!(r.has & (PR_FLAGS | PR_PACKAGE)));
    ck_assert_str_eq(image_of(&r), "taskhost.exe");
    ck_assert_str_eq(utf8_of(&r.cmdline), "t");
    /* Version 2, 32-bit: no DirectoryTableBase; SID at 0x14. */
    struct buf c = { { 0 }, 0 };
    put32(&c, 0x81234560u);
    put32(&c, 2004);
    put32(&c, 600);
    put32(&c, 0);
    put32(&c, 0);
    put_sid18(&c, 4);
    put(&c, "v.exe", 6);
    put(&c, "\0\0", 2);
    ev = event_of(c.b, c.n, 0x0301, 2, ETL_KIND_SYSTEM32);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.pid, 2004);
    ck_assert(!(r.has & PR_DTB));
    ck_assert_str_eq(image_of(&r), "v.exe");
    /* Version 1: PageDirectoryBase first, no command line. */
    struct buf d = { { 0 }, 0 };
    put32(&d, 0x1000u);
    put32(&d, 2008);
    put32(&d, 4);
    put32(&d, 0);
    put32(&d, 0);
    put32(&d, 0);                     /* no SID */
    put(&d, "x.exe", 6);
    ev = event_of(d.b, d.n, 0x0302, 1, ETL_KIND_SYSTEM32);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.pid, 2008);
    ck_assert(!(r.has & PR_CMDLINE));
    /* Version 0: pointer-sized ProcessId and ParentId, then SID and image. */
    struct buf e = { { 0 }, 0 };
    put64(&e, 2012);
    put64(&e, 8);
    put32(&e, 0);
    put(&e, "y.exe", 6);
    ev = event_of(e.b, e.n, 0x0301, 0, ETL_KIND_SYSTEM64);
    ck_assert_int_eq(decode_process(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.pid, 2012);
    ck_assert_uint_eq(r.parent_id, 8);
    ck_assert_str_eq(image_of(&r), "y.exe");
}
END_TEST

START_TEST(thread_v3_dcstart_idle)
{
    struct etl_event ev = event_of(idle_thread, sizeof idle_thread, 0x0503, 3, ETL_KIND_SYSTEM64);
    struct etl_thread_rec r;
    size_t at;
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.op, ETL_PT_DCSTART);
    ck_assert_uint_eq(r.pid, 0);
    ck_assert_uint_eq(r.tid, 0);
    ck_assert(r.stack_base == 0xFFFFF80619B22000ull);
    ck_assert(r.stack_limit == 0xFFFFF80619B1B000ull);
    ck_assert(r.start_addr == 1); /* the Affinity of CPU 0's idle thread */
    ck_assert(r.win32_start_addr == 0xFFFFF8061DA252A0ull);
    ck_assert_uint_eq(r.page_priority, 5);
    ck_assert(r.has & TR_NAME);
    ck_assert_str_eq(utf8_of(&r.name), "Idle Thread");
    /* Windows 7 and 8 records end after ThreadFlags: 72 bytes, no name. */
    ev.data_len = 72;
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert(!(r.has & TR_NAME));
    /* One byte past the fixed part cannot be a name. */
    ev.data_len = 73;
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_TRAILING);
    ck_assert_uint_eq(at, 72);
    /* A name without its terminator. */
    ev.data_len = 94;
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_BAD_STRING);
    ck_assert_uint_eq(r.tid, 0);
    for (size_t n = 0; n < 72; n++) {
        ev.data_len = (uint32_t)n;
        ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_SHORT);
    }
}
END_TEST

START_TEST(thread_v3_start_and_setname)
{
    struct etl_event ev = event_of(thread_start, sizeof thread_start, 0x0501, 3,
                                   ETL_KIND_SYSTEM64);
    struct etl_thread_rec r;
    size_t at;
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.op, ETL_PT_START);
    ck_assert_uint_eq(r.pid, 7608);
    ck_assert_uint_eq(r.tid, 7780);
    ck_assert_uint_eq(r.base_priority, 8);
    ck_assert_uint_eq(r.io_priority, 2);
    ck_assert(r.has & TR_NAME);
    ck_assert_uint_eq(r.name.len, 0);
    ck_assert(r.start_addr == 0x0FFFFFFFu); /* Affinity: 28 processors */
    ck_assert(r.win32_start_addr == 0x7FFCCCE9B4A0ull);
    ck_assert(r.teb_base == 0x83A851E000ull);
    ev = event_of(set_name, sizeof set_name, 0x0548, 2, ETL_KIND_PERFINFO64);
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.op, ETL_PT_SETNAME);
    ck_assert_uint_eq(r.pid, 7608);
    ck_assert_uint_eq(r.tid, 3084);
    ck_assert_str_eq(utf8_of(&r.name), ".NET Finalizer");
    ev.data_len = 36;
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_BAD_STRING);
    ev.data_len = 7;
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_SHORT);
}
END_TEST

START_TEST(thread_other_layouts)
{
    struct etl_thread_rec r;
    size_t at;
    /* Version 3, 32-bit: seven 4-byte pointers, 44 bytes. */
    struct buf b = { { 0 }, 0 };
    put32(&b, 1234);
    put32(&b, 5678);
    for (int i = 0; i < 7; i++)
        put32(&b, 0x80000000u + (uint32_t)i);
    put32(&b, 0);
    put(&b, "\x0a\x05\x02\x00", 4);
    struct etl_event ev = event_of(b.b, b.n, 0x0502, 3, ETL_KIND_SYSTEM32);
    ck_assert_uint_eq(b.n, 44);
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.pid, 1234);
    ck_assert_uint_eq(r.tid, 5678);
    ck_assert(r.teb_base == 0x80000006u);
    ck_assert_uint_eq(r.base_priority, 10);
    /* Version 2, 32-bit: no priorities, 40 bytes. */
    ev = event_of(b.b, 40, 0x0501, 2, ETL_KIND_SYSTEM32);
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert(!(r.has & TR_PRIORITIES));
    /* Version 1: the End form is the two IDs; the other 33 bytes. */
    ev = event_of(b.b, 8, 0x0502, 1, ETL_KIND_SYSTEM32);
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.tid, 5678);
    ev = event_of(b.b, 33, 0x0501, 1, ETL_KIND_SYSTEM32);
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert(r.has & TR_STACKS);
    /* Version 0: TThreadId first. */
    ev = event_of(b.b, 8, 0x0501, 0, ETL_KIND_SYSTEM64);
    ck_assert_int_eq(decode_thread(&ev, &r, &at), ETL_PT_OK);
    ck_assert_uint_eq(r.tid, 1234);
    ck_assert_uint_eq(r.pid, 5678);
}
END_TEST

START_TEST(classify_hooks)
{
    enum etl_pt_op op;
    ck_assert_int_eq(etl_pt_classify(0x0301, &op), ETL_PT_PROCESS);
    ck_assert_int_eq(op, ETL_PT_START);
    ck_assert_int_eq(etl_pt_classify(0x0304, &op), ETL_PT_PROCESS);
    ck_assert_int_eq(op, ETL_PT_DCEND);
    ck_assert_int_eq(etl_pt_classify(0x0327, &op), ETL_PT_PROCESS);
    ck_assert_int_eq(op, ETL_PT_DEFUNCT);
    ck_assert_int_eq(etl_pt_classify(0x0321, &op), ETL_PT_PROCESS);
    ck_assert_int_eq(op, ETL_PT_PERFCTR);
    ck_assert_int_eq(etl_pt_classify(0x0503, &op), ETL_PT_THREAD);
    ck_assert_int_eq(op, ETL_PT_DCSTART);
    ck_assert_int_eq(etl_pt_classify(0x0548, &op), ETL_PT_THREAD);
    ck_assert_int_eq(op, ETL_PT_SETNAME);
    ck_assert_int_eq(etl_pt_classify(0x0524, &op), ETL_PT_NONE);
    ck_assert_int_eq(etl_pt_classify(0x0532, &op), ETL_PT_NONE);
    ck_assert_int_eq(etl_pt_classify(0x030A, &op), ETL_PT_NONE);
    ck_assert_int_eq(etl_pt_classify(0x1401, &op), ETL_PT_NONE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("process");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, process_v4_dcstart_fontdrvhost);
    tcase_add_test(tc, process_v4_start_conhost);
    tcase_add_test(tc, process_v5_defunct);
    tcase_add_test(tc, process_v4_packaged);
    tcase_add_test(tc, process_damage);
    tcase_add_test(tc, process_32bit_and_zero_sid);
    tcase_add_test(tc, process_older_versions);
    tcase_add_test(tc, thread_v3_dcstart_idle);
    tcase_add_test(tc, thread_v3_start_and_setname);
    tcase_add_test(tc, thread_other_layouts);
    tcase_add_test(tc, classify_hooks);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
