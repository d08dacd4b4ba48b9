/*
 * populate.c - linked into the programs the tests run thousands of times
 * when they are built with AddressSanitizer (Makefile: SAN_POPULATE), never
 * otherwise.
 *
 * LeakSanitizer ends every run with a scan of the program's globals, most
 * of them the sanitizer runtime's own (about 10 MB of zeros, never touched
 * before). Read one page at a time, each costs a page fault; on a virtual
 * machine where a fault is dear that was most of a short run: `etldump
 * --version` took 45-50 ms, 27 without the leak check. Before main, this
 * asks the kernel to map every page of each module's writable segments for
 * reading in one call a segment (MADV_POPULATE_READ, Linux 5.14 on; on an
 * older kernel the call fails and nothing changes), which costs a fraction
 * of the faults it spares: 30 ms a run with the leak check. Reading
 * changes no byte the program sees.
 */
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static int populate_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    uintptr_t pg = *(const uintptr_t *)ctx;
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        uintptr_t start = (uintptr_t)(info->dlpi_addr + ph->p_vaddr);
        uintptr_t a = start & ~(pg - 1);
        uintptr_t e = (start + (uintptr_t)ph->p_memsz + pg - 1) & ~(pg - 1);
        (void)madvise((void *)a, e - a, MADV_POPULATE_READ);
    }
    return 0;
}

__attribute__((constructor)) static void populate_globals(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0 || (pg & (pg - 1)) != 0)
        return;
    uintptr_t page = (uintptr_t)pg;
    dl_iterate_phdr(populate_module, &page);
}
