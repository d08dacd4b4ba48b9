/*
 * swreader.h - the switch stream of a file: every CPU's switches (CSwitch
 * events and expanded compact batches, decoded through the dispatch table)
 * in per-CPU order, each compact switch linked to the next switch on its
 * CPU, merged across CPUs by each switch's own time (doc/format.md §8.3).
 */
#ifndef ETLDUMP_SWREADER_H
#define ETLDUMP_SWREADER_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/cswitch.h"
#include "etl/etl.h"

struct etl_switch_reader;

struct etl_switch_stats {
    uint64_t cswitch, compact, implausible_states;
};

/* Creates a switch reader over the streams of f with the given bias (0: from
 * the build). NULL when out of memory (f is marked). */
struct etl_switch_reader *etl_switch_reader_new(struct etl_file *f,
                                                struct etl_streams *s,
                                                unsigned max_wait_reason);

/* Returns the next switch in global time order, or false at the end. */
bool etl_switch_next(struct etl_switch_reader *r, struct etl_switch *out);

/* Returns what the reader has counted so far. */
const struct etl_switch_stats *etl_switch_reader_stats(const struct etl_switch_reader *r);

/* Returns the bias in use. */
unsigned etl_switch_reader_bias(const struct etl_switch_reader *r);

/* Frees the reader (NULL is allowed). */
void etl_switch_reader_free(struct etl_switch_reader *r);

#endif
