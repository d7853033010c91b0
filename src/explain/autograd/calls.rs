//! Where the interpreter meets autograd: an op call (a `Tensor` method, a `torch.*`
//! function, an operator, `.T`, an index) runs, then records its node when grad mode is on
//! and an input requires grad; in-place writes are checked first (PyTorch's leaf and
//! view-of-leaf errors); `backward()`, `requires_grad_()` and `retain_grad()` live here.

use super::State;
use super::node::Node;
use super::rules::{Arg, Call, attach, inplace_node, no_derivative, node_for};
use crate::error::{ErrorKind, Result, TensorError};
use crate::explain::args::Args;
use crate::explain::op_table;
use crate::explain::schema::Surface;
use crate::explain::value::{Value, type_error};
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use std::rc::Rc;

fn runtime(message: &str) -> TensorError {
    TensorError::new(ErrorKind::Other, message)
}

fn arg(v: &Value) -> Arg {
    match v {
        Value::Tensor(t) => Arg::Tensor(t.clone()),
        Value::Int(i) => Arg::Number(Scalar::Int(*i)),
        Value::Float(f) => Arg::Number(Scalar::Float(*f)),
        Value::Bool(b) => Arg::Number(Scalar::Bool(*b)),
        _ => Arg::Other,
    }
}

fn kw<'a>(kwargs: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// The operands and options of `this.name(rest..., **kwargs)`.
pub fn call_of(this: &Tensor, rest: &[Value], kwargs: &[(String, Value)]) -> Call {
    let other = rest
        .first()
        .or_else(|| kw(kwargs, "other"))
        .or_else(|| kw(kwargs, "exponent"))
        .map(arg);
    let alpha = kw(kwargs, "alpha")
        .and_then(|v| v.as_scalar("alpha").ok())
        .unwrap_or(Scalar::Int(1));
    let dims = match rest.first().or_else(|| kw(kwargs, "dim")) {
        Some(Value::None) | None => None,
        Some(v) => v.as_int_list("dim").ok().map(|d| d.to_vec()),
    };
    let keepdim = rest
        .get(1)
        .or_else(|| kw(kwargs, "keepdim"))
        .and_then(|v| v.as_bool("keepdim").ok())
        .unwrap_or(false);
    Call {
        this: this.clone(),
        other,
        alpha,
        dims,
        keepdim,
    }
}

/// Every tensor among `values` (inside lists and tuples too).
fn tensors_in<'a>(values: impl IntoIterator<Item = &'a Value>, out: &mut Vec<Tensor>) {
    for v in values {
        match v {
            Value::Tensor(t) => out.push(t.clone()),
            Value::List(items) | Value::Tuple(items) => tensors_in(items, out),
            _ => {}
        }
    }
}

/// Ops whose results never require grad.
fn non_differentiable(name: &str) -> bool {
    name.starts_with("new_")
        || name.ends_with("_like")
        || matches!(
            name,
            "detach" | "argmax" | "argmin" | "sign" | "floor_divide"
        )
}

impl State {
    /// Grad mode is on and one of `inputs` requires grad.
    fn involved(&self, inputs: &[Tensor]) -> bool {
        self.enabled() && inputs.iter().any(|t| self.requires_grad(t))
    }

    /// PyTorch's checks before an in-place write into `t` in grad mode.
    pub fn check_inplace(&self, t: &Tensor) -> Result<()> {
        if !self.enabled() {
            return Ok(());
        }
        if let Some(base) = t.base()
            && self.requires_grad(&base)
            && self.is_leaf(&base)
        {
            return Err(runtime(
                "a view of a leaf Variable that requires grad is being used in an in-place operation.",
            ));
        }
        if self.requires_grad(t) && self.is_leaf(t) {
            return Err(runtime(
                "a leaf Variable that requires grad is being used in an in-place operation.",
            ));
        }
        Ok(())
    }

    /// Records the node of out-of-place op `name` that made `result`.
    fn record(&self, name: &str, call: &Call, result: &Value) -> Result<()> {
        match result {
            Value::Tensor(r) => {
                if r.id() == call.this.id() || !r.dtype().is_floating() || non_differentiable(name)
                {
                    return Ok(());
                }
                let node = node_for(self, name, call, r)?;
                attach(self, r, node);
                Ok(())
            }
            other => {
                let mut out = Vec::new();
                if let Value::NamedTuple(_, items) = other {
                    tensors_in(items, &mut out);
                } else {
                    tensors_in([other], &mut out);
                }
                if out.iter().any(|t| t.dtype().is_floating()) && !non_differentiable(name) {
                    return Err(no_derivative(&format!("`{name}`")));
                }
                Ok(())
            }
        }
    }

