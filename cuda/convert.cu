/* Converting copies fused with the layout change: dst[i] = convert(src[i]) for any
 * source and destination views, with the casting rules of src/scalar.rs (c10 on x86-64):
 * floats round to nearest even (f64 -> f16/bf16 rounds through f32, as c10 does), float ->
 * integer truncates toward zero with out-of-range and NaN giving the x86 "integer
 * indefinite" value, integer narrowing wraps, anything -> bool tests for non-zero.
 *
 * One generic kernel dispatches on the dtypes at run time (uniform per launch); the hot
 * float pairs are compiled as specialisations. */
#include "include/convert.cuh"

template <typename I, int SD, int DD, typename P>
__device__ __forceinline__ void sk_convert_body(char* __restrict__ dst, const char* __restrict__ src, const P& p) {
    sk_for_each_linear<I>((I)p.numel, [&](I linear) {
        I d, s;
        sk_offsets<I>(p, linear, d, s);
        const SkVal v = SD < 0 ? sk_load_dyn(p.src_dtype, src, (long long)s)
                               : sk_load<SD < 0 ? 0 : SD>(src, (long long)s);
        if (DD < 0) {
            sk_store_dyn(p.dst_dtype, dst, (long long)d, v);
        } else {
            sk_store<DD < 0 ? 0 : DD>(dst, (long long)d, v);
        }
    });
}

#define SK_CONVERT_KERNEL(NAME, SD, DD)                                                        \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_convert_##NAME##_i32(char* dst, const char* src, SkStrided32 p) {                 \
        sk_convert_body<int, SD, DD>(dst, src, p);                                             \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_convert_##NAME##_i64(char* dst, const char* src, SkStrided64 p) {                 \
        sk_convert_body<long long, SD, DD>(dst, src, p);                                       \
    }

SK_CONVERT_KERNEL(any, -1, -1)
SK_CONVERT_KERNEL(f32_f16, SK_F32, SK_F16)
SK_CONVERT_KERNEL(f16_f32, SK_F16, SK_F32)
SK_CONVERT_KERNEL(f32_bf16, SK_F32, SK_BF16)
SK_CONVERT_KERNEL(bf16_f32, SK_BF16, SK_F32)
SK_CONVERT_KERNEL(f64_f32, SK_F64, SK_F32)
SK_CONVERT_KERNEL(f32_f64, SK_F32, SK_F64)
