// graph_memory.cu - graph memory nodes, as on a GPU: a memory alloc node gives its address when
// it is made and keeps it across launches; the allocation exists from the node's run until its
// free, which a free node of the same graph or of another graph, cudaFree or cudaFreeAsync may
// do; cudaMallocAsync and cudaFreeAsync in a capture become such nodes; a graph whose allocation
// is still allocated is launched again only after a free or with
// cudaGraphInstantiateFlagAutoFreeOnLaunch; and the device's figures for graph memory grow and
// shrink as the CUDA Programming Guide describes (a relaunch in one stream reuses the memory, an
// unfreed allocation keeps it, cudaDeviceGraphMemTrim gives back what no allocation uses).
//
// Run with no argument: every check passes and it prints "PASS graph_memory".
//   misuse          the runtime's errors for what CUDA forbids, then "PASS graph_memory"
//   after-free      a kernel node reads an allocation after its free node (reported with the
//                   line of its own alloc node, though an earlier one had its address)
#include <cstring>

#include "check.h"

static const char* test_name = "graph_memory";
constexpr int n = 1000;
constexpr size_t bytes = n * sizeof(int);

__global__ void fill(int* data, int first, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] = first + i;
}

__global__ void copy_doubled(const int* in, int* out, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = 2 * in[i];
}

static void expect_error(cudaError_t got, cudaError_t expected, const char* what) {
    EXPECT(got == expected, "%s returned %s, expected %s", what, cudaGetErrorName(got),
           cudaGetErrorName(expected));
    cudaGetLastError();  // the expected error is not left for the next check
}

static void expect_doubled(const int* d_out, int first, const char* after) {
    static int h_out[n];
    CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        EXPECT(h_out[i] == 2 * (first + i), "after %s, element %d is %d, expected %d", after, i,
               h_out[i], 2 * (first + i));
}

static cudaMemAllocNodeParams allocation_of(size_t size) {
    cudaMemAllocNodeParams params = {};
    params.poolProps.allocType = cudaMemAllocationTypePinned;
    params.poolProps.location.type = cudaMemLocationTypeDevice;
    params.poolProps.location.id = 0;
    params.bytesize = size;
    return params;
}

static cudaKernelNodeParams launch_of(void* kernel, void** arguments) {
    cudaKernelNodeParams params = {};
    params.func = kernel;
    params.gridDim = dim3((n + 255) / 256);
    params.blockDim = dim3(256);
    params.kernelParams = arguments;
    return params;
}

static unsigned long long graph_memory_used() {
    unsigned long long used = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    return used;
}

// alloc -> fill -> copy_doubled into d_out -> free: a scratch buffer that lives inside one launch.
// `first` is read through the argument copies the kernel node keeps, so it is fixed here.
static int scratch_first = 7;
static cudaGraph_t scratch_graph(int* d_out, int** scratch, bool with_free) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams allocation = allocation_of(bytes);
    cudaGraphNode_t alloc, filled, copied, freed;
    CHECK(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &allocation));
    EXPECT(allocation.dptr != nullptr, "the alloc node gave no address");
    *scratch = (int*)allocation.dptr;
    int count = n;
    void* fill_args[] = {scratch, &scratch_first, &count};
    cudaKernelNodeParams fill_launch = launch_of((void*)fill, fill_args);
    CHECK(cudaGraphAddKernelNode(&filled, graph, &alloc, 1, &fill_launch));
    void* copy_args[] = {scratch, &d_out, &count};
    cudaKernelNodeParams copy_launch = launch_of((void*)copy_doubled, copy_args);
    CHECK(cudaGraphAddKernelNode(&copied, graph, &filled, 1, &copy_launch));
    if (with_free) CHECK(cudaGraphAddMemFreeNode(&freed, graph, &copied, 1, *scratch));

    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(alloc, &type));
    EXPECT(type == cudaGraphNodeTypeMemAlloc, "the alloc node has type %d", type);
    cudaMemAllocNodeParams asked;
    CHECK(cudaGraphMemAllocNodeGetParams(alloc, &asked));
    EXPECT(asked.dptr == *scratch && asked.bytesize == bytes, "the alloc node reports %p, %zu bytes",
           asked.dptr, asked.bytesize);
    if (with_free) {
        void* freed_address = nullptr;
        CHECK(cudaGraphMemFreeNodeGetParams(freed, &freed_address));
        EXPECT(freed_address == *scratch, "the free node frees %p, not %p", freed_address, *scratch);
    }
    return graph;
}

