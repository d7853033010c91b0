//! A case made concrete: the layouts over one input and one output storage (or the row
//! gather's shape and index), and the bytes it moves.

use super::recipe::{Case, Format, Op, Step};
use crate::bench::error::BenchError;
use crate::layout::overlap::{element_runs, has_internal_overlap};
use crate::layout::{Layout, fmt_dims};
use crate::plan::{CopyPlan, RowGatherShape};
use crate::rng::distinct_rows;

/// A case made concrete: layouts over one input and one output storage, and byte counts.
#[derive(Debug, Clone)]
pub struct Work {
    /// The input tensor's layout over its storage (contiguous or channels_last).
    pub input: Layout,
    pub output_shape: Vec<i64>,
    pub src_elems: usize,
    pub dst_elems: usize,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub kind: WorkKind,
}

/// Made once per case, so the size difference of the variants does not matter.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum WorkKind {
    /// An element copy from `view` (over the input storage) to `out`.
    Copy {
        view: Layout,
        out: Layout,
        plan: CopyPlan,
    },
    /// A row gather.
    Gather {
        shape: RowGatherShape,
        index: Vec<i64>,
    },
}

impl Case {
    /// Builds the layouts (and, for the row gather, the index) and counts the bytes:
    /// each unique input element read once, each output element written once.
    pub fn work(&self) -> Result<Work, BenchError> {
        let bad = |e: crate::error::TensorError| BenchError::Case {
            case: self.case.clone(),
            message: e.message,
        };
        let input =
            Layout::with_format(&self.shape, self.input_format.memory_format()).map_err(bad)?;
        let src_elems = input.required_storage_elems() as usize;
        let size = self.dtype.itemsize() as u64;
        match &self.op {
            Op::Clone | Op::Copy { .. } => {
                let (steps, output): (&[Step], Format) = match &self.op {
                    Op::Copy { steps, output } => (steps, *output),
                    _ => (&[], Format::Contiguous),
                };
                let mut v = input.clone();
                for st in steps {
                    v = st.apply(&v, self.dtype).map_err(bad)?;
                }
                let out = Layout::with_format(v.sizes(), output.memory_format()).map_err(bad)?;
                let plan = CopyPlan::copy(&out, self.dtype, &v, self.dtype);
                Ok(Work {
                    output_shape: v.sizes().to_vec(),
                    src_elems,
                    dst_elems: out.required_storage_elems() as usize,
                    bytes_read: unique_elements(&v) as u64 * size,
                    bytes_written: out.numel() as u64 * size,
                    input,
                    kind: WorkKind::Copy { view: v, out, plan },
                })
            }
            Op::IndexSelectRows { count, seed } => {
                let (rows, row_len) = match self.shape[..] {
                    [r, c] if *count <= r && r > 0 => (r, c),
                    _ => {
                        return Err(BenchError::Case {
                            case: self.case.clone(),
                            message: format!(
                                "index_select needs a 2-d input with at least {count} rows, got {}",
                                fmt_dims(&self.shape)
                            ),
                        });
                    }
                };
                let shape = RowGatherShape {
                    num_rows: *count,
                    row_len,
                    src_rows: rows,
                    src_row_stride: row_len,
                    dst_row_stride: row_len,
                    src_offset: 0,
                    dst_offset: 0,
                };
                let moved = (*count * row_len) as u64 * size;
                Ok(Work {
                    output_shape: vec![*count, row_len],
                    src_elems,
                    dst_elems: (*count * row_len) as usize,
                    bytes_read: moved,
                    bytes_written: moved,
                    input,
                    kind: WorkKind::Gather {
                        shape,
                        index: distinct_rows(*count, rows, *seed),
                    },
                })
            }
        }
    }
}

/// Distinct storage elements a layout addresses (broadcast dimensions count once,
/// overlapping windows once).
pub fn unique_elements(l: &Layout) -> i64 {
    let (sizes, strides): (Vec<i64>, Vec<i64>) = l
        .sizes()
        .iter()
        .zip(l.strides())
        .filter(|(_, s)| **s != 0)
        .map(|(n, s)| (*n, *s))
        .unzip();
    if l.numel() == 0 {
        return 0;
    }
    let kept = Layout::new(&sizes, &strides, l.offset()).expect("sizes of a valid layout");
    if !has_internal_overlap(&kept) {
        return kept.numel();
    }
    element_runs(&kept).iter().map(|(a, b)| b - a).sum()
}
