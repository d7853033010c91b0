//! Consuming a `__dlpack__` capsule: the protocol's calls (`__dlpack_device__`, then
//! `__dlpack__(stream=..., max_version=(1, 0))`, falling back to the pre-1.0 signature),
//! the capsule renamed to `used_dltensor[_versioned]` so that its producer no longer owns
//! it, and the managed tensor's deleter called exactly once when the import is dropped. A
//! CPU `torch.Tensor` skips the protocol's Python-level calls ([`crate::torch_fast`]).

use std::ffi::{CStr, c_void};

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use stridekit::ffi::RawView;
use stridekit::ffi::dlpack::{
    DLManagedTensor, DLManagedTensorVersioned, DLPACK_FLAG_BITMASK_IS_COPIED,
    DLPACK_FLAG_BITMASK_READ_ONLY, DLTensor, kDLCUDA, kDLCUDAManaged,
};

use crate::stream::Stream;

pub const VERSIONED: &CStr = c"dltensor_versioned";
pub const LEGACY: &CStr = c"dltensor";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
const USED_LEGACY: &CStr = c"used_dltensor";

enum Owner {
    Versioned(*mut DLManagedTensorVersioned),
    Legacy(*mut DLManagedTensor),
}

/// A tensor borrowed from its producer through DLPack: its metadata, its data pointer,
/// and the managed tensor to release.
pub struct Imported {
    pub view: RawView,
    pub data: *mut c_void,
    owner: Owner,
}

impl Drop for Imported {
    /// Calls the producer's deleter, once (the GIL is held: producers' deleters may
    /// release Python objects).
    fn drop(&mut self) {
        // SAFETY: the managed tensor is ours since the capsule was renamed; its deleter
        // runs once, here.
        unsafe {
            match self.owner {
                Owner::Versioned(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
                Owner::Legacy(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
            }
        }
    }
}

fn is_cuda(device_type: i32) -> bool {
    device_type == kDLCUDA || device_type == kDLCUDAManaged
}

/// The capsule of `obj.__dlpack__`, asked for DLPack 1.0 first.
fn capsule<'py>(
    obj: &Bound<'py, PyAny>,
    stream: Stream,
    cuda: bool,
    writable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let kwargs = PyDict::new(py);
    if cuda {
        kwargs.set_item("stream", stream.protocol_value())?;
    }
    let legacy = kwargs.copy()?;
    kwargs.set_item("max_version", (1, 0))?;
    if writable {
        // A copy would take the writes away from the caller's tensor.
        kwargs.set_item("copy", false)?;
    }
    match obj.call_method("__dlpack__", (), Some(&kwargs)) {
        Ok(c) => Ok(c),
        Err(e) if e.is_instance_of::<PyTypeError>(py) => {
            obj.call_method("__dlpack__", (), Some(&legacy))
        }
        Err(e) => Err(e),
    }
}

impl Imported {
    /// Imports `obj` (`what` names it in messages). `writable`: refused when the producer
    /// marks the tensor read-only or copied.
    pub fn from_object(
        obj: &Bound<'_, PyAny>,
        stream: Stream,
        writable: bool,
        what: &str,
    ) -> PyResult<Imported> {
        let cap = match crate::torch_fast::cpu_capsule(obj, writable)? {
            Some(cap) => cap,
            None => {
                if !obj.hasattr("__dlpack__")? {
                    return Err(PyTypeError::new_err(format!(
                        "{what}: {} does not implement __dlpack__",
                        obj.get_type().name()?
                    )));
                }
                let (device_type, _id): (i32, i32) =
                    obj.call_method0("__dlpack_device__")?.extract()?;
                capsule(obj, stream, is_cuda(device_type), writable)?
            }
        };
        let p = cap.as_ptr();
        // SAFETY: `p` is a live object; the capsule calls check its type and name.
        let imported = unsafe {
            if ffi::PyCapsule_IsValid(p, VERSIONED.as_ptr()) == 1 {
                let m = ffi::PyCapsule_GetPointer(p, VERSIONED.as_ptr())
                    as *mut DLManagedTensorVersioned;
                if m.is_null() || ffi::PyCapsule_SetName(p, USED_VERSIONED.as_ptr()) != 0 {
                    return Err(PyErr::fetch(obj.py()));
                }
                // The version is read before any other field: only it and the deleter
                // keep their place across DLPack major versions.
                let version = (*m).version;
                if version.major != 1 {
                    // Ours since the rename: released here, once.
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                    return Err(PyBufferError::new_err(format!(
                        "{what}: DLPack {}.{} is not supported (stridekit reads 1.x)",
                        version.major, version.minor
                    )));
                }
                Imported::take(Owner::Versioned(m), &(*m).dl_tensor, what)
            } else if ffi::PyCapsule_IsValid(p, LEGACY.as_ptr()) == 1 {
                let m = ffi::PyCapsule_GetPointer(p, LEGACY.as_ptr()) as *mut DLManagedTensor;
                if m.is_null() || ffi::PyCapsule_SetName(p, USED_LEGACY.as_ptr()) != 0 {
                    return Err(PyErr::fetch(obj.py()));
                }
                Imported::take(Owner::Legacy(m), &(*m).dl_tensor, what)
            } else {
                return Err(PyTypeError::new_err(format!(
                    "{what}: __dlpack__ returned no 'dltensor' or 'dltensor_versioned' capsule (or one already consumed)"
                )));
            }
        }?;
        if let Owner::Versioned(m) = imported.owner {
            // SAFETY: owned and live until `imported` drops.
            let flags = unsafe { (*m).flags };
            if writable && flags & DLPACK_FLAG_BITMASK_READ_ONLY != 0 {
                return Err(PyBufferError::new_err(format!(
                    "{what} is read-only: its producer exported it with DLPack's READ_ONLY flag"
                )));
            }
            if writable && flags & DLPACK_FLAG_BITMASK_IS_COPIED != 0 {
                return Err(PyBufferError::new_err(format!(
                    "{what}: its producer exported a copy, so writes would not reach it"
                )));
            }
        }
        Ok(imported)
    }

    /// Takes ownership first (so that the deleter runs even when the metadata is refused).
    ///
    /// # Safety
    /// `t` is the live DLTensor of `owner`.
    unsafe fn take(owner: Owner, t: &DLTensor, what: &str) -> PyResult<Imported> {
        let mut imported = Imported {
            view: RawView {
                device: stridekit::Device::Cpu,
                dtype: stridekit::DType::U8,
                layout: stridekit::Layout::contiguous(&[]),
                byte_offset: 0,
                extent: 0,
            },
            data: t.data,
            owner,
        };
        // SAFETY: a producer's DLTensor holds ndim shape (and strides) values.
        imported.view = unsafe { RawView::from_dlpack(t, what) }.map_err(crate::ffi_err)?;
        Ok(imported)
    }
}
