// cooperative_groups/memcpy_async.h - a group's copy from global to shared memory for the CPU
// emulator (common/emu/): cooperative_groups::memcpy_async, wait and wait_prior.
//
// On a GPU the group's threads start the copy together and go on; wait(group) waits until it has
// arrived and syncs the group, so that each thread sees all of it. Here each thread copies its
// share (16-byte pieces, split by thread_rank()) when it calls memcpy_async, and wait syncs the
// group: a thread that reads the copy before the wait may see it here, and not on a GPU.
#pragma once

#include <cstddef>
#include <cstring>

#include "../cooperative_groups.h"
#include "../cuda_pipeline_primitives.h"  // async_copy_share

#define _CG_MEMCPY_ASYNC_H  // the toolkit's include guard: its own copy is never read

namespace cooperative_groups {
// bytes: a byte count.
template <class Group, class T, class Size>
void memcpy_async(const Group& group, T* dst, const T* src, const Size& bytes) {
    ::cuda_emu::async_copy_share(group.thread_rank(), group.size(), dst, src, (size_t)bytes);
}
// Counts of elements: as many as the smaller.
template <class Group, class T>
void memcpy_async(const Group& group, T* dst, size_t dst_count, const T* src, size_t src_count) {
    size_t count = dst_count < src_count ? dst_count : src_count;
    ::cuda_emu::async_copy_share(group.thread_rank(), group.size(), dst, src, count * sizeof(T));
}
template <class Group>
void wait(const Group& group) {
    group.sync();
}
template <unsigned Batches, class Group>
void wait_prior(const Group& group) {
    group.sync();
}
}  // namespace cooperative_groups
