/*
 * cutseeds.c - cuts seed inputs for the fuzz targets out of traces read in
 * place (the real traces of ../shared/samples/real, the bundled samples, traces
 * made by build/mktrace), so that nothing of them is copied into the tree:
 * tests/fuzz.sh replays what it writes, and a fuzzing run takes it as a
 * second corpus directory.
 *
 * Usage: cutseeds OUTDIR TRACE...
 * Writes OUTDIR/TARGET/NAME-N for each trace, NAME being the trace's file
 * name without ".etl":
 *   fuzz_file     the trace (or, when it is larger than 64 KiB, its first
 *                 buffers up to 64 KiB) behind each selector byte of the
 *                 target's table (0 .. FILE_RUNS-1); a larger trace also
 *                 whole, behind the selectors of its position among the
 *                 traces given (i, i + 13, i + 26);
 *   fuzz_export   the trace, or its first buffers up to 64 KiB;
 *   fuzz_header   whole uncompressed buffers (the first eight);
 *   fuzz_lz77     compressed buffers, their decompressed size in front;
 *   fuzz_lznt1    the LZNT1 data of WinSAT events, their UncompressedLength
 *                 in front;
 *   fuzz_logfile  the logfile header event's data, behind the byte that
 *                 says SYSTEM64 or SYSTEM32 (format.md §4);
 *   fuzz_cswitch  CSwitch payloads (HookId 0x0524) behind their version;
 *   fuzz_batch    compact batch payloads (HookId 0x0525) behind a byte;
 *   fuzz_kfields  payloads of kernel events (one per HookId and version)
 *                 behind fuzz_kfields's header: kind, HookId, version;
 *                 one event per class and opcode of the classes known by
 *                 GUID (SysConfigEx, ImageID, WinSAT, ...); and, made here (gen-pt-N), Process and Thread events of
 *                 versions 0-5;
 *   fuzz_tracelogging
 *                 events with extended data items (the TraceLogging
 *                 schema) behind the kind byte and the items' length;
 *                 and, made here (gen-tl-N), an event per in-type in
 *                 each kind of array and with each OutType, structures,
 *                 damaged UTF-8;
 *   fuzz_metadata EventMetadata events (a TRACE_EVENT_INFO) and the chunks
 *                 of EventSource manifest events, behind the byte that
 *                 says which and their length; and, made here
 *                 (gen-manifest-N), manifests of every in-type, lengths
 *                 and counts by number and by name, structures, damage,
 *                 names to escape; the first also cut into chunks.
 * Returns 0, or 1 when an output could not be written. A trace that cannot
 * be read is skipped with a message.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode/kfields.h"
#include "etl/etl.h"
#include "fuzz_file.h"

/* The entries of the table `runs` in fuzz_file.c. */
#define FILE_RUNS FUZZ_FILE_RUNS
#define CUT_MAX 65536u
#define BUF_HDR 0x48u
#define FLAG_COMPRESSED 0x0040u

static const char *outdir;
static int failed;

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Writes a seed: head (nhead bytes) then body (n bytes). */
static void put(const char *target, const char *name, unsigned k, const void *head, size_t nhead,
                const void *body, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, target);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cutseeds: %s: %s\n", path, strerror(errno));
        failed = 1;
        return;
    }
    snprintf(path, sizeof path, "%s/%s/%s-%u", outdir, target, name, k);
    FILE *fp = fopen(path, "wb");
    if (!fp || (nhead && fwrite(head, 1, nhead, fp) != nhead) ||
        (n && fwrite(body, 1, n, fp) != n) || fclose(fp) != 0) {
        fprintf(stderr, "cutseeds: %s: cannot write\n", path);
        failed = 1;
    }
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, r;
    do {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
            if (!nb) {
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = nb;
        }
        r = fread(buf + len, 1, cap - len, fp);
        len += r;
    } while (r > 0);
    fclose(fp);
    *n = len;
    return buf;
}

