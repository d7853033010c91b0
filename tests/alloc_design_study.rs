//! The design-study harness of issue 22 (docs/alloc_design_studies.md, "Session 12"):
//! policy:stridekit variants measured on the whole corpus, the pick made on the tuning half
//! only. Ignored by default (about a minute for the PyTorch grid, then seconds per variant
//! in release):
//!
//! ```text
//! cargo test --release --test alloc_design_study -- --ignored --nocapture
//! STRIDEKIT_STUDY_VARIANTS=',stridekit_long_life:200;,stridekit_long_life:1000' cargo test ...
//! ```
//!
//! A variant is a settings suffix appended to every setting of policy:stridekit's
//! 18-setting parameter grid (`grid::stridekit_grid`); the empty suffix is the policy as
//! it is. Every corpus trace is replayed under the default PyTorch grid once
//! (`tune::run`), which gives each trace its best PyTorch setting and
//! expandable_segments:True's device calls (`targets::Figures`); then, per variant, under
//! the 18 settings. Printed per variant, at the defaults (18/20/16) and at the tuning pick
//! (`tune_pick`'s rule over the tuning half: fewest misses, then reserved, then calls):
//!
//! - misses (tuning, held-out), of 30 targets each;
//! - the summed shortfall of each half, a criterion steadier than a count of misses: over
//!   the half's traces, `max(0, 0.95 - req/res) + max(0, res/best - 1) + max(0, calls/exp -
//!   2) / 10` (the calls term scaled down: a ratio of 2.1 is as far from its target as
//!   req/res 0.94 is from its own), 1 more for a replay that ran out of memory;
//! - the same two figures averaged over the replay and its three tie-break perturbations
//!   (`stridekit_tie_break` 1, 2, 3: choices among equal candidates that decide nothing of
//!   substance), which shows how much of a figure is the luck of one replay.

use std::time::Instant;

use stridekit::alloc::grid;
use stridekit::alloc::replay::H200_CAPACITY;
use stridekit::alloc::targets::{self, Figures, Target};
use stridekit::alloc::trace::Trace;
use stridekit::alloc::tune::{self, TraceStudy, TuneOptions};
use stridekit::alloc::tune_pick;

mod alloc_common;
use alloc_common::{Half, corpus_half};

/// The variants studied when `STRIDEKIT_STUDY_VARIANTS` does not list others (`;`
/// between them): the policy as it is, then session 12's lifetime-aware designs (the rows
/// of docs/alloc_design_studies.md, "Session 12"), then session 15's main rows
/// (lifetime-matched sharing and pair covers, "Session 15"), then session 16's (slack
/// feedback, "Session 16") and session 18's (aligned growth, "Session 18").
const VARIANTS: &[&str] = &[
    "",
    ",stridekit_long_life:30,stridekit_life_mode:1",
    ",stridekit_long_life:100,stridekit_life_mode:1",
    ",stridekit_long_life:300,stridekit_life_mode:1",
    ",stridekit_long_life:1000,stridekit_life_mode:1",
    ",stridekit_long_life:3000,stridekit_life_mode:1",
    ",stridekit_long_life:10000,stridekit_life_mode:1",
    ",stridekit_long_life:30,stridekit_life_mode:4",
    ",stridekit_long_life:100,stridekit_life_mode:4",
    ",stridekit_long_life:300,stridekit_life_mode:4",
    ",stridekit_long_life:1000,stridekit_life_mode:4",
    ",stridekit_long_life:3000,stridekit_life_mode:4",
    ",stridekit_long_life:10000,stridekit_life_mode:4",
    ",stridekit_long_life:30,stridekit_life_mode:5",
    ",stridekit_long_life:100,stridekit_life_mode:5",
    ",stridekit_long_life:300,stridekit_life_mode:5",
    ",stridekit_long_life:1000,stridekit_life_mode:5",
    ",stridekit_long_life:3000,stridekit_life_mode:5",
    ",stridekit_long_life:10000,stridekit_life_mode:5",
    ",stridekit_long_life:100,stridekit_life_mode:2",
    ",stridekit_long_life:1000,stridekit_life_mode:2",
    ",stridekit_long_life:100,stridekit_life_mode:3",
    ",stridekit_long_life:1000,stridekit_life_mode:3",
    ",stridekit_share_life:100,stridekit_share_mode:1",
    ",stridekit_share_life:1000,stridekit_share_mode:2",
    ",stridekit_share_life:100,stridekit_share_mode:4",
    ",stridekit_share_life:300,stridekit_share_mode:6",
    ",stridekit_share_life:1000,stridekit_share_mode:7",
    ",stridekit_pair_cover_mb:4",
    ",stridekit_slack_decay:1",
    ",stridekit_slack_decay:2",
    ",stridekit_slack_decay:4",
    ",stridekit_growth_align_mb:20",
    ",stridekit_growth_align_mb:10",
];

