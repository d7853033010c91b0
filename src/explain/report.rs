//! The `explain` report: every live tensor, every distinct storage, the totals, and the
//! error that stopped the program. JSON with `--json` (documented in the README), a readable
//! table otherwise.

use super::allocator::{Account, Allocator};
use super::ast::Program;
pub use super::autograd::usage::{Autograd, SavedReport};
use super::eval::{Env, StatementError};
use super::steps::{Peak, Step, Steps};
use crate::accounting::{Accounting, account};
use crate::error::{ErrorKind, TensorError};
use serde::Serialize;
use serde_json::Value as Json;
use std::fmt::Write;

#[derive(Debug, Clone, Serialize)]
pub struct TensorReport {
    pub name: String,
    pub dtype: &'static str,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub storage_offset: i64,
    pub storage: usize,
    pub itemsize: usize,
    pub numel: i64,
    pub is_contiguous: bool,
    pub is_channels_last: bool,
    pub version: u64,
    pub values: Vec<Json>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ErrorReport {
    /// The top-level statement (0-based).
    pub statement: usize,
    /// Where the statement that failed starts (1-based; inside a block or a function body,
    /// that statement's position).
    pub line: usize,
    pub col: usize,
    pub kind: ErrorKind,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub tensors: Vec<TensorReport>,
    pub storages: Vec<crate::accounting::StorageUse>,
    pub totals: crate::accounting::Totals,
    /// The totals after every step, in order (see [`super::steps`]).
    pub steps: Vec<Step>,
    /// Steps measured but not listed in `steps` (a line that ran more than
    /// [`super::steps::PER_LINE`] times).
    pub steps_omitted: u64,
    /// Where the unique storage bytes peaked; None when no statement ran.
    pub peak: Option<Peak>,
    /// What the program printed.
    pub output: String,
    /// Statements that ran but whose results a reader should know more about.
    pub warnings: Vec<super::eval::Warning>,
    pub error: Option<ErrorReport>,
    /// The caching allocator's figures when the program stopped (`--device sim` or
    /// `cuda`); None on the CPU.
    pub allocator: Option<Account>,
    /// What the autograd graph keeps alive when the program stopped (the tracer's schema).
    pub autograd: Autograd,
    /// The source of the statement starting on each line, for the text report.
    #[serde(skip)]
    pub sources: std::collections::BTreeMap<usize, String>,
    /// Which allocator `allocator` describes, for the text report.
    #[serde(skip)]
    pub allocator_name: &'static str,
}

impl Report {
    pub fn build(
        env: &Env,
        error: Option<StatementError>,
        steps: Steps,
        program: &Program,
        allocator: &Allocator,
    ) -> Report {
        let live = env.tensors();
        let acc = account(live.iter().map(|(n, t)| (n.as_str(), t)));
        // Reading values back can fail only on a device (a failing download): the first
        // such failure becomes the report's error when the program itself succeeded.
        let mut read_error = None;
        let tensors = live
            .iter()
            .map(|(name, t)| TensorReport {
                name: name.to_string(),
                dtype: t.dtype().torch_name(),
                shape: t.sizes().to_vec(),
                strides: t.strides().to_vec(),
                storage_offset: t.storage_offset(),
                storage: acc.storage_of(name).unwrap_or(0),
                itemsize: t.itemsize(),
                numel: t.numel(),
                is_contiguous: t.is_contiguous(),
                is_channels_last: t.is_channels_last(),
                version: t.version(),
                values: match t.values() {
                    Ok(v) => v.into_iter().map(|v| v.to_json()).collect(),
                    Err(e) => {
                        read_error.get_or_insert(StatementError {
                            statement: env.statements_run(),
                            at: crate::explain::ast::Span::default(),
                            error: TensorError::new(
                                e.kind,
                                format!("reading the values of '{name}': {}", e.message),
                            ),
                        });
                        Vec::new()
                    }
                },
            })
            .collect();
        let error = error.or(read_error);
        let autograd = env.grad.usage(&live, &|name| acc.storage_of(name));
        let Accounting { storages, totals } = acc;
        Report {
            tensors,
            storages,
            totals,
            steps: steps.steps,
            steps_omitted: steps.omitted,
            peak: steps.peak,
            output: env.output(),
            warnings: env.warnings(),
            sources: program.line_sources(),
            allocator: allocator.account(),
            autograd,
            allocator_name: allocator.describe(),
            error: error.map(|e| ErrorReport {
                statement: e.statement,
                line: e.at.line,
                col: e.at.col,
                kind: e.error.kind,
                message: e.error.message,
            }),
        }
    }

    pub fn to_json(&self) -> Json {
        serde_json::to_value(self).unwrap_or(Json::Null)
    }

