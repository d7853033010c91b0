/* Permute: a shared-memory tiled transpose for copies whose innermost destination
 * dimension (A, dst stride 1) is not the source's innermost dimension (B, src stride 1).
 *
 * A block stages a tile of up to tile_a x tile_b elements in shared memory: it reads
 * along B (contiguous in the source) and writes along A (contiguous in the destination),
 * so both sides are coalesced. The usual tile is 32 x 32 (padded rows: no bank conflicts
 * for 4-byte words). When one dimension is tiny (channels_last with C = 3), the host picks
 * a tile that spans the whole small dimension and a long run of the other, so a block
 * still moves ~2048 elements with coalesced accesses on both sides instead of falling
 * back to one element per thread. Dimensions other than A and B form a batch; a block
 * walks several tiles and batch indices (tile.cuh sk_tile_walk: the grid is bounded).
 *
 * sk_tilev_* is the same transpose with 16-byte accesses on both sides (V = 16 / width
 * elements per access): the host launches it when both sizes, both offsets, the strides
 * and the tile extents are multiples of V and both base pointers are 16-byte aligned, and
 * the element-wise sk_tile_* otherwise. sk_tilevs_* (4- and 8-byte elements, 32-bit
 * indices) is sk_tilev_* staging two batch indices per item, for tiles too small to give
 * every thread a word (sk_tilev_rows).
 *
 * The tile loops stride by blockDim.x (SK_BLOCK threads on a GPU; one thread when
 * tests/kernel_emulation.rs runs a block on the host, where __syncthreads is a no-op).
 *
 * Instantiated per element width (1, 2, 4, 8 bytes: no dtype is 16 bytes wide, and rows
 * are widened to 16 bytes only when both sides share the innermost dimension, which a
 * transpose never does) and index width. */
#include "include/tile64.cuh"

/* The 64 x 64 path of the 1- and 2-byte 16-byte tiles (tile64.cuh) on sm_90 and later (and
 * in the host emulation), where ptxas fits it in 32 registers without spilling, so that
 * those kernels keep 8 blocks of 256 threads per SM (alone it takes 40-48 registers).
 * sm_80's ptxas spilled it at 32 (and at 40 and 48), so sm_80 keeps the general body. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define SK_TILEV64 1
#define SK_TILEV_BOUNDS_1 __launch_bounds__(SK_BLOCK, 8)
#define SK_TILEV_BOUNDS_2 __launch_bounds__(SK_BLOCK, 8)
#else
#define SK_TILEV64 0
#define SK_TILEV_BOUNDS_1 __launch_bounds__(SK_BLOCK)
#define SK_TILEV_BOUNDS_2 __launch_bounds__(SK_BLOCK)
#endif
#define SK_TILEV_BOUNDS_4 __launch_bounds__(SK_BLOCK)
#define SK_TILEV_BOUNDS_8 __launch_bounds__(SK_BLOCK)

template <typename T, typename I>
__device__ __forceinline__ void sk_tile_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    sk_tile_rows<T, I>(dst, p, tile, [&](I s) { return SK_LD(&src[s]); });
}

template <typename T, typename I, bool STACK>
__device__ __forceinline__ void sk_tilev_rows(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p);

template <typename T, typename I>
__device__ __forceinline__ void sk_tilev_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    if (SK_TILEV64 && sizeof(T) <= 2 && sizeof(I) == 4 && p.tile_a == 64 && p.tile_b == 64) {
        /* The full tile of 1- and 2-byte elements, 32-bit indices: compile-time extents
         * (tile64.cuh). */
        sk_tilev64_body<T, I>(dst, src, p);
        return;
    }
    sk_tilev_rows<T, I, false>(dst, src, p);
}

