//! The layer ops of seed 001: `relu`, `gelu` (both approximations), `silu`, `softmax`,
//! `log_softmax`, `dropout` in evaluation (`training=False`: the input itself) and the
//! constant `pad`, with their autograd nodes (what derivatives.yaml saves: relu and the
//! softmaxes their result, gelu and silu their input, pad nothing). Values are computed on
//! the host in f64 from the inputs' values and rounded once to the result's dtype
//! (PyTorch computes float32 in float32 with vectorised exp/erf/tanh: the last bit may
//! differ; integer and exact cases agree exactly).

use super::autograd::State;
use super::autograd::custom::{Backward, saved};
use super::autograd::node::{Input, Saved};
use super::dense::{contiguous, dense_like};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::{Layout, wrap_dim};
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use crate::tensor::arith::ElementOp;
use crate::tensor::elementwise::Operand;
use std::rc::Rc;

fn floats(t: &Tensor) -> Result<Vec<f64>> {
    Ok(t.values()?.iter().map(|v| v.to_f64()).collect())
}

fn not_implemented(kernel: &str, d: DType) -> TensorError {
    TensorError::new(
        ErrorKind::DtypeUnsupported,
        format!(
            "\"{kernel}\" not implemented for '{}'",
            d.scalar_type_name()
        ),
    )
}

fn floating_only(kernel: &str, t: &Tensor) -> Result<()> {
    if !t.dtype().is_floating() {
        return Err(not_implemented(kernel, t.dtype()));
    }
    Ok(())
}

fn elementwise(op: ElementOp, a: Operand, b: Operand) -> Result<Tensor> {
    Tensor::elementwise(op, &[a, b])
}

fn tensor(t: &Tensor) -> Operand {
    Operand::Tensor(t.clone())
}

/// `grad * f'(x)` element by element, f' from the saved tensor's values.
fn times_derivative(grad: &Tensor, s: &Tensor, d: impl Fn(f64) -> f64) -> Result<Tensor> {
    let ds: Vec<f64> = floats(s)?.into_iter().map(d).collect();
    let dt = contiguous(s.sizes(), &ds, s.dtype(), s)?;
    elementwise(ElementOp::Mul, tensor(grad), tensor(&dt))
}

#[derive(Debug)]
struct ReluBack;

impl Backward for ReluBack {
    fn apply(&self, grad: &Tensor, _: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        // threshold_backward(grad, result, 0): the gradient where the result is positive
        let r = saved(s, "result")?;
        Ok(vec![Some(times_derivative(grad, r, |y| {
            if y > 0.0 { 1.0 } else { 0.0 }
        })?)])
    }
}

/// `torch.relu(x)` (`clamp_min(x, 0)`; integers too, bool refused).
pub fn relu(g: &State, x: &Tensor) -> Result<Tensor> {
    if x.dtype() == DType::Bool {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            "Boolean inputs not supported for relu",
        ));
    }
    let r = Tensor::elementwise(
        ElementOp::Clamp {
            min: true,
            max: false,
        },
        &[tensor(x), Operand::Number(Scalar::Int(0))],
    )?;
    let s = vec![g.save_output("result", &r)];
    g.record_op("ReluBackward0", Rc::new(ReluBack), &[x], s, &r);
    Ok(r)
}

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;

fn gelu_value(x: f64, tanh: bool) -> f64 {
    if tanh {
        let inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
        0.5 * x * (1.0 + inner.tanh())
    } else {
        0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
    }
}

fn gelu_derivative(x: f64, tanh: bool) -> f64 {
    if tanh {
        let inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
        let t = inner.tanh();
        let d_inner = SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * x * x);
        0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * d_inner
    } else {
        let cdf = 0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2));
        let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
        cdf + x * pdf
    }
}

#[derive(Debug)]
struct GeluBack {
    tanh: bool,
}