    /// A readable report: the program's output, tensors, storages, totals, the peak, and
    /// the error if any.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if !self.output.is_empty() {
            let _ = writeln!(s, "output");
            for line in self.output.lines() {
                let _ = writeln!(s, "  {line}");
            }
            let _ = writeln!(s);
        }
        let list = |v: &[i64]| {
            let parts: Vec<String> = v.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        };
        let _ = writeln!(s, "tensors");
        let _ = writeln!(
            s,
            "  {:<10} {:<9} {:<16} {:<16} {:>6} {:>7} {:>9} {:>7}  flags",
            "name", "dtype", "shape", "strides", "offset", "storage", "bytes", "version"
        );
        for t in &self.tensors {
            let mut flags = Vec::new();
            if t.is_contiguous {
                flags.push("contiguous");
            }
            if t.is_channels_last {
                flags.push("channels_last");
            }
            let _ = writeln!(
                s,
                "  {:<10} {:<9} {:<16} {:<16} {:>6} {:>7} {:>9} {:>7}  {}",
                t.name,
                t.dtype,
                list(&t.shape),
                list(&t.strides),
                t.storage_offset,
                format!("#{}", t.storage),
                t.numel * t.itemsize as i64,
                t.version,
                flags.join(",")
            );
            let shown: Vec<String> = t.values.iter().take(12).map(|v| v.to_string()).collect();
            let more = if t.values.len() > 12 { ", ..." } else { "" };
            let _ = writeln!(s, "             values [{}{more}]", shown.join(", "));
        }
        let _ = writeln!(s, "\nstorages");
        for st in &self.storages {
            let _ = writeln!(
                s,
                "  #{:<3} {:>9} bytes  addressed {:>9}  retained unaddressed {:>9}  tensors: {}",
                st.id,
                st.nbytes,
                st.addressed_bytes,
                st.retained_unaddressed_bytes,
                st.tensors.join(", ")
            );
        }
        let t = &self.totals;
        let _ = writeln!(
            s,
            "\ntotals: logical {} bytes, unique storage {} bytes, addressed {} bytes",
            t.logical_bytes, t.unique_storage_bytes, t.addressed_bytes
        );
        if let Some(p) = &self.peak {
            let source = self.source(p.line);
            let _ = writeln!(
                s,
                "peak: {} unique storage bytes after statement {} (line {}) `{source}`, in {} storage(s):",
                p.unique_storage_bytes,
                p.statement,
                p.line,
                p.storages.len()
            );
            for st in &p.storages {
                let _ = writeln!(
                    s,
                    "  {:>9} bytes  tensors: {}",
                    st.nbytes,
                    st.tensors.join(", ")
                );
            }
        }
        if self.steps_omitted > 0 {
            let _ = writeln!(
                s,
                "steps: {} listed, {} more not listed (a line lists its first {} runs)",
                self.steps.len(),
                self.steps_omitted,
                super::steps::PER_LINE
            );
        }
        for w in &self.warnings {
            let source = self.source(w.line);
            let _ = writeln!(
                s,
                "\nwarning in statement {} (line {}) `{source}` ({}): {}",
                w.statement, w.line, w.kind, w.message
            );
        }
        self.allocator_text(&mut s);
        self.autograd_text(&mut s);
        if let Some(e) = &self.error {
            let _ = writeln!(
                s,
                "\nerror in statement {} (line {}, column {}) ({}): {}",
                e.statement,
                e.line,
                e.col,
                e.kind.as_str(),
                e.message
            );
        }
        s
    }

    /// The source of the statement starting on `line` ("" if none).
    fn source(&self, line: usize) -> &str {
        self.sources.get(&line).map_or("", |s| s.as_str())
    }

    /// The autograd section (when the graph saved anything): the figures, then each saved
    /// tensor and the storage it is on.
    fn autograd_text(&self, s: &mut String) {
        let a = &self.autograd;
        if a.saved_tensors.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "\nautograd: {} tensor(s) saved for backward, {} bytes of distinct storages, {} bytes of them reached by no named tensor",
            a.saved_tensors.len(),
            a.saved_storage_bytes,
            a.graph_only_storage_bytes
        );
        for t in &a.saved_tensors {
            let on = t
                .storage
                .map_or("graph only".to_string(), |id| format!("#{id}"));
            let _ = writeln!(
                s,
                "  {:<24} shape {:?} {:>9} bytes  storage {} of {} bytes",
                t.grad_fn, t.shape, t.bytes, on, t.storage_nbytes
            );
        }
    }

    /// The allocator section: the figures at the end, then after each statement.
    fn allocator_text(&self, s: &mut String) {
        let Some(a) = &self.allocator else {
            return;
        };
        let _ = writeln!(s, "\nallocator: {}", self.allocator_name);
        let _ = writeln!(
            s,
            "  allocated {} bytes (peak {}) in {} segment(s), reserved {} bytes (peak {}); active {}, inactive split {}",
            a.allocated,
            a.allocated_peak,
            a.segments,
            a.reserved,
            a.reserved_peak,
            a.active,
            a.inactive_split
        );
        let _ = writeln!(
            s,
            "  {:>4}  {:>12} {:>12} {:>12} {:>8}  statement",
            "step", "allocated", "reserved", "active", "segments"
        );
        for step in &self.steps {
            let Some(a) = &step.allocator else { continue };
            let source = self.source(step.line);
            let _ = writeln!(
                s,
                "  {:>4}  {:>12} {:>12} {:>12} {:>8}  `{source}`",
                step.statement, a.allocated, a.reserved, a.active, a.segments
            );
        }
    }
}
