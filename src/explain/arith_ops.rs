//! The element-wise functions and methods: `torch.add/sub/mul/div(..., alpha=)`, `x.add(...)`,
//! comparisons (`eq`, `gt`, ...), `where`, `clamp`, `abs`, `neg`, `sqrt`, `exp`, `square`,
//! `pow`, their in-place forms with tensor or number operands (`add_`, `gt_`, `clamp_`,
//! ...), `masked_fill_`, and `torch.equal`.

use super::args::{Args, Bound};
use super::op_table::bind;
use super::operators::{operand, pow};
use super::schema::Surface::{Function, Method};
use super::value::{Value, type_error};
use crate::error::{ErrorKind, Result, TensorError};
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use crate::tensor::arith::ElementOp;
use crate::tensor::elementwise::Operand;

/// The binary op behind a function or method name.
fn binary_op(name: &str) -> Option<ElementOp> {
    Some(match name {
        "add" => ElementOp::Add(Scalar::Int(1)),
        "sub" | "subtract" => ElementOp::Sub(Scalar::Int(1)),
        "mul" | "multiply" => ElementOp::Mul,
        "div" | "divide" | "true_divide" => ElementOp::Div,
        "floor_divide" => ElementOp::FloorDiv,
        "remainder" => ElementOp::Remainder,
        "eq" => ElementOp::Eq,
        "ne" | "not_equal" => ElementOp::Ne,
        "lt" | "less" => ElementOp::Lt,
        "le" | "less_equal" => ElementOp::Le,
        "gt" | "greater" => ElementOp::Gt,
        "ge" | "greater_equal" => ElementOp::Ge,
        "bitwise_and" => ElementOp::BitAnd,
        "bitwise_or" => ElementOp::BitOr,
        "bitwise_xor" => ElementOp::BitXor,
        "maximum" => ElementOp::Maximum,
        "minimum" => ElementOp::Minimum,
        "logical_and" => ElementOp::LogicalAnd,
        "logical_or" => ElementOp::LogicalOr,
        "logical_xor" => ElementOp::LogicalXor,
        _ => return None,
    })
}

fn unary_op(name: &str) -> Option<ElementOp> {
    Some(match name {
        "abs" | "absolute" => ElementOp::Abs,
        "neg" | "negative" => ElementOp::Neg,
        "sqrt" => ElementOp::Sqrt,
        "exp" => ElementOp::Exp,
        "bitwise_not" => ElementOp::Invert,
        "logical_not" => ElementOp::LogicalNot,
        _ => return None,
    })
}

/// `alpha=` for add/sub (default 1), and `rounding_mode=` for div.
fn with_options(op: ElementOp, b: &Bound, has_alpha: bool) -> Result<ElementOp> {
    let alpha = if has_alpha {
        b.opt("alpha").map(|v| v.as_scalar("alpha")).transpose()?
    } else {
        None
    };
    Ok(match (op, alpha) {
        (ElementOp::Add(_), Some(a)) => ElementOp::Add(a),
        (ElementOp::Sub(_), Some(a)) => ElementOp::Sub(a),
        (ElementOp::Div, _) => match b.opt("rounding_mode") {
            None => ElementOp::Div,
            Some(Value::Str(m)) if m == "floor" => ElementOp::FloorDiv,
            Some(Value::Str(m)) if m == "trunc" => ElementOp::TruncDiv,
            Some(other) => {
                return Err(TensorError::new(
                    ErrorKind::Other,
                    format!(
                        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'",
                        super::pyfmt::str_of(other)
                    ),
                ));
            }
        },
        (op, _) => op,
    })
}

fn value_operand(v: &Value, other: &Value) -> Result<Operand> {
    operand(v, "op", other)
}

/// `maximum`/`minimum` take tensors only (PyTorch's TypeError for a number).
fn check_tensor_operands(op: ElementOp, name: &str, inputs: &[Operand]) -> Result<()> {
    if matches!(op, ElementOp::Maximum | ElementOp::Minimum)
        && inputs.iter().any(|i| matches!(i, Operand::Number(_)))
    {
        return Err(type_error(format!(
            "{name}(): argument 'other' (position 2) must be Tensor, not a number"
        )));
    }
    Ok(())
}

