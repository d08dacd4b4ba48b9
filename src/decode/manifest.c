/*
 * manifest.c - instrumentation manifests to TRACE_EVENT_INFO (see
 * manifest.h). The manifest schema is Microsoft's "EventManifest Schema"
 * (provider, events/event, templates/template with data and struct
 * elements; inType and outType names of "InputType Complex Type" and
 * "OutputType Complex Type"); TRACE_EVENT_INFO and EVENT_PROPERTY_INFO are
 * those of tdh.h, laid out as doc/format.md section 20 describes.
 *
 * The document is parsed with libxml2 without network access, external
 * entities or messages; elements are matched by local name.
 */
#include "decode/manifest.h"

#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "xmlapi.h"
#include "xmlsetup.h"

/* Most properties of one event (fields and structure members). */
#define MAX_PROPS 1024u

/* TRACE_EVENT_INFO offsets and PROPERTY_FLAGS (tdh.h). */
#define TEI_PROVIDER_NAME 52
#define TEI_TASK_NAME 68
#define TEI_OPCODE_NAME 72
#define TEI_EVENT_NAME 92
#define TEI_PROPERTY_COUNT 100
#define TEI_TOP_LEVEL_COUNT 104
#define TEI_PROPERTIES 112
#define EPI_SIZE 24
#define PROP_STRUCT 0x1u
#define PROP_PARAM_LENGTH 0x2u
#define PROP_PARAM_COUNT 0x4u
#define PROP_PARAM_FIXED_LENGTH 0x10u
#define PROP_PARAM_FIXED_COUNT 0x20u

/* Input types by manifest name (tdh.h _TDH_IN_TYPE values). */
static const struct {
    const char *name;
    uint16_t in;
} in_types[] = {
    { "win:UnicodeString", 1 }, { "win:AnsiString", 2 }, { "win:Int8", 3 },
    { "win:UInt8", 4 }, { "win:Int16", 5 }, { "win:UInt16", 6 }, { "win:Int32", 7 },
    { "win:UInt32", 8 }, { "win:Int64", 9 }, { "win:UInt64", 10 }, { "win:Float", 11 },
    { "win:Double", 12 }, { "win:Boolean", 13 }, { "win:Binary", 14 }, { "win:GUID", 15 },
    { "win:Pointer", 16 }, { "win:FILETIME", 17 }, { "win:SYSTEMTIME", 18 },
    { "win:SID", 19 }, { "win:HexInt32", 20 }, { "win:HexInt64", 21 },
    { "win:CountedUnicodeString", 22 }, { "win:CountedAnsiString", 23 },
    { "win:CountedBinary", 25 },
};

/* Output types that change how a value is shown (tdh.h _TDH_OUT_TYPE). */
static const struct {
    const char *name;
    uint16_t out;
} out_types[] = {
    { "win:HexInt8", 16 }, { "win:HexInt16", 17 }, { "win:HexInt32", 18 },
    { "win:HexInt64", 19 }, { "win:Port", 22 }, { "win:IPv4", 23 }, { "win:IPv6", 24 },
};

/* One property being built. */
struct mprop {
    const char *name;
    xmlNodePtr node;          /* its data or struct element */
    uint32_t lvl_first, lvl_n;/* its level (siblings), by property index */
    uint16_t flags;
    uint16_t a, b;            /* InType, OutType, or StructStartIndex, NumOfStructMembers */
    uint16_t count, length;   /* or property indexes */
};

struct builder {
    struct mprop p[MAX_PROPS];
    uint32_t n;
    uint8_t *blob;            /* the TRACE_EVENT_INFO being written */
    size_t len, cap;
    bool nomem;
};

/* Returns true if node is an element called name (any namespace). */
static bool is_elem(xmlNodePtr node, const char *name)
{
    return node && node->type == XML_ELEMENT_NODE &&
           strcmp((const char *)node->name, name) == 0;
}

