//! Element-wise cases shared by tests/kernel_emulation.rs (the kernel source on the host) and
//! tests/gpu_elementwise.rs (on a GPU): every op x dtype (and mixed-dtype promotions) x
//! layout family (contiguous, channels_last, permuted, broadcast, flipped, gapped slices with
//! offsets, Python numbers, in place into a gapped view), each with the bytes the CPU
//! backend (`Tensor::elementwise` / `elementwise_`) gives. A case the CPU backend refuses is
//! not a case: the host refuses it before any launch.

use stridekit::backend::cuda::elementwise::{EwInput, EwSpec};
use stridekit::layout::Dims;
use stridekit::layout::broadcast::broadcast_strides;
use stridekit::layout::view;
use stridekit::plan::ElementwisePlan;
use stridekit::tensor::Operand;
use stridekit::tensor::arith::ElementOp;
use stridekit::tensor::elementwise::op_dtypes;
use stridekit::{DType, Layout, Scalar, Storage, Tensor};

use super::{POISON, Rng};

/// One input as the kernel sees it.
pub enum EwArg {
    /// A tensor: its layout broadcast to the output's shape, over `bytes` (its storage).
    Tensor {
        layout: Layout,
        dtype: DType,
        bytes: Vec<u8>,
    },
    Number(Scalar),
}

pub struct EwCase {
    pub what: String,
    pub op: ElementOp,
    pub compute: DType,
    pub out_dtype: DType,
    /// The output's layout over a storage whose bytes start as `out_init`.
    pub out: Layout,
    pub out_init: Vec<u8>,
    pub inputs: Vec<EwArg>,
    /// The output storage's bytes after the CPU backend ran the op.
    pub want: Vec<u8>,
}

impl EwCase {
    pub fn kernel_inputs(&self) -> Vec<EwInput> {
        self.inputs
            .iter()
            .map(|a| match a {
                EwArg::Tensor { dtype, .. } => EwInput::Tensor(*dtype),
                EwArg::Number(v) => EwInput::Number(*v),
            })
            .collect()
    }

    pub fn plan(&self) -> ElementwisePlan {
        let layouts: Vec<Option<&Layout>> = self
            .inputs
            .iter()
            .map(|a| match a {
                EwArg::Tensor { layout, .. } => Some(layout),
                EwArg::Number(_) => None,
            })
            .collect();
        ElementwisePlan::new(&self.out, &layouts)
    }

    pub fn spec<'a>(&self, inputs: &'a [EwInput]) -> EwSpec<'a> {
        EwSpec {
            op: self.op,
            compute: self.compute,
            out: self.out_dtype,
            inputs,
        }
    }

    /// Whether the op's float results may differ from the CPU's in the last bits on a GPU
    /// (exp and pow: CUDA's libm is not the host's).
    pub fn transcendental(&self) -> bool {
        matches!(self.op, ElementOp::Exp | ElementOp::Pow) && self.compute.is_floating()
    }
}

/// Every op with its number of inputs: `ElementOp::EVERY`, plus alpha 2 and clamp with one
/// bound.
pub fn ops() -> Vec<(ElementOp, usize)> {
    let mut v: Vec<ElementOp> = ElementOp::EVERY.to_vec();
    v.push(ElementOp::Add(Scalar::Int(2)));
    for (min, max) in [(true, false), (false, true)] {
        v.push(ElementOp::Clamp { min, max });
    }
    v.into_iter().map(|o| (o, o.arity())).collect()
}

fn divides(op: ElementOp) -> bool {
    matches!(
        op,
        ElementOp::FloorDiv | ElementOp::TruncDiv | ElementOp::Remainder
    )
}

