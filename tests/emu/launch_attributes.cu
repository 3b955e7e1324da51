// launch_attributes.cu - cudaLaunchKernelEx and the attributes of launches, kernel nodes and
// streams.
//  - The template form converts each argument to its parameter's type, as a call does; the C form
//    (cudaLaunchKernelExC) takes pointers to the arguments, the kernel as itself or as void*.
//  - Dynamic shared memory and the stream come from the configuration. The cooperative attribute
//    allows grid.sync(), in a launch and in a graph's kernel node (kept when the node gets new
//    parameters). A completion event orders another stream after the kernel, and brings that
//    stream into a capture; a launch captured into a graph runs when the graph does.
//  - Hints (an L2 access policy window, a priority, a memory synchronization domain) are
//    accepted; streams and kernel nodes keep their attributes to be read back and copied (a
//    graph's clone too).
//  - Errors: a window whose hitRatio is out of range or NaN, a stream-only attribute on a launch,
//    a launch-only attribute on a stream or a node. Under the emulator, a cluster of several
//    blocks, which it does not emulate, is refused with a message.
#include <cmath>

#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "launch_attributes";
constexpr int threads = 128;

// Each block stages its slice in dynamic shared memory and writes it back reversed and scaled:
// right only if the launch gave it blockDim.x floats of dynamic shared memory.
__global__ void reverse_scaled(float* out, const float* in, float factor, int n) {
    extern __shared__ float staged[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    int mirror = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
    if (mirror < n) out[mirror] = staged[threadIdx.x] * factor;
}

// Every block adds its threads' values into a total that block 0 reads only after grid.sync():
// allowed in a cooperative launch only.
__global__ void grid_total(const int* values, int n, int* total, int* seen_by_block0) {
    cg::grid_group grid = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, values[i]);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) *seen_by_block0 = *total;
}

__global__ void add_one(int* value) { *value += 1; }

static cudaLaunchAttribute window_attribute(void* base, size_t bytes, float hit_ratio, cudaAccessProperty miss) {
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeAccessPolicyWindow;
    attribute.val.accessPolicyWindow.base_ptr = base;
    attribute.val.accessPolicyWindow.num_bytes = bytes;
    attribute.val.accessPolicyWindow.hitRatio = hit_ratio;
    attribute.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attribute.val.accessPolicyWindow.missProp = miss;
    return attribute;
}

static void check_reversed(const float* d_out, const float* h_in, int n, float factor, const char* how) {
    float* h_out = (float*)malloc(n * sizeof(float));
    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int block_start = i / threads * threads;
        int mirror = block_start + (threads - 1 - (i - block_start));
        float expected = h_in[mirror] * factor;
        EXPECT(h_out[i] == expected, "%s: out[%d] = %g, not %g", how, i, h_out[i], expected);
    }
    free(h_out);
}

int main() {
    const int n = 5 * threads;  // whole blocks, so every element has a mirror
    float h_in[n];
    for (int i = 0; i < n; i++) h_in[i] = (float)(i % 97) - 40.0f;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_in));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    cudaStream_t stream, other;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));

    // The device says how much L2 may be set aside and how large a window may be.
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int persisting = -1, max_window = -1;
    CHECK(cudaDeviceGetAttribute(&persisting, cudaDevAttrMaxPersistingL2CacheSize, 0));
    CHECK(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0));
    EXPECT(persisting == prop.persistingL2CacheMaxSize && max_window == prop.accessPolicyMaxWindowSize,
           "the attributes (%d, %d) differ from the properties (%d, %d)", persisting, max_window,
           prop.persistingL2CacheMaxSize, prop.accessPolicyMaxWindowSize);
#ifdef CUDA_EMULATION
    EXPECT(persisting == 0, "the emulator claims %d bytes of L2 for persisting accesses", persisting);
