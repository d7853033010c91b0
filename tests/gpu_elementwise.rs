//! The strided element-wise kernel family on a GPU against the CPU backend: every op x dtype
//! (and mixed promotions) x layout family of tests/common/ew.rs through both index widths,
//! whole output storages compared (poisoned first), and the Tensor-level ops (`+` with
//! broadcasting and channels_last, in place into a gapped view, masked_fill_, integer
//! division by zero) on cuda:0. Without a GPU each test says it was skipped and passes; with
//! STRIDEKIT_REQUIRE_GPU=1 a missing GPU fails it.
//!
//! Values are compared exactly (NaN equal to NaN: a GPU's NaN bits are canonical), except
//! exp and pow, whose float results may differ from the host libm's in the last bits
//! (within 4 units of the output dtype's precision).

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::ew::{EwArg, EwCase, all_cases};
use common::{Rng, assert_ran, gpu};
use stridekit::backend::cuda::elementwise::ew_launch;
use stridekit::backend::cuda::{DeviceBuffer, Gpu};
use stridekit::tensor::Operand;
use stridekit::tensor::arith::ElementOp;
use stridekit::{DType, Device, MemoryFormat, Scalar, Tensor};

const CUDA0: Device = Device::Cuda(0);

/// The relative tolerance of exp/pow results in `dtype`: 4 units in the last place.
fn ulp(dtype: DType) -> f64 {
    4.0 * match dtype {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 => 2f64.powi(-23),
        _ => 2f64.powi(-52),
    }
}

/// The first element of the output storage where the GPU's bytes disagree with the CPU's.
fn first_difference(c: &EwCase, got: &[u8]) -> Option<String> {
    let sz = c.out_dtype.itemsize();
    for (i, (g, w)) in got.chunks(sz).zip(c.want.chunks(sz)).enumerate() {
        if g == w {
            continue;
        }
        let (gv, wv) = (
            Scalar::read(c.out_dtype, g).to_f64(),
            Scalar::read(c.out_dtype, w).to_f64(),
        );
        let close = c.out_dtype.is_floating()
            && ((gv.is_nan() && wv.is_nan())
                || (c.transcendental()
                    && (gv - wv).abs() <= ulp(c.out_dtype) * gv.abs().max(wv.abs())));
        if !close {
            return Some(format!(
                "element {i}: want {wv} ({w:02x?}), got {gv} ({g:02x?})"
            ));
        }
    }
    None
}

/// Runs `c` on the GPU through the 32-bit (when it fits) and the 64-bit index kernel.
fn run_case(gpu: &Arc<Gpu>, c: &EwCase, used: &mut BTreeSet<&'static str>) {
    let inputs: Vec<Option<DeviceBuffer>> = c
        .inputs
        .iter()
        .map(|a| match a {
            EwArg::Tensor { bytes, .. } => Some(DeviceBuffer::from_host(gpu, bytes).unwrap()),
            EwArg::Number(_) => None,
        })
        .collect();
    let mut ptrs = [0u64; 3];
    for (p, b) in ptrs.iter_mut().zip(&inputs) {
        *p = b.as_ref().map_or(0, |b| b.ptr());
    }
    let kinputs = c.kernel_inputs();
    let spec = c.spec(&kinputs);
    for force64 in [false, true] {
        let out = DeviceBuffer::from_host(gpu, &c.out_init).unwrap();
        for sub in c.plan().split_outer(8) {
            let Some(l) = ew_launch(&sub, &spec, force64).unwrap() else {
                continue;
            };
            used.insert(l.kernel.name());
            // SAFETY: the buffers hold the storages the case's layouts address.
            unsafe { gpu.elementwise(&l, out.ptr(), ptrs) }.unwrap();
        }
        let mut got = vec![0; c.out_init.len()];
        out.download(0, &mut got).unwrap();
        if let Some(d) = first_difference(c, &got) {
            panic!("{} (64-bit indices: {force64}): {d}", c.what);
        }
    }
}

#[test]
fn elementwise_kernels_match_the_cpu_backend() {
    let Some(gpu) = gpu("elementwise_kernels_match_the_cpu_backend") else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 6);
    let cases = all_cases(&mut rng);
    let mut used = BTreeSet::new();
    for c in &cases {
        run_case(&gpu, c, &mut used);
    }
    eprintln!("{} element-wise cases on {}", cases.len(), gpu.name());
    let classes = ["bool", "int", "f32", "f64"].map(String::from);
    assert_ran(&used, &["ew"], &classes, &["i32", "i64"]);
}

fn on_gpu(t: &Tensor) -> Tensor {
    t.to_device(CUDA0).unwrap()
}

