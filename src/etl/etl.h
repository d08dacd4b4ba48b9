/*
 * etl.h - the ETL reader: a file (opaque), its trace headers, its events in
 * file order or in each CPU's order, and their merge into one time order.
 *
 * The reader never prints and never exits. Problems are reported through
 * the file's diagnostic callback with the file offset they concern, and
 * reading goes on with the next event or buffer. A pass that reads the file
 * ahead of the view (a pre-pass) opens a scope: inside it problems are
 * dropped or held, and the decompression budget it used is given back.
 * Layouts: doc/format.md §1-§4 and §10-§12, cited per field below.
 */
#ifndef ETLDUMP_ETL_H
#define ETLDUMP_ETL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

/* Largest decompressed buffer accepted (ETW buffers are at most 16 MiB). */
#define ETL_MAX_BUFFER_SIZE (16u * 1024u * 1024u)
/* Highest CPU index accepted (ETW_PROCESSOR_INDEX_MASK 0x07FF). */
#define ETL_MAX_CPUS 2048u
/* Most buffers indexed: the index takes 16 bytes a buffer (plus 4 for the
 * per-CPU order), so memory stays bounded whatever the file says. A test
 * builds the reader with fewer (build/tests/test_reader_64, Makefile). */
#ifndef ETL_MAX_BUFFERS
#define ETL_MAX_BUFFERS (1u << 21)
#endif

/* Trace header kinds (§3.2). The order is that of etl_kind_name. */
enum etl_kind {
    ETL_KIND_SYSTEM32,
    ETL_KIND_SYSTEM64,
    ETL_KIND_COMPACT32,
    ETL_KIND_COMPACT64,
    ETL_KIND_PERFINFO32,
    ETL_KIND_PERFINFO64,
    ETL_KIND_FULL32,
    ETL_KIND_FULL64,
    ETL_KIND_INSTANCE32,
    ETL_KIND_INSTANCE64,
    ETL_KIND_EVENT_HEADER32,
    ETL_KIND_EVENT_HEADER64,
    ETL_KIND_MESSAGE,
    ETL_KIND_COUNT
};

/* Returns true for the kernel's header kinds, whose events carry a HookId. */
static inline bool etl_kind_is_kernel(unsigned kind)
{
    return kind <= ETL_KIND_PERFINFO64;
}

/* Which optional fields an etl_event carries: eight at most, as the
 * every-event view hands them to other threads in a byte (events.c,
 * ev_row). */
enum {
    ETL_EV_TS = 1u << 0,       /* ts */
    ETL_EV_HOOK = 1u << 1,     /* hook_id */
    ETL_EV_GUID = 1u << 2,     /* guid (provider) */
    ETL_EV_EVENT_ID = 1u << 3, /* event_id */
    ETL_EV_OPCODE = 1u << 4,   /* opcode */
    ETL_EV_VERSION = 1u << 5,  /* version */
    ETL_EV_TID = 1u << 6,      /* tid and pid */
    ETL_EV_STRING_ONLY = 1u << 7, /* EVENT_HEADER flag STRING_ONLY: the data is
                                   * one NUL-terminated UTF-16LE string (§3.8) */
};

/* One event record as found in a buffer; pointers are valid until the next
 * event is read from the same stream. */
struct etl_event {
    int64_t ts;               /* raw clock value */
    const uint8_t *data;      /* event data after header and extended items */
    const uint8_t *ext;       /* PERFINFO extended items (PEBS then PMC) */
    const uint8_t *ext_items; /* EVENT_HEADER extended data items (§3.8), or NULL */
    uint64_t buffer_offset;   /* file offset of the buffer holding the event */
    uint32_t event_offset;    /* offset of the event in the (decompressed) buffer */
    uint32_t data_len;        /* bytes at data */
    uint32_t ext_items_len;   /* bytes at ext_items */
    uint32_t tid, pid;
    uint32_t flags;           /* ETL_EV_* */
    uint16_t cpu;             /* processor of the buffer */
    uint16_t size;            /* record size including its header */
    uint16_t hook_id;
    uint16_t event_id;
    uint16_t version;
    uint8_t opcode;
    uint8_t kind;             /* enum etl_kind */
    uint8_t ptr_size;         /* 4 for the *32 kinds, 8 otherwise */
    uint8_t pmc_count;        /* PMC counters among ext items */
    uint8_t pebs;             /* 1 if a PEBS index leads ext */
    uint8_t compressed;       /* the buffer was compressed: offsets are not file offsets */
    uint8_t guid[16];         /* provider GUID, in file byte order */
};

