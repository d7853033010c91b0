/* Kernel argument structs for stridekit's CUDA kernels: the one definition.
 *
 * Every kernel takes its metadata BY VALUE in one of these structs (no host-to-device copy
 * of sizes or strides per launch). src/backend/cuda/params.rs mirrors this file through
 * bindgen; tests/params_bindgen.rs checks that the mirror is current.
 *
 * Sizes and strides are in elements of the kernel's element width, outermost dimension
 * first, innermost last. Offsets are in elements from the base pointers. Unused trailing
 * entries (index >= rank) are ignored.
 */
#ifndef STRIDEKIT_PARAMS_H
#define STRIDEKIT_PARAMS_H

#if defined(__CUDACC_RTC__)
typedef int int32_t;
typedef long long int64_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif

#define SK_MAX_RANK 8

/* Element types, in src/dtype.rs order (DType::ALL). */
enum SkDType {
    SK_BOOL = 0,
    SK_U8 = 1,
    SK_I8 = 2,
    SK_I16 = 3,
    SK_I32 = 4,
    SK_I64 = 5,
    SK_F16 = 6,
    SK_BF16 = 7,
    SK_F32 = 8,
    SK_F64 = 9
};

/* A run-time divisor d >= 1 prepared on the host (src/backend/cuda/divisor.rs: div32) so
 * that the kernels divide without a divide instruction (~20 SASS instructions for a 32-bit
 * division by a run-time value): for 0 <= n <= 2^31 and 1 <= d <= 2^31,
 *     n / d == (__umulhi(n, m) + n) >> s        (common.cuh: sk_div)
 * with s = ceil(log2 d) and m = ceil(2^(32+s) / d) - 2^32, which fits 32 bits. Proof
 * (Granlund-Montgomery): M = m + 2^32 = ceil(2^(32+s) / d) is M d = 2^(32+s) + e with
 * 0 <= e < d <= 2^s, so n M / 2^(32+s) = n / d + n e / (d 2^(32+s)), and the second term is
 * below n / 2^(32+s) < 2^-s <= 1/d while n / d's fraction is at most (d - 1) / d: the floor
 * is n / d's. M < 2^33 as d > 2^(s-1), M >= 2^32 as d <= 2^s. floor(n M / 2^(32+s)) =
 * (floor(n m / 2^32) + n) >> s, and floor(n m / 2^32) < n, so the 32-bit sum does not wrap
 * for n <= 2^31: every dividend of the 32-bit index kernels (offsets, numel and grid indices
 * below 2^31, tile coordinates). d = 1 and powers of two give m = 0. */
typedef struct SkDiv32 {
    uint32_t d; /* the divisor */
    uint32_t m; /* ceil(2^(32+s) / d) - 2^32 */
    uint32_t s; /* ceil(log2 d) */
} SkDiv32;

/* The same for the 64-bit index kernels (divisor.rs: div64; common.cuh: sk_div64): for
 * 0 <= n <= 2^63 and 1 <= d <= 2^63,
 *     n / d == (__umul64hi(n, m) + n) >> s
 * with s = ceil(log2 d) and m = ceil(2^(64+s) / d) - 2^64 (< 2^64): SkDiv32's proof with
 * 64 for 32. floor(n m / 2^64) < n <= 2^63, so the 64-bit sum does not wrap. Every dividend
 * of those kernels (a linear index below numel < 2^63, a batch index) is in range. A
 * 64-bit division by a run-time value is, on sm_90 (nvcc 13.0), a 32-bit path (~19 SASS
 * instructions, 3 on the conversion/MUFU pipe) when both operands fit 32 bits and a call
 * of an 84-instruction subroutine otherwise; this is a multiply-high (4 32-bit
 * multiply-adds), an add and a shift, no branch. */
typedef struct SkDiv64 {
    uint64_t d; /* the divisor */
    uint64_t m; /* ceil(2^(64+s) / d) - 2^64 */
    uint32_t s; /* ceil(log2 d) */
    uint32_t pad_;
} SkDiv64;

/* Element-wise strided copy, 32-bit indexing: every offset the kernel computes, and numel,
 * fit in int32. Used by gather, scatter, general strided copies and converting copies. */
typedef struct SkStrided32 {
    int32_t sizes[SK_MAX_RANK];
    int32_t dst_strides[SK_MAX_RANK];
    int32_t src_strides[SK_MAX_RANK];
    int32_t dst_offset;
    int32_t src_offset;
    int32_t numel;
    int32_t rank;
    /* Converting copies only: SkDType codes (ignored by pure copies). */
    int32_t dst_dtype;
    int32_t src_dtype;
    /* sizes[k] as divisors (k < rank), for the offsets of a linear index. */
    SkDiv32 size_divs[SK_MAX_RANK];
} SkStrided32;

