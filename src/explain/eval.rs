//! The interpreter: runs a parsed program statement by statement on the CPU backend.

use std::cell::RefCell;
use std::rc::Rc;

use super::args::Args;
use super::ast::{
    BoolOp, CmpOp, Expr, ExprKind, IndexItem as AstIndex, Program, StmtKind, UnaryOp,
};
use super::pyops;
use super::value::{Lambda, Value, type_error, unsupported};
use crate::bench::rng::SplitMix64;
use crate::error::{ErrorKind, Result, TensorError};
use crate::storage::Device;
use crate::tensor::Tensor;
use crate::tensor::overlap_policy::{Policy, with_policy};

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
    output: RefCell<String>,
    /// The generator behind `torch.rand/randn/randint` (`torch.manual_seed` reseeds it).
    rng: RefCell<SplitMix64>,
    /// Warnings about statements that ran.
    warnings: RefCell<Vec<Warning>>,
    /// Lambda calls in progress (Python's recursion limit, far below the stack's).
    depth: std::cell::Cell<usize>,
}

/// The deepest nesting of lambda calls (each level costs the interpreter's stack).
const MAX_CALL_DEPTH: usize = 48;

/// A statement that ran but whose result a reader should know more about.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    pub statement: usize,
    pub kind: &'static str,
    pub message: String,
}

/// The seed of the random generator before any `torch.manual_seed` (PyTorch's default seed).
const DEFAULT_SEED: u64 = 67280421310721;

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
            output: RefCell::new(String::new()),
            rng: RefCell::new(SplitMix64(DEFAULT_SEED)),
            warnings: RefCell::new(Vec::new()),
            depth: std::cell::Cell::new(0),
        }
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// What the program's `print(...)` calls wrote, as Python would print it.
    pub fn output(&self) -> String {
        self.output.borrow().clone()
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

    pub(super) fn write_output(&self, text: &str) {
        self.output.borrow_mut().push_str(text);
    }

    /// The warnings recorded so far, in statement order.
    pub fn warnings(&self) -> Vec<Warning> {
        self.warnings.borrow().clone()
    }

    /// Records a warning about the statement being run.
    pub(super) fn warn(&self, kind: &'static str, message: impl Into<String>) {
        self.warnings.borrow_mut().push(Warning {
            statement: self.done,
            kind,
            message: message.into(),
        });
    }

    pub(super) fn rng(&self) -> std::cell::RefMut<'_, SplitMix64> {
        self.rng.borrow_mut()
    }
}

fn name_error(name: &str) -> TensorError {
    TensorError::new(ErrorKind::Other, format!("name '{name}' is not defined"))
}

/// Runs every statement until one fails, with constructors making tensors on `device`;
/// returns the namespace and the failure, if any.
pub fn run(program: &Program, device: Device) -> (Env, Option<StatementError>) {
    run_observed(program, device, false, &mut |_, _| {})
}