impl Backward for GeluBack {
    fn apply(&self, grad: &Tensor, _: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let tanh = self.tanh;
        let x = saved(s, "self")?;
        Ok(vec![Some(times_derivative(grad, x, |v| {
            gelu_derivative(v, tanh)
        })?)])
    }
}

/// `torch.nn.functional.gelu(x, approximate='none' | 'tanh')`.
pub fn gelu(g: &State, x: &Tensor, approximate: &str) -> Result<Tensor> {
    let tanh = match approximate {
        "none" => false,
        "tanh" => true,
        _ => {
            return Err(TensorError::new(
                ErrorKind::Other,
                "approximate argument must be either none or tanh.",
            ));
        }
    };
    floating_only("GeluKernelImpl", x)?;
    let v: Vec<f64> = floats(x)?
        .into_iter()
        .map(|v| gelu_value(v, tanh))
        .collect();
    let r = dense_like(x, &v, x.dtype())?;
    let s = vec![g.save_input("self", x)];
    g.record_op("GeluBackward0", Rc::new(GeluBack { tanh }), &[x], s, &r);
    Ok(r)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[derive(Debug)]
struct SiluBack;

impl Backward for SiluBack {
    fn apply(&self, grad: &Tensor, _: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let x = saved(s, "self")?;
        Ok(vec![Some(times_derivative(grad, x, |v| {
            let sg = sigmoid(v);
            sg * (1.0 + v * (1.0 - sg))
        })?)])
    }
}

/// `torch.nn.functional.silu(x)`: `x * sigmoid(x)`.
pub fn silu(g: &State, x: &Tensor) -> Result<Tensor> {
    floating_only("silu_cpu", x)?;
    let v: Vec<f64> = floats(x)?.into_iter().map(|v| v * sigmoid(v)).collect();
    let r = dense_like(x, &v, x.dtype())?;
    let s = vec![g.save_input("self", x)];
    g.record_op("SiluBackward0", Rc::new(SiluBack), &[x], s, &r);
    Ok(r)
}

/// The row-major offsets of every line along `dim` of a tensor of `sizes`: (first element,
/// step between elements, length).
fn lines(sizes: &[i64], dim: usize) -> (Vec<usize>, usize, usize) {
    let len = sizes.get(dim).copied().unwrap_or(1).max(0) as usize;
    let inner: usize = sizes
        .get(dim + 1..)
        .map_or(1, |s| s.iter().map(|&d| d.max(0) as usize).product());
    let outer: usize = sizes[..dim.min(sizes.len())]
        .iter()
        .map(|&d| d.max(0) as usize)
        .product();
    let mut starts = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            starts.push(o * len * inner + i);
        }
    }
    (starts, inner, len)
}

/// Softmax (or log-softmax) of `v` (row-major, `sizes`) along `dim`.
fn softmax_values(v: &[f64], sizes: &[i64], dim: usize, log: bool) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    let (starts, step, len) = lines(sizes, dim);
    for s in starts {
        let at = |k: usize| s + k * step;
        let max = (0..len).map(|k| v[at(k)]).fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = (0..len).map(|k| (v[at(k)] - max).exp()).sum();
        for k in 0..len {
            let shifted = v[at(k)] - max;
            out[at(k)] = if log {
                shifted - sum.ln()
            } else {
                shifted.exp() / sum
            };
        }
    }
    out
}

#[derive(Debug)]
struct SoftmaxBack {
    dim: usize,
    log: bool,
}

