/* The strided element-wise family: out = op(inputs...) for every arithmetic, comparison,
 * logical, where and clamp op and every dtype, over operands in arbitrary strided layouts
 * (broadcast dimensions with stride 0, negative strides from flip, offsets), the output in
 * TensorIterator's result layout or an in-place op's self. The host folds the output's and
 * inputs' dimensions with the copy plan's folding (src/plan/elementwise.rs) and passes the
 * op, the dtypes and any Python numbers in SkEwArgs (src/backend/cuda/elementwise.rs).
 *
 * The arithmetic is src/tensor/arith.rs's, element for element: every tensor input is
 * loaded in its own dtype and converted to the computation dtype (PyTorch's promoted
 * type) exactly as the CPU backend's staging copy converts it (sk_cast_dyn); integers
 * compute in wrapping 64-bit arithmetic, float16/bfloat16/float32 in float32, float64 in
 * float64, bool logically; the result is rounded to the computation dtype, then stored in
 * the output's dtype (comparisons store 0/1). Products and sums are explicitly rounded
 * (__fmul_rn / __fadd_rn): the compiler may not contract `a + alpha * b` into an FMA, which
 * would round once where the CPU rounds twice.
 *
 * One kernel per computation class (bool, integer, float32, float64) and index width; op
 * and dtypes are run-time switches, uniform across a launch (no divergence). Integer
 * division and remainder by zero never reach a kernel: the host refuses them first, as the
 * CPU backend does ("ZeroDivisionError").
 *
 * tests/kernel_emulation.rs compiles this file as host C++ and compares every op x dtype x
 * layout with the CPU backend; only exp and pow (sk_exp*, sk_pow*) are replaced there by
 * the host's libm, which is what the CPU backend calls. */
#include "include/convert.cuh"

#define SK_CLASS_BOOL 0
#define SK_CLASS_INT 1
#define SK_CLASS_F32 2
#define SK_CLASS_F64 3

#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
/* float32 exp and pow through float64, rounded once: within half an ulp plus float64's
 * error, so equal to the host libm's (correctly rounded in practice) float32 results except
 * at rare near-ties; CUDA's own expf/powf are off by up to 2/4 ulp. */
__device__ __forceinline__ float sk_expf(float a) { return __double2float_rn(exp((double)a)); }
__device__ __forceinline__ float sk_powf(float a, float b) {
    return __double2float_rn(pow((double)a, (double)b));
}
__device__ __forceinline__ double sk_exp(double a) { return exp(a); }
__device__ __forceinline__ double sk_pow(double a, double b) { return pow(a, b); }
__device__ __forceinline__ double sk_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
#else
/* Host C++ (tests/kernel_emulation.rs): the harness supplies these, and the _rn intrinsics. */
float sk_expf(float a);
float sk_powf(float a, float b);
double sk_exp(double a);
double sk_pow(double a, double b);
double sk_nan();
#endif

__device__ __forceinline__ SkVal sk_bool_val(bool b) {
    SkVal v;
    v.kind = 0;
    v.i = b ? 1 : 0;
    v.f = 0.0;
    return v;
}
__device__ __forceinline__ SkVal sk_int_val(long long i) {
    SkVal v;
    v.kind = 1;
    v.i = i;
    v.f = 0.0;
    return v;
}
__device__ __forceinline__ SkVal sk_float_val(double f) {
    SkVal v;
    v.kind = 2;
    v.i = 0;
    v.f = f;
    return v;
}

/* c ? a : b field by field, so the values stay in registers (a conditional over two
 * references would take their addresses and move them to local memory). */
__device__ __forceinline__ SkVal sk_select(bool c, const SkVal a, const SkVal b) {
    SkVal v;
    v.kind = c ? a.kind : b.kind;
    v.i = c ? a.i : b.i;
    v.f = c ? a.f : b.f;
    return v;
}

__device__ __forceinline__ bool sk_ew_is_comparison(int op) {
    return (op >= SK_EW_EQ && op <= SK_EW_GE) || op >= SK_EW_LOGICAL_AND;
}

