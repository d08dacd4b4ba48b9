/*
 * xml.c - one XML document for the whole run (doc/etldump.xsd describes it):
 *
 *   <?xml version="1.0" encoding="UTF-8"?>
 *   <etldump version="1">
 *     <file path="...">
 *       <trace .../>                 the trace-info row
 *       <switch .../> <event .../> <stat .../>   one empty element per row
 *       <problem offset="..." message="..."/>    where a problem was found
 *     </file>
 *   </etldump>
 *
 * Element names are table names and attribute names are column names, both
 * from etldump's own tables: data never becomes a name. A cell a row does not
 * carry is left out. Strings are cleaned of what XML 1.0 cannot hold before
 * they are escaped (xml_clean alone does this).
 *
 * The document is written with libxml2's xmlTextWriter through an
 * xmlOutputBuffer whose callback appends to the printer's etl_out; write
 * errors are seen through out->err. The declaration, <etldump>, <file> and
 * <problem> go through the writer element by element. Rows are the bulk of
 * the output: calling xmlTextWriterWriteAttribute for every cell cost 8-9
 * times the instructions of the CSV printer (half a dozen buffer appends per
 * attribute inside libxml2), so each row element is composed whole
 * (numbers as formatted, strings cleaned by xml_clean and escaped by
 * xml_escape exactly as libxml2 escapes attribute values; xmlrow.h writes
 * the attributes): in a reusable buffer handed on after what the writer
 * holds is flushed (xml_raw), or, when a row was the last thing written
 * and the writer holds nothing, straight into the output.
 */
#include "print/xmlrow.h"

#include <stdlib.h>

#include "fields.h"
#include "fmt.h"
#include "xmlapi.h"
#include "xmlsetup.h"

/* The version attribute of the root element (bump on incompatible changes). */
#define XML_FORMAT_VERSION "1"

/* Strings up to this many bytes after cleaning are cleaned on the stack. */
#define CLEAN_STACK 2048

/* Indentation of one level (as the writer is told to use). */
#define INDENT "  "
#define INDENT_LEN 2
_Static_assert(ETL_XML_ROW_INDENT_LEN == 2 * INDENT_LEN, "a row is two levels in");

/* The key of an attribute, ` name="`, in a slot copied whole (a fixed size
 * is a few moves); len 0: the name is too long for a slot. */
#define XML_KEY_SLOT ETL_XML_KEY_SLOT
#define XML_KEYS 64
struct xml_key {
    char s[XML_KEY_SLOT];
    size_t len;
};

struct xml_state {
    struct etl_xml_rows rows; /* first: what a table's own writer reads */
    xmlTextWriterPtr w;  /* NULL in a fork */
    struct etl_out row;  /* the row being composed (a memory output) */
    bool row_ok;         /* row is set up */
    char *val;           /* one field's value (ETL_COL_FIELDS) */
    size_t val_cap;
    const struct etl_table *keys_of; /* the table key[] describes */
    struct xml_key key[XML_KEYS];    /* its first columns' attribute keys */
    const struct xml_key *keyp[XML_KEYS]; /* each, or NULL when it has none */
    bool started;        /* the declaration and <etldump> are written */
    bool in_file;        /* a <file> element is open */
    bool tag_open;       /* the innermost open element's start tag lacks '>' */
    bool raw_last;       /* the last thing written was a raw row */
    bool finished;       /* the document is closed */
};

/* ---- cleaning and escaping strings -------------------------------------- */

/* Returns the length of the sequence at s if it is a character XML 1.0
 * allows (Char: TAB, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD,
 * U+10000-U+10FFFF), or 0 if it must be replaced: then *skip is how many
 * bytes the replacement stands for. */
static size_t xml_char(const unsigned char *s, size_t *skip)
{
    unsigned c = s[0];
    if (c >= 0x20 && c < 0x80)
        return 1;
    if (c == '\t' || c == '\n' || c == '\r')
        return 1;
    unsigned cp;
    size_t len = c >= 0x80 ? etl_utf8_decode(s, &cp) : 0;
    if (len && cp != 0xFFFE && cp != 0xFFFF)
        return len;
    *skip = len ? len : 1; /* an invalid byte is replaced on its own */
    return 0;
}

/*
 * Returns str with every character XML 1.0 does not allow - control
 * characters other than TAB, LF and CR, U+FFFE, U+FFFF and every byte that
 * is not part of valid UTF-8 - replaced by U+FFFD. That is str itself when it
 * is clean (the usual case), else a copy in buf (cap bytes) or, when longer,
 * in *heap, which the caller frees. NULL when out of memory.
 */
