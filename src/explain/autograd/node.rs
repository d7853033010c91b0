//! The autograd graph: a tensor's autograd state ([`Meta`]), the nodes ops record
//! ([`Node`], named as PyTorch names them: `MulBackward0`, ...), the edges from a node to the
//! nodes (or leaves) of its inputs, and the tensors a node saves for backward ([`Saved`],
//! with the version each had when saved: PyTorch's `SavedVariable`), and what kind of
//! backward a node runs ([`Formula`]; the formulas themselves are in `formula.rs`).

use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A tensor's autograd state (PyTorch's `AutogradMeta`). Handles of one tensor share it.
#[derive(Debug, Default)]
pub struct Meta {
    /// Set on a leaf by `requires_grad=True` / `requires_grad_()`.
    pub requires_grad: bool,
    /// The node that made the tensor (None for a leaf).
    pub grad_fn: Option<Rc<Node>>,
    /// `.grad`: accumulated by backward on a leaf (and on a non-leaf after `retain_grad()`).
    pub grad: Option<Tensor>,
    /// `retain_grad()` was called on this non-leaf.
    pub retains_grad: bool,
}

impl Meta {
    pub fn requires_grad(&self) -> bool {
        self.requires_grad || self.grad_fn.is_some()
    }
}

pub type MetaRef = Rc<RefCell<Meta>>;

/// Where a node sends the gradient of one of its inputs.
#[derive(Debug, Clone)]
pub enum Edge {
    /// The input was made by this node.
    Node(Rc<Node>),
    /// The input is a leaf that requires grad (PyTorch's `AccumulateGrad`): its state and a
    /// handle of it (for the layout `.grad` gets).
    Leaf(MetaRef, Tensor),
}

/// What one input of a node looked like (PyTorch saves these as sizes, not tensors).
#[derive(Debug, Clone)]
pub struct Input {
    pub sizes: Vec<i64>,
    pub dtype: DType,
    /// Layout of the input, and of the op's output on the same storage (view ops).
    pub layout: crate::layout::Layout,
    pub view_out: Option<crate::layout::Layout>,
    /// Where its gradient goes; None when it needs none.
    pub edge: Option<Edge>,
}

/// A tensor a node saved for backward.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The formula's name for it (`self`, `other`, `result`).
    pub role: &'static str,
    pub tensor: Tensor,
    /// Its version when it was saved.
    pub version: u64,
    /// Saved as an output of the node itself (`result`); else an input, whose current
    /// `grad_fn` the version message names.
    pub is_output: bool,
    /// The saved input's autograd state (None for outputs and wrapped numbers).
    pub meta: Option<MetaRef>,
    /// A Python number the op turned into a 0-dim tensor (no version check).
    pub wrapped_number: bool,
}

/// An op's backward: the gradients of its inputs (None where one needs none) from its
/// output's gradient `grad`, reading `saved` by role.
pub trait Backward: std::fmt::Debug {
    fn apply(
        &self,
        grad: &Tensor,
        inputs: &[Input],
        saved: &[Saved],
    ) -> Result<Vec<Option<Tensor>>>;
}

/// How a node turns its output's gradient into its inputs' gradients.
#[derive(Debug, Clone)]
pub enum Formula {
    /// `self + alpha * other` (`other` may be a number: no second input).
    Add(Scalar),
    /// `self - alpha * other`.
    Sub(Scalar),
    /// `other - alpha * self` with a number `other` (Python's `2 - x`).
    Rsub(Scalar),
    /// `self * other`: saves `other` when `self` needs a gradient and `self` when `other` does.
    Mul,
    /// `self / other`: same saves as `Mul`.
    Div,
    Neg,
    /// Saves `result`.
    Exp,
    /// Saves `result`.
    Sqrt,
    /// `self ** exponent` for a number exponent (and `square`): saves `self`.
    Pow(Scalar),
    /// `sum`/`mean` over `dims` (None: every dim); `mean` divides by the count.
    Reduce {
        dims: Option<Vec<i64>>,
        keepdim: bool,
        mean: bool,
    },
    /// A view: the gradient lands on the input's elements the output's elements are;
    /// `summed` for the views whose PyTorch backward is a sum into zeros (expand, unfold:
    /// a -0.0 that lands alone becomes 0.0 there).
    View {
        summed: bool,
    },
    /// A copy with the same shape (clone, contiguous, to), or reshaped (reshape's copy).
    Copy,
    /// An op of a later module with its own backward (matmul, the layer ops).
    Custom(std::rc::Rc<dyn Backward>),
}

