/*
 * lsan.c - linked into the programs the tests run thousands of times when
 * they are built with AddressSanitizer (Makefile: SAN_LSAN), never
 * otherwise: LeakSanitizer's roots for them, without the program's own
 * globals (LSAN_OPTIONS still has the last word).
 *
 * LeakSanitizer ends every run with a scan for the blocks nothing points
 * to. Its roots are the threads' stacks, registers and TLS and, by default,
 * the writable segments of every module: in the program itself ~10 MB,
 * nearly all the sanitizer runtime's own tables, whose scan was the larger
 * part of a short run on this kind of machine (an AddressSanitizer
 * `etldump -f csv` of a small trace 49 ms, 40 without it, 25 without any
 * leak check; tests/formats.sh 49 s against 41). So the default options
 * here leave the globals out (use_globals=0), and at exit, before the scan,
 * the writable segments of every shared library loaded then are made roots
 * again (__lsan_register_root_region): what libc, libxml2 and the libraries
 * it loads keep in their globals (stdio's buffers, libstdc++'s pool for
 * exceptions) is not a leak. Only the program's own globals are no roots:
 * a block that only they point to at exit is reported as a leak, which the
 * default would not; etldump frees what it made before it exits, and holds
 * none. (Suppressions by module would not do: matching one runs the
 * symbolizer, a process, for every run that loads libxml2.)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <link.h>
#include <stddef.h>
#include <stdint.h>

const char *__lsan_default_options(void);
void __lsan_register_root_region(const void *p, size_t size);

const char *__lsan_default_options(void)
{
    return "use_globals=0";
}

/* Makes the writable segments of a shared library roots. */
static int library_roots(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0; /* the program itself */
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        __lsan_register_root_region((const void *)(uintptr_t)(info->dlpi_addr + ph->p_vaddr),
                                    (size_t)ph->p_memsz);
    }
    return 0;
}

/* Run at exit before LeakSanitizer's check, which the sanitizer's own
 * start-up set to run last. */
__attribute__((destructor)) static void register_library_roots(void)
{
    dl_iterate_phdr(library_roots, NULL);
}