/* The logfile header event (§4), as much as later steps need. */
struct etl_logfile {
    uint32_t buffer_size;
    uint8_t version[4];       /* major, minor, sub, subminor */
    uint32_t build;           /* ProviderVersion */
    uint32_t cpus;
    int64_t end_time;         /* FILETIME */
    uint32_t timer_resolution;
    uint32_t max_file_size;
    uint32_t log_file_mode;
    uint32_t buffers_written;
    uint32_t start_buffers;
    uint32_t pointer_size;
    uint32_t events_lost;
    uint32_t cpu_mhz;
    int64_t boot_time;        /* FILETIME */
    int64_t perf_freq;
    int64_t start_time;       /* FILETIME */
    uint32_t clock_type;      /* ReservedFlags */
    uint32_t buffers_lost;
    struct etl_time_zone tz;  /* of the recording machine */
    int64_t t0;               /* timestamp of the header event */
    char logger_name[256];    /* UTF-8 converted from UTF-16LE */
    char log_file_name[512];
    uint32_t name_damage_at;  /* byte of the event data where a name lacks its
                                 terminator, or 0 */
};

/* What the buffer index counts: every buffer read, the compressed ones,
 * and those flagged as having lost events or following lost buffers; and
 * the processors that have buffers. */
struct etl_buffer_totals {
    uint64_t buffers, bytes;
    uint64_t compressed, compressed_bytes;
    uint64_t events_lost_flagged, buffer_lost_flagged;
    uint64_t repeated, repeated_bytes; /* of them, buffers that repeat one
                                        * before byte for byte: not read */
    uint64_t cpus[ETL_MAX_CPUS / 64]; /* bit c % 64 of word c / 64: a buffer
                                       * of processor c was indexed */
};

/* Where a file's messages go: problems (damaged data, at a file offset;
 * counted), warnings and notes (not counted), and progress (bytes of
 * buffers read by the view's pass, of the file's total). Any may be NULL. */
struct etl_diag {
    void (*problem)(void *ctx, uint64_t offset, const char *msg);
    void (*warning)(void *ctx, const char *msg);
    void (*note)(void *ctx, const char *msg);
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *ctx;
};

struct etl_file;

/* Result of opening a file. */
enum etl_open_status {
    ETL_OPEN_OK = 0,
    ETL_OPEN_IO,       /* cannot be opened or read (errno kept) */
    ETL_OPEN_NOT_ETL,  /* no ETL header buffer at the start */
    ETL_OPEN_NOMEM,    /* out of memory */
    ETL_OPEN_TEMP,     /* a stream could not be copied to a temporary file
                        * (etl_temp_dir; errno kept) */
    ETL_OPEN_EMPTY,    /* no byte to read: not an ETL file either */
    ETL_OPEN_CUT,      /* the file ends inside its logfile header: a trace
                        * cut short, with no event to read */
};

/*
 * Opens a trace, reads its logfile header and indexes its buffers (those
 * of a regular file without compressed buffers by its header when first
 * needed: see etl_file_index). name is what messages call it (copied).
 * From a path; from a descriptor open for reading (not closed by
 * etl_close); from len bytes at data (not copied: they must outlive the
 * file); etl_open_fd_here reads a descriptor from where it stands and
 * leaves it at its end, as a program reads its standard input (a regular
 * file that does not stand at its start is then copied like a stream). A
 * path or descriptor that is not a regular file (a pipe, a FIFO, a
 * terminal) is first copied to an unlinked temporary file in $TMPDIR (or
 * /tmp), so memory stays bounded and nothing is left behind. On failure
 * NULL, with the reason in *st (and errno for ETL_OPEN_IO). Messages go to
 * d (copied; NULL: none), starting with the problems found while indexing
 * at open.
 */
