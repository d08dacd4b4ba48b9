/*
 * process.c - Process and Thread event payloads.
 *
 * Layouts from doc/format.md §14 and §15:
 *   Process (§14): version 0 (ProcessId and ParentId pointer-sized,
 *   UserSID, ImageFileName), 1 (PageDirectoryBase, ProcessId, ParentId,
 *   SessionId, ExitStatus, UserSID, ImageFileName), 2 (as 1 with
 *   UniqueProcessKey first, then CommandLine), 3 (as 2 with
 *   DirectoryTableBase before UserSID), 4 (as 3 with Flags before UserSID and
 *   PackageFullName, ApplicationId at the end), 5 (Defunct: as 4 plus
 *   ExitTime). A later version is read as its version 4/5 prefix.
 *   UserSID (§14.3): a u32 of zero is the whole blob (4 bytes);
 *   otherwise TOKEN_USER (two pointers, the second half padding), then a SID
 *   of 8 + 4 * SubAuthorityCount bytes.
 *   Thread (§15.2, §15.3): version 0 (TThreadId, ProcessId), 1 (ProcessId,
 *   TThreadId, six pointers and WaitMode, or just the two IDs in 8 bytes), 2
 *   (two IDs, seven pointers, SubProcessTag), 3 and later (as 2 with
 *   BasePriority, PagePriority, IoPriority, ThreadFlags, then a UTF-16
 *   ThreadName when at least two bytes remain, whatever the version says).
 *   SetName (§15.4): ProcessId, ThreadId, UTF-16 ThreadName.
 *   Terminate and PerfCtr (§14.8): a leading ProcessId is all we read.
 * ANSI strings end at one NUL byte, UTF-16 strings at one zero unit; neither
 * is aligned. Strings are searched for within the payload only.
 */
#include "decode/process.h"

#include <stdio.h>
#include <string.h>

#include "cursor.h"
#include "fmt.h"

enum etl_pt_family etl_pt_classify(uint16_t hook, enum etl_pt_op *op)
{
    static const struct {
        uint16_t hook;
        uint8_t family, op;
    } map[] = {
        { ETL_HOOK_PROCESS_START, ETL_PT_PROCESS, ETL_PT_START },
        { ETL_HOOK_PROCESS_END, ETL_PT_PROCESS, ETL_PT_END },
        { ETL_HOOK_PROCESS_DCSTART, ETL_PT_PROCESS, ETL_PT_DCSTART },
        { ETL_HOOK_PROCESS_DCEND, ETL_PT_PROCESS, ETL_PT_DCEND },
        { ETL_HOOK_PROCESS_TERMINATE, ETL_PT_PROCESS, ETL_PT_TERMINATE },
        { ETL_HOOK_PROCESS_PERFCTR, ETL_PT_PROCESS, ETL_PT_PERFCTR },
        { ETL_HOOK_PROCESS_PERFCTR_RUNDOWN, ETL_PT_PROCESS, ETL_PT_PERFCTR },
        { ETL_HOOK_PROCESS_DEFUNCT, ETL_PT_PROCESS, ETL_PT_DEFUNCT },
        { ETL_HOOK_THREAD_START, ETL_PT_THREAD, ETL_PT_START },
        { ETL_HOOK_THREAD_END, ETL_PT_THREAD, ETL_PT_END },
        { ETL_HOOK_THREAD_DCSTART, ETL_PT_THREAD, ETL_PT_DCSTART },
        { ETL_HOOK_THREAD_DCEND, ETL_PT_THREAD, ETL_PT_DCEND },
        { ETL_HOOK_THREAD_SETNAME, ETL_PT_THREAD, ETL_PT_SETNAME },
    };
    /* Both groups in one test first: nearly every event is neither. */
    if ((hook >> 8) != 0x03 && (hook >> 8) != 0x05)
        return ETL_PT_NONE;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].hook == hook) {
            *op = (enum etl_pt_op)map[i].op;
            return (enum etl_pt_family)map[i].family;
        }
    return ETL_PT_NONE;
}

