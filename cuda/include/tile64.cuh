/* The 16-byte-access transpose (permute.cu sk_tilev_*) of 1- and 2-byte elements on its full
 * 64 x 64 tile, the only swizzled tile those widths get (choose.rs vec_tile_extents): the
 * extents are compile-time constants, so a thread's tile coordinates are shifts and masks,
 * and both phases move 4-byte shared-memory words instead of single elements.
 *
 * Fill: a 16-byte source word is stored as four 4-byte pieces (sk_tilev64_fill). Store: a
 * thread takes a unit of 4 columns x 16 rows (1 byte) or 2 columns x 8 rows (2 bytes), reads
 * one 4-byte word per row (the unit's columns of that row), transposes them in registers
 * with byte permutes (PRMT) and writes 4 or 2 destination words of 16 bytes
 * (sk_tilev64_unit). The tile's layout is sk_tilev_col's swizzle, unchanged: neither phase
 * has a bank conflict and both sides keep whole sectors (stridekit model counts them).
 * src/bench/model/program.rs (tile_vec) mirrors the accesses. */
#ifndef STRIDEKIT_TILE64_CUH
#define STRIDEKIT_TILE64_CUH

#include "tile.cuh"

/* Stores the 16-byte word w of row a, word bv, into the swizzled tile as four 4-byte
 * pieces. A piece keeps its lanes together under the swizzle: for 1 byte, x is a multiple
 * of 4 elements, so the piece of columns c..c+3 (c a multiple of 4) lands whole, in order,
 * at column c ^ x; for 2 bytes, the columns c, c + 1 (c even) land on the aligned pair
 * holding c ^ x, the halves swapped when x is odd. Rows start on 4-byte boundaries (64 and
 * 132 bytes). A warp's 32 pieces per store hit 32 banks. */
template <typename T>
__device__ __forceinline__ void sk_tilev64_fill(unsigned* words, int pitch, int a, int bv, const sk_v16& w) {
    constexpr int E = sizeof(T) <= 4 ? 4 / (int)sizeof(T) : 1; /* elements per piece */
    constexpr int V = 16 / (int)sizeof(T);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int c = sk_tilev_col<T>(true, a, bv * V + q * E);
        unsigned piece = (unsigned)((q < 2 ? w.lo : w.hi) >> (32 * (q & 1)));
        if (sizeof(T) == 2 && (c & 1) != 0) piece = (piece >> 16) | (piece << 16);
        SK_ST((unsigned*)((char*)words + (a * pitch + (c & -E)) * (int)sizeof(T)), piece);
    }
}

/* Stores the 16 bytes x0..x3 (little-endian) at p, 16-byte aligned, as one 128-bit store.
 * From sk_v16's two 64-bit halves ptxas (sm_90) split the f16 unit's stores into two
 * STG.64 each (the halves landed in registers out of order), so the device build states
 * the vector store; the host emulation records it as one 16-byte store. */
__device__ __forceinline__ void sk_st16(void* p, unsigned x0, unsigned x1, unsigned x2, unsigned x3) {
#if defined(__CUDA_ARCH__)
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(x0), "r"(x1), "r"(x2), "r"(x3)
                 : "memory");
#else
    sk_v16 w;
    w.lo = (unsigned long long)x1 << 32 | x0;
    w.hi = (unsigned long long)x3 << 32 | x2;
    SK_ST((sk_v16*)p, w);
#endif
}

/* Store unit e (below 64 for 1 byte, 256 for 2) of a tile with nav x nbv words: its rows,
 * columns and the lane order that keeps a warp's shared reads on 32 banks, then the words.
 * 1 byte: av = e & 3 (16 rows each), bq = e >> 2 (columns 4 bq ..); a thread whose av is
 * odd reads each pair of rows in the order k ^ 1 (the other half of the warp reads the
 * other parity: 32 banks), which the permutes' selectors undo. 2 bytes: av = e & 7 (8 rows
 * each), bp (columns 2 bp, 2 bp + 1) = e >> 3 with its bits 1 and 2 swapped (the natural
 * order reads two lanes per bank). */
