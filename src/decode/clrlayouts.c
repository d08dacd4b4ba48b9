/*
 * clrlayouts.c - built-in layouts of the .NET runtime's manifest-based
 * providers, for traces that carry no description of them (doc/format.md
 * section 18.5). Field names, types, event ids, versions, task and opcode
 * names are those of Microsoft's "CLR ETW events" documentation (Garbage
 * collection, Loader, Method, Runtime information, Exception, Contention
 * and Rundown ETW events) and of the runtime's instrumentation manifest
 * (ClrEtwAll.man, dotnet/runtime) for the versions newer than the
 * documentation; where real traces differ from both, the traces win
 * (section 18.4). An event is named "Provider/Task/Opcode" (the opcode
 * without its "win:" prefix), as the trace's own descriptions of the same
 * events are.
 */
#include "decode/kmacros.h"

#define X16H(n) FH(n, ETL_IN_UINT16, ETL_H_HEX)
#define BOOL32(n) F(n, ETL_IN_BOOLEAN)
#define DBL(n) F(n, ETL_IN_DOUBLE)
/* A field aligned like a C structure member. */
#define AL(n, t) { n, t, ETL_H_NONE, ETL_KF_ALIGN, 0, sizeof(n) - 1, NULL }
#define NONE FIELDS(END)
#define EV(id, v0, v1, name, fields) { id, v0, v1, name, fields }
#define CLR U16("ClrInstanceID")

#define RT "Microsoft-Windows-DotNETRuntime/"
#define GC RT "GarbageCollection/"
#define RD "Microsoft-Windows-DotNETRuntimeRundown/"

/* ---- field lists shared by several events ---- */

#define GC_HEAP_STATS                                                            \
    X64("GenerationSize0"), X64("TotalPromotedSize0"), X64("GenerationSize1"),    \
    X64("TotalPromotedSize1"), X64("GenerationSize2"), X64("TotalPromotedSize2"), \
    X64("GenerationSize3"), X64("TotalPromotedSize3"),                           \
    X64("FinalizationPromotedSize"), U64("FinalizationPromotedCount"),           \
    U32("PinnedObjectCount"), U32("SinkBlockCount"), U32("GCHandleCount")
#define GC_ALLOC_TICK_V2                                                         \
    X32("AllocationAmount"), U32("AllocationKind"), CLR, X64("AllocationAmount64"), \
    PTR("TypeID"), WSZ("TypeName"), U32("HeapIndex")
#define GC_GLOBAL_HEAP_V2                                                        \
    X64("FinalYoungestDesired"), I32("NumHeaps"), U32("CondemnedGeneration"),     \
    U32("Gen0ReductionCount"), U32("Reason"), U32("GlobalMechanisms"), CLR,       \
    U32("PauseMode"), U32("MemoryPressure")
#define METHOD_LOAD                                                              \
    X64("MethodID"), X64("ModuleID"), X64("MethodStartAddress"), X32("MethodSize"), \
    X32("MethodToken"), U32("MethodFlags")
#define METHOD_NAMES WSZ("MethodNamespace"), WSZ("MethodName"), WSZ("MethodSignature")
#define METHOD_IL_MAP                                                            \
    X64("MethodID"), X64("ReJITID"), U8("MethodExtent"), U16("CountOfMapEntries"), \
    ARR_FROM("ILOffsets", ETL_IN_UINT32, 3), ARR_FROM("NativeOffsets", ETL_IN_UINT32, 3), \
    CLR
#define DOMAIN_MODULE                                                            \
    X64("ModuleID"), X64("AssemblyID"), X64("AppDomainID"), U32("ModuleFlags"),   \
    U32("Reserved1"), WSZ("ModuleILPath"), WSZ("ModuleNativePath")
#define MODULE                                                                   \
    X64("ModuleID"), X64("AssemblyID"), U32("ModuleFlags"), U32("Reserved1"),     \
    WSZ("ModuleILPath"), WSZ("ModuleNativePath")
