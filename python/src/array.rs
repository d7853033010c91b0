//! `stridekit.Array`: a tensor whose storage stridekit owns, exported through DLPack
//! (`__dlpack__`, `__dlpack_device__`), so `torch.from_dlpack(a)` / `numpy.from_dlpack(a)`
//! share its memory. Each export holds a reference to the storage until its deleter runs;
//! the capsule's destructor runs the deleter only when no consumer took the tensor.

use std::ffi::{CStr, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use stridekit::backend::cuda::{DeviceBuffer, Gpu};
use stridekit::ffi::dlpack::{
    DLManagedTensor, DLManagedTensorVersioned, DLPACK_FLAG_BITMASK_IS_COPIED, DLPackVersion,
    DLTensor,
};
use stridekit::ffi::view::{device_to_dlpack, dtype_to_dlpack, span_bytes};
use stridekit::ffi::{CopyOp, RawView};
use stridekit::layout::contiguity::strides_for_copy;
use stridekit::{Device, Layout, MemoryFormat, Storage, Tensor};

use crate::dlpack_in::{Imported, LEGACY, VERSIONED};
use crate::stream::Stream;
use crate::{ffi_err, py_err};

static EXPORTED: AtomicU64 = AtomicU64::new(0);
static DELETED: AtomicU64 = AtomicU64::new(0);

/// _export_counts()
/// --
///
/// (managed tensors exported, deleters run) since the module was loaded: equal when every
/// export has been released, and never more deleters than exports.
#[pyfunction]
pub fn _export_counts() -> (u64, u64) {
    (
        EXPORTED.load(Ordering::SeqCst),
        DELETED.load(Ordering::SeqCst),
    )
}

/// What an exported DLTensor points into: a reference to the storage, and the shape and
/// strides arrays the DLTensor addresses.
struct ExportCtx {
    _tensor: Tensor,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    // SAFETY: made by `export` with Box::into_raw, deleted once (the protocol's rule).
    unsafe {
        drop(Box::from_raw((*m).manager_ctx as *mut ExportCtx));
        drop(Box::from_raw(m));
    }
    DELETED.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    // SAFETY: as `delete_versioned`.
    unsafe {
        drop(Box::from_raw((*m).manager_ctx as *mut ExportCtx));
        drop(Box::from_raw(m));
    }
    DELETED.fetch_add(1, Ordering::SeqCst);
}

/// A capsule that no consumer renamed still owns its tensor: run its deleter.
unsafe extern "C" fn capsule_destructor(cap: *mut ffi::PyObject) {
    // SAFETY: `cap` is the capsule being destroyed; IsValid checks its name first (and
    // sets no error).
    unsafe {
        if ffi::PyCapsule_IsValid(cap, VERSIONED.as_ptr()) == 1 {
            let m =
                ffi::PyCapsule_GetPointer(cap, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        } else if ffi::PyCapsule_IsValid(cap, LEGACY.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, LEGACY.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

/// A new capsule owning `ptr` under `name`.
fn new_capsule<'py>(
    py: Python<'py>,
    ptr: *mut c_void,
    name: &'static CStr,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: a valid pointer and a static name; the destructor frees what `ptr` owns.
    unsafe {
        let c = ffi::PyCapsule_New(ptr, name.as_ptr(), Some(capsule_destructor));
        Bound::from_owned_ptr_or_err(py, c)
    }
}

/// A tensor whose memory stridekit owns (host memory, or device memory on its GPU),
/// exported to other libraries through DLPack.
#[pyclass(module = "stridekit", name = "Array", frozen)]
pub struct Array {
    tensor: Tensor,
}

impl Array {
    fn data_ptr(&self) -> *mut c_void {
        let s = self.tensor.storage();
        match s.cuda() {
            Some(b) => b.ptr() as *mut c_void,
            None => s
                .write()
                .map_or(std::ptr::null_mut(), |mut v| v.as_mut_ptr() as *mut c_void),
        }
    }

    /// A DLTensor of `tensor` and the context that keeps what it points to alive.
    fn dl_tensor(tensor: &Tensor, data: *mut c_void) -> (DLTensor, Box<ExportCtx>) {
        let mut ctx = Box::new(ExportCtx {
            _tensor: tensor.clone(),
            _shape: tensor.sizes().to_vec(),
            _strides: tensor.strides().to_vec(),
        });
        let t = DLTensor {
            data,
            device: device_to_dlpack(tensor.device()),
            ndim: tensor.ndim() as i32,
            dtype: dtype_to_dlpack(tensor.dtype()),
            shape: ctx._shape.as_mut_ptr(),
            strides: ctx._strides.as_mut_ptr(),
            byte_offset: (tensor.storage_offset() as usize * tensor.itemsize()) as u64,
        };
        (t, ctx)
    }
}

impl Array {
    fn dlpack_impl<'py>(
        &self,
        py: Python<'py>,
        stream: Option<Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let own = device_to_dlpack(self.tensor.device());
        if let Some((t, id)) = dl_device
            && (t, id) != (own.device_type, own.device_id)
        {
            return Err(PyBufferError::new_err(format!(
                "dl_device ({t}, {id}): stridekit exports on its own device only ({}, {})",
                own.device_type, own.device_id
            )));
        }
        let copied = copy == Some(true);
        let source;
        let (tensor, data) = if copied {
            source = Array {
                tensor: self
                    .tensor
                    .clone_as(MemoryFormat::Preserve)
                    .map_err(py_err)?,
            };
            (&source.tensor, source.data_ptr())
        } else {
            (&self.tensor, self.data_ptr())
        };
        if let (Some(buf), Some(st)) = (tensor.storage().cuda(), stream) {
            // The consumer works on `stream`: the block is not reused before the work
            // queued there when the last reference goes has finished (-1: no stream).
            let st: isize = st.extract()?;
            if st > 0 {
                buf.record_stream(st as usize as *mut _).map_err(py_err)?;
            }
        }
        let (dl_tensor, ctx) = Array::dl_tensor(tensor, data);
        let ctx = Box::into_raw(ctx) as *mut c_void;
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        let capsule = if versioned {
            let m = Box::into_raw(Box::new(DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 0 },
                manager_ctx: ctx,
                deleter: Some(delete_versioned),
                flags: if copied {
                    DLPACK_FLAG_BITMASK_IS_COPIED
                } else {
                    0
                },
                dl_tensor,
            }));
            new_capsule(py, m as *mut c_void, VERSIONED)
        } else {
            let m = Box::into_raw(Box::new(DLManagedTensor {
                dl_tensor,
                manager_ctx: ctx,
                deleter: Some(delete_legacy),
            }));
            new_capsule(py, m as *mut c_void, LEGACY)
        }?;
        EXPORTED.fetch_add(1, Ordering::SeqCst);
        Ok(capsule)
    }
}

#[pymethods]
impl Array {
    /// __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)
    /// --
    ///
    /// The array as a DLPack capsule: `dltensor_versioned` (DLPack 1.0) when the consumer
    /// passes `max_version` >= (1, 0), else the legacy `dltensor`. The data is ready when
    /// `contiguous` returns, so `stream` needs no synchronisation; on CUDA the storage is
    /// recorded on it, so its block is not reused before the consumer's work there has
    /// run. `copy=True` exports a fresh copy; `dl_device` must be the array's own device.
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::guarded(|| self.dlpack_impl(py, stream, max_version, dl_device, copy))
    }

    /// __dlpack_device__()
    /// --
    ///
    /// (device type, device id) as DLPack numbers them: (1, 0) for the CPU, (2, N) for cuda:N.
    fn __dlpack_device__(&self) -> (i32, i32) {
        let d = device_to_dlpack(self.tensor.device());
        (d.device_type, d.device_id)
    }

    /// The sizes, as a tuple.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.tensor.sizes())
    }

    /// The strides in elements, as a tuple (PyTorch's `stride()`).
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.tensor.strides())
    }

    /// PyTorch's dtype name, e.g. "float32".
    #[getter]
    fn dtype(&self) -> &'static str {
        self.tensor.dtype().torch_name()
    }

    /// "cpu" or "cuda:N".
    #[getter]
    fn device(&self) -> String {
        self.tensor.device().to_string()
    }

    /// Bytes of the storage.
    #[getter]
    fn nbytes(&self) -> usize {
        self.tensor.storage().nbytes()
    }

    fn __repr__(&self) -> String {
        format!(
            "stridekit.Array(shape={:?}, strides={:?}, dtype={}, device={})",
            self.tensor.sizes(),
            self.tensor.strides(),
            self.tensor.dtype(),
            self.tensor.device()
        )
    }
}

