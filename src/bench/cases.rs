//! The benchmark suite: the anchor cases (bench/anchors/: PyTorch's recorded figures, same
//! names and sizes), the 1 GiB device-to-device copy that is the 100% line, and a
//! random-permutation suite in cuTT's manner. The cases are data (`cases/cases.toml`, read
//! by [`suite`]); a [`Case`] is a recipe (input shape and memory format, then PyTorch view
//! steps, then the output format), the same one `stridekit bench --list --json` hands to
//! `scripts/compare_torch.py`, so both sides run the same work.

mod filter;
mod recipe;
mod suite;
mod work;

pub use filter::{CasePattern, filter};
pub use recipe::{Case, Format, Op, Step, dims_x};
pub use suite::{
    DEFAULT_SEED, MEMCPY_CASE, QUICK_FACTOR, SuiteSpec, random_permutation, random_permutations,
    random_shape, scale_down, suite,
};
pub use work::{Work, WorkKind, unique_elements};

#[cfg(test)]
mod tests;
