/*
 * names.c - enumeration names: KWAIT_REASON (PHNT ntkeapi.h, MS-CSW, VERG),
 * KTHREAD_STATE (GC-KTS), KPROCESSOR_MODE (MS-CSW), clock types (MS-WNODE),
 * as collected in doc/format.md §9.
 */
#include "decode/names.h"

const char *etl_name_find(const struct etl_name *table, size_t n, uint32_t value)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].value == value)
            return table[i].name;
    return NULL;
}

/* A name and its length. */
#define N(s) { s, sizeof s - 1 }

static const struct etl_sized_name wait_reasons[] = {
    N("Executive"), N("FreePage"), N("PageIn"), N("PoolAllocation"), N("DelayExecution"),
    N("Suspended"), N("UserRequest"), N("WrExecutive"), N("WrFreePage"), N("WrPageIn"),
    N("WrPoolAllocation"), N("WrDelayExecution"), N("WrSuspended"), N("WrUserRequest"),
    N("WrEventPair"), N("WrQueue"), N("WrLpcReceive"), N("WrLpcReply"), N("WrVirtualMemory"),
    N("WrPageOut"), N("WrRendezvous"), N("WrKeyedEvent"), N("WrTerminated"),
    N("WrProcessInSwap"), N("WrCpuRateControl"), N("WrCalloutStack"), N("WrKernel"),
    N("WrResource"), N("WrPushLock"), N("WrMutex"), N("WrQuantumEnd"), N("WrDispatchInt"),
    N("WrPreempted"), N("WrYieldExecution"), N("WrFastMutex"), N("WrGuardedMutex"),
    N("WrRundown"), N("WrAlertByThreadId"), N("WrDeferredPreempt"), N("WrPhysicalFault"),
    N("WrIoRing"), N("WrMdlCache"), N("WrRcu"),
};

static const struct etl_sized_name thread_states[] = {
    N("Initialized"), N("Ready"), N("Running"), N("Standby"), N("Terminated"), N("Waiting"),
    N("Transition"), N("DeferredReady"), N("GateWait"), N("WaitingForProcessInSwap"),
};

static const struct etl_sized_name wait_modes[] = { N("KernelMode"), N("UserMode") };

static const char *const clock_types[] = {
    "RAW", "PERFCOUNTER", "SYSTEMTIME", "CPUCYCLE",
};

#define LOOKUP(arr, v) ((v) < sizeof(arr) / sizeof((arr)[0]) ? (arr)[v] : NULL)

#define SIZED(arr, v) ((v) < sizeof(arr) / sizeof((arr)[0]) ? &(arr)[v] : NULL)

const struct etl_sized_name *etl_wait_reason_sized(unsigned v)
{
    return SIZED(wait_reasons, v);
}

const struct etl_sized_name *etl_thread_state_sized(unsigned v)
{
    return SIZED(thread_states, v);
}

const struct etl_sized_name *etl_wait_mode_sized(unsigned v)
{
    return SIZED(wait_modes, v);
}

const char *etl_wait_reason_name(unsigned v)
{
    const struct etl_sized_name *n = etl_wait_reason_sized(v);
    return n ? n->s : NULL;
}

const char *etl_thread_state_name(unsigned v)
{
    const struct etl_sized_name *n = etl_thread_state_sized(v);
    return n ? n->s : NULL;
}

const char *etl_wait_mode_name(unsigned v)
{
    const struct etl_sized_name *n = etl_wait_mode_sized(v);
    return n ? n->s : NULL;
}

const char *etl_clock_type_name(unsigned v)
{
    return LOOKUP(clock_types, v);
}
