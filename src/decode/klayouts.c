/*
 * klayouts.c - the table of classic kernel event layouts: names, class
 * GUIDs and field lists by (group, opcode, version). Field names are the
 * property names of Microsoft's MOF classes for the NT Kernel Logger
 * (learn.microsoft.com "Process_V4_TypeGroup1", "Thread_TypeGroup1",
 * "Image_Load", "DiskIo_TypeGroup1", "FileIo_Create", "PerfInfo" classes,
 * "StackWalk_Event", "SystemConfig" classes, "Registry_TypeGroup1",
 * "TcpIp" and "UdpIp" classes, "PageFault" classes, "EventTrace_Header",
 * "Header_Extension_TypeGroup") and of the classes the system's own TDH
 * reports for them; where real traces differ from the documentation, the
 * traces win. Sources per class: doc/format.md section 18.
 */
#include "decode/kmacros.h"

#define L(g, v0, v1, ops, fields) { g, v0, v1, ops, fields }

/* Kernel groups (HookId >> 8). */
enum {
    G_EVENTTRACE = 0x00, G_DISKIO = 0x01, G_PAGEFAULT = 0x02, G_PROCESS = 0x03,
    G_FILEIO = 0x04, G_THREAD = 0x05, G_TCPIP = 0x06, G_UDPIP = 0x08,
    G_REGISTRY = 0x09, G_SYSCONFIG = 0x0B, G_PERFINFO = 0x0F, G_IMAGE = 0x14,
    G_STACKWALK = 0x18, G_ALPC = 0x1A,
};

/* Field lists shared by several layouts. */
#define PROCESS_V4_HEAD                                                          \
    PTR("UniqueProcessKey"), U32("ProcessId"), U32("ParentId"), U32("SessionId"), \
    I32("ExitStatus"), PTR("DirectoryTableBase"), U32("Flags"), SID("UserSID"),  \
    ASZ("ImageFileName"), WSZ("CommandLine"), WSZ("PackageFullName"),            \
    WSZ("ApplicationId")
#define THREAD_V3                                                                \
    U32("ProcessId"), U32("TThreadId"), PTR("StackBase"), PTR("StackLimit"),     \
    PTR("UserStackBase"), PTR("UserStackLimit"), PTR("Affinity"),                \
    PTR("Win32StartAddr"), PTR("TebBase"), X32("SubProcessTag"),                 \
    U8("BasePriority"), U8("PagePriority"), U8("IoPriority"), U8("ThreadFlags")
#define IMAGE_LOAD                                                               \
    PTR("ImageBase"), SZT("ImageSize"), U32("ProcessId"), U32("ImageChecksum"),  \
    U32("TimeDateStamp"), U32("Reserved0"), PTR("DefaultBase"), U32("Reserved1"), \
    U32("Reserved2"), U32("Reserved3"), U32("Reserved4"), WSZ("FileName")
#define GROUP_MASKS                                                              \
    X32("GroupMask1"), X32("GroupMask2"), X32("GroupMask3"), X32("GroupMask4"),  \
    X32("GroupMask5"), X32("GroupMask6"), X32("GroupMask7"), X32("GroupMask8"),  \
    U32("KernelEventVersion")
#define TCP_ADDR4 U32("PID"), U32("size"), IPV4("daddr"), IPV4("saddr"), PORT("dport"), PORT("sport")
#define TCP_ADDR6 U32("PID"), U32("size"), IPV6("daddr"), IPV6("saddr"), PORT("dport"), PORT("sport")
#define TCP_OPTS                                                                 \
    U16("mss"), U16("sackopt"), U16("tsopt"), U16("wsopt"), U32("rcvwin"),       \
    I16("rcvwinscale"), I16("sndwinscale")