/// A value of `dtype`: small values, the dtype's extremes (wrap-around), and for floats
/// signed zeros, infinities and NaN. `nonzero` keeps integer divisors away from 0 (the CPU
/// refuses those).
pub fn ew_value(rng: &mut Rng, dtype: DType, nonzero: bool) -> Scalar {
    let v = match dtype {
        DType::Bool => Scalar::Bool(rng.below(2) == 1),
        d if d.is_floating() => match rng.below(8) {
            0 => {
                let special = [0.0, -0.0, 1.0, -1.0, 0.5, f64::INFINITY, f64::NEG_INFINITY];
                Scalar::Float(special[rng.below(special.len() as u64) as usize])
            }
            1 if rng.below(3) == 0 => Scalar::Float(f64::NAN),
            2 => Scalar::Float(rng.range(-9, 9) as f64),
            _ => Scalar::Float((rng.unit() - 0.5) * 40.0),
        },
        d => {
            let (lo, hi) = match d {
                DType::U8 => (0, 255),
                DType::I8 => (-128, 127),
                DType::I16 => (-32768, 32767),
                DType::I32 => (i32::MIN as i64, i32::MAX as i64),
                _ => (i64::MIN, i64::MAX),
            };
            match rng.below(10) {
                0 => Scalar::Int(lo),
                1 => Scalar::Int(hi),
                2 if lo < 0 => Scalar::Int(-1),
                _ => Scalar::Int(rng.range(lo.max(-20), hi.min(20))),
            }
        }
    };
    if nonzero && !dtype.is_floating() && !v.to_bool() {
        return Scalar::Int(1).cast(dtype);
    }
    v
}

fn bytes_of(rng: &mut Rng, n: usize, dtype: DType, nonzero: bool) -> Vec<u8> {
    let sz = dtype.itemsize();
    let mut b = vec![0; n * sz];
    for i in 0..n {
        ew_value(rng, dtype, nonzero).write(dtype, &mut b[i * sz..(i + 1) * sz]);
    }
    b
}

/// A tensor input: the layout the kernel reads over `bytes`, and the tensor the CPU
/// backend computes with (the same view, or for a flipped input its flipped copy).
struct Input {
    kernel: Layout,
    reference: Tensor,
    bytes: Vec<u8>,
    dtype: DType,
}

/// A view `layout` over fresh random bytes (with one spare element past its end).
fn input(rng: &mut Rng, layout: Layout, dtype: DType, nonzero: bool) -> Input {
    let n = layout.required_storage_elems() as usize + 1;
    let bytes = bytes_of(rng, n, dtype, nonzero);
    let reference = Tensor::from_storage(Storage::from_bytes(bytes.clone()), layout.clone(), dtype)
        .expect("a view inside its storage");
    Input {
        kernel: layout,
        reference,
        bytes,
        dtype,
    }
}

/// A contiguous tensor of `sizes` read backwards along `dims` (negative strides, as flip's
/// copy reads its source).
fn flipped(rng: &mut Rng, sizes: &[i64], dims: &[usize], dtype: DType, nonzero: bool) -> Input {
    let base = input(rng, Layout::contiguous(sizes), dtype, nonzero);
    let mut strides = Dims::from_slice(base.kernel.strides());
    let mut offset = 0;
    for &d in dims {
        offset += (sizes[d] - 1) * strides[d];
        strides[d] = -strides[d];
    }
    let dims_i: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    Input {
        kernel: Layout::new(sizes, &strides, offset).unwrap(),
        reference: base.reference.flip(&dims_i).unwrap(),
        bytes: base.bytes,
        dtype,
    }
}

