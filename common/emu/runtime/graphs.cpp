// runtime/graphs.cpp - CUDA graphs: nodes, stream capture, instantiation and launch.
//
// Part of the CPU emulation backend (common/emu/); the API is declared in
// include/cuda_emu/graph.h. A graph owns its nodes; each node lists the nodes it depends on.
// An executable graph is a copy of the graph with its nodes in one order that respects every
// dependency (found once, at instantiation); cudaGraphLaunch runs them in that order, at once,
// as the rest of the emulator runs work when it is issued.
//
// Capture: a capture session belongs to the stream that began it and collects every stream that
// joins it (by waiting for an event recorded in the capture). Each capturing stream keeps its
// "tail", the nodes that its next operation depends on. Everything here runs on the host
// thread(s) that call the API, so one mutex guards the capture tables.
//
// Graph memory: a memory alloc node fixes its allocation's address when it is made, as CUDA
// does, and the allocation exists from when the node runs until its free (a memory free node,
// cudaFree or cudaFreeAsync). Its address range lies between protected pages and is readable
// only while it exists (debug.cpp), so that a kernel or copy that touches it outside that
// lifetime is reported with its line, where a GPU would read whatever memory is mapped there.
// What the device reports of graph memory (cudaDeviceGetGraphMemAttribute) follows a model of the
// GPU's physical memory for graphs, kept in blocks apart from the host's pages: see "Graph memory"
// below.
#include <algorithm>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "internal.h"

using namespace cuda_emu;

// A block of the model of the GPU's physical memory for graphs (see "Graph memory" below).
struct PhysicalBlock {
    size_t size;
    bool in_use;
    cudaStream_t freed_in;
    uint64_t work;  // the free was that stream's item number `work`
};

// The allocation of one memory alloc node, or of several in one graph when each allocates after
// the one before was freed: CUDA then gives them one address, as here.
struct GraphMemory {
    char* data;
    size_t size;
    const char* file;  // where its first alloc node was made
    int line;
    uint64_t owner;               // the serial number of the graph of its alloc node(s)
    int allocs = 0, frees = 0;    // alloc and free nodes of that graph for it
    bool freed_elsewhere = false; // a free node of another graph frees its last allocation
    bool allocated = false;       // its alloc node has run, its free has not
    PhysicalBlock* block = nullptr;  // what it holds of the model's memory while allocated
    GraphMemory(char* d, size_t n, const char* f, int l, uint64_t g)
        : data(d), size(n), file(f), line(l), owner(g) {}
    ~GraphMemory() { cuda_emu::graph_region_release(data); }
};

// The value behind a cudaGraphConditionalHandle, whose address the handle is (so that
// cudaGraphSetConditional in a kernel writes `value`, the first member).
struct ConditionalValue {
    unsigned int value;
    unsigned int default_value;
    bool assign_default;  // set `value` to `default_value` at the start of each launch
};

struct CUgraphNode_st {
    cudaGraphNodeType type;
    cudaGraph_t graph;                          // the graph that owns it
    std::vector<cudaGraphNode_t> dependencies;  // nodes that run before it
    // Kernel nodes
    LaunchConfig config{};
    BoundKernel kernel;
    void* function = nullptr;  // what cudaGraphKernelNodeGetParams reports (null when captured)
    std::map<int, cudaLaunchAttributeValue> attributes;  // cudaGraphKernelNodeSetAttribute's, by id
    // Copy nodes: the 3-D form, or the 1-D one when copy_bytes is set
    cudaMemcpy3DParms copy{};
    void* copy_dst = nullptr;
    const void* copy_src = nullptr;
    size_t copy_bytes = 0;
    cudaMemcpyKind copy_kind = cudaMemcpyDefault;
    // Memset, host and child-graph nodes
    cudaMemsetParams memset{};
    cudaHostNodeParams host{};
    std::unique_ptr<CUgraph_st> child;
    // Memory alloc and free nodes; an alloc node's line (several may share one GraphMemory)
    std::shared_ptr<GraphMemory> memory;
    const char* alloc_file = nullptr;
    int alloc_line = 0;
    // Conditional nodes: the value that decides, and the bodies (body_list is what
    // phGraph_out points at)
    ConditionalValue* condition = nullptr;
    cudaGraphConditionalNodeType condition_type = cudaGraphCondTypeIf;
    std::vector<std::unique_ptr<CUgraph_st>> bodies;
    std::vector<cudaGraph_t> body_list;
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;  // in the order they were added
    // Tells graphs apart after one is destroyed and another made at its address.
    uint64_t serial = next_serial++;
    static inline std::atomic<uint64_t> next_serial{1};
    // Executable graphs made from it and not destroyed: with memory nodes, at most one.
    std::shared_ptr<int> executables = std::make_shared<int>(0);
    // The values of its conditional handles, shared with its copies (executable graphs).
    std::vector<std::shared_ptr<ConditionalValue>> conditions;
};

struct CUgraphExec_st {
    std::unique_ptr<CUgraph_st> graph;              // the copy it runs
    std::vector<cudaGraphNode_t> order;             // its nodes, dependencies first
    std::map<cudaGraphNode_t, cudaGraphNode_t> of;  // original node -> its copy here
    std::shared_ptr<int> executables;               // the count of the graph it was made from
    bool auto_free = false;  // cudaGraphInstantiateFlagAutoFreeOnLaunch
};

namespace {

// Records an error for cudaGetLastError (and passes success through untouched).
cudaError_t fail(cudaError_t error) {
    if (error != cudaSuccess) set_last_error(error);
    return error;
}

bool owns(cudaGraph_t graph, cudaGraphNode_t node) { return node && node->graph == graph; }

// Edge data other than all zero would ask for programmatic dependent launch, not emulated.
bool plain_edges(const cudaGraphEdgeData* edges, size_t count) {
    static const cudaGraphEdgeData plain = {};
    for (size_t i = 0; edges && i < count; i++)
        if (memcmp(&edges[i], &plain, sizeof plain) != 0) return false;
    return true;
}

// Checks a dependency list as cudaGraphAdd*Node does: every node of this graph, none twice.
cudaError_t add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                     size_t count, std::unique_ptr<CUgraphNode_st> node) {
    if (!out || !graph || (count > 0 && !dependencies)) return fail(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; i++) {
        if (!owns(graph, dependencies[i])) return fail(cudaErrorInvalidValue);
        for (size_t j = 0; j < i; j++)
            if (dependencies[j] == dependencies[i]) return fail(cudaErrorInvalidValue);
    }
    node->graph = graph;
    node->dependencies.assign(dependencies, dependencies + count);
    *out = node.get();
    graph->nodes.push_back(std::move(node));
    return cudaSuccess;
}

std::unique_ptr<CUgraphNode_st> new_node(cudaGraphNodeType type) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = type;
    return node;
}