static const char *xml_clean(const char *str, char *buf, size_t cap, char **heap)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, skip = 0;
    *heap = NULL;
    for (;;) {
        if (s[i] == 0)
            return str;
        size_t k = xml_char(s + i, &skip);
        if (k == 0)
            break;
        i += k;
    }
    /* Each remaining byte grows to at most 3 (U+FFFD is EF BF BD). */
    size_t n = i + strlen(str + i);
    size_t need = i + 3 * (n - i) + 1;
    char *out = buf;
    if (need > cap) {
        out = *heap = malloc(need);
        if (!out)
            return NULL;
    }
    memcpy(out, str, i);
    size_t o = i;
    while (s[i]) {
        size_t k = xml_char(s + i, &skip);
        if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i += skip;
        }
    }
    out[o] = '\0';
    return out;
}

/* The longest escape xml_escape writes for one byte ("&quot;"). */
#define ESCAPE_MAX 6

/* Writes the clean string s[0..n) escaped for a double-quoted attribute
 * value at out (room for ESCAPE_MAX * n bytes); returns the length. TAB, LF
 * and CR become character references so that they survive attribute-value
 * normalisation, like libxml2 does. */
static size_t xml_escape(char *out, const char *s, size_t n)
{
    size_t o = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e;
        size_t el;
        switch (s[i]) {
        case '&': e = "&amp;"; el = 5; break;
        case '<': e = "&lt;"; el = 4; break;
        case '>': e = "&gt;"; el = 4; break;
        case '"': e = "&quot;"; el = 6; break;
        case '\t': e = "&#9;"; el = 4; break;
        case '\n': e = "&#10;"; el = 5; break;
        case '\r': e = "&#13;"; el = 5; break;
        default: continue;
        }
        memcpy(out + o, s + start, i - start);
        o += i - start;
        memcpy(out + o, e, el);
        o += el;
        start = i + 1;
    }
    memcpy(out + o, s + start, n - start);
    return o + n - start;
}

/* ---- the writer --------------------------------------------------------- */

/* libxml2's write callback: appends to the printer's output. It always
 * reports success: a failed write is remembered in out->err, which every
 * printer call checks, and libxml2 is kept from printing I/O errors of its
 * own (a closed pipe must end the output quietly). */
static int xml_write_cb(void *ctx, const char *buf, int len)
{
    struct etl_out *o = ctx;
    if (len > 0)
        etl_out_write(o, buf, (size_t)len);
    return len;
}

/* The output belongs to the caller: closing the writer does not close it. */
static int xml_close_cb(void *ctx)
{
    (void)ctx;
    return 0;
}

/* Returns the printer's state, creating the writer on first use and starting
 * the document; NULL on failure (out->err is ENOMEM if memory ran out). */
static struct xml_state *xml_get(struct etl_printer *p)
{
    struct xml_state *x = p->priv;
    if (!x) {
        x = calloc(1, sizeof *x);
        if (!x) {
            etl_print_nomem(p);
            return NULL;
        }
        p->priv = x;
    }
    if (p->fork) /* a fork formats rows only: no writer, no document */
        return x;
    if (!x->w) {
        /* libxml2 is loaded and set up on first use (etl_library_end
         * releases it); a run that cannot load it ends as when memory runs
         * out, etl_dump then saying ETL_RESULT_NO_LIBXML2. */
        if (!etl_xml_setup()) {
            etl_print_nomem(p);
            return NULL;
        }
        xmlOutputBufferPtr ob =
            xmlOutputBufferCreateIO(xml_write_cb, xml_close_cb, p->out, NULL);
        if (!ob) {
            etl_print_nomem(p);
            return NULL;
        }
        x->w = xmlNewTextWriter(ob); /* owns ob from here */
        if (!x->w) {
            xmlOutputBufferClose(ob);
            etl_print_nomem(p);
            return NULL;
        }
        if (xmlTextWriterSetIndent(x->w, 1) < 0 ||
            xmlTextWriterSetIndentString(x->w, BAD_CAST INDENT) < 0)
            return NULL;
    }
    if (!x->started) {
        x->started = true;
        if (xmlTextWriterStartDocument(x->w, "1.0", "UTF-8", NULL) < 0 ||
            xmlTextWriterStartElement(x->w, BAD_CAST "etldump") < 0 ||
            xmlTextWriterWriteAttribute(x->w, BAD_CAST "version",
                                        BAD_CAST XML_FORMAT_VERSION) < 0)
            return NULL;
        x->tag_open = true;
    }
    return x;
}

