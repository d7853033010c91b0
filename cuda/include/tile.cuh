/* The tiled transpose shared by the copy tiles (permute.cu) and the converting tile
 * (convert.cu): dimension A is the destination's innermost (dst stride 1), dimension B the
 * source's (src stride 1). A block stages a tile of up to tile_a x tile_b elements in shared
 * memory, reading along B and writing along A, so both sides are coalesced; the remaining
 * dimensions are a batch. A block walks several tiles and batch indices (sk_tile_walk). The
 * loops stride by blockDim.x (SK_BLOCK threads on a GPU; one thread when tests/kernel_emulation.rs runs a block on the host,
 * where __syncthreads is a no-op). */
#ifndef STRIDEKIT_TILE_CUH
#define STRIDEKIT_TILE_CUH

#include "common.cuh"

/* A tile's first A and B indices and its extents (partial at the edges). */
template <typename I>
struct SkTileSpan {
    I a0, b0;
    int na, nb;
};

/* The span of tile `tile` (below p.tiles: tile / tiles_b along A, tile % tiles_b along B). */
template <typename I>
__device__ __forceinline__ SkTileSpan<I> sk_tile_span(const SkTile& p, unsigned tile) {
    SkTileSpan<I> t;
    const I ti = (I)sk_div(p.div_tiles_b, tile);
    const I tj = (I)tile - ti * (I)p.tiles_b;
    t.a0 = ti * (I)p.tile_a;
    t.b0 = tj * (I)p.tile_b;
    const I rem_a = (I)p.n_a - t.a0;
    const I rem_b = (I)p.n_b - t.b0;
    t.na = rem_a < (I)p.tile_a ? (int)rem_a : p.tile_a;
    t.nb = rem_b < (I)p.tile_b ? (int)rem_b : p.tile_b;
    return t;
}

/* The element offsets of batch index bt from the base offsets d0 and s0: by the SkDiv32
 * divisors with 32-bit indices (bt < batch < 2^31 there), by the SkDiv64 ones otherwise, or
 * with DIV64 false by plain 64-bit division (a call; the converting tiles with 2-byte
 * destinations: inlined, SkDiv64 made ptxas spill sk_tilecvt_f32_f16/bf16_i64 on sm_80). */
template <typename I, bool DIV64 = true>
__device__ __forceinline__ void sk_tile_batch_offsets(const SkTile& p, I bt, I& d0, I& s0) {
    if (sizeof(I) == 4) {
        int d = (int)d0, s = (int)s0;
        sk_offsets_of<int>(p.batch_rank, p.batch_divs, p.batch_dst_strides,
                           p.batch_src_strides, (int)bt, d, s);
        d0 = (I)d;
        s0 = (I)s;
    } else if (!DIV64) {
        sk_offsets_of<I>(p.batch_rank, p.batch_sizes, p.batch_dst_strides,
                         p.batch_src_strides, bt, d0, s0);
    } else {
        sk_offsets_of<I>(p.batch_rank, p.batch_divs64, p.batch_dst_strides,
                         p.batch_src_strides, bt, d0, s0);
    }
}

/* Calls move(t, s, d) for every (tile, batch index) this block handles, with the tile's
 * span t and the element offsets of its corner in the source (s, rows along A) and the
 * destination (d, rows along B). The grid is bounded (choose.rs tile_grid), so a block
 * walks several: the tiles blockIdx.x, + gridDim.x, ... (outer loop) and, for each, the
 * contiguous chunk blockIdx.y of the batch (ceil(batch / gridDim.y) indices; inner loop;
 * 32-bit: batch < 2^31, so a chunk's start stays below batch + chunk < 2^32), or with
 * 64-bit indices the batch indices blockIdx.y, + gridDim.y, ... (outer loop) and for each
 * the tiles (inner loop).
 * What does not depend on the tile or the batch index is computed once per block (the
 * chunk, its first batch offsets, and in the callers the pitch and loop bounds); with
 * 32-bit indices the batch offsets advance by the innermost batch dimension's strides,
 * recomputed from the divisors only when its index wraps. Any grid covers every (tile,
 * batch index) once.
 * STACK (the stacked 16-byte tile sk_tilevs_*, 32-bit indices): the chunk's batch indices
 * two at a time, move(t, s, d, ds, dd, two) with the second's offsets s + ds, d + dd (two
 * false, ds = dd = 0, for a chunk's odd last index); otherwise move(t, s, d). */