// A copy of `graph`; `copies` maps each of its nodes to the new one.
std::unique_ptr<CUgraph_st> clone(const CUgraph_st& graph,
                                  std::map<cudaGraphNode_t, cudaGraphNode_t>* copies = nullptr) {
    auto result = std::make_unique<CUgraph_st>();
    std::map<cudaGraphNode_t, cudaGraphNode_t> map;
    for (const auto& node : graph.nodes) {
        auto copy = std::make_unique<CUgraphNode_st>();
        copy->type = node->type;
        copy->graph = result.get();
        copy->config = node->config;
        copy->kernel = node->kernel;
        copy->function = node->function;
        copy->attributes = node->attributes;
        copy->copy = node->copy;
        copy->copy_dst = node->copy_dst;
        copy->copy_src = node->copy_src;
        copy->copy_bytes = node->copy_bytes;
        copy->copy_kind = node->copy_kind;
        copy->memset = node->memset;
        copy->host = node->host;
        copy->memory = node->memory;
        copy->alloc_file = node->alloc_file;
        copy->alloc_line = node->alloc_line;
        copy->condition = node->condition;
        copy->condition_type = node->condition_type;
        for (const auto& body : node->bodies) {
            copy->bodies.push_back(clone(*body));
            copy->body_list.push_back(copy->bodies.back().get());
        }
        if (node->child) copy->child = clone(*node->child);
        map[node.get()] = copy.get();
        result->nodes.push_back(std::move(copy));
    }
    result->conditions = graph.conditions;
    // Then the edges (cudaGraphAddDependencies may point at a node added later).
    for (size_t i = 0; i < graph.nodes.size(); i++)
        for (cudaGraphNode_t dependency : graph.nodes[i]->dependencies)
            result->nodes[i]->dependencies.push_back(map.at(dependency));
    if (copies) *copies = map;
    return result;
}

// The nodes in an order where each comes after all it depends on; false if the edges make a cycle
// (possible through cudaGraphAddDependencies).
bool dependency_order(const CUgraph_st& graph, std::vector<cudaGraphNode_t>* order) {
    std::map<cudaGraphNode_t, int> state;  // 0 unvisited, 1 being visited, 2 placed
    order->clear();
    std::function<bool(cudaGraphNode_t)> visit = [&](cudaGraphNode_t node) {
        int& s = state[node];
        if (s == 2) return true;
        if (s == 1) return false;
        s = 1;
        for (cudaGraphNode_t dependency : node->dependencies)
            if (!visit(dependency)) return false;
        state[node] = 2;
        order->push_back(node);
        return true;
    };
    for (const auto& node : graph.nodes)
        if (!visit(node.get())) return false;
    return true;
}

cudaError_t run_memset(const cudaMemsetParams& p) {
    if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) return cudaErrorInvalidValue;
    for (size_t row = 0; row < p.height; row++) {
        char* start = (char*)p.dst + row * p.pitch;
        if (!device_range_ok(start, p.width * p.elementSize)) return cudaErrorInvalidValue;
        for (size_t i = 0; i < p.width; i++) {
            if (p.elementSize == 1) ((uint8_t*)start)[i] = (uint8_t)p.value;
            if (p.elementSize == 2) ((uint16_t*)start)[i] = (uint16_t)p.value;
            if (p.elementSize == 4) ((uint32_t*)start)[i] = (uint32_t)p.value;
        }
        if (sanitize_enabled) sanitize_mark_written(start, p.width * p.elementSize);
    }
    return cudaSuccess;
}

// ---- Graph memory ---------------------------------------------------------------------------------
// The model of the GPU's physical memory for graphs, which cudaDeviceGetGraphMemAttribute reports.
// An allocation takes a block while it exists. When it is freed its block stays with the graphs,
// for a later allocation that fits in it: in the stream that freed it, or in any stream once the
// host has waited for the free (a GPU may reuse it sooner, as soon as the free has run). The
// blocks go back only at cudaDeviceGraphMemTrim. Used and reserved memory are both the bytes of
// the blocks held, each an allocation's size rounded up to 256 bytes; a GPU maps physical memory
// in larger pieces, so its figures are larger. The host's own pages are given back at each free.
std::mutex memory_mutex;  // guards all of this section's variables and each GraphMemory's fields
std::list<PhysicalBlock> physical_blocks;
uint64_t used_high = 0, reserved_high = 0;  // the high-water marks, which may be reset apart
// Every graph allocation some node refers to, by address, and those allocated now, which are
// kept even when no graph refers to them any more (they are then freed with cudaFree).
std::map<const char*, std::weak_ptr<GraphMemory>> graph_memory;
std::map<const char*, std::shared_ptr<GraphMemory>> allocated_memory;

uint64_t physical_bytes() {
    uint64_t total = 0;
    for (const PhysicalBlock& block : physical_blocks) total += block.size;
    return total;
}

PhysicalBlock* take_block(size_t size, cudaStream_t stream) {
    size_t need = (size + 255) / 256 * 256;
    PhysicalBlock* best = nullptr;
    for (PhysicalBlock& block : physical_blocks)
        if (!block.in_use && block.size >= need && (!best || block.size < best->size) &&
            (block.freed_in == stream || host_waited_for(block.freed_in, block.work)))
            best = &block;
    if (!best) {
        physical_blocks.push_back(PhysicalBlock{need, false, nullptr, 0});
        best = &physical_blocks.back();
    }
    best->in_use = true;
    uint64_t held = physical_bytes();
    used_high = std::max(used_high, held);
    reserved_high = std::max(reserved_high, held);
    return best;
}

bool has_memory_nodes(const CUgraph_st& graph) {
    for (const auto& node : graph.nodes)
        if (node->memory) return true;
    return false;
}

std::set<cudaGraphNode_t> ancestors(const std::vector<cudaGraphNode_t>& tail);

// The allocation for a new alloc node of `graph` after `dependencies`: one of the graph's own
// whose every alloc has been freed by a node the new one comes after, of the same size, so that
// it gets the same address, as on a GPU; else a new address range.
std::shared_ptr<GraphMemory> memory_for(cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                        size_t count, size_t size, const char* file, int line) {
    std::set<cudaGraphNode_t> before = ancestors(std::vector<cudaGraphNode_t>(dependencies, dependencies + count));
    for (const auto& node : graph->nodes) {
        const std::shared_ptr<GraphMemory>& memory = node->memory;
        if (node->type != cudaGraphNodeTypeMemAlloc || !memory || memory->size != size ||
            memory->frees != memory->allocs)
            continue;
        bool all_before = true;
        for (const auto& other : graph->nodes)
            if (other->memory == memory && !before.count(other.get())) all_before = false;
        if (all_before) {
            memory->allocs++;
            return memory;
        }
    }
    char* data = (char*)graph_region_reserve(size, file, line);
    if (!data) return nullptr;
    auto memory = std::make_shared<GraphMemory>(data, size, file, line, graph->serial);
    memory->allocs = 1;
    graph_memory[data] = memory;
    return memory;
}

// Whether [start, start + count) lies in a graph allocation, allocated or not (a capture may
// record a memset into one whose alloc node it has only recorded).
bool in_graph_memory(const void* start, size_t count) {
    std::lock_guard<std::mutex> lock(memory_mutex);
    auto after = graph_memory.upper_bound((const char*)start);
    if (after == graph_memory.begin()) return false;
    std::shared_ptr<GraphMemory> memory = std::prev(after)->second.lock();
    return memory && (const char*)start + count <= memory->data + memory->size;
}

// The alloc node made at file:line runs: the allocation exists from here on.
cudaError_t allocate_graph_memory(const std::shared_ptr<GraphMemory>& memory, cudaStream_t stream,
                                  const char* file, int line) {
    {
        std::lock_guard<std::mutex> lock(memory_mutex);
        if (memory->allocated) return cudaErrorInvalidValue;  // cudaGraphLaunch checks before
        memory->block = take_block(memory->size, stream);
        memory->allocated = true;
        allocated_memory[memory->data] = memory;
    }
    graph_region_open(memory->data, file, line);
    record_graph_allocation(memory->data, memory->size, file, line);
    return cudaSuccess;
}