/// [`run`], calling `after(index, env)` after every statement that ran to completion (the
/// report's `steps` are measured there). Writes whose operands overlap where PyTorch does not
/// check run in row-major order with an `order_dependent_overlap` warning, or, with
/// `strict_overlap`, are refused (see [`crate::tensor::overlap_policy`]).
pub fn run_observed(
    program: &Program,
    device: Device,
    strict_overlap: bool,
    after: &mut dyn FnMut(usize, &Env),
) -> (Env, Option<StatementError>) {
    let policy = if strict_overlap {
        Policy::Refuse
    } else {
        Policy::Sequential
    };
    let mut env = Env::on(device);
    for (i, stmt) in program.stmts.iter().enumerate() {
        let ((outcome, notes), on_host) = crate::tensor::host_fallback::recording(|| {
            with_policy(policy, || run_statement(&mut env, &stmt.kind))
        });
        for note in notes {
            env.warn("order_dependent_overlap", note);
        }
        for what in on_host {
            env.warn("host_fallback", host_fallback_message(&what));
        }
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

/// A `host_fallback` warning: what a statement over GPU tensors ran on the host.
fn host_fallback_message(what: &str) -> String {
    format!(
        "{what} ran on the host: stridekit has no GPU kernel for it yet (operands downloaded, result uploaded)"
    )
}

fn run_statement(env: &mut Env, stmt: &StmtKind) -> Result<()> {
    match stmt {
        StmtKind::Import(_) => Ok(()),
        StmtKind::Assign { target, value } => {
            let v = Scope::global(env).eval(value)?;
            assign(env, target, v)
        }
        StmtKind::Del(names) => names.iter().try_for_each(|(n, _)| env.remove(n)),
        StmtKind::Expr(e) => Scope::global(env).eval(e).map(|_| ()),
        StmtKind::Assert { test, message } => check_assert(&Scope::global(env), test, message),
    }
}

/// `assert test, message`: a false test stops the program with the message's `str()`.
fn check_assert(scope: &Scope, test: &Expr, message: &Option<Expr>) -> Result<()> {
    if pyops::truthy(&scope.eval(test)?)? {
        return Ok(());
    }
    let text = match message {
        Some(m) => super::pyfmt::str_of(&scope.eval(m)?),
        None => String::new(),
    };
    Err(TensorError::new(ErrorKind::AssertionFailed, text))
}

/// Binds `value` to `target`: a name, a subscript (an in-place write), or a tuple/list of
/// targets (unpacking, left to right).
fn assign(env: &mut Env, target: &Expr, value: Value) -> Result<()> {
    match &target.kind {
        ExprKind::Name(n) => {
            env.set(n, value);
            Ok(())
        }
        ExprKind::Subscript { base, items, .. } => {
            let scope = Scope::global(env);
            let base = scope.eval(base)?;
            if let Value::TypedStorage(s, d) = &base {
                return super::attrs::typed_storage_set(s, *d, scope.storage_index(items)?, &value);
            }
            let t = base.as_tensor("indexed object")?;
            let items = scope.index_items(items)?;
            super::indexing::setitem(t, &items, value)
        }
        ExprKind::Tuple(targets) | ExprKind::List(targets) => {
            let values = pyops::unpack(&value, targets.len())?;
            targets
                .iter()
                .zip(values)
                .try_for_each(|(t, v)| assign(env, t, v))
        }
        _ => Err(type_error("cannot assign to this expression")),
    }
}

/// Names visible to an expression: a lambda's parameters over the program's globals.
pub(super) struct Scope<'a> {
    pub env: &'a Env,
    locals: Vec<(String, Value)>,
}

/// Python's built-in functions an `explain` program may call.
const BUILTINS: &[&str] = &[
    "print", "len", "int", "float", "bool", "abs", "str", "tuple", "list", "min", "max", "repr",
];

impl<'a> Scope<'a> {
    fn global(env: &'a Env) -> Scope<'a> {
        Scope {
            env,
            locals: Vec::new(),
        }
    }

    fn lookup(&self, name: &str) -> Option<Value> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .or_else(|| self.env.get(name).cloned())
    }

    pub fn eval(&self, e: &Expr) -> Result<Value> {
        Ok(match &e.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Float(f) => Value::Float(*f),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::NoneLit => Value::None,
            ExprKind::Ellipsis => Value::Ellipsis,
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Name(n) => match self.lookup(n) {
                Some(v) => v,
                None if n == "torch" => Value::Torch,
                None => return Err(name_error(n)),
            },
            ExprKind::Tuple(items) => Value::Tuple(self.eval_all(items)?),
            ExprKind::List(items) => Value::List(self.eval_all(items)?),
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                match op {
                    UnaryOp::Not => Value::Bool(!pyops::truthy(&v)?),
                    _ => super::operators::unary(*op, v)?,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                super::operators::binary(*op, self.eval(lhs)?, self.eval(rhs)?)?
            }
            ExprKind::Compare { first, rest } => self.compare(first, rest)?,
            ExprKind::BoolOp { op, values } => {
                let mut last = Value::None;
                for (i, e) in values.iter().enumerate() {
                    last = self.eval(e)?;
                    let t = pyops::truthy(&last)?;
                    let stop = match op {
                        BoolOp::And => !t,
                        BoolOp::Or => t,
                    };
                    if stop || i + 1 == values.len() {
                        break;
                    }
                }
                last
            }
            ExprKind::Lambda { params, body } => Value::Lambda(Rc::new(Lambda {
                params: params.clone(),
                body: (**body).clone(),
            })),
            ExprKind::Attr { base, name } => super::attrs::attribute(self.eval(base)?, name)?,
            ExprKind::Subscript { base, items, .. } => match self.eval(base)? {
                Value::Tensor(t) => {
                    Value::Tensor(super::indexing::getitem(&t, &self.index_items(items)?)?)
                }
                seq @ (Value::Tuple(_)
                | Value::List(_)
                | Value::Size(_)
                | Value::NamedTuple(..)) => self.sequence_item(&seq, items)?,
                Value::TypedStorage(s, d) => {
                    super::attrs::typed_storage_get(&s, d, self.storage_index(items)?)?
                }
                other => {
                    return Err(type_error(format!(
                        "'{}' object is not subscriptable",
                        other.type_name()
                    )));
                }
            },
            ExprKind::Call { func, args, kwargs } => self.call(func, args, kwargs)?,
        })
    }

    fn eval_all(&self, items: &[Expr]) -> Result<Vec<Value>> {
        items.iter().map(|e| self.eval(e)).collect()
    }

    /// A chained comparison: each link must hold, each middle operand evaluated once.
    fn compare(&self, first: &Expr, rest: &[(CmpOp, Expr)]) -> Result<Value> {
        let mut left = self.eval(first)?;
        let mut result = Value::Bool(true);
        for (i, (op, e)) in rest.iter().enumerate() {
            let right = self.eval(e)?;
            result = super::operators::compare(*op, &left, &right)?;
            if i + 1 < rest.len() && !pyops::truthy(&result)? {
                return Ok(result);
            }
            left = right;
        }
        Ok(result)
    }

    fn call(&self, func: &Expr, args: &[Expr], kwargs: &[(String, Expr)]) -> Result<Value> {
        let positional = self.eval_all(args)?;
        let mut kw = Vec::new();
        for (k, v) in kwargs {
            let v = self.eval(v)?;
            if k == "requires_grad" {
                if pyops::truthy(&v)? {
                    return Err(unsupported("requires_grad=True"));
                }
                continue; // requires_grad=False is what every tensor here already is
            }
            kw.push((k.clone(), v));
        }
        let named = |name: &str| Args {
            name: name.to_string(),
            positional: positional.clone(),
            kwargs: kw.clone(),
        };
        match &func.kind {
            ExprKind::Name(n) => match self.lookup(n) {
                Some(Value::Lambda(l)) => self.call_lambda(&l, positional, &kw),
                Some(other) => Err(type_error(format!(
                    "'{}' object is not callable",
                    other.type_name()
                ))),
                None if BUILTINS.contains(&n.as_str()) => {
                    super::builtins::call(self.env, n, named(n))
                }
                None => Err(name_error(n)),
            },
            ExprKind::Attr { base, name } => match self.eval(base)? {
                Value::Torch => super::ops::torch_function(name, named(name), self.env),
                Value::Tensor(t) => super::ops::tensor_method(&t, name, named(name)),
                Value::Storage(s) => super::attrs::storage_method(&s, name, named(name)),
                Value::TypedStorage(s, d) => {
                    super::attrs::typed_storage_method(&s, d, name, named(name))
                }
                Value::Testing if name == "assert_close" => {
                    super::arith_ops::assert_close(named(name))
                }
                other => Err(type_error(format!(
                    "'{}' object has no attribute '{name}'",
                    other.type_name()
                ))),
            },
            _ => match self.eval(func)? {
                Value::Lambda(l) => self.call_lambda(&l, positional, &kw),
                other => Err(type_error(format!(
                    "'{}' object is not callable",
                    other.type_name()
                ))),
            },
        }
    }

    fn call_lambda(
        &self,
        l: &Lambda,
        args: Vec<Value>,
        kwargs: &[(String, Value)],
    ) -> Result<Value> {
        if !kwargs.is_empty() || args.len() != l.params.len() {
            return Err(type_error(format!(
                "<lambda>() takes {} positional argument(s) but {} were given",
                l.params.len(),
                args.len() + kwargs.len()
            )));
        }
        let depth = self.env.depth.get();
        if depth >= MAX_CALL_DEPTH {
            return Err(TensorError::new(
                ErrorKind::Other,
                "maximum recursion depth exceeded",
            ));
        }
        let mut locals = self.locals.clone();
        locals.extend(l.params.iter().cloned().zip(args));
        self.env.depth.set(depth + 1);
        let result = Scope {
            env: self.env,
            locals,
        }
        .eval(&l.body);
        self.env.depth.set(depth);
        result
    }

    fn sequence_item(&self, seq: &Value, items: &[AstIndex]) -> Result<Value> {
        match items {
            [AstIndex::Expr(e)] => match self.eval(e)? {
                v @ (Value::Int(_) | Value::Bool(_)) => pyops::item_at(seq, v.as_int("index")?),
                other => Err(type_error(format!(
                    "tuple indices must be integers or slices, not {}",
                    other.type_name()
                ))),
            },
            [AstIndex::Slice { start, stop, step }] => pyops::slice(
                seq,
                self.bound(start)?,
                self.bound(stop)?,
                self.bound(step)?,
            ),
            _ => Err(type_error(
                "tuple indices must be integers or slices, not tuple",
            )),
        }
    }

    /// The one integer index of `storage[i]`.
    fn storage_index(&self, items: &[AstIndex]) -> Result<i64> {
        match items {
            [AstIndex::Expr(e)] => self.eval(e)?.as_int("index"),
            _ => Err(type_error("storage indices must be integers")),
        }
    }

    fn bound(&self, e: &Option<Expr>) -> Result<Option<i64>> {
        match e {
            None => Ok(None),
            Some(e) => match self.eval(e)? {
                Value::None => Ok(None),
                v => v.as_int("slice index").map(Some),
            },
        }
    }

    fn index_items(&self, items: &[AstIndex]) -> Result<Vec<crate::tensor::AdvancedItem>> {
        items
            .iter()
            .map(|item| match item {
                AstIndex::Slice { start, stop, step } => Ok(crate::tensor::AdvancedItem::Basic(
                    crate::layout::index::IndexItem::Slice {
                        start: self.bound(start)?,
                        stop: self.bound(stop)?,
                        step: self.bound(step)?,
                    },
                )),
                AstIndex::Expr(e) => super::indexing::index_item(self.eval(e)?),
            })
            .collect()
    }
}
