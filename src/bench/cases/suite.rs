//! The layout suite, read from its data file (`cases.toml`, built in): the anchor cases
//! (bench/anchors/: PyTorch's recorded figures, same names and sizes) with the 1 GiB
//! device-to-device copy that is the 100% line first, then a random-permutation suite in
//! cuTT's manner. [`SuiteSpec::parse`] reads and checks such a file; a bad one is a
//! [`BenchError::CaseData`] naming its line.

use std::ops::RangeInclusive;
use std::sync::OnceLock;

use serde::Deserialize;
use toml::Spanned;

use super::recipe::{Case, Format, Op, Step, dims_x};
use crate::bench::error::BenchError;
use crate::dtype::DType;
use crate::rng::SplitMix64;

/// The copy every other case is measured against.
pub const MEMCPY_CASE: &str = "memcpy_f32_1GiB";
/// Seed of the random-permutation suite (the peers' run used 42).
pub const DEFAULT_SEED: u64 = 42;
/// `--quick` divides every case's element count by about this much.
pub const QUICK_FACTOR: i64 = 256;
/// Dimensions this small are never scaled down (channels_last C = 3, the skinny 7 rows).
const KEEP_DIMS_UP_TO: i64 = 8;
/// The suite as shipped.
const SHIPPED: &str = include_str!("cases.toml");
/// Bounds a suite file is held to: the most dimensions of a shape, the highest rank and
/// the most cases per rank of the random suite, its element count's largest log2.
const MAX_RANK: usize = 16;
const MAX_PER_RANK: usize = 64;
const MAX_LOG2_ELEMENTS: f64 = 40.0;

/// How a case derives its recipe from its (possibly scaled) logical shape.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Recipe {
    Clone {},
    Permute {
        dims: Vec<i64>,
    },
    ToChannelsLast {},
    FromChannelsLast {},
    SliceStep {
        step: i64,
    },
    NarrowCols {},
    /// Logical shape (n, m): a (1, m) row expanded to n rows.
    ExpandRows {},
    Unfold {
        size: i64,
        step: i64,
    },
    /// Logical shape (rows, cols): gather rows / 2 distinct rows.
    IndexSelectRows {},
}

/// One `[[case]]` of the file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseEntry {
    name: String,
    dtype: String,
    shape: Vec<i64>,
    recipe: Recipe,
}

/// The `[random]` table, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RandomEntry {
    dtype: String,
    min_rank: usize,
    max_rank: usize,
    per_rank: usize,
    log2_elements: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    case: Vec<Spanned<CaseEntry>>,
    random: Spanned<RandomEntry>,
}

/// One anchor case: its name, dtype, full-size logical shape and recipe.
#[derive(Debug, Clone, PartialEq)]
struct Anchor {
    name: String,
    dtype: DType,
    shape: Vec<i64>,
    recipe: Recipe,
}

/// The random-permutation suite's parameters.
#[derive(Debug, Clone, PartialEq)]
struct RandomSuite {
    dtype: DType,
    ranks: RangeInclusive<usize>,
    per_rank: usize,
    log2_elements: f64,
}

/// A checked suite file: the anchor cases in run order and the random suite.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteSpec {
    anchors: Vec<Anchor>,
    random: RandomSuite,
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

fn dtype_named(name: &str) -> Result<DType, String> {
    DType::ALL
        .into_iter()
        .find(|d| d.torch_name() == name)
        .ok_or_else(|| {
            let known: Vec<&str> = DType::ALL.iter().map(|d| d.torch_name()).collect();
            format!("unknown dtype '{name}' (one of {})", known.join(", "))
        })
}

