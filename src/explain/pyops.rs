//! Python's own semantics for the values of an `explain` program that are not tensors:
//! truthiness, `==` and ordering (numbers, strings, tuples, `torch.Size`, dtypes, devices),
//! `is`, number arithmetic, sequence indexing and slicing, `len` and unpacking.

use super::ast::BinOp;
use super::value::{Value, type_error};
use crate::error::{ErrorKind, Result, TensorError};
use crate::scalar::Scalar;
use std::cmp::Ordering;

/// `bool(v)`; a tensor must hold exactly one element.
pub fn truthy(v: &Value) -> Result<bool> {
    Ok(match v {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::None => false,
        Value::Str(s) => !s.is_empty(),
        Value::Tuple(items) | Value::List(items) | Value::NamedTuple(_, items) => !items.is_empty(),
        Value::Size(d) => !d.is_empty(),
        Value::Tensor(t) => match t.numel() {
            1 => t.values()?[0].to_bool(),
            0 => {
                return Err(TensorError::new(
                    ErrorKind::Other,
                    "Boolean value of Tensor with no values is ambiguous",
                ));
            }
            _ => {
                return Err(TensorError::new(
                    ErrorKind::Other,
                    "Boolean value of Tensor with more than one value is ambiguous",
                ));
            }
        },
        _ => true,
    })
}

/// A number's value, with bools as 0/1.
pub fn number(v: &Value) -> Option<Scalar> {
    match v {
        Value::Int(i) => Some(Scalar::Int(*i)),
        Value::Bool(b) => Some(Scalar::Int(*b as i64)),
        Value::Float(f) => Some(Scalar::Float(*f)),
        _ => None,
    }
}

/// The items of a tuple-like value (tuple, list, `torch.Size`).
pub fn items(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Tuple(items) | Value::List(items) | Value::NamedTuple(_, items) => {
            Some(items.clone())
        }
        Value::Size(d) => Some(d.iter().map(|&i| Value::Int(i)).collect()),
        _ => None,
    }
}

fn is_tuple_like(v: &Value) -> bool {
    matches!(v, Value::Tuple(_) | Value::Size(_) | Value::NamedTuple(..))
}

/// Python's `a == b` for values that are not tensors.
pub fn equal(a: &Value, b: &Value) -> Result<bool> {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return Ok(match (x, y) {
            (Scalar::Int(x), Scalar::Int(y)) => x == y,
            _ => x.to_f64() == y.to_f64(),
        });
    }
    Ok(match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::DType(x), Value::DType(y)) => x == y,
        (Value::MemoryFormat(x), Value::MemoryFormat(y)) => x == y,
        (Value::Device(x), Value::Device(y)) => x == y,
        (Value::Torch, Value::Torch) => true,
        (Value::Storage(x), Value::Storage(y)) => x.is_same(y),
        (Value::ExceptionClass(x), Value::ExceptionClass(y)) => x == y,
        (Value::Class(x), Value::Class(y)) => x == y,
        (Value::Range(..), Value::Range(..)) => range_items(a) == range_items(b),
        (Value::Dict(x), Value::Dict(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            if x.len() != y.len() {
                return Ok(false);
            }
            for (k, v) in x.iter() {
                match dict_get(&y, k)? {
                    Some(w) if element_equal(v, &w)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (x, y)
            if matches!(
                x,
                Value::Lambda(_)
                    | Value::Function(_)
                    | Value::Iter(_)
                    | Value::Generator(_)
                    | Value::Exception(_)
            ) =>
        {
            is(x, y)
        }
        (x, y)
            if (is_tuple_like(x) && is_tuple_like(y))
                || matches!((x, y), (Value::List(_), Value::List(_))) =>
        {
            let (xs, ys) = (items(x).unwrap_or_default(), items(y).unwrap_or_default());
            if xs.len() != ys.len() {
                return Ok(false);
            }
            for (p, q) in xs.iter().zip(&ys) {
                if !element_equal(p, q)? {
                    return Ok(false);
                }
            }
            true
        }
        _ => false,
    })
}

/// `==` between sequence elements: tensors compare through their truth value.
fn element_equal(a: &Value, b: &Value) -> Result<bool> {
    match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) if x.id() == y.id() => Ok(true),
        (Value::Tensor(_), _) | (_, Value::Tensor(_)) => Err(type_error(
            "comparing sequences that hold tensors is not supported",
        )),
        _ => equal(a, b),
    }
}

