/*
 * kmacros.h - constructors for the entries of the built-in layout tables
 * (klayouts.c, clrlayouts.c; the table format is in kfields.h). Private to
 * those tables.
 */
#ifndef ETLDUMP_KMACROS_H
#define ETLDUMP_KMACROS_H

#include "decode/intype.h"
#include "decode/kfields.h"

/* Field constructors: a name, then its type. */
#define F(n, t) { n, t, ETL_H_NONE, 0, 0, sizeof(n) - 1, NULL }
#define FH(n, t, h) { n, t, h, 0, 0, sizeof(n) - 1, NULL }
#define U8(n) F(n, ETL_IN_UINT8)
#define I8(n) F(n, ETL_IN_INT8)
#define U16(n) F(n, ETL_IN_UINT16)
#define I16(n) F(n, ETL_IN_INT16)
#define U32(n) F(n, ETL_IN_UINT32)
#define I32(n) F(n, ETL_IN_INT32)
#define X32(n) F(n, ETL_IN_HEXINT32)
#define U64(n) F(n, ETL_IN_UINT64)
#define I64(n) F(n, ETL_IN_INT64)
#define X64(n) F(n, ETL_IN_HEXINT64)
#define X16(n) FH(n, ETL_IN_UINT16, ETL_H_HEX)
#define PTR(n) F(n, ETL_IN_POINTER)
#define SZT(n) F(n, ETL_IN_SIZET)
#define WSZ(n) F(n, ETL_IN_UNICODESTRING)
#define ASZ(n) F(n, ETL_IN_ANSISTRING)
#define GUID(n) F(n, ETL_IN_GUID)
#define FTIME(n) F(n, ETL_IN_FILETIME)
#define SID(n) F(n, ETL_IN_WBEMSID)
#define WCH(n, k) { n, ETL_IN_UNICODESTRING, ETL_H_NONE, ETL_KF_FIXED, k, sizeof(n) - 1, NULL }
#define BIN(n, k) { n, ETL_IN_BINARY, ETL_H_NONE, ETL_KF_FIXED, k, sizeof(n) - 1, NULL }
#define OPT_WSZ(n) { n, ETL_IN_UNICODESTRING, ETL_H_NONE, ETL_KF_OPTIONAL, 0, sizeof(n) - 1, NULL }
#define ARR(n, t, k) { n, t, ETL_H_NONE, ETL_KF_ARRAY, k, sizeof(n) - 1, NULL }
#define PORT(n) FH(n, ETL_IN_UINT16, ETL_H_PORT)
#define IPV4(n) FH(n, ETL_IN_UINT32, ETL_H_IPV4)
#define IPV6(n) { n, ETL_IN_BINARY, ETL_H_IPV6, ETL_KF_FIXED, 16, sizeof(n) - 1, NULL }
#define STACK { "Stack", ETL_IN_POINTER, ETL_H_NONE, ETL_KF_REPEAT, 0, 5, NULL }
#define END { NULL, 0, 0, 0, 0, 0, NULL }

#define FIELDS(...) ((const struct etl_kfield[]){ __VA_ARGS__, END })
#define OPS(...) ((const uint8_t[]){ __VA_ARGS__ }), sizeof((const uint8_t[]){ __VA_ARGS__ })
/* A structure, an array counted by field number i of the same list, a
 * string or binary whose length is field number i. */
#define STRUCT(n, m) { n, 0, ETL_H_NONE, ETL_KF_STRUCT, 0, sizeof(n) - 1, m }
#define STRUCTS_FROM(n, i, m) { n, 0, ETL_H_NONE, ETL_KF_STRUCT | ETL_KF_COUNT_FROM, i, sizeof(n) - 1, m }
#define ARR_FROM(n, t, i) { n, t, ETL_H_NONE, ETL_KF_COUNT_FROM, i, sizeof(n) - 1, NULL }
#define BIN_FROM(n, i) { n, ETL_IN_BINARY, ETL_H_NONE, ETL_KF_LEN_FROM, i, sizeof(n) - 1, NULL }

/* GUIDs in file byte order: Data1 and Data2, Data3 little-endian. */
#define GB(d1, d2, d3, a, b, c, d, e, f, g, h)                                   \
    { (uint8_t)(d1), (uint8_t)((d1) >> 8), (uint8_t)((d1) >> 16),                \
      (uint8_t)((d1) >> 24), (uint8_t)(d2), (uint8_t)((d2) >> 8), (uint8_t)(d3), \
      (uint8_t)((d3) >> 8), a, b, c, d, e, f, g, h }

#endif
