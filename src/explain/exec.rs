//! Statements: simple ones, blocks (`if`, `for`, `while`, `try`), `def` and calls of the
//! functions it makes, `raise`, and the exceptions that travel between them.
//!
//! An error becomes an [`Exc`] where it leaves the statement that failed: the Python class
//! it is caught as (see [`super::exceptions`]) and where that statement starts. An exception
//! that leaves a function call travels through the calling expression as its
//! [`TensorError`] and is kept in [`Env::pending`] until the calling statement takes it back,
//! so that class and place survive the trip.

use std::cell::RefCell;
use std::rc::Rc;

use super::ast::Program;
use super::ast::{Expr, ExprKind, Handler, Span, Stmt, StmtKind};
use super::eval::{Env, Scope, StatementError};
use super::exceptions::{self, Exc};
use super::pyops;
use super::value::{Exception, Function, Value, type_error};
use crate::error::{ErrorKind, Result, TensorError};
use crate::storage::Device;
use crate::tensor::overlap_policy::{Policy, with_policy};

/// How a statement ended when it did not raise.
#[derive(Debug)]
pub enum Flow {
    Next,
    Break,
    Continue,
    Return(Value),
}

/// Runs every statement until one fails, with constructors making tensors on `device`,
/// and returns the namespace and the failure, if any; calls `after(line, env)` after every
/// step (each simple statement of the program's own code that ran to completion, at the top
/// level or inside `if`/`for`/`while`/
/// `try` blocks; not the statements inside function bodies, which belong to the step of the
/// statement that called the function; see `super::steps`). Writes whose operands overlap
/// where PyTorch does not check run in row-major order with an `order_dependent_overlap`
/// warning, or, with `strict_overlap`, are refused (see [`crate::tensor::overlap_policy`]).
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
    let env = Env::on(device);
    env.call_def.set(Some(call_function));
    for (i, stmt) in program.stmts.iter().enumerate() {
        env.statement.set(i);
        let outcome = run_top(&env, stmt, policy, after);
        if let Err(exc) = outcome {
            return (
                env,
                Some(StatementError {
                    statement: i,
                    at: exc.at,
                    error: exc.error,
                }),
            );
        }
        env.done.set(i + 1);
        // Between top-level statements no temporary of the program is alive (a loop's
        // iterable, say), so only the names can still reach a tensor.
        env.prune_autograd();
    }
    (env, None)
}

/// Runs one top-level statement: its steps are observed, its overlap notes become warnings.
pub fn run_top(
    env: &Env,
    stmt: &Stmt,
    policy: Policy,
    after: &mut dyn FnMut(usize, &Env),
) -> Result<(), Exc> {
    let scope = Scope::global(env);
    let mut run = Runner {
        env,
        policy,
        after: Some(after),
    };
    run.stmt(&scope, stmt).map(|_| ())
}

/// What is called after every step: the line of the statement that ran, and the namespace.
type Observer<'o> = &'o mut dyn FnMut(usize, &Env);

struct Runner<'e, 'o> {
    env: &'e Env,
    policy: Policy,
    /// Called after every step (see `super::steps`) with the line of the statement that
    /// ran; None inside function bodies.
    after: Option<Observer<'o>>,
}

impl Env {
    /// The exception for `error`, raised by the statement at `at`: the one a function call
    /// left in [`Env::pending`] when it is that error, else a new one of the class PyTorch
    /// raises for it.
    fn exception(&self, error: TensorError, at: Span) -> Exc {
        let traceback = match self.traceback.borrow_mut().take() {
            Some((e, held)) if e == error => held,
            _ => Vec::new(),
        };
        match self.pending.borrow_mut().take() {
            Some(exc) if exc.error == error => exc,
            _ => Exc {
                class: exceptions::class_of(&error),
                error,
                at,
                held: self.with_context(traceback),
            },
        }
    }

    /// `held` and what the exception being handled holds: an exception raised in an
    /// `except` body keeps the handled one alive as its `__context__`.
    fn with_context(&self, mut held: Vec<Value>) -> Vec<Value> {
        if let Some(handled) = self.handling.borrow().last() {
            held.extend(handled.held.iter().cloned());
        }
        held
    }
}

