//! `max` / `min` with PyTorch's overloads: `x.max()` (every element), `x.max(dim,
//! keepdim=False)` and `torch.max(x, dim, keepdim)` (a `torch.return_types.max` named tuple
//! of `values` and `indices`), and `x.max(other)` / `torch.max(x, other)` (the element-wise
//! `torch.maximum`).

use super::args::{Args, Bound};
use super::op_table::bind;
use super::schema::Surface;
use super::value::{Value, type_error};
use crate::error::{ErrorKind, Result, TensorError};
use crate::tensor::arith::ElementOp;
use crate::tensor::{Operand, Reduction, Tensor};

/// `x.max(...)` / `x.min(...)`; `torch.max(x, ...)` binds `input` first and comes here.
pub fn tensor_method(x: &Tensor, name: &str, args: Args) -> Result<Value> {
    reduce(x, name, &bind(Surface::Method, name, args)?)
}

/// One of the overloads `max()`, `max.dim(dim, keepdim)`, `max.other(other)`, bound.
fn reduce(x: &Tensor, name: &str, b: &Bound) -> Result<Value> {
    let max = name == "max";
    match b.opt("other").or(b.opt("dim")) {
        None => {
            if b.opt("keepdim").is_some() {
                return Err(type_error(format!(
                    "{name}() received an invalid combination of arguments: keepdim without dim"
                )));
            }
            if x.numel() == 0 {
                return Err(TensorError::new(
                    ErrorKind::IndexOutOfRange,
                    format!(
                        "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
                    ),
                ));
            }
            let op = if max {
                Reduction::Amax
            } else {
                Reduction::Amin
            };
            Ok(Value::Tensor(x.reduce(op, None, false, None)?))
        }
        Some(Value::Tensor(other)) => {
            let op = if max {
                ElementOp::Maximum
            } else {
                ElementOp::Minimum
            };
            let operands = [Operand::Tensor(x.clone()), Operand::Tensor(other.clone())];
            Ok(Value::Tensor(Tensor::elementwise(op, &operands)?))
        }
        Some(d) => {
            let keepdim = b
                .opt("keepdim")
                .map_or(Ok(false), |v| v.as_bool("keepdim"))?;
            let (values, indices) = x.max_min_dim(d.as_int("dim")?, keepdim, max)?;
            Ok(Value::NamedTuple(
                if max { "max" } else { "min" },
                vec![Value::Tensor(values), Value::Tensor(indices)],
            ))
        }
    }
}

/// `torch.max(input, ...)` / `torch.min(input, ...)`.
pub fn torch_function(name: &str, args: Args) -> Result<Value> {
    let b = bind(Surface::Function, name, args)?;
    let Some(input) = b.opt("input") else {
        return Err(type_error(format!(
            "{name}() missing required argument 'input' (pos 1)"
        )));
    };
    reduce(input.as_tensor("input")?, name, &b)
}

/// The field names of a `torch.return_types` named tuple.
pub const FIELDS: [&str; 2] = ["values", "indices"];
