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

/* Realigning copy (session 22, change 25): copies whose innermost dimension is a run of
 * run = sizes[rank-1] >= 1 words contiguous on both sides (the plan, realign.rs, takes it
 * for runs of >= 128 words), but whose source and destination runs start at different
 * offsets from the 32-word grid (a narrowed or unfolded row). A warp moves one run at a time (runs grid-strided over the warps): it
 * loads the run's source in 32-word chunks at 32-word-aligned addresses (lanes before the
 * run's start or past its end masked off) and stores 32-word chunks at 32-word-aligned
 * destination addresses, so each request is a whole number of sectors but at the run's
 * two ends. Destination chunk k takes the lanes e.. of source chunk k - 1 + hi and the
 * lanes ..e-1 of chunk k + hi (e = the phases' difference mod 32, hi = 1 when the source's
 * phase is not below the destination's): each lane offers the previous chunk (the carry)
 * if it is at or past e, else the current one, and one __shfl_sync hands lane l source
 * lane (l + e) % 32's offer (a funnel shift across the lanes). The loads of
 * SK_REALIGN_UNROLL chunks are issued before their shuffles and stores. The phases come
 * from the addresses themselves, so any word-aligned base pointer gives exact bytes; the
 * plan takes it where sk_copy_body's requests would be off the sector grid with
 * cudaMalloc'd bases. */
#define SK_REALIGN_UNROLL 4

template <typename T, typename I, typename P>
__device__ __forceinline__ void sk_realign_body(T* __restrict__ dst, const T* __restrict__ src,
                                                const P& p) {
    const int lane = (int)(threadIdx.x & 31);
    const I run = (I)p.sizes[p.rank - 1];
    const I runs = (I)p.numel / run;
    const I warps = (I)gridDim.x * (I)(SK_BLOCK / 32);
    for (I r = (I)blockIdx.x * (I)(SK_BLOCK / 32) + (I)(threadIdx.x / 32); r < runs; r += warps) {
        I d0, s0;
        sk_offsets<I>(p, r * run, d0, s0);
        /* Phases: the runs' first words' places in their 32-word chunks. */
        const int ps = (int)(((unsigned long long)(src + s0) / sizeof(T)) & 31);
        const int pd = (int)(((unsigned long long)(dst + d0) / sizeof(T)) & 31);
        const int e = (ps - pd) & 31;
        const int hi = ps >= pd ? 1 : 0;
        /* Run offsets of lane 0 of source chunk m and destination chunk k: 32m - ps, 32k - pd. */
        const I chunks = (run + (I)pd + 31) / 32;
        T carry = T();
        if (hi) {
            const I j = (I)(lane - ps);
            if (j >= 0 && j < run) carry = SK_LD(&src[s0 + j]);
        }
        for (I k0 = 0; k0 < chunks; k0 += SK_REALIGN_UNROLL) {
            T cur[SK_REALIGN_UNROLL];
#pragma unroll
            for (int u = 0; u < SK_REALIGN_UNROLL; ++u) {
                const I j = (k0 + (I)(u + hi)) * 32 + (I)(lane - ps);
                cur[u] = T();
                if (k0 + (I)u < chunks && j >= 0 && j < run) cur[u] = SK_LD(&src[s0 + j]);
            }
#pragma unroll
            for (int u = 0; u < SK_REALIGN_UNROLL; ++u) {
                const T offer = lane >= e ? carry : cur[u];
                const T v = __shfl_sync(0xffffffffu, offer, (lane + e) & 31);
                const I j = (k0 + (I)u) * 32 + (I)(lane - pd);
                if (k0 + (I)u < chunks && j >= 0 && j < run) SK_ST(&dst[d0 + j], v);
                carry = cur[u];
            }
        }
    }
}

#define SK_REALIGN_KERNELS(W)                                                                       \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_realign_w##W##_i32(char* dst, const char* src, SkStrided32 p) {                        \
        sk_realign_body<SkWord<W>::T, int>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p);       \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                          \
        sk_realign_w##W##_i64(char* dst, const char* src, SkStrided64 p) {                        \
        sk_realign_body<SkWord<W>::T, long long>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p); \
    }

SK_REALIGN_KERNELS(4)
SK_REALIGN_KERNELS(8)
