//! What the C ABI's plan-once path saves: `stridekit_copy` (reads both DLTensors, checks,
//! plans, runs) against `stridekit_plan_run` on a plan made once (checks the pointers,
//! runs), on the CPU backend, for copies small enough that the per-call work shows (the
//! element loop of larger ones hides it on the CPU; on a GPU the run is a launch, so the
//! saving is the same number of microseconds): TV-209's 3x4 transpose, NCHW to
//! channels_last with C = 3, a float32 to bfloat16 conversion. Needs no GPU.
//!
//! Run with `cargo bench --bench ffi`.

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr::null_mut;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use stridekit::DType;
use stridekit::ffi::capi::{
    stridekit_copy, stridekit_plan_free, stridekit_plan_new, stridekit_plan_run,
};
use stridekit::ffi::dlpack::{DLDevice, DLTensor, kDLCPU};
use stridekit::ffi::view::dtype_to_dlpack;

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

fn ffi(c: &mut Criterion) {
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
                    unsafe { stridekit_plan_run(plan, d.data, s.data, null_mut()) },
                    0
                )
            })
        });
        // SAFETY: made above, freed once.
        assert_eq!(stridekit_plan_free(plan), 0);
    }
    g.finish();
}

criterion_group!(benches, ffi);
criterion_main!(benches);
