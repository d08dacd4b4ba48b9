/*
 * payload.c - names and payloads of every event (see payload.h).
 */
#include "decode/payload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/intype.h"
#include "decode/tracelogging.h"
#include "decode/winsat.h"

#define NM(s) s, sizeof(s) - 1

struct etl_payload *etl_payload_new(void)
{
    struct etl_payload *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    etl_ktable_init(&pl->kt);
    etl_meta_init(&pl->meta);
    if (!(pl->scratch = malloc(ETL_WINSAT_MAX)) ||
        !etl_fields_init(&pl->fields, ETL_FIELDS_DEFAULT_ENTRIES, ETL_FIELDS_DEFAULT_BYTES)) {
        free(pl->scratch);
        free(pl);
        return NULL;
    }
    return pl;
}

struct etl_payload *etl_payload_fork(const struct etl_payload *pl)
{
    struct etl_payload *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    *f = *pl; /* the descriptions and provider names, shared */
    f->fork = true;
    if (!(f->scratch = malloc(ETL_WINSAT_MAX)) ||
        !etl_fields_init(&f->fields, ETL_FIELDS_DEFAULT_ENTRIES, ETL_FIELDS_DEFAULT_BYTES)) {
        free(f->scratch);
        free(f);
        return NULL;
    }
    return f;
}

void etl_payload_free(struct etl_payload *pl)
{
    if (!pl)
        return;
    if (!pl->fork) {
        etl_meta_free(&pl->meta);
        free(pl->tl);
    }
    etl_fields_free(&pl->fields);
    free(pl->scratch);
    free(pl);
}

/* Remembers the name a TraceLogging provider gives itself. */
static bool learn_tl(struct etl_payload *pl, const struct etl_event *ev)
{
    size_t len;
    const char *name = etl_tl_provider_name(ev, &len);
    if (!name)
        return true;
    for (size_t i = 0; i < pl->ntl; i++)
        if (memcmp(pl->tl[i].guid, ev->guid, 16) == 0)
            return true;
    if (pl->ntl >= ETL_PAYLOAD_MAX_TL)
        return true;
    if (!pl->tl && !(pl->tl = malloc(ETL_PAYLOAD_MAX_TL * sizeof *pl->tl)))
        return false;
    struct etl_tl_provider *p = &pl->tl[pl->ntl++];
    memcpy(p->guid, ev->guid, 16);
    if (len >= sizeof p->name)
        len = sizeof p->name - 1;
    memcpy(p->name, name, len);
    p->name[len] = '\0';
    return true;
}

bool etl_payload_learn(struct etl_payload *pl, const struct etl_event *ev)
{
    if (!(ev->flags & ETL_EV_GUID))
        return !pl->nomem; /* kernel events carry no metadata */
    if (ev->ext_items && !learn_tl(pl, ev))
        pl->nomem = true;
    etl_meta_add(&pl->meta, ev);
    if (pl->meta.nomem)
        pl->nomem = true;
    return !pl->nomem;
}

static bool prepass_event(void *ctx, const struct etl_event *ev)
{
    return etl_payload_learn(ctx, ev);
}

bool etl_payload_prepass(struct etl_payload *pl, struct etl_file *f)
{
    struct etl_scope scope;
    etl_scope_begin(f, &scope, false);
    /* PERFINFO64 events carry no provider GUID: nothing to learn from
     * them, all skipped in runs. */
    etl_walk_file_runs(f, prepass_event, etl_runs_skip, NULL, pl);
    etl_scope_end(f, &scope);
    etl_scope_replay(f, &scope);
    if (pl->nomem)
        etl_file_nomem(f);
    return !etl_file_is_nomem(f);
}

const char *etl_payload_provider_name(const struct etl_payload *pl, const uint8_t guid[16])
{
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETL_KIND_FULL64;
    memcpy(ev.guid, guid, 16);
    const char *n = etl_kernel_group_name(etl_kernel_group(&ev));
    if (!n)
        n = etl_builtin_provider_name(guid);
    if (!n)
        n = etl_meta_provider_name(&pl->meta, guid);
    for (size_t i = 0; !n && i < pl->ntl; i++)
        if (memcmp(pl->tl[i].guid, guid, 16) == 0)
            n = pl->tl[i].name;
    return n;
}

/* Writes "Provider/what" into pl->name when the provider has a name. */
static const char *provider_event(struct etl_payload *pl, const struct etl_event *ev,
                                  const char *what)
{
    const char *p = etl_payload_provider_name(pl, ev->guid);
    if (!p)
        return NULL;
    snprintf(pl->name, sizeof pl->name, "%s/%s", p, what);
    return pl->name;
}

/* The name of a metadata event: the kernel table's, or for a manifest
 * chunk "Provider/ManifestData". */
static const char *metadata_name(struct etl_payload *pl, const struct etl_event *ev)
{
    if (etl_meta_is_manifest(ev))
        return provider_event(pl, ev, "ManifestData");
    return etl_kernel_event_name(ev);
}

/* The name of an event no decoder described, or of a string event. */
static const char *other_name(struct etl_payload *pl, const struct etl_event *ev)
{
    const char *n = etl_builtin_event_name(ev);
    if (!n)
        n = etl_kernel_event_name(ev);
    if (!n && (ev->flags & ETL_EV_STRING_ONLY))
        n = provider_event(pl, ev, "String");
    return n;
}

