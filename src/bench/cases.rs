//! The benchmark suite: the anchor cases (bench/anchors/: PyTorch's recorded figures, same names and sizes),
//! the 1 GiB device-to-device copy that is the 100% line, and a random-permutation suite
//! in cuTT's manner. Pure: a [`Case`] is a recipe (input shape and memory format, then
//! PyTorch view steps, then the output format), the same one `stridekit bench --list
//! --json` hands to `scripts/compare_torch.py`, so both sides run the same work.

use serde::Serialize;

use super::error::BenchError;
use super::rng::{SplitMix64, distinct_rows};
use crate::dtype::DType;
use crate::layout::overlap::{element_runs, has_internal_overlap};
use crate::layout::{Layout, MemoryFormat, fmt_dims, view};
use crate::plan::{CopyPlan, RowGatherShape};

/// The copy every other case is measured against.
pub const MEMCPY_CASE: &str = "memcpy_f32_1GiB";
/// Seed of the random-permutation suite (the peers' run used 42).
pub const DEFAULT_SEED: u64 = 42;
/// `--quick` divides every case's element count by about this much.
pub const QUICK_FACTOR: i64 = 256;
/// Dimensions this small are never scaled down (channels_last C = 3, the skinny 7 rows).
const KEEP_DIMS_UP_TO: i64 = 8;
/// Random-permutation suite: ranks, cases per rank, elements per case (about).
const RAND_RANKS: std::ops::RangeInclusive<usize> = 2..=7;
const RAND_PER_RANK: usize = 4;
const RAND_LOG2_ELEMENTS: f64 = 28.0;

/// Memory format of the input storage or the output, as PyTorch names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Contiguous,
    ChannelsLast,
}

