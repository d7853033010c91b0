//! The interpreter: runs a parsed program statement by statement on the CPU backend.

use super::args::Args;
use super::ast::{BinOp, Expr, ExprKind, IndexItem as AstIndex, Program, StmtKind, UnaryOp};
use super::value::{Value, type_error};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::MemoryFormat;
use crate::layout::index::IndexItem;
use crate::scalar::Scalar;
use crate::storage::Device;
use crate::tensor::{SetValue, Tensor};

/// A failed statement: its 0-based index and the error.
#[derive(Debug, Clone)]
pub struct StatementError {
    pub statement: usize,
    pub error: TensorError,
}

/// The program's namespace: names in Python's dict order (a rebinding keeps its place,
/// `del` removes, a later binding appends).
pub struct Env {
    vars: Vec<(String, Value)>,
    /// Where constructors (`torch.zeros`, ...) put their tensors.
    device: Device,
    /// Statements run to completion.
    done: usize,
    /// What `print(...)` wrote.
    output: String,
}

impl Default for Env {
    fn default() -> Env {
        Env::on(Device::Cpu)
    }
}

impl Env {
    /// An empty namespace whose constructors make tensors on `device`.
    pub fn on(device: Device) -> Env {
        Env {
            vars: Vec::new(),
            device,
            done: 0,
            output: String::new(),
        }
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// What the program's `print(...)` calls wrote, as Python would print it.
    pub fn output(&self) -> &str {
        &self.output
    }

    /// How many statements ran to completion.
    pub fn statements_run(&self) -> usize {
        self.done
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    fn set(&mut self, name: &str, value: Value) {
        match self.vars.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((name.to_string(), value)),
        }
    }

    fn remove(&mut self, name: &str) -> Result<()> {
        match self.vars.iter().position(|(n, _)| n == name) {
            Some(i) => {
                self.vars.remove(i);
                Ok(())
            }
            None => Err(name_error(name)),
        }
    }

    /// Live names bound to tensors, in namespace order.
    pub fn tensors(&self) -> impl Iterator<Item = (&str, &Tensor)> {
        self.vars.iter().filter_map(|(n, v)| match v {
            Value::Tensor(t) => Some((n.as_str(), t)),
            _ => None,
        })
    }
}

fn name_error(name: &str) -> TensorError {
    TensorError::new(ErrorKind::Other, format!("name '{name}' is not defined"))
}

/// Runs every statement until one fails, with constructors making tensors on `device`;
/// returns the namespace and the failure, if any.
pub fn run(program: &Program, device: Device) -> (Env, Option<StatementError>) {
    run_observed(program, device, &mut |_, _| {})
}

/// [`run`], calling `after(index, env)` after every statement that ran to completion (the
/// report's `steps` are measured there).
pub fn run_observed(
    program: &Program,
    device: Device,
    after: &mut dyn FnMut(usize, &Env),
) -> (Env, Option<StatementError>) {
    let mut env = Env::on(device);
    for (i, stmt) in program.stmts.iter().enumerate() {
        let outcome = match &stmt.kind {
            StmtKind::Import(_) => Ok(()),
            StmtKind::Assign { target, value } => assign(&mut env, target, value),
            StmtKind::Del(names) => names.iter().try_for_each(|(n, _)| env.remove(n)),
            StmtKind::Expr(e) => eval(&env, e).map(|_| ()),
        };
        if let Err(error) = outcome {
            return (
                env,
                Some(StatementError {
                    statement: i,
                    error,
                }),
            );
        }
        env.done += 1;
        after(i, &env);
    }
    (env, None)
}

fn assign(env: &mut Env, target: &Expr, value: &Expr) -> Result<()> {
    match &target.kind {
        ExprKind::Name(n) => {
            let v = eval(env, value)?;
            env.set(n, v);
            Ok(())
        }
        ExprKind::Subscript { base, items, .. } => {
            let rhs = match eval(env, value)? {
                Value::Tensor(t) => SetValue::Tensor(t),
                other => SetValue::Scalar(other.as_scalar("value")?),
            };
            let base = eval(env, base)?;
            let t = base.as_tensor("indexed object")?;
            let items = index_items(env, items)?;
            t.setitem(&items, &rhs)
        }
        _ => Err(type_error("cannot assign to this expression")),
    }
}

fn eval(env: &Env, e: &Expr) -> Result<Value> {
    Ok(match &e.kind {
        ExprKind::Int(i) => Value::Int(*i),
        ExprKind::Float(f) => Value::Float(*f),
        ExprKind::Bool(b) => Value::Bool(*b),
        ExprKind::NoneLit => Value::None,
        ExprKind::Ellipsis => Value::Ellipsis,
        ExprKind::Str(s) => Value::Str(s.clone()),
        ExprKind::Name(n) if n == "torch" && env.get(n).is_none() => Value::Torch,
        ExprKind::Name(n) => env.get(n).cloned().ok_or_else(|| name_error(n))?,
        ExprKind::Tuple(items) => Value::Tuple(eval_all(env, items)?),
        ExprKind::List(items) => Value::List(eval_all(env, items)?),
        ExprKind::Unary { op, operand } => unary(*op, eval(env, operand)?)?,
        ExprKind::Binary { op, lhs, rhs } => binary(*op, eval(env, lhs)?, eval(env, rhs)?)?,
        ExprKind::Attr { base, name } => attribute(eval(env, base)?, name)?,
        ExprKind::Subscript { base, items, .. } => match eval(env, base)? {
            Value::Tensor(t) => Value::Tensor(t.index(&index_items(env, items)?)?),
            Value::Tuple(v) | Value::List(v) => sequence_item(&v, env, items)?,
            other => {
                return Err(type_error(format!(
                    "'{}' object is not subscriptable",
                    other.type_name()
                )));
            }
        },
        ExprKind::Call { func, args, kwargs } => {
            let positional = eval_all(env, args)?;
            let kwargs = kwargs
                .iter()
                .map(|(k, v)| Ok((k.clone(), eval(env, v)?)))
                .collect::<Result<Vec<_>>>()?;
            let ExprKind::Attr { base, name } = &func.kind else {
                return Err(type_error(format!("'{func}' is not callable here")));
            };
            let args = Args {
                name: name.clone(),
                positional,
                kwargs,
            };
            match eval(env, base)? {
                Value::Torch => super::ops::torch_function(name, args, env.device)?,
                Value::Tensor(t) => super::ops::tensor_method(&t, name, args)?,
                other => {
                    return Err(type_error(format!(
                        "'{}' object has no attribute '{name}'",
                        other.type_name()
                    )));
                }
            }
        }
    })
}

fn eval_all(env: &Env, items: &[Expr]) -> Result<Vec<Value>> {
    items.iter().map(|e| eval(env, e)).collect()
}

fn sequence_item(v: &[Value], env: &Env, items: &[AstIndex]) -> Result<Value> {
    let [AstIndex::Expr(e)] = items else {
        return Err(type_error("tuple indices must be integers"));
    };
    let i = eval(env, e)?.as_int("index")?;
    let n = v.len() as i64;
    let k = if i < 0 { i + n } else { i };
    v.get(k as usize)
        .filter(|_| (0..n).contains(&k))
        .cloned()
        .ok_or_else(|| TensorError::new(ErrorKind::IndexOutOfRange, "tuple index out of range"))
}

fn index_items(env: &Env, items: &[AstIndex]) -> Result<Vec<IndexItem>> {
    let bound = |e: &Option<Expr>| -> Result<Option<i64>> {
        match e {
            None => Ok(None),
            Some(e) => match eval(env, e)? {
                Value::None => Ok(None),
                v => v.as_int("slice index").map(Some),
            },
        }
    };
    items
        .iter()
        .map(|item| match item {
            AstIndex::Slice { start, stop, step } => Ok(IndexItem::Slice {
                start: bound(start)?,
                stop: bound(stop)?,
                step: bound(step)?,
            }),
            AstIndex::Expr(e) => match eval(env, e)? {
                Value::Int(i) => Ok(IndexItem::Int(i)),
                Value::None => Ok(IndexItem::NewAxis),
                Value::Ellipsis => Ok(IndexItem::Ellipsis),
                Value::Tensor(t) if t.ndim() == 0 && !t.dtype().is_floating() && t.dtype() != DType::Bool => {
                    Ok(IndexItem::Int(t.values()?[0].to_int()))
                }
                other => Err(TensorError::new(
                    ErrorKind::IndexOutOfRange,
                    format!(
                        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
                        other.type_name()
                    ),
                )),
            },
        })
        .collect()
}

fn attribute(base: Value, name: &str) -> Result<Value> {
    match base {
        Value::Torch => {
            if let Some(d) = DType::from_torch_attr(name) {
                return Ok(Value::DType(d));
            }
            if let Some(m) = MemoryFormat::from_torch_attr(name) {
                return Ok(Value::MemoryFormat(m));
            }
            Err(type_error(format!(
                "module 'torch' has no attribute '{name}'"
            )))
        }
        Value::Tensor(t) => Ok(match name {
            "T" => Value::Tensor(t.numpy_t()),
            "mT" => Value::Tensor(t.mt()?),
            "shape" => Value::Tuple(t.sizes().iter().map(|&s| Value::Int(s)).collect()),
            "ndim" => Value::Int(t.ndim() as i64),
            "dtype" => Value::DType(t.dtype()),
            "itemsize" => Value::Int(t.itemsize() as i64),
            _ => {
                return Err(type_error(format!(
                    "'Tensor' object has no attribute '{name}'"
                )));
            }
        }),
        other => Err(type_error(format!(
            "'{}' object has no attribute '{name}'",
            other.type_name()
        ))),
    }
}

fn unary(op: UnaryOp, v: Value) -> Result<Value> {
    match (op, v) {
        (UnaryOp::Pos, v @ (Value::Int(_) | Value::Float(_))) => Ok(v),
        (UnaryOp::Neg, Value::Int(i)) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| type_error("integer overflow")),
        (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
        (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-(b as i64))),
        (_, other) => Err(type_error(format!(
            "bad operand type for unary {}: '{}'",
            op.symbol(),
            other.type_name()
        ))),
    }
}

/// Python arithmetic on numbers (ints stay ints except for `/`).
fn binary(op: BinOp, a: Value, b: Value) -> Result<Value> {
    let num = |v: &Value| match v {
        Value::Int(i) => Some(Scalar::Int(*i)),
        Value::Bool(b) => Some(Scalar::Int(*b as i64)),
        Value::Float(f) => Some(Scalar::Float(*f)),
        _ => None,
    };
    let (Some(x), Some(y)) = (num(&a), num(&b)) else {
        return Err(type_error(format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        )));
    };
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
    }))
}
