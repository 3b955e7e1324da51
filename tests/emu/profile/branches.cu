// branches.cu - the branch conditions emucc --profile counts, in the forms C++ writes them, for
// tests/profile.bats: if and while conditions of device code are counted (else if, do ... while,
// conditions with parentheses, strings and comments inside, conditions in a __device__ function);
// if constexpr, a preprocessor #if and host code are left as they are. One warp of 32 threads.
#include "../check.h"

static const char* test_name = "profile_branches";

// Lane t loops t % 4 + 1 times, so the loop's condition is
// reached 1 to 5 times by each lane, and lanes leave it at 4 different visits.
__device__ int steps(unsigned lane) {
    int count = 0;
    while (count < (int)(lane % 4) + 1) count++;
    return count;
}

template <bool kCount>
__global__ void forms(int* out) {
    unsigned lane = threadIdx.x;
    int value = 0;
    if constexpr (kCount) value = 1;  // a compile-time choice: no branch
#if (1)
    value += 1;
#endif
    if /* a comment */ ((lane & 1) == 0 && (lane < 16 || lane > 24))  // divergent
        value += 2;
    else if (lane == 99)  // reached by the other lanes; none takes it: uniform
        value += 100;
    if (sizeof("if (") == 5) value += 4;  // a string with "if (" inside: uniform
    int rounds = 0;
    do {
        rounds++;
    } while (rounds < 2);  // uniform, twice
    value += steps(lane);
    out[lane] = value;
}

int main() {
    int* out;
    CHECK(cudaMalloc(&out, 32 * sizeof(int)));
    forms<true><<<1, 32>>>(out);
    CHECK(cudaGetLastError());
    int host[32];
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    for (int lane = 0; lane < 32; lane++) {
        int expected = 1 + 1 + ((lane & 1) == 0 && (lane < 16 || lane > 24) ? 2 : 0) + 4 + lane % 4 + 1;
        // host code: a C++17 if with an initializer, which a wrapped condition would break
        if (int got = host[lane]; got != expected) {
            printf("FAIL %s: lane %d has %d, expected %d\n", test_name, lane, got, expected);
            return 1;
        }
    }
    printf("PASS %s\n", test_name);
    return 0;
}