struct etl_file *etl_open_path(const char *path, const struct etl_diag *d,
                               enum etl_open_status *st);
struct etl_file *etl_open_fd(int fd, const char *name, const struct etl_diag *d,
                             enum etl_open_status *st);
struct etl_file *etl_open_fd_here(int fd, const char *name, const struct etl_diag *d,
                                  enum etl_open_status *st);
struct etl_file *etl_open_mem(const void *data, size_t len, const char *name,
                              const struct etl_diag *d, enum etl_open_status *st);

/* Releases the file (NULL is allowed). A file whose logfile header gave no
 * clock frequency gets its warning then, after the output (times were
 * computed at 10 MHz). */
void etl_close(struct etl_file *f);

/* What the file is called in messages. */
const char *etl_file_name(const struct etl_file *f);
/* The logfile header. */
const struct etl_logfile *etl_file_header(const struct etl_file *f);
/* Bytes of the file. */
uint64_t etl_file_size(const struct etl_file *f);
/* The clock conversion of the trace (§5), derived once at open. */
const struct etl_clock *etl_file_clock(const struct etl_file *f);
/* Indexes the buffers of the file, if that is not done: the problems found
 * are reported now (in no scope). etl_open does it, except for a regular
 * file without compressed buffers by its header: there the first walk in
 * file order (etl_walk_file) indexes each buffer as it reads it, one system
 * call fewer a buffer, and anything else that needs the index
 * (etl_file_totals, etl_streams_new, etl_walk_first_buffers, a walk inside
 * a scope) builds it first. The same problems either way; their order may
 * differ. False when memory ran out. */
bool etl_file_index(struct etl_file *f);
/* The buffers indexed (indexing them first, if that is not done). */
const struct etl_buffer_totals *etl_file_totals(struct etl_file *f);

/* Threads a walk in file order (etl_walk_file) or a merge of the
 * processors' streams (etl_streams_new) may use: with more than one, other
 * threads decompress compressed buffers ahead of it. The same events and
 * messages in the same order whatever the number (0 and 1: one). */
void etl_file_set_threads(struct etl_file *f, unsigned threads);
/* Problems reported so far (outside scopes). */
uint64_t etl_file_problems(const struct etl_file *f);

/* Replaces where f's messages go (problems are still counted as they are
 * reported); *old receives the previous destinations. */
void etl_file_swap_diag(struct etl_file *f, const struct etl_diag *d, struct etl_diag *old);

/* Marks that memory ran out: the run ends with its own outcome. */
void etl_file_nomem(struct etl_file *f);
/* Returns true once memory has run out (or a temporary file was lost). */
bool etl_file_is_nomem(const struct etl_file *f);
/* Marks that a temporary file written for f could not be read back: the
 * run ends as when memory runs out, with its own message. */
void etl_file_temp_lost(struct etl_file *f);
/* Returns true once a temporary file could not be read back. */
bool etl_file_is_temp_lost(const struct etl_file *f);

