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

/* The element-wise tile: fill(slot, s) puts source element s (an offset from the source
 * base, read along B) into tile slot `slot`, in the destination's type T; the tile is then
 * written out along A. */
template <typename T, typename I, typename Fill>
__device__ __forceinline__ void sk_tile_rows(T* __restrict__ dst, const SkTile& p, T* tile, Fill fill) {
    const int pitch = p.tile_b + 1;
    const SkTileSpan<I> t = sk_tile_span<I>(p);
    const int count = t.na * t.nb;
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    sk_tile_batches<I>(p, t, [&](I s, I d) {
        /* Read along B: consecutive threads read consecutive source elements. */
        for (int e = threadIdx.x; e < count; e += (int)blockDim.x) {
            const int a = e / t.nb;
            const int b = e - a * t.nb;
            fill(a * pitch + b, s + (I)a * src_stride_a + (I)b);
        }
        __syncthreads();
        /* Write along A: consecutive threads write consecutive destination elements. */
        for (int e = threadIdx.x; e < count; e += (int)blockDim.x) {
            const int b = e / t.na;
            const int a = e - b * t.na;
            dst[d + (I)b * dst_stride_b + (I)a] = tile[a * pitch + b];
        }
        __syncthreads();
    });
}

#endif /* STRIDEKIT_TILE_CUH */
