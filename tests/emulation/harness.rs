//! The harness of tests/kernel_emulation.rs and tests/kernel_model.rs: the layout and
//! element-wise kernels' own sources compiled as host C++ (a few lines of shims stand in for
//! CUDA's keywords and built-in variables), and jobs run through it. The recording variant
//! (SK_RECORD_ACCESS) also writes every global and shared access the kernels make.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use stridekit::backend::cuda::kernels::KERNEL_NAMES;

pub const EMULATED_BLOCK: u32 = 32;

/// A C++17 compiler: $CXX, else c++, g++ or clang++ from PATH.
fn compiler() -> Option<String> {
    let candidates = std::env::var("CXX")
        .ok()
        .into_iter()
        .chain(["c++", "g++", "clang++"].map(String::from));
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The parameter struct a kernel takes, from its name.
fn param_type(name: &str) -> &'static str {
    if name.starts_with("sk_ew_") {
        if name.ends_with("_i64") {
            "SkEw64"
        } else {
            "SkEw32"
        }
    } else if name.starts_with("sk_tile") {
        "SkTile"
    } else if name.starts_with("sk_rows") {
        "SkRowGather"
    } else if name.ends_with("_i64") {
        "SkStrided64"
    } else {
        "SkStrided32"
    }
}

/// Host stand-ins for the CUDA intrinsics convert.cuh uses (default rounding: to nearest
/// even; the `_rz` ones truncate), and the f16/bf16 conversions it leaves to the host.
const HOST_CONVERSIONS: &str = r#"
#include <cmath>
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline float __double2float_rn(double d) { return (float)d; }
static inline float __ll2float_rn(long long v) { return (float)v; }
static inline double __ll2double_rn(long long v) { return (double)v; }
static inline long long __double2ll_rz(double d) { return (long long)d; }
static inline int __double2int_rz(double d) { return (int)d; }
float sk_f16_to_f32(unsigned short h) {
    const int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v = exp == 0    ? std::ldexp((float)man, -24)
              : exp == 31 ? (man ? NAN : INFINITY)
                          : std::ldexp((float)(man | 0x400), exp - 25);
    return (h & 0x8000) ? -v : v;
}
unsigned short sk_f32_to_f16(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    const unsigned short sign = (u >> 16) & 0x8000;
    if (std::isnan(f)) return sign | 0x7e00;
    const float a = std::fabs(f);
    if (a >= 65520.0f) return sign | 0x7c00;
    if (a < 6.103515625e-05f) return sign | (unsigned short)std::nearbyint(a * 16777216.0f);
    int e;
    const float m = std::frexp(a, &e);
    float q = std::nearbyint(std::ldexp(m, 11));
    if (q == 2048.0f) { q = 1024.0f; e += 1; }
    if (e + 14 >= 31) return sign | 0x7c00;
    return sign | (unsigned short)((e + 14) << 10) | (unsigned short)(q - 1024.0f);
}
float sk_bf16_to_f32(unsigned short b) { return __uint_as_float((unsigned)b << 16); }
// elementwise.cu: explicitly rounded products and sums (x86-64 without FMA rounds each
// operation), and exp/pow from the host's libm, the functions the CPU backend calls.
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
float sk_expf(float a) { return std::exp(a); }
float sk_powf(float a, float b) { return std::pow(a, b); }
double sk_exp(double a) { return std::exp(a); }
double sk_pow(double a, double b) { return std::pow(a, b); }
double sk_nan() { return (double)NAN; }
unsigned short sk_f32_to_bf16(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    if (std::isnan(f)) return (unsigned short)((u >> 16) | 0x40);
    return (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
"#;

/// Every kernel of the module.
fn emulated_kernels() -> Vec<&'static str> {
    KERNEL_NAMES.to_vec()
}

/// The harness: shims, the kernel sources, a dispatcher by name, and a main that runs the
/// jobs of one file and writes every destination (and the row gather's flag) to another.
/// Built with SK_RECORD_ACCESS, it runs every block with SK_BLOCK threads (tile blocks too:
/// their destinations are then not checked, only where they read and write) and also
/// writes each access of SK_LD / SK_ST: block, thread, buffer, load or store, width, offset.
fn harness_source(cuda: &Path) -> String {
    let mut dispatch = String::new();
    for name in emulated_kernels() {
        let ty = param_type(name);
        let (threads, call) = if name.starts_with("sk_tile") {
            ("SK_TILE_THREADS", format!("{name}(dst, src, p)"))
        } else if name.starts_with("sk_rows") {
            let ix = if name.ends_with("idx64") {
                "long long"
            } else {
                "int"
            };
            (
                "SK_BLOCK",
                format!("{name}(dst, src, (const {ix}*)index, p)"),
            )
        } else if name.starts_with("sk_ew_") {
            ("SK_BLOCK", format!("{name}(dst, src, index, extra, p)"))
        } else {
            ("SK_BLOCK", format!("{name}(dst, src, p)"))
        };
        let flag = if ty == "SkRowGather" {
            "p.error_flag = (unsigned long long)(uintptr_t)flag;"
        } else {
            ""
        };
        // The row gather and the realigning copy exchange values between lanes
        // (__shfl_sync): their warps run in lockstep, the others thread after thread.
        let runner = if name.starts_with("sk_rows") || name.starts_with("sk_realign") {
            "run_warps"
        } else {
            "run"
        };
        dispatch.push_str(&format!(
            "    if (name == \"{name}\") {{\n        {ty} p;\n        if (plen != sizeof p) return 2;\n        std::memcpy(&p, params, sizeof p);\n        {flag}\n        {runner}(gx, gy, {threads}, [&] {{ {call}; }});\n        return 0;\n    }}\n"
        ));
    }
    let src = |f: &str| cuda.join(f).display().to_string();
    format!(
        r#"// Generated by tests/kernel_emulation.rs.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct SkDim3 {{ unsigned x, y, z; }};
static SkDim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
static inline void __syncthreads() {{}}
// CUDA's __umulhi: the high 32 bits of the 64-bit product of two unsigned ints.
static inline unsigned __umulhi(unsigned a, unsigned b) {{ return (unsigned)(((unsigned long long)a * b) >> 32); }}
// CUDA's __byte_perm: byte n of the result is byte (s >> 4n) & 7 of the 8 bytes of y:x.
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {{
    const unsigned long long b = (unsigned long long)y << 32 | x;
    unsigned r = 0;
    for (int n = 0; n < 4; ++n) r |= (unsigned)((b >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return r;
}}
// CUDA's __umul64hi: the high 64 bits of the 128-bit product of two unsigned long longs.
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {{ return (unsigned long long)(((unsigned __int128)a * b) >> 64); }}
#ifdef SK_RECORD_ACCESS
// Accesses in program order per thread; buffers: 0 dst, 1 src, 2 index, 3 shared.
struct SkRec {{ unsigned block, thread; unsigned char buffer, store; unsigned short bytes; unsigned long long at; }};
static std::vector<SkRec> sk_recs;
static const char* sk_bases[4];
static size_t sk_lens[4];
static void sk_record(const void* p, size_t bytes, bool store) {{
    const char* c = (const char*)p;
    for (unsigned char b = 0; b < 4; ++b)
        if (sk_bases[b] && c >= sk_bases[b] && c + bytes <= sk_bases[b] + sk_lens[b]) {{
            sk_recs.push_back({{blockIdx.y * gridDim.x + blockIdx.x, threadIdx.x, b, (unsigned char)store,
                               (unsigned short)bytes, (unsigned long long)(c - sk_bases[b])}});
            return;
        }}
    fprintf(stderr, "access outside every buffer\n");
    std::abort();
}}
template <typename T> static inline T sk_rec_ld(const T* p) {{ sk_record(p, sizeof(T), false); return *p; }}
template <typename T, typename V> static inline void sk_rec_st(T* p, const V& v) {{ sk_record(p, sizeof(T), true); *p = v; }}
#define SK_LD(p) sk_rec_ld(p)
#define SK_ST(p, v) sk_rec_st((p), (v))
#define SK_TILE_THREADS SK_BLOCK
#else
#define SK_TILE_THREADS 1
#endif
// Warps in lockstep for the kernels whose lanes exchange values (__shfl_sync): each lane
// of a warp is a coroutine (ucontext) that runs until its next shuffle or its end; when
// every lane waits at a shuffle, the values they offered are published and each lane
// resumes with its source lane's. A shuffle that not every lane of the warp reaches (a
// full mask is the only one the kernels use) is an error.
#include <algorithm>
#include <functional>
#include <ucontext.h>
static ucontext_t sk_sched, sk_lane_ctx[32];
static std::function<void()>* sk_lane_body;
static unsigned sk_lane_now;
static bool sk_lane_done[32], sk_lockstep;
static unsigned long long sk_offered[32], sk_published[32];
static void sk_lane_entry() {{
    (*sk_lane_body)();
    sk_lane_done[sk_lane_now] = true;
}}
template <typename T>
static inline T __shfl_sync(unsigned mask, T v, int src) {{
    static_assert(sizeof(T) <= 8, "shuffled values are at most 8 bytes");
    if (!sk_lockstep || mask != 0xffffffffu) {{
        fprintf(stderr, "__shfl_sync outside a lockstep warp or with a partial mask\n");
        std::abort();
    }}
    const unsigned lane = sk_lane_now;
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    sk_offered[lane] = bits;
    swapcontext(&sk_lane_ctx[lane], &sk_sched);
    T out;
    bits = sk_published[(unsigned)src % 32];
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}}
{conversions}
#include "{gather}"
#include "{permute}"
#include "{index}"
#include "{convert}"
#include "{elementwise}"

sk_v16 sk_smem_raw[232448 / sizeof(sk_v16)]; /* an H200 block's opt-in shared memory */

template <typename F>
static void run_warps(unsigned gx, unsigned gy, unsigned threads, F f) {{
    static std::vector<char> stacks(32 * 256 * 1024);
    std::function<void()> body = f;
    sk_lane_body = &body;
    gridDim = {{gx, gy, 1}};
    blockDim = {{threads, 1, 1}};
    sk_lockstep = true;
    for (unsigned by = 0; by < gy; ++by)
        for (unsigned bx = 0; bx < gx; ++bx) {{
            blockIdx = {{bx, by, 0}};
            for (unsigned w = 0; w < threads; w += 32) {{
                for (unsigned l = 0; l < 32; ++l) {{
                    sk_lane_done[l] = false;
                    getcontext(&sk_lane_ctx[l]);
                    sk_lane_ctx[l].uc_stack.ss_sp = &stacks[l * 256 * 1024];
                    sk_lane_ctx[l].uc_stack.ss_size = 256 * 1024;
                    sk_lane_ctx[l].uc_link = &sk_sched;
                    makecontext(&sk_lane_ctx[l], sk_lane_entry, 0);
                }}
                for (;;) {{
                    unsigned done = 0;
                    for (unsigned l = 0; l < 32; ++l) {{
                        if (sk_lane_done[l]) {{
                            ++done;
                            continue;
                        }}
                        sk_lane_now = l;
                        threadIdx = {{w + l, 0, 0}};
                        swapcontext(&sk_sched, &sk_lane_ctx[l]);
                        done += sk_lane_done[l];
                    }}
                    if (done == 32) break;
                    if (done != 0) {{
                        fprintf(stderr, "a shuffle that some lanes of the warp never reach\n");
                        std::abort();
                    }}
                    std::memcpy(sk_published, sk_offered, sizeof sk_published);
                }}
            }}
        }}
    sk_lockstep = false;
}}

template <typename F>
static void run(unsigned gx, unsigned gy, unsigned threads, F f) {{
    gridDim = {{gx, gy, 1}};
    blockDim = {{threads, 1, 1}};
    for (unsigned by = 0; by < gy; ++by)
        for (unsigned bx = 0; bx < gx; ++bx) {{
            blockIdx = {{bx, by, 0}};
            for (unsigned t = 0; t < threads; ++t) {{
                threadIdx = {{t, 0, 0}};
                f();
            }}
        }}
}}

static int dispatch(const std::string& name, unsigned gx, unsigned gy, const char* params,
                    size_t plen, char* dst, const char* src, const char* index, const char* extra,
                    int* flag) {{
{dispatch}    return 1;
}}

static std::vector<char> read_block(FILE* in, uint64_t* len) {{
    if (fread(len, 8, 1, in) != 1) return {{}};
    // 16-byte aligned, as cuMemAlloc's pointers are.
    std::vector<sk_v16> words(*len / 16 + 2);
    if (*len && fread(words.data(), 1, *len, in) != *len) *len = ~0ull;
    return std::vector<char>((char*)words.data(), (char*)words.data() + words.size() * 16);
}}

int main(int argc, char** argv) {{
    if (argc != 3) return 64;
    FILE* in = fopen(argv[1], "rb");
    FILE* out = fopen(argv[2], "wb");
    if (!in || !out) return 65;
    uint32_t jobs;
    if (fread(&jobs, 4, 1, in) != 1) return 66;
    for (uint32_t j = 0; j < jobs; ++j) {{
        uint64_t nlen, plen, dlen, slen, ilen, elen;
        std::vector<char> name = read_block(in, &nlen), params = read_block(in, &plen);
        uint32_t grid[2];
        if (fread(grid, 4, 2, in) != 2) return 67;
        std::vector<char> dst = read_block(in, &dlen), src = read_block(in, &slen),
                          index = read_block(in, &ilen), extra = read_block(in, &elen);
        if (nlen == ~0ull || plen == ~0ull || dlen == ~0ull || slen == ~0ull || ilen == ~0ull ||
            elen == ~0ull)
            return 68;
        // Word-aligned copies: vectors of sk_v16 start 16-byte aligned; dst and src are
        // moved on to 256 bytes, as cudaMalloc's pointers are (sk_realign_* takes its
        // phases from the addresses, and the model counts sectors from the bases).
        std::vector<sk_v16> dv(dlen / 16 + 18), sv(slen / 16 + 18), ix(ilen / 16 + 2), ex(elen / 16 + 2);
        sk_v16* const dp = (sk_v16*)(((uintptr_t)dv.data() + 255) & ~(uintptr_t)255);
        sk_v16* const sp = (sk_v16*)(((uintptr_t)sv.data() + 255) & ~(uintptr_t)255);
        struct {{ sk_v16* p; size_t n; sk_v16* data() const {{ return p; }} size_t size() const {{ return n; }} }}
            d{{dp, dlen / 16 + 2}}, s{{sp, slen / 16 + 2}};
        std::memcpy(d.data(), dst.data(), dlen);
        std::memcpy(s.data(), src.data(), slen);
        std::memcpy(ix.data(), index.data(), ilen);
        std::memcpy(ex.data(), extra.data(), elen);
        int flag = 0;
        std::string n(name.data(), nlen);
#ifdef SK_RECORD_ACCESS
        sk_recs.clear();
        sk_bases[0] = (const char*)d.data(); sk_lens[0] = d.size() * 16;
        sk_bases[1] = (const char*)s.data(); sk_lens[1] = s.size() * 16;
        sk_bases[2] = (const char*)ix.data(); sk_lens[2] = ix.size() * 16;
        sk_bases[3] = (const char*)sk_smem_raw; sk_lens[3] = sizeof sk_smem_raw;
#endif
        int rc = dispatch(n, grid[0], grid[1], params.data(), plen, (char*)d.data(),
                          (const char*)s.data(), (const char*)ix.data(), (const char*)ex.data(),
                          &flag);
        if (rc) {{
            fprintf(stderr, "job %u: kernel %s: %s\n", j, n.c_str(),
                    rc == 1 ? "unknown" : "parameter size mismatch");
            return 70;
        }}
        fwrite(d.data(), 1, dlen, out);
        fwrite(&flag, 4, 1, out);
#ifdef SK_RECORD_ACCESS
        // Lockstep warps interleave their lanes' accesses: each thread's in program order.
        std::stable_sort(sk_recs.begin(), sk_recs.end(), [](const SkRec& a, const SkRec& b) {{
            return a.block != b.block ? a.block < b.block : a.thread < b.thread;
        }});
        uint64_t nrec = sk_recs.size();
        fwrite(&nrec, 8, 1, out);
        fwrite(sk_recs.data(), sizeof(SkRec), nrec, out);
#endif
    }}
    return fclose(out) == 0 ? 0 : 71;
}}
"#,
        gather = src("gather_scatter.cu"),
        permute = src("permute.cu"),
        index = src("index.cu"),
        convert = src("convert.cu"),
        elementwise = src("elementwise.cu"),
        conversions = HOST_CONVERSIONS,
    )
}

/// cuda/*.cu and cuda/include/*, sorted.
fn kernel_sources(cuda: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = [cuda.to_path_buf(), cuda.join("include")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Compiles the harness once and keeps it under the target's test scratch folder
/// (`CARGO_TARGET_TMPDIR`), in a folder named by a hash of the harness and kernel sources,
/// compiler and flags: later runs reuse it, a changed kernel source gets a new one. The executable is
/// written under a temporary name and renamed into place, so test processes starting
/// together never run a half-written file. None (after saying why) without a compiler.
pub fn harness() -> Option<PathBuf> {
    static EXE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    EXE.get_or_init(|| build_harness(false)).clone()
}

/// The recording harness (SK_RECORD_ACCESS, SK_BLOCK = 256 as on a GPU).
pub fn recorder() -> Option<PathBuf> {
    static EXE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    EXE.get_or_init(|| build_harness(true)).clone()
}

fn build_harness(record: bool) -> Option<PathBuf> {
    {
        let Some(cxx) = compiler() else {
            eprintln!("kernel emulation: skipped: no C++ compiler ($CXX, c++, g++, clang++)");
            return None;
        };
        let cuda = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda");
        let source = harness_source(&cuda);
        let mut flags = vec![
            "-std=c++17".to_string(),
            "-O2".into(),
            "-Wall".into(),
            "-Wno-unknown-pragmas".into(),
        ];
        if record {
            flags.push("-DSK_RECORD_ACCESS".into());
            flags.push(format!(
                "-DSK_BLOCK={}",
                stridekit::backend::cuda::choose::BLOCK
            ));
        } else {
            flags.push(format!("-DSK_BLOCK={EMULATED_BLOCK}"));
        }
        let prefix = if record { "recorder-" } else { "emulation-" };
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&source, &cxx, &flags).hash(&mut h);
            // The harness #includes the kernel sources: their text is part of the key.
            for f in kernel_sources(&cuda) {
                std::fs::read(&f).unwrap().hash(&mut h);
            }
            h.finish()
        };
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}{key:016x}"));
        let exe = dir.join("harness");
        if exe.is_file() {
            return Some(exe);
        }
        std::fs::create_dir_all(&dir).unwrap();
        let tmp = format!("{}", std::process::id());
        let cpp = dir.join(format!("harness-{tmp}.cpp"));
        std::fs::write(&cpp, &source).unwrap();
        let building = dir.join(format!("harness-{tmp}"));
        let out = Command::new(&cxx)
            .args(&flags)
            .arg(&cpp)
            .arg("-o")
            .arg(&building)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&cpp);
        assert!(
            out.status.success(),
            "{cxx} could not compile the kernels as host code:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::rename(&building, &exe).unwrap();
        // Harnesses of older kernel sources are not needed again.
        for e in std::fs::read_dir(dir.parent().unwrap()).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(prefix) && e.path() != dir {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        Some(exe)
    }
}

/// One launch to emulate, with its inputs and the bytes the CPU backend expects.
#[derive(Clone)]
pub struct Job {
    pub kernel: &'static str,
    pub grid: (u32, u32),
    pub params: Vec<u8>,
    pub dst: Vec<u8>,
    pub src: Vec<u8>,
    pub index: Vec<u8>,
    /// The element-wise kernels' third input (empty for the others).
    pub extra: Vec<u8>,
    pub want: Vec<u8>,
    pub what: String,
}

pub fn struct_bytes<T: Copy>(v: &T) -> Vec<u8> {
    // SAFETY: the parameter structs are plain C data (bindgen mirrors of params.h).
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, size_of::<T>()) }.to_vec()
}

pub fn kernel_named(name: &str) -> &'static str {
    KERNEL_NAMES.iter().find(|n| **n == name).unwrap()
}

