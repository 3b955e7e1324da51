// labeled_reduce.cu - warp-aggregated atomics by bucket, as in NVIDIA's warpAggregatedAtomicsCG:
// in a grid-stride loop, the lanes whose element falls in a bucket take a branch; there
// coalesced_threads() holds them, labeled_partition(group, bucket) splits them by bucket, and each
// part's rank 0 makes the one atomicAdd for its part and passes the old value on with shfl; then
// cg::reduce over the part (greater, less, plus) and one atomicMax per part. Known answers: every
// bucket's count, every slot taken exactly once by an element of its bucket, every bucket's
// largest value; and each part holds lanes of one warp with one bucket, ranked 0 to size - 1,
// which agree on its size and its reductions.
//
// labeled_partition needs compute capability 7.0 (__match_any_sync), so, as in that sample, the
// device code is behind #if __CUDA_ARCH__ >= 700: emucc must define __CUDA_ARCH__ as nvcc's
// device pass does, or the kernel does nothing.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "labeled_reduce";
constexpr int elements = 1000, buckets = 5, blocks = 3, threads = 96;

// Labels 0 to 6: the elements labelled 5 and 6 belong to no bucket and skip the branch.
__host__ __device__ int label_of(int i) { return (i * 7 + i / 13) % 7; }
__host__ __device__ int value_of(int i) { return (i * 7919) % 1009; }

struct PartFigures {
    int size, rank, largest, smallest, sum;
    int first;  // the element of the part's rank 0
};

#if __CUDA_ARCH__ >= 700
// The part's old counter value plus this thread's rank: a slot of its own in the bucket's range.
__device__ int take_slot(cg::coalesced_group& part, int* counter) {
    int old = 0;
    if (part.thread_rank() == 0) old = atomicAdd(counter, (int)part.size());
    return part.shfl(old, 0) + (int)part.thread_rank();
}
#endif

__global__ void sort_into_buckets(int* slots, int* counters, int* largest, PartFigures* parts) {
#if __CUDA_ARCH__ >= 700
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += gridDim.x * blockDim.x) {
        int bucket = label_of(i);
        if (bucket < buckets) {
            cg::coalesced_group active = cg::coalesced_threads();
            cg::coalesced_group part = cg::labeled_partition(active, bucket);
            slots[take_slot(part, &counters[bucket])] = i;
            int v = value_of(i);
            int part_largest = cg::reduce(part, v, cg::greater<int>());
            if (part.thread_rank() == 0) atomicMax(&largest[bucket], part_largest);
            parts[i] = PartFigures{(int)part.size(), (int)part.thread_rank(), part_largest,
                                   cg::reduce(part, v, cg::less<int>()),
                                   cg::reduce(part, v, cg::plus<int>()), part.shfl(i, 0)};
        }
    }
#endif
}