const struct etl_klayout etl_klayouts[] = {
    /* EventTrace (68fdd900-4a3e-11d1-84f4-0000f80464e3): EventTrace_Header,
     * Header_Extension_TypeGroup, RDComplete, the partition extension. */
    L(G_EVENTTRACE, 0, 255, OPS(0), FIELDS(
        U32("BufferSize"), X32("Version"), U32("ProviderVersion"),
        U32("NumberOfProcessors"), FTIME("EndTime"), U32("TimerResolution"),
        U32("MaxFileSize"), X32("LogFileMode"), U32("BuffersWritten"),
        U32("StartBuffers"), U32("PointerSize"), U32("EventsLost"), U32("CPUSpeed"),
        PTR("LoggerName"), PTR("LogFileName"), BIN("TimeZoneInformation", 176),
        FTIME("BootTime"), U64("PerfFreq"), FTIME("StartTime"), X32("ReservedFlags"),
        U32("BuffersLost"), WSZ("SessionNameString"), WSZ("LogFileNameString"))),
    L(G_EVENTTRACE, 0, 255, OPS(5, 32), FIELDS(GROUP_MASKS)),
    L(G_EVENTTRACE, 0, 255, OPS(8), FIELDS(END)),
    L(G_EVENTTRACE, 2, 2, OPS(80), FIELDS(
        U16("EventVersion"), U16("Reserved"), U32("PartitionType"),
        I64("QpcOffsetFromRoot"), GUID("PartitionId"), GUID("ParentId"))),

    /* Process (3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c). */
    L(G_PROCESS, 0, 0, OPS(1, 2, 3, 4), FIELDS(
        PTR("ProcessId"), PTR("ParentId"), SID("UserSID"), ASZ("ImageFileName"))),
    L(G_PROCESS, 1, 1, OPS(1, 2, 3, 4), FIELDS(
        PTR("PageDirectoryBase"), U32("ProcessId"), U32("ParentId"), U32("SessionId"),
        I32("ExitStatus"), SID("UserSID"), ASZ("ImageFileName"))),
    L(G_PROCESS, 2, 2, OPS(1, 2, 3, 4, 39), FIELDS(
        PTR("UniqueProcessKey"), U32("ProcessId"), U32("ParentId"), U32("SessionId"),
        I32("ExitStatus"), SID("UserSID"), ASZ("ImageFileName"), WSZ("CommandLine"))),
    L(G_PROCESS, 3, 3, OPS(1, 2, 3, 4, 39), FIELDS(
        PTR("UniqueProcessKey"), U32("ProcessId"), U32("ParentId"), U32("SessionId"),
        I32("ExitStatus"), PTR("DirectoryTableBase"), SID("UserSID"),
        ASZ("ImageFileName"), WSZ("CommandLine"))),
    L(G_PROCESS, 4, 4, OPS(1, 2, 3, 4, 39), FIELDS(PROCESS_V4_HEAD)),
    L(G_PROCESS, 5, 5, OPS(39), FIELDS(PROCESS_V4_HEAD, FTIME("ExitTime"))),
    L(G_PROCESS, 2, 2, OPS(11), FIELDS(U32("ProcessId"))),
    L(G_PROCESS, 2, 2, OPS(32, 33), FIELDS(
        U32("ProcessId"), U32("PageFaultCount"), U32("HandleCount"), U32("Reserved"),
        SZT("PeakVirtualSize"), SZT("PeakWorkingSetSize"), SZT("PeakPagefileUsage"),
        SZT("QuotaPeakPagedPoolUsage"), SZT("QuotaPeakNonPagedPoolUsage"),
        SZT("VirtualSize"), SZT("WorkingSetSize"), SZT("PagefileUsage"),
        SZT("QuotaPagedPoolUsage"), SZT("QuotaNonPagedPoolUsage"),
        SZT("PrivatePageCount"))),
    /* The old Image Load hook of the process group (0x030A). */
    L(G_PROCESS, 2, 3, OPS(10), FIELDS(IMAGE_LOAD)),

    /* Thread (3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c). */
    L(G_THREAD, 0, 0, OPS(1, 2, 3, 4), FIELDS(U32("TThreadId"), U32("ProcessId"))),
    L(G_THREAD, 1, 1, OPS(1, 3, 4), FIELDS(
        U32("ProcessId"), U32("TThreadId"), PTR("StackBase"), PTR("StackLimit"),
        PTR("UserStackBase"), PTR("UserStackLimit"), PTR("StartAddr"),
        PTR("Win32StartAddr"), I8("WaitMode"))),
    L(G_THREAD, 1, 1, OPS(2), FIELDS(U32("ProcessId"), U32("TThreadId"))),
    L(G_THREAD, 2, 2, OPS(1, 2, 3, 4), FIELDS(
        U32("ProcessId"), U32("TThreadId"), PTR("StackBase"), PTR("StackLimit"),
        PTR("UserStackBase"), PTR("UserStackLimit"), PTR("StartAddr"),
        PTR("Win32StartAddr"), PTR("TebBase"), X32("SubProcessTag"))),
    /* Version 3 records of Windows 10 1903 and later carry the ThreadName of
     * the version 4 class although they say version 3 (doc/format.md 18.4). */
    L(G_THREAD, 3, 3, OPS(1, 2, 3, 4), FIELDS(THREAD_V3, OPT_WSZ("ThreadName"))),
    L(G_THREAD, 4, 4, OPS(1, 2, 3, 4), FIELDS(THREAD_V3, WSZ("ThreadName"))),
    L(G_THREAD, 2, 4, OPS(36), FIELDS(
        U32("NewThreadId"), U32("OldThreadId"), I8("NewThreadPriority"),
        I8("OldThreadPriority"), U8("PreviousCState"), I8("SpareByte"),
        I8("OldThreadWaitReason"), I8("OldThreadWaitMode"), I8("OldThreadState"),
        I8("OldThreadWaitIdealProcessor"), U32("NewThreadWaitTime"), U32("Reserved"))),
    /* Compact context-switch batch: the PERFINFO_CCSWAP_BUFFER header; the
     * packed records that follow stay payload_hex (doc/format.md 18.4). */
    L(G_THREAD, 0, 255, OPS(37), FIELDS(
        I64("FirstTimeStamp"), ARR("TidTable", ETL_IN_UINT32, 16),
        ARR("ThreadBasePriority", ETL_IN_INT8, 16))),
    L(G_THREAD, 2, 2, OPS(50), FIELDS(
        U32("TThreadId"), I8("AdjustReason"), I8("AdjustIncrement"), I8("Flag"),
        I8("Reserved"))),
    L(G_THREAD, 2, 2, OPS(72), FIELDS(
        U32("ProcessId"), U32("ThreadId"), WSZ("ThreadName"))),
    L(G_THREAD, 2, 2, OPS(57), FIELDS(
        U32("TThreadId"), U64("StartTime"), PTR("ThreadRoutine"))),

    /* Image (2cb15d1d-5fc1-11d2-abe1-00a0c911f518). */
    L(G_IMAGE, 0, 0, OPS(10), FIELDS(
        PTR("BaseAddress"), U32("ModuleSize"), WSZ("ImageFileName"))),
    L(G_IMAGE, 1, 1, OPS(10), FIELDS(
        PTR("ImageBase"), SZT("ImageSize"), U32("ProcessId"), WSZ("FileName"))),
    L(G_IMAGE, 2, 3, OPS(10, 2, 3, 4), FIELDS(IMAGE_LOAD)),
    L(G_IMAGE, 2, 2, OPS(33), FIELDS(PTR("ImageBase"))),
    L(G_IMAGE, 2, 2, OPS(34), FIELDS(PTR("HypercallPageVa"))),

    /* DiskIo (3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c). */
    L(G_DISKIO, 2, 2, OPS(10, 11), FIELDS(
        U32("DiskNumber"), X32("IrpFlags"), U32("TransferSize"), U32("Reserved"),
        U64("ByteOffset"), PTR("FileObject"), PTR("Irp"), U64("HighResResponseTime"))),
    L(G_DISKIO, 3, 3, OPS(10, 11), FIELDS(
        U32("DiskNumber"), X32("IrpFlags"), U32("TransferSize"), U32("Reserved"),
        U64("ByteOffset"), PTR("FileObject"), PTR("Irp"), U64("HighResResponseTime"),
        U32("IssuingThreadId"))),
    L(G_DISKIO, 2, 2, OPS(12, 13, 15), FIELDS(PTR("Irp"))),
    L(G_DISKIO, 3, 3, OPS(12, 13, 15), FIELDS(PTR("Irp"), U32("IssuingThreadId"))),
    L(G_DISKIO, 2, 2, OPS(14), FIELDS(
        U32("DiskNumber"), X32("IrpFlags"), U64("HighResResponseTime"), PTR("Irp"))),
    L(G_DISKIO, 3, 3, OPS(14), FIELDS(
        U32("DiskNumber"), X32("IrpFlags"), U64("HighResResponseTime"), PTR("Irp"),
        U32("IssuingThreadId"))),
    L(G_DISKIO, 2, 3, OPS(34), FIELDS(
        U32("MajorFunction"), U32("MinorFunction"), PTR("RoutineAddr"),
        PTR("FileObject"), PTR("Irp"), U32("UniqMatchId"))),
    L(G_DISKIO, 2, 3, OPS(35, 53), FIELDS(PTR("Irp"), U32("UniqMatchId"))),
    L(G_DISKIO, 2, 3, OPS(37), FIELDS(
        PTR("Routine"), PTR("IrpPtr"), U32("UniqMatchId"))),
    L(G_DISKIO, 2, 3, OPS(52), FIELDS(
        PTR("RoutineAddr"), PTR("Irp"), U32("UniqMatchId"))),

    /* FileIo (90cbdc39-4a3e-11d1-84f4-0000f80464e3). */
    L(G_FILEIO, 0, 3, OPS(0, 32, 35, 36), FIELDS(PTR("FileObject"), WSZ("FileName"))),
    L(G_FILEIO, 2, 2, OPS(64), FIELDS(
        PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), X32("CreateOptions"),
        X32("FileAttributes"), X32("ShareAccess"), WSZ("OpenPath"))),
    L(G_FILEIO, 3, 3, OPS(64), FIELDS(
        PTR("IrpPtr"), PTR("FileObject"), U32("TTID"), X32("CreateOptions"),
        X32("FileAttributes"), X32("ShareAccess"), WSZ("OpenPath"))),
    L(G_FILEIO, 2, 2, OPS(65, 66, 73), FIELDS(
        PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey"))),
    L(G_FILEIO, 3, 3, OPS(65, 66, 73), FIELDS(
        PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), U32("TTID"))),
    L(G_FILEIO, 2, 2, OPS(67, 68), FIELDS(
        U64("Offset"), PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey"),
        U32("IoSize"), X32("IoFlags"))),
    L(G_FILEIO, 3, 3, OPS(67, 68), FIELDS(
        U64("Offset"), PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), U32("TTID"),
        U32("IoSize"), X32("IoFlags"))),
    L(G_FILEIO, 2, 2, OPS(69, 70, 71, 74, 75), FIELDS(
        PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey"),
        PTR("ExtraInfo"), U32("InfoClass"))),
    L(G_FILEIO, 3, 3, OPS(69, 70, 71, 74, 75), FIELDS(
        PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), PTR("ExtraInfo"),
        U32("TTID"), U32("InfoClass"))),
    L(G_FILEIO, 2, 2, OPS(72, 77), FIELDS(
        PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey"), U32("Length"),
        U32("InfoClass"), U32("FileIndex"), WSZ("FileName"))),
    L(G_FILEIO, 3, 3, OPS(72, 77), FIELDS(
        PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), U32("TTID"), U32("Length"),
        U32("InfoClass"), U32("FileIndex"), WSZ("FileName"))),
    L(G_FILEIO, 2, 3, OPS(76), FIELDS(
        PTR("IrpPtr"), PTR("ExtraInfo"), X32("NtStatus"))),
    L(G_FILEIO, 3, 3, OPS(79, 80, 81), FIELDS(
        PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), PTR("ExtraInfo"),
        U32("TTID"), U32("InfoClass"), WSZ("FileName"))),
    L(G_FILEIO, 2, 2, OPS(37, 38, 39, 40), FIELDS(
        PTR("ViewBase"), PTR("FileObject"), X64("MiscInfo"), SZT("ViewSize"),
        U32("ProcessId"))),

    /* PageFault (3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c). */
    L(G_PAGEFAULT, 2, 2, OPS(10, 11, 12, 13, 14, 15), FIELDS(
        PTR("VirtualAddress"), PTR("ProgramCounter"))),
    L(G_PAGEFAULT, 2, 2, OPS(32), FIELDS(
        U64("InitialTime"), X64("ReadOffset"), PTR("VirtualAddress"),
        PTR("FileObject"), U32("TThreadId"), U32("ByteCount"))),
    L(G_PAGEFAULT, 2, 2, OPS(100), FIELDS(
        PTR("HeapHandle"), X32("HRFlags"), U32("HRPid"), U32("HRRangeCount"))),
    L(G_PAGEFAULT, 2, 2, OPS(101), FIELDS(
        PTR("HeapHandle"), SZT("FirstRangeSize"), X32("HRCreateFlags"))),
    L(G_PAGEFAULT, 2, 2, OPS(102, 103), FIELDS(
        PTR("HeapHandle"), PTR("HRAddress"), SZT("HRSize"))),
    L(G_PAGEFAULT, 2, 2, OPS(104), FIELDS(PTR("HeapHandle"))),
    L(G_PAGEFAULT, 2, 2, OPS(105), FIELDS(
        PTR("FileObject"), X32("DeviceChar"), X16("FileChar"), X16("LoadFlags"))),

    /* TcpIp (9a280ac0-c8e0-11d1-84e2-00c04fb998a2), version 2. */
    L(G_TCPIP, 2, 2, OPS(10), FIELDS(
        TCP_ADDR4, U32("startime"), U32("endtime"), U32("seqnum"), PTR("connid"))),
    L(G_TCPIP, 2, 2, OPS(11, 13, 14, 16, 18), FIELDS(
        TCP_ADDR4, U32("seqnum"), PTR("connid"))),
    L(G_TCPIP, 2, 2, OPS(12, 15), FIELDS(
        TCP_ADDR4, TCP_OPTS, U32("seqnum"), PTR("connid"))),
    L(G_TCPIP, 2, 2, OPS(17), FIELDS(U16("Proto"), U16("FailureCode"))),
    L(G_TCPIP, 2, 2, OPS(26), FIELDS(
        TCP_ADDR6, U32("startime"), U32("endtime"), U32("seqnum"), PTR("connid"))),
    L(G_TCPIP, 2, 2, OPS(27, 29, 30, 32, 34), FIELDS(
        TCP_ADDR6, U32("seqnum"), PTR("connid"))),
    L(G_TCPIP, 2, 2, OPS(28, 31), FIELDS(
        TCP_ADDR6, TCP_OPTS, U32("seqnum"), PTR("connid"))),

    /* UdpIp (bf3a50c5-a9c9-4988-a005-2df0b7c80f80), version 2. */
    L(G_UDPIP, 2, 2, OPS(10, 11), FIELDS(TCP_ADDR4, U32("seqnum"), PTR("connid"))),
    L(G_UDPIP, 2, 2, OPS(17), FIELDS(U16("Proto"), U16("FailureCode"))),
    L(G_UDPIP, 2, 2, OPS(26, 27), FIELDS(TCP_ADDR6, U32("seqnum"), PTR("connid"))),

    /* Registry (ae53722e-c863-11d2-8659-00c04fa321a1). */
    L(G_REGISTRY, 0, 0, OPS(10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21), FIELDS(
        PTR("Status"), PTR("KeyHandle"), I64("ElapsedTime"), WSZ("KeyName"))),
    L(G_REGISTRY, 1, 1, OPS(10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22), FIELDS(
        PTR("Status"), PTR("KeyHandle"), I64("ElapsedTime"), U32("Index"),
        WSZ("KeyName"))),
    L(G_REGISTRY, 2, 2, OPS(10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                            25, 26, 27, 28, 29), FIELDS(
        I64("InitialTime"), X32("Status"), U32("Index"), PTR("KeyHandle"),
        WSZ("KeyName"))),

    /* PerfInfo (ce1dbfb4-137e-4da6-87b0-3f59aa102cbc). SampledProfile's
     * documented 32-bit Count is a 16-bit Count and a 16-bit Reserved in
     * real traces. */
    L(G_PERFINFO, 2, 2, OPS(46), FIELDS(
        PTR("InstructionPointer"), U32("ThreadId"), U16("Count"), U16("Reserved"))),
    L(G_PERFINFO, 2, 3, OPS(72, 73, 74), FIELDS(
        U32("Source"), U32("NewInterval"), U32("OldInterval"))),
    L(G_PERFINFO, 2, 2, OPS(51), FIELDS(PTR("SysCallAddress"))),
    L(G_PERFINFO, 2, 2, OPS(52), FIELDS(X32("SysCallNtStatus"))),
    L(G_PERFINFO, 1, 1, OPS(67), FIELDS(
        U64("InitialTime"), PTR("Routine"), U32("ReturnValue"))),
    L(G_PERFINFO, 2, 2, OPS(67), FIELDS(
        U64("InitialTime"), PTR("Routine"), U8("ReturnValue"), U8("Vector"),
        U16("Reserved"))),
    /* ISR-MSI has no MOF class of its own: ISR's fields, then the message
     * number (doc/format.md section 17). */
    L(G_PERFINFO, 2, 2, OPS(50), FIELDS(
        U64("InitialTime"), PTR("Routine"), U8("ReturnValue"), U8("Vector"),
        U16("Reserved"), U32("MessageNumber"))),
    L(G_PERFINFO, 1, 1, OPS(68, 69), FIELDS(U64("InitialTime"), PTR("Routine"))),
    L(G_PERFINFO, 2, 2, OPS(66, 68, 69), FIELDS(U64("InitialTime"), PTR("Routine"))),
    L(G_PERFINFO, 2, 2, OPS(58), FIELDS(END)),

    /* StackWalk (def2fe46-7bd6-4b80-bd94-f57fe20d0ce3): StackWalk_Event with
     * as many Stack<n> as the record holds, and the stack-key events. */
    L(G_STACKWALK, 2, 2, OPS(32), FIELDS(
        U64("EventTimeStamp"), U32("StackProcess"), U32("StackThread"), STACK)),
    L(G_STACKWALK, 2, 2, OPS(37, 38), FIELDS(
        U64("EventTimeStamp"), U32("StackProcess"), U32("StackThread"),
        PTR("StackKey"))),
    L(G_STACKWALK, 2, 2, OPS(35, 36), FIELDS(PTR("StackKey"), STACK)),

    /* ALPC (45d8cccd-539f-4b72-a8b7-5c683142609a). */
    L(G_ALPC, 2, 2, OPS(33, 34, 35), FIELDS(U32("MessageID"))),
    L(G_ALPC, 2, 2, OPS(36), FIELDS(U32("IsServerPort"), ASZ("PortName"))),
    L(G_ALPC, 2, 2, OPS(37), FIELDS(X32("Status"))),

    /* SystemConfig (01853a65-418f-4f36-aefc-dc0f1d2fd235). */
    L(G_SYSCONFIG, 2, 2, OPS(10), FIELDS(
        U32("MHz"), U32("NumberOfProcessors"), U32("MemSize"), U32("PageSize"),
        U32("AllocationGranularity"), WCH("ComputerName", 256),
        WCH("DomainName", 134), PTR("HyperThreadingFlag"))),
    L(G_SYSCONFIG, 3, 3, OPS(10), FIELDS(
        U32("MHz"), U32("NumberOfProcessors"), U32("MemSize"), U32("PageSize"),
        U32("AllocationGranularity"), WCH("ComputerName", 256),
        WCH("DomainName", 134), PTR("HyperThreadingFlag"), PTR("HighestUserAddress"),
        U16("ProcessorArchitecture"), U16("ProcessorLevel"), U16("ProcessorRevision"),
        U8("PaeEnabled"), U8("NxEnabled"), U32("MemorySpeed"))),
    L(G_SYSCONFIG, 2, 2, OPS(11), FIELDS(
        U32("DiskNumber"), U32("BytesPerSector"), U32("SectorsPerTrack"),
        U32("TracksPerCylinder"), U64("Cylinders"), U32("SCSIPort"), U32("SCSIPath"),
        U32("SCSITarget"), U32("SCSILun"), WCH("Manufacturer", 256),
        U32("PartitionCount"), U8("WriteCacheEnabled"), U8("Pad"),
        WCH("BootDriveLetter", 3), WCH("Spare", 2))),
    L(G_SYSCONFIG, 2, 2, OPS(12), FIELDS(
        U64("StartOffset"), U64("PartitionSize"), U32("DiskNumber"), U32("Size"),
        U32("DriveType"), WCH("DriveLetterString", 4), U32("Pad1"),
        U32("PartitionNumber"), U32("SectorsPerCluster"), U32("BytesPerSector"),
        U32("Pad2"), I64("NumberOfFreeClusters"), I64("TotalNumberOfClusters"),
        WCH("FileSystem", 16), U32("VolumeExt"), U32("Pad3"))),
    L(G_SYSCONFIG, 2, 2, OPS(13), FIELDS(
        X64("PhysicalAddr"), U32("PhysicalAddrLen"), U32("Ipv4Index"),
        U32("Ipv6Index"), WSZ("NICDescription"), WSZ("IpAddresses"),
        WSZ("DnsServerAddresses"))),
    L(G_SYSCONFIG, 2, 2, OPS(14), FIELDS(
        U32("MemorySize"), U32("XResolution"), U32("YResolution"), U32("BitsPerPixel"),
        U32("VRefresh"), WCH("ChipType", 256), WCH("DACType", 256),
        WCH("AdapterString", 256), WCH("BiosString", 256), WCH("DeviceId", 256),
        X32("StateFlags"))),
    L(G_SYSCONFIG, 2, 2, OPS(15), FIELDS(
        U32("ProcessId"), X32("ServiceState"), X32("SubProcessTag"),
        WSZ("ServiceName"), WSZ("DisplayName"), WSZ("ProcessName"))),
    L(G_SYSCONFIG, 3, 3, OPS(15), FIELDS(
        U32("ProcessId"), X32("ServiceState"), X32("SubProcessTag"),
        WSZ("ServiceName"), WSZ("DisplayName"), WSZ("ProcessName"),
        WSZ("LoadOrderGroup"), WSZ("SvchostGroup"))),
    L(G_SYSCONFIG, 2, 2, OPS(16), FIELDS(
        U8("S1"), U8("S2"), U8("S3"), U8("S4"), U8("S5"), U8("Pad1"), U8("Pad2"),
        U8("Pad3"))),
    L(G_SYSCONFIG, 2, 2, OPS(17), FIELDS(
        U32("TcbTablePartitions"), U32("MaxHashTableSize"), U32("MaxUserPort"),
        U32("TcpTimedWaitDelay"))),
    L(G_SYSCONFIG, 2, 2, OPS(18), FIELDS(
        U16("DiskNumber"), U16("BusType"), U16("DeviceType"), U16("MediaType"),
        U64("StartingOffset"), U64("Size"), U64("NumberOfFreeBlocks"),
        U64("TotalNumberOfBlocks"), U64("NextWritableAddress"), U32("NumberOfSessions"),
        U32("NumberOfTracks"), U32("BytesPerSector"), U16("DiscStatus"),
        U16("LastSessionStatus"), WSZ("DriveLetter"), WSZ("FileSystemName"),
        ASZ("DeviceName"), ASZ("ManufacturerName"))),
    L(G_SYSCONFIG, 2, 2, OPS(21), FIELDS(
        X64("IRQAffinity"), U32("IRQNum"), U32("DeviceDescriptionLen"),
        WSZ("DeviceDescription"))),
    L(G_SYSCONFIG, 3, 3, OPS(21), FIELDS(
        X64("IRQAffinity"), U16("IRQGroup"), U16("Reserved"), U32("IRQNum"),
        U32("DeviceDescriptionLen"), WSZ("DeviceDescription"))),
    L(G_SYSCONFIG, 2, 2, OPS(22), FIELDS(
        U32("IDLength"), U32("DescriptionLength"), U32("FriendlyNameLength"),
        WSZ("DeviceID"), WSZ("DeviceDescription"), WSZ("FriendlyName"))),
    L(G_SYSCONFIG, 3, 3, OPS(22), FIELDS(
        U32("IDLength"), U32("DescriptionLength"), U32("FriendlyNameLength"),
        WSZ("DeviceID"), WSZ("DeviceDescription"), WSZ("FriendlyName"),
        WSZ("PdoName"))),
    L(G_SYSCONFIG, 4, 4, OPS(22), FIELDS(
        GUID("ClassGuid"), U32("UpperFiltersCount"), U32("LowerFiltersCount"),
        WSZ("DeviceID"), WSZ("DeviceDescription"), WSZ("FriendlyName"),
        WSZ("PdoName"), WSZ("ServiceName"), WSZ("UpperFilters"), WSZ("LowerFilters"))),
    L(G_SYSCONFIG, 5, 5, OPS(22), FIELDS(
        GUID("ClassGuid"), U32("UpperFiltersCount"), U32("LowerFiltersCount"),
        X32("DevStatus"), U32("DevProblem"), WSZ("DeviceID"), WSZ("DeviceDescription"),
        WSZ("FriendlyName"), WSZ("PdoName"), WSZ("ServiceName"),
        OPT_WSZ("UpperFilters"), OPT_WSZ("LowerFilters"))),
    L(G_SYSCONFIG, 2, 2, OPS(23), FIELDS(
        U32("TargetId"), X32("DeviceType"), X32("DeviceTimingMode"),
        U32("LocationInformationLen"), WSZ("LocationInformation"))),
    L(G_SYSCONFIG, 2, 2, OPS(24), FIELDS(U32("NodeCount"), X64("NodeMap"))),
    L(G_SYSCONFIG, 2, 2, OPS(25), FIELDS(
        WSZ("SystemManufacturer"), WSZ("SystemProductName"), WSZ("BiosDate"),
        WSZ("BiosVersion"))),
    L(G_SYSCONFIG, 2, 2, OPS(26), FIELDS(U32("GroupCount"), PTR("Affinity"))),
    L(G_SYSCONFIG, 2, 2, OPS(27), FIELDS(U32("ProcessorCount"), U32("ProcessorNumber"))),
    L(G_SYSCONFIG, 2, 2, OPS(28), FIELDS(U32("MachineDPI"), U32("UserDPI"))),
    L(G_SYSCONFIG, 2, 2, OPS(29), FIELDS(X32("CodeIntegrityInfo"))),
    L(G_SYSCONFIG, 2, 2, OPS(30), FIELDS(GUID("MachineId"))),
    L(G_SYSCONFIG, 2, 2, OPS(31), FIELDS(
        U64("AlignmentClusters"), U64("AvgFreeSpaceSize"), U64("ClustersPerSlab"),
        U64("FragmentedDirectoryExtents"), U64("FragmentedExtents"),
        U64("FreeSpaceCount"), U64("LargestFreeSpaceSize"),
        U64("LastRunActualPurgeClusters"), U64("LastRunClustersTrimmed"),
        U64("LastRunFullDefragTime"), U64("LastRunTime"), U64("MFTSize"),
        U64("TotalClusters"), U64("TotalUsedClusters"), U32("AvgFragmentsPerFile"),
        U32("BytesPerCluster"), U32("DirectoryCount"), U32("FragmentedDirectories"),
        U32("FragmentedFiles"), U32("FragmentedSpace"), U32("HardwareIssue"),
        U32("InUseMFTRecords"), U32("InUseSlabs"), U32("LastRunActualPurgeSlabs"),
        U32("LastRunInitialBackedSlabs"), U32("LastRunPercentFragmentation"),
        U32("LastRunPinnedSlabs"), U32("LastRunPotentialPurgeSlabs"),
        U32("LastRunSpaceInefficientSlabs"), U32("LastRunTrimmedSlabs"),
        U32("LastRunUnknownEvictFailSlabs"), U32("LastRunVolsnapPinnedSlabs"),
        U32("MFTFragmentCount"), U32("MovableFiles"), U32("TotalMFTRecords"),
        U32("TotalSlabs"), U32("UnmovableFiles"), GUID("VolumeId"),
        WSZ("VolumePathNames"))),
    L(G_SYSCONFIG, 2, 2, OPS(32), FIELDS(
        WSZ("BootLoaderVersion"), WSZ("FirmwareRevision"), WSZ("FriendlyName"),
        WSZ("HardwareRevision"), WSZ("Manufacturer"), WSZ("ManufacturerDisplayName"),
        WSZ("ManufacturerModelName"), WSZ("MobileOperatorDisplayName"),
        WSZ("MobileOperatorName"), WSZ("ModelName"), WSZ("RadioHardwareRevision"),
        WSZ("RadioSoftwareRevision"), WSZ("ROMVersion"), WSZ("SOCVersion"),
        WSZ("HardwareVariant"))),
    L(G_SYSCONFIG, 2, 2, OPS(33), FIELDS(
        X64("UAPInfo"), U32("DeviceFamily"), U32("DeviceForm"))),
    L(G_SYSCONFIG, 2, 2, OPS(34), FIELDS(WSZ("UpdateId"), WSZ("FlightIdList"))),
    L(G_SYSCONFIG, 2, 2, OPS(35), FIELDS(
        U32("ProcessorIndex"), X32("FeatureSet"), U32("ProcessorSpeed"),
        WCH("ProcessorName", 64), WCH("VendorIdentifier", 16),
        WCH("ProcessorIdentifier", 128))),

    /* KernelTraceControl SystemConfigEx (9b79ee91-b5fd-41c0-a243-4248e266e9d0). */
    L(ETL_KG_SYSCONFIGEX, 0, 255, OPS(32), FIELDS(
        FTIME("InstallDate"), WSZ("BuildLab"), WSZ("ProductName"))),
    L(ETL_KG_SYSCONFIGEX, 0, 255, OPS(33), FIELDS(
        WSZ("SystemDirectory"), WSZ("SystemWindowsDirectory"))),
    L(ETL_KG_SYSCONFIGEX, 0, 255, OPS(34), FIELDS(WSZ("Value"))),
    L(ETL_KG_SYSCONFIGEX, 0, 255, OPS(35), FIELDS(WSZ("NtPath"), WSZ("DosPath"))),

    /* KernelTraceControl ImageID (b3e675d7-2554-4f18-830b-2762732560de). */
    L(ETL_KG_IMAGEID, 0, 255, OPS(0), FIELDS(
        PTR("ImageBase"), SZT("ImageSize"), U32("ProcessId"), U32("TimeDateStamp"),
        WSZ("OriginalFileName"))),
    L(ETL_KG_IMAGEID, 0, 255, OPS(36), FIELDS(
        PTR("ImageBase"), U32("ProcessId"), GUID("GuidSig"), U32("Age"),
        ASZ("PdbFileName"))),
};
const size_t etl_nklayouts = sizeof etl_klayouts / sizeof etl_klayouts[0];

