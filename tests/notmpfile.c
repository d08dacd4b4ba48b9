/* Preloaded (LD_PRELOAD) into runs of tests/unix.sh: open and openat (and
 * their 64-bit names) refuse O_TMPFILE with EOPNOTSUPP, as a kernel or a
 * file system without unnamed temporary files does, and append a line to
 * the file NOTMPFILE_LOG (when set) each time: etldump must then make a
 * named temporary file and unlink it at once. Everything else is passed
 * to the C library's own functions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

/* Whether flags ask for an unnamed file: then refused (and logged). */
static int refused(int flags)
{
#ifdef O_TMPFILE
    if ((flags & O_TMPFILE) != O_TMPFILE)
        return 0;
    const char *log = getenv("NOTMPFILE_LOG");
    if (log) {
        static openat_fn real;
        if (!real)
            real = (openat_fn)(void (*)(void))dlsym(RTLD_NEXT, "openat");
        int fd = real ? real(AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
        if (fd >= 0) {
            static const char line[] = "O_TMPFILE refused\n";
            ssize_t w = write(fd, line, sizeof line - 1);
            (void)w;
            close(fd);
        }
    }
    errno = EOPNOTSUPP;
    return 1;
#else
    (void)flags;
    return 0;
#endif
}

/* The mode argument, present when flags create a file. */
#define MODE_ARG(flags, mode)                                                      \
    do {                                                                           \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                     \
            va_list ap;                                                            \
            va_start(ap, flags);                                                   \
            mode = va_arg(ap, mode_t);                                             \
            va_end(ap);                                                            \
        }                                                                          \
    } while (0)

#define OPEN_LIKE(name)                                                            \
    int name(const char *path, int flags, ...)                                     \
    {                                                                              \
        mode_t mode = 0;                                                           \
        MODE_ARG(flags, mode);                                                     \
        if (refused(flags))                                                        \
            return -1;                                                             \
        static open_fn real;                                                       \
        if (!real)                                                                 \
            real = (open_fn)(void (*)(void))dlsym(RTLD_NEXT, #name);               \
        return real(path, flags, mode);                                            \
    }

#define OPENAT_LIKE(name)                                                          \
    int name(int dir, const char *path, int flags, ...)                            \
    {                                                                              \
        mode_t mode = 0;                                                           \
        MODE_ARG(flags, mode);                                                     \
        if (refused(flags))                                                        \
            return -1;                                                             \
        static openat_fn real;                                                     \
        if (!real)                                                                 \
            real = (openat_fn)(void (*)(void))dlsym(RTLD_NEXT, #name);             \
        return real(dir, path, flags, mode);                                       \
    }

OPEN_LIKE(open)
OPEN_LIKE(open64)
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)
