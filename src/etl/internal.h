/*
 * internal.h - what the reader's own files share and nothing else sees: the
 * file, its buffer index, loading one buffer.
 */
#ifndef ETLDUMP_ETL_INTERNAL_H
#define ETLDUMP_ETL_INTERNAL_H

#include "etl/etl.h"
#include "etl/lz77.h"

/* WMI_BUFFER_HEADER (0x48 bytes; §2). */
#define ETL_BUF_HEADER_SIZE 0x48u
#define ETL_BUF_FLAG_FLUSH_MARKER 0x0001u
#define ETL_BUF_FLAG_EVENTS_LOST 0x0002u
#define ETL_BUF_FLAG_BUFFER_LOST 0x0004u
#define ETL_BUF_FLAG_PROC_INDEX 0x0020u
#define ETL_BUF_FLAG_COMPRESSED 0x0040u
#define ETL_BUF_FLAGS_KNOWN 0x007Fu /* FLUSH_MARKER to COMPRESSED (§2) */
#define ETL_BUF_TYPE_HEADER 4u
#define ETL_BUF_TYPE_LAST 8u      /* MAXIMUM */

/* One entry of the buffer index, in file order: 16 bytes. `pos` holds the
 * file offset (bits 0-47), the CPU (bits 48-58), whether the buffer is
 * read before all others (bit 59: a header buffer, or the first one),
 * whether it is read at a size the index found, not its header's (bit 60:
 * a damaged size field; the size is in the file's `resized`) and whether
 * it repeats an earlier buffer byte for byte, its processor and
 * SequenceNumber those of that one (bit 61: it is not read). */
struct etl_bufent {
    uint64_t seq;             /* SequenceNumber */
    uint64_t pos;
};
#define ETL_ENT_OFFSET(e) ((e)->pos & 0xFFFFFFFFFFFFull)
#define ETL_ENT_CPU(e) ((uint16_t)(((e)->pos >> 48) & 0x7FFu))
#define ETL_ENT_HEADER(e) ((((e)->pos >> 59) & 1u) != 0)
#define ETL_ENT_RESIZED_BIT (1ull << 60)
#define ETL_ENT_REPEAT_BIT (1ull << 61)
#define ETL_ENT_REPEAT(e) (((e)->pos & ETL_ENT_REPEAT_BIT) != 0)
/* Fewer bytes than a buffer header, cut short by another buffer's header:
 * no buffer, not read (reader.c: last_up_to). */
#define ETL_ENT_FRAGMENT_BIT (1ull << 62)
/* Whether the entry is not read: a repeat or a fragment. */
#define ETL_ENT_UNREAD(e) (((e)->pos & (ETL_ENT_REPEAT_BIT | ETL_ENT_FRAGMENT_BIT)) != 0)

/* The size the index gives the buffer at offset off, whose header's is
 * damaged: few, in file order. */
struct etl_resize {
    uint64_t off;
    uint32_t size;
};

/* One buffer's header fields, decoded when the buffer is loaded. */
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