// A free node of `graph` for the graph allocation at `address`: the checks of
// cudaGraphAddMemFreeNode (the caller holds memory_mutex).
cudaError_t attach_free(CUgraphNode_st* node, cudaGraph_t graph, void* address) {
    auto found = graph_memory.find((const char*)address);
    std::shared_ptr<GraphMemory> memory = found == graph_memory.end() ? nullptr : found->second.lock();
    if (!memory) {
        report("a memory free node needs the address of a graph allocation (one that a memory "
               "alloc node made, or cudaMallocAsync in a capture); %p is not one", address);
        return cudaErrorInvalidValue;
    }
    if (memory->owner == graph->serial) {
        if (memory->frees >= memory->allocs || memory->freed_elsewhere) {
            report("the graph allocation made at %s:%d already has its memory free node%s",
                   memory->file, memory->line, memory->freed_elsewhere ? ", in another graph" : "");
            return cudaErrorInvalidValue;
        }
        memory->frees++;
    } else if (memory->frees >= memory->allocs) {
        report("the graph allocation made at %s:%d is freed by a memory free node of its own graph, "
               "so no other graph may free it", memory->file, memory->line);
        return cudaErrorInvalidValue;
    } else {
        memory->freed_elsewhere = true;
    }
    node->memory = memory;
    return cudaSuccess;
}

void remove_last_node(cudaGraph_t graph) { graph->nodes.pop_back(); }

cudaError_t run_graph(const std::vector<cudaGraphNode_t>& order, cudaStream_t stream);

// The value is read after the nodes before have run, and for a while node again after each run
// of its body; a body that never sets it to 0 loops for ever, as it would on a GPU.
cudaError_t run_conditional(cudaGraphNode_t node, cudaStream_t stream) {
    std::vector<std::vector<cudaGraphNode_t>> orders(node->bodies.size());
    for (size_t i = 0; i < node->bodies.size(); i++) dependency_order(*node->bodies[i], &orders[i]);
    const volatile unsigned int& value = node->condition->value;
    switch (node->condition_type) {
    case cudaGraphCondTypeIf:
        if (value != 0) return run_graph(orders[0], stream);
        return orders.size() == 2 ? run_graph(orders[1], stream) : cudaSuccess;
    case cudaGraphCondTypeWhile:
        while (value != 0)
            if (cudaError_t error = run_graph(orders[0], stream)) return error;
        return cudaSuccess;
    case cudaGraphCondTypeSwitch:
        return value < orders.size() ? run_graph(orders[value], stream) : cudaSuccess;
    }
    return cudaSuccess;
}

// What a conditional node's body may hold (CUDA's rule): kernels, copies, memsets, empty nodes,
// child graphs and conditional nodes, and so on down. True when it holds anything else.
bool unfit_for_a_body(const CUgraph_st& graph) {
    for (const auto& node : graph.nodes) {
        switch (node->type) {
        case cudaGraphNodeTypeKernel:
        case cudaGraphNodeTypeMemcpy:
        case cudaGraphNodeTypeMemset:
        case cudaGraphNodeTypeEmpty: break;
        case cudaGraphNodeTypeGraph:
            if (unfit_for_a_body(*node->child)) return true;
            break;
        case cudaGraphNodeTypeConditional:
            for (const auto& body : node->bodies)
                if (unfit_for_a_body(*body)) return true;
            break;
        default: return true;
        }
    }
    return false;
}

// Whether some conditional node of the graph, or of its child graphs, has a body unfit to be one.
bool has_unfit_body(const CUgraph_st& graph) {
    for (const auto& node : graph.nodes) {
        for (const auto& body : node->bodies)
            if (unfit_for_a_body(*body)) return true;
        if (node->child && has_unfit_body(*node->child)) return true;
    }
    return false;
}

bool has_conditional_nodes(const CUgraph_st& graph) {
    for (const auto& node : graph.nodes)
        if (node->type == cudaGraphNodeTypeConditional) return true;
    return false;
}

// At the start of a launch, the values whose handles ask for it, in the graph and its bodies.
void assign_defaults(const CUgraph_st& graph) {
    for (const auto& condition : graph.conditions)
        if (condition->assign_default) condition->value = condition->default_value;
    for (const auto& node : graph.nodes) {
        for (const auto& body : node->bodies) assign_defaults(*body);
        if (node->child) assign_defaults(*node->child);
    }
}

cudaError_t run_node(cudaGraphNode_t node, cudaStream_t stream) {
    switch (node->type) {
    case cudaGraphNodeTypeKernel: {
        LaunchConfig config = node->config;
        config.stream = stream;
        return node->kernel(config);
    }
    case cudaGraphNodeTypeMemcpy: {
        EmulatorAccess graph_node;  // the graph's copy, not a call of the program's
        if (node->copy_bytes > 0)
            return cudaMemcpyAsync(node->copy_dst, node->copy_src, node->copy_bytes, node->copy_kind, stream);
        return cudaMemcpy3D(&node->copy);
    }
    case cudaGraphNodeTypeMemset:
        return run_memset(node->memset);
    case cudaGraphNodeTypeHost: {
        EmulatorAccess graph_ordered;  // after the nodes it depends on: their copies' memory is its
        node->host.fn(node->host.userData);
        return cudaSuccess;
    }
    case cudaGraphNodeTypeGraph: {
        std::vector<cudaGraphNode_t> order;
        dependency_order(*node->child, &order);
        return run_graph(order, stream);
    }
    case cudaGraphNodeTypeConditional:
        return run_conditional(node, stream);
    case cudaGraphNodeTypeMemAlloc:
        return allocate_graph_memory(node->memory, stream, node->alloc_file, node->alloc_line);
    case cudaGraphNodeTypeMemFree:
        if (!node->memory->allocated) {
            report("a memory free node ran for the graph allocation made at %s:%d while it was not "
                   "allocated (its alloc node has not run since it was last freed)",
                   node->memory->file, node->memory->line);
            return cudaErrorInvalidValue;
        }
        return free_graph_allocation(node->memory->data, stream);
    default:
        return cudaSuccess;  // empty nodes only order the others
    }
}

cudaError_t run_graph(const std::vector<cudaGraphNode_t>& order, cudaStream_t stream) {
    for (cudaGraphNode_t node : order)
        if (cudaError_t error = run_node(node, stream)) return error;
    return cudaSuccess;
}

// ---- Capture state ------------------------------------------------------------------------------
struct Session {
    cudaGraph_t graph;
    cudaStream_t origin;  // the stream that began it, and must end it
    unsigned long long id;
    cudaStreamCaptureMode mode;
    bool invalidated = false;
    bool owns_graph = true;  // false: cudaStreamBeginCaptureToGraph's graph, which is the caller's
};
struct CapturingStream {
    std::shared_ptr<Session> session;
    std::vector<cudaGraphNode_t> tail;  // what the stream's next node depends on
};
// An event recorded in a capture stands for the nodes captured before it in its stream.
struct CapturedEvent {
    std::shared_ptr<Session> session;
    std::vector<cudaGraphNode_t> nodes;
};

std::mutex capture_mutex;
std::map<cudaStream_t, CapturingStream> capturing_streams;
std::map<cudaEvent_t, CapturedEvent> captured_events;
std::atomic<int> capture_count{0};  // streams capturing: launches look only at this when it is 0
unsigned long long next_capture_id = 1;
thread_local cudaStreamCaptureMode thread_mode = cudaStreamCaptureModeGlobal;