/* The events of one trace. */
struct cut {
    const char *name;
    unsigned ncsw, nbatch, nlog, nkf, ntl, nmeta, nlznt1;
    uint32_t kseen[512];      /* kind << 24 | version << 16 | HookId, seen */
    unsigned nkseen;
};

static bool on_event(void *ctx, const struct etl_event *ev)
{
    struct cut *c = ctx;
    uint8_t h[4];
    bool kernel = ev->kind <= ETL_KIND_PERFINFO64 && (ev->flags & ETL_EV_HOOK);
    if (kernel && ev->hook_id == 0x0000 && c->nlog < 2) {
        h[0] = ev->kind == ETL_KIND_SYSTEM64 || ev->kind == ETL_KIND_PERFINFO64 ? 1 : 0;
        put("fuzz_logfile", c->name, c->nlog++, h, 1, ev->data, ev->data_len);
    }
    if (kernel && ev->hook_id == 0x0524 && c->ncsw < 8) {
        h[0] = (uint8_t)ev->version;
        put("fuzz_cswitch", c->name, c->ncsw++, h, 1, ev->data, ev->data_len);
    }
    if (kernel && ev->hook_id == 0x0525 && c->nbatch < 8) {
        h[0] = (uint8_t)c->nbatch;
        put("fuzz_batch", c->name, c->nbatch++, h, 1, ev->data, ev->data_len);
    }
    if (kernel && c->nkseen < 512 && c->nkf < 200 &&
        (ev->kind == ETL_KIND_PERFINFO64 || ev->kind == ETL_KIND_PERFINFO32 ||
         ev->kind == ETL_KIND_SYSTEM64)) {
        uint32_t key = (uint32_t)ev->kind << 24 | (uint32_t)(ev->version & 0xFF) << 16 | ev->hook_id;
        unsigned i = 0;
        while (i < c->nkseen && c->kseen[i] != key)
            i++;
        if (i == c->nkseen) {
            c->kseen[c->nkseen++] = key;
            h[0] = ev->kind == ETL_KIND_PERFINFO64 ? 0 : ev->kind == ETL_KIND_PERFINFO32 ? 1 : 2;
            h[1] = (uint8_t)ev->hook_id;
            h[2] = (uint8_t)(ev->hook_id >> 8);
            h[3] = (uint8_t)ev->version;
            put("fuzz_kfields", c->name, c->nkf++, h, 4, ev->data, ev->data_len);
        }
    }
    if ((ev->kind == ETL_KIND_FULL64 || ev->kind == ETL_KIND_FULL32) && c->nkseen < 512 &&
        c->nkf < 200) {
        /* The classes known by GUID (SysConfigEx, ImageID, WinSAT, ...): one
         * event per class and opcode; byte 0's bits 2-6 pick the class. */
        for (size_t g = 0; g < etl_nkguids; g++) {
            if (memcmp(etl_kguids[g].guid, ev->guid, 16) != 0)
                continue;
            uint32_t key = 0x80000000u | (uint32_t)g << 8 | ev->opcode;
            unsigned i = 0;
            while (i < c->nkseen && c->kseen[i] != key)
                i++;
            if (i < c->nkseen)
                break;
            c->kseen[c->nkseen++] = key;
            h[0] = (uint8_t)(3u | g << 2);
            h[1] = ev->opcode;
            h[2] = 0;
            h[3] = (uint8_t)ev->version;
            put("fuzz_kfields", c->name, c->nkf++, h, 4, ev->data, ev->data_len);
            /* WinSAT's compressed XML, its size in front, for fuzz_lznt1. */
            if (etl_kguids[g].group == ETL_KG_WINSAT && ev->data_len > 8) {
                uint8_t z[3] = { ev->data[4], ev->data[5], ev->data[6] };
                put("fuzz_lznt1", c->name, c->nlznt1++, z, 3, ev->data + 8, ev->data_len - 8);
            }
            break;
        }
    }
    if ((ev->kind == ETL_KIND_EVENT_HEADER64 || ev->kind == ETL_KIND_EVENT_HEADER32) &&
        ev->ext_items && ev->ext_items_len <= 0xFFFF && c->ntl < 40) {
        uint8_t *b = malloc((size_t)ev->ext_items_len + ev->data_len + 1);
        if (b) {
            h[0] = ev->kind == ETL_KIND_EVENT_HEADER32 ? 1 : 0;
            h[1] = (uint8_t)ev->ext_items_len;
            h[2] = (uint8_t)(ev->ext_items_len >> 8);
            memcpy(b, ev->ext_items, ev->ext_items_len);
            if (ev->data_len)
                memcpy(b + ev->ext_items_len, ev->data, ev->data_len);
            put("fuzz_tracelogging", c->name, c->ntl++, h, 3, b,
                (size_t)ev->ext_items_len + ev->data_len);
            free(b);
        }
    }
    /* KernelTraceControl EventMetadata (format.md §20). */
    static const uint8_t meta_guid[16] = { 0xc1, 0xf6, 0xcc, 0xbb, 0xd1, 0x6c, 0xc4, 0x48,
                                           0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 };
    bool p4 = ev->ptr_size == 4;
    if (c->nmeta < 40 && (ev->flags & ETL_EV_GUID) && ev->opcode == 32 &&
        memcmp(ev->guid, meta_guid, 16) == 0 && ev->data_len <= 0xFFFF) {
        h[0] = p4 ? 2 : 0;
        h[1] = (uint8_t)ev->data_len;
        h[2] = (uint8_t)(ev->data_len >> 8);
        put("fuzz_metadata", c->name, c->nmeta++, h, 3, ev->data, ev->data_len);
    }
    /* An EventSource manifest chunk after its 8-byte envelope. */
    if (c->nmeta < 40 && (ev->flags & ETL_EV_EVENT_ID) && ev->event_id == 65534 &&
        ev->opcode == 254 && ev->data_len > 8 && ev->data_len - 8 <= 0xFFFF) {
        uint32_t n = ev->data_len - 8;
        h[0] = p4 ? 3 : 1;
        h[1] = (uint8_t)n;
        h[2] = (uint8_t)(n >> 8);
        put("fuzz_metadata", c->name, c->nmeta++, h, 3, ev->data + 8, n);
    }
    return true;
}

