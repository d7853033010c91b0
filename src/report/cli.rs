//! `stridekit report FILE_OR_GLOB... [--accept FILE]`: read, aggregate, write.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::ReportError;
use super::output::AcceptanceReport;
use super::{accept, fleet, input, output, plot};

/// Options of `stridekit report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Bench JSON files, directories (their *.json) or quoted glob patterns
    /// ('results/*/bench-*.json').
    #[arg(required = true, value_name = "FILE_OR_GLOB")]
    pub inputs: Vec<String>,
    /// Outlier limit: a figure more than K robust sigmas (1.4826 x the median absolute
    /// deviation) from its group's median, on its bad side, is flagged.
    #[arg(long, value_name = "K", default_value_t = 3.5)]
    pub mad_k: f64,
    /// The outlier rule applies to groups (model, stridekit version, suite) of at least N GPUs.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub min_gpus: usize,
    /// Acceptance rules per GPU model (TOML, or JSON for *.json): PASS or FAIL per GPU;
    /// the exit status is 1 when any GPU fails.
    #[arg(long, value_name = "FILE")]
    pub accept: Option<PathBuf>,
    /// Write the report as JSON to FILE (`-` or no FILE: standard output).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,
    /// Write one CSV line per GPU to FILE (`-` or no FILE: standard output).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub csv: Option<PathBuf>,
    /// Write the report as Markdown to FILE (`-` or no FILE: standard output).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub markdown: Option<PathBuf>,
    /// Draw memcpy GB/s and J/GB per GPU beside the fleet band as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

fn is_stdout(p: &Option<PathBuf>) -> bool {
    p.as_deref().is_some_and(|p| p.as_os_str() == "-")
}

fn emit(path: &Path, text: &str) -> Result<(), ReportError> {
    if path.as_os_str() == "-" {
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
        Ok(())
    } else {
        std::fs::write(path, text).map_err(|source| ReportError::Write {
            path: path.display().to_string(),
            source,
        })
    }
}

/// Runs the report; `Ok(true)` when every GPU passes acceptance (or none was asked for).
pub fn run(a: ReportArgs) -> Result<bool, ReportError> {
    if !(a.mad_k.is_finite() && a.mad_k > 0.0) {
        return Err(ReportError::Usage(format!(
            "--mad-k {}: expected a number > 0",
            a.mad_k
        )));
    }
    let to_stdout = [&a.json, &a.csv, &a.markdown]
        .iter()
        .filter(|p| is_stdout(p))
        .count();
    if to_stdout > 1 {
        return Err(ReportError::Usage(
            "only one of --json, --csv and --markdown can go to standard output".into(),
        ));
    }
    // The acceptance file first: a bad one should not wait for 512 result files.
    let rules = a.accept.as_deref().map(accept::read).transpose()?;
    let runs = input::read_all(&a.inputs)?;
    let fleet = fleet::fleet(&runs, a.mad_k, a.min_gpus.max(1));
    let acc = rules.map(|r| {
        let verdicts = accept::judge(&r, &fleet);
        AcceptanceReport {
            file: a.accept.as_ref().expect("read above").display().to_string(),
            source: r.source.clone(),
            pass: verdicts.iter().all(|v| v.pass),
            verdicts,
        }
    });
    let text = output::text(&fleet, acc.as_ref());
    if to_stdout > 0 {
        eprint!("{text}");
    } else {
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    }
    if let Some(p) = &a.json {
        emit(p, &output::json(&fleet, acc.as_ref()))?;
    }
    if let Some(p) = &a.csv {
        emit(p, &output::csv(&fleet, acc.as_ref()))?;
    }
    if let Some(p) = &a.markdown {
        emit(p, &output::markdown(&fleet, acc.as_ref()))?;
    }
    if let Some(p) = &a.plot {
        let title = format!(
            "stridekit report: {} GPU(s) from {} file(s)",
            fleet.gpus.len(),
            fleet.files
        );
        emit(p, &plot::svg(&title, &fleet))?;
    }
    Ok(acc.is_none_or(|a| a.pass))
}
