//! Tuning studies: replay a grid of settings over traces (one replay per core) and rank
//! the settings of each trace by peak reserved bytes.
//!
//! Ranking: settings that ran out of memory under the capacity come last; then lower peak
//! reserved bytes first; ties go to fewer device calls that obtain memory (segment
//! allocations, page creations and maps), then to the grid order.

use rayon::prelude::*;

use super::config::AllocConfig;
use super::error::AllocResult;
use super::replay::{self, ReplayOptions, ReplayReport};
use super::trace::Trace;

/// How to run a study.
#[derive(Debug, Clone)]
pub struct TuneOptions {
    /// Simulated device capacity in bytes.
    pub capacity: u64,
    /// Show a progress bar on standard error (only drawn on a terminal).
    pub progress: bool,
}

/// One (trace, setting) replay of a study.
#[derive(Debug, Clone)]
pub struct TuneRow {
    /// The setting as written in the grid.
    pub setting: String,
    /// Position of the setting in the grid.
    pub grid_index: usize,
    /// Whether the setting selects stridekit's own policy.
    pub stridekit: bool,
    pub report: ReplayReport,
}

impl TuneRow {
    /// Whether some allocation failed with out-of-memory under the capacity.
    pub fn oom(&self) -> bool {
        self.report.failed_allocs > 0 || self.report.stats.num_ooms > 0
    }
    /// Device calls that obtain memory.
    pub fn device_calls(&self) -> u64 {
        self.report.device_calls.obtaining()
    }
    /// Whether this is PyTorch's default setting.
    pub fn is_default(&self) -> bool {
        !self.stridekit && AllocConfig::parse(&self.setting).is_ok_and(|c| c.is_default())
    }
    fn rank_key(&self) -> (bool, i64, u64, usize) {
        (
            self.oom(),
            self.report.peak_reserved(),
            self.device_calls(),
            self.grid_index,
        )
    }
}

/// A study's result for one trace: every setting, ranked.
#[derive(Debug, Clone)]
pub struct TraceStudy {
    pub trace: String,
    pub events: usize,
    /// Ranked best first.
    pub rows: Vec<TuneRow>,
}

impl TraceStudy {
    /// PyTorch's default setting, when the grid has it.
    pub fn default_row(&self) -> Option<&TuneRow> {
        self.rows.iter().find(|r| r.is_default())
    }
    /// The best-ranked PyTorch setting.
    pub fn best_pytorch(&self) -> Option<&TuneRow> {
        self.rows.iter().find(|r| !r.stridekit)
    }
    /// The best-ranked setting of stridekit's policy, when the grid has one.
    pub fn best_stridekit(&self) -> Option<&TuneRow> {
        self.rows.iter().find(|r| r.stridekit)
    }
    /// Rank (1-based) of a row.
    pub fn rank_of(&self, row: &TuneRow) -> usize {
        self.rows
            .iter()
            .position(|r| r.grid_index == row.grid_index)
            .map_or(0, |p| p + 1)
    }
    /// Bytes the best PyTorch setting saves against the default, and as % of the default.
    pub fn saving(&self) -> Option<(i64, f64)> {
        let d = self.default_row()?;
        let b = self.best_pytorch()?;
        let dr = d.report.peak_reserved();
        let saved = dr - b.report.peak_reserved();
        Some((saved, 100.0 * saved as f64 / dr.max(1) as f64))
    }
}

/// Replay every setting of `settings` over every trace and rank the settings per trace.
pub fn run(
    traces: &[Trace],
    settings: &[String],
    opts: &TuneOptions,
) -> AllocResult<Vec<TraceStudy>> {
    let cfgs: Vec<AllocConfig> = settings
        .iter()
        .map(|s| AllocConfig::parse(s))
        .collect::<AllocResult<_>>()?;
    // Settings that decide alike replay once: `distinct[k]` is replayed for every
    // setting `c` with `of[c] == k`.
    let mut distinct: Vec<AllocConfig> = Vec::new();
    let of: Vec<usize> = cfgs
        .iter()
        .map(|c| {
            let e = effective(c);
            distinct.iter().position(|d| *d == e).unwrap_or_else(|| {
                distinct.push(e);
                distinct.len() - 1
            })
        })
        .collect();
    let jobs: Vec<(usize, usize)> = (0..traces.len())
        .flat_map(|t| (0..distinct.len()).map(move |k| (t, k)))
        .collect();
    let bar = progress_bar(opts.progress && jobs.len() >= 64, jobs.len() as u64);
    let ropts = ReplayOptions {
        capacity: opts.capacity,
        ..ReplayOptions::default()
    };
    let reports: Vec<ReplayReport> = jobs
        .par_iter()
        .map(|&(t, k)| {
            let r = replay::replay_simulated(&traces[t], &distinct[k], &ropts);
            bar.inc(1);
            r
        })
        .collect::<AllocResult<_>>()?;
    bar.finish_and_clear();
    let mut studies: Vec<TraceStudy> = traces
        .iter()
        .map(|t| TraceStudy {
            trace: t.name.clone(),
            events: t.ops.len(),
            rows: Vec::with_capacity(cfgs.len()),
        })
        .collect();
    for (t, study) in studies.iter_mut().enumerate() {
        let base = t * distinct.len();
        for (c, cfg) in cfgs.iter().enumerate() {
            let mut report = reports[base + of[c]].clone();
            report.config = cfg.label();
            study.rows.push(TuneRow {
                setting: settings[c].clone(),
                grid_index: c,
                stridekit: cfg.is_stridekit(),
                report,
            });
        }
    }
    for s in &mut studies {
        s.rows.sort_by_key(|r| r.rank_key());
    }
    Ok(studies)
}

/// `cfg` with the settings that cannot change a decision under it put back to their
/// defaults, so that settings deciding alike compare equal: `max_non_split_rounding_mb`
/// is read only for requests of at least `max_split_size`, so without `max_split_size`
/// (every request is below it) it decides nothing. The setting's text is dropped too (it
/// only names the setting).
pub fn effective(cfg: &AllocConfig) -> AllocConfig {
    let mut e = cfg.clone();
    e.source.clear();
    if e.max_split_size == u64::MAX {
        e.max_non_split_rounding_size = AllocConfig::default().max_non_split_rounding_size;
    }
    e
}

fn progress_bar(show: bool, len: u64) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} replaying {pos}/{len} (trace, setting) pairs [{bar:40}] {elapsed} elapsed, {eta} left",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}