/// `clamp(min, max)` operands after `x`; PyTorch needs at least one bound.
fn clamp_operands(b: &Bound, x: &Value) -> Result<(ElementOp, Vec<Operand>)> {
    let (lo, hi) = (b.opt("min"), b.opt("max"));
    if lo.is_none() && hi.is_none() {
        return Err(TensorError::new(
            ErrorKind::Other,
            "torch.clamp: At least one of 'min' or 'max' must not be None",
        ));
    }
    let mut ops = Vec::new();
    for v in [lo, hi].into_iter().flatten() {
        ops.push(value_operand(v, x)?);
    }
    Ok((
        ElementOp::Clamp {
            min: lo.is_some(),
            max: hi.is_some(),
        },
        ops,
    ))
}

/// `torch.NAME(...)` when NAME is an element-wise function.
pub fn torch_function(name: &str, args: Args) -> Option<Result<Value>> {
    let run = || -> Result<Value> {
        if let Some(op) = binary_op(name) {
            let has_alpha = matches!(op, ElementOp::Add(_) | ElementOp::Sub(_));
            let b = bind(Function, name, args)?;
            let (x, y) = (b.req("input")?, b.req("other")?);
            let op = with_options(op, &b, has_alpha)?;
            let inputs = [value_operand(x, y)?, value_operand(y, x)?];
            check_tensor_operands(op, name, &inputs)?;
            return Tensor::elementwise(op, &inputs).map(Value::Tensor);
        }
        if let Some(op) = unary_op(name) {
            let b = bind(Function, name, args)?;
            let x = b.req("input")?.as_tensor("input")?;
            return Tensor::elementwise(op, &[Operand::Tensor(x.clone())]).map(Value::Tensor);
        }
        match name {
            "square" => {
                let b = bind(Function, name, args)?;
                let x = b.req("input")?.as_tensor("input")?;
                pow(Operand::Tensor(x.clone()), Operand::Number(Scalar::Int(2))).map(Value::Tensor)
            }
            "pow" => {
                let b = bind(Function, name, args)?;
                let (x, e) = (b.req("input")?, b.req("exponent")?);
                pow(value_operand(x, e)?, value_operand(e, x)?).map(Value::Tensor)
            }
            "where" => {
                let b = bind(Function, name, args)?;
                let c = b.req("condition")?;
                let (x, y) = (b.req("input")?, b.req("other")?);
                let inputs = [
                    value_operand(c, x)?,
                    value_operand(x, y)?,
                    value_operand(y, x)?,
                ];
                let _temporaries = super::sim_temporaries::where_operands(&inputs)?;
                Tensor::elementwise(ElementOp::Where, &inputs).map(Value::Tensor)
            }
            "clamp" | "clip" => {
                let b = bind(Function, name, args)?;
                let x = b.req("input")?;
                let (op, rest) = clamp_operands(&b, x)?;
                let mut inputs = vec![Operand::Tensor(x.as_tensor("input")?.clone())];
                inputs.extend(rest);
                Tensor::elementwise(op, &inputs).map(Value::Tensor)
            }
            "allclose" => {
                let b = bind(Function, name, args)?;
                allclose(b.req("input")?.as_tensor("input")?, &b).map(Value::Bool)
            }
            "equal" => {
                let b = bind(Function, name, args)?;
                let x = b.req("input")?.as_tensor("input")?;
                let y = b.req("other")?.as_tensor("other")?;
                equal(x, y).map(Value::Bool)
            }
            _ => unreachable!("listed in is_function"),
        }
    };
    is_function(name).then(run)
}

fn is_function(name: &str) -> bool {
    binary_op(name).is_some()
        || unary_op(name).is_some()
        || matches!(
            name,
            "pow" | "square" | "where" | "clamp" | "clip" | "equal" | "allclose"
        )
}

