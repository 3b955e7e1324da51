// clock_wait.cu - a kernel that waits a number of cycles, as NVIDIA's samples do to make work
// that takes a known time: clock() and clock64() count at the clock rate the device reports, so
// waiting 20 ms x that rate takes 20 ms, not seconds or nothing.
#include <chrono>
#include <ctime>

#include "check.h"

static const char* test_name = "clock_wait";

__global__ void wait_cycles(long long cycles, long long* waited_clock, long long* waited_clock64) {
    // clock64's span starts first and ends last, so it holds clock's span: a thread switched out
    // between the two reads (on a loaded machine) cannot make clock64 see fewer cycles
    long long start64 = clock64();
    clock_t start = clock();
    while ((long long)(clock() - start) < cycles) {
    }
    *waited_clock = (long long)(clock() - start);
    *waited_clock64 = clock64() - start64;
}

int main() {
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const double wait_ms = 20.0;
    long long cycles = (long long)(wait_ms * clock_khz);
    long long *d_waited, h_waited[2];
    CHECK(cudaMalloc(&d_waited, 2 * sizeof(long long)));
    auto begin = std::chrono::steady_clock::now();
    wait_cycles<<<1, 1>>>(cycles, d_waited, d_waited + 1);
    CHECK(cudaDeviceSynchronize());
    double elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    CHECK(cudaMemcpy(h_waited, d_waited, sizeof h_waited, cudaMemcpyDeviceToHost));
    EXPECT(h_waited[0] >= cycles, "clock() waited %lld of %lld cycles", h_waited[0], cycles);
    EXPECT(h_waited[1] >= cycles, "clock64() saw %lld cycles, clock() %lld", h_waited[1],
           h_waited[0]);
    // generous: the point is milliseconds, not the seconds a wrong clock rate would give
    EXPECT(elapsed_ms >= wait_ms && elapsed_ms < 100 * wait_ms,
           "waiting %.0f ms of cycles took %.1f ms", wait_ms, elapsed_ms);
    CHECK(cudaFree(d_waited));
    return pass(test_name);
}