/// Python's ordering of two values (numbers, strings, tuple-likes, lists), or its TypeError;
/// None when they are unordered (a NaN), so every ordering comparison is false.
pub fn order(a: &Value, b: &Value, symbol: &str) -> Result<Option<Ordering>> {
    let unsupported = || {
        type_error(format!(
            "'{symbol}' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ))
    };
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return Ok(match (x, y) {
            (Scalar::Int(x), Scalar::Int(y)) => Some(x.cmp(&y)),
            _ => x.to_f64().partial_cmp(&y.to_f64()),
        });
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(Some(x.cmp(y))),
        (x, y)
            if (is_tuple_like(x) && is_tuple_like(y))
                || matches!((x, y), (Value::List(_), Value::List(_))) =>
        {
            let (xs, ys) = (items(x).unwrap_or_default(), items(y).unwrap_or_default());
            for (p, q) in xs.iter().zip(&ys) {
                if !equal(p, q)? {
                    return order(p, q, symbol);
                }
            }
            Ok(Some(xs.len().cmp(&ys.len())))
        }
        _ => Err(unsupported()),
    }
}

/// Python's `a is b`: tensors by object, singletons and small ints by value.
pub fn is(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) => x.id() == y.id(),
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Torch, Value::Torch) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        // CPython caches the ints -5..=256.
        (Value::Int(x), Value::Int(y)) => x == y && (-5..=256).contains(x),
        (Value::DType(x), Value::DType(y)) => x == y,
        (Value::MemoryFormat(x), Value::MemoryFormat(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Lambda(x), Value::Lambda(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Function(x), Value::Function(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Iter(x), Value::Iter(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Generator(x), Value::Generator(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Exception(x), Value::Exception(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::ExceptionClass(x), Value::ExceptionClass(y)) => x == y,
        (Value::Class(x), Value::Class(y)) => x == y,
        (Value::GradFn(x), Value::GradFn(y)) => std::rc::Rc::ptr_eq(x, y),
        _ => false,
    }
}

/// The ints of `range(start, stop, step)` (step is never 0).
pub fn range_items(v: &Value) -> Vec<i64> {
    let Value::Range(start, stop, step) = *v else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i);
        match i.checked_add(step) {
            Some(n) => i = n,
            None => break,
        }
    }
    out
}

/// How many ints `range(start, stop, step)` holds, without making them.
pub fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    let (lo, hi, s) = if step > 0 {
        (start as i128, stop as i128, step as i128)
    } else {
        (stop as i128, start as i128, -(step as i128))
    };
    if hi <= lo {
        0
    } else {
        ((hi - lo + s - 1) / s).min(i64::MAX as i128) as i64
    }
}

/// The value under `key` in a dict's pairs (keys compare with Python's `==`; tensors by
/// identity).
pub fn dict_get(pairs: &[(Value, Value)], key: &Value) -> Result<Option<Value>> {
    for (k, v) in pairs {
        if dict_key_equal(k, key)? {
            return Ok(Some(v.clone()));
        }
    }
    Ok(None)
}

/// Key equality in a dict: tensors are hashed by identity in PyTorch.
pub fn dict_key_equal(a: &Value, b: &Value) -> Result<bool> {
    match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) => Ok(x.id() == y.id()),
        (Value::Tensor(_), _) | (_, Value::Tensor(_)) => Ok(false),
        (Value::List(_) | Value::Dict(_), _) => {
            Err(type_error(format!("unhashable type: '{}'", a.type_name())))
        }
        _ => equal(a, b),
    }
}

/// The most items one iteration may produce (a `range` or loop over more is an error, so
/// that no program can make the interpreter run out of memory or time building a list).
pub const MAX_ITEMS: i64 = 10_000_000;

