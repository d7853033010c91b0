//! The three targets `policy:stridekit` is held to on every trace (issue 22), measured from
//! a tuning study: one checker, shared by the corpus test and `alloc tune`.
//!
//! - peak requested bytes / peak reserved bytes at least [`MIN_REQUESTED_OVER_RESERVED`];
//! - peak reserved bytes never above those of the best PyTorch setting of the study
//!   ([`MAX_RESERVED_OVER_BEST`] = 1);
//! - device calls that obtain memory at most [`MAX_CALLS_OVER_EXPANDABLE`] times those of
//!   `expandable_segments:True`.

use super::config::{AllocConfig, StridekitParams};
use super::error::{AllocError, AllocResult};
use super::tune::{TraceStudy, TuneRow};

/// Least peak requested / peak reserved.
pub const MIN_REQUESTED_OVER_RESERVED: f64 = 0.95;
/// Most peak reserved / the best PyTorch setting's peak reserved.
pub const MAX_RESERVED_OVER_BEST: f64 = 1.0;
/// Most device calls / expandable_segments:True's.
pub const MAX_CALLS_OVER_EXPANDABLE: f64 = 2.0;
/// The PyTorch setting whose device calls are the yardstick.
pub const EXPANDABLE: &str = "expandable_segments:True";

/// One of the three targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// Peak requested / peak reserved (higher is better).
    RequestedOverReserved,
    /// Peak reserved / the best PyTorch setting's (lower is better).
    ReservedOverBest,
    /// Device calls / expandable_segments:True's (lower is better).
    CallsOverExpandable,
}

impl Target {
    /// All three, in report order.
    pub const ALL: [Target; 3] = [
        Target::RequestedOverReserved,
        Target::ReservedOverBest,
        Target::CallsOverExpandable,
    ];

    /// A short name (`req/res`, `res/best`, `calls/exp`).
    pub fn name(self) -> &'static str {
        match self {
            Target::RequestedOverReserved => "req/res",
            Target::ReservedOverBest => "res/best",
            Target::CallsOverExpandable => "calls/exp",
        }
    }

    /// Whether `value` meets the target.
    pub fn met(self, value: f64) -> bool {
        match self {
            Target::RequestedOverReserved => value >= MIN_REQUESTED_OVER_RESERVED,
            Target::ReservedOverBest => value <= MAX_RESERVED_OVER_BEST,
            Target::CallsOverExpandable => value <= MAX_CALLS_OVER_EXPANDABLE,
        }
    }

    /// Whether `value` is no worse than `known` (a listed miss's figure).
    pub fn no_worse(self, value: f64, known: f64) -> bool {
        match self {
            Target::RequestedOverReserved => value >= known,
            Target::ReservedOverBest | Target::CallsOverExpandable => value <= known,
        }
    }

    /// The limit, as written in reports.
    pub fn limit(self) -> String {
        match self {
            Target::RequestedOverReserved => format!(">= {MIN_REQUESTED_OVER_RESERVED}"),
            Target::ReservedOverBest => format!("<= {MAX_RESERVED_OVER_BEST}"),
            Target::CallsOverExpandable => format!("<= {MAX_CALLS_OVER_EXPANDABLE}"),
        }
    }
}

/// One row of a study measured against the targets.
#[derive(Debug, Clone)]
pub struct Figures {
    pub trace: String,
    /// The setting measured.
    pub setting: String,
    pub requested: i64,
    pub reserved: i64,
    /// Peak reserved of the best PyTorch setting, and that setting.
    pub best_reserved: i64,
    pub best_setting: String,
    pub calls: u64,
    pub expandable_calls: u64,
    /// The setting ran out of memory under the study's capacity.
    pub oom: bool,
}

impl Figures {
    /// `row` of `study` against the study's best PyTorch setting and its
    /// expandable_segments:True row (an error when the study has neither).
    pub fn of(study: &TraceStudy, row: &TuneRow) -> AllocResult<Figures> {
        let best = study.best_pytorch().ok_or_else(|| {
            AllocError::Usage(format!(
                "{}: the study has no PyTorch setting to hold policy:stridekit against",
                study.trace
            ))
        })?;
        let expandable = expandable_row(study).ok_or_else(|| {
            AllocError::Usage(format!(
                "{}: the study has no {EXPANDABLE} row to compare device calls with",
                study.trace
            ))
        })?;
        let s = &row.report.stats;
        Ok(Figures {
            trace: study.trace.clone(),
            setting: row.setting.clone(),
            requested: s.requested_bytes[0].peak,
            reserved: row.report.peak_reserved(),
            best_reserved: best.report.peak_reserved(),
            best_setting: best.setting.clone(),
            calls: row.device_calls(),
            expandable_calls: expandable.device_calls(),
            oom: row.oom(),
        })
    }

