//! Binding a call's arguments to a schema, as PyTorch's Python argument parser does:
//! positionals in order (keyword-only parameters after `*` take keywords only), keywords by
//! name, defaults from the schema; a lone `int[]` parameter also takes its ints as varargs
//! (`x.view(2, 3)`). Overloads are tried in order and the first that fits wins.

use super::types::{Base, Default, Param, Schema, Type};
use crate::error::Result;
use crate::explain::args::{Args, Bound};
use crate::explain::value::{Value, type_error};

/// How an op is reached from Python; it decides what the schema's `self` becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Surface {
    /// `torch.NAME(...)`: `self` is the parameter `input`.
    Function,
    /// `x.NAME(...)`: `self` is the receiver, not an argument.
    Method,
    /// `torch.nn.functional.NAME(...)`: the parameters as written.
    Functional,
}

impl Surface {
    /// The parameters a call on this surface passes, with their names there.
    fn params(self, schema: &Schema) -> Vec<(&'static str, &Param)> {
        schema
            .params
            .iter()
            .filter(|p| !(self == Surface::Method && p.name == "self"))
            .map(|p| match (self, p.name) {
                (Surface::Function, "self") => ("input", p),
                _ => (p.name, p),
            })
            .collect()
    }
}

/// The value a default stands for, where explain's values can hold it (an enum code or a
/// list default stays absent: the op decides what absent means).
fn default_value(d: &Default) -> Option<Value> {
    Some(match d {
        Default::Int(i) => Value::Int(*i),
        Default::Float(f) => Value::Float(*f),
        Default::Bool(b) => Value::Bool(*b),
        Default::Str(s) => Value::Str((*s).to_string()),
        Default::None | Default::IntList(_) | Default::Enum(_) => return None,
    })
}