// Adds `node` to the graph `stream` captures into, after the stream's tail; the stream must be
// capturing (the caller holds capture_mutex).
cudaError_t append_captured(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node) {
    CapturingStream& capture = capturing_streams.at(stream);
    if (capture.session->invalidated) return cudaErrorStreamCaptureInvalidated;
    cudaGraphNode_t added;
    add_node(&added, capture.session->graph, capture.tail.data(), capture.tail.size(), std::move(node));
    capture.tail = {added};
    return cudaSuccess;
}

void end_session(const std::shared_ptr<Session>& session) {
    for (auto it = capturing_streams.begin(); it != capturing_streams.end();)
        if (it->second.session == session) {
            it = capturing_streams.erase(it);
            capture_count--;
        } else {
            ++it;
        }
    for (auto it = captured_events.begin(); it != captured_events.end();)
        it = it->second.session == session ? captured_events.erase(it) : std::next(it);
}

// Every node the tail of `stream` depends on, directly or not, and the tail itself.
std::set<cudaGraphNode_t> ancestors(const std::vector<cudaGraphNode_t>& tail) {
    std::set<cudaGraphNode_t> seen;
    std::vector<cudaGraphNode_t> todo(tail);
    while (!todo.empty()) {
        cudaGraphNode_t node = todo.back();
        todo.pop_back();
        if (!seen.insert(node).second) continue;
        todo.insert(todo.end(), node->dependencies.begin(), node->dependencies.end());
    }
    return seen;
}

}  // namespace

// ---- What the rest of the runtime calls while a stream captures ------------------------------------
bool cuda_emu::capturing(cudaStream_t stream) {
    if (capture_count.load(std::memory_order_relaxed) == 0) return false;
    std::lock_guard<std::mutex> lock(capture_mutex);
    return capturing_streams.count(stream) > 0;
}

cudaError_t cuda_emu::capture_kernel(const LaunchConfig& config, const char*, BoundKernel kernel) {
    auto node = new_node(cudaGraphNodeTypeKernel);
    node->config = config;
    node->kernel = std::move(kernel);
    std::lock_guard<std::mutex> lock(capture_mutex);
    return fail(append_captured(config.stream, std::move(node)));
}

cudaError_t cuda_emu::capture_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream) {
    if (!dst || !src) return fail(cudaErrorInvalidValue);
    auto node = new_node(cudaGraphNodeTypeMemcpy);
    node->copy_dst = dst;
    node->copy_src = src;
    node->copy_bytes = count;
    node->copy_kind = kind;
    std::lock_guard<std::mutex> lock(capture_mutex);
    return fail(append_captured(stream, std::move(node)));
}

cudaError_t cuda_emu::capture_memset(void* dst, int value, size_t count, cudaStream_t stream) {
    if (!device_range_ok(dst, count) && !in_graph_memory(dst, count)) return fail(cudaErrorInvalidValue);
    auto node = new_node(cudaGraphNodeTypeMemset);
    node->memset = cudaMemsetParams{dst, count, (unsigned)value, 1, count, 1};
    std::lock_guard<std::mutex> lock(capture_mutex);
    return fail(append_captured(stream, std::move(node)));
}

cudaError_t cuda_emu::capture_host_function(cudaHostFn_t fn, void* user_data, cudaStream_t stream) {
    auto node = new_node(cudaGraphNodeTypeHost);
    node->host = cudaHostNodeParams{fn, user_data};
    std::lock_guard<std::mutex> lock(capture_mutex);
    return fail(append_captured(stream, std::move(node)));
}