/* The general 16-byte tile. STACK (the kernels sk_tilevs_*: the plan's tile_vec_stack,
 * small unswizzled tiles of 4- and 8-byte elements, 32-bit indices): two batch indices per
 * item, their tiles stacked along A: rows [0, tile_a) and column slots [0, tile_b) the
 * first's, [tile_a, 2 tile_a) and [tile_b, 2 tile_b) the second's (offsets s + ds,
 * d + dd); a chunk's odd last index alone (two false). Kernels of their own, so that
 * sk_tilev_* keep their code (sm_90 SASS, issue counts: src/bench/model/issue.rs). */
template <typename T, typename I, bool STACK>
__device__ __forceinline__ void sk_tilev_rows(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    constexpr int V = 16 / (int)sizeof(T);
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    const bool swz = sk_tilev_swizzled<T>(p.tile_a, p.tile_b);
    const int pitch = sk_tilev_pitch<T>(swz, p.tile_b);
    /* Multiples of V: n_a, n_b, tile_a and tile_b all are. Threads map onto the words of a
     * full tile_a x tile_b tile, edge tiles too (the words past the edge idle), so a
     * swizzled edge tile is as conflict-free as a full one; each thread loads FILL words
     * before storing them into the tile (2, but 1 for 1-byte elements, whose 64 x 64 tile
     * is one word per thread; src/bench/model/program.rs mirrors it). */
    constexpr int FILL = sizeof(T) == 1 ? 1 : 2;
    /* Threads per tile column and row, in words (p.div_a.d and p.div_b.d: the host divided;
     * the tile's words, or 8 for short unswizzled 4- and 8-byte ones: choose.rs
     * tile_vec_lanes). */
    const int fav = (int)p.div_a.d;
    const int fbv = (int)p.div_b.d;
    const int nt = (int)blockDim.x;
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    const int ta = p.tile_a;
    const int tb = p.tile_b;
    sk_tile_walk<I, true, STACK>(p, [&](const SkTileSpan<I>& t, I s_at, I d_at, I ds = 0, I dd = 0,
                                        bool two = false) {
        const int items = two ? 2 : 1;
        const int nav = t.na / V;
        const int nbv = t.nb / V;
        const T* s = src + s_at;
        T* d = dst + d_at;
        /* Read 16-byte words along B (source rows), spread their lanes into the tile. */
        for (int e0 = threadIdx.x; e0 < items * ta * fbv; e0 += FILL * nt) {
            sk_v16 w[FILL];
            int at[FILL];
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                const int e = e0 + k * nt;
                const int r = (int)sk_div(p.div_b, (unsigned)e);
                const int bv = e - r * fbv;
                const bool g = two && r >= ta;
                const int a = g ? r - ta : r;
                at[k] = a < t.na && bv < nbv ? e : -1;
                w[k].lo = 0;
                w[k].hi = 0;
                if (at[k] >= 0)
                    w[k] = SK_LD((const sk_v16*)(s + (g ? ds : (I)0) + (I)a * src_stride_a + (I)(bv * V)));
            }
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                if (at[k] < 0) continue;
                const int r = (int)sk_div(p.div_b, (unsigned)at[k]);
                const int bv = at[k] - r * fbv;
#pragma unroll
                for (int j = 0; j < V; ++j) {
                    const int kk = sk_tilev_fill_lane<T>(swz, j, bv);
                    SK_ST(&tile[r * pitch + sk_tilev_col<T>(swz, r, bv * V + kk)], sk_lane<T>(w[k], kk));
                }
            }
        }
        __syncthreads();
        /* Gather V consecutive A elements of one B column, write them as one word. */
        for (int e = threadIdx.x; e < items * tb * fav; e += nt) {
            const int c = (int)sk_div(p.div_a, (unsigned)e);
            const int av = e - c * fav;
            const bool g = two && c >= tb;
            const int b = g ? c - tb : c;
            if (b >= t.nb || av >= nav) continue;
            sk_v16 w;
            w.lo = 0;
            w.hi = 0;
#pragma unroll
            for (int k = 0; k < V; ++k) {
                const int r = (g ? ta : 0) + av * V + k;
                sk_set_lane<T>(w, k, SK_LD(&tile[r * pitch + sk_tilev_col<T>(swz, r, b)]));
            }
            SK_ST((sk_v16*)(d + (g ? dd : (I)0) + (I)b * dst_stride_b + (I)(av * V)), w);
        }
        /* The next tile's fill overwrites this one. */
        __syncthreads();
    });
}