int main() {
    int *d_slots, *d_counters, *d_largest;
    PartFigures* d_parts;
    CHECK(cudaMalloc(&d_slots, buckets * elements * sizeof(int)));
    CHECK(cudaMalloc(&d_counters, buckets * sizeof(int)));
    CHECK(cudaMalloc(&d_largest, buckets * sizeof(int)));
    CHECK(cudaMalloc(&d_parts, elements * sizeof(PartFigures)));
    int h_counters[buckets];
    for (int b = 0; b < buckets; b++) h_counters[b] = b * elements;  // bucket b's slots start here
    CHECK(cudaMemcpy(d_counters, h_counters, sizeof h_counters, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_slots, 0xff, buckets * elements * sizeof(int)));
    CHECK(cudaMemset(d_largest, 0, buckets * sizeof(int)));
    CHECK(cudaMemset(d_parts, 0xff, elements * sizeof(PartFigures)));
    sort_into_buckets<<<blocks, threads>>>(d_slots, d_counters, d_largest, d_parts);
    CHECK(cudaGetLastError());
    static int h_slots[buckets * elements];
    static PartFigures h_parts[elements];
    int h_largest[buckets];
    CHECK(cudaMemcpy(h_slots, d_slots, sizeof h_slots, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_counters, d_counters, sizeof h_counters, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_largest, d_largest, sizeof h_largest, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_parts, d_parts, sizeof h_parts, cudaMemcpyDeviceToHost));

    int count[buckets] = {}, expected_largest[buckets] = {};
    for (int i = 0; i < elements; i++) {
        int b = label_of(i);
        if (b >= buckets) continue;
        count[b]++;
        if (value_of(i) > expected_largest[b]) expected_largest[b] = value_of(i);
    }
    static bool slot_seen[elements];
    for (int b = 0; b < buckets; b++) {
        EXPECT(h_counters[b] == b * elements + count[b], "bucket %d: counter %d, expected %d", b,
               h_counters[b], b * elements + count[b]);
        EXPECT(h_largest[b] == expected_largest[b], "bucket %d: largest %d, expected %d", b,
               h_largest[b], expected_largest[b]);
        for (int s = 0; s < elements; s++) {
            int i = h_slots[b * elements + s];
            if (s >= count[b]) {
                EXPECT(i == -1, "bucket %d: slot %d past its count holds %d", b, s, i);
                continue;
            }
            EXPECT(i >= 0 && i < elements && label_of(i) == b && !slot_seen[i],
                   "bucket %d: slot %d holds %d, not an element of the bucket placed once", b, s, i);
            slot_seen[i] = true;
        }
    }
    // Each element's part: which lanes of a warp are converged is not promised (the emulator lets
    // lanes from a later trip round the loop join), but the part's rank 0 names it, and its
    // members all have its bucket, are lanes of one warp, hold ranks 0 to size - 1 and agree on
    // the reductions of their values.
    static PartFigures expected[elements];  // by the element of the part's rank 0
    static unsigned ranks_seen[elements];
    for (int i = 0; i < elements; i++) expected[i] = PartFigures{0, 0, -1, 1 << 30, 0, -1};
    for (int i = 0; i < elements; i++) {
        const PartFigures& got = h_parts[i];
        if (label_of(i) >= buckets) {
            EXPECT(got.size == -1, "element %d is in no bucket but has a part", i);
            continue;
        }
        int first = got.first;
        EXPECT(first >= 0 && first < elements && label_of(first) == label_of(i) &&
                   first % (blocks * threads) / 32 == i % (blocks * threads) / 32,
               "element %d (bucket %d): its part's rank 0 is element %d, not one of its warp's "
               "with its bucket", i, label_of(i), first);
        EXPECT(got.rank >= 0 && got.rank < 32 && !(ranks_seen[first] >> got.rank & 1),
               "element %d: rank %d in its part, which another member has too", i, got.rank);
        ranks_seen[first] |= 1u << got.rank;
        PartFigures& e = expected[first];
        int v = value_of(i);
        e.largest = v > e.largest ? v : e.largest;
        e.smallest = v < e.smallest ? v : e.smallest;
        e.sum += v;
        e.size++;
    }
    for (int i = 0; i < elements; i++) {
        if (label_of(i) >= buckets) continue;
        const PartFigures& got = h_parts[i];
        const PartFigures& e = expected[got.first];
        EXPECT(got.size == e.size && got.rank < e.size,
               "element %d (bucket %d): part size %d rank %d, but the part has %d members", i,
               label_of(i), got.size, got.rank, e.size);
        EXPECT(got.largest == e.largest && got.smallest == e.smallest && got.sum == e.sum,
               "element %d (bucket %d): reduce greater %d less %d plus %d, expected %d %d %d", i,
               label_of(i), got.largest, got.smallest, got.sum, e.largest, e.smallest, e.sum);
    }
    CHECK(cudaFree(d_slots));
    CHECK(cudaFree(d_counters));
    CHECK(cudaFree(d_largest));
    CHECK(cudaFree(d_parts));
    return pass(test_name);
}
