//! Runtime values of an `explain` program and conversions from them to op arguments.

use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::{Dims, MemoryFormat};
use crate::scalar::Scalar;
use crate::storage::{Device, Storage};
use crate::tensor::Tensor;
use std::rc::Rc;

/// `lambda params: body`, called with the program's globals looked up at call time.
#[derive(Debug)]
pub struct Lambda {
    pub params: Vec<String>,
    pub body: super::ast::Expr,
}

/// A value a name or expression can hold.
#[derive(Debug, Clone)]
pub enum Value {
    Tensor(Tensor),
    /// `torch.Size`: a tuple of ints that prints as `torch.Size([...])`.
    Size(Dims),
    /// `x.untyped_storage()`.
    Storage(Storage),
    /// `x.storage()`: the same bytes as elements of the tensor's dtype (PyTorch's deprecated
    /// TypedStorage; indexing reads and writes elements, counted from the storage start).
    TypedStorage(Storage, DType),
    /// `x.device`.
    Device(Device),
    Lambda(Rc<Lambda>),
    Int(i64),
    Float(f64),
    Bool(bool),
    None,
    Ellipsis,
    Str(String),
    Tuple(Vec<Value>),
    /// `torch.return_types.max` / `.min` (from `max(dim)` / `min(dim)`): a tuple
    /// `(values, indices)` whose items are also its attributes.
    NamedTuple(&'static str, Vec<Value>),
    List(Vec<Value>),
    DType(DType),
    MemoryFormat(MemoryFormat),
    /// The `torch` module.
    Torch,
    /// The `torch.testing` module.
    Testing,
}

/// PyTorch's message for an autograd feature, which stridekit does not model.
pub fn unsupported(feature: &str) -> TensorError {
    TensorError::new(
        ErrorKind::Unsupported,
        format!(
            "autograd is not supported by stridekit explain: {feature} (tensors here never require grad)"
        ),
    )
}

/// A Python `TypeError`-like failure: the program is in the subset's syntax but an argument
/// has the wrong type.
pub fn type_error(message: impl Into<String>) -> TensorError {
    TensorError::new(ErrorKind::Other, message)
}

impl Value {
    /// Python's type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Tensor(_) => "Tensor",
            Value::Size(_) => "Size",
            Value::Storage(_) => "UntypedStorage",
            Value::TypedStorage(..) => "TypedStorage",
            Value::Device(_) => "torch.device",
            Value::Lambda(_) => "function",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Bool(_) => "bool",
            Value::None => "NoneType",
            Value::Ellipsis => "ellipsis",
            Value::Str(_) => "str",
            Value::Tuple(_) => "tuple",
            Value::NamedTuple("max", _) => "torch.return_types.max",
            Value::NamedTuple(..) => "torch.return_types.min",
            Value::List(_) => "list",
            Value::DType(_) => "torch.dtype",
            Value::MemoryFormat(_) => "torch.memory_format",
            Value::Torch | Value::Testing => "module",
        }
    }

    pub fn as_tensor(&self, what: &str) -> Result<&Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(type_error(format!(
                "{what} must be Tensor, not {}",
                other.type_name()
            ))),
        }
    }

    /// An integer argument (Python accepts bools where ints are expected, and PyTorch
    /// one-element integer tensors).
    pub fn as_int(&self, what: &str) -> Result<i64> {
        match self {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            Value::Tensor(t) if t.numel() == 1 && !t.dtype().is_floating() => {
                Ok(t.values()?[0].to_int())
            }
            other => Err(type_error(format!(
                "{what} must be int, not {}",
                other.type_name()
            ))),
        }
    }

    /// A number argument.
    pub fn as_scalar(&self, what: &str) -> Result<Scalar> {
        match self {
            Value::Int(i) => Ok(Scalar::Int(*i)),
            Value::Float(f) => Ok(Scalar::Float(*f)),
            Value::Bool(b) => Ok(Scalar::Bool(*b)),
            other => Err(type_error(format!(
                "{what} must be Number, not {}",
                other.type_name()
            ))),
        }
    }

    /// A tuple or list of ints (`(2, 3)`, `[2, 3]`, a `torch.Size`) or a single int.
    pub fn as_int_list(&self, what: &str) -> Result<Dims> {
        match self {
            Value::Size(d) => Ok(d.clone()),
            Value::Tuple(items) | Value::List(items) => {
                items.iter().map(|v| v.as_int(what)).collect()
            }
            Value::Int(_) | Value::Bool(_) => Ok(Dims::from_elem(self.as_int(what)?, 1)),
            other => Err(type_error(format!(
                "{what} must be tuple of ints, not {}",
                other.type_name()
            ))),
        }
    }

    pub fn as_dtype(&self, what: &str) -> Result<DType> {
        match self {
            Value::DType(d) => Ok(*d),
            other => Err(type_error(format!(
                "{what} must be torch.dtype, not {}",
                other.type_name()
            ))),
        }
    }

    /// A device string: `"cpu"`, `"cuda"` or `"cuda:N"`, or a `torch.device`.
    pub fn as_device(&self, what: &str) -> Result<crate::storage::Device> {
        match self {
            Value::Device(d) => Ok(*d),
            Value::Str(s) => s.parse().map_err(|_| {
                TensorError::new(
                    ErrorKind::Other,
                    format!(
                        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {s}"
                    ),
                )
            }),
            other => Err(type_error(format!(
                "{what} must be torch.device, not {}",
                other.type_name()
            ))),
        }
    }

    pub fn as_memory_format(&self, what: &str) -> Result<MemoryFormat> {
        match self {
            Value::MemoryFormat(m) => Ok(*m),
            other => Err(type_error(format!(
                "{what} must be torch.memory_format, not {}",
                other.type_name()
            ))),
        }
    }

    pub fn as_bool(&self, what: &str) -> Result<bool> {
        match self {
            Value::Bool(b) => Ok(*b),
            other => Err(type_error(format!(
                "{what} must be bool, not {}",
                other.type_name()
            ))),
        }
    }
}
