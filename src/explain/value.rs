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

/// A function made by `def`, with its default values (evaluated when `def` ran).
#[derive(Debug)]
pub struct Function {
    pub def: Rc<super::ast::FunctionDef>,
    pub defaults: Vec<Option<Value>>,
}

/// A one-pass iterator (a generator expression, `zip`, `enumerate`, a dict view): its items
/// are computed when it is made; iterating it consumes them, as in Python.
#[derive(Debug)]
pub struct Iter {
    /// Python's type name (`generator`, `zip`, `enumerate`, `dict_items`, ...).
    pub kind: &'static str,
    pub items: std::cell::RefCell<std::collections::VecDeque<Value>>,
}

/// An exception a program caught (`except E as e`) or made (`RuntimeError("...")`).
#[derive(Debug)]
pub struct Exception {
    /// Python's class name (see `super::exceptions`).
    pub class: &'static str,
    /// The error it carries (kind and message; `str(e)` is the message).
    pub error: TensorError,
    /// Where it was raised (None for one made but not raised yet).
    pub at: Option<super::ast::Span>,
    /// What its traceback keeps alive (see `super::exceptions::Exc::held`).
    pub held: Vec<Value>,
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
    Function(Rc<Function>),
    /// A dict: insertion-ordered pairs, shared (mutable) like Python's.
    Dict(Rc<std::cell::RefCell<Vec<(Value, Value)>>>),
    Iter(Rc<Iter>),
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// `torch.Generator()`: its own random stream (stridekit's generator, like `torch.rand`).
    Generator(Rc<std::cell::RefCell<crate::bench::rng::SplitMix64>>),
    /// An exception class such as `RuntimeError`.
    ExceptionClass(&'static str),
    Exception(Rc<Exception>),
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
    /// `x.grad_fn`: the autograd node that made a tensor.
    GradFn(Rc<super::autograd::node::Node>),
    /// `type(v)`: a class, by name.
    Class(&'static str),
    /// `torch.no_grad()` (false) / `torch.enable_grad()` (true): a `with` context.
    GradMode(bool),
    /// A module (`torch.nn`, `io`), a layer (`nn.Linear`) or an `io.BytesIO()`.
    Object(Rc<super::objects::Object>),
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
    /// A one-pass iterator over `items`.
    pub fn iter(kind: &'static str, items: Vec<Value>) -> Value {
        Value::Iter(Rc::new(Iter {
            kind,
            items: std::cell::RefCell::new(items.into()),
        }))
    }

    /// Python's type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Tensor(_) => "Tensor",
            Value::Size(_) => "Size",
            Value::Storage(_) => "UntypedStorage",
            Value::TypedStorage(..) => "TypedStorage",
            Value::Device(_) => "torch.device",
            Value::Lambda(_) | Value::Function(_) => "function",
            Value::Dict(_) => "dict",
            Value::Iter(it) => it.kind,
            Value::Range(..) => "range",
            Value::Generator(_) => "torch.Generator",
            Value::ExceptionClass(_) => "type",
            Value::Exception(e) => e.class,
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
            Value::GradFn(n) => n.name,
            Value::Class(_) => "type",
            Value::GradMode(true) => "enable_grad",
            Value::GradMode(false) => "no_grad",
            Value::Object(o) => o.type_name(),
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