/// Writes the jobs' file, runs `exe` on it and returns what it wrote.
fn execute(exe: &Path, jobs: &[Job]) -> Vec<u8> {
    let dir = exe.parent().unwrap();
    // The harness folder is shared by every test process: name the files by process and
    // thread, and remove them afterwards.
    let thread =
        format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_alphanumeric(), "");
    let tag = format!("{}-{thread}", std::process::id());
    let (job_path, out_path) = (
        dir.join(format!("jobs{tag}")),
        dir.join(format!("out{tag}")),
    );
    let mut f = std::io::BufWriter::new(std::fs::File::create(&job_path).unwrap());
    let block = |f: &mut std::io::BufWriter<std::fs::File>, b: &[u8]| {
        f.write_all(&(b.len() as u64).to_le_bytes()).unwrap();
        f.write_all(b).unwrap();
    };
    f.write_all(&(jobs.len() as u32).to_le_bytes()).unwrap();
    for j in jobs {
        block(&mut f, j.kernel.as_bytes());
        block(&mut f, &j.params);
        f.write_all(&j.grid.0.to_le_bytes()).unwrap();
        f.write_all(&j.grid.1.to_le_bytes()).unwrap();
        block(&mut f, &j.dst);
        block(&mut f, &j.src);
        block(&mut f, &j.index);
        block(&mut f, &j.extra);
    }
    drop(f);
    let out = Command::new(exe)
        .arg(&job_path)
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "harness failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let got = std::fs::read(&out_path).unwrap();
    let _ = std::fs::remove_file(&job_path);
    let _ = std::fs::remove_file(&out_path);
    got
}

