// runtime/texture.cpp - CUDA arrays, texture objects and the texture unit, on the CPU.
//
// Part of the CPU emulation backend (common/emu/); the declarations are in include/cuda_emu/texture.h.
// A fetch follows the CUDA C Programming Guide's texture fetching rules, for each dimension of
// size N (texels) and coordinate x:
//   - With normalized coordinates, x counts in texture widths: the texel coordinate is x * N.
//   - Point filtering returns texel floor(x).
//   - Linear filtering blends the two nearest texels: with x_B = x - 0.5, i = floor(x_B) and
//     alpha = frac(x_B), it returns (1 - alpha) T[i] + alpha T[i + 1] (in 2-D, the four nearest,
//     with beta along y). The GPU keeps alpha in 9-bit fixed point with 8 fractional bits, so
//     blends come in steps of 1/256; so do they here.
//   - An index outside 0..N-1 is resolved by the address mode: clamp to the nearest edge texel,
//     wrap around (i mod N), mirror back and forth, or border: the texel is the border colour.
//     Wrap and mirror need normalized coordinates; with texel coordinates they act as clamp.
//   - Integer texels of 8 or 16 bits read in cudaReadModeNormalizedFloat become floats: unsigned
//     ones value / (2^bits - 1) in [0, 1], signed ones value / (2^(bits-1) - 1), at least -1.
//     Filtering needs floats: float texels, or integers read as normalized floats.
//   - tex1Dfetch reads linear memory by index, with no filtering; past either end it returns 0.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "../include/cuda_fp16.h"
#include "internal.h"

// The type behind cudaArray_t, which CUDA keeps opaque: texels row after row, slice after slice,
// with no padding.
struct cudaArray {
    cudaChannelFormatDesc format;
    size_t width, height, depth;  // a 1-D array has one row, a 1-D or 2-D array one slice
    size_t texel_bytes;
    char* data;
};

