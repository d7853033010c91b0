//! `torch.nn.functional.layer_norm` / `torch.layer_norm` as PyTorch's CPU backend runs them
//! (aten::native_layer_norm): the statistics over the trailing `normalized_shape` dims
//! (population variance, `rstd = 1 / sqrt(var + eps)`), a contiguous result, mean and rstd
//! of the input's dtype shaped as the input with the normalized dims set to 1; the node
//! NativeLayerNormBackward0 saves what derivatives.yaml lists (`input`, `weight`, `bias`,
//! `result1` = mean, `result2` = rstd). Values are computed on the host in f64 and rounded
//! once to the dtype (PyTorch accumulates float32 in float32: the last bits may differ).

use super::autograd::State;
use super::autograd::custom::{Backward, saved, wants};
use super::autograd::node::{Input, Saved};
use super::dense::contiguous;
use crate::error::{ErrorKind, Result, TensorError};
use crate::tensor::Tensor;
use std::rc::Rc;

fn floats(t: &Tensor) -> Result<Vec<f64>> {
    Ok(t.values()?.iter().map(|v| v.to_f64()).collect())
}

fn list(s: &[i64]) -> String {
    let items: Vec<String> = s.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

fn runtime(message: String) -> TensorError {
    TensorError::new(ErrorKind::Other, message)
}

/// The element count of the normalized dims (checked: caller metadata).
fn count(shape: &[i64]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| {
            usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
        })
        .ok_or_else(|| runtime(format!("layer_norm: bad normalized_shape {}", list(shape))))
}

/// PyTorch's `_check_layer_norm_inputs`, in its order.
fn check(x: &Tensor, shape: &[i64], w: Option<&Tensor>, b: Option<&Tensor>) -> Result<()> {
    if shape.is_empty() {
        return Err(runtime(format!(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = {}",
            list(shape)
        )));
    }
    for (t, what) in [(w, "weight"), (b, "bias")] {
        if let Some(t) = t
            && t.sizes() != shape
        {
            return Err(runtime(format!(
                "Expected {what} to be of same shape as normalized_shape, but got {what} of shape {} and normalized_shape = {}",
                list(t.sizes()),
                list(shape)
            )));
        }
    }
    let (nd, k) = (x.ndim(), shape.len());
    if nd < k || x.sizes()[nd - k..] != *shape {
        let star: Vec<String> = shape.iter().map(i64::to_string).collect();
        return Err(runtime(format!(
            "Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
            list(shape),
            star.join(", "),
            list(x.sizes())
        )));
    }
    if !x.dtype().is_floating() {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            format!(
                "\"LayerNormKernelImpl\" not implemented for '{}'",
                x.dtype().scalar_type_name()
            ),
        ));
    }
    Ok(())
}

/// `F.layer_norm(x, normalized_shape, weight, bias, eps)`.
pub fn layer_norm(
    g: &State,
    x: &Tensor,
    shape: &[i64],
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    check(x, shape, w, b)?;
    let n = count(shape)?;
    let xs = floats(x)?;
    let ws = w.map(floats).transpose()?;
    let bs = b.map(floats).transpose()?;
    let rows = xs.len().checked_div(n).unwrap_or(0);
    let (mut y, mut means, mut rstds) = (vec![0.0; xs.len()], vec![0.0; rows], vec![0.0; rows]);
    for r in 0..rows {
        let row = &xs[r * n..(r + 1) * n];
        let mean = row.iter().sum::<f64>() / n as f64;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        let rstd = 1.0 / (var + eps).sqrt();
        for (j, v) in row.iter().enumerate() {
            let scale = ws.as_ref().map_or(1.0, |w| w[j]);
            let shift = bs.as_ref().map_or(0.0, |b| b[j]);
            y[r * n + j] = (v - mean) * rstd * scale + shift;
        }
        (means[r], rstds[r]) = (mean, rstd);
    }
    let out = contiguous(x.sizes(), &y, x.dtype(), x)?;
    let keep = x.ndim() - shape.len();
    let mut stat_shape = x.sizes()[..keep].to_vec();
    stat_shape.resize(x.ndim(), 1);
    let mean = contiguous(&stat_shape, &means, x.dtype(), x)?;
    let rstd = contiguous(&stat_shape, &rstds, x.dtype(), x)?;
    let mut inputs = vec![x];
    let mut s = vec![g.save_input("input", x)];
    if let Some(w) = w {
        inputs.push(w);
        s.push(g.save_input("weight", w));
    }
    if let Some(b) = b {
        inputs.push(b);
        s.push(g.save_input("bias", b));
    }
    s.push(g.save_input("result1", &mean));
    s.push(g.save_input("result2", &rstd));
    let back = LayerNormBack {
        n,
        has_weight: w.is_some(),
        has_bias: b.is_some(),
    };
    g.record_op("NativeLayerNormBackward0", Rc::new(back), &inputs, s, &out);
    Ok(out)
}

/// native_layer_norm_backward: per row, with `xhat = (x - mean) * rstd` and `gw = grad *
/// weight`, `dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))`; `dweight` sums `grad *
/// xhat` and `dbias` sums `grad` over the rows. Every gradient is contiguous.
#[derive(Debug)]
struct LayerNormBack {
    n: usize,
    has_weight: bool,
    has_bias: bool,
}

impl Backward for LayerNormBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let x = saved(s, "input")?;
        let (xs, gs) = (floats(x)?, floats(grad)?);
        let means = floats(saved(s, "result1")?)?;
        let rstds = floats(saved(s, "result2")?)?;
        let ws = if self.has_weight {
            Some(floats(saved(s, "weight")?)?)
        } else {
            None
        };
        let n = self.n;
        let (mut dx, mut dw, mut db) = (vec![0.0; xs.len()], vec![0.0; n], vec![0.0; n]);
        for (r, (&mean, &rstd)) in means.iter().zip(&rstds).enumerate() {
            let at = r * n;
            let xhat: Vec<f64> = (0..n).map(|j| (xs[at + j] - mean) * rstd).collect();
            let gw: Vec<f64> = (0..n)
                .map(|j| gs[at + j] * ws.as_ref().map_or(1.0, |w| w[j]))
                .collect();
            let m1 = gw.iter().sum::<f64>() / n as f64;
            let m2 = gw.iter().zip(&xhat).map(|(a, b)| a * b).sum::<f64>() / n as f64;
            for j in 0..n {
                dx[at + j] = rstd * (gw[j] - m1 - xhat[j] * m2);
                dw[j] += gs[at + j] * xhat[j];
                db[j] += gs[at + j];
            }
        }
        let mut out = vec![if wants(inputs, 0) {
            Some(contiguous(x.sizes(), &dx, x.dtype(), x)?)
        } else {
            None
        }];
        for (has, values, role) in [
            (self.has_weight, &dw, "weight"),
            (self.has_bias, &db, "bias"),
        ] {
            if !has {
                continue;
            }
            let i = out.len();
            out.push(if wants(inputs, i) {
                let like = saved(s, role).or_else(|_| saved(s, "input"))?;
                let shape = &inputs[i].sizes;
                Some(contiguous(shape, values, like.dtype(), like)?)
            } else {
                None
            });
        }
        Ok(out)
    }
}
