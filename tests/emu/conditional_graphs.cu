// conditional_graphs.cu - conditional graph nodes, as on a GPU: a kernel of the graph sets the
// condition with cudaGraphSetConditional, and the node then runs its bodies as an if (body 0 when
// nonzero, body 1 when zero), a while (body 0 as long as nonzero, read again after each run) or a
// switch (body n when the value is n, none past the last). Bodies are filled node by node or by
// capturing a stream into them, and a whole conditional loop can be captured; a handle made with
// cudaGraphCondAssignDefault starts each launch at its default value.
//
// Run with no argument: every check passes and it prints "PASS conditional_graphs".
//   misuse      the runtime's errors for what CUDA forbids, then "PASS conditional_graphs"
#include <cstring>

#include "check.h"

static const char* test_name = "conditional_graphs";

static void expect_error(cudaError_t got, cudaError_t expected, const char* what) {
    EXPECT(got == expected, "%s returned %s, expected %s", what, cudaGetErrorName(got),
           cudaGetErrorName(expected));
    cudaGetLastError();  // the expected error is not left for the next check
}

// The condition is what the host put in *choice.
__global__ void choose(const int* choice, cudaGraphConditionalHandle handle) {
    cudaGraphSetConditional(handle, *choice);
}

// Each body leaves its mark: marks[which] counts the times it ran.
__global__ void mark(int* marks, int which) { marks[which]++; }

// One step of a count down: the loop goes on while the counter is not 0.
__global__ void count_down(int* counter, int* steps, cudaGraphConditionalHandle handle) {
    if (*counter > 0) {
        (*counter)--;
        (*steps)++;
    }
    cudaGraphSetConditional(handle, *counter);
}

struct Device {
    int* choice;   // what choose() reads
    int* marks;    // four counters
    int* counter;  // for the loops
    int* steps;
};

static void set(int* d_value, int value) { CHECK(cudaMemcpy(d_value, &value, sizeof value, cudaMemcpyHostToDevice)); }

static int get(const int* d_value) {
    int value;
    CHECK(cudaMemcpy(&value, d_value, sizeof value, cudaMemcpyDeviceToHost));
    return value;
}

static void expect_marks(const Device& d, int m0, int m1, int m2, int m3, const char* after) {
    int marks[4];
    CHECK(cudaMemcpy(marks, d.marks, sizeof marks, cudaMemcpyDeviceToHost));
    EXPECT(marks[0] == m0 && marks[1] == m1 && marks[2] == m2 && marks[3] == m3,
           "after %s the bodies ran %d, %d, %d, %d times, expected %d, %d, %d, %d", after, marks[0],
           marks[1], marks[2], marks[3], m0, m1, m2, m3);
    CHECK(cudaMemset(d.marks, 0, sizeof marks));
}

static cudaGraphNodeParams kernel_node(void* kernel, void** arguments) {
    cudaGraphNodeParams params = {cudaGraphNodeTypeKernel};
    params.kernel.func = kernel;
    params.kernel.gridDim = dim3(1);
    params.kernel.blockDim = dim3(1);
    params.kernel.kernelParams = arguments;
    return params;
}

// choose -> conditional node of `type` with `bodies` bodies, body i marking marks[i].
static cudaGraphExec_t chooser(const Device& d, cudaGraphConditionalNodeType type, unsigned bodies) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph));
    int* choice = d.choice;
    void* choose_args[] = {&choice, &handle};
    cudaGraphNodeParams choose_node = kernel_node((void*)choose, choose_args);
    cudaGraphNode_t chosen, conditional, body_node;
    CHECK(cudaGraphAddNode(&chosen, graph, nullptr, nullptr, 0, &choose_node));
    cudaGraphNodeParams condition = {cudaGraphNodeTypeConditional};
    condition.conditional.handle = handle;
    condition.conditional.type = type;
    condition.conditional.size = bodies;
    CHECK(cudaGraphAddNode(&conditional, graph, &chosen, nullptr, 1, &condition));
    cudaGraphNodeType node_type;
    CHECK(cudaGraphNodeGetType(conditional, &node_type));
    EXPECT(node_type == cudaGraphNodeTypeConditional, "a conditional node has type %d", node_type);
    int* marks = d.marks;
    int which[4] = {0, 1, 2, 3};
    for (unsigned i = 0; i < bodies; i++) {
        void* mark_args[] = {&marks, &which[i]};
        cudaGraphNodeParams mark_node = kernel_node((void*)mark, mark_args);
        CHECK(cudaGraphAddNode(&body_node, condition.conditional.phGraph_out[i], nullptr, nullptr, 0, &mark_node));
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    return exec;
}