/* Reads an ANSI string ending at a NUL byte; false when there is none. */
static bool read_ansi(struct etl_cursor *c, const uint8_t **p, size_t *len)
{
    const uint8_t *s = etl_cur_here(c);
    size_t left = etl_cur_left(c);
    const uint8_t *nul = c->bad ? NULL : memchr(s, 0, left);
    if (!nul)
        return false;
    *p = s;
    *len = (size_t)(nul - s);
    etl_cur_skip(c, *len + 1);
    return true;
}

/* Reads a UTF-16LE string ending at a zero unit; false when there is none. */
static bool read_utf16(struct etl_cursor *c, struct etl_u16str *out)
{
    if (c->bad)
        return false;
    const uint8_t *s = etl_cur_here(c);
    size_t left = etl_cur_left(c);
    for (size_t i = 0; left - i >= 2; i += 2)
        if (s[i] == 0 && s[i + 1] == 0) {
            out->p = s;
            out->len = i;
            etl_cur_skip(c, i + 2);
            return true;
        }
    return false;
}

/* Skips the UserSID blob, keeping the SID; false if it is damaged. */
static bool read_sid(struct etl_cursor *c, unsigned ptr, struct etl_process_rec *r)
{
    if (etl_cur_left(c) < 4)
        return false;
    if (etl_le32(etl_cur_here(c)) == 0) { /* no SID: the u32 is the blob */
        etl_cur_skip(c, 4);
        return true;
    }
    etl_cur_skip(c, 2u * ptr);            /* TOKEN_USER: pointer, attributes, padding */
    r->sid_revision = etl_cur_u8(c);
    r->sid_count = etl_cur_u8(c);
    if (r->sid_count > 15)
        return false;
    uint64_t auth = 0;
    for (int i = 0; i < 6; i++)            /* IdentifierAuthority: big-endian */
        auth = (auth << 8) | etl_cur_u8(c);
    r->sid_authority = auth;
    for (unsigned i = 0; i < r->sid_count; i++)
        r->sid_sub[i] = etl_cur_u32(c);
    if (!etl_cur_ok(c))
        return false;
    r->has |= PR_SID;
    return true;
}

/* What both decoders take from the header: the operation, the pointer
 * size and the version. */
struct pt_header {
    enum etl_pt_op op;
    unsigned ptr, v;
};

/* Where a record ends: bytes left past a known layout mean it was read
 * wrongly, so only what `keep` says stays trusted. */
static enum etl_pt_status pt_end(const struct etl_cursor *c, bool known, size_t *at,
                                 uint32_t *has, uint32_t keep)
{
    if (known && etl_cur_left(c) != 0) {
        *at = c->pos;
        *has = keep;
        return ETL_PT_TRAILING;
    }
    return ETL_PT_OK;
}

/* What both decoders start from: the record's operation, pointer width and
 * version, a copy of the cursor to read with, no damage yet. */
static struct pt_header pt_begin(const struct etl_event *ev, const struct etl_cursor *cur,
                                 struct etl_cursor *c, size_t *at)
{
    struct pt_header h = { ETL_PT_START, ev->ptr_size == 4 ? 4u : 8u, ev->version & 0xFFu };
    etl_pt_classify(ev->hook_id, &h.op);
    *c = *cur;
    *at = 0;
    return h;
}

