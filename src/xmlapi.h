/*
 * xmlapi.h - the libxml2 functions the library calls, reached through a
 * table that xmlsetup.c fills when libxml2 is first needed (the XML printer,
 * an EventSource manifest): etldump is not linked with libxml2, so a run
 * that needs neither does not load it, nor the libraries it needs in turn
 * (ICU, the C++ library), which took most of the start of a run.
 *
 * Include it after libxml2's own headers: each name below then stands for
 * its entry in the table, with the type libxml2's header gives it, and the
 * code calls them as it would call libxml2. etl_xml_setup (xmlsetup.h) must
 * have returned true before the first call.
 */
#ifndef ETLDUMP_XMLAPI_H
#define ETLDUMP_XMLAPI_H

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlIO.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>
#include <libxml/xmlwriter.h>

/* Every function taken from libxml2, by name. */
#define ETL_XML_FUNCTIONS(X)                                                                  \
    X(xmlMemSetup)                                                                            \
    X(xmlInitParser)                                                                          \
    X(xmlCleanupParser)                                                                       \
    X(xmlSetGenericErrorFunc)                                                                 \
    X(xmlSetStructuredErrorFunc)                                                              \
    X(xmlNewParserCtxt)                                                                       \
    X(xmlCtxtReadIO)                                                                          \
    X(xmlFreeParserCtxt)                                                                      \
    X(xmlDocGetRootElement)                                                                   \
    X(xmlFreeDoc)                                                                             \
    X(xmlOutputBufferCreateIO)                                                                \
    X(xmlOutputBufferClose)                                                                   \
    X(xmlNewTextWriter)                                                                       \
    X(xmlFreeTextWriter)                                                                      \
    X(xmlTextWriterSetIndent)                                                                 \
    X(xmlTextWriterSetIndentString)                                                           \
    X(xmlTextWriterStartDocument)                                                             \
    X(xmlTextWriterEndDocument)                                                               \
    X(xmlTextWriterStartElement)                                                              \
    X(xmlTextWriterEndElement)                                                                \
    X(xmlTextWriterWriteAttribute)                                                            \
    X(xmlTextWriterWriteRawLen)                                                               \
    X(xmlTextWriterFlush)

#define ETL_XML_ENTRY(name) __typeof__(name) *name;
struct etl_xml_api {
    ETL_XML_FUNCTIONS(ETL_XML_ENTRY)
};
#undef ETL_XML_ENTRY

/* The table (xmlsetup.c); set once, by the first etl_xml_setup. */
extern struct etl_xml_api etl_xml_api;

/* The names, each for its entry. A name in the list without its line here
 * would call libxml2 itself and fail to link; a line without its name in the
 * list names no entry and fails to compile. */
#ifndef ETL_XML_API_NO_NAMES
#define xmlMemSetup (*etl_xml_api.xmlMemSetup)
#define xmlInitParser (*etl_xml_api.xmlInitParser)
#define xmlCleanupParser (*etl_xml_api.xmlCleanupParser)
#define xmlSetGenericErrorFunc (*etl_xml_api.xmlSetGenericErrorFunc)
#define xmlSetStructuredErrorFunc (*etl_xml_api.xmlSetStructuredErrorFunc)
#define xmlNewParserCtxt (*etl_xml_api.xmlNewParserCtxt)
#define xmlCtxtReadIO (*etl_xml_api.xmlCtxtReadIO)
#define xmlFreeParserCtxt (*etl_xml_api.xmlFreeParserCtxt)
#define xmlDocGetRootElement (*etl_xml_api.xmlDocGetRootElement)
#define xmlFreeDoc (*etl_xml_api.xmlFreeDoc)
#define xmlOutputBufferCreateIO (*etl_xml_api.xmlOutputBufferCreateIO)
#define xmlOutputBufferClose (*etl_xml_api.xmlOutputBufferClose)
#define xmlNewTextWriter (*etl_xml_api.xmlNewTextWriter)
#define xmlFreeTextWriter (*etl_xml_api.xmlFreeTextWriter)
#define xmlTextWriterSetIndent (*etl_xml_api.xmlTextWriterSetIndent)
#define xmlTextWriterSetIndentString (*etl_xml_api.xmlTextWriterSetIndentString)
#define xmlTextWriterStartDocument (*etl_xml_api.xmlTextWriterStartDocument)
#define xmlTextWriterEndDocument (*etl_xml_api.xmlTextWriterEndDocument)
#define xmlTextWriterStartElement (*etl_xml_api.xmlTextWriterStartElement)
#define xmlTextWriterEndElement (*etl_xml_api.xmlTextWriterEndElement)
#define xmlTextWriterWriteAttribute (*etl_xml_api.xmlTextWriterWriteAttribute)
#define xmlTextWriterWriteRawLen (*etl_xml_api.xmlTextWriterWriteRawLen)
#define xmlTextWriterFlush (*etl_xml_api.xmlTextWriterFlush)
#endif

#endif
