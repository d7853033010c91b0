//! Python's built-ins over iterables (`sum`, `any`, `all`, `zip`, `range`, `enumerate`,
//! `sorted`, `reversed`, `dict`, `isinstance`), the methods of dicts, and
//! `torch.Generator` objects.

use std::cell::RefCell;
use std::rc::Rc;

use super::args::Args;
use super::pyops::{self, iterate};
use super::value::{Value, type_error};
use crate::bench::rng::SplitMix64;
use crate::error::{ErrorKind, Result, TensorError};

/// The built-ins of this module.
pub const NAMES: &[&str] = &[
    "sum",
    "any",
    "all",
    "zip",
    "range",
    "enumerate",
    "sorted",
    "reversed",
    "dict",
    "isinstance",
    "next",
];

/// `a + b` for `sum`: numbers as Python adds them, tensors (or a tensor and a number) as
/// PyTorch does.
fn add(a: Value, b: Value) -> Result<Value> {
    super::operators::binary(super::ast::BinOp::Add, a, b)
}

/// Calls the built-in `name` (one of [`NAMES`]).
pub fn call(name: &str, args: Args) -> Result<Value> {
    match name {
        "sum" => {
            let b = args.bind(&["iterable", "start"])?;
            let mut total = b.opt("start").cloned().unwrap_or(Value::Int(0));
            for v in iterate(b.req("iterable")?)? {
                total = add(total, v)?;
            }
            Ok(total)
        }
        "any" | "all" => {
            let b = args.bind(&["iterable"])?;
            let want = name == "any";
            for v in iterate(b.req("iterable")?)? {
                if pyops::truthy(&v)? == want {
                    return Ok(Value::Bool(want));
                }
            }
            Ok(Value::Bool(!want))
        }
        "zip" => {
            if !args.kwargs.is_empty() {
                return Err(type_error("zip() takes no keyword arguments"));
            }
            let columns = args
                .positional
                .iter()
                .map(iterate)
                .collect::<Result<Vec<_>>>()?;
            let n = columns.iter().map(Vec::len).min().unwrap_or(0);
            let rows = (0..n)
                .map(|i| Value::Tuple(columns.iter().map(|c| c[i].clone()).collect()))
                .collect();
            Ok(Value::iter("zip", rows))
        }
        "range" => {
            if !args.kwargs.is_empty() {
                return Err(type_error("range() takes no keyword arguments"));
            }
            let ints = args
                .positional
                .iter()
                .map(|v| v.as_int("range() argument"))
                .collect::<Result<Vec<_>>>()?;
            let (start, stop, step) = match ints.as_slice() {
                [stop] => (0, *stop, 1),
                [start, stop] => (*start, *stop, 1),
                [start, stop, step] => (*start, *stop, *step),
                _ => {
                    return Err(type_error(format!(
                        "range expected at most 3 arguments, got {}",
                        ints.len()
                    )));
                }
            };
            if step == 0 {
                return Err(TensorError::new(
                    ErrorKind::Other,
                    "range() arg 3 must not be zero",
                ));
            }
            Ok(Value::Range(start, stop, step))
        }
        "enumerate" => {
            let b = args.bind(&["iterable", "start"])?;
            let start = b.opt("start").map_or(Ok(0), |v| v.as_int("start"))?;
            let rows = iterate(b.req("iterable")?)?
                .into_iter()
                .enumerate()
                .map(|(i, v)| Value::Tuple(vec![Value::Int(start + i as i64), v]))
                .collect();
            Ok(Value::iter("enumerate", rows))
        }
        "sorted" => {
            let b = args.bind(&["iterable", "reverse"])?;
            let reverse = b.opt("reverse").map_or(Ok(false), pyops::truthy)?;
            let mut items = iterate(b.req("iterable")?)?;
            sort(&mut items)?;
            if reverse {
                items.reverse();
            }
            Ok(Value::List(items))
        }
        "reversed" => {
            let b = args.bind(&["sequence"])?;
            let mut items = match b.req("sequence")? {
                v @ (Value::Tuple(_) | Value::List(_) | Value::Size(_) | Value::Range(..)) => {
                    iterate(v)?
                }
                other => {
                    return Err(type_error(format!(
                        "'{}' object is not reversible",
                        other.type_name()
                    )));
                }
            };
            items.reverse();
            Ok(Value::iter("reversed", items))
        }
        "dict" => {
            let mut pairs = Vec::new();
            let Args {
                positional, kwargs, ..
            } = args;
            match positional.as_slice() {
                [] => {}
                [source] => {
                    let items = match source {
                        Value::Dict(d) => d
                            .borrow()
                            .iter()
                            .map(|(k, v)| Value::Tuple(vec![k.clone(), v.clone()]))
                            .collect(),
                        other => iterate(other)?,
                    };
                    for item in items {
                        let kv = pyops::unpack(&item, 2).map_err(|_| {
                            type_error("dictionary update sequence element has the wrong length")
                        })?;
                        let mut kv = kv.into_iter();
                        if let (Some(k), Some(v)) = (kv.next(), kv.next()) {
                            super::pyops::dict_insert(&mut pairs, k, v)?;
                        }
                    }
                }
                many => {
                    return Err(type_error(format!(
                        "dict expected at most 1 argument, got {}",
                        many.len()
                    )));
                }
            }
            for (k, v) in kwargs {
                super::pyops::dict_insert(&mut pairs, Value::Str(k), v)?;
            }
            Ok(Value::Dict(Rc::new(RefCell::new(pairs))))
        }
        "next" => {
            let b = args.bind(&["iterator", "default"])?;
            match b.req("iterator")? {
                Value::Iter(it) => match it.items.borrow_mut().pop_front() {
                    Some(v) => Ok(v),
                    None => match b.opt("default") {
                        Some(d) => Ok(d.clone()),
                        None => Err(TensorError::new(ErrorKind::Other, "StopIteration")),
                    },
                },
                other => Err(type_error(format!(
                    "'{}' object is not an iterator",
                    other.type_name()
                ))),
            }
        }
        "isinstance" => {
            let b = args.bind(&["obj", "class_or_tuple"])?;
            let obj = b.req("obj")?;
            Ok(Value::Bool(is_instance(obj, b.req("class_or_tuple")?)?))
        }
        _ => Err(type_error(format!("name '{name}' is not defined"))),
    }
}

