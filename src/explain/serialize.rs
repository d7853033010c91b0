//! `torch.save(obj, buf)` / `torch.load(buf)` through an `io.BytesIO()`: what is written is
//! the whole storage of every saved tensor, each distinct storage once (views saved together
//! keep sharing one storage when loaded), with the tracer's `saves_whole_storage` warning
//! for a tensor that addresses less than its storage. The file's own bytes (the zip
//! container and the pickle) are not modelled: `tell()` and `getvalue()` are refused.

use super::ctx::Ctx;
use super::objects::{Buffer, Object, Saved};
use super::value::{Value, type_error};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::cell::RefCell;

/// `t` on a new storage per distinct storage of the saved object (same size, same bytes,
/// shared by the tensors that shared one), as torch.load gives it; `written` gets each new
/// storage's size.
fn copy_tensor(
    t: &Tensor,
    storages: &mut Vec<(Storage, Storage)>,
    written: &mut u64,
) -> Result<Tensor> {
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
    Tensor::from_storage(new, t.layout().clone(), t.dtype())
}

/// `v` as saved: its tensors copied onto the file's storages.
fn to_saved(v: &Value, storages: &mut Vec<(Storage, Storage)>, written: &mut u64) -> Result<Saved> {
    let all = |items: &[Value], storages: &mut Vec<(Storage, Storage)>, written: &mut u64| {
        items
            .iter()
            .map(|i| to_saved(i, storages, written))
            .collect::<Result<Vec<_>>>()
    };
    Ok(match v {
        Value::Tensor(t) => Saved::Tensor(copy_tensor(t, storages, written)?),
        Value::List(items) => Saved::List(all(items, storages, written)?),
        Value::Tuple(items) => Saved::Tuple(all(items, storages, written)?),
        Value::Dict(d) => {
            let mut pairs = Vec::new();
            for (k, v) in d.borrow().iter() {
                pairs.push((
                    to_saved(k, storages, written)?,
                    to_saved(v, storages, written)?,
                ));
            }
            Saved::Dict(pairs)
        }
        Value::Int(i) => Saved::Int(*i),
        Value::Float(f) => Saved::Float(*f),
        Value::Bool(b) => Saved::Bool(*b),
        Value::Str(s) => Saved::Str(s.clone()),
        Value::None => Saved::None,
        other => {
            return Err(type_error(format!(
                "stridekit explain can torch.save tensors and lists, tuples and dicts of them, not {}",
                other.type_name()
            )));
        }
    })
}

/// A saved object loaded: its tensors on new storages again.
fn from_saved(s: &Saved, storages: &mut Vec<(Storage, Storage)>) -> Result<Value> {
    let all = |items: &[Saved], storages: &mut Vec<(Storage, Storage)>| {
        items
            .iter()
            .map(|i| from_saved(i, storages))
            .collect::<Result<Vec<_>>>()
    };
    Ok(match s {
        Saved::Tensor(t) => Value::Tensor(copy_tensor(t, storages, &mut 0)?),
        Saved::List(items) => Value::List(all(items, storages)?),
        Saved::Tuple(items) => Value::Tuple(all(items, storages)?),
        Saved::Dict(pairs) => {
            let mut out = Vec::new();
            for (k, v) in pairs {
                out.push((from_saved(k, storages)?, from_saved(v, storages)?));
            }
            Value::Dict(std::rc::Rc::new(RefCell::new(out)))
        }
        Saved::Int(i) => Value::Int(*i),
        Saved::Float(f) => Value::Float(*f),
        Saved::Bool(b) => Value::Bool(*b),
        Saved::Str(s) => Value::Str(s.clone()),
        Saved::None => Value::None,
    })
}

fn collect(v: &Value, out: &mut Vec<Tensor>) {
    match v {
        Value::Tensor(t) => out.push(t.clone()),
        Value::List(items) | Value::Tuple(items) => items.iter().for_each(|i| collect(i, out)),
        Value::Dict(d) => d.borrow().iter().for_each(|(_, v)| collect(v, out)),
        _ => {}
    }
}

/// `torch.save(obj, f)`.
pub fn save(cx: &Ctx, obj: &Value, f: &Value) -> Result<Value> {
    let buf = buffer(f)?;
    let mut tensors = Vec::new();
    collect(obj, &mut tensors);
    for t in &tensors {
        let addressed = crate::accounting::addressed_bytes(&[t]);
        let whole = t.storage().nbytes() as u64;
        if whole > addressed {
            let name = (cx.name_of)(t).unwrap_or_else(|| "a tensor".into());
            (cx.warn)(
                "saves_whole_storage",
                format!(
                    "torch.save of '{name}' writes its whole storage, {whole} bytes, of which it addresses {addressed} bytes; save `{name}.clone()` to write only those"
                ),
            );
        }
    }
    let mut written = 0u64;
    let copy = to_saved(obj, &mut Vec::new(), &mut written)?;
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
    from_saved(obj, &mut Vec::new())
}

fn buffer(f: &Value) -> Result<&Buffer> {
    match f {
        Value::Object(o) => match &**o {
            Object::Buffer(b) => Ok(b),
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