#define MODULE_PDBS                                                              \
    GUID("ManagedPdbSignature"), U32("ManagedPdbAge"), WSZ("ManagedPdbBuildPath"), \
    GUID("NativePdbSignature"), U32("NativePdbAge"), WSZ("NativePdbBuildPath")
#define ASSEMBLY_V0                                                              \
    X64("AssemblyID"), X64("AppDomainID"), U32("AssemblyFlags"),                  \
    WSZ("FullyQualifiedAssemblyName")
#define ASSEMBLY_V1                                                              \
    X64("AssemblyID"), X64("AppDomainID"), X64("BindingID"), U32("AssemblyFlags"), \
    WSZ("FullyQualifiedAssemblyName"), CLR
#define APP_DOMAIN X64("AppDomainID"), U32("AppDomainFlags"), WSZ("AppDomainName")
#define RUNTIME_INFO                                                             \
    CLR, U16("Sku"), U16("BclMajorVersion"), U16("BclMinorVersion"),             \
    U16("BclBuildNumber"), U16("BclQfeNumber"), U16("VMMajorVersion"),            \
    U16("VMMinorVersion"), U16("VMBuildNumber"), U16("VMQfeNumber"),              \
    U32("StartupFlags"), U8("StartupMode"), WSZ("CommandLine"), GUID("ComObjectGuid"), \
    WSZ("RuntimeDllPath")
/* Index, Count, ClrInstanceID, then Count structures (the bulk events). */
#define BULK(m) U32("Index"), U32("Count"), CLR, STRUCTS_FROM("Values", 1, m)

/* ---- structures ---- */

static const struct etl_kfield per_heap_gen[] = {
    PTR("SizeBefore"), PTR("FreeListBefore"), PTR("FreeObjBefore"), PTR("SizeAfter"),
    PTR("FreeListAfter"), PTR("FreeObjAfter"), PTR("In"), PTR("PinnedSurv"),
    PTR("NonePinnedSurv"), PTR("NewAllocation"), END,
};
static const struct etl_kfield global_heap_time[] = { U32("Time"), END };
/* GCLOHCompact and GCFitBucketInfo write their values as C structures:
 * the pointer-sized and 32-bit members are aligned (traces show the
 * padding, zero). */
static const struct etl_kfield loh_compact[] = {
    U32("TimePlan"), U32("TimeCompact"), U32("TimeRelocate"), AL("TotalRefs", ETL_IN_POINTER),
    PTR("ZeroRefs"), END,
};
static const struct etl_kfield fit_bucket[] = {
    U16("Index"), AL("Count", ETL_IN_UINT32), AL("Size", ETL_IN_POINTER), END,
};
static const struct etl_kfield bulk_type[] = {
    X64("TypeID"), X64("ModuleID"), U32("TypeNameID"), U32("Flags"), U8("CorElementType"),
    WSZ("Name"), U32("TypeParameterCount"), ARR_FROM("TypeParameters", ETL_IN_HEXINT64, 6),
    END,
};
static const struct etl_kfield root_edge[] = {
    PTR("RootedNodeAddress"), U8("GCRootKind"), U32("GCRootFlag"), PTR("GCRootID"), END,
};
static const struct etl_kfield cwt_edge[] = {
    PTR("GCKeyNodeID"), PTR("GCValueNodeID"), PTR("GCRootID"), END,
};
static const struct etl_kfield bulk_node[] = {
    PTR("Address"), U64("Size"), U64("TypeID"), U64("EdgeCount"), END,
};
static const struct etl_kfield bulk_edge[] = { PTR("Value"), U32("ReferencingFieldID"), END };
static const struct etl_kfield surviving_range[] = { PTR("RangeBase"), U64("RangeLength"), END };
static const struct etl_kfield moved_range[] = {
    PTR("OldRangeBase"), PTR("NewRangeBase"), U64("RangeLength"), END,
};
static const struct etl_kfield root_ccw[] = {
    X64("GCRootID"), X64("ObjectID"), X64("TypeID"), X64("IUnknown"), U32("RefCount"),
    U32("PeggedRefCount"), U32("Flags"), END,
};
static const struct etl_kfield bulk_rcw[] = {
    X64("ObjectID"), X64("TypeID"), X64("IUnknown"), X64("VTable"), U32("RefCount"),
    U32("Flags"), END,
};
static const struct etl_kfield static_var[] = {
    X64("GCRootID"), X64("ObjectID"), X64("TypeID"), U32("Flags"), WSZ("FieldName"), END,
};

