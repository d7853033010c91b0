//! `Tensor` = shared storage + layout + dtype. View operations delegate to the pure rules in
//! [`crate::layout`]; copies and in-place writes go through a [`crate::plan::CopyPlan`] run
//! by a backend.

mod advanced_index;
pub mod arith;
mod convert;
mod copies;
mod create;
pub mod device;
pub mod elementwise;
mod elementwise_gpu;
mod exec;
pub mod host_fallback;
mod inplace;
mod object;
mod operand;
pub mod overlap_policy;
mod reduce;
mod reduce_dim;
mod sequential;
pub use advanced_index::AdvancedItem;
pub use create::Random;
pub use elementwise::Operand;
pub use inplace::SetValue;
pub use reduce::Reduction;

pub use convert::checked_fill_value;

pub use object::Tensor;

#[cfg(test)]
mod tests;
