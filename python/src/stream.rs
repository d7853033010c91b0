//! The CUDA stream of a call, as the DLPack protocol names streams: None is the legacy
//! default stream (protocol value 1, `cudaStream_t` 0), 2 the per-thread default stream,
//! any other value a `cudaStream_t`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The stream argument of `copy_`/`contiguous`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream(Option<usize>);

impl Stream {
    /// None, an int (a `cudaStream_t`; 1 and 2 as the protocol's legacy and per-thread
    /// default streams), or an object with `.cuda_stream` (torch.cuda.Stream, cupy).
    pub fn from_arg(arg: Option<&Bound<'_, PyAny>>) -> PyResult<Stream> {
        let Some(a) = arg.filter(|a| !a.is_none()) else {
            return Ok(Stream(None));
        };
        let v: isize = match a.extract() {
            Ok(v) => v,
            Err(_) => a.getattr("cuda_stream")?.extract()?,
        };
        match v {
            0 => Err(PyValueError::new_err(
                "stream 0 is ambiguous in the DLPack protocol: use None or 1 for the legacy default stream, 2 for the per-thread one",
            )),
            1 => Ok(Stream(None)),
            v if v < 0 => Err(PyValueError::new_err(format!("stream {v} is negative"))),
            v => Ok(Stream(Some(v as usize))),
        }
    }

    /// The value to pass to a CUDA producer's `__dlpack__(stream=...)`.
    pub fn protocol_value(self) -> usize {
        self.0.unwrap_or(1)
    }

    /// The `CUstream` to launch on (0: the legacy default stream; 2 is CU_STREAM_PER_THREAD).
    pub fn handle(self) -> usize {
        self.0.unwrap_or(0)
    }
}
