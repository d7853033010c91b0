/* Row gather along dim 0 (index_select, embedding lookup): dst[r, :] = src[index[r], :].
 * Each warp moves SK_ROWS_PER_WARP rows at a time, lanes striding along them; words of W bytes (the host widens W up to 16 bytes when
 * the row length, strides, offsets and pointers allow). An out-of-range index (negative
 * ones included, as torch.index_select refuses them) writes nothing for that row and sets *error_flag (when given) to 1. */
#include "include/common.cuh"

/* Rows a warp moves at once (choose.rs: ROWS_PER_WARP): the loads of all of them are issued
 * before their stores, so a warp keeps several rows' words in flight even when rows are
 * short (an embedding row of 128 f16 is 16 words of 16 bytes, half a warp). */
#define SK_ROWS_PER_WARP 4

template <typename T, typename IX>
__device__ __forceinline__ void sk_rows_body(T* __restrict__ dst, const T* __restrict__ src,
                                             const IX* __restrict__ index, const SkRowGather& p) {
    const int warps = SK_BLOCK / 32;
    const long long warp = (long long)blockIdx.x * warps + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const long long nwarps = (long long)gridDim.x * warps;
    for (long long r0 = warp; r0 < p.num_rows; r0 += SK_ROWS_PER_WARP * nwarps) {
        const T* s[SK_ROWS_PER_WARP];
        T* d[SK_ROWS_PER_WARP];
        bool ok[SK_ROWS_PER_WARP];
#pragma unroll
        for (int k = 0; k < SK_ROWS_PER_WARP; ++k) {
            const long long r = r0 + k * nwarps;
            ok[k] = false;
            s[k] = src;
            d[k] = dst;
            if (r >= p.num_rows) continue;
            const long long ix = (long long)SK_LD(&index[r]); /* as torch.index_select: no negatives */
            if (ix < 0 || ix >= p.src_rows) {
                if (lane == 0 && p.error_flag != 0) *(int*)p.error_flag = 1;
                continue;
            }
            ok[k] = true;
            s[k] = src + p.src_offset + ix * p.src_row_stride;
            d[k] = dst + p.dst_offset + r * p.dst_row_stride;
        }
        for (long long e = lane; e < p.row_len; e += 32) {
            T v[SK_ROWS_PER_WARP];
#pragma unroll
            for (int k = 0; k < SK_ROWS_PER_WARP; ++k)
                if (ok[k]) v[k] = SK_LD(&s[k][e]);
#pragma unroll
            for (int k = 0; k < SK_ROWS_PER_WARP; ++k)
                if (ok[k]) SK_ST(&d[k][e], v[k]);
        }
    }
}

#define SK_ROW_KERNELS(W)                                                                        \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                       \
        sk_rows_w##W##_idx32(char* dst, const char* src, const int* index, SkRowGather p) {    \
        sk_rows_body<SkWord<W>::T, int>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, index, p); \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                       \
        sk_rows_w##W##_idx64(char* dst, const char* src, const long long* index, SkRowGather p) { \
        sk_rows_body<SkWord<W>::T, long long>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, index, \
                                              p);                                                \
    }

SK_ROW_KERNELS(1)
SK_ROW_KERNELS(2)
SK_ROW_KERNELS(4)
SK_ROW_KERNELS(8)
SK_ROW_KERNELS(16)
