// cuda_emu/graph.h - CUDA graphs: work recorded once as nodes with dependencies, then run many times.
//
// Part of the CPU emulation backend (common/emu/); <cuda_runtime.h> includes it, and
// runtime/graphs.cpp implements it. A graph is made either by capturing a stream (between
// cudaStreamBeginCapture and cudaStreamEndCapture, kernel launches, cudaMemcpyAsync,
// cudaMemsetAsync and cudaLaunchHostFunc on it become nodes instead of running; a stream that
// waits for an event recorded in the capture joins it) or node by node (cudaGraphAdd*Node).
// cudaGraphInstantiate makes an executable graph, a copy that later changes to the graph do not
// touch, and cudaGraphLaunch runs its nodes one at a time in an order that respects every
// dependency. On a GPU independent nodes may run at the same time; here they never overlap,
// which is one of the orders a GPU may choose. Kernel nodes keep copies of their arguments,
// taken when the node is made, as CUDA does.
//
// Graph memory: a memory alloc node (cudaGraphAddMemAllocNode, or cudaMallocAsync in a capturing
// stream) gives its allocation's address when it is made; the allocation exists from when the
// node runs until a memory free node (cudaGraphAddMemFreeNode, cudaFreeAsync in a capture), or
// cudaFree or cudaFreeAsync after the launch, frees it. An access outside that lifetime is
// reported with its line. cudaDeviceGetGraphMemAttribute reports a model of the physical memory a
// GPU keeps for graphs (runtime/graphs.cpp says how it is kept).
//
// Conditional nodes (cudaGraphAddNode with cudaGraphNodeTypeConditional) run their body graphs as
// a value decides, which kernels of the graph set with cudaGraphSetConditional: an if node runs
// body 0 when it is nonzero (and body 1, if it has one, when it is zero), a while node runs body 0
// again and again as long as it is nonzero, a switch node runs body n when it is n.
#pragma once

#include "types.h"
#include "api.h"
#include "texture.h"

typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphNode_st* cudaGraphNode_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;

enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0x00,
    cudaGraphNodeTypeMemcpy = 0x01,
    cudaGraphNodeTypeMemset = 0x02,
    cudaGraphNodeTypeHost = 0x03,
    cudaGraphNodeTypeGraph = 0x04,
    cudaGraphNodeTypeEmpty = 0x05,
    cudaGraphNodeTypeWaitEvent = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07,
    cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
    cudaGraphNodeTypeExtSemaphoreWait = 0x09,
    cudaGraphNodeTypeMemAlloc = 0x0a,
    cudaGraphNodeTypeMemFree = 0x0b,
    cudaGraphNodeTypeConditional = 0x0d,
};
enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0x0,
    cudaGraphExecUpdateError = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged = 0x4,
    cudaGraphExecUpdateErrorParametersChanged = 0x5,
    cudaGraphExecUpdateErrorNotSupported = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged = 0x8,
};
struct cudaGraphExecUpdateResultInfo {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
};
enum cudaGraphInstantiateFlags {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8,
};
#define cudaStreamGraphFireAndForget ((cudaStream_t)0x4)

struct cudaKernelNodeParams {
    void* func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void** kernelParams;
    void** extra;  // the driver API's packed form: not emulated (cudaErrorNotSupported)
};
struct cudaMemsetParams {
    void* dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;  // 1, 2 or 4 bytes
    size_t width;              // in elements
    size_t height;             // rows, pitch bytes apart
};
// A memory alloc node's allocation: device memory of device 0 (poolProps), bytesize bytes; the
// address comes back in dptr.
struct cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc* accessDescs;  // device 0, read-write, or none
    size_t accessDescCount;
    size_t bytesize;
    void* dptr;
};
enum cudaGraphMemAttributeType {
    cudaGraphMemAttrUsedMemCurrent = 0x0,      // uint64_t: bytes of memory graphs hold
    cudaGraphMemAttrUsedMemHigh = 0x1,         // uint64_t: its high-water mark (reset to 0 only)
    cudaGraphMemAttrReservedMemCurrent = 0x2,  // uint64_t: bytes the graphs' allocator holds
    cudaGraphMemAttrReservedMemHigh = 0x3,     // uint64_t: its high-water mark (reset to 0 only)
};
typedef void (*cudaHostFn_t)(void* user_data);
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void* userData;
};

