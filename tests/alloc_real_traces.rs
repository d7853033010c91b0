//! policy:stridekit on real training and serving traces: the allocation requests of GPT-2
//! small training and generation, BERT-base serving and ResNet-50 training, recorded from
//! PyTorch 2.11 model steps by scripts/record_model_traces.py (tests/data/alloc/real/,
//! provenance in its README). Each trace replays under PyTorch's default, under
//! expandable_segments:True and under policy:stridekit, and stridekit's policy is held to
//! the targets of issue 11 item 2 against the whole default grid of PyTorch settings
//! (`alloc tune`'s library API):
//!
//! - peak requested bytes / peak reserved bytes >= 0.95;
//! - peak reserved at most 1% above the best PyTorch setting of the default grid;
//! - device calls that obtain memory (segment allocations, page creations, page maps) at
//!   most twice those of expandable_segments:True.

use stridekit::alloc::config::AllocConfig;
use stridekit::alloc::grid;
use stridekit::alloc::replay::{self, H200_CAPACITY, ReplayOptions};
use stridekit::alloc::trace::{Op, Trace};
use stridekit::alloc::tune::{self, TraceStudy, TuneOptions};

mod alloc_common;
use alloc_common::{REAL, data, shipped_any};

const EXPANDABLE: &str = "expandable_segments:True";
const MIN_REQUESTED_OVER_RESERVED: f64 = 0.95;
const MAX_RESERVED_OVER_BEST: f64 = 1.01;
const MAX_CALLS_OVER_EXPANDABLE: f64 = 2.0;

/// The figures from the comment header the recording script writes:
/// `# N allocations, M frees, peak requested P bytes`.
fn header_figures(name: &str) -> (usize, usize, u64) {
    let plain = data(name);
    let raw = std::fs::read(&plain)
        .or_else(|_| std::fs::read(format!("{plain}.gz")))
        .unwrap();
    let text = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&raw[..]), &mut s).unwrap();
        s
    } else {
        String::from_utf8(raw).unwrap()
    };
    let line = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find(|l| l.contains("allocations,") && l.contains("peak requested"))
        .unwrap_or_else(|| panic!("{name}: no figures line in the header"));
    let words: Vec<&str> = line.trim_start_matches('#').split_whitespace().collect();
    let num = |w: usize| words[w].trim_end_matches(',').parse::<u64>().unwrap();
    assert_eq!(
        (words[1], words[3], words[5], words[7]),
        ("allocations,", "frees,", "requested", "bytes"),
        "{line}"
    );
    (num(0) as usize, num(2) as usize, num(6))
}

fn real_traces() -> Vec<Trace> {
    REAL.iter().map(|n| shipped_any(n)).collect()
}

/// Every file in tests/data/alloc/real/ that looks like a trace is one of [`REAL`].
#[test]
fn every_recorded_trace_is_tested() {
    let dir = data("real");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".md") {
            continue;
        }
        let stem = name.trim_end_matches(".gz");
        assert!(
            REAL.iter().any(|r| r.trim_start_matches("real/") == stem),
            "{dir}/{name} is not listed in alloc_common::REAL"
        );
    }
}

/// Each trace is what its header says (allocation and free counts, peak requested bytes
/// as the replay's `requested_bytes.all.peak`), and replays without a failed allocation
/// under PyTorch's default, expandable_segments:True and policy:stridekit; the default
/// reserves more than it allocates, as PyTorch's caching allocator does.
#[test]
fn real_traces_replay_under_default_expandable_and_stridekit() {
    for (name, t) in REAL.iter().zip(real_traces()) {
        let (allocs, frees, peak) = header_figures(name);
        let count = |f: fn(&Op) -> bool| t.ops.iter().filter(|o| f(o)).count();
        assert_eq!(count(|o| matches!(o, Op::Alloc { .. })), allocs, "{name}");
        assert_eq!(count(|o| matches!(o, Op::Free { .. })), frees, "{name}");
        assert_eq!(t.warmup_ops, 0, "{name}");
        assert!(
            allocs > 1000,
            "{name}: {allocs} allocations is not a model step"
        );
        for setting in ["default", EXPANDABLE, grid::STRIDEKIT_SETTING] {
            let cfg = AllocConfig::parse(setting).unwrap();
            let r = replay::replay_simulated(&t, &cfg, &ReplayOptions::default())
                .unwrap_or_else(|e| panic!("{name} under {setting}: {e}"));
            assert_eq!(r.failed_allocs, 0, "{name} under {setting}");
            assert_eq!(r.events, t.ops.len());
            assert_eq!(
                r.stats.requested_bytes[0].peak as u64, peak,
                "{name} under {setting}: peak requested"
            );
            assert!(r.peak_allocated() as u64 >= peak, "{name} under {setting}");
            assert!(
                r.peak_reserved() >= r.peak_allocated(),
                "{name} under {setting}"
            );
        }
    }
}

/// stridekit's policy against the targets, per trace.
#[derive(Debug)]
struct Measured {
    trace: String,
    requested_over_reserved: f64,
    reserved: i64,
    best_reserved: i64,
    best_setting: String,
    calls: u64,
    expandable_calls: u64,
}

