/* Row gather along dim 0 (index_select, embedding lookup): dst[r, :] = src[index[r], :].
 * Words of W bytes (the host widens W up to 16 bytes when the row length, strides, offsets
 * and pointers allow). An out-of-range index (negative ones included, as
 * torch.index_select refuses them) writes nothing for that row and sets *error_flag (when
 * given) to 1.
 *
 * A warp walks chunks of SK_ROWS_CHUNK = 32 rows (its chunks c, c + warps, ...). Each lane
 * loads one index of a chunk (one coalesced request per chunk), a chunk ahead: the next
 * chunk's indices are in flight while this chunk's rows move, and the rows' addresses come
 * from registers (__shfl_sync), so the data loads never wait on an index load but the
 * warp's first. A row takes `lanes` lanes, the power of two >= its words (at most 32), so
 * 32 / lanes rows share a warp step (a 256-byte row of 16-byte words: two per step, no lane
 * idle); a lane issues the loads of SK_ROWS_UNROLL steps before their stores. Rows longer
 * than 32 words take the whole warp, SK_ROWS_UNROLL rows at a time, along their words.
 * rows.rs (RowGatherPlan) and src/bench/model/program.rs mirror this. */
#include "include/common.cuh"

/* Rows per chunk: one index per lane (rows.rs: ROWS_CHUNK). */
#define SK_ROWS_CHUNK 32
/* Warp steps whose loads a lane issues before their stores (rows.rs: ROWS_UNROLL). */
#define SK_ROWS_UNROLL 4

template <typename T, typename IX>
__device__ __forceinline__ void sk_rows_body(T* __restrict__ dst, const T* __restrict__ src,
                                             const IX* __restrict__ index, const SkRowGather& p) {
    const int warps = SK_BLOCK / 32;
    const long long nwarps = (long long)gridDim.x * warps;
    const int lane = threadIdx.x % 32;
    const long long chunks = (p.num_rows + SK_ROWS_CHUNK - 1) / SK_ROWS_CHUNK;
    /* Lanes per row: 2^shift >= row_len, at most 32; the lane's row in a step and word. */
    int shift = 0;
    while (shift < 5 && (1LL << shift) < p.row_len) ++shift;
    const int lanes = 1 << shift;
    const int sub = lane >> shift;
    const int first = lane & (lanes - 1);
    long long c = (long long)blockIdx.x * warps + threadIdx.x / 32;
    IX cur = 0;
    if (c < chunks && c * SK_ROWS_CHUNK + lane < p.num_rows)
        cur = SK_LD(&index[c * SK_ROWS_CHUNK + lane]);
    for (; c < chunks; c += nwarps) {
        const long long r0 = c * SK_ROWS_CHUNK;
        /* The next chunk's indices, loaded now, used after this chunk's rows. */
        IX next = 0;
        const long long n0 = (c + nwarps) * SK_ROWS_CHUNK;
        if (c + nwarps < chunks && n0 + lane < p.num_rows) next = SK_LD(&index[n0 + lane]);
        /* Each lane reports its own row's index (as torch.index_select: no negatives). */
        if (r0 + lane < p.num_rows && ((long long)cur < 0 || (long long)cur >= p.src_rows) &&
            p.error_flag != 0)
            *(int*)p.error_flag = 1;
        for (int s = 0; s < lanes; s += SK_ROWS_UNROLL) {
            const T* sp[SK_ROWS_UNROLL];
            T* dp[SK_ROWS_UNROLL];
            bool ok[SK_ROWS_UNROLL];
#pragma unroll
            for (int u = 0; u < SK_ROWS_UNROLL; ++u) {
                /* Row q of the chunk: step s + u, the lane's sub-warp group. */
                const int q = ((s + u) << (5 - shift)) + sub;
                const long long ix = (long long)__shfl_sync(0xffffffffu, cur, q & 31);
                const long long r = r0 + q;
                ok[u] = s + u < lanes && r < p.num_rows && ix >= 0 && ix < p.src_rows;
                sp[u] = ok[u] ? src + p.src_offset + ix * p.src_row_stride : src;
                dp[u] = dst + p.dst_offset + (ok[u] ? r : 0) * p.dst_row_stride;
            }
            for (long long e = first; e < p.row_len; e += lanes) {
                T v[SK_ROWS_UNROLL];
#pragma unroll
                for (int u = 0; u < SK_ROWS_UNROLL; ++u)
                    if (ok[u]) v[u] = SK_LD(&sp[u][e]);
#pragma unroll
                for (int u = 0; u < SK_ROWS_UNROLL; ++u)
                    if (ok[u]) SK_ST(&dp[u][e], v[u]);
            }
        }
        cur = next;
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
