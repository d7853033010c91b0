//! The traced run's report: `explain`'s [`Report`] (tensors, storages, totals, steps, peak,
//! warnings, allocator, output; the same JSON schema and the same text) built from what the
//! tracer saw, plus `autograd` (what the graph of the live tensors saved for backward) and
//! the program's own exception as `error` (with its Python class).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value as Json;

use super::meta::TensorMeta;
use super::session::Session;
use crate::DType;
use crate::accounting::{Accountable, Accounting, account};
use crate::error::ErrorKind;
use crate::explain::Report;
pub use crate::explain::report::{Autograd, SavedReport};
use crate::explain::report::{ErrorReport, TensorReport};
use crate::layout::MemoryFormat;
use crate::layout::contiguity::is_contiguous_as;

/// A live named tensor at the end, with what the report shows besides its layout.
#[derive(Debug, Clone)]
pub struct FinalTensor {
    pub meta: TensorMeta,
    /// PyTorch's name (`float32`, `bfloat16`, ...).
    pub dtype: String,
    pub version: u64,
    /// Its values in row-major order, or none (the tracer lists them for small tensors).
    pub values: Vec<Json>,
}

/// A tensor the autograd graph saved for backward.
#[derive(Debug, Clone)]
pub struct SavedTensor {
    pub meta: TensorMeta,
    /// The node that saved it (`MmBackward0`, ...).
    pub grad_fn: String,
}

/// The exception that stopped the program.
#[derive(Debug, Clone, Serialize)]
pub struct ProgramError {
    pub statement: usize,
    pub line: usize,
    pub col: usize,
    /// The Python class (`RuntimeError`, `ValueError`, ...).
    pub class: String,
    pub message: String,
}

/// The whole report of a traced run.
pub struct TraceReport {
    /// explain's report, its `autograd` section included.
    pub report: Report,
    pub error: Option<ProgramError>,
    /// Facts about the run a reader must know (what was not traced, what is not modelled).
    pub notes: Vec<String>,
}

/// PyTorch's dtype names as static strings (the report's type).
fn dtype_name(name: &str) -> &'static str {
    if let Some(d) = DType::from_torch_attr(name) {
        return d.torch_name();
    }
    const OTHERS: &[&str] = &[
        "complex32",
        "complex64",
        "complex128",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "uint16",
        "uint32",
        "uint64",
        "qint8",
        "quint8",
        "qint32",
    ];
    OTHERS
        .iter()
        .find(|o| **o == name)
        .copied()
        .unwrap_or("other")
}

impl Session {
    /// The report of the run, with the named tensors live at the end, the tensors the
    /// graph saved, what the program printed and the exception that stopped it.
    pub fn finish(
        &self,
        tensors: &[FinalTensor],
        saved: &[SavedTensor],
        output: String,
        error: Option<ProgramError>,
        sources: BTreeMap<usize, String>,
        mut notes: Vec<String>,
    ) -> TraceReport {
        let acc = account(tensors.iter().map(|t| (t.meta.name.as_str(), &t.meta)));
        let tensor_reports = tensors
            .iter()
            .map(|t| {
                let l = &t.meta.layout;
                TensorReport {
                    name: t.meta.name.clone(),
                    dtype: dtype_name(&t.dtype),
                    shape: l.sizes().to_vec(),
                    strides: l.strides().to_vec(),
                    storage_offset: l.offset(),
                    storage: acc.storage_of(&t.meta.name).unwrap_or(0),
                    itemsize: t.meta.itemsize,
                    numel: l.numel(),
                    is_contiguous: l.is_contiguous(),
                    is_channels_last: match l.ndim() {
                        4 => is_contiguous_as(l.sizes(), l.strides(), MemoryFormat::ChannelsLast),
                        5 => is_contiguous_as(l.sizes(), l.strides(), MemoryFormat::ChannelsLast3d),
                        _ => false,
                    },
                    version: t.version,
                    values: t.values.clone(),
                }
            })
            .collect();
        let autograd = autograd(tensors, saved, &acc);
        if let Some(f) = &self.alloc_failure {
            notes.push(format!(
                "the simulated device refused an allocation ({f}); later figures leave it out"
            ));
        }
        let Accounting { storages, totals } = acc;
        let report = Report {
            tensors: tensor_reports,
            storages,
            totals,
            steps: self.log.steps.clone(),
            steps_omitted: self.log.omitted,
            peak: self.log.peak.clone(),
            output,
            warnings: self.warnings.clone(),
            error: error.as_ref().map(|e| ErrorReport {
                statement: e.statement,
                line: e.line,
                col: e.col,
                kind: if e.class == "AssertionError" {
                    ErrorKind::AssertionFailed
                } else {
                    ErrorKind::Other
                },
                message: e.message.clone(),
            }),
            allocator: self.allocator_account(),
            autograd,
            sources,
            allocator_name: if self.simulated() {
                "simulated cuda:0 (the traced storages replayed into PyTorch's caching allocator policy)"
            } else {
                "none (cpu)"
            },
        };
        TraceReport {
            report,
            error,
            notes,
        }
    }
}

fn autograd(tensors: &[FinalTensor], saved: &[SavedTensor], acc: &Accounting) -> Autograd {
    // Named storages: key -> report id (ids are in order of first appearance).
    let mut named = std::collections::HashMap::new();
    for t in tensors {
        let next = named.len();
        named.entry(t.meta.storage).or_insert(next);
    }
    debug_assert_eq!(named.len(), acc.storages.len());
    let mut counted = HashSet::new();
    let (mut saved_bytes, mut graph_only) = (0u64, 0u64);
    let saved_tensors = saved
        .iter()
        .map(|s| {
            let m = &s.meta;
            if counted.insert(m.storage) {
                saved_bytes = saved_bytes.saturating_add(m.storage_nbytes);
                if !named.contains_key(&m.storage) {
                    graph_only = graph_only.saturating_add(m.storage_nbytes);
                }
            }
            SavedReport {
                grad_fn: s.grad_fn.clone(),
                shape: m.layout.sizes().to_vec(),
                strides: m.layout.strides().to_vec(),
                storage_offset: m.layout.offset(),
                itemsize: m.itemsize,
                bytes: m.logical_bytes(),
                storage_nbytes: m.storage_nbytes,
                storage: named.get(&m.storage).copied(),
            }
        })
        .collect();
    Autograd {
        saved_tensors,
        saved_storage_bytes: saved_bytes,
        graph_only_storage_bytes: graph_only,
    }
}

impl TraceReport {
    /// explain's JSON plus `notes`; `error` carries the exception's class.
    pub fn to_json(&self) -> Json {
        let mut j = self.report.to_json();
        if let Json::Object(m) = &mut j {
            m.insert("notes".into(), serde_json::json!(self.notes));
            if let (Some(e), Some(Json::Object(err))) = (&self.error, m.get_mut("error")) {
                err.insert("class".into(), Json::String(e.class.clone()));
            }
        }
        j
    }

    /// explain's text (its autograd section included) and the notes; the error with its class.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut r = self.report.clone();
        r.error = None;
        let mut s = r.to_text();
        for n in &self.notes {
            let _ = writeln!(s, "\nnote: {n}");
        }
        if let Some(e) = &self.error {
            let _ = writeln!(
                s,
                "\nerror in statement {} (line {}) {}: {}",
                e.statement, e.line, e.class, e.message
            );
        }
        s
    }
}
