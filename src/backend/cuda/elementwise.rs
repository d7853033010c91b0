//! The element-wise kernel family's launch, decided from an [`ElementwisePlan`] with no GPU:
//! which kernel (by computation class and index width), the grid, and the by-value
//! argument struct carrying the folded layout, the op code, the dtypes and any Python
//! numbers. The 32/64-bit choice is the copy kernels' ([`super::choose`]): every offset any
//! operand reaches, and numel, must fit.

use super::choose::{BLOCK, EPT, GpuLaunch, LaunchParams, MAX_RANK, blocks_for, fits_i32, span};
use super::divisor;
use super::error::CudaError;
use super::kernels::KernelId;
use super::params::{SkEw32, SkEw64, SkEwArgs, SkEwInput};
use crate::dtype::{Category, DType};
use crate::plan::elementwise::{ElementwisePlan, MAX_OPERANDS};
use crate::scalar::Scalar;
use crate::tensor::arith::ElementOp;

/// One input of an element-wise launch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EwInput {
    /// A tensor of this dtype (its layout is the plan's operand k + 1).
    Tensor(DType),
    /// A Python number (or a 0-d CPU tensor's value), passed by value.
    Number(Scalar),
}

/// What an element-wise launch computes.
#[derive(Debug, Clone, Copy)]
pub struct EwSpec<'a> {
    pub op: ElementOp,
    /// PyTorch's promoted type, the op computes in it.
    pub compute: DType,
    /// The output's dtype.
    pub out: DType,
    pub inputs: &'a [EwInput],
}

/// The computation classes: one kernel each (cuda/elementwise.cu's SK_CLASS_*).
pub const EW_CLASSES: [&str; 4] = ["bool", "int", "f32", "f64"];

/// The class a computation dtype runs in.
pub fn compute_class(compute: DType) -> usize {
    match compute.category() {
        Category::Bool => 0,
        Category::Integral => 1,
        Category::Floating if compute == DType::F64 => 3,
        Category::Floating => 2,
    }
}

/// SkEwOp's code of `op` (cuda/include/params.h), with add/sub's alpha and clamp's bounds.
pub fn op_code(op: ElementOp) -> (i32, Option<Scalar>, (bool, bool)) {
    use ElementOp::*;
    let code = match op {
        Add(a) => return (0, Some(a), (false, false)),
        Sub(a) => return (1, Some(a), (false, false)),
        Mul => 2,
        Div => 3,
        FloorDiv => 4,
        Remainder => 5,
        Pow => 6,
        Eq => 7,
        Ne => 8,
        Lt => 9,
        Le => 10,
        Gt => 11,
        Ge => 12,
        BitAnd => 13,
        BitOr => 14,
        BitXor => 15,
        Neg => 16,
        Abs => 17,
        Sqrt => 18,
        Exp => 19,
        Square => 20,
        Invert => 21,
        Where => 22,
        Clamp { min, max } => return (23, None, (min, max)),
        TruncDiv => 24,
        Maximum => 25,
        Minimum => 26,
        LogicalAnd => 27,
        LogicalOr => 28,
        LogicalXor => 29,
        LogicalNot => 30,
    };
    (code, None, (false, false))
}

fn number(v: Scalar) -> SkEwInput {
    match v {
        Scalar::Bool(b) => SkEwInput {
            i: b as i64,
            f: 0.0,
            dtype: -1,
            kind: 0,
        },
        Scalar::Int(i) => SkEwInput {
            i,
            f: 0.0,
            dtype: -1,
            kind: 1,
        },
        Scalar::Float(f) => SkEwInput {
            i: 0,
            f,
            dtype: -1,
            kind: 2,
        },
    }
}

