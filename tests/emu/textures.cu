// textures.cu - texture objects over linear memory, pitched 2-D memory and CUDA arrays: point and
// linear filtering, the four address modes at the edges, normalized coordinates, and integer
// texels read as normalized floats. Each line prints what the texture unit returns; tests/emu.bats
// compares them with the values the CUDA C Programming Guide's texture fetching rules give, worked
// out by hand in the comments.
#include <cstring>

#include "check.h"

static const char* test_name = "textures";

constexpr int max_fetches = 16;

// One kernel per kind of fetch: thread k fetches at coordinate k of the list.
__global__ void fetch_1d(cudaTextureObject_t texture, const float* x, int count, float* out) {
    int k = threadIdx.x;
    if (k < count) out[k] = tex1D<float>(texture, x[k]);
}
__global__ void fetch_index(cudaTextureObject_t texture, const int* i, int count, float* out) {
    int k = threadIdx.x;
    if (k < count) out[k] = tex1Dfetch<float>(texture, i[k]);
}
__global__ void fetch_2d(cudaTextureObject_t texture, const float2* xy, int count, float* out) {
    int k = threadIdx.x;
    if (k < count) out[k] = tex2D<float>(texture, xy[k].x, xy[k].y);
}
__global__ void fetch_3d(cudaTextureObject_t texture, const float3* xyz, int count, float* out) {
    int k = threadIdx.x;
    if (k < count) out[k] = tex3D<float>(texture, xyz[k].x, xyz[k].y, xyz[k].z);
}
__global__ void fetch_2d_float4(cudaTextureObject_t texture, float x, float y, float4* out) {
    *out = tex2D<float4>(texture, x, y);
}
__global__ void fetch_2d_uchar4(cudaTextureObject_t texture, float x, float y, uchar4* out) {
    tex2D(out, texture, x, y);  // the form that returns through a pointer
}

// Runs one of the first four kernels over the coordinates and prints "label: value value ...".
template <class Coordinate>
static void show(const char* label, void (*fetch)(cudaTextureObject_t, const Coordinate*, int, float*),
                 cudaTextureObject_t texture, const Coordinate* at, int count) {
    Coordinate* d_at;
    float *d_out, h_out[max_fetches];
    CHECK(cudaMalloc(&d_at, count * sizeof(Coordinate)));
    CHECK(cudaMalloc(&d_out, count * sizeof(float)));
    CHECK(cudaMemcpy(d_at, at, count * sizeof(Coordinate), cudaMemcpyHostToDevice));
    fetch<<<1, max_fetches>>>(texture, d_at, count, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, count * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_at));
    CHECK(cudaFree(d_out));
    printf("%s:", label);
    for (int k = 0; k < count; k++) printf(" %.7g", h_out[k]);
    printf("\n");
}

static cudaTextureDesc texture_desc(cudaTextureAddressMode address, cudaTextureFilterMode filter,
                                    cudaTextureReadMode read, bool normalized) {
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = address;
    desc.filterMode = filter;
    desc.readMode = read;
    desc.normalizedCoords = normalized;
    return desc;
}

static cudaTextureObject_t make_texture(const cudaResourceDesc& resource, const cudaTextureDesc& desc) {
    cudaTextureObject_t texture = 0;
    CHECK(cudaCreateTextureObject(&texture, &resource, &desc, nullptr));
    return texture;
}

// Prints the float4 that tex2D returns at (x, y) of an array of 8-bit texels read as normalized floats.
static void show_color(const char* label, const cudaResourceDesc& array, cudaTextureFilterMode filter,
                       float x, float y) {
    cudaTextureObject_t t =
        make_texture(array, texture_desc(cudaAddressModeClamp, filter, cudaReadModeNormalizedFloat, false));
    float4 *d_color, color;
    CHECK(cudaMalloc(&d_color, sizeof(float4)));
    fetch_2d_float4<<<1, 1>>>(t, x, y, d_color);
    CHECK(cudaMemcpy(&color, d_color, sizeof color, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_color));
    CHECK(cudaDestroyTextureObject(t));
    printf("%s: %.7g %.7g %.7g %.7g\n", label, color.x, color.y, color.z, color.w);
}

