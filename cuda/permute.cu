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
 * Instantiated per element width (1, 2, 4, 8, 16 bytes) and index width. */
#include "include/common.cuh"

template <typename T, typename I>
__device__ __forceinline__ void sk_tile_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    const int pitch = p.tile_b + 1;
    const I ti = (I)blockIdx.x / (I)p.tiles_b;
    const I tj = (I)blockIdx.x - ti * (I)p.tiles_b;
    const I a0 = ti * (I)p.tile_a;
    const I b0 = tj * (I)p.tile_b;
    const I rem_a = (I)p.n_a - a0;
    const I rem_b = (I)p.n_b - b0;
    const int na = rem_a < (I)p.tile_a ? (int)rem_a : p.tile_a;
    const int nb = rem_b < (I)p.tile_b ? (int)rem_b : p.tile_b;
    const int count = na * nb;
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    for (I bt = (I)blockIdx.y; bt < (I)p.batch; bt += (I)gridDim.y) {
        I d0 = (I)p.dst_offset, s0 = (I)p.src_offset;
        sk_offsets_of<I>(p.batch_rank, p.batch_sizes, p.batch_dst_strides, p.batch_src_strides,
                         bt, d0, s0);
        const T* s = src + s0 + a0 * src_stride_a + b0;
        T* d = dst + d0 + b0 * dst_stride_b + a0;
        /* Read along B: consecutive threads read consecutive source elements. */
        for (int e = threadIdx.x; e < count; e += SK_BLOCK) {
            const int a = e / nb;
            const int b = e - a * nb;
            tile[a * pitch + b] = s[(I)a * src_stride_a + (I)b];
        }
        __syncthreads();
        /* Write along A: consecutive threads write consecutive destination elements. */
        for (int e = threadIdx.x; e < count; e += SK_BLOCK) {
            const int b = e / na;
            const int a = e - b * na;
            d[(I)b * dst_stride_b + (I)a] = tile[a * pitch + b];
        }
        __syncthreads();
    }
}

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
SK_TILE_KERNELS(16)