/// The items of an iterable, in order: a sequence's items, a tensor's rows (dim 0, as
/// PyTorch iterates), a `range`'s ints, a dict's keys, a string's characters, the elements
/// of a typed storage; a one-pass iterator is consumed.
pub fn iterate(v: &Value) -> Result<Vec<Value>> {
    Ok(match v {
        Value::Tensor(t) if t.ndim() == 0 => {
            return Err(type_error("iteration over a 0-d tensor"));
        }
        Value::Tensor(t) => (0..t.sizes()[0])
            .map(|i| t.select(0, i).map(Value::Tensor))
            .collect::<Result<Vec<_>>>()?,
        Value::TypedStorage(s, d) => {
            let n = (s.nbytes() / d.itemsize()) as i64;
            (0..n)
                .map(|i| super::attrs::typed_storage_get(s, *d, i))
                .collect::<Result<Vec<_>>>()?
        }
        Value::Range(start, stop, step) => {
            if range_len(*start, *stop, *step) > MAX_ITEMS {
                return Err(TensorError::new(
                    ErrorKind::OutOfMemory,
                    format!(
                        "range of more than {MAX_ITEMS} items is not supported by stridekit explain"
                    ),
                ));
            }
            range_items(v).into_iter().map(Value::Int).collect()
        }
        Value::Dict(d) => d.borrow().iter().map(|(k, _)| k.clone()).collect(),
        Value::Iter(it) => it.items.borrow_mut().drain(..).collect(),
        Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
        other => items(other)
            .ok_or_else(|| type_error(format!("'{}' object is not iterable", other.type_name())))?,
    })
}

/// `len(v)`.
pub fn len(v: &Value) -> Result<i64> {
    match v {
        Value::Str(s) => Ok(s.chars().count() as i64),
        Value::Tensor(t) if t.ndim() == 0 => Err(type_error("len() of a 0-d tensor")),
        Value::Tensor(t) => Ok(t.sizes()[0]),
        Value::Storage(s) => Ok(s.nbytes() as i64),
        Value::TypedStorage(s, d) => Ok((s.nbytes() / d.itemsize()) as i64),
        Value::Range(start, stop, step) => Ok(range_len(*start, *stop, *step)),
        Value::Dict(d) => Ok(d.borrow().len() as i64),
        other => items(other).map(|i| i.len() as i64).ok_or_else(|| {
            type_error(format!(
                "object of type '{}' has no len()",
                other.type_name()
            ))
        }),
    }
}

/// `seq[i]` for a tuple, list or `torch.Size`.
pub fn item_at(seq: &Value, i: i64) -> Result<Value> {
    let xs = items(seq).unwrap_or_default();
    let n = xs.len() as i64;
    let k = if i < 0 { i + n } else { i };
    if !(0..n).contains(&k) {
        let what = match seq {
            Value::List(_) => "list",
            _ => "tuple",
        };
        return Err(TensorError::new(
            ErrorKind::IndexOutOfRange,
            format!("{what} index out of range"),
        ));
    }
    Ok(xs[k as usize].clone())
}

/// `seq[start:stop:step]` with Python's clamping (negative steps too); a slice of a
/// `torch.Size` is a `torch.Size`.
pub fn slice(
    seq: &Value,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<Value> {
    let xs = items(seq).unwrap_or_default();
    let n = xs.len() as i64;
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(TensorError::new(
            ErrorKind::BadStep,
            "slice step cannot be zero",
        ));
    }
    let clamp = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi);
    let norm = |v: i64| if v < 0 { v + n } else { v };
    let picked: Vec<Value> = if step > 0 {
        let a = start.map_or(0, |s| clamp(norm(s), 0, n));
        let b = stop.map_or(n, |s| clamp(norm(s), 0, n));
        (a..b.max(a))
            .step_by(step as usize)
            .map(|i| xs[i as usize].clone())
            .collect()
    } else {
        let a = start.map_or(n - 1, |s| clamp(norm(s), -1, n - 1));
        let b = stop.map_or(-1, |s| clamp(norm(s), -1, n - 1));
        let mut out = Vec::new();
        let mut i = a;
        while i > b {
            out.push(xs[i as usize].clone());
            i += step;
        }
        out
    };
    Ok(match seq {
        Value::Size(_) => Value::Size(
            picked
                .iter()
                .map(|v| v.as_int("size"))
                .collect::<Result<_>>()?,
        ),
        Value::List(_) => Value::List(picked),
        _ => Value::Tuple(picked),
    })
}

/// The `n` values a target list unpacks `v` into, with Python's messages.
pub fn unpack(v: &Value, n: usize) -> Result<Vec<Value>> {
    let xs = match v {
        Value::Tensor(_) | Value::Range(..) | Value::Dict(_) | Value::Iter(_) | Value::Str(_) => {
            iterate(v)?
        }
        other => items(other).ok_or_else(|| {
            type_error(format!(
                "cannot unpack non-iterable {} object",
                other.type_name()
            ))
        })?,
    };
    match xs.len().cmp(&n) {
        Ordering::Equal => Ok(xs),
        Ordering::Greater => Err(TensorError::new(
            ErrorKind::Other,
            format!("too many values to unpack (expected {n})"),
        )),
        Ordering::Less => Err(TensorError::new(
            ErrorKind::Other,
            format!(
                "not enough values to unpack (expected {n}, got {})",
                xs.len()
            ),
        )),
    }
}

