//! `x[index]` and `x[index] = value`: basic indexing (integers, slices, `None`, `...`) makes
//! views; an index that is a list or a tensor is advanced indexing.

use super::value::Value;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::index::IndexItem;
use crate::tensor::{AdvancedItem, SetValue, Tensor};

/// One comma-separated part of a subscript, evaluated.
#[derive(Debug, Clone)]
pub enum Index {
    Int(i64),
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    },
    NewAxis,
    Ellipsis,
    /// A tensor (or a list, made a tensor) of indices or a bool mask: advanced indexing.
    Tensor(Tensor),
}

impl Index {
    pub fn from_value(v: Value) -> Result<Index> {
        match v {
            Value::Int(i) => Ok(Index::Int(i)),
            Value::None => Ok(Index::NewAxis),
            Value::Ellipsis => Ok(Index::Ellipsis),
            Value::Tensor(t)
                if t.ndim() == 0 && !t.dtype().is_floating() && t.dtype() != crate::DType::Bool =>
            {
                Ok(Index::Int(t.values()?[0].to_int()))
            }
            Value::Tensor(t) => Ok(Index::Tensor(t)),
            list @ Value::List(_) => {
                let (sizes, values) = super::ops::flatten_nested(&list)?;
                // An empty list indexes nothing, as an int64 index (PyTorch's rule).
                let dtype = values.is_empty().then_some(crate::DType::I64);
                Ok(Index::Tensor(Tensor::from_values(&sizes, &values, dtype)?))
            }
            other => Err(TensorError::new(
                ErrorKind::IndexOutOfRange,
                format!(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
                    other.type_name()
                ),
            )),
        }
    }

    fn item(&self) -> AdvancedItem {
        AdvancedItem::Basic(match self {
            Index::Int(i) => IndexItem::Int(*i),
            Index::Slice { start, stop, step } => IndexItem::Slice {
                start: *start,
                stop: *stop,
                step: *step,
            },
            Index::NewAxis => IndexItem::NewAxis,
            Index::Ellipsis => IndexItem::Ellipsis,
            Index::Tensor(t) => return AdvancedItem::Tensor(t.clone()),
        })
    }
}

fn items_of(items: &[Index]) -> Vec<AdvancedItem> {
    items.iter().map(Index::item).collect()
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

/// `t[items]`: a view for basic indexing, a copy for advanced indexing.
pub fn getitem(t: &Tensor, items: &[Index]) -> Result<Tensor> {
    let items = items_of(items);
    if Tensor::is_advanced(&items) {
        return t.index_advanced(&items);
    }
    t.index(&basic(&items))
}

/// `t[items] = value`: an in-place write (`index_put_` for advanced indexing).
pub fn setitem(t: &Tensor, items: &[Index], value: Value) -> Result<()> {
    let items = items_of(items);
    if Tensor::is_advanced(&items) {
        let values = match value {
            Value::Tensor(v) => v,
            other => {
                let v = crate::tensor::checked_fill_value(other.as_scalar("value")?, t.dtype())?;
                Tensor::full(&[], v, Some(t.dtype()))?
            }
        };
        return t.index_put_(&items, &values);
    }
    let rhs = match value {
        Value::Tensor(v) => SetValue::Tensor(v),
        other => SetValue::Scalar(other.as_scalar("value")?),
    };
    t.setitem(&basic(&items), &rhs)
}