int main() {
    // ---- Linear memory: tex1Dfetch by index; past either end it returns 0 -------------------------
    float h_linear[8];
    for (int i = 0; i < 8; i++) h_linear[i] = i * 1.5f;
    float* d_linear;
    CHECK(cudaMalloc(&d_linear, sizeof h_linear));
    CHECK(cudaMemcpy(d_linear, h_linear, sizeof h_linear, cudaMemcpyHostToDevice));
    cudaResourceDesc linear;
    memset(&linear, 0, sizeof linear);
    linear.resType = cudaResourceTypeLinear;
    linear.res.linear.devPtr = d_linear;
    linear.res.linear.desc = cudaCreateChannelDesc<float>();
    linear.res.linear.sizeInBytes = sizeof h_linear;
    cudaTextureObject_t t = make_texture(linear, texture_desc(cudaAddressModeClamp, cudaFilterModePoint,
                                                              cudaReadModeElementType, false));
    const int indices[] = {0, 3, 7, -1, 8};
    show("linear float tex1Dfetch 0 3 7 -1 8", fetch_index, t, indices, 5);  // 0 4.5 10.5 0 0
    CHECK(cudaDestroyTextureObject(t));

    // 8-bit unsigned texels read as normalized floats: value / 255.
    const unsigned char h_bytes[4] = {0, 51, 255, 128};
    unsigned char* d_bytes;
    CHECK(cudaMalloc(&d_bytes, sizeof h_bytes));
    CHECK(cudaMemcpy(d_bytes, h_bytes, sizeof h_bytes, cudaMemcpyHostToDevice));
    linear.res.linear.devPtr = d_bytes;
    linear.res.linear.desc = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    linear.res.linear.sizeInBytes = sizeof h_bytes;
    t = make_texture(linear, texture_desc(cudaAddressModeClamp, cudaFilterModePoint,
                                          cudaReadModeNormalizedFloat, false));
    const int byte_indices[] = {0, 1, 2, 3};
    show("uchar normalized 0 51 255 128", fetch_index, t, byte_indices, 4);  // 0 0.2 1 0.5019608
    CHECK(cudaDestroyTextureObject(t));

    // 16-bit signed: value / 32767, and -32768 gives -1 too.
    const short h_shorts[4] = {-32768, 32767, -16384, 1000};
    short* d_shorts;
    CHECK(cudaMalloc(&d_shorts, sizeof h_shorts));
    CHECK(cudaMemcpy(d_shorts, h_shorts, sizeof h_shorts, cudaMemcpyHostToDevice));
    linear.res.linear.devPtr = d_shorts;
    linear.res.linear.desc = cudaCreateChannelDesc<short>();
    linear.res.linear.sizeInBytes = sizeof h_shorts;
    t = make_texture(linear, texture_desc(cudaAddressModeClamp, cudaFilterModePoint,
                                          cudaReadModeNormalizedFloat, false));
    show("short normalized -32768 32767 -16384 1000", fetch_index, t, byte_indices, 4);  // -1 1 -0.5000153 0.03051851
    CHECK(cudaDestroyTextureObject(t));

    // ---- A 1-D CUDA array of 4 floats: 10 20 30 40 ------------------------------------------------
    const float h_row[4] = {10, 20, 30, 40};
    cudaChannelFormatDesc float_channel = cudaCreateChannelDesc<float>();
    cudaArray_t row;
    CHECK(cudaMallocArray(&row, &float_channel, 4));
    CHECK(cudaMemcpy2DToArray(row, 0, 0, h_row, sizeof h_row, sizeof h_row, 1, cudaMemcpyHostToDevice));
    cudaResourceDesc array;
    memset(&array, 0, sizeof array);
    array.resType = cudaResourceTypeArray;
    array.res.array.array = row;

    // Point sampling: texel floor(x); clamp keeps the index in 0..3.
    const float point_x[] = {-3, 0.5f, 1.99f, 3.5f, 9};
    t = make_texture(array, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, false));
    show("point clamp -3 0.5 1.99 3.5 9", fetch_1d, t, point_x, 5);  // 10 10 20 40 40
    CHECK(cudaDestroyTextureObject(t));
    // Wrap and mirror need normalized coordinates: with texel coordinates they clamp.
    t = make_texture(array, texture_desc(cudaAddressModeWrap, cudaFilterModePoint, cudaReadModeElementType, false));
    show("texel coordinates, wrap -3 0.5 1.99 3.5 9", fetch_1d, t, point_x, 5);  // 10 10 20 40 40
    CHECK(cudaDestroyTextureObject(t));

    // Linear filtering: x_B = x - 0.5, i = floor(x_B), alpha = frac(x_B) in 8 fractional bits, and
    // (1 - alpha) T[i] + alpha T[i+1]. At texel centres (x = i + 0.5) the texel itself; at 1.0 the
    // midpoint of 10 and 20; at 2.253, alpha = 0.753 rounds to 193/256: 20 + 10 * 193/256.
    const float linear_x[] = {0.5f, 1.0f, 1.25f, 0.0f, 4.5f, 2.253f};
    t = make_texture(array, texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, false));
    show("linear clamp 0.5 1 1.25 0 4.5 2.253", fetch_1d, t, linear_x, 6);  // 10 15 17.5 10 40 27.53906
    CHECK(cudaDestroyTextureObject(t));

    // Normalized coordinates (x * 4 texels). Wrap: 1.125 is 0.125, texel 0; -0.125 is 0.875, texel 3.
    // Mirror: 1.125 reflects to 0.875, texel 3; -0.125 to 0.125, texel 0.
    const float normalized_x[] = {1.125f, -0.125f, 0.375f};
    t = make_texture(array, texture_desc(cudaAddressModeWrap, cudaFilterModePoint, cudaReadModeElementType, true));
    show("normalized wrap 1.125 -0.125 0.375", fetch_1d, t, normalized_x, 3);  // 10 40 20
    CHECK(cudaDestroyTextureObject(t));
    t = make_texture(array, texture_desc(cudaAddressModeMirror, cudaFilterModePoint, cudaReadModeElementType, true));
    show("normalized mirror 1.125 -0.125 0.375", fetch_1d, t, normalized_x, 3);  // 40 10 20
    CHECK(cudaDestroyTextureObject(t));

    // Border: outside the texture, the border colour (here 99); inside, the texel.
    cudaTextureDesc border = texture_desc(cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, true);
    border.borderColor[0] = 99;
    t = make_texture(array, border);
    show("normalized border 1.125 -0.125 0.375", fetch_1d, t, normalized_x, 3);  // 99 99 20
    CHECK(cudaDestroyTextureObject(t));

    // Linear filtering at the edge, normalized x = 0 (texel coordinate 0, x_B = -0.5): half of
    // texel -1, half of texel 0. Wrapped, texel -1 is texel 3: (40 + 10) / 2. Clamped, it is
    // texel 0: 10. With a border of 0: (0 + 10) / 2.
    const float edge_x[] = {0.0f, 1.0f};
    t = make_texture(array, texture_desc(cudaAddressModeWrap, cudaFilterModeLinear, cudaReadModeElementType, true));
    show("linear wrap at 0 and 1", fetch_1d, t, edge_x, 2);  // 25 25
    CHECK(cudaDestroyTextureObject(t));
    t = make_texture(array, texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, true));
    show("linear clamp at 0 and 1", fetch_1d, t, edge_x, 2);  // 10 40
    CHECK(cudaDestroyTextureObject(t));
    t = make_texture(array, texture_desc(cudaAddressModeBorder, cudaFilterModeLinear, cudaReadModeElementType, true));
    show("linear border at 0 and 1", fetch_1d, t, edge_x, 2);  // 5 20
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(row));

    // ---- Pitched 2-D memory, 4 x 3 floats, v(x, y) = x + 10 y ---------------------------------------
    float h_grid[3][4];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) h_grid[y][x] = x + 10.0f * y;
    float* d_grid;
    size_t pitch;
    CHECK(cudaMallocPitch(&d_grid, &pitch, 4 * sizeof(float), 3));
    CHECK(cudaMemcpy2D(d_grid, pitch, h_grid, 4 * sizeof(float), 4 * sizeof(float), 3, cudaMemcpyHostToDevice));
    cudaResourceDesc pitched;
    memset(&pitched, 0, sizeof pitched);
    pitched.resType = cudaResourceTypePitch2D;
    pitched.res.pitch2D.devPtr = d_grid;
    pitched.res.pitch2D.desc = float_channel;
    pitched.res.pitch2D.width = 4;
    pitched.res.pitch2D.height = 3;
    pitched.res.pitch2D.pitchInBytes = pitch;
    // (1, 1): the four texels around, averaged: (0 + 1 + 10 + 11) / 4. (2.25, 1.5): alpha 0.75
    // between x = 1 and 2 on row 1: 11.75. (-5, 10) clamps to texel (0, 2); (3.5, 2.5) is texel (3, 2).
    const float2 xy[] = {{1, 1}, {2.25f, 1.5f}, {-5, 10}, {3.5f, 2.5f}};
    t = make_texture(pitched, texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, false));
    show("pitch2D linear (1,1) (2.25,1.5) (-5,10) (3.5,2.5)", fetch_2d, t, xy, 4);  // 5.5 11.75 20 23
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(d_grid));

    // ---- A 3-D CUDA array of 2 x 2 x 2 floats, v(x, y, z) = x + 10 y + 100 z, by cudaMemcpy3D ----------
    float h_cube[2][2][2];
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++) h_cube[z][y][x] = x + 10.0f * y + 100.0f * z;
    cudaArray_t cube;
    CHECK(cudaMalloc3DArray(&cube, &float_channel, make_cudaExtent(2, 2, 2)));
    cudaMemcpy3DParms copy;
    memset(&copy, 0, sizeof copy);
    copy.srcPtr = make_cudaPitchedPtr(h_cube, 2 * sizeof(float), 2, 2);
    copy.dstArray = cube;
    copy.extent = make_cudaExtent(2, 2, 2);
    copy.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&copy));
    array.res.array.array = cube;
    // The centre (1, 1, 1) blends all eight texels: their mean, 444 / 8. (1.5, 0.5, 1.5) is texel
    // (1, 0, 1); (-1, 5, 0.5) clamps to texel (0, 1, 0).
    const float3 xyz[] = {{1, 1, 1}, {1.5f, 0.5f, 1.5f}, {-1, 5, 0.5f}};
    t = make_texture(array, texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, false));
    show("3-D linear (1,1,1) (1.5,0.5,1.5) (-1,5,0.5)", fetch_3d, t, xyz, 3);  // 55.5 101 10
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(cube));

    // ---- A 2-D CUDA array of uchar4, 2 x 2: normalized floats and raw elements ---------------------
    const uchar4 h_pixels[2][2] = {{{255, 0, 51, 128}, {1, 2, 3, 4}}, {{5, 6, 7, 8}, {10, 20, 30, 40}}};
    cudaChannelFormatDesc uchar4_channel = cudaCreateChannelDesc<uchar4>();
    cudaArray_t image;
    CHECK(cudaMallocArray(&image, &uchar4_channel, 2, 2));
    CHECK(cudaMemcpy2DToArray(image, 0, 0, h_pixels, 2 * sizeof(uchar4), 2 * sizeof(uchar4), 2,
                              cudaMemcpyHostToDevice));
    array.res.array.array = image;
    uchar4* d_raw;
    CHECK(cudaMalloc(&d_raw, sizeof(uchar4)));
    show_color("uchar4 normalized at (0,0)", array, cudaFilterModePoint, 0.5f, 0.5f);  // 1 0 0.2 0.5019608
    // Bilinear over all four pixels, as normalized floats: the mean of each channel / 255.
    show_color("uchar4 linear at the centre", array, cudaFilterModeLinear, 1.0f, 1.0f);  // 271 28 91 180 / 1020
    t = make_texture(array, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, false));
    fetch_2d_uchar4<<<1, 1>>>(t, 1.5f, 1.5f, d_raw);
    uchar4 raw;
    CHECK(cudaMemcpy(&raw, d_raw, sizeof raw, cudaMemcpyDeviceToHost));
    printf("uchar4 elements at (1,1): %d %d %d %d\n", raw.x, raw.y, raw.z, raw.w);  // 10 20 30 40
    CHECK(cudaDestroyTextureObject(t));

    // The array's contents come back out as they went in.
    uchar4 back[2][2];
    CHECK(cudaMemcpy2DFromArray(back, 2 * sizeof(uchar4), image, 0, 0, 2 * sizeof(uchar4), 2,
                                cudaMemcpyDeviceToHost));
    EXPECT(memcmp(back, h_pixels, sizeof back) == 0, "cudaMemcpy2DFromArray gave other bytes");
    CHECK(cudaFreeArray(image));
    CHECK(cudaFree(d_raw));
    CHECK(cudaFree(d_linear));
    CHECK(cudaFree(d_bytes));
    CHECK(cudaFree(d_shorts));
    return pass(test_name);
}
