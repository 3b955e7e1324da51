// coalesced_groups.cu - coalesced_threads() inside a data-dependent branch holds exactly the lanes
// of the warp that took it, in lane order, and its operations (shfl, shfl_up, shfl_down, votes,
// ballot, reduce, sync, tiled_partition) see only those lanes; __activemask() there agrees. The
// aggregated atomic of NVIDIA's programming guide then makes one atomicAdd per warp. Also
// labeled_partition and binary_partition of a tile and of a coalesced group, and a thread_group
// holding a coalesced group. 77 threads: two full warps and one of 13 lanes.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "coalesced_groups";
constexpr int threads = 77;

struct Result {
    int size, rank, meta_rank, meta_size;
    int first, up, down;  // thread index from shfl(.., 0), shfl_up(.., 1), shfl_down(.., 2)
    int any, all;
    unsigned ballot, active;
    int sum;          // cg::reduce of the values over the group
    int slot;         // where the aggregated atomic put this thread
    int tile_size, tile_rank, tile_meta_rank, tile_meta_size;  // tiled_partition(group, 4)
    int as_thread_group;                                         // size * 100 + rank
    int label_size, label_rank, label_meta_rank, label_meta_size;  // labeled_partition(warp, t % 3)
    int part_size, part_meta_rank, part_meta_size;                 // binary_partition(group, t % 4 == 1)
};

// Which threads take the branch: an irregular set, except that all of warp 1 takes it (a group
// of the whole warp) and lane 0 of warp 2 does not (a group that does not start at lane 0).
__host__ __device__ bool takes_branch(int t) { return (t >= 32 && t < 64) || (t % 64 != 0 && (t * 7) % 11 > 3); }
__host__ __device__ int value_of(int t) { return t % 9 + 1; }

// The aggregated atomic: one atomicAdd for the whole group, by its rank 0, which passes the old
// value on; each member then owns the slot old + its rank.
__device__ int take_slot(int* counter, int* atomic_calls) {
    cg::coalesced_group group = cg::coalesced_threads();
    int base = 0;
    if (group.thread_rank() == 0) {
        base = atomicAdd(counter, (int)group.size());
        atomicAdd(atomic_calls, 1);
    }
    return group.shfl(base, 0) + (int)group.thread_rank();
}