/// `isinstance(obj, classes)` for the classes a program can name: exception classes.
fn is_instance(obj: &Value, classes: &Value) -> Result<bool> {
    match classes {
        Value::Tuple(items) => {
            for c in items {
                if is_instance(obj, c)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::ExceptionClass(c) => Ok(match obj {
            Value::Exception(e) => super::exceptions::is_subclass(e.class, c),
            _ => false,
        }),
        other => Err(type_error(format!(
            "isinstance() arg 2 must be a type, a tuple of types, or a union, not {}",
            other.type_name()
        ))),
    }
}

/// Sorts with Python's `<` (a TypeError for values that do not order).
fn sort(items: &mut [Value]) -> Result<()> {
    // Insertion sort: stable like Python's, and every comparison can fail.
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 {
            let less = pyops::order(&items[j], &items[j - 1], "<")?;
            if less != Some(std::cmp::Ordering::Less) {
                break;
            }
            items.swap(j, j - 1);
            j -= 1;
        }
    }
    Ok(())
}

/// `d.items()`, `d.keys()`, `d.values()`, `d.get(k[, default])`.
pub fn dict_method(d: &Rc<RefCell<Vec<(Value, Value)>>>, name: &str, args: Args) -> Result<Value> {
    let pairs = d.borrow();
    match name {
        "items" | "keys" | "values" => {
            args.bind(&[])?;
            let items = pairs
                .iter()
                .map(|(k, v)| match name {
                    "items" => Value::Tuple(vec![k.clone(), v.clone()]),
                    "keys" => k.clone(),
                    _ => v.clone(),
                })
                .collect();
            Ok(Value::iter(
                match name {
                    "items" => "dict_items",
                    "keys" => "dict_keys",
                    _ => "dict_values",
                },
                items,
            ))
        }
        "get" => {
            let b = args.bind(&["key", "default"])?;
            Ok(pyops::dict_get(&pairs, b.req("key")?)?
                .or_else(|| b.opt("default").cloned())
                .unwrap_or(Value::None))
        }
        _ => Err(type_error(format!(
            "'dict' object has no attribute '{name}'"
        ))),
    }
}

/// `torch.Generator()` (on the CPU; its stream is stridekit's generator).
pub fn new_generator(args: Args) -> Result<Value> {
    let b = args.bind(&["device"])?;
    if let Some(d) = b.opt("device") {
        d.as_device("device")?;
    }
    Ok(Value::Generator(Rc::new(RefCell::new(SplitMix64(
        super::env::DEFAULT_SEED,
    )))))
}

/// `g.manual_seed(n)` (returns the generator, as PyTorch does), `g.initial_seed()` is not
/// tracked.
pub fn generator_method(g: &Rc<RefCell<SplitMix64>>, name: &str, args: Args) -> Result<Value> {
    match name {
        "manual_seed" => {
            let b = args.bind(&["seed"])?;
            *g.borrow_mut() = SplitMix64(b.int("seed")? as u64);
            Ok(Value::Generator(g.clone()))
        }
        _ => Err(type_error(format!(
            "'torch.Generator' object has no attribute '{name}'"
        ))),
    }
}