/* ---- Microsoft-Windows-DotNETRuntime (e13c0d23-ccbc-4e12-931b-d9cc2eee27e4) ---- */

static const struct etl_pevent runtime[] = {
    EV(1, 0, 0, GC "Start", FIELDS(U32("Count"), U32("Reason"))),
    EV(1, 1, 1, GC "Start", FIELDS(U32("Count"), U32("Depth"), U32("Reason"), U32("Type"), CLR)),
    EV(1, 2, 2, GC "Start", FIELDS(U32("Count"), U32("Depth"), U32("Reason"), U32("Type"),
                                   CLR, U64("ClientSequenceNumber"))),
    EV(2, 0, 0, GC "Stop", FIELDS(U32("Count"), U16("Depth"))),
    EV(2, 1, 1, GC "Stop", FIELDS(U32("Count"), U32("Depth"), CLR)),
    EV(3, 0, 0, GC "GCRestartEEEnd", NONE),
    EV(3, 1, 1, GC "GCRestartEEEnd", FIELDS(CLR)),
    EV(4, 0, 0, GC "GCHeapStats", FIELDS(GC_HEAP_STATS)),
    EV(4, 1, 1, GC "GCHeapStats", FIELDS(GC_HEAP_STATS, CLR)),
    EV(4, 2, 2, GC "GCHeapStats", FIELDS(GC_HEAP_STATS, CLR, X64("GenerationSize4"),
                                         X64("TotalPromotedSize4"))),
    EV(5, 0, 0, GC "GCCreateSegment", FIELDS(X64("Address"), X64("Size"), U32("Type"))),
    EV(5, 1, 1, GC "GCCreateSegment", FIELDS(X64("Address"), X64("Size"), U32("Type"), CLR)),
    EV(6, 0, 0, GC "GCFreeSegment", FIELDS(X64("Address"))),
    EV(6, 1, 1, GC "GCFreeSegment", FIELDS(X64("Address"), CLR)),
    EV(7, 0, 0, GC "GCRestartEEBegin", NONE),
    EV(7, 1, 1, GC "GCRestartEEBegin", FIELDS(CLR)),
    EV(8, 0, 0, GC "GCSuspendEEEnd", NONE),
    EV(8, 1, 1, GC "GCSuspendEEEnd", FIELDS(CLR)),
    EV(9, 0, 0, GC "GCSuspendEEBegin", FIELDS(U16("Reason"))),
    EV(9, 1, 1, GC "GCSuspendEEBegin", FIELDS(U32("Reason"), U32("Count"), CLR)),
    EV(10, 0, 0, GC "GCAllocationTick", FIELDS(X32("AllocationAmount"), U32("AllocationKind"))),
    EV(10, 1, 1, GC "GCAllocationTick",
       FIELDS(X32("AllocationAmount"), U32("AllocationKind"), CLR)),
    EV(10, 2, 2, GC "GCAllocationTick", FIELDS(GC_ALLOC_TICK_V2)),
    EV(10, 3, 3, GC "GCAllocationTick", FIELDS(GC_ALLOC_TICK_V2, PTR("Address"))),
    EV(10, 4, 4, GC "GCAllocationTick",
       FIELDS(GC_ALLOC_TICK_V2, PTR("Address"), U64("ObjectSize"))),
    EV(11, 0, 0, GC "GCCreateConcurrentThread", NONE),
    EV(11, 1, 1, GC "GCCreateConcurrentThread", FIELDS(CLR)),
    EV(12, 0, 0, GC "GCTerminateConcurrentThread", NONE),
    EV(12, 1, 1, GC "GCTerminateConcurrentThread", FIELDS(CLR)),
    EV(13, 0, 0, GC "GCFinalizersEnd", FIELDS(U32("Count"))),
    EV(13, 1, 1, GC "GCFinalizersEnd", FIELDS(U32("Count"), CLR)),
    EV(14, 0, 0, GC "GCFinalizersBegin", NONE),
    EV(14, 1, 1, GC "GCFinalizersBegin", FIELDS(CLR)),
    EV(15, 0, 0, RT "Type/BulkType",
       FIELDS(U32("Count"), CLR, STRUCTS_FROM("Values", 0, bulk_type))),
    EV(16, 0, 0, GC "GCBulkRootEdge", FIELDS(BULK(root_edge))),
    EV(17, 0, 0, GC "GCBulkRootConditionalWeakTableElementEdge", FIELDS(BULK(cwt_edge))),
    EV(18, 0, 0, GC "GCBulkNode", FIELDS(BULK(bulk_node))),
    EV(19, 0, 0, GC "GCBulkEdge", FIELDS(BULK(bulk_edge))),
    EV(20, 0, 0, GC "GCSampledObjectAllocation",
       FIELDS(PTR("Address"), PTR("TypeID"), U32("ObjectCountForTypeSample"),
              U64("TotalSizeForTypeSample"), CLR)),
    EV(21, 0, 0, GC "GCBulkSurvivingObjectRanges", FIELDS(BULK(surviving_range))),
    EV(22, 0, 0, GC "GCBulkMovedObjectRanges", FIELDS(BULK(moved_range))),
    EV(23, 0, 0, GC "GCGenerationRange",
       FIELDS(U8("Generation"), PTR("RangeStart"), U64("RangeUsedLength"),
              U64("RangeReservedLength"), CLR)),
    EV(25, 0, 0, GC "GCMarkStackRoots", FIELDS(U32("HeapNum"), CLR)),
    EV(26, 0, 0, GC "GCMarkFinalizeQueueRoots", FIELDS(U32("HeapNum"), CLR)),
    EV(27, 0, 0, GC "GCMarkHandles", FIELDS(U32("HeapNum"), CLR)),
    EV(28, 0, 0, GC "GCMarkOlderGenerationRoots", FIELDS(U32("HeapNum"), CLR)),
    EV(29, 0, 0, GC "FinalizeObject", FIELDS(PTR("TypeID"), PTR("ObjectID"), CLR)),
    EV(30, 0, 0, GC "SetGCHandle",
       FIELDS(PTR("HandleID"), PTR("ObjectID"), U32("Kind"), U32("Generation"),
              X64("AppDomainID"), CLR)),
    EV(31, 0, 0, GC "DestroyGCHandle", FIELDS(PTR("HandleID"), CLR)),
    EV(32, 0, 0, GC "GCSampledObjectAllocation",
       FIELDS(PTR("Address"), PTR("TypeID"), U32("ObjectCountForTypeSample"),
              U64("TotalSizeForTypeSample"), CLR)),
    EV(33, 0, 0, GC "PinObjectAtGCTime",
       FIELDS(PTR("HandleID"), PTR("ObjectID"), U64("ObjectSize"), WSZ("TypeName"), CLR)),
    EV(35, 0, 0, GC "Triggered", FIELDS(U32("Reason"), CLR)),
    EV(36, 0, 0, GC "GCBulkRootCCW",
       FIELDS(U32("Count"), CLR, STRUCTS_FROM("Values", 0, root_ccw))),
    EV(37, 0, 0, GC "GCBulkRCW", FIELDS(U32("Count"), CLR, STRUCTS_FROM("Values", 0, bulk_rcw))),
    EV(38, 0, 0, GC "GCBulkRootStaticVar",
       FIELDS(U32("Count"), X64("AppDomainID"), CLR, STRUCTS_FROM("Values", 0, static_var))),
    EV(39, 0, 0, GC "GCDynamicEvent",
       FIELDS(WSZ("Name"), U32("DataSize"), BIN_FROM("Data", 1), CLR)),
    EV(80, 1, 1, RT "Exception/Start",
       FIELDS(WSZ("ExceptionType"), WSZ("ExceptionMessage"), PTR("ExceptionEIP"),
              X32("ExceptionHRESULT"), X16H("ExceptionFlags"), CLR)),
    EV(81, 1, 1, RT "Contention/Start", FIELDS(U8("ContentionFlags"), CLR)),
    EV(91, 0, 0, RT "Contention/Stop", FIELDS(U8("ContentionFlags"), CLR)),
    EV(91, 1, 1, RT "Contention/Stop", FIELDS(U8("ContentionFlags"), CLR, DBL("DurationNs"))),
    EV(141, 1, 1, RT "CLRMethod/MethodLoad", FIELDS(METHOD_LOAD, CLR)),
    EV(141, 2, 2, RT "CLRMethod/MethodLoad", FIELDS(METHOD_LOAD, CLR, X64("ReJITID"))),
    EV(142, 1, 1, RT "CLRMethod/MethodUnload", FIELDS(METHOD_LOAD, CLR)),
    EV(142, 2, 2, RT "CLRMethod/MethodUnload", FIELDS(METHOD_LOAD, CLR, X64("ReJITID"))),
    EV(143, 1, 1, RT "CLRMethod/MethodLoadVerbose", FIELDS(METHOD_LOAD, METHOD_NAMES, CLR)),
    EV(143, 2, 2, RT "CLRMethod/MethodLoadVerbose",
       FIELDS(METHOD_LOAD, METHOD_NAMES, CLR, X64("ReJITID"))),
    EV(144, 1, 1, RT "CLRMethod/MethodUnloadVerbose", FIELDS(METHOD_LOAD, METHOD_NAMES, CLR)),
    EV(144, 2, 2, RT "CLRMethod/MethodUnloadVerbose",
       FIELDS(METHOD_LOAD, METHOD_NAMES, CLR, X64("ReJITID"))),
    EV(145, 1, 1, RT "CLRMethod/MethodJittingStarted",
       FIELDS(X64("MethodID"), X64("ModuleID"), X32("MethodToken"), U32("MethodILSize"),
              METHOD_NAMES, CLR)),
    EV(151, 1, 1, RT "CLRLoader/DomainModuleLoad", FIELDS(DOMAIN_MODULE, CLR)),
    EV(152, 1, 1, RT "CLRLoader/ModuleLoad", FIELDS(MODULE, CLR)),
    EV(152, 2, 2, RT "CLRLoader/ModuleLoad", FIELDS(MODULE, CLR, MODULE_PDBS)),
    EV(153, 1, 1, RT "CLRLoader/ModuleUnload", FIELDS(MODULE, CLR)),
    EV(153, 2, 2, RT "CLRLoader/ModuleUnload", FIELDS(MODULE, CLR, MODULE_PDBS)),
    EV(154, 1, 1, RT "CLRLoader/AssemblyLoad", FIELDS(ASSEMBLY_V1)),
    EV(155, 1, 1, RT "CLRLoader/AssemblyUnload", FIELDS(ASSEMBLY_V1)),
    EV(156, 1, 1, RT "CLRLoader/AppDomainLoad",
       FIELDS(APP_DOMAIN, U32("AppDomainIndex"), CLR)),
    EV(157, 1, 1, RT "CLRLoader/AppDomainUnload",
       FIELDS(APP_DOMAIN, U32("AppDomainIndex"), CLR)),
    EV(187, 0, 0, RT "CLRRuntimeInformation/Start", FIELDS(RUNTIME_INFO)),
    EV(190, 0, 0, RT "CLRMethod/MethodILToNativeMap", FIELDS(METHOD_IL_MAP)),
    EV(200, 0, 0, GC "IncreaseMemoryPressure", FIELDS(U64("BytesAllocated"), CLR)),
    EV(201, 0, 0, GC "DecreaseMemoryPressure", FIELDS(U64("BytesFreed"), CLR)),
    EV(202, 0, 0, GC "GCMarkWithType",
       FIELDS(U32("HeapNum"), CLR, U32("Type"), U64("Bytes"))),
    EV(203, 2, 2, GC "GCJoin",
       FIELDS(U32("Heap"), U32("JoinTime"), U32("JoinType"), CLR, U32("JoinID"))),
    EV(204, 3, 3, GC "GCPerHeapHistory",
       FIELDS(CLR, PTR("FreeListAllocated"), PTR("FreeListRejected"), PTR("EndOfSegAllocated"),
              PTR("CondemnedAllocated"), PTR("PinnedAllocated"), PTR("PinnedAllocatedAdvance"),
              U32("RunningFreeListEfficiency"), U32("CondemnReasons0"), U32("CondemnReasons1"),
              U32("CompactMechanisms"), U32("ExpandMechanisms"), U32("HeapIndex"),
              PTR("ExtraGen0Commit"), U32("Count"), STRUCTS_FROM("Values", 14, per_heap_gen))),
    EV(205, 2, 2, GC "GCGlobalHeapHistory", FIELDS(GC_GLOBAL_HEAP_V2)),
    EV(205, 3, 3, GC "GCGlobalHeapHistory",
       FIELDS(GC_GLOBAL_HEAP_V2, U32("CondemnReasons0"), U32("CondemnReasons1"))),
    EV(205, 4, 4, GC "GCGlobalHeapHistory",
       FIELDS(GC_GLOBAL_HEAP_V2, U32("CondemnReasons0"), U32("CondemnReasons1"), U32("Count"),
              STRUCTS_FROM("Values", 11, global_heap_time))),
    EV(206, 0, 0, GC "GenAwareBegin", FIELDS(U32("Count"), CLR)),
    EV(207, 0, 0, GC "GenAwareEnd", FIELDS(U32("Count"), CLR)),
    /* Count is 16 bits in real traces (doc/format.md 18.4). */
    EV(208, 0, 0, GC "GCLOHCompact",
       FIELDS(CLR, U16("Count"), STRUCTS_FROM("Values", 1, loh_compact))),
    EV(209, 0, 0, GC "GCFitBucketInfo",
       FIELDS(CLR, U16("BucketKind"), U64("TotalSize"), U16("Count"),
              STRUCTS_FROM("Values", 3, fit_bucket))),
    EV(280, 0, 0, RT "TieredCompilation/Settings", FIELDS(CLR, X32("Flags"))),
    EV(281, 0, 0, RT "TieredCompilation/Pause", FIELDS(CLR)),
    EV(282, 0, 0, RT "TieredCompilation/Resume", FIELDS(CLR, U32("NewMethodCount"))),
};

