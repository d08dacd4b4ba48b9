/*
 * perfetto.h - the context switches of a trace as a Perfetto trace: a
 * protobuf `Trace` of `TracePacket`s (Perfetto's perfetto_trace.proto,
 * Apache-2.0; field numbers below), whose ETW messages Perfetto's trace
 * processor imports into the same scheduling tables as Linux sched events.
 *
 * The encoders write one `event` field of an EtwTraceEventBundle (key,
 * length and the EtwTraceEvent) at out, which has room for
 * ETL_PF_EVENT_MAX bytes, and return its length.
 */
#ifndef ETLDUMP_PERFETTO_H
#define ETLDUMP_PERFETTO_H

#include <stddef.h>
#include <stdint.h>

#include "decode/cswitch.h"

/* TracePacket fields. */
#define PF_TRACE_PACKET 1u            /* Trace.packet */
#define PF_PACKET_PROCESS_TREE 2u
#define PF_PACKET_TIMESTAMP 8u
#define PF_PACKET_SEQUENCE_ID 10u     /* trusted_packet_sequence_id */
#define PF_PACKET_SEQUENCE_FLAGS 13u
#define PF_PACKET_FIRST_ON_SEQUENCE 87u
#define PF_PACKET_ETW_EVENTS 95u
#define PF_SEQ_INCREMENTAL_STATE_CLEARED 1u

/* ProcessTree, Process, Thread. */
#define PF_TREE_PROCESSES 1u
#define PF_TREE_THREADS 2u
#define PF_PROCESS_PID 1u
#define PF_PROCESS_PPID 2u
#define PF_PROCESS_CMDLINE 3u
#define PF_THREAD_TID 1u
#define PF_THREAD_NAME 2u
#define PF_THREAD_TGID 3u

/* EtwTraceEventBundle and EtwTraceEvent. */
#define PF_BUNDLE_CPU 1u
#define PF_BUNDLE_EVENT 2u
#define PF_EVENT_TIMESTAMP 1u
#define PF_EVENT_C_SWITCH 2u
#define PF_EVENT_READY_THREAD 3u
#define PF_EVENT_CPU 4u
#define PF_EVENT_THREAD_ID 5u

/* CSwitchEtwEvent (the _int forms of the enums, which the importer reads). */
#define PF_CS_NEW_THREAD_ID 1u
#define PF_CS_OLD_THREAD_ID 2u
#define PF_CS_NEW_THREAD_PRIORITY 3u          /* sint32 */
#define PF_CS_OLD_THREAD_PRIORITY 4u          /* sint32 */
#define PF_CS_PREVIOUS_C_STATE 5u
#define PF_CS_OLD_THREAD_WAIT_IDEAL_PROCESSOR 9u /* sint32 */
#define PF_CS_NEW_THREAD_WAIT_TIME 10u
#define PF_CS_OLD_THREAD_WAIT_REASON_INT 11u  /* int32 */
#define PF_CS_OLD_THREAD_WAIT_MODE_INT 12u    /* int32 */
#define PF_CS_OLD_THREAD_STATE_INT 13u        /* sint32 */

/* ReadyThreadEtwEvent. */
#define PF_RT_T_THREAD_ID 1u
#define PF_RT_ADJUST_INCREMENT 3u             /* sint32 */
#define PF_RT_ADJUST_REASON_INT 5u            /* int32 */
#define PF_RT_FLAG_INT 6u                     /* int32 */

/* The longest event field the encoders write. */
#define ETL_PF_EVENT_MAX 128u

/* A context switch at ts (ns on the export's clock): every field the switch
 * carries (sw->has), the previous C-state only when the old thread is the
 * idle thread (TID 0). */
size_t etl_pf_cswitch_event(uint8_t *out, uint64_t ts, const struct etl_switch *sw);

/* A ReadyThread at ts on cpu: thread readying_tid made thread tid ready
 * (doc/format.md §16: AdjustReason, AdjustIncrement, Flag). */
size_t etl_pf_ready_event(uint8_t *out, uint64_t ts, uint32_t cpu, uint32_t readying_tid,
                          uint32_t tid, int32_t adjust_reason, int32_t adjust_increment,
                          int32_t flag);

#endif
