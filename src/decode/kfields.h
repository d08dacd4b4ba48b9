/*
 * kfields.h - names and payload fields of classic kernel events, decoded
 * from a table of layouts (src/decode/klayouts.c; doc/format.md section 18).
 *
 * Kernel events are those with a HookId (SYSTEM, COMPACT and PERFINFO
 * headers: group = HookId >> 8, opcode = HookId & 0xFF) and classic events of
 * FULL and INSTANCE headers whose GUID is a kernel event class (the same
 * classes as the HookId groups, plus KernelTraceControl's classes written by
 * xperf, WPR and PerfView). A layout is chosen by (group, opcode, version);
 * pointer-sized fields take their width from the record's header kind.
 */
#ifndef ETLDUMP_KFIELDS_H
#define ETLDUMP_KFIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"
#include "fields.h"

/* Returns "Group/Opcode" (e.g. "Process/DCStart", "Thread/CSwitch") for a
 * kernel event, or NULL when the event is not a known kernel event. */
const char *etl_kernel_event_name(const struct etl_event *ev);

/* Returns the name of the kernel event of HookId hook ("Group/Opcode"), or
 * NULL. */
const char *etl_kernel_hook_name(uint16_t hook);

/* Returns the name of a kernel group (the part of its events' names before
 * the '/', e.g. "SysConfigEx" for the KernelTraceControl SystemConfigEx
 * class), or NULL. */
const char *etl_kernel_group_name(int group);

/* The (group, opcode) index of the layout table, built once per user (no
 * state is shared between threads): etl_ktable_init fills it. */
#define ETL_KTABLE_MAX 2048u
#define ETL_KREPEAT_MAX 256u
struct etl_kidx {
    uint32_t key;             /* group << 8 | opcode */
    uint16_t layout;
    uint8_t vmin, vmax;
};
/* Entries of a table's memo (a power of two). */
#define ETL_KMEMO 8u
struct etl_ktable {
    struct etl_kidx idx[ETL_KTABLE_MAX];
    size_t n;
    char repeat[ETL_KREPEAT_MAX][12]; /* names of repeated fields: Stack1, ... */
    /* Recent events' keys and versions and the layouts they found, by a
     * hash of both (most events follow one of a few kinds): each decoder's
     * own, for a decoder on another thread copies the table
     * (etl_payload_fork). */
    struct etl_kmemo {
        uint32_t key1;        /* key + 1; 0: empty */
        uint8_t version;
        bool newer;
        int32_t layout;       /* -1: none */
    } memo[ETL_KMEMO];
};
void etl_ktable_init(struct etl_ktable *t);

/* Decodes a kernel event's payload into out (which the caller resets). c is
 * a cursor over the payload (ev->data, ev->data_len); it is left after the
 * last decoded byte. Returns ETL_FDEC_OK, ETL_FDEC_NO_LAYOUT (not a kernel
 * event, or no layout for this opcode and version: nothing appended),
 * ETL_FDEC_PARTIAL (a version newer than the table, or bytes past the last
 * field: the known prefix is decoded and *bad_at is where the rest begins) or
 * ETL_FDEC_DAMAGED (a field runs past the payload at *bad_at). */
enum etl_fdec etl_kernel_fields(struct etl_ktable *t, const struct etl_event *ev,
                                struct etl_cursor *c, struct etl_fields *out,
                                size_t *bad_at);

/* The same for events of manifest-based providers whose documented layouts
 * are built in (src/decode/clrlayouts.c: the .NET runtime's providers),
 * keyed by (provider GUID, event id, version); *name receives the event's
 * name ("Provider/Task/Opcode") or NULL. */
enum etl_fdec etl_builtin_fields(const struct etl_event *ev, struct etl_cursor *c,
                                 struct etl_fields *out, const char **name,
                                 size_t *bad_at);

/* Returns the name of the built-in event ev, or NULL. */
const char *etl_builtin_event_name(const struct etl_event *ev);

/* Returns the name of a provider with built-in layouts, or NULL. */
const char *etl_builtin_provider_name(const uint8_t guid[16]);

