//! Typed errors of the caching allocator, its settings, its devices and its trace readers.

use std::fmt;

/// Formats a byte count the way PyTorch's `format_size` does (bytes, KiB, MiB, GiB).
pub fn format_size(size: u64) -> String {
    if size <= 1024 {
        format!("{size} bytes")
    } else if size <= 1_048_576 {
        format!("{:.2} KiB", size as f64 / 1024.0)
    } else if size <= 1_073_741_824 {
        format!("{:.2} MiB", size as f64 / 1_048_576.0)
    } else {
        format!("{:.2} GiB", size as f64 / 1_073_741_824.0)
    }
}

/// The figures PyTorch reports when an allocation cannot be satisfied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfMemory {
    /// Bytes the allocator tried to obtain from the device (the rounded segment size).
    pub tried: u64,
    /// Bytes the caller asked for.
    pub requested: u64,
    /// Total device capacity (or the allowed maximum under a memory fraction).
    pub capacity: u64,
    /// Free device memory reported by the device after releasing cached blocks.
    pub device_free: u64,
    /// Bytes handed out to callers.
    pub allocated: u64,
    /// Bytes held from the device.
    pub reserved: u64,
    /// The memory fraction's allowed bytes, when one is set.
    pub allowed: Option<u64>,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out of memory. Tried to allocate {} (request of {} bytes). Device has a total capacity of {} of which {} is free. ",
            format_size(self.tried),
            self.requested,
            format_size(self.capacity),
            format_size(self.device_free)
        )?;
        if let Some(a) = self.allowed {
            write!(f, "{} allowed; ", format_size(a))?;
        }
        write!(
            f,
            "Of the allocated memory {} is allocated by the caching allocator, and {} is reserved but unallocated. If reserved but unallocated memory is large try setting expandable_segments:True to avoid fragmentation.",
            format_size(self.allocated),
            format_size(self.reserved.saturating_sub(self.allocated))
        )
    }
}

/// Every way the allocator and its tools can fail.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AllocError {
    /// The device could not supply memory even after freeing cached blocks and retrying.
    #[error("{0}")]
    OutOfMemory(Box<OutOfMemory>),
    /// A device call failed for a reason other than running out of memory.
    #[error("device call {call} failed: {message}")]
    Device { call: &'static str, message: String },
    /// No CUDA driver library on this machine.
    #[error("CUDA driver library (libcuda) not found; use the simulated device (--device sim)")]
    NoCudaDriver,
    /// A pointer or handle the allocator did not hand out, or one already freed.
    #[error("invalid device pointer: {0:#x}")]
    InvalidPointer(u64),
    /// A setting string that does not parse.
    #[error("allocator setting {key}: {message}")]
    Config { key: String, message: String },
    /// A trace file with a bad line.
    #[error("{file}:{line}{}: {message}", match .field { Some(f) => format!(" (field {f})"), None => String::new() })]
    Trace {
        file: String,
        line: usize,
        field: Option<String>,
        message: String,
    },
    /// A file that cannot be read or written.
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// Bad command-line usage.
    #[error("{0}")]
    Usage(String),
    /// The allocator's own bookkeeping is inconsistent (a bug in stridekit).
    #[error("allocator bookkeeping: {0} (a bug in stridekit; please report it)")]
    Internal(String),
    /// Standard output was closed before everything was written (a reader such as
    /// `head` stopped reading); `alloc::cli::run` stops there and reports success.
    #[error("standard output was closed")]
    OutputClosed,
}

impl AllocError {
    pub(crate) fn config(key: impl Into<String>, message: impl Into<String>) -> Self {
        AllocError::Config {
            key: key.into(),
            message: message.into(),
        }
    }
    pub(crate) fn io(path: impl fmt::Display, e: impl fmt::Display) -> Self {
        AllocError::Io {
            path: path.to_string(),
            message: e.to_string(),
        }
    }
}

impl From<std::io::Error> for AllocError {
    /// A failed write to standard output: [`AllocError::OutputClosed`] for a closed pipe.
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            AllocError::OutputClosed
        } else {
            AllocError::io("standard output", e)
        }
    }
}

pub type AllocResult<T> = Result<T, AllocError>;