// The data of an edge, in CUDA 13's forms of the calls that make edges: only ports of programmatic
// dependent launch would use it, so it must be null or all zero here.
struct cudaGraphEdgeData {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
};

// ---- Conditional nodes ---------------------------------------------------------------------------
// The handle is the address of the condition's value, which the graph keeps; a kernel sets it.
typedef unsigned long long cudaGraphConditionalHandle;
inline void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value) {
    *reinterpret_cast<volatile unsigned int*>(handle) = value;
}
enum cudaGraphConditionalHandleFlags {
    cudaGraphCondAssignDefault = 1,  // the value is set to its default at the start of each launch
};
enum cudaGraphConditionalNodeType {
    cudaGraphCondTypeIf = 0,
    cudaGraphCondTypeWhile = 1,
    cudaGraphCondTypeSwitch = 2,
};
struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned int size;         // bodies: 1 for while, 1 or 2 for if, any number for switch
    cudaGraph_t* phGraph_out;  // out: the bodies, which the node owns, to fill with nodes
};

// ---- cudaGraphAddNode: one call for every kind of node ---------------------------------------------
struct cudaKernelNodeParamsV2 {
    void* func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void** kernelParams;
    void** extra;
};
struct cudaMemcpyNodeParams {
    int flags;
    int reserved[3];
    struct cudaMemcpy3DParms copyParams;
};
struct cudaMemsetParamsV2 {
    void* dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};
struct cudaHostNodeParamsV2 {
    cudaHostFn_t fn;
    void* userData;
};
enum cudaGraphChildGraphNodeOwnership {
    cudaGraphChildGraphOwnershipClone = 0,
    cudaGraphChildGraphOwnershipMove = 1,  // not emulated (cudaErrorNotSupported)
};
struct cudaChildGraphNodeParams {
    cudaGraph_t graph;
    enum cudaGraphChildGraphNodeOwnership ownership;
};
struct cudaEventWaitNodeParams {
    cudaEvent_t event;
};
struct cudaEventRecordNodeParams {
    cudaEvent_t event;
};
struct cudaMemAllocNodeParamsV2 {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc* accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void* dptr;
};
struct cudaMemFreeNodeParams {
    void* dptr;
};
// The node's type picks the member of the union that holds its parameters. Event and external
// semaphore nodes are not emulated (cudaErrorNotSupported).
struct cudaGraphNodeParams {
    enum cudaGraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        struct cudaKernelNodeParamsV2 kernel;
        struct cudaMemcpyNodeParams memcpy;
        struct cudaMemsetParamsV2 memset;
        struct cudaHostNodeParamsV2 host;
        struct cudaChildGraphNodeParams graph;
        struct cudaEventWaitNodeParams eventWait;
        struct cudaEventRecordNodeParams eventRecord;
        struct cudaMemAllocNodeParamsV2 alloc;
        struct cudaMemFreeNodeParams free;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};
enum cudaStreamUpdateCaptureDependenciesFlags {
    cudaStreamAddCaptureDependencies = 0x0,
    cudaStreamSetCaptureDependencies = 0x1,
};

extern "C" {
// Stream capture
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* status);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode* mode);

// Graphs and their nodes
cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaKernelNodeParams* params);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaMemcpy3DParms* params);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count, void* dst,
                                     const void* src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaMemsetParams* params);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* dependencies, size_t count,
                                 const struct cudaHostNodeParams* params);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* dependencies, size_t count);
