//! `torch.save(obj, buf)` / `torch.load(buf)` through an `io.BytesIO()`: what is written is
//! the whole storage of every saved tensor, each distinct storage once (views saved together
//! keep sharing one storage when loaded), with the tracer's `saves_whole_storage` warning
//! for a tensor that addresses less than its storage. The file's own bytes (the zip
//! container and the pickle) are not modelled: `tell()` and `getvalue()` are refused.

use super::value::{Value, type_error};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};

/// What an `io.BytesIO()` holds: the objects saved into it, in order, and the read position.
#[derive(Debug, Default)]
pub struct Buffer {
    saved: RefCell<Vec<Value>>,
    position: Cell<usize>,
    /// Storage bytes written so far.
    pub written: Cell<u64>,
}

impl Buffer {
    pub fn tensors(&self) -> Vec<Tensor> {
        let mut out = Vec::new();
        for v in self.saved.borrow().iter() {
            collect(v, &mut out);
        }
        out
    }
}

fn collect(v: &Value, out: &mut Vec<Tensor>) {
    match v {
        Value::Tensor(t) => out.push(t.clone()),
        Value::List(items) | Value::Tuple(items) => items.iter().for_each(|i| collect(i, out)),
        Value::Dict(d) => d.borrow().iter().for_each(|(_, v)| collect(v, out)),
        _ => {}
    }
}

/// Copies of `v`'s tensors on new storages (one per distinct storage, same size, same
/// bytes), as torch.load gives them; `written` gets each new storage's size.
fn copied(v: &Value, storages: &mut Vec<(Storage, Storage)>, written: &mut u64) -> Result<Value> {
    Ok(match v {
        Value::Tensor(t) => {
            let old = t.storage();
            let new = match storages.iter().find(|(o, _)| o.id() == old.id()) {
                Some((_, n)) => n.clone(),
                None => {
                    let n = old.nbytes() as i64;
                    let bytes = Tensor::from_storage(old.clone(), Layout::contiguous(&[n]), DType::U8)?;
                    let fresh = bytes.clone_as(crate::layout::MemoryFormat::Contiguous)?;
                    // torch.load sets each tensor onto its storage in place: version 1
                    fresh.storage().bump_version();
                    *written = written.saturating_add(n as u64);
                    storages.push((old.clone(), fresh.storage().clone()));
                    fresh.storage().clone()
                }
            };
            Value::Tensor(Tensor::from_storage(new, t.layout().clone(), t.dtype())?)
        }
        Value::List(items) => Value::List(
            items
                .iter()
                .map(|i| copied(i, storages, written))
                .collect::<Result<_>>()?,
        ),
        Value::Tuple(items) => Value::Tuple(
            items
                .iter()
                .map(|i| copied(i, storages, written))
                .collect::<Result<_>>()?,
        ),
        Value::Dict(d) => {
            let mut pairs = Vec::new();
            for (k, v) in d.borrow().iter() {
                pairs.push((k.clone(), copied(v, storages, written)?));
            }
            Value::Dict(std::rc::Rc::new(RefCell::new(pairs)))
        }
        v @ (Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::None | Value::Str(_)) => {
            v.clone()
        }
        other => {
            return Err(type_error(format!(
                "stridekit explain can torch.save tensors and lists, tuples and dicts of them, not {}",
                other.type_name()
            )));
        }
    })
}

/// `torch.save(obj, f)`.
pub fn save(env: &super::env::Env, obj: &Value, f: &Value) -> Result<Value> {
    let buf = buffer(f)?;
    let mut tensors = Vec::new();
    collect(obj, &mut tensors);
    for t in &tensors {
        let addressed = crate::accounting::addressed_bytes(&[t]);
        let whole = t.storage().nbytes() as u64;
        if whole > addressed {
            let name = env.name_of(t).unwrap_or_else(|| "a tensor".into());
            env.warn(
                "saves_whole_storage",
                format!(
                    "torch.save of '{name}' writes its whole storage, {whole} bytes, of which it addresses {addressed} bytes; save `{name}.clone()` to write only those"
                ),
            );
        }
    }
    let mut written = 0u64;
    let copy = copied(obj, &mut Vec::new(), &mut written)?;
    buf.written.set(buf.written.get().saturating_add(written));
    let mut saved = buf.saved.borrow_mut();
    saved.push(copy);
    buf.position.set(saved.len());
    Ok(Value::None)
}

/// `torch.load(f)`: the next object saved in `f` after its read position, on new storages.
pub fn load(f: &Value) -> Result<Value> {
    let buf = buffer(f)?;
    let saved = buf.saved.borrow();
    let at = buf.position.get();
    let Some(obj) = saved.get(at) else {
        return Err(TensorError::new(ErrorKind::Other, "Ran out of input"));
    };
    buf.position.set(at + 1);
    copied(obj, &mut Vec::new(), &mut 0)
}

fn buffer(f: &Value) -> Result<&Buffer> {
    match f {
        Value::Object(o) => match &**o {
            super::modules::Object::Buffer(b) => Ok(b),
            _ => Err(not_a_file(f)),
        },
        Value::Str(_) => Err(TensorError::new(
            ErrorKind::Unsupported,
            "stridekit explain writes no files: torch.save/torch.load take an io.BytesIO()",
        )),
        _ => Err(not_a_file(f)),
    }
}

fn not_a_file(f: &Value) -> TensorError {
    type_error(format!(
        "expected a file-like object (an io.BytesIO()), got {}",
        f.type_name()
    ))
}

/// `buf.NAME(args)`.
pub fn method(b: &Buffer, name: &str, args: super::args::Args) -> Result<Value> {
    match name {
        "seek" => {
            let bound = args.bind(&["offset", "whence"])?;
            if bound.int("offset")? != 0 || bound.int_or("whence", 0)? != 0 {
                return Err(TensorError::new(
                    ErrorKind::Unsupported,
                    "stridekit explain models seek(0) of an io.BytesIO only",
                ));
            }
            b.position.set(0);
            Ok(Value::Int(0))
        }
        "tell" | "getvalue" | "getbuffer" | "read" | "write" => Err(TensorError::new(
            ErrorKind::Unsupported,
            format!(
                "stridekit explain does not model the bytes of torch.save's file format (BytesIO.{name}); the storage bytes written are in the saves_whole_storage warning and the report"
            ),
        )),
        _ => Err(type_error(format!(
            "'_io.BytesIO' object has no attribute '{name}'"
        ))),
    }
}