namespace cuda_emu {
namespace {

cudaError_t fail(cudaError_t error) {
    set_last_error(error);
    return error;
}

// The bytes of a texel of this format, or 0 when the format is not one a texture can have: 1, 2
// or 4 channels of the same width, 8, 16 or 32 bits of integers, or 16 or 32 bits of floats.
size_t texel_bytes(const cudaChannelFormatDesc& f) {
    int bits = f.x;
    int channels = 1 + (f.y != 0) + (f.z != 0) + (f.w != 0);
    bool same = (f.y == 0 || f.y == bits) && (f.z == 0 || f.z == bits) && (f.w == 0 || f.w == bits);
    bool in_order = (f.z == 0 || f.y != 0) && (f.w == 0 || f.z != 0);
    bool integer = f.f == cudaChannelFormatKindSigned || f.f == cudaChannelFormatKindUnsigned;
    bool width_ok = integer ? (bits == 8 || bits == 16 || bits == 32)
                            : f.f == cudaChannelFormatKindFloat && (bits == 16 || bits == 32);
    if (!same || !in_order || !width_ok || channels == 3) return 0;
    return (size_t)channels * bits / 8;
}

int channel_count(const cudaChannelFormatDesc& f) { return 1 + (f.y != 0) + (f.z != 0) + (f.w != 0); }

struct Texture {
    cudaResourceDesc resource;  // as given, for cudaGetTextureObjectResourceDesc
    cudaTextureDesc desc;
    cudaTextureAddressMode address[3];  // the modes in effect (see cudaCreateTextureObject)
    const char* data;
    size_t width, height, depth, pitch, slice_pitch;
    cudaChannelFormatDesc format;
    int channels;
    bool normalize;  // 8- or 16-bit integers read as normalized floats
};

// The index along a dimension of n texels that index i resolves to, or -1 for the border.
long address(long i, long n, cudaTextureAddressMode mode) {
    switch (mode) {
        case cudaAddressModeWrap:
            i %= n;
            return i < 0 ? i + n : i;
        case cudaAddressModeMirror: {
            long m = i % (2 * n);
            if (m < 0) m += 2 * n;
            return m < n ? m : 2 * n - 1 - m;
        }
        case cudaAddressModeBorder: return i < 0 || i >= n ? -1 : i;
        default: return i < 0 ? 0 : (i >= n ? n - 1 : i);
    }
}

// The components of texel (i, j, k), read as the texture's read mode says.
void read_texel(const Texture& t, long i, long j, long k, double out[4]) {
    const char* texel =
        t.data + (size_t)k * t.slice_pitch + (size_t)j * t.pitch + (size_t)i * (t.format.x / 8) * t.channels;
    int bits = t.format.x;
    for (int c = 0; c < 4; c++) {
        if (c >= t.channels) {
            out[c] = 0;
            continue;
        }
        const char* p = texel + c * (bits / 8);
        double value = 0;
        if (t.format.f == cudaChannelFormatKindFloat) {
            if (bits == 16) {
                unsigned short h;
                memcpy(&h, p, 2);
                value = half_bits_to_float(h);
            } else {
                float f;
                memcpy(&f, p, 4);
                value = f;
            }
        } else if (t.format.f == cudaChannelFormatKindSigned) {
            if (bits == 8) value = *(const signed char*)p;
            if (bits == 16) { short s; memcpy(&s, p, 2); value = s; }
            if (bits == 32) { int s; memcpy(&s, p, 4); value = s; }
        } else {
            if (bits == 8) value = *(const unsigned char*)p;
            if (bits == 16) { unsigned short u; memcpy(&u, p, 2); value = u; }
            if (bits == 32) { unsigned u; memcpy(&u, p, 4); value = u; }
        }
        if (t.normalize) {
            // As floats, the type a GPU returns them in.
            float largest = t.format.f == cudaChannelFormatKindSigned ? (float)((1 << (bits - 1)) - 1)
                                                                      : (float)((1 << bits) - 1);
            value = std::fmax((float)value / largest, -1.0f);
        }
        out[c] = value;
    }
}

// Texel (i, j, k) after the address modes, or the border colour.
void texel_or_border(const Texture& t, long i, long j, long k, double out[4]) {
    long x = address(i, (long)t.width, t.address[0]);
    long y = address(j, (long)t.height, t.address[1]);
    long z = address(k, (long)t.depth, t.address[2]);
    if (x < 0 || y < 0 || z < 0) {
        for (int c = 0; c < 4; c++) out[c] = t.desc.borderColor[c];
        return;
    }
    read_texel(t, x, y, z, out);
}

const Texture& texture_of(cudaTextureObject_t handle, const char* what) {
    if (!handle) fatal("%s with texture object 0, which no cudaCreateTextureObject made", what);
    return *reinterpret_cast<const Texture*>(handle);
}

// A texel coordinate as a float, kept where floor() still fits a long.
double texel_coordinate(float x, size_t n, bool normalized) {
    double c = normalized ? (double)x * (double)n : (double)x;
    if (std::isnan(c)) return 0;
    return std::fmin(std::fmax(c, -1e15), 1e15);
}

cudaError_t copy_rows(char* dst, size_t dpitch, const char* src, size_t spitch, size_t width,
                      size_t height, const char* device_side, size_t device_bytes) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!dst || !src || width > dpitch || width > spitch) return fail(cudaErrorInvalidValue);
    // The side that is not the array must be a device allocation when the kind says so.
    if (device_side && height > 0 && !device_range_ok(device_side, device_bytes))
        return fail(cudaErrorInvalidValue);
    EmulatorAccess copying;  // pinned memory that a copy in flight holds is the emulator's to move
    for (size_t row = 0; row < height; row++) memmove(dst + row * dpitch, src + row * spitch, width);
    return cudaSuccess;
}

}  // namespace