cudaError_t cuda_emu::capture_allocation(void** ptr, size_t size, cudaStream_t stream,
                                         const char* file, int line) {
    std::lock_guard<std::mutex> lock(capture_mutex);
    CapturingStream& capture = capturing_streams.at(stream);
    if (capture.session->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
    auto node = new_node(cudaGraphNodeTypeMemAlloc);
    {
        std::lock_guard<std::mutex> memory_lock(memory_mutex);
        node->memory = memory_for(capture.session->graph, capture.tail.data(), capture.tail.size(),
                                  size, file, line);
    }
    if (!node->memory) return fail(cudaErrorMemoryAllocation);
    node->alloc_file = file;
    node->alloc_line = line;
    *ptr = node->memory->data;
    return fail(append_captured(stream, std::move(node)));
}

cudaError_t cuda_emu::capture_free(void* ptr, cudaStream_t stream) {
    auto node = new_node(cudaGraphNodeTypeMemFree);
    std::lock_guard<std::mutex> lock(capture_mutex);
    CapturingStream& capture = capturing_streams.at(stream);
    if (capture.session->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
    {
        std::lock_guard<std::mutex> memory_lock(memory_mutex);
        if (cudaError_t error = attach_free(node.get(), capture.session->graph, ptr)) return fail(error);
    }
    return fail(append_captured(stream, std::move(node)));
}

// What api.cpp hands back: a graph allocation freed (its block stays with the graphs).
void cuda_emu::graph_allocation_freed(void* start, cudaStream_t stream, uint64_t work) {
    std::shared_ptr<GraphMemory> memory;  // may hold the last reference, so goes after the lock
    {
        std::lock_guard<std::mutex> lock(memory_mutex);
        auto found = allocated_memory.find((const char*)start);
        if (found == allocated_memory.end()) return;
        memory = found->second;
        allocated_memory.erase(found);
        memory->allocated = false;
        *memory->block = PhysicalBlock{memory->block->size, false, stream, work};
        memory->block = nullptr;
    }
    graph_region_close(start);
}

// An event recorded in a capturing stream marks a place in the capture (no node).
void cuda_emu::capture_event_record(cudaEvent_t event, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(capture_mutex);
    const CapturingStream& capture = capturing_streams.at(stream);
    captured_events[event] = CapturedEvent{capture.session, capture.tail};
}

// Waiting for an event of a capture: a stream outside it joins the capture, one in it adds the
// event's nodes to its tail. Returns false when the event has nothing to do with a capture.
bool cuda_emu::capture_event_wait(cudaStream_t stream, cudaEvent_t event) {
    std::lock_guard<std::mutex> lock(capture_mutex);
    auto found = captured_events.find(event);
    if (found == captured_events.end()) return false;
    auto joined = capturing_streams.find(stream);
    if (joined == capturing_streams.end()) {
        capturing_streams[stream] = CapturingStream{found->second.session, found->second.nodes};
        capture_count++;
        return true;
    }
    for (cudaGraphNode_t node : found->second.nodes)
        if (std::find(joined->second.tail.begin(), joined->second.tail.end(), node) ==
            joined->second.tail.end())
            joined->second.tail.push_back(node);
    return true;
}

// Calls such as cudaMalloc and cudaMemcpy are not stream work, so a capture cannot record them and
// a graph would not repeat them: while a capture in global mode (or one in thread-local mode begun
// by this thread) runs, they fail with cudaErrorStreamCaptureUnsupported and spoil the capture.
cudaError_t cuda_emu::capture_forbids_unsafe_call() {
    if (capture_count.load(std::memory_order_relaxed) == 0) return cudaSuccess;
    if (thread_mode == cudaStreamCaptureModeRelaxed) return cudaSuccess;
    std::lock_guard<std::mutex> lock(capture_mutex);
    bool unsafe = false;
    for (auto& [stream, capture] : capturing_streams)
        if (capture.session->mode != cudaStreamCaptureModeRelaxed) {
            capture.session->invalidated = true;
            unsafe = true;
        }
    return unsafe ? fail(cudaErrorStreamCaptureUnsupported) : cudaSuccess;
}

// Synchronizing with, or querying, a capturing stream has no meaning: its work has not run.
cudaError_t cuda_emu::capture_forbids_sync(cudaStream_t stream) {
    if (capture_count.load(std::memory_order_relaxed) == 0) return cudaSuccess;
    std::lock_guard<std::mutex> lock(capture_mutex);
    auto found = capturing_streams.find(stream);
    if (found == capturing_streams.end()) return cudaSuccess;
    found->second.session->invalidated = true;
    return fail(cudaErrorStreamCaptureUnsupported);
}

extern "C" {

// ---- Stream capture ---------------------------------------------------------------------------------
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed) return fail(cudaErrorInvalidValue);
    // The legacy default stream synchronizes with every other stream: it cannot be captured.
    if (stream == 0) return fail(cudaErrorStreamCaptureUnsupported);
    std::lock_guard<std::mutex> lock(capture_mutex);
    if (capturing_streams.count(stream)) return fail(cudaErrorIllegalState);
    auto session = std::make_shared<Session>(Session{new CUgraph_st, stream, next_capture_id++, mode});
    capturing_streams[stream] = CapturingStream{session, {}};
    capture_count++;
    return cudaSuccess;
}

// Ends the capture begun on `stream`. Every stream that joined must have been joined back into
// it (it waited for an event recorded after their last work), or the capture fails as unjoined.
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    std::lock_guard<std::mutex> lock(capture_mutex);
    auto found = capturing_streams.find(stream);
    if (found == capturing_streams.end()) return fail(cudaErrorIllegalState);
    std::shared_ptr<Session> session = found->second.session;
    if (!graph && session->owns_graph) return fail(cudaErrorInvalidValue);
    if (session->origin != stream) return fail(cudaErrorStreamCaptureUnmatched);
    std::set<cudaGraphNode_t> joined = ancestors(found->second.tail);
    cudaError_t result = session->invalidated ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
    for (const auto& [other, capture] : capturing_streams)
        if (capture.session == session && result == cudaSuccess)
            for (cudaGraphNode_t node : capture.tail)
                if (!joined.count(node)) result = cudaErrorStreamCaptureUnjoined;
    end_session(session);
    if (result != cudaSuccess) {
        if (session->owns_graph) delete session->graph;
        if (graph) *graph = nullptr;
        return fail(result);
    }
    if (graph) *graph = session->graph;
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const struct cudaGraphEdgeData* edges, size_t count,
                                          enum cudaStreamCaptureMode mode) {
    if (!graph || (count > 0 && !dependencies) || (unsigned)mode > cudaStreamCaptureModeRelaxed)
        return fail(cudaErrorInvalidValue);
    if (!plain_edges(edges, count)) return fail(cudaErrorNotSupported);
    for (size_t i = 0; i < count; i++)
        if (!owns(graph, dependencies[i])) return fail(cudaErrorInvalidValue);
    if (stream == 0) return fail(cudaErrorStreamCaptureUnsupported);
    std::lock_guard<std::mutex> lock(capture_mutex);
    if (capturing_streams.count(stream)) return fail(cudaErrorIllegalState);
    auto session = std::make_shared<Session>(Session{graph, stream, next_capture_id++, mode});
    session->owns_graph = false;
    capturing_streams[stream] =
        CapturingStream{session, std::vector<cudaGraphNode_t>(dependencies, dependencies + count)};
    capture_count++;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* status) {
    return cudaStreamGetCaptureInfo(stream, status);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode* mode) {
    if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed) return fail(cudaErrorInvalidValue);
    std::swap(thread_mode, *mode);
    return cudaSuccess;
}

// ---- Graphs and their nodes ---------------------------------------------------------------------------
cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
    if (!graph || flags != 0) return fail(cudaErrorInvalidValue);
    *graph = new CUgraph_st;
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    if (!graph) return fail(cudaErrorInvalidValue);
    delete graph;
    return cudaSuccess;
}
cudaError_t cudaGraphClone(cudaGraph_t* copy, cudaGraph_t original) {
    if (!copy || !original) return fail(cudaErrorInvalidValue);
    if (has_memory_nodes(*original)) {
        report("cudaGraphClone: a graph with memory alloc or free nodes cannot be cloned");
        return fail(cudaErrorNotSupported);
    }
    *copy = clone(*original).release();
    return cudaSuccess;
}

// The kernel must be one whose parameter types the emulator knows (see KernelBinder).
static cudaError_t bind_kernel(CUgraphNode_st* node, const cudaKernelNodeParams* params) {
    if (!params || !params->func) return fail(cudaErrorInvalidValue);
    if (params->extra) return fail(cudaErrorNotSupported);
    KernelBinder binder = binder_for(params->func);
    if (!binder) {
        report("cudaGraphAddKernelNode: a kernel whose parameter types the emulator does not know "
               "(a template, or one defined inside a class): launch it once with <<<>>> first");
        return fail(cudaErrorInvalidDeviceFunction);
    }
    node->function = params->func;
    // new parameters keep the node's attributes, cooperative among them
    node->config = LaunchConfig{params->gridDim, params->blockDim, params->sharedMemBytes, 0, node->config.cooperative};
    node->kernel = binder(params->func, params->kernelParams);
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaKernelNodeParams* params) {
    auto added = new_node(cudaGraphNodeTypeKernel);
    if (cudaError_t error = bind_kernel(added.get(), params)) return error;
    return add_node(node, graph, dependencies, count, std::move(added));
}
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaMemcpy3DParms* params) {
    if (!params) return fail(cudaErrorInvalidValue);
    auto added = new_node(cudaGraphNodeTypeMemcpy);
    added->copy = *params;
    return add_node(node, graph, dependencies, count, std::move(added));
}
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count, void* dst,
                                     const void* src, size_t bytes, enum cudaMemcpyKind kind) {
    if (!dst || !src || bytes == 0 || (unsigned)kind > cudaMemcpyDefault) return fail(cudaErrorInvalidValue);
    auto added = new_node(cudaGraphNodeTypeMemcpy);
    added->copy_dst = dst;
    added->copy_src = src;
    added->copy_bytes = bytes;
    added->copy_kind = kind;
    return add_node(node, graph, dependencies, count, std::move(added));
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const struct cudaMemsetParams* params) {
    if (!params || !params->dst) return fail(cudaErrorInvalidValue);
    if (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4)
        return fail(cudaErrorInvalidValue);
    if (params->height > 1 && params->pitch < params->width * params->elementSize)
        return fail(cudaErrorInvalidValue);
    auto added = new_node(cudaGraphNodeTypeMemset);
    added->memset = *params;
    return add_node(node, graph, dependencies, count, std::move(added));
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* dependencies, size_t count,
                                 const struct cudaHostNodeParams* params) {
    if (!params || !params->fn) return fail(cudaErrorInvalidValue);
    auto added = new_node(cudaGraphNodeTypeHost);
    added->host = *params;
    return add_node(node, graph, dependencies, count, std::move(added));
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* dependencies, size_t count) {
    return add_node(node, graph, dependencies, count, new_node(cudaGraphNodeTypeEmpty));
}
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* dependencies, size_t count,
                                       cudaGraph_t child) {
    if (!child || child == graph) return fail(cudaErrorInvalidValue);
    if (has_memory_nodes(*child)) {
        report("cudaGraphAddChildGraphNode: a graph with memory alloc or free nodes cannot be a "
               "child graph");
        return fail(cudaErrorNotSupported);
    }
    auto added = new_node(cudaGraphNodeTypeGraph);
    added->child = clone(*child);
    return add_node(node, graph, dependencies, count, std::move(added));
}
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
    if (!node || !graph || node->type != cudaGraphNodeTypeGraph) return fail(cudaErrorInvalidValue);
    *graph = node->child.get();
    return cudaSuccess;
}

