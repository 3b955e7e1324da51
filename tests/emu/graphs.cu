// graphs.cu - CUDA graphs, made by stream capture and node by node, run as the GPU runs them:
// a captured launch keeps the argument values it had when captured, captured work does not run
// until the graph is launched, nodes run after the nodes they depend on, an executable graph is a
// copy that node-parameter changes reach only through the calls meant for it, and misuse gets
// the runtime's errors (cudaErrorStreamCaptureUnsupported, ...Invalidated, ...Unjoined,
// cudaErrorIllegalState, cudaErrorGraphExecUpdateFailure).
#include <cstring>

#include "check.h"

static const char* test_name = "graphs";
constexpr int n = 1000;

__global__ void add_value(int* data, int value, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] += value;
}

__global__ void scale(int* data, int factor, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] *= factor;
}

// Host nodes write down the order they ran in.
static char trace[16];
static void note(void* letter) { strncat(trace, (const char*)letter, 1); }

static void expect_all(const int* d_data, int expected, const char* after) {
    static int h_data[n];
    CHECK(cudaMemcpy(h_data, d_data, sizeof h_data, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        EXPECT(h_data[i] == expected, "after %s, element %d is %d, expected %d", after, i, h_data[i],
               expected);
}

static void expect_error(cudaError_t got, cudaError_t expected, const char* what) {
    EXPECT(got == expected, "%s returned %s, expected %s", what, cudaGetErrorName(got),
           cudaGetErrorName(expected));
    cudaGetLastError();  // the expected error is not left for the next check
}

// A loop captured into one graph: each launch keeps its own `value`, and nothing runs until the
// graph is launched. A fork to a second stream through events joins back before the end.
static void capture_a_loop(int* d_data, cudaStream_t stream, cudaStream_t other) {
    cudaEvent_t fork, join;
    CHECK(cudaEventCreate(&fork));
    CHECK(cudaEventCreate(&join));
    CHECK(cudaMemset(d_data, 0, n * sizeof(int)));

    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(stream, &status));
    EXPECT(status == cudaStreamCaptureStatusActive, "a capturing stream reported status %d", status);
    CHECK(cudaMemsetAsync(d_data, 0, n * sizeof(int), stream));
    for (int value = 1; value <= 4; value++) add_value<<<(n + 255) / 256, 256, 0, stream>>>(d_data, value, n);
    CHECK(cudaEventRecord(fork, stream));
    CHECK(cudaStreamWaitEvent(other, fork, 0));  // `other` joins the capture
    scale<<<(n + 255) / 256, 256, 0, other>>>(d_data, 3, n);
    CHECK(cudaEventRecord(join, other));
    CHECK(cudaStreamWaitEvent(stream, join, 0));
    CHECK(cudaLaunchHostFunc(stream, note, (void*)"h"));
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaStreamIsCapturing(stream, &status));
    EXPECT(status == cudaStreamCaptureStatusNone, "after the capture the status is %d", status);
    CHECK(cudaStreamIsCapturing(other, &status));
    EXPECT(status == cudaStreamCaptureStatusNone, "the joined stream still captures");
    expect_all(d_data, 0, "the capture (nothing may run yet)");
    EXPECT(trace[0] == 0, "the host function ran during the capture");

    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    EXPECT(count == 7, "the captured graph has %zu nodes, expected 7", count);  // memset, 4+1 kernels, host

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    expect_all(d_data, (1 + 2 + 3 + 4) * 3, "one launch of the captured graph");
    CHECK(cudaGraphLaunch(exec, stream));  // the memset node starts each launch from zero
    CHECK(cudaStreamSynchronize(stream));
    expect_all(d_data, 30, "a second launch");
    EXPECT(strcmp(trace, "hh") == 0, "the host node ran as \"%s\", expected \"hh\"", trace);
    trace[0] = 0;
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
}

static void capture_errors(int* d_data, cudaStream_t stream, cudaStream_t other) {
    cudaGraph_t graph = nullptr;
    expect_error(cudaStreamEndCapture(stream, &graph), cudaErrorIllegalState,
                 "cudaStreamEndCapture without a capture");
    expect_error(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
                 cudaErrorStreamCaptureUnsupported, "capturing the legacy default stream");

    // cudaMalloc is not stream work: forbidden during a global capture, which it spoils.
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    expect_error(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaErrorIllegalState,
                 "a second cudaStreamBeginCapture");
    void* buffer = nullptr;
    expect_error(cudaMalloc(&buffer, 64), cudaErrorStreamCaptureUnsupported, "cudaMalloc in a capture");
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(stream, &status));
    EXPECT(status == cudaStreamCaptureStatusInvalidated, "a spoilt capture reported status %d", status);
    expect_error(cudaStreamEndCapture(stream, &graph), cudaErrorStreamCaptureInvalidated,
                 "cudaStreamEndCapture of a spoilt capture");
    EXPECT(graph == nullptr, "a spoilt capture gave a graph");

    // In relaxed mode it is allowed.
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    CHECK(cudaMalloc(&buffer, 64));
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(buffer));

    // A stream that joined and was not joined back.
    cudaEvent_t fork;
    CHECK(cudaEventCreate(&fork));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, stream));
    CHECK(cudaStreamWaitEvent(other, fork, 0));
    add_value<<<1, 32, 0, other>>>(d_data, 1, 32);
    expect_error(cudaStreamEndCapture(stream, &graph), cudaErrorStreamCaptureUnjoined,
                 "cudaStreamEndCapture with an unjoined stream");
    CHECK(cudaEventDestroy(fork));
}