impl Backward for SoftmaxBack {
    fn apply(&self, grad: &Tensor, _: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let r = saved(s, "result")?;
        let (gv, rv) = (floats(grad)?, floats(r)?);
        let mut out = vec![0.0; gv.len()];
        let (starts, step, len) = lines(r.sizes(), self.dim);
        for st in starts {
            let at = |k: usize| st + k * step;
            if self.log {
                // grad - exp(result) * sum(grad)
                let sum: f64 = (0..len).map(|k| gv[at(k)]).sum();
                for k in 0..len {
                    out[at(k)] = gv[at(k)] - rv[at(k)].exp() * sum;
                }
            } else {
                // result * (grad - sum(grad * result))
                let dotp: f64 = (0..len).map(|k| gv[at(k)] * rv[at(k)]).sum();
                for k in 0..len {
                    out[at(k)] = rv[at(k)] * (gv[at(k)] - dotp);
                }
            }
        }
        Ok(vec![Some(contiguous(r.sizes(), &out, r.dtype(), r)?)])
    }
}

/// `torch.softmax(x, dim, dtype=None)` / `log_softmax`: a contiguous result; with `dtype`
/// the input is converted first (its own node, as PyTorch's `to`).
pub fn softmax(g: &State, x: &Tensor, dim: i64, dtype: Option<DType>, log: bool) -> Result<Tensor> {
    let x = match dtype {
        Some(d) if d != x.dtype() => {
            let c = x.to(Some(d), None, false)?;
            g.record_view("to", x, &c)?;
            c
        }
        _ => x.clone(),
    };
    let d = wrap_dim(dim, x.ndim())?;
    let kernel = if log {
        "log_softmax_lastdim_kernel_impl"
    } else {
        "softmax_lastdim_kernel_impl"
    };
    floating_only(kernel, &x)?;
    let v = softmax_values(&floats(&x)?, x.sizes(), d, log);
    let r = contiguous(x.sizes(), &v, x.dtype(), &x)?;
    let s = vec![g.save_output("result", &r)];
    let name = if log {
        "LogSoftmaxBackward0"
    } else {
        "SoftmaxBackward0"
    };
    g.record_op(name, Rc::new(SoftmaxBack { dim: d, log }), &[&x], s, &r);
    Ok(r)
}

/// `torch.nn.functional.dropout(x, p, training, inplace)`: `p` checked as PyTorch's
/// functional does; without training the input itself is returned (PyTorch returns the
/// same tensor object). Training-mode dropout draws a random mask, which explain does not
/// model.
pub fn dropout(x: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        return Err(TensorError::new(
            ErrorKind::Other,
            format!("dropout probability has to be between 0 and 1, but got {p}"),
        ));
    }
    if !training || p == 0.0 || x.numel() == 0 {
        return Ok(x.clone());
    }
    Err(TensorError::new(
        ErrorKind::Unsupported,
        "stridekit explain does not model dropout in training mode (a random mask); use training=False or model.eval()",
    ))
}

/// `repeat`'s backward (RepeatBackward0; `tile` is a repeat): every gradient element added
/// to the input element it repeats (the output's trailing dims cycle through the input's).
#[derive(Debug)]
struct RepeatBack;

impl Backward for RepeatBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], _: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let sizes = &inputs[0].sizes;
        let n = sizes.len();
        let lead = grad.ndim() - n;
        let mut acc = vec![0.0; Layout::contiguous(sizes).numel().max(0) as usize];
        for (idx, v) in grad.layout().indices().zip(floats(grad)?) {
            let mut flat = 0i64;
            for d in 0..n {
                flat = flat * sizes[d] + idx[lead + d] % sizes[d].max(1);
            }
            acc[flat as usize] += v;
        }
        Ok(vec![Some(contiguous(sizes, &acc, grad.dtype(), grad)?)])
    }
}

/// Records RepeatBackward0 for `result`, made by `repeat`/`tile` from `x`.
pub fn record_repeat(g: &State, x: &Tensor, result: &Tensor) {
    g.record_op("RepeatBackward0", Rc::new(RepeatBack), &[x], vec![], result);
}

#[derive(Debug)]
struct PadBack {
    pads: Vec<i64>,
}

impl Backward for PadBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], _: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let back: Vec<i64> = self.pads.iter().map(|p| -p).collect();
        let sizes = &inputs[0].sizes;
        Ok(vec![Some(pad_values(grad, &back, 0.0, sizes)?)])
    }
}

