//! Reductions: `sum`, `mean`, `prod`, `amax`, `amin` over all or some dimensions, with
//! `keepdim` and `dtype`, PyTorch's result dtypes (integer sums and products are int64) and
//! checks; results are new contiguous tensors (0-d for a full reduction), as ATen allocates
//! them. Values accumulate in float64 for floating inputs and wrapping int64 for integers.

use super::Tensor;
use crate::dtype::{Category, DType};
use crate::error::{ErrorKind, Result, err};
use crate::layout::{Dims, Layout, wrap_dim};
use crate::scalar::Scalar;
use crate::storage::Device;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Mean,
    Prod,
    Amax,
    Amin,
    /// `any` / `all`: bool results (uint8 for uint8 inputs).
    Any,
    All,
}

impl Reduction {
    fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Mean => "mean",
            Reduction::Prod => "prod",
            Reduction::Amax => "amax",
            Reduction::Amin => "amin",
            Reduction::Any => "any",
            Reduction::All => "all",
        }
    }
}

impl Tensor {
    /// `x.sum/mean/prod/amax/amin(dim, keepdim, dtype)`; `dims` None or empty reduces every
    /// dimension.
    pub fn reduce(
        &self,
        op: Reduction,
        dims: Option<&[i64]>,
        keepdim: bool,
        dtype: Option<DType>,
    ) -> Result<Tensor> {
        let nd = self.ndim();
        let mut reduced = vec![false; nd];
        match dims {
            Some(ds) if !ds.is_empty() => {
                for &d in ds {
                    let w = wrap_dim(d, nd)?;
                    if nd == 0 {
                        continue;
                    }
                    if reduced[w] {
                        return err(
                            ErrorKind::BadPermutation,
                            format!("dim {w} appears multiple times in the list of dims"),
                        );
                    }
                    reduced[w] = true;
                }
            }
            _ => reduced.iter_mut().for_each(|r| *r = true),
        }
        let out_dtype = match (op, dtype) {
            (Reduction::Mean, d) => {
                let d = d.unwrap_or(self.dtype);
                if !d.is_floating() {
                    return err(
                        ErrorKind::DtypeUnsupported,
                        format!(
                            "mean(): could not infer output dtype. {} dtype must be either a floating point or complex dtype. Got: {}",
                            if dtype.is_some() { "Optional" } else { "Input" },
                            d.scalar_type_name()
                        ),
                    );
                }
                d
            }
            (Reduction::Sum | Reduction::Prod, Some(d)) => d,
            (Reduction::Sum | Reduction::Prod, None) if !self.dtype.is_floating() => DType::I64,
            (Reduction::Any | Reduction::All, _) if self.dtype == DType::U8 => DType::U8,
            (Reduction::Any | Reduction::All, _) => DType::Bool,
            (_, _) => self.dtype,
        };
        if matches!(op, Reduction::Amax | Reduction::Amin) {
            let name = op.name();
            if self.numel() == 0 && dims.is_none_or(|d| d.is_empty()) && nd > 0 {
                return err(
                    ErrorKind::IndexOutOfRange,
                    format!(
                        "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
                    ),
                );
            }
            if let Some(d) = (0..nd).find(|&d| reduced[d] && self.sizes()[d] == 0) {
                return err(
                    ErrorKind::IndexOutOfRange,
                    format!("{name}(): Expected reduction dim {d} to have non-zero size."),
                );
            }
        }
        let out_shape: Dims = (0..nd)
            .filter_map(|d| match (reduced[d], keepdim) {
                (false, _) => Some(self.sizes()[d]),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect();
        let kept: Dims = (0..nd)
            .filter(|&d| !reduced[d])
            .map(|d| self.sizes()[d])
            .collect();
        let n_out = kept.iter().product::<i64>() as usize;
        let floating = !matches!(op, Reduction::Any | Reduction::All)
            && (self.dtype.is_floating() || out_dtype.is_floating());
        let init = match op {
            Reduction::Sum | Reduction::Mean => 0.0,
            Reduction::Prod => 1.0,
            Reduction::Amax => f64::NEG_INFINITY,
            Reduction::Amin => f64::INFINITY,
            Reduction::Any | Reduction::All => 0.0,
        };
        let mut facc = vec![init; n_out];
        let mut iacc: Vec<i64> = vec![
            match op {
                Reduction::Prod | Reduction::All => 1,
                Reduction::Amax => i64::MIN,
                Reduction::Amin => i64::MAX,
                _ => 0,
            };
            n_out
        ];
        let kept_layout = Layout::contiguous(&kept);
        super::host_fallback::note(self.device(), || format!("`{}` (a reduction)", op.name()));
        let values = self.to_device(Device::Cpu)?.values()?;
        let mut count = vec![0i64; n_out];
        for (idx, v) in Layout::contiguous(self.sizes()).indices().zip(values) {
            let pos: Dims = (0..nd).filter(|&d| !reduced[d]).map(|d| idx[d]).collect();
            let o = if kept.is_empty() {
                0
            } else {
                kept_layout.element_at(&pos) as usize
            };
            count[o] += 1;
            if floating {
                let x = v.to_f64();
                let a = &mut facc[o];
                *a = match op {
                    Reduction::Sum | Reduction::Mean => *a + x,
                    Reduction::Prod => *a * x,
                    Reduction::Amax if x.is_nan() || a.is_nan() => f64::NAN,
                    Reduction::Amin if x.is_nan() || a.is_nan() => f64::NAN,
                    Reduction::Amax => a.max(x),
                    Reduction::Amin => a.min(x),
                    Reduction::Any | Reduction::All => unreachable!("counted as truth values"),
                };
            } else if matches!(op, Reduction::Any | Reduction::All) {
                let t = v.to_bool() as i64;
                let a = &mut iacc[o];
                *a = if op == Reduction::Any { *a | t } else { *a & t };
            } else {
                let x = v.to_int();
                let a = &mut iacc[o];
                *a = match op {
                    Reduction::Sum | Reduction::Mean => a.wrapping_add(x),
                    Reduction::Prod => a.wrapping_mul(x),
                    Reduction::Amax => (*a).max(x),
                    Reduction::Amin => (*a).min(x),
                    Reduction::Any | Reduction::All => unreachable!("handled above"),
                };
            }
        }
        let out = Tensor::uninitialized(Layout::contiguous(&out_shape), out_dtype)?;
        {
            let mut bytes = out.storage.write().expect("new tensors are on the host");
            let sz = out_dtype.itemsize();
            for o in 0..n_out {
                let v = match (floating, op) {
                    (true, Reduction::Mean) => Scalar::Float(facc[o] / count[o] as f64),
                    (true, _) => Scalar::Float(facc[o]),
                    (false, _)
                        if self.dtype.category() == Category::Bool
                            && matches!(op, Reduction::Amax | Reduction::Amin) =>
                    {
                        Scalar::Bool(iacc[o] != 0)
                    }
                    (false, _) => Scalar::Int(iacc[o]),
                };
                v.write(out_dtype, &mut bytes[o * sz..(o + 1) * sz]);
            }
        }
        out.to_device(self.device())
    }
}
