//! `x[index]` and `x[index] = value`: basic indexing (integers, slices, `None`, `...`) makes
//! views; an index that is a list or a tensor is advanced indexing.

use super::value::Value;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::index::IndexItem;
use crate::tensor::{AdvancedItem, SetValue, Tensor};

/// One comma-separated (non-slice) part of a subscript, evaluated: an integer, `None`,
/// `...`, or a tensor or list for advanced indexing.
pub fn index_item(v: Value) -> Result<AdvancedItem> {
    Ok(match v {
        Value::Int(i) => AdvancedItem::Basic(IndexItem::Int(i)),
        Value::None => AdvancedItem::Basic(IndexItem::NewAxis),
        Value::Ellipsis => AdvancedItem::Basic(IndexItem::Ellipsis),
        Value::Tensor(t)
            if t.ndim() == 0 && !t.dtype().is_floating() && t.dtype() != crate::DType::Bool =>
        {
            AdvancedItem::Basic(IndexItem::Int(t.values()?[0].to_int()))
        }
        Value::Tensor(t) => AdvancedItem::Tensor(t),
        list @ Value::List(_) => {
            let (sizes, values) = super::ops::flatten_nested(&list)?;
            // An empty list indexes nothing, as an int64 index (PyTorch's rule).
            let dtype = values.is_empty().then_some(crate::DType::I64);
            AdvancedItem::Tensor(Tensor::from_values(&sizes, &values, dtype)?)
        }
        other => {
            return Err(TensorError::new(
                ErrorKind::IndexOutOfRange,
                format!(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
                    other.type_name()
                ),
            ));
        }
    })
}

fn basic(items: &[AdvancedItem]) -> Vec<IndexItem> {
    items
        .iter()
        .filter_map(|i| match i {
            AdvancedItem::Basic(b) => Some(*b),
            AdvancedItem::Tensor(_) => None,
        })
        .collect()
}

/// The index tensors of an advanced index as PyTorch hands them to the op: on the indexed
/// tensor's device (a list becomes a tensor there, `sequenceToVariable` with `self`'s
/// options; an index tensor elsewhere is copied there), and, for each 0-dim bool index, the
/// int64 tensor of one or no element that `boolToIndexingTensor` makes on that device. The
/// second list is only those temporaries: the caller keeps both alive until the op ends, as
/// the device allocator sees them.
fn on_device(t: &Tensor, items: &[AdvancedItem]) -> Result<(Vec<AdvancedItem>, Vec<Tensor>)> {
    let device = t.device();
    let mut temporaries = Vec::new();
    let mut moved = Vec::with_capacity(items.len());
    for item in items {
        moved.push(match item {
            AdvancedItem::Tensor(i) if device != crate::storage::Device::Cpu => {
                if i.ndim() == 0 && matches!(i.dtype(), crate::DType::Bool | crate::DType::U8) {
                    let n = i64::from(i.values()?[0].to_bool());
                    let keep = vec![crate::scalar::Scalar::Int(0); n as usize];
                    temporaries.push(
                        Tensor::from_values(&[n], &keep, Some(crate::DType::I64))?
                            .to_device(device)?,
                    );
                }
                AdvancedItem::Tensor(i.to_device(device)?)
            }
            other => other.clone(),
        });
    }
    Ok((moved, temporaries))
}

/// `t[items]`: a view for basic indexing, a copy for advanced indexing.
pub fn getitem(t: &Tensor, items: &[AdvancedItem]) -> Result<Tensor> {
    if Tensor::is_advanced(items) {
        let (items, _temporaries) = on_device(t, items)?;
        return t.index_advanced(&items);
    }
    t.index(&basic(items))
}

/// `t[items] = value`: an in-place write (`index_put_` for advanced indexing).
pub fn setitem(t: &Tensor, items: &[AdvancedItem], value: Value) -> Result<()> {
    if Tensor::is_advanced(items) {
        let values = match value {
            Value::Tensor(v) => v,
            other => {
                let v = crate::tensor::checked_fill_value(other.as_scalar("value")?, t.dtype())?;
                Tensor::full(&[], v, Some(t.dtype()))?
            }
        };
        let (items, _temporaries) = on_device(t, items)?;
        return t.index_put_(&items, &values);
    }
    let rhs = match value {
        Value::Tensor(v) => SetValue::Tensor(v),
        other => SetValue::Scalar(other.as_scalar("value")?),
    };
    t.setitem(&basic(items), &rhs)
}

/// The view op basic indexing of `t` ends with, as autograd names it: the last integer
/// (`select`), slice that is not the whole dim (`slice`) or `None` (`unsqueeze`); `alias`
/// when every item is trivial. Advanced indexing is no view.
pub fn view_op(t: &Tensor, items: &[AdvancedItem]) -> &'static str {
    if Tensor::is_advanced(items) {
        return "getitem_advanced";
    }
    let items = basic(items);
    let used = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice { .. }))
        .count();
    let sizes = t.sizes();
    let mut dim = 0usize;
    let mut last = "getitem_alias";
    for item in &items {
        match item {
            IndexItem::Int(_) => {
                last = "getitem_select";
                dim += 1;
            }
            IndexItem::NewAxis => last = "getitem_unsqueeze",
            IndexItem::Ellipsis => dim += sizes.len().saturating_sub(used),
            IndexItem::Slice { start, stop, step } => {
                let size = sizes.get(dim).copied().unwrap_or(0);
                let norm = |v: i64| {
                    if v < 0 {
                        (v + size).max(0)
                    } else {
                        v.min(size)
                    }
                };
                let whole = step.unwrap_or(1) == 1
                    && start.map_or(0, norm) == 0
                    && stop.map_or(size, norm) == size;
                if !whole {
                    last = "getitem_slice";
                }
                dim += 1;
            }
        }
    }
    last
}
