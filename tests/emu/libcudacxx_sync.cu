// libcudacxx_sync.cu - libcu++'s latches, semaphores and barriers with a completion function.
//  - A block's latch in shared memory: each thread writes its slot and counts down; after the
//    wait, every thread reads every slot.
//  - A device-wide latch in global memory, counted down by every block of a cooperative launch.
//  - A binary semaphore as a lock around a plain counter in shared memory (not named as a race by
//    --sanitize), and a counting semaphore that lets at most 4 threads in at once; try_acquire
//    and try_acquire_for on a semaphore with no permits.
//  - cuda::std::barrier with a completion function that, once per phase, moves the phase's sum
//    into a table, before any thread resumes.
// Argument `double-release` releases a binary semaphore twice (a device-side assert at that
// line); `two-blocks` and `both-counted` have the threads of two blocks use one barrier, which
// the emulator refuses with a message (see barrier_of_two_blocks).
#include <cuda/barrier>
#include <cuda/latch>
#include <cuda/semaphore>
#include <cuda/std/barrier>
#include <cuda/std/latch>
#include <cuda/std/semaphore>
#include <cstring>
#include <new>

#include "check.h"

static const char* test_name = "libcudacxx_sync";
constexpr int threads = 128, phases = 3, blocks = 3;

struct Results {
    int latch_sum_errors;     // threads that saw a slot not yet written after the latch's wait
    int counter;              // counted under the binary semaphore
    int most_inside_lock;     // the most threads inside the binary semaphore at once
    int most_inside_four;     // ... inside the counting semaphore of 4
    int try_acquire_results;  // bit 0: try_acquire on no permits; bit 1: try_acquire_for
    int phase_sums[phases];   // the completion function's table
    int completions;          // how many times it ran
    int device_latch_errors;  // blocks that passed the device latch before every block counted down
};

// Placement new in shared memory: a latch and semaphores have constructors, which a __shared__
// variable may not run, so one thread constructs them in raw storage.
__global__ void latch_and_semaphores(Results* results) {
    __shared__ alignas(16) unsigned char latch_storage[sizeof(cuda::latch<cuda::thread_scope_block>)];
    __shared__ alignas(16) unsigned char lock_storage[sizeof(cuda::binary_semaphore<cuda::thread_scope_block>)];
    __shared__ alignas(16) unsigned char four_storage[sizeof(cuda::counting_semaphore<cuda::thread_scope_block, 4>)];
    __shared__ alignas(16) unsigned char none_storage[sizeof(cuda::std::binary_semaphore)];
    __shared__ int slots[threads];
    __shared__ int inside_lock, inside_four, counted;
    auto* arrived = reinterpret_cast<cuda::latch<cuda::thread_scope_block>*>(latch_storage);
    auto* lock = reinterpret_cast<cuda::binary_semaphore<cuda::thread_scope_block>*>(lock_storage);
    auto* four = reinterpret_cast<cuda::counting_semaphore<cuda::thread_scope_block, 4>*>(four_storage);
    auto* none = reinterpret_cast<cuda::std::binary_semaphore*>(none_storage);
    if (threadIdx.x == 0) {
        new (arrived) cuda::latch<cuda::thread_scope_block>(blockDim.x);
        new (lock) cuda::binary_semaphore<cuda::thread_scope_block>(1);
        new (four) cuda::counting_semaphore<cuda::thread_scope_block, 4>(4);
        new (none) cuda::std::binary_semaphore(0);
        inside_lock = inside_four = counted = 0;
    }
    __syncthreads();

    slots[threadIdx.x] = (int)threadIdx.x + 1;
    arrived->arrive_and_wait();
    int errors = 0;
    for (int t = 0; t < (int)blockDim.x; t++) errors += slots[t] != t + 1;
    if (errors) atomicAdd(&results->latch_sum_errors, 1);

    lock->acquire();
    int now_inside = atomicAdd(&inside_lock, 1) + 1;
    atomicMax(&results->most_inside_lock, now_inside);
    counted += 1;  // plain, not atomic: the semaphore makes it safe
    atomicSub(&inside_lock, 1);
    lock->release();

    four->acquire();
    now_inside = atomicAdd(&inside_four, 1) + 1;
    atomicMax(&results->most_inside_four, now_inside);
    __nanosleep(100);  // stay a while, so that others find the permits taken
    atomicSub(&inside_four, 1);
    four->release();

    __syncthreads();
    if (threadIdx.x == 0) {
        results->counter = counted;
        int found = none->try_acquire() ? 0 : 1;
        found |= none->try_acquire_for(cuda::std::chrono::microseconds(200)) ? 0 : 2;
        results->try_acquire_results = found;
    }
}

// The completion function runs once per phase, in the last thread to arrive: it moves the
// phase's sum into the table and clears it for the next phase.
struct MoveSum {
    int* sum;
    Results* results;
    void operator()() noexcept {
        results->phase_sums[results->completions++] = *sum;
        *sum = 0;
    }
};

