/* xml.c - placeholder, replaced by the libxml2 printer. */
#include "print/printer.h"
static int xml_nop(struct etl_printer *p) { (void)p; return 0; }
static int xml_bf(struct etl_printer *p, const char *a, const struct etl_file *f) { (void)p; (void)a; (void)f; return 0; }
static int xml_bt(struct etl_printer *p, const struct etl_table *t) { p->table = t; return 0; }
static int xml_row(struct etl_printer *p, const struct etl_value *v) { (void)p; (void)v; return 0; }
static int xml_pr(struct etl_printer *p, uint64_t o, const char *m) { (void)p; (void)o; (void)m; return 0; }
const struct etl_printer_ops etl_print_xml = { "xml", true, xml_bf, xml_bt, xml_row, xml_nop, xml_pr, xml_nop, xml_nop, NULL };
