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
            if let Some(m) = super::modules::torch_attribute(name) {
                return Ok(m);
            }
            if matches!(name, "autograd" | "inference_mode") {
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
            "_base" => t.base().map_or(Value::None, Value::Tensor),
            "_version" => Value::Int(t.version() as i64),
            "device" => Value::Device(t.device()),
            "is_cuda" => Value::Bool(matches!(t.device(), Device::Cuda(_))),
            "_grad_fn" => return Err(unsupported(&format!("Tensor.{name}"))),
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
        Value::Class(c) if name == "__name__" => Ok(Value::Str(c.into())),
        Value::Object(o) => super::modules::attribute(&o, name),
        Value::Storage(s) if name == "device" => Ok(Value::Device(s.device())),
        Value::NamedTuple(_, items) if super::max_min::FIELDS.contains(&name) => {
            let at = super::max_min::FIELDS.iter().position(|f| *f == name);
            Ok(items[at.expect("a field")].clone())
        }
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

/// `x.storage()[i]`: element `i` of the storage in the tensor's dtype, or PyTorch's error.
fn typed_element(s: &Storage, dtype: DType, i: i64) -> Result<usize> {
    let n = (s.nbytes() / dtype.itemsize()) as i64;
    let k = if i < 0 { i + n } else { i };
    if !(0..n).contains(&k) {
        return Err(crate::error::TensorError::new(
            crate::error::ErrorKind::IndexOutOfRange,
            format!("index {i} out of range for storage of size {n}"),
        ));
    }
    Ok(k as usize * dtype.itemsize())
}

/// `x.storage()[i]`.
pub(super) fn typed_storage_get(s: &Storage, dtype: DType, i: i64) -> Result<Value> {
    let at = typed_element(s, dtype, i)?;
    let bytes = s.to_host()?;
    Ok(
        match crate::scalar::Scalar::read(dtype, &bytes[at..at + dtype.itemsize()]) {
            crate::scalar::Scalar::Bool(b) => Value::Bool(b),
            crate::scalar::Scalar::Int(v) => Value::Int(v),
            crate::scalar::Scalar::Float(f) => Value::Float(f),
        },
    )
}

/// `x.storage()[i] = value`: writes the bytes (no version bump: storage writes bypass it,
/// as in PyTorch).
pub fn typed_storage_set(s: &Storage, dtype: DType, i: i64, value: &Value) -> Result<()> {
    let at = typed_element(s, dtype, i)?;
    let v = crate::tensor::checked_fill_value(value.as_scalar("value")?, dtype)?;
    let mut one = vec![0u8; dtype.itemsize()];
    v.write(dtype, &mut one);
    match s.write() {
        Some(mut bytes) => bytes[at..at + one.len()].copy_from_slice(&one),
        None => s
            .cuda()
            .expect("a storage is on the host or a GPU")
            .upload(at, &one)?,
    }
    Ok(())
}

/// `storage.NAME(args)` for `x.storage()`.
pub fn typed_storage_method(s: &Storage, dtype: DType, name: &str, args: Args) -> Result<Value> {
    args.bind(&[])?;
    let n = s.nbytes() / dtype.itemsize();
    Ok(match name {
        "size" | "__len__" => Value::Int(n as i64),
        "nbytes" => Value::Int(s.nbytes() as i64),
        "data_ptr" => Value::Int(s.data_ptr() as i64),
        "element_size" => Value::Int(dtype.itemsize() as i64),
        "tolist" => Value::List(
            (0..n as i64)
                .map(|i| typed_storage_get(s, dtype, i))
                .collect::<Result<_>>()?,
        ),
        _ => {
            return Err(type_error(format!(
                "'TypedStorage' object has no attribute '{name}'"
            )));
        }
    })
}
