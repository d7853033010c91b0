//! Copying functions and methods: `repeat`, `tile`, `flip`, `roll`, `torch.cat/stack`,
//! reductions (`sum`, `mean`, `prod`, `amax`, `amin`) and `index_put_` / `index_put`
//! (with `accumulate`).

use super::args::{Args, Bound};
use super::op_table::bind;
use super::schema::Surface::{Function, Method};
use super::value::{Value, type_error};
use crate::error::Result;
use crate::tensor::{AdvancedItem, Reduction, Tensor};

fn reduction(name: &str) -> Option<Reduction> {
    Some(match name {
        "sum" => Reduction::Sum,
        "mean" => Reduction::Mean,
        "prod" => Reduction::Prod,
        "amax" => Reduction::Amax,
        "amin" => Reduction::Amin,
        "any" => Reduction::Any,
        "all" => Reduction::All,
        _ => return None,
    })
}

/// Whether `torch.NAME` / `x.NAME` is one of these ops.
pub fn handles(name: &str) -> bool {
    reduction(name).is_some()
        || matches!(
            name,
            "repeat"
                | "tile"
                | "flip"
                | "roll"
                | "cat"
                | "concat"
                | "concatenate"
                | "stack"
                | "index_put_"
                | "index_put"
        )
}

fn tensors(v: &Value) -> Result<Vec<Tensor>> {
    match v {
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|t| t.as_tensor("tensors").cloned())
            .collect(),
        other => Err(type_error(format!(
            "expected a tuple or list of Tensors, not {}",
            other.type_name()
        ))),
    }
}

fn reduce(x: &Tensor, op: Reduction, b: &Bound) -> Result<Value> {
    let dims = b.opt("dim").map(|v| v.as_int_list("dim")).transpose()?;
    let keepdim = b
        .opt("keepdim")
        .map_or(Ok(false), |v| v.as_bool("keepdim"))?;
    let dtype = b.opt("dtype").map(|v| v.as_dtype("dtype")).transpose()?;
    x.reduce(op, dims.as_deref(), keepdim, dtype)
        .map(Value::Tensor)
}

/// `torch.NAME(...)`.
pub fn torch_function(name: &str, args: Args) -> Result<Value> {
    if let Some(op) = reduction(name) {
        let b = bind(Function, name, args)?;
        return reduce(b.req("input")?.as_tensor("input")?, op, &b);
    }
    match name {
        "cat" | "concat" | "concatenate" | "stack" => {
            let b = bind(Function, name, args)?;
            let ts = tensors(b.req("tensors")?)?;
            let dim = b.int_or("dim", 0)?;
            let t = if name == "stack" {
                Tensor::stack(&ts, dim)?
            } else {
                Tensor::cat(&ts, dim)?
            };
            Ok(Value::Tensor(t))
        }
        "flip" => {
            let b = bind(Function, name, args)?;
            let x = b.req("input")?.as_tensor("input")?;
            x.flip(&b.int_list("dims")?).map(Value::Tensor)
        }
        "roll" => {
            let b = bind(Function, name, args)?;
            let x = b.req("input")?.as_tensor("input")?;
            let dims = b.opt("dims").map(|v| v.as_int_list("dims")).transpose()?;
            super::sim_temporaries::roll(x, &b.int_list("shifts")?, dims.as_deref().unwrap_or(&[]))
                .map(Value::Tensor)
        }
        _ => Err(type_error(format!(
            "module 'torch' has no attribute '{name}'"
        ))),
    }
}

/// `x.NAME(...)`.
pub fn tensor_method(x: &Tensor, name: &str, args: Args) -> Result<Value> {
    if let Some(op) = reduction(name) {
        let b = bind(Method, name, args)?;
        return reduce(x, op, &b);
    }
    match name {
        "repeat" => {
            let reps = bind(Method, name, args)?.int_list("repeats")?;
            x.repeat(&reps).map(Value::Tensor)
        }
        "tile" => {
            let dims = bind(Method, name, args)?.int_list("dims")?;
            x.tile(&dims).map(Value::Tensor)
        }
        "flip" => {
            let dims = bind(Method, name, args)?.int_list("dims")?;
            x.flip(&dims).map(Value::Tensor)
        }
        "roll" => {
            let b = bind(Method, name, args)?;
            let dims = b.opt("dims").map(|v| v.as_int_list("dims")).transpose()?;
            super::sim_temporaries::roll(x, &b.int_list("shifts")?, dims.as_deref().unwrap_or(&[]))
                .map(Value::Tensor)
        }
        "index_put_" | "index_put" => {
            let b = bind(Method, name, args)?;
            let accumulate = b
                .opt("accumulate")
                .map_or(Ok(false), |v| v.as_bool("accumulate"))?;
            let items: Vec<AdvancedItem> = tensors(b.req("indices")?)?
                .into_iter()
                .map(AdvancedItem::Tensor)
                .collect();
            let values = b.req("values")?.as_tensor("values")?;
            if name == "index_put" {
                return Ok(Value::Tensor(x.index_put(&items, values, accumulate)?));
            }
            x.index_put_with(&items, values, accumulate)?;
            Ok(Value::Tensor(x.clone()))
        }
        _ => Err(type_error(format!(
            "'Tensor' object has no attribute '{name}'"
        ))),
    }
}
