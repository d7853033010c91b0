//! The interpreter: runs a parsed program statement by statement on the CPU backend.

use std::cell::RefCell;
use std::rc::Rc;

use super::args::Args;
use super::ast::{
    BinOp, BoolOp, CmpOp, CompFor, CompKind, Expr, ExprKind, IndexItem as AstIndex, Span, UnaryOp,
};
use super::pyops;
use super::value::{Lambda, Value, type_error};
use crate::error::{ErrorKind, Result, TensorError};

/// A failed statement: the 0-based index of the top-level statement it belongs to, the
/// line and column where the failing statement starts (inside a block or a function: that
/// statement's, not the enclosing one's), and the error.
#[derive(Debug, Clone)]
pub struct StatementError {
    pub statement: usize,
    pub at: Span,
    pub error: TensorError,
}

use super::env::name_error;
pub use super::env::{DEFAULT_SEED, Env, MAX_CALL_DEPTH, MAX_EXECUTED, Warning};

/// A `host_fallback` warning: what a statement over GPU tensors ran on the host.
pub(super) fn host_fallback_message(what: &str) -> String {
    format!(
        "{what} ran on the host: stridekit has no GPU kernel for it yet (operands downloaded, result uploaded)"
    )
}

/// Names visible to an expression: the names bound by lambdas and comprehensions around it
/// (innermost last), then the running function's locals, then the program's globals.
pub(super) struct Scope<'a> {
    pub env: &'a Env,
    /// The local names of the function running (None in the program's own code).
    pub frame: Option<&'a RefCell<Vec<(String, Value)>>>,
    locals: Vec<(String, Value)>,
}

/// Python's built-in functions an `explain` program may call (with those of
/// `super::pycalls::NAMES`).
const BUILTINS: &[&str] = &[
    "print", "len", "int", "float", "bool", "abs", "str", "tuple", "list", "min", "max", "repr",
    "type",
];

impl<'a> Scope<'a> {
    pub fn global(env: &'a Env) -> Scope<'a> {
        Scope {
            env,
            frame: None,
            locals: Vec::new(),
        }
    }

    pub fn function(env: &'a Env, frame: &'a RefCell<Vec<(String, Value)>>) -> Scope<'a> {
        Scope {
            env,
            frame: Some(frame),
            locals: Vec::new(),
        }
    }

