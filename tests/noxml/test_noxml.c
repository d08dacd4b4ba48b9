/*
 * test_noxml - the library on a machine without libxml2: linked with an
 * xmlsetup.o that looks for libxml2 under a name no file has (the Makefile's
 * build/tests/noxml/xmlsetup.o) and not with libxml2 itself. The XML
 * printer, used without etl_library_xml first, finds out on its own and the
 * run ends with ETL_RESULT_NO_LIBXML2, nothing written; the other printers
 * work. Check runs each test in a process of its own, so each meets
 * libxml2's absence for the first time.
 */
#include "etldump.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char sample[] = "samples/demo-compact.etl";

/* Dumps the sample's switches through printer `name` into a temporary
 * file; returns how the run ended, the printer's finish in *fin and the
 * bytes written in *bytes. */
static enum etl_result dump_with(const char *name, int *fin, long *bytes)
{
    FILE *f = tmpfile();
    ck_assert(f != NULL);
    struct etl_out *o = etl_out_new(fileno(f));
    ck_assert(o != NULL);
    struct etl_printer *p = etl_printer_new(name, o, ETL_TIME_REL);
    ck_assert(p != NULL);
    struct etl_input in = { sample, sample, -1, NULL, 0, false };
    struct etl_view_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.view = ETL_VIEW_SWITCHES;
    vo.threads = 1;
    struct etl_messages m;
    memset(&m, 0, sizeof m);
    enum etl_result r = etl_dump(&in, &vo, p, &m);
    *fin = etl_printer_finish(p);
    etl_printer_free(p);
    etl_out_free(o);
    ck_assert(fseek(f, 0, SEEK_END) == 0);
    *bytes = ftell(f);
    fclose(f);
    return r;
}

START_TEST(xml_printer_refuses_on_its_own)
{
    int fin;
    long bytes;
    enum etl_result r = dump_with("xml", &fin, &bytes);
    ck_assert_int_eq(r, ETL_RESULT_NO_LIBXML2);
    ck_assert_int_eq(fin, -1);
    ck_assert_int_eq(bytes, 0);
    const char *why = etl_library_xml_error();
    ck_assert_msg(why && strstr(why, "libxml2-not-here"), "reason: %s", why ? why : "(none)");
}
END_TEST

START_TEST(library_xml_says_why)
{
    char err[256] = "";
    ck_assert_int_eq(etl_library_xml(err, sizeof err), -1);
    ck_assert_msg(strstr(err, "libxml2-not-here") != NULL, "err: %s", err);
    ck_assert(etl_library_xml_error() != NULL);
    /* Asked again: the same answer, not a crash or a success. */
    ck_assert_int_eq(etl_library_xml(err, sizeof err), -1);
}
END_TEST

START_TEST(other_printers_work)
{
    static const char *const names[] = { "csv", "text", "json" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int fin;
        long bytes;
        enum etl_result r = dump_with(names[i], &fin, &bytes);
        ck_assert_msg(r == ETL_RESULT_CLEAN, "%s: result %d", names[i], (int)r);
        ck_assert_int_eq(fin, 0);
        ck_assert_msg(bytes > 1000, "%s: %ld bytes", names[i], bytes);
    }
    ck_assert(etl_library_xml_error() == NULL); /* not needed, not tried */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("noxml");
    TCase *tc = tcase_create("noxml");
    /* In this order, so that with CK_FORK=no (make valgrind: one process)
     * the other printers still run before anything has tried libxml2, and
     * the XML printer is still the first to. */
    tcase_add_test(tc, other_printers_work);
    tcase_add_test(tc, xml_printer_refuses_on_its_own);
    tcase_add_test(tc, library_xml_says_why);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
