//! The CUDA stream of a call. The argument is a `cudaStream_t` value (an int, or an object
//! with `.cuda_stream` such as `torch.cuda.Stream`); None or 0 is the legacy default stream.
//! The special handles 1 (`cudaStreamLegacy`) and 2 (`cudaStreamPerThread`) mean what the
//! DLPack protocol's stream values 1 and 2 mean, so a handle is passed to producers'
//! `__dlpack__(stream=...)` as it is, except 0, which the protocol forbids (it sends 1).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The stream argument of `copy_`/`contiguous`: the `CUstream` to launch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream(usize);

impl Stream {
    pub fn from_arg(arg: Option<&Bound<'_, PyAny>>) -> PyResult<Stream> {
        let Some(a) = arg.filter(|a| !a.is_none()) else {
            return Ok(Stream(0));
        };
        let v: isize = match a.extract() {
            Ok(v) => v,
            Err(_) => a.getattr("cuda_stream")?.extract()?,
        };
        if v < 0 {
            return Err(PyValueError::new_err(format!("stream {v} is negative")));
        }
        Ok(Stream(v as usize))
    }

    /// The value to pass to a CUDA producer's `__dlpack__(stream=...)`.
    pub fn protocol_value(self) -> usize {
        if self.0 == 0 { 1 } else { self.0 }
    }

    /// The `CUstream` to launch on (0: the legacy default stream).
    pub fn handle(self) -> usize {
        self.0
    }
}