/* A tile family's entry point sk_<NAME>_w<W>_<IDX> (W-byte words, index type I, launch
 * bounds BOUNDS): the Rust launcher looks it up by that name (src/backend/cuda/kernels.rs). */
#define SK_TILE_KERNEL(NAME, W, I, IDX, BOUNDS)                                                \
    extern "C" __global__ void BOUNDS sk_##NAME##_w##W##_##IDX(char* dst, const char* src,     \
                                                               SkTile p) {                     \
        sk_##NAME##_body<SkWord<W>::T, I>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p);    \
    }

/* Both index widths of a family whose entry points all take __launch_bounds__(SK_BLOCK). */
#define SK_TILE_KERNELS(NAME, W)                                                               \
    SK_TILE_KERNEL(NAME, W, int, i32, __launch_bounds__(SK_BLOCK))                             \
    SK_TILE_KERNEL(NAME, W, long long, i64, __launch_bounds__(SK_BLOCK))

#define SK_TILEV_KERNELS(W)                                                                    \
    SK_TILE_KERNEL(tilev, W, int, i32, SK_TILEV_BOUNDS_##W)                                    \
    SK_TILE_KERNEL(tilev, W, long long, i64, __launch_bounds__(SK_BLOCK))

SK_TILEV_KERNELS(1)
SK_TILEV_KERNELS(2)
SK_TILEV_KERNELS(4)
SK_TILEV_KERNELS(8)

#define SK_TILEVS_KERNEL(W)                                                                    \
    extern "C" __global__ void SK_TILEV_BOUNDS_##W                                             \
        sk_tilevs_w##W##_i32(char* dst, const char* src, SkTile p) {                         \
        sk_tilev_rows<SkWord<W>::T, int, true>((SkWord<W>::T*)dst, (const SkWord<W>::T*)src, p); \
    }

SK_TILEVS_KERNEL(4)
SK_TILEVS_KERNEL(8)

SK_TILE_KERNELS(tile, 1)
SK_TILE_KERNELS(tile, 2)
SK_TILE_KERNELS(tile, 4)
SK_TILE_KERNELS(tile, 8)

/* The packed tile (sk_tilep_*, cuTT's Packed idea): when the dimensions next to both sides'
 * innermost ones are small, the block takes whole dimensions on both sides. Group A is the
 * destination's innermost dimensions (contiguous there: one run of n_a elements), group B
 * the source's (one run of n_b elements); the tile is n_a x n_b, one per batch index. A
 * source row (fixed A index) is n_b contiguous elements, a destination run (fixed B index)
 * n_a. The SkTile fields read differently (choose.rs packed_launch): entries
 * [0, batch_rank) of the batch arrays are the batch, [batch_rank, batch_rank + tile_a) the
 * A group (sizes, source strides), the next tile_b entries the B group (sizes, destination
 * strides), innermost last; n_a and n_b are the groups' products; tiles_b is the rows of
 * one source run and src_stride_a its elements (1 row and n_b, or k rows, k a divisor of
 * the A group's innermost size, when its rows follow each other in the source and in the
 * tile: packed.rs source_rows); blockIdx.x walks the batch (grid-stride). Each warp moves
 * one run at a time in requests aligned to 32-byte sectors (the run's start offset modulo
 * a sector, from a sector-aligned base as cudaMalloc gives), lanes outside the run masked,
 * so only a run's first and last request use part of a sector; a thread issues
 * sk_tilep_ept loads before storing them into the tile (the source row is a pointer: an
 * offset kept in I made ptxas spill the 8-byte kernels; ra and len are read from the
 * parameters: computed here, they made ptxas spill the 2- and 4-byte kernels). With
 * blockDim.x below 32 (the host emulation) a "warp" is the whole block.
 *
 * Runs (dst_stride_b = lr > 1, unused by the transpose, which passes 1): a gather that
 * keeps an innermost run of lr elements contiguous on both sides is the same tile of
 * lr-element "wide" elements. The groups, batch and strides leave the run out (A starts at
 * the destination dimension of stride lr, B at the source's); a source row is nb runs,
 * nb * lr contiguous elements (len = ra * nb * lr), a destination column na runs, na * lr
 * contiguous elements; element (a, b, l) sits at slot a * pitch + b * lr + l. */