/* Wrapping 64-bit integer arithmetic (Rust's wrapping_*). */
__device__ __forceinline__ long long sk_wadd(long long a, long long b) {
    return (long long)((unsigned long long)a + (unsigned long long)b);
}
__device__ __forceinline__ long long sk_wsub(long long a, long long b) {
    return (long long)((unsigned long long)a - (unsigned long long)b);
}
__device__ __forceinline__ long long sk_wmul(long long a, long long b) {
    return (long long)((unsigned long long)a * (unsigned long long)b);
}
__device__ __forceinline__ bool sk_div_overflows(long long a, long long b) {
    return a == (long long)0x8000000000000000ULL && b == -1;
}
/* b != 0 (the host checked); i64::MIN / -1 wraps to i64::MIN, its remainder is 0. */
__device__ __forceinline__ long long sk_wdiv(long long a, long long b) {
    return b == 0 ? 0 : (sk_div_overflows(a, b) ? a : a / b);
}
__device__ __forceinline__ long long sk_wrem(long long a, long long b) {
    return (b == 0 || sk_div_overflows(a, b)) ? 0 : a % b;
}
/* PyTorch's powi: wrapping; a negative exponent gives 0 except for bases 1 and -1. */
__device__ __forceinline__ long long sk_ipow(long long base, long long e) {
    if (e < 0) {
        if (base == 1) return 1;
        if (base == -1) return (e % 2 == 0) ? 1 : -1;
        return 0;
    }
    long long result = 1;
    while (e > 0) {
        if (e & 1) result = sk_wmul(result, base);
        base = sk_wmul(base, base);
        e >>= 1;
    }
    return result;
}

__device__ __forceinline__ long long sk_ew_int(int op, const SkEwArgs& p, long long a, long long b) {
    switch (op) {
    case SK_EW_ADD: return sk_wadd(a, sk_wmul(p.alpha_i, b));
    case SK_EW_SUB: return sk_wsub(a, sk_wmul(p.alpha_i, b));
    case SK_EW_MUL: return sk_wmul(a, b);
    case SK_EW_FLOOR_DIV: {
        const long long q = sk_wdiv(a, b);
        return ((a < 0) != (b < 0) && sk_wmul(q, b) != a) ? q - 1 : q;
    }
    case SK_EW_TRUNC_DIV: return sk_wdiv(a, b);
    case SK_EW_REMAINDER: {
        const long long r = sk_wrem(a, b);
        return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
    }
    case SK_EW_POW: return sk_ipow(a, b);
    case SK_EW_BIT_AND: return a & b;
    case SK_EW_BIT_OR: return a | b;
    case SK_EW_BIT_XOR: return a ^ b;
    case SK_EW_INVERT: return ~a;
    case SK_EW_NEG: return sk_wsub(0, a);
    case SK_EW_ABS: return a < 0 ? sk_wsub(0, a) : a;
    case SK_EW_SQUARE: return sk_wmul(a, a);
    default: return 0; /* refused on the host (ElementOp::check) */
    }
}

/* The floating ops in one precision, as arith.rs's `floating!`. */
template <typename T> struct SkFloatOps;
template <> struct SkFloatOps<float> {
    static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
    static __device__ __forceinline__ float fmod_(float a, float b) { return fmodf(a, b); }
    static __device__ __forceinline__ float floor_(float a) { return floorf(a); }
    static __device__ __forceinline__ float trunc_(float a) { return truncf(a); }
    static __device__ __forceinline__ float abs_(float a) { return fabsf(a); }
    static __device__ __forceinline__ float sqrt_(float a) { return sqrtf(a); }
    static __device__ __forceinline__ float exp_(float a) { return sk_expf(a); }
    static __device__ __forceinline__ float pow_(float a, float b) { return sk_powf(a, b); }
    static __device__ __forceinline__ float copysign_(float a, float b) { return copysignf(a, b); }
    static __device__ __forceinline__ float of(double v) { return (float)v; }
};
template <> struct SkFloatOps<double> {
    static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
    static __device__ __forceinline__ double fmod_(double a, double b) { return fmod(a, b); }
    static __device__ __forceinline__ double floor_(double a) { return floor(a); }
    static __device__ __forceinline__ double trunc_(double a) { return trunc(a); }
    static __device__ __forceinline__ double abs_(double a) { return fabs(a); }
    static __device__ __forceinline__ double sqrt_(double a) { return sqrt(a); }
    static __device__ __forceinline__ double exp_(double a) { return sk_exp(a); }
    static __device__ __forceinline__ double pow_(double a, double b) { return sk_pow(a, b); }
    static __device__ __forceinline__ double copysign_(double a, double b) { return copysign(a, b); }
    static __device__ __forceinline__ double of(double v) { return v; }
};