/* ---- Microsoft-Windows-DotNETRuntimeRundown (a669021c-c450-4609-a035-5af59af4df18) ---- */

static const struct etl_pevent rundown[] = {
    /* The GC settings of the runtime (.NET 7 and later; not in the
     * manifests above: layout and name as the runtime writes them). */
    EV(10, 0, 0, RD "GCSettingsRundown",
       FIELDS(U64("HardLimit"), U64("LOHThreshold"), U64("PhysicalMemoryConfig"),
              U64("Gen0MinBudgetConfig"), U64("Gen0MaxBudgetConfig"),
              U32("HighMemPercentConfig"), U32("BitSettings"), CLR)),
    EV(141, 0, 0, RD "CLRMethodRundown/MethodDCStart", FIELDS(METHOD_LOAD)),
    EV(141, 1, 1, RD "CLRMethodRundown/MethodDCStart", FIELDS(METHOD_LOAD, CLR)),
    EV(141, 2, 2, RD "CLRMethodRundown/MethodDCStart", FIELDS(METHOD_LOAD, CLR, X64("ReJITID"))),
    EV(142, 0, 0, RD "CLRMethodRundown/MethodDCEnd", FIELDS(METHOD_LOAD)),
    EV(142, 1, 1, RD "CLRMethodRundown/MethodDCEnd", FIELDS(METHOD_LOAD, CLR)),
    EV(142, 2, 2, RD "CLRMethodRundown/MethodDCEnd", FIELDS(METHOD_LOAD, CLR, X64("ReJITID"))),
    EV(143, 0, 0, RD "CLRMethodRundown/MethodDCStartVerbose", FIELDS(METHOD_LOAD, METHOD_NAMES)),
    EV(143, 1, 1, RD "CLRMethodRundown/MethodDCStartVerbose",
       FIELDS(METHOD_LOAD, METHOD_NAMES, CLR)),
    EV(143, 2, 2, RD "CLRMethodRundown/MethodDCStartVerbose",
       FIELDS(METHOD_LOAD, METHOD_NAMES, CLR, X64("ReJITID"))),
    EV(144, 0, 0, RD "CLRMethodRundown/MethodDCEndVerbose", FIELDS(METHOD_LOAD, METHOD_NAMES)),
    EV(144, 1, 1, RD "CLRMethodRundown/MethodDCEndVerbose",
       FIELDS(METHOD_LOAD, METHOD_NAMES, CLR)),
    EV(144, 2, 2, RD "CLRMethodRundown/MethodDCEndVerbose",
       FIELDS(METHOD_LOAD, METHOD_NAMES, CLR, X64("ReJITID"))),
    EV(145, 0, 0, RD "CLRMethodRundown/DCStartComplete", NONE),
    EV(145, 1, 1, RD "CLRMethodRundown/DCStartComplete", FIELDS(CLR)),
    EV(146, 0, 0, RD "CLRMethodRundown/DCEndComplete", NONE),
    EV(146, 1, 1, RD "CLRMethodRundown/DCEndComplete", FIELDS(CLR)),
    EV(147, 0, 0, RD "CLRMethodRundown/DCStartInit", NONE),
    EV(147, 1, 1, RD "CLRMethodRundown/DCStartInit", FIELDS(CLR)),
    EV(148, 0, 0, RD "CLRMethodRundown/DCEndInit", NONE),
    EV(148, 1, 1, RD "CLRMethodRundown/DCEndInit", FIELDS(CLR)),
    EV(149, 0, 0, RD "CLRMethodRundown/MethodDCStartILToNativeMap", FIELDS(METHOD_IL_MAP)),
    EV(150, 0, 0, RD "CLRMethodRundown/MethodDCEndILToNativeMap", FIELDS(METHOD_IL_MAP)),
    EV(151, 0, 0, RD "CLRLoaderRundown/DomainModuleDCStart", FIELDS(DOMAIN_MODULE)),
    EV(151, 1, 1, RD "CLRLoaderRundown/DomainModuleDCStart", FIELDS(DOMAIN_MODULE, CLR)),
    EV(152, 0, 0, RD "CLRLoaderRundown/DomainModuleDCEnd", FIELDS(DOMAIN_MODULE)),
    EV(152, 1, 1, RD "CLRLoaderRundown/DomainModuleDCEnd", FIELDS(DOMAIN_MODULE, CLR)),
    EV(153, 0, 0, RD "CLRLoaderRundown/ModuleDCStart", FIELDS(MODULE)),
    EV(153, 1, 1, RD "CLRLoaderRundown/ModuleDCStart", FIELDS(MODULE, CLR)),
    EV(153, 2, 2, RD "CLRLoaderRundown/ModuleDCStart", FIELDS(MODULE, CLR, MODULE_PDBS)),
    EV(154, 0, 0, RD "CLRLoaderRundown/ModuleDCEnd", FIELDS(MODULE)),
    EV(154, 1, 1, RD "CLRLoaderRundown/ModuleDCEnd", FIELDS(MODULE, CLR)),
    EV(154, 2, 2, RD "CLRLoaderRundown/ModuleDCEnd", FIELDS(MODULE, CLR, MODULE_PDBS)),
    EV(155, 0, 0, RD "CLRLoaderRundown/AssemblyDCStart", FIELDS(ASSEMBLY_V0)),
    EV(155, 1, 1, RD "CLRLoaderRundown/AssemblyDCStart", FIELDS(ASSEMBLY_V1)),
    EV(156, 0, 0, RD "CLRLoaderRundown/AssemblyDCEnd", FIELDS(ASSEMBLY_V0)),
    EV(156, 1, 1, RD "CLRLoaderRundown/AssemblyDCEnd", FIELDS(ASSEMBLY_V1)),
    EV(157, 0, 0, RD "CLRLoaderRundown/AppDomainDCStart", FIELDS(APP_DOMAIN)),
    EV(157, 1, 1, RD "CLRLoaderRundown/AppDomainDCStart",
       FIELDS(APP_DOMAIN, U32("AppDomainIndex"), CLR)),
    EV(158, 0, 0, RD "CLRLoaderRundown/AppDomainDCEnd", FIELDS(APP_DOMAIN)),
    EV(158, 1, 1, RD "CLRLoaderRundown/AppDomainDCEnd",
       FIELDS(APP_DOMAIN, U32("AppDomainIndex"), CLR)),
    EV(159, 0, 0, RD "CLRLoaderRundown/ThreadDC",
       FIELDS(X64("ManagedThreadID"), X64("AppDomainID"), U32("Flags"),
              U32("ManagedThreadIndex"), U32("OSThreadID"), CLR)),
    EV(187, 0, 0, RD "CLRRuntimeInformationRundown/Start", FIELDS(RUNTIME_INFO)),
    EV(280, 0, 0, RD "TieredCompilationRundown/SettingsDCStart", FIELDS(CLR, X32("Flags"))),
};