/// Runs the jobs through the harness and checks each destination; returns the kernels run,
/// or the first difference from the CPU backend.
pub fn run_jobs(exe: &Path, jobs: &[Job]) -> Result<BTreeSet<&'static str>, String> {
    run_jobs_flagged(exe, jobs, &vec![false; jobs.len()])
}

/// [`run_jobs`] for jobs of the row gather, `flags[i]` whether job i must set the error
/// flag (an out-of-range index) or must leave it clear.
pub fn run_jobs_flagged(
    exe: &Path,
    jobs: &[Job],
    flags: &[bool],
) -> Result<BTreeSet<&'static str>, String> {
    assert_eq!(jobs.len(), flags.len());
    let got = execute(exe, jobs);
    let mut at = 0;
    let mut used = BTreeSet::new();
    for (j, &want_flag) in jobs.iter().zip(flags) {
        let dst = &got[at..at + j.dst.len()];
        let flag = i32::from_le_bytes(
            got[at + j.dst.len()..at + j.dst.len() + 4]
                .try_into()
                .unwrap(),
        );
        at += j.dst.len() + 4;
        if dst != j.want.as_slice() {
            let first = dst.iter().zip(&j.want).position(|(a, b)| a != b).unwrap();
            return Err(format!(
                "{} ({}): differs from the CPU backend at byte {first} (want {:#04x}, got {:#04x})",
                j.what, j.kernel, j.want[first], dst[first]
            ));
        }
        if flag != 0 && !want_flag {
            return Err(format!("{} ({}): error flag set", j.what, j.kernel));
        }
        if flag == 0 && want_flag {
            return Err(format!("{} ({}): error flag not set", j.what, j.kernel));
        }
        used.insert(j.kernel);
    }
    assert_eq!(at, got.len());
    Ok(used)
}

