//! Host cost of planning a copy: `CopyPlan::copy` (drop size-1 dimensions, order, fold,
//! detect memcpy) and `GpuPlan::new` (kernel choice and launch geometry), for views from
//! the bench suite at full size. Needs no GPU.
//!
//! Run with `cargo bench --bench plan`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use stridekit::backend::cuda::GpuPlan;
use stridekit::bench::cases::{DEFAULT_SEED, WorkKind, suite};
use stridekit::plan::CopyPlan;

/// Representative cases: 2-d transpose, attention heads, channels_last, 6-d permute,
/// strided slice, broadcast, overlapping windows, a rank-7 random permutation.
const CASES: [&str; 8] = [
    "transpose2d_f32_16384x16384",
    "heads_0213_f16_32x2048x32x128",
    "nchw2nhwc_f16_64x64x224x224",
    "perm6d_503142_f32_24^6",
    "slice_step2_f32_16384x16384",
    "expand_rows_f32_16384",
    "unfold_windows_i32_1025s512",
    "rand_r7_0_20x15x8x15x19x19x20_p0615432",
];

fn plans(c: &mut Criterion) {
    let all = suite(false, DEFAULT_SEED);
    let mut copy = c.benchmark_group("copy_plan");
    let mut views = Vec::new();
    for name in CASES {
        let case = all
            .iter()
            .find(|c| c.case == name)
            .unwrap_or_else(|| panic!("{name} is not in the suite"));
        let WorkKind::Copy { view, out, plan } = case.work().unwrap().kind else {
            panic!("{name} is not a copy");
        };
        copy.bench_with_input(BenchmarkId::from_parameter(name), &(), |b, _| {
            b.iter(|| {
                black_box(CopyPlan::copy(
                    black_box(&out),
                    case.dtype,
                    black_box(&view),
                    case.dtype,
                ))
            })
        });
        views.push((name, plan));
    }
    copy.finish();
    let mut gpu = c.benchmark_group("gpu_plan");
    for (name, plan) in &views {
        gpu.bench_with_input(BenchmarkId::from_parameter(name), plan, |b, p| {
            b.iter(|| black_box(GpuPlan::new(black_box(p)).unwrap()))
        });
    }
    gpu.finish();
}

criterion_group!(benches, plans);
criterion_main!(benches);
