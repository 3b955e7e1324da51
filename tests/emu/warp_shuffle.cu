// warp_shuffle.cu - warp shuffles move values between lanes as on a GPU: a __shfl_down_sync
// reduction per warp, __shfl_xor_sync butterfly sums, __shfl_up_sync prefix sums with a width of
// 8, and __shfl_sync broadcasts, in a block of 80 threads (the third warp has 16 lanes).
#include "check.h"

static const char* test_name = "warp_shuffle";
constexpr unsigned full_mask = 0xffffffffu;
constexpr int threads = 80;

__global__ void shuffles(const int* in, int* warp_sums, int* xor_sums, int* scans, int* broadcast) {
    int t = threadIdx.x, lane = t % 32;
    int value = in[t];
    // The last warp is partial: only its 16 existing lanes take part.
    unsigned mask = __ballot_sync(full_mask, 1);
    int sum = value;
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(mask, sum, offset);
        if (lane + offset < 32 && ((mask >> (lane + offset)) & 1)) sum += other;
    }
    if (lane == 0) warp_sums[t / 32] = sum;
    int butterfly = value;
    for (int lane_mask = 1; lane_mask < 16; lane_mask *= 2) butterfly += __shfl_xor_sync(mask, butterfly, lane_mask);
    xor_sums[t] = butterfly;  // sum over the 16-lane half-warp
    int scan = value;
    for (int delta = 1; delta < 8; delta *= 2) {
        int up = __shfl_up_sync(mask, scan, delta, 8);
        if ((lane % 8) >= delta) scan += up;
    }
    scans[t] = scan;  // inclusive prefix sum within each group of 8 lanes
    broadcast[t] = __shfl_sync(mask, value * 10, 3);
}

int main() {
    int h_in[threads], h_warp[3], h_xor[threads], h_scan[threads], h_bcast[threads];
    for (int t = 0; t < threads; t++) h_in[t] = t * 3 + 1;
    int *d_in, *d_warp, *d_xor, *d_scan, *d_bcast;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_warp, sizeof h_warp));
    CHECK(cudaMalloc(&d_xor, sizeof h_xor));
    CHECK(cudaMalloc(&d_scan, sizeof h_scan));
    CHECK(cudaMalloc(&d_bcast, sizeof h_bcast));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    shuffles<<<1, threads>>>(d_in, d_warp, d_xor, d_scan, d_bcast);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_warp, d_warp, sizeof h_warp, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_xor, d_xor, sizeof h_xor, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_scan, d_scan, sizeof h_scan, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_bcast, d_bcast, sizeof h_bcast, cudaMemcpyDeviceToHost));
    for (int w = 0; w < 3; w++) {
        int expected = 0;
        for (int t = w * 32; t < threads && t < w * 32 + 32; t++) expected += h_in[t];
        EXPECT(h_warp[w] == expected, "warp %d sum %d, expected %d", w, h_warp[w], expected);
    }
    for (int t = 0; t < threads; t++) {
        int half = t / 16 * 16, xor_expected = 0, scan_expected = 0;
        for (int u = half; u < half + 16; u++) xor_expected += h_in[u];
        for (int u = t / 8 * 8; u <= t; u++) scan_expected += h_in[u];
        EXPECT(h_xor[t] == xor_expected, "xor sum at %d: %d, expected %d", t, h_xor[t], xor_expected);
        EXPECT(h_scan[t] == scan_expected, "scan at %d: %d, expected %d", t, h_scan[t], scan_expected);
        int source = t / 32 * 32 + 3;
        EXPECT(h_bcast[t] == h_in[source] * 10, "broadcast at %d: %d", t, h_bcast[t]);
    }
    return pass(test_name);
}