enum etl_pt_status etl_decode_process(const struct etl_event *ev, struct etl_cursor *cur,
                                      struct etl_process_rec *r, size_t *at)
{
    memset(r, 0, sizeof *r);
    struct etl_cursor c;
    const struct pt_header h = pt_begin(ev, cur, &c, at);
    const unsigned ptr = h.ptr, v = h.v;
    r->op = (uint8_t)h.op;
    if (h.op == ETL_PT_TERMINATE || h.op == ETL_PT_PERFCTR) {
        r->pid = etl_cur_u32(&c);
        return etl_cur_ok(&c) ? ETL_PT_OK : ETL_PT_SHORT;
    }
    switch (v) {
    case 0:
        r->pid = (uint32_t)etl_cur_ptr(&c, ptr);
        r->parent_id = (uint32_t)etl_cur_ptr(&c, ptr);
        r->has |= PR_PARENT;
        break;
    case 1:
        r->dtb = etl_cur_ptr(&c, ptr); /* PageDirectoryBase */
        r->pid = etl_cur_u32(&c);
        r->parent_id = etl_cur_u32(&c);
        r->session_id = etl_cur_u32(&c);
        r->exit_status = etl_cur_u32(&c);
        r->has |= PR_PARENT | PR_SESSION | PR_EXIT_STATUS | PR_DTB;
        break;
    default:
        r->key = etl_cur_ptr(&c, ptr);
        r->pid = etl_cur_u32(&c);
        r->parent_id = etl_cur_u32(&c);
        r->session_id = etl_cur_u32(&c);
        r->exit_status = etl_cur_u32(&c);
        r->has |= PR_KEY | PR_PARENT | PR_SESSION | PR_EXIT_STATUS;
        if (v >= 3) {
            r->dtb = etl_cur_ptr(&c, ptr);
            r->has |= PR_DTB;
        }
        if (v >= 4) {
            r->flags = etl_cur_u32(&c);
            r->has |= PR_FLAGS;
        }
        break;
    }
    if (!etl_cur_ok(&c)) {
        r->has = 0;
        return ETL_PT_SHORT;
    }
    uint32_t fixed = r->has;
    *at = c.pos;
    if (!read_sid(&c, ptr, r) || !read_ansi(&c, &r->image, &r->image_len)) {
        r->has = fixed;
        return ETL_PT_BAD_STRING;
    }
    r->has |= PR_IMAGE;
    bool ok = true;
    if (v >= 2) {
        *at = c.pos;
        ok = read_utf16(&c, &r->cmdline);
        r->has |= PR_CMDLINE;
    }
    if (ok && v >= 4) {
        *at = c.pos;
        ok = read_utf16(&c, &r->package) && (*at = c.pos, read_utf16(&c, &r->app_id));
        r->has |= PR_PACKAGE | PR_APP_ID;
    }
    if (ok && v >= 5 && etl_cur_left(&c) >= 8) {
        r->exit_time = (int64_t)etl_cur_u64(&c);
        r->has |= PR_EXIT_TIME;
    } else if (ok && v == 5) {
        *at = c.pos;
        ok = false;
    }
    if (!ok) {
        r->has = fixed;
        return ETL_PT_BAD_STRING;
    }
    /* Every known version ends exactly at the payload end: anything left
     * means the variable part was read wrongly, so its strings are not
     * trusted (a later version may add fields: those are ignored). */
    return pt_end(&c, v <= 5, at, &r->has, fixed);
}