/* The offset of index x (below n_a or n_b, so int) of a group along `strides`: the
 * division is 32-bit whatever I is (64-bit division is a call that made ptxas spill), by
 * the group sizes' divisors (batch_divs). */
template <typename I>
__device__ __forceinline__ I sk_tilep_offset(const SkTile& p, int first, int count,
                                             const int64_t (&strides)[SK_MAX_RANK], int x) {
    I off = 0;
#pragma unroll
    for (int k = SK_MAX_RANK - 1; k >= 0; --k) {
        if (k >= first && k < first + count) {
            const int q = (int)sk_div(p.batch_divs[k], (unsigned)x);
            off += (I)(x - q * (int)p.batch_divs[k].d) * (I)strides[k];
            x = q;
        }
    }
    return off;
}

/* Which of a packed tile's chunks are its group's ragged last one (packed.rs: a
 * one-dimension group whose chunk does not divide its dimension): bit 0 the A group's,
 * whose last chunk has src_dtype > 0 elements and whose chunk index is the innermost batch
 * entry; bit 1 the B group's (dst_dtype > 0 elements, the next entry, or the innermost
 * when A has none). The plan keeps the batch below 2^31, lr = 1 and one row per source run
 * then. Called once per phase: the sizes kept across the loads made ptxas spill. */
template <typename I>
__device__ __forceinline__ int sk_tilep_ragged(const SkTile& p, I bt) {
    /* 32-bit index kernels only (the plan never gives the 64-bit ones a ragged chunk: the
     * selects made ptxas spill sk_tilep_w1/w2_i64 on sm_80). */
    if (sizeof(I) != 4 || (p.src_dtype | p.dst_dtype) <= 0) return 0;
    unsigned n1 = 1, n2 = 1;
#pragma unroll
    for (int k = SK_MAX_RANK - 1; k >= 0; --k) {
        if (k == p.batch_rank - 1) n1 = (unsigned)p.batch_sizes[k];
        if (k == p.batch_rank - 2) n2 = (unsigned)p.batch_sizes[k];
    }
    unsigned q = (unsigned)bt;
    int rag = 0;
    if (p.src_dtype > 0) {
        rag = q % n1 == n1 - 1 ? 1 : 0;
        q /= n1;
        n1 = n2;
    }
    if (p.dst_dtype > 0 && q % n1 == n1 - 1) rag |= 2;
    return rag;
}

/* Elements of the run a gather keeps innermost on both sides (1: a transpose). */
__device__ __forceinline__ int sk_tilep_run(const SkTile& p) {
    return p.dst_stride_b > 1 ? (int)p.dst_stride_b : 1;
}

