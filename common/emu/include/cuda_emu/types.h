// cuda_emu/types.h - the plain data types of the CUDA runtime, for the CPU emulator.
//
// Part of the CPU emulation backend (common/emu/). Students never include this file directly:
// <cuda_runtime.h> pulls it in. It declares what a .cu file can name without calling anything:
// the vector types (float4, int2, ...), dim3, the cudaError_t codes, cudaDeviceProp and the
// other enums and structs of the runtime API.
//
// The numbers are the real ones (error codes, attribute ids, alignments) so that code which
// prints or compares them behaves as it does with NVIDIA's headers.
#pragma once

#include <cstddef>
#include <cstdint>

// ---------------------------------------------------------------------------------------------
// Vector types. CUDA aligns a 2- or 4-component vector to its full size (a float4 is 16 bytes
// and 16-byte aligned) so the GPU can move it in one load; 3-component types keep the alignment
// of their element. We copy those alignments because code that casts float* to float4* relies
// on them.
//
// A GPU moves a whole vector of 2 to 16 bytes in one instruction (LDG.128, STS.64, STG.32 for
// a uchar4); a CPU compiler may split a copy of one into a load or store per member. In
// programs built with --profile or --sanitize, where every access is counted or checked, those
// types therefore copy themselves: one vector_access for the whole vector (and the instruction
// that copies it), then the bytes, which the checks do not see again. The copy is still a copy of the bytes, which
// vector_copies_bytes says for code that asks whether a type is trivially copyable.
// ---------------------------------------------------------------------------------------------
namespace cuda_emu {
template <class T> struct vector_copies_bytes { static constexpr bool value = false; };
}  // namespace cuda_emu

#if defined(CUDA_EMU_PROFILE) || defined(CUDA_EMU_SANITIZE)
namespace cuda_emu {
// runtime/sanitize.cpp: the calling instruction (pc) reads or writes size bytes at address
void vector_access(const void* address, unsigned long size, bool writes, const void* pc);
}  // namespace cuda_emu
#define CUDA_EMU_ONE_ACCESS(name)                                                                 \
    name() = default;                                                                             \
    __attribute__((noinline, no_sanitize("thread"))) name(const name& other) {                   \
        ::cuda_emu::vector_access(&other, sizeof(name), false, __builtin_return_address(0));     \
        __builtin_memcpy((void*)this, (const void*)&other, sizeof(name));                         \
    }                                                                                             \
    __attribute__((noinline, no_sanitize("thread"))) name& operator=(const name& other) {        \
        ::cuda_emu::vector_access(&other, sizeof(name), false, __builtin_return_address(0));     \
        ::cuda_emu::vector_access(this, sizeof(name), true, __builtin_return_address(0));        \
        __builtin_memcpy((void*)this, (const void*)&other, sizeof(name));                         \
        return *this;                                                                             \
    }
// Without the implicit aggregate initialization, {x, y} and {x} need constructors.
#define CUDA_EMU_WHOLE2(name, T) \
    CUDA_EMU_ONE_ACCESS(name) constexpr name(T vx, T vy = 0) : x(vx), y(vy) {}
#define CUDA_EMU_WHOLE4(name, T) \
    CUDA_EMU_ONE_ACCESS(name)    \
    constexpr name(T vx, T vy = 0, T vz = 0, T vw = 0) : x(vx), y(vy), z(vz), w(vw) {}
#define CUDA_EMU_COPIES_BYTES(name) \
    namespace cuda_emu { template <> struct vector_copies_bytes<name> { static constexpr bool value = true; }; }
#else
#define CUDA_EMU_WHOLE2(name, T)
#define CUDA_EMU_WHOLE4(name, T)
#define CUDA_EMU_COPIES_BYTES(name)
#endif
#define CUDA_EMU_PARTS2(name, T)
#define CUDA_EMU_PARTS4(name, T)

// moves: WHOLE, a vector of 2 to 16 bytes the GPU moves at once; PARTS, member by member (the
// 32-byte vectors, which it moves in two halves)
#define CUDA_EMU_VEC1(name, T, align)                                              \
    struct alignas(align) name { T x; };                                            \
    static inline name make_##name(T x) { name v; v.x = x; return v; }
