/*
 * Exercise 05: a block's sum as a shared-memory tree, for any block size.
 *
 * Each block sums its own blockDim.x elements of x and writes that sum to
 * block_sums[blockIdx.x]. The kernels of reduction.cu use 256 threads, a power
 * of two, so every step of their tree halves an even count. Here the checker
 * also uses blocks of 96 and 1000 threads: when the count of values still to
 * add is odd, the middle one must not be lost. And n need not be a multiple
 * of the block size: the last block is only partly full.
 *
 *   7 values:  a b c d | e f g        the upper 3 are added onto the lower 3;
 *              a+e b+f c+g d          d, the odd one out, waits for the next step
 *   4 values:  (a+e)+(c+g) (b+f)+d    ... and so on until one is left
 *
 * Fill in the TODOs, then check your work:
 *     make exercise05
 * It answers "not implemented yet", PASS, or FAIL with the first wrong block.
 * A missing barrier may only show in some thread orders: under the CPU
 * emulator try CUDA_EMU_ORDER=reverse make exercise05, and random:7; or build
 * with the emulator's race checker, which names the racing line in any order:
 *     make BACKEND=emu SANITIZE=1 exercise05
 * The worked solution is in solutions/05-reduction/exercise.cu (make solution05).
 */
#include "workbook.h"

/* How many blocks of threads_per_block threads cover n elements, one element
 * per thread. */
long long blocks_for(long long n, int threads_per_block)
{
    /* TODO 1: enough blocks for every element: the last one may be partly full. */
    return 0;
}

__global__ void block_sums_tree(const float *x, float *block_sums, long long n)
{
    /* blockDim.x floats, sized by the launch below */
    extern __shared__ float partial[];

    /* TODO 2: each thread copies its element of x into partial[threadIdx.x]
     *         (0 for a thread past the end of x, which changes no sum). */

    /* TODO 3: wait until every thread of the block has written its element. */

    /* TODO 4: while more than one value is left (start with blockDim.x), add
     *         the upper half onto the lower half: with `active` values left,
     *         the lower (active + 1) / 2 positions carry over to the next
     *         step, and the upper active / 2 values are added onto the first
     *         active / 2 of them. Think about which threads add, and which
     *         element they add, when active is odd. Wait for the whole block
     *         after each step. */

    /* TODO 5: thread 0 writes the block's sum to block_sums[blockIdx.x]. */
}

void launch_block_sums(const float *d_x, float *d_block_sums, long long n, int threads_per_block)
{
    long long blocks = blocks_for(n, threads_per_block);
    if (blocks < 1)
        return; /* nothing to launch: the checker says what is missing */
    block_sums_tree<<<(unsigned int)blocks, threads_per_block, threads_per_block * sizeof(float)>>>(
        d_x, d_block_sums, n);
    CUDA_CHECK_LAUNCH();
}
