/*
 * loggerctx.c - the --logger-context view. The row's columns follow the
 * fields of decode/loggerctx.c in the order of format.md §13.2 (a UNICODE_STRING gives
 * _length, _maximum_length and _buffer, a LIST_ENTRY _flink and _blink, an
 * RTL_BITMAP _size and _buffer), after file, offset, windows, arch and size;
 * logger_mode, clock_type, flags and request_flag are followed by their
 * names. Fields the chosen version does not have are left out of the row.
 */
#include "view/loggerctx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/modes.h"
#include "fmt.h"

#define LC_MAX_COLS 160

/* Extra columns. */
enum { X_FILE, X_OFFSET, X_WINDOWS, X_ARCH, X_SIZE, X_MODE_NAMES, X_CLOCK_NAME,
       X_FLAGS_NAMES, X_SYSTEM_LOGGER_INDEX, X_REQUEST_NAMES, X_COUNT };

struct lc_table {
    struct etl_column cols[LC_MAX_COLS];
    struct etl_table t;
    uint16_t first[LC_FIELD_COUNT];  /* a field's first column */
    uint16_t extra[X_COUNT];
    char pool[4096];                  /* generated column names */
    size_t used;
    bool built;
};

static struct lc_table tables[ETL_ARCH_COUNT];

/* Adds a column named base + suffix; returns its index. */
static uint16_t add_col(struct lc_table *lt, const char *base, const char *suffix,
                        enum etl_col_type type)
{
    size_t i = lt->t.ncols++;
    const char *name = base;
    if (suffix) {
        size_t n = strlen(base) + strlen(suffix) + 1;
        if (lt->used + n <= sizeof lt->pool) {
            char *dst = lt->pool + lt->used;
            snprintf(dst, n, "%s%s", base, suffix);
            lt->used += n;
            name = dst;
        }
    }
    lt->cols[i].name = name;
    lt->cols[i].type = type;
    lt->cols[i].width = 0;
    lt->cols[i].text_hidden = false;
    return (uint16_t)i;
}

static const struct etl_table *build(enum etl_arch arch)
{
    struct lc_table *lt = &tables[arch];
    if (lt->built)
        return &lt->t;
    enum etl_col_type ptr = arch == ETL_ARCH_X64 ? ETL_COL_HEX64 : ETL_COL_HEX32;
    lt->t.name = "logger_context";
    lt->t.cols = lt->cols;
    lt->t.ncols = 0;
    lt->t.vertical = true;
    lt->extra[X_FILE] = add_col(lt, "file", NULL, ETL_COL_STR);
    lt->extra[X_OFFSET] = add_col(lt, "offset", NULL, ETL_COL_HEX32);
    lt->extra[X_WINDOWS] = add_col(lt, "windows", NULL, ETL_COL_NAME);
    lt->extra[X_ARCH] = add_col(lt, "arch", NULL, ETL_COL_NAME);
    lt->extra[X_SIZE] = add_col(lt, "size", NULL, ETL_COL_HEX16);
    for (size_t i = 0; i < LC_FIELD_COUNT; i++) {
        const struct etl_lc_field *f = &etl_lc_fields[i];
        switch (f->type) {
        case LC_U32:
        case LC_U64:
            lt->first[i] = add_col(lt, f->column, NULL, ETL_COL_UINT);
            break;
        case LC_I32:
        case LC_I64:
            lt->first[i] = add_col(lt, f->column, NULL, ETL_COL_INT);
            break;
        case LC_HEX32:
            lt->first[i] = add_col(lt, f->column, NULL, ETL_COL_HEX32);
            break;
        case LC_PTR:
            lt->first[i] = add_col(lt, f->column, NULL, ptr);
            break;
        case LC_GUID:
            lt->first[i] = add_col(lt, f->column, NULL, ETL_COL_GUID);
            break;
        case LC_USTR:
            lt->first[i] = add_col(lt, f->column, "_length", ETL_COL_UINT);
            add_col(lt, f->column, "_maximum_length", ETL_COL_UINT);
            add_col(lt, f->column, "_buffer", ptr);
            break;
        case LC_LIST:
            lt->first[i] = add_col(lt, f->column, "_flink", ptr);
            add_col(lt, f->column, "_blink", ptr);
            break;
        case LC_BITMAP:
            lt->first[i] = add_col(lt, f->column, "_size", ETL_COL_UINT);
            add_col(lt, f->column, "_buffer", ptr);
            break;
        case LC_U32ARRAY:
        case LC_BYTES:
            lt->first[i] = add_col(lt, f->column, NULL, ETL_COL_NAME);
            break;
        }
        if (i == LC_LOGGER_MODE)
            lt->extra[X_MODE_NAMES] = add_col(lt, "logger_mode_names", NULL, ETL_COL_NAME);
        else if (i == LC_CLOCK_TYPE)
            lt->extra[X_CLOCK_NAME] = add_col(lt, "clock_type_name", NULL, ETL_COL_NAME);
        else if (i == LC_FLAGS) {
            lt->extra[X_FLAGS_NAMES] = add_col(lt, "flags_names", NULL, ETL_COL_NAME);
            lt->extra[X_SYSTEM_LOGGER_INDEX] =
                add_col(lt, "system_logger_index", NULL, ETL_COL_UINT);
        } else if (i == LC_REQUEST_FLAG)
            lt->extra[X_REQUEST_NAMES] =
                add_col(lt, "request_flag_names", NULL, ETL_COL_NAME);
    }
    lt->built = true;
    return &lt->t;
}