struct etl_file {
    int fd;                   /* -1 for a memory block */
    bool own_fd;
    const uint8_t *mem;       /* the memory block or the mapped file, or NULL */
    size_t map_len;           /* bytes mapped (map.c), 0 if not mapped */
    uint8_t walk_way;         /* how walks in file order read a file read by
                               * copying: 0 not asked yet, WALK_MAPPED, WALK_COPIED */
    int map_slot;             /* where map.c watches the mapping */
    uint64_t touched;         /* bytes read through it since pages went back */
    bool shrink_reported;     /* the file was found shorter than at open */
    uint64_t file_size;
    char *name;
    struct etl_logfile hdr;
    bool headerless;          /* no logfile header: hdr is all zeros but its
                               * t0, the earliest event's (reader.c:
                               * read_without_header) */
    struct etl_clock clock;
    struct etl_bufent *ents;  /* the buffer index, in file order */
    size_t nents, ents_cap;
    uint64_t index_at;        /* where the next buffer to index starts */
    uint64_t index_last;      /* where the last buffer indexed starts, plus one
                               * (0: none yet) */
    struct etl_resize *resized; /* the entries with ETL_ENT_RESIZED_BIT */
    size_t nresized, resized_cap;
    uint64_t seq_next;        /* while SequenceNumbers rise in file order: one
                               * past the last (no buffer can repeat one) */
    bool seq_fell;            /* they did not: `seen` is kept */
    uint32_t *seen;           /* then the entries (index + 1) by processor and
                               * SequenceNumber, open addressing; freed with
                               * the index whole */
    size_t seen_cap;          /* a power of two, or 0 */
    struct etl_repeats {
        uint64_t at, of;      /* the first found at `at`, of the buffer at `of` */
    } same, differ;           /* repeating a buffer (totals.repeated of them);
                               * its processor and SequenceNumber with other
                               * bytes (ndiffer) */
    uint64_t ndiffer;
    uint64_t other_header;    /* a second header buffer (not a repeat): its
                               * offset + 1 */
    bool realign_failed;      /* a fixed-size file's scan for buffers off
                               * its stride found none (index_realign) */
    size_t walked;            /* entries read by the walk that indexed them
                               * (walk_indexing): never cut short after */
    uint64_t zeros_from, zeros_to; /* the last run of zeros found (first_nonzero) */
    bool indexed;             /* the index is whole (etl_file_index) */
    struct etl_buffer_totals totals;
    uint32_t max_buf;         /* largest buffer to load, bytes */
    uint32_t zmost;           /* largest size a compressed buffer may decompress
                               * to: the logfile header's buffer size, or
                               * ETL_MAX_BUFFER_SIZE where that is impossible
                               * or found wrong (reader.c: logfile_is_wrong) */
    bool zstrict;             /* a strong buffer header is a compressed buffer's
                               * or a header buffer's: the logfile header says
                               * the buffers are compressed, and none was found
                               * not to be (logfile_is_wrong) */
    uint32_t cpus_most;       /* processors a strong buffer header may be of: the
                               * logfile header's, or ETL_MAX_CPUS where that is
                               * 0, too many or found wrong (logfile_is_wrong) */
    uint64_t problems;        /* diagnostics reported */
    uint64_t *named;          /* the offsets reported, plus one (0: free),
                               * open addressing (reported_before) */
    size_t named_cap, nnamed; /* a power of two, or 0; how many */
    uint64_t recent[16];      /* past NAMED_MAX of them, the offsets last
                               * reported, plus one (0: none) */
    unsigned nrecent;         /* reports so far, modulo the ring */
    uint64_t inflated;        /* bytes decompressed so far (bounded in etl_load_buffer) */
    uint64_t progress_done;   /* bytes of buffers loaded by the view's pass */
    uint64_t progress_next;   /* when to report progress next */
    struct etl_diag diag;
    struct etl_scope *scope;  /* the innermost open scope */
    bool nomem;
    bool temp_lost;           /* a temporary file could not be read back (nomem too) */
    unsigned threads;         /* a walk or a merge may use (etl_file_set_threads) */
    struct etl_ahead *ahead;  /* during a walk in file order or a merge (stream.c):
                               * buffers decompressed ahead */
};

/* How regular files are read (reader.c): ETL_READ_CHOOSE by the rule there
 * (by copying, or mapped: files with compressed buffers, or with large
 * buffers on many CPUs; walks in file order of large files read by copying
 * go through a mapping when etl_map_faster says so); the tests set
 * ETL_READ_COPY or ETL_READ_MAP to read a file each way and compare, and
 * ETL_READ_WALK_MAP for copies but every walk in file order mapped. */
enum etl_read_way { ETL_READ_CHOOSE, ETL_READ_COPY, ETL_READ_MAP, ETL_READ_WALK_MAP };
extern enum etl_read_way etl_read_way;

/* A loaded buffer: its bytes (decompressed) and the range holding events. */
struct etl_loaded {
    struct etl_buffer b;      /* the buffer's header fields */
    const uint8_t *bytes;     /* the buffer, header included: mem, raw, or in the
                               * file's mapping or memory block */
    uint8_t *mem;             /* the buffer decompressed */
    size_t cap;
    uint8_t *zin;             /* the buffer as read by copying (compressed or not) */
    size_t zcap;
    const uint8_t *raw;       /* read by copying: the buffer's first have bytes, */
    size_t have;              /* read with its header, in zin or in win */
    bool windowed;            /* loads come in file order: read several at once */
    size_t span;              /* else, when not 0: bytes to read at once from a
                               * buffer on, into win (a CPU's stream of small
                               * buffers close together: stream.c) */
    uint8_t *win;             /* then the bytes of [win_off, win_off + win_len) */
    size_t wcap, win_len;
    uint64_t win_off;
    size_t end;               /* events lie in [0x48, end) */
};

/* Decodes the 0x48-byte buffer header at h, found at file offset offset. */
void etl_decode_buffer_header(const uint8_t *h, uint64_t offset, struct etl_buffer *b);