/// `torch.equal(a, b)`: same shape and equal values (compared in the promoted dtype). As
/// `cuda_equal`: no kernel for an empty tensor or the same view of one storage;
/// else `eq(a, b).all().item()`, whose bool tensor and 0-dim bool are both alive on the
/// device before the answer comes back.
pub fn equal(a: &Tensor, b: &Tensor) -> Result<bool> {
    if a.sizes() != b.sizes() {
        return Ok(false);
    }
    let same_view = a.shares_storage(b)
        && a.storage_offset() == b.storage_offset()
        && a.dtype() == b.dtype()
        && a.strides() == b.strides();
    if a.numel() == 0 {
        return Ok(true);
    }
    if same_view {
        // No kernel on the device; the CPU's answer (false where an element is NaN).
        return Ok(a
            .values()?
            .iter()
            .all(|v| !matches!(v, Scalar::Float(f) if f.is_nan())));
    }
    let eq = Tensor::elementwise(
        ElementOp::Eq,
        &[Operand::Tensor(a.clone()), Operand::Tensor(b.clone())],
    )?;
    let all = eq.values()?.iter().all(|v| v.to_bool());
    let _all = super::sim_temporaries::device_scalar(eq.device(), Scalar::Bool(all), None)?;
    Ok(all)
}

/// `torch.allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)`: every element of
/// `|a - b| <= atol + rtol * |b|` (or equal, or both NaN with `equal_nan`), broadcast.
fn allclose(a: &Tensor, b: &Bound) -> Result<bool> {
    let other = b.req("other")?.as_tensor("other")?;
    let num = |p: &str, d: f64| -> Result<f64> {
        b.opt(p)
            .map_or(Ok(d), |v| v.as_scalar(p).map(|s| s.to_f64()))
    };
    let (rtol, atol) = (num("rtol", 1e-05)?, num("atol", 1e-08)?);
    let equal_nan = b
        .opt("equal_nan")
        .map_or(Ok(false), |v| v.as_bool("equal_nan"))?;
    if a.dtype() != other.dtype() {
        return Err(TensorError::new(
            ErrorKind::Other,
            format!(
                "{} did not match {}",
                a.dtype().scalar_type_name(),
                other.dtype().scalar_type_name()
            ),
        ));
    }
    let t = |x: &Tensor| Operand::Tensor(x.clone());
    let eq = Tensor::elementwise(ElementOp::Eq, &[t(a), t(other)])?;
    let (av, bv) = (
        a.expand(eq.sizes())?.values()?,
        other.expand(eq.sizes())?.values()?,
    );
    Ok(av.iter().zip(&bv).all(|(x, y)| {
        let (x, y) = (x.to_f64(), y.to_f64());
        x == y || (equal_nan && x.is_nan() && y.is_nan()) || (x - y).abs() <= atol + rtol * y.abs()
    }))
}

/// Whether `x.NAME(...)` is an element-wise method (out of place or in place).
pub fn is_method(name: &str) -> bool {
    let (base, in_place) = match name.strip_suffix('_') {
        Some(b) => (b, true),
        None => (name, false),
    };
    (is_function(base) || base == "masked_fill")
        && !(in_place && matches!(base, "equal" | "where" | "allclose"))
}