/* The same with 64-bit indexing, for tensors over 2^31 elements or far offsets. */
typedef struct SkStrided64 {
    int64_t sizes[SK_MAX_RANK];
    int64_t dst_strides[SK_MAX_RANK];
    int64_t src_strides[SK_MAX_RANK];
    int64_t dst_offset;
    int64_t src_offset;
    int64_t numel;
    int32_t rank;
    int32_t dst_dtype;
    int32_t src_dtype;
    int32_t pad_;
    /* sizes[k] as divisors (k < rank), for the offsets of a linear index. */
    SkDiv64 size_divs[SK_MAX_RANK];
} SkStrided64;

/* Tiled transpose (permute): dimension A is the destination's innermost (dst stride 1),
 * dimension B is the source's innermost (src stride 1). A block moves a tile_a x tile_b
 * tile through shared memory so that both the reads (along B) and the writes (along A) are
 * contiguous. Tiny inner dimensions (channels_last with C = 3) use a tile that spans the
 * whole small dimension and a long run of the other one. The remaining dimensions are a
 * batch; a block walks several tiles and batch indices (tile.cuh sk_tile_walk). */
typedef struct SkTile {
    int64_t batch_sizes[SK_MAX_RANK];
    int64_t batch_dst_strides[SK_MAX_RANK];
    int64_t batch_src_strides[SK_MAX_RANK];
    int64_t dst_offset;
    int64_t src_offset;
    int64_t batch;        /* product of batch_sizes */
    int64_t n_a;          /* size of dimension A */
    int64_t n_b;          /* size of dimension B */
    int64_t dst_stride_b; /* destination stride of B (A has stride 1) */
    int64_t src_stride_a; /* source stride of A (B has stride 1) */
    int32_t batch_rank;
    int32_t tile_a;       /* tile extent along A */
    int32_t tile_b;       /* tile extent along B */
    int32_t tiles_b;      /* number of tiles along B: blockIdx.x = tile_a_index * tiles_b + tile_b_index */
    /* The converting tile only: SkDType codes (ignored by pure copies). The packed tile
     * (permute.cu sk_tilep_*) reads them as its ragged last chunks' sizes: src_dtype the A
     * group's, dst_dtype the B group's (0: none). */
    int32_t dst_dtype;
    int32_t src_dtype;
    /* The scalar and 16-byte tiles: tiles_a * tiles_b, the tiles a batch index has. The
     * launch's grid is bounded (choose.rs tile_grid): blockIdx.x walks the tiles by
     * gridDim.x, blockIdx.y a contiguous chunk of the batch (tile.cuh sk_tile_walk). */
    int32_t tiles;
    /* Divisors (SkDiv32), set by the host from the fields above (divisor.rs: tile_divisors).
     * The tiles' word index: tiles_b (blockIdx.x's split); the tile's extents along A and B
     * in its access units (V = 16 / width elements for the 16-byte tile sk_tilev_*, one
     * element for sk_tile_* and the converting tile), of a full tile and of the last tile
     * along each (equal to the full one when the size divides); batch_sizes[k] (every
     * entry, 1 where unused: the packed tile's groups too), used by the 32-bit kernels. */
    SkDiv32 div_tiles_b;
    SkDiv32 div_a;
    SkDiv32 div_b;
    SkDiv32 div_a_edge;
    SkDiv32 div_b_edge;
    SkDiv32 batch_divs[SK_MAX_RANK];
    /* batch_sizes[k] as SkDiv64 (every entry, 1 where unused), used by the 64-bit kernels'
     * batch offsets. */
    SkDiv64 batch_divs64[SK_MAX_RANK];
} SkTile;

/* Row gather along dim 0 (index_select, embedding lookup):
 * dst[r, :] = src[index[r], :] for r < num_rows; rows are row_len contiguous elements. */
typedef struct SkRowGather {
    int64_t num_rows;       /* number of indices = rows written */
    int64_t row_len;        /* elements per row (contiguous on both sides) */
    int64_t src_rows;       /* rows in the source, for the bounds check */
    int64_t src_row_stride; /* elements between source rows */
    int64_t dst_row_stride; /* elements between destination rows */
    int64_t src_offset;
    int64_t dst_offset;
    /* Device pointer to an int32 set to 1 when an index is out of range (0: no report). */
    uint64_t error_flag;
} SkRowGather;