// The child graph is copied into the node: later changes to it do not reach the parent.
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* dependencies, size_t count,
                                       cudaGraph_t child);
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph);
// A graph with memory nodes cannot be cloned, be a child graph or have two executable graphs at
// once, as in CUDA (cudaErrorNotSupported).
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count,
                                     struct cudaMemAllocNodeParams* params, CUDA_EMU_HERE);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* dependencies, size_t count, void* dptr);
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams* params);
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr);  // a void** really
cudaError_t cudaDeviceGraphMemTrim(int device);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value);
// A handle of `graph`, for its conditional nodes and the kernels that set their condition.
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value = 0, unsigned int flags = 0);
// Capture into an existing graph, after `dependencies`; cudaStreamEndCapture then returns no graph.
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const struct cudaGraphEdgeData* edges, size_t count,
                                          enum cudaStreamCaptureMode mode);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* type);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* dependencies,
                                         size_t* count);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams* params);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams* params);
// A kernel node's launch attributes (cudaLaunchKernelEx's, less those of a launch's stream):
// checked and kept to be read back; cooperative is honoured, the hints change nothing.
#define cudaKernelNodeAttrID cudaLaunchAttributeID
#define cudaKernelNodeAttrValue cudaLaunchAttributeValue
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
#define cudaKernelNodeAttributeClusterDimension cudaLaunchAttributeClusterDimension
#define cudaKernelNodeAttributeClusterSchedulingPolicyPreference cudaLaunchAttributeClusterSchedulingPolicyPreference
#define cudaKernelNodeAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaKernelNodeAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaKernelNodeAttributePreferredSharedMemoryCarveout cudaLaunchAttributePreferredSharedMemoryCarveout
#define cudaKernelNodeAttributeDeviceUpdatableKernelNode cudaLaunchAttributeDeviceUpdatableKernelNode
#define cudaKernelNodeAttributeNvlinkUtilCentricScheduling cudaLaunchAttributeNvlinkUtilCentricScheduling
cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                            const cudaKernelNodeAttrValue* value);
cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue* value);
cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src);

// Executable graphs
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams* params);
}

// The calls whose signature changed between CUDA 11 and 12 take both forms, as C++ overloads.
// cudaStreamGetCaptureInfo: the CUDA 12 form (with the graph and its current dependencies).
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* status,
                                     unsigned long long* id = nullptr, cudaGraph_t* graph = nullptr,
                                     const cudaGraphNode_t** dependencies = nullptr,
                                     size_t* count = nullptr);
// CUDA 13: with the edge data of the dependencies too (always null here: plain edges only).
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** dependencies,
                                     const struct cudaGraphEdgeData** edges, size_t* count);
// The nodes the stream's next operation depends on: added to them, or instead of them
// (cudaStreamSetCaptureDependencies). CUDA 13's form takes edge data, plain edges only.
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                size_t count, unsigned int flags = 0);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const struct cudaGraphEdgeData* edges, size_t count,
                                                unsigned int flags = 0);
// CUDA 12: flags (cudaGraphInstantiateFlag*); CUDA 11 and the cuda-samples: an error node and log.
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, cudaGraphNode_t* error_node,
                                 char* log, size_t log_size);
// Edges from[i] -> to[i]: to[i] runs after from[i]. The CUDA 13 form takes edge data too.
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, size_t count);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edges,
                                     size_t count);
// Any kind of node, as params->type says; for a conditional node, params->conditional.phGraph_out
// comes back pointing at its bodies. CUDA 13's form, with edge data (plain edges only), and
// CUDA 12.3's without.
cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                             const cudaGraphEdgeData* edges, size_t count, cudaGraphNodeParams* params,
                             CUDA_EMU_HERE);
cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                             size_t count, cudaGraphNodeParams* params, CUDA_EMU_HERE);
// Copies the parameters of `graph`'s nodes into `exec` when both have the same nodes, of the same
// types, in the same order, with the same dependencies; otherwise cudaErrorGraphExecUpdateFailure.
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                struct cudaGraphExecUpdateResultInfo* result_info);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphNode_t* error_node,
                                enum cudaGraphExecUpdateResult* result);