/* Writes attribute name="str" (str cleaned) through the writer; 0 or -1. */
static int xml_attr_str(struct etl_printer *p, xmlTextWriterPtr w, const char *name,
                        const char *str)
{
    char buf[CLEAN_STACK];
    char *heap;
    const char *s = xml_clean(str, buf, sizeof buf, &heap);
    if (!s)
        return etl_print_nomem(p);
    int rc = xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST s);
    free(heap);
    return rc < 0 ? -1 : 0;
}

/* Appends ` name="` (name is n bytes) to the row in o and makes room for
 * value_max more bytes; returns where the value goes, or NULL when out of
 * memory. */
static char *row_attr_start(struct etl_out *o, const char *name, size_t n,
                            size_t value_max)
{
    if (value_max > SIZE_MAX - 8 - n)
        return NULL;
    char *d = etl_out_space(o, n + 4 + value_max);
    if (!d)
        return NULL;
    d[0] = ' ';
    memcpy(d + 1, name, n);
    memcpy(d + 1 + n, "=\"", 2);
    etl_out_advance(o, n + 3);
    return d + n + 3;
}

/* Whether each byte stands for itself in an attribute value: printable
 * ASCII (and DEL) other than the four that are escaped. */
const unsigned char etl_xml_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, /* 0x30 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x50 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x70 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x80 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x90 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xA0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xB0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xC0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xD0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xE0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xF0 */
};

static inline bool plain_byte(unsigned char c)
{
    return etl_xml_plain[c] != 0;
}

/* Appends attribute name="str" (name is nlen bytes; str cleaned and
 * escaped) to the row in o; 0 or -1 when out of memory. */
static int row_attr_str(struct etl_out *o, const char *name, size_t nlen, const char *str)
{
    /* Most strings (all of etldump's names) need neither: copy them. */
    const unsigned char *u = (const unsigned char *)str;
    size_t i = 0;
    while (plain_byte(u[i]))
        i++;
    if (u[i] == 0) {
        char *d = row_attr_start(o, name, nlen, i + 1);
        if (!d)
            return -1;
        memcpy(d, str, i);
        d[i] = '"';
        etl_out_advance(o, i + 1);
        return 0;
    }
    char buf[CLEAN_STACK];
    char *heap;
    const char *s = xml_clean(str, buf, sizeof buf, &heap);
    if (!s)
        return -1;
    size_t n = strlen(s);
    int rc = -1;
    char *d;
    if (n <= (SIZE_MAX - 64) / ESCAPE_MAX &&
        (d = row_attr_start(o, name, nlen, ESCAPE_MAX * n + 1)) != NULL) {
        size_t k = xml_escape(d, s, n);
        d[k] = '"';
        etl_out_advance(o, k + 1);
        rc = 0;
    }
    free(heap);
    return rc;
}

/* Appends a <data name="..." value="..."/> child per field of fl (flattened
 * names, values as the text view shows them, unquoted) to the row in o; 0
 * or -1 when out of memory. */
static int row_fields(struct xml_state *x, struct etl_out *o, const struct etl_fields *fl)
{
    struct etl_fields_iter it;
    etl_fields_iter_init(&it);
    const struct etl_field *f;
    while ((f = etl_fields_next(fl, &it)) != NULL) {
        if (etl_field_plain_number(&it, f)) {
            /* The usual field, a number under a table's name: in place. */
            static const char open[] = INDENT INDENT INDENT "<data name=\"";
            char *d = etl_out_space(o, sizeof open + it.cur_len + 40);
            if (!d)
                return -1;
            size_t k = sizeof open - 1;
            memcpy(d, open, k);
            memcpy(d + k, it.cur, it.cur_len);
            k += it.cur_len;
            memcpy(d + k, "\" value=\"", 9);
            k += 9;
            k += etl_field_number_text(f, d + k);
            memcpy(d + k, "\"/>\n", 4);
            etl_out_advance(o, k + 4);
            continue;
        }
        /* Written where it fits (most values), measured first otherwise. */
        size_t need = etl_field_value_text(fl, f, x->val, x->val_cap);
        if (need > (SIZE_MAX - 1) / 3)
            return -1;
        if (3 * need + 1 > x->val_cap) {
            char *v = realloc(x->val, 3 * need + 1);
            if (!v)
                return -1;
            x->val = v;
            x->val_cap = 3 * need + 1;
            etl_field_value_text(fl, f, x->val, need + 1);
        }
        /* A string may hold U+0000, which XML cannot: U+FFFD instead. */
        size_t nul = 0;
        if (memchr(x->val, '\0', need))
            for (size_t i = 0; i < need; i++)
                nul += x->val[i] == '\0';
        for (size_t i = need, k = need + 2 * nul; nul > 0 && i-- > 0;) {
            if (x->val[i] != '\0') {
                x->val[--k] = x->val[i];
            } else {
                k -= 3;
                memcpy(x->val + k, "\xEF\xBF\xBD", 3);
            }
        }
        x->val[need + 2 * nul] = '\0';
        etl_out_write(o, INDENT INDENT INDENT "<data", 3 * INDENT_LEN + 5);
        char nm[sizeof it.name]; /* the name, terminated */
        memcpy(nm, it.cur, it.cur_len);
        nm[it.cur_len] = '\0';
        if (row_attr_str(o, "name", 4, nm) < 0 ||
            row_attr_str(o, "value", 5, x->val) < 0)
            return -1;
        etl_out_write(o, "/>\n", 3);
    }
    return o->err ? -1 : 0;
}