/* Element-wise ops (cuda/elementwise.cu): out = op(inputs...) over the output and up to
 * three inputs in arbitrary strided layouts, all of the output's shape (broadcast
 * dimensions have stride 0), folded together by the copy plan's folding
 * (src/plan/elementwise.rs). Operand 0 of the stride and offset arrays is the output,
 * operand k + 1 is input k. */
#define SK_EW_MAX_OPERANDS 4
#define SK_EW_MAX_INPUTS 3

/* The op codes (src/backend/cuda/elementwise.rs: op_code). */
enum SkEwOp {
    SK_EW_ADD = 0, /* a + alpha * b */
    SK_EW_SUB = 1, /* a - alpha * b */
    SK_EW_MUL = 2,
    SK_EW_DIV = 3, /* true division (floating computation) */
    SK_EW_FLOOR_DIV = 4,
    SK_EW_REMAINDER = 5,
    SK_EW_POW = 6,
    SK_EW_EQ = 7,
    SK_EW_NE = 8,
    SK_EW_LT = 9,
    SK_EW_LE = 10,
    SK_EW_GT = 11,
    SK_EW_GE = 12,
    SK_EW_BIT_AND = 13,
    SK_EW_BIT_OR = 14,
    SK_EW_BIT_XOR = 15,
    SK_EW_NEG = 16,
    SK_EW_ABS = 17,
    SK_EW_SQRT = 18,
    SK_EW_EXP = 19,
    SK_EW_SQUARE = 20,
    SK_EW_INVERT = 21,
    SK_EW_WHERE = 22, /* inputs: condition, a, b */
    SK_EW_CLAMP = 23, /* inputs: a, then min and/or max as clamp_min / clamp_max say */
    SK_EW_TRUNC_DIV = 24,
    SK_EW_MAXIMUM = 25,
    SK_EW_MINIMUM = 26,
    SK_EW_LOGICAL_AND = 27,
    SK_EW_LOGICAL_OR = 28,
    SK_EW_LOGICAL_XOR = 29,
    SK_EW_LOGICAL_NOT = 30
};

/* One input: a tensor (dtype: its SkDType code; its strides and offset are operand k + 1)
 * or a Python number (dtype -1), already converted to the computation dtype on the host:
 * kind 0 bool, 1 integer (i), 2 floating (f). */
typedef struct SkEwInput {
    int64_t i;
    double f;
    int32_t dtype;
    int32_t kind;
} SkEwInput;

/* What to compute, the same for both index widths. */
typedef struct SkEwArgs {
    SkEwInput inputs[SK_EW_MAX_INPUTS];
    /* add/sub's alpha, checked against the computation dtype: as f64, as i64, as bool */
    double alpha_f;
    int64_t alpha_i;
    int32_t alpha_b;
    int32_t op;            /* SkEwOp */
    int32_t arity;         /* inputs used */
    int32_t compute_dtype; /* SkDType the op computes in (PyTorch's promoted type) */
    int32_t out_dtype;     /* SkDType of the output */
    int32_t clamp_min;     /* clamp: whether input 1 is a lower bound */
    int32_t clamp_max;     /* clamp: whether the next input is an upper bound */
    int32_t pad_;
} SkEwArgs;

/* Element-wise op, 32-bit indexing (every offset reached, and numel, fit in int32). */
typedef struct SkEw32 {
    int32_t sizes[SK_MAX_RANK];
    int32_t strides[SK_EW_MAX_OPERANDS][SK_MAX_RANK];
    int32_t offsets[SK_EW_MAX_OPERANDS];
    int32_t numel;
    int32_t rank;
    SkEwArgs args;
    /* sizes[k] as divisors (every entry, 1 where unused), for the offsets of a linear
     * index. */
    SkDiv32 size_divs[SK_MAX_RANK];
} SkEw32;

/* The same with 64-bit indexing. */
typedef struct SkEw64 {
    int64_t sizes[SK_MAX_RANK];
    int64_t strides[SK_EW_MAX_OPERANDS][SK_MAX_RANK];
    int64_t offsets[SK_EW_MAX_OPERANDS];
    int64_t numel;
    int32_t rank;
    int32_t pad_;
    SkEwArgs args;
    /* sizes[k] as divisors (every entry, 1 where unused), for the offsets of a linear
     * index. */
    SkDiv64 size_divs[SK_MAX_RANK];
} SkEw64;

#endif /* STRIDEKIT_PARAMS_H */