/// The checks of one `[[case]]` beyond its syntax.
fn check_case(e: CaseEntry) -> Result<Anchor, String> {
    let name = e.name.trim();
    if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "case name '{}' must be non-empty, without spaces",
            e.name
        ));
    }
    let dtype = dtype_named(&e.dtype)?;
    let rank = e.shape.len();
    if rank == 0 || rank > MAX_RANK {
        return Err(format!(
            "case {name}: shape needs 1 to {MAX_RANK} dimensions, got {rank}"
        ));
    }
    if let Some(d) = e.shape.iter().find(|d| **d < 1) {
        return Err(format!(
            "case {name}: dimension {d} (each must be at least 1)"
        ));
    }
    let bytes = e
        .shape
        .iter()
        .try_fold(dtype.itemsize() as i64, |acc, d| acc.checked_mul(*d));
    if bytes.is_none() {
        return Err(format!(
            "case {name}: shape too large for 64-bit byte counts"
        ));
    }
    let need_rank = |want: usize, what: &str| {
        if rank == want {
            Ok(())
        } else {
            Err(format!(
                "case {name}: {what} needs a {want}-d shape, got {rank}-d"
            ))
        }
    };
    match &e.recipe {
        Recipe::Clone {} => {}
        Recipe::Permute { dims } => {
            let mut seen = vec![false; rank];
            let ok = dims.len() == rank
                && dims.iter().all(|d| {
                    usize::try_from(*d)
                        .ok()
                        .and_then(|d| seen.get_mut(d))
                        .is_some_and(|s| !std::mem::replace(s, true))
                });
            if !ok {
                return Err(format!(
                    "case {name}: permute dims {dims:?} are no permutation of 0..{rank}"
                ));
            }
        }
        Recipe::ToChannelsLast {} | Recipe::FromChannelsLast {} => need_rank(4, "channels_last")?,
        Recipe::SliceStep { step } if *step < 1 => {
            return Err(format!("case {name}: slice step {step} (at least 1)"));
        }
        Recipe::SliceStep { .. } => {}
        Recipe::NarrowCols {} if rank < 2 => {
            return Err(format!(
                "case {name}: narrow_cols needs at least 2 dimensions"
            ));
        }
        Recipe::NarrowCols {} => {}
        Recipe::ExpandRows {} => need_rank(2, "expand_rows")?,
        Recipe::Unfold { size, step } if *size < 1 || *step < 1 || *size > e.shape[0] => {
            return Err(format!(
                "case {name}: unfold size {size} and step {step} must be at least 1, the size at most {}",
                e.shape[0]
            ));
        }
        Recipe::Unfold { .. } => {}
        Recipe::IndexSelectRows {} => need_rank(2, "index_select_rows")?,
    }
    Ok(Anchor {
        name: name.to_string(),
        dtype,
        shape: e.shape,
        recipe: e.recipe,
    })
}

fn check_random(r: RandomEntry) -> Result<RandomSuite, String> {
    let dtype = dtype_named(&r.dtype)?;
    if r.min_rank < 2 || r.min_rank > r.max_rank || r.max_rank > MAX_RANK {
        return Err(format!(
            "random ranks {}..={} (need 2 <= min_rank <= max_rank <= {MAX_RANK}: rank 1 has no non-identity permutation)",
            r.min_rank, r.max_rank
        ));
    }
    if r.per_rank > MAX_PER_RANK {
        return Err(format!(
            "random per_rank {} (at most {MAX_PER_RANK})",
            r.per_rank
        ));
    }
    if !(1.0..=MAX_LOG2_ELEMENTS).contains(&r.log2_elements) {
        return Err(format!(
            "random log2_elements {} (from 1 to {MAX_LOG2_ELEMENTS})",
            r.log2_elements
        ));
    }
    Ok(RandomSuite {
        dtype,
        ranks: r.min_rank..=r.max_rank,
        per_rank: r.per_rank,
        log2_elements: r.log2_elements,
    })
}

