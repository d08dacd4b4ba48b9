/*
 * etl.h - the ETL reader: file, buffers, trace headers, per-CPU order, merge.
 *
 * The reader never prints and never exits. Problems are reported through the
 * diagnostic callback with the file offset they concern, and reading goes on
 * with the next event or buffer. Layout facts come from the project's format
 * reference (etl-format.md sections 1-4 and 10-12), cited per field below.
 */
#ifndef ETLDUMP_ETL_H
#define ETLDUMP_ETL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* WMI_BUFFER_HEADER (0x48 bytes; spec section 2). */
#define ETL_BUF_HEADER_SIZE 0x48u
#define ETL_BUF_FLAG_FLUSH_MARKER 0x0001u
#define ETL_BUF_FLAG_EVENTS_LOST 0x0002u
#define ETL_BUF_FLAG_BUFFER_LOST 0x0004u
#define ETL_BUF_FLAG_PROC_INDEX 0x0020u
#define ETL_BUF_FLAG_COMPRESSED 0x0040u
#define ETL_BUF_TYPE_HEADER 4u

/* Largest decompressed buffer accepted (ETW buffers are at most 16 MiB). */
#define ETL_MAX_BUFFER_SIZE (16u * 1024u * 1024u)
/* Highest CPU index accepted (ETW_PROCESSOR_INDEX_MASK 0x07FF). */
#define ETL_MAX_CPUS 2048u

/* Trace header kinds (spec section 3.2). The order is that of etl_kind_name. */
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

/* Which optional fields an etl_event carries. */
enum {
    ETL_EV_TS = 1u << 0,       /* ts */
    ETL_EV_HOOK = 1u << 1,     /* hook_id */
    ETL_EV_GUID = 1u << 2,     /* guid (provider) */
    ETL_EV_EVENT_ID = 1u << 3, /* event_id */
    ETL_EV_OPCODE = 1u << 4,   /* opcode */
    ETL_EV_VERSION = 1u << 5,  /* version */
    ETL_EV_TID = 1u << 6,      /* tid and pid */
};

/* One event record as found in a buffer; pointers are valid until the next
 * event is read from the same stream. */
struct etl_event {
    int64_t ts;               /* raw clock value */
    const uint8_t *data;      /* event data after header and extended items */
    const uint8_t *ext;       /* PERFINFO extended items (PEBS then PMC) */
    const uint8_t *ext_items; /* EVENT_HEADER extended data items, as in the file */
    uint32_t ext_items_len;   /* bytes at ext_items (0: none) */
    uint64_t buffer_offset;   /* file offset of the buffer holding the event */
    uint32_t event_offset;    /* offset of the event in the (decompressed) buffer */
    uint32_t data_len;        /* bytes at data */
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

/* The logfile header event (spec section 4), as much as later steps need. */
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
    int32_t tz_bias;          /* minutes */
    int64_t t0;               /* timestamp of the header event */
    char logger_name[256];    /* UTF-8 converted from UTF-16LE */
    char log_file_name[512];
};

/* One buffer of the file, as indexed by the first pass. */
struct etl_buffer {
    uint64_t offset;          /* in the file */
    uint64_t seq;             /* SequenceNumber */
    uint32_t size;            /* BufferSize, or the bytes present if truncated */
    uint32_t saved_offset;
    uint32_t offset_field;    /* Offset (+0x30) */
    uint16_t cpu;
    uint16_t flags;           /* BufferFlag */
    uint16_t type;            /* BufferType */
    uint8_t truncated;        /* the file ends inside this buffer */
};

/* Receives a problem found at a file offset. */
typedef void (*etl_diag_fn)(void *ctx, uint64_t offset, const char *msg);

struct etl_file {
    int fd;
    uint64_t file_size;
    const char *path;
    struct etl_logfile hdr;
    bool have_hdr;
    struct etl_buffer *bufs;   /* in file order */
    size_t nbufs;
    uint32_t max_buf;          /* largest buffer to load, bytes */
    uint64_t problems;         /* diagnostics reported */
    uint64_t inflated;         /* bytes decompressed so far (bounded in etl_load_buffer) */
    etl_diag_fn diag;
    void *diag_ctx;
};

