//! `stridekit._stridekit`, the native half of the `stridekit` Python package (PyO3, abi3):
//! copies between any objects implementing `__dlpack__`, stridekit-owned arrays that
//! export themselves through DLPack, `explain` and allocator `replay`, and the statistics
//! of the PyTorch pluggable allocator this same library provides
//! (`stridekit_torch_malloc` / `stridekit_torch_free`, exported from this module's file).

mod array;
mod dlpack_in;
mod stream;
mod torch_fast;
mod trace;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use stridekit::ffi::{CopyOp, FfiError};

pyo3::create_exception!(
    _stridekit,
    StridekitError,
    PyRuntimeError,
    "A refused or failed stridekit operation; the message is stridekit's (PyTorch's where it has one)."
);

/// A stridekit error as the Python exception.
pub(crate) fn py_err(e: impl std::fmt::Display) -> PyErr {
    StridekitError::new_err(e.to_string())
}

pub(crate) fn ffi_err(e: FfiError) -> PyErr {
    py_err(e.message)
}

/// Runs the body of a Python entry point: a panic inside stridekit becomes a
/// StridekitError naming it, never pyo3's PanicException (a BaseException that `except
/// Exception` does not catch). Every `#[pyfunction]` and method runs its body through this.
pub(crate) fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(no message)".to_string());
            Err(StridekitError::new_err(format!(
                "internal error (a panic in stridekit, caught at the Python boundary): {msg}"
            )))
        }
    }
}

/// _panic_for_test(message)
/// --
///
/// Panics inside stridekit with `message` (a test hook of the panic barrier: the caller
/// sees a StridekitError).
#[pyfunction]
fn _panic_for_test(message: &str) -> PyResult<()> {
    guarded(|| panic!("{message}"))
}

/// Parses a JSON value into Python objects (through the standard `json` module).
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// copy_(dst, src, stream=None)
/// --
///
/// Writes `src` into `dst` in place, like `dst.copy_(src)`: any two objects implementing
/// `__dlpack__` (torch tensors, numpy arrays, stridekit arrays), zero-copy on both sides;
/// any strided layouts, `src` broadcast to `dst`'s shape, dtype conversion as PyTorch's.
/// Both must be on the CPU or on one CUDA device. On CUDA the copy is enqueued on `stream`
/// (a `cudaStream_t` as an int, or an object with `.cuda_stream` such as a
/// `torch.cuda.Stream`; None: the legacy default stream), which is passed to both
/// producers' `__dlpack__` as the stream protocol asks, and not waited for: as with any
/// asynchronous copy, memory its producer may free and reuse meanwhile (a temporary) is
/// safe when `stream` is the stream that producer allocates on (torch's current stream).
/// Returns `dst`.
#[pyfunction]
#[pyo3(signature = (dst, src, stream = None))]
fn copy_<'py>(
    py: Python<'py>,
    dst: Bound<'py, PyAny>,
    src: Bound<'py, PyAny>,
    stream: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    guarded(|| copy_impl(py, dst, src, stream))
}

fn copy_impl<'py>(
    py: Python<'py>,
    dst: Bound<'py, PyAny>,
    src: Bound<'py, PyAny>,
    stream: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let stream = stream::Stream::from_arg(stream.as_ref())?;
    let d = dlpack_in::Imported::from_object(&dst, stream, true, "dst")?;
    let s = dlpack_in::Imported::from_object(&src, stream, false, "src")?;
    let op = CopyOp::new(d.view.clone(), s.view.clone()).map_err(ffi_err)?;
    let (dp, sp, st) = (d.data as usize, s.data as usize, stream.handle());
    py.detach(move || {
        // SAFETY: both imports hold their producers' memory alive until dropped (after
        // this call); the stream is the caller's.
        unsafe { op.run(dp as *mut _, sp as *const _, st as *mut _) }
    })
    .map_err(ffi_err)?;
    drop((d, s));
    Ok(dst)
}

/// explain(source, device="cpu")
/// --
///
/// Runs a program in stridekit's PyTorch subset and returns the report that
/// `stridekit explain --json` prints, as a dict (`tensors`, `storages`, `totals`, `steps`,
/// `error`, `allocator`). `device`: "cpu", "cuda" or "cuda:N" (raises StridekitError
/// without a GPU), or "sim": a simulated cuda:0 on any machine whose storages are blocks of
/// PyTorch's caching allocator; `allocator` (at the end and in every step) then holds
/// `torch.cuda.memory_stats()`'s figures, None on the CPU.
#[pyfunction]
#[pyo3(signature = (source, device = "cpu"))]
fn explain<'py>(py: Python<'py>, source: &str, device: &str) -> PyResult<Bound<'py, PyAny>> {
    guarded(|| explain_impl(py, source, device))
}

fn explain_impl<'py>(py: Python<'py>, source: &str, device: &str) -> PyResult<Bound<'py, PyAny>> {
    let target: stridekit::explain::Target = device.parse().map_err(|e: String| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "{e} (explain runs on cpu, cuda[:N] or sim)"
        ))
    })?;
    if let stridekit::explain::Target::Device(stridekit::Device::Cuda(n)) = target {
        stridekit::backend::cuda::Gpu::shared(n).map_err(py_err)?;
    }
    let report = py.detach(|| stridekit::explain::run_with(source, target, false).to_json());
    to_python(py, &report)
}