/* Group names, the part of each event name before its '/'. */
const struct etl_kgroupname etl_kgroups[] = {
    { G_EVENTTRACE, "EventTrace" }, { G_DISKIO, "DiskIo" }, { G_PAGEFAULT, "PageFault" },
    { G_PROCESS, "Process" }, { G_FILEIO, "FileIo" }, { G_THREAD, "Thread" },
    { G_TCPIP, "TcpIp" }, { G_UDPIP, "UdpIp" }, { G_REGISTRY, "Registry" },
    { G_SYSCONFIG, "SysConfig" }, { G_PERFINFO, "PerfInfo" }, { G_IMAGE, "Image" },
    { G_STACKWALK, "StackWalk" }, { G_ALPC, "ALPC" },
    { ETL_KG_SYSCONFIGEX, "SysConfigEx" }, { ETL_KG_IMAGEID, "ImageID" },
    { ETL_KG_WINSAT, "WinSAT" }, { ETL_KG_METADATA, "EventMetadata" },
};
const size_t etl_nkgroups = sizeof etl_kgroups / sizeof etl_kgroups[0];

/* Event names: the MOF classes' DisplayName and EventTypeName. */
#define N(g, op, name) { g, op, name }
const struct etl_kname etl_knames[] = {
    N(G_EVENTTRACE, 0, "EventTrace/Header"),
    N(G_EVENTTRACE, 5, "EventTrace/Extension"),
    N(G_EVENTTRACE, 8, "EventTrace/RDComplete"),
    N(G_EVENTTRACE, 32, "EventTrace/EndExtension"),
    N(G_EVENTTRACE, 80, "EventTrace/PartitionInfoExtension"),
    N(G_DISKIO, 10, "DiskIo/Read"),
    N(G_DISKIO, 11, "DiskIo/Write"),
    N(G_DISKIO, 12, "DiskIo/ReadInit"),
    N(G_DISKIO, 13, "DiskIo/WriteInit"),
    N(G_DISKIO, 14, "DiskIo/FlushBuffers"),
    N(G_DISKIO, 15, "DiskIo/FlushInit"),
    N(G_DISKIO, 34, "DiskIo/DrvMjFnCall"),
    N(G_DISKIO, 35, "DiskIo/DrvMjFnRet"),
    N(G_DISKIO, 37, "DiskIo/DrvComplRout"),
    N(G_DISKIO, 52, "DiskIo/DrvComplReq"),
    N(G_DISKIO, 53, "DiskIo/DrvComplReqRet"),
    N(G_PAGEFAULT, 10, "PageFault/TransitionFault"),
    N(G_PAGEFAULT, 11, "PageFault/DemandZeroFault"),
    N(G_PAGEFAULT, 12, "PageFault/CopyOnWrite"),
    N(G_PAGEFAULT, 13, "PageFault/GuardPageFault"),
    N(G_PAGEFAULT, 14, "PageFault/HardPageFault"),
    N(G_PAGEFAULT, 15, "PageFault/AccessViolation"),
    N(G_PAGEFAULT, 32, "PageFault/HardFault"),
    N(G_PAGEFAULT, 100, "PageFault/HRRundown"),
    N(G_PAGEFAULT, 101, "PageFault/HRCreate"),
    N(G_PAGEFAULT, 102, "PageFault/HRReserve"),
    N(G_PAGEFAULT, 103, "PageFault/HRRelease"),
    N(G_PAGEFAULT, 104, "PageFault/HRDestroy"),
    N(G_PAGEFAULT, 105, "PageFault/ImageLoadBacked"),
    N(G_PROCESS, 1, "Process/Start"),
    N(G_PROCESS, 2, "Process/End"),
    N(G_PROCESS, 3, "Process/DCStart"),
    N(G_PROCESS, 4, "Process/DCEnd"),
    N(G_PROCESS, 10, "Image/Load"),
    N(G_PROCESS, 11, "Process/Terminate"),
    N(G_PROCESS, 32, "Process/PerfCtr"),
    N(G_PROCESS, 33, "Process/PerfCtrRundown"),
    N(G_PROCESS, 39, "Process/Defunct"),
    N(G_FILEIO, 0, "FileIo/Name"),
    N(G_FILEIO, 32, "FileIo/FileCreate"),
    N(G_FILEIO, 35, "FileIo/FileDelete"),
    N(G_FILEIO, 36, "FileIo/FileRundown"),
    N(G_FILEIO, 37, "FileIo/MapFile"),
    N(G_FILEIO, 38, "FileIo/UnmapFile"),
    N(G_FILEIO, 39, "FileIo/MapFileDCStart"),
    N(G_FILEIO, 40, "FileIo/MapFileDCEnd"),
    N(G_FILEIO, 64, "FileIo/Create"),
    N(G_FILEIO, 65, "FileIo/Cleanup"),
    N(G_FILEIO, 66, "FileIo/Close"),
    N(G_FILEIO, 67, "FileIo/Read"),
    N(G_FILEIO, 68, "FileIo/Write"),
    N(G_FILEIO, 69, "FileIo/SetInfo"),
    N(G_FILEIO, 70, "FileIo/Delete"),
    N(G_FILEIO, 71, "FileIo/Rename"),
    N(G_FILEIO, 72, "FileIo/DirEnum"),
    N(G_FILEIO, 73, "FileIo/Flush"),
    N(G_FILEIO, 74, "FileIo/QueryInfo"),
    N(G_FILEIO, 75, "FileIo/FSControl"),
    N(G_FILEIO, 76, "FileIo/OperationEnd"),
    N(G_FILEIO, 77, "FileIo/DirNotify"),
    N(G_FILEIO, 79, "FileIo/DeletePath"),
    N(G_FILEIO, 80, "FileIo/RenamePath"),
    N(G_FILEIO, 81, "FileIo/SetLinkPath"),
    N(G_THREAD, 1, "Thread/Start"),
    N(G_THREAD, 2, "Thread/End"),
    N(G_THREAD, 3, "Thread/DCStart"),
    N(G_THREAD, 4, "Thread/DCEnd"),
    N(G_THREAD, 36, "Thread/CSwitch"),
    N(G_THREAD, 37, "Thread/CompCS"),
    N(G_THREAD, 50, "Thread/ReadyThread"),
    N(G_THREAD, 57, "Thread/WorkerThread"),
    N(G_THREAD, 72, "Thread/SetName"),
    N(G_TCPIP, 10, "TcpIp/SendIPV4"),
    N(G_TCPIP, 11, "TcpIp/RecvIPV4"),
    N(G_TCPIP, 12, "TcpIp/ConnectIPV4"),
    N(G_TCPIP, 13, "TcpIp/DisconnectIPV4"),
    N(G_TCPIP, 14, "TcpIp/RetransmitIPV4"),
    N(G_TCPIP, 15, "TcpIp/AcceptIPV4"),
    N(G_TCPIP, 16, "TcpIp/ReconnectIPV4"),
    N(G_TCPIP, 17, "TcpIp/Fail"),
    N(G_TCPIP, 18, "TcpIp/TCPCopyIPV4"),
    N(G_TCPIP, 26, "TcpIp/SendIPV6"),
    N(G_TCPIP, 27, "TcpIp/RecvIPV6"),
    N(G_TCPIP, 28, "TcpIp/ConnectIPV6"),
    N(G_TCPIP, 29, "TcpIp/DisconnectIPV6"),
    N(G_TCPIP, 30, "TcpIp/RetransmitIPV6"),
    N(G_TCPIP, 31, "TcpIp/AcceptIPV6"),
    N(G_TCPIP, 32, "TcpIp/ReconnectIPV6"),
    N(G_TCPIP, 34, "TcpIp/TCPCopyIPV6"),
    N(G_UDPIP, 10, "UdpIp/SendIPV4"),
    N(G_UDPIP, 11, "UdpIp/RecvIPV4"),
    N(G_UDPIP, 17, "UdpIp/Fail"),
    N(G_UDPIP, 26, "UdpIp/SendIPV6"),
    N(G_UDPIP, 27, "UdpIp/RecvIPV6"),
    N(G_REGISTRY, 10, "Registry/Create"),
    N(G_REGISTRY, 11, "Registry/Open"),
    N(G_REGISTRY, 12, "Registry/Delete"),
    N(G_REGISTRY, 13, "Registry/Query"),
    N(G_REGISTRY, 14, "Registry/SetValue"),
    N(G_REGISTRY, 15, "Registry/DeleteValue"),
    N(G_REGISTRY, 16, "Registry/QueryValue"),
    N(G_REGISTRY, 17, "Registry/EnumerateKey"),
    N(G_REGISTRY, 18, "Registry/EnumerateValueKey"),
    N(G_REGISTRY, 19, "Registry/QueryMultipleValue"),
    N(G_REGISTRY, 20, "Registry/SetInformation"),
    N(G_REGISTRY, 21, "Registry/Flush"),
    N(G_REGISTRY, 22, "Registry/KCBCreate"),
    N(G_REGISTRY, 23, "Registry/KCBDelete"),
    N(G_REGISTRY, 24, "Registry/KCBRundownBegin"),
    N(G_REGISTRY, 25, "Registry/KCBRundownEnd"),
    N(G_REGISTRY, 26, "Registry/Virtualize"),
    N(G_REGISTRY, 27, "Registry/Close"),
    N(G_REGISTRY, 28, "Registry/SetSecurity"),
    N(G_REGISTRY, 29, "Registry/QuerySecurity"),
    N(G_SYSCONFIG, 10, "SysConfig/CPU"),
    N(G_SYSCONFIG, 11, "SysConfig/PhyDisk"),
    N(G_SYSCONFIG, 12, "SysConfig/LogDisk"),
    N(G_SYSCONFIG, 13, "SysConfig/NIC"),
    N(G_SYSCONFIG, 14, "SysConfig/Video"),
    N(G_SYSCONFIG, 15, "SysConfig/Services"),
    N(G_SYSCONFIG, 16, "SysConfig/Power"),
    N(G_SYSCONFIG, 17, "SysConfig/Network"),
    N(G_SYSCONFIG, 18, "SysConfig/OpticalDisk"),
    N(G_SYSCONFIG, 21, "SysConfig/IRQ"),
    N(G_SYSCONFIG, 22, "SysConfig/PnP"),
    N(G_SYSCONFIG, 23, "SysConfig/IDEChannel"),
    N(G_SYSCONFIG, 24, "SysConfig/NumaNode"),
    N(G_SYSCONFIG, 25, "SysConfig/Platform"),
    N(G_SYSCONFIG, 26, "SysConfig/ProcessorGroup"),
    N(G_SYSCONFIG, 27, "SysConfig/ProcessorNumber"),
    N(G_SYSCONFIG, 28, "SysConfig/DPI"),
    N(G_SYSCONFIG, 29, "SysConfig/CodeIntegrity"),
    N(G_SYSCONFIG, 30, "SysConfig/TelemetryConfiguration"),
    N(G_SYSCONFIG, 31, "SysConfig/Defragmentation"),
    N(G_SYSCONFIG, 32, "SysConfig/MobilePlatform"),
    N(G_SYSCONFIG, 33, "SysConfig/DeviceFamily"),
    N(G_SYSCONFIG, 34, "SysConfig/FlightIds"),
    N(G_SYSCONFIG, 35, "SysConfig/Processors"),
    /* evntrace.h EVENT_TRACE_TYPE_CONFIG_VIRTUALIZATION and _BOOT: named, no
     * public layout (their payloads stay payload_hex). */
    N(G_SYSCONFIG, 36, "SysConfig/Virtualization"),
    N(G_SYSCONFIG, 37, "SysConfig/Boot"),
    N(G_PERFINFO, 46, "PerfInfo/SampledProfile"),
    N(G_PERFINFO, 50, "PerfInfo/ISR-MSI"),
    N(G_PERFINFO, 51, "PerfInfo/SysCallEnter"),
    N(G_PERFINFO, 52, "PerfInfo/SysCallExit"),
    N(G_PERFINFO, 58, "PerfInfo/DebuggerEnabled"),
    N(G_PERFINFO, 66, "PerfInfo/ThreadedDPC"),
    N(G_PERFINFO, 67, "PerfInfo/ISR"),
    N(G_PERFINFO, 68, "PerfInfo/DPC"),
    N(G_PERFINFO, 69, "PerfInfo/TimerDPC"),
    N(G_PERFINFO, 72, "PerfInfo/SetInterval"),
    N(G_PERFINFO, 73, "PerfInfo/CollectionStart"),
    N(G_PERFINFO, 74, "PerfInfo/CollectionEnd"),
    N(G_IMAGE, 2, "Image/Unload"),
    N(G_IMAGE, 3, "Image/DCStart"),
    N(G_IMAGE, 4, "Image/DCEnd"),
    N(G_IMAGE, 10, "Image/Load"),
    N(G_IMAGE, 33, "Image/KernelBase"),
    N(G_IMAGE, 34, "Image/HypercallPage"),
    N(G_STACKWALK, 32, "StackWalk/Stack"),
    N(G_STACKWALK, 35, "StackWalk/KeyDelete"),
    N(G_STACKWALK, 36, "StackWalk/KeyRundown"),
    N(G_STACKWALK, 37, "StackWalk/StackKeyKernel"),
    N(G_STACKWALK, 38, "StackWalk/StackKeyUser"),
    N(G_ALPC, 33, "ALPC/ALPC-Send-Message"),
    N(G_ALPC, 34, "ALPC/ALPC-Receive-Message"),
    N(G_ALPC, 35, "ALPC/ALPC-Wait-For-Reply"),
    N(G_ALPC, 36, "ALPC/ALPC-Wait-For-New-Message"),
    N(G_ALPC, 37, "ALPC/ALPC-Unwait"),
    N(ETL_KG_SYSCONFIGEX, 32, "SysConfigEx/BuildInfo"),
    N(ETL_KG_SYSCONFIGEX, 33, "SysConfigEx/SystemPaths"),
    N(ETL_KG_SYSCONFIGEX, 34, "SysConfigEx/UnknownVolume"),
    N(ETL_KG_SYSCONFIGEX, 35, "SysConfigEx/VolumeMapping"),
    N(ETL_KG_IMAGEID, 0, "ImageID/ImageID"),
    N(ETL_KG_IMAGEID, 36, "ImageID/DbgID_RSDS"),
    N(ETL_KG_WINSAT, 33, "WinSAT/WinSPR"),
    N(ETL_KG_WINSAT, 35, "WinSAT/Metrics"),
    N(ETL_KG_WINSAT, 37, "WinSAT/SystemConfig"),
    N(ETL_KG_METADATA, 32, "EventMetadata/TraceEventInfo"),
    N(ETL_KG_METADATA, 33, "EventMetadata/EventMapInfo"),
};
const size_t etl_nknames = sizeof etl_knames / sizeof etl_knames[0];