/* Reports a problem at a file offset (formats like printf). */
void etl_report(struct etl_file *f, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Shows a warning about f (formats like printf); not a problem. */
void etl_warn(const struct etl_file *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Shows a note about f (formats like printf): information, not a fault. */
void etl_note(const struct etl_file *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Reports a problem at byte `at` of an event's data, naming the file offset
 * (or, in a compressed buffer, the buffer and the decompressed offset). */
void etl_report_event(struct etl_file *f, const struct etl_event *ev, size_t at,
                      const char *msg);

/* Writes what etl_report_event reports about what at byte `at` of ev's
 * data into msg (cap bytes) and returns the file offset it names. */
uint64_t etl_event_problem(const struct etl_event *ev, size_t at, const char *what,
                           char *msg, size_t cap);

/*
 * A scope around a pre-pass. Inside it, problems are not reported: they are
 * dropped, or held while etl_scope_keep(s, true) is in force. etl_scope_end
 * gives back the decompression budget the pass used and leaves the held
 * problems in s; etl_scope_replay reports them then (counting them) and
 * frees them. At most ETL_SCOPE_MAX_HELD are kept; the rest are counted.
 */
#define ETL_SCOPE_MAX_HELD 1000u
struct etl_held;
struct etl_scope {
    struct etl_scope *outer;
    struct etl_held *held;
    size_t nheld, cap;
    uint64_t dropped_held;    /* held problems past the cap */
    uint64_t inflated;        /* the budget used before the scope */
    bool keep;
};
void etl_scope_begin(struct etl_file *f, struct etl_scope *s, bool keep);
void etl_scope_keep(struct etl_scope *s, bool keep);
void etl_scope_end(struct etl_file *f, struct etl_scope *s);
void etl_scope_replay(struct etl_file *f, struct etl_scope *s);
/* Keeps the first n problems held in s, forgetting the others (--strict:
 * a view that stops at the first problem says that one). */
void etl_scope_trim(struct etl_scope *s, size_t n);

/* Returns the header kind's name (SYSTEM64, PERFINFO64, MESSAGE, ...). */
const char *etl_kind_name(unsigned kind);
/* strlen(etl_kind_name(kind)). */
size_t etl_kind_name_len(unsigned kind);

/* Result of parsing one record. */
enum etl_parse_status {
    ETL_PARSE_OK = 0,
    ETL_PARSE_END,      /* filler or too few bytes: the buffer's events end here */
    ETL_PARSE_BAD,      /* a damaged record: the rest of the buffer is unusable */
};

/* Parses the record at buf[off..len); fills ev and *next (aligned offset of the
 * following record). On ETL_PARSE_BAD, *why says what is wrong. */
enum etl_parse_status etl_parse_event(const uint8_t *buf, size_t len, size_t off,
                                      struct etl_event *ev, size_t *next,
                                      const char **why);

/* A PERFINFO64 record whole and sound as a pass that reads runs of them by
 * their heads sees it (etl_stream_heads). */
struct etl_head {
    int64_t ts;               /* raw clock value */
    uint32_t offset;          /* offset of the record in its buffer */
    uint16_t hook_id;
    uint16_t size;            /* record size including its header */
};

/* Parses the run of PERFINFO64 records whole and sound from buf[off..len),
 * at most max of them, into h; returns how many, with *next the offset of
 * the record after them (off when none). Each is the record etl_parse_event
 * would return ETL_PARSE_OK for, with the same kind, hook_id, ts and size;
 * anything else ends the run. */
size_t etl_parse_heads(const uint8_t *buf, size_t len, size_t off, struct etl_head *h,
                       size_t max, size_t *next);

/* Consecutive PERFINFO64 records whole and sound of one buffer whose
 * HookIds have the same class (etl_parse_runs), added up. */
struct etl_hook_run {
    uint32_t cls;             /* their class, not 0 */
    uint32_t count;           /* how many records */
    uint64_t bytes;           /* their sizes added up, headers included */
    int64_t first, last;      /* their least and greatest raw clock values */
};

/* Parses PERFINFO64 records whole and sound from buf[off..len), as
 * etl_parse_heads does, each of class cls[its HookId] (cls: 65536 entries;
 * NULL: every HookId of class 1), into runs of consecutive records of one
 * class, at most max runs into r; returns how many, with *next the offset
 * of the first record not in them (off when none): anything but such a
 * record, a record of class 0, or the first of a run past max. Counts
 * without a record's head in memory. With ahead, for a buffer read in
 * place (the file's mapping or memory block), it asks for the bytes ahead
 * of each record as etl_parse_heads does (a buffer copied or decompressed
 * is near already). */
size_t etl_parse_runs(const uint8_t *buf, size_t len, size_t off, const uint32_t *cls,
                      struct etl_hook_run *r, size_t max, size_t *next, bool ahead);

/* Decodes the logfile header from the first record's event data. */
bool etl_parse_logfile(const struct etl_event *ev, struct etl_logfile *out);

/* Derives the clock conversion from a logfile header (§5). */
void etl_clock_from_header(struct etl_clock *c, const struct etl_logfile *h);

/* Receives one event; returns false to stop the walk. */
typedef bool (*etl_event_fn)(void *ctx, const struct etl_event *ev);

/* Calls fn for every event of every buffer in file order, each buffer's
 * events in buffer order; stops early when fn returns false. */
void etl_walk_file(struct etl_file *f, etl_event_fn fn, void *ctx);

/* The same over the header buffers (file order) and then the first buffer
 * (lowest SequenceNumber) of each processor, in processor order. */
void etl_walk_first_buffers(struct etl_file *f, etl_event_fn fn, void *ctx);

/* Receives n runs of events of one buffer of processor cpu (etl_parse_runs),
 * in buffer order; returns false to stop the walk. */
typedef bool (*etl_runs_fn)(void *ctx, unsigned cpu, const struct etl_hook_run *r, size_t n);

/* etl_walk_file, but each run of PERFINFO64 events whole and sound whose
 * HookIds have the same class in cls (65536 entries, the caller's, which
 * fn may change as it goes; NULL: all of class 1) goes to runs added up
 * (etl_parse_runs), in its place in the walk; every other event, and
 * every event of class 0, goes to fn. For passes that need no more of most
 * of these events than their counts and times, or nothing at all: counts
 * by HookId (a HookId's class learnt from its first event whole, its
 * events in runs from then on), and passes that look at other events only
 * (the events they want whole of class 0, the others skipped in runs). */
void etl_walk_file_runs(struct etl_file *f, etl_event_fn fn, etl_runs_fn runs,
                        const uint32_t *cls, void *ctx);

/* A runs function that skips the runs it is given (etl_walk_file_runs). */
bool etl_runs_skip(void *ctx, unsigned cpu, const struct etl_hook_run *r, size_t n);

/*
 * Per-CPU streams: each CPU's buffers sorted by SequenceNumber, read one
 * buffer at a time. The header buffers form their own stream, read first.
 */
struct etl_streams;
struct etl_stream;

/* Builds the per-CPU streams of f; NULL when out of memory (f is marked). */
struct etl_streams *etl_streams_new(struct etl_file *f);

/* Frees the streams (NULL is allowed). */
void etl_streams_free(struct etl_streams *s);

/* The number of CPU streams, and stream i (ascending CPU). */
size_t etl_streams_count(const struct etl_streams *s);
struct etl_stream *etl_streams_cpu(struct etl_streams *s, size_t i);

/* The latest of the times of the last events read from each stream of s
 * (raw clock values): after a view has read them all, the time of the
 * trace's last event. False when no event has been read. */
bool etl_streams_last_ts(const struct etl_streams *s, int64_t *ts);

/* Reads the next event of a stream; false at the end. */
bool etl_stream_next(struct etl_stream *s, struct etl_event *ev);

/* Returns true if a known gap (lost, damaged or unreadable data) lies just
 * before the event etl_stream_next returned last. */
bool etl_stream_gap(const struct etl_stream *s);

/* The run of PERFINFO64 records whole and sound (etl_parse_heads) that
 * etl_stream_next would return next from the buffer it has loaded, with no
 * gap before them: at most max of their heads into h, *base the buffer's
 * bytes (a head's record is at *base + offset) and *cpu its processor.
 * Returns how many; 0 when the next event is not one of them, or lies in
 * a buffer still to be loaded: etl_stream_next reads it. The stream stays
 * where it is until etl_stream_skip. */
size_t etl_stream_heads(struct etl_stream *s, struct etl_head *h, size_t max,
                        const uint8_t **base, uint16_t *cpu);

/* Moves the stream past the records of the first n heads h of
 * etl_stream_heads (taken as etl_stream_next would have returned them). */
void etl_stream_skip(struct etl_stream *s, const struct etl_head *h, size_t n);

/* The version of the record of a head (at rec), and where its data begins
 * in it (past its extended items), as etl_parse_event gives them. */
size_t etl_head_data(const uint8_t *rec, unsigned *version);

/* Merges every stream in time order (header buffers first), calling fn for
 * each event; stops early when fn returns false. */
void etl_merge_events(struct etl_streams *s, etl_event_fn fn, void *ctx);

#endif
