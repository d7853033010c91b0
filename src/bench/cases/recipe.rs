//! A benchmark case as a recipe: the input (dtype, shape, memory format), PyTorch view
//! steps, and what is materialised. Pure data: `stridekit bench --list --json` hands the same
//! recipe to `scripts/compare_torch.py`, so both sides run the same work.

use serde::Serialize;

use crate::dtype::DType;
use crate::layout::{Layout, MemoryFormat, view};

/// Memory format of the input storage or the output, as PyTorch names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Contiguous,
    ChannelsLast,
}

impl Format {
    pub(super) fn memory_format(self) -> MemoryFormat {
        match self {
            Format::Contiguous => MemoryFormat::Contiguous,
            Format::ChannelsLast => MemoryFormat::ChannelsLast,
        }
    }
}

/// One PyTorch view operation (metadata only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    /// `x.permute(*dims)`
    Permute { dims: Vec<i64> },
    /// `x[..., start:end:step, ...]` on `dim`; `end` may be negative (from the end), null
    /// for the end.
    Slice {
        dim: usize,
        start: i64,
        end: Option<i64>,
        step: i64,
    },
    /// `x.expand(*sizes)`
    Expand { sizes: Vec<i64> },
    /// `x.unfold(dim, size, step)`
    Unfold { dim: i64, size: i64, step: i64 },
}

/// What a case materialises.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Op {
    /// `x.clone()` of a contiguous tensor (a device-to-device copy).
    Clone,
    /// `steps(x).contiguous(memory_format=output)`.
    Copy { steps: Vec<Step>, output: Format },
    /// `torch.index_select(x, 0, index)` with `count` distinct rows chosen by
    /// [`distinct_rows`](crate::rng::distinct_rows)`(count, x.shape[0], seed)`.
    IndexSelectRows { count: i64, seed: u64 },
}

/// One benchmark case, fully specified.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// The anchor name; `--quick` keeps it (the shape field says what ran).
    pub case: String,
    pub dtype: DType,
    /// Input shape.
    pub shape: Vec<i64>,
    /// Memory format of the input storage.
    pub input_format: Format,
    #[serde(flatten)]
    pub op: Op,
}

impl Step {
    /// Applies the step to a layout, as PyTorch's view rules do.
    pub fn apply(&self, l: &Layout, dtype: DType) -> crate::error::Result<Layout> {
        match self {
            Step::Permute { dims } => view::permute(l, dims),
            Step::Slice {
                dim,
                start,
                end,
                step,
            } => view::slice(l, *dim, Some(*start), *end, *step),
            Step::Expand { sizes } => view::expand(l, sizes, dtype.scalar_type_name()),
            Step::Unfold { dim, size, step } => view::unfold(l, *dim, *size, *step),
        }
    }
}

impl Case {
    /// The PyTorch expression the case times, e.g. `x.permute(1, 0).contiguous()`.
    pub fn expression(&self) -> String {
        match &self.op {
            Op::Clone => "x.clone()".into(),
            Op::Copy { steps, output } => {
                let out = match output {
                    Format::Contiguous => ".contiguous()",
                    Format::ChannelsLast => ".contiguous(memory_format=torch.channels_last)",
                };
                format!("x{}{out}", python_steps(steps))
            }
            Op::IndexSelectRows { count, .. } => {
                format!("torch.index_select(x, 0, idx[:{count}])")
            }
        }
    }
}

/// View steps as Python source: `.permute(1, 0)`, consecutive slices of distinct
/// dimensions as one subscript (`[::2, ::2]`).
fn python_steps(steps: &[Step]) -> String {
    let list = |v: &[i64]| {
        v.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::new();
    let mut subscript: Vec<String> = Vec::new();
    let flush = |sub: &mut Vec<String>, out: &mut String| {
        if !sub.is_empty() {
            out.push_str(&format!("[{}]", sub.join(", ")));
            sub.clear();
        }
    };
    for st in steps {
        match st {
            Step::Slice {
                dim,
                start,
                end,
                step,
            } => {
                if subscript.len() > *dim && subscript[*dim] != ":" {
                    flush(&mut subscript, &mut out);
                }
                if subscript.len() <= *dim {
                    subscript.resize(*dim + 1, ":".into());
                }
                let start = if *start == 0 {
                    String::new()
                } else {
                    start.to_string()
                };
                let end = end.map(|e| e.to_string()).unwrap_or_default();
                let step = if *step == 1 {
                    String::new()
                } else {
                    format!(":{step}")
                };
                subscript[*dim] = format!("{start}:{end}{step}");
            }
            other => {
                flush(&mut subscript, &mut out);
                out.push_str(&match other {
                    Step::Permute { dims } => format!(".permute({})", list(dims)),
                    Step::Expand { sizes } => format!(".expand({})", list(sizes)),
                    Step::Unfold { dim, size, step } => {
                        format!(".unfold({dim}, {size}, {step})")
                    }
                    Step::Slice { .. } => unreachable!(),
                });
            }
        }
    }
    flush(&mut subscript, &mut out);
    out
}

/// `16384x16384`
pub fn dims_x(shape: &[i64]) -> String {
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}