/// One recorded access: block (linear, x fastest), thread, buffer (0 dst, 1 src, 2 index,
/// 3 shared), store, width, byte offset from the buffer's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rec {
    pub block: u32,
    pub thread: u32,
    pub buffer: u8,
    pub store: bool,
    pub bytes: u16,
    pub at: u64,
}

/// Runs the jobs through the recording harness; returns each job's accesses in the order
/// the threads made them (blocks in order, a block's threads one after the other).
pub fn record_jobs(exe: &Path, jobs: &[Job]) -> Vec<Vec<Rec>> {
    let got = execute(exe, jobs);
    let u = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
    let mut at = 0;
    let mut out = Vec::new();
    for j in jobs {
        at += j.dst.len() + 4;
        let n = u(&got[at..at + 8]) as usize;
        at += 8;
        let recs = got[at..at + 24 * n]
            .chunks_exact(24)
            .map(|r| Rec {
                block: u32::from_le_bytes(r[0..4].try_into().unwrap()),
                thread: u32::from_le_bytes(r[4..8].try_into().unwrap()),
                buffer: r[8],
                store: r[9] != 0,
                bytes: u16::from_le_bytes(r[10..12].try_into().unwrap()),
                at: u(&r[16..24]),
            })
            .collect();
        at += 24 * n;
        out.push(recs);
    }
    assert_eq!(at, got.len());
    out
}