impl Format {
    fn memory_format(self) -> MemoryFormat {
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
    /// [`distinct_rows`]`(count, x.shape[0], seed)`.
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

/// How a case family derives its recipe from a (possibly scaled) shape.
#[derive(Debug, Clone)]
enum Kind {
    Clone,
    Permute(Vec<i64>),
    ToChannelsLast,
    FromChannelsLast,
    SliceStep(i64),
    NarrowCols,
    /// Logical shape (n, m): a (1, m) row expanded to n rows.
    ExpandRows,
    Unfold {
        size: i64,
        step: i64,
    },
    /// Logical shape (rows, cols): gather rows / 2 distinct rows.
    IndexSelectRows,
}

fn def(name: &str, dtype: DType, kind: Kind, logical: &[i64], quick: bool) -> Case {
    let s = if quick {
        scale_down(logical, QUICK_FACTOR)
    } else {
        logical.to_vec()
    };
    let copy = |steps: Vec<Step>, output: Format| Op::Copy { steps, output };
    let (shape, input_format, op) = match kind {
        Kind::Clone => (s, Format::Contiguous, Op::Clone),
        Kind::Permute(dims) => (
            s,
            Format::Contiguous,
            copy(vec![Step::Permute { dims }], Format::Contiguous),
        ),
        Kind::ToChannelsLast => (s, Format::Contiguous, copy(vec![], Format::ChannelsLast)),
        Kind::FromChannelsLast => (s, Format::ChannelsLast, copy(vec![], Format::Contiguous)),
        Kind::SliceStep(step) => {
            let steps = (0..s.len())
                .map(|dim| Step::Slice {
                    dim,
                    start: 0,
                    end: None,
                    step,
                })
                .collect();
            (s, Format::Contiguous, copy(steps, Format::Contiguous))
        }
        Kind::NarrowCols => {
            let cut = Step::Slice {
                dim: 1,
                start: 1,
                end: Some(-1),
                step: 1,
            };
            (s, Format::Contiguous, copy(vec![cut], Format::Contiguous))
        }
        Kind::ExpandRows => {
            let steps = vec![Step::Expand {
                sizes: vec![s[0], -1],
            }];
            (
                vec![1, s[1]],
                Format::Contiguous,
                copy(steps, Format::Contiguous),
            )
        }
        Kind::Unfold { size, step } => {
            let steps = vec![Step::Unfold { dim: 0, size, step }];
            (s, Format::Contiguous, copy(steps, Format::Contiguous))
        }
        Kind::IndexSelectRows => {
            let op = Op::IndexSelectRows {
                count: s[0] / 2,
                seed: DEFAULT_SEED,
            };
            (s, Format::Contiguous, op)
        }
    };
    Case {
        case: name.to_string(),
        dtype,
        shape,
        input_format,
        op,
    }
}

/// Halves the largest dimension above [`KEEP_DIMS_UP_TO`] until the element count has
/// shrunk by `factor` (a power of two) or nothing can shrink. Rank is kept.
pub fn scale_down(shape: &[i64], factor: i64) -> Vec<i64> {
    let mut s = shape.to_vec();
    for _ in 0..factor.max(1).ilog2() {
        let Some((k, _)) = s
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > KEEP_DIMS_UP_TO)
            .max_by_key(|(k, n)| (**n, std::cmp::Reverse(*k)))
        else {
            break;
        };
        s[k] /= 2;
    }
    s
}

/// The whole suite in run order: the memcpy line first, the anchor cases, then the random
/// permutations (`seed` picks them).
pub fn suite(quick: bool, seed: u64) -> Vec<Case> {
    use DType::*;
    use Kind::*;
    let p = |d: &[i64]| Permute(d.to_vec());
    let mut v = vec![
        def(MEMCPY_CASE, F32, Clone, &[1 << 28], quick),
        def(
            "transpose2d_f32_16384x16384",
            F32,
            p(&[1, 0]),
            &[16384, 16384],
            quick,
        ),
        def(
            "transpose2d_f16_16384x16384",
            F16,
            p(&[1, 0]),
            &[16384, 16384],
            quick,
        ),
        def(
            "transpose2d_i8_32768x32768",
            I8,
            p(&[1, 0]),
            &[32768, 32768],
            quick,
        ),
        def(
            "transpose2d_f64_8192x16384",
            F64,
            p(&[1, 0]),
            &[8192, 16384],
            quick,
        ),
        def(
            "transpose2d_f32_7x33554432",
            F32,
            p(&[1, 0]),
            &[7, 33554432],
            quick,
        ),
        def(
            "heads_0213_f16_32x2048x32x128",
            F16,
            p(&[0, 2, 1, 3]),
            &[32, 2048, 32, 128],
            quick,
        ),
        def(
            "heads_0213_f16_64x1024x32x64",
            F16,
            p(&[0, 2, 1, 3]),
            &[64, 1024, 32, 64],
            quick,
        ),
        def(
            "perm3d_201_f32_1024x1024x256",
            F32,
            p(&[2, 0, 1]),
            &[1024, 1024, 256],
            quick,
        ),
        def(
            "perm3d_102_f32_256x1024x1024",
            F32,
            p(&[1, 0, 2]),
            &[256, 1024, 1024],
            quick,
        ),
        def(
            "perm4d_3210_f32_64x64x64x64",
            F32,
            p(&[3, 2, 1, 0]),
            &[64; 4],
            quick,
        ),
        def(
            "perm6d_503142_f32_24^6",
            F32,
            p(&[5, 0, 3, 1, 4, 2]),
            &[24; 6],
            quick,
        ),
        def(
            "nchw2nhwc_f32_256x3x224x224",
            F32,
            ToChannelsLast,
            &[256, 3, 224, 224],
            quick,
        ),
        def(
            "nchw2nhwc_f16_64x64x224x224",
            F16,
            ToChannelsLast,
            &[64, 64, 224, 224],
            quick,
        ),
        def(
            "nchw2nhwc_f16_256x256x56x56",
            F16,
            ToChannelsLast,
            &[256, 256, 56, 56],
            quick,
        ),
        def(
            "nhwc2nchw_f32_256x3x224x224",
            F32,
            FromChannelsLast,
            &[256, 3, 224, 224],
            quick,
        ),
        def(
            "nhwc2nchw_f16_64x64x224x224",
            F16,
            FromChannelsLast,
            &[64, 64, 224, 224],
            quick,
        ),
        def(
            "slice_step2_f32_16384x16384",
            F32,
            SliceStep(2),
            &[16384, 16384],
            quick,
        ),
        def(
            "narrow_cols_f32_16384x16384",
            F32,
            NarrowCols,
            &[16384, 16384],
            quick,
        ),
        def(
            "expand_rows_f32_16384",
            F32,
            ExpandRows,
            &[16384, 16384],
            quick,
        ),
        def(
            "unfold_windows_i32_1025s512",
            I32,
            Unfold {
                size: 1025,
                step: 512,
            },
            &[1 << 27],
            quick,
        ),
        def(
            "index_select_rows_f16_4Mx128",
            F16,
            IndexSelectRows,
            &[1 << 22, 128],
            quick,
        ),
    ];
    v.extend(random_permutations(quick, seed));
    v
}

/// cuTT-style random permutations: for each rank 2..=7, [`RAND_PER_RANK`] fp32 shapes of
/// about 2^28 elements (sizes spread around the rank-th root) with a random non-identity
/// permutation. Named `rand_r<rank>_<k>_<shape>_p<perm>` after the full-size shape.
pub fn random_permutations(quick: bool, seed: u64) -> Vec<Case> {
    let mut rng = SplitMix64(seed);
    let mut out = Vec::new();
    for rank in RAND_RANKS {
        for k in 0..RAND_PER_RANK {
            // Sizes spread by a factor in [0.5, 1.5) around the rank-th root of the
            // target, then rescaled together towards the target volume.
            let base = (RAND_LOG2_ELEMENTS / rank as f64).exp2();
            let raw: Vec<f64> = (0..rank).map(|_| base * (0.5 + rng.unit())).collect();
            let fix =
                (RAND_LOG2_ELEMENTS.exp2() / raw.iter().product::<f64>()).powf(1.0 / rank as f64);
            let shape: Vec<i64> = raw
                .iter()
                .map(|d| ((d * fix).round() as i64).max(2))
                .collect();
            let perm = loop {
                let mut p: Vec<i64> = (0..rank as i64).collect();
                for i in (1..rank).rev() {
                    p.swap(i, rng.below(i as u64 + 1) as usize);
                }
                if p.iter().enumerate().any(|(i, &d)| d != i as i64) {
                    break p;
                }
            };
            let name = format!(
                "rand_r{rank}_{k}_{}_p{}",
                dims_x(&shape),
                perm.iter().map(|d| d.to_string()).collect::<String>()
            );
            out.push(def(&name, DType::F32, Kind::Permute(perm), &shape, quick));
        }
    }
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

/// A case-name pattern: a substring, or a regular expression matched anywhere in the name.
/// A pattern that is no valid regular expression still matches as a substring.
#[derive(Debug, Clone)]
pub struct CasePattern {
    text: String,
    re: Option<regex::Regex>,
}

impl CasePattern {
    pub fn new(pattern: &str) -> CasePattern {
        CasePattern {
            text: pattern.to_string(),
            re: regex::Regex::new(pattern).ok(),
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        name.contains(&self.text) || self.re.as_ref().is_some_and(|r| r.is_match(name))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// Keeps the cases whose name contains `pattern` or matches it as a regular expression;
/// the memcpy case is always kept (it is the 100% line).
pub fn filter(cases: Vec<Case>, pattern: Option<&str>) -> Result<Vec<Case>, BenchError> {
    let Some(pat) = pattern else {
        return Ok(cases);
    };
    let pattern = CasePattern::new(pat);
    let hit = |name: &str| pattern.matches(name);
    let kept: Vec<Case> = cases
        .into_iter()
        .filter(|c| c.case == MEMCPY_CASE || hit(&c.case))
        .collect();
    if kept.len() <= 1 && !hit(MEMCPY_CASE) {
        return Err(BenchError::Usage(format!(
            "--cases '{pat}' matches no case (see `stridekit bench --list`)"
        )));
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(s: &'a [Case], name: &str) -> &'a Case {
        s.iter().find(|c| c.case == name).unwrap()
    }

    /// (case, read_bytes, write_bytes) from the anchors (bench/anchors/torch_h200_anchor.json, "anchor run 1").
    const ANCHOR_BYTES: [(&str, u64, u64); 22] = [
        ("memcpy_f32_1GiB", 1073741824, 1073741824),
        ("transpose2d_f32_16384x16384", 1073741824, 1073741824),
        ("transpose2d_f16_16384x16384", 536870912, 536870912),
        ("transpose2d_i8_32768x32768", 1073741824, 1073741824),
        ("transpose2d_f64_8192x16384", 1073741824, 1073741824),
        ("transpose2d_f32_7x33554432", 939524096, 939524096),
        ("heads_0213_f16_32x2048x32x128", 536870912, 536870912),
        ("heads_0213_f16_64x1024x32x64", 268435456, 268435456),
        ("perm3d_201_f32_1024x1024x256", 1073741824, 1073741824),
        ("perm3d_102_f32_256x1024x1024", 1073741824, 1073741824),
        ("perm4d_3210_f32_64x64x64x64", 67108864, 67108864),
        ("perm6d_503142_f32_24^6", 764411904, 764411904),
        ("nchw2nhwc_f32_256x3x224x224", 154140672, 154140672),
        ("nchw2nhwc_f16_64x64x224x224", 411041792, 411041792),
        ("nchw2nhwc_f16_256x256x56x56", 411041792, 411041792),
        ("nhwc2nchw_f32_256x3x224x224", 154140672, 154140672),
        ("nhwc2nchw_f16_64x64x224x224", 411041792, 411041792),
        ("slice_step2_f32_16384x16384", 268435456, 268435456),
        ("narrow_cols_f32_16384x16384", 1073610752, 1073610752),
        ("expand_rows_f32_16384", 65536, 1073741824),
        ("unfold_windows_i32_1025s512", 536870912, 1074782200),
        ("index_select_rows_f16_4Mx128", 536870912, 536870912),
    ];

    #[test]
    fn anchor_cases_have_the_anchor_names_and_bytes() {
        let s = suite(false, DEFAULT_SEED);
        for (name, read, write) in ANCHOR_BYTES {
            let w = find(&s, name).work().unwrap();
            // The last 2^27 - (262141 * 512 + 1025) = 511 int32 elements of the unfold
            // input are in no window: PyTorch's figure counts the whole input, ours the
            // elements read.
            let read = if name.starts_with("unfold") {
                read - 511 * 4
            } else {
                read
            };
            assert_eq!((w.bytes_read, w.bytes_written), (read, write), "{name}");
        }
        assert_eq!(s.len(), ANCHOR_BYTES.len() + 24);
    }

    #[test]
    fn anchor_shapes_and_ops() {
        let s = suite(false, DEFAULT_SEED);
        let t = find(&s, "transpose2d_f64_8192x16384");
        assert_eq!(t.shape, vec![8192, 16384]);
        assert_eq!(t.work().unwrap().output_shape, vec![16384, 8192]);
        assert_eq!(t.expression(), "x.permute(1, 0).contiguous()");
        let sl = find(&s, "slice_step2_f32_16384x16384");
        assert_eq!(sl.expression(), "x[::2, ::2].contiguous()");
        assert_eq!(sl.work().unwrap().output_shape, vec![8192, 8192]);
        let n = find(&s, "narrow_cols_f32_16384x16384");
        assert_eq!(n.expression(), "x[:, 1:-1].contiguous()");
        let e = find(&s, "expand_rows_f32_16384");
        assert_eq!(e.shape, vec![1, 16384]);
        assert_eq!(e.expression(), "x.expand(16384, -1).contiguous()");
        let u = find(&s, "unfold_windows_i32_1025s512");
        assert_eq!(u.work().unwrap().output_shape, vec![262142, 1025]);
        let cl = find(&s, "nchw2nhwc_f32_256x3x224x224");
        assert_eq!(
            cl.expression(),
            "x.contiguous(memory_format=torch.channels_last)"
        );
        let WorkKind::Copy { out, .. } = cl.work().unwrap().kind else {
            panic!()
        };
        assert_eq!(out.strides(), &[150528, 1, 672, 3]);
        let g = find(&s, "index_select_rows_f16_4Mx128").work().unwrap();
        let WorkKind::Gather { shape, index } = g.kind else {
            panic!()
        };
        assert_eq!((shape.num_rows, shape.src_rows), (1 << 21, 1 << 22));
        let mut sorted = index.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 1 << 21, "gathered rows are distinct");
    }

    #[test]
    fn random_suite_is_seeded_and_about_2_to_the_28() {
        let a = random_permutations(false, DEFAULT_SEED);
        assert_eq!(a, random_permutations(false, DEFAULT_SEED));
        assert_ne!(a, random_permutations(false, 7));
        assert_eq!(a.len(), 24);
        for (k, c) in a.iter().enumerate() {
            let rank = 2 + k / 4;
            assert_eq!(c.shape.len(), rank);
            let n: i64 = c.shape.iter().product();
            assert!(
                (n as f64).log2() > 27.0 && (n as f64).log2() < 29.0,
                "{}",
                c.case
            );
            assert!(c.case.starts_with(&format!("rand_r{rank}_{}_", k % 4)));
            let Op::Copy { steps, .. } = &c.op else {
                panic!()
            };
            let Step::Permute { dims } = &steps[0] else {
                panic!()
            };
            let p: String = dims.iter().map(|d| d.to_string()).collect();
            assert!(c.case.ends_with(&format!("_{}_p{p}", dims_x(&c.shape))));
            let w = c.work().unwrap();
            assert_eq!(w.bytes_read, n as u64 * 4);
            assert_eq!(w.bytes_written, n as u64 * 4);
        }
    }

    #[test]
    fn quick_scales_by_256_and_keeps_rank_dtype_and_small_dims() {
        let full = suite(false, DEFAULT_SEED);
        let quick = suite(true, DEFAULT_SEED);
        assert_eq!(full.len(), quick.len());
        for (f, q) in full.iter().zip(&quick) {
            assert_eq!(
                (&f.case, f.dtype, f.shape.len()),
                (&q.case, q.dtype, q.shape.len())
            );
            if let (Op::Copy { steps: a, .. }, Op::Copy { steps: b, .. }) = (&f.op, &q.op)
                && let (Some(Step::Permute { dims: a }), Some(Step::Permute { dims: b })) =
                    (a.first(), b.first())
            {
                assert_eq!(a, b);
            }
            let (wf, wq) = (f.work().unwrap(), q.work().unwrap());
            let ratio = wf.bytes_written as f64 / wq.bytes_written as f64;
            assert!(ratio > 150.0 && ratio < 400.0, "{}: {ratio}", f.case);
        }
        assert_eq!(find(&quick, "nchw2nhwc_f32_256x3x224x224").shape[1], 3);
        assert_eq!(find(&quick, "transpose2d_f32_7x33554432").shape[0], 7);
        assert_eq!(scale_down(&[16384, 16384], 256), vec![1024, 1024]);
        assert_eq!(scale_down(&[24; 6], 256), vec![6, 6, 12, 12, 12, 12]);
        assert_eq!(scale_down(&[3, 5], 256), vec![3, 5]);
    }

    #[test]
    fn unique_elements_of_views() {
        let x = Layout::contiguous(&[4, 6]);
        assert_eq!(
            unique_elements(&view::slice(&x, 1, Some(0), None, 2).unwrap()),
            12
        );
        let e = view::expand(&Layout::contiguous(&[1, 6]), &[5, 6], "Float").unwrap();
        assert_eq!(unique_elements(&e), 6);
        let u = view::unfold(&Layout::contiguous(&[10]), 0, 4, 3).unwrap(); // 0..4, 3..7, 6..10
        assert_eq!(unique_elements(&u), 10);
        let u = view::unfold(&Layout::contiguous(&[10]), 0, 2, 4).unwrap(); // 0..2, 4..6, 8..10
        assert_eq!(unique_elements(&u), 6);
    }

    #[test]
    fn filter_by_substring_or_regex_keeps_memcpy() {
        let s = suite(true, DEFAULT_SEED);
        let f = filter(s.clone(), Some("nchw2nhwc")).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(f[0].case, MEMCPY_CASE);
        let f = filter(s.clone(), Some("^perm[34]d")).unwrap();
        assert_eq!(f.len(), 4);
        let f = filter(s.clone(), Some("perm6d_503142_f32_24^6")).unwrap();
        assert_eq!(
            f.len(),
            2,
            "a name with regex characters matches as a substring"
        );
        assert!(matches!(
            filter(s.clone(), Some("nothing_like_this")),
            Err(BenchError::Usage(_))
        ));
        assert!(matches!(
            filter(s.clone(), Some("(")),
            Err(BenchError::Usage(_))
        ));
        assert_eq!(filter(s, Some("memcpy")).unwrap().len(), 1);
    }
}