// Device memory of device 0 only (as with cudaMemPoolCreate), to which device 0 has read-write
// access; the address range is reserved at once.
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count,
                                     struct cudaMemAllocNodeParams* params, const char* file, int line) {
    if (!params || params->bytesize == 0 || (params->accessDescCount > 0 && !params->accessDescs))
        return fail(cudaErrorInvalidValue);
    const cudaMemPoolProps& props = params->poolProps;
    if (props.allocType != cudaMemAllocationTypePinned || props.location.type != cudaMemLocationTypeDevice)
        return fail(cudaErrorInvalidValue);
    if (props.location.id != 0) return fail(cudaErrorInvalidDevice);
    if (props.handleTypes != cudaMemHandleTypeNone) return fail(cudaErrorNotSupported);
    for (size_t i = 0; i < params->accessDescCount; i++) {
        const cudaMemAccessDesc& access = params->accessDescs[i];
        if (access.location.type != cudaMemLocationTypeDevice || access.location.id != 0 ||
            access.flags != cudaMemAccessFlagsProtReadWrite)
            return fail(cudaErrorInvalidDevice);
    }
    if (cudaError_t error = add_node(node, graph, dependencies, count, new_node(cudaGraphNodeTypeMemAlloc)))
        return error;
    std::lock_guard<std::mutex> lock(memory_mutex);
    (*node)->memory = memory_for(graph, dependencies, count, params->bytesize, file, line);
    if (!(*node)->memory) {
        remove_last_node(graph);
        return fail(cudaErrorMemoryAllocation);
    }
    (*node)->alloc_file = file;
    (*node)->alloc_line = line;
    params->dptr = (*node)->memory->data;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* dependencies, size_t count, void* dptr) {
    if (!dptr) return fail(cudaErrorInvalidValue);
    if (cudaError_t error = add_node(node, graph, dependencies, count, new_node(cudaGraphNodeTypeMemFree)))
        return error;
    std::lock_guard<std::mutex> lock(memory_mutex);
    if (cudaError_t error = attach_free(*node, graph, dptr)) {
        remove_last_node(graph);
        return fail(error);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams* params) {
    if (!node || !params || node->type != cudaGraphNodeTypeMemAlloc) return fail(cudaErrorInvalidValue);
    *params = cudaMemAllocNodeParams{};
    params->poolProps.allocType = cudaMemAllocationTypePinned;
    params->poolProps.location = cudaMemLocation{cudaMemLocationTypeDevice, 0};
    params->bytesize = node->memory->size;
    params->dptr = node->memory->data;
    return cudaSuccess;
}
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr) {
    if (!node || !dptr || node->type != cudaGraphNodeTypeMemFree) return fail(cudaErrorInvalidValue);
    *(void**)dptr = node->memory->data;
    return cudaSuccess;
}

