// bug_read_before_wait.cu - pinned memory that a cudaMemcpyAsync still uses, touched by the host
// before it waits for the copy. On a GPU the copy may still be running: the bytes read may be old,
// and bytes written may be sent instead of the old ones. Under the emulator every copy is done when
// cudaMemcpyAsync returns, so the emulator protects those pages until the host waits, and names the
// line that touched them too early.
//
// Run with no argument, every correct use runs and it prints "PASS bug_read_before_wait": a wait of
// each kind (stream, event, device, a stream that waited for the copy's event, a query that
// answered cudaSuccess, a synchronous cudaMemcpy), the bytes of a page that no copy moves, a kernel
// and a host function ordered after the copy in its stream, another copy of the same bytes. With one
// of the arguments below it makes that one mistake, which tests/emu.bats expects to be reported;
// with "pageable" it copies into malloc'd memory in a stream, which the emulator notes once.
#include <cstring>

#include "check.h"

static const char* test_name = "bug_read_before_wait";
constexpr int n = 3 * 1024 + 5;  // floats: some 12 KiB, across pages

__global__ void fill(float* data, int count, float value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] = value + (float)i;
}

// Reads pinned host memory through its device pointer: ordered after the copy in its stream.
__global__ void sum_first(const float* data, int count, float* sum) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float s = 0;
        for (int i = 0; i < count; i++) s += data[i];
        *sum = s;
    }
}

static float* g_host;  // for the host function

static void CUDART_CB check_first(void*) {
    if (g_host[0] != 5.0f) {
        printf("FAIL %s: the host function read %g\n", test_name, g_host[0]);
        exit(1);
    }
}

// The device data, n floats of value + i, copied into h on `stream`: not waited for yet.
static void copy_back(float* h, float* d, float value, cudaStream_t stream) {
    fill<<<(n + 255) / 256, 256, 0, stream>>>(d, n, value);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
}

static void expect_values(const float* h, float value, const char* after) {
    for (int i = 0; i < n; i++)
        EXPECT(h[i] == value + (float)i, "after %s, element %d is %g, not %g", after, i, h[i],
               value + (float)i);
}

int main(int argc, char** argv) {
    const char* mistake = argc > 1 ? argv[1] : "";
    float *h, *d, *d_sum;
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    cudaStream_t stream, other;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamCreate(&other));
    cudaEvent_t copied, passed;
    CHECK(cudaEventCreate(&copied));
    CHECK(cudaEventCreate(&passed));

    if (!strcmp(mistake, "read")) {
        copy_back(h, d, 1.0f, stream);
        printf("first element: %g\n", h[0]);  // BUG: the copy may still be running
        return 0;
    }
    if (!strcmp(mistake, "read-after-query")) {
        copy_back(h, d, 1.0f, stream);
        if (cudaStreamQuery(stream) == cudaErrorNotReady)  // BUG: not ready, read all the same
            printf("last element: %g\n", h[n - 1]);
        return 0;
    }
    if (!strcmp(mistake, "write-source")) {
        for (int i = 0; i < n; i++) h[i] = (float)i;
        CHECK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, stream));
        h[7] = -1.0f;  // BUG: the copy may still be reading it
        CHECK(cudaStreamSynchronize(stream));
        return 0;
    }
    if (!strcmp(mistake, "pageable")) {  // no mistake: a copy that will not overlap on a GPU
        float* pageable = (float*)malloc(n * sizeof(float));
        copy_back(pageable, d, 1.0f, stream);
        copy_back(pageable, d, 2.0f, stream);  // noted once, not twice
        CHECK(cudaStreamSynchronize(stream));
        expect_values(pageable, 2.0f, "copies into pageable memory");
        free(pageable);
        printf("PASS %s\n", test_name);
        return 0;
    }
    if (!strcmp(mistake, "other-stream")) {
        copy_back(h, d, 1.0f, stream);
        CHECK(cudaStreamSynchronize(other));  // BUG: waits for the wrong stream
        printf("element 100: %g\n", h[100]);
        return 0;
    }

    // the waits
    copy_back(h, d, 1.0f, stream);
    CHECK(cudaStreamSynchronize(stream));
    expect_values(h, 1.0f, "cudaStreamSynchronize");

    copy_back(h, d, 2.0f, stream);
    CHECK(cudaEventRecord(copied, stream));
    CHECK(cudaEventSynchronize(copied));
    expect_values(h, 2.0f, "cudaEventSynchronize");

    copy_back(h, d, 3.0f, stream);
    CHECK(cudaDeviceSynchronize());
    expect_values(h, 3.0f, "cudaDeviceSynchronize");

    // another stream that waited for the copy's event: waiting for it waits for the copy too
    copy_back(h, d, 4.0f, stream);
    CHECK(cudaEventRecord(copied, stream));
    CHECK(cudaStreamWaitEvent(other, copied, 0));
    CHECK(cudaEventRecord(passed, other));
    CHECK(cudaEventSynchronize(passed));
    expect_values(h, 4.0f, "a stream that waited for the copy's event");

    // a query that answers cudaSuccess says the copy is done
    copy_back(h, d, 5.0f, stream);
    while (cudaStreamQuery(stream) == cudaErrorNotReady) {
    }
    expect_values(h, 5.0f, "cudaStreamQuery answered cudaSuccess");

    // a kernel and a host function after the copy, in its stream, may use its bytes
    float* d_h;
    CHECK(cudaHostGetDevicePointer((void**)&d_h, h, 0));
    copy_back(h, d, 5.0f, stream);
    sum_first<<<1, 32, 0, stream>>>(d_h, 4, d_sum);
    CHECK(cudaGetLastError());
    g_host = h;
    CHECK(cudaLaunchHostFunc(stream, check_first, nullptr));
    float sum;
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));  // waits for the stream
    EXPECT(sum == 5 + 6 + 7 + 8, "the kernel read a sum of %g", sum);
    expect_values(h, 5.0f, "a synchronous cudaMemcpy");

    // a copy into part of the buffer (16 floats, 4 KiB in): the rest is the host's
    CHECK(cudaMemcpyAsync(h + 1024, d, 16 * sizeof(float), cudaMemcpyDeviceToHost, stream));
    h[0] = 7.0f;          // a page the copy does not touch
    h[1024 + 16] = 7.0f;  // just past the copy's bytes, on its page: the protection lifts
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(h[1024] == 5.0f && h[0] == 7.0f && h[1040] == 7.0f, "a partial copy: %g %g %g", h[1024],
           h[0], h[1040]);

    // a copy from the buffer may read it while another copy from it is in flight
    CHECK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    float first = h[0];  // reading the source of a copy to the device is allowed
    CHECK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, other));
    CHECK(cudaDeviceSynchronize());
    EXPECT(first == 7.0f, "the source read %g", first);

    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    CHECK(cudaFree(d_sum));
    printf("PASS %s\n", test_name);
    return 0;
}
