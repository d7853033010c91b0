/* stridekit's C ABI from C: copies between DLPack tensors (a transpose, NCHW to
 * channels_last, dtype conversions, a broadcast), a plan made once and run on new
 * buffers, the row gather, the caching allocator over the simulated device ("sim": its
 * blocks are host memory, so it runs on any machine), and error reporting.
 * tests/c_example.rs compiles it with the system C compiler against libstridekit (the
 * cdylib and the staticlib) and runs it; every check failing makes it exit 1.
 *
 *   cargo build --lib
 *   cc examples/c/stridekit_example.c -Iinclude -Ltarget/debug -lstridekit \
 *      -Wl,-rpath,$PWD/target/debug -o /tmp/stridekit_example && /tmp/stridekit_example
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stridekit.h"

static int failures = 0;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                 \
            fprintf(stderr, "\n");                        \
            failures++;                                   \
        }                                                 \
    } while (0)

#define OK(call)                                                              \
    do {                                                                      \
        int rc_ = (call);                                                     \
        CHECK(rc_ == STRIDEKIT_OK, "%s returned %d: %s", #call, rc_,          \
              stridekit_last_error());                                        \
    } while (0)

static DLTensor tensor(void *data, DLDataType dtype, int ndim, int64_t *shape,
                       int64_t *strides) {
    DLTensor t;
    t.data = data;
    t.device.device_type = kDLCPU;
    t.device.device_id = 0;
    t.ndim = ndim;
    t.dtype = dtype;
    t.shape = shape;
    t.strides = strides;
    t.byte_offset = 0;
    return t;
}

static const DLDataType F32 = {kDLFloat, 32, 1};
static const DLDataType F16 = {kDLFloat, 16, 1};
static const DLDataType I32 = {kDLInt, 32, 1};
static const DLDataType I64 = {kDLInt, 64, 1};

/* x = arange(12).view(4, 3); y = x.t().contiguous() */
static void transpose(void) {
    float x[12], y[12];
    for (int i = 0; i < 12; i++) x[i] = (float)i;
    int64_t shape[2] = {3, 4}, strides[2] = {1, 3};
    DLTensor src = tensor(x, F32, 2, shape, strides);
    DLTensor dst = tensor(y, F32, 2, shape, NULL); /* NULL strides: row-major */
    OK(stridekit_copy(&dst, &src, NULL));
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            CHECK(y[r * 4 + c] == x[c * 3 + r], "transpose y[%d][%d] = %g", r, c, y[r * 4 + c]);
    printf("transpose: ok\n");
}

/* NCHW (2, 3, 4, 5) into channels_last: same shape, strides (60, 1, 15, 3) */
static void channels_last(void) {
    enum { N = 2, C = 3, H = 4, W = 5 };
    float x[N * C * H * W], y[N * C * H * W];
    for (int i = 0; i < N * C * H * W; i++) x[i] = (float)i;
    int64_t shape[4] = {N, C, H, W};
    int64_t nhwc[4] = {H * W * C, 1, W * C, C};
    DLTensor src = tensor(x, F32, 4, shape, NULL);
    DLTensor dst = tensor(y, F32, 4, shape, nhwc);
    OK(stridekit_copy(&dst, &src, NULL));
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++) {
                    float want = x[((n * C + c) * H + h) * W + w];
                    float got = y[n * nhwc[0] + c * nhwc[1] + h * nhwc[2] + w * nhwc[3]];
                    CHECK(got == want, "channels_last (%d,%d,%d,%d) = %g", n, c, h, w, got);
                }
    printf("channels_last: ok\n");
}