#endif
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)persisting));
    CHECK(cudaCtxResetPersistingL2Cache());

    // The template form: 2 (an int) becomes the float factor, a short becomes the int n.
    cudaLaunchAttribute hints[4] = {};
    hints[0] = window_attribute(d_in, sizeof h_in, 0.6f, cudaAccessPropertyStreaming);
    hints[1].id = cudaLaunchAttributePriority;
    hints[1].val.priority = -1;
    hints[2].id = cudaLaunchAttributeMemSyncDomain;
    hints[2].val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    hints[3].id = cudaLaunchAttributeIgnore;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(n / threads);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = threads * sizeof(float);
    config.stream = stream;
    config.attrs = hints;
    config.numAttrs = 4;
    CHECK(cudaLaunchKernelEx(&config, reverse_scaled, d_out, (const float*)d_in, 2, (short)n));
    CHECK(cudaStreamSynchronize(stream));
    check_reversed(d_out, h_in, n, 2.0f, "cudaLaunchKernelEx");

    // The C form, with the kernel as void* and pointers to the arguments; no attributes.
    float factor = -0.5f;
    int count = n;
    void* args[] = {&d_out, &d_in, &factor, &count};
    config.attrs = nullptr;
    config.numAttrs = 0;
    CHECK(cudaLaunchKernelExC(&config, (const void*)reverse_scaled, args));
    CHECK(cudaStreamSynchronize(stream));
    check_reversed(d_out, h_in, n, -0.5f, "cudaLaunchKernelExC");

    // Cooperative: grid.sync() orders block 0's read after every block's additions.
    const int blocks = 4;
    int values_n = blocks * 64;
    int h_values[blocks * 64], expected_total = 0;
    for (int i = 0; i < values_n; i++) expected_total += h_values[i] = i % 13 - 3;
    int *d_values, *d_totals;
    CHECK(cudaMalloc(&d_values, sizeof h_values));
    CHECK(cudaMalloc(&d_totals, 2 * sizeof(int)));
    CHECK(cudaMemcpy(d_values, h_values, sizeof h_values, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_totals, 0, 2 * sizeof(int)));
    cudaLaunchAttribute cooperative = {};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    cudaLaunchConfig_t together = {};
    together.gridDim = dim3(blocks);
    together.blockDim = dim3(64);
    together.attrs = &cooperative;
    together.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&together, grid_total, (const int*)d_values, values_n, d_totals, d_totals + 1));
    int h_totals[2];
    CHECK(cudaMemcpy(h_totals, d_totals, sizeof h_totals, cudaMemcpyDeviceToHost));
    EXPECT(h_totals[0] == expected_total && h_totals[1] == expected_total,
           "cooperative total %d, block 0 saw %d, not %d", h_totals[0], h_totals[1], expected_total);

    // A completion event: the other stream's kernel waits for the first one's.
    int* d_counter;
    CHECK(cudaMalloc(&d_counter, sizeof(int)));
    CHECK(cudaMemset(d_counter, 0, sizeof(int)));
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    cudaLaunchAttribute completion = {};
    completion.id = cudaLaunchAttributeLaunchCompletionEvent;
    completion.val.launchCompletionEvent.event = done;
    cudaLaunchConfig_t single = {};
    single.gridDim = dim3(1);
    single.blockDim = dim3(1);
    single.stream = stream;
    single.attrs = &completion;
    single.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&single, add_one, d_counter));
    CHECK(cudaStreamWaitEvent(other, done, 0));
    add_one<<<1, 1, 0, other>>>(d_counter);
    CHECK(cudaStreamSynchronize(other));
    int h_counter = 0;
    CHECK(cudaMemcpy(&h_counter, d_counter, sizeof h_counter, cudaMemcpyDeviceToHost));
    EXPECT(h_counter == 2, "the counter is %d after two launches, not 2", h_counter);

    // Captured into a graph, the launch runs each time the graph does. Its completion event,
    // recorded in the capture, brings the other stream's launch into the graph after it.
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaEvent_t joined;
    CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchKernelEx(&single, add_one, d_counter));
    CHECK(cudaStreamWaitEvent(other, done, 0));
    add_one<<<1, 1, 0, other>>>(d_counter);
    CHECK(cudaEventRecord(joined, other));
    CHECK(cudaStreamWaitEvent(stream, joined, 0));
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    CHECK(cudaMemcpy(&h_counter, d_counter, sizeof h_counter, cudaMemcpyDeviceToHost));
    EXPECT(h_counter == 2 && nodes == 2, "after the capture the counter is %d and the graph has %zu nodes, not 2 and 2",
           h_counter, nodes);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(&h_counter, d_counter, sizeof h_counter, cudaMemcpyDeviceToHost));
    EXPECT(h_counter == 6, "after two graph launches the counter is %d, not 6", h_counter);

    // A kernel node's attributes: cooperative lets its grid.sync() run; the others read back, and
    // a second node copies them all.
    CHECK(cudaMemset(d_totals, 0, 2 * sizeof(int)));
    cudaGraph_t node_graph;
    CHECK(cudaGraphCreate(&node_graph, 0));
    void* total_args[] = {&d_values, &values_n, &d_totals, nullptr};
    int* d_seen = d_totals + 1;
    total_args[3] = &d_seen;
    cudaKernelNodeParams total_params = {};
    total_params.func = (void*)grid_total;
    total_params.gridDim = dim3(blocks);
    total_params.blockDim = dim3(64);
    total_params.kernelParams = total_args;
    cudaGraphNode_t total_node, second_node;
    CHECK(cudaGraphAddKernelNode(&total_node, node_graph, nullptr, 0, &total_params));
    CHECK(cudaGraphKernelNodeSetAttribute(total_node, cudaKernelNodeAttributeCooperative, &cooperative.val));
    cudaKernelNodeAttrValue node_value = {};
    node_value.accessPolicyWindow = hints[0].val.accessPolicyWindow;
    CHECK(cudaGraphKernelNodeSetAttribute(total_node, cudaKernelNodeAttributeAccessPolicyWindow, &node_value));
    node_value = {};
    node_value.priority = -2;
    CHECK(cudaGraphKernelNodeSetAttribute(total_node, cudaKernelNodeAttributePriority, &node_value));
    CHECK(cudaGraphAddKernelNode(&second_node, node_graph, &total_node, 1, &total_params));
    CHECK(cudaGraphKernelNodeCopyAttributes(second_node, total_node));
    for (cudaGraphNode_t node : {total_node, second_node}) {
        cudaKernelNodeAttrValue read = {};
        CHECK(cudaGraphKernelNodeGetAttribute(node, cudaKernelNodeAttributeCooperative, &read));
        EXPECT(read.cooperative == 1, "a node's cooperative attribute reads back as %d", read.cooperative);
        CHECK(cudaGraphKernelNodeGetAttribute(node, cudaKernelNodeAttributeAccessPolicyWindow, &read));
        EXPECT(read.accessPolicyWindow.base_ptr == d_in && read.accessPolicyWindow.hitRatio == 0.6f,
               "a node's window reads back as %p, ratio %g", read.accessPolicyWindow.base_ptr,
               read.accessPolicyWindow.hitRatio);
        CHECK(cudaGraphKernelNodeGetAttribute(node, cudaKernelNodeAttributePriority, &read));
        EXPECT(read.priority == -2, "a node's priority reads back as %d", read.priority);
    }
    cudaGraph_t cloned;  // a clone's nodes keep their attributes
    CHECK(cudaGraphClone(&cloned, node_graph));
    cudaGraphNode_t cloned_nodes[2];
    size_t cloned_count = 2;
    CHECK(cudaGraphGetNodes(cloned, cloned_nodes, &cloned_count));
    for (size_t i = 0; i < cloned_count; i++) {
        cudaKernelNodeAttrValue read = {};
        CHECK(cudaGraphKernelNodeGetAttribute(cloned_nodes[i], cudaKernelNodeAttributePriority, &read));
        EXPECT(read.priority == -2, "a cloned node's priority reads back as %d", read.priority);
    }
    CHECK(cudaGraphDestroy(cloned));
    node_value = {};
    node_value.launchCompletionEvent.event = done;  // a launch's attribute, not a node's
    EXPECT(cudaGraphKernelNodeSetAttribute(total_node, cudaLaunchAttributeLaunchCompletionEvent, &node_value) ==
               cudaErrorInvalidValue,
           "a kernel node took a launch completion event");
    cudaGetLastError();
    CHECK(cudaGraphKernelNodeSetParams(second_node, &total_params));  // new parameters keep the attributes
    cudaGraphExec_t node_exec;
    CHECK(cudaGraphInstantiate(&node_exec, node_graph, 0));
    CHECK(cudaGraphLaunch(node_exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(h_totals, d_totals, sizeof h_totals, cudaMemcpyDeviceToHost));
    EXPECT(h_totals[0] == 2 * expected_total && h_totals[1] == 2 * expected_total,
           "two cooperative nodes: total %d, block 0 saw %d, not %d", h_totals[0], h_totals[1], 2 * expected_total);
    CHECK(cudaGraphExecDestroy(node_exec));
    CHECK(cudaGraphDestroy(node_graph));

    // A stream keeps its attributes; another stream copies them.
    cudaStreamAttrValue value = {};
    value.accessPolicyWindow = window_attribute(d_in, 4096, 0.25f, cudaAccessPropertyNormal).val.accessPolicyWindow;
    CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
    value = {};
    value.syncPolicy = cudaSyncPolicyYield;
    CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeSynchronizationPolicy, &value));
    int least, greatest;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    value = {};
    value.priority = greatest - 100;  // past the range: taken to its end
    CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributePriority, &value));
    cudaStream_t copy;
    CHECK(cudaStreamCreate(&copy));
    CHECK(cudaStreamCopyAttributes(copy, stream));
    for (cudaStream_t s : {stream, copy}) {
        cudaStreamAttrValue read = {};
        CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &read));
        const cudaAccessPolicyWindow& window = read.accessPolicyWindow;
        EXPECT(window.base_ptr == d_in && window.num_bytes == 4096 && window.hitRatio == 0.25f &&
                   window.hitProp == cudaAccessPropertyPersisting && window.missProp == cudaAccessPropertyNormal,
               "a stream's window reads back as %p, %zu bytes, ratio %g", window.base_ptr, window.num_bytes,
               window.hitRatio);
        CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &read));
        EXPECT(read.syncPolicy == cudaSyncPolicyYield, "the synchronization policy reads back as %d",
               (int)read.syncPolicy);
        int priority = 0;
        CHECK(cudaStreamGetPriority(s, &priority));
        EXPECT(priority == greatest, "the priority set by attribute reads back as %d, not %d", priority, greatest);
    }
    value = {};
    value.accessPolicyWindow.num_bytes = 0;  // an empty window takes the policy away
    CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));

    // Errors: each call fails with cudaErrorInvalidValue and leaves nothing behind.
    cudaLaunchAttribute bad = window_attribute(d_in, sizeof h_in, 1.5f, cudaAccessPropertyStreaming);
    config.attrs = &bad;
    config.numAttrs = 1;
    EXPECT(cudaLaunchKernelEx(&config, reverse_scaled, d_out, (const float*)d_in, 1.0f, n) == cudaErrorInvalidValue,
           "a hitRatio of 1.5 was accepted");
    bad.val.accessPolicyWindow.hitRatio = NAN;
    EXPECT(cudaLaunchKernelEx(&config, reverse_scaled, d_out, (const float*)d_in, 1.0f, n) == cudaErrorInvalidValue,
           "a NaN hitRatio was accepted");
    bad = {};
    bad.id = cudaLaunchAttributeSynchronizationPolicy;  // a stream's attribute, not a launch's
    bad.val.syncPolicy = cudaSyncPolicySpin;
    EXPECT(cudaLaunchKernelEx(&config, reverse_scaled, d_out, (const float*)d_in, 1.0f, n) == cudaErrorInvalidValue,
           "a synchronization policy was accepted on a launch");
    value = {};
    value.cooperative = 1;  // a launch's attribute, not a stream's
    EXPECT(cudaStreamSetAttribute(stream, cudaLaunchAttributeCooperative, &value) == cudaErrorInvalidValue,
           "cudaStreamSetAttribute accepted the cooperative attribute");
    cudaGetLastError();
    check_reversed(d_out, h_in, n, -0.5f, "after the refused launches");

#ifdef CUDA_EMULATION
    // Clusters of blocks are not emulated: refused, not run as if they were single blocks.
    cudaLaunchAttribute cluster = {};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 2;
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    EXPECT(cudaLaunchKernelEx(&config, reverse_scaled, d_out, (const float*)d_in, 1.0f, n) == cudaErrorNotSupported,
           "a cluster launch was not refused");
    cudaGetLastError();
    cluster.val.clusterDim.x = 1;  // a cluster of one block is an ordinary launch
    CHECK(cudaLaunchKernelEx(&config, reverse_scaled, d_out, (const float*)d_in, 3.0f, n));
    CHECK(cudaStreamSynchronize(stream));
    check_reversed(d_out, h_in, n, 3.0f, "a cluster of one block");
#endif
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaEventDestroy(joined));
    for (cudaStream_t s : {stream, other, copy}) CHECK(cudaStreamDestroy(s));
    for (void* p : {(void*)d_in, (void*)d_out, (void*)d_values, (void*)d_totals, (void*)d_counter}) CHECK(cudaFree(p));
    return pass(test_name);
}
