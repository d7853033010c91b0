//! The nodes of the ops added after the first autograd set (matmul and the layer ops): each
//! op module builds its own node with a [`Backward`] of its own and records it here, saving
//! what PyTorch's derivatives.yaml says (only what an input that needs a gradient uses).

use super::State;
pub use super::formula::Backward;
use super::formula::Formula;
use super::node::{Input, Node, Saved};
use super::rules::{attach, input};
use crate::error::{ErrorKind, Result, TensorError};
use crate::tensor::Tensor;
use std::rc::Rc;

/// The saved tensor of `role` (PyTorch's `_saved_<role>`).
pub fn saved<'a>(saved: &'a [Saved], role: &str) -> Result<&'a Tensor> {
    saved
        .iter()
        .find(|s| s.role == role)
        .map(|s| &s.tensor)
        .ok_or_else(|| {
            TensorError::new(
                ErrorKind::Other,
                format!("autograd: the saved '{role}' is missing"),
            )
        })
}

/// Whether input `i` of a node wants a gradient.
pub fn wants(inputs: &[Input], i: usize) -> bool {
    inputs.get(i).is_some_and(|x| x.edge.is_some())
}

impl State {
    /// Grad mode is on and `t` requires grad: an op on it records a node.
    pub fn needs(&self, t: &Tensor) -> bool {
        self.enabled() && self.requires_grad(t)
    }

    /// `t` saved as an input of the node being made.
    pub fn save_input(&self, role: &'static str, t: &Tensor) -> Saved {
        super::rules::saved_input(self, role, t)
    }

    /// `t` saved as the output of the node being made.
    pub fn save_output(&self, role: &'static str, t: &Tensor) -> Saved {
        Saved {
            role,
            tensor: t.clone(),
            version: t.version(),
            is_output: true,
            meta: None,
            wrapped_number: false,
        }
    }

    /// Records node `name` for `result` of an op on `inputs` (in the formula's order), when
    /// grad mode is on, one of them requires grad and the result is floating.
    pub fn record_op(
        &self,
        name: &'static str,
        backward: Rc<dyn Backward>,
        inputs: &[&Tensor],
        saved: Vec<Saved>,
        result: &Tensor,
    ) {
        if !inputs.iter().any(|t| self.needs(t)) || !result.dtype().is_floating() {
            return;
        }
        let ins = inputs.iter().map(|t| input(self, t, None)).collect();
        attach(
            self,
            result,
            Node::new(name, Formula::Custom(backward), ins, saved),
        );
    }
}
