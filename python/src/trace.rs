//! `stridekit._stridekit.TraceSession`: the books of `stridekit.trace` (python/stridekit/
//! trace.py) kept by stridekit's Rust accounting (`stridekit::trace`), so that the live
//! tracer's totals, steps, peak, warnings, allocator figures and report text are explain's.
//! Tensors arrive as tuples `(name, storage_key, storage_nbytes, sizes, strides,
//! storage_offset, itemsize)`; bad ones raise StridekitError. Every method runs through
//! `guarded`: a panic in the Rust half is a StridekitError, never an abort or pyo3's
//! PanicException, and it poisons the session (later calls refuse with a clear message).

use std::collections::BTreeMap;
use std::sync::Mutex;

use pyo3::prelude::*;
use stridekit::trace::{
    FinalTensor, ProgramError, SavedTensor, Session, TensorMeta, Thresholds, TraceReport,
};

use crate::{guarded, py_err, to_python};

type MetaTuple = (String, u64, u64, Vec<i64>, Vec<i64>, i64, usize);

fn meta(t: &MetaTuple) -> PyResult<TensorMeta> {
    let (name, key, nbytes, sizes, strides, offset, itemsize) = t;
    TensorMeta::new(name, *key, *nbytes, sizes, strides, *offset, *itemsize).map_err(py_err)
}

fn metas(ts: &[MetaTuple]) -> PyResult<Vec<TensorMeta>> {
    ts.iter().map(meta).collect()
}

/// TraceSession(sim=False, alloc_conf=None, retained_min_bytes=1048576,
///              retained_fraction=0.5, save_min_extra_bytes=1)
/// --
///
/// One traced run. `sim`: replay every storage into PyTorch's caching allocator policy on
/// a simulated cuda:0 (`alloc_conf` in PYTORCH_CUDA_ALLOC_CONF syntax, `policy:stridekit`
/// included). The thresholds are those of the `retained_storage` and
/// `saves_whole_storage` warnings.
#[pyclass(module = "stridekit._stridekit")]
pub struct TraceSession {
    inner: Mutex<Session>,
}

impl TraceSession {
    fn with<R>(&self, f: impl FnOnce(&mut Session) -> R) -> PyResult<R> {
        let mut g = self
            .inner
            .lock()
            .map_err(|_| py_err("trace session poisoned by an earlier failure"))?;
        Ok(f(&mut g))
    }
}

#[pymethods]
impl TraceSession {
    #[new]
    #[pyo3(signature = (sim = false, alloc_conf = None, retained_min_bytes = 1 << 20, retained_fraction = 0.5, save_min_extra_bytes = 1))]
    fn new(
        sim: bool,
        alloc_conf: Option<&str>,
        retained_min_bytes: u64,
        retained_fraction: f64,
        save_min_extra_bytes: u64,
    ) -> PyResult<TraceSession> {
        let th = Thresholds {
            retained_min_bytes,
            retained_fraction,
            save_min_extra_bytes,
        };
        guarded(|| {
            let s = Session::new(sim, alloc_conf, th).map_err(py_err)?;
            Ok(TraceSession {
                inner: Mutex::new(s),
            })
        })
    }

    /// Panics inside the session's lock with `message` (a test hook of the panic barrier:
    /// the caller sees a StridekitError, and the session refuses every later call).
    fn _panic_for_test(&self, message: &str) -> PyResult<()> {
        guarded(|| self.with(|_| panic!("{message}")))
    }

    /// A storage of `nbytes` came to life under `key`.
    fn storage_created(&self, key: u64, nbytes: u64) -> PyResult<()> {
        guarded(|| {
            self.with(|s| s.storage_created(key, nbytes))?
                .map_err(py_err)
        })
    }

    /// The storage `key` was freed (unknown keys are ignored).
    fn storage_freed(&self, key: u64) -> PyResult<()> {
        guarded(|| self.with(|s| s.storage_freed(key))?.map_err(py_err))
    }

    /// The step after `line` of top-level statement `statement`, over the named tensors.
    fn step(&self, statement: usize, line: usize, tensors: Vec<MetaTuple>) -> PyResult<()> {
        guarded(|| {
            let ts = metas(&tensors)?;
            self.with(|s| s.step(statement, line, &ts))
        })
    }

    /// `torch.save` of the tensor `t` at `line`: warns when it writes unaddressed bytes.
    fn saved_to_file(&self, statement: usize, line: usize, t: MetaTuple) -> PyResult<()> {
        guarded(|| {
            let m = meta(&t)?;
            self.with(|s| s.saved_to_file(statement, line, &m))
        })
    }

    /// A warning of the tracer's own (`kind`: untraced_thread).
    fn warn(&self, statement: usize, line: usize, kind: &str, message: String) -> PyResult<()> {
        guarded(|| {
            let kind: &'static str = match kind {
                "untraced_thread" => "untraced_thread",
                other => return Err(py_err(format!("unknown warning kind '{other}'"))),
            };
            self.with(|s| s.warn(statement, line, kind, message))
        })
    }

    /// The allocator's figures now, keyed as torch.cuda.memory_stats(); None on the CPU.
    fn allocator<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        guarded(|| match self.with(|s| s.allocator_account())? {
            Some(a) => Ok(Some(to_python(py, &serde_json::json!(a))?)),
            None => Ok(None),
        })
    }

    /// The allocation requests so far as the anchors CSV `alloc replay` reads.
    #[pyo3(signature = (header = Vec::new()))]
    fn trace_csv(&self, header: Vec<String>) -> PyResult<String> {
        guarded(|| self.with(|s| s.trace_csv(&header)))
    }

    /// The report: `(json_dict, text)`. `tensors`: (meta tuple, dtype, version,
    /// values_json); `saved`: (meta tuple, grad_fn); `error`: (statement, line, col,
    /// class, message) or None; `sources`: {line: source}.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    #[pyo3(signature = (tensors, saved, output, error, sources, notes))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        tensors: Vec<(MetaTuple, String, u64, String)>,
        saved: Vec<(MetaTuple, String)>,
        output: String,
        error: Option<(usize, usize, usize, String, String)>,
        sources: BTreeMap<usize, String>,
        notes: Vec<String>,
    ) -> PyResult<(Bound<'py, PyAny>, String)> {
        guarded(|| {
            let tensors = tensors
                .iter()
                .map(|(m, dtype, version, values)| {
                    let values: Vec<serde_json::Value> = if values.is_empty() {
                        Vec::new()
                    } else {
                        serde_json::from_str(values).map_err(|e| py_err(format!("values: {e}")))?
                    };
                    Ok(FinalTensor {
                        meta: meta(m)?,
                        dtype: dtype.clone(),
                        version: *version,
                        values,
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            let saved = saved
                .iter()
                .map(|(m, g)| {
                    Ok(SavedTensor {
                        meta: meta(m)?,
                        grad_fn: g.clone(),
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            let error = error.map(|(statement, line, col, class, message)| ProgramError {
                statement,
                line,
                col,
                class,
                message,
            });
            let r: TraceReport =
                self.with(|s| s.finish(&tensors, &saved, output, error, sources, notes))?;
            Ok((to_python(py, &r.to_json())?, r.to_text()))
        })
    }
}
