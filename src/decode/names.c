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

static const char *const wait_reasons[] = {
    "Executive", "FreePage", "PageIn", "PoolAllocation", "DelayExecution",
    "Suspended", "UserRequest", "WrExecutive", "WrFreePage", "WrPageIn",
    "WrPoolAllocation", "WrDelayExecution", "WrSuspended", "WrUserRequest",
    "WrEventPair", "WrQueue", "WrLpcReceive", "WrLpcReply", "WrVirtualMemory",
    "WrPageOut", "WrRendezvous", "WrKeyedEvent", "WrTerminated",
    "WrProcessInSwap", "WrCpuRateControl", "WrCalloutStack", "WrKernel",
    "WrResource", "WrPushLock", "WrMutex", "WrQuantumEnd", "WrDispatchInt",
    "WrPreempted", "WrYieldExecution", "WrFastMutex", "WrGuardedMutex",
    "WrRundown", "WrAlertByThreadId", "WrDeferredPreempt", "WrPhysicalFault",
    "WrIoRing", "WrMdlCache", "WrRcu",
};

static const char *const thread_states[] = {
    "Initialized", "Ready", "Running", "Standby", "Terminated", "Waiting",
    "Transition", "DeferredReady", "GateWait", "WaitingForProcessInSwap",
};

static const char *const wait_modes[] = { "KernelMode", "UserMode" };

static const char *const clock_types[] = {
    "RAW", "PERFCOUNTER", "SYSTEMTIME", "CPUCYCLE",
};

#define LOOKUP(arr, v) ((v) < sizeof(arr) / sizeof((arr)[0]) ? (arr)[v] : NULL)

const char *etl_wait_reason_name(unsigned v)
{
    return LOOKUP(wait_reasons, v);
}

const char *etl_thread_state_name(unsigned v)
{
    return LOOKUP(thread_states, v);
}

const char *etl_wait_mode_name(unsigned v)
{
    return LOOKUP(wait_modes, v);
}

const char *etl_clock_type_name(unsigned v)
{
    return LOOKUP(clock_types, v);
}
