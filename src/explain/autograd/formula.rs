//! The backward formulas (PyTorch's derivatives.yaml) for the ops explain differentiates:
//! given the gradient of a node's output, the gradients of its inputs, computed with the
//! crate's own tensor ops on real values.

pub use super::node::{Backward, Formula};
use super::node::{Input, Saved};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::overlap::has_internal_overlap;
use crate::scalar::Scalar;
use crate::tensor::arith::ElementOp;
use crate::tensor::elementwise::Operand;
use crate::tensor::{Reduction, Tensor};

fn tensor(t: &Tensor) -> Operand {
    Operand::Tensor(t.clone())
}

fn binary(op: ElementOp, a: Operand, b: Operand) -> Result<Tensor> {
    Tensor::elementwise(op, &[a, b])
}

fn find<'a>(saved: &'a [Saved], role: &str) -> Result<&'a Saved> {
    saved.iter().find(|s| s.role == role).ok_or_else(|| {
        TensorError::new(
            ErrorKind::Other,
            format!("autograd: the saved '{role}' is missing"),
        )
    })
}

/// A saved tensor as an operand (a wrapped Python number back as the number).
fn operand(s: &Saved) -> Result<Operand> {
    if s.wrapped_number {
        return Ok(Operand::Number(s.tensor.values()?[0]));
    }
    Ok(tensor(&s.tensor))
}

/// `grad` summed over the dims it was broadcast along, back to `sizes`.
pub fn sum_to(grad: Tensor, sizes: &[i64]) -> Result<Tensor> {
    let g = grad.sizes().to_vec();
    if g == sizes {
        return Ok(grad);
    }
    let lead = g.len().saturating_sub(sizes.len());
    let mut dims: Vec<i64> = (0..lead as i64).collect();
    for (i, &s) in sizes.iter().enumerate() {
        if s == 1 && g.get(lead + i).is_some_and(|&d| d != 1) {
            dims.push((lead + i) as i64);
        }
    }
    let reduced = if dims.is_empty() {
        grad
    } else {
        grad.reduce(Reduction::Sum, Some(&dims), true, None)?
    };
    reduced.reshape(sizes)
}

