// constant_memory.cu - __constant__ and __device__ variables work with cudaMemcpyToSymbol and
// cudaMemcpyFromSymbol (with an offset), and an out-of-range copy is refused.
#include "check.h"

static const char* test_name = "constant_memory";
constexpr int taps = 5;
constexpr int n = 1031;  // prime

__constant__ float weights[taps];
__device__ int launches_seen;

__global__ void filter(const float* in, float* out, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) launches_seen += 1;
    if (i >= count) return;
    float sum = 0;
    for (int k = 0; k < taps; k++) {
        int j = i + k - taps / 2;
        if (j >= 0 && j < count) sum += weights[k] * in[j];
    }
    out[i] = sum;
}

int main() {
    const float h_weights[taps] = {1, 2, 3, 2, 1};
    CHECK(cudaMemcpyToSymbol(weights, h_weights, sizeof h_weights));
    float back[2];
    CHECK(cudaMemcpyFromSymbol(back, weights, sizeof back, 2 * sizeof(float)));
    EXPECT(back[0] == 3 && back[1] == 2, "read back with offset: %g %g", back[0], back[1]);
    EXPECT(cudaMemcpyToSymbol(weights, h_weights, sizeof h_weights, sizeof(float)) == cudaErrorInvalidValue,
           "copy past the end of a symbol was accepted");
    CHECK(cudaGetLastError() == cudaErrorInvalidValue ? cudaSuccess : cudaErrorUnknown);
    int zero = 0;
    CHECK(cudaMemcpyToSymbol(launches_seen, &zero, sizeof zero));

    float h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = (float)(i % 13);
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    for (int launch = 0; launch < 2; launch++) {
        filter<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float expected = 0;
        for (int k = 0; k < taps; k++) {
            int j = i + k - taps / 2;
            if (j >= 0 && j < n) expected += h_weights[k] * h_in[j];
        }
        EXPECT(h_out[i] == expected, "out[%d] = %g, expected %g", i, h_out[i], expected);
    }
    int seen = 0;
    CHECK(cudaMemcpyFromSymbol(&seen, launches_seen, sizeof seen));
    EXPECT(seen == 2, "__device__ counter = %d, expected 2", seen);
    return pass(test_name);
}