static void launches_keep_the_address(int* d_out, cudaStream_t stream) {
    int* scratch;
    cudaGraph_t graph = scratch_graph(d_out, &scratch, true);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));  // the executable graph does not need it
    CHECK(cudaMemset(d_out, 0, bytes));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    expect_doubled(d_out, 7, "a graph with a scratch allocation");
    unsigned long long after_one = graph_memory_used();
    EXPECT(after_one >= bytes, "after one launch graphs hold %llu bytes, fewer than %zu", after_one, bytes);
    // Freed inside the graph, the allocation can be made again: the same memory serves the relaunch.
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(graph_memory_used() == after_one, "a relaunch in the same stream grew graph memory from "
           "%llu to %llu bytes", after_one, graph_memory_used());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(graph_memory_used() == 0, "after a trim with nothing allocated graphs hold %llu bytes",
           graph_memory_used());
}

// An allocation the graph does not free outlives the launch: stream work after it may use it, and
// cudaFree, cudaFreeAsync or another graph's free node frees it before the next launch.
static void an_allocation_outlives_its_launch(int* d_out, cudaStream_t stream) {
    int* scratch;
    cudaGraph_t graph = scratch_graph(d_out, &scratch, false);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    copy_doubled<<<(n + 255) / 256, 256, 0, stream>>>(scratch, d_out, n);  // after the graph: allowed
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
    expect_doubled(d_out, 7, "a kernel that reads a graph allocation after the graph");
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(graph_memory_used() >= bytes, "a trim took the memory of an allocation still allocated");
    CHECK(cudaFree(scratch));
    CHECK(cudaGraphLaunch(exec, stream));  // freed: it may run again
    CHECK(cudaFreeAsync(scratch, stream));

    cudaGraph_t freeing_graph;
    cudaGraphNode_t free_node;
    CHECK(cudaGraphCreate(&freeing_graph, 0));
    CHECK(cudaGraphAddMemFreeNode(&free_node, freeing_graph, nullptr, 0, scratch));
    cudaGraphExec_t freeing;
    CHECK(cudaGraphInstantiate(&freeing, freeing_graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaGraphLaunch(freeing, stream));
    CHECK(cudaGraphLaunch(exec, stream));  // freed by the other graph
    CHECK(cudaGraphLaunch(freeing, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaGraphExecDestroy(freeing));
    CHECK(cudaGraphDestroy(freeing_graph));
    CHECK(cudaGraphExecDestroy(exec));

    // Instantiated to free it itself, the graph may be launched again and again.
    CHECK(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    scratch_first = 11;  // the kernel nodes keep the value they were made with
    for (int launch = 0; launch < 3; launch++) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    expect_doubled(d_out, 7, "three launches that free their allocation themselves");
    scratch_first = 7;
    CHECK(cudaFree(scratch));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(graph_memory_used() == 0, "after the frees and a trim graphs hold %llu bytes", graph_memory_used());
}

// cudaMallocAsync and cudaFreeAsync in a capture are an alloc node and a free node: the address is
// given at once and stays the graph's.
static void a_capture_records_allocations(int* d_out, cudaStream_t stream) {
    int* scratch = nullptr;
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&scratch, bytes, stream));
    EXPECT(scratch != nullptr, "cudaMallocAsync in a capture gave no address");
    CHECK(cudaMemsetAsync(scratch, 0, bytes, stream));
    fill<<<(n + 255) / 256, 256, 0, stream>>>(scratch, 3, n);
    copy_doubled<<<(n + 255) / 256, 256, 0, stream>>>(scratch, d_out, n);
    CHECK(cudaFreeAsync(scratch, stream));
    CHECK(cudaStreamEndCapture(stream, &graph));

    cudaGraphNode_t nodes[5];
    size_t count = 5;
    CHECK(cudaGraphGetNodes(graph, nodes, &count));
    EXPECT(count == 5, "the capture made %zu nodes, expected 5", count);
    cudaGraphNodeType first, last;
    CHECK(cudaGraphNodeGetType(nodes[0], &first));
    CHECK(cudaGraphNodeGetType(nodes[4], &last));
    EXPECT(first == cudaGraphNodeTypeMemAlloc && last == cudaGraphNodeTypeMemFree,
           "the capture's first and last nodes have types %d and %d", first, last);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; launch++) {
        CHECK(cudaMemset(d_out, 0, bytes));
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        expect_doubled(d_out, 3, "a captured graph with cudaMallocAsync and cudaFreeAsync");
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
}

// The figures: what graphs hold never shrinks at a free, only at a trim; a high-water mark is reset
// to the current figure by setting it to 0, and only so.
static void graph_memory_attributes() {
    unsigned long long high = 0, reserved = 0, zero = 0, one = 1;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    EXPECT(high >= bytes, "the high-water mark of graph memory is %llu bytes", high);
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
    EXPECT(high == graph_memory_used(), "after a reset the high-water mark is %llu, not %llu", high,
           graph_memory_used());
    expect_error(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one),
                 cudaErrorInvalidValue, "setting a high-water mark to 1");
    expect_error(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero),
                 cudaErrorInvalidValue, "setting the current figure");
    expect_error(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &high),
                 cudaErrorInvalidDevice, "asking device 1");
}