template <bool STACK>
struct SkWalkCall {
    template <typename F, typename T, typename I>
    __device__ __forceinline__ static void run(F& move, const T& t, I s, I d, I, I, bool) {
        move(t, s, d);
    }
};
template <>
struct SkWalkCall<true> {
    template <typename F, typename T, typename I>
    __device__ __forceinline__ static void run(F& move, const T& t, I s, I d, I ds, I dd, bool two) {
        move(t, s, d, ds, dd, two);
    }
};

template <typename I, bool DIV64 = true, bool STACK = false, typename F>
__device__ __forceinline__ void sk_tile_walk(const SkTile& p, F move) {
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    if (sizeof(I) == 8) {
        /* 64-bit indices: the batch indices blockIdx.y, + gridDim.y, ... (outer loop), the
         * offsets of each by the SkDiv64 divisors (DIV64) or plain division (the chunk's
         * division, the incremental walk's state or the tile's span kept across a division
         * made ptxas spill the 2-byte and the converting kernels), then this block's tiles
         * (inner loop). */
        for (I bt = (I)blockIdx.y; bt < (I)p.batch; bt += (I)gridDim.y) {
            I d0 = (I)p.dst_offset, s0 = (I)p.src_offset;
            sk_tile_batch_offsets<I, DIV64>(p, bt, d0, s0);
            for (unsigned tile = blockIdx.x; tile < (unsigned)p.tiles; tile += gridDim.x) {
                const SkTileSpan<I> t = sk_tile_span<I>(p, tile);
                SkWalkCall<STACK>::run(move, t, s0 + t.a0 * src_stride_a + t.b0,
                                       d0 + t.b0 * dst_stride_b + t.a0, (I)0, (I)0, false);
            }
        }
        return;
    }
    const unsigned batch = (unsigned)p.batch;
    const unsigned rows = gridDim.y;
    const unsigned chunk = (batch + rows - 1) / rows;
    const unsigned first = blockIdx.y * chunk;
    if (first >= batch) return;
    const I end = (I)(batch - first < chunk ? batch : first + chunk);
    I d_first = (I)p.dst_offset, s_first = (I)p.src_offset;
    sk_tile_batch_offsets<I>(p, (I)first, d_first, s_first);
    /* The innermost batch dimension (size 1 and strides 0 without one) and the first batch
     * index's position along it. */
    I in_n = 1, in_d = 0, in_s = 0, r_first = 0;
#pragma unroll
    for (int k = 0; k < SK_MAX_RANK; ++k) {
        if (k == p.batch_rank - 1) {
            in_n = (I)p.batch_sizes[k];
            in_d = (I)p.batch_dst_strides[k];
            in_s = (I)p.batch_src_strides[k];
            r_first = (I)first - (I)sk_div(p.batch_divs[k], (unsigned)first) * in_n;
        }
    }
    for (unsigned tile = blockIdx.x; tile < (unsigned)p.tiles; tile += gridDim.x) {
        const SkTileSpan<I> t = sk_tile_span<I>(p, tile);
        const I s_at = t.a0 * src_stride_a + t.b0;
        const I d_at = t.b0 * dst_stride_b + t.a0;
        I d0 = d_first, s0 = s_first, r = r_first;
        /* The offsets of batch index bt, the one after the current. */
        auto next = [&](I bt) {
            if (++r < in_n) {
                d0 += in_d;
                s0 += in_s;
            } else {
                r = 0;
                d0 = (I)p.dst_offset;
                s0 = (I)p.src_offset;
                sk_tile_batch_offsets<I>(p, bt, d0, s0);
            }
        };
        for (I bt = (I)first;;) {
            if (STACK && bt + 1 < end) {
                const I d1 = d0, s1 = s0;
                next(++bt);
                SkWalkCall<STACK>::run(move, t, s1 + s_at, d1 + d_at, s0 - s1, d0 - d1, true);
            } else {
                SkWalkCall<STACK>::run(move, t, s0 + s_at, d0 + d_at, (I)0, (I)0, false);
            }
            if (++bt >= end) break;
            next(bt);
        }
    }
}