const struct etl_table *etl_table_logger_context(enum etl_arch arch)
{
    return build(arch);
}

bool etl_lc_spec_parse(const char *spec, char **path, uint64_t *offset)
{
    size_t n = strlen(spec);
    *offset = 0;
    const char *at = strrchr(spec, '@');
    uint64_t v;
    const char *end;
    if (at && etl_parse_u64(at + 1, &v, &end) && *end == '\0') {
        *offset = v;
        n = (size_t)(at - spec);
    }
    *path = malloc(n + 1);
    if (!*path)
        return false;
    memcpy(*path, spec, n);
    (*path)[n] = '\0';
    return true;
}

/* Reads up to n bytes at offset; returns the bytes read, or -1 (errno). */
static ssize_t read_at(int fd, uint8_t *buf, size_t n, uint64_t offset)
{
    size_t got = 0;
    while (got < n) {
        if (offset + got > (uint64_t)INT64_MAX)
            break;
        ssize_t k = pread(fd, buf + got, n - got, (off_t)(offset + got));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* Writes n bytes as lowercase hex into out (2n + 1 bytes). */
static void hex_bytes(const uint8_t *b, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 0xF];
    }
    out[2 * n] = '\0';
}

/* Writes the ULONGs of b (n bytes) as "%08x" words separated by spaces. */
static void hex_words(const uint8_t *b, size_t n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i + 4 <= n && len < cap; i += 4) {
        uint32_t w = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 |
                     (uint32_t)b[i + 2] << 16 | (uint32_t)b[i + 3] << 24;
        int k = snprintf(out + len, cap - len, "%s%08x", i ? " " : "", (unsigned)w);
        if (k < 0)
            break;
        len += (size_t)k;
    }
}

