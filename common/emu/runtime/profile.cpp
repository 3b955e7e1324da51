// runtime/profile.cpp - emucc --profile: what Nsight Compute would count, counted exactly.
//
// Part of the CPU emulation backend (common/emu/). A program built with emucc --profile prints,
// when it ends, one table per kernel: global memory requests and the 32-byte sectors they touch
// (coalescing), shared memory requests and the wavefronts they take (bank conflicts), branches
// whose lanes went different ways (divergence), atomics and the launch's occupancy; each figure
// named as Nsight Compute names the metric. With CUDA_EMU_PROFILE_LINES=1 (emucc --lines) a table
// per source line follows; CUDA_EMU_PROFILE_CSV=FILE writes every figure to FILE as CSV too.
//
// Where the accesses come from: the instrumentation of --sanitize (runtime/sanitize.cpp) hands
// every load and store of a running block to profile_access; the rewriter wraps each if and while
// condition of device code in profile_branch; each atomic calls profile_atomic. A GPU executes an
// instruction for a warp at once; here lanes run one after another. So each access is noted as an
// event: the instruction (its code address), the GPU thread, and how many times that thread has
// reached that instruction before. When the block ends, the events of one instruction, one warp
// and one visit number form one warp-level request, the lanes that executed it together on a GPU.
// The figures are functions of those groups alone: the same in any thread order and with any
// number of worker threads.
//
// What it does not model: caches (L1 and L2 hits; every sector counts as moved), timing, the
// instructions of the GPU's compiler (the CPU compiler's loads stand in: a value it keeps in a
// register is not loaded again, as nvcc's would not be either, usually), and branches other than
// if and while conditions (loops' for, ?:, && and || count as no branch).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <link.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include "internal.h"