#define CUDA_EMU_VEC2(name, T, align, moves)                                       \
    struct alignas(align) name { T x, y; CUDA_EMU_##moves##2(name, T) };            \
    static inline name make_##name(T x, T y) { name v; v.x = x; v.y = y; return v; }
#define CUDA_EMU_VEC3(name, T)                                                     \
    struct name { T x, y, z; };                                                     \
    static inline name make_##name(T x, T y, T z) { name v; v.x = x; v.y = y; v.z = z; return v; }
#define CUDA_EMU_VEC4(name, T, align, moves)                                       \
    struct alignas(align) name { T x, y, z, w; CUDA_EMU_##moves##4(name, T) };      \
    static inline name make_##name(T x, T y, T z, T w) {                            \
        name v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

#define CUDA_EMU_VEC_FAMILY(base, T, a1, a2, moves2, a4, moves4)     \
    CUDA_EMU_VEC1(base##1, T, a1) CUDA_EMU_VEC2(base##2, T, a2, moves2) \
    CUDA_EMU_VEC3(base##3, T) CUDA_EMU_VEC4(base##4, T, a4, moves4)

CUDA_EMU_VEC_FAMILY(char, signed char, 1, 2, WHOLE, 4, WHOLE)
CUDA_EMU_VEC_FAMILY(uchar, unsigned char, 1, 2, WHOLE, 4, WHOLE)
CUDA_EMU_VEC_FAMILY(short, short, 2, 4, WHOLE, 8, WHOLE)
CUDA_EMU_VEC_FAMILY(ushort, unsigned short, 2, 4, WHOLE, 8, WHOLE)
CUDA_EMU_VEC_FAMILY(int, int, 4, 8, WHOLE, 16, WHOLE)
CUDA_EMU_VEC_FAMILY(uint, unsigned int, 4, 8, WHOLE, 16, WHOLE)
CUDA_EMU_VEC_FAMILY(long, long, 8, 16, WHOLE, 16, PARTS)
CUDA_EMU_VEC_FAMILY(ulong, unsigned long, 8, 16, WHOLE, 16, PARTS)
CUDA_EMU_VEC_FAMILY(longlong, long long, 8, 16, WHOLE, 16, PARTS)
CUDA_EMU_VEC_FAMILY(ulonglong, unsigned long long, 8, 16, WHOLE, 16, PARTS)
CUDA_EMU_VEC_FAMILY(float, float, 4, 8, WHOLE, 16, WHOLE)
CUDA_EMU_VEC_FAMILY(double, double, 8, 16, WHOLE, 16, PARTS)

CUDA_EMU_COPIES_BYTES(char2) CUDA_EMU_COPIES_BYTES(uchar2) CUDA_EMU_COPIES_BYTES(char4)
CUDA_EMU_COPIES_BYTES(uchar4) CUDA_EMU_COPIES_BYTES(short2) CUDA_EMU_COPIES_BYTES(ushort2)
CUDA_EMU_COPIES_BYTES(short4) CUDA_EMU_COPIES_BYTES(ushort4)
CUDA_EMU_COPIES_BYTES(int2) CUDA_EMU_COPIES_BYTES(int4) CUDA_EMU_COPIES_BYTES(uint2)
CUDA_EMU_COPIES_BYTES(uint4) CUDA_EMU_COPIES_BYTES(long2) CUDA_EMU_COPIES_BYTES(ulong2)
CUDA_EMU_COPIES_BYTES(longlong2) CUDA_EMU_COPIES_BYTES(ulonglong2)
CUDA_EMU_COPIES_BYTES(float2) CUDA_EMU_COPIES_BYTES(float4) CUDA_EMU_COPIES_BYTES(double2)

#undef CUDA_EMU_VEC_FAMILY
#undef CUDA_EMU_VEC1
#undef CUDA_EMU_VEC2
#undef CUDA_EMU_VEC3
#undef CUDA_EMU_VEC4
#undef CUDA_EMU_ONE_ACCESS
#undef CUDA_EMU_WHOLE2
#undef CUDA_EMU_WHOLE4
#undef CUDA_EMU_PARTS2
#undef CUDA_EMU_PARTS4
#undef CUDA_EMU_COPIES_BYTES

// dim3 is a uint3 whose unset components are 1, so dim3(256) means 256 x 1 x 1.
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ---------------------------------------------------------------------------------------------
// Error codes: every name and number of NVIDIA's driver_types.h, so code that tests for any of
// them compiles; the emulator itself returns only a few.
// ---------------------------------------------------------------------------------------------
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorProfilerDisabled = 5,
    cudaErrorProfilerNotInitialized = 6,
    cudaErrorProfilerAlreadyStarted = 7,
    cudaErrorProfilerAlreadyStopped = 8,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidTexture = 18,
    cudaErrorInvalidTextureBinding = 19,
    cudaErrorInvalidChannelDescriptor = 20,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorAddressOfConstant = 22,
    cudaErrorTextureFetchFailed = 23,
    cudaErrorTextureNotBound = 24,
    cudaErrorSynchronizationError = 25,
    cudaErrorInvalidFilterSetting = 26,
    cudaErrorInvalidNormSetting = 27,
    cudaErrorMixedDeviceExecution = 28,
    cudaErrorNotYetImplemented = 31,
    cudaErrorMemoryValueTooLarge = 32,
    cudaErrorStubLibrary = 34,
    cudaErrorInsufficientDriver = 35,
    cudaErrorCallRequiresNewerDriver = 36,
    cudaErrorInvalidSurface = 37,
    cudaErrorDuplicateVariableName = 43,
    cudaErrorDuplicateTextureName = 44,
    cudaErrorDuplicateSurfaceName = 45,
    cudaErrorDevicesUnavailable = 46,
    cudaErrorIncompatibleDriverContext = 49,
    cudaErrorMissingConfiguration = 52,
    cudaErrorPriorLaunchFailure = 53,
    cudaErrorLaunchMaxDepthExceeded = 65,
    cudaErrorLaunchFileScopedTex = 66,
    cudaErrorLaunchFileScopedSurf = 67,
    cudaErrorSyncDepthExceeded = 68,
    cudaErrorLaunchPendingCountExceeded = 69,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorDeviceNotLicensed = 102,
    cudaErrorSoftwareValidityNotEstablished = 103,
    cudaErrorStartupFailure = 127,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorDeviceUninitialized = 201,
    cudaErrorMapBufferObjectFailed = 205,
    cudaErrorUnmapBufferObjectFailed = 206,
    cudaErrorArrayIsMapped = 207,
    cudaErrorAlreadyMapped = 208,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorAlreadyAcquired = 210,
    cudaErrorNotMapped = 211,
    cudaErrorNotMappedAsArray = 212,
    cudaErrorNotMappedAsPointer = 213,
    cudaErrorECCUncorrectable = 214,
    cudaErrorUnsupportedLimit = 215,
    cudaErrorDeviceAlreadyInUse = 216,
    cudaErrorPeerAccessUnsupported = 217,
    cudaErrorInvalidPtx = 218,
    cudaErrorInvalidGraphicsContext = 219,
    cudaErrorNvlinkUncorrectable = 220,
    cudaErrorJitCompilerNotFound = 221,
    cudaErrorUnsupportedPtxVersion = 222,
    cudaErrorJitCompilationDisabled = 223,
    cudaErrorUnsupportedExecAffinity = 224,
    cudaErrorUnsupportedDevSideSync = 225,
    cudaErrorContained = 226,
    cudaErrorInvalidSource = 300,
    cudaErrorFileNotFound = 301,
    cudaErrorSharedObjectSymbolNotFound = 302,
    cudaErrorSharedObjectInitFailed = 303,
    cudaErrorOperatingSystem = 304,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorLossyQuery = 402,
    cudaErrorSymbolNotFound = 500,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorLaunchIncompatibleTexturing = 703,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorSetOnActiveProcess = 708,
    cudaErrorContextIsDestroyed = 709,
    cudaErrorAssert = 710,
    cudaErrorTooManyPeers = 711,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorHardwareStackError = 714,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorInvalidAddressSpace = 717,
    cudaErrorInvalidPc = 718,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorTensorMemoryLeak = 721,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorSystemNotReady = 802,
    cudaErrorSystemDriverMismatch = 803,
    cudaErrorCompatNotSupportedOnDevice = 804,
    cudaErrorMpsConnectionFailed = 805,
    cudaErrorMpsRpcFailure = 806,
    cudaErrorMpsServerNotReady = 807,
    cudaErrorMpsMaxClientsReached = 808,
    cudaErrorMpsMaxConnectionsReached = 809,
    cudaErrorMpsClientTerminated = 810,
    cudaErrorCdpNotSupported = 811,
    cudaErrorCdpVersionMismatch = 812,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureMerge = 902,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureUnjoined = 904,
    cudaErrorStreamCaptureIsolation = 905,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorCapturedEvent = 907,
    cudaErrorStreamCaptureWrongThread = 908,
    cudaErrorTimeout = 909,
    cudaErrorGraphExecUpdateFailure = 910,
    cudaErrorExternalDevice = 911,
    cudaErrorInvalidClusterSize = 912,
    cudaErrorFunctionNotLoaded = 913,
    cudaErrorInvalidResourceType = 914,
    cudaErrorInvalidResourceConfiguration = 915,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};

// CUDA 13 names a prefetch/advice target with a location instead of a device number.
enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeNone = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2,
    cudaMemLocationTypeHostNuma = 3,
    cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation { enum cudaMemLocationType type; int id; };

// Stream-ordered allocation (cudaMallocAsync): memory pools, what they may be asked about, and
// who may reach their memory.
typedef struct CUmemPoolHandle_st* cudaMemPool_t;
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 0x1,    // int: reuse across an event dependency
    cudaMemPoolReuseAllowOpportunistic = 0x2,         // int: reuse a free that has completed
    cudaMemPoolReuseAllowInternalDependencies = 0x3,  // int: reuse, making the streams wait
    cudaMemPoolAttrReleaseThreshold = 0x4,            // uint64_t: bytes kept past a synchronize
    cudaMemPoolAttrReservedMemCurrent = 0x5,          // uint64_t: bytes the pool holds
    cudaMemPoolAttrReservedMemHigh = 0x6,             // uint64_t: their high-water mark
    cudaMemPoolAttrUsedMemCurrent = 0x7,              // uint64_t: bytes handed out
    cudaMemPoolAttrUsedMemHigh = 0x8                  // uint64_t: their high-water mark
};
enum cudaMemAccessFlags {
    cudaMemAccessFlagsProtNone = 0,
    cudaMemAccessFlagsProtRead = 1,
    cudaMemAccessFlagsProtReadWrite = 3
};
struct cudaMemAccessDesc {
    struct cudaMemLocation location;
    enum cudaMemAccessFlags flags;
};
enum cudaMemAllocationType {
    cudaMemAllocationTypeInvalid = 0x0,
    cudaMemAllocationTypePinned = 0x1,
    cudaMemAllocationTypeManaged = 0x2,
    cudaMemAllocationTypeMax = 0x7FFFFFFF
};
// How a pool's memory may be shared with another process (IPC); a bit mask.
enum cudaMemAllocationHandleType {
    cudaMemHandleTypeNone = 0x0,
    cudaMemHandleTypePosixFileDescriptor = 0x1,
    cudaMemHandleTypeWin32 = 0x2,
    cudaMemHandleTypeWin32Kmt = 0x4,
    cudaMemHandleTypeFabric = 0x8
};
struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void* win32SecurityAttributes;
    size_t maxSize;  // 0: no limit but the memory there is
    unsigned short usage;
    unsigned char reserved[54];
};

enum cudaLimit {
    cudaLimitStackSize = 0x00,
    cudaLimitPrintfFifoSize = 0x01,
    cudaLimitMallocHeapSize = 0x02,
    cudaLimitDevRuntimeSyncDepth = 0x03,
    cudaLimitDevRuntimePendingLaunchCount = 0x04,
    cudaLimitMaxL2FetchGranularity = 0x05,
    cudaLimitPersistingL2CacheSize = 0x06
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrMaxTexture1DWidth = 21,
    cudaDevAttrMaxTexture2DWidth = 22,
    cudaDevAttrMaxTexture2DHeight = 23,
    cudaDevAttrMaxTexture3DWidth = 24,
    cudaDevAttrMaxTexture3DHeight = 25,
    cudaDevAttrMaxTexture3DDepth = 26,
    cudaDevAttrSurfaceAlignment = 30,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrTexturePitchAlignment = 51,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,  // the modelled GPU's, not the CPU's
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrHostNativeAtomicSupported = 86,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMaxPersistingL2CacheSize = 108,
    cudaDevAttrMaxAccessPolicyWindowSize = 109,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
    cudaDevAttrClusterLaunch = 120,
    cudaDevAttrHostMemoryPoolsSupported = 144
};

// What cudaDeviceGetP2PAttribute answers about two devices; there is one device here.
enum cudaDeviceP2PAttr {
    cudaDevP2PAttrPerformanceRank = 1,
    cudaDevP2PAttrAccessSupported = 2,
    cudaDevP2PAttrNativeAtomicSupported = 3,
    cudaDevP2PAttrCudaArrayAccessSupported = 4
};

typedef struct CUuuid_st {
    char bytes[16];
} cudaUUID_t;

// Whether several processes may use the device; the emulated one never refuses anyone.
enum cudaComputeMode {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};

// The subset of cudaDeviceProp that means something for an emulated device; names and types
// as in CUDA 13 (which dropped clockRate and memoryClockRate: ask cudaDeviceGetAttribute).
struct cudaDeviceProp {
    char name[256];
    cudaUUID_t uuid;  // all zero: no physical device
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int multiProcessorCount;
    int integrated;
    int canMapHostMemory;
    // the modelled GPU's limits, though layered textures are not emulated
    int maxTexture1D;
    int maxTexture2D[2];
    int maxTexture3D[3];
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    size_t surfaceAlignment;
    int computeMode;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;  // 0: no lines of L2 can be set aside here (see below)
    int accessPolicyMaxWindowSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int concurrentManagedAccess;
    int pageableMemoryAccess;  // kernels may read malloc'd memory: here all memory is the host's
    int pageableMemoryAccessUsesHostPageTables;
    int hostNativeAtomicSupported;
    int computePreemptionSupported;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int maxBlocksPerMultiProcessor;
    size_t reservedSharedMemPerBlock;
};

struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
};

