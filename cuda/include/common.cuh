/* Device helpers shared by every kernel file: element-width types, offset computation
 * from a linear index, the grid-stride loop. Self-contained (no CUDA headers), so NVRTC
 * compiles it without include paths; its device intrinsics, __umulhi and __umul64hi, are
 * shimmed (with CUDA's semantics) when tests/kernel_emulation.rs compiles the layout kernels
 * as host C++. */
#ifndef STRIDEKIT_COMMON_CUH
#define STRIDEKIT_COMMON_CUH

#include "params.h"

/* Threads per block of every launch (choose.rs: BLOCK). tests/kernel_emulation.rs
 * compiles the layout kernels as host code with a smaller block. */
#ifndef SK_BLOCK
#define SK_BLOCK 256
#endif
#define SK_EPT 4 /* elements per thread in the element-wise kernels */

/* The layout kernels' global and shared memory accesses go through these two macros: plain
 * loads and stores on a GPU. tests/kernel_emulation.rs defines them before including the
 * kernels to record every access (address, width, source line) and count, per warp and
 * memory instruction, the 32-byte sectors and the shared-memory bank conflicts. */
#ifndef SK_LD
#define SK_LD(p) (*(p))
#define SK_ST(p, v) (*(p) = (v))
#endif

/* Elements per thread per grid-stride step of the pure-copy kernels of W-byte words with
 * index type I: every thread issues all its loads before its first store, so W = 1 and 2
 * take more elements to keep about 16 bytes per thread in flight (8 for W = 1 with 64-bit
 * indices, whose sixteen offsets would spill). choose.rs: copy_ept mirrors this. */
template <int W, typename I>
__device__ __forceinline__ constexpr int sk_copy_ept() {
    return W == 1 ? (sizeof(I) == 8 ? 8 : 16) : W == 2 ? 8 : 4;
}

/* Element-width types: pure copies move bits, never values. */
struct alignas(16) sk_v16 {
    unsigned long long lo, hi;
};
template <int W> struct SkWord;
template <> struct SkWord<1> { typedef unsigned char T; };
template <> struct SkWord<2> { typedef unsigned short T; };
template <> struct SkWord<4> { typedef unsigned int T; };
template <> struct SkWord<8> { typedef unsigned long long T; };
template <> struct SkWord<16> { typedef sk_v16 T; };

/* Lane k (a compile-time constant after unrolling) of a 16-byte word holding 16 / sizeof(T)
 * elements of the unsigned type T, little-endian as in memory. Shifts, not a reinterpreting
 * pointer, so the word stays in registers. */
template <typename T>
__device__ __forceinline__ T sk_lane(const sk_v16& w, int k) {
    const int bit = k * (int)sizeof(T) * 8;
    return (T)((bit < 64 ? w.lo : w.hi) >> (bit & 63));
}
template <typename T>
__device__ __forceinline__ void sk_set_lane(sk_v16& w, int k, T v) {
    const int bit = k * (int)sizeof(T) * 8;
    const unsigned long long x = (unsigned long long)v << (bit & 63);
    if (bit < 64) {
        w.lo |= x;
    } else {
        w.hi |= x;
    }
}

/* n / v.d for 0 <= n <= 2^31 (params.h: SkDiv32, with the proof): a multiply-high, an add
 * and a shift instead of a division by a run-time value. */
__device__ __forceinline__ unsigned sk_div(const SkDiv32& v, unsigned n) {
    return (__umulhi(n, v.m) + n) >> v.s;
}

/* n / v.d for 0 <= n <= 2^63 (params.h: SkDiv64): the 64-bit index kernels' division. */
__device__ __forceinline__ unsigned long long sk_div64(const SkDiv64& v, unsigned long long n) {
    return (__umul64hi(n, v.m) + n) >> v.s;
}

/* One step of the offset walk below over a dimension: the quotient of x by the size and
 * the size itself, for a plain size (a division), a SkDiv32 (sk_div; 32-bit indices,
 * 0 <= x <= 2^31) or a SkDiv64 (sk_div64; 64-bit indices, 0 <= x <= 2^63). */
template <typename I, typename N>
__device__ __forceinline__ I sk_quot(N n, I x) {
    return x / (I)n;
}
template <typename I>
__device__ __forceinline__ I sk_quot(const SkDiv32& v, I x) {
    return (I)sk_div(v, (unsigned)x);
}
template <typename I>
__device__ __forceinline__ I sk_quot(const SkDiv64& v, I x) {
    return (I)sk_div64(v, (unsigned long long)x);
}
template <typename N>
__device__ __forceinline__ N sk_extent(N n) {
    return n;
}
__device__ __forceinline__ uint32_t sk_extent(const SkDiv32& v) {
    return v.d;
}
__device__ __forceinline__ uint64_t sk_extent(const SkDiv64& v) {
    return v.d;
}

/* Offsets of logical element `linear` (row-major over `rank` sizes, given as sizes or as
 * their SkDiv32 or SkDiv64 divisors) on both sides, from the base offsets. The loop is unrolled over
 * SK_MAX_RANK with constant indices so the parameter arrays stay in the constant bank (a
 * dynamic index would copy the struct to local memory; ptxas' report is checked for that
 * at build time). */
template <typename I, typename D, typename N>
__device__ __forceinline__ void sk_offsets_of(int rank, const D (&sizes)[SK_MAX_RANK],
                                              const N (&dst_strides)[SK_MAX_RANK],
                                              const N (&src_strides)[SK_MAX_RANK], I linear,
                                              I& d, I& s) {
#pragma unroll
    for (int k = SK_MAX_RANK - 1; k >= 0; --k) {
        if (k < rank) {
            const I q = sk_quot<I>(sizes[k], linear);
            const I r = linear - q * (I)sk_extent(sizes[k]);
            d += r * (I)dst_strides[k];
            s += r * (I)src_strides[k];
            linear = q;
        }
    }
}

/* The element-wise kernels' offsets, by the divisors: SkDiv32 (32-bit indices), SkDiv64
 * (64-bit). */
template <typename I>
__device__ __forceinline__ void sk_offsets(const SkStrided32& p, I linear, I& d, I& s) {
    int di = p.dst_offset, si = p.src_offset;
    sk_offsets_of<int>(p.rank, p.size_divs, p.dst_strides, p.src_strides, (int)linear, di, si);
    d = (I)di;
    s = (I)si;
}
template <typename I>
__device__ __forceinline__ void sk_offsets(const SkStrided64& p, I linear, I& d, I& s) {
    d = (I)p.dst_offset;
    s = (I)p.src_offset;
    sk_offsets_of<I>(p.rank, p.size_divs, p.dst_strides, p.src_strides, linear, d, s);
}

/* Calls f(linear) for every logical index below numel: SK_EPT indices per thread per step,
 * consecutive threads on consecutive indices, grid-striding past the grid. The loop
 * variable cannot overflow I: the host keeps numel <= 2^30 on the 32-bit path. */
template <typename I, typename F>
__device__ __forceinline__ void sk_for_each_linear(I numel, F f) {
    const I step = (I)gridDim.x * (I)(SK_BLOCK * SK_EPT);
    for (I base = (I)blockIdx.x * (I)(SK_BLOCK * SK_EPT) + (I)threadIdx.x; base < numel;
         base += step) {
#pragma unroll
        for (int j = 0; j < SK_EPT; ++j) {
            const I linear = base + (I)(j * SK_BLOCK);
            if (linear < numel) f(linear);
        }
    }
}

#endif /* STRIDEKIT_COMMON_CUH */