/* Elements per row of the scalar tile of T, tile_a x tile_b: the threads of a warp reading
 * a column must hit different banks. A bank row holds U = 32 (4-byte T) or 16 (8-byte T)
 * elements. When tile_a is odd and below U (a skinny tile spanning a tiny dimension) and U
 * divides tile_b (no warp of the fill crosses a row), the write phase's lanes walk
 * e = b * tile_a + a, so a pitch P with P * tile_a = 1 (mod U)
 * puts element (a, b) in bank slot P * e (mod U): 32 consecutive e, 32 different banks.
 * Otherwise a row is an odd number of 4-byte words (T up to 4 bytes), 8-byte elements pad
 * by one. choose.rs: tile_pitch mirrors this. */
template <typename T>
__device__ __forceinline__ int sk_tile_pitch(int tile_a, int tile_b) {
    const int w = (int)sizeof(T);
    const int u = w == 4 ? 32 : w == 8 ? 16 : 0;
    if (u != 0 && (tile_a & 1) != 0 && tile_a < u && tile_b % u == 0) {
        /* The inverse of an odd tile_a modulo u (a power of two): x = tile_a is right to 3
         * bits, each Newton step x * (2 - tile_a * x) doubles that. */
        int x = tile_a;
        x *= 2 - tile_a * x;
        x *= 2 - tile_a * x;
        const int inv = x & (u - 1);
        return tile_b + ((inv - tile_b) & (u - 1));
    }
    if (w >= 8) return tile_b + 1;
    const int words = ((tile_b * w + 3) / 4) | 1;
    return words * 4 / w;
}

/* The 16-byte-access tile (permute.cu) fills each row V = 16 / sizeof(T) elements per thread
 * and reads each column V rows per thread, so padding alone cannot spread both phases for
 * 1-, 2- and 8-byte elements. A full tile of those (64 x 64 for 1 and 2 bytes, 32 x 32 for
 * 8; sk_tilev_swizzled) keeps element (r, c) at r * pitch + (c ^ x(r)):
 *   1 byte : pitch tile_b,     x = ((r >> 4) & 3) << 4 ^ ((r >> 1) & 3) << 2
 *   2 bytes: pitch tile_b + 2, x = (r >> 1) & 31
 *   8 bytes: pitch tile_b,     x = (r >> 1) & 15, the fill storing a word's two elements in
 *            the order (k + (bv >> 3)) & 1
 * (x stays below the 64-, 32-, 16-element span, which divides tile_b, so a row maps onto
 * itself), and neither phase has a bank conflict (counted by stridekit model;
 * bench/model-notes.md). Other tiles, and every 4-byte one, pad the rows: tile_b + 2
 * (1 byte), + 3 (2 bytes), + 1 (4, 8 bytes), the fewest conflicts among tile_b + 0..16.
 * choose.rs: tile_vec_swizzled, tile_vec_pitch, tile_vec_col and tile_vec_fill_lane
 * mirror these. */
template <typename T>
__device__ __forceinline__ bool sk_tilev_swizzled(int tile_a, int tile_b) {
    const int edge = sizeof(T) <= 2 ? 64 : 32;
    return sizeof(T) != 4 && tile_a >= edge && tile_b >= edge && tile_b % edge == 0;
}

template <typename T>
__device__ __forceinline__ int sk_tilev_pitch(bool swizzled, int tile_b) {
    if (swizzled) return tile_b + (sizeof(T) == 2 ? 2 : 0);
    return tile_b + (sizeof(T) == 1 ? 2 : sizeof(T) == 2 ? 3 : 1);
}

template <typename T>
__device__ __forceinline__ int sk_tilev_col(bool swizzled, int r, int c) {
    const int w = (int)sizeof(T);
    const int x = w == 1   ? ((((r >> 4) & 3) << 4) ^ (((r >> 1) & 3) << 2))
                  : w == 2 ? ((r >> 1) & 31)
                           : ((r >> 1) & 15);
    return swizzled ? (c ^ x) : c;
}