/// Python arithmetic and bitwise ops on numbers (ints stay ints except for `/`), and `+`
/// / `*` on tuples and lists.
pub fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Value> {
    let unsupported = || {
        type_error(format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        ))
    };
    match (op, a, b) {
        (BinOp::MatMul, _, _) => return Err(unsupported()),
        (BinOp::Add, x, y) if items(x).is_some() && items(y).is_some() => {
            if matches!(x, Value::List(_)) != matches!(y, Value::List(_)) {
                return Err(unsupported());
            }
            let mut xs = items(x).unwrap_or_default();
            xs.extend(items(y).unwrap_or_default());
            return Ok(match x {
                Value::List(_) => Value::List(xs),
                _ => Value::Tuple(xs),
            });
        }
        (BinOp::Mul, seq, Value::Int(k)) | (BinOp::Mul, Value::Int(k), seq)
            if items(seq).is_some() =>
        {
            let xs = items(seq).unwrap_or_default();
            let reps = (*k).max(0) as usize;
            let all: Vec<Value> = (0..reps).flat_map(|_| xs.iter().cloned()).collect();
            return Ok(match seq {
                Value::List(_) => Value::List(all),
                _ => Value::Tuple(all),
            });
        }
        (BinOp::Add, Value::Str(x), Value::Str(y)) => return Ok(Value::Str(format!("{x}{y}"))),
        _ => {}
    }
    let (Some(x), Some(y)) = (number(a), number(b)) else {
        return Err(unsupported());
    };
    if matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) {
        let (Scalar::Int(x), Scalar::Int(y)) = (x, y) else {
            return Err(unsupported());
        };
        let r = match op {
            BinOp::BitAnd => x & y,
            BinOp::BitOr => x | y,
            _ => x ^ y,
        };
        return Ok(match (a, b) {
            (Value::Bool(_), Value::Bool(_)) => Value::Bool(r != 0),
            _ => Value::Int(r),
        });
    }
    let zero_div = || TensorError::new(ErrorKind::Other, "division by zero");
    let overflow = || TensorError::new(ErrorKind::Other, "integer overflow");
    if let (Scalar::Int(x), Scalar::Int(y)) = (x, y) {
        return Ok(match op {
            BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(overflow)?),
            BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(overflow)?),
            BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(overflow)?),
            BinOp::Div if y == 0 => return Err(zero_div()),
            BinOp::Div => Value::Float(x as f64 / y as f64),
            BinOp::FloorDiv | BinOp::Mod if y == 0 => return Err(zero_div()),
            BinOp::FloorDiv => {
                let q = x.wrapping_div(y);
                Value::Int(if x % y != 0 && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                })
            }
            BinOp::Mod => Value::Int(((x % y) + y) % y),
            BinOp::Pow if y >= 0 => Value::Int(
                u32::try_from(y)
                    .ok()
                    .and_then(|e| x.checked_pow(e))
                    .ok_or_else(overflow)?,
            ),
            BinOp::Pow => Value::Float((x as f64).powf(y as f64)),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::MatMul => {
                unreachable!("handled above")
            }
        });
    }
    let (x, y) = (x.to_f64(), y.to_f64());
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod if y == 0.0 => return Err(zero_div()),
        BinOp::Div => x / y,
        BinOp::FloorDiv => (x / y).floor(),
        BinOp::Mod => x - y * (x / y).floor(),
        BinOp::Pow => x.powf(y),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::MatMul => {
            unreachable!("handled above")
        }
    }))
}

/// Inserts or replaces `key` in a dict's pairs (insertion order kept, as in Python).
pub fn dict_insert(pairs: &mut Vec<(Value, Value)>, key: Value, value: Value) -> Result<()> {
    for (k, v) in pairs.iter_mut() {
        if dict_key_equal(k, &key)? {
            *v = value;
            return Ok(());
        }
    }
    dict_key_equal(&key, &key)?; // unhashable keys fail here
    pairs.push((key, value));
    Ok(())
}