/// Tie-break perturbations averaged with the replay itself.
const PERTURBATIONS: [u8; 3] = [1, 2, 3];

/// The summed shortfall below the three targets of one trace (module documentation).
fn shortfall(f: &Figures) -> f64 {
    let rr = f.value(Target::RequestedOverReserved);
    let rb = f.value(Target::ReservedOverBest);
    let ce = f.value(Target::CallsOverExpandable);
    let oom = if f.oom { 1.0 } else { 0.0 };
    (targets::MIN_REQUESTED_OVER_RESERVED - rr).max(0.0)
        + (rb - targets::MAX_RESERVED_OVER_BEST).max(0.0)
        + (ce - targets::MAX_CALLS_OVER_EXPANDABLE).max(0.0) / 10.0
        + oom
}

/// (misses, summed shortfall) of some traces' figures.
fn score(figs: &[Figures]) -> (usize, f64) {
    (
        figs.iter().map(|f| f.misses().len()).sum(),
        figs.iter().map(shortfall).sum(),
    )
}

fn options() -> TuneOptions {
    TuneOptions {
        capacity: H200_CAPACITY,
        progress: false,
    }
}

/// The corpus, tuning half first, and how many traces that half has.
fn corpus() -> (Vec<Trace>, usize) {
    let mut traces = corpus_half(Half::Tuning);
    let tuning = traces.len();
    traces.extend(corpus_half(Half::HeldOut));
    (traces, tuning)
}

/// Each trace's yardsticks: a study of its best PyTorch setting and its
/// expandable_segments:True row only (rows ranked, so the best one comes first).
fn yardsticks(traces: &[Trace]) -> Vec<TraceStudy> {
    let studies = tune::run(traces, &grid::default_grid(), &options()).unwrap();
    studies
        .into_iter()
        .map(|st| {
            let best = st.best_pytorch().unwrap().clone();
            let exp = targets::expandable_row(&st).unwrap().clone();
            TraceStudy {
                rows: vec![best, exp],
                ..st
            }
        })
        .collect()
}

/// `settings` replayed on every trace, each study holding the trace's yardsticks first
/// (their grid indices are below the settings', which keep their order).
fn measure(traces: &[Trace], yard: &[TraceStudy], settings: &[String]) -> Vec<TraceStudy> {
    let studies = tune::run(traces, settings, &options()).unwrap();
    studies
        .into_iter()
        .zip(yard)
        .map(|(st, y)| {
            let mut rows = y.rows.clone();
            for (k, r) in rows.iter_mut().enumerate() {
                r.grid_index = k;
            }
            rows.extend(st.rows.into_iter().map(|mut r| {
                r.grid_index += 2;
                r
            }));
            TraceStudy { rows, ..st }
        })
        .collect()
}

/// Every trace's figures of the setting at `grid_index` (of the settings `measure` got).
fn figures_at(studies: &[TraceStudy], grid_index: usize) -> Vec<Figures> {
    studies
        .iter()
        .map(|st| {
            let row = st
                .rows
                .iter()
                .find(|r| r.grid_index == grid_index + 2)
                .unwrap();
            Figures::of(st, row).unwrap()
        })
        .collect()
}

/// One half's figures as `(misses, shortfall)`.
fn halves(figs: &[Figures], tuning: usize) -> [(usize, f64); 2] {
    [score(&figs[..tuning]), score(&figs[tuning..])]
}

