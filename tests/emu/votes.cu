// votes.cu - the warp votes (__ballot_sync, __any_sync, __all_sync) and __activemask see exactly
// the lanes that exist, in a block of 45 threads (the second warp has 13 lanes), and a vote over
// half a warp (mask 0x0000ffff) involves only those lanes.
#include "check.h"

static const char* test_name = "votes";
constexpr unsigned full_mask = 0xffffffffu;
constexpr int threads = 45;

__global__ void votes(unsigned* ballots, int* any_all, unsigned* active, unsigned* half) {
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    unsigned odd = __ballot_sync(full_mask, lane % 2 == 1);
    int any_big = __any_sync(full_mask, lane > 30);
    int all_small = __all_sync(full_mask, lane < 32);
    unsigned mask = __activemask();
    if (lane < 16) {
        unsigned low = __ballot_sync(0x0000ffffu, lane < 4);
        if (lane == 0) half[warp] = low;
    }
    __syncwarp();
    if (lane == 0) {
        ballots[warp] = odd;
        any_all[warp * 2] = any_big;
        any_all[warp * 2 + 1] = all_small;
        active[warp] = mask;
    }
}

int main() {
    unsigned h_ballots[2], h_active[2], h_half[2];
    int h_any_all[4];
    unsigned *d_ballots, *d_active, *d_half;
    int* d_any_all;
    CHECK(cudaMalloc(&d_ballots, sizeof h_ballots));
    CHECK(cudaMalloc(&d_active, sizeof h_active));
    CHECK(cudaMalloc(&d_half, sizeof h_half));
    CHECK(cudaMalloc(&d_any_all, sizeof h_any_all));
    votes<<<1, threads>>>(d_ballots, d_any_all, d_active, d_half);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_ballots, d_ballots, sizeof h_ballots, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_active, d_active, sizeof h_active, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_half, d_half, sizeof h_half, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_any_all, d_any_all, sizeof h_any_all, cudaMemcpyDeviceToHost));
    const unsigned last_warp_lanes = (1u << (threads - 32)) - 1;  // 13 lanes
    EXPECT(h_ballots[0] == 0xaaaaaaaau, "ballot of odd lanes, full warp: %08x", h_ballots[0]);
    EXPECT(h_ballots[1] == (0xaaaaaaaau & last_warp_lanes), "ballot, partial warp: %08x", h_ballots[1]);
    EXPECT(h_any_all[0] == 1 && h_any_all[2] == 0, "any(lane > 30): %d %d", h_any_all[0], h_any_all[2]);
    EXPECT(h_any_all[1] == 1 && h_any_all[3] == 1, "all(lane < 32): %d %d", h_any_all[1], h_any_all[3]);
    EXPECT(h_active[0] == full_mask, "activemask, full warp: %08x", h_active[0]);
    EXPECT(h_active[1] == last_warp_lanes, "activemask, partial warp: %08x", h_active[1]);
    EXPECT(h_half[0] == 0xfu && h_half[1] == 0xfu, "half-warp ballot: %08x %08x", h_half[0], h_half[1]);
    return pass(test_name);
}