/* Returns the value of attribute name of node (no allocation), or NULL. */
static const char *attr(xmlNodePtr node, const char *name)
{
    for (xmlAttrPtr a = node->properties; a; a = a->next) {
        if (strcmp((const char *)a->name, name) != 0)
            continue;
        xmlNodePtr t = a->children;
        return t && t->type == XML_TEXT_NODE && t->content ? (const char *)t->content : "";
    }
    return NULL;
}

/* Parses a decimal or 0x number up to max; false when it is not one. */
static bool number(const char *s, unsigned long max, unsigned long *v)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return false;
    char *end;
    unsigned long x = strtoul(s, &end, 0);
    if (*end || x > max)
        return false;
    *v = x;
    return true;
}

/* Parses "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}" into file byte order. */
static bool parse_guid(const char *s, uint8_t g[16])
{
    static const signed char order[] = { 3, 2, 1, 0, -1, 5, 4, -1, 7, 6, -1,
                                         8, 9, -1, 10, 11, 12, 13, 14, 15 };
    if (!s)
        return false;
    if (*s == '{')
        s++;
    for (size_t i = 0; i < sizeof order; i++) {
        if (order[i] < 0) {
            if (*s++ != '-')
                return false;
            continue;
        }
        unsigned v = 0;
        for (int k = 0; k < 2; k++, s++) {
            char c = *s;
            unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                       : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                       : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
            if (d > 15)
                return false;
            v = v << 4 | d;
        }
        g[order[i]] = (uint8_t)v;
    }
    return *s == '\0' || (*s == '}' && s[1] == '\0');
}

/* Appends the data and struct children of parent as one level; false when
 * there are too many. */
static bool add_level(struct builder *b, xmlNodePtr parent, uint32_t *first, uint32_t *n)
{
    *first = b->n;
    for (xmlNodePtr c = parent->children; c; c = c->next) {
        if (!is_elem(c, "data") && !is_elem(c, "struct"))
            continue;
        if (b->n >= MAX_PROPS)
            return false;
        struct mprop *p = &b->p[b->n++];
        memset(p, 0, sizeof *p);
        p->node = c;
        p->name = attr(c, "name");
        if (!p->name)
            return false;
    }
    *n = b->n - *first;
    for (uint32_t i = *first; i < b->n; i++) {
        b->p[i].lvl_first = *first;
        b->p[i].lvl_n = *n;
    }
    return true;
}

/* Resolves a length or count attribute: a number (fixed), or the name of a
 * sibling field (its index). False when neither. */
static bool ref(const struct builder *b, const struct mprop *p, const char *v,
                uint16_t fixed_flag, uint16_t param_flag, uint16_t *flags, uint16_t *out)
{
    unsigned long x;
    if (!v)
        return true;
    if (number(v, 0xFFFF, &x)) {
        *flags |= fixed_flag;
        *out = (uint16_t)x;
        return true;
    }
    for (uint32_t i = p->lvl_first; i < p->lvl_first + p->lvl_n; i++) {
        if (strcmp(b->p[i].name, v) == 0) {
            *flags |= param_flag;
            *out = (uint16_t)i;
            return true;
        }
    }
    return false;
}

/* Builds the properties of template t; false when it uses what cannot be
 * described (an unknown type, a bad reference, too many fields). */
static bool build_props(struct builder *b, xmlNodePtr t, uint32_t *ntop)
{
    uint32_t first, n;
    b->n = 0;
    if (!add_level(b, t, &first, &n))
        return false;
    *ntop = n;
    /* Structures' members follow, level after level. */
    for (uint32_t i = 0; i < b->n; i++) {
        struct mprop *p = &b->p[i];
        if (is_elem(p->node, "struct")) {
            p->flags = PROP_STRUCT;
            if (!add_level(b, p->node, &first, &n))
                return false;
            p = &b->p[i];
            p->a = (uint16_t)first;
            p->b = (uint16_t)n;
        } else {
            const char *in = attr(p->node, "inType"), *out = attr(p->node, "outType");
            size_t k = 0;
            while (k < sizeof in_types / sizeof in_types[0] &&
                   !(in && strcmp(in, in_types[k].name) == 0))
                k++;
            if (k == sizeof in_types / sizeof in_types[0])
                return false;
            p->a = in_types[k].in;
            for (k = 0; out && k < sizeof out_types / sizeof out_types[0]; k++)
                if (strcmp(out, out_types[k].name) == 0)
                    p->b = out_types[k].out;
            if (!ref(b, p, attr(p->node, "length"), PROP_PARAM_FIXED_LENGTH,
                     PROP_PARAM_LENGTH, &p->flags, &p->length))
                return false;
        }
        if (!ref(b, p, attr(p->node, "count"), PROP_PARAM_FIXED_COUNT, PROP_PARAM_COUNT,
                 &p->flags, &p->count))
            return false;
    }
    return true;
}