/* ---- printer operations ------------------------------------------------- */

/* Closes the open <file> element, if any; 0 or -1. */
static int xml_close_file(struct xml_state *x)
{
    if (!x->in_file)
        return 0;
    x->in_file = x->rows.direct = false;
    /* After a raw row the writer does not indent the end tag itself. */
    if (x->raw_last && xmlTextWriterWriteRawLen(x->w, BAD_CAST INDENT, INDENT_LEN) < 0)
        return -1;
    x->raw_last = x->tag_open = false;
    return xmlTextWriterEndElement(x->w) < 0 ? -1 : 0;
}

static int xml_begin_file(struct etl_printer *p, const char *path)
{
    struct xml_state *x = xml_get(p);
    if (!x || x->finished)
        return -1;
    /* A file left open after an error ends before the next one starts. */
    if (xml_close_file(x) < 0)
        return -1;
    x->raw_last = x->rows.direct = false;
    if (xmlTextWriterStartElement(x->w, BAD_CAST "file") < 0)
        return -1;
    x->in_file = x->tag_open = true;
    if (xml_attr_str(p, x->w, "path", path) < 0)
        return -1;
    return etl_print_status(p);
}

/* An attribute the careful way (xmlrow.h). */
int etl_xml_cell_slow(struct etl_printer *p, struct etl_out *o, const struct etl_column *c,
                      const struct etl_value *v)
{
    size_t nlen = strlen(c->name);
    if (c->type == ETL_COL_STR || c->type == ETL_COL_NAME) {
        /* Names are etldump's own ASCII, but checking them costs one scan
         * and keeps the document well-formed whatever a view hands over. */
        return row_attr_str(o, c->name, nlen, v->v.str);
    }
    /* Digits, 0x..., GUIDs, ISO times: no escapes. */
    char *q = row_attr_start(o, c->name, nlen, 48 + 1);
    if (!q)
        return -1;
    bool num;
    size_t n = etl_format_scalar(p, c, v, q, &num);
    q[n] = '"';
    etl_out_advance(o, n + 1);
    return 0;
}

/* Writes the attribute of cell v of column c at o, through its key when it
 * has one; a fields cell is kept in *fl, for the children. 0, or -1 when
 * out of memory. */
ETL_INLINE int xml_cell(struct etl_printer *p, struct etl_out *o,
                        const struct etl_column *c, const struct xml_key *key,
                        const struct etl_value *v, const struct etl_fields **fl)
{
    if (c->type == ETL_COL_FIELDS) {
        *fl = v->v.p; /* children, after the attributes */
        return 0;
    }
    if (key) {
        /* The usual cell: its key copied whole, the value over what follows
         * the key (a string that is long or needs escapes takes the careful
         * way). */
        char *q = etl_out_space(o, ETL_XML_CELL_MAX);
        if (!q)
            return -1;
        memcpy(q, key->s, XML_KEY_SLOT);
        char *e = etl_xml_value(p, c, v, q + key->len);
        if (e) {
            *e = '"';
            etl_out_advance(o, (size_t)(e + 1 - q));
            return 0;
        }
    }
    return etl_xml_cell_slow(p, o, c, v);
}