/// replay(paths, conf="default")
/// --
///
/// Replays allocation traces (a path or a list of paths: anchors CSV, PyTorch snapshot
/// pickle or its CSV, RMM log) through stridekit's caching allocator on a simulated H200,
/// as `stridekit alloc replay --json`, under each setting in `conf`
/// (PYTORCH_CUDA_ALLOC_CONF syntax; several separated by ';'). Returns
/// `{"runs": [{"trace", "config", "events", "events_per_second", "failed_allocs", "stats"}]}`
/// with `stats` keyed as `torch.cuda.memory_stats()`.
#[pyfunction]
#[pyo3(signature = (paths, conf = "default"))]
fn replay<'py>(
    py: Python<'py>,
    paths: Bound<'py, PyAny>,
    conf: &str,
) -> PyResult<Bound<'py, PyAny>> {
    guarded(|| replay_impl(py, paths, conf))
}

fn replay_impl<'py>(
    py: Python<'py>,
    paths: Bound<'py, PyAny>,
    conf: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let paths: Vec<String> = match paths.extract::<String>() {
        Ok(p) => vec![p],
        Err(_) => paths
            .try_iter()?
            .map(|p| p.and_then(|p| p.str().map(|s| s.to_string())))
            .collect::<PyResult<_>>()?,
    };
    let cfgs = conf
        .split(';')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(stridekit::alloc::AllocConfig::parse)
        .collect::<Result<Vec<_>, _>>()
        .map_err(py_err)?;
    let runs = py.detach(
        || -> Result<Vec<serde_json::Value>, stridekit::alloc::AllocError> {
            let mut runs = Vec::new();
            for p in &paths {
                let t = stridekit::alloc::read_trace_file(std::path::Path::new(p))?;
                for cfg in &cfgs {
                    let opts = stridekit::alloc::replay::ReplayOptions::default();
                    runs.push(
                        stridekit::alloc::replay::replay_simulated(&t, cfg, &opts)?.to_json(),
                    );
                }
            }
            Ok(runs)
        },
    );
    let runs = runs.map_err(py_err)?;
    let out = PyDict::new(py);
    let list = PyList::empty(py);
    for r in &runs {
        list.append(to_python(py, r)?)?;
    }
    out.set_item("runs", list)?;
    Ok(out.into_any())
}

/// torch_stats(device=0)
/// --
///
/// The statistics of the PyTorch pluggable allocator (`stridekit.torch_allocator()`) on
/// CUDA device `device`, keyed as `torch.cuda.memory_stats()`; None before its first
/// allocation there.
#[pyfunction]
#[pyo3(signature = (device = 0))]
fn torch_stats(py: Python<'_>, device: i32) -> PyResult<Option<Bound<'_, PyAny>>> {
    guarded(|| match stridekit::ffi::torch::existing_pool(device) {
        Some(a) => Ok(Some(to_python(py, &a.stats().to_json())?)),
        None => Ok(None),
    })
}

/// set_num_threads(n)
/// --
///
/// Sets how many threads stridekit's CPU copies use (as `torch.set_num_threads`); 0 goes
/// back to `STRIDEKIT_NUM_THREADS`, else the cores available. At most 1024 (the pool starts
/// every thread it is given: a count from elsewhere must not start a million).
#[pyfunction]
fn set_num_threads(n: usize) -> PyResult<()> {
    guarded(|| {
        if n > MAX_NUM_THREADS {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "set_num_threads({n}): at most {MAX_NUM_THREADS} threads"
            )));
        }
        stridekit::backend::cpu::set_num_threads(n);
        Ok(())
    })
}

/// The largest thread count `set_num_threads` accepts.
const MAX_NUM_THREADS: usize = 1024;

/// get_num_threads()
/// --
///
/// The number of threads stridekit's CPU copies use.
#[pyfunction]
fn get_num_threads() -> PyResult<usize> {
    guarded(|| Ok(stridekit::backend::cpu::num_threads()))
}

/// cpu_capability()
/// --
///
/// The vector level stridekit's CPU copies run at: "avx512", "avx2" or "default" (the
/// highest the CPU has that `STRIDEKIT_CPU_CAPABILITY` allows).
#[pyfunction]
fn cpu_capability() -> PyResult<&'static str> {
    guarded(|| Ok(stridekit::backend::cpu::capability().name()))
}

/// The native module.
#[pymodule]
fn _stridekit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("StridekitError", m.py().get_type::<StridekitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("build", stridekit::BUILD)?;
    m.add_function(wrap_pyfunction!(copy_, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(torch_stats, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(cpu_capability, m)?)?;
    m.add_function(wrap_pyfunction!(array::contiguous, m)?)?;
    m.add_function(wrap_pyfunction!(array::_export_counts, m)?)?;
    m.add_class::<array::Array>()?;
    m.add_class::<trace::TraceSession>()?;
    Ok(())
}