template <typename T>
__device__ __forceinline__ T sk_ew_float(int op, const SkEwArgs& p, T a, T b) {
    typedef SkFloatOps<T> F;
    switch (op) {
    case SK_EW_ADD: return F::add(a, F::mul(F::of(p.alpha_f), b));
    case SK_EW_SUB: return F::sub(a, F::mul(F::of(p.alpha_f), b));
    case SK_EW_MUL: return F::mul(a, b);
    case SK_EW_DIV: return a / b;
    case SK_EW_FLOOR_DIV: {
        if (b == (T)0) return a / b;
        const T m = F::fmod_(a, b);
        T div = (a - m) / b;
        if (m != (T)0 && (b < (T)0) != (m < (T)0)) div -= (T)1;
        if (div != (T)0) {
            const T f = F::floor_(div);
            return (div - f > (T)0.5) ? f + (T)1 : f;
        }
        return F::copysign_((T)0, a / b);
    }
    case SK_EW_REMAINDER: {
        const T m = F::fmod_(a, b);
        return (m != (T)0 && (b < (T)0) != (m < (T)0)) ? m + b : m;
    }
    case SK_EW_TRUNC_DIV: return F::trunc_(a / b);
    case SK_EW_POW: return F::pow_(a, b);
    case SK_EW_NEG: return -a;
    case SK_EW_ABS: return F::abs_(a);
    case SK_EW_SQRT: return F::sqrt_(a);
    case SK_EW_EXP: return F::exp_(a);
    case SK_EW_SQUARE: return F::mul(a, a);
    default: return (T)0; /* refused on the host (ElementOp::check) */
    }
}

/* Ordering of two values already in the computation dtype: -1, 0, 1, or 2 when unordered
 * (a NaN). */
template <int CC>
__device__ __forceinline__ int sk_ew_order(const SkVal& a, const SkVal& b) {
    if (CC >= SK_CLASS_F32) {
        if (a.f < b.f) return -1;
        if (a.f > b.f) return 1;
        return a.f == b.f ? 0 : 2;
    }
    return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
}

/* arith.rs's `apply`: the result in the computation dtype's class (bool for comparisons). */
template <int CC>
__device__ __forceinline__ SkVal sk_ew_apply(const SkEwArgs& p, const SkVal x0, const SkVal x1,
                                             const SkVal x2) {
    const int op = p.op;
    switch (op) {
    case SK_EW_LOGICAL_NOT: return sk_bool_val(!sk_to_bool(x0));
    case SK_EW_LOGICAL_AND: return sk_bool_val(sk_to_bool(x0) && sk_to_bool(x1));
    case SK_EW_LOGICAL_OR: return sk_bool_val(sk_to_bool(x0) || sk_to_bool(x1));
    case SK_EW_LOGICAL_XOR: return sk_bool_val(sk_to_bool(x0) != sk_to_bool(x1));
    case SK_EW_MAXIMUM:
    case SK_EW_MINIMUM: {
        const int o = sk_ew_order<CC>(x0, x1);
        if (o == 2) return sk_float_val(sk_nan());
        const bool a_first = o >= 0;
        const bool want_max = op == SK_EW_MAXIMUM;
        return sk_select(a_first == want_max, x0, x1);
    }
    case SK_EW_EQ: return sk_bool_val(sk_ew_order<CC>(x0, x1) == 0);
    case SK_EW_NE: return sk_bool_val(sk_ew_order<CC>(x0, x1) != 0);
    case SK_EW_LT: return sk_bool_val(sk_ew_order<CC>(x0, x1) == -1);
    case SK_EW_LE: {
        const int o = sk_ew_order<CC>(x0, x1);
        return sk_bool_val(o == -1 || o == 0);
    }
    case SK_EW_GT: return sk_bool_val(sk_ew_order<CC>(x0, x1) == 1);
    case SK_EW_GE: {
        const int o = sk_ew_order<CC>(x0, x1);
        return sk_bool_val(o == 0 || o == 1);
    }
    case SK_EW_WHERE: return sk_select(sk_to_bool(x0), x1, x2);
    case SK_EW_CLAMP: {
        /* min(max(a, lo), hi), NaN propagating (floats in float64, as arith.rs). */
        const SkVal hi = sk_select(p.clamp_min != 0, x2, x1);
        if (CC >= SK_CLASS_F32) {
            double v = x0.f;
            if (v != v) return x0;
            if (p.clamp_min) {
                const double l = x1.f;
                if (l != l || v < l) v = l;
            }
            if (p.clamp_max) {
                const double h = hi.f;
                if (h != h || h < v) v = h;
            }
            return sk_float_val(v);
        }
        long long v = x0.i;
        if (p.clamp_min && x1.i > v) v = x1.i;
        if (p.clamp_max && hi.i < v) v = hi.i;
        return sk_int_val(v);
    }
    default: break;
    }
    if (CC == SK_CLASS_BOOL) {
        const bool a = x0.i != 0;
        const bool b = p.arity > 1 && x1.i != 0;
        switch (op) {
        case SK_EW_ADD: return sk_bool_val(a || (p.alpha_b && b));
        case SK_EW_MUL:
        case SK_EW_BIT_AND: return sk_bool_val(a && b);
        case SK_EW_BIT_OR: return sk_bool_val(a || b);
        case SK_EW_BIT_XOR: return sk_bool_val(a != b);
        case SK_EW_INVERT: return sk_bool_val(!a);
        default: return sk_bool_val(a); /* square; the rest is refused on the host */
        }
    }
    if (CC == SK_CLASS_INT) return sk_int_val(sk_ew_int(op, p, x0.i, p.arity > 1 ? x1.i : 0));
    if (CC == SK_CLASS_F64) return sk_float_val(sk_ew_float<double>(op, p, x0.f, p.arity > 1 ? x1.f : 0.0));
    /* float16/bfloat16/float32: the inputs are exact in float32. */
    const float a = (float)x0.f;
    const float b = p.arity > 1 ? (float)x1.f : 0.0f;
    return sk_float_val((double)sk_ew_float<float>(op, p, a, b));
}

