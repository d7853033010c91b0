//! In-place writes: `copy_`, `fill_`, `zero_`, `add_`, `mul_` and indexed assignment.
//!
//! Each checks first and writes only when every check passed, so a refused operation
//! changes nothing; each successful one bumps the shared version counter once. Overlap is
//! checked exactly (see [`crate::layout::overlap`]): writes that PyTorch lets through on
//! overlapping views with order-dependent results are refused here.

use super::Tensor;
use super::arith::ElementOp;
use super::convert::checked_fill_value;
use super::elementwise::Operand;
use crate::error::{ErrorKind, INTERNAL_OVERLAP_MSG, PARTIAL_OVERLAP_MSG, Result, err};
use crate::layout::index::IndexItem;
use crate::layout::overlap::{Overlap, has_internal_overlap, overlap_status};
use crate::layout::{Dims, Layout, fmt_dims};
use crate::scalar::Scalar;

/// The right-hand side of `x[index] = value`.
#[derive(Debug, Clone)]
pub enum SetValue {
    Scalar(Scalar),
    Tensor(Tensor),
}

impl Tensor {
    pub(super) fn check_no_internal_overlap(&self) -> Result<()> {
        if has_internal_overlap(&self.layout) {
            return err(ErrorKind::InternalOverlap, INTERNAL_OVERLAP_MSG);
        }
        Ok(())
    }

    fn check_no_partial_overlap(&self, src: &Tensor) -> Result<()> {
        if self.shares_storage(src) && overlap_status(&self.layout, &src.layout) == Overlap::Partial
        {
            return err(ErrorKind::PartialOverlap, PARTIAL_OVERLAP_MSG);
        }
        Ok(())
    }

    /// Same storage, layout and dtype: PyTorch's "same data" early return in `copy_`.
    fn is_same_data(&self, other: &Tensor) -> bool {
        self.shares_storage(other) && self.layout == other.layout && self.dtype == other.dtype
    }

    /// `src` broadcast to this tensor's shape, with TensorIterator's messages.
    fn broadcast_source(&self, src: &Tensor) -> Result<Layout> {
        let (a, b) = (self.sizes(), src.sizes());
        let n = a.len().max(b.len());
        let mut shape = Dims::from_elem(1, n);
        for i in 0..n {
            let da = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let db = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            shape[i] = if da == db || db == 1 {
                da
            } else if da == 1 {
                db
            } else {
                return err(
                    ErrorKind::ExpandInvalid,
                    format!(
                        "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
                    ),
                );
            };
        }
        if shape.as_slice() != a {
            return err(
                ErrorKind::ExpandInvalid,
                format!(
                    "output with shape {} doesn't match the broadcast shape {}",
                    fmt_dims(a),
                    fmt_dims(&shape)
                ),
            );
        }
        Ok(src.expand(a)?.layout)
    }

    /// PyTorch's `copy_` checks, in its order: the source broadcast to this tensor's
    /// shape, or None when both are the same data (nothing to move).
    pub(super) fn checked_copy_source(&self, src: &Tensor) -> Result<Option<Tensor>> {
        if self.is_same_data(src) {
            return Ok(None);
        }
        self.check_no_internal_overlap()?;
        self.check_no_partial_overlap(src)?;
        let layout = self.broadcast_source(src)?;
        Ok(Some(Tensor::fresh(src.storage.clone(), layout, src.dtype)))
    }

    /// `self.copy_(src)`: broadcasting, converting dtype, across devices.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        if let Some(src_b) = self.checked_copy_source(src)? {
            self.copy_values_from(&src_b)?;
        }
        self.storage.bump_version();
        Ok(())
    }

    /// `self.fill_(value)`: PyTorch allows it on overlapping views (every write is the
    /// same value), and so does stridekit.
    pub fn fill_(&self, value: Scalar) -> Result<()> {
        let v = checked_fill_value(value, self.dtype)?;
        self.fill_raw(v)?;
        self.storage.bump_version();
        Ok(())
    }

    pub fn zero_(&self) -> Result<()> {
        self.fill_(Scalar::Int(0))
    }

    /// `fill_` with a 0-d tensor value: copy_ semantics, so the destination must not overlap
    /// itself.
    fn fill_from_scalar_tensor(&self, value: &Tensor) -> Result<()> {
        self.check_no_internal_overlap()?;
        let v = value.values()?[0].cast(self.dtype);
        self.fill_raw(v)?;
        self.storage.bump_version();
        Ok(())
    }

    /// `self.add_(other, alpha=alpha)` with a Python number (the element-wise path).
    pub fn add_(&self, other: Scalar, alpha: Scalar) -> Result<()> {
        self.elementwise_(ElementOp::Add(alpha), &[Operand::Number(other)])
    }

    /// `self.mul_(other)` with a Python number (the element-wise path).
    pub fn mul_(&self, other: Scalar) -> Result<()> {
        self.elementwise_(ElementOp::Mul, &[Operand::Number(other)])
    }

    /// `self[index] = value`, as PyTorch's `__setitem__` does it for basic indexing.
    pub fn setitem(&self, items: &[IndexItem], value: &SetValue) -> Result<()> {
        let src = match value {
            SetValue::Scalar(v) => {
                let v = checked_fill_value(*v, self.dtype)?;
                let t = Tensor::uninitialized(Layout::contiguous(&[]), self.dtype)?;
                t.fill_raw(v)?;
                t
            }
            SetValue::Tensor(t) => t.clone(),
        };
        let dst = self.index(items)?;
        if dst.sizes() == src.sizes() {
            dst.copy_(&src)
        } else if src.ndim() == 0 {
            dst.fill_from_scalar_tensor(&src)
        } else {
            let lead = src.sizes().iter().take_while(|&&s| s == 1).count();
            let trimmed = src.view(&src.sizes()[lead..])?;
            let expanded = trimmed.expand(dst.sizes())?;
            dst.copy_(&expanded)
        }
    }
}