fn assert_same(cpu: &Tensor, gpu: &Tensor, what: &str) {
    assert_eq!(gpu.device(), CUDA0, "{what}: the result stays on the GPU");
    assert_eq!(gpu.sizes(), cpu.sizes(), "{what}");
    assert_eq!(
        gpu.strides(),
        cpu.strides(),
        "{what}: TensorIterator's strides"
    );
    assert_eq!(gpu.dtype(), cpu.dtype(), "{what}");
    assert_eq!(gpu.values().unwrap(), cpu.values().unwrap(), "{what}");
}

/// Tensor-level ops on cuda:0 give the CPU's tensors: broadcasting, channels_last and
/// permuted results, comparisons, where, clamp with tensor bounds, in place into a gapped
/// view, masked_fill_, and PyTorch's refusal of integer division by zero.
#[test]
fn tensor_ops_on_the_gpu_match_the_cpu() {
    let Some(_gpu) = gpu("tensor_ops_on_the_gpu_match_the_cpu") else {
        return;
    };
    let arange = |n: i64, d: DType| {
        Tensor::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), Some(d)).unwrap()
    };
    let scores = arange(6, DType::F32).view(&[2, 3]).unwrap();
    let bias = arange(3, DType::I64);
    let cl = arange(120, DType::F16)
        .view(&[2, 3, 4, 5])
        .unwrap()
        .contiguous(MemoryFormat::ChannelsLast)
        .unwrap();
    let t = |x: &Tensor| Operand::Tensor(x.clone());
    let cond = Tensor::elementwise(
        ElementOp::Gt,
        &[t(&scores), Operand::Number(Scalar::Int(2))],
    )
    .unwrap();
    let cases: Vec<(&str, ElementOp, Vec<Operand>)> = vec![
        (
            "scores + bias",
            ElementOp::Add(Scalar::Int(1)),
            vec![t(&scores), t(&bias)],
        ),
        (
            "cl + 1",
            ElementOp::Add(Scalar::Int(1)),
            vec![t(&cl), Operand::Number(Scalar::Int(1))],
        ),
        (
            "a > 10",
            ElementOp::Gt,
            vec![t(&bias), Operand::Number(Scalar::Int(1))],
        ),
        (
            "x.T / 3",
            ElementOp::Div,
            vec![t(&scores.t().unwrap()), Operand::Number(Scalar::Int(3))],
        ),
        (
            "bias // 2",
            ElementOp::FloorDiv,
            vec![t(&bias), Operand::Number(Scalar::Int(2))],
        ),
        ("sqrt(bias)", ElementOp::Sqrt, vec![t(&bias)]),
        (
            "where(scores > 2, scores, bias)",
            ElementOp::Where,
            vec![t(&cond), t(&scores), t(&bias)],
        ),
        (
            "clamp(x.T, lo, hi)",
            ElementOp::Clamp {
                min: true,
                max: true,
            },
            vec![
                t(&scores.t().unwrap()),
                t(&bias.view(&[3, 1]).unwrap()),
                Operand::Number(Scalar::Float(4.5)),
            ],
        ),
    ];
    for (what, op, operands) in cases {
        let want = Tensor::elementwise(op, &operands).unwrap();
        let gpu_operands: Vec<Operand> = operands
            .iter()
            .map(|o| match o {
                Operand::Tensor(x) => Operand::Tensor(on_gpu(x)),
                n => n.clone(),
            })
            .collect();
        let got = Tensor::elementwise(op, &gpu_operands).unwrap();
        assert_same(&want, &got, what);
    }
    // In place into a gapped view of a GPU tensor, other elements untouched.
    let base = arange(24, DType::I32).view(&[4, 6]).unwrap();
    let gbase = on_gpu(&base);
    let view = |x: &Tensor| x.narrow(1, 1, 3).unwrap();
    let other = arange(3, DType::I32);
    view(&base)
        .elementwise_(ElementOp::Mul, &[t(&other)])
        .unwrap();
    view(&gbase)
        .elementwise_(ElementOp::Mul, &[Operand::Tensor(on_gpu(&other))])
        .unwrap();
    assert_eq!(gbase.values().unwrap(), base.values().unwrap());
    assert_eq!(gbase.storage().version(), base.storage().version());
    // masked_fill_ through a broadcast mask.
    let mask = Tensor::elementwise(
        ElementOp::Gt,
        &[t(&arange(6, DType::I64)), Operand::Number(Scalar::Int(2))],
    )
    .unwrap();
    base.masked_fill_(&mask, Scalar::Int(-7)).unwrap();
    gbase.masked_fill_(&on_gpu(&mask), Scalar::Int(-7)).unwrap();
    assert_eq!(gbase.values().unwrap(), base.values().unwrap());
    // Integer division by zero: PyTorch's CPU error, nothing launched.
    let zero = Tensor::zeros(&[3], DType::I64).unwrap();
    let e = Tensor::elementwise(
        ElementOp::Remainder,
        &[
            Operand::Tensor(on_gpu(&bias)),
            Operand::Tensor(on_gpu(&zero)),
        ],
    )
    .unwrap_err();
    assert_eq!(e.message, "ZeroDivisionError");
}
