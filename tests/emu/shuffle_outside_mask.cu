// shuffle_outside_mask.cu - shuffles among the first 16 lanes of a warp (mask 0x0000ffff)
// without a width, so that lanes 8 to 15 read lanes 16 to 23, outside the mask, in the first
// step: CUDA leaves what they get undefined. A tree sum is still right in lane 0, which never
// uses those values; lanes 8 to 15 of a single step are not, and are left unchecked.
//
// For tests/sanitize.bats: --print-undefined also prints what lane 8 got (under
// CUDA_EMU_POISON the emulator gives all one bits, NaN; otherwise the lane's own value), and
// --use-undefined checks lanes 8 to 15 too, as if lanes past the mask gave 0: the program then
// fails, and the emulator names the shuffles that read outside their masks.
#include <cstring>

#include "check.h"

static const char* test_name = "shuffle_outside_mask";
constexpr unsigned first_half = 0x0000ffffu;
constexpr int lanes = 16;

__global__ void half_warp_sums(const float* x, float* tree_sum, float* one_step) {
    int lane = threadIdx.x;
    if (lane >= lanes) return;  // lanes 16 to 31 take no part
    float v = x[lane];
    one_step[lane] = v + __shfl_down_sync(first_half, v, 8);
    for (int offset = 8; offset > 0; offset /= 2)
        v += __shfl_down_sync(first_half, v, offset);
    if (lane == 0) *tree_sum = v;
}

int main(int argc, char** argv) {
    float x[lanes], one_step[lanes], tree_sum, expected = 0.0f;
    for (int i = 0; i < lanes; i++) x[i] = (float)(i + 1), expected += x[i];
    float *d_x, *d_tree_sum, *d_one_step;
    CHECK(cudaMalloc(&d_x, sizeof x));
    CHECK(cudaMalloc(&d_tree_sum, sizeof(float)));
    CHECK(cudaMalloc(&d_one_step, sizeof one_step));
    CHECK(cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice));
    half_warp_sums<<<1, 32>>>(d_x, d_tree_sum, d_one_step);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&tree_sum, d_tree_sum, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(one_step, d_one_step, sizeof one_step, cudaMemcpyDeviceToHost));
    bool use_undefined = argc > 1 && strcmp(argv[1], "--use-undefined") == 0;
    EXPECT(tree_sum == expected, "lane 0's tree sum is %g, expected %g\n", tree_sum, expected);
    for (int lane = 0; lane < (use_undefined ? lanes : 8); lane++) {
        float partner = lane + 8 < lanes ? x[lane + 8] : 0.0f;
        EXPECT(one_step[lane] == x[lane] + partner, "lane %d's step gave %g, expected %g\n", lane,
               one_step[lane], x[lane] + partner);
    }
    printf("PASS %s\n", test_name);
    // one_step[8] is x[8] plus the undefined value
    if (argc > 1 && strcmp(argv[1], "--print-undefined") == 0)
        printf("lane 8 got %g\n", one_step[8] - x[8]);
    return 0;
}