/* The children and end tag of a row element (xmlrow.h). */
int etl_xml_row_fields(struct etl_printer *p, struct etl_out *o, const struct etl_fields *fl,
                       const char *elem, size_t elen)
{
    /* <event ...> <data .../>... </event> */
    struct xml_state *x = xml_get(p);
    if (!x)
        return -1;
    etl_out_write(o, ">\n", 2);
    if (row_fields(x, o, fl) < 0)
        return -1;
    etl_out_write(o, ETL_XML_ROW_INDENT "</", ETL_XML_ROW_INDENT_LEN + 2);
    etl_out_write(o, elem, elen);
    etl_out_write(o, ">\n", 2);
    return o->err ? -1 : 0;
}

/* Writes one row element of table t at o: indented as inside <file>, with
 * its line break. 0, or -1 when out of memory. */
static int xml_compose(struct etl_printer *p, struct xml_state *x,
                       const struct etl_table *t, const struct etl_value *vals,
                       const uint64_t *set, struct etl_out *o)
{
    size_t name_len = strlen(t->name);
    char *d = etl_out_space(o, ETL_XML_ROW_INDENT_LEN + 1 + name_len);
    if (!d)
        return -1;
    memcpy(d, ETL_XML_ROW_INDENT "<", ETL_XML_ROW_INDENT_LEN + 1);
    memcpy(d + ETL_XML_ROW_INDENT_LEN + 1, t->name, name_len);
    etl_out_advance(o, ETL_XML_ROW_INDENT_LEN + 1 + name_len);
    if (x->keys_of != t) {
        size_t n = t->ncols < XML_KEYS ? t->ncols : XML_KEYS;
        for (size_t i = 0; i < n; i++) {
            struct xml_key *k = &x->key[i];
            size_t nl = strlen(t->cols[i].name);
            memset(k->s, 0, sizeof k->s);
            k->len = 0;
            x->keyp[i] = NULL;
            if (nl + 3 > XML_KEY_SLOT)
                continue;
            k->s[0] = ' ';
            memcpy(k->s + 1, t->cols[i].name, nl);
            memcpy(k->s + 1 + nl, "=\"", 2);
            k->len = nl + 3;
            x->keyp[i] = k;
        }
        x->keys_of = t;
    }
    /* From each carried cell to the next. */
    const struct etl_fields *fl = NULL;
    const size_t ncols = t->ncols;
    for (size_t base = 0; base < ncols; base += 64) {
        uint64_t m = etl_set_word(set, base, ncols);
        for (; m; m &= m - 1) {
            size_t i = base + etl_ctz64(m);
            const struct xml_key *key = i < XML_KEYS ? x->keyp[i] : NULL;
            if (xml_cell(p, o, &t->cols[i], key, &vals[i], &fl) < 0)
                return -1;
        }
    }
    if (fl && fl->n)
        return etl_xml_row_fields(p, o, fl, t->name, name_len);
    etl_out_write(o, "/>\n", 3);
    return o->err ? -1 : 0;
}

