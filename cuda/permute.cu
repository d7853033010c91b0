/* Permute: a shared-memory tiled transpose for copies whose innermost destination
 * dimension (A, dst stride 1) is not the source's innermost dimension (B, src stride 1).
 *
 * A block stages a tile of up to tile_a x tile_b elements in shared memory: it reads
 * along B (contiguous in the source) and writes along A (contiguous in the destination),
 * so both sides are coalesced. The usual tile is 32 x 32 (padded rows: no bank conflicts
 * for 4-byte words). When one dimension is tiny (channels_last with C = 3), the host picks
 * a tile that spans the whole small dimension and a long run of the other, so a block
 * still moves ~2048 elements with coalesced accesses on both sides instead of falling
 * back to one element per thread. Dimensions other than A and B form a batch walked by
 * blockIdx.y (grid-stride).
 *
 * sk_tilev_* is the same transpose with 16-byte accesses on both sides (V = 16 / width
 * elements per access): the host launches it when both sizes, both offsets, the strides
 * and the tile extents are multiples of V and both base pointers are 16-byte aligned, and
 * the element-wise sk_tile_* otherwise.
 *
 * The tile loops stride by blockDim.x (SK_BLOCK threads on a GPU; one thread when
 * tests/kernel_emulation.rs runs a block on the host, where __syncthreads is a no-op).
 *
 * Instantiated per element width (1, 2, 4, 8 bytes: no dtype is 16 bytes wide, and rows
 * are widened to 16 bytes only when both sides share the innermost dimension, which a
 * transpose never does) and index width. */
#include "include/tile.cuh"

template <typename T, typename I>
__device__ __forceinline__ void sk_tile_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    sk_tile_rows<T, I>(dst, p, tile, [&](I s) { return SK_LD(&src[s]); });
}

template <typename T, typename I>
__device__ __forceinline__ void sk_tilev_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    constexpr int V = 16 / (int)sizeof(T);
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    const bool swz = sk_tilev_swizzled<T>(p.tile_a, p.tile_b);
    const int pitch = sk_tilev_pitch<T>(swz, p.tile_b);
    const SkTileSpan<I> t = sk_tile_span<I>(p);
    /* Multiples of V: n_a, n_b, tile_a and tile_b all are. */
    const int nav = t.na / V;
    const int nbv = t.nb / V;
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    sk_tile_batches<I>(p, t, [&](I s_at, I d_at) {
        const T* s = src + s_at;
        T* d = dst + d_at;
        /* Read 16-byte words along B (source rows), spread their lanes into the tile. */
        for (int e = threadIdx.x; e < t.na * nbv; e += (int)blockDim.x) {
            const int a = e / nbv;
            const int bv = e - a * nbv;
            const sk_v16 w = SK_LD((const sk_v16*)(s + (I)a * src_stride_a + (I)(bv * V)));
#pragma unroll
            for (int k = 0; k < V; ++k) {
                const int kk = sk_tilev_fill_lane<T>(swz, k, bv);
                SK_ST(&tile[a * pitch + sk_tilev_col<T>(swz, a, bv * V + kk)], sk_lane<T>(w, kk));
            }
        }
        __syncthreads();
        /* Gather V consecutive A elements of one B column, write them as one word. */
        for (int e = threadIdx.x; e < t.nb * nav; e += (int)blockDim.x) {
            const int b = e / nav;
            const int av = e - b * nav;
            sk_v16 w;
            w.lo = 0;
            w.hi = 0;
#pragma unroll
            for (int k = 0; k < V; ++k) {
                const int r = av * V + k;
                sk_set_lane<T>(w, k, SK_LD(&tile[r * pitch + sk_tilev_col<T>(swz, r, b)]));
            }
            SK_ST((sk_v16*)(d + (I)b * dst_stride_b + (I)(av * V)), w);
        }
        __syncthreads();
    });
}

#define SK_TILEV_KERNELS(W)                                                                    \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_tilev_w##W##_i32(char* dst, const char* src, SkTile p) {                          \
        sk_tilev_body<SkWord<W>::T, int>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p);     \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_tilev_w##W##_i64(char* dst, const char* src, SkTile p) {                          \
        sk_tilev_body<SkWord<W>::T, long long>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p); \
    }

SK_TILEV_KERNELS(1)
SK_TILEV_KERNELS(2)
SK_TILEV_KERNELS(4)
SK_TILEV_KERNELS(8)

#define SK_TILE_KERNELS(W)                                                                     \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_tile_w##W##_i32(char* dst, const char* src, SkTile p) {                           \
        sk_tile_body<SkWord<W>::T, int>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p);      \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_tile_w##W##_i64(char* dst, const char* src, SkTile p) {                           \
        sk_tile_body<SkWord<W>::T, long long>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p); \
    }

SK_TILE_KERNELS(1)
SK_TILE_KERNELS(2)
SK_TILE_KERNELS(4)
SK_TILE_KERNELS(8)