/* Compressed buffers decompressed ahead of a walk in file order on other
 * threads (ahead.c). etl_ahead_start starts threads - 1 helpers (at most
 * ETL_AHEAD_MAX_THREADS) for a file read in place that has compressed
 * buffers into *out, or leaves it NULL (then the reader does it all, as
 * without); false when memory or a thread could not be had.
 * etl_ahead_take is called by the reader just before it decompresses the
 * buffer of index entry idx, zlen bytes at z into out bytes: true when a
 * helper did it already (waiting for one that is at it), the result then
 * swapped into *mem (cap *cap, the decompressed bytes from
 * ETL_BUF_HEADER_SIZE on) with its status, input bytes used and output
 * bytes made (etl_lz77_decompress_made); false when
 * the reader must decompress it. etl_ahead_stop joins the helpers and
 * frees everything (NULL is allowed); false when a helper ran out of
 * memory (the reader did its buffers, and the run ends as out of memory). */
#define ETL_AHEAD_MAX_THREADS 8u
struct etl_ahead;
bool etl_ahead_start(const struct etl_file *f, unsigned threads, struct etl_ahead **out);
bool etl_ahead_take(struct etl_ahead *a, size_t idx, const uint8_t *z, size_t zlen,
                    size_t out, uint8_t **mem, size_t *cap, enum etl_lz77_status *st,
                    size_t *used, size_t *made);
bool etl_ahead_stop(struct etl_ahead *a);
/* The same ahead of the merge of the processors' streams (stream.c), with
 * a slot for each of lanes streams (as many as fit): stream `lane` posts
 * with etl_ahead_post the buffer (index entry idx) it will load next, once
 * it has loaded one (and its first at the start); etl_ahead_take and
 * etl_ahead_stop as above. */
bool etl_ahead_start_merge(const struct etl_file *f, unsigned threads, size_t lanes,
                           struct etl_ahead **out);
void etl_ahead_post(struct etl_ahead *a, size_t lane, size_t idx);

/* Decodes the header h of the buffer of index entry e into b, with the
 * size the index gave it when its own is damaged. */
void etl_entry_header(const struct etl_file *f, const struct etl_bufent *e, const uint8_t *h,
                      struct etl_buffer *b);

/* Bytes of the buffer at off that loading it reads with its header when
 * the file is read by copying. */
size_t etl_first_read(const struct etl_file *f, uint64_t off);

/* Reads index entry e (an element of f->ents) into l (decompressing it);
 * false after reporting a problem. */
bool etl_load_buffer(struct etl_file *f, const struct etl_bufent *e, struct etl_loaded *l);

/* Frees a loaded buffer's memory. */
void etl_loaded_free(struct etl_loaded *l);

/* The file's mapping (map.c), for the files the reader maps rather than
 * copies (reader.c). etl_map_open maps f->fd, f->file_size bytes (false:
 * read by copying); etl_map_close unmaps; etl_map_release hands
 * back the pages of a range read; etl_map_shrunk returns true, with the
 * offset, once a page past the end of the file was touched. */
bool etl_map_open(struct etl_file *f);
void etl_map_close(struct etl_file *f);
void etl_map_release(const struct etl_file *f, uint64_t off, uint64_t len);
bool etl_map_shrunk(const struct etl_file *f, uint64_t *at);

/* Whether the mapped file f reads faster through its mapping than by
 * copying, on this machine with its page cache as it is now:
 * ETL_MAP_PROBE bytes read in place, in pieces at places spread over the
 * file, against as many read by copying next to them (of both, a word of
 * every 256 bytes summed, as a walk reads records' headers); true only
 * when the mapping takes at most four fifths of the time. False for a file
 * shorter than twice that. */
#define ETL_MAP_PROBE (8u << 20)
bool etl_map_faster(const struct etl_file *f);

/* Reports once that the mapped file shrank while it was read (a file read
 * by copying says so where a read comes short). */
void etl_check_shrunk(struct etl_file *f);

/* Reports a damaged record at offset off of buffer b, whose bytes up to
 * end are at buf, and returns where its records go on: the first place
 * past it, as records are aligned, from which records follow one another
 * soundly to the end of the buffer's events, their times not going back
 * from the latest of the records before it nor from one to the next (the
 * bytes up to there said skipped); 0 when there is none, or the search
 * took too long (the rest of the buffer said skipped). */
size_t etl_bad_record(struct etl_file *f, const struct etl_buffer *b, const uint8_t *buf,
                      size_t end, size_t off, const char *why);

/* Fills the buffer fields of an event read from buffer b. */
static inline void etl_event_in_buffer(struct etl_event *ev, const struct etl_buffer *b)
{
    ev->cpu = b->cpu;
    ev->buffer_offset = b->offset;
    ev->compressed = (b->flags & ETL_BUF_FLAG_COMPRESSED) != 0;
}

#endif
