//! An operand of an element-wise op: a tensor or a Python number. Below the element-wise
//! paths (the dispatch, the GPU's and the sequential one), which all take it.

use super::Tensor;
use crate::dtype::PromotionOperand;
use crate::scalar::Scalar;

/// One operand of an element-wise op.
#[derive(Debug, Clone)]
pub enum Operand {
    Tensor(Tensor),
    /// A Python number (PyTorch's "wrapped number": it ranks below every tensor in
    /// promotion).
    Number(Scalar),
}

impl Operand {
    pub(super) fn promotion(&self) -> PromotionOperand {
        match self {
            Operand::Tensor(t) if t.ndim() == 0 => PromotionOperand::ZeroDim(t.dtype()),
            Operand::Tensor(t) => PromotionOperand::Dimensioned(t.dtype()),
            Operand::Number(s) => PromotionOperand::Number(s.category()),
        }
    }

    pub(super) fn tensor(&self) -> Option<&Tensor> {
        match self {
            Operand::Tensor(t) => Some(t),
            Operand::Number(_) => None,
        }
    }
}
