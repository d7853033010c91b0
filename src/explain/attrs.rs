//! Attribute reads (`x.shape`, `x._base`, `x.device`, `torch.float32`, ...) and the methods
//! of `x.untyped_storage()`.

use super::args::Args;
use super::value::{Value, type_error, unsupported};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::{Dims, MemoryFormat};
use crate::storage::{Device, Storage};

/// `base.name`.
pub fn attribute(base: Value, name: &str) -> Result<Value> {
    match base {
        Value::Torch => {
            if let Some(d) = DType::from_torch_attr(name) {
                return Ok(Value::DType(d));
            }
            if let Some(m) = MemoryFormat::from_torch_attr(name) {
                return Ok(Value::MemoryFormat(m));
            }
            if name == "testing" {
                return Ok(Value::Testing);
            }
            if matches!(
                name,
                "autograd" | "no_grad" | "enable_grad" | "inference_mode"
            ) {
                return Err(unsupported(&format!("torch.{name}")));
            }
            Err(type_error(format!(
                "module 'torch' has no attribute '{name}'"
            )))
        }
        Value::Tensor(t) => Ok(match name {
            "T" => Value::Tensor(t.numpy_t()),
            "mT" => Value::Tensor(t.mt()?),
            "shape" => Value::Size(Dims::from_slice(t.sizes())),
            "ndim" => Value::Int(t.ndim() as i64),
            "dtype" => Value::DType(t.dtype()),
            "itemsize" => Value::Int(t.itemsize() as i64),
            "nbytes" => Value::Int(t.logical_bytes() as i64),
            "_base" => t.base().map_or(Value::None, |b| Value::Tensor(b.clone())),
            "_version" => Value::Int(t.version() as i64),
            "device" => Value::Device(t.device()),
            "is_cuda" => Value::Bool(matches!(t.device(), Device::Cuda(_))),
            "requires_grad" => Value::Bool(false),
            "grad" | "grad_fn" | "is_leaf" | "_grad_fn" => {
                return Err(unsupported(&format!("Tensor.{name}")));
            }
            _ => {
                return Err(type_error(format!(
                    "'Tensor' object has no attribute '{name}'"
                )));
            }
        }),
        Value::Device(d) => Ok(match (name, d) {
            ("type", Device::Cpu) => Value::Str("cpu".into()),
            ("type", Device::Cuda(_)) => Value::Str("cuda".into()),
            ("index", Device::Cpu) => Value::None,
            ("index", Device::Cuda(n)) => Value::Int(n as i64),
            _ => {
                return Err(type_error(format!(
                    "'torch.device' object has no attribute '{name}'"
                )));
            }
        }),
        Value::DType(d) => Ok(match name {
            "is_floating_point" => Value::Bool(d.is_floating()),
            "itemsize" => Value::Int(d.itemsize() as i64),
            _ => {
                return Err(type_error(format!(
                    "'torch.dtype' object has no attribute '{name}'"
                )));
            }
        }),
        Value::Storage(s) if name == "device" => Ok(Value::Device(s.device())),
        other => Err(type_error(format!(
            "'{}' object has no attribute '{name}'",
            other.type_name()
        ))),
    }
}

/// `storage.NAME(args)` for `x.untyped_storage()`.
pub fn storage_method(s: &Storage, name: &str, args: Args) -> Result<Value> {
    args.bind(&[])?;
    Ok(match name {
        "nbytes" | "size" | "__len__" => Value::Int(s.nbytes() as i64),
        "data_ptr" => Value::Int(s.data_ptr() as i64),
        "element_size" => Value::Int(1),
        _ => {
            return Err(type_error(format!(
                "'UntypedStorage' object has no attribute '{name}'"
            )));
        }
    })
}
