#include <cooperative_groups.h>
struct Big { double d[5]; };
__global__ void k(Big* p) {
    auto tile = cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());
    p[threadIdx.x] = tile.shfl(p[threadIdx.x], 0);
}
int main() { return 0; }