const struct etl_kguid etl_kguids[] = {
    { GB(0x68fdd900u, 0x4a3e, 0x11d1, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3), G_EVENTTRACE },
    { GB(0x3d6fa8d4u, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c), G_DISKIO },
    { GB(0x3d6fa8d3u, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c), G_PAGEFAULT },
    { GB(0x3d6fa8d0u, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c), G_PROCESS },
    { GB(0x90cbdc39u, 0x4a3e, 0x11d1, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3), G_FILEIO },
    { GB(0x3d6fa8d1u, 0xfe05, 0x11d0, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c), G_THREAD },
    { GB(0x9a280ac0u, 0xc8e0, 0x11d1, 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2), G_TCPIP },
    { GB(0xbf3a50c5u, 0xa9c9, 0x4988, 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80), G_UDPIP },
    { GB(0xae53722eu, 0xc863, 0x11d2, 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1), G_REGISTRY },
    { GB(0x01853a65u, 0x418f, 0x4f36, 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35), G_SYSCONFIG },
    { GB(0xce1dbfb4u, 0x137e, 0x4da6, 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc), G_PERFINFO },
    { GB(0x2cb15d1du, 0x5fc1, 0x11d2, 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18), G_IMAGE },
    { GB(0xdef2fe46u, 0x7bd6, 0x4b80, 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3), G_STACKWALK },
    { GB(0x45d8cccdu, 0x539f, 0x4b72, 0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a), G_ALPC },
    { GB(0x9b79ee91u, 0xb5fd, 0x41c0, 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0), ETL_KG_SYSCONFIGEX },
    { GB(0xb3e675d7u, 0x2554, 0x4f18, 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde), ETL_KG_IMAGEID },
    { GB(0xed54dff8u, 0xc409, 0x4cf6, 0xbf, 0x83, 0x05, 0xe1, 0xe6, 0x1a, 0x09, 0xc4), ETL_KG_WINSAT },
    { GB(0xbbccf6c1u, 0x6cd1, 0x48c4, 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71), ETL_KG_METADATA },
};
const size_t etl_nkguids = sizeof etl_kguids / sizeof etl_kguids[0];
