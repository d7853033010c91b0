//! stridekit: dense strided tensors with PyTorch's layout semantics, exact memory
//! accounting, and (with a GPU) handwritten CUDA kernels.

pub mod alloc;
pub mod dtype;
pub mod error;
pub mod layout;

pub use dtype::DType;
pub use error::{ErrorKind, TensorError};
pub use layout::{Layout, MemoryFormat};