/* True when ev carries a TraceLogging schema; *n receives its name (NULL
 * when the schema names neither the event nor its provider). */
static bool tl_name(struct etl_payload *pl, const struct etl_event *ev, const char **n)
{
    if (!ev->ext_items || !etl_tl_event_name(ev, pl->name, sizeof pl->name))
        return false;
    *n = pl->name[0] ? pl->name : NULL;
    return true;
}

const char *etl_payload_name_own(struct etl_payload *pl, const struct etl_event *ev, bool *own)
{
    const char *tn;
    /* A kernel event with a HookId and nothing more to say who it is (no
     * provider, no TraceLogging schema, not a string, not the
     * EVENT_HEADER kinds that metadata, manifests and built-in layouts
     * belong to) has the kernel table's name of its group and opcode (its
     * group, HookId >> 8, is never the metadata one): the last such name is
     * kept, as a trace's events come in runs of one kind. */
    if ((ev->flags & (ETL_EV_HOOK | ETL_EV_GUID | ETL_EV_STRING_ONLY)) == ETL_EV_HOOK &&
        !ev->ext_items && ev->kind != ETL_KIND_EVENT_HEADER32 &&
        ev->kind != ETL_KIND_EVENT_HEADER64) {
        uint32_t key = (uint32_t)(ev->hook_id & 0xFF00u) | ev->opcode;
        if (key + 1 != pl->kname_key1) {
            pl->kname = etl_kernel_event_name(ev);
            pl->kname_key1 = key + 1;
        }
        *own = pl->kname != NULL;
        return pl->kname;
    }
    *own = false;
    if (tl_name(pl, ev, &tn))
        return tn;
    if (etl_meta_is_metadata(ev))
        return metadata_name(pl, ev);
    const char *n = etl_meta_event_name(&pl->meta, ev);
    if (n)
        return n;
    n = other_name(pl, ev);
    *own = n && n != pl->name; /* a table's, not made with a provider's name */
    return n;
}

const char *etl_payload_name(struct etl_payload *pl, const struct etl_event *ev)
{
    bool own;
    return etl_payload_name_own(pl, ev, &own);
}

/* An EventWriteString event: its string, to the first NUL. */
static enum etl_fdec string_only(const struct etl_event *ev, struct etl_cursor *c,
                                 struct etl_fields *out, size_t *at)
{
    size_t n = 0;
    while (n + 1 < ev->data_len && (ev->data[n] || ev->data[n + 1]))
        n += 2;
    etl_fields_str_utf16(out, NM("String"), ev->data, n);
    c->pos = n + 2 <= ev->data_len ? n + 2 : ev->data_len;
    *at = c->pos;
    return c->pos == ev->data_len ? ETL_FDEC_OK : ETL_FDEC_PARTIAL;
}

enum etl_fdec etl_payload_decode(struct etl_payload *pl, const struct etl_event *ev,
                                 const char **name, size_t *at)
{
    struct etl_fields *out = &pl->fields;
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    enum etl_fdec st;
    const char *n = NULL;
    etl_fields_reset(out);
    *at = 0;
    pl->why = NULL;
    if (tl_name(pl, ev, &n)) {
        st = etl_tl_fields(ev, &c, out, at);
    } else if (etl_meta_is_metadata(ev)) {
        n = metadata_name(pl, ev);
        st = etl_meta_self_fields(ev, &c, out, at);
    } else if (ev->flags & ETL_EV_STRING_ONLY) {
        n = other_name(pl, ev);
        st = string_only(ev, &c, out, at);
    } else if ((st = etl_meta_fields(&pl->meta, ev, &c, out, &n, at)) == ETL_FDEC_NO_LAYOUT &&
               (st = etl_builtin_fields(ev, &c, out, &n, at)) == ETL_FDEC_NO_LAYOUT) {
        n = etl_kernel_event_name(ev);
        if (!(ev->flags & ETL_EV_HOOK) && etl_kernel_group(ev) == ETL_KG_WINSAT)
            st = etl_winsat_fields(ev, &c, out, pl->scratch, at, &pl->why, pl->why_text,
                                   sizeof pl->why_text);
        else
            st = etl_kernel_fields(&pl->kt, ev, &c, out, at);
    }
    /* A decoder that stopped inside a structure or array left it open. */
    while (out->depth > 0 && !out->truncated)
        etl_fields_struct_end(out);
    /* What no field describes, last, as payload_hex. A list that could not
     * hold the fields, or has no room left for payload_hex, shows the
     * payload whole instead. */
    size_t from = st == ETL_FDEC_NO_LAYOUT ? 0 : st == ETL_FDEC_OK ? ev->data_len : *at;
    if (from > ev->data_len)
        from = ev->data_len;
    if (out->truncated ||
        (from < ev->data_len &&
         !etl_fields_binary(out, NM("payload_hex"), ev->data + from, ev->data_len - from))) {
        etl_fields_reset(out);
        st = ETL_FDEC_NO_LAYOUT;
        from = 0;
        if (ev->data_len > 0)
            etl_fields_binary(out, NM("payload_hex"), ev->data, ev->data_len);
    }
    pl->hex = out->truncated ? 0 : ev->data_len - from;
    *name = n;
    return st;
}