/// The sizes of `x` padded by `pads` (pairs from the last dim), or PyTorch's error.
fn padded_sizes(x: &Tensor, pads: &[i64]) -> Result<Vec<i64>> {
    if !pads.len().is_multiple_of(2) {
        return Err(TensorError::new(
            ErrorKind::InvalidShape,
            "Padding length must be divisible by 2",
        ));
    }
    if pads.len() / 2 > x.ndim() {
        return Err(TensorError::new(
            ErrorKind::InvalidShape,
            "Padding length should be less than or equal to two times the input dimension but got padding length ".to_string()
                + &pads.len().to_string()
                + " and input of dimension "
                + &x.ndim().to_string(),
        ));
    }
    let mut sizes = x.sizes().to_vec();
    let nd = sizes.len();
    for (i, pair) in pads.chunks(2).enumerate() {
        let d = nd - 1 - i;
        let new = sizes[d].saturating_add(pair[0]).saturating_add(pair[1]);
        if new < 0 {
            return Err(TensorError::new(
                ErrorKind::Other,
                "narrow(): length must be non-negative.",
            ));
        }
        sizes[d] = new;
    }
    Ok(sizes)
}

/// `x` padded (or cropped, for negative pads) to `out_sizes`, new cells `value`.
fn pad_values(x: &Tensor, pads: &[i64], value: f64, _in_sizes: &[i64]) -> Result<Tensor> {
    let out_sizes = padded_sizes(x, pads)?;
    let nd = out_sizes.len();
    if pads.iter().all(|&p| p <= 0) {
        // PyTorch narrows the input and clones the narrowed view (its strides kept)
        let mut c = x.clone();
        for (i, pair) in pads.chunks(2).enumerate() {
            let d = (nd - 1 - i) as i64;
            let size = c.sizes()[d as usize];
            c = c.narrow(d, -pair[0], size + pair[0])?;
            let size = c.sizes()[d as usize];
            c = c.narrow(d, 0, size + pair[1])?;
        }
        return c.clone_as(crate::layout::MemoryFormat::Preserve);
    }
    let mut before = vec![0i64; nd];
    for (i, pair) in pads.chunks(2).enumerate() {
        before[nd - 1 - i] = pair[0];
    }
    let src = floats(x)?;
    let in_sizes = x.sizes();
    let out_layout = Layout::contiguous(&out_sizes);
    let mut out = Vec::with_capacity(out_layout.numel().max(0) as usize);
    for idx in out_layout.indices() {
        let mut flat = 0i64;
        let mut inside = true;
        for d in 0..nd {
            let j = idx[d] - before[d];
            if j < 0 || j >= in_sizes[d] {
                inside = false;
                break;
            }
            flat = flat * in_sizes[d] + j;
        }
        out.push(if inside { src[flat as usize] } else { value });
    }
    contiguous(&out_sizes, &out, x.dtype(), x)
}

/// `torch.nn.functional.pad(x, pad, mode='constant', value=None)` (constant mode).
pub fn pad(
    g: &State,
    x: &Tensor,
    pads: &[i64],
    mode: &str,
    value: Option<Scalar>,
) -> Result<Tensor> {
    if mode != "constant" {
        return Err(TensorError::new(
            ErrorKind::Unsupported,
            format!("stridekit explain has only pad's 'constant' mode, not '{mode}'"),
        ));
    }
    let fill = value.map_or(0.0, |v| v.to_f64());
    if !x.dtype().is_floating() && fill.fract() != 0.0 {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            "value cannot be converted to type int64_t without overflow",
        ));
    }
    let r = pad_values(x, pads, fill, x.sizes())?;
    g.record_op(
        "ConstantPadNdBackward0",
        Rc::new(PadBack {
            pads: pads.to_vec(),
        }),
        &[x],
        vec![],
        &r,
    );
    Ok(r)
}
