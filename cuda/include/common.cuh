/* Device helpers shared by every kernel file: element-width types, offset computation
 * from a linear index, and the dtype conversions that match src/scalar.rs.
 * Self-contained (no CUDA headers), so NVRTC compiles it without include paths. */
#ifndef STRIDEKIT_COMMON_CUH
#define STRIDEKIT_COMMON_CUH

#include "params.h"

#define SK_BLOCK 256
#define SK_EPT 4 /* elements per thread in the element-wise kernels */

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

/* Offsets of logical element `linear` (row-major over `rank` sizes) on both sides, from
 * the base offsets. The loop is unrolled over SK_MAX_RANK with constant indices so the
 * parameter arrays stay in the constant bank (a dynamic index would copy the struct to
 * local memory; ptxas' report is checked for that at build time). */
template <typename I, typename N>
__device__ __forceinline__ void sk_offsets_of(int rank, const N (&sizes)[SK_MAX_RANK],
                                              const N (&dst_strides)[SK_MAX_RANK],
                                              const N (&src_strides)[SK_MAX_RANK], I linear,
                                              I& d, I& s) {
#pragma unroll
    for (int k = SK_MAX_RANK - 1; k >= 0; --k) {
        if (k < rank) {
            I n = (I)sizes[k];
            I q = linear / n;
            I r = linear - q * n;
            d += r * (I)dst_strides[k];
            s += r * (I)src_strides[k];
            linear = q;
        }
    }
}