/* Makes room for n more blob bytes (zeroed); false when out of memory. */
static bool blob_room(struct builder *b, size_t n)
{
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *p = realloc(b->blob, cap);
        if (!p) {
            b->nomem = true;
            return false;
        }
        b->blob = p;
        b->cap = cap;
    }
    memset(b->blob + b->len, 0, n);
    return true;
}

/* Appends s as a NUL-terminated UTF-16LE string; returns its offset (0 for
 * NULL, or when out of memory). */
static uint32_t blob_str(struct builder *b, const char *s)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    if (!blob_room(b, 2 * n + 2))
        return 0;
    uint32_t at = (uint32_t)b->len;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = etl_utf8_decode(u + i, &cp);
        if (k == 0 || cp > 0xFFFF) {
            cp = '?';
            k = k ? k : 1;
        }
        b->blob[b->len++] = (uint8_t)cp;
        b->blob[b->len++] = (uint8_t)(cp >> 8);
        i += k;
    }
    b->blob[b->len++] = 0;
    b->blob[b->len++] = 0;
    return at;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* Writes the TRACE_EVENT_INFO of event ev of provider prov (guid, name)
 * with template t (or none) into b->blob; false when it cannot be
 * described or memory ran out. */
static bool build_tei(struct builder *b, const uint8_t guid[16], const char *pname,
                      xmlNodePtr ev, xmlNodePtr t)
{
    unsigned long id, version = 0;
    uint32_t ntop = 0;
    if (!number(attr(ev, "value"), 0xFFFF, &id) ||
        (attr(ev, "version") && !number(attr(ev, "version"), 0xFF, &version)))
        return false;
    b->n = 0;
    if (t && !build_props(b, t, &ntop))
        return false;
    b->len = 0;
    if (!blob_room(b, TEI_PROPERTIES + (size_t)b->n * EPI_SIZE))
        return false;
    b->len = TEI_PROPERTIES + (size_t)b->n * EPI_SIZE;
    const char *task = attr(ev, "task"), *evname = attr(ev, "name");
    /* Without a task, the event's symbol names it. */
    if (!evname && !task)
        evname = attr(ev, "symbol");
    uint32_t off_p = blob_str(b, pname), off_t = blob_str(b, task);
    uint32_t off_o = blob_str(b, attr(ev, "opcode")), off_e = blob_str(b, evname);
    uint32_t names[MAX_PROPS];
    for (uint32_t i = 0; i < b->n; i++)
        names[i] = blob_str(b, b->p[i].name);
    if (b->nomem)
        return false;
    uint8_t *h = b->blob;
    memcpy(h, guid, 16);
    put16(h + 32, (uint16_t)id);
    h[34] = (uint8_t)version;
    put32(h + TEI_PROVIDER_NAME, off_p);
    put32(h + TEI_TASK_NAME, off_t);
    put32(h + TEI_OPCODE_NAME, off_o);
    put32(h + TEI_EVENT_NAME, off_e);
    put32(h + TEI_PROPERTY_COUNT, b->n);
    put32(h + TEI_TOP_LEVEL_COUNT, ntop);
    for (uint32_t i = 0; i < b->n; i++) {
        uint8_t *q = h + TEI_PROPERTIES + (size_t)i * EPI_SIZE;
        const struct mprop *p = &b->p[i];
        put32(q, p->flags);
        put32(q + 4, names[i]);
        put16(q + 8, p->a);
        put16(q + 10, p->b);
        put16(q + 16, p->count);
        put16(q + 18, p->length);
    }
    return true;
}