impl SuiteSpec {
    /// Reads a suite file (the format of `cases.toml`): unknown fields, unknown dtypes and
    /// recipes that cannot apply to their shape are errors naming the line; the first case
    /// must be [`MEMCPY_CASE`], a clone, and names are unique.
    pub fn parse(text: &str) -> Result<SuiteSpec, BenchError> {
        let at = |offset: usize, message: String| BenchError::CaseData {
            line: line_of(text, offset),
            message,
        };
        let file: SuiteFile = toml::from_str(text).map_err(|e| {
            let msg = e.message().trim_end().replace('\n', "; ");
            at(e.span().map_or(0, |s| s.start), msg)
        })?;
        let mut anchors: Vec<Anchor> = Vec::with_capacity(file.case.len());
        for entry in file.case {
            let start = entry.span().start;
            let a = check_case(entry.into_inner()).map_err(|m| at(start, m))?;
            if anchors.iter().any(|b| b.name == a.name) {
                return Err(at(start, format!("case {} is named twice", a.name)));
            }
            if anchors.is_empty() && (a.name != MEMCPY_CASE || a.recipe != Recipe::Clone {}) {
                return Err(at(
                    start,
                    format!(
                        "the first case must be {MEMCPY_CASE} (kind clone), the 100% line, got {}",
                        a.name
                    ),
                ));
            }
            anchors.push(a);
        }
        if anchors.is_empty() {
            return Err(at(0, format!("no [[case]]: {MEMCPY_CASE} is needed")));
        }
        let start = file.random.span().start;
        let random = check_random(file.random.into_inner()).map_err(|m| at(start, m))?;
        Ok(SuiteSpec { anchors, random })
    }

    /// The suite as shipped (`src/bench/cases/cases.toml`, checked by this module's tests).
    pub fn shipped() -> &'static SuiteSpec {
        static SPEC: OnceLock<SuiteSpec> = OnceLock::new();
        SPEC.get_or_init(|| {
            SuiteSpec::parse(SHIPPED)
                .unwrap_or_else(|e| panic!("the built-in bench/cases/cases.toml: {e}"))
        })
    }

    /// The whole suite in run order: the memcpy line first, the anchor cases, then the
    /// random permutations (`seed` picks them).
    pub fn cases(&self, quick: bool, seed: u64) -> Vec<Case> {
        let mut v: Vec<Case> = self
            .anchors
            .iter()
            .map(|a| a.recipe.case(&a.name, a.dtype, &a.shape, quick))
            .collect();
        v.extend(self.random_permutations(quick, seed));
        v
    }

    /// cuTT-style random permutations: for each rank, `per_rank` shapes of about
    /// 2^`log2_elements` elements (sizes spread around the rank-th root) with a random
    /// non-identity permutation. Named `rand_r<rank>_<k>_<shape>_p<perm>` after the
    /// full-size shape.
    pub fn random_permutations(&self, quick: bool, seed: u64) -> Vec<Case> {
        let r = &self.random;
        let mut rng = SplitMix64(seed);
        let mut out = Vec::new();
        for rank in r.ranks.clone() {
            for k in 0..r.per_rank {
                let shape = random_shape(&mut rng, rank, r.log2_elements);
                let perm = random_permutation(&mut rng, rank);
                let name = format!(
                    "rand_r{rank}_{k}_{}_p{}",
                    dims_x(&shape),
                    perm.iter().map(|d| d.to_string()).collect::<String>()
                );
                let recipe = Recipe::Permute { dims: perm };
                out.push(recipe.case(&name, r.dtype, &shape, quick));
            }
        }
        out
    }
}

