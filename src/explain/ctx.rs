//! What the layer ops need from the running program, without the evaluator: autograd's
//! state, the program's device, its random generator, warnings and the names of tensors.

use super::autograd::State;
use crate::rng::SplitMix64;
use crate::storage::Device;
use crate::tensor::Tensor;
use std::cell::RefCell;

pub struct Ctx<'a> {
    pub grad: &'a State,
    /// The program's device (`explain --device`).
    pub device: Device,
    pub rng: &'a RefCell<SplitMix64>,
    /// Records a warning about the statement running.
    pub warn: &'a dyn Fn(&'static str, String),
    /// The first global name bound to a tensor.
    pub name_of: &'a dyn Fn(&Tensor) -> Option<String>,
}