void texture_fetch_index(cudaTextureObject_t handle, int i, double out[4]) {
    const Texture& t = texture_of(handle, "tex1Dfetch");
    if (i < 0 || (size_t)i >= t.width) {
        for (int c = 0; c < 4; c++) out[c] = 0;
        return;
    }
    read_texel(t, i, 0, 0, out);
}

void texture_fetch(cudaTextureObject_t handle, int dimensions, float x, float y, float z, double out[4]) {
    static const char* names[] = {"", "tex1D", "tex2D", "tex3D"};
    const Texture& t = texture_of(handle, names[dimensions]);
    bool normalized = t.desc.normalizedCoords != 0;
    // The texel coordinates; a dimension the fetch does not name is the middle of texel 0.
    const float given[3] = {x, y, z};
    const size_t sizes[3] = {t.width, t.height, t.depth};
    double c[3];
    for (int d = 0; d < 3; d++) c[d] = d < dimensions ? texel_coordinate(given[d], sizes[d], normalized) : 0.5;
    if (t.desc.filterMode == cudaFilterModePoint) {
        texel_or_border(t, (long)std::floor(c[0]), (long)std::floor(c[1]), (long)std::floor(c[2]), out);
        return;
    }
    // Blend the 2, 4 or 8 nearest texels, with weights in 8 fractional bits as the GPU holds them.
    long first[3];
    float weight[3];
    for (int d = 0; d < 3; d++) {
        double b = c[d] - 0.5;
        first[d] = (long)std::floor(b);
        weight[d] = std::nearbyint((b - first[d]) * 256) / 256;
    }
    float sum[4] = {0, 0, 0, 0};
    for (int corner = 0; corner < 8; corner++) {
        float w = 1;
        for (int d = 0; d < 3; d++) w *= (corner >> d) & 1 ? weight[d] : 1 - weight[d];
        if (w == 0) continue;
        double texel[4];
        texel_or_border(t, first[0] + (corner & 1), first[1] + (corner >> 1 & 1), first[2] + (corner >> 2 & 1),
                        texel);
        for (int k = 0; k < 4; k++) sum[k] += w * (float)texel[k];
    }
    for (int k = 0; k < 4; k++) out[k] = sum[k];
}

}  // namespace cuda_emu

using namespace cuda_emu;

extern "C" {

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
    return cudaChannelFormatDesc{x, y, z, w, f};
}

// ---- CUDA arrays ---------------------------------------------------------------------------------
cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned int flags) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!array || !desc || extent.width == 0) return fail(cudaErrorInvalidValue);
    if (flags & ~(unsigned)(cudaArraySurfaceLoadStore | cudaArrayTextureGather))
        return fail(cudaErrorNotSupported);  // layered arrays and cube maps are not emulated
    size_t bytes = texel_bytes(*desc);
    if (!bytes) return fail(cudaErrorInvalidChannelDescriptor);
    size_t rows = extent.height ? extent.height : 1, slices = extent.depth ? extent.depth : 1;
    char* data = (char*)calloc(extent.width * rows * slices, bytes);
    if (!data) return fail(cudaErrorMemoryAllocation);
    *array = new cudaArray{*desc, extent.width, rows, slices, bytes, data};
    return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned int flags) {
    return cudaMalloc3DArray(array, desc, make_cudaExtent(width, height, 0), flags);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
    if (!array) return cudaSuccess;
    free(array->data);
    delete array;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
    if (!desc || !array) return fail(cudaErrorInvalidValue);
    *desc = array->format;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                                size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
    if (!dst) return fail(cudaErrorInvalidValue);
    size_t row_bytes = dst->width * dst->texel_bytes;
    if (w_offset + width > row_bytes || h_offset + height > dst->height) return fail(cudaErrorInvalidValue);
    bool from_device = kind == cudaMemcpyDeviceToDevice;
    return copy_rows(dst->data + h_offset * row_bytes + w_offset, row_bytes, (const char*)src, spitch,
                     width, height, from_device ? (const char*)src : nullptr, (height - 1) * spitch + width);
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                  size_t h_offset, size_t width, size_t height, enum cudaMemcpyKind kind) {
    if (!src) return fail(cudaErrorInvalidValue);
    size_t row_bytes = src->width * src->texel_bytes;
    if (w_offset + width > row_bytes || h_offset + height > src->height) return fail(cudaErrorInvalidValue);
    bool to_device = kind == cudaMemcpyDeviceToDevice;
    return copy_rows((char*)dst, dpitch, src->data + h_offset * row_bytes + w_offset, row_bytes, width,
                     height, to_device ? (const char*)dst : nullptr, (height - 1) * dpitch + width);
}