/* ---- Microsoft-Windows-DotNETRuntimePrivate (763fd754-7086-4dfe-95eb-c01a46faf4ca) ---- */

static const struct etl_pevent private_[] = {
    EV(2, 0, 0, "Microsoft-Windows-DotNETRuntimePrivate/GarbageCollectionPrivate/GCSettings",
       FIELDS(U64("SegmentSize"), U64("LargeObjectSegmentSize"), BOOL32("ServerGC"))),
    EV(2, 1, 1, "Microsoft-Windows-DotNETRuntimePrivate/GarbageCollectionPrivate/GCSettings",
       FIELDS(U64("SegmentSize"), U64("LargeObjectSegmentSize"), BOOL32("ServerGC"), CLR)),
};

#define P(g, name, t) { g, name, t, sizeof t / sizeof t[0] }
const struct etl_pprovider etl_pproviders[] = {
    P(GB(0xe13c0d23u, 0xccbc, 0x4e12, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4),
      "Microsoft-Windows-DotNETRuntime", runtime),
    P(GB(0xa669021cu, 0xc450, 0x4609, 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18),
      "Microsoft-Windows-DotNETRuntimeRundown", rundown),
    P(GB(0x763fd754u, 0x7086, 0x4dfe, 0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa, 0xf4, 0xca),
      "Microsoft-Windows-DotNETRuntimePrivate", private_),
};
const size_t etl_npproviders = sizeof etl_pproviders / sizeof etl_pproviders[0];