#ifdef CUDA_EMULATION
// Within one graph an allocation made after another's free, of the same size, gets its address
// (as on a GPU, which does not promise it).
static void a_later_allocation_reuses_the_address() {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams first = allocation_of(bytes), second = allocation_of(bytes);
    cudaGraphNode_t alloc_first, free_first, alloc_second, alloc_beside;
    CHECK(cudaGraphAddMemAllocNode(&alloc_first, graph, nullptr, 0, &first));
    CHECK(cudaGraphAddMemFreeNode(&free_first, graph, &alloc_first, 1, first.dptr));
    CHECK(cudaGraphAddMemAllocNode(&alloc_second, graph, &free_first, 1, &second));
    EXPECT(second.dptr == first.dptr, "an allocation after the first's free got %p, not %p",
           second.dptr, first.dptr);
    cudaMemAllocNodeParams beside = allocation_of(bytes);  // not after any free: its own address
    CHECK(cudaGraphAddMemAllocNode(&alloc_beside, graph, &alloc_first, 1, &beside));
    EXPECT(beside.dptr != first.dptr, "an allocation beside the first got its address");
    CHECK(cudaGraphDestroy(graph));
}

// The model of the device's memory: a launch in another stream cannot know that a graph there
// has finished with its memory until the host has waited for it, so it takes memory of its own.
// The model keeps each allocation's size rounded up to 256 bytes.
static void another_stream_reuses_memory_after_a_wait(int* d_out) {
    const size_t block = (bytes + 255) / 256 * 256;
    int *first_scratch, *second_scratch;
    cudaGraph_t first_graph = scratch_graph(d_out, &first_scratch, true);
    cudaGraph_t second_graph = scratch_graph(d_out, &second_scratch, true);
    cudaGraphExec_t first, second;
    CHECK(cudaGraphInstantiate(&first, first_graph, 0));
    CHECK(cudaGraphInstantiate(&second, second_graph, 0));
    cudaStream_t one, other;
    CHECK(cudaStreamCreateWithFlags(&one, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaGraphLaunch(first, one));
    CHECK(cudaGraphLaunch(second, other));
    EXPECT(graph_memory_used() == 2 * block, "two streams at once hold %llu bytes, expected %zu",
           graph_memory_used(), 2 * block);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaGraphLaunch(first, one));
    CHECK(cudaStreamSynchronize(one));
    CHECK(cudaGraphLaunch(second, other));
    EXPECT(graph_memory_used() == block, "after a wait the second stream took new memory: %llu bytes",
           graph_memory_used());
    CHECK(cudaStreamDestroy(one));
    CHECK(cudaStreamDestroy(other));
    CHECK(cudaGraphExecDestroy(first));
    CHECK(cudaGraphExecDestroy(second));
    CHECK(cudaGraphDestroy(first_graph));
    CHECK(cudaGraphDestroy(second_graph));
}
#endif

