//! `stridekit report`: bench JSON from any number of runs, nodes and GPUs merged into one
//! row per GPU, the fleet median per GPU model, outliers by the median absolute deviation,
//! health and throttle flags, and (with `--accept`) PASS or FAIL per GPU.
//!
//! - [`input`]: files, directories and glob patterns to parsed runs (I/O).
//! - [`fleet`]: rows, groups, bands and flags (pure).
//! - [`accept`]: acceptance rules and verdicts (parsing, then pure).
//! - [`output`], [`plot`]: text, Markdown, CSV, JSON, SVG (pure); [`cli`]: the command.

pub mod accept;
pub mod cli;
pub mod error;
pub mod fleet;
pub mod input;
pub mod output;
pub mod plot;

pub use error::ReportError;
pub use fleet::{Fleet, GpuRow, fleet};
