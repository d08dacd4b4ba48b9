/*
 * groupmask.h - PERFINFO_GROUPMASK (doc/format.md §6.3-§6.5): the eight 32-bit masks that
 * say which kinds of kernel event an NT Kernel Logger session records, their
 * PERF_* names, the EVENT_TRACE_FLAG_* names of Masks[0] (the EnableFlags),
 * parsing of name and value lists, and ETW_KERNEL_HEADER_EXTENSION, the
 * payload of the header-extension events (§6.2).
 *
 * A PERF_* value is "conventional": its top three bits select the mask
 * (0-7) and its low 29 bits are the bits in that mask, e.g.
 * PERF_CONTEXT_SWITCH = 0x20000004 is bit 0x4 of Masks[1].
 */
#ifndef ETLDUMP_GROUPMASK_H
#define ETLDUMP_GROUPMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "decode/names.h"

#define ETL_GROUPMASK_MASKS 8

/* HookIds of the events carrying ETW_KERNEL_HEADER_EXTENSION (§6.1):
 * WMI_LOG_TYPE_HEADER_EXTENSION and WMI_LOG_TYPE_GROUP_MASKS_END. */
#define ETL_HOOK_HEADER_EXTENSION 0x0005u
#define ETL_HOOK_GROUP_MASKS_END 0x0020u

#define ETL_PERF_CONTEXT_SWITCH 0x20000004u
#define ETL_PERF_COMPACT_CSWITCH 0x20000100u
#define ETL_EVENT_TRACE_FLAG_CSWITCH 0x00000010u   /* a Masks[0] bit */

/* A conventional value's mask index and bits. */
#define ETL_PERF_INDEX(v) ((unsigned)((uint32_t)(v) >> 29))
#define ETL_PERF_BITS(v) ((uint32_t)(v) & 0x1FFFFFFFu)

struct etl_groupmask {
    uint32_t masks[ETL_GROUPMASK_MASKS];
};

/* PERF_* names by conventional value: the single-bit names first, then the
 * names of combinations and second names of a bit (parsing only). */
extern const struct etl_name etl_perf_names[];
extern const size_t etl_perf_count;

/* EVENT_TRACE_FLAG_* names of the Masks[0] bits, by raw bit (bits 29-31
 * included: they have no conventional value). */
extern const struct etl_name etl_enable_flag_names[];
extern const size_t etl_enable_flag_count;

/* Sets or tests the bits of a conventional value. */
void etl_groupmask_set(struct etl_groupmask *g, uint32_t conventional);
bool etl_groupmask_test(const struct etl_groupmask *g, uint32_t conventional);

/* Result of parsing a list. */
enum etl_gm_parse {
    ETL_GM_OK = 0,
    ETL_GM_UNKNOWN,      /* a name that is neither PERF_* nor EVENT_TRACE_FLAG_* */
    ETL_GM_EMPTY,        /* an empty item (",," or an empty list) */
    ETL_GM_RANGE,        /* a number that is not a 32-bit value */
};

/*
 * Parses a comma-separated list of PERF_* names, EVENT_TRACE_FLAG_* names
 * (Masks[0] bits) and conventional 32-bit values (decimal or 0x hex) into g
 * (cleared first); names are matched without regard to case, blanks around
 * items are ignored. On failure the offending item is copied to bad (cap
 * bytes).
 */
enum etl_gm_parse etl_groupmask_parse(const char *list, struct etl_groupmask *g,
                                      char *bad, size_t cap);

/*
 * Writes the names of the bits set in Masks[index] = mask, separated by '|':
 * the PERF_* name of a bit, else (Masks[0]) its EVENT_TRACE_FLAG_* name;
 * bits without a name as one conventional value (0x60000011 for bits 0x11
 * of Masks[3]), and bits 29-31 of Masks[1-7], which have none, as
 * "Masks[i]:0x%08x". "" for 0. Returns the length (cut short at cap).
 */
size_t etl_groupmask_mask_names(unsigned index, uint32_t mask, char *buf, size_t cap);

/* The same for all eight masks, in mask order, joined by '|'. */
size_t etl_groupmask_names(const struct etl_groupmask *g, char *buf, size_t cap);

/* The EVENT_TRACE_FLAG_* names of Masks[0], other bits in hex ("" for 0). */
size_t etl_enable_flags_str(uint32_t mask0, char *buf, size_t cap);

/* The eight masks as "%08x" words separated by single spaces (72 bytes). */
void etl_groupmask_hex(const struct etl_groupmask *g, char out[72]);

/* What the masks say about context switches. */
enum etl_cswitch_expect {
    ETL_CS_NONE,         /* no PERF_CONTEXT_SWITCH (nor EVENT_TRACE_FLAG_CSWITCH) */
    ETL_CS_CSWITCH,      /* CSwitch events (HookId 0x0524) */
    ETL_CS_COMPACT,      /* and PERF_COMPACT_CSWITCH: compact batches (0x0525) */
};
enum etl_cswitch_expect etl_groupmask_cswitch(const struct etl_groupmask *g);

/* "none", "cswitch" or "compact". */
const char *etl_cswitch_expect_name(enum etl_cswitch_expect e);

/* ETW_KERNEL_HEADER_EXTENSION: eight u32 group masks, then (6.0 and later)
 * the u32 kernel event version. */
struct etl_header_ext {
    struct etl_groupmask gm;
    uint32_t version;
    bool has_version;
};

/* Decodes the payload of a 0x0005 or 0x0020 event from c; false if shorter
 * than the eight masks. */
bool etl_decode_header_ext(struct etl_cursor *c, struct etl_header_ext *out);

#endif
