//! stridekit: dense strided tensors with PyTorch's layout semantics, exact memory
//! accounting, and (with a GPU) handwritten CUDA kernels.

pub mod accounting;
pub mod alloc;
pub mod backend;
pub mod bench;
pub mod dtype;
pub mod error;
pub mod explain;
pub mod ffi;
pub mod layout;
pub mod plan;
pub mod report;
pub mod rng;
pub mod scalar;
pub mod simulated_cuda;
pub mod storage;
pub mod svg;
pub mod tensor;
pub mod trace;

pub use dtype::DType;
pub use error::{ErrorKind, TensorError};
pub use layout::{Layout, MemoryFormat};
pub use scalar::Scalar;
pub use storage::{Device, Storage};
pub use tensor::Tensor;

/// What built this binary: `git describe --always --dirty` when the build set
/// STRIDEKIT_BUILD (`scripts/gpu-check build` does), else the crate version. `stridekit
/// info`, every bench record and its header carry it, so results from uncommitted changes
/// say so.
pub const BUILD: &str = match option_env!("STRIDEKIT_BUILD") {
    Some(b) => b,
    None => concat!(
        "v",
        env!("CARGO_PKG_VERSION"),
        " (built without STRIDEKIT_BUILD)"
    ),
};

/// The Rust examples of README.md and docs/architecture.md run as doc tests
/// (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
#[doc = include_str!("../docs/architecture.md")]
pub struct DocsExamples;