/// A node of the graph: one op's backward.
#[derive(Debug)]
pub struct Node {
    /// PyTorch's class name (`ExpBackward0`).
    pub name: &'static str,
    pub formula: Formula,
    pub inputs: Vec<Input>,
    /// What it saved; emptied by a backward without `retain_graph`.
    pub saved: RefCell<Vec<Saved>>,
    /// It saved something and a backward released it.
    pub released: Cell<bool>,
    /// PyTorch's `sequence_nr`: nodes made later have larger numbers, and the engine runs
    /// the ready node with the largest first.
    pub seq: u64,
}

thread_local! {
    static NEXT_SEQ: Cell<u64> = const { Cell::new(0) };
}

/// PyTorch's message for a second backward through released saved tensors.
pub const BACKWARD_TWICE: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

/// PyTorch's legacy type name of a tensor (`torch.FloatTensor`, `torch.cuda.LongTensor`).
pub fn legacy_type_name(t: &Tensor) -> String {
    let kind = t.dtype().scalar_type_name();
    match t.device() {
        crate::storage::Device::Cpu => format!("torch.{kind}Tensor"),
        crate::storage::Device::Cuda(_) => format!("torch.cuda.{kind}Tensor"),
    }
}

impl Node {
    /// A node that has released nothing yet.
    pub fn new(
        name: &'static str,
        formula: Formula,
        inputs: Vec<Input>,
        saved: Vec<Saved>,
    ) -> Node {
        Node {
            name,
            formula,
            inputs,
            saved: RefCell::new(saved),
            released: Cell::new(false),
            seq: NEXT_SEQ.with(|n| n.replace(n.get().saturating_add(1))),
        }
    }

    /// The saved tensors for one backward, each checked against its version (PyTorch's
    /// `SavedVariable::unpack` and its message).
    pub fn unpack(&self) -> Result<Vec<Saved>> {
        let saved = self.saved.borrow();
        if self.released.get() {
            return Err(TensorError::new(ErrorKind::Other, BACKWARD_TWICE));
        }
        for s in saved.iter().filter(|s| !s.wrapped_number) {
            let now = s.tensor.version();
            if now == s.version {
                continue;
            }
            let grad_fn = if s.is_output {
                Some(self.name)
            } else {
                s.meta
                    .as_ref()
                    .and_then(|m| m.borrow().grad_fn.as_ref().map(|n| n.name))
            };
            let sizes: Vec<String> = s.tensor.sizes().iter().map(|d| d.to_string()).collect();
            let mut m = format!(
                "one of the variables needed for gradient computation has been modified by an inplace operation: [{} [{}]]",
                legacy_type_name(&s.tensor),
                sizes.join(", ")
            );
            if let Some(name) = grad_fn {
                m.push_str(&format!(", which is output 0 of {name},"));
            }
            m.push_str(&format!(
                " is at version {now}; expected version {} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
                s.version
            ));
            return Err(TensorError::new(ErrorKind::Other, m));
        }
        Ok(saved.clone())
    }

    /// Frees what the node saved (a backward without `retain_graph`).
    pub fn release(&self) {
        let mut saved = self.saved.borrow_mut();
        if !saved.is_empty() {
            saved.clear();
            self.released.set(true);
        }
    }

    /// The nodes its inputs came from.
    pub fn next_nodes(&self) -> impl Iterator<Item = &Rc<Node>> {
        self.inputs.iter().filter_map(|i| match &i.edge {
            Some(Edge::Node(n)) => Some(n),
            _ => None,
        })
    }
}
