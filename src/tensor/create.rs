//! Constructors: `torch.zeros/ones/full/empty/arange/tensor` with PyTorch's dtype inference
//! and checks.

use super::Tensor;
use super::convert::{checked_fill_value, literal_value};
use crate::dtype::{Category, DType};
use crate::error::{ErrorKind, Result, err};
use crate::layout::{Layout, check_sizes_nonnegative, fmt_dims, view};
use crate::scalar::Scalar;
use crate::storage::Storage;

impl Tensor {
    /// A fresh, zero-filled tensor with exactly the storage `layout` needs, or PyTorch's
    /// out-of-memory error when the host cannot provide it.
    pub(crate) fn uninitialized(layout: Layout, dtype: DType) -> Result<Tensor> {
        let nbytes = view::required_storage_bytes(&layout, dtype.itemsize()) as usize;
        Ok(Tensor::fresh(Storage::zeroed(nbytes)?, layout, dtype))
    }

    /// A new contiguous layout for a constructor, with PyTorch's checks: sizes must be
    /// non-negative and numel x itemsize must not overflow.
    fn checked_sizes(op: &str, sizes: &[i64], dtype: DType) -> Result<Layout> {
        if op == "zeros" && sizes.iter().any(|&s| s < 0) {
            return err(
                ErrorKind::InvalidShape,
                "zeros: Dimension size must be non-negative.",
            );
        }
        check_sizes_nonnegative(sizes)?;
        let nbytes = sizes
            .iter()
            .try_fold(dtype.itemsize() as i64, |acc, &s| acc.checked_mul(s));
        let strides_fit = sizes
            .iter()
            .try_fold(1i64, |acc, &s| acc.checked_mul(s.max(1)))
            .is_some();
        if nbytes.is_none() || !strides_fit {
            return err(
                ErrorKind::InvalidShape,
                format!(
                    "Storage size calculation overflowed with sizes={}",
                    fmt_dims(sizes)
                ),
            );
        }
        Ok(Layout::contiguous(sizes))
    }

    /// `torch.empty(sizes)`. stridekit zero-fills it; PyTorch leaves it uninitialised.
    pub fn empty(sizes: &[i64], dtype: DType) -> Result<Tensor> {
        Tensor::uninitialized(Self::checked_sizes("empty", sizes, dtype)?, dtype)
    }

    pub fn zeros(sizes: &[i64], dtype: DType) -> Result<Tensor> {
        Tensor::uninitialized(Self::checked_sizes("zeros", sizes, dtype)?, dtype)
    }

    pub fn ones(sizes: &[i64], dtype: DType) -> Result<Tensor> {
        let t = Tensor::uninitialized(Self::checked_sizes("ones", sizes, dtype)?, dtype)?;
        t.fill_raw(Scalar::Int(1))?;
        Ok(t)
    }

    /// `torch.full(sizes, value, dtype=...)`; without a dtype, bool -> bool, int -> int64,
    /// float -> float32.
    pub fn full(sizes: &[i64], value: Scalar, dtype: Option<DType>) -> Result<Tensor> {
        let dtype = dtype.unwrap_or(match value.category() {
            Category::Bool => DType::Bool,
            Category::Integral => DType::I64,
            Category::Floating => DType::F32,
        });
        let layout = Self::checked_sizes("full", sizes, dtype)?;
        let v = checked_fill_value(value, dtype)?;
        let t = Tensor::uninitialized(layout, dtype)?;
        t.fill_raw(v)?;
        Ok(t)
    }

    /// `torch.tensor(data, dtype=...)` from flat values and a shape; without a dtype, all
    /// bools -> bool, any float -> float32, else int64.
    pub fn from_values(sizes: &[i64], values: &[Scalar], dtype: Option<DType>) -> Result<Tensor> {
        let dtype = dtype.unwrap_or_else(|| match values.iter().map(|v| v.category()).max() {
            Some(Category::Bool) => DType::Bool,
            Some(Category::Integral) => DType::I64,
            _ => DType::F32,
        });
        let layout = Self::checked_sizes("tensor", sizes, dtype)?;
        if layout.numel() != values.len() as i64 {
            return err(
                ErrorKind::InvalidShape,
                format!(
                    "shape {} does not hold {} values",
                    fmt_dims(sizes),
                    values.len()
                ),
            );
        }
        let t = Tensor::uninitialized(layout, dtype)?;
        {
            let mut bytes = t.storage.write().expect("new tensors are on the host");
            let sz = dtype.itemsize();
            for (i, v) in values.iter().enumerate() {
                literal_value(*v, dtype)?.write(dtype, &mut bytes[i * sz..(i + 1) * sz]);
            }
        }
        Ok(t)
    }

    /// `torch.arange(start, end, step, dtype=...)`; without a dtype, any float argument
    /// gives float32, else int64.
    pub fn arange(
        start: Scalar,
        end: Scalar,
        step: Scalar,
        dtype: Option<DType>,
    ) -> Result<Tensor> {
        let any_float = [start, end, step]
            .iter()
            .any(|s| s.category() == Category::Floating);
        let dtype = dtype.unwrap_or(if any_float { DType::F32 } else { DType::I64 });
        let integral = dtype.category() != Category::Floating;
        // Bounds and step as the kernel's accumulate type sees them.
        let acc = |s: Scalar| -> f64 {
            if integral {
                s.cast(DType::I64).to_f64()
            } else {
                s.to_f64()
            }
        };
        let (xs, xe, xstep) = (acc(start), acc(end), acc(step));
        if xstep == 0.0 {
            return err(ErrorKind::BadStep, "step must be nonzero");
        }
        if !xs.is_finite() || !xe.is_finite() {
            return err(
                ErrorKind::BadStep,
                format!("unsupported range: {} -> {}", start, end),
            );
        }
        if !((xstep > 0.0 && xe >= xs) || (xstep < 0.0 && xe <= xs)) {
            return err(
                ErrorKind::BadStep,
                "upper bound and lower bound inconsistent with step sign",
            );
        }
        let len = if dtype == DType::I64 {
            let (s, e, st) = (xs as i64, xe as i64, xstep as i64);
            ((e - s + st - st.signum()) / st) as f64
        } else {
            ((end.to_f64() - start.to_f64()) / step.to_f64()).ceil()
        };
        if !(len >= 0.0 && len <= i64::MAX as f64) {
            return err(ErrorKind::InvalidShape, "invalid size, possible overflow?");
        }
        if dtype == DType::Bool {
            return err(
                ErrorKind::DtypeUnsupported,
                "\"arange_cpu\" not implemented for 'Bool'",
            );
        }
        let n = len as i64;
        let t = Tensor::uninitialized(Self::checked_sizes("arange", &[n], dtype)?, dtype)?;
        {
            let mut bytes = t.storage.write().expect("new tensors are on the host");
            let sz = dtype.itemsize();
            for i in 0..n {
                let v = match dtype {
                    d if d.category() == Category::Integral => {
                        Scalar::Int((xs as i64).wrapping_add((xstep as i64).wrapping_mul(i)))
                    }
                    DType::F16 | DType::BF16 => {
                        Scalar::Float((xs as f32 + xstep as f32 * i as f32) as f64)
                    }
                    _ => Scalar::Float(xs + xstep * i as f64),
                };
                let at = i as usize * sz;
                v.write(dtype, &mut bytes[at..at + sz]);
            }
        }
        Ok(t)
    }
}