__global__ void coalesced(Result* out, int* counter, int* atomic_calls) {
    int t = threadIdx.x, lane = t % 32;
    Result r;
    memset(&r, 0xff, sizeof r);  // -1 everywhere a thread that skips the branch leaves
    if (takes_branch(t)) {
        cg::coalesced_group group = cg::coalesced_threads();
        r.active = __activemask();
        r.size = (int)group.size();
        r.rank = (int)group.thread_rank();
        r.meta_rank = (int)group.meta_group_rank();
        r.meta_size = (int)group.meta_group_size();
        r.first = group.shfl(t, 0);
        r.up = group.shfl_up(t, 1);
        r.down = group.shfl_down(t, 2);
        r.any = group.any(t == 40);
        r.all = group.all(t >= 32);
        r.ballot = group.ballot(lane % 3 == 0);
        r.sum = cg::reduce(group, value_of(t), cg::plus<int>());
        group.sync();
        r.slot = take_slot(counter, atomic_calls);
        cg::coalesced_group tile = cg::tiled_partition(group, 4);
        r.tile_size = (int)tile.size();
        r.tile_rank = (int)tile.thread_rank();
        r.tile_meta_rank = (int)tile.meta_group_rank();
        r.tile_meta_size = (int)tile.meta_group_size();
        cg::thread_group as_group = group;
        r.as_thread_group = (int)(as_group.size() * 100 + as_group.thread_rank());
        cg::coalesced_group part = cg::binary_partition(group, t % 4 == 1);
        r.part_size = (int)part.size();
        r.part_meta_rank = (int)part.meta_group_rank();
        r.part_meta_size = (int)part.meta_group_size();
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group label = cg::labeled_partition(warp, t % 3);
    r.label_size = (int)label.size();
    r.label_rank = (int)label.thread_rank();
    r.label_meta_rank = (int)label.meta_group_rank();
    r.label_meta_size = (int)label.meta_group_size();
    out[t] = r;
}

int main() {
    Result* d_out;
    int *d_counter, *d_calls;
    CHECK(cudaMalloc(&d_out, threads * sizeof(Result)));
    CHECK(cudaMalloc(&d_counter, sizeof(int)));
    CHECK(cudaMalloc(&d_calls, sizeof(int)));
    CHECK(cudaMemset(d_counter, 0, sizeof(int)));
    CHECK(cudaMemset(d_calls, 0, sizeof(int)));
    coalesced<<<1, threads>>>(d_out, d_counter, d_calls);
    CHECK(cudaGetLastError());
    Result h[threads];
    int counter, calls;
    CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&counter, d_counter, sizeof counter, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&calls, d_calls, sizeof calls, cudaMemcpyDeviceToHost));

    int taken = 0;
    bool slot_used[threads] = {};
    for (int t = 0; t < threads; t++) {
        const Result& r = h[t];
        int warp = t / 32, lane = t % 32;
        // the warp's lanes that take the branch, in order
        int members[32], count = 0, rank = -1;
        unsigned mask = 0;
        for (int u = warp * 32; u < warp * 32 + 32 && u < threads; u++) {
            if (!takes_branch(u)) continue;
            if (u == t) rank = count;
            members[count++] = u;
            mask |= 1u << (u % 32);
        }
        // labeled_partition(warp, t % 3): the warp's lanes with the same label. The parts are
        // ranked by their lowest lanes, 0, 1 and 2: a lane's part is lane % 3.
        int same_label = 0, label_rank = 0;
        for (int u = warp * 32; u < warp * 32 + 32 && u < threads; u++) {
            if (u % 3 != t % 3) continue;
            if (u < t) label_rank++;
            same_label++;
        }
        EXPECT(r.label_size == same_label && r.label_rank == label_rank,
               "thread %d: labeled_partition size %d rank %d, expected %d %d", t, r.label_size,
               r.label_rank, same_label, label_rank);
        EXPECT(r.label_meta_rank == lane % 3 && r.label_meta_size == 3,
               "thread %d: labeled_partition meta rank %d size %d, expected %d 3", t,
               r.label_meta_rank, r.label_meta_size, lane % 3);
        if (!takes_branch(t)) {
            EXPECT(r.size == -1 && r.slot == -1, "thread %d skipped the branch but has a group", t);
            continue;
        }
        taken++;
        EXPECT(r.size == count && r.rank == rank, "thread %d: size %d rank %d, expected %d %d", t,
               r.size, r.rank, count, rank);
        EXPECT(r.active == mask, "thread %d: __activemask() 0x%08x, expected 0x%08x", t, r.active, mask);
        EXPECT(r.meta_rank == 0 && r.meta_size == 1, "thread %d: meta rank %d size %d", t,
               r.meta_rank, r.meta_size);
        EXPECT(r.first == members[0], "thread %d: shfl(t, 0) %d, expected %d", t, r.first, members[0]);
        int up = rank >= 1 ? members[rank - 1] : t, down = rank + 2 < count ? members[rank + 2] : t;
        EXPECT(r.up == up && r.down == down, "thread %d: shfl_up %d shfl_down %d, expected %d %d", t,
               r.up, r.down, up, down);
        int any = 0, all = 1, sum = 0;
        unsigned ballot = 0;
        for (int k = 0; k < count; k++) {
            any |= members[k] == 40;
            all &= members[k] >= 32;
            ballot |= (unsigned)(members[k] % 32 % 3 == 0) << k;
            sum += value_of(members[k]);
        }
        EXPECT(r.any == any && r.all == all, "thread %d: any %d all %d, expected %d %d", t, r.any,
               r.all, any, all);
        EXPECT(r.ballot == ballot, "thread %d: ballot 0x%x, expected 0x%x", t, r.ballot, ballot);
        EXPECT(r.sum == sum, "thread %d: reduce %d, expected %d", t, r.sum, sum);
        EXPECT(r.slot >= 0 && r.slot < threads && !slot_used[r.slot], "thread %d: slot %d taken twice", t, r.slot);
        slot_used[r.slot] = true;
        // tiles of 4 consecutive ranks, the last one shorter (every group here has more than 4)
        int tile_first = rank / 4 * 4, tile_size = count - tile_first < 4 ? count - tile_first : 4;
        EXPECT(r.tile_size == tile_size && r.tile_rank == rank % 4 && r.tile_meta_rank == rank / 4 &&
                   r.tile_meta_size == (count + 3) / 4,
               "thread %d: tiled_partition(group, 4) size %d rank %d meta %d/%d", t, r.tile_size,
               r.tile_rank, r.tile_meta_rank, r.tile_meta_size);
        EXPECT(r.as_thread_group == count * 100 + rank, "thread %d: as thread_group %d, expected %d",
               t, r.as_thread_group, count * 100 + rank);
        int ones = 0;
        for (int k = 0; k < count; k++) ones += members[k] % 4 == 1;
        int part = t % 4 == 1 ? ones : count - ones;
        bool split = ones > 0 && ones < count;
        EXPECT(r.part_size == (split ? part : count) && r.part_meta_rank == (split ? t % 4 == 1 : 0) &&
                   r.part_meta_size == (split ? 2 : 1),
               "thread %d: binary_partition size %d meta %d/%d, expected %d", t, r.part_size,
               r.part_meta_rank, r.part_meta_size, part);
    }
    EXPECT(counter == taken, "the aggregated atomic counted %d, expected %d", counter, taken);
    EXPECT(calls == 3, "%d atomicAdd calls, expected one per warp: 3", calls);
    return pass(test_name);
}