// The array's rows lie back to back, so count bytes from an offset are one run of memory.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                              size_t count, enum cudaMemcpyKind kind) {
    if (!dst) return fail(cudaErrorInvalidValue);
    size_t row_bytes = dst->width * dst->texel_bytes, start = h_offset * row_bytes + w_offset;
    if (w_offset > row_bytes || start + count > row_bytes * dst->height * dst->depth) return fail(cudaErrorInvalidValue);
    return copy_rows(dst->data + start, count, (const char*)src, count, count, count ? 1 : 0,
                     kind == cudaMemcpyDeviceToDevice ? (const char*)src : nullptr, count);
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                size_t count, enum cudaMemcpyKind kind) {
    if (!src) return fail(cudaErrorInvalidValue);
    size_t row_bytes = src->width * src->texel_bytes, start = h_offset * row_bytes + w_offset;
    if (w_offset > row_bytes || start + count > row_bytes * src->height * src->depth) return fail(cudaErrorInvalidValue);
    return copy_rows((char*)dst, count, src->data + start, count, count, count ? 1 : 0,
                     kind == cudaMemcpyDeviceToDevice ? (const char*)dst : nullptr, count);
}

// One side of a 3-D copy: where its box starts, and the bytes from row to row and slice to slice.
struct Side {
    char* start;
    size_t pitch, slice_pitch;
    bool inside;  // the box fits
};
Side side_of(cudaArray_t array, cudaPos pos, cudaPitchedPtr ptr, cudaExtent extent, size_t width_bytes) {
    if (array) {
        size_t pitch = array->width * array->texel_bytes;
        bool inside = pos.x + extent.width <= array->width && pos.y + extent.height <= array->height &&
                      pos.z + extent.depth <= array->depth;
        return Side{array->data + pos.z * pitch * array->height + pos.y * pitch + pos.x * array->texel_bytes,
                    pitch, pitch * array->height, inside};
    }
    // Positions and widths count bytes in pitched memory.
    size_t slice = ptr.pitch * ptr.ysize;
    return Side{(char*)ptr.ptr + pos.z * slice + pos.y * ptr.pitch + pos.x, ptr.pitch, slice,
                ptr.ptr && pos.x + width_bytes <= ptr.pitch};
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!p || (!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr)) return fail(cudaErrorInvalidValue);
    // With an array on either side, widths and x positions count its texels; otherwise bytes.
    cudaArray_const_t array = p->srcArray ? p->srcArray : p->dstArray;
    size_t width_bytes = p->extent.width * (array ? array->texel_bytes : 1);
    cudaExtent box = p->extent;
    box.height = box.height ? box.height : 1;
    box.depth = box.depth ? box.depth : 1;
    Side src = side_of(p->srcArray, p->srcPos, p->srcPtr, box, width_bytes);
    Side dst = side_of(p->dstArray, p->dstPos, p->dstPtr, box, width_bytes);
    if (!src.inside || !dst.inside) return fail(cudaErrorInvalidValue);
    EmulatorAccess copying;
    for (size_t z = 0; z < box.depth; z++)
        for (size_t y = 0; y < box.height; y++)
            memmove(dst.start + z * dst.slice_pitch + y * dst.pitch, src.start + z * src.slice_pitch + y * src.pitch,
                    width_bytes);
    return cudaSuccess;
}