    /// The study's row of policy:stridekit with its default parameters against the
    /// targets.
    pub fn of_stridekit(study: &TraceStudy) -> AllocResult<Figures> {
        let row = study
            .rows
            .iter()
            .find(|r| {
                r.stridekit
                    && AllocConfig::parse(&r.setting)
                        .is_ok_and(|c| c.stridekit == StridekitParams::DEFAULT)
            })
            .ok_or_else(|| {
                AllocError::Usage(format!(
                    "{}: the study has no row of policy:stridekit with its default parameters",
                    study.trace
                ))
            })?;
        Figures::of(study, row)
    }

    /// The figure a target is about.
    pub fn value(&self, target: Target) -> f64 {
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::INFINITY };
        match target {
            Target::RequestedOverReserved => {
                if self.reserved > 0 {
                    self.requested as f64 / self.reserved as f64
                } else {
                    1.0
                }
            }
            Target::ReservedOverBest => ratio(self.reserved as f64, self.best_reserved as f64),
            Target::CallsOverExpandable => {
                ratio(self.calls as f64, self.expandable_calls.max(1) as f64)
            }
        }
    }

    /// The targets missed (every one when the setting ran out of memory).
    pub fn misses(&self) -> Vec<Target> {
        Target::ALL
            .into_iter()
            .filter(|&t| self.oom || !t.met(self.value(t)))
            .collect()
    }

    /// Whether every target is met.
    pub fn meets_all(&self) -> bool {
        self.misses().is_empty()
    }

    /// One line: the three figures, each marked when missed.
    pub fn line(&self) -> String {
        let mark = |t: Target| if t.met(self.value(t)) { "" } else { " MISS" };
        format!(
            "{}: req/res {:.4}{}, reserved {} vs best {} ({}) = {:.4}x{}, calls {} vs {} = {:.3}x{}{}",
            self.trace,
            self.value(Target::RequestedOverReserved),
            mark(Target::RequestedOverReserved),
            self.reserved,
            self.best_reserved,
            self.best_setting,
            self.value(Target::ReservedOverBest),
            mark(Target::ReservedOverBest),
            self.calls,
            self.expandable_calls,
            self.value(Target::CallsOverExpandable),
            mark(Target::CallsOverExpandable),
            if self.oom { " (OUT OF MEMORY)" } else { "" }
        )
    }
}

/// The study's expandable_segments:True row (the setting exactly, PyTorch's policy).
pub fn expandable_row(study: &TraceStudy) -> Option<&TuneRow> {
    study
        .rows
        .iter()
        .find(|r| !r.stridekit && r.setting == EXPANDABLE)
}

/// A row of a known-miss list: (trace, target, figure measured when it was listed).
pub type KnownMiss<'a> = (&'a str, Target, f64);

/// Check `figures` against the targets, allowing the listed misses: returns the failures,
/// empty when every trace meets every target or misses it no worse than listed, and every
/// listed miss is still a miss (an improvement must be noticed and the list shortened).
pub fn check_against_known(figures: &[Figures], known: &[KnownMiss<'_>]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut missed: Vec<(&str, Target)> = Vec::new();
    for f in figures {
        for t in f.misses() {
            missed.push((&f.trace, t));
            let v = f.value(t);
            match known.iter().find(|(tr, kt, _)| *tr == f.trace && *kt == t) {
                Some(&(_, _, k)) if t.no_worse(v, k) && !f.oom => {}
                Some(&(_, _, k)) => failures.push(format!(
                    "{}: {} {:.4} is worse than the listed miss's {k} ({})",
                    f.trace,
                    t.name(),
                    v,
                    f.line()
                )),
                None => failures.push(format!(
                    "{}: misses {} {} ({})",
                    f.trace,
                    t.name(),
                    t.limit(),
                    f.line()
                )),
            }
        }
    }
    for (tr, t, _) in known {
        if figures.iter().any(|f| f.trace == *tr) && !missed.contains(&(tr, *t)) {
            failures.push(format!(
                "{tr}: {} now meets its target: remove it from the known misses",
                t.name()
            ));
        }
    }
    for (tr, _, _) in known {
        if !figures.iter().any(|f| f.trace == *tr) {
            failures.push(format!("{tr}: listed as a known miss but not measured"));
        }
    }
    failures
}
