//! The live tracer's Rust half (`python -m stridekit trace`, `stridekit.trace()`): PyTorch
//! runs the program and the Python side reports what it saw (storages created and freed,
//! the named tensors' layouts after every step, what autograd saved); this module keeps the
//! books with the same accounting and report types as `explain`, and with `sim` replays the
//! storages into PyTorch's caching allocator as cuda:0 would see them.

pub mod meta;
pub mod report;
pub mod session;

pub use meta::{TensorMeta, TraceError};
pub use report::{FinalTensor, ProgramError, SavedTensor, TraceReport};
pub use session::{Session, Thresholds};