impl Measured {
    fn of(st: &TraceStudy) -> Measured {
        let k = st.best_stridekit().expect("a policy:stridekit row");
        let best = st.best_pytorch().expect("a PyTorch row");
        let expandable = st.rows.iter().find(|r| r.setting == EXPANDABLE).unwrap();
        assert!(!k.oom(), "{}: policy:stridekit ran out of memory", st.trace);
        let s = &k.report.stats;
        Measured {
            trace: st.trace.clone(),
            requested_over_reserved: s.requested_bytes[0].peak as f64
                / s.reserved_bytes[0].peak as f64,
            reserved: k.report.peak_reserved(),
            best_reserved: best.report.peak_reserved(),
            best_setting: best.setting.clone(),
            calls: k.device_calls(),
            expandable_calls: expandable.device_calls(),
        }
    }

    fn reserved_over_best(&self) -> f64 {
        self.reserved as f64 / self.best_reserved as f64
    }

    fn calls_over_expandable(&self) -> f64 {
        self.calls as f64 / self.expandable_calls as f64
    }

    /// The targets this trace misses, each with its measured figure.
    fn misses(&self) -> Vec<Miss> {
        let mut out = Vec::new();
        let mut miss = |target, value: f64, text: String| {
            out.push(Miss {
                trace: self.trace.clone(),
                target,
                value,
                text: format!("{}: {text}", self.trace),
            })
        };
        if self.requested_over_reserved < MIN_REQUESTED_OVER_RESERVED {
            miss(
                Target::RequestedOverReserved,
                self.requested_over_reserved,
                format!(
                    "peak requested / peak reserved {:.4} < {MIN_REQUESTED_OVER_RESERVED}",
                    self.requested_over_reserved
                ),
            );
        }
        if self.reserved_over_best() > MAX_RESERVED_OVER_BEST {
            miss(
                Target::ReservedOverBest,
                self.reserved_over_best(),
                format!(
                    "peak reserved {} is {:.4}x the best PyTorch setting's {} ({}), limit {MAX_RESERVED_OVER_BEST}x",
                    self.reserved,
                    self.reserved_over_best(),
                    self.best_reserved,
                    self.best_setting
                ),
            );
        }
        if self.calls_over_expandable() > MAX_CALLS_OVER_EXPANDABLE {
            miss(
                Target::CallsOverExpandable,
                self.calls_over_expandable(),
                format!(
                    "{} device calls are {:.3}x the {} of {EXPANDABLE}, limit {MAX_CALLS_OVER_EXPANDABLE}x",
                    self.calls,
                    self.calls_over_expandable(),
                    self.expandable_calls
                ),
            );
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// Peak requested / peak reserved >= 0.95 (higher is better).
    RequestedOverReserved,
    /// Peak reserved / the best PyTorch setting's <= 1.01 (lower is better).
    ReservedOverBest,
    /// Device calls / expandable_segments:True's <= 2 (lower is better).
    CallsOverExpandable,
}

struct Miss {
    trace: String,
    target: Target,
    value: f64,
    text: String,
}

/// KNOWN MISSES of policy:stridekit: (trace, target, figure measured). The target itself
/// is not relaxed: a listed miss may not get worse than its figure, and the test fails
/// once the target is met, so that the entry is removed.
///
/// None since idle chunks move across pools (2026-12-01): bert_serve's peak requested /
/// peak reserved was 0.9468 (624 MiB reserved, 6 MiB of it free small-pool chunks) and
/// is 0.9529 (620 MiB).
const KNOWN_MISSES: &[(&str, Target, f64)] = &[];

/// Whether `value` is no worse than the known figure of a listed miss.
fn within_known_miss(target: Target, value: f64, known: f64) -> bool {
    match target {
        Target::RequestedOverReserved => value >= known,
        Target::ReservedOverBest | Target::CallsOverExpandable => value <= known,
    }
}

/// The issue-11 item-2 targets for policy:stridekit on every real trace, against every
/// setting of the default grid at an H200's capacity. All misses are listed together.
#[test]
fn stridekit_meets_the_targets_on_real_traces() {
    let traces = real_traces();
    let mut settings = grid::default_grid();
    settings.push(grid::STRIDEKIT_SETTING.to_string());
    let opts = TuneOptions {
        capacity: H200_CAPACITY,
        progress: false,
    };
    let studies = tune::run(&traces, &settings, &opts).unwrap();
    let mut failures = Vec::new();
    let mut missed: Vec<(String, Target)> = Vec::new();
    for st in &studies {
        assert_eq!(st.rows.len(), settings.len());
        let m = Measured::of(st);
        eprintln!(
            "{}: req/res {:.4}, reserved {} vs best {} ({}) = {:.4}x, calls {} vs {} = {:.3}x",
            m.trace,
            m.requested_over_reserved,
            m.reserved,
            m.best_reserved,
            m.best_setting,
            m.reserved_over_best(),
            m.calls,
            m.expandable_calls,
            m.calls_over_expandable()
        );
        for miss in m.misses() {
            missed.push((miss.trace.clone(), miss.target));
            match KNOWN_MISSES
                .iter()
                .find(|(t, target, _)| *t == miss.trace && *target == miss.target)
            {
                Some(&(_, target, known)) if within_known_miss(target, miss.value, known) => {
                    eprintln!("KNOWN MISS (listed in KNOWN_MISSES): {}", miss.text);
                }
                Some(&(_, _, known)) => failures.push(format!(
                    "{} (worse than the known miss's {known})",
                    miss.text
                )),
                None => failures.push(miss.text),
            }
        }
    }
    for (trace, target, _) in KNOWN_MISSES {
        if !missed.iter().any(|(t, g)| t == trace && g == target) {
            failures.push(format!(
                "{trace}: {target:?} now meets its target: remove it from KNOWN_MISSES"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "policy:stridekit against issue 11's targets on the real traces:\n{}",
        failures.join("\n")
    );
}
