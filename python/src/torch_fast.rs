//! A CPU `torch.Tensor`'s DLPack capsule without the protocol's Python-level calls.
//!
//! `Tensor.__dlpack_device__` and `Tensor.__dlpack__` are Python functions in torch
//! (`torch/_tensor.py`): on a host copy of a few MiB their checks cost as much as a tenth
//! of the copy (docs/cpu.md). For exactly a `torch.Tensor` on the CPU that the protocol
//! would export unchanged (no gradient required, no conjugate bit, strided layout, no
//! `__torch_function__` mode active), the capsule comes straight from the C function that
//! `__dlpack__` itself ends in (`torch._C._to_dlpack_versioned`, with `copy=False` for a
//! destination). Everything else, CUDA tensors (whose stream handshake the protocol does)
//! and subclasses included, takes the protocol's path, which also raises torch's own errors.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

/// What the fast path needs from an imported torch.
struct Torch {
    tensor: Py<PyType>,
    strided: Py<PyAny>,
    export: Py<PyAny>,
    function_mode_enabled: Py<PyAny>,
}

static TORCH: PyOnceLock<Torch> = PyOnceLock::new();

/// torch's pieces when the program has imported torch (this module never imports it).
fn torch(py: Python<'_>) -> Option<&Torch> {
    if let Some(t) = TORCH.get(py) {
        return Some(t);
    }
    let found = || -> PyResult<Option<Torch>> {
        let modules = py
            .import(intern!(py, "sys"))?
            .getattr(intern!(py, "modules"))?;
        let Ok(m) = modules.get_item("torch") else {
            return Ok(None);
        };
        let c = m.getattr("_C")?;
        Ok(Some(Torch {
            tensor: m.getattr("Tensor")?.cast_into::<PyType>()?.unbind(),
            strided: m.getattr("strided")?.unbind(),
            export: c.getattr("_to_dlpack_versioned")?.unbind(),
            function_mode_enabled: c.getattr("_is_torch_function_mode_enabled")?.unbind(),
        }))
    };
    // A torch without these names (another version, a partial import) gets the protocol.
    let t = found().ok().flatten()?;
    let _ = TORCH.set(py, t);
    TORCH.get(py)
}

/// The capsule `obj.__dlpack__(max_version=(1, 0)[, copy=False])` would return, when `obj`
/// is exactly a CPU `torch.Tensor` the protocol exports as it is; None otherwise.
pub fn cpu_capsule<'py>(
    obj: &Bound<'py, PyAny>,
    writable: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = obj.py();
    let Some(t) = torch(py) else {
        return Ok(None);
    };
    if !obj.get_type().is(t.tensor.bind(py))
        || t.function_mode_enabled.bind(py).call0()?.is_truthy()?
        || !obj.getattr(intern!(py, "is_cpu"))?.is_truthy()?
        || obj.getattr(intern!(py, "requires_grad"))?.is_truthy()?
        || obj.call_method0(intern!(py, "is_conj"))?.is_truthy()?
        || !obj.getattr(intern!(py, "layout"))?.is(t.strided.bind(py))
    {
        return Ok(None);
    }
    let export = t.export.bind(py);
    let capsule = if writable {
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "copy"), false)?;
        export.call((obj,), Some(&kwargs))?
    } else {
        export.call1((obj,))?
    };
    Ok(Some(capsule))
}
