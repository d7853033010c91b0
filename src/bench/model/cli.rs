//! `stridekit model`: options and the run.

use std::path::PathBuf;

use super::report::{self, ModelReport};
use super::{ModelError, model_case, model_cases, suite::RANDOM_CASES};
use crate::bench::cases::{DEFAULT_SEED, filter};

/// Options of `stridekit model`.
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    /// The bench suite's --quick sizes.
    #[arg(long)]
    pub quick: bool,
    /// Seed of both random-permutation suites.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Random permutations of the model's own suite (ranks 2-7, every width).
    #[arg(long, default_value_t = RANDOM_CASES)]
    pub random: usize,
    /// Only the cases whose name contains PATTERN or matches it as a regular expression.
    #[arg(long, value_name = "PATTERN")]
    pub cases: Option<String>,
    /// Write the JSON report to FILE (`-`: standard output, the table to standard error).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,
    /// A `stridekit bench --json` report: show each case's prediction beside its measured
    /// % of memcpy.
    #[arg(long, value_name = "BENCH.json")]
    pub measured: Option<PathBuf>,
}

pub fn run(a: ModelArgs) -> Result<(), ModelError> {
    let cases = filter(model_cases(a.quick, a.seed, a.random), a.cases.as_deref())?;
    let records = cases
        .iter()
        .map(model_case)
        .collect::<Result<Vec<_>, _>>()?;
    let calibration = match &a.measured {
        Some(p) => {
            let io = |message: String| ModelError::Input {
                what: p.display().to_string(),
                message,
            };
            let text = std::fs::read_to_string(p).map_err(|e| io(e.to_string()))?;
            let measured = serde_json::from_str(&text).map_err(|e| io(e.to_string()))?;
            report::calibrate(&records, &measured)
        }
        None => Vec::new(),
    };
    let table = report::table(&records, &calibration);
    let doc = ModelReport {
        predicted: true,
        note: report::NOTE,
        summary: report::summary(&records),
        records,
        calibration,
    };
    let json = serde_json::to_string_pretty(&doc).expect("the report serialises") + "\n";
    match &a.json {
        Some(p) if p.as_os_str() == "-" => {
            eprint!("{table}");
            print!("{json}");
        }
        Some(p) => {
            print!("{table}");
            std::fs::write(p, json).map_err(|e| ModelError::Input {
                what: p.display().to_string(),
                message: e.to_string(),
            })?;
        }
        None => print!("{table}"),
    }
    Ok(())
}