// The model's blocks that no allocation uses go back (see "Graph memory" above).
cudaError_t cudaDeviceGraphMemTrim(int device) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    std::lock_guard<std::mutex> lock(memory_mutex);
    physical_blocks.remove_if([](const PhysicalBlock& block) { return !block.in_use; });
    return cudaSuccess;
}
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    if (!value) return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(memory_mutex);
    uint64_t* bytes = static_cast<uint64_t*>(value);
    switch (attr) {
        case cudaGraphMemAttrUsedMemCurrent:
        case cudaGraphMemAttrReservedMemCurrent: *bytes = physical_bytes(); break;
        case cudaGraphMemAttrUsedMemHigh: *bytes = used_high; break;
        case cudaGraphMemAttrReservedMemHigh: *bytes = reserved_high; break;
        default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
// Only a high-water mark may be set, and only to 0, which starts it again from the current figure.
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    if (!value || *static_cast<uint64_t*>(value) != 0) return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(memory_mutex);
    switch (attr) {
        case cudaGraphMemAttrUsedMemHigh: used_high = physical_bytes(); break;
        case cudaGraphMemAttrReservedMemHigh: reserved_high = physical_bytes(); break;
        default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

// With nodes null, *count is set to how many there are; otherwise up to *count are written, the
// rest of the array is nulled, and *count becomes how many were written.
static cudaError_t list_nodes(const std::vector<cudaGraphNode_t>& found, cudaGraphNode_t* nodes,
                              size_t* count) {
    if (!count) return fail(cudaErrorInvalidValue);
    if (!nodes) {
        *count = found.size();
        return cudaSuccess;
    }
    size_t written = std::min(*count, found.size());
    for (size_t i = 0; i < *count; i++) nodes[i] = i < written ? found[i] : nullptr;
    *count = written;
    return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
    if (!graph) return fail(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> all;
    for (const auto& node : graph->nodes) all.push_back(node.get());
    return list_nodes(all, nodes, count);
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
    if (!graph) return fail(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> roots;
    for (const auto& node : graph->nodes)
        if (node->dependencies.empty()) roots.push_back(node.get());
    return list_nodes(roots, nodes, count);
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* type) {
    if (!node || !type) return fail(cudaErrorInvalidValue);
    *type = node->type;
    return cudaSuccess;
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* dependencies,
                                         size_t* count) {
    if (!node) return fail(cudaErrorInvalidValue);
    return list_nodes(node->dependencies, dependencies, count);
}
// The arguments are kept as copies inside the node, so kernelParams comes back null.
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams* params) {
    if (!node || !params || node->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    *params = cudaKernelNodeParams{node->function, node->config.grid, node->config.block,
                                   (unsigned)node->config.shared_bytes, nullptr, nullptr};
    return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams* params) {
    if (!node || node->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    return bind_kernel(node, params);
}

// config.cooperative holds the cooperative attribute, which decides how the node runs; the rest
// are kept as set. An attribute never set reads as zeros, except a cluster's size (1x1x1).
cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                            const cudaKernelNodeAttrValue* value) {
    if (!node || !value || node->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    cudaLaunchAttribute attribute{};
    attribute.id = attr;
    attribute.val = *value;
    if (cudaError_t bad = check_launch_attribute(attribute, true, "cudaGraphKernelNodeSetAttribute")) return bad;
    if (attr == cudaLaunchAttributeCooperative)
        node->config.cooperative = value->cooperative != 0;
    else if (attr != cudaLaunchAttributeIgnore)
        node->attributes[attr] = *value;
    return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue* value) {
    if (!node || !value || node->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    cudaLaunchAttribute attribute{};  // the value read when none was set; checking it checks the id
    attribute.id = attr;
    if (attr == cudaLaunchAttributeClusterDimension || attr == cudaLaunchAttributePreferredClusterDimension)
        attribute.val.clusterDim = {1, 1, 1};  // preferredClusterDim lies in the same place
    if (cudaError_t bad = check_launch_attribute(attribute, true, "cudaGraphKernelNodeGetAttribute")) return bad;
    auto set = node->attributes.find(attr);
    *value = set != node->attributes.end() ? set->second : attribute.val;
    if (attr == cudaLaunchAttributeCooperative) value->cooperative = node->config.cooperative;
    return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src) {
    if (!dst || !src || dst->type != cudaGraphNodeTypeKernel || src->type != cudaGraphNodeTypeKernel)
        return fail(cudaErrorInvalidValue);
    dst->attributes = src->attributes;
    dst->config.cooperative = src->config.cooperative;
    return cudaSuccess;
}

// ---- Conditional nodes ------------------------------------------------------------------------------
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value, unsigned int flags) {
    if (!handle || !graph || (flags & ~(unsigned)cudaGraphCondAssignDefault))
        return fail(cudaErrorInvalidValue);
    auto condition = std::make_shared<ConditionalValue>(
        ConditionalValue{0, default_value, (flags & cudaGraphCondAssignDefault) != 0});
    graph->conditions.push_back(condition);
    *handle = (cudaGraphConditionalHandle)(uintptr_t)condition.get();
    return cudaSuccess;
}

static cudaError_t add_conditional_node(cudaGraphNode_t* node, cudaGraph_t graph,
                                        const cudaGraphNode_t* dependencies, size_t count,
                                        cudaConditionalNodeParams* params) {
    if (!graph) return fail(cudaErrorInvalidValue);
    ConditionalValue* condition = nullptr;
    for (const auto& made : graph->conditions)
        if ((cudaGraphConditionalHandle)(uintptr_t)made.get() == params->handle) condition = made.get();
    if (!condition) {
        report("a conditional node needs a handle made for its own graph "
               "(cudaGraphConditionalHandleCreate with the graph the node goes into)");
        return fail(cudaErrorInvalidValue);
    }
    bool size_fits = params->type == cudaGraphCondTypeIf ? params->size == 1 || params->size == 2
                     : params->type == cudaGraphCondTypeWhile ? params->size == 1
                     : params->type == cudaGraphCondTypeSwitch && params->size >= 1;
    if (!size_fits) return fail(cudaErrorInvalidValue);
    auto added = new_node(cudaGraphNodeTypeConditional);
    added->condition = condition;
    added->condition_type = params->type;
    for (unsigned i = 0; i < params->size; i++) {
        added->bodies.push_back(std::make_unique<CUgraph_st>());
        added->body_list.push_back(added->bodies.back().get());
    }
    if (cudaError_t error = add_node(node, graph, dependencies, count, std::move(added))) return error;
    params->phGraph_out = (*node)->body_list.data();
    return cudaSuccess;
}

// ---- Executable graphs ------------------------------------------------------------------------------
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags) {
    if (!exec || !graph) return fail(cudaErrorInvalidValue);
    if (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                      cudaGraphInstantiateFlagUpload |
                                      cudaGraphInstantiateFlagUseNodePriority))
        return fail(cudaErrorInvalidValue);
    if (has_memory_nodes(*graph) && *graph->executables > 0) {
        report("cudaGraphInstantiate: a graph with memory alloc or free nodes may have only one "
               "executable graph at a time (cudaGraphExecDestroy the other first)");
        return fail(cudaErrorNotSupported);
    }
    if (has_unfit_body(*graph)) {
        report("cudaGraphInstantiate: a conditional node's body may hold only kernel, memcpy, "
               "memset, empty, child-graph and conditional nodes");
        return fail(cudaErrorNotSupported);
    }
    auto result = std::make_unique<CUgraphExec_st>();
    result->graph = clone(*graph, &result->of);
    if (!dependency_order(*result->graph, &result->order)) return fail(cudaErrorInvalidValue);
    result->executables = graph->executables;
    ++*result->executables;
    result->auto_free = flags & cudaGraphInstantiateFlagAutoFreeOnLaunch;
    *exec = result.release();
    return cudaSuccess;
}

// Into a capturing stream the whole graph goes as one child-graph node.
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!exec) return fail(cudaErrorInvalidValue);
    if (capturing(stream)) {
        if (has_memory_nodes(*exec->graph)) {
            report("cudaGraphLaunch: a graph with memory alloc or free nodes cannot be launched "
                   "into a capturing stream (it would be a child graph)");
            return fail(cudaErrorNotSupported);
        }
        auto node = new_node(cudaGraphNodeTypeGraph);
        node->child = clone(*exec->graph);
        std::lock_guard<std::mutex> lock(capture_mutex);
        return fail(append_captured(stream, std::move(node)));
    }
    // What the last launch allocated and nothing has freed since: freed first, or the launch fails.
    for (cudaGraphNode_t node : exec->order) {
        if (node->type != cudaGraphNodeTypeMemAlloc || !node->memory->allocated) continue;
        if (!exec->auto_free) {
            report("cudaGraphLaunch: the graph allocation made at %s:%d by its last launch is not "
                   "freed yet; free it first (cudaFree, cudaFreeAsync or a graph with a memory free "
                   "node), or instantiate with cudaGraphInstantiateFlagAutoFreeOnLaunch",
                   node->memory->file, node->memory->line);
            return fail(cudaErrorInvalidValue);
        }
        if (cudaError_t error = free_graph_allocation(node->memory->data, stream)) return fail(error);
    }
    assign_defaults(*exec->graph);
    if (cudaError_t error = run_graph(exec->order, stream)) return fail(error);
    note_stream_work(stream);
    return cudaSuccess;
}
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t) {
    return exec ? cudaSuccess : fail(cudaErrorInvalidValue);
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    if (!exec) return fail(cudaErrorInvalidValue);
    --*exec->executables;
    delete exec;
    return cudaSuccess;
}
// `node` is a node of the graph `exec` was made from; only the executable graph changes.
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams* params) {
    if (!exec || !node) return fail(cudaErrorInvalidValue);
    auto found = exec->of.find(node);
    if (found == exec->of.end() || found->second->type != cudaGraphNodeTypeKernel)
        return fail(cudaErrorInvalidValue);
    return bind_kernel(found->second, params);
}

}  // extern "C"

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** dependencies, size_t* count) {
    if (!status) return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(capture_mutex);
    auto found = capturing_streams.find(stream);
    if (found == capturing_streams.end()) {
        *status = cudaStreamCaptureStatusNone;
        return cudaSuccess;
    }
    const CapturingStream& capture = found->second;
    *status = capture.session->invalidated ? cudaStreamCaptureStatusInvalidated
                                           : cudaStreamCaptureStatusActive;
    if (id) *id = capture.session->id;
    if (graph) *graph = capture.session->graph;
    if (dependencies) *dependencies = capture.tail.data();
    if (count) *count = capture.tail.size();
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
    return cudaGraphInstantiateWithFlags(exec, graph, flags);
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, cudaGraphNode_t* error_node,
                                 char* log, size_t log_size) {
    if (error_node) *error_node = nullptr;
    if (log && log_size > 0) log[0] = 0;
    return cudaGraphInstantiateWithFlags(exec, graph, 0);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, size_t count) {
    if (!graph || (count > 0 && (!from || !to))) return fail(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; i++) {
        if (!owns(graph, from[i]) || !owns(graph, to[i]) || from[i] == to[i]) return fail(cudaErrorInvalidValue);
        auto& deps = to[i]->dependencies;
        if (std::find(deps.begin(), deps.end(), from[i]) != deps.end()) return fail(cudaErrorInvalidValue);
        deps.push_back(from[i]);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edges,
                                     size_t count) {
    if (!plain_edges(edges, count)) return fail(cudaErrorNotSupported);
    return cudaGraphAddDependencies(graph, from, to, count);
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                struct cudaGraphExecUpdateResultInfo* info) {
    if (!exec || !graph) return fail(cudaErrorInvalidValue);
    auto refuse = [&](cudaGraphExecUpdateResult why, cudaGraphNode_t node) {
        if (info) *info = cudaGraphExecUpdateResultInfo{why, node, nullptr};
        return fail(cudaErrorGraphExecUpdateFailure);
    };
    const auto& old_nodes = exec->graph->nodes;
    if (has_memory_nodes(*graph) || has_memory_nodes(*exec->graph) ||
        has_conditional_nodes(*graph) || has_conditional_nodes(*exec->graph))
        return refuse(cudaGraphExecUpdateErrorNotSupported, nullptr);
    if (old_nodes.size() != graph->nodes.size())
        return refuse(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
    // Node i of the new graph pairs with node i of the executable one (the order they were added).
    std::map<cudaGraphNode_t, size_t> index_of;
    for (size_t i = 0; i < old_nodes.size(); i++) index_of[old_nodes[i].get()] = i;
    for (size_t i = 0; i < graph->nodes.size(); i++) index_of[graph->nodes[i].get()] = i;
    for (size_t i = 0; i < graph->nodes.size(); i++) {
        const CUgraphNode_st& now = *graph->nodes[i];
        const CUgraphNode_st& before = *old_nodes[i];
        if (now.type != before.type) return refuse(cudaGraphExecUpdateErrorNodeTypeChanged, graph->nodes[i].get());
        if (now.dependencies.size() != before.dependencies.size())
            return refuse(cudaGraphExecUpdateErrorTopologyChanged, graph->nodes[i].get());
        for (size_t d = 0; d < now.dependencies.size(); d++)
            if (index_of[now.dependencies[d]] != index_of[before.dependencies[d]])
                return refuse(cudaGraphExecUpdateErrorTopologyChanged, graph->nodes[i].get());
    }
    // Same shape: take the new parameters, keeping the executable graph's own nodes and order.
    std::map<cudaGraphNode_t, cudaGraphNode_t> copies;
    auto fresh = clone(*graph, &copies);
    for (size_t i = 0; i < old_nodes.size(); i++) {
        CUgraphNode_st& target = *old_nodes[i];
        CUgraphNode_st& source = *fresh->nodes[i];
        target.config = source.config;
        target.kernel = source.kernel;
        target.function = source.function;
        target.attributes = source.attributes;
        target.copy = source.copy;
        target.copy_dst = source.copy_dst;
        target.copy_src = source.copy_src;
        target.copy_bytes = source.copy_bytes;
        target.copy_kind = source.copy_kind;
        target.memset = source.memset;
        target.host = source.host;
        target.child = std::move(source.child);
        exec->of[graph->nodes[i].get()] = &target;
    }
    if (info) *info = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateSuccess, nullptr, nullptr};
    return cudaSuccess;
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphNode_t* error_node,
                                enum cudaGraphExecUpdateResult* result) {
    cudaGraphExecUpdateResultInfo info{cudaGraphExecUpdateSuccess, nullptr, nullptr};
    cudaError_t error = cudaGraphExecUpdate(exec, graph, &info);
    if (error_node) *error_node = info.errorNode;
    if (result) *result = info.result;
    return error;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** dependencies,
                                     const struct cudaGraphEdgeData** edges, size_t* count) {
    if (edges) *edges = nullptr;  // plain edges all
    return cudaStreamGetCaptureInfo(stream, status, id, graph, dependencies, count);
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                size_t count, unsigned int flags) {
    if ((count > 0 && !dependencies) || flags > cudaStreamSetCaptureDependencies)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(capture_mutex);
    auto found = capturing_streams.find(stream);
    if (found == capturing_streams.end()) return fail(cudaErrorIllegalState);
    CapturingStream& capture = found->second;
    for (size_t i = 0; i < count; i++)
        if (!owns(capture.session->graph, dependencies[i])) return fail(cudaErrorInvalidValue);
    if (flags == cudaStreamSetCaptureDependencies) capture.tail.clear();
    for (size_t i = 0; i < count; i++)
        if (std::find(capture.tail.begin(), capture.tail.end(), dependencies[i]) == capture.tail.end())
            capture.tail.push_back(dependencies[i]);
    return cudaSuccess;
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const struct cudaGraphEdgeData* edges, size_t count,
                                                unsigned int flags) {
    if (!plain_edges(edges, count)) return fail(cudaErrorNotSupported);
    return cudaStreamUpdateCaptureDependencies(stream, dependencies, count, flags);
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                             size_t count, cudaGraphNodeParams* params, const char* file, int line) {
    if (!params) return fail(cudaErrorInvalidValue);
    switch (params->type) {
    case cudaGraphNodeTypeKernel: {
        const cudaKernelNodeParamsV2& p = params->kernel;
        cudaKernelNodeParams kernel{p.func, p.gridDim, p.blockDim, p.sharedMemBytes, p.kernelParams, p.extra};
        return cudaGraphAddKernelNode(node, graph, dependencies, count, &kernel);
    }
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(node, graph, dependencies, count, &params->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
        const cudaMemsetParamsV2& p = params->memset;
        cudaMemsetParams memset{p.dst, p.pitch, p.value, p.elementSize, p.width, p.height};
        return cudaGraphAddMemsetNode(node, graph, dependencies, count, &memset);
    }
    case cudaGraphNodeTypeHost: {
        cudaHostNodeParams host{params->host.fn, params->host.userData};
        return cudaGraphAddHostNode(node, graph, dependencies, count, &host);
    }
    case cudaGraphNodeTypeGraph:
        if (params->graph.ownership != cudaGraphChildGraphOwnershipClone) {
            report("cudaGraphAddNode: a child graph whose ownership moves to the parent is not emulated; "
                   "use cudaGraphChildGraphOwnershipClone");
            return fail(cudaErrorNotSupported);
        }
        return cudaGraphAddChildGraphNode(node, graph, dependencies, count, params->graph.graph);
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(node, graph, dependencies, count);
    case cudaGraphNodeTypeMemAlloc: {
        const cudaMemAllocNodeParamsV2& p = params->alloc;
        cudaMemAllocNodeParams alloc{p.poolProps, p.accessDescs, p.accessDescCount, p.bytesize, nullptr};
        cudaError_t error = cudaGraphAddMemAllocNode(node, graph, dependencies, count, &alloc, file, line);
        params->alloc.dptr = alloc.dptr;
        return error;
    }
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(node, graph, dependencies, count, params->free.dptr);
    case cudaGraphNodeTypeConditional:
        return add_conditional_node(node, graph, dependencies, count, &params->conditional);
    default:
        report("cudaGraphAddNode: nodes of type %d (event and external-semaphore nodes) are not emulated",
               (int)params->type);
        return fail(cudaErrorNotSupported);
    }
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                             const cudaGraphEdgeData* edges, size_t count, cudaGraphNodeParams* params,
                             const char* file, int line) {
    if (!plain_edges(edges, count)) return fail(cudaErrorNotSupported);
    return cudaGraphAddNode(node, graph, dependencies, count, params, file, line);
}
