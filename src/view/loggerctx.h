/*
 * loggerctx.h - the --logger-context view: a WMI_LOGGER_CONTEXT read from a
 * raw memory image (a file, at an offset) and shown as one row: every field
 * of the chosen layout, the logger mode, clock type, Flags and RequestFlag
 * by name.
 */
#ifndef ETLDUMP_VIEW_LOGGERCTX_H
#define ETLDUMP_VIEW_LOGGERCTX_H

#include <stddef.h>
#include <stdint.h>

#include "decode/loggerctx.h"
#include "print/printer.h"

/*
 * Splits "FILE[@OFFSET]" (OFFSET decimal or 0x hex; the last '@' followed by
 * a number) into path (malloc'd, the caller frees) and offset. false when out
 * of memory.
 */
bool etl_lc_spec_parse(const char *spec, char **path, uint64_t *offset);

/*
 * Reads the structure at offset of path and prints it. Returns 0; -1 after a
 * write error; -2 when the input cannot be read or is too short for the
 * layout, with the message ("FILE: offset 0x...: what") in err (cap bytes)
 * and nothing printed.
 */
int etl_view_logger_context(struct etl_printer *p, const char *path, uint64_t offset,
                            enum etl_win win, enum etl_arch arch, char *err,
                            size_t cap);

/* The table of a layout's architecture (pointers are 4 or 8 bytes). */
const struct etl_table *etl_table_logger_context(enum etl_arch arch);

#endif
