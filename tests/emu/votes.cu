// votes.cu - the warp votes (__ballot_sync, __any_sync, __all_sync) and __activemask see exactly
// the lanes that exist, in a block of 45 threads (the second warp has 13 lanes), and a vote over
// half a warp (mask 0x0000ffff) involves only those lanes; inside the branch that half takes,
// __activemask() is that half. __match_any_sync and __match_all_sync compare the lanes' values.
#include "check.h"

static const char* test_name = "votes";
constexpr unsigned full_mask = 0xffffffffu;
constexpr int threads = 45;

__global__ void votes(unsigned* ballots, int* any_all, unsigned* active, unsigned* half,
                      unsigned* matches) {
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    unsigned odd = __ballot_sync(full_mask, lane % 2 == 1);
    int any_big = __any_sync(full_mask, lane > 30);
    int all_small = __all_sync(full_mask, lane < 32);
    unsigned mask = __activemask();
    if (lane < 16) {
        unsigned low = __ballot_sync(0x0000ffffu, lane < 4);
        unsigned branch = __activemask();
        if (lane == 0) {
            half[warp] = low;
            active[2 + warp] = branch;
        }
    }
    __syncwarp();
    // lanes 4k .. 4k+3 hold the value k: each lane matches its group of four
    unsigned fours = __match_any_sync(full_mask, (long long)(lane / 4) << 40);
    int equal = -1, unequal = -1;
    unsigned all_same = __match_all_sync(full_mask, 2.5f, &equal);
    unsigned not_same = __match_all_sync(full_mask, lane, &unequal);
    matches[t * 3] = fours;
    matches[t * 3 + 1] = equal ? all_same : 1;
    matches[t * 3 + 2] = unequal ? 1 : not_same;
    if (lane == 0) {
        ballots[warp] = odd;
        any_all[warp * 2] = any_big;
        any_all[warp * 2 + 1] = all_small;
        active[warp] = mask;
    }
}

int main() {
    unsigned h_ballots[2], h_active[4], h_half[2], h_matches[threads * 3];
    int h_any_all[4];
    unsigned *d_ballots, *d_active, *d_half, *d_matches;
    int* d_any_all;
    CHECK(cudaMalloc(&d_matches, sizeof h_matches));
    CHECK(cudaMalloc(&d_ballots, sizeof h_ballots));
    CHECK(cudaMalloc(&d_active, sizeof h_active));
    CHECK(cudaMalloc(&d_half, sizeof h_half));
    CHECK(cudaMalloc(&d_any_all, sizeof h_any_all));
    votes<<<1, threads>>>(d_ballots, d_any_all, d_active, d_half, d_matches);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_ballots, d_ballots, sizeof h_ballots, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_active, d_active, sizeof h_active, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_half, d_half, sizeof h_half, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_any_all, d_any_all, sizeof h_any_all, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_matches, d_matches, sizeof h_matches, cudaMemcpyDeviceToHost));
    const unsigned last_warp_lanes = (1u << (threads - 32)) - 1;  // 13 lanes
    EXPECT(h_ballots[0] == 0xaaaaaaaau, "ballot of odd lanes, full warp: %08x", h_ballots[0]);
    EXPECT(h_ballots[1] == (0xaaaaaaaau & last_warp_lanes), "ballot, partial warp: %08x", h_ballots[1]);
    EXPECT(h_any_all[0] == 1 && h_any_all[2] == 0, "any(lane > 30): %d %d", h_any_all[0], h_any_all[2]);
    EXPECT(h_any_all[1] == 1 && h_any_all[3] == 1, "all(lane < 32): %d %d", h_any_all[1], h_any_all[3]);
    EXPECT(h_active[0] == full_mask, "activemask, full warp: %08x", h_active[0]);
    EXPECT(h_active[1] == last_warp_lanes, "activemask, partial warp: %08x", h_active[1]);
    EXPECT(h_half[0] == 0xfu && h_half[1] == 0xfu, "half-warp ballot: %08x %08x", h_half[0], h_half[1]);
    EXPECT(h_active[2] == 0x0000ffffu && h_active[3] == last_warp_lanes,
           "activemask in the branch of lanes < 16: %08x %08x", h_active[2], h_active[3]);
    for (int t = 0; t < threads; t++) {
        unsigned lanes = t < 32 ? full_mask : last_warp_lanes;
        unsigned fours = (0xfu << (t % 32 / 4 * 4)) & lanes;
        EXPECT(h_matches[t * 3] == fours, "thread %d: __match_any_sync %08x, expected %08x", t,
               h_matches[t * 3], fours);
        EXPECT(h_matches[t * 3 + 1] == lanes, "thread %d: __match_all_sync of equal values %08x, pred set",
               t, h_matches[t * 3 + 1]);
        EXPECT(h_matches[t * 3 + 2] == 0, "thread %d: __match_all_sync of different values %08x, pred clear",
               t, h_matches[t * 3 + 2]);
    }
    return pass(test_name);
}
