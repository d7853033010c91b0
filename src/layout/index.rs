//! Python basic indexing (`x[1:, ::2]`, `x[..., 0]`, `x[None]`) as a view.

use super::strided::Layout;
use super::view::{select_unchecked, slice, unsqueeze_at};
use crate::error::{ErrorKind, Result, err};

/// One entry of a Python index tuple.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexItem {
    /// An integer: selects and removes a dimension; negative counts from the end.
    Int(i64),
    /// `start:stop:step`, each optional.
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    },
    /// `None`: inserts a size-1 dimension.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

/// Applies an index tuple the way PyTorch's `Tensor.__getitem__` does for basic indexing.
pub fn apply(l: &Layout, items: &[IndexItem]) -> Result<Layout> {
    let ndim = l.ndim();
    let specified = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice { .. }))
        .count();
    if items
        .iter()
        .filter(|i| matches!(i, IndexItem::Ellipsis))
        .count()
        > 1
    {
        return err(
            ErrorKind::Other,
            "an index can only have a single ellipsis ('...')",
        );
    }
    if specified > ndim {
        if ndim == 0 && matches!(items, [IndexItem::Slice { .. }]) {
            return err(
                ErrorKind::IndexOutOfRange,
                "slice() cannot be applied to a 0-dim tensor.",
            );
        }
        if ndim == 0 && matches!(items, [IndexItem::Int(0)]) {
            return err(
                ErrorKind::IndexOutOfRange,
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
            );
        }
        return err(
            ErrorKind::IndexOutOfRange,
            format!("too many indices for tensor of dimension {ndim}"),
        );
    }
    let mut out = l.clone();
    let mut dim = 0usize;
    for item in items {
        match *item {
            IndexItem::Int(i) => {
                let size = out.sizes()[dim];
                if i >= size || i < -size {
                    return err(
                        ErrorKind::IndexOutOfRange,
                        format!("index {i} is out of bounds for dimension {dim} with size {size}"),
                    );
                }
                out = select_unchecked(&out, dim, if i < 0 { i + size } else { i });
            }
            IndexItem::Slice { start, stop, step } => {
                let step = step.unwrap_or(1);
                if step == 0 {
                    return err(ErrorKind::BadStep, "slice step cannot be zero");
                }
                if step < 0 {
                    return err(ErrorKind::BadStep, "step must be greater than zero");
                }
                out = slice(&out, dim, start, stop, step)?;
                dim += 1;
            }
            IndexItem::NewAxis => {
                out = unsqueeze_at(&out, dim);
                dim += 1;
            }
            IndexItem::Ellipsis => dim += ndim - specified,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use IndexItem::*;

    fn sl(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> IndexItem {
        Slice { start, stop, step }
    }

    #[test]
    fn seed_slice() {
        // x[1:, 1:, ::2] of arange(24).view(2, 3, 4): offset 16, strides (12, 4, 2).
        let x = Layout::contiguous(&[2, 3, 4]);
        let v = apply(
            &x,
            &[
                sl(Some(1), None, None),
                sl(Some(1), None, None),
                sl(None, None, Some(2)),
            ],
        )
        .unwrap();
        assert_eq!(v.offset(), 16);
        assert_eq!(v.strides(), &[12, 4, 2]);
        assert_eq!(v.sizes(), &[1, 2, 2]);
    }

    #[test]
    fn ellipsis_none_and_negative() {
        let x = Layout::contiguous(&[2, 3, 4]);
        let v = apply(&x, &[Ellipsis, Int(-1)]).unwrap();
        assert_eq!(v.sizes(), &[2, 3]);
        assert_eq!(v.offset(), 3);
        let v = apply(&x, &[NewAxis, Int(1)]).unwrap();
        assert_eq!(v.sizes(), &[1, 3, 4]);
        assert_eq!(v.strides(), &[24, 4, 1]);
        let e = apply(&x, &[Int(2)]).unwrap_err();
        assert_eq!(
            e.message,
            "index 2 is out of bounds for dimension 0 with size 2"
        );
        let e = apply(&x, &[Int(0), Int(0), Int(0), Int(0)]).unwrap_err();
        assert_eq!(e.message, "too many indices for tensor of dimension 3");
    }
}
