//! Typed errors for tensor operations.
//!
//! Every failing operation names its problem with an [`ErrorKind`] (stable, used by
//! `stridekit explain --json`) and a message that follows PyTorch's wording where PyTorch
//! has one.

use serde::Serialize;

/// The category of a failed tensor operation. Serialised in snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// `view` asked for a shape the strides cannot express.
    ViewIncompatible,
    /// A shape that does not fit the number of elements, or a negative size.
    InvalidShape,
    /// `expand` to a size the tensor cannot broadcast to.
    ExpandInvalid,
    /// `as_strided` reaching past the end of its storage.
    OutOfBoundsStorage,
    /// An in-place write into a view that addresses an element more than once.
    InternalOverlap,
    /// A copy between tensors that share some, but not all, of their elements.
    PartialOverlap,
    /// A dimension index outside the tensor's rank.
    DimOutOfRange,
    /// An element index outside a dimension's size.
    IndexOutOfRange,
    /// A slice, unfold or arange step that is not allowed.
    BadStep,
    /// A permutation that is not one.
    BadPermutation,
    /// An operation that does not support, or cannot produce, a dtype.
    DtypeUnsupported,
    /// A program that is not in the supported subset of Python.
    ParseError,
    /// A device that is missing or failed (no GPU, a failing CUDA call).
    Device,
    /// A storage that could not be allocated.
    OutOfMemory,
    /// A failed `assert` statement of an `explain` program.
    AssertionFailed,
    /// A PyTorch feature outside what stridekit models (autograd).
    Unsupported,
    /// An `explain` program that ran more statements than the interpreter allows (a loop
    /// that does not end), where Python would have gone on.
    LimitExceeded,
    /// Anything else.
    Other,
}

impl ErrorKind {
    /// The snake_case name used in JSON reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::ViewIncompatible => "view_incompatible",
            ErrorKind::InvalidShape => "invalid_shape",
            ErrorKind::ExpandInvalid => "expand_invalid",
            ErrorKind::OutOfBoundsStorage => "out_of_bounds_storage",
            ErrorKind::InternalOverlap => "internal_overlap",
            ErrorKind::PartialOverlap => "partial_overlap",
            ErrorKind::DimOutOfRange => "dim_out_of_range",
            ErrorKind::IndexOutOfRange => "index_out_of_range",
            ErrorKind::BadStep => "bad_step",
            ErrorKind::BadPermutation => "bad_permutation",
            ErrorKind::DtypeUnsupported => "dtype_unsupported",
            ErrorKind::ParseError => "parse_error",
            ErrorKind::Device => "device",
            ErrorKind::OutOfMemory => "out_of_memory",
            ErrorKind::AssertionFailed => "assertion_failed",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::Other => "other",
        }
    }
}

/// A failed tensor operation: what kind of failure, and PyTorch's message for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TensorError {
    pub kind: ErrorKind,
    pub message: String,
}

impl TensorError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        TensorError {
            kind,
            message: message.into(),
        }
    }
}

/// Shorthand for building an error of a given kind.
pub fn err<T>(kind: ErrorKind, message: impl Into<String>) -> Result<T, TensorError> {
    Err(TensorError::new(kind, message))
}

pub type Result<T, E = TensorError> = std::result::Result<T, E>;

/// PyTorch's message for an in-place write into a self-overlapping tensor.
pub const INTERNAL_OVERLAP_MSG: &str = "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";

/// PyTorch's message for a copy between partially overlapping tensors.
pub const PARTIAL_OVERLAP_MSG: &str = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.";