/// A memory format by PyTorch's name ("contiguous", "channels_last", "channels_last_3d",
/// "preserve"), a `torch.memory_format` (its str), with or without "torch." and
/// "_format".
fn memory_format(arg: &Bound<'_, PyAny>) -> PyResult<MemoryFormat> {
    let s = arg.str()?.to_string();
    let name = s.strip_prefix("torch.").unwrap_or(&s);
    Ok(match name {
        "contiguous" | "contiguous_format" => MemoryFormat::Contiguous,
        "channels_last" => MemoryFormat::ChannelsLast,
        "channels_last_3d" => MemoryFormat::ChannelsLast3d,
        "preserve" | "preserve_format" => MemoryFormat::Preserve,
        _ => {
            return Err(PyValueError::new_err(format!(
                "memory_format {s:?}: expected contiguous, channels_last, channels_last_3d or preserve"
            )));
        }
    })
}

/// contiguous(x, memory_format="contiguous", stream=None)
/// --
///
/// A new stridekit-owned Array on `x`'s device holding `x`'s values in `memory_format`
/// ("contiguous", "channels_last" for 4-d, "channels_last_3d" for 5-d, "preserve": the
/// strides `x.clone()` would get). `x` is any object implementing `__dlpack__`, read in
/// place. On CUDA the copy runs on `stream` (as `copy_`) and is waited for, so the Array
/// is ready for any consumer and stream.
#[pyfunction]
#[pyo3(signature = (x, memory_format = None, stream = None))]
pub fn contiguous(
    py: Python<'_>,
    x: Bound<'_, PyAny>,
    memory_format: Option<Bound<'_, PyAny>>,
    stream: Option<Bound<'_, PyAny>>,
) -> PyResult<Array> {
    crate::guarded(|| contiguous_impl(py, x, memory_format, stream))
}