/* ---- the table's format (used by klayouts.c and the tests) ---- */

/* Field flags. */
enum {
    ETL_KF_FIXED = 1u << 0,   /* len is a fixed length (characters or bytes) */
    ETL_KF_OPTIONAL = 1u << 1,/* decoded only when payload bytes remain */
    ETL_KF_REPEAT = 1u << 2,  /* repeated to the end of the payload, named
                               * <name>1, <name>2, ... (StackWalk stacks) */
    ETL_KF_ARRAY = 1u << 3,   /* len elements, shown as a JSON array */
    ETL_KF_COUNT_FROM = 1u << 4, /* an array whose element count is the value
                               * of field number len of the same list */
    ETL_KF_LEN_FROM = 1u << 5,/* a string or binary whose length (characters
                               * or bytes) is the value of field number len */
    ETL_KF_STRUCT = 1u << 6,  /* the value (or each element) is a structure
                               * of the fields at members */
    ETL_KF_ALIGN = 1u << 7,   /* aligned like a C structure member: zero
                               * padding up to a multiple of its size from the
                               * start of its structure is skipped */
};

/* One field: a TDH input type (decode/intype.h), a display hint, flags. */
struct etl_kfield {
    const char *name;
    uint16_t in;              /* ETL_IN_* */
    uint8_t hint;             /* enum etl_hint */
    uint8_t flags;            /* ETL_KF_* */
    uint16_t len;
    uint8_t nlen;             /* strlen(name) */
    const struct etl_kfield *members; /* ETL_KF_STRUCT: ended by a NULL name */
};

/* Most fields in one list whose values COUNT_FROM and LEN_FROM can use. */
#define ETL_KFIELDS_MAX 64u

/* One layout: a class's field list for some opcodes of a group and a range
 * of versions. */
struct etl_klayout {
    uint16_t group;           /* HookId group, or ETL_KG_* for GUID-only classes */
    uint8_t vmin, vmax;
    const uint8_t *ops;
    size_t nops;
    const struct etl_kfield *fields; /* ended by a NULL name */
};

/* One event name. */
struct etl_kname {
    uint16_t group;
    uint8_t op;
    const char *name;
};

/* A group's name. */
struct etl_kgroupname {
    uint16_t group;
    const char *name;
};

/* One kernel class GUID and its group. */
struct etl_kguid {
    uint8_t guid[16];         /* file byte order */
    uint16_t group;
};

/* Groups of classes that have no HookId group (KernelTraceControl). */
enum {
    ETL_KG_SYSCONFIGEX = 0x100,   /* 9b79ee91-b5fd-41c0-a243-4248e266e9d0 */
    ETL_KG_IMAGEID = 0x101,       /* b3e675d7-2554-4f18-830b-2762732560de */
    ETL_KG_WINSAT = 0x102,        /* ed54dff8-c409-4cf6-bf83-05e1e61a09c4 */
    ETL_KG_METADATA = 0x103,      /* bbccf6c1-6cd1-48c4-80ff-839482e37671 */
};

/* One built-in event of a manifest-based provider. */
struct etl_pevent {
    uint16_t id;
    uint8_t vmin, vmax;
    const char *name;
    const struct etl_kfield *fields; /* ended by a NULL name */
};

/* One provider with built-in layouts; its events sorted by (id, vmin). */
struct etl_pprovider {
    uint8_t guid[16];         /* file byte order */
    const char *name;
    const struct etl_pevent *ev;
    size_t nev;
};

extern const struct etl_pprovider etl_pproviders[];
extern const size_t etl_npproviders;

extern const struct etl_klayout etl_klayouts[];
extern const size_t etl_nklayouts;
extern const struct etl_kgroupname etl_kgroups[];
extern const size_t etl_nkgroups;
extern const struct etl_kname etl_knames[];
extern const size_t etl_nknames;
extern const struct etl_kguid etl_kguids[];
extern const size_t etl_nkguids;

/* Returns the group of a kernel event (HookId group or class GUID), or -1. */
int etl_kernel_group(const struct etl_event *ev);

#endif