// The explicit API: a diamond a -> (kernel, memset) -> b, then a child graph and a 1-D copy.
static void build_by_hand(int* d_data, cudaStream_t stream) {
    static int h_data[n];
    cudaGraph_t graph, child;
    CHECK(cudaGraphCreate(&graph, 0));
    CHECK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t a, b, kernel, memset_node, child_node, copy, empty;

    cudaHostNodeParams host_a = {note, (void*)"a"}, host_b = {note, (void*)"b"};
    CHECK(cudaGraphAddHostNode(&a, graph, nullptr, 0, &host_a));
    int value = 5, count = n;
    void* args[] = {&d_data, &value, &count};
    cudaKernelNodeParams kernel_params = {};
    kernel_params.func = (void*)add_value;
    kernel_params.gridDim = dim3((n + 127) / 128);
    kernel_params.blockDim = dim3(128);
    kernel_params.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&kernel, graph, &a, 1, &kernel_params));
    value = 1000;  // the node copied the arguments when it was made
    cudaMemsetParams memset_params = {};
    memset_params.dst = d_data;
    memset_params.value = 7;
    memset_params.elementSize = sizeof(int);
    memset_params.width = n;
    memset_params.height = 1;
    CHECK(cudaGraphAddMemsetNode(&memset_node, graph, &a, 1, &memset_params));
    CHECK(cudaGraphAddHostNode(&b, graph, nullptr, 0, &host_b));
    cudaGraphNode_t from[] = {kernel, memset_node}, to[] = {b, b};
    expect_error(cudaGraphAddDependencies(graph, from, from, nullptr, 1), cudaErrorInvalidValue,
                 "a dependency of a node on itself");
    CHECK(cudaGraphAddDependencies(graph, from, to, nullptr, 2));
    // memset then kernel, in that order: 7 + 5, then doubled by the child graph, then copied out
    CHECK(cudaGraphAddDependencies(graph, &memset_node, &kernel, nullptr, 1));

    cudaGraphNode_t doubled;
    void* scale_args[] = {&d_data, &value, &count};
    value = 2;
    cudaKernelNodeParams scale_params = {(void*)scale, dim3((n + 255) / 256), dim3(256), 0, scale_args, nullptr};
    CHECK(cudaGraphAddKernelNode(&doubled, child, nullptr, 0, &scale_params));
    CHECK(cudaGraphAddChildGraphNode(&child_node, graph, &b, 1, child));
    CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, &child_node, 1, h_data, d_data, sizeof h_data,
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddEmptyNode(&empty, graph, &copy, 1));
    expect_error(cudaGraphAddEmptyNode(&empty, graph, &doubled, 1), cudaErrorInvalidValue,
                 "a dependency on another graph's node");

    size_t count_nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count_nodes));
    EXPECT(count_nodes == 7, "the graph has %zu nodes, expected 7", count_nodes);
    cudaGraphNode_t roots[4];
    size_t count_roots = 4;
    CHECK(cudaGraphGetRootNodes(graph, roots, &count_roots));
    EXPECT(count_roots == 1 && roots[0] == a, "%zu root nodes, expected node a alone", count_roots);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(strcmp(trace, "ab") == 0, "host nodes ran as \"%s\", expected \"ab\"", trace);
    for (int i = 0; i < n; i++) EXPECT(h_data[i] == 24, "element %d is %d, expected 24", i, h_data[i]);

    // New kernel arguments: in the executable graph only, then in the graph (not in `exec`).
    value = 1;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel, &kernel_params));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(h_data[0] == 16, "after cudaGraphExecKernelNodeSetParams, %d, expected 16", h_data[0]);
    value = 3;
    CHECK(cudaGraphKernelNodeSetParams(kernel, &kernel_params));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(h_data[0] == 16, "cudaGraphKernelNodeSetParams changed an executable graph: %d", h_data[0]);
    cudaGraph_t copy_of_graph;
    CHECK(cudaGraphClone(&copy_of_graph, graph));
    cudaGraphExec_t exec_of_copy;
    CHECK(cudaGraphInstantiate(&exec_of_copy, copy_of_graph, 0));
    CHECK(cudaGraphLaunch(exec_of_copy, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(h_data[0] == 20, "the clone gave %d, expected 20", h_data[0]);

    // cudaGraphExecUpdate takes the graph's parameters, when the topology is the same.
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(exec, graph, &info));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(h_data[0] == 20, "after cudaGraphExecUpdate, %d, expected 20", h_data[0]);
    CHECK(cudaGraphAddEmptyNode(&empty, graph, nullptr, 0));
    expect_error(cudaGraphExecUpdate(exec, graph, &info), cudaErrorGraphExecUpdateFailure,
                 "cudaGraphExecUpdate with a node more");
    EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged, "the update result was %d",
           (int)info.result);
    trace[0] = 0;

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphExecDestroy(exec_of_copy));
    CHECK(cudaGraphDestroy(copy_of_graph));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaGraphDestroy(graph));
}

int main() {
    int* d_data;
    cudaStream_t stream, other;
    CHECK(cudaMalloc(&d_data, n * sizeof(int)));
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamCreate(&other));
    capture_a_loop(d_data, stream, other);
    capture_errors(d_data, stream, other);
    build_by_hand(d_data, stream);
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaStreamDestroy(other));
    CHECK(cudaFree(d_data));
    return pass(test_name);
}