enum etl_pt_status etl_decode_thread(const struct etl_event *ev, struct etl_cursor *cur,
                                     struct etl_thread_rec *r, size_t *at)
{
    memset(r, 0, sizeof *r);
    struct etl_cursor c;
    const struct pt_header h = pt_begin(ev, cur, &c, at);
    const unsigned ptr = h.ptr, v = h.v;
    r->op = (uint8_t)h.op;
    if (h.op == ETL_PT_SETNAME) {
        r->pid = etl_cur_u32(&c);
        r->tid = etl_cur_u32(&c);
        if (!etl_cur_ok(&c))
            return ETL_PT_SHORT;
        *at = c.pos;
        if (!read_utf16(&c, &r->name))
            return ETL_PT_BAD_STRING;
        r->has |= TR_NAME;
        return pt_end(&c, true, at, &r->has, r->has & ~(uint32_t)TR_NAME);
    }
    if (v == 0) {
        r->tid = etl_cur_u32(&c); /* the reverse order of later versions */
        r->pid = etl_cur_u32(&c);
    } else {
        r->pid = etl_cur_u32(&c);
        r->tid = etl_cur_u32(&c);
    }
    bool two_ids = v == 0 || (v == 1 && etl_cur_left(cur) == 8);
    if (!two_ids) {
        r->stack_base = etl_cur_ptr(&c, ptr);
        r->stack_limit = etl_cur_ptr(&c, ptr);
        r->user_stack_base = etl_cur_ptr(&c, ptr);
        r->user_stack_limit = etl_cur_ptr(&c, ptr);
        r->start_addr = etl_cur_ptr(&c, ptr);
        r->win32_start_addr = etl_cur_ptr(&c, ptr);
        r->has |= TR_STACKS;
        if (v == 1) {
            etl_cur_skip(&c, 1); /* WaitMode, "not used" */
        } else {
            r->teb_base = etl_cur_ptr(&c, ptr);
            r->sub_process_tag = etl_cur_u32(&c);
            r->has |= TR_TEB;
        }
        if (v >= 3) {
            r->base_priority = etl_cur_u8(&c);
            r->page_priority = etl_cur_u8(&c);
            r->io_priority = etl_cur_u8(&c);
            r->thread_flags = etl_cur_u8(&c);
            r->has |= TR_PRIORITIES;
        }
    }
    if (!etl_cur_ok(&c)) {
        r->has = 0;
        return ETL_PT_SHORT;
    }
    /* ThreadName: present on Windows 10 1903 and later although the version
     * stays 3; the rule is "two bytes or more left" (format.md §15.2). */
    if (v >= 3 && etl_cur_left(&c) >= 2) {
        *at = c.pos;
        if (!read_utf16(&c, &r->name))
            return ETL_PT_BAD_STRING;
        r->has |= TR_NAME;
    }
    return pt_end(&c, v <= 4, at, &r->has, r->has & ~(uint32_t)TR_NAME);
}

const char *etl_pt_status_msg(enum etl_pt_status st, bool process)
{
    switch (st) {
    case ETL_PT_SHORT:
        return process ? "Process event shorter than its fixed fields"
                       : "Thread event shorter than its fixed fields";
    case ETL_PT_BAD_STRING:
        return process ? "Process event: damaged SID or string without its terminator"
                       : "Thread event: thread name without its terminator";
    case ETL_PT_TRAILING:
        return process ? "Process event: bytes left after the last field (strings ignored)"
                       : "Thread event: bytes left after the last field";
    default:
        return "no problem";
    }
}

size_t etl_u16str_utf8(const struct etl_u16str *s, char *out, size_t cap)
{
    if (cap == 0)
        return 0;
    if (!s->p || s->len == 0) {
        out[0] = '\0';
        return 0;
    }
    etl_utf16z(s->p, s->len, out, cap);
    return strlen(out);
}

bool etl_process_sid(const struct etl_process_rec *r, char *out, size_t cap)
{
    if (!(r->has & PR_SID) || cap == 0)
        return false;
    int n;
    /* Authorities of 2^32 and more are written in hex, as Windows does. */
    if (r->sid_authority >> 32)
        n = snprintf(out, cap, "S-%u-0x%012llx", (unsigned)r->sid_revision,
                     (unsigned long long)r->sid_authority);
    else
        n = snprintf(out, cap, "S-%u-%llu", (unsigned)r->sid_revision,
                     (unsigned long long)r->sid_authority);
    size_t o = n > 0 ? (size_t)n : 0;
    for (unsigned i = 0; i < r->sid_count && o < cap; i++) {
        n = snprintf(out + o, cap - o, "-%u", (unsigned)r->sid_sub[i]);
        if (n < 0)
            break;
        o += (size_t)n;
    }
    return true;
}