/* Returns the template called tid among the children of templates. */
static xmlNodePtr find_template(xmlNodePtr templates, const char *tid)
{
    for (xmlNodePtr c = templates ? templates->children : NULL; c; c = c->next)
        if (is_elem(c, "template")) {
            const char *v = attr(c, "tid");
            if (v && strcmp(v, tid) == 0)
                return c;
        }
    return NULL;
}

/* Describes every event of provider element prov; false to stop. */
static bool read_provider(struct builder *b, xmlNodePtr prov, etl_manifest_fn fn, void *ctx)
{
    uint8_t guid[16];
    const char *pname = attr(prov, "name");
    if (!parse_guid(attr(prov, "guid"), guid))
        return true;
    xmlNodePtr events = NULL, templates = NULL;
    for (xmlNodePtr c = prov->children; c; c = c->next) {
        if (is_elem(c, "events"))
            events = c;
        else if (is_elem(c, "templates"))
            templates = c;
    }
    for (xmlNodePtr ev = events ? events->children : NULL; ev; ev = ev->next) {
        if (!is_elem(ev, "event"))
            continue;
        const char *tid = attr(ev, "template");
        xmlNodePtr t = tid ? find_template(templates, tid) : NULL;
        if (tid && !t)
            continue;
        if (!build_tei(b, guid, pname, ev, t)) {
            if (b->nomem)
                return false;
            continue;
        }
        if (!fn(ctx, b->blob, b->len))
            return false;
    }
    return true;
}

/* Reads the providers under node, depth first; false to stop. */
static bool walk(struct builder *b, xmlNodePtr node, etl_manifest_fn fn, void *ctx,
                 unsigned depth)
{
    for (xmlNodePtr c = node; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (is_elem(c, "provider")) {
            if (!read_provider(b, c, fn, ctx))
                return false;
        } else if (depth < 8 && !walk(b, c->children, fn, ctx, depth + 1)) {
            return false;
        }
    }
    return true;
}

/* The manifest's text, handed to libxml2 as it asks for it (read through a
 * callback rather than from memory: libxml2 2.9's in-memory input leaks a
 * buffer when an allocation fails). */
struct text {
    const char *p;
    size_t left;
};

static int text_read(void *ctx, char *buf, int len)
{
    struct text *t = ctx;
    size_t n = len < 0 ? 0 : (size_t)len;
    if (n > t->left)
        n = t->left;
    memcpy(buf, t->p, n);
    t->p += n;
    t->left -= n;
    return (int)n;
}

static int text_close(void *ctx)
{
    (void)ctx;
    return 0;
}

int etl_manifest_read(const char *xml, size_t len, etl_manifest_fn fn, void *ctx)
{
    /* libxml2 does not report every allocation that fails: its failures
     * are counted instead, and any ends the run. */
    unsigned long failed = etl_xml_failures();
    if (!etl_xml_setup())
        return -1; /* libxml2 could not be loaded (etl_library_xml_error) */
    xmlParserCtxtPtr pc = xmlNewParserCtxt();
    xmlDocPtr doc = NULL;
    struct text t = { xml, len };
    if (pc)
        doc = xmlCtxtReadIO(pc, text_read, text_close, &t, NULL, NULL,
                            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlFreeParserCtxt(pc);
    int r = 0;
    if (doc && etl_xml_failures() == failed) {
        struct builder *b = calloc(1, sizeof *b);
        r = -1;
        if (b) {
            r = walk(b, xmlDocGetRootElement(doc), fn, ctx, 0) ? 1 : -1;
            free(b->blob);
            free(b);
        }
    }
    xmlFreeDoc(doc);
    return etl_xml_failures() != failed ? -1 : r;
}
