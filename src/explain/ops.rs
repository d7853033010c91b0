//! The `torch.*` functions and `Tensor` methods an `explain` program can call, with
//! PyTorch's parameter names.

use super::args::Args;
use super::op_table::bind;
use super::schema::Surface::{Function, Method};
use super::value::{Value, type_error};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::MemoryFormat;
use crate::scalar::Scalar;
use crate::storage::Device;
use crate::tensor::Tensor;

/// What the `torch.*` functions need from the running program (the evaluator's `Env`
/// implements it; a trait here so that the ops do not import the evaluator).
pub trait Host {
    /// The program's device (`explain --device`).
    fn device(&self) -> Device;
    /// The program's random stream (`torch.manual_seed` reseeds it).
    fn rng(&self) -> std::cell::RefMut<'_, crate::bench::rng::SplitMix64>;
    /// A warning of `kind` for the current statement.
    fn warn(&self, kind: &'static str, message: String);
}

/// `torch.NAME(args)`; constructors make their tensor on their `device=` argument, else on
/// the program's device (`explain --device`; `*_like` on their input's device).
pub fn torch_function(name: &str, args: Args, env: &dyn Host) -> Result<Value> {
    // torch.Size and torch.manual_seed are Python-level, not tensor ops: no schema.
    if name == "Size" {
        let b = args.bind(&["sizes"])?;
        return Ok(Value::Size(
            b.opt("sizes")
                .map_or(Ok(crate::layout::Dims::new()), |v| v.as_int_list("sizes"))?,
        ));
    }
    if name == "manual_seed" {
        let b = args.bind(&["seed"])?;
        *env.rng() = crate::bench::rng::SplitMix64(b.int("seed")? as u64);
        return Ok(Value::None);
    }
    if super::copy_ops::handles(name) {
        return super::copy_ops::torch_function(name, args);
    }
    if matches!(name, "max" | "min") {
        return super::max_min::torch_function(name, args);
    }
    if !is_constructor(name) {
        if let Some(result) = super::arith_ops::torch_function(name, args) {
            return result;
        }
        return Err(type_error(format!(
            "module 'torch' has no attribute '{name}'"
        )));
    }
    let dtype_of = |b: &super::args::Bound| -> Result<Option<DType>> {
        b.opt("dtype").map(|v| v.as_dtype("dtype")).transpose()
    };
    let mut device = env.device();
    let mut like_device = None;
    let mut device_of = |b: &super::args::Bound| -> Result<()> {
        if let Some(v) = b.opt("device") {
            device = v.as_device("device")?;
        }
        Ok(())
    };
    let t = match name {
        "zeros" | "ones" | "empty" => {
            let b = bind(Function, name, args)?;
            let sizes = b.int_list("size")?;
            device_of(&b)?;
            let dtype = dtype_of(&b)?.unwrap_or(DType::F32);
            match name {
                "zeros" => Tensor::zeros(&sizes, dtype)?,
                "ones" => Tensor::ones(&sizes, dtype)?,
                _ => Tensor::empty(&sizes, dtype)?,
            }
        }
        "full" => {
            let b = bind(Function, name, args)?;
            device_of(&b)?;
            let sizes = match b.req("size")? {
                v @ (Value::Tuple(_) | Value::List(_)) => v.as_int_list("size")?,
                other => {
                    return Err(type_error(format!(
                        "full(): argument 'size' (position 1) must be tuple of ints, not {}",
                        other.type_name()
                    )));
                }
            };
            let value = b.req("fill_value")?.as_scalar("fill_value")?;
            Tensor::full(&sizes, value, dtype_of(&b)?)?
        }
        "arange" => {
            let b = bind(Function, name, args)?;
            device_of(&b)?;
            let num = |p: &str| b.opt(p).map(|v| v.as_scalar(p)).transpose();
            let (start, end) = match (num("start")?, num("end")?) {
                (Some(s), Some(e)) => (s, e),
                (Some(e), None) => (Scalar::Int(0), e),
                (None, Some(e)) => (Scalar::Int(0), e),
                (None, None) => return Err(type_error("arange() missing required argument 'end'")),
            };
            let step = num("step")?.unwrap_or(Scalar::Int(1));
            Tensor::arange(start, end, step, dtype_of(&b)?)?
        }
        "empty_like" | "zeros_like" | "ones_like" | "full_like" => {
            let b = bind(Function, name, args)?;
            device_of(&b)?;
            let x = b.req("input")?.as_tensor("input")?;
            if b.opt("device").is_none() {
                like_device = Some(x.device());
            }
            let dtype = dtype_of(&b)?.unwrap_or(x.dtype());
            let format = memory_format(&b, MemoryFormat::Preserve)?;
            match name {
                "empty_like" | "zeros_like" => x.empty_like(dtype, format)?,
                "ones_like" => x.full_like(Scalar::Int(1), dtype, format)?,
                _ => x.full_like(b.req("fill_value")?.as_scalar("fill_value")?, dtype, format)?,
            }
        }
        "empty_strided" => {
            let b = bind(Function, name, args)?;
            device_of(&b)?;
            let dtype = dtype_of(&b)?.unwrap_or(DType::F32);
            Tensor::empty_strided(&b.int_list("size")?, &b.int_list("stride")?, dtype)?
        }
        "linspace" => {
            let b = bind(Function, name, args)?;
            device_of(&b)?;
            let dtype = dtype_of(&b)?.unwrap_or(DType::F32);
            let (s, e) = (
                b.req("start")?.as_scalar("start")?,
                b.req("end")?.as_scalar("end")?,
            );
            Tensor::linspace(s, e, b.int("steps")?, dtype)?
        }
        "eye" => {
            let b = bind(Function, name, args)?;
            device_of(&b)?;
            let n = b.int("n")?;
            Tensor::eye(n, b.int_or("m", n)?, dtype_of(&b)?.unwrap_or(DType::F32))?
        }
        "rand" | "randn" | "randint" => {
            let (kind, sizes, b) = if name == "randint" {
                let b = bind(Function, name, args)?;
                // randint(high, size) or randint(low, high, size)
                let (low, high, size) = match (b.opt("low"), b.opt("high"), b.opt("size")) {
                    (Some(h), Some(s), None) => (0, h.as_int("high")?, s.as_int_list("size")?),
                    (Some(l), Some(h), Some(s)) => {
                        (l.as_int("low")?, h.as_int("high")?, s.as_int_list("size")?)
                    }
                    (None, Some(h), Some(s)) => (0, h.as_int("high")?, s.as_int_list("size")?),
                    _ => {
                        return Err(type_error(
                            "randint() missing required arguments 'high' and 'size'",
                        ));
                    }
                };
                (crate::tensor::Random::Int { low, high }, size, b)
            } else {
                let b = bind(Function, name, args)?;
                let sizes = b.int_list("size")?;
                let kind = if name == "rand" {
                    crate::tensor::Random::Uniform
                } else {
                    crate::tensor::Random::Normal
                };
                (kind, sizes, b)
            };
            device_of(&b)?;
            let default = if name == "randint" {
                DType::I64
            } else {
                DType::F32
            };
            let dtype = dtype_of(&b)?.unwrap_or(default);
            env.warn(
                "random_values",
                format!(
                    "torch.{name}: the values come from stridekit's generator (SplitMix64, reseeded by torch.manual_seed or a torch.Generator's manual_seed), not PyTorch's; shape, dtype and strides are PyTorch's"
                ),
            );
            match b.opt("generator") {
                None | Some(Value::None) => Tensor::random(&sizes, dtype, kind, &mut env.rng())?,
                Some(Value::Generator(g)) => {
                    Tensor::random(&sizes, dtype, kind, &mut g.borrow_mut())?
                }
                Some(other) => {
                    return Err(type_error(format!(
                        "{name}(): argument 'generator' must be torch.Generator, not {}",
                        other.type_name()
                    )));
                }
            }
        }
        "index_select" => {
            let b = bind(Function, name, args)?;
            let x = b.req("input")?.as_tensor("input")?;
            like_device = Some(x.device());
            x.index_select(b.int("dim")?, b.req("index")?.as_tensor("index")?)?
        }
        "tensor" => {
            let b = bind(Function, name, args)?;
            device_of(&b)?;
            let (sizes, values) = flatten_nested(b.req("data")?)?;
            Tensor::from_values(&sizes, &values, dtype_of(&b)?)?
        }
        _ => {
            return Err(type_error(format!(
                "module 'torch' has no attribute '{name}'"
            )));
        }
    };
    Ok(Value::Tensor(t.placed_on(like_device.unwrap_or(device))?))
}

/// The `torch.*` functions that make tensors (on the program's device).
fn is_constructor(name: &str) -> bool {
    matches!(
        name,
        "zeros"
            | "ones"
            | "empty"
            | "full"
            | "arange"
            | "index_select"
            | "tensor"
            | "empty_like"
            | "zeros_like"
            | "ones_like"
            | "full_like"
            | "empty_strided"
            | "linspace"
            | "eye"
            | "rand"
            | "randn"
            | "randint"
    )
}

/// The shape and row-major values of a nested list literal, with PyTorch's ragged-list
/// message.
pub(super) fn flatten_nested(data: &Value) -> Result<(Vec<i64>, Vec<Scalar>)> {
    fn shape_of(v: &Value, out: &mut Vec<i64>) {
        if let Value::List(items) | Value::Tuple(items) = v {
            out.push(items.len() as i64);
            if let Some(first) = items.first() {
                shape_of(first, out);
            }
        }
    }
    fn walk(v: &Value, shape: &[i64], depth: usize, out: &mut Vec<Scalar>) -> Result<()> {
        match v {
            Value::List(items) | Value::Tuple(items) => {
                if depth >= shape.len() {
                    return Err(type_error(
                        "'list' object cannot be interpreted as a number",
                    ));
                }
                if items.len() as i64 != shape[depth] {
                    return Err(TensorError::new(
                        ErrorKind::InvalidShape,
                        format!(
                            "expected sequence of length {} at dim {depth} (got {})",
                            shape[depth],
                            items.len()
                        ),
                    ));
                }
                items
                    .iter()
                    .try_for_each(|i| walk(i, shape, depth + 1, out))
            }
            Value::Tensor(t) if t.ndim() == 0 && depth == shape.len() => {
                out.push(t.values()?[0]);
                Ok(())
            }
            scalar if depth == shape.len() => {
                out.push(scalar.as_scalar("data")?);
                Ok(())
            }
            _ => Err(type_error("not a sequence")),
        }
    }
    let mut shape = Vec::new();
    shape_of(data, &mut shape);
    let mut values = Vec::new();
    walk(data, &shape, 0, &mut values)?;
    Ok((shape, values))
}

fn memory_format(b: &super::args::Bound, default: MemoryFormat) -> Result<MemoryFormat> {
    b.opt("memory_format")
        .map_or(Ok(default), |v| v.as_memory_format("memory_format"))
}

/// The dtype behind a conversion method such as `x.half()`.
fn conversion_dtype(name: &str) -> Option<DType> {
    Some(match name {
        "float" => DType::F32,
        "double" => DType::F64,
        "half" => DType::F16,
        "bfloat16" => DType::BF16,
        "int" => DType::I32,
        "long" => DType::I64,
        "short" => DType::I16,
        "char" => DType::I8,
        "byte" => DType::U8,
        "bool" => DType::Bool,
        _ => return None,
    })
}

/// `x.NAME(args)`.
pub fn tensor_method(x: &Tensor, name: &str, args: Args) -> Result<Value> {
    let tensor = |t: Tensor| Ok(Value::Tensor(t));
    let int = |i: i64| Ok(Value::Int(i));
    if super::arith_ops::is_method(name) {
        return super::arith_ops::tensor_method(x, name, args);
    }
    if super::copy_ops::handles(name) {
        return super::copy_ops::tensor_method(x, name, args);
    }
    match name {
        "new_zeros" | "new_ones" | "new_empty" | "new_full" => {
            let b = bind(Method, name, args)?;
            let sizes = b.int_list("size")?;
            let value = if name == "new_full" {
                b.req("fill_value")?.as_scalar("fill_value")?
            } else {
                Scalar::Int((name == "new_ones") as i64)
            };
            let dtype = b.opt("dtype").map(|v| v.as_dtype("dtype")).transpose()?;
            let device = b.opt("device").map(|v| v.as_device("device")).transpose()?;
            let t = Tensor::full(&sizes, value, Some(dtype.unwrap_or(x.dtype())))?;
            tensor(t.to_device(device.unwrap_or(x.device()))?)
        }
        "max" | "min" if !args.positional.is_empty() || !args.kwargs.is_empty() => {
            super::max_min::tensor_method(x, name, args)
        }
        "max" | "min" => {
            // Without a dim: the amax/amin of every element.
            if x.numel() == 0 {
                return Err(TensorError::new(
                    ErrorKind::IndexOutOfRange,
                    format!(
                        "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
                    ),
                ));
            }
            let op = if name == "max" {
                crate::tensor::Reduction::Amax
            } else {
                crate::tensor::Reduction::Amin
            };
            tensor(x.reduce(op, None, false, None)?)
        }
        "is_floating_point" => {
            bind(Method, name, args)?;
            Ok(Value::Bool(x.dtype().is_floating()))
        }
        "nelement" => {
            bind(Method, name, args)?;
            int(x.numel())
        }
        "untyped_storage" => {
            bind(Method, name, args)?;
            Ok(Value::Storage(x.storage().clone()))
        }
        "storage" => {
            bind(Method, name, args)?;
            Ok(Value::TypedStorage(x.storage().clone(), x.dtype()))
        }
        "data_ptr" => {
            bind(Method, name, args)?;
            int(x.data_ptr() as i64)
        }
        "item" => {
            bind(Method, name, args)?;
            item(x)
        }
        "tolist" => {
            bind(Method, name, args)?;
            tolist(x)
        }
        "backward" | "requires_grad_" | "retain_grad" | "register_hook" => {
            Err(super::value::unsupported(&format!("Tensor.{name}()")))
        }
        "view" => {
            let shape = bind(Method, name, args)?.int_list("size")?;
            tensor(x.view(&shape)?)
        }
        "reshape" => {
            let shape = bind(Method, name, args)?.int_list("shape")?;
            tensor(x.reshape(&shape)?)
        }
        "permute" => {
            let d = bind(Method, name, args)?.int_list("dims")?;
            tensor(x.permute(&d)?)
        }
        "expand" => {
            let s = bind(Method, name, args)?.int_list("size")?;
            tensor(x.expand(&s)?)
        }
        "flatten" => {
            let b = bind(Method, name, args)?;
            tensor(x.flatten(b.int_or("start_dim", 0)?, b.int_or("end_dim", -1)?)?)
        }
        "transpose" | "swapaxes" | "swapdims" => {
            let b = bind(Method, name, args)?;
            let (d0, d1) = match name {
                "swapaxes" => ("axis0", "axis1"),
                _ => ("dim0", "dim1"),
            };
            tensor(x.transpose(b.int(d0)?, b.int(d1)?)?)
        }
        "t" => {
            bind(Method, name, args)?;
            tensor(x.t()?)
        }
        "expand_as" => {
            let b = bind(Method, name, args)?;
            tensor(x.expand_as(b.req("other")?.as_tensor("other")?)?)
        }
        "index_select" => {
            let b = bind(Method, name, args)?;
            tensor(x.index_select(b.int("dim")?, b.req("index")?.as_tensor("index")?)?)
        }
        "narrow" => {
            let b = bind(Method, name, args)?;
            tensor(x.narrow(b.int("dim")?, b.int("start")?, b.int("length")?)?)
        }
        "select" => {
            let b = bind(Method, name, args)?;
            tensor(x.select(b.int("dim")?, b.int("index")?)?)
        }
        "unsqueeze" => {
            let b = bind(Method, name, args)?;
            tensor(x.unsqueeze(b.int("dim")?)?)
        }
        "squeeze" => {
            let b = bind(Method, name, args)?;
            match b.opt("dim") {
                None => tensor(x.squeeze(None)?),
                Some(v) => tensor(x.squeeze(Some(&v.as_int_list("dim")?))?),
            }
        }
        "diagonal" => {
            let b = bind(Method, name, args)?;
            tensor(x.diagonal(
                b.int_or("offset", 0)?,
                b.int_or("dim1", 0)?,
                b.int_or("dim2", 1)?,
            )?)
        }
        "unfold" => {
            let b = bind(Method, name, args)?;
            tensor(x.unfold(b.int("dimension")?, b.int("size")?, b.int("step")?)?)
        }
        "as_strided" => {
            let b = bind(Method, name, args)?;
            let offset = b
                .opt("storage_offset")
                .map(|v| v.as_int("storage_offset"))
                .transpose()?;
            tensor(x.as_strided(&b.int_list("size")?, &b.int_list("stride")?, offset)?)
        }
        "movedim" | "moveaxis" => {
            let b = bind(Method, name, args)?;
            tensor(x.movedim(&b.int_list("source")?, &b.int_list("destination")?)?)
        }
        "contiguous" => {
            let b = bind(Method, name, args)?;
            tensor(x.contiguous(memory_format(&b, MemoryFormat::Contiguous)?)?)
        }
        "clone" => {
            let b = bind(Method, name, args)?;
            tensor(x.clone_as(memory_format(&b, MemoryFormat::Preserve)?)?)
        }
        "to" => {
            // Overloads to(device, dtype, ...) and to(dtype, ...), told apart by type.
            let b = bind(Method, name, args)?;
            let device = b.opt("device").map(|v| v.as_device("device")).transpose()?;
            let dtype = b.opt("dtype").map(|v| v.as_dtype("dtype")).transpose()?;
            let copy = b.opt("copy").map_or(Ok(false), |v| v.as_bool("copy"))?;
            let fmt = b
                .opt("memory_format")
                .map(|v| v.as_memory_format("memory_format"))
                .transpose()?;
            tensor(x.to_on(device.unwrap_or(x.device()), dtype, fmt, copy)?)
        }
        "cuda" | "cpu" => {
            let b = bind(Method, name, args)?;
            let d = match (name, b.opt("device")) {
                ("cpu", _) => Device::Cpu,
                (_, Some(Value::Int(n))) if *n >= 0 => Device::Cuda(*n as usize),
                (_, Some(v)) => v.as_device("device")?,
                (_, None) => Device::Cuda(0),
            };
            tensor(x.to_device(d)?)
        }
        "detach" => {
            bind(Method, name, args)?;
            tensor(x.detach())
        }
        "copy_" => {
            let b = bind(Method, name, args)?;
            x.copy_(b.req("src")?.as_tensor("src")?)?;
            tensor(x.clone())
        }
        "fill_" => {
            let b = bind(Method, name, args)?;
            x.fill_(b.req("value")?.as_scalar("value")?)?;
            tensor(x.clone())
        }
        "zero_" => {
            bind(Method, name, args)?;
            x.zero_()?;
            tensor(x.clone())
        }
        "is_contiguous" => {
            let b = bind(Method, name, args)?;
            Ok(Value::Bool(x.is_contiguous_as(memory_format(
                &b,
                MemoryFormat::Contiguous,
            )?)))
        }
        "size" | "stride" => {
            let b = bind(Method, name, args)?;
            let list = if name == "size" {
                x.sizes()
            } else {
                x.strides()
            };
            match b.opt("dim") {
                None if name == "size" => Ok(Value::Size(crate::layout::Dims::from_slice(list))),
                None => Ok(Value::Tuple(list.iter().map(|&v| Value::Int(v)).collect())),
                Some(_) if x.ndim() == 0 => Err(TensorError::new(
                    ErrorKind::DimOutOfRange,
                    "Dimension specified as 0 but tensor has no dimensions",
                )),
                Some(d) => int(list[crate::layout::wrap_dim(d.as_int("dim")?, x.ndim())?]),
            }
        }
        "dim" | "numel" | "storage_offset" | "element_size" => {
            bind(Method, name, args)?;
            int(match name {
                "dim" => x.ndim() as i64,
                "numel" => x.numel(),
                "storage_offset" => x.storage_offset(),
                _ => x.itemsize() as i64,
            })
        }
        other => match conversion_dtype(other) {
            Some(d) => {
                let b = bind(Method, name, args)?;
                let fmt = b
                    .opt("memory_format")
                    .map(|v| v.as_memory_format("memory_format"))
                    .transpose()?;
                tensor(x.to(Some(d), fmt, false)?)
            }
            None => Err(type_error(format!(
                "'Tensor' object has no attribute '{other}'"
            ))),
        },
    }
}

/// `x.tolist()`: nested lists of Python numbers (a number for a 0-d tensor).
fn tolist(x: &Tensor) -> Result<Value> {
    fn nest(sizes: &[i64], values: &[Scalar]) -> Value {
        match sizes.split_first() {
            None => match values[0] {
                Scalar::Bool(b) => Value::Bool(b),
                Scalar::Int(i) => Value::Int(i),
                Scalar::Float(f) => Value::Float(f),
            },
            Some((&n, rest)) => {
                let inner: i64 = rest.iter().product();
                Value::List(
                    (0..n)
                        .map(|i| {
                            nest(
                                rest,
                                &values[(i * inner) as usize..((i + 1) * inner) as usize],
                            )
                        })
                        .collect(),
                )
            }
        }
    }
    Ok(nest(x.sizes(), &x.values()?))
}

/// The one element of a tensor as a Python number (`int(t)`, `float(t)`, `t.item()`).
pub fn item(t: &Tensor) -> Result<Value> {
    if t.numel() != 1 {
        return Err(TensorError::new(
            ErrorKind::Other,
            format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                t.numel()
            ),
        ));
    }
    Ok(match t.values()?[0] {
        crate::Scalar::Bool(b) => Value::Bool(b),
        crate::Scalar::Int(i) => Value::Int(i),
        crate::Scalar::Float(f) => Value::Float(f),
    })
}