template <typename T, typename I>
__device__ __forceinline__ void sk_tilep_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    constexpr int ILP = sk_tilep_ept<(int)sizeof(T), I>();
    constexpr int SEC = 32 / (int)sizeof(T);
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    const int na = (int)p.n_a;
    const int nb = (int)p.n_b;
    const int pitch = sk_tilep_pitch<T>(nb, sk_tilep_run(p));
    const int lanes = blockDim.x < 32 ? (int)blockDim.x : 32;
    const int warps = (int)blockDim.x / lanes;
    const int lane = (int)threadIdx.x % lanes;
    const int warp = (int)threadIdx.x / lanes;
    const int ga = p.batch_rank;
    const int gb = p.batch_rank + p.tile_a;
    const int ra = p.tiles_b;
    const int len = (int)p.src_stride_a;
    for (I bt = (I)blockIdx.x; bt < (I)p.batch; bt += (I)gridDim.x) {
        /* The batch offsets, the destination's recomputed after the loads (kept across
         * them, it made ptxas spill the 64-bit kernels once the tile had runs). */
        I d0 = 0, s0 = (I)p.src_offset;
        sk_tile_batch_offsets<I>(p, bt, d0, s0);
        /* The tile's rows and source-run length (a ragged chunk's: sk_tilep_ragged). */
        const int rag = sk_tilep_ragged<I>(p, bt);
        const int na_t = (rag & 1) ? (int)p.src_dtype : na;
        const int len_t = (rag & 2) ? (int)p.dst_dtype : len;
        /* Source runs, warp by warp, sk_tilep_ept aligned chunks of a run (or of the next
         * runs) loaded before they are stored. A run is one row, or ra rows that follow
         * each other in the source: len = ra * nb contiguous elements, which (the pitch
         * then being nb) are len consecutive tile slots too. */
        int a = warp * ra, c = 0, m = 0;
        const T* row = src;
        if (a < na_t) {
            const I at = s0 + sk_tilep_offset<I>(p, ga, p.tile_a, p.batch_src_strides, a);
            row = src + at;
            m = (int)(at % (I)SEC);
        }
        while (a < na_t) {
            T v[ILP];
            int slot[ILP];
#pragma unroll
            for (int k = 0; k < ILP; ++k) {
                slot[k] = -1;
                v[k] = 0;
                if (a < na_t) {
                    const int j = c * lanes + lane - m;
                    if (j >= 0 && j < len_t) {
                        v[k] = SK_LD(&row[j]);
                        slot[k] = a * pitch + j;
                    }
                    if (++c * lanes - m >= len_t) {
                        c = 0;
                        a += warps * ra;
                        if (a < na_t) {
                            const I at = s0 + sk_tilep_offset<I>(p, ga, p.tile_a, p.batch_src_strides, a);
                            row = src + at;
                            m = (int)(at % (I)SEC);
                        }
                    }
                }
            }
#pragma unroll
            for (int k = 0; k < ILP; ++k) {
                if (slot[k] >= 0) SK_ST(&tile[slot[k]], v[k]);
            }
        }
        __syncthreads();
        d0 = (I)p.dst_offset;
        s0 = 0;
        sk_tile_batch_offsets<I>(p, bt, d0, s0);
        /* The tile's columns and rows again (sk_tilep_ragged). */
        const int rag_s = sk_tilep_ragged<I>(p, bt);
        const int nb_s = (rag_s & 2) ? (int)p.dst_dtype : nb;
        const int na_s = (rag_s & 1) ? (int)p.src_dtype : na;
        /* Destination runs: column b of the tile, na * lr contiguous elements (element
         * i = a * lr + l at slot a * pitch + b * lr + l). */
        for (int b = warp; b < nb_s; b += warps) {
            /* The run length is read from the parameters where it is used (kept in a
             * register, it made ptxas spill the 64-bit kernels). */
            const int lr = sk_tilep_run(p);
            const int n = na_s * lr;
            const I run = d0 + sk_tilep_offset<I>(p, gb, p.tile_b, p.batch_dst_strides, b);
            const int mb = (int)(run % (I)SEC);
            T* out = dst + run;
            const T* col = tile + b * lr;
            for (int i = lane - mb; i < n; i += lanes) {
                if (i >= 0) {
                    const unsigned a = (unsigned)i / (unsigned)lr;
                    SK_ST(&out[i], SK_LD(&col[i + (int)a * (pitch - lr)]));
                }
            }
        }
        __syncthreads();
    }
}