/// The layout families: the inputs of one op (`arity` of them, dtypes given), or numbers
/// where a family uses them.
// Input i takes dtypes[i] (and maybe a nonzero divisor): indexed loops read best here.
#[allow(clippy::needless_range_loop)]
fn family(
    rng: &mut Rng,
    k: usize,
    dtypes: &[DType],
    nonzero_at: Option<usize>,
) -> (String, Vec<Option<Input>>) {
    let nz = |i: usize| nonzero_at == Some(i);
    let contiguous = |rng: &mut Rng, sizes: &[i64], i: usize| {
        Some(input(rng, Layout::contiguous(sizes), dtypes[i], nz(i)))
    };
    let n = dtypes.len();
    let mut v: Vec<Option<Input>> = Vec::new();
    let name = match k {
        0 => {
            for i in 0..n {
                v.push(contiguous(rng, &[3, 4, 5], i));
            }
            "contiguous"
        }
        1 => {
            let cl = view::permute(&Layout::contiguous(&[2, 4, 5, 3]), &[0, 3, 1, 2]).unwrap();
            for i in 0..n {
                v.push(Some(input(rng, cl.clone(), dtypes[i], nz(i))));
            }
            "channels_last"
        }
        2 => {
            // The first input permuted, the others contiguous: the result follows the first.
            let p = view::permute(&Layout::contiguous(&[5, 3, 4]), &[1, 2, 0]).unwrap();
            v.push(Some(input(rng, p, dtypes[0], nz(0))));
            for i in 1..n {
                v.push(contiguous(rng, &[3, 4, 5], i));
            }
            "permuted"
        }
        3 => {
            // [2, 3, 4] with [3, 1] and [4] (broadcast: stride 0).
            let shapes: [&[i64]; 3] = [&[2, 3, 4], &[3, 1], &[4]];
            for i in 0..n {
                v.push(contiguous(rng, shapes[i % 3], i));
            }
            if n == 1 {
                v[0] = contiguous(rng, &[2, 1, 4], 0);
            }
            "broadcast"
        }
        4 => {
            v.push(Some(flipped(rng, &[3, 4, 5], &[0, 2], dtypes[0], nz(0))));
            for i in 1..n {
                v.push(Some(flipped(rng, &[3, 4, 5], &[1], dtypes[i], nz(i))));
            }
            "flipped"
        }
        5 => {
            // Gapped slices at offsets: x[1:, ::2] of [4, 10] and a column slice.
            let a = Layout::new(&[3, 5], &[10, 2], 10).unwrap();
            let b = Layout::new(&[3, 5], &[7, 1], 3).unwrap();
            for i in 0..n {
                let l = if i % 2 == 0 { a.clone() } else { b.clone() };
                v.push(Some(input(rng, l, dtypes[i], nz(i))));
            }
            "gapped"
        }
        _ => {
            // Numbers after the first input (a 0-d tensor when there is a third input).
            v.push(contiguous(rng, &[4, 3], 0));
            for i in 1..n {
                if i == 2 {
                    v.push(contiguous(rng, &[], i));
                } else {
                    v.push(None);
                }
            }
            "numbers"
        }
    };
    (name.to_string(), v)
}

pub const FAMILIES: usize = 7;

fn number_of(rng: &mut Rng, dtype: DType, nonzero: bool) -> Scalar {
    // Python numbers are bool, int or float.
    match ew_value(rng, dtype, nonzero) {
        Scalar::Float(f) if f.is_nan() => Scalar::Float(2.5),
        v => v,
    }
}

/// The case for `op` over `inputs` (None: a number of that dtype's kind), or None when the
/// CPU backend refuses it.
fn case(
    rng: &mut Rng,
    what: String,
    op: ElementOp,
    inputs: Vec<Option<Input>>,
    dtypes: &[DType],
    nonzero_at: Option<usize>,
) -> Option<EwCase> {
    let numbers: Vec<Option<Scalar>> = inputs
        .iter()
        .zip(dtypes)
        .enumerate()
        .map(|(i, (inp, &d))| match inp {
            Some(_) => None,
            None => Some(number_of(rng, d, nonzero_at == Some(i))),
        })
        .collect();
    let operands: Vec<Operand> = inputs
        .iter()
        .zip(&numbers)
        .map(|(inp, n)| match inp {
            Some(i) => Operand::Tensor(i.reference.clone()),
            None => Operand::Number(n.unwrap()),
        })
        .collect();
    let (compute, out_dtype) = op_dtypes(op, &operands).ok()?;
    let result = Tensor::elementwise(op, &operands).ok()?;
    let want = result.storage().read().unwrap().clone();
    let shape = result.sizes().to_vec();
    let args = inputs
        .into_iter()
        .zip(numbers)
        .map(|(inp, n)| match inp {
            Some(i) => EwArg::Tensor {
                layout: Layout::new(
                    &shape,
                    &broadcast_strides(i.kernel.sizes(), i.kernel.strides(), &shape),
                    i.kernel.offset(),
                )
                .unwrap(),
                dtype: i.dtype,
                bytes: i.bytes,
            },
            None => EwArg::Number(n.unwrap()),
        })
        .collect();
    Some(EwCase {
        what: format!("{what}: {op:?} over {dtypes:?} ({compute} -> {out_dtype})"),
        op,
        compute,
        out_dtype,
        out: result.layout().clone(),
        out_init: vec![POISON; want.len()],
        inputs: args,
        want,
    })
}