// Streams and events are opaque handles, as in the real runtime; 0 is the default stream.
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaCpuDeviceId (-1)
#define cudaInvalidDeviceId (-2)

// ---- Launch and stream attributes (cudaLaunchKernelEx, cudaStreamSetAttribute) ----------------
// Values and layout as in CUDA 13. The emulated device keeps no lines in an L2 cache, so an
// access policy window is checked and kept, to be read back, and changes nothing; nor do
// priorities, synchronization policies or memory synchronization domains.
enum cudaAccessProperty {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
    void* base_ptr;
    size_t num_bytes;
    float hitRatio;  // the fraction of the window's lines given hitProp; the rest get missProp
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;  // Normal or Streaming
};
enum cudaSynchronizationPolicy {
    cudaSyncPolicyAuto = 1,
    cudaSyncPolicySpin = 2,
    cudaSyncPolicyYield = 3,
    cudaSyncPolicyBlockingSync = 4
};
enum cudaClusterSchedulingPolicy {
    cudaClusterSchedulingPolicyDefault = 0,
    cudaClusterSchedulingPolicySpread = 1,
    cudaClusterSchedulingPolicyLoadBalancing = 2
};
typedef enum cudaLaunchMemSyncDomain {
    cudaLaunchMemSyncDomainDefault = 0,
    cudaLaunchMemSyncDomainRemote = 1
} cudaLaunchMemSyncDomain;
typedef struct cudaLaunchMemSyncDomainMap_st {
    unsigned char default_;
    unsigned char remote;
} cudaLaunchMemSyncDomainMap;
typedef enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
    cudaLaunchAttributeMemSyncDomainMap = 9,
    cudaLaunchAttributeMemSyncDomain = 10,
    cudaLaunchAttributePreferredClusterDimension = 11,
    cudaLaunchAttributeLaunchCompletionEvent = 12,
    cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
    cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
    cudaLaunchAttributeNvlinkUtilCentricScheduling = 16
} cudaLaunchAttributeID;
typedef union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;  // non-zero: as cudaLaunchCooperativeKernel
    enum cudaSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    enum cudaClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        cudaEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
    cudaLaunchMemSyncDomainMap memSyncDomainMap;
    cudaLaunchMemSyncDomain memSyncDomain;
    struct {
        unsigned int x, y, z;
    } preferredClusterDim;
    struct {
        cudaEvent_t event;
        int flags;
    } launchCompletionEvent;
    struct {
        int deviceUpdatable;
        struct CUgraphDeviceUpdatableNode_st* devNode;
    } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute* attrs;  // may be null when numAttrs is 0
    unsigned int numAttrs;
} cudaLaunchConfig_t;
#define cudaStreamAttrID cudaLaunchAttributeID
#define cudaStreamAttrValue cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaStreamAttributePriority cudaLaunchAttributePriority