fn show(label: &str, h: [(usize, f64); 2]) -> String {
    format!(
        "{label}: misses ({}, {}), shortfall ({:.4}, {:.4})",
        h[0].0, h[1].0, h[0].1, h[1].1
    )
}

fn print_figures(title: &str, figs: &[Figures]) {
    eprintln!("    -- {title}");
    for f in figs {
        eprintln!("    {} [shortfall {:.4}]", f.line(), shortfall(f));
    }
}

#[test]
#[ignore = "a design study: minutes of replays (cargo test --release --test alloc_design_study -- --ignored --nocapture)"]
fn design_study() {
    let variants: Vec<String> = match std::env::var("STRIDEKIT_STUDY_VARIANTS") {
        Ok(v) => v.split(';').map(str::to_string).collect(),
        Err(_) => VARIANTS.iter().map(|s| s.to_string()).collect(),
    };
    let verbose = std::env::var_os("STRIDEKIT_STUDY_VERBOSE").is_some();
    let (traces, tuning) = corpus();
    let t0 = Instant::now();
    let yard = yardsticks(&traces);
    eprintln!(
        "yardsticks: {} traces ({tuning} tuning) under the default PyTorch grid, {:.1} s",
        traces.len(),
        t0.elapsed().as_secs_f64()
    );
    let grid_settings = grid::stridekit_grid();
    for v in &variants {
        let t = Instant::now();
        let settings: Vec<String> = grid_settings.iter().map(|s| format!("{s}{v}")).collect();
        let studies = measure(&traces, &yard, &settings);
        let pick = tune_pick::pick(&studies[..tuning]).unwrap();
        let picked = pick.best().grid_index - 2;
        let at_defaults = figures_at(&studies, 0);
        let at_pick = figures_at(&studies, picked);
        let mut lowest = (f64::INFINITY, 0);
        for k in 0..settings.len() {
            let s = score(&figures_at(&studies, k)[..tuning]).1;
            if s < lowest.0 {
                lowest = (s, k);
            }
        }
        // The defaults and the pick under each perturbation.
        let perturbed: Vec<String> = PERTURBATIONS
            .iter()
            .flat_map(|p| [0, picked].map(|k| format!("{},stridekit_tie_break:{p}", settings[k])))
            .collect();
        let pstudies = measure(&traces, &yard, &perturbed);
        let mean = |own: [(usize, f64); 2], col: usize| -> [(f64, f64); 2] {
            let mut acc = [(own[0].0 as f64, own[0].1), (own[1].0 as f64, own[1].1)];
            for j in 0..PERTURBATIONS.len() {
                let h = halves(&figures_at(&pstudies, 2 * j + col), tuning);
                for (a, b) in acc.iter_mut().zip(h) {
                    a.0 += b.0 as f64;
                    a.1 += b.1;
                }
            }
            let n = (PERTURBATIONS.len() + 1) as f64;
            acc.map(|(m, s)| (m / n, s / n))
        };
        let hd = halves(&at_defaults, tuning);
        let hp = halves(&at_pick, tuning);
        let (md, mp) = (mean(hd, 0), mean(hp, 1));
        eprintln!(
            "variant '{v}' ({:.1} s)\n  {}\n  {} [{}]\n  mean over the replay and {} perturbations: at the defaults misses ({:.2}, {:.2}), shortfall ({:.4}, {:.4}); at the pick misses ({:.2}, {:.2}), shortfall ({:.4}, {:.4})\n  lowest tuning shortfall: {:.4} at {}",
            t.elapsed().as_secs_f64(),
            show("at the defaults", hd),
            show("at the tuning pick", hp),
            pick.best().params.settings(),
            PERTURBATIONS.len(),
            md[0].0,
            md[1].0,
            md[0].1,
            md[1].1,
            mp[0].0,
            mp[1].0,
            mp[0].1,
            mp[1].1,
            lowest.0,
            settings[lowest.1]
        );
        if verbose {
            print_figures("at the defaults", &at_defaults);
            print_figures("at the tuning pick", &at_pick);
        }
    }
}