/// The arguments both index widths share. Numbers are converted to the computation dtype
/// here, as the CPU backend converts them.
pub fn ew_args(spec: &EwSpec<'_>) -> SkEwArgs {
    assert!(spec.inputs.len() < MAX_OPERANDS, "at most three inputs");
    let (op, alpha, (clamp_min, clamp_max)) = op_code(spec.op);
    let code = super::choose::dtype_code;
    let mut args = SkEwArgs {
        op,
        arity: spec.inputs.len() as i32,
        compute_dtype: code(spec.compute),
        out_dtype: code(spec.out),
        clamp_min: clamp_min as i32,
        clamp_max: clamp_max as i32,
        ..Default::default()
    };
    if let Some(a) = alpha {
        args.alpha_f = a.to_f64();
        args.alpha_i = a.to_int();
        args.alpha_b = a.to_bool() as i32;
    }
    for (slot, input) in args.inputs.iter_mut().zip(spec.inputs) {
        *slot = match *input {
            EwInput::Tensor(d) => SkEwInput {
                dtype: code(d),
                ..Default::default()
            },
            EwInput::Number(v) => number(v.cast(spec.compute)),
        };
    }
    args
}

/// The launch for `plan` (at most [`MAX_RANK`] dimensions: split larger plans with
/// [`ElementwisePlan::split_outer`]); `force64` takes the 64-bit index kernel whatever the
/// sizes (for tests and compute-sanitizer on small tensors). None for an empty plan.
pub fn ew_launch(
    plan: &ElementwisePlan,
    spec: &EwSpec<'_>,
    force64: bool,
) -> Result<Option<GpuLaunch>, CudaError> {
    if plan.empty {
        return Ok(None);
    }
    let rank = plan.sizes.len();
    if rank > MAX_RANK {
        return Err(CudaError::RankTooLarge(rank));
    }
    let numel = plan.numel();
    let spans: [(i64, i64); MAX_OPERANDS] =
        std::array::from_fn(|j| span(&plan.sizes, &plan.strides[j], plan.offsets[j]));
    let idx64 = force64 || !fits_i32(numel, spans);
    let args = ew_args(spec);
    let params = if idx64 {
        let mut p = SkEw64 {
            numel,
            rank: rank as i32,
            offsets: plan.offsets,
            args,
            ..Default::default()
        };
        p.sizes[..rank].copy_from_slice(&plan.sizes);
        p.sizes[rank..].fill(1);
        for j in 0..MAX_OPERANDS {
            p.strides[j][..rank].copy_from_slice(&plan.strides[j]);
        }
        p.size_divs = divisor::divs64(&p.sizes);
        LaunchParams::Ew64(p)
    } else {
        let narrow = |v: i64| v as i32;
        let mut p = SkEw32 {
            numel: numel as i32,
            rank: rank as i32,
            offsets: plan.offsets.map(narrow),
            args,
            ..Default::default()
        };
        for k in 0..MAX_RANK {
            p.sizes[k] = plan.sizes.get(k).map_or(1, |&n| n as i32);
            for j in 0..MAX_OPERANDS {
                p.strides[j][k] = plan.strides[j].get(k).map_or(0, |&s| s as i32);
            }
        }
        p.size_divs = divisor::divs32(&p.sizes);
        LaunchParams::Ew32(p)
    };
    Ok(Some(GpuLaunch {
        kernel: KernelId::elementwise(compute_class(spec.compute), idx64),
        grid: (blocks_for(numel, (BLOCK * EPT) as i64), 1, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: 0,
        params,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Dims, Layout};

    fn spec(inputs: &[EwInput]) -> EwSpec<'_> {
        EwSpec {
            op: ElementOp::Add(Scalar::Int(2)),
            compute: DType::F32,
            out: DType::F32,
            inputs,
        }
    }

    #[test]
    fn the_launch_carries_the_folded_plan() {
        let out = Layout::contiguous(&[2, 3]);
        let bias = Layout::from_parts(Dims::from_slice(&[2, 3]), Dims::from_slice(&[0, 1]), 4);
        let plan = ElementwisePlan::new(&out, &[Some(&out), Some(&bias)]);
        let inputs = [EwInput::Tensor(DType::F32), EwInput::Tensor(DType::F16)];
        let l = ew_launch(&plan, &spec(&inputs), false).unwrap().unwrap();
        assert_eq!(l.kernel.name(), "sk_ew_f32_i32");
        let LaunchParams::Ew32(p) = l.params else {
            panic!("{:?}", l.params)
        };
        assert_eq!((p.rank, p.numel), (2, 6));
        assert_eq!(&p.sizes[..3], &[2, 3, 1]);
        assert_eq!(&p.strides[0][..2], &[3, 1]);
        assert_eq!(&p.strides[2][..2], &[0, 1]);
        assert_eq!(p.offsets, [0, 0, 4, 0]);
        assert_eq!((p.args.op, p.args.arity), (0, 2));
        assert_eq!(
            (p.args.alpha_f, p.args.alpha_i, p.args.alpha_b),
            (2.0, 2, 1)
        );
        assert_eq!(p.args.inputs[1].dtype, 6); // F16's SkDType code
        assert_eq!(l.grid, (1, 1, 1));
        let l64 = ew_launch(&plan, &spec(&inputs), true).unwrap().unwrap();
        assert_eq!(l64.kernel.name(), "sk_ew_f32_i64");
    }

    #[test]
    fn numbers_go_by_value_in_the_computation_dtype() {
        let out = Layout::contiguous(&[4]);
        let plan = ElementwisePlan::new(&out, &[Some(&out), None]);
        let inputs = [
            EwInput::Tensor(DType::I32),
            EwInput::Number(Scalar::Float(2.5)),
        ];
        let s = EwSpec {
            op: ElementOp::Mul,
            compute: DType::F16,
            out: DType::F16,
            inputs: &inputs,
        };
        let a = ew_args(&s);
        assert_eq!((a.inputs[1].dtype, a.inputs[1].kind), (-1, 2));
        assert_eq!(a.inputs[1].f, 2.5);
        let third = [EwInput::Number(Scalar::Float(0.1))];
        let t = EwSpec {
            inputs: &third,
            ..s
        };
        // 0.1 rounded to float16, as the CPU backend rounds it.
        assert_eq!(
            ew_args(&t).inputs[0].f,
            Scalar::Float(0.1).cast(DType::F16).to_f64()
        );
        assert!(ew_launch(&plan, &s, false).unwrap().is_some());
    }

    #[test]
    fn far_offsets_and_negative_reach_take_64_bit_indices() {
        let inputs = [EwInput::Tensor(DType::I8)];
        let s = EwSpec {
            op: ElementOp::Neg,
            compute: DType::I8,
            out: DType::I8,
            inputs: &inputs,
        };
        let out = Layout::contiguous(&[8]);
        let far = Layout::from_parts(Dims::from_slice(&[8]), Dims::from_slice(&[1]), 1 << 31);
        let plan = ElementwisePlan::new(&out, &[Some(&far)]);
        let l = ew_launch(&plan, &s, false).unwrap().unwrap();
        assert_eq!(l.kernel.name(), "sk_ew_int_i64");
        // A flipped input reaches below its offset, still inside i32.
        let back = Layout::from_parts(Dims::from_slice(&[8]), Dims::from_slice(&[-1]), 7);
        let plan = ElementwisePlan::new(&out, &[Some(&back)]);
        let l = ew_launch(&plan, &s, false).unwrap().unwrap();
        assert_eq!(l.kernel.name(), "sk_ew_int_i32");
        let empty = ElementwisePlan::new(&Layout::contiguous(&[0]), &[None]);
        assert!(ew_launch(&empty, &s, false).unwrap().is_none());
    }

    #[test]
    fn every_op_has_a_distinct_code() {
        let ops = ElementOp::EVERY;
        let codes: Vec<i32> = ops.iter().map(|&o| op_code(o).0).collect();
        assert_eq!(codes, (0..31).collect::<Vec<_>>());
        // params.h's last code.
        assert_eq!(
            super::super::params::SkEwOp_SK_EW_LOGICAL_NOT as i32,
            *codes.last().unwrap()
        );
    }
}