static void if_and_else(const Device& d) {
    cudaGraphExec_t if_only = chooser(d, cudaGraphCondTypeIf, 1);
    cudaGraphExec_t if_else = chooser(d, cudaGraphCondTypeIf, 2);
    for (int choice : {0, 1, 7}) {
        set(d.choice, choice);
        CHECK(cudaGraphLaunch(if_only, 0));
        CHECK(cudaDeviceSynchronize());
        expect_marks(d, choice != 0, 0, 0, 0, "an if node");
        CHECK(cudaGraphLaunch(if_else, 0));
        CHECK(cudaDeviceSynchronize());
        expect_marks(d, choice != 0, choice == 0, 0, 0, "an if node with an else body");
    }
    CHECK(cudaGraphExecDestroy(if_only));
    CHECK(cudaGraphExecDestroy(if_else));
}

static void switch_node(const Device& d) {
    cudaGraphExec_t exec = chooser(d, cudaGraphCondTypeSwitch, 3);
    for (int choice = 0; choice <= 3; choice++) {
        set(d.choice, choice);
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaDeviceSynchronize());
        expect_marks(d, choice == 0, choice == 1, choice == 2, 0, "a switch node");  // 3: no body
    }
    CHECK(cudaGraphExecDestroy(exec));
}

// A do-while: the handle starts each launch at 1, so the body runs at least once; the body is
// filled by capturing a stream into it.
static void do_while(const Device& d) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams condition = {cudaGraphNodeTypeConditional};
    condition.conditional.handle = handle;
    condition.conditional.type = cudaGraphCondTypeWhile;
    condition.conditional.size = 1;
    cudaGraphNode_t loop;
    CHECK(cudaGraphAddNode(&loop, graph, nullptr, nullptr, 0, &condition));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamBeginCaptureToGraph(stream, condition.conditional.phGraph_out[0], nullptr,
                                        nullptr, 0, cudaStreamCaptureModeGlobal));
    count_down<<<1, 1, 0, stream>>>(d.counter, d.steps, handle);
    CHECK(cudaStreamEndCapture(stream, nullptr));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int start : {5, 0, 1}) {
        set(d.counter, start);
        set(d.steps, 0);
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        EXPECT(get(d.steps) == start && get(d.counter) == 0,
               "a do-while from %d took %d steps and left %d", start, get(d.steps), get(d.counter));
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
}

