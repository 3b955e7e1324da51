// cuda_emu/texture.h - CUDA arrays and texture objects, for the CPU emulator.
//
// Part of the CPU emulation backend (common/emu/); <cuda_runtime.h> includes it. A texture object
// describes how kernels read some memory through the GPU's texture units: what the texels are
// (cudaChannelFormatDesc), where they lie (cudaResourceDesc: linear memory, pitched 2-D memory or
// a CUDA array) and how a fetch turns coordinates into a value (cudaTextureDesc: address modes at
// the edges, point or linear filtering, normalized coordinates, integers read as floats in
// [0, 1] or [-1, 1]). Here the texture unit is a function of the runtime (runtime/texture.cpp)
// that follows the rules of the CUDA C Programming Guide's texture fetching appendix; a CUDA array
// is ordinary memory, row after row. Not here: layered arrays, mipmaps, cube maps, surfaces,
// texture gather, and the graphics interoperability that fills arrays from OpenGL.
#pragma once

#include <cstring>

#include "types.h"

enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};

// Bits of each of the (up to) four channels of a texel, and what the bits are.
struct cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
};

typedef struct cudaArray* cudaArray_t;
typedef const struct cudaArray* cudaArray_const_t;
typedef struct cudaMipmappedArray* cudaMipmappedArray_t;
typedef unsigned long long cudaTextureObject_t;

#define cudaArrayDefault 0x00
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayTextureGather 0x08

enum cudaResourceType {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3
};

struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void* devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void* devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width;   // in texels
            size_t height;  // in rows
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
};

// A view reinterprets a resource's texels; the emulator accepts only none (a null pointer).
enum cudaResourceViewFormat { cudaResViewFormatNone = 0 };
struct cudaResourceViewDesc {
    enum cudaResourceViewFormat format;
    size_t width, height, depth;
    unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
    unsigned int reserved[16];
};

enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

// Sizes and places in 3-D copies and arrays: in texels of the array when an array takes part,
// otherwise in bytes (width, x) and rows (height, y) and slices (depth, z).
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void* ptr; size_t pitch, xsize, ysize; };
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
inline cudaPitchedPtr make_cudaPitchedPtr(void* ptr, size_t pitch, size_t xsize, size_t ysize) {
    return cudaPitchedPtr{ptr, pitch, xsize, ysize};
}
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};

extern "C" {
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width,
                            size_t height = 0, unsigned int flags = 0);
// A 3-D array when extent.depth > 0 (layered arrays and cube maps are not emulated).
cudaError_t cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc,
                              struct cudaExtent extent, unsigned int flags = 0);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms* parms);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc* desc, cudaArray_const_t array);
// Offsets and widths in bytes, heights in rows, as in CUDA.
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                                size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                  size_t h_offset, size_t width, size_t height, enum cudaMemcpyKind kind);
// Deprecated in CUDA, still common: count bytes from (w_offset, h_offset) on, row after row.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                              size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* texture, const struct cudaResourceDesc* resource,
                                    const struct cudaTextureDesc* desc,
                                    const struct cudaResourceViewDesc* view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* resource, cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc* desc, cudaTextureObject_t texture);
}

