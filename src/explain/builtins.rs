//! Python's built-in functions an `explain` program may call: `print`, `len`, `int`,
//! `float`, `bool`, `abs`, `str`, `repr`, `tuple`, `list`, `min`, `max`.

use super::args::Args;
use super::env::Env;
use super::pyfmt::{repr_of, str_of};
use super::pyops;
use super::value::{Value, type_error};
use crate::error::{ErrorKind, Result, TensorError};
use crate::tensor::Tensor;
use crate::tensor::arith::ElementOp;
use crate::tensor::elementwise::Operand;

use super::pyops::iterate;

/// Calls the built-in `name`.
pub fn call(env: &Env, name: &str, args: Args) -> Result<Value> {
    if super::pycalls::NAMES.contains(&name) {
        return super::pycalls::call(name, args);
    }
    if name == "print" {
        let mut args = args;
        let take = |args: &mut Args, key: &str, default: &str| -> Result<String> {
            match args.kwargs.iter().position(|(k, _)| k == key) {
                Some(i) => match args.kwargs.remove(i).1 {
                    Value::None => Ok(default.to_string()),
                    Value::Str(s) => Ok(s),
                    other => Err(type_error(format!(
                        "{key} must be None or a string, not {}",
                        other.type_name()
                    ))),
                },
                None => Ok(default.to_string()),
            }
        };
        let sep = take(&mut args, "sep", " ")?;
        let end = take(&mut args, "end", "\n")?;
        if let Some((k, _)) = args.kwargs.first() {
            return Err(type_error(format!(
                "'{k}' is an invalid keyword argument for print()"
            )));
        }
        let parts: Vec<String> = args
            .positional
            .iter()
            .map(|v| match v {
                Value::Tensor(t) => with_grad_suffix(str_of(v), &env.grad, t),
                other => str_of(other),
            })
            .collect();
        env.write_output(&format!("{}{end}", parts.join(&sep)));
        return Ok(Value::None);
    }
    if name == "type" {
        return match (args.positional.as_slice(), args.kwargs.is_empty()) {
            ([one], true) => Ok(Value::Class(one.type_name())),
            _ => Err(type_error("type() takes 1 argument")),
        };
    }
    if matches!(name, "min" | "max") {
        let values = match args.positional.as_slice() {
            [one] => iterate(one)?,
            many => many.to_vec(),
        };
        let mut best: Option<Value> = None;
        for v in values {
            best = Some(match best {
                None => v,
                Some(b) => {
                    let ord = pyops::order(&v, &b, if name == "min" { "<" } else { ">" })?;
                    let better = match name {
                        "min" => ord == Some(std::cmp::Ordering::Less),
                        _ => ord == Some(std::cmp::Ordering::Greater),
                    };
                    if better { v } else { b }
                }
            });
        }
        return best.ok_or_else(|| type_error(format!("{name}() arg is an empty sequence")));
    }
    let b = args.bind(&["x"])?;
    let x = b.opt("x");
    Ok(match (name, x) {
        ("len", Some(v)) => Value::Int(pyops::len(v)?),
        ("str", Some(v)) => Value::Str(str_of(v)),
        ("str", None) => Value::Str(String::new()),
        ("repr", Some(v)) => Value::Str(repr_of(v)),
        ("bool", Some(v)) => Value::Bool(pyops::truthy(v)?),
        ("bool", None) => Value::Bool(false),
        ("tuple", Some(v)) => Value::Tuple(iterate(v)?),
        ("tuple", None) => Value::Tuple(Vec::new()),
        ("list", Some(v)) => Value::List(iterate(v)?),
        ("list", None) => Value::List(Vec::new()),
        ("abs", Some(Value::Tensor(t))) => Value::Tensor(Tensor::elementwise(
            ElementOp::Abs,
            &[Operand::Tensor(t.clone())],
        )?),
        ("abs", Some(Value::Int(i))) => Value::Int(i.wrapping_abs()),
        ("abs", Some(Value::Bool(v))) => Value::Int(*v as i64),
        ("abs", Some(Value::Float(f))) => Value::Float(f.abs()),
        ("int", Some(v)) => to_int(v)?,
        ("int", None) => Value::Int(0),
        ("float", Some(v)) => to_float(v)?,
        ("float", None) => Value::Float(0.0),
        (_, Some(v)) => {
            return Err(type_error(format!(
                "bad operand type for {name}(): '{}'",
                v.type_name()
            )));
        }
        (_, None) => {
            return Err(type_error(format!(
                "{name}() takes exactly one argument (0 given)"
            )));
        }
    })
}

/// `int(v)`: truncates floats; a one-element tensor converts its element.
fn to_int(v: &Value) -> Result<Value> {
    let v = match v {
        Value::Tensor(t) => super::ops::item(t)?,
        other => other.clone(),
    };
    Ok(match v {
        Value::Int(i) => Value::Int(i),
        Value::Bool(b) => Value::Int(b as i64),
        Value::Float(f) if f.is_nan() => {
            return Err(TensorError::new(
                ErrorKind::Other,
                "cannot convert float NaN to integer",
            ));
        }
        Value::Float(f) if f.is_infinite() => {
            return Err(TensorError::new(
                ErrorKind::Other,
                "cannot convert float infinity to integer",
            ));
        }
        Value::Float(f) => Value::Int(f.trunc() as i64),
        Value::Str(s) => Value::Int(s.trim().parse().map_err(|_| {
            TensorError::new(
                ErrorKind::Other,
                format!(
                    "invalid literal for int() with base 10: {}",
                    repr_of(&Value::Str(s.clone()))
                ),
            )
        })?),
        other => {
            return Err(type_error(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.type_name()
            )));
        }
    })
}

/// `float(v)`.
fn to_float(v: &Value) -> Result<Value> {
    let v = match v {
        Value::Tensor(t) => super::ops::item(t)?,
        other => other.clone(),
    };
    if let Value::Str(text) = &v {
        let t = text.trim().to_ascii_lowercase();
        let parsed = match t.as_str() {
            "nan" | "+nan" | "-nan" => Some(f64::NAN),
            "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
            "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
            _ => t.parse::<f64>().ok(),
        };
        return parsed.map(Value::Float).ok_or_else(|| {
            TensorError::new(
                ErrorKind::Other,
                format!("could not convert string to float: {}", repr_of(&v)),
            )
        });
    }
    match pyops::number(&v) {
        Some(n) => Ok(Value::Float(n.to_f64())),
        None => Err(type_error(format!(
            "float() argument must be a string or a real number, not '{}'",
            v.type_name()
        ))),
    }
}

/// A tensor's printed form with PyTorch's autograd suffix (`grad_fn=<MulBackward0>` for a
/// non-leaf, `requires_grad=True` for a leaf that requires grad).
fn with_grad_suffix(text: String, grad: &super::autograd::State, t: &Tensor) -> String {
    let suffix = match grad.grad_fn(t) {
        Some(n) => format!("grad_fn=<{}>", n.name),
        None if grad.requires_grad(t) => "requires_grad=True".into(),
        None => return text,
    };
    match text.strip_suffix(')') {
        Some(body) => format!("{body}, {suffix})"),
        None => text,
    }
}