// A while loop made inside a capture: the first count_down sets the condition, the conditional
// node is added to the capture's graph, and the capture goes on after it.
static void captured_while(const Device& d) {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    const cudaGraphNode_t* dependencies;
    size_t count;
    CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, &dependencies, nullptr, &count));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph));
    count_down<<<1, 1, 0, stream>>>(d.counter, d.steps, handle);
    CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, &dependencies, nullptr, &count));
    EXPECT(count == 1, "after one launch the capture depends on %zu nodes", count);
    cudaGraphNodeParams condition = {cudaGraphNodeTypeConditional};
    condition.conditional.handle = handle;
    condition.conditional.type = cudaGraphCondTypeWhile;
    condition.conditional.size = 1;
    cudaGraphNode_t loop;
    CHECK(cudaGraphAddNode(&loop, graph, dependencies, nullptr, count, &condition));
    CHECK(cudaStreamUpdateCaptureDependencies(stream, &loop, nullptr, 1, cudaStreamSetCaptureDependencies));
    CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, &dependencies, nullptr, &count));
    EXPECT(count == 1 && dependencies[0] == loop, "after setting them the capture depends on %zu nodes",
           count);
    int* marks = d.marks;
    mark<<<1, 1, 0, stream>>>(marks, 3);  // after the loop
    CHECK(cudaStreamEndCapture(stream, &graph));
    cudaStream_t body_stream;
    CHECK(cudaStreamCreate(&body_stream));
    CHECK(cudaStreamBeginCaptureToGraph(body_stream, condition.conditional.phGraph_out[0], nullptr,
                                        nullptr, 0, cudaStreamCaptureModeGlobal));
    count_down<<<1, 1, 0, body_stream>>>(d.counter, d.steps, handle);
    CHECK(cudaStreamEndCapture(body_stream, nullptr));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int start : {0, 1, 6}) {
        set(d.counter, start);
        set(d.steps, 0);
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        EXPECT(get(d.steps) == start && get(d.counter) == 0,
               "a captured while loop from %d took %d steps and left %d", start, get(d.steps),
               get(d.counter));
        expect_marks(d, 0, 0, 0, 1, "a captured while loop");
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaStreamDestroy(body_stream));
}

static void host_step(void*) {}

static void misuse() {
    cudaGraph_t graph, other;
    CHECK(cudaGraphCreate(&graph, 0));
    CHECK(cudaGraphCreate(&other, 0));
    cudaGraphConditionalHandle handle, foreign;
    expect_error(cudaGraphConditionalHandleCreate(&handle, graph, 0, 2), cudaErrorInvalidValue,
                 "a handle with unknown flags");
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph));
    CHECK(cudaGraphConditionalHandleCreate(&foreign, other));
    cudaGraphNodeParams condition = {cudaGraphNodeTypeConditional};
    condition.conditional.handle = foreign;
    condition.conditional.type = cudaGraphCondTypeIf;
    condition.conditional.size = 1;
    cudaGraphNode_t node;
    expect_error(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &condition), cudaErrorInvalidValue,
                 "a conditional node with another graph's handle");
    condition.conditional.handle = handle;
    condition.conditional.type = cudaGraphCondTypeWhile;
    condition.conditional.size = 2;
    expect_error(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &condition), cudaErrorInvalidValue,
                 "a while node with two bodies");
    condition.conditional.size = 1;
    CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &condition));
    cudaHostNodeParams host = {host_step, nullptr};
    cudaGraphNode_t host_node;
    CHECK(cudaGraphAddHostNode(&host_node, condition.conditional.phGraph_out[0], nullptr, 0, &host));
    cudaGraphExec_t exec;
    expect_error(cudaGraphInstantiate(&exec, graph, 0), cudaErrorNotSupported,
                 "instantiating a graph with a host node in a conditional body");
    cudaStream_t stream;
    cudaGraph_t captured;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    expect_error(cudaStreamEndCapture(stream, nullptr), cudaErrorInvalidValue,
                 "ending a capture of a new graph with nowhere to put it");
    CHECK(cudaStreamEndCapture(stream, &captured));
    CHECK(cudaGraphDestroy(captured));
    expect_error(cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies),
                 cudaErrorIllegalState, "updating the dependencies of a stream that does not capture");
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(other));
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "misuse") == 0) {
        misuse();
        return pass(test_name);
    }
    Device d;
    CHECK(cudaMalloc(&d.choice, sizeof(int)));
    CHECK(cudaMalloc(&d.marks, 4 * sizeof(int)));
    CHECK(cudaMalloc(&d.counter, sizeof(int)));
    CHECK(cudaMalloc(&d.steps, sizeof(int)));
    CHECK(cudaMemset(d.marks, 0, 4 * sizeof(int)));
    if_and_else(d);
    switch_node(d);
    do_while(d);
    captured_while(d);
    CHECK(cudaFree(d.choice));
    CHECK(cudaFree(d.marks));
    CHECK(cudaFree(d.counter));
    CHECK(cudaFree(d.steps));
    return pass(test_name);
}
