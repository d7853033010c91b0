//! A planned copy (or element-wise launch) is decided once and run many times: planning makes no heap allocation
//! (checked here on any machine), and running a plan again makes none either (checked on a
//! GPU: kernel arguments go by value, nothing is copied to the device besides them).

#[path = "../benches/common_alloc.rs"]
mod common_alloc;
use common_alloc::{Counting, allocations_during};

use stridekit::backend::cuda::elementwise::{EwInput, EwSpec, ew_launch};
use stridekit::backend::cuda::{self, DeviceBuffer, Gpu, GpuPlan};
use stridekit::layout::view;
use stridekit::plan::{CopyPlan, ElementwisePlan};
use stridekit::tensor::arith::ElementOp;
use stridekit::{DType, Layout, Scalar};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Representative plans: transpose (tile), channels_last with C = 3 (thin tile), a strided
/// slice (gather), a broadcast (stride 0) and a converting copy.
fn plans() -> Vec<CopyPlan> {
    let x = Layout::contiguous(&[64, 96]);
    let nchw = Layout::contiguous(&[2, 3, 16, 16]);
    let nhwc = view::permute(&Layout::contiguous(&[2, 16, 16, 3]), &[0, 3, 1, 2]).unwrap();
    let step = Layout::new(&[32, 48], &[192, 2], 0).unwrap();
    let row = Layout::new(&[64, 96], &[0, 1], 0).unwrap();
    vec![
        CopyPlan::copy(
            &Layout::contiguous(&[96, 64]),
            DType::F32,
            &view::t(&x).unwrap(),
            DType::F32,
        ),
        CopyPlan::copy(&nhwc, DType::F16, &nchw, DType::F16),
        CopyPlan::copy(
            &Layout::contiguous(&[32, 48]),
            DType::F32,
            &step,
            DType::F32,
        ),
        CopyPlan::copy(&x, DType::F32, &row, DType::F32),
        CopyPlan::copy(&x, DType::BF16, &row, DType::F32),
    ]
}

#[test]
fn planning_does_not_allocate() {
    let layouts = plans();
    for p in &layouts {
        let n = allocations_during(|| {
            let again = CopyPlan::copy(
                &Layout::new(&p.sizes, &p.dst_strides, p.dst_offset).unwrap(),
                p.dst_dtype,
                &Layout::new(&p.sizes, &p.src_strides, p.src_offset).unwrap(),
                p.src_dtype,
            );
            std::hint::black_box(GpuPlan::new(&again).unwrap());
            // The device-sized plan too (packed tiles past 48 KB on an H200).
            let h200 = stridekit::backend::cuda::DeviceLimits::H200;
            std::hint::black_box(GpuPlan::for_device(&again, h200).unwrap());
        });
        assert_eq!(n, 0, "{p:?}: {n} heap allocations");
    }
}

#[test]
fn running_a_plan_again_does_not_allocate() {
    let gpu = match cuda::device_count() {
        Ok(n) if n > 0 => Gpu::shared(0).unwrap(),
        other => {
            if std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1") {
                panic!("STRIDEKIT_REQUIRE_GPU=1 but no GPU: {other:?}");
            }
            eprintln!("running_a_plan_again_does_not_allocate: skipped: no GPU ({other:?})");
            return;
        }
    };
    let dst = DeviceBuffer::alloc(&gpu, 64 * 96 * 8).unwrap();
    let src = DeviceBuffer::alloc(&gpu, 64 * 96 * 8).unwrap();
    for p in plans() {
        let g = GpuPlan::new(&p).unwrap();
        // SAFETY: both buffers cover every element the plans address.
        let run = || unsafe { gpu.copy(&g, dst.ptr(), src.ptr()) }.unwrap();
        run(); // the first launch looks the kernel up (once per process)
        let n = allocations_during(|| {
            for _ in 0..100 {
                run();
            }
        });
        gpu.synchronize().unwrap();
        assert_eq!(n, 0, "{p:?}: {n} heap allocations in 100 launches");
    }
}

/// Element-wise launches: a broadcast add over a channels_last input and a clamp with a
/// tensor bound, planned from their layouts.
fn elementwise_plans() -> Vec<(ElementwisePlan, [EwInput; 2])> {
    let cl = view::permute(&Layout::contiguous(&[2, 16, 16, 3]), &[0, 3, 1, 2]).unwrap();
    let row = Layout::new(&[2, 3, 16, 16], &[0, 0, 0, 1], 0).unwrap();
    let x = Layout::contiguous(&[64, 96]);
    vec![
        (
            ElementwisePlan::new(&cl, &[Some(&cl), Some(&row)]),
            [EwInput::Tensor(DType::F16), EwInput::Tensor(DType::F32)],
        ),
        (
            ElementwisePlan::new(&x, &[Some(&x), None]),
            [
                EwInput::Tensor(DType::F32),
                EwInput::Number(Scalar::Float(0.5)),
            ],
        ),
    ]
}

fn ew_spec(inputs: &[EwInput]) -> EwSpec<'_> {
    EwSpec {
        op: ElementOp::Add(Scalar::Int(1)),
        compute: DType::F32,
        out: DType::F32,
        inputs,
    }
}

#[test]
fn planning_an_elementwise_launch_does_not_allocate() {
    let cl = view::permute(&Layout::contiguous(&[2, 16, 16, 3]), &[0, 3, 1, 2]).unwrap();
    let row = Layout::new(&[2, 3, 16, 16], &[0, 0, 0, 1], 0).unwrap();
    let inputs = [EwInput::Tensor(DType::F16), EwInput::Tensor(DType::F32)];
    let n = allocations_during(|| {
        let plan = ElementwisePlan::new(&cl, &[Some(&cl), Some(&row)]);
        std::hint::black_box(ew_launch(&plan, &ew_spec(&inputs), false).unwrap());
    });
    assert_eq!(n, 0, "{n} heap allocations");
}

#[test]
fn running_an_elementwise_launch_again_does_not_allocate() {
    let gpu = match cuda::device_count() {
        Ok(n) if n > 0 => Gpu::shared(0).unwrap(),
        other => {
            if std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1") {
                panic!("STRIDEKIT_REQUIRE_GPU=1 but no GPU: {other:?}");
            }
            eprintln!(
                "running_an_elementwise_launch_again_does_not_allocate: skipped: no GPU ({other:?})"
            );
            return;
        }
    };
    let out = DeviceBuffer::alloc(&gpu, 64 * 96 * 8).unwrap();
    let a = DeviceBuffer::alloc(&gpu, 64 * 96 * 8).unwrap();
    let b = DeviceBuffer::alloc(&gpu, 64 * 96 * 8).unwrap();
    for (plan, inputs) in elementwise_plans() {
        let l = ew_launch(&plan, &ew_spec(&inputs), false).unwrap().unwrap();
        // SAFETY: the buffers cover every element the plans address.
        let run = || unsafe { gpu.elementwise(&l, out.ptr(), [a.ptr(), b.ptr(), 0]) }.unwrap();
        run(); // the first launch looks the kernel up (once per process)
        let n = allocations_during(|| {
            for _ in 0..100 {
                run();
            }
        });
        gpu.synchronize().unwrap();
        assert_eq!(n, 0, "{plan:?}: {n} heap allocations in 100 launches");
    }
}