fn contiguous_impl(
    py: Python<'_>,
    x: Bound<'_, PyAny>,
    memory_format: Option<Bound<'_, PyAny>>,
    stream: Option<Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let format = match &memory_format {
        None => MemoryFormat::Contiguous,
        Some(f) => self::memory_format(f)?,
    };
    let stream = Stream::from_arg(stream.as_ref())?;
    let src: Imported = Imported::from_object(&x, stream, false, "x")?;
    let v = &src.view;
    let strides = strides_for_copy(v.layout.sizes(), v.layout.strides(), format).map_err(py_err)?;
    let layout = Layout::new(v.layout.sizes(), &strides, 0).map_err(py_err)?;
    // The source's extent may be tiny (stride 0) while the dense output is not: its size is
    // computed with checked arithmetic (a wrapped size would be a too-small buffer).
    let nbytes = span_bytes(&layout, v.dtype.itemsize()).ok_or_else(|| {
        py_err(format!(
            "x: a dense copy of shape {:?} ({}) holds more bytes than an int64 counts \
             (storage size calculation overflowed)",
            v.layout.sizes(),
            v.dtype
        ))
    })?;
    let storage = match v.device {
        // PyTorch raises a RuntimeError for this; Python's own type for it is MemoryError.
        Device::Cpu => Storage::zeroed(nbytes)
            .map_err(|e| pyo3::exceptions::PyMemoryError::new_err(e.to_string()))?,
        Device::Cuda(n) => {
            let gpu = Gpu::shared(n).map_err(py_err)?;
            let buf = DeviceBuffer::alloc(&gpu, nbytes).map_err(py_err)?;
            // The block is ordered on stridekit's stream; the copy below runs on `stream`,
            // which first waits for stridekit's (the block's last user may still run).
            // SAFETY: `stream` is the caller's stream of this device (or the default one).
            unsafe { gpu.stream_waits_for_own(stream.handle() as *mut _) }.map_err(py_err)?;
            Storage::from_device_buffer(buf)
        }
    };
    let out = Array {
        tensor: Tensor::from_storage(storage, layout.clone(), v.dtype).map_err(py_err)?,
    };
    let dst = RawView {
        device: v.device,
        dtype: v.dtype,
        layout,
        byte_offset: 0,
        extent: nbytes,
    };
    let op = CopyOp::new(dst, v.clone()).map_err(ffi_err)?;
    let (dp, sp, st, dev) = (
        out.data_ptr() as usize,
        src.data as usize,
        stream.handle(),
        v.device,
    );
    py.detach(move || {
        // SAFETY: `out` owns the destination; `src` keeps the source alive until dropped
        // after this call.
        unsafe {
            op.run(dp as *mut c_void, sp as *const c_void, st as *mut c_void)?;
            stridekit::ffi::copy::wait_for_stream(dev, st as *mut c_void)
        }
    })
    .map_err(ffi_err)?;
    drop(src);
    Ok(out)
}
