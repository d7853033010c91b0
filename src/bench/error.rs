//! Typed failures of `stridekit bench`; each names what failed.

use crate::backend::cuda::CudaError;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A bad command-line value (`--device`, `--cases`, a time limit).
    #[error("{0}")]
    Usage(String),
    /// A case whose recipe does not make a valid view (a suite bug, or a bad spec).
    #[error("case {case}: {message}")]
    Case { case: String, message: String },
    /// A suite file (`bench/cases/cases.toml` or one in its format) that does not parse or
    /// describes an impossible case.
    #[error("bench cases file, line {line}: {message}")]
    CaseData { line: usize, message: String },
    /// A CUDA call failed on a device.
    #[error("cuda:{device}: {source}")]
    Cuda {
        device: usize,
        #[source]
        source: CudaError,
    },
    /// No GPU to run on.
    #[error("{0}")]
    NoGpu(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A baseline file that is not a benchmark result.
    #[error("baseline {file}: {message}")]
    Baseline { file: String, message: String },
    /// Outputs that differed from the reference (the reports are still written).
    #[error("verification failed for: {0}")]
    Verification(String),
    /// A device thread stopped without a result.
    #[error("the benchmark thread of {0} panicked")]
    Thread(String),
}

impl BenchError {
    pub fn io(path: &std::path::Path, source: std::io::Error) -> BenchError {
        BenchError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    pub fn cuda(device: usize) -> impl FnOnce(CudaError) -> BenchError {
        move |source| BenchError::Cuda { device, source }
    }
}
