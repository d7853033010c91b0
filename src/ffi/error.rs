//! Errors across the C boundary: every failing call returns a nonzero status (one of the
//! `STRIDEKIT_ERR_*` codes) and leaves its message in a thread-local buffer that
//! [`stridekit_last_error`](super::capi::stridekit_last_error) returns. A panic inside
//! stridekit is caught at the boundary and reported the same way
//! ([`STRIDEKIT_ERR_INTERNAL`]); it never unwinds into the caller.

use std::cell::RefCell;
use std::ffi::{CString, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::alloc::AllocError;
use crate::backend::cuda::CudaError;
use crate::error::{ErrorKind, TensorError};

/// Success.
pub const STRIDEKIT_OK: c_int = 0;
/// A NULL pointer, a malformed DLTensor, an unknown dtype or device, a bad setting.
pub const STRIDEKIT_ERR_INVALID_ARGUMENT: c_int = 1;
/// The tensor operation itself was refused (shapes that do not broadcast, overlap, an
/// index out of range), with PyTorch's message where it has one.
pub const STRIDEKIT_ERR_TENSOR: c_int = 2;
/// No GPU or driver, or a failing CUDA call (the message names it).
pub const STRIDEKIT_ERR_DEVICE: c_int = 3;
/// The caching allocator could not satisfy a request (PyTorch's out-of-memory message).
pub const STRIDEKIT_ERR_OUT_OF_MEMORY: c_int = 4;
/// A bug in stridekit (a caught panic); the message says where.
pub const STRIDEKIT_ERR_INTERNAL: c_int = 5;

/// A failure to hand to C: a status code and a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FfiError {
    pub status: c_int,
    pub message: String,
}

impl FfiError {
    pub fn invalid(message: impl Into<String>) -> FfiError {
        FfiError {
            status: STRIDEKIT_ERR_INVALID_ARGUMENT,
            message: message.into(),
        }
    }

    pub fn tensor(kind: ErrorKind, message: impl Into<String>) -> FfiError {
        FfiError::from(TensorError::new(kind, message))
    }
}

impl From<TensorError> for FfiError {
    fn from(e: TensorError) -> Self {
        let status = match e.kind {
            ErrorKind::Device => STRIDEKIT_ERR_DEVICE,
            ErrorKind::DtypeUnsupported => STRIDEKIT_ERR_INVALID_ARGUMENT,
            _ => STRIDEKIT_ERR_TENSOR,
        };
        FfiError {
            status,
            message: e.message,
        }
    }
}

impl From<CudaError> for FfiError {
    fn from(e: CudaError) -> Self {
        FfiError {
            status: STRIDEKIT_ERR_DEVICE,
            message: e.to_string(),
        }
    }
}

impl From<AllocError> for FfiError {
    fn from(e: AllocError) -> Self {
        let status = match &e {
            AllocError::OutOfMemory(_) => STRIDEKIT_ERR_OUT_OF_MEMORY,
            AllocError::NoCudaDriver | AllocError::Device { .. } => STRIDEKIT_ERR_DEVICE,
            _ => STRIDEKIT_ERR_INVALID_ARGUMENT,
        };
        FfiError {
            status,
            message: e.to_string(),
        }
    }
}

pub type FfiResult<T> = Result<T, FfiError>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `message` as this thread's last error.
pub fn set_last_error(message: &str) {
    // An interior NUL cannot be represented in a C string: cut the message there.
    let text = message.split('\0').next().unwrap_or_default();
    let c = CString::new(text).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// This thread's last error message ("" when no call failed yet); the pointer stays valid
/// until the next failing call on this thread.
pub fn last_error_ptr() -> *const std::ffi::c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// This thread's last error message, as a Rust string.
pub fn last_error() -> String {
    LAST_ERROR.with(|e| e.borrow().to_string_lossy().into_owned())
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".to_string())
}

/// Runs `f` at the C boundary: Ok gives [`STRIDEKIT_OK`]; an error or a panic records
/// its message and gives its nonzero status.
pub fn status_of(f: impl FnOnce() -> FfiResult<()>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => STRIDEKIT_OK,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status
        }
        Err(p) => {
            set_last_error(&format!(
                "internal error (a panic in stridekit, caught at the C boundary): {}",
                panic_message(&*p)
            ));
            STRIDEKIT_ERR_INTERNAL
        }
    }
}

/// Runs `f` at the C boundary for a call that returns a pointer: NULL on an error or a
/// panic, with the message recorded.
pub fn ptr_or_null<T>(f: impl FnOnce() -> FfiResult<*mut T>) -> *mut T {
    let mut out = std::ptr::null_mut();
    let status = status_of(|| {
        out = f()?;
        Ok(())
    });
    if status != STRIDEKIT_OK {
        return std::ptr::null_mut();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_and_panics_become_statuses_and_messages() {
        assert_eq!(status_of(|| Ok(())), STRIDEKIT_OK);
        let rc = status_of(|| Err(FfiError::invalid("dst is NULL")));
        assert_eq!(
            (rc, last_error().as_str()),
            (STRIDEKIT_ERR_INVALID_ARGUMENT, "dst is NULL")
        );
        let rc = status_of(|| panic!("boom"));
        assert_eq!(rc, STRIDEKIT_ERR_INTERNAL);
        assert!(
            last_error().ends_with("caught at the C boundary): boom"),
            "{}",
            last_error()
        );
        let p: *mut u8 = ptr_or_null(|| Err(FfiError::invalid("no")));
        assert!(p.is_null());
        // Messages are per thread.
        std::thread::spawn(|| assert_eq!(last_error(), ""))
            .join()
            .unwrap();
        set_last_error("a\0b");
        assert_eq!(last_error(), "a");
    }
}
