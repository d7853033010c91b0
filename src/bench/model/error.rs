//! What can go wrong building a model report.

/// A model error, naming what could not be modelled or read.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A kernel (or geometry) the model does not follow.
    #[error("the model does not follow kernel {0}")]
    Unmodelled(String),
    /// The built-in sm_90 resource table (or a line of it).
    #[error("sm_90 resource table: {0}")]
    Table(String),
    #[error(transparent)]
    Bench(#[from] crate::bench::BenchError),
    #[error("{what}: {message}")]
    Input { what: String, message: String },
    #[error("usage: {0}")]
    Usage(String),
}