// cuda::barrier with init(), and C++20's cuda::std::barrier, made in place with its count; the
// phases alternate between the two.
#pragma nv_diag_suppress static_var_with_dynamic_init
__global__ void barrier_with_completion(Results* results) {
    __shared__ cuda::barrier<cuda::thread_scope_block, MoveSum> odd;
    __shared__ alignas(16) unsigned char even_storage[sizeof(cuda::std::barrier<MoveSum>)];
    __shared__ int sum;
    auto* even = reinterpret_cast<cuda::std::barrier<MoveSum>*>(even_storage);
    if (threadIdx.x == 0) {
        sum = 0;
        init(&odd, blockDim.x, MoveSum{&sum, results});
        new (even) cuda::std::barrier<MoveSum>(blockDim.x, MoveSum{&sum, results});
    }
    __syncthreads();
    for (int phase = 0; phase < phases; phase++) {
        atomicAdd(&sum, (phase + 1) * (int)threadIdx.x);
        if (phase % 2 == 0)
            even->arrive_and_wait();
        else
            odd.arrive_and_wait();
        // the completion ran before anyone resumed: the table holds this phase's sum
        if (results->completions != phase + 1) atomicAdd(&results->latch_sum_errors, 1000);
    }
}

// The latch lies in global memory, made on the host and copied there.
using DeviceLatch = cuda::latch<cuda::thread_scope_device>;
__device__ int blocks_counted;

__global__ void device_latch(DeviceLatch* blocks_arrived, Results* results) {
    if (threadIdx.x == 0) {
        atomicAdd(&blocks_counted, 1);
        blocks_arrived->count_down();
        blocks_arrived->wait();
        if (atomicAdd(&blocks_counted, 0) != blocks) atomicAdd(&results->device_latch_errors, 1);
    }
}

__global__ void release_twice() {
    __shared__ alignas(16) unsigned char storage[sizeof(cuda::binary_semaphore<cuda::thread_scope_block>)];
    auto* lock = reinterpret_cast<cuda::binary_semaphore<cuda::thread_scope_block>*>(storage);
    if (threadIdx.x == 0) {
        new (lock) cuda::binary_semaphore<cuda::thread_scope_block>(1);
        lock->acquire();
        lock->release();
        lock->release();  // the bug: a second release, so that two threads could hold it
    }
}

// A barrier of the device's scope in global memory, set up by block 0 for `count` arrivals, at
// which the threads of both blocks arrive. The emulator runs one block's threads together, so it
// refuses a barrier that two blocks use (count = one block's threads: block 0 passes, block 1
// arrives at a barrier block 0 used) and cannot end a phase that expects more arrivals than a
// block has (count = both blocks' threads).
__device__ cuda::barrier<cuda::thread_scope_device> shared_by_blocks;

__global__ void barrier_of_two_blocks(int count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) init(&shared_by_blocks, count);
    __syncthreads();
    shared_by_blocks.arrive_and_wait();
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "double-release") == 0) {
        release_twice<<<1, 32>>>();
        cudaDeviceSynchronize();
        return 1;  // not reached under the emulator: the assert ends the program
    }
    if (argc > 1 && (strcmp(argv[1], "two-blocks") == 0 || strcmp(argv[1], "both-counted") == 0)) {
        barrier_of_two_blocks<<<2, 32>>>(strcmp(argv[1], "two-blocks") == 0 ? 32 : 64);
        cudaDeviceSynchronize();
        return 1;
    }
    Results* d_results;
    Results h;
    CHECK(cudaMalloc(&d_results, sizeof h));
    CHECK(cudaMemset(d_results, 0, sizeof h));
    latch_and_semaphores<<<1, threads>>>(d_results);
    CHECK(cudaGetLastError());
    barrier_with_completion<<<1, threads>>>(d_results);
    CHECK(cudaGetLastError());
    alignas(16) unsigned char h_latch[sizeof(DeviceLatch)];
    new (h_latch) DeviceLatch(blocks);
    DeviceLatch* d_latch;
    CHECK(cudaMalloc(&d_latch, sizeof(DeviceLatch)));
    CHECK(cudaMemcpy(d_latch, h_latch, sizeof(DeviceLatch), cudaMemcpyHostToDevice));
    void* args[] = {&d_latch, &d_results};
    CHECK(cudaLaunchCooperativeKernel((void*)device_latch, blocks, 32, args));
    CHECK(cudaMemcpy(&h, d_results, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h.latch_sum_errors == 0, "%d thread(s) passed the latch before every slot was written, or resumed "
           "from the barrier before its completion", h.latch_sum_errors);
    EXPECT(h.counter == threads, "the counter under the lock is %d, not %d", h.counter, threads);
    EXPECT(h.most_inside_lock == 1, "%d threads held the binary semaphore at once", h.most_inside_lock);
    EXPECT(h.most_inside_four >= 1 && h.most_inside_four <= 4, "%d threads held the semaphore of 4 at once",
           h.most_inside_four);
    EXPECT(h.try_acquire_results == 3, "try_acquire and try_acquire_for on no permits gave %d, not 3",
           h.try_acquire_results);
    EXPECT(h.completions == phases, "the completion function ran %d times in %d phases", h.completions, phases);
    for (int phase = 0; phase < phases; phase++) {
        int expected = (phase + 1) * threads * (threads - 1) / 2;
        EXPECT(h.phase_sums[phase] == expected, "phase %d's sum is %d, not %d", phase, h.phase_sums[phase], expected);
    }
    EXPECT(h.device_latch_errors == 0, "%d block(s) passed the device latch early", h.device_latch_errors);
    CHECK(cudaFree(d_results));
    CHECK(cudaFree(d_latch));
    return pass(test_name);
}