impl Formula {
    /// The gradients of the inputs (None where an input needs none) from the output's.
    pub fn apply(
        &self,
        grad: &Tensor,
        inputs: &[Input],
        saved: &[Saved],
    ) -> Result<Vec<Option<Tensor>>> {
        let wants = |i: usize| inputs.get(i).is_some_and(|x| x.edge.is_some());
        let size = |i: usize| inputs[i].sizes.clone();
        let g = tensor(grad);
        let mut out: Vec<Option<Tensor>> = vec![None; inputs.len()];
        match self {
            // The generated nodes compute their inputs' gradients in the order of the
            // inputs' names (`other` before `self`), each one C++ statement whose
            // temporaries live until it ends; the engine then sums each to its input's
            // shape (validate_outputs). `maybe_multiply` passes the gradient itself on for
            // an alpha of 1.
            Formula::Add(alpha) | Formula::Sub(alpha) => {
                if wants(1) {
                    out[1] = Some(if matches!(self, Formula::Sub(_)) {
                        let neg = Tensor::elementwise(ElementOp::Neg, std::slice::from_ref(&g))?;
                        maybe_multiply(neg, *alpha)?
                    } else {
                        maybe_multiply(grad.clone(), *alpha)?
                    });
                }
                if wants(0) {
                    out[0] = Some(grad.clone());
                }
            }
            Formula::Rsub(alpha) => {
                let neg = Tensor::elementwise(ElementOp::Neg, std::slice::from_ref(&g))?;
                out[0] = Some(maybe_multiply(neg, *alpha)?);
            }
            Formula::Mul => {
                if wants(1) {
                    let this = operand(find(saved, "self")?)?;
                    out[1] = Some(binary(ElementOp::Mul, g.clone(), this)?);
                }
                if wants(0) {
                    let other = operand(find(saved, "other")?)?;
                    out[0] = Some(binary(ElementOp::Mul, g.clone(), other)?);
                }
            }
            Formula::Div => {
                if wants(1) {
                    // div_tensor_other_backward: -grad * ((self / other) / other), the
                    // three temporaries alive until the product exists
                    let this = operand(find(saved, "self")?)?;
                    let other = operand(find(saved, "other")?)?;
                    let neg = Tensor::elementwise(ElementOp::Neg, std::slice::from_ref(&g))?;
                    let q = binary(ElementOp::Div, this, other.clone())?;
                    let qq = binary(ElementOp::Div, tensor(&q), other)?;
                    out[1] = Some(binary(ElementOp::Mul, tensor(&neg), tensor(&qq))?);
                }
                if wants(0) {
                    let other = operand(find(saved, "other")?)?;
                    out[0] = Some(binary(ElementOp::Div, g.clone(), other)?);
                }
            }
            Formula::Neg => out[0] = Some(Tensor::elementwise(ElementOp::Neg, &[g])?),
            Formula::Exp => {
                let r = operand(find(saved, "result")?)?;
                out[0] = Some(binary(ElementOp::Mul, g, r)?);
            }
            Formula::Sqrt => {
                let r = operand(find(saved, "result")?)?;
                let twice = binary(ElementOp::Mul, Operand::Number(Scalar::Int(2)), r)?;
                out[0] = Some(binary(ElementOp::Div, g, tensor(&twice))?);
            }
            Formula::Pow(e) => {
                // pow_backward: zeros_like(self) for an exponent of 0, else
                // grad * (e * self.pow(e - 1)), both temporaries alive until the product
                let this = find(saved, "self")?;
                out[0] = Some(if e.to_f64() == 0.0 {
                    this.tensor
                        .full_like(
                            Scalar::Int(0),
                            this.tensor.dtype(),
                            crate::layout::MemoryFormat::Contiguous,
                        )?
                        .placed_on(this.tensor.device())?
                } else {
                    let less = match *e {
                        Scalar::Float(f) => Scalar::Float(f - 1.0),
                        other => Scalar::Int(other.to_int().saturating_sub(1)),
                    };
                    let p = binary(ElementOp::Pow, operand(this)?, Operand::Number(less))?;
                    let d = binary(ElementOp::Mul, Operand::Number(*e), tensor(&p))?;
                    binary(ElementOp::Mul, g, tensor(&d))?
                });
            }
            Formula::Reduce {
                dims,
                keepdim,
                mean,
            } => {
                let sizes = size(0);
                let nd = sizes.len() as i64;
                let mut shaped = grad.clone();
                let mut count: i64 = 1;
                match dims {
                    Some(ds) if !ds.is_empty() => {
                        let mut wrapped: Vec<i64> =
                            ds.iter().map(|&d| if d < 0 { d + nd } else { d }).collect();
                        wrapped.sort_unstable();
                        for &d in &wrapped {
                            count = count.saturating_mul(sizes[d as usize]);
                            if !keepdim {
                                shaped = shaped.unsqueeze(d)?;
                            }
                        }
                    }
                    _ => {
                        count = sizes.iter().product();
                        shaped = shaped.reshape(&vec![1; sizes.len()])?;
                    }
                }
                let mut expanded = shaped.expand(&sizes)?;
                if *mean {
                    expanded = binary(
                        ElementOp::Div,
                        tensor(&expanded),
                        Operand::Number(Scalar::Int(count)),
                    )?;
                }
                out[0] = Some(expanded);
            }
            Formula::View { summed } => out[0] = Some(view_backward(grad, &inputs[0], *summed)?),
            Formula::Copy => out[0] = Some(grad.reshape(&size(0))?),
            Formula::Custom(b) => out = b.apply(grad, inputs, saved)?,
        }
        // Every gradient summed to its input's shape and in its input's dtype (the
        // engine's validate_outputs), one after the other.
        for (slot, input) in out.iter_mut().zip(inputs) {
            if let Some(t) = slot.take() {
                *slot = Some(cast(sum_to(t, &input.sizes)?, input.dtype)?);
            }
        }
        Ok(out)
    }
}

