/* Element values and dtype conversions with the rules of src/scalar.rs (c10 on x86-64),
 * for the converting-copy kernels. f16/bf16 conversions are inline PTX, so no CUDA header
 * is needed. */
#ifndef STRIDEKIT_CONVERT_CUH
#define STRIDEKIT_CONVERT_CUH

#include "common.cuh"

/* One element value, as Scalar carries it: Bool, Int(i64) or Float(f64). */
struct SkVal {
    int kind; /* 0 bool, 1 int, 2 float */
    long long i;
    double f;
};

#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
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
#else
/* Compiled as host C++ (tests/kernel_emulation.rs): the harness supplies these four
 * conversions and the CUDA intrinsics used below, with the same rounding. */
float sk_f16_to_f32(unsigned short h);
unsigned short sk_f32_to_f16(float f);
float sk_bf16_to_f32(unsigned short b);
unsigned short sk_f32_to_bf16(float f);
#endif

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

/* The value as dtype `dt` stores it (Scalar::cast: a store then a load, kept in registers). */
__device__ __forceinline__ SkVal sk_cast_dyn(int dt, const SkVal& v) {
    SkVal r;
    r.kind = dt == SK_BOOL ? 0 : (dt >= SK_F16 ? 2 : 1);
    r.i = 0;
    r.f = 0.0;
    switch (dt) {
    case SK_BOOL: r.i = sk_to_bool(v) ? 1 : 0; break;
    case SK_U8: r.i = (unsigned char)(unsigned long long)sk_to_i64(v); break;
    case SK_I8: r.i = (signed char)sk_to_i32(v); break;
    case SK_I16: r.i = (short)sk_to_i32(v); break;
    case SK_I32: r.i = sk_to_i32(v); break;
    case SK_I64: r.i = sk_to_i64(v); break;
    case SK_F16: r.f = (double)sk_f16_to_f32(sk_f32_to_f16(sk_to_f32(v))); break;
    case SK_BF16: r.f = (double)sk_bf16_to_f32(sk_f32_to_bf16(sk_to_f32(v))); break;
    case SK_F32: r.f = (double)sk_to_f32(v); break;
    default: r.f = sk_to_f64(v); break;
    }
    return r;
}

#endif /* STRIDEKIT_CONVERT_CUH */