    /// `this.name(args)`, with autograd around it (`run` is the op itself).
    pub fn method(
        &self,
        this: &Tensor,
        name: &str,
        args: Args,
        run: impl FnOnce(Args) -> Result<Value>,
    ) -> Result<Value> {
        match name {
            "backward" => return self.backward(this, args),
            "requires_grad_" => return self.requires_grad_(this, args),
            "retain_grad" => {
                op_table::bind(Surface::Method, "retain_grad", args)?;
                if !self.requires_grad(this) {
                    return Err(runtime(
                        "can't retain_grad on Tensor that has requires_grad=False",
                    ));
                }
                if !self.is_leaf(this) {
                    self.retain_grad(this);
                }
                return Ok(Value::None);
            }
            "register_hook" => return Err(no_derivative("hooks (register_hook)")),
            _ => {}
        }
        let mut inputs = vec![this.clone()];
        tensors_in(
            args.positional
                .iter()
                .chain(args.kwargs.iter().map(|(_, v)| v)),
            &mut inputs,
        );
        let call = call_of(this, &args.positional, &args.kwargs);
        if op_table::is_in_place(name) {
            self.check_inplace(this)?;
            if !self.involved(&inputs) {
                return run(args);
            }
            if this.base().is_some() {
                return Err(no_derivative(
                    "an in-place op on a view of a tensor that requires grad",
                ));
            }
            let node = inplace_node(self, name, &call, self.edge(this))?;
            let out = run(args)?;
            attach(self, this, node);
            return Ok(out);
        }
        if !self.involved(&inputs) {
            return run(args);
        }
        let out = run(args)?;
        self.record(name, &call, &out)?;
        Ok(out)
    }

    /// `torch.name(args)` with autograd around it.
    pub fn function(
        &self,
        name: &str,
        args: Args,
        run: impl FnOnce(Args) -> Result<Value>,
    ) -> Result<Value> {
        let mut inputs = Vec::new();
        tensors_in(
            args.positional
                .iter()
                .chain(args.kwargs.iter().map(|(_, v)| v)),
            &mut inputs,
        );
        if !self.involved(&inputs) {
            return run(args);
        }
        let this = match args
            .positional
            .first()
            .or_else(|| kw(&args.kwargs, "input"))
        {
            Some(Value::Tensor(t)) => t.clone(),
            _ => return Err(no_derivative(&format!("torch.{name}"))),
        };
        let rest = args.positional.get(1..).unwrap_or(&[]).to_vec();
        let call = call_of(&this, &rest, &args.kwargs);
        let out = run(args)?;
        self.record(name, &call, &out)?;
        Ok(out)
    }

    /// An operator (`a + b`, `-a`; `name` is the op's: `add`, `sub`, `mul`, `div`, `pow`,
    /// `neg`, ...) with autograd around it.
    pub fn operator(
        &self,
        name: &str,
        a: &Value,
        b: Option<&Value>,
        run: impl FnOnce() -> Result<Value>,
    ) -> Result<Value> {
        let mut inputs = Vec::new();
        tensors_in([a].into_iter().chain(b), &mut inputs);
        if !self.involved(&inputs) {
            return run();
        }
        let (this, other, name) = match (a, b) {
            (Value::Tensor(t), _) => (t.clone(), b.map(arg), name),
            (other, Some(Value::Tensor(t))) => {
                let reversed = match name {
                    "add" | "mul" => name,
                    "sub" => "rsub",
                    _ => "reversed",
                };
                (t.clone(), Some(arg(other)), reversed)
            }
            _ => return run(),
        };
        let call = Call {
            this,
            other,
            alpha: Scalar::Int(1),
            dims: None,
            keepdim: false,
        };
        let out = run()?;
        self.record(name, &call, &out)?;
        Ok(out)
    }

    /// A view made by an attribute (`x.T`, `x.mT`) or basic indexing (`name` says which
    /// view op it is).
    pub fn view(&self, name: &str, this: &Tensor, result: &Value) -> Result<()> {
        if !self.involved(std::slice::from_ref(this)) {
            return Ok(());
        }
        let call = call_of(this, &[], &[]);
        self.record(name, &call, result)
    }

    /// Records what a view or copy op `name` of the first autograd set (`reshape`,
    /// `expand`, `unsqueeze`, `contiguous`, `t`, ...) records for `result`, made from `this`.
    pub fn record_view(&self, name: &str, this: &Tensor, result: &Tensor) -> Result<()> {
        self.view(name, this, &Value::Tensor(result.clone()))
    }

    /// Before `t[...] = value`.
    pub fn check_setitem(&self, t: &Tensor, value: &Value) -> Result<()> {
        self.check_inplace(t)?;
        let mut inputs = vec![t.clone()];
        tensors_in([value], &mut inputs);
        if self.involved(&inputs) {
            return Err(no_derivative(
                "an index write into a tensor that requires grad",
            ));
        }
        Ok(())
    }

    /// `requires_grad=True` given to a factory: the result becomes a leaf that requires grad.
    pub fn factory(&self, result: &Value) -> Result<()> {
        if let Value::Tensor(t) = result {
            if !t.dtype().is_floating() {
                return Err(runtime(
                    "Only Tensors of floating point and complex dtype can require gradients",
                ));
            }
            self.set_leaf_requires_grad(t, true);
        }
        Ok(())
    }

