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
use super::overlap_policy::{self, Policy};
use super::sequential::Order;
use crate::error::{ErrorKind, INTERNAL_OVERLAP_MSG, PARTIAL_OVERLAP_MSG, Result, err};
use crate::layout::Layout;
use crate::layout::index::IndexItem;
use crate::layout::overlap::{
    Overlap, has_internal_overlap, overlap_status, pytorch_refuses_internal,
    pytorch_refuses_partial,
};
use crate::scalar::Scalar;

/// The right-hand side of `x[index] = value`.
#[derive(Debug, Clone)]
pub enum SetValue {
    Scalar(Scalar),
    Tensor(Tensor),
}

impl Tensor {
    /// The order a write into this tensor must run in: [`Order::Free`] when it addresses
    /// every element once; else PyTorch's refusal where PyTorch's check catches it (a
    /// stride-0 dimension; `torch_checks` false for ops that only warn, as `index_put_`), or
    /// under [`Policy::Refuse`]; else [`Order::Sequential`], noted for the caller's warning.
    pub(super) fn internal_overlap_order(&self, op: &str, torch_checks: bool) -> Result<Order> {
        if !has_internal_overlap(&self.layout) {
            return Ok(Order::Free);
        }
        if (torch_checks && pytorch_refuses_internal(&self.layout))
            || overlap_policy::current() == Policy::Refuse
        {
            return err(ErrorKind::InternalOverlap, INTERNAL_OVERLAP_MSG);
        }
        overlap_policy::note(format!(
            "{op}: the written-to tensor addresses some storage elements more than once (PyTorch does not refuse this case and its result depends on the kernel's order); run element by element in TensorIterator's dimension order"
        ));
        Ok(Order::Sequential)
    }

    /// As [`Tensor::internal_overlap_order`] for a source `src` of the write: refused where
    /// PyTorch's `assert_no_partial_overlap` refuses, or under [`Policy::Refuse`].
    pub(super) fn partial_overlap_order(&self, src: &Tensor, op: &str) -> Result<Order> {
        if !(self.shares_storage(src)
            && overlap_status(&self.layout, &src.layout) == Overlap::Partial)
        {
            return Ok(Order::Free);
        }
        if pytorch_refuses_partial(&self.layout, self.itemsize(), &src.layout, src.itemsize())
            || overlap_policy::current() == Policy::Refuse
        {
            return err(ErrorKind::PartialOverlap, PARTIAL_OVERLAP_MSG);
        }
        overlap_policy::note(format!(
            "{op}: the source and the written-to tensor share some storage elements (PyTorch does not refuse this case and its result depends on the kernel's order); run element by element in TensorIterator's dimension order, each element read when it is written"
        ));
        Ok(Order::Sequential)
    }

    /// Same storage, layout and dtype: PyTorch's "same data" early return in `copy_`.
    fn is_same_data(&self, other: &Tensor) -> bool {
        self.shares_storage(other) && self.layout == other.layout && self.dtype == other.dtype
    }

    /// `src` broadcast to this tensor's shape, with TensorIterator's messages.
    fn broadcast_source(&self, src: &Tensor) -> Result<Layout> {
        crate::layout::view::broadcast_for_copy(
            self.sizes(),
            &src.layout,
            src.dtype.scalar_type_name(),
        )
    }

    /// PyTorch's `copy_` checks, in its order: the source broadcast to this tensor's
    /// shape and the order the copy must run in, or None when both are the same data
    /// (nothing to move).
    pub(super) fn checked_copy_source(&self, src: &Tensor) -> Result<Option<(Tensor, Order)>> {
        if self.is_same_data(src) {
            return Ok(None);
        }
        let internal = self.internal_overlap_order("copy_", true)?;
        let partial = self.partial_overlap_order(src, "copy_")?;
        let layout = self.broadcast_source(src)?;
        let order = if internal == Order::Free && partial == Order::Free {
            Order::Free
        } else {
            Order::Sequential
        };
        Ok(Some((
            Tensor::fresh(src.storage.clone(), layout, src.dtype),
            order,
        )))
    }

    /// `self.copy_(src)`: broadcasting, converting dtype, across devices.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        match self.checked_copy_source(src)? {
            Some((src_b, Order::Free)) => self.copy_values_from(&src_b)?,
            Some((src_b, Order::Sequential)) => self.copy_sequential(&src_b)?,
            None => {}
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

    /// `fill_` with a 0-d tensor value: copy_ semantics, so PyTorch refuses a stride-0
    /// destination; any other overlap stores one value everywhere, in any order.
    fn fill_from_scalar_tensor(&self, value: &Tensor) -> Result<()> {
        if pytorch_refuses_internal(&self.layout)
            || (overlap_policy::current() == Policy::Refuse && has_internal_overlap(&self.layout))
        {
            return err(ErrorKind::InternalOverlap, INTERNAL_OVERLAP_MSG);
        }
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