/* ---- generated TraceLogging events (format.md §19) ------------------------------ */

struct tl {
    uint8_t schema[512];
    size_t n;
    unsigned k;
};

static void tl_begin(struct tl *t, bool ext)
{
    t->n = 2;
    if (ext)
        t->schema[t->n++] = 0x80; /* an extension byte with another after it */
    t->schema[t->n++] = 0x00;
    memcpy(t->schema + t->n, "Ev", 3);
    t->n += 3;
}

/* A field: its name, InType (with its flags), OutType when out >= 0, a
 * count for a constant-count array, type info for a custom one. */
static void tl_field(struct tl *t, const char *name, unsigned in, int out, unsigned count)
{
    size_t l = strlen(name) + 1;
    memcpy(t->schema + t->n, name, l);
    t->n += l;
    t->schema[t->n++] = (uint8_t)(in | (out >= 0 ? 0x80u : 0u));
    if (out >= 0)
        t->schema[t->n++] = (uint8_t)out;
    if ((in & 0x60u) == 0x20u || (in & 0x60u) == 0x60u) {
        t->schema[t->n++] = (uint8_t)count;
        t->schema[t->n++] = (uint8_t)(count >> 8);
        if ((in & 0x60u) == 0x60u)
            for (unsigned i = 0; i < count; i++)
                t->schema[t->n++] = (uint8_t)(0xA0u + i);
    }
}

