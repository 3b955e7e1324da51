// spin_wait.cu - threads of one block that wait for each other by spinning, correctly: with
// __nanosleep() in the loop. A thread waits for a flag another warp sets, and every thread
// takes a lock in shared memory (atomicCAS) to add to a total, sleeping inside it so that the
// others find it taken. On a GPU, independent thread scheduling (Volta and later) lets the thread
// that is waited for run meanwhile; in the emulator, whose threads take turns, __nanosleep()
// gives way to them. (bug_spin_wait.cu spins without it.)
#include "check.h"

static const char* test_name = "spin_wait";
constexpr int threads = 96;

__global__ void handshake_and_lock(int* out) {
    __shared__ int flag, lock, total, holders, most_holders;
    if (threadIdx.x == 0) flag = lock = total = holders = most_holders = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        while (atomicAdd(&flag, 0) == 0) __nanosleep(100);  // thread 65 sets it
        out[1] = 1;
    }
    if (threadIdx.x == 65) atomicExch(&flag, 1);
    while (atomicCAS(&lock, 0, 1) != 0) __nanosleep(32);  // the lock is taken: try again later
    int inside = atomicAdd(&holders, 1) + 1;
    atomicMax(&most_holders, inside);
    __nanosleep(32);  // work inside the lock, during which the others find it taken
    total += threadIdx.x;
    atomicSub(&holders, 1);
    __threadfence_block();  // the total is written before the lock is seen free
    atomicExch(&lock, 0);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[0] = total;
        out[2] = most_holders;
    }
}

int main() {
    int* d_out;
    int h_out[3];
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemset(d_out, 0, sizeof h_out));
    handshake_and_lock<<<1, threads>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    EXPECT(h_out[1] == 1, "thread 0 never saw the flag");
    EXPECT(h_out[0] == threads * (threads - 1) / 2, "total %d under the lock, expected %d", h_out[0],
           threads * (threads - 1) / 2);
    EXPECT(h_out[2] == 1, "%d threads held the lock at once", h_out[2]);
    CHECK(cudaFree(d_out));
    return pass(test_name);
}
