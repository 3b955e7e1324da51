// shuffle_large.cu - a cooperative groups tile shuffles values larger than the intrinsics' 8 bytes,
// as CUDA's tiles do: a double2 (16 bytes), a 12-byte float3 and a 32-byte struct, with shfl,
// shfl_up, shfl_down and shfl_xor, in a tile of 32 and one of 8; reduce over such a struct.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "shuffle_large";
constexpr int threads = 64;

struct Wide {  // 32 bytes: every byte must arrive
    double sum;
    int lane;
    short tag[6];
    long long id;
};

struct WideMax {  // for cg::reduce: the element with the larger sum, whole
    __device__ Wide operator()(const Wide& a, const Wide& b) const { return b.sum > a.sum ? b : a; }
};

struct Results {
    double2 broadcast;   // lane 3's value, from tile<32>.shfl
    double2 up;          // from the lane 2 below (own value for lanes 0 and 1)
    float3 down;         // from the lane 1 above, in a tile of 8 (own value for the tile's last)
    Wide xored;          // from lane ^ 5
    Wide largest;        // cg::reduce over the tile of 8: the largest sum
};

__host__ __device__ Wide wide_of(int t) {
    Wide w;
    w.sum = t * 1.5 + 0.25;
    w.lane = t;
    for (int k = 0; k < 6; k++) w.tag[k] = (short)(t * 10 + k);
    w.id = (long long)t << 40 | 0x1234;
    return w;
}

__global__ void shuffles(Results* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int t = (int)block.thread_rank();
    double2 mine = make_double2(t + 0.5, -t);
    float3 small = make_float3(t, t * 2.0f, t * 3.0f);
    Wide wide = wide_of(t);
    Results& r = out[blockIdx.x * threads + t];
    r.broadcast = warp.shfl(mine, 3);
    r.up = warp.shfl_up(mine, 2);
    r.down = tile.shfl_down(small, 1);
    r.xored = warp.shfl_xor(wide, 5);
    r.largest = cg::reduce(tile, wide, WideMax());
}

static bool same_wide(const Wide& a, const Wide& b) {
    bool same = a.sum == b.sum && a.lane == b.lane && a.id == b.id;
    for (int k = 0; k < 6; k++) same = same && a.tag[k] == b.tag[k];
    return same;
}

int main() {
    constexpr int blocks = 2, n = blocks * threads;
    Results* d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(Results)));
    shuffles<<<blocks, threads>>>(d_out);
    CHECK(cudaGetLastError());
    static Results h[n];
    CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));
    for (int i = 0; i < n; i++) {
        int t = i % threads, lane = t % 32, warp_first = t - lane, tile_last = t | 7;
        const Results& r = h[i];
        EXPECT(r.broadcast.x == warp_first + 3 + 0.5 && r.broadcast.y == -(warp_first + 3),
               "shfl of a double2 at %d: (%g, %g)", i, r.broadcast.x, r.broadcast.y);
        int up = lane >= 2 ? t - 2 : t;
        EXPECT(r.up.x == up + 0.5 && r.up.y == -up, "shfl_up of a double2 at %d: (%g, %g), expected from %d",
               i, r.up.x, r.up.y, up);
        int down = t < tile_last ? t + 1 : t;
        EXPECT(r.down.x == down && r.down.y == 2.0f * down && r.down.z == 3.0f * down,
               "shfl_down of a float3 at %d: (%g, %g, %g), expected from %d", i, r.down.x, r.down.y,
               r.down.z, down);
        EXPECT(same_wide(r.xored, wide_of(t ^ 5)), "shfl_xor of a 32-byte struct at %d: lane %d, sum %g",
               i, r.xored.lane, r.xored.sum);
        EXPECT(same_wide(r.largest, wide_of(tile_last)), "reduce of a 32-byte struct at %d: lane %d", i,
               r.largest.lane);
    }
    return pass(test_name);
}