int etl_view_logger_context(struct etl_printer *p, const char *path, uint64_t offset,
                            enum etl_win win, enum etl_arch arch, char *err,
                            size_t cap)
{
    size_t size = etl_lc_size(win, arch);
    uint8_t buf[0x400];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, cap, "%s: %s", path, strerror(errno));
        return -2;
    }
    ssize_t got = read_at(fd, buf, size, offset);
    int e = errno;
    close(fd);
    if (got < 0) {
        snprintf(err, cap, "%s: offset 0x%llx: %s", path, (unsigned long long)offset,
                 strerror(e));
        return -2;
    }
    struct etl_logger_context lc;
    if (!etl_decode_logger_context(buf, (size_t)got, win, arch, &lc)) {
        snprintf(err, cap,
                 "%s: offset 0x%llx: too short for a Windows %s %s WMI_LOGGER_CONTEXT "
                 "(0x%zx bytes needed, 0x%zx present)", path,
                 (unsigned long long)offset, etl_win_name(win), etl_arch_name(arch),
                 size, (size_t)got);
        return -2;
    }

    const struct etl_table *t = build(arch);
    const struct lc_table *lt = &tables[arch];
    struct etl_value v[LC_MAX_COLS];
    memset(v, 0, sizeof v);
    /* Room for the strings of the row: every structure kept as bytes at
     * most doubles, the names of four flag words. */
    char text[4 * 0x400 + 4096];
    size_t used = 0;
    ETL_CELL_STR(v, lt->extra[X_FILE], path, true);
    ETL_CELL(v, lt->extra[X_OFFSET], u, offset, true);
    ETL_CELL_STR(v, lt->extra[X_WINDOWS], etl_win_name(win), true);
    ETL_CELL_STR(v, lt->extra[X_ARCH], etl_arch_name(arch), true);
    ETL_CELL(v, lt->extra[X_SIZE], u, size, true);
    for (size_t i = 0; i < LC_FIELD_COUNT; i++) {
        const struct etl_lc_cell *c = &lc.cell[i];
        size_t k = lt->first[i];
        if (!c->present)
            continue;
        switch (etl_lc_fields[i].type) {
        case LC_I32:
        case LC_I64:
            ETL_CELL(v, k, i, (int64_t)c->v[0], true);
            break;
        case LC_GUID:
            ETL_CELL(v, k, g, c->bytes, true);
            break;
        case LC_USTR:
            ETL_CELL(v, k, u, c->v[0], true);
            ETL_CELL(v, k + 1, u, c->v[1], true);
            ETL_CELL(v, k + 2, u, c->v[2], true);
            break;
        case LC_LIST:
        case LC_BITMAP:
            ETL_CELL(v, k, u, c->v[0], true);
            ETL_CELL(v, k + 1, u, c->v[1], true);
            break;
        case LC_U32ARRAY:
            hex_words(c->bytes, c->nbytes, text + used, 32);
            ETL_CELL_STR(v, k, text + used, true);
            used += strlen(text + used) + 1;
            break;
        case LC_BYTES:
            if (2 * c->nbytes + 1 > sizeof text - used)
                break;
            hex_bytes(c->bytes, c->nbytes, text + used);
            ETL_CELL_STR(v, k, text + used, true);
            used += 2 * c->nbytes + 1;
            break;
        default:
            ETL_CELL(v, k, u, c->v[0], true);
            break;
        }
    }
    char modes[2048], flags[1024], request[1024], clock[16];
    etl_logger_mode_str(lc.logger_mode, modes, sizeof modes);
    ETL_CELL_STR(v, lt->extra[X_MODE_NAMES], modes, true);
    const char *cn = etl_clock_type_full_name(lc.clock_type);
    if (!cn) {
        snprintf(clock, sizeof clock, "%u", (unsigned)lc.clock_type);
        cn = clock;
    }
    ETL_CELL_STR(v, lt->extra[X_CLOCK_NAME], cn, true);
    etl_lc_flags_str(win, lc.flags, flags, sizeof flags);
    ETL_CELL_STR(v, lt->extra[X_FLAGS_NAMES], flags, true);
    if (win >= ETL_WIN_62)
        ETL_CELL(v, lt->extra[X_SYSTEM_LOGGER_INDEX], u, ETL_LC_SYSTEM_LOGGER_INDEX(lc.flags),
                 true);
    etl_lc_request_flag_str(win, lc.request_flag, request, sizeof request);
    ETL_CELL_STR(v, lt->extra[X_REQUEST_NAMES], request, true);
    if (etl_print_begin_file(p, path) || etl_print_begin_table(p, t) ||
        etl_print_row(p, v) || etl_print_end_table(p) || etl_print_end_file(p))
        return -1;
    return 0;
}
