// atomics.cu - every atomic the course uses is atomic across blocks that run on different cores:
// 509 blocks (a prime) of 128 threads hammer the same few addresses, and each result is compared
// with what any serial order would give.
#include "check.h"

static const char* test_name = "atomics";
constexpr int blocks = 509;
constexpr int threads = 128;
constexpr int total = blocks * threads;

struct Counters {
    int add_int, sub_int, min_int, max_int, exch_int, cas_count;
    unsigned add_uint, and_uint, or_uint, xor_uint, inc_uint, dec_uint;
    unsigned long long add_ull, cas_ull;
    float add_float;
    double add_double;
};

__global__ void hammer(Counters* c) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&c->add_int, 2);
    atomicSub(&c->sub_int, 3);
    atomicMin(&c->min_int, 1000 - id);
    atomicMax(&c->max_int, id);
    atomicExch(&c->exch_int, 7);
    atomicAdd(&c->add_uint, 1u);
    atomicAnd(&c->and_uint, ~(1u << (id % 31)));  // clears bits 0..30, never bit 31
    atomicOr(&c->or_uint, 1u << (id % 32));
    atomicXor(&c->xor_uint, 1u << (id % 4));
    atomicInc(&c->inc_uint, 99u);   // counts modulo 100
    atomicDec(&c->dec_uint, 49u);   // counts down modulo 50
    atomicAdd(&c->add_ull, 1000000007ull);
    atomicAdd(&c->add_float, 0.5f);  // exact: sums of halves stay integers + .5 below 2^24
    atomicAdd(&c->add_double, 0.25);
    // A CAS loop that increments: the classic way to build any atomic from atomicCAS.
    unsigned long long old = c->cas_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(&c->cas_ull, assumed, assumed + 1);
    } while (old != assumed);
    if (atomicCAS(&c->cas_count, 0, 1) == 0) atomicAdd(&c->cas_count, 10);  // exactly one winner
}

int main() {
    Counters h = {};
    h.min_int = 1 << 30;
    h.max_int = -1;
    h.and_uint = 0xffffffffu;
    Counters* d;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
    hammer<<<blocks, threads>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h.add_int == 2 * total, "atomicAdd(int) = %d", h.add_int);
    EXPECT(h.sub_int == -3 * total, "atomicSub(int) = %d", h.sub_int);
    EXPECT(h.min_int == 1000 - (total - 1), "atomicMin = %d", h.min_int);
    EXPECT(h.max_int == total - 1, "atomicMax = %d", h.max_int);
    EXPECT(h.exch_int == 7, "atomicExch = %d", h.exch_int);
    EXPECT(h.add_uint == (unsigned)total, "atomicAdd(unsigned) = %u", h.add_uint);
    EXPECT(h.and_uint == 0x80000000u, "atomicAnd = %08x", h.and_uint);
    EXPECT(h.or_uint == 0xffffffffu, "atomicOr = %08x", h.or_uint);
    EXPECT(h.xor_uint == 0u, "atomicXor = %08x", h.xor_uint);  // each bit flipped total/4 times, even
    EXPECT(h.inc_uint == (unsigned)(total % 100), "atomicInc = %u", h.inc_uint);
    EXPECT(h.dec_uint == (unsigned)((50 - total % 50) % 50), "atomicDec = %u", h.dec_uint);
    EXPECT(h.add_ull == 1000000007ull * total, "atomicAdd(unsigned long long) = %llu", h.add_ull);
    EXPECT(h.add_float == 0.5f * total, "atomicAdd(float) = %f", h.add_float);
    EXPECT(h.add_double == 0.25 * total, "atomicAdd(double) = %f", h.add_double);
    EXPECT(h.cas_ull == (unsigned long long)total, "atomicCAS loop = %llu", h.cas_ull);
    EXPECT(h.cas_count == 11, "atomicCAS winner count = %d", h.cas_count);
    CHECK(cudaFree(d));
    return pass(test_name);
}