/* The element-wise kernels' offsets (SkStrided32/SkStrided64). */
template <typename I, typename P>
__device__ __forceinline__ void sk_offsets(const P& p, I linear, I& d, I& s) {
    d = (I)p.dst_offset;
    s = (I)p.src_offset;
    sk_offsets_of<I>(p.rank, p.sizes, p.dst_strides, p.src_strides, linear, d, s);
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

/* ---- dtype conversions: the rules of src/scalar.rs (c10 on x86-64) ---- */

/* One element value, as Scalar carries it: Bool, Int(i64) or Float(f64). */
struct SkVal {
    int kind; /* 0 bool, 1 int, 2 float */
    long long i;
    double f;
};

__device__ __forceinline__ float sk_f16_to_f32(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
/* Round to nearest even, subnormals kept (no .ftz). */
__device__ __forceinline__ unsigned short sk_f32_to_f16(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float sk_bf16_to_f32(unsigned short b) {
    return __uint_as_float(((unsigned int)b) << 16);
}
/* Round to nearest even (sm_80+). */
__device__ __forceinline__ unsigned short sk_f32_to_bf16(float f) {
    unsigned short b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return b;
}

template <int DT>
__device__ __forceinline__ SkVal sk_load(const char* base, long long at) {
    SkVal v;
    v.i = 0;
    v.f = 0.0;
    if (DT == SK_BOOL) {
        v.kind = 0;
        v.i = ((const unsigned char*)base)[at] != 0;
    } else if (DT == SK_U8) {
        v.kind = 1;
        v.i = ((const unsigned char*)base)[at];
    } else if (DT == SK_I8) {
        v.kind = 1;
        v.i = ((const signed char*)base)[at];
    } else if (DT == SK_I16) {
        v.kind = 1;
        v.i = ((const short*)base)[at];
    } else if (DT == SK_I32) {
        v.kind = 1;
        v.i = ((const int*)base)[at];
    } else if (DT == SK_I64) {
        v.kind = 1;
        v.i = ((const long long*)base)[at];
    } else if (DT == SK_F16) {
        v.kind = 2;
        v.f = (double)sk_f16_to_f32(((const unsigned short*)base)[at]);
    } else if (DT == SK_BF16) {
        v.kind = 2;
        v.f = (double)sk_bf16_to_f32(((const unsigned short*)base)[at]);
    } else if (DT == SK_F32) {
        v.kind = 2;
        v.f = (double)((const float*)base)[at];
    } else {
        v.kind = 2;
        v.f = ((const double*)base)[at];
    }
    return v;
}

__device__ __forceinline__ bool sk_to_bool(const SkVal& v) {
    return v.kind == 2 ? (v.f != 0.0) : (v.i != 0); /* NaN != 0: true */
}
/* Scalar::to_f32: one rounding (an integer converts directly, not through f64). */
__device__ __forceinline__ float sk_to_f32(const SkVal& v) {
    return v.kind == 2 ? __double2float_rn(v.f) : __ll2float_rn(v.i);
}
__device__ __forceinline__ double sk_to_f64(const SkVal& v) {
    return v.kind == 2 ? v.f : __ll2double_rn(v.i);
}
/* Scalar::to_int_via_i64 (cvttsd2si): NaN and out-of-range values become i64::MIN. */
__device__ __forceinline__ long long sk_to_i64(const SkVal& v) {
    if (v.kind != 2) return v.i;
    const double lim = 9223372036854775808.0; /* 2^63 */
    if (!(v.f >= -lim && v.f < lim)) return (long long)0x8000000000000000ULL;
    return __double2ll_rz(v.f);
}
/* Scalar::to_int_via_i32: for 32-bit and narrower integers. */
__device__ __forceinline__ int sk_to_i32(const SkVal& v) {
    if (v.kind != 2) return (int)(unsigned int)(unsigned long long)v.i;
    if (!(v.f > -2147483649.0 && v.f < 2147483648.0)) return (int)0x80000000u;
    return __double2int_rz(v.f);
}

template <int DT>
__device__ __forceinline__ void sk_store(char* base, long long at, const SkVal& v) {
    if (DT == SK_BOOL) {
        ((unsigned char*)base)[at] = sk_to_bool(v) ? 1 : 0;
    } else if (DT == SK_U8) {
        ((unsigned char*)base)[at] = (unsigned char)(unsigned long long)sk_to_i64(v);
    } else if (DT == SK_I8) {
        ((signed char*)base)[at] = (signed char)sk_to_i32(v);
    } else if (DT == SK_I16) {
        ((short*)base)[at] = (short)sk_to_i32(v);
    } else if (DT == SK_I32) {
        ((int*)base)[at] = sk_to_i32(v);
    } else if (DT == SK_I64) {
        ((long long*)base)[at] = sk_to_i64(v);
    } else if (DT == SK_F16) {
        ((unsigned short*)base)[at] = sk_f32_to_f16(sk_to_f32(v));
    } else if (DT == SK_BF16) {
        ((unsigned short*)base)[at] = sk_f32_to_bf16(sk_to_f32(v));
    } else if (DT == SK_F32) {
        ((float*)base)[at] = sk_to_f32(v);
    } else {
        ((double*)base)[at] = sk_to_f64(v);
    }
}

/* Run-time dtype dispatch (uniform across a launch, so no divergence). */
__device__ __forceinline__ SkVal sk_load_dyn(int dt, const char* base, long long at) {
    switch (dt) {
    case SK_BOOL: return sk_load<SK_BOOL>(base, at);
    case SK_U8: return sk_load<SK_U8>(base, at);
    case SK_I8: return sk_load<SK_I8>(base, at);
    case SK_I16: return sk_load<SK_I16>(base, at);
    case SK_I32: return sk_load<SK_I32>(base, at);
    case SK_I64: return sk_load<SK_I64>(base, at);
    case SK_F16: return sk_load<SK_F16>(base, at);
    case SK_BF16: return sk_load<SK_BF16>(base, at);
    case SK_F32: return sk_load<SK_F32>(base, at);
    default: return sk_load<SK_F64>(base, at);
    }
}
__device__ __forceinline__ void sk_store_dyn(int dt, char* base, long long at, const SkVal& v) {
    switch (dt) {
    case SK_BOOL: sk_store<SK_BOOL>(base, at, v); break;
    case SK_U8: sk_store<SK_U8>(base, at, v); break;
    case SK_I8: sk_store<SK_I8>(base, at, v); break;
    case SK_I16: sk_store<SK_I16>(base, at, v); break;
    case SK_I32: sk_store<SK_I32>(base, at, v); break;
    case SK_I64: sk_store<SK_I64>(base, at, v); break;
    case SK_F16: sk_store<SK_F16>(base, at, v); break;
    case SK_BF16: sk_store<SK_BF16>(base, at, v); break;
    case SK_F32: sk_store<SK_F32>(base, at, v); break;
    default: sk_store<SK_F64>(base, at, v); break;
    }
}

#endif /* STRIDEKIT_COMMON_CUH */
