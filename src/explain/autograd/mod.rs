//! Autograd for the ops `explain` has: which tensors require grad, the graph ops record
//! (named and saving what PyTorch's derivatives.yaml says), `backward()` on real values,
//! PyTorch's version-counter, in-place and leaf errors, `torch.no_grad()`, and what the
//! graph keeps alive ([`usage::Usage`], the report's `autograd` section).

pub mod calls;
pub mod custom;
pub mod engine;
pub mod formula;
pub mod node;
pub mod rules;
pub mod usage;

use crate::tensor::Tensor;
use node::{Edge, Meta, MetaRef, Node};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// The autograd state of one program run: every tensor's [`Meta`] by tensor id (entries of
/// tensors the program can no longer reach are dropped after each step), and grad mode.
#[derive(Debug)]
pub struct State {
    metas: RefCell<HashMap<u64, MetaRef>>,
    enabled: Cell<bool>,
    /// The root gradient of the last `backward()` whose pass raised, until the caller takes
    /// it: the raising exception's traceback keeps it (torch.autograd.backward's frame).
    raised_root: RefCell<Option<Tensor>>,
}

impl Default for State {
    fn default() -> State {
        State {
            metas: RefCell::new(HashMap::new()),
            enabled: Cell::new(true),
            raised_root: RefCell::new(None),
        }
    }
}

impl State {
    /// The root gradient of the `backward()` that just raised from its pass (see
    /// `raised_root`); None when it raised before making one.
    pub fn take_raised_root(&self) -> Option<Tensor> {
        self.raised_root.borrow_mut().take()
    }

    pub fn meta(&self, t: &Tensor) -> Option<MetaRef> {
        self.metas.borrow().get(&t.id()).cloned()
    }

    fn meta_or_new(&self, t: &Tensor) -> MetaRef {
        self.metas
            .borrow_mut()
            .entry(t.id())
            .or_insert_with(|| Rc::new(RefCell::new(Meta::default())))
            .clone()
    }

    pub fn requires_grad(&self, t: &Tensor) -> bool {
        self.meta(t).is_some_and(|m| m.borrow().requires_grad())
    }

    pub fn grad_fn(&self, t: &Tensor) -> Option<Rc<Node>> {
        self.meta(t).and_then(|m| m.borrow().grad_fn.clone())
    }

    pub fn is_leaf(&self, t: &Tensor) -> bool {
        self.grad_fn(t).is_none()
    }

    pub fn grad(&self, t: &Tensor) -> Option<Tensor> {
        self.meta(t).and_then(|m| m.borrow().grad.clone())
    }

    /// Grad mode (`torch.is_grad_enabled()`; off inside `with torch.no_grad():`).
    pub fn enabled(&self) -> bool {
        self.enabled.get()
    }

    /// Sets grad mode, returning the previous one.
    pub fn set_enabled(&self, on: bool) -> bool {
        self.enabled.replace(on)
    }

    /// Where a gradient for `t` goes: its node, its leaf accumulator, or nowhere.
    pub fn edge(&self, t: &Tensor) -> Option<Edge> {
        let m = self.meta(t)?;
        let b = m.borrow();
        match &b.grad_fn {
            Some(n) => Some(Edge::Node(n.clone())),
            None if b.requires_grad => Some(Edge::Leaf(m.clone(), t.clone())),
            None => None,
        }
    }

    /// Makes `t` the output of `node`.
    pub fn set_grad_fn(&self, t: &Tensor, node: Rc<Node>) {
        self.meta_or_new(t).borrow_mut().grad_fn = Some(node);
    }

    /// Sets a leaf's flag.
    pub fn set_leaf_requires_grad(&self, t: &Tensor, on: bool) {
        if on || self.meta(t).is_some() {
            self.meta_or_new(t).borrow_mut().requires_grad = on;
        }
    }

    /// `retain_grad()` on a non-leaf.
    pub fn retain_grad(&self, t: &Tensor) {
        self.meta_or_new(t).borrow_mut().retains_grad = true;
    }

    /// The non-leaves that retain their gradient, with their nodes.
    pub fn retained(&self) -> Vec<(Rc<Node>, MetaRef)> {
        self.metas
            .borrow()
            .values()
            .filter_map(|m| {
                let b = m.borrow();
                match (&b.grad_fn, b.retains_grad) {
                    (Some(n), true) => Some((n.clone(), m.clone())),
                    _ => None,
                }
            })
            .collect()
    }

    /// Drops the entries of tensors `live` says the program can no longer reach (the graph
    /// keeps what it needs through its own references).
    pub fn prune(&self, live: &std::collections::HashSet<u64>) {
        self.metas.borrow_mut().retain(|id, _| live.contains(id));
    }
}
