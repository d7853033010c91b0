/* The tiled transpose shared by the copy tiles (permute.cu) and the converting tile
 * (convert.cu): dimension A is the destination's innermost (dst stride 1), dimension B the
 * source's (src stride 1). A block stages a tile of up to tile_a x tile_b elements in shared
 * memory, reading along B and writing along A, so both sides are coalesced; the remaining
 * dimensions are a batch walked by blockIdx.y. The loops stride by blockDim.x (SK_BLOCK
 * threads on a GPU; one thread when tests/kernel_emulation.rs runs a block on the host,
 * where __syncthreads is a no-op). */
#ifndef STRIDEKIT_TILE_CUH
#define STRIDEKIT_TILE_CUH

#include "common.cuh"

/* This block's tile: its first A and B indices and its extents (partial at the edges). */
template <typename I>
struct SkTileSpan {
    I a0, b0;
    int na, nb;
};

template <typename I>
__device__ __forceinline__ SkTileSpan<I> sk_tile_span(const SkTile& p) {
    SkTileSpan<I> t;
    const I ti = (I)blockIdx.x / (I)p.tiles_b;
    const I tj = (I)blockIdx.x - ti * (I)p.tiles_b;
    t.a0 = ti * (I)p.tile_a;
    t.b0 = tj * (I)p.tile_b;
    const I rem_a = (I)p.n_a - t.a0;
    const I rem_b = (I)p.n_b - t.b0;
    t.na = rem_a < (I)p.tile_a ? (int)rem_a : p.tile_a;
    t.nb = rem_b < (I)p.tile_b ? (int)rem_b : p.tile_b;
    return t;
}

/* Calls move(s, d) for every batch index this block handles, with the element offsets of
 * the tile's corner in the source (s, rows along A) and the destination (d, rows along B). */
template <typename I, typename F>
__device__ __forceinline__ void sk_tile_batches(const SkTile& p, const SkTileSpan<I>& t, F move) {
    for (I bt = (I)blockIdx.y; bt < (I)p.batch; bt += (I)gridDim.y) {
        I d0 = (I)p.dst_offset, s0 = (I)p.src_offset;
        sk_offsets_of<I>(p.batch_rank, p.batch_sizes, p.batch_dst_strides, p.batch_src_strides,
                         bt, d0, s0);
        move(s0 + t.a0 * (I)p.src_stride_a + t.b0, d0 + t.b0 * (I)p.dst_stride_b + t.a0);
    }
}

/* Elements per row of a tile of T with tile_b columns: padded so that a row is an odd
 * number of 4-byte words (T up to 4 bytes), so the threads of a warp reading a column hit 32
 * different banks; 8-byte elements pad by one element. choose.rs: tile_pitch mirrors this. */
template <typename T>
__device__ __forceinline__ int sk_tile_pitch(int tile_b) {
    const int w = (int)sizeof(T);
    if (w >= 8) return tile_b + 1;
    const int words = ((tile_b * w + 3) / 4) | 1;
    return words * 4 / w;
}

/* Elements per row of the 16-byte-access tile (permute.cu): its rows are filled V = 16 /
 * sizeof(T) elements per thread, so the padding that spreads the columns for the scalar
 * tile does not suit it; these are the pitches with the fewest bank conflicts over both
 * phases among tile_b + 0..16 (counted by stridekit model; bench/model-notes.md). */
template <typename T>
__device__ __forceinline__ int sk_tilev_pitch(int tile_b) {
    return tile_b + (sizeof(T) == 1 ? 2 : sizeof(T) == 2 ? 3 : 1);
}

/* The element-wise tile: load(s) reads source element s (an offset from the source base,
 * read along B) as a value of the destination's type T; the tile is then written out along
 * A. Each thread issues sk_copy_ept<sizeof(T), I>() loads before it stores them into the tile,
 * so that many loads are in flight per thread. */
template <typename T, typename I, typename Load>
__device__ __forceinline__ void sk_tile_rows(T* __restrict__ dst, const SkTile& p, T* tile, Load load) {
    constexpr int ILP = sk_copy_ept<(int)sizeof(T), I>();
    const int pitch = sk_tile_pitch<T>(p.tile_b);
    const SkTileSpan<I> t = sk_tile_span<I>(p);
    const int count = t.na * t.nb;
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    const int nt = (int)blockDim.x;
    sk_tile_batches<I>(p, t, [&](I s, I d) {
        /* Read along B: consecutive threads read consecutive source elements. */
        for (int e0 = threadIdx.x; e0 < count; e0 += ILP * nt) {
            T v[ILP];
#pragma unroll
            for (int k = 0; k < ILP; ++k) {
                const int e = e0 + k * nt;
                if (e < count) {
                    const int a = e / t.nb;
                    v[k] = load(s + (I)a * src_stride_a + (I)(e - a * t.nb));
                }
            }
#pragma unroll
            for (int k = 0; k < ILP; ++k) {
                const int e = e0 + k * nt;
                if (e < count) {
                    const int a = e / t.nb;
                    SK_ST(&tile[a * pitch + (e - a * t.nb)], v[k]);
                }
            }
        }
        __syncthreads();
        /* Write along A: consecutive threads write consecutive destination elements. */
        for (int e = threadIdx.x; e < count; e += nt) {
            const int b = e / t.na;
            const int a = e - b * t.na;
            SK_ST(&dst[d + (I)b * dst_stride_b + (I)a], SK_LD(&tile[a * pitch + b]));
        }
        __syncthreads();
    });
}

#endif /* STRIDEKIT_TILE_CUH */
