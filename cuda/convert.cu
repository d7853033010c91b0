/* Converting copies fused with the layout change: dst[i] = convert(src[i]) for any
 * source and destination views, with the casting rules of src/scalar.rs (c10 on x86-64):
 * floats round to nearest even (f64 -> f16/bf16 rounds through f32, as c10 does), float ->
 * integer truncates toward zero with out-of-range and NaN giving the x86 "integer
 * indefinite" value, integer narrowing wraps, anything -> bool tests for non-zero.
 *
 * One generic kernel dispatches on the dtypes at run time (uniform per launch); the hot
 * float pairs are compiled as specialisations. A converting copy between those float pairs that
 * is also a transpose (NCHW f32 -> NHWC f16, say) takes sk_tilecvt_*: the tiled transpose
 * of tile.cuh, each element converted as it enters the shared tile, so reads and writes are
 * both coalesced. */
#include "include/convert.cuh"
#include "include/tile.cuh"

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

/* The converting tile for the specialised pairs: source elements of dtype SD converted into
 * a tile of destination (DD) elements as they enter it, written out as in the copy tiles.
 * Other pairs that transpose take the element-wise kernel. */
template <typename I, int SD, int DD, typename T>
__device__ __forceinline__ void sk_tilecvt_body(T* __restrict__ dst, const char* __restrict__ src, const SkTile& p) {
    extern __shared__ sk_v16 sk_smem_raw[];
    T* tile = (T*)sk_smem_raw;
    /* 2-byte destinations keep plain 64-bit division for the batch offsets (tile.cuh
     * sk_tile_batch_offsets: SkDiv64 spilled on sm_80). */
    sk_tile_rows<T, I, sizeof(T) != 2>(dst, p, tile, [&](I s) {
        T out;
        sk_store<DD>((char*)&out, 0, sk_load<SD>(src, (long long)s));
        return out;
    });
}

#define SK_TILECVT_KERNEL(NAME, SD, DD, W)                                                     \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_tilecvt_##NAME##_i32(char* dst, const char* src, SkTile p) {                      \
        sk_tilecvt_body<int, SD, DD>((SkWord<W>::T*)dst, src, p);                              \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SK_BLOCK)                                     \
        sk_tilecvt_##NAME##_i64(char* dst, const char* src, SkTile p) {                      \
        sk_tilecvt_body<long long, SD, DD>((SkWord<W>::T*)dst, src, p);                        \
    }

SK_TILECVT_KERNEL(f32_f16, SK_F32, SK_F16, 2)
SK_TILECVT_KERNEL(f16_f32, SK_F16, SK_F32, 4)
SK_TILECVT_KERNEL(f32_bf16, SK_F32, SK_BF16, 2)
SK_TILECVT_KERNEL(bf16_f32, SK_BF16, SK_F32, 4)
SK_TILECVT_KERNEL(f64_f32, SK_F64, SK_F32, 4)
SK_TILECVT_KERNEL(f32_f64, SK_F32, SK_F64, 8)