/* Result of opening a file. */
enum etl_open_status {
    ETL_OPEN_OK = 0,
    ETL_OPEN_IO,       /* cannot be opened or read (errno kept) */
    ETL_OPEN_NOT_ETL,  /* no ETL header buffer at the start */
};

/* Opens path, reads the logfile header and indexes every buffer. */
enum etl_open_status etl_open(struct etl_file *f, const char *path,
                              etl_diag_fn diag, void *diag_ctx);

/* Releases everything etl_open acquired. */
void etl_close(struct etl_file *f);

/* Reports a problem at a file offset (formats like printf). */
void etl_report(struct etl_file *f, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Reports a problem at byte `at` of an event's data, naming the file offset
 * (or, in a compressed buffer, the buffer and the decompressed offset). */
void etl_report_event(struct etl_file *f, const struct etl_event *ev, size_t at,
                      const char *msg);

/* Reports a damaged record at offset off of buffer b; the rest of the buffer
 * is skipped. */
void etl_report_bad_record(struct etl_file *f, const struct etl_buffer *b,
                           size_t off, const char *why);

/* Returns the header kind's name (SYSTEM64, PERFINFO64, MESSAGE, ...). */
const char *etl_kind_name(unsigned kind);

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

/* Decodes the logfile header from the first record's event data. */
bool etl_parse_logfile(const struct etl_event *ev, struct etl_logfile *out);

/* Converts NUL-terminated UTF-16LE at p[0..len) to UTF-8 in out (cap bytes,
 * always terminated, cut short if needed); returns the bytes consumed,
 * terminator included. */
size_t etl_utf16z(const uint8_t *p, size_t len, char *out, size_t cap);

/* A loaded buffer: its bytes (decompressed) and the range holding events. */
struct etl_loaded {
    uint8_t *mem;              /* the buffer, header included */
    size_t cap;
    uint8_t *zin;              /* compressed bytes as read from the file */
    size_t zcap;
    size_t end;                /* events lie in [0x48, end) */
};

/* Reads buffer b into l (decompressing it); false after reporting a problem. */
bool etl_load_buffer(struct etl_file *f, const struct etl_buffer *b,
                     struct etl_loaded *l);

/* Frees a loaded buffer's memory. */
void etl_loaded_free(struct etl_loaded *l);

/* Calls fn for every event of buffer b in buffer order; stops early when fn
 * returns false. Returns false if the buffer could not be read. */
typedef bool (*etl_event_fn)(void *ctx, const struct etl_event *ev);
bool etl_walk_buffer(struct etl_file *f, const struct etl_buffer *b,
                     struct etl_loaded *l, etl_event_fn fn, void *ctx);

/*
 * Per-CPU streams: each CPU's buffers sorted by SequenceNumber, read one
 * buffer at a time. The header buffer forms its own stream, read first.
 */
struct etl_stream {
    struct etl_file *f;
    uint32_t *order;           /* indexes into f->bufs */
    size_t norder;
    size_t next_buf;           /* next index into order */
    const struct etl_buffer *cur;
    struct etl_loaded mem;
    size_t pos;                /* next record in mem */
    uint16_t cpu;
    bool gap;                  /* a lost or unreadable buffer precedes the current one */
    int64_t last_ts;
};

/* The set of streams of a file. */
struct etl_streams {
    struct etl_stream header;  /* header buffers */
    struct etl_stream *cpu;    /* one per CPU that has buffers, ascending CPU */
    size_t ncpu;
};

/* Builds the per-CPU streams of f; false on allocation failure. */
bool etl_streams_init(struct etl_streams *s, struct etl_file *f);

/* Frees the streams. */
void etl_streams_free(struct etl_streams *s);

/* Reads the next event of a stream; false at the end. After a call,
 * s->gap tells whether a known gap lies before this event. */
bool etl_stream_next(struct etl_stream *s, struct etl_event *ev);

/* Merges every stream in time order (header buffers first), calling fn for
 * each event; stops early when fn returns false. */
void etl_merge_events(struct etl_streams *s, etl_event_fn fn, void *ctx);

/* Formats a GUID stored in file byte order as 8-4-4-4-12 lowercase hex;
 * out must hold 37 bytes. */
void etl_guid_str(const uint8_t g[16], char out[37]);

#endif
