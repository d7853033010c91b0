//! Python's operators on an `explain` program's values: on tensors (and numbers with
//! tensors) they are PyTorch's element-wise ops, on everything else Python's own.

use super::ast::{BinOp, CmpOp, UnaryOp};
use super::pyops;
use super::value::{Value, type_error};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use crate::tensor::arith::ElementOp;
use crate::tensor::elementwise::{Operand, negative_int_power};

/// A value as an element-wise operand: a tensor or a Python number.
pub fn operand(v: &Value, op: &str, other: &Value) -> Result<Operand> {
    match v {
        Value::Tensor(t) => Ok(Operand::Tensor(t.clone())),
        v => match pyops::number(v) {
            Some(_) => Ok(Operand::Number(v.as_scalar("operand")?)),
            None => Err(type_error(format!(
                "unsupported operand type(s) for {op}: '{}' and '{}'",
                v.type_name(),
                other.type_name()
            ))),
        },
    }
}

fn tensor_value(t: Tensor) -> Value {
    Value::Tensor(t)
}

/// `-x`, `+x`, `~x`.
pub fn unary(op: UnaryOp, v: Value) -> Result<Value> {
    match (op, v) {
        (UnaryOp::Neg, Value::Tensor(t)) => {
            Tensor::elementwise(ElementOp::Neg, &[Operand::Tensor(t)]).map(tensor_value)
        }
        (UnaryOp::Invert, Value::Tensor(t)) => {
            Tensor::elementwise(ElementOp::Invert, &[Operand::Tensor(t)]).map(tensor_value)
        }
        (UnaryOp::Pos, v @ (Value::Tensor(_) | Value::Int(_) | Value::Float(_))) => Ok(v),
        (UnaryOp::Pos, Value::Bool(b)) => Ok(Value::Int(b as i64)),
        (UnaryOp::Neg, Value::Int(i)) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| type_error("integer overflow")),
        (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
        (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-(b as i64))),
        (UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
        (UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!(b as i64))),
        (_, other) => Err(type_error(format!(
            "bad operand type for unary {}: '{}'",
            op.symbol().trim(),
            other.type_name()
        ))),
    }
}

/// `a op b`.
pub fn binary(op: BinOp, a: Value, b: Value) -> Result<Value> {
    if !matches!(a, Value::Tensor(_)) && !matches!(b, Value::Tensor(_)) {
        return pyops::binary(op, &a, &b);
    }
    if op == BinOp::MatMul {
        return match (&a, &b) {
            (Value::Tensor(x), Value::Tensor(y)) => {
                super::linalg_ops::matmul(&Default::default(), x, y).map(tensor_value)
            }
            _ => Err(type_error(format!(
                "unsupported operand type(s) for @: '{}' and '{}'",
                a.type_name(),
                b.type_name()
            ))),
        };
    }
    let (x, y) = (operand(&a, op.symbol(), &b)?, operand(&b, op.symbol(), &a)?);
    let element = match op {
        BinOp::Add => ElementOp::Add(Scalar::Int(1)),
        BinOp::Sub => ElementOp::Sub(Scalar::Int(1)),
        BinOp::Mul => ElementOp::Mul,
        BinOp::Div => ElementOp::Div,
        BinOp::FloorDiv => ElementOp::FloorDiv,
        BinOp::Mod => ElementOp::Remainder,
        BinOp::BitAnd => ElementOp::BitAnd,
        BinOp::BitOr => ElementOp::BitOr,
        BinOp::BitXor => ElementOp::BitXor,
        BinOp::Pow => return pow(x, y).map(tensor_value),
        BinOp::MatMul => return Err(type_error("unsupported operand type(s) for @")),
    };
    Tensor::elementwise(element, &[x, y]).map(tensor_value)
}

/// `base ** exponent` as `torch.pow`: an integer base may not take a negative number
/// exponent, and `x ** 2` is computed as a square.
pub fn pow(base: Operand, exponent: Operand) -> Result<Tensor> {
    let inputs = [base.clone(), exponent.clone()];
    if let (Operand::Tensor(t), Operand::Number(e)) = (&base, &exponent) {
        let dtype = Tensor::result_dtype(&inputs);
        if !dtype.is_floating()
            && e.category() != crate::dtype::Category::Floating
            && e.to_int() < 0
        {
            return Err(negative_int_power());
        }
        if e.to_f64() == 2.0 {
            return Tensor::elementwise_as(
                ElementOp::Square,
                &[Operand::Tensor(t.clone())],
                dtype,
                dtype,
            );
        }
    }
    Tensor::elementwise(ElementOp::Pow, &inputs)
}

/// `a op b` for a comparison operator.
pub fn compare(op: CmpOp, a: &Value, b: &Value) -> Result<Value> {
    let element = match op {
        CmpOp::Is => return Ok(Value::Bool(pyops::is(a, b))),
        CmpOp::IsNot => return Ok(Value::Bool(!pyops::is(a, b))),
        CmpOp::In | CmpOp::NotIn => {
            let found = match (a, b) {
                (Value::Str(needle), Value::Str(hay)) => hay.contains(needle.as_str()),
                (_, Value::Str(_)) => {
                    return Err(type_error(format!(
                        "'in <string>' requires string as left operand, not {}",
                        a.type_name()
                    )));
                }
                (_, Value::Dict(d)) => pyops::dict_get(&d.borrow(), a)?.is_some(),
                (_, Value::Range(..) | Value::Iter(_)) => {
                    let mut found = false;
                    for item in &pyops::iterate(b)? {
                        if pyops::equal(a, item)? {
                            found = true;
                            break;
                        }
                    }
                    found
                }
                _ => {
                    let items = pyops::items(b).ok_or_else(|| {
                        type_error(format!(
                            "argument of type '{}' is not iterable",
                            b.type_name()
                        ))
                    })?;
                    let mut found = false;
                    for item in &items {
                        if pyops::is(a, item) || pyops::equal(a, item)? {
                            found = true;
                            break;
                        }
                    }
                    found
                }
            };
            return Ok(Value::Bool(found == (op == CmpOp::In)));
        }
        CmpOp::Eq => ElementOp::Eq,
        CmpOp::Ne => ElementOp::Ne,
        CmpOp::Lt => ElementOp::Lt,
        CmpOp::Le => ElementOp::Le,
        CmpOp::Gt => ElementOp::Gt,
        CmpOp::Ge => ElementOp::Ge,
    };
    let tensor_side = matches!(a, Value::Tensor(_)) || matches!(b, Value::Tensor(_));
    let numeric = |v: &Value| matches!(v, Value::Tensor(_)) || pyops::number(v).is_some();
    if tensor_side && numeric(a) && numeric(b) {
        let (x, y) = (operand(a, op.symbol(), b)?, operand(b, op.symbol(), a)?);
        return Tensor::elementwise(element, &[x, y]).map(tensor_value);
    }
    use std::cmp::Ordering::*;
    Ok(Value::Bool(match op {
        // A tensor compared with a non-number (None, a string) is unequal, as in Python.
        CmpOp::Eq => !tensor_side && pyops::equal(a, b)?,
        CmpOp::Ne => tensor_side || !pyops::equal(a, b)?,
        _ if tensor_side => {
            return Err(type_error(format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            )));
        }
        CmpOp::Lt => pyops::order(a, b, op.symbol())? == Some(Less),
        CmpOp::Le => matches!(pyops::order(a, b, op.symbol())?, Some(Less | Equal)),
        CmpOp::Gt => pyops::order(a, b, op.symbol())? == Some(Greater),
        _ => matches!(pyops::order(a, b, op.symbol())?, Some(Greater | Equal)),
    }))
}