/* Offsets of logical element `linear` in every operand: the copy kernels' index math
 * (sk_offsets_of) over SK_EW_MAX_OPERANDS stride arrays, unrolled with constant indices so
 * the parameter arrays stay in the constant bank. Each size divides as its divisor
 * (size_divs: SkEw32's SkDiv32 through sk_div, SkEw64's SkDiv64 through sk_div64). */
template <typename I, typename P>
__device__ __forceinline__ void sk_ew_offsets(const P& p, I linear, I (&off)[SK_EW_MAX_OPERANDS]) {
#pragma unroll
    for (int j = 0; j < SK_EW_MAX_OPERANDS; ++j) off[j] = (I)p.offsets[j];
#pragma unroll
    for (int k = SK_MAX_RANK - 1; k >= 0; --k) {
        if (k < p.rank) {
            const I q = sk_quot<I>(p.size_divs[k], linear);
            const I r = linear - q * (I)sk_extent(p.size_divs[k]);
#pragma unroll
            for (int j = 0; j < SK_EW_MAX_OPERANDS; ++j) off[j] += r * (I)p.strides[j][k];
            linear = q;
        }
    }
}

template <typename I, int CC, typename P>
__device__ __forceinline__ void sk_ew_body(char* __restrict__ out, const char* in0, const char* in1,
                                           const char* in2, const P& p) {
    const char* const ins[SK_EW_MAX_INPUTS] = {in0, in1, in2};
    const SkEwArgs& a = p.args;
    /* sk_for_each_linear's indices (SK_EPT per thread per step, consecutive threads on
     * consecutive indices), not unrolled: the op switch is large, and four copies of it
     * would spill. */
    const I numel = (I)p.numel;
    const I step = (I)gridDim.x * (I)(SK_BLOCK * SK_EPT);
    for (I base = (I)blockIdx.x * (I)(SK_BLOCK * SK_EPT) + (I)threadIdx.x; base < numel; base += step)
#pragma unroll 1
    for (int j = 0; j < SK_EPT; ++j) {
        const I linear = base + (I)(j * SK_BLOCK);
        if (linear >= numel) break;
        I off[SK_EW_MAX_OPERANDS];
        sk_ew_offsets<I>(p, linear, off);
        SkVal x[SK_EW_MAX_INPUTS];
#pragma unroll
        for (int k = 0; k < SK_EW_MAX_INPUTS; ++k) {
            const SkEwInput& in = a.inputs[k];
            if (k >= a.arity) {
                x[k] = sk_int_val(0);
            } else if (in.dtype >= 0) {
                x[k] = sk_cast_dyn(a.compute_dtype, sk_load_dyn(in.dtype, ins[k], (long long)off[k + 1]));
            } else {
                x[k].kind = in.kind;
                x[k].i = in.i;
                x[k].f = in.f;
            }
        }
        const SkVal r = sk_ew_apply<CC>(a, x[0], x[1], x[2]);
        /* Comparisons store 0/1; everything else is rounded to the computation dtype first. */
        sk_store_dyn(a.out_dtype, out, (long long)off[0],
                     sk_ew_is_comparison(a.op) ? r : sk_cast_dyn(a.compute_dtype, r));
    }
}

#define SK_EW_KERNEL(NAME, CC)                                                                  \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK, 1) sk_ew_##NAME##_i32(                 \
        char* out, const char* in0, const char* in1, const char* in2, SkEw32 p) {              \
        sk_ew_body<int, CC>(out, in0, in1, in2, p);                                             \
    }                                                                                           \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK, 1) sk_ew_##NAME##_i64(                 \
        char* out, const char* in0, const char* in1, const char* in2, SkEw64 p) {              \
        sk_ew_body<long long, CC>(out, in0, in1, in2, p);                                       \
    }

SK_EW_KERNEL(bool, SK_CLASS_BOOL)
SK_EW_KERNEL(int, SK_CLASS_INT)
SK_EW_KERNEL(f32, SK_CLASS_F32)
SK_EW_KERNEL(f64, SK_CLASS_F64)
