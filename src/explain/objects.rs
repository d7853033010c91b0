//! The objects beyond tensors a program can hold (`Value::Object`): a module (`torch.nn`,
//! `io`), a `torch.nn` layer and an `io.BytesIO()`. Plain data: what they do is in
//! `modules`, `serialize` and `layer_calls`.

use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};

/// A module, a layer or a buffer.
#[derive(Debug)]
pub enum Object {
    /// A Python module by its dotted name (`torch.nn`, `torch.nn.functional`, `torch.cuda`,
    /// `io`).
    Module(&'static str),
    Layer(Layer),
    /// An `io.BytesIO()` that `torch.save` wrote into.
    Buffer(Buffer),
}

/// A `torch.nn` layer.
#[derive(Debug)]
pub struct Layer {
    /// `Linear`, `Dropout` or `LayerNorm`.
    pub kind: &'static str,
    /// Its parameters by name, in registration order (`weight`, `bias`); a parameter the
    /// layer has not got (`bias=False`) is None.
    pub params: RefCell<Vec<(&'static str, Option<Tensor>)>>,
    pub training: Cell<bool>,
    /// `Linear(in_features=4, out_features=3, bias=True)`.
    pub repr: String,
    /// Dropout's `p`.
    pub p: f64,
    /// LayerNorm's `normalized_shape` and `eps` (empty and 0 for the other layers).
    pub normalized: Vec<i64>,
    pub eps: f64,
}

/// An object as `torch.save` wrote it: tensors (on the file's own storages) and the
/// containers and Python values around them.
#[derive(Debug, Clone)]
pub enum Saved {
    Tensor(Tensor),
    List(Vec<Saved>),
    Tuple(Vec<Saved>),
    Dict(Vec<(Saved, Saved)>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
}

impl Saved {
    fn collect(&self, out: &mut Vec<Tensor>) {
        match self {
            Saved::Tensor(t) => out.push(t.clone()),
            Saved::List(items) | Saved::Tuple(items) => items.iter().for_each(|i| i.collect(out)),
            Saved::Dict(pairs) => pairs.iter().for_each(|(k, v)| {
                k.collect(out);
                v.collect(out);
            }),
            _ => {}
        }
    }
}

/// What an `io.BytesIO()` holds: the objects saved into it, in order, and the read position.
#[derive(Debug, Default)]
pub struct Buffer {
    pub saved: RefCell<Vec<Saved>>,
    pub position: Cell<usize>,
    /// Storage bytes written so far.
    pub written: Cell<u64>,
}

impl Object {
    pub fn type_name(&self) -> &'static str {
        match self {
            Object::Module(_) => "module",
            Object::Layer(l) => l.kind,
            Object::Buffer(_) => "_io.BytesIO",
        }
    }

    pub fn repr(&self) -> String {
        match self {
            Object::Module(m) => format!("<module '{m}'>"),
            Object::Layer(l) => l.repr.clone(),
            Object::Buffer(_) => "<_io.BytesIO object>".into(),
        }
    }

    /// The tensors the object keeps alive (a layer's parameters, what a buffer holds).
    pub fn tensors(&self) -> Vec<Tensor> {
        let mut out = Vec::new();
        match self {
            Object::Module(_) => {}
            Object::Layer(l) => out.extend(l.params.borrow().iter().filter_map(|(_, t)| t.clone())),
            Object::Buffer(b) => b.saved.borrow().iter().for_each(|s| s.collect(&mut out)),
        }
        out
    }
}