impl Runner<'_, '_> {
    fn block(&mut self, scope: &Scope, body: &[Stmt]) -> Result<Flow, Exc> {
        for stmt in body {
            match self.stmt(scope, stmt)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    /// Evaluates an expression of the statement at `at` (a block's header).
    fn eval(&self, scope: &Scope, e: &Expr, at: Span) -> Result<Value, Exc> {
        scope.eval(e).map_err(|err| self.env.exception(err, at))
    }

    fn stmt(&mut self, scope: &Scope, stmt: &Stmt) -> Result<Flow, Exc> {
        let env = self.env;
        let at = stmt.span;
        if stmt.kind.is_compound() && env.depth.get() == 0 {
            // warnings raised by a block's header name its line
            env.line.set(at.line);
        }
        match &stmt.kind {
            StmtKind::If { branches, orelse } => {
                for (test, body) in branches {
                    let v = self.eval(scope, test, at)?;
                    if pyops::truthy(&v).map_err(|e| env.exception(e, at))? {
                        return self.block(scope, body);
                    }
                }
                self.block(scope, orelse)
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                let iterable = self.eval(scope, iter, at)?;
                let items = pyops::iterate(&iterable).map_err(|e| env.exception(e, at))?;
                for item in items {
                    env.tick().map_err(|e| env.exception(e, at))?;
                    assign(scope, target, item).map_err(|e| env.exception(e, at))?;
                    if let Some(end) = self.iteration(scope, body)? {
                        return Ok(end);
                    }
                }
                self.block(scope, orelse)
            }
            StmtKind::While { test, body, orelse } => {
                loop {
                    env.tick().map_err(|e| env.exception(e, at))?;
                    let v = self.eval(scope, test, at)?;
                    if !pyops::truthy(&v).map_err(|e| env.exception(e, at))? {
                        break;
                    }
                    if let Some(end) = self.iteration(scope, body)? {
                        return Ok(end);
                    }
                }
                self.block(scope, orelse)
            }
            StmtKind::With { context, body } => {
                let on = match self.eval(scope, context, at)? {
                    Value::GradMode(on) => on,
                    other => {
                        let e = type_error(format!(
                            "'{}' object does not support the context manager protocol",
                            other.type_name()
                        ));
                        return Err(env.exception(e, at));
                    }
                };
                let before = env.grad.set_enabled(on);
                let outcome = self.block(scope, body);
                env.grad.set_enabled(before);
                outcome
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                let outcome = match self.block(scope, body) {
                    Err(exc) => self.handle(scope, handlers, exc),
                    Ok(Flow::Next) => self.block(scope, orelse),
                    Ok(flow) => Ok(flow),
                };
                if finalbody.is_empty() {
                    return outcome;
                }
                match self.block(scope, finalbody)? {
                    Flow::Next => outcome,
                    // `return` / `break` / `continue` in `finally` replaces what the try did
                    flow => Ok(flow),
                }
            }
            _ => self.simple(scope, stmt),
        }
    }

    /// One run of a loop's body: how the loop ends when it does (`break` ends it without its
    /// `else`, `return` ends the function), None to go on.
    fn iteration(&mut self, scope: &Scope, body: &[Stmt]) -> Result<Option<Flow>, Exc> {
        Ok(match self.block(scope, body)? {
            Flow::Break => Some(Flow::Next),
            Flow::Next | Flow::Continue => None,
            ret @ Flow::Return(_) => Some(ret),
        })
    }

    /// The first handler that matches `exc` runs (with `as name` bound, and unbound after it,
    /// as Python does); no match re-raises.
    fn handle(&mut self, scope: &Scope, handlers: &[Handler], exc: Exc) -> Result<Flow, Exc> {
        for h in handlers {
            let matches = match &h.types {
                None => !exc.class.starts_with("stridekit."),
                Some(types) => {
                    let v = self.eval(scope, types, h.span)?;
                    catches(&v, exc.class).map_err(|e| self.env.exception(e, h.span))?
                }
            };
            if !matches {
                continue;
            }
            if let Some(name) = &h.name {
                scope.set(name, exception_value(&exc));
            }
            self.env.handling.borrow_mut().push(exc);
            let result = self.block(scope, &h.body);
            self.env.handling.borrow_mut().pop();
            if let Some(name) = &h.name {
                let _ = scope.remove(name);
            }
            return result;
        }
        Err(exc)
    }

    /// A simple statement (or `def`): one step.
    fn simple(&mut self, scope: &Scope, stmt: &Stmt) -> Result<Flow, Exc> {
        let env = self.env;
        let at = stmt.span;
        let outer = env.depth.get() == 0;
        let line_before = env.line.replace(at.line);
        let run = || -> Result<Flow, Exc> {
            env.tick().map_err(|e| env.exception(e, at))?;
            simple_stmt(scope, stmt)
        };
        // Overlap and host-fallback notes are collected per statement of the program's own
        // code; a function's statements add theirs to the statement that called it.
        let outcome = if outer {
            let ((outcome, notes), on_host) =
                crate::tensor::host_fallback::recording(|| with_policy(self.policy, run));
            for note in notes {
                env.warn("order_dependent_overlap", note);
            }
            for what in on_host {
                env.warn("host_fallback", super::eval::host_fallback_message(&what));
            }
            outcome
        } else {
            run()
        };
        if !outer {
            env.line.set(line_before);
        }
        let flow = outcome?;
        if let Some(after) = self.after.as_mut()
            && matches!(flow, Flow::Next)
        {
            after(at.line, env);
        }
        Ok(flow)
    }
}

/// Whether `except types` catches class `class` (`types` is a class or a tuple of them).
fn catches(types: &Value, class: &str) -> Result<bool> {
    match types {
        Value::ExceptionClass(c) => Ok(exceptions::is_subclass(class, c)),
        Value::Tuple(items) => {
            for t in items {
                if catches(t, class)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => Err(type_error(
            "catching classes that do not inherit from BaseException is not allowed",
        )),
    }
}

fn exception_value(exc: &Exc) -> Value {
    Value::Exception(Rc::new(Exception {
        class: exc.class,
        error: exc.error.clone(),
        at: Some(exc.at),
        held: exc.held.clone(),
    }))
}

/// Runs a simple statement.
fn simple_stmt(scope: &Scope, stmt: &Stmt) -> Result<Flow, Exc> {
    let env = scope.env;
    let at = stmt.span;
    let fail = |e: TensorError| env.exception(e, at);
    match &stmt.kind {
        StmtKind::Import(m) => {
            // `import io` binds `io`; `import torch.nn` binds `torch` (always bound)
            if m == "io" {
                env.set("io", super::modules::module("io").expect("known module"));
            }
            Ok(Flow::Next)
        }
        StmtKind::ImportAs(m, alias) => match super::modules::module(m) {
            Some(v) => {
                scope.set(alias, v);
                Ok(Flow::Next)
            }
            None => Err(fail(TensorError::new(
                crate::error::ErrorKind::Unsupported,
                format!(
                    "stridekit explain has no module '{m}' (it has torch, torch.nn, torch.nn.functional, torch.cuda and io)"
                ),
            ))),
        },
        StmtKind::Pass => Ok(Flow::Next),
        StmtKind::Assign { target, value } => {
            let v = scope.eval(value).map_err(fail)?;
            assign(scope, target, v).map_err(fail)?;
            Ok(Flow::Next)
        }
        StmtKind::Del(names) => {
            for (n, _) in names {
                scope.remove(n).map_err(fail)?;
            }
            Ok(Flow::Next)
        }
        StmtKind::Expr(e) => {
            scope.eval(e).map_err(fail)?;
            Ok(Flow::Next)
        }
        StmtKind::Assert { test, message } => {
            check_assert(scope, test, message).map_err(fail)?;
            Ok(Flow::Next)
        }
        StmtKind::Def(def) => {
            let defaults = def
                .params
                .iter()
                .map(|p| p.default.as_ref().map(|d| scope.eval(d)).transpose())
                .collect::<Result<Vec<_>>>()
                .map_err(fail)?;
            scope.set(
                &def.name,
                Value::Function(Rc::new(Function {
                    def: def.clone(),
                    defaults,
                })),
            );
            Ok(Flow::Next)
        }
        StmtKind::Return(v) => {
            let v = match v {
                Some(e) => scope.eval(e).map_err(fail)?,
                None => Value::None,
            };
            Ok(Flow::Return(v))
        }
        StmtKind::Break => Ok(Flow::Break),
        StmtKind::Continue => Ok(Flow::Continue),
        StmtKind::Raise(None) => match env.handling.borrow().last() {
            Some(exc) => Err(exc.clone()),
            None => Err(Exc {
                class: "RuntimeError",
                error: TensorError::new(ErrorKind::Other, "No active exception to reraise"),
                at,
                held: Vec::new(),
            }),
        },
        StmtKind::Raise(Some(e)) => {
            let v = scope.eval(e).map_err(fail)?;
            let mut exc = raised(v, at).map_err(fail)?;
            exc.held = env.with_context(exc.held);
            Err(exc)
        }
        StmtKind::If { .. }
        | StmtKind::For { .. }
        | StmtKind::While { .. }
        | StmtKind::With { .. }
        | StmtKind::Try { .. } => Err(fail(TensorError::new(
            ErrorKind::Other,
            "internal: a block reached the simple-statement runner",
        ))),
    }
}

/// The exception `raise v` raises: a class (instantiated without a message) or an exception
/// (raised again keeps where it was first raised, as its traceback does).
fn raised(v: Value, at: Span) -> Result<Exc> {
    match v {
        Value::ExceptionClass(class) => Ok(Exc {
            class,
            error: TensorError::new(exceptions::kind_of_class(class), ""),
            at,
            held: Vec::new(),
        }),
        Value::Exception(e) => Ok(Exc {
            class: e.class,
            error: e.error.clone(),
            at: e.at.unwrap_or(at),
            held: e.held.clone(),
        }),
        _ => Err(type_error("exceptions must derive from BaseException")),
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
pub(super) fn assign(scope: &Scope, target: &Expr, value: Value) -> Result<()> {
    match &target.kind {
        ExprKind::Name(n) => {
            scope.set(n, value);
            Ok(())
        }
        ExprKind::Subscript { base, items, .. } => {
            let base = scope.eval(base)?;
            match &base {
                Value::TypedStorage(s, d) => {
                    super::attrs::typed_storage_set(s, *d, scope.storage_index(items)?, &value)
                }
                Value::Dict(d) => {
                    let key = scope.dict_key(items)?;
                    super::pyops::dict_insert(&mut d.borrow_mut(), key, value)
                }
                _ => {
                    let t = base.as_tensor("indexed object")?;
                    scope.env.grad.check_setitem(t, &value)?;
                    let items = scope.index_items(items)?;
                    super::indexing::setitem(t, &items, value)
                }
            }
        }
        ExprKind::Tuple(targets) | ExprKind::List(targets) => {
            let values = pyops::unpack(&value, targets.len())?;
            targets
                .iter()
                .zip(values)
                .try_for_each(|(t, v)| assign(scope, t, v))
        }
        _ => Err(type_error("cannot assign to this expression")),
    }
}

/// Calls a function made by `def`: binds its parameters (positional, then by keyword, then
/// defaults, with Python's messages), runs its body in a frame of its own.
pub(super) fn call_function(
    env: &Env,
    f: &Function,
    args: Vec<Value>,
    kwargs: &[(String, Value)],
) -> Result<Value> {
    let def = &f.def;
    let name = &def.name;
    let n = def.params.len();
    if args.len() > n {
        return Err(type_error(format!(
            "{name}() takes {n} positional argument{} but {} were given",
            if n == 1 { "" } else { "s" },
            args.len()
        )));
    }
    let mut slots: Vec<Option<Value>> = args.into_iter().map(Some).collect();
    slots.resize(n, None);
    for (k, v) in kwargs {
        match def.params.iter().position(|p| p.name == *k) {
            Some(i) if slots[i].is_some() => {
                return Err(type_error(format!(
                    "{name}() got multiple values for argument '{k}'"
                )));
            }
            Some(i) => slots[i] = Some(v.clone()),
            None => {
                return Err(type_error(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            }
        }
    }
    let mut locals = Vec::with_capacity(n);
    let mut missing = Vec::new();
    for ((p, slot), default) in def.params.iter().zip(slots).zip(&f.defaults) {
        match slot.or_else(|| default.clone()) {
            Some(v) => locals.push((p.name.clone(), v)),
            None => missing.push(format!("'{}'", p.name)),
        }
    }
    if !missing.is_empty() {
        return Err(type_error(format!(
            "{name}() missing {} required positional argument{}: {}",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            missing.join(" and ")
        )));
    }
    let depth = env.enter_call()?;
    env.depth.set(depth + 1);
    let frame = RefCell::new(locals);
    let scope = Scope::function(env, &frame);
    let mut run = Runner {
        env,
        policy: crate::tensor::overlap_policy::current(),
        after: None,
    };
    let result = run.block(&scope, &def.body);
    env.depth.set(depth);
    match result {
        Ok(Flow::Return(v)) => Ok(v),
        Ok(_) => Ok(Value::None),
        Err(exc) => {
            let error = exc.error.clone();
            *env.pending.borrow_mut() = Some(exc);
            Err(error)
        }
    }
}