SK_TILE_KERNELS(tilep, 1)
SK_TILE_KERNELS(tilep, 2)
SK_TILE_KERNELS(tilep, 4)
SK_TILE_KERNELS(tilep, 8)

/* The narrow transpose (sk_tilen_*: 4- and 8-byte elements): the destination's rows are
 * shorter than a sector (n_a * width < 32 bytes, n_a odd: 7 x 33554432, channels_last with
 * C = 3) and follow each other (dst_stride_b = n_a), so a tile that takes the whole A
 * dimension (tile_a = n_a) and tile_b source columns (a multiple of 32 V, V = 16 / width)
 * fills one contiguous run of n_a * tile_b destination elements. The scalar tile moves
 * such a tile an element per thread (a division, two addresses, four memory instructions
 * per element: instruction-issue bound); here both sides move 16-byte words: a warp loads
 * 32 consecutive words of one source row, each thread spreads its word's V elements into
 * the tile in destination order, and a warp stores 32 consecutive words of the
 * destination run. Element f of the run (f = b * n_a + a) sits at slot
 * f ^ ((f / R) & (V - 1)), R = 128 / width the elements of 128 bytes: conflict-free for odd
 * n_a on both phases (a word's V slots stay in its 16-byte group). The plan takes it when
 * V divides n_b, the source stride of A, both offsets and every batch stride, and the
 * base pointers are 16-byte aligned (the scalar tile otherwise): src/backend/cuda/narrow.rs. */
/* The narrow tiles' shared-memory swizzle: element f of the run (sk_tilen: destination order,
 * sk_tilem: source order) sits at slot f ^ sk_narrow_group<T>(f), the group being
 * (f / R) & (V - 1) with R = 128 / width and V = 16 / width; a 16-byte word of V elements
 * from f0 (a multiple of V) keeps one group, its elements at f0 + (j ^ group). */
template <typename T>
__device__ __forceinline__ int sk_narrow_group(int f) {
    constexpr int V = 16 / (int)sizeof(T);
    constexpr int RS = sizeof(T) == 4 ? 5 : 4; /* log2(R) */
    return (f >> RS) & (V - 1);
}

template <typename T, typename I>
__device__ __forceinline__ void sk_tilen_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    constexpr int V = 16 / (int)sizeof(T);
    constexpr int FILL = 4;
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    const int nt = (int)blockDim.x;
    const int na = p.tile_a;
    /* Words per full tile row (tile_b / V). */
    const int fbv = (int)p.div_b.d;
    const I src_stride_a = (I)p.src_stride_a;
    sk_tile_walk<I>(p, [&](const SkTileSpan<I>& t, I s, I d) {
        const int nbv = t.nb / V;
        const int words = na * fbv;
        /* Source rows: threads on the words of a full tile (an edge tile's extra words idle),
         * FILL words loaded before they are spread into the tile. */
        for (int e0 = threadIdx.x; e0 < words; e0 += FILL * nt) {
            sk_v16 w[FILL];
            int at[FILL];
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                const int e = e0 + k * nt;
                const int a = (int)sk_div(p.div_b, (unsigned)e);
                const int bv = e - a * fbv;
                at[k] = e < words && bv < nbv ? bv * V * na + a : -1;
                w[k].lo = 0;
                w[k].hi = 0;
                if (at[k] >= 0) w[k] = SK_LD((const sk_v16*)(src + s + (I)a * src_stride_a + (I)(bv * V)));
            }
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                if (at[k] < 0) continue;
#pragma unroll
                for (int j = 0; j < V; ++j) {
                    const int f = at[k] + j * na;
                    SK_ST(&tile[f ^ sk_narrow_group<T>(f)], sk_lane<T>(w[k], j));
                }
            }
        }
        __syncthreads();
        /* The destination run: word e holds elements e * V .. e * V + V - 1. */
        T* out = dst + d;
        for (int e = threadIdx.x; e < na * nbv; e += nt) {
            const int f0 = e * V;
            const int x = sk_narrow_group<T>(f0);
            sk_v16 w;
            w.lo = 0;
            w.hi = 0;
#pragma unroll
            for (int j = 0; j < V; ++j) sk_set_lane<T>(w, j, SK_LD(&tile[f0 + (j ^ x)]));
            SK_ST((sk_v16*)(out + (I)f0), w);
        }
        /* The next tile's fill overwrites this one. */
        __syncthreads();
    });
}