    fn lookup(&self, name: &str) -> Option<Value> {
        if let Some((_, v)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        if let Some(frame) = self.frame
            && let Some((_, v)) = frame.borrow().iter().find(|(n, _)| n == name)
        {
            return Some(v.clone());
        }
        self.env.get(name)
    }

    /// Binds `name` where an assignment in this scope binds it.
    pub fn set(&self, name: &str, value: Value) {
        match self.frame {
            Some(frame) => {
                let mut vars = frame.borrow_mut();
                match vars.iter_mut().find(|(n, _)| n == name) {
                    Some(slot) => slot.1 = value,
                    None => vars.push((name.to_string(), value)),
                }
            }
            None => self.env.set(name, value),
        }
    }

    /// `del name` in this scope.
    pub fn remove(&self, name: &str) -> Result<()> {
        match self.frame {
            Some(frame) => {
                let mut vars = frame.borrow_mut();
                match vars.iter().position(|(n, _)| n == name) {
                    Some(i) => {
                        vars.remove(i);
                        Ok(())
                    }
                    None => Err(name_error(name)),
                }
            }
            None => self.env.remove(name),
        }
    }

    /// A scope that sees `bindings` over this one's names (a comprehension's variables).
    fn child(&self, bindings: Vec<(String, Value)>) -> Scope<'a> {
        let mut locals = self.locals.clone();
        locals.extend(bindings);
        Scope {
            env: self.env,
            frame: self.frame,
            locals,
        }
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
                None => match super::exceptions::lookup(n) {
                    Some(class) => Value::ExceptionClass(class),
                    None => return Err(name_error(n)),
                },
            },
            ExprKind::Dict(items) => {
                let mut pairs: Vec<(Value, Value)> = Vec::new();
                for (k, v) in items {
                    let (k, v) = (self.eval(k)?, self.eval(v)?);
                    pyops::dict_insert(&mut pairs, k, v)?;
                }
                Value::Dict(Rc::new(RefCell::new(pairs)))
            }
            ExprKind::IfExp { test, body, orelse } => {
                if pyops::truthy(&self.eval(test)?)? {
                    self.eval(body)?
                } else {
                    self.eval(orelse)?
                }
            }
            ExprKind::Comp {
                kind,
                elt,
                value,
                generators,
            } => {
                let mut out = Vec::new();
                self.comprehend(generators, &mut |scope| {
                    let item = scope.eval(elt)?;
                    out.push(match value {
                        Some(v) => Value::Tuple(vec![item, scope.eval(v)?]),
                        None => item,
                    });
                    Ok(())
                })?;
                match kind {
                    CompKind::List => Value::List(out),
                    CompKind::Generator => Value::iter("generator", out),
                    CompKind::Dict => {
                        let mut pairs = Vec::new();
                        for pair in out {
                            if let Value::Tuple(mut kv) = pair {
                                let v = kv.pop().unwrap_or(Value::None);
                                let k = kv.pop().unwrap_or(Value::None);
                                pyops::dict_insert(&mut pairs, k, v)?;
                            }
                        }
                        Value::Dict(Rc::new(RefCell::new(pairs)))
                    }
                }
            }
            ExprKind::Tuple(items) => Value::Tuple(self.eval_all(items)?),
            ExprKind::List(items) => Value::List(self.eval_all(items)?),
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                match op {
                    UnaryOp::Not => Value::Bool(!pyops::truthy(&v)?),
                    UnaryOp::Neg => self
                        .env
                        .grad
                        .operator("neg", &v, None, || super::operators::unary(*op, v.clone()))?,
                    _ => super::operators::unary(*op, v)?,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.eval(lhs)?, self.eval(rhs)?);
                if let (BinOp::MatMul, Value::Tensor(x), Value::Tensor(y)) = (op, &a, &b) {
                    return super::linalg_ops::matmul(&self.env.grad, x, y).map(Value::Tensor);
                }
                self.env.grad.operator(op.aten_name(), &a, Some(&b), || {
                    super::operators::binary(*op, a.clone(), b.clone())
                })?
            }
            ExprKind::Compare { first, rest } => self.compare(first, rest)?,
            ExprKind::BoolOp { op, values } => {
                let mut last = Value::None;
                for (i, e) in values.iter().enumerate() {
                    // Python drops an operand it does not return before evaluating the next
                    // (its temporaries are gone by then, on a device allocator too).
                    drop(std::mem::replace(&mut last, Value::None));
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
            ExprKind::Attr { base, name } => match self.eval(base)? {
                Value::Tensor(t) => {
                    let warn = |m: String| self.env.warn("non_leaf_grad", m);
                    match self.env.grad.attribute(&t, name, &warn) {
                        Some(v) => v,
                        None => {
                            let v = super::attrs::attribute(Value::Tensor(t.clone()), name)?;
                            self.env.grad.view(name, &t, &v)?;
                            v
                        }
                    }
                }
                base => super::attrs::attribute(base, name)?,
            },
            ExprKind::Subscript { base, items, .. } => match self.eval(base)? {
                Value::Tensor(t) => {
                    let items = self.index_items(items)?;
                    let v = Value::Tensor(super::indexing::getitem(&t, &items)?);
                    self.env
                        .grad
                        .view(super::indexing::view_op(&t, &items), &t, &v)?;
                    v
                }
                seq @ (Value::Tuple(_)
                | Value::List(_)
                | Value::Size(_)
                | Value::NamedTuple(..)) => self.sequence_item(&seq, items)?,
                Value::Range(start, stop, step) => match items.as_slice() {
                    [AstIndex::Expr(e)] => {
                        let i = self.eval(e)?.as_int("range index")?;
                        let n = pyops::range_len(start, stop, step);
                        let k = if i < 0 { i + n } else { i };
                        if !(0..n).contains(&k) {
                            return Err(TensorError::new(
                                ErrorKind::IndexOutOfRange,
                                "range object index out of range",
                            ));
                        }
                        // in range by construction; i128 keeps k * step from overflowing
                        Value::Int((start as i128 + k as i128 * step as i128) as i64)
                    }
                    _ => return Err(type_error("range indices must be integers")),
                },
                Value::Dict(d) => {
                    let key = self.dict_key(items)?;
                    let found = pyops::dict_get(&d.borrow(), &key)?;
                    match found {
                        Some(v) => v,
                        None => {
                            return Err(TensorError::new(
                                ErrorKind::Other,
                                format!("KeyError: {}", super::pyfmt::repr_of(&key)),
                            ));
                        }
                    }
                }
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

    /// The items of a subscript that are plain expressions (a dict key that is a tuple).
    fn eval_index_tuple(&self, items: &[AstIndex]) -> Result<Vec<Value>> {
        items
            .iter()
            .map(|i| match i {
                AstIndex::Expr(e) => self.eval(e),
                AstIndex::Slice { .. } => Err(type_error("unhashable type: 'slice'")),
            })
            .collect()
    }

    /// Runs `body` once per combination of the comprehension clauses' items, each time in a
    /// scope with the clauses' targets bound (and every `if` true).
    fn comprehend(
        &self,
        generators: &[CompFor],
        body: &mut dyn FnMut(&Scope) -> Result<()>,
    ) -> Result<()> {
        let Some((first, rest)) = generators.split_first() else {
            return body(self);
        };
        for item in pyops::iterate(&self.eval(&first.iter)?)? {
            self.env.tick()?;
            let mut bindings = Vec::new();
            bind_names(&first.target, item, &mut bindings)?;
            let scope = self.child(bindings);
            let mut keep = true;
            for cond in &first.ifs {
                if !pyops::truthy(&scope.eval(cond)?)? {
                    keep = false;
                    break;
                }
            }
            if keep {
                scope.comprehend(rest, body)?;
            }
        }
        Ok(())
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
        let mut requires_grad = false;
        for (k, v) in kwargs {
            let v = self.eval(v)?;
            if k == "requires_grad" {
                requires_grad = pyops::truthy(&v)?;
                continue;
            }
            kw.push((k.clone(), v));
        }
        let result = self.call_with(func, positional, kw)?;
        if requires_grad {
            self.env.grad.factory(&result)?;
        }
        Ok(result)
    }

    fn call_with(
        &self,
        func: &Expr,
        positional: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        let named = |name: &str| Args {
            name: name.to_string(),
            positional: positional.clone(),
            kwargs: kw.clone(),
        };
        match &func.kind {
            ExprKind::Name(n) => match self.lookup(n) {
                Some(v) => self.call_value(v, positional, &kw),
                None if BUILTINS.contains(&n.as_str())
                    || super::pycalls::NAMES.contains(&n.as_str()) =>
                {
                    super::builtins::call(self.env, n, named(n))
                }
                None => match super::exceptions::lookup(n) {
                    Some(class) => self.call_value(Value::ExceptionClass(class), positional, &kw),
                    None => Err(name_error(n)),
                },
            },
            ExprKind::Attr { base, name } => match self.eval(base)? {
                Value::Torch if name == "Generator" => super::pycalls::new_generator(named(name)),
                Value::Torch => match name.as_str() {
                    "no_grad" | "enable_grad" => {
                        named(name).bind(&[])?;
                        Ok(Value::GradMode(name == "enable_grad"))
                    }
                    "is_grad_enabled" => Ok(Value::Bool(self.env.grad.enabled())),
                    _ => match self
                        .env
                        .ctx(|cx| super::layer_calls::torch_function(cx, name, named(name)))
                    {
                        Some(r) => r,
                        None => self.env.grad.function(name, named(name), |a| {
                            super::ops::torch_function(name, a, self.env)
                        }),
                    },
                },
                Value::Tensor(t) => {
                    let result = match self
                        .env
                        .ctx(|cx| super::layer_calls::tensor_method(cx, &t, name, named(name)))
                    {
                        Some(r) => r,
                        None => self.env.grad.method(&t, name, named(name), |a| {
                            super::ops::tensor_method(&t, name, a)
                        }),
                    };
                    if name == "backward"
                        && let Err(e) = &result
                    {
                        // Tensor.backward and torch.autograd.backward are Python functions:
                        // the exception's traceback keeps their frames, so the receiver, a
                        // `gradient` and the root gradient live as long as the exception.
                        let mut held = vec![Value::Tensor(t.clone())];
                        held.extend(
                            positional
                                .iter()
                                .chain(kw.iter().map(|(_, v)| v))
                                .filter(|v| matches!(v, Value::Tensor(_)))
                                .cloned(),
                        );
                        held.extend(self.env.grad.take_raised_root().map(Value::Tensor));
                        *self.env.traceback.borrow_mut() = Some((e.clone(), held));
                    }
                    result
                }
                Value::Object(o) => self
                    .env
                    .ctx(|cx| super::layer_calls::object_method(cx, &o, name, named(name))),
                Value::GradFn(n) => super::autograd::calls::node_method(&n, name, named(name)),
                Value::Storage(s) => super::attrs::storage_method(&s, name, named(name)),
                Value::TypedStorage(s, d) => {
                    super::attrs::typed_storage_method(&s, d, name, named(name))
                }
                Value::Testing if name == "assert_close" => {
                    super::arith_ops::assert_close(named(name))
                }
                Value::Generator(g) => super::pycalls::generator_method(&g, name, named(name)),
                Value::Dict(d) => super::pycalls::dict_method(&d, name, named(name)),
                other => Err(type_error(format!(
                    "'{}' object has no attribute '{name}'",
                    other.type_name()
                ))),
            },
            _ => {
                let f = self.eval(func)?;
                self.call_value(f, positional, &kw)
            }
        }
    }

    /// Calls a value: a lambda, a `def` function, or an exception class (making an
    /// exception).
    fn call_value(&self, f: Value, args: Vec<Value>, kwargs: &[(String, Value)]) -> Result<Value> {
        match f {
            Value::Lambda(l) => self.call_lambda(&l, args, kwargs),
            Value::Function(f) => match self.env.call_def.get() {
                Some(call) => call(self.env, &f, args, kwargs),
                None => Err(type_error(
                    "a def function called outside a running program",
                )),
            },
            Value::Object(o) => match &*o {
                super::objects::Object::Layer(l) => self.env.ctx(|cx| {
                    super::layer_calls::call_layer(
                        cx,
                        l,
                        Args {
                            name: l.kind.to_string(),
                            positional: args,
                            kwargs: kwargs.to_vec(),
                        },
                    )
                }),
                other => Err(type_error(format!(
                    "'{}' object is not callable",
                    other.type_name()
                ))),
            },
            Value::ExceptionClass(class) => {
                if !kwargs.is_empty() {
                    return Err(type_error(format!("{class}() takes no keyword arguments")));
                }
                let message = match args.as_slice() {
                    [] => String::new(),
                    [one] => super::pyfmt::str_of(one),
                    many => super::pyfmt::repr_of(&Value::Tuple(many.to_vec())),
                };
                Ok(Value::Exception(Rc::new(super::value::Exception {
                    class,
                    error: TensorError::new(super::exceptions::kind_of_class(class), message),
                    at: None,
                    held: Vec::new(),
                })))
            }
            other => Err(type_error(format!(
                "'{}' object is not callable",
                other.type_name()
            ))),
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
        let depth = self.env.enter_call()?;
        let mut locals = self.locals.clone();
        locals.extend(l.params.iter().cloned().zip(args));
        self.env.depth.set(depth + 1);
        let result = Scope {
            env: self.env,
            frame: self.frame,
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

    /// The key of `d[key]` (`d[a, b]` is the tuple `(a, b)`).
    pub(super) fn dict_key(&self, items: &[AstIndex]) -> Result<Value> {
        match items {
            [AstIndex::Expr(e)] => self.eval(e),
            _ => Ok(Value::Tuple(self.eval_index_tuple(items)?)),
        }
    }

    /// The one integer index of `storage[i]`.
    pub(super) fn storage_index(&self, items: &[AstIndex]) -> Result<i64> {
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

    pub(super) fn index_items(
        &self,
        items: &[AstIndex],
    ) -> Result<Vec<crate::tensor::AdvancedItem>> {
        // `t[idx]` with `idx` a tuple is `t[i, j, ...]`, as in Python.
        if let [AstIndex::Expr(e)] = items
            && let Value::Tuple(parts) = self.eval(e)?
        {
            return parts.into_iter().map(super::indexing::index_item).collect();
        }
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

/// Binds a comprehension's target (a name or a tuple/list of them) into `out`.
fn bind_names(target: &Expr, value: Value, out: &mut Vec<(String, Value)>) -> Result<()> {
    match &target.kind {
        ExprKind::Name(n) => {
            out.push((n.clone(), value));
            Ok(())
        }
        ExprKind::Tuple(targets) | ExprKind::List(targets) => {
            let values = pyops::unpack(&value, targets.len())?;
            targets
                .iter()
                .zip(values)
                .try_for_each(|(t, v)| bind_names(t, v, out))
        }
        _ => Err(type_error(
            "a comprehension's target must be a name or a tuple of names",
        )),
    }
}

impl Env {
    /// Enters a function or lambda call; the depth before it (to restore), or the
    /// RecursionError past [`MAX_CALL_DEPTH`].
    pub(super) fn enter_call(&self) -> Result<usize> {
        let depth = self.depth.get();
        if depth >= MAX_CALL_DEPTH {
            return Err(TensorError::new(
                ErrorKind::Other,
                "maximum recursion depth exceeded",
            ));
        }
        Ok(depth)
    }
}
