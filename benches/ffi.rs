//! The per-call cost of the C ABI, on the CPU backend, for calls small enough that the
//! per-call work shows (the element loop of larger ones hides it on the CPU; on a GPU the
//! run is a launch, so the same microseconds are spent before it): TV-209's 3x4 transpose,
//! NCHW to channels_last with C = 3, a float32 to bfloat16 conversion, and a 512-byte
//! malloc/free pair on a `"sim"` caching allocator. Needs no GPU.
//!
//! - `c_abi/stridekit_copy`: reads both DLTensors, checks, plans, runs;
//! - `c_abi/stridekit_plan_run`: a plan made once, run through its handle;
//! - `c_abi/copy_op_run`: the same plan's `CopyOp::run` called from Rust, without the
//!   handle lookup and the panic barrier (`plan_run` minus this is what the handle costs);
//! - `c_abi/plan_new_free`: planning and freeing a plan (the handle's insert and removal);
//! - `allocator/stridekit_malloc_free` against `allocator/rust_malloc_free`: the same pair
//!   through the C handle and on the Rust `Allocator`.
//!
//! The source also builds against the C ABI from before the handles and checks (where
//! `stridekit_plan_free`, `_allocator_free` and `_allocator_destroy` were `unsafe` and two
//! of them returned nothing), so that `scripts/bench-ffi-baseline` runs this same file on
//! both and compares them in one run; hence the `unused_unsafe` allowances below.
//!
//! Run with `cargo bench --bench ffi`.

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr::null_mut;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use stridekit::DType;
use stridekit::ffi::capi::{
    stridekit_allocator_destroy, stridekit_allocator_free, stridekit_allocator_malloc,
    stridekit_allocator_new, stridekit_copy, stridekit_plan_free, stridekit_plan_new,
    stridekit_plan_run,
};
use stridekit::ffi::dlpack::{DLDevice, DLTensor, kDLCPU};
use stridekit::ffi::view::dtype_to_dlpack;
use stridekit::ffi::{Allocator, CopyOp, RawView};

struct Side {
    bytes: Vec<u8>,
    shape: Vec<i64>,
    strides: Vec<i64>,
    dtype: DType,
}

impl Side {
    fn new(shape: &[i64], strides: &[i64], dtype: DType) -> Side {
        let span: i64 = 1 + shape
            .iter()
            .zip(strides)
            .map(|(n, s)| (n - 1) * s)
            .sum::<i64>();
        Side {
            bytes: vec![1; span as usize * dtype.itemsize()],
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            dtype,
        }
    }

    fn dl(&mut self) -> DLTensor {
        DLTensor {
            data: self.bytes.as_mut_ptr() as *mut c_void,
            device: DLDevice {
                device_type: kDLCPU,
                device_id: 0,
            },
            ndim: self.shape.len() as i32,
            dtype: dtype_to_dlpack(self.dtype),
            shape: self.shape.as_mut_ptr(),
            strides: self.strides.as_mut_ptr(),
            byte_offset: 0,
        }
    }
}

fn cases() -> Vec<(&'static str, Side, Side)> {
    vec![
        (
            "transpose_f32_3x4",
            Side::new(&[3, 4], &[4, 1], DType::F32),
            Side::new(&[3, 4], &[1, 3], DType::F32),
        ),
        (
            "nchw2nhwc_f16_1x3x4x4",
            Side::new(&[1, 3, 4, 4], &[48, 1, 12, 3], DType::F16),
            Side::new(&[1, 3, 4, 4], &[48, 16, 4, 1], DType::F16),
        ),
        (
            "f32_to_bf16_64",
            Side::new(&[64], &[1], DType::BF16),
            Side::new(&[64], &[1], DType::F32),
        ),
    ]
}

/// Frees a plan made by the bench.
#[allow(unused_unsafe, clippy::let_unit_value)]
fn free_plan(plan: *mut stridekit::ffi::capi::StridekitPlan) {
    // SAFETY: a plan made by stridekit_plan_new, freed once.
    let _status = unsafe { stridekit_plan_free(plan) };
}

fn copies(c: &mut Criterion) {
    let mut g = c.benchmark_group("c_abi");
    for (name, mut dst, mut src) in cases() {
        let (d, s) = (dst.dl(), src.dl());
        g.bench_with_input(BenchmarkId::new("stridekit_copy", name), &(), |b, _| {
            // SAFETY: both tensors lie inside their buffers.
            b.iter(|| {
                assert_eq!(
                    unsafe { stridekit_copy(black_box(&d), black_box(&s), null_mut()) },
                    0
                )
            })
        });
        let mut plan = null_mut();
        // SAFETY: valid DLTensors and out-pointer.
        assert_eq!(unsafe { stridekit_plan_new(&d, &s, &mut plan) }, 0);
        g.bench_with_input(BenchmarkId::new("stridekit_plan_run", name), &(), |b, _| {
            // SAFETY: the buffers hold the planned tensors.
            b.iter(|| {
                assert_eq!(
                    unsafe { stridekit_plan_run(black_box(plan), d.data, s.data, null_mut()) },
                    0
                )
            })
        });
        free_plan(plan);
        // SAFETY: valid DLTensors (shape and strides hold ndim values).
        let op = unsafe {
            CopyOp::new(
                RawView::from_dlpack(&d, "dst").unwrap(),
                RawView::from_dlpack(&s, "src").unwrap(),
            )
        }
        .unwrap();
        g.bench_with_input(BenchmarkId::new("copy_op_run", name), &(), |b, _| {
            // SAFETY: the buffers hold the planned tensors.
            b.iter(|| unsafe { black_box(&op).run(d.data, s.data, null_mut()) }.unwrap())
        });
        g.bench_with_input(BenchmarkId::new("plan_new_free", name), &(), |b, _| {
            b.iter(|| {
                let mut plan = null_mut();
                // SAFETY: valid DLTensors and out-pointer.
                assert_eq!(
                    unsafe { stridekit_plan_new(black_box(&d), black_box(&s), &mut plan) },
                    0
                );
                free_plan(plan);
            })
        });
    }
    g.finish();
}

/// The size of the benchmarked block: small enough to be served from the small pool's
/// cached segment every time.
const BLOCK: usize = 512;

#[allow(unused_unsafe, clippy::let_unit_value)]
fn allocator(c: &mut Criterion) {
    let mut g = c.benchmark_group("allocator");
    let mut a = null_mut();
    // SAFETY: NUL-terminated strings and a writable out-pointer.
    assert_eq!(
        unsafe { stridekit_allocator_new(c"sim".as_ptr(), c"".as_ptr(), &mut a) },
        0
    );
    g.bench_function("stridekit_malloc_free", |b| {
        b.iter(|| {
            let mut p = null_mut();
            // SAFETY: `a` is live; `p` writable; the block is freed once.
            unsafe {
                assert_eq!(
                    stridekit_allocator_malloc(black_box(a), BLOCK, null_mut(), &mut p),
                    0
                );
                assert_eq!(stridekit_allocator_free(black_box(a), p), 0);
            }
        })
    });
    // SAFETY: made above, destroyed once.
    let _status = unsafe { stridekit_allocator_destroy(a) };
    let rust = Allocator::new("sim".parse().unwrap(), Some("")).unwrap();
    g.bench_function("rust_malloc_free", |b| {
        b.iter(|| {
            let p = black_box(&rust).malloc(BLOCK as u64, 0).unwrap();
            rust.free(black_box(p)).unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, copies, allocator);
criterion_main!(benches);