/// PyTorch's `maybe_multiply`: `t` itself when `alpha` is 1, else `t * alpha`.
fn maybe_multiply(t: Tensor, alpha: Scalar) -> Result<Tensor> {
    if alpha.to_f64() == 1.0 {
        return Ok(t);
    }
    binary(ElementOp::Mul, Operand::Tensor(t), Operand::Number(alpha))
}

fn cast(t: Tensor, dtype: DType) -> Result<Tensor> {
    if t.dtype() == dtype {
        return Ok(t);
    }
    t.to(Some(dtype), None, false)
}

/// The storage element each logical element of `layout` is, in row-major order.
fn element_offsets(layout: &crate::layout::Layout) -> Vec<i64> {
    let (strides, offset) = (layout.strides(), layout.offset());
    layout
        .indices()
        .map(|idx| {
            idx.iter().zip(strides).fold(offset, |acc, (i, s)| {
                acc.saturating_add(i.saturating_mul(*s))
            })
        })
        .collect()
}

/// A view's backward: each output element's gradient is added to the input element on the
/// same storage element (summed where the view repeats one: `expand`, overlapping `unfold`).
fn view_backward(grad: &Tensor, input: &Input, summed: bool) -> Result<Tensor> {
    let out_layout = grad_view_layout(input);
    // a permutation of the input's dims (t, transpose, permute, an identity view): PyTorch's
    // backward is the gradient permuted back, a view of it with its strides
    if let Some(inverse) = permutation(&input.layout, out_layout) {
        return grad.permute(&inverse);
    }
    if has_internal_overlap(&input.layout) {
        return Err(TensorError::new(
            ErrorKind::Unsupported,
            "stridekit explain has no derivative for a view of a tensor whose elements overlap",
        ));
    }
    let ins = element_offsets(&input.layout);
    let outs = element_offsets(out_layout);
    let lo = ins.iter().chain(&outs).copied().min().unwrap_or(0);
    let hi = ins.iter().chain(&outs).copied().max().unwrap_or(0);
    let span = usize::try_from(hi.saturating_sub(lo).saturating_add(1)).unwrap_or(usize::MAX);
    let mut acc = Vec::new();
    acc.try_reserve_exact(span).map_err(|_| {
        TensorError::new(ErrorKind::OutOfMemory, "autograd: a view's gradient buffer")
    })?;
    // None until a gradient lands there: the first one is kept as it is (a -0.0 stays -0.0,
    // as PyTorch's copy into zeros), later ones are added.
    acc.resize(span, summed.then_some(0.0f64));
    for (o, v) in outs.iter().zip(grad.values()?) {
        let slot = &mut acc[(o - lo) as usize];
        *slot = Some(slot.map_or(v.to_f64(), |a| a + v.to_f64()));
    }
    let values: Vec<Scalar> = ins
        .iter()
        .map(|o| Scalar::Float(acc[(o - lo) as usize].unwrap_or(0.0)))
        .collect();
    Tensor::from_values(&input.sizes, &values, Some(input.dtype))?.placed_on(grad.device())
}

/// When `out` is `input` with its dims permuted (out dim j is input dim p[j], same offset),
/// the inverse permutation (input dim i is out dim q[i]).
fn permutation(input: &crate::layout::Layout, out: &crate::layout::Layout) -> Option<Vec<i64>> {
    let n = input.sizes().len();
    if out.sizes().len() != n || out.offset() != input.offset() {
        return None;
    }
    let mut used = vec![false; n];
    let mut inverse = vec![0i64; n];
    for j in 0..n {
        let i = (0..n).find(|&i| {
            !used[i] && input.sizes()[i] == out.sizes()[j] && input.strides()[i] == out.strides()[j]
        })?;
        used[i] = true;
        inverse[i] = j as i64;
    }
    Some(inverse)
}

/// The output layout a view node recorded.
fn grad_view_layout(input: &Input) -> &crate::layout::Layout {
    input.view_out.as_ref().unwrap_or(&input.layout)
}
