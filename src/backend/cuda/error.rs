//! Typed CUDA failures: each names the call that failed.

use cudarc::driver::DriverError;

#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    /// libcuda could not be loaded: no NVIDIA driver (and so no GPU) on this machine.
    #[error(
        "no CUDA driver: libcuda could not be loaded (this machine has no NVIDIA GPU or driver)"
    )]
    NoDriver,
    /// Neither a fatbin in the binary nor libnvrtc to compile the embedded sources.
    #[error(
        "cannot load the CUDA kernels: this binary carries no fatbin (built without nvcc) and libnvrtc could not be loaded"
    )]
    NoNvrtc,
    /// A driver older than the CUDA version the kernels need.
    #[error(
        "the NVIDIA driver supports CUDA {}.{}; stridekit's kernels need CUDA 13.0 or newer (driver 580+)",
        version / 1000,
        (version % 1000) / 10
    )]
    DriverTooOld { version: i32 },
    /// cuda:N with N not below the number of devices.
    #[error("no device cuda:{ordinal}: this machine has {count} CUDA device(s)")]
    NoSuchDevice { ordinal: usize, count: usize },
    /// A driver API call failed.
    #[error("{call} failed: {source}")]
    Driver {
        call: &'static str,
        #[source]
        source: DriverError,
    },
    /// NVRTC rejected the embedded kernel sources.
    #[error("NVRTC could not compile the embedded CUDA kernels for {arch}: {log}")]
    Nvrtc { arch: &'static str, log: String },
    /// A compute capability the kernels were not built for (below sm_80).
    #[error(
        "GPU compute capability {major}.{minor} is not supported (stridekit's kernels need 8.0 or newer)"
    )]
    UnsupportedArch { major: i32, minor: i32 },
    /// A plan with more dimensions than the kernels' fixed-size arrays hold.
    #[error("copy plan has {0} dimensions after folding; the CUDA kernels support at most 8")]
    RankTooLarge(usize),
    /// A shape too large for the launch geometry.
    #[error("{0}")]
    TooLarge(String),
    /// The device's caching allocator failed (out of memory, with PyTorch's message, or a
    /// failing driver call it made).
    #[error("{0}")]
    Allocator(#[from] crate::alloc::AllocError),
    /// The row gather met an index outside the source.
    #[error("index out of range in row gather (index_select along dim 0)")]
    IndexOutOfRange,
}

/// Attaches the failing call's name to a driver error.
pub(crate) trait Call<T> {
    fn call(self, name: &'static str) -> Result<T, CudaError>;
}

impl<T> Call<T> for Result<T, DriverError> {
    fn call(self, name: &'static str) -> Result<T, CudaError> {
        self.map_err(|source| CudaError::Driver { call: name, source })
    }
}

impl From<CudaError> for crate::error::TensorError {
    fn from(e: CudaError) -> Self {
        crate::error::TensorError::new(crate::error::ErrorKind::Device, e.to_string())
    }
}