SK_TILE_KERNELS(tilen, 4)
SK_TILE_KERNELS(tilen, 8)

/* The narrow tile's mirror (sk_tilem_*): source rows shorter than a sector that follow each
 * other (src_stride_a = n_b, n_b odd, n_b * width < 32 bytes: nhwc2nchw with C = 3) into
 * long destination rows. A tile of tile_a destination columns (a multiple of 32 V) and the
 * whole B dimension is one contiguous source run: 16-byte loads along it, the tile in
 * source order (element g = a * n_b + b at the narrow tile's slot g ^ ((g / R) & (V - 1)):
 * the fill is sk_tilen's store phase, the store phase its fill, both conflict-free for odd
 * n_b), 16-byte stores along the destination rows (a warp: 32 consecutive words of one
 * row). Plan: src/backend/cuda/narrow.rs mirror_extents. */
template <typename T, typename I>
__device__ __forceinline__ void sk_tilem_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    constexpr int V = 16 / (int)sizeof(T);
    constexpr int FILL = 4;
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    const int nt = (int)blockDim.x;
    const int nb = p.tile_b;
    /* Words per full destination row of the tile (tile_a / V). */
    const int fav = (int)p.div_a.d;
    const I dst_stride_b = (I)p.dst_stride_b;
    sk_tile_walk<I>(p, [&](const SkTileSpan<I>& t, I s, I d) {
        const int nav = t.na / V;
        const int words = nav * nb;
        const T* in = src + s;
        /* The source run, FILL words loaded before they are spread into the tile. */
        for (int e0 = threadIdx.x; e0 < words; e0 += FILL * nt) {
            sk_v16 w[FILL];
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                const int e = e0 + k * nt;
                w[k].lo = 0;
                w[k].hi = 0;
                if (e < words) w[k] = SK_LD((const sk_v16*)(in + (I)(e * V)));
            }
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                const int e = e0 + k * nt;
                if (e >= words) continue;
                const int g0 = e * V;
                const int x = sk_narrow_group<T>(g0);
#pragma unroll
                for (int j = 0; j < V; ++j) SK_ST(&tile[g0 + (j ^ x)], sk_lane<T>(w[k], j));
            }
        }
        __syncthreads();
        /* Destination rows: threads on the words of a full tile's rows (an edge tile's
         * extra words idle). */
        for (int e = threadIdx.x; e < nb * fav; e += nt) {
            const int b = (int)sk_div(p.div_a, (unsigned)e);
            const int q = e - b * fav;
            if (q >= nav) continue;
            sk_v16 w;
            w.lo = 0;
            w.hi = 0;
#pragma unroll
            for (int j = 0; j < V; ++j) {
                const int g = (q * V + j) * nb + b;
                sk_set_lane<T>(w, j, SK_LD(&tile[g ^ sk_narrow_group<T>(g)]));
            }
            SK_ST((sk_v16*)(dst + d + (I)b * dst_stride_b + (I)(q * V)), w);
        }
        /* The next tile's fill overwrites this one. */
        __syncthreads();
    });
}

SK_TILE_KERNELS(tilem, 4)
SK_TILE_KERNELS(tilem, 8)