/* Writes the event: provider traits and schema items, then the payload. */
static void tl_put(struct tl *t, bool ptr32, const uint8_t *pay, size_t npay)
{
    static const uint8_t traits[4] = { 4, 0, 'P', 0 };
    uint8_t b[1024];
    size_t n = 0;
    t->schema[0] = (uint8_t)t->n;
    t->schema[1] = (uint8_t)(t->n >> 8);
    const uint8_t *data[2] = { traits, t->schema };
    size_t len[2] = { sizeof traits, t->n };
    for (unsigned i = 0; i < 2; i++) {
        size_t total = (8 + len[i] + 7) & ~(size_t)7;
        uint16_t type = i ? 11 : 12, link = i ? 0 : 1;
        uint8_t h[8] = { (uint8_t)total, (uint8_t)(total >> 8), (uint8_t)type, 0,
                         (uint8_t)link, 0, (uint8_t)len[i], (uint8_t)(len[i] >> 8) };
        memcpy(b + n, h, 8);
        memcpy(b + n + 8, data[i], len[i]);
        memset(b + n + 8 + len[i], 0, total - 8 - len[i]);
        n += total;
    }
    uint8_t head[3] = { ptr32 ? 1 : 0, (uint8_t)n, (uint8_t)(n >> 8) };
    memcpy(b + n, pay, npay);
    put("fuzz_tracelogging", "gen-tl", t->k++, head, 3, b, n + npay);
}

static void tl_seeds(void)
{
    /* A count of 2, then bytes every in-type can read some of: a short
     * UTF-16 and 8-bit string, integers, a NaN and an infinity. */
    static const uint8_t pay[48] = {
        0x02, 0x00, 0x61, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
        0x07, 0x08, 0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x80, 0x7F, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0xF8, 0x7F, 0x41, 0x42, 0x00, 0x00, 0x11, 0x22,
        0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE };
    /* A SID (S-1-5-18), a UTF-8 string with a bad byte, a SYSTEMTIME. */
    static const uint8_t sid[12] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const uint8_t utf8[8] = { 'a', 0xC3, 0xA9, 0xFF, 0xE2, 0x82, 0xAC, 0 };
    static const uint8_t systime[16] = { 0xE8, 0x07, 11, 0, 1, 0, 23, 0, 12, 0, 30, 0, 15, 0, 0x10, 0 };
    static const int outs[] = { 2, 3, 4, 7, 8, 9, 37, 35 };
    struct tl t;
    memset(&t, 0, sizeof t);
    for (unsigned in = 1; in <= 25; in++) {
        if (in == 24)
            continue;
        const uint8_t *p = in == 19 ? sid : in == 18 ? systime : pay;
        size_t np = in == 19 ? sizeof sid : in == 18 ? sizeof systime : sizeof pay;
        for (unsigned mode = 0; mode < 4; mode++) {
            tl_begin(&t, mode == 3);
            tl_field(&t, "f", in | (mode == 1 ? 0x20u : mode == 2 ? 0x40u : mode == 3 ? 0x60u : 0u),
                     -1, mode == 1 ? 2 : mode == 3 ? 3 : 0);
            tl_put(&t, in == 16 && mode == 0, p, np);
        }
        for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
            tl_begin(&t, false);
            tl_field(&t, "f", in, outs[o], 0);
            tl_field(&t, "g", in | 0x40u, outs[o], 0);
            tl_put(&t, false, p, np);
        }
    }
    /* 8-bit strings in UTF-8 with damage; structures, alone and in arrays;
     * an OutType with an extension byte; a payload too short. */
    tl_begin(&t, false);
    tl_field(&t, "s", 2, 35, 0);
    tl_field(&t, "c", 23, -1, 0);
    tl_put(&t, false, utf8, sizeof utf8);
    for (unsigned a = 0; a < 3; a++) {
        tl_begin(&t, false);
        tl_field(&t, "st", 24 | (a == 1 ? 0x20u : a == 2 ? 0x40u : 0u), 2, a == 1 ? 2 : 0);
        tl_field(&t, "a", 7, -1, 0);
        tl_field(&t, "b", 24, 1, 0);
        tl_field(&t, "c", 2, -1, 0);
        tl_field(&t, "d", 15, -1, 0);
        tl_put(&t, false, pay, sizeof pay);
    }
    tl_begin(&t, false);
    tl_field(&t, "x", 8, 0x84, 0);
    t.schema[t.n++] = 0x00; /* the OutType's extension byte */
    tl_field(&t, "y", 12, -1, 0);
    tl_put(&t, false, pay, 6);
}