template <typename T, typename I>
__device__ __forceinline__ void sk_tilev64_unit(T* __restrict__ d, I dst_stride_b, const unsigned* words,
                                                int e, int nav, int nb) {
    const char* bytes = (const char*)words;
    if (sizeof(T) == 1) {
        const int av = e & 3;
        const int bq = e >> 2;
        if (av >= nav || 4 * bq >= nb) return;
        const int f = av & 1;
        /* Row r = 16 av + (k ^ f), column (4 bq) ^ x(r), x(r) = av << 4 ^ ((k >> 1) & 3) << 2
         * (sk_tilev_col): 8 base addresses (row parity, x's low bits) plus constants. */
        const int c0 = (4 * bq) ^ (av << 4);
        const int r0 = av * 16 * 64;
        const int base[2] = {r0 + f * 64, r0 + (f ^ 1) * 64};
        unsigned u[16];
#pragma unroll
        for (int k = 0; k < 16; ++k)
            u[k] = SK_LD((const unsigned*)(bytes + base[k & 1] + (c0 ^ (((k >> 1) & 3) << 2)) + (k >> 1) * 128));
        /* A 4 x 4 byte transpose per 4 rows: pairs of rows interleaved (their registers
         * swapped when f), then the pairs' halves. */
        const unsigned lo = f ? 0x1504u : 0x5140u;
        const unsigned hi = f ? 0x3726u : 0x7362u;
        unsigned col[4][4];
#pragma unroll
        for (int g = 0; g < 4; ++g) {
            const unsigned lo01 = __byte_perm(u[4 * g], u[4 * g + 1], lo);
            const unsigned hi01 = __byte_perm(u[4 * g], u[4 * g + 1], hi);
            const unsigned lo23 = __byte_perm(u[4 * g + 2], u[4 * g + 3], lo);
            const unsigned hi23 = __byte_perm(u[4 * g + 2], u[4 * g + 3], hi);
            col[0][g] = __byte_perm(lo01, lo23, 0x5410);
            col[1][g] = __byte_perm(lo01, lo23, 0x7632);
            col[2][g] = __byte_perm(hi01, hi23, 0x5410);
            col[3][g] = __byte_perm(hi01, hi23, 0x7632);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i)
            sk_st16(d + (I)(4 * bq + i) * dst_stride_b + (I)(av * 16), col[i][0], col[i][1], col[i][2], col[i][3]);
    } else {
        const int av = e & 7;
        const int q = e >> 3;
        const int bp = (q & ~6) | ((q & 2) << 1) | ((q >> 1) & 2);
        if (av >= nav || 2 * bp >= nb) return;
        unsigned u[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            /* Row r = 8 av + k: x(r) = (r >> 1) & 31; the pair holding column 2 bp. */
            const int r = av * 8 + k;
            const int c = (2 * bp) ^ ((r >> 1) & 31);
            u[k] = SK_LD((const unsigned*)(bytes + r * 132 + (c & ~1) * 2));
        }
        /* Column 2 bp + i of rows 2j, 2j + 1: the half i ^ x(2j)'s low bit, (j & 1). */
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            unsigned c[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) c[j] = __byte_perm(u[2 * j], u[2 * j + 1], ((i ^ j) & 1) ? 0x7632 : 0x5410);
            sk_st16(d + (I)(2 * bp + i) * dst_stride_b + (I)(av * 8), c[0], c[1], c[2], c[3]);
        }
    }
}

/* The full-tile body: the walk, the fill (FILL words loaded before they are stored, as in
 * sk_tilev_body), the barrier, the store units. Edge tiles (na or nb below 64, multiples of
 * V) keep the full tile's thread mapping; the words and units past the edge idle. */
template <typename T, typename I>
__device__ __forceinline__ void sk_tilev64_body(T* __restrict__ dst, const T* __restrict__ src, const SkTile& p) {
    constexpr int V = 16 / (int)sizeof(T);
    constexpr int FB = 64 / V;                      /* words per row: 4 or 8 */
    constexpr int PITCH = sizeof(T) == 1 ? 64 : 66; /* sk_tilev_pitch<T>(true, 64) */
    constexpr int FILL = sizeof(T) == 1 ? 1 : 2;
    constexpr int UNITS = sizeof(T) == 1 ? 64 : 256;
    extern __shared__ sk_v16 sk_smem_raw[];
    unsigned* words = (unsigned*)sk_smem_raw;
    const int nt = (int)blockDim.x;
    const I src_stride_a = (I)p.src_stride_a;
    const I dst_stride_b = (I)p.dst_stride_b;
    sk_tile_walk<I>(p, [&](const SkTileSpan<I>& t, I s_at, I d_at) {
        const int nbv = t.nb / V;
        const T* s = src + s_at;
        for (int e0 = threadIdx.x; e0 < 64 * FB; e0 += FILL * nt) {
            sk_v16 w[FILL];
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                const unsigned e = (unsigned)(e0 + k * nt);
                const int a = (int)(e / FB), bv = (int)(e % FB);
                w[k].lo = 0;
                w[k].hi = 0;
                if (a < t.na && bv < nbv) w[k] = SK_LD((const sk_v16*)(s + (I)a * src_stride_a + (I)(bv * V)));
            }
#pragma unroll
            for (int k = 0; k < FILL; ++k) {
                const unsigned e = (unsigned)(e0 + k * nt);
                const int a = (int)(e / FB), bv = (int)(e % FB);
                if (a < t.na && bv < nbv) sk_tilev64_fill<T>(words, PITCH, a, bv, w[k]);
            }
        }
        __syncthreads();
        for (int e = threadIdx.x; e < UNITS; e += nt) sk_tilev64_unit<T, I>(dst + d_at, dst_stride_b, words, e, t.na / V, t.nb);
        /* The next tile's fill overwrites this one. */
        __syncthreads();
    });
}

#endif /* STRIDEKIT_TILE64_CUH */