static void misuse(int* d_out, cudaStream_t stream) {
    int* scratch;
    cudaGraph_t graph = scratch_graph(d_out, &scratch, false);
    cudaGraphExec_t exec, second;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    expect_error(cudaGraphLaunch(exec, stream), cudaErrorInvalidValue,
                 "a relaunch before the last launch's allocation is freed");
    expect_error(cudaGraphInstantiate(&second, graph, 0), cudaErrorNotSupported,
                 "a second executable graph of a graph with memory nodes");
    cudaGraph_t copy;
    expect_error(cudaGraphClone(&copy, graph), cudaErrorNotSupported, "cloning a graph with memory nodes");
    cudaGraphNode_t node;
    expect_error(cudaGraphAddMemFreeNode(&node, graph, nullptr, 0, d_out), cudaErrorInvalidValue,
                 "a free node for cudaMalloc memory");
    // An allocation its own graph frees is freed there once, and by no other graph.
    cudaGraph_t other;
    CHECK(cudaGraphCreate(&other, 0));
    cudaMemAllocNodeParams own = allocation_of(bytes);
    cudaGraphNode_t own_alloc, own_free;
    CHECK(cudaGraphAddMemAllocNode(&own_alloc, other, nullptr, 0, &own));
    CHECK(cudaGraphAddMemFreeNode(&own_free, other, &own_alloc, 1, own.dptr));
    expect_error(cudaGraphAddMemFreeNode(&node, other, &own_free, 1, own.dptr), cudaErrorInvalidValue,
                 "a second free node for one allocation");
    expect_error(cudaGraphAddMemFreeNode(&node, graph, nullptr, 0, own.dptr), cudaErrorInvalidValue,
                 "a free node in another graph for an allocation its own graph frees");
    CHECK(cudaGraphDestroy(other));
    cudaMemAllocNodeParams empty = allocation_of(0), elsewhere = allocation_of(bytes);
    expect_error(cudaGraphAddMemAllocNode(&node, graph, nullptr, 0, &empty), cudaErrorInvalidValue,
                 "an alloc node of 0 bytes");
    elsewhere.poolProps.location.id = 1;
    expect_error(cudaGraphAddMemAllocNode(&node, graph, nullptr, 0, &elsewhere), cudaErrorInvalidDevice,
                 "an alloc node on device 1");
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(scratch));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
}

// The graph frees its scratch buffer, then a kernel node reads it: reported with both lines.
static void read_after_free(int* d_out, cudaStream_t stream) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    // An earlier allocation of the same size, freed first: the next one gets its address, and
    // the report names the alloc node of the allocation that was read.
    cudaMemAllocNodeParams earlier = allocation_of(bytes);
    cudaGraphNode_t alloc_earlier, free_earlier;
    CHECK(cudaGraphAddMemAllocNode(&alloc_earlier, graph, nullptr, 0, &earlier));
    CHECK(cudaGraphAddMemFreeNode(&free_earlier, graph, &alloc_earlier, 1, earlier.dptr));
    cudaMemAllocNodeParams allocation = allocation_of(bytes);
    cudaGraphNode_t alloc, filled, freed, copied;
    CHECK(cudaGraphAddMemAllocNode(&alloc, graph, &free_earlier, 1, &allocation));  // the alloc node
    int* scratch = (int*)allocation.dptr;
    int first = 5, count = n;
    void* fill_args[] = {&scratch, &first, &count};
    cudaKernelNodeParams fill_launch = launch_of((void*)fill, fill_args);
    CHECK(cudaGraphAddKernelNode(&filled, graph, &alloc, 1, &fill_launch));
    CHECK(cudaGraphAddMemFreeNode(&freed, graph, &filled, 1, scratch));
    void* copy_args[] = {&scratch, &d_out, &count};
    cudaKernelNodeParams copy_launch = launch_of((void*)copy_doubled, copy_args);
    CHECK(cudaGraphAddKernelNode(&copied, graph, &freed, 1, &copy_launch));  // after the free
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    printf("FAIL %s: a kernel read a graph allocation after its free node unreported\n", test_name);
    exit(1);
}

int main(int argc, char** argv) {
    int* d_out;
    cudaStream_t stream;
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (argc > 1 && strcmp(argv[1], "after-free") == 0) read_after_free(d_out, stream);
    if (argc > 1 && strcmp(argv[1], "misuse") == 0) {
        misuse(d_out, stream);
        return pass(test_name);
    }
    launches_keep_the_address(d_out, stream);
    an_allocation_outlives_its_launch(d_out, stream);
    a_capture_records_allocations(d_out, stream);
    graph_memory_attributes();
#ifdef CUDA_EMULATION
    a_later_allocation_reuses_the_address();
    another_stream_reuses_memory_after_a_wait(d_out);
#endif
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_out));
    return pass(test_name);
}