/* Process and Thread events of every version for fuzz_kfields (SYSTEM64
 * and PERFINFO32 headers: 64- and 32-bit pointers): a pattern of fields,
 * then a SID and strings. */
static void pt_seeds(void)
{
    static const uint16_t hooks[] = { 0x0301, 0x0302, 0x0303, 0x0304, 0x030B, 0x0327,
                                      0x0501, 0x0502, 0x0503, 0x0504, 0x0548 };
    uint8_t pay[160];
    for (size_t i = 0; i < sizeof pay; i++)
        pay[i] = (uint8_t)(i * 7u + 1u);
    /* A SID (TOKEN_USER, then S-1-5-18) at 48, strings after it. */
    static const uint8_t sid[28] = { 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    unsigned k = 0;
    for (size_t h = 0; h < sizeof hooks / sizeof hooks[0]; h++)
        for (unsigned v = 0; v <= 5; v++)
            for (unsigned kind = 1; kind <= 2; kind++) {
                uint8_t p[sizeof pay];
                memcpy(p, pay, sizeof p);
                memcpy(p + 48, sid, sizeof sid);
                memcpy(p + 76, "a.exe", 6);
                memcpy(p + 82, "c\0m\0d\0\0\0", 8);
                size_t n = v & 1u ? sizeof p : 96;
                uint8_t head[4] = { (uint8_t)kind, (uint8_t)hooks[h], (uint8_t)(hooks[h] >> 8),
                                    (uint8_t)v };
                put("fuzz_kfields", "gen-pt", k++, head, 4, p, n);
            }
}

/* EventSource manifests made here for fuzz_metadata (format.md §20):
 * templates of every in-type, lengths and counts given as numbers and as
 * earlier fields' names, structures, events with and without a task. */
static void manifest_seeds(void)
{
    static const char *const manifests[] = {
        "<instrumentationManifest><instrumentation><events>"
        "<provider name=\"Gen-Provider\" guid=\"{11223344-5566-7788-99aa-bbccddeeff00}\">"
        "<events>"
        "<event value=\"1\" version=\"0\" task=\"Work\" opcode=\"Start\" template=\"T1\"/>"
        "<event value=\"2\" version=\"1\" symbol=\"Second\" template=\"T2\"/>"
        "<event value=\"3\" version=\"0\" task=\"Work\" template=\"T3\"/>"
        "<event value=\"4\" symbol=\"NoTemplate\"/>"
        "<event value=\"5\" version=\"0\" template=\"Missing\"/>"
        "</events><templates>"
        "<template tid=\"T1\">"
        "<data name=\"s\" inType=\"win:UnicodeString\"/>"
        "<data name=\"a\" inType=\"win:AnsiString\" outType=\"xs:string\"/>"
        "<data name=\"i8\" inType=\"win:Int8\"/><data name=\"u8\" inType=\"win:UInt8\" outType=\"win:HexInt8\"/>"
        "<data name=\"i16\" inType=\"win:Int16\"/><data name=\"u16\" inType=\"win:UInt16\" outType=\"win:Port\"/>"
        "<data name=\"i32\" inType=\"win:Int32\"/><data name=\"u32\" inType=\"win:UInt32\" outType=\"win:IPv4\"/>"
        "<data name=\"i64\" inType=\"win:Int64\"/><data name=\"u64\" inType=\"win:UInt64\" outType=\"win:HexInt64\"/>"
        "<data name=\"f\" inType=\"win:Float\"/><data name=\"d\" inType=\"win:Double\"/>"
        "<data name=\"b\" inType=\"win:Boolean\"/><data name=\"g\" inType=\"win:GUID\"/>"
        "<data name=\"p\" inType=\"win:Pointer\"/><data name=\"ft\" inType=\"win:FILETIME\"/>"
        "<data name=\"st\" inType=\"win:SYSTEMTIME\"/><data name=\"h32\" inType=\"win:HexInt32\"/>"
        "<data name=\"h64\" inType=\"win:HexInt64\"/>"
        "</template>"
        "<template tid=\"T2\">"
        "<data name=\"n\" inType=\"win:UInt16\"/>"
        "<data name=\"bin\" inType=\"win:Binary\" length=\"n\"/>"
        "<data name=\"fix\" inType=\"win:Binary\" length=\"4\" outType=\"win:IPv6\"/>"
        "<data name=\"arr\" inType=\"win:UInt32\" count=\"n\"/>"
        "<data name=\"arr2\" inType=\"win:Int16\" count=\"2\"/>"
        "<struct name=\"pair\" count=\"2\"><data name=\"x\" inType=\"win:Int32\"/>"
        "<data name=\"y\" inType=\"win:UnicodeString\"/></struct>"
        "<data name=\"cs\" inType=\"win:CountedUnicodeString\"/>"
        "<data name=\"ca\" inType=\"win:CountedAnsiString\"/>"
        "<data name=\"cb\" inType=\"win:CountedBinary\"/>"
        "<data name=\"sid\" inType=\"win:SID\"/>"
        "<data name=\"bad\" inType=\"win:Nothing\"/>"
        "</template>"
        "<template tid=\"T3\"><data name=\"c\" inType=\"win:UInt8\" count=\"nope\"/>"
        "<data name=\"l\" inType=\"win:AnsiString\" length=\"99999\"/></template>"
        "</templates></provider></events></instrumentation></instrumentationManifest>",
        "<instrumentationManifest><instrumentation><events>"
        "<provider name=\"Gen-Broken\" guid=\"not-a-guid\"><events>"
        "<event value=\"x\"/><event value=\"70000\" version=\"300\"/></events>"
        "</provider></events></instrumentation></instrumentationManifest>",
        "<instrumentationManifest><unclosed>",
        /* Names every printer must escape: quotes, a backslash, controls,
         * characters past ASCII. */
        "<instrumentationManifest><instrumentation><events>"
        "<provider name=\"Gen-&quot;Odd&quot;\" guid=\"{11223344-5566-7788-99aa-bbccddeeff01}\">"
        "<events><event value=\"2\" version=\"1\" template=\"T\"/></events><templates>"
        "<template tid=\"T\"><data name=\"q&quot;b\\\\c\" inType=\"win:UInt8\"/>"
        "<data name=\"tab&#9;nl&#10;cr&#13;\" inType=\"win:UInt8\"/>"
        "<data name=\"caf\xC3\xA9 \xE2\x82\xAC &lt;&amp;&gt;\" inType=\"win:UInt8\"/>"
        "</template></templates></provider></events></instrumentation></instrumentationManifest>",
    };
    uint8_t pay[96];
    for (size_t i = 0; i < sizeof pay; i++)
        pay[i] = i < 8 ? (uint8_t)"a\0b\0\0\0x\0"[i] : (uint8_t)(i * 13u + 2u);
    pay[8] = 2; /* a small count or length where one is read */
    pay[9] = 0;
    unsigned k = 0;
    for (size_t m = 0; m < sizeof manifests / sizeof manifests[0]; m++)
        for (unsigned ptr32 = 0; ptr32 <= 1; ptr32++) {
            size_t n = strlen(manifests[m]);
            uint8_t *b = malloc(n + sizeof pay);
            if (!b)
                return;
            memcpy(b, manifests[m], n);
            memcpy(b + n, pay, sizeof pay);
            uint8_t head[3] = { (uint8_t)(1u | (ptr32 ? 2u : 0u)), (uint8_t)n, (uint8_t)(n >> 8) };
            put("fuzz_metadata", "gen-manifest", k++, head, 3, b, n + sizeof pay);
            /* The first manifest also cut into chunks: 3 in order, 4 with
             * the second first, 2 from nine providers, 3 with a wrong total. */
            static const uint8_t chunked[4] = { 2u << 2, (3u << 2) | 0x20u, (1u << 2) | 0x40u,
                                                (2u << 2) | 0x80u };
            for (size_t c = 0; m == 0 && c < sizeof chunked; c++) {
                head[0] = (uint8_t)(1u | (ptr32 ? 2u : 0u) | chunked[c]);
                put("fuzz_metadata", "gen-manifest", k++, head, 3, b, n + sizeof pay);
            }
            free(b);
        }
}

static void cut_trace(const char *path, unsigned index)
{
    size_t n = 0;
    uint8_t *d = slurp(path, &n);
    if (!d) {
        fprintf(stderr, "cutseeds: %s: cannot read: %s\n", path, strerror(errno));
        return;
    }
    char name[256];
    const char *base = strrchr(path, '/');
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    size_t nl = strlen(name);
    if (nl > 4 && strcmp(name + nl - 4, ".etl") == 0)
        name[nl - 4] = '\0';

    /* Buffers: the first up to CUT_MAX bytes, whole buffers of each kind. */
    size_t first = 0, off = 0;
    unsigned nhdr = 0, nlz = 0;
    while (off + BUF_HDR <= n) {
        uint32_t size = le32(d + off), saved = le32(d + off + 4);
        if (size < BUF_HDR || size > n - off)
            break;
        uint16_t flag = (uint16_t)(d[off + 0x34] | d[off + 0x35] << 8);
        if (flag & FLAG_COMPRESSED) {
            if (nlz < 8 && saved > BUF_HDR && saved - BUF_HDR <= 0xFFFFFu) {
                uint32_t out = saved - BUF_HDR;
                uint8_t h[3] = { (uint8_t)out, (uint8_t)(out >> 8), (uint8_t)(out >> 16) };
                put("fuzz_lz77", name, nlz++, h, 3, d + off + BUF_HDR, size - BUF_HDR);
            }
        } else if (nhdr < 8) {
            put("fuzz_header", name, nhdr++, NULL, 0, d + off, size);
        }
        if (off + size <= CUT_MAX)
            first = off + size;
        off += size;
    }
    if (first == 0)
        first = n < CUT_MAX ? n : CUT_MAX;
    size_t small = n <= CUT_MAX ? n : first;
    for (unsigned s = 0; s < FILE_RUNS; s++) {
        uint8_t sel = (uint8_t)s;
        put("fuzz_file", name, s, &sel, 1, d, small);
    }
    if (n > CUT_MAX)
        for (unsigned j = 0; j < 3; j++) {
            uint8_t sel = (uint8_t)((index + 13 * j) % FILE_RUNS);
            put("fuzz_file", name, FILE_RUNS + j, &sel, 1, d, n);
        }
    put("fuzz_export", name, 0, NULL, 0, d, small);

    /* Events: payloads for the decoders' targets. */
    enum etl_open_status st;
    struct etl_file *f = etl_open_mem(d, n, path, NULL, &st);
    if (f) {
        struct cut c;
        memset(&c, 0, sizeof c);
        c.name = name;
        etl_walk_file(f, on_event, &c);
        etl_close(f);
    }
    free(d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: cutseeds OUTDIR TRACE...\n");
        return 2;
    }
    outdir = argv[1];
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cutseeds: %s: %s\n", outdir, strerror(errno));
        return 1;
    }
    for (int i = 2; i < argc; i++)
        cut_trace(argv[i], (unsigned)(i - 2));
    tl_seeds();
    pt_seeds();
    manifest_seeds();
    return failed;
}