/* Hands bytes to the writer raw, in pieces its int lengths can take. */
static int write_raw(struct xml_state *x, const char *b, size_t n)
{
    while (n > 0) {
        int k = n > (1u << 30) ? (1 << 30) : (int)n;
        if (xmlTextWriterWriteRawLen(x->w, BAD_CAST b, k) < 0)
            return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static int xml_raw(struct etl_printer *p, const char *bytes, size_t n)
{
    struct xml_state *x = xml_get(p);
    if (!x || x->finished)
        return -1;
    /* Rows go in raw, so they carry their own line breaks and indents; the
     * writer closes an open start tag with '>' but adds no line break.
     * Flushed, the writer holds nothing back, and the rows go straight to
     * the output after what it wrote: through the writer every byte would
     * be copied into its buffer and again by its UTF-8 output conversion,
     * on the view's thread for the chunks other threads formatted. */
    if (!x->raw_last || x->tag_open) { /* after a raw row it holds nothing */
        if ((x->tag_open && write_raw(x, "\n", 1) < 0) || xmlTextWriterFlush(x->w) < 0)
            return -1;
    }
    etl_out_write(p->out, bytes, n);
    x->tag_open = false;
    x->raw_last = true;
    /* So it stays until the writer writes again: the next row may go
     * straight into the output (etl_xml_row_direct). */
    x->rows.direct = x->in_file;
    return etl_print_status(p);
}

static int xml_row_set(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set)
{
    struct xml_state *x = xml_get(p);
    const struct etl_table *t = p->table;
    if (!x || x->finished || !t)
        return -1;
    /* Into a fork's memory output, as it is; into the output itself after
     * a row in <file>, where xml_raw would copy it to as it is (compact
     * switches: 2498 instructions a switch through the row buffer, 2385
     * without). */
    if (p->fork || x->rows.direct)
        return xml_compose(p, x, t, vals, set, p->out) < 0 ? etl_print_nomem(p)
                                                           : etl_print_status(p);
    if (!x->row_ok) {
        if (!etl_out_init_mem(&x->row, 4096))
            return etl_print_nomem(p);
        x->row_ok = true;
    }
    etl_out_reset(&x->row);
    if (xml_compose(p, x, t, vals, set, &x->row) < 0)
        return etl_print_nomem(p);
    /* Rows are written inside <file>; one outside it (not expected) is
     * indented one level less. */
    size_t skip = x->in_file ? 0 : INDENT_LEN;
    return xml_raw(p, x->row.buf + skip, x->row.len - skip);
}

static int xml_problem(struct etl_printer *p, uint64_t offset, const char *msg)
{
    /* Inside the open <file>; a problem outside any file (not expected)
     * goes directly under <etldump>, which the schema allows too. */
    struct xml_state *x = xml_get(p);
    if (!x || x->finished)
        return -1;
    x->rows.direct = false;
    char num[24];
    size_t n = sizeof num - 1;
    num[n] = '\0';
    do {
        num[--n] = (char)('0' + offset % 10);
        offset /= 10;
    } while (offset);
    if (xmlTextWriterStartElement(x->w, BAD_CAST "problem") < 0 ||
        xmlTextWriterWriteAttribute(x->w, BAD_CAST "offset", BAD_CAST(num + n)) < 0 ||
        xml_attr_str(p, x->w, "message", msg) < 0 ||
        xmlTextWriterEndElement(x->w) < 0)
        return -1;
    x->tag_open = x->raw_last = false;
    return etl_print_status(p);
}

static int xml_end_file(struct etl_printer *p)
{
    struct xml_state *x = p->priv;
    if (!x || !x->w || x->finished)
        return -1;
    if (xml_close_file(x) < 0)
        return -1;
    return etl_print_status(p);
}

static int xml_finish(struct etl_printer *p)
{
    /* Always a complete document: with no file at all it is an empty root,
     * after an error every open element is closed. */
    struct xml_state *x = xml_get(p);
    if (!x)
        return -1;
    if (!x->finished) {
        int rc = xml_close_file(x);
        x->finished = true;
        x->rows.direct = false;
        if (rc < 0 || xmlTextWriterEndDocument(x->w) < 0 || xmlTextWriterFlush(x->w) < 0)
            return -1;
    }
    return etl_out_flush(p->out);
}

static void xml_destroy(struct etl_printer *p)
{
    struct xml_state *x = p->priv;
    if (!x)
        return;
    if (x->w)
        xmlFreeTextWriter(x->w); /* also frees the output buffer */
    if (x->row_ok)
        etl_out_fini(&x->row);
    free(x->val);
    free(x);
    p->priv = NULL;
}

/* The operations as the printer registry calls them: libxml2 does not
 * report every allocation it failed (xmlsetup.h), so after each one a
 * failure counted on this thread ends the output as out of memory. */
static int checked(struct etl_printer *p, int rc)
{
    return etl_xml_failures() != 0 ? etl_print_nomem(p) : rc;
}

static int op_begin_file(struct etl_printer *p, const char *path)
{
    return checked(p, xml_begin_file(p, path));
}

static int op_row_set(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set)
{
    return checked(p, xml_row_set(p, vals, set));
}

static int op_raw(struct etl_printer *p, const char *bytes, size_t n)
{
    return checked(p, xml_raw(p, bytes, n));
}

static int op_problem(struct etl_printer *p, uint64_t offset, const char *msg)
{
    return checked(p, xml_problem(p, offset, msg));
}

static int op_end_file(struct etl_printer *p)
{
    return checked(p, xml_end_file(p));
}

static int op_finish(struct etl_printer *p)
{
    return checked(p, xml_finish(p));
}

const struct etl_printer_ops etl_print_xml = {
    .name = "xml",
    .wants_info = true,
    .begin_file = op_begin_file,
    .row_set = op_row_set,
    .raw = op_raw,
    .problem = op_problem,
    .end_file = op_end_file,
    .finish = op_finish,
    .destroy = xml_destroy,
};