namespace cuda_emu {
namespace {

bool profile_lines = false;  // emucc --profile --lines

enum Kind : uint8_t {
    GLOBAL_LOAD, GLOBAL_STORE, SHARED_LOAD, SHARED_STORE, GLOBAL_ATOMIC, SHARED_ATOMIC, BRANCH,
    KINDS
};
const char* const kind_words[KINDS] = {"global load", "global store", "shared load", "shared store",
                                       "global atomic", "shared atomic", "branch"};

// One lane's access (or branch) at one instruction.
struct Event {
    const void* pc;
    uint32_t visit;  // how many times this thread reached this instruction before
    uint16_t thread;
    Kind kind;
    uint32_t size;        // bytes; for a branch, 1 when taken
    const char* base;     // global memory: the allocation's start
    uintptr_t address;
};

// What a warp-level instruction cost, summed over its executions.
struct Counts {
    uint64_t requests = 0;   // warp-level executions
    uint64_t lanes = 0;      // threads that took part, summed
    uint64_t sectors = 0;    // global: 32-byte sectors touched
    uint64_t bytes = 0;      // global: bytes the threads asked for
    uint64_t wavefronts = 0, ideal_wavefronts = 0;  // shared
    uint64_t by_ways[33] = {};  // shared: requests whose worst bank served n words, n-way
    uint64_t divergent = 0;  // branches whose lanes went both ways
    void add(const Counts& o) {
        requests += o.requests, lanes += o.lanes, sectors += o.sectors, bytes += o.bytes;
        wavefronts += o.wavefronts, ideal_wavefronts += o.ideal_wavefronts;
        divergent += o.divergent;
        for (int n = 0; n <= 32; n++) by_ways[n] += o.by_ways[n];
    }
};

struct Site {
    const void* pc;
    Kind kind;
    bool operator<(const Site& o) const { return pc != o.pc ? pc < o.pc : kind < o.kind; }
};

struct KernelFigures {
    uint64_t launches = 0;
    LaunchConfig last{};
    bool shapes_vary = false;
    std::map<Site, Counts> sites;
    std::map<uintptr_t, uint64_t> atomic_addresses;  // how many atomics each address took
    size_t static_shared_bytes = 0;  // the kernel's (launch.h) or the most any block's __shared__
                                     // variables took, if more (a member function's)
};

// All kernels' figures, in the order of their first launch. Made with new and never freed: they
// are printed at exit, after which destructors could otherwise have run.
std::mutex figures_mutex;
std::map<std::string, KernelFigures>* figures;
std::vector<std::string>* kernel_order;

// Per worker: the running block's events and how often each thread reached each instruction.
struct VisitKey {
    const void* pc;
    uint32_t thread_and_kind;
    bool operator==(const VisitKey& o) const {
        return pc == o.pc && thread_and_kind == o.thread_and_kind;
    }
};
struct VisitHash {
    size_t operator()(const VisitKey& k) const {
        return std::hash<const void*>()(k.pc) * 31 + k.thread_and_kind;
    }
};
thread_local std::vector<Event> events;
// The static __shared__ variables the running block's threads declared, by their address in this
// worker (each is one thread_local, which every block the worker runs uses).
thread_local std::vector<std::pair<const void*, size_t>> static_shared;
thread_local std::unordered_map<VisitKey, uint32_t, VisitHash> visits;

void note(const void* pc, Kind kind, uint32_t size, const char* base, uintptr_t address) {
    int thread = sanitize_state.thread;
    uint32_t& visit = visits[VisitKey{pc, (uint32_t)thread * KINDS + kind}];
    events.push_back(Event{pc, visit++, (uint16_t)thread, kind, size, base, address});
}

// ---- One warp-level request from the lanes' accesses ------------------------------------------

constexpr uintptr_t sector_bytes = 32;
constexpr int banks = 32, bank_bytes = 4;

// Global memory: the distinct 32-byte sectors the lanes touched, counted from the allocation's
// start (a GPU's allocations are aligned to 256 bytes; the emulator's need not be).
void global_request(const Event* lanes, size_t count, Counts& c) {
    std::vector<std::pair<const char*, uintptr_t>> sectors;
    for (size_t i = 0; i < count; i++) {
        uintptr_t offset = lanes[i].address - (uintptr_t)lanes[i].base;
        for (uintptr_t s = offset / sector_bytes; s <= (offset + lanes[i].size - 1) / sector_bytes; s++)
            sectors.emplace_back(lanes[i].base, s);
        c.bytes += lanes[i].size;
    }
    std::sort(sectors.begin(), sectors.end());
    c.sectors += (uint64_t)(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

// Shared memory: 32 banks of 4-byte words. The lanes of a warp are served in one wavefront when
// no two of them need different words of one bank (several lanes reading one word is a broadcast,
// no conflict); an n-way conflict takes n wavefronts. Accesses of 8 and 16 bytes are served a
// half or a quarter of the warp at a time, each part its own wavefront at best.
void shared_request(const Event* lanes, size_t count, Counts& c) {
    uint32_t widest = 4;
    for (size_t i = 0; i < count; i++) widest = std::max(widest, std::min<uint32_t>(lanes[i].size, 16));
    int lanes_per_phase = 32 * bank_bytes / (int)widest;
    std::vector<uintptr_t> words[banks];
    size_t worst = 1;
    for (int phase = 0; phase < 32 / lanes_per_phase; phase++) {
        for (auto& w : words) w.clear();
        bool any = false;
        for (size_t i = 0; i < count; i++) {
            if (lanes[i].thread % 32 / lanes_per_phase != phase) continue;
            any = true;
            uintptr_t first = lanes[i].address / bank_bytes;
            uintptr_t last = (lanes[i].address + lanes[i].size - 1) / bank_bytes;
            for (uintptr_t word = first; word <= last; word++) words[word % banks].push_back(word);
        }
        if (!any) continue;
        size_t most = 1;
        for (auto& w : words) {
            std::sort(w.begin(), w.end());
            most = std::max(most, (size_t)(std::unique(w.begin(), w.end()) - w.begin()));
        }
        c.wavefronts += most;
        c.ideal_wavefronts++;
        worst = std::max(worst, most);
    }
    c.by_ways[std::min<size_t>(worst, 32)]++;
}

void branch_request(const Event* lanes, size_t count, Counts& c) {
    size_t taken = 0;
    for (size_t i = 0; i < count; i++) taken += lanes[i].size;
    if (taken != 0 && taken != count) c.divergent++;
}

}  // namespace

// ---- What the instrumented program calls ---------------------------------------------------------

void profile_access(const void* address, size_t size, bool writes, const void* pc) {
    const char* base = nullptr;
    Space space = memory_space(address, &base);
    if (space == Space::none || size == 0) return;
    Kind kind = space == Space::global ? (writes ? GLOBAL_STORE : GLOBAL_LOAD)
                                       : (writes ? SHARED_STORE : SHARED_LOAD);
    note(pc, kind, (uint32_t)std::min<size_t>(size, UINT32_MAX), base, (uintptr_t)address);
}

bool profile_branch(bool taken) {
    if (profile_enabled && sanitize_state.in_block)
        note(__builtin_return_address(0), BRANCH, taken, nullptr, 0);
    return taken;
}

void profile_atomic(const volatile void* address) {
    if (!profile_enabled || !sanitize_state.in_block) return;
    const char* base = nullptr;
    Space space = memory_space(const_cast<const void*>(address), &base);
    if (space == Space::none) return;
    note(__builtin_return_address(0), space == Space::global ? GLOBAL_ATOMIC : SHARED_ATOMIC, 4,
         base, (uintptr_t)address);
}

void profile_block_start() {
    events.clear();
    visits.clear();
    static_shared.clear();
}

// Every thread that runs a declaration registers its variable; the block's first counts.
void profile_static_shared(const void* start, size_t size) {
    if (!static_shared.empty() && static_shared.back().first == start) return;
    for (const auto& variable : static_shared)
        if (variable.first == start) return;
    static_shared.emplace_back(start, size);
}

// The block's events, grouped into warp-level requests: same instruction, same warp, same visit.
void profile_block_end(const char* kernel_name) {
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        if (a.pc != b.pc) return a.pc < b.pc;
        if (a.kind != b.kind) return a.kind < b.kind;
        if (a.visit != b.visit) return a.visit < b.visit;
        return a.thread < b.thread;
    });
    std::map<Site, Counts> sites;
    std::map<uintptr_t, uint64_t> atomic_addresses;
    for (size_t first = 0; first < events.size();) {
        const Event& e = events[first];
        size_t end = first + 1;
        while (end < events.size() && events[end].pc == e.pc && events[end].kind == e.kind &&
               events[end].visit == e.visit && events[end].thread / 32 == e.thread / 32)
            end++;
        Counts& c = sites[Site{e.pc, e.kind}];
        c.requests++;
        c.lanes += end - first;
        switch (e.kind) {
        case GLOBAL_LOAD: case GLOBAL_STORE: global_request(&e, end - first, c); break;
        case SHARED_LOAD: case SHARED_STORE: shared_request(&e, end - first, c); break;
        case BRANCH: branch_request(&e, end - first, c); break;
        default:
            for (size_t i = first; i < end; i++) atomic_addresses[events[i].address]++;
        }
        first = end;
    }
    std::lock_guard<std::mutex> lock(figures_mutex);
    KernelFigures& k = (*figures)[kernel_name];
    for (auto& [site, counts] : sites) k.sites[site].add(counts);
    for (auto& [address, count] : atomic_addresses) k.atomic_addresses[address] += count;
    size_t static_bytes = 0;
    for (const auto& variable : static_shared) static_bytes += variable.second;
    k.static_shared_bytes = std::max(k.static_shared_bytes, static_bytes);
}

void profile_launch(const LaunchConfig& config, const char* kernel_name) {
    std::lock_guard<std::mutex> lock(figures_mutex);
    auto found = figures->find(kernel_name);
    if (found == figures->end()) kernel_order->push_back(kernel_name);
    KernelFigures& k = (*figures)[kernel_name];
    auto same = [](dim3 a, dim3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
    if (k.launches && (!same(k.last.grid, config.grid) || !same(k.last.block, config.block) ||
                       k.last.shared_bytes != config.shared_bytes))
        k.shapes_vary = true;
    k.launches++;
    k.last = config;
    // what the program declares, as nvcc counts it, though a block may not reach all of it
    size_t declared = config.static_shared_bytes ? config.static_shared_bytes
                                                 : named_kernel_static_shared(kernel_name);
    k.static_shared_bytes = std::max(k.static_shared_bytes, declared);
}

// ---- The tables --------------------------------------------------------------------------------
namespace {

FILE* csv;

// One figure: the Nsight Compute metric (or a note where it has none), its value, what it means.
// Metrics named .ratio or .pct, and the emulator's own ratios, are shown with two decimals.
void row(const std::string& kernel, const char* where, const char* metric, double value,
         const char* label) {
    char number[40];
    bool fraction = strstr(metric, ".ratio") || strstr(metric, ".pct") || strstr(metric, " / ") ||
                    strstr(metric, "waves") || strstr(metric, "contended");
    if (fraction) snprintf(number, sizeof number, "%.2f", value);
    else snprintf(number, sizeof number, "%llu", (unsigned long long)value);
    if (!where) fprintf(stderr, "  %-70s %12s  %s\n", metric, number, label);
    if (csv)
        fprintf(csv, "\"%s\",%s,%s,%s\n", kernel.c_str(), where ? where : "", metric, number);
}

double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }

// Shared-memory requests by how many ways their worst bank conflict went: "n-way: 1-way 64,
// 2-way 32, ..." on the table, a row "(ld 2-way requests)" each in the CSV.
void ways_rows(const std::string& kernel, const char* where, const char* direction, const Counts& s) {
    if (s.wavefronts == s.ideal_wavefronts) return;
    if (!where) fprintf(stderr, "  %-70s %12s  ", "(requests by bank conflict)", "");
    bool first = true;
    for (int n = 1; n <= 32; n++) {
        if (!s.by_ways[n]) continue;
        char metric[64];
        snprintf(metric, sizeof metric, "(%s %d-way requests)", direction, n);
        if (csv) fprintf(csv, "\"%s\",%s,%s,%llu\n", kernel.c_str(), where ? where : "", metric,
                         (unsigned long long)s.by_ways[n]);
        if (!where) fprintf(stderr, "%s%d-way %llu", first ? "" : ", ", n, (unsigned long long)s.by_ways[n]);
        first = false;
    }
    if (!where) fprintf(stderr, "\n");
}

void memory_rows(const std::string& kernel, const char* where, const Counts* by_kind) {
    static const char* const direction[2] = {"ld", "st"};
    static const char* const verb[2] = {"load", "store"};
    char metric[128], label[160];
    for (int d = 0; d < 2; d++) {
        const Counts& g = by_kind[GLOBAL_LOAD + d];
        if (g.requests) {
            if (!where) fprintf(stderr, " global memory, %ss:\n", verb[d]);
            snprintf(metric, sizeof metric, "l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum", direction[d]);
            snprintf(label, sizeof label, "requests: one per warp per %s executed", verb[d]);
            row(kernel, where, metric, (double)g.requests, label);
            snprintf(metric, sizeof metric, "l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum", direction[d]);
            row(kernel, where, metric, (double)g.sectors, "32-byte sectors touched");
            snprintf(metric, sizeof metric, "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_%s.ratio", direction[d]);
            row(kernel, where, metric, ratio(g.sectors, g.requests),
                "sectors per request: 4 for 32 consecutive floats, up to 32");
            snprintf(metric, sizeof metric, "smsp__sass_data_bytes_mem_global_op_%s.sum", direction[d]);
            row(kernel, where, metric, (double)g.bytes, "bytes the threads asked for");
            snprintf(metric, sizeof metric, "l1tex__t_bytes_pipe_lsu_mem_global_op_%s.sum", direction[d]);
            row(kernel, where, metric, (double)(g.sectors * sector_bytes), "bytes in the sectors moved");
            snprintf(metric, sizeof metric, "smsp__sass_average_data_bytes_per_sector_mem_global_op_%s.pct", direction[d]);
            row(kernel, where, metric, 100 * ratio(g.bytes, g.sectors * sector_bytes),
                "% of the moved bytes asked for (coalescing)");
        }
    }
    for (int d = 0; d < 2; d++) {
        const Counts& s = by_kind[SHARED_LOAD + d];
        if (s.requests) {
            if (!where) fprintf(stderr, " shared memory, %ss:\n", verb[d]);
            snprintf(metric, sizeof metric, "smsp__inst_executed_op_shared_%s.sum", direction[d]);
            snprintf(label, sizeof label, "requests: one per warp per %s executed", verb[d]);
            row(kernel, where, metric, (double)s.requests, label);
            snprintf(metric, sizeof metric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum", direction[d]);
            row(kernel, where, metric, (double)s.wavefronts, "wavefronts: an n-way bank conflict takes n");
            snprintf(metric, sizeof metric, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum", direction[d]);
            row(kernel, where, metric, (double)(s.wavefronts - s.ideal_wavefronts),
                "bank conflicts: wavefronts beyond the fewest possible");
            snprintf(metric, sizeof metric, "(%s wavefronts / requests)", direction[d]);
            row(kernel, where, metric, ratio(s.wavefronts, s.requests),
                "wavefronts per request: 1 without conflicts, up to 32");
            ways_rows(kernel, where, direction[d], s);
        }
    }
    const Counts& b = by_kind[BRANCH];
    if (b.requests) {
        if (!where) fprintf(stderr, " divergence:\n");
        row(kernel, where, "smsp__sass_inst_executed_op_branch.sum", (double)b.requests,
            "branches executed by warps (if and while conditions)");
        row(kernel, where, "smsp__sass_branch_targets_threads_divergent.sum", (double)b.divergent,
            "divergent: the warp's lanes went both ways");
        row(kernel, where, "smsp__sass_branch_targets_threads_uniform.sum",
            (double)(b.requests - b.divergent), "uniform: all lanes went one way");
    }
    const Counts& ga = by_kind[GLOBAL_ATOMIC];
    const Counts& sa = by_kind[SHARED_ATOMIC];
    if (ga.requests || sa.requests) {
        if (!where) fprintf(stderr, " atomics:\n");
        row(kernel, where, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", (double)ga.requests,
            "global atomic requests: one per warp per atomic executed");
        row(kernel, where, "smsp__inst_executed_op_shared_atom.sum", (double)sa.requests,
            "shared atomic requests");
        row(kernel, where, "(emulator: atomic operations)", (double)(ga.lanes + sa.lanes),
            "atomic operations by threads");
    }
}

// "file:line" of each code address, by one run of addr2line over all of them; the first frame
// outside the emulator's headers, as code_line does for one address.
std::map<const void*, std::string> lines_of(const std::vector<const void*>& pcs) {
    std::map<const void*, std::string> lines;
    for (const void* pc : pcs) lines[pc] = "?";
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length <= 0 || pcs.empty()) return lines;
    exe[length] = 0;
    uintptr_t base = 0;
    dl_iterate_phdr([](struct dl_phdr_info* info, size_t, void* data) {
        *static_cast<uintptr_t*>(data) = info->dlpi_addr;
        return 1;
    }, &base);
    std::string command = std::string("addr2line -a -i -e '") + exe + "'";
    for (const void* pc : pcs) {
        char address[32];
        snprintf(address, sizeof address, " 0x%lx", (unsigned long)((uintptr_t)pc - 1 - base));
        command += address;
    }
    command += " 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return lines;
    char here[4096] = "";
    if (!getcwd(here, sizeof here)) here[0] = 0;
    char text[4096];
    size_t index = (size_t)-1;
    bool found = false;
    while (fgets(text, sizeof text, pipe)) {
        text[strcspn(text, "\n")] = 0;
        if (strncmp(text, "0x", 2) == 0) {
            index++;
            found = false;
            continue;
        }
        if (index >= pcs.size() || found || strncmp(text, "??", 2) == 0) continue;
        if (char* discriminator = strstr(text, " (discriminator")) *discriminator = 0;
        const char* shown = text;
        size_t here_length = strlen(here);
        if (here_length && strncmp(text, here, here_length) == 0 && text[here_length] == '/')
            shown = text + here_length + 1;
        lines[pcs[index]] = shown;
        found = strstr(text, "/emu/include/") == nullptr;
    }
    pclose(pipe);
    return lines;
}

void print_kernel(const std::string& name, const KernelFigures& k, bool per_line) {
    Counts by_kind[KINDS];
    for (auto& [site, counts] : k.sites) by_kind[site.kind].add(counts);
    fprintf(stderr, "\ncuda-emu profile: kernel %s, %llu launch%s (CPU emulation: exact counts of "
            "what the threads touched; no caches, no timings)\n", name.c_str(),
            (unsigned long long)k.launches, k.launches == 1 ? "" : "es");
    // the counts below are sums over the launches: the CSV says how many there were
    if (csv) fprintf(csv, "\"%s\",,launches,%llu\n", name.c_str(), (unsigned long long)k.launches);
    const LaunchConfig& c = k.last;
    int threads = (int)(c.block.x * c.block.y * c.block.z);
    uint64_t blocks = (uint64_t)c.grid.x * c.grid.y * c.grid.z;
    cudaDeviceProp device;
    cudaGetDeviceProperties(&device, 0);
    // a block's shared memory is its static __shared__ variables and its dynamic buffer
    int per_sm = resident_blocks_per_sm(threads, k.static_shared_bytes + c.shared_bytes);
    int warps = (threads + 31) / 32;
    fprintf(stderr, " launch%s:\n", k.shapes_vary ? " (the last; the launches' shapes differ)" : "");
    row(name, nullptr, "launch__grid_size", (double)blocks, "blocks in the grid");
    row(name, nullptr, "launch__block_size", threads, "threads per block");
    row(name, nullptr, "launch__shared_mem_per_block_static", (double)k.static_shared_bytes,
        "bytes of static shared memory per block (its __shared__ variables)");
    row(name, nullptr, "launch__shared_mem_per_block_dynamic", (double)c.shared_bytes,
        "bytes of dynamic shared memory per block");
    row(name, nullptr, "device__attribute_multiprocessor_count", device.multiProcessorCount,
        "SMs of the emulated device");
    row(name, nullptr, "min(launch__occupancy_limit_*)", per_sm,
        "blocks an SM holds at once (occupancy model)");
    row(name, nullptr, "sm__maximum_warps_per_active_cycle_pct",
        100 * ratio((uint64_t)per_sm * warps, (uint64_t)device.maxThreadsPerMultiProcessor / 32),
        "theoretical occupancy: % of an SM's warps");
    row(name, nullptr, "launch__waves_per_multiprocessor",
        ratio(blocks, (uint64_t)per_sm * device.multiProcessorCount),
        "waves: blocks / (blocks per SM x SMs)");
    memory_rows(name, nullptr, by_kind);
    uint64_t lanes = 0, instructions = 0;
    for (int kind : {GLOBAL_LOAD, GLOBAL_STORE, SHARED_LOAD, SHARED_STORE, BRANCH}) {
        lanes += by_kind[kind].lanes;
        instructions += by_kind[kind].requests;
    }
    if (instructions)
        row(name, nullptr, "smsp__thread_inst_executed_per_inst_executed.ratio",
            ratio(lanes, instructions), "active threads per warp instruction (of those above; 32 is all)");
    uint64_t atomics = by_kind[GLOBAL_ATOMIC].lanes + by_kind[SHARED_ATOMIC].lanes, most = 0;
    for (auto& [address, count] : k.atomic_addresses) most = std::max(most, count);
    if (atomics)
        row(name, nullptr, "(emulator: most contended address)", 100 * ratio(most, atomics),
            "% of the atomics on the one address most of them hit");
    if (!per_line && !csv) return;

    // Per source line: the sites of each line and kind, added up.
    std::vector<const void*> pcs;
    for (auto& [site, counts] : k.sites) pcs.push_back(site.pc);
    pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
    std::map<const void*, std::string> lines = lines_of(pcs);
    std::map<std::string, Counts[KINDS]> by_line;
    for (auto& [site, counts] : k.sites) by_line[lines[site.pc]][site.kind].add(counts);
    if (per_line) fprintf(stderr, " per source line:\n");
    for (auto& [line, counts] : by_line) {
        memory_rows(name, line.c_str(), counts);
        if (!per_line) continue;
        for (int kind = 0; kind < KINDS; kind++) {
            const Counts& n = counts[kind];
            if (!n.requests) continue;
            fprintf(stderr, "  %s  %-13s requests %llu", line.c_str(), kind_words[kind],
                    (unsigned long long)n.requests);
            if (kind == GLOBAL_LOAD || kind == GLOBAL_STORE)
                fprintf(stderr, "  sectors %llu  sectors/request %.2f", (unsigned long long)n.sectors,
                        ratio(n.sectors, n.requests));
            if (kind == SHARED_LOAD || kind == SHARED_STORE)
            {
                fprintf(stderr, "  wavefronts %llu  conflicts %llu  wavefronts/request %.2f",
                        (unsigned long long)n.wavefronts,
                        (unsigned long long)(n.wavefronts - n.ideal_wavefronts),
                        ratio(n.wavefronts, n.requests));
                for (int ways = 2; ways <= 32; ways++)
                    if (n.by_ways[ways])
                        fprintf(stderr, "  %d-way %llu", ways, (unsigned long long)n.by_ways[ways]);
            }
            if (kind == BRANCH) fprintf(stderr, "  divergent %llu", (unsigned long long)n.divergent);
            if (kind == GLOBAL_ATOMIC || kind == SHARED_ATOMIC)
                fprintf(stderr, "  operations %llu", (unsigned long long)n.lanes);
            fprintf(stderr, "\n");
        }
    }
}

void print_tables() {
    fflush(stdout);
    std::lock_guard<std::mutex> lock(figures_mutex);
    const char* csv_path = getenv("CUDA_EMU_PROFILE_CSV");
    if (csv_path && *csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) report("CUDA_EMU_PROFILE_CSV=%s: cannot write this file", csv_path);
        else fprintf(csv, "kernel,line,metric,value\n");
    }
    bool per_line = profile_lines || settings().profile_lines;
    for (const std::string& name : *kernel_order) print_kernel(name, (*figures)[name], per_line);
    if (kernel_order->empty()) fprintf(stderr, "cuda-emu profile: no kernel ran\n");
    if (csv) fclose(csv);
}

}  // namespace

void start_profile(bool per_line) {
    profile_lines = profile_lines || per_line;
    if (figures) return;
    figures = new std::map<std::string, KernelFigures>;
    kernel_order = new std::vector<std::string>;
    atexit(print_tables);
}

}  // namespace cuda_emu