impl Recipe {
    /// The case this recipe makes of a logical shape (scaled down first with `quick`).
    fn case(&self, name: &str, dtype: DType, logical: &[i64], quick: bool) -> Case {
        let s = if quick {
            scale_down(logical, QUICK_FACTOR)
        } else {
            logical.to_vec()
        };
        let copy = |steps: Vec<Step>, output: Format| Op::Copy { steps, output };
        let (shape, input_format, op) = match self {
            Recipe::Clone {} => (s, Format::Contiguous, Op::Clone),
            Recipe::Permute { dims } => (
                s,
                Format::Contiguous,
                copy(
                    vec![Step::Permute { dims: dims.clone() }],
                    Format::Contiguous,
                ),
            ),
            Recipe::ToChannelsLast {} => {
                (s, Format::Contiguous, copy(vec![], Format::ChannelsLast))
            }
            Recipe::FromChannelsLast {} => {
                (s, Format::ChannelsLast, copy(vec![], Format::Contiguous))
            }
            Recipe::SliceStep { step } => {
                let steps = (0..s.len())
                    .map(|dim| Step::Slice {
                        dim,
                        start: 0,
                        end: None,
                        step: *step,
                    })
                    .collect();
                (s, Format::Contiguous, copy(steps, Format::Contiguous))
            }
            Recipe::NarrowCols {} => {
                let cut = Step::Slice {
                    dim: 1,
                    start: 1,
                    end: Some(-1),
                    step: 1,
                };
                (s, Format::Contiguous, copy(vec![cut], Format::Contiguous))
            }
            Recipe::ExpandRows {} => {
                let steps = vec![Step::Expand {
                    sizes: vec![s[0], -1],
                }];
                (
                    vec![1, s[1]],
                    Format::Contiguous,
                    copy(steps, Format::Contiguous),
                )
            }
            Recipe::Unfold { size, step } => {
                let steps = vec![Step::Unfold {
                    dim: 0,
                    size: *size,
                    step: *step,
                }];
                (s, Format::Contiguous, copy(steps, Format::Contiguous))
            }
            Recipe::IndexSelectRows {} => {
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
}

/// A random shape of `rank` dimensions and about 2^`log2_elements` elements: sizes spread by
/// a factor in [0.5, 1.5) around the rank-th root of the target, then rescaled together
/// towards the target volume; each at least 2.
pub fn random_shape(rng: &mut SplitMix64, rank: usize, log2_elements: f64) -> Vec<i64> {
    let base = (log2_elements / rank as f64).exp2();
    let raw: Vec<f64> = (0..rank).map(|_| base * (0.5 + rng.unit())).collect();
    let fix = (log2_elements.exp2() / raw.iter().product::<f64>()).powf(1.0 / rank as f64);
    raw.iter()
        .map(|d| ((d * fix).round() as i64).max(2))
        .collect()
}

/// A uniformly random permutation of `0..rank` other than the identity (Fisher-Yates,
/// drawn again on the identity); `rank` is at least 2.
pub fn random_permutation(rng: &mut SplitMix64, rank: usize) -> Vec<i64> {
    loop {
        let mut p: Vec<i64> = (0..rank as i64).collect();
        for i in (1..rank).rev() {
            p.swap(i, rng.below(i as u64 + 1) as usize);
        }
        if rank < 2 || p.iter().enumerate().any(|(i, &d)| d != i as i64) {
            return p;
        }
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

/// The shipped suite in run order: the memcpy line first, the anchor cases, then the random
/// permutations (`seed` picks them).
pub fn suite(quick: bool, seed: u64) -> Vec<Case> {
    SuiteSpec::shipped().cases(quick, seed)
}

/// The shipped suite's random permutations (see [`SuiteSpec::random_permutations`]).
pub fn random_permutations(quick: bool, seed: u64) -> Vec<Case> {
    SuiteSpec::shipped().random_permutations(quick, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMCPY: &str = "[[case]]\nname = \"memcpy_f32_1GiB\"\ndtype = \"float32\"\nshape = [1024]\nrecipe = { kind = \"clone\" }\n";
    const RANDOM: &str = "[random]\ndtype = \"float32\"\nmin_rank = 2\nmax_rank = 3\nper_rank = 2\nlog2_elements = 12.0\n";

    /// A file of the memcpy case, `extra` (one more case, lines 6 on) and the random table.
    fn with(extra: &str) -> String {
        format!("{MEMCPY}{extra}{RANDOM}")
    }

    fn case(name: &str, dtype: &str, shape: &str, recipe: &str) -> String {
        format!(
            "[[case]]\nname = \"{name}\"\ndtype = \"{dtype}\"\nshape = {shape}\nrecipe = {recipe}\n"
        )
    }

    /// The error's line and message.
    fn error(text: &str) -> (usize, String) {
        match SuiteSpec::parse(text) {
            Err(BenchError::CaseData { line, message }) => (line, message),
            other => panic!("expected a CaseData error, got {other:?}"),
        }
    }

    #[test]
    fn the_shipped_file_parses_into_22_anchors_and_24_random_cases() {
        let spec = SuiteSpec::parse(SHIPPED).unwrap();
        assert_eq!(spec.anchors.len(), 22);
        assert_eq!(spec.anchors[0].name, MEMCPY_CASE);
        assert_eq!(spec.random.ranks, 2..=7);
        assert_eq!(spec.cases(false, DEFAULT_SEED).len(), 46);
        assert_eq!(&spec, SuiteSpec::shipped());
    }

    #[test]
    fn a_small_file_makes_its_cases_in_order() {
        let text = with(&case(
            "t",
            "int8",
            "[4, 6]",
            "{ kind = \"permute\", dims = [1, 0] }",
        ));
        let cases = SuiteSpec::parse(&text).unwrap().cases(false, 1);
        let names: Vec<&str> = cases.iter().map(|c| c.case.as_str()).collect();
        assert_eq!(names.len(), 2 + 4);
        assert_eq!(&names[..2], &[MEMCPY_CASE, "t"]);
        assert!(names[2].starts_with("rand_r2_0_") && names[5].starts_with("rand_r3_1_"));
        assert_eq!(cases[1].dtype, DType::I8);
        assert_eq!(
            cases[1].op,
            Op::Copy {
                steps: vec![Step::Permute { dims: vec![1, 0] }],
                output: Format::Contiguous
            }
        );
    }

    #[test]
    fn syntax_and_unknown_fields_name_their_line() {
        assert_eq!(error(&with("[[case]]\nname = \n")).0, 7);
        let (line, msg) = error(&with(&case(
            "t",
            "float32",
            "[4]",
            "{ kind = \"clone\", x = 1 }",
        )));
        assert_eq!(line, 10, "{msg}");
        assert!(msg.contains('x'), "{msg}");
        let (line, msg) = error(&with(&case("t", "float32", "[4]", "{ kind = \"rotate\" }")));
        assert_eq!(line, 10, "{msg}");
        assert!(msg.contains("rotate"), "{msg}");
        let (line, msg) = error(&with(
            "[[case]]\nname = \"t\"\ndtype = \"float32\"\nshape = [4]\nrecipe = { kind = \"clone\" }\ncolour = 1\n",
        ));
        assert!((6..=11).contains(&line), "{line}: {msg}");
        assert!(msg.contains("colour"), "{msg}");
        assert!(error(MEMCPY).1.contains("random"));
        // A value of the wrong type: the line of the value itself.
        let (line, msg) = error(&with("").replace("per_rank = 2", "per_rank = -2"));
        assert_eq!(line, 10, "{msg}");
    }

    #[test]
    fn impossible_cases_name_the_line_of_their_entry() {
        let bad = [
            (
                case("t", "complex64", "[4]", "{ kind = \"clone\" }"),
                "unknown dtype 'complex64'",
            ),
            (
                case("t", "float32", "[]", "{ kind = \"clone\" }"),
                "1 to 16 dimensions",
            ),
            (
                case("t", "float32", "[4, 0]", "{ kind = \"clone\" }"),
                "dimension 0",
            ),
            (
                case("t", "float32", "[4, -3]", "{ kind = \"clone\" }"),
                "dimension -3",
            ),
            (
                case(
                    "t",
                    "float64",
                    "[4294967296, 4294967296]",
                    "{ kind = \"clone\" }",
                ),
                "too large",
            ),
            (
                case(
                    "t",
                    "float32",
                    "[4, 5]",
                    "{ kind = \"permute\", dims = [0, 0] }",
                ),
                "no permutation",
            ),
            (
                case(
                    "t",
                    "float32",
                    "[4, 5]",
                    "{ kind = \"permute\", dims = [1, 2] }",
                ),
                "no permutation",
            ),
            (
                case(
                    "t",
                    "float32",
                    "[4, 5]",
                    "{ kind = \"permute\", dims = [0] }",
                ),
                "no permutation",
            ),
            (
                case(
                    "t",
                    "float32",
                    "[4, 5]",
                    "{ kind = \"permute\", dims = [-1, 0] }",
                ),
                "no permutation",
            ),
            (
                case("t", "float32", "[4, 5]", "{ kind = \"to_channels_last\" }"),
                "4-d",
            ),
            (
                case("t", "float32", "[4, 5, 6]", "{ kind = \"expand_rows\" }"),
                "2-d",
            ),
            (
                case("t", "float32", "[4]", "{ kind = \"index_select_rows\" }"),
                "2-d",
            ),
            (
                case("t", "float32", "[4]", "{ kind = \"narrow_cols\" }"),
                "2 dimensions",
            ),
            (
                case("t", "float32", "[4]", "{ kind = \"slice_step\", step = 0 }"),
                "step 0",
            ),
            (
                case(
                    "t",
                    "float32",
                    "[4]",
                    "{ kind = \"unfold\", size = 5, step = 1 }",
                ),
                "at most 4",
            ),
            (
                case(
                    "t",
                    "float32",
                    "[4]",
                    "{ kind = \"unfold\", size = 2, step = 0 }",
                ),
                "step 0",
            ),
            (
                case("a b", "float32", "[4]", "{ kind = \"clone\" }"),
                "without spaces",
            ),
            (
                case(MEMCPY_CASE, "float32", "[4]", "{ kind = \"clone\" }"),
                "named twice",
            ),
        ];
        for (extra, want) in bad {
            let (line, msg) = error(&with(&extra));
            assert_eq!(line, 6, "{extra}: {msg}");
            assert!(msg.contains(want), "{extra}: {msg} (wanted {want})");
        }
    }

    #[test]
    fn the_first_case_is_the_memcpy_line_and_the_random_table_is_bounded() {
        let no_memcpy = format!(
            "{}{RANDOM}",
            case("t", "float32", "[4]", "{ kind = \"clone\" }")
        );
        let (line, msg) = error(&no_memcpy);
        assert_eq!(line, 1);
        assert!(msg.contains("first case must be memcpy_f32_1GiB"), "{msg}");
        let permuted_memcpy =
            MEMCPY.replace("{ kind = \"clone\" }", "{ kind = \"permute\", dims = [0] }");
        assert!(
            error(&format!("{permuted_memcpy}{RANDOM}"))
                .1
                .contains("first case")
        );
        assert!(
            error(&format!("case = []\n{RANDOM}"))
                .1
                .contains("no [[case]]")
        );
        for (from, to, want) in [
            (
                "min_rank = 2",
                "min_rank = 1",
                "rank 1 has no non-identity permutation",
            ),
            ("max_rank = 3", "max_rank = 17", "max_rank <= 16"),
            ("max_rank = 3", "max_rank = 1", "min_rank <= max_rank"),
            ("per_rank = 2", "per_rank = 65", "at most 64"),
            (
                "log2_elements = 12.0",
                "log2_elements = 41.0",
                "from 1 to 40",
            ),
            (
                "log2_elements = 12.0",
                "log2_elements = nan",
                "from 1 to 40",
            ),
            (
                "dtype = \"float32\"\nmin",
                "dtype = \"float\"\nmin",
                "unknown dtype 'float'",
            ),
        ] {
            let text = with("").replace(from, to);
            assert_ne!(text, with(""), "{from}");
            let (line, msg) = error(&text);
            assert_eq!(line, 6, "{to}: {msg}");
            assert!(msg.contains(want), "{to}: {msg} (wanted {want})");
        }
    }
}