type Slots = Vec<(&'static str, Option<Value>)>;

/// Binds `args` to `schema` by position and keyword, without looking at types.
fn slots(schema: &Schema, surface: Surface, args: &Args) -> Result<Slots> {
    let params = surface.params(schema);
    let positional: Vec<&(&'static str, &Param)> =
        params.iter().filter(|(_, p)| !p.kwarg_only).collect();
    let mut given = args.positional.clone();
    // One `int[]` parameter taking positionals: `f(2, 3)` is `f((2, 3))`.
    if let [(_, p)] = positional.as_slice() {
        let lone_sequence = matches!(
            given.as_slice(),
            [Value::Tuple(_) | Value::List(_) | Value::Size(_)]
        );
        if p.ty.base == Base::Int && p.ty.list.is_some() && !given.is_empty() && !lone_sequence {
            given = vec![Value::List(given)];
        }
    }
    if given.len() > positional.len() {
        return Err(type_error(format!(
            "{}() takes {} positional argument(s) but {} were given",
            args.name,
            positional.len(),
            args.positional.len()
        )));
    }
    let mut out: Slots = params.iter().map(|(n, _)| (*n, None)).collect();
    for ((name, _), v) in positional.iter().zip(given) {
        if let Some(slot) = out.iter_mut().find(|(n, _)| n == name) {
            slot.1 = Some(v);
        }
    }
    for (k, v) in &args.kwargs {
        match out.iter_mut().find(|(p, _)| p == k) {
            Some((_, slot @ None)) => *slot = Some(v.clone()),
            Some(_) => {
                return Err(type_error(format!(
                    "{}() got multiple values for argument '{k}'",
                    args.name
                )));
            }
            None => {
                return Err(type_error(format!(
                    "{}() got an unexpected keyword argument '{k}'",
                    args.name
                )));
            }
        }
    }
    for ((_, slot), (_, p)) in out.iter_mut().zip(&params) {
        if slot.is_none() {
            *slot = p.default.as_ref().and_then(default_value);
        }
    }
    Ok(out)
}

/// Whether a value can be an argument of type `ty` (PyTorch's parser's type check, loosely:
/// numbers may stand for tensors).
fn fits(ty: Type, v: &Value) -> bool {
    let one = |v: &Value| match (ty.base, v) {
        (_, Value::None) => ty.elem_optional && ty.list.is_some(),
        (Base::Tensor, Value::Tensor(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_)) => true,
        (Base::Int, Value::Int(_) | Value::Bool(_)) => true,
        (Base::Int, Value::Tensor(t)) => t.numel() == 1 && !t.dtype().is_floating(),
        (Base::Float | Base::Scalar, Value::Int(_) | Value::Float(_) | Value::Bool(_)) => true,
        (Base::Scalar, Value::Tensor(t)) => t.ndim() == 0,
        (Base::Bool, Value::Bool(_) | Value::Int(_)) => true,
        (Base::Str, Value::Str(_)) => true,
        (Base::ScalarType, Value::DType(_)) => true,
        (Base::Device, Value::Device(_) | Value::Str(_) | Value::Int(_)) => true,
        (Base::MemoryFormat, Value::MemoryFormat(_)) => true,
        (Base::Generator, Value::Generator(_)) => true,
        (Base::Layout | Base::Other, _) => true,
        _ => false,
    };
    match (v, ty.list) {
        (Value::None, _) => ty.optional,
        (Value::Tuple(items) | Value::List(items), Some(_)) => items.iter().all(one),
        (Value::Size(_), Some(_)) => ty.base == Base::Int,
        (_, Some(Some(_))) => ty.base == Base::Int && one(v),
        (_, Some(None)) => false,
        (_, None) => one(v),
    }
}

/// Whether bound slots give every required parameter a value of its type.
fn all_fit(schema: &Schema, surface: Surface, slots: &Slots) -> bool {
    surface
        .params(schema)
        .iter()
        .zip(slots)
        .all(|((_, p), (_, v))| match v {
            Some(v) => fits(p.ty, v),
            None => p.ty.optional || p.default.is_some(),
        })
}

/// Binds `args` to one schema. A missing required argument is reported when the op reads
/// it ([`Bound::req`]), as are wrong types.
pub fn bind(schema: &Schema, surface: Surface, args: Args) -> Result<Bound> {
    let s = slots(schema, surface, &args)?;
    Ok(Bound::from_slots(args.name, s))
}

/// Binds `args` to the first of `schemas` they fit (count, keywords, types); when none
/// fits, to the first they bind to by count and keywords (the op then reports the wrong
/// type), else the last one's binding error.
pub fn bind_overloads(schemas: &[Schema], surface: Surface, args: Args) -> Result<Bound> {
    let mut first_bound = None;
    let mut last_error = None;
    for schema in schemas {
        match slots(schema, surface, &args) {
            Ok(s) if all_fit(schema, surface, &s) => return Ok(Bound::from_slots(args.name, s)),
            Ok(s) => {
                first_bound.get_or_insert(s);
            }
            Err(e) => last_error = Some(e),
        }
    }
    match (first_bound, last_error) {
        (Some(s), _) => Ok(Bound::from_slots(args.name, s)),
        (None, Some(e)) => Err(e),
        (None, None) => Err(type_error(format!("{}(): no signature", args.name))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn args(positional: Vec<Value>, kwargs: Vec<(&str, Value)>) -> Args {
        Args {
            name: "f".into(),
            positional,
            kwargs: kwargs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }

    fn schemas(texts: &[&'static str]) -> Vec<Schema> {
        texts.iter().map(|t| parse(t).unwrap()).collect()
    }

    #[test]
    fn positional_keyword_and_defaults() {
        let s = schemas(&[
            "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
        ]);
        let b = bind(&s[0], Surface::Method, args(vec![Value::Int(1)], vec![])).unwrap();
        assert_eq!(b.int("start_dim").unwrap(), 1);
        assert_eq!(b.int("end_dim").unwrap(), -1);
        let b = bind(
            &s[0],
            Surface::Method,
            args(vec![], vec![("end_dim", Value::Int(2))]),
        )
        .unwrap();
        assert_eq!(
            (b.int("start_dim").unwrap(), b.int("end_dim").unwrap()),
            (0, 2)
        );
        // torch.flatten: `self` is `input`.
        let t = crate::tensor::Tensor::zeros(&[2, 3], crate::DType::F32).unwrap();
        let b = bind(
            &s[0],
            Surface::Function,
            args(vec![], vec![("input", Value::Tensor(t))]),
        )
        .unwrap();
        assert!(b.req("input").is_ok());
    }

    #[test]
    fn pytorch_messages_for_bad_calls() {
        let s = schemas(&["add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"]);
        let err = |a| bind(&s[0], Surface::Method, a).err().unwrap().to_string();
        assert!(
            err(args(vec![Value::Int(1), Value::Int(2)], vec![]))
                .contains("f() takes 1 positional argument(s) but 2 were given")
        );
        assert!(
            err(args(vec![Value::Int(1)], vec![("other", Value::Int(2))]))
                .contains("f() got multiple values for argument 'other'")
        );
        assert!(
            err(args(vec![], vec![("beta", Value::Int(2))]))
                .contains("f() got an unexpected keyword argument 'beta'")
        );
        // The receiver is not a keyword of the method.
        assert!(err(args(vec![], vec![("self", Value::Int(2))])).contains("unexpected keyword"));
        let b = bind(&s[0], Surface::Method, args(vec![], vec![])).unwrap();
        assert!(
            b.req("other")
                .err()
                .unwrap()
                .to_string()
                .contains("f() missing required argument 'other'")
        );
        let b = bind(
            &s[0],
            Surface::Method,
            args(vec![Value::Int(3)], vec![("alpha", Value::Float(0.5))]),
        )
        .unwrap();
        assert!(matches!(b.opt("alpha"), Some(Value::Float(f)) if *f == 0.5));
    }

    #[test]
    fn int_list_varargs() {
        let s = schemas(&["view(Tensor(a) self, SymInt[] size) -> Tensor(a)"]);
        for a in [
            args(vec![Value::Int(2), Value::Int(3)], vec![]),
            args(
                vec![Value::Tuple(vec![Value::Int(2), Value::Int(3)])],
                vec![],
            ),
            args(
                vec![],
                vec![("size", Value::List(vec![Value::Int(2), Value::Int(3)]))],
            ),
        ] {
            let b = bind(&s[0], Surface::Method, a).unwrap();
            assert_eq!(b.int_list("size").unwrap().as_slice(), &[2, 3]);
        }
        assert!(
            bind(
                &s[0],
                Surface::Method,
                args(vec![Value::Int(2)], vec![("size", Value::Int(2))])
            )
            .is_err()
        );
        // torch.X(input, size): two positionals, no varargs.
        let err = bind(
            &s[0],
            Surface::Function,
            args(vec![Value::Int(2), Value::Int(3), Value::Int(4)], vec![]),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("takes 2 positional argument(s) but 3"),
            "{err}"
        );
    }

    #[test]
    fn first_fitting_overload_wins() {
        let s = schemas(&[
            "arange(Scalar end, *, ScalarType? dtype=None) -> Tensor",
            "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None) -> Tensor",
            "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None) -> Tensor",
        ]);
        let b = bind_overloads(&s, Surface::Function, args(vec![Value::Int(5)], vec![])).unwrap();
        assert!(b.opt("start").is_none() && b.int("end").unwrap() == 5);
        let b = bind_overloads(
            &s,
            Surface::Function,
            args(vec![Value::Int(1), Value::Int(5)], vec![]),
        )
        .unwrap();
        assert_eq!((b.int("start").unwrap(), b.int("end").unwrap()), (1, 5));
        let b = bind_overloads(
            &s,
            Surface::Function,
            args(vec![Value::Int(1), Value::Int(5), Value::Int(2)], vec![]),
        )
        .unwrap();
        assert_eq!(b.int("step").unwrap(), 2);
        // Types choose between overloads of the same count.
        let s = schemas(&[
            "to.device(Tensor(a) self, Device? device=None, ScalarType? dtype=None) -> Tensor(a)",
            "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False) -> Tensor(a)",
        ]);
        let b = bind_overloads(
            &s,
            Surface::Method,
            args(vec![Value::DType(crate::DType::F16)], vec![]),
        )
        .unwrap();
        assert!(b.opt("device").is_none() && b.opt("dtype").is_some());
        let b = bind_overloads(
            &s,
            Surface::Method,
            args(vec![Value::Str("cpu".into())], vec![]),
        )
        .unwrap();
        assert!(b.opt("device").is_some());
        // Nothing fits by type: the first that binds, so the op names the wrong type.
        let b = bind_overloads(&s, Surface::Method, args(vec![Value::Float(1.0)], vec![])).unwrap();
        assert!(b.opt("device").is_some());
        // Nothing binds: the last overload's error.
        let e = bind_overloads(
            &s,
            Surface::Method,
            args(vec![], vec![("nope", Value::Int(1))]),
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("unexpected keyword argument 'nope'"));
    }

    #[test]
    fn type_checks() {
        let ty = |t: &'static str| {
            parse(Box::leak(format!("f({t} a) -> Tensor").into_boxed_str()))
                .unwrap()
                .params[0]
                .ty
        };
        let ints = Value::List(vec![Value::Int(1), Value::Int(2)]);
        assert!(fits(ty("int[]"), &ints));
        assert!(!fits(ty("int[]"), &Value::Int(1)));
        assert!(fits(ty("int[1]"), &Value::Int(1)));
        assert!(!fits(ty("int[1]"), &Value::None));
        assert!(fits(ty("int[1]?"), &Value::None));
        assert!(fits(ty("Tensor?"), &Value::None));
        assert!(!fits(ty("Tensor"), &Value::None));
        assert!(!fits(ty("Tensor"), &Value::Str("x".into())));
        assert!(fits(ty("Tensor?[]"), &Value::List(vec![Value::None])));
        assert!(!fits(ty("Tensor[]"), &Value::List(vec![Value::None])));
        assert!(!fits(ty("ScalarType"), &Value::Int(1)));
        assert!(fits(ty("Scalar"), &Value::Float(1.5)));
        assert!(!fits(ty("int"), &Value::Float(1.5)));
        assert!(!fits(ty("str"), &Value::Int(1)));
    }
}