/// The in-place form: self (a gapped view at an offset) is the output and input 0.
fn in_place_case(rng: &mut Rng, op: ElementOp, arity: usize, dtypes: &[DType]) -> Option<EwCase> {
    let nonzero_at = divides(op).then_some(1);
    let self_layout = Layout::new(&[3, 4], &[9, 2], 2).unwrap();
    let me = input(rng, self_layout.clone(), dtypes[0], false);
    let others: Vec<Input> = (1..arity)
        .map(|i| {
            input(
                rng,
                Layout::contiguous(&[4]),
                dtypes[i],
                nonzero_at == Some(i),
            )
        })
        .collect();
    let mut operands = vec![Operand::Tensor(me.reference.clone())];
    operands.extend(others.iter().map(|o| Operand::Tensor(o.reference.clone())));
    let (compute, _) = op_dtypes(op, &operands).ok()?;
    let rest: Vec<Operand> = operands[1..].to_vec();
    me.reference.elementwise_(op, &rest).ok()?;
    let want = me.reference.storage().read().unwrap().clone();
    let mut args = vec![EwArg::Tensor {
        layout: self_layout.clone(),
        dtype: dtypes[0],
        bytes: me.bytes.clone(),
    }];
    for o in others {
        args.push(EwArg::Tensor {
            layout: Layout::new(
                &[3, 4],
                &broadcast_strides(o.kernel.sizes(), o.kernel.strides(), &[3, 4]),
                0,
            )
            .unwrap(),
            dtype: o.dtype,
            bytes: o.bytes,
        });
    }
    Some(EwCase {
        what: format!("in place into a gapped view: {op:?} over {dtypes:?}"),
        op,
        compute,
        out_dtype: dtypes[0],
        out: self_layout,
        out_init: me.bytes,
        inputs: args,
        want,
    })
}

/// The dtypes of an op's inputs: all `d` (a `where` condition is bool).
fn same(op: ElementOp, arity: usize, d: DType) -> Vec<DType> {
    (0..arity)
        .map(|i| {
            if op == ElementOp::Where && i == 0 {
                DType::Bool
            } else {
                d
            }
        })
        .collect()
}

/// Mixed-dtype inputs: promotion inside the kernel (u8 + i8 -> i16, int + half -> half,
/// bool + float, bf16 + f16 -> f32, i64 + f64, int32 true division in float32).
const MIXED: [(DType, DType); 6] = [
    (DType::U8, DType::I8),
    (DType::I32, DType::F16),
    (DType::Bool, DType::F32),
    (DType::BF16, DType::F16),
    (DType::I64, DType::F64),
    (DType::I16, DType::I32),
];

/// Every op x dtype x layout family the CPU backend accepts, plus mixed dtypes and the
/// in-place form.
pub fn all_cases(rng: &mut Rng) -> Vec<EwCase> {
    let mut cases = Vec::new();
    for (op, arity) in ops() {
        let nonzero_at = divides(op).then_some(1);
        let mut dtype_sets: Vec<Vec<DType>> =
            DType::ALL.iter().map(|&d| same(op, arity, d)).collect();
        if arity >= 2 {
            for (a, b) in MIXED {
                let mut ds = same(op, arity, a);
                let last = ds.len() - 1;
                ds[last] = b;
                dtype_sets.push(ds);
            }
        }
        for ds in &dtype_sets {
            for k in 0..FAMILIES {
                let (name, inputs) = family(rng, k, ds, nonzero_at);
                if let Some(c) = case(rng, name, op, inputs, ds, nonzero_at) {
                    cases.push(c);
                }
            }
            if op == ElementOp::Where {
                continue; // no in-place form: self would be the condition
            }
            if let Some(c) = in_place_case(rng, op, arity, ds) {
                cases.push(c);
            }
        }
    }
    cases
}