// ---- Channel descriptions from a type: cudaCreateChannelDesc<float4>() --------------------------
namespace cuda_emu {
// The channels a texel type has, their element type and kind: the texture functions below use it
// too, to turn the four components a fetch returns into the type asked for.
template <class T> struct texel_type;
#define CUDA_EMU_TEXEL(T, C, n, kind)                                \
    template <> struct texel_type<T> {                               \
        using component = C;                                         \
        static constexpr int count = n;                              \
        static constexpr cudaChannelFormatKind format_kind = kind;   \
    };
#define CUDA_EMU_TEXELS(base, C, kind)                                                        \
    CUDA_EMU_TEXEL(C, C, 1, kind) CUDA_EMU_TEXEL(base##1, C, 1, kind)                          \
    CUDA_EMU_TEXEL(base##2, C, 2, kind) CUDA_EMU_TEXEL(base##4, C, 4, kind)
CUDA_EMU_TEXELS(char, signed char, cudaChannelFormatKindSigned)
CUDA_EMU_TEXELS(uchar, unsigned char, cudaChannelFormatKindUnsigned)
CUDA_EMU_TEXELS(short, short, cudaChannelFormatKindSigned)
CUDA_EMU_TEXELS(ushort, unsigned short, cudaChannelFormatKindUnsigned)
CUDA_EMU_TEXELS(int, int, cudaChannelFormatKindSigned)
CUDA_EMU_TEXELS(uint, unsigned int, cudaChannelFormatKindUnsigned)
CUDA_EMU_TEXELS(float, float, cudaChannelFormatKindFloat)
// Plain char is signed on x86 Linux, as in CUDA's header for this host.
CUDA_EMU_TEXEL(char, char, 1, cudaChannelFormatKindSigned)
#undef CUDA_EMU_TEXELS
#undef CUDA_EMU_TEXEL
}  // namespace cuda_emu

template <class T>
cudaChannelFormatDesc cudaCreateChannelDesc() {
    using texel = ::cuda_emu::texel_type<T>;
    int bits = 8 * (int)sizeof(typename texel::component);
    return cudaCreateChannelDesc(bits, texel::count >= 2 ? bits : 0, texel::count >= 4 ? bits : 0,
                                 texel::count >= 4 ? bits : 0, texel::format_kind);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf() {
    return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1() { return cudaCreateChannelDescHalf(); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2() {
    return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4() {
    return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}

// ---- Fetches in kernels -------------------------------------------------------------------------
namespace cuda_emu {
// The texture unit (runtime/texture.cpp): the four components of the value at texel index i
// (tex1Dfetch), or at coordinates x, y, z of a 1-D, 2-D or 3-D fetch, as doubles, which hold
// every value of every texel type exactly. Components the texture lacks are 0.
void texture_fetch_index(cudaTextureObject_t texture, int i, double out[4]);
void texture_fetch(cudaTextureObject_t texture, int dimensions, float x, float y, float z, double out[4]);

template <class T>
T texel_as(const double components[4]) {
    using texel = texel_type<T>;
    typename texel::component parts[texel::count];
    for (int k = 0; k < texel::count; k++) parts[k] = (typename texel::component)components[k];
    T value;
    std::memcpy(&value, parts, sizeof value);
    return value;
}
}  // namespace cuda_emu

template <class T>
T tex1Dfetch(cudaTextureObject_t texture, int x) {
    double components[4];
    ::cuda_emu::texture_fetch_index(texture, x, components);
    return ::cuda_emu::texel_as<T>(components);
}
template <class T>
T tex1D(cudaTextureObject_t texture, float x) {
    double components[4];
    ::cuda_emu::texture_fetch(texture, 1, x, 0, 0, components);
    return ::cuda_emu::texel_as<T>(components);
}
template <class T>
T tex2D(cudaTextureObject_t texture, float x, float y) {
    double components[4];
    ::cuda_emu::texture_fetch(texture, 2, x, y, 0, components);
    return ::cuda_emu::texel_as<T>(components);
}
template <class T>
T tex3D(cudaTextureObject_t texture, float x, float y, float z) {
    double components[4];
    ::cuda_emu::texture_fetch(texture, 3, x, y, z, components);
    return ::cuda_emu::texel_as<T>(components);
}
// The forms that return through a pointer.
template <class T>
void tex1Dfetch(T* value, cudaTextureObject_t texture, int x) { *value = tex1Dfetch<T>(texture, x); }
template <class T>
void tex1D(T* value, cudaTextureObject_t texture, float x) { *value = tex1D<T>(texture, x); }
template <class T>
void tex2D(T* value, cudaTextureObject_t texture, float x, float y) { *value = tex2D<T>(texture, x, y); }
template <class T>
void tex3D(T* value, cudaTextureObject_t texture, float x, float y, float z) {
    *value = tex3D<T>(texture, x, y, z);
}
