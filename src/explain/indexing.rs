//! `x[index]` and `x[index] = value`: basic indexing (integers, slices, `None`, `...`) makes
//! views; an index that is a list or a tensor is advanced indexing.

use super::value::Value;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::index::IndexItem;
use crate::tensor::{SetValue, Tensor};

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
            Value::Tensor(_) | Value::List(_) => Err(TensorError::new(
                ErrorKind::Unsupported,
                "advanced indexing (an index that is a list or a tensor) is not supported yet",
            )),
            other => Err(TensorError::new(
                ErrorKind::IndexOutOfRange,
                format!(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
                    other.type_name()
                ),
            )),
        }
    }

    fn basic(&self) -> IndexItem {
        match *self {
            Index::Int(i) => IndexItem::Int(i),
            Index::Slice { start, stop, step } => IndexItem::Slice { start, stop, step },
            Index::NewAxis => IndexItem::NewAxis,
            Index::Ellipsis => IndexItem::Ellipsis,
        }
    }
}

fn basic(items: &[Index]) -> Vec<IndexItem> {
    items.iter().map(Index::basic).collect()
}

/// `t[items]`.
pub fn getitem(t: &Tensor, items: &[Index]) -> Result<Tensor> {
    t.index(&basic(items))
}

/// `t[items] = value`.
pub fn setitem(t: &Tensor, items: &[Index], value: Value) -> Result<()> {
    let rhs = match value {
        Value::Tensor(v) => SetValue::Tensor(v),
        other => SetValue::Scalar(other.as_scalar("value")?),
    };
    t.setitem(&basic(items), &rhs)
}
