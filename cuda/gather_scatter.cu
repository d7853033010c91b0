/* Strided gather, strided scatter and general strided copies of one element width.
 *
 *   gather : any source view (stride 0, offsets, any order) -> contiguous destination
 *            (or a channels_last destination, whose plan folds to a general copy)
 *   scatter: contiguous source -> strided destination (copy_ into a view)
 *   strided: both sides strided (broadcast sources have stride 0)
 *
 * One template per mode, instantiated per element width (1, 2, 4, 8, 16 bytes) and index
 * width (32, 64 bits): pure copies move words, never dtype values. The host widens the
 * element width (up to 16 bytes) when the innermost dimension is contiguous on both sides
 * and sizes, strides, offsets and pointers allow it. */
#include "include/common.cuh"

#define SK_MODE_STRIDED 0
#define SK_MODE_GATHER 1  /* destination contiguous: dst = dst_offset + linear */
#define SK_MODE_SCATTER 2 /* source contiguous: src = src_offset + linear */

template <typename T, typename I, int MODE, typename P>
__device__ __forceinline__ void sk_copy_body(T* __restrict__ dst, const T* __restrict__ src, const P& p) {
    /* sk_for_each_linear's order (consecutive threads on consecutive indices, EPT indices per
     * thread per step, SK_BLOCK apart), with every load of a step issued before its stores so
     * that EPT loads per thread are in flight at once. */
    constexpr int EPT = sk_copy_ept<(int)sizeof(T), I>();
    const I numel = (I)p.numel;
    const I step = (I)gridDim.x * (I)(SK_BLOCK * EPT);
    for (I base = (I)blockIdx.x * (I)(SK_BLOCK * EPT) + (I)threadIdx.x; base < numel; base += step) {
        I d[EPT];
        T v[EPT];
#pragma unroll
        for (int j = 0; j < EPT; ++j) {
            const I linear = base + (I)(j * SK_BLOCK);
            if (linear < numel) {
                I s;
                if (MODE == SK_MODE_STRIDED) {
                    sk_offsets<I>(p, linear, d[j], s);
                } else if (MODE == SK_MODE_GATHER) {
                    I unused;
                    sk_offsets<I>(p, linear, unused, s);
                    d[j] = (I)p.dst_offset + linear;
                } else {
                    I unused;
                    sk_offsets<I>(p, linear, d[j], unused);
                    s = (I)p.src_offset + linear;
                }
                v[j] = SK_LD(&src[s]);
            }
        }
#pragma unroll
        for (int j = 0; j < EPT; ++j) {
            if (base + (I)(j * SK_BLOCK) < numel) SK_ST(&dst[d[j]], v[j]);
        }
    }
}

#define SK_COPY_KERNELS(W)                                                                          \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_strided_w##W##_i32(char* dst, const char* src, SkStrided32 p) {                        \
        sk_copy_body<SkWord<W>::T, int, SK_MODE_STRIDED>((SkWord<W>::T*)dst,                       \
                                                         (const SkWord<W>::T*)src, p);             \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_strided_w##W##_i64(char* dst, const char* src, SkStrided64 p) {                        \
        sk_copy_body<SkWord<W>::T, long long, SK_MODE_STRIDED>((SkWord<W>::T*)dst,                 \
                                                               (const SkWord<W>::T*)src, p);       \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_gather_w##W##_i32(char* dst, const char* src, SkStrided32 p) {                         \
        sk_copy_body<SkWord<W>::T, int, SK_MODE_GATHER>((SkWord<W>::T*)dst,                        \
                                                        (const SkWord<W>::T*)src, p);              \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_gather_w##W##_i64(char* dst, const char* src, SkStrided64 p) {                         \
        sk_copy_body<SkWord<W>::T, long long, SK_MODE_GATHER>((SkWord<W>::T*)dst,                  \
                                                              (const SkWord<W>::T*)src, p);        \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_scatter_w##W##_i32(char* dst, const char* src, SkStrided32 p) {                        \
        sk_copy_body<SkWord<W>::T, int, SK_MODE_SCATTER>((SkWord<W>::T*)dst,                       \
                                                         (const SkWord<W>::T*)src, p);             \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_scatter_w##W##_i64(char* dst, const char* src, SkStrided64 p) {                        \
        sk_copy_body<SkWord<W>::T, long long, SK_MODE_SCATTER>((SkWord<W>::T*)dst,                 \
                                                               (const SkWord<W>::T*)src, p);       \
    }

SK_COPY_KERNELS(1)
SK_COPY_KERNELS(2)
SK_COPY_KERNELS(4)
SK_COPY_KERNELS(8)
SK_COPY_KERNELS(16)