/* float32 -> float16 (bit patterns) and float32 -> int32 (truncation, as PyTorch) */
static void conversions(void) {
    float x[4] = {1.0f, 0.5f, -2.75f, 65504.0f};
    uint16_t h[4];
    int32_t i[4];
    int64_t shape[1] = {4};
    DLTensor src = tensor(x, F32, 1, shape, NULL);
    DLTensor dh = tensor(h, F16, 1, shape, NULL);
    DLTensor di = tensor(i, I32, 1, shape, NULL);
    OK(stridekit_copy(&dh, &src, NULL));
    OK(stridekit_copy(&di, &src, NULL));
    const uint16_t want_h[4] = {0x3C00, 0x3800, 0xC180, 0x7BFF};
    const int32_t want_i[4] = {1, 0, -2, 65504};
    for (int k = 0; k < 4; k++) {
        CHECK(h[k] == want_h[k], "f16 bits[%d] = %#x, want %#x", k, h[k], want_h[k]);
        CHECK(i[k] == want_i[k], "int32[%d] = %d, want %d", k, i[k], want_i[k]);
    }
    /* A (1, 4) row broadcast into (3, 4). */
    float out[12];
    int64_t row[2] = {1, 4}, full[2] = {3, 4};
    DLTensor src_row = tensor(x, F32, 2, row, NULL);
    DLTensor dst_full = tensor(out, F32, 2, full, NULL);
    OK(stridekit_copy(&dst_full, &src_row, NULL));
    for (int k = 0; k < 12; k++) CHECK(out[k] == x[k % 4], "broadcast [%d] = %g", k, out[k]);
    printf("conversions: ok\n");
}

/* One plan, run on three pairs of buffers: no checks or planning per run. */
static void plan_reuse(void) {
    int64_t shape[2] = {8, 16}, tstrides[2] = {1, 8};
    DLTensor src = tensor(NULL, F32, 2, shape, tstrides); /* (16, 8) transposed */
    DLTensor dst = tensor(NULL, F32, 2, shape, NULL);
    StridekitPlan *plan = NULL;
    OK(stridekit_plan_new(&dst, &src, &plan));
    for (int run = 0; run < 3; run++) {
        float x[128], y[128];
        for (int k = 0; k < 128; k++) x[k] = (float)(k + 1000 * run);
        OK(stridekit_plan_run(plan, y, x, NULL));
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 16; c++)
                CHECK(y[r * 16 + c] == x[c * 8 + r], "plan run %d y[%d][%d]", run, r, c);
    }
    stridekit_plan_free(plan);
    printf("plan reuse: ok (3 runs)\n");
}

/* dst = src.index_select(0, index) */
static void row_gather(void) {
    float src[5 * 3], dst[3 * 3];
    for (int k = 0; k < 15; k++) src[k] = (float)k;
    int64_t index[3] = {4, 0, 2};
    int64_t sshape[2] = {5, 3}, dshape[2] = {3, 3}, ishape[1] = {3};
    DLTensor s = tensor(src, F32, 2, sshape, NULL);
    DLTensor d = tensor(dst, F32, 2, dshape, NULL);
    DLTensor i = tensor(index, I64, 1, ishape, NULL);
    OK(stridekit_row_gather(&d, &s, &i, NULL));
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            CHECK(dst[r * 3 + c] == src[index[r] * 3 + c], "gather [%d][%d]", r, c);
    index[1] = 5;
    CHECK(stridekit_row_gather(&d, &s, &i, NULL) == STRIDEKIT_ERR_TENSOR, "bad index accepted");
    CHECK(strcmp(stridekit_last_error(), "index out of range in self") == 0, "message: %s",
          stridekit_last_error());
    printf("row gather: ok\n");
}

static int stat_of(const char *json, const char *key) {
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(json, pattern);
    return at ? atoi(at + strlen(pattern)) : -1;
}