/// `x.NAME(...)` for an element-wise method ([`is_method`]).
pub fn tensor_method(x: &Tensor, name: &str, args: Args) -> Result<Value> {
    let (base, in_place) = match name.strip_suffix('_') {
        Some(b) => (b, true),
        None => (name, false),
    };
    let xv = Value::Tensor(x.clone());
    let run = || -> Result<Value> {
        let (op, others) = if let Some(op) = binary_op(base) {
            let has_alpha = matches!(op, ElementOp::Add(_) | ElementOp::Sub(_));
            let b = bind(Method, name, args)?;
            let y = b.req("other")?;
            (
                with_options(op, &b, has_alpha)?,
                vec![value_operand(y, &xv)?],
            )
        } else if let Some(op) = unary_op(base) {
            bind(Method, name, args)?;
            (op, vec![])
        } else {
            match base {
                "square" if !in_place => {
                    bind(Method, name, args)?;
                    return pow(Operand::Tensor(x.clone()), Operand::Number(Scalar::Int(2)))
                        .map(Value::Tensor);
                }
                "square" => {
                    bind(Method, name, args)?;
                    (ElementOp::Square, vec![])
                }
                "pow" => {
                    let b = bind(Method, name, args)?;
                    let e = b.req("exponent")?;
                    if !in_place {
                        return pow(Operand::Tensor(x.clone()), value_operand(e, &xv)?)
                            .map(Value::Tensor);
                    }
                    (ElementOp::Pow, vec![value_operand(e, &xv)?])
                }
                "clamp" | "clip" => {
                    let b = bind(Method, name, args)?;
                    clamp_operands(&b, &xv)?
                }
                "where" => {
                    let b = bind(Method, name, args)?;
                    let c = b.req("condition")?;
                    let y = b.req("other")?;
                    let inputs = [
                        value_operand(c, &xv)?,
                        Operand::Tensor(x.clone()),
                        value_operand(y, &xv)?,
                    ];
                    let _temporaries = super::sim_temporaries::where_operands(&inputs)?;
                    return Tensor::elementwise(ElementOp::Where, &inputs).map(Value::Tensor);
                }
                "masked_fill" => {
                    let b = bind(Method, name, args)?;
                    let mask = b.req("mask")?.as_tensor("mask")?;
                    let value = match b.req("value")? {
                        Value::Tensor(t) if t.ndim() == 0 => t.values()?[0],
                        Value::Tensor(t) => {
                            return Err(TensorError::new(
                                ErrorKind::Other,
                                format!(
                                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                                    t.ndim()
                                ),
                            ));
                        }
                        v => v.as_scalar("value")?,
                    };
                    if !in_place {
                        return x.masked_fill(mask, value).map(Value::Tensor);
                    }
                    x.masked_fill_(mask, value)?;
                    return Ok(Value::Tensor(x.clone()));
                }
                "equal" => {
                    let b = bind(Method, name, args)?;
                    return equal(x, b.req("other")?.as_tensor("other")?).map(Value::Bool);
                }
                "allclose" => {
                    let b = bind(Method, name, args)?;
                    return allclose(x, &b).map(Value::Bool);
                }
                _ => {
                    return Err(type_error(format!(
                        "'Tensor' object has no attribute '{name}'"
                    )));
                }
            }
        };
        if in_place {
            x.elementwise_(op, &others)?;
            return Ok(Value::Tensor(x.clone()));
        }
        let mut inputs = vec![Operand::Tensor(x.clone())];
        inputs.extend(others);
        Tensor::elementwise(op, &inputs).map(Value::Tensor)
    };
    run()
}

/// `torch.testing.assert_close(actual, expected, rtol=, atol=)` for tensors: shape and dtype
/// must agree, and every |actual - expected| <= atol + rtol * |expected| (PyTorch's default
/// tolerances per dtype; NaNs never close). Fails with kind `assertion_failed`.
pub fn assert_close(args: Args) -> Result<Value> {
    let b = args.bind(&["actual", "expected", "rtol", "atol"])?;
    let a = b.req("actual")?.as_tensor("actual")?;
    let e = b.req("expected")?.as_tensor("expected")?;
    let fail = |m: String| Err(TensorError::new(ErrorKind::AssertionFailed, m));
    if a.sizes() != e.sizes() {
        let size = |t: &Tensor| super::pyfmt::repr_of(&Value::Size(t.sizes().into()));
        return fail(format!(
            "The values for attribute 'shape' do not match: {} != {}.",
            size(a),
            size(e)
        ));
    }
    if a.dtype() != e.dtype() {
        return fail(format!(
            "The values for attribute 'dtype' do not match: torch.{} != torch.{}.",
            a.dtype().torch_name(),
            e.dtype().torch_name()
        ));
    }
    let (rtol, atol) = match a.dtype() {
        crate::DType::F16 => (1e-3, 1e-5),
        crate::DType::BF16 => (1.6e-2, 1e-5),
        crate::DType::F32 => (1.3e-6, 1e-5),
        crate::DType::F64 => (1e-7, 1e-7),
        _ => (0.0, 0.0),
    };
    let rtol = b
        .opt("rtol")
        .map_or(Ok(rtol), |v| v.as_scalar("rtol").map(|s| s.to_f64()))?;
    let atol = b
        .opt("atol")
        .map_or(Ok(atol), |v| v.as_scalar("atol").map(|s| s.to_f64()))?;
    super::sim_temporaries::assert_close(a, rtol, atol)?;
    let (av, ev) = (a.values()?, e.values()?);
    let mismatched = av
        .iter()
        .zip(&ev)
        .filter(|(x, y)| {
            let (x, y) = (x.to_f64(), y.to_f64());
            !(x == y || (x - y).abs() <= atol + rtol * y.abs())
        })
        .count();
    if mismatched > 0 {
        return fail(format!(
            "Tensor-likes are not close!\n\nMismatched elements: {mismatched} / {}",
            av.len()
        ));
    }
    Ok(Value::None)
}