/* The element of its 16-byte word (word bv of its row) a thread of the fill stores k-th. */
template <typename T>
__device__ __forceinline__ int sk_tilev_fill_lane(bool swizzled, int k, int bv) {
    return swizzled && sizeof(T) == 8 ? ((k + (bv >> 3)) & 1) : k;
}

/* Elements per row of the packed tile (permute.cu sk_tilep_*) of n_b-element rows: an odd
 * number of 4-byte words for T up to 4 bytes, an odd number of elements for 8 bytes, so a
 * warp reading a column (consecutive rows) hits 32 banks. choose.rs: tile_packed_pitch. */
/* Loads per thread per step of the packed tile: 12 / 12 / 12 / 8 for 1 / 2 / 4 / 8-byte
 * words (ptxas sm_90: 48 registers each, no spills; 16 1-byte or 16 2-byte loads
 * spilled), so that a packed tile past 48 KB of shared memory, with few blocks per SM,
 * still has ~20 KB in flight per SM. choose.rs: tile_packed_ept. */
template <int W, typename I>
__device__ __forceinline__ constexpr int sk_tilep_ept() {
    return W == 8 ? 8 : 12;
}

/* With runs of lr > 1 elements (a gather's kept innermost run, permute.cu), a row holds nb
 * runs, nb * lr elements, and its pitch P = lr (mod 128 / sizeof(T) elements, 32 banks):
 * destination element i = a * lr + l of a column is slot i + a * (P - lr) + const, so 32
 * consecutive i are 32 consecutive slots modulo the banks' span. */
template <typename T>
__device__ __forceinline__ int sk_tilep_pitch(int nb, int lr) {
    const int w = (int)sizeof(T);
    if (lr > 1) return nb * lr + ((lr - nb * lr) & (128 / w - 1));
    if (w >= 8) return nb | 1;
    return ((((nb * w + 3) / 4) | 1) * 4) / w;
}

/* The element-wise tile: load(s) reads source element s (an offset from the source base,
 * read along B) as a value of the destination's type T; the tile is then written out along
 * A. Each thread issues sk_copy_ept<sizeof(T), I>() loads before it stores them into the tile,
 * so that many loads are in flight per thread. */
template <typename T, typename I, bool DIV64 = true, typename Load>
__device__ __forceinline__ void sk_tile_rows(T* __restrict__ dst, const SkTile& p, T* tile, Load load) {
    constexpr int ILP = sk_copy_ept<(int)sizeof(T), I>();
    const int pitch = sk_tile_pitch<T>(p.tile_a, p.tile_b);
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    const int nt = (int)blockDim.x;
    sk_tile_walk<I, DIV64>(p, [&](const SkTileSpan<I>& t, I s, I d) {
        const int count = t.na * t.nb;
        /* The tile's extents as divisors: a full tile's, or the last one's along A or B. */
        const SkDiv32 div_nb = t.nb == p.tile_b ? p.div_b : p.div_b_edge;
        const SkDiv32 div_na = t.na == p.tile_a ? p.div_a : p.div_a_edge;
        /* Read along B: consecutive threads read consecutive source elements. */
        for (int e0 = threadIdx.x; e0 < count; e0 += ILP * nt) {
            T v[ILP];
#pragma unroll
            for (int k = 0; k < ILP; ++k) {
                const int e = e0 + k * nt;
                if (e < count) {
                    const int a = (int)sk_div(div_nb, (unsigned)e);
                    v[k] = load(s + (I)a * src_stride_a + (I)(e - a * t.nb));
                }
            }
#pragma unroll
            for (int k = 0; k < ILP; ++k) {
                const int e = e0 + k * nt;
                if (e < count) {
                    const int a = (int)sk_div(div_nb, (unsigned)e);
                    SK_ST(&tile[a * pitch + (e - a * t.nb)], v[k]);
                }
            }
        }
        __syncthreads();
        /* Write along A: consecutive threads write consecutive destination elements. */
        for (int e = threadIdx.x; e < count; e += nt) {
            const int b = (int)sk_div(div_na, (unsigned)e);
            const int a = e - b * t.na;
            SK_ST(&dst[d + (I)b * dst_stride_b + (I)a], SK_LD(&tile[a * pitch + b]));
        }
        /* The next tile's fill overwrites this one. */
        __syncthreads();
    });
}

#endif /* STRIDEKIT_TILE_CUH */