// ---- Texture objects --------------------------------------------------------------------------------
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* texture, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* desc, const cudaResourceViewDesc* view) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!texture || !resource || !desc) return fail(cudaErrorInvalidValue);
    if (view && view->format != cudaResViewFormatNone) return fail(cudaErrorNotSupported);
    Texture t;
    memset(&t, 0, sizeof t);
    t.resource = *resource;
    t.desc = *desc;
    switch (resource->resType) {
        case cudaResourceTypeArray: {
            const cudaArray* a = resource->res.array.array;
            if (!a) return fail(cudaErrorInvalidResourceHandle);
            t.data = a->data;
            t.width = a->width;
            t.height = a->height;
            t.depth = a->depth;
            t.pitch = a->width * a->texel_bytes;
            t.slice_pitch = t.pitch * a->height;
            t.format = a->format;
            break;
        }
        case cudaResourceTypeLinear: {
            const auto& r = resource->res.linear;
            size_t bytes = texel_bytes(r.desc);
            if (!bytes) return fail(cudaErrorInvalidChannelDescriptor);
            if (!r.devPtr || r.sizeInBytes < bytes) return fail(cudaErrorInvalidValue);
            t.data = (const char*)r.devPtr;
            t.width = r.sizeInBytes / bytes;
            t.height = t.depth = 1;
            t.pitch = t.slice_pitch = r.sizeInBytes;
            t.format = r.desc;
            break;
        }
        case cudaResourceTypePitch2D: {
            const auto& r = resource->res.pitch2D;
            size_t bytes = texel_bytes(r.desc);
            if (!bytes) return fail(cudaErrorInvalidChannelDescriptor);
            if (!r.devPtr || r.width == 0 || r.height == 0 || r.pitchInBytes < r.width * bytes)
                return fail(cudaErrorInvalidValue);
            t.data = (const char*)r.devPtr;
            t.width = r.width;
            t.height = r.height;
            t.depth = 1;
            t.pitch = r.pitchInBytes;
            t.slice_pitch = r.pitchInBytes * r.height;
            t.format = r.desc;
            break;
        }
        default: return fail(cudaErrorNotSupported);  // mipmapped arrays are not emulated
    }
    t.channels = channel_count(t.format);
    // Wrap and mirror need normalized coordinates; with texel coordinates a GPU clamps.
    auto effective = [&](cudaTextureAddressMode mode) {
        bool repeats = mode == cudaAddressModeWrap || mode == cudaAddressModeMirror;
        return repeats && !desc->normalizedCoords ? cudaAddressModeClamp : mode;
    };
    for (int d = 0; d < 3; d++) t.address[d] = effective(desc->addressMode[d]);
    bool integer = t.format.f != cudaChannelFormatKindFloat;
    t.normalize = integer && desc->readMode == cudaReadModeNormalizedFloat && t.format.x <= 16;
    // Linear filtering blends values, which only floats can hold.
    bool linear = desc->filterMode == cudaFilterModeLinear && resource->resType != cudaResourceTypeLinear;
    if (linear && integer && !t.normalize) return fail(cudaErrorInvalidValue);
    *texture = reinterpret_cast<cudaTextureObject_t>(new Texture(t));
    return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture) {
    delete reinterpret_cast<Texture*>(texture);
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* resource, cudaTextureObject_t texture) {
    if (!resource || !texture) return fail(cudaErrorInvalidValue);
    *resource = reinterpret_cast<const Texture*>(texture)->resource;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* desc, cudaTextureObject_t texture) {
    if (!desc || !texture) return fail(cudaErrorInvalidValue);
    *desc = reinterpret_cast<const Texture*>(texture)->desc;
    return cudaSuccess;
}

}  // extern "C"
