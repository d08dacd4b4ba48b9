/*
 * xmlwf - whether files are well-formed XML, many in one process: reads one
 * path a line from standard input and answers each with one line, "ok" or
 * "bad MESSAGE" (libxml2's first error, as xmllint --noout --huge would
 * give it), flushed at once, so that a script can ask through a pipe
 * (tests/hostile.sh, which checks thousands of outputs and would otherwise
 * start xmllint for each). Ends at the end of its input.
 * Usage: build/xmlwf < PATHS
 */
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    char path[4096];
    xmlInitParser();
    while (fgets(path, sizeof path, stdin)) {
        size_t n = strcspn(path, "\n");
        path[n] = '\0';
        xmlParserCtxtPtr c = xmlNewParserCtxt();
        if (!c) {
            printf("bad %s: out of memory\n", path);
            fflush(stdout);
            continue;
        }
        xmlDocPtr d = xmlCtxtReadFile(c, path, NULL,
                                      XML_PARSE_HUGE | XML_PARSE_NONET | XML_PARSE_NOERROR |
                                          XML_PARSE_NOWARNING);
        const xmlError *e = xmlCtxtGetLastError(c);
        if (d) { /* without XML_PARSE_RECOVER, a document only when well-formed */
            printf("ok\n");
        } else {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not read");
            msg[strcspn(msg, "\r\n")] = '\0';
            printf("bad %s:%d: %s\n", path, e ? e->line : 0, msg);
        }
        xmlFreeDoc(d);
        xmlFreeParserCtxt(c);
        fflush(stdout);
    }
    xmlCleanupParser();
    return 0;
}