/* The caching allocator over the simulated device: PyTorch's policy, host memory. */
static void allocator(void) {
    StridekitAllocator *a = NULL;
    OK(stridekit_allocator_new("sim:1GiB", "max_split_size_mb:64", &a));
    if (!a) return;
    void *p = NULL, *q = NULL;
    OK(stridekit_allocator_malloc(a, 48, NULL, &p));
    OK(stridekit_allocator_malloc(a, 48, NULL, &q));
    CHECK((char *)q - (char *)p == 512, "two 48-byte blocks %p %p are not 512 bytes apart", p, q);
    /* The blocks are memory: copy a transpose into them. */
    float x[12];
    for (int k = 0; k < 12; k++) x[k] = (float)k;
    int64_t shape[2] = {3, 4}, strides[2] = {1, 3};
    DLTensor src = tensor(x, F32, 2, shape, strides);
    DLTensor dst = tensor(p, F32, 2, shape, NULL);
    OK(stridekit_copy(&dst, &src, NULL));
    CHECK(((float *)p)[1] == 3.0f, "copy into an allocator block");
    OK(stridekit_allocator_record_stream(a, q, (void *)0x2));
    char *stats = stridekit_allocator_stats_json(a);
    CHECK(stats != NULL, "stats: %s", stridekit_last_error());
    if (stats) {
        CHECK(stat_of(stats, "allocated_bytes.all.current") == 1024, "allocated: %s", stats);
        CHECK(stat_of(stats, "reserved_bytes.all.current") == 2097152, "reserved: %s", stats);
        stridekit_string_free(stats);
    }
    OK(stridekit_allocator_free(a, p));
    OK(stridekit_allocator_free(a, q));
    CHECK(stridekit_allocator_free(a, p) == STRIDEKIT_ERR_INVALID_ARGUMENT, "double free accepted");
    OK(stridekit_allocator_empty_cache(a));
    stats = stridekit_allocator_stats_json(a);
    if (stats) {
        CHECK(stat_of(stats, "reserved_bytes.all.current") == 0, "after empty_cache: %s", stats);
        CHECK(stat_of(stats, "allocated_bytes.all.peak") == 1024, "peak: %s", stats);
        stridekit_string_free(stats);
    }
    stridekit_allocator_destroy(a);
    printf("allocator (sim): ok\n");
}

/* Every failing call returns nonzero and says why. */
static void errors(void) {
    float x[20], y[12];
    int64_t s45[2] = {4, 5}, s34[2] = {3, 4};
    DLTensor src = tensor(x, F32, 2, s45, NULL);
    DLTensor dst = tensor(y, F32, 2, s34, NULL);
    CHECK(stridekit_copy(&dst, &src, NULL) == STRIDEKIT_ERR_TENSOR, "shape mismatch accepted");
    printf("error: %s\n", stridekit_last_error());
    int64_t zero[2] = {0, 1};
    DLTensor overlapping = tensor(y, F32, 2, s34, zero);
    CHECK(stridekit_copy(&overlapping, &dst, NULL) == STRIDEKIT_ERR_TENSOR, "overlap accepted");
    printf("error: %s\n", stridekit_last_error());
    DLTensor bad = dst;
    bad.dtype.lanes = 4;
    CHECK(stridekit_copy(&bad, &dst, NULL) == STRIDEKIT_ERR_INVALID_ARGUMENT, "lanes accepted");
    printf("error: %s\n", stridekit_last_error());
    CHECK(stridekit_copy(NULL, &dst, NULL) == STRIDEKIT_ERR_INVALID_ARGUMENT, "NULL accepted");
    StridekitAllocator *a = NULL;
    CHECK(stridekit_allocator_new("tpu", NULL, &a) == STRIDEKIT_ERR_INVALID_ARGUMENT, "tpu");
    printf("error: %s\n", stridekit_last_error());
    /* The CUDA paths fail cleanly where there is no GPU (and run where there is one). */
    DLTensor dev = dst;
    dev.device.device_type = kDLCUDA;
    int rc = stridekit_copy(&dev, &dev, NULL);
    CHECK(rc == STRIDEKIT_OK || rc == STRIDEKIT_ERR_DEVICE, "cuda copy: %d", rc);
    if (rc == STRIDEKIT_ERR_DEVICE) printf("cuda: %s\n", stridekit_last_error());
    void *t = stridekit_torch_malloc(1024, 0, NULL);
    if (t == NULL) {
        printf("torch allocator: %s\n", stridekit_last_error());
    } else {
        stridekit_torch_free(t, 1024, 0, NULL);
    }
    printf("errors: ok\n");
}

int main(void) {
    printf("stridekit %s\n", stridekit_version());
    transpose();
    channels_last();
    conversions();
    plan_reuse();
    row_gather();
    allocator();
    errors();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