    fn requires_grad_(&self, this: &Tensor, args: Args) -> Result<Value> {
        let b = op_table::bind(Surface::Method, "requires_grad_", args)?;
        let on = match b.opt("requires_grad") {
            Some(v) => crate::explain::pyops::truthy(v)?,
            None => true,
        };
        if !self.is_leaf(this) {
            if !on {
                return Err(runtime(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
                ));
            }
        } else {
            if on && !this.dtype().is_floating() {
                return Err(runtime(
                    "only Tensors of floating point dtype can require gradients",
                ));
            }
            self.set_leaf_requires_grad(this, on);
        }
        Ok(Value::Tensor(this.clone()))
    }

    /// `this.backward(gradient=None, retain_graph=None, create_graph=False)`.
    fn backward(&self, this: &Tensor, args: Args) -> Result<Value> {
        let b = op_table::bind(Surface::Method, "backward", args)?;
        let flag = |p: &str| -> Result<bool> {
            match b.opt(p) {
                None | Some(Value::None) => Ok(false),
                Some(v) => crate::explain::pyops::truthy(v),
            }
        };
        if flag("create_graph")? {
            return Err(no_derivative("create_graph=True (gradients of gradients)"));
        }
        if !matches!(b.opt("inputs"), None | Some(Value::None)) {
            return Err(no_derivative("backward(inputs=...)"));
        }
        if !self.requires_grad(this) {
            return Err(runtime(
                "element 0 of tensors does not require grad and does not have a grad_fn",
            ));
        }
        let grad = match b.opt("gradient") {
            None | Some(Value::None) => {
                if this.numel() != 1 {
                    return Err(runtime(
                        "grad can be implicitly created only for scalar outputs",
                    ));
                }
                // made where the output is (the tensor layer's constructors make host
                // tensors)
                this.full_like(
                    Scalar::Int(1),
                    this.dtype(),
                    crate::layout::MemoryFormat::Contiguous,
                )?
                .placed_on(this.device())?
            }
            Some(Value::Tensor(g)) => {
                super::engine::check_gradient(this, g)?;
                g.clone()
            }
            Some(other) => {
                return Err(type_error(format!(
                    "gradient must be Tensor or None, not {}",
                    other.type_name()
                )));
            }
        };
        let root_grad = grad.clone();
        let pass = match self.grad_fn(this) {
            Some(root) => super::engine::run(&root, grad, flag("retain_graph")?, &self.retained()),
            None => {
                let meta = self.meta_or_new(this);
                // Python's backward() holds the gradient while AccumulateGrad runs: a second
                // handle, so it is copied into `.grad`, not stolen
                super::engine::accumulate(&meta, this, grad.clone())
            }
        };
        if pass.is_err() {
            *self.raised_root.borrow_mut() = Some(root_grad);
        }
        pass?;
        Ok(Value::None)
    }

    /// The autograd attributes of a tensor (`requires_grad`, `grad`, `grad_fn`, `is_leaf`);
    /// None for every other name. Reading `.grad` of a non-leaf that does not retain it
    /// gives None, with PyTorch's warning text (`warn`).
    pub fn attribute(&self, t: &Tensor, name: &str, warn: &dyn Fn(String)) -> Option<Value> {
        Some(match name {
            "requires_grad" => Value::Bool(self.requires_grad(t)),
            "is_leaf" => Value::Bool(self.is_leaf(t)),
            "grad_fn" => self.grad_fn(t).map_or(Value::None, Value::GradFn),
            "grad" => {
                let retains = self.meta(t).is_some_and(|m| m.borrow().retains_grad);
                if !self.is_leaf(t) && !retains {
                    warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.".into());
                }
                self.grad(t).map_or(Value::None, Value::Tensor)
            }
            _ => return None,
        })
    }
}

/// `grad_fn.name()` and the other methods of a node.
pub fn node_method(n: &Rc<Node>, name: &str, args: Args) -> Result<Value> {
    match name {
        "name" => {
            args.bind(&[])?;
            Ok(Value::Str(n.name.to_string()))
        }
        _ => Err(type_error(format!(
            "'{}' object has no attribute '{name}'",
            n.name
        ))),
    }
}

/// The ids of the tensors reachable from `values` (through containers, function defaults
/// and views' bases): the tensors whose autograd state must be kept.
pub fn live_ids<'a>(values: impl Iterator<Item = &'a Value>) -> std::collections::HashSet<u64> {
    fn walk(v: &Value, out: &mut std::collections::HashSet<u64>) {
        match v {
            Value::Tensor(t) => {
                out.insert(t.id());
                if let Some(b) = t.base() {
                    out.insert(b.id());
                }
            }
            Value::List(items) | Value::Tuple(items) | Value::NamedTuple(_, items) => {
                items.iter().for_each(|i| walk(i, out))
            }
            Value::Dict(d) => d.borrow().iter().for_each(|(k, v)| {
                walk(k, out);
                walk(v, out);
            }),
            Value::Iter(it) => it.items.borrow().iter().for_each(|i| walk(i, out)),
            Value::Function(f) => f.defaults.iter().flatten().for_each(|d| walk(d, out)),
            Value::Object(o) => o.tensors().into_iter().for_each(|t| {
                out.insert(t.id());
            }),
            _ => {}
        }
    }
    let mut out = std::collections::HashSet::new();
    values.for_each(|v| walk(v, &mut out));
    out
}
