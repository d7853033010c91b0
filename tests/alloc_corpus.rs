//! policy:stridekit on the whole corpus of issue 22 (tests/data/alloc/corpus/README.md): 20
//! traces split once, by a rule written before tuning, into a tuning set and a held-out
//! set. Every trace replays under the whole default grid of PyTorch settings plus
//! policy:stridekit at an H200's capacity (`alloc tune`'s library API), and policy:stridekit
//! is held to the three targets by the one shared checker (`stridekit::alloc::targets`).
//! Each half's table is printed on its own (`cargo test --test alloc_corpus -- --nocapture`).

use stridekit::alloc::config::StridekitParams;
use stridekit::alloc::grid;
use stridekit::alloc::replay::H200_CAPACITY;
use stridekit::alloc::targets::{self, Figures, KnownMiss, Target};
use stridekit::alloc::tune::{self, TraceStudy, TuneOptions};
use stridekit::alloc::tune_pick;

mod alloc_common;
use alloc_common::{CORPUS, Half, corpus_half, data};

/// KNOWN MISSES of policy:stridekit on the corpus: (trace, target, figure measured). The
/// targets are not relaxed: a listed miss may not get worse than its figure, and the test
/// fails once a listed target is met, so that the entry is removed. Why each one misses is
/// in docs/alloc.md ("The corpus").
///
/// Measured 2026-12-01 with policy:stridekit's defaults (stridekit_min_chunk_mb:18,
/// stridekit_max_chunk_mb:20, stridekit_max_moves:16); figures rounded towards the target's
/// side by at most 0.0001 so that the same replay is "no worse".
const KNOWN_MISSES: &[KnownMiss<'static>] = &[
    // tuning set
    ("gpt2_generate", Target::ReservedOverBest, 1.0032),
    ("llm_serving_s1", Target::RequestedOverReserved, 0.9416),
    ("random_s1", Target::RequestedOverReserved, 0.9370),
    ("random_s1", Target::CallsOverExpandable, 2.1834),
    ("training_s1", Target::ReservedOverBest, 1.0002),
    // held-out set
    ("llm_serving_s2", Target::RequestedOverReserved, 0.9440),
    ("random_s2", Target::RequestedOverReserved, 0.9446),
    ("training_s2", Target::ReservedOverBest, 1.0010),
];

/// The studies of one half: the default PyTorch grid plus, on the tuning half, every
/// setting of policy:stridekit's parameter grid (its defaults first), on the held-out half
/// its defaults only (nothing is chosen there).
fn study(half: Half) -> Vec<TraceStudy> {
    let traces = corpus_half(half);
    let mut settings = grid::default_grid();
    match half {
        Half::Tuning => settings.extend(grid::stridekit_grid()),
        Half::HeldOut => settings.push(grid::STRIDEKIT_SETTING.to_string()),
    }
    let opts = TuneOptions {
        capacity: H200_CAPACITY,
        progress: false,
    };
    let studies = tune::run(&traces, &settings, &opts).unwrap();
    for st in &studies {
        assert_eq!(st.rows.len(), settings.len(), "{}", st.trace);
    }
    studies
}

fn figures_of(studies: &[TraceStudy]) -> Vec<Figures> {
    studies
        .iter()
        .map(|st| Figures::of_stridekit(st).unwrap())
        .collect()
}

fn print_table(title: &str, figs: &[Figures]) {
    eprintln!("== {title}");
    for f in figs {
        eprintln!("{}", f.line());
    }
}

/// Both halves against the targets with policy:stridekit's defaults, and the defaults are
/// what `alloc tune`'s search picks over the tuning half; all failures are listed together.
#[test]
fn stridekit_meets_the_targets_on_both_halves() {
    let tuning_studies = study(Half::Tuning);
    let pick = tune_pick::pick(&tuning_studies).unwrap();
    eprintln!("{}", pick.explain());
    for s in &pick.ranked {
        eprintln!(
            "  {}: {} missed, reserved {:.4}x, calls {:.3}x",
            s.params.settings(),
            s.misses,
            s.reserved_over_best,
            s.calls_over_expandable
        );
    }
    let tuning = figures_of(&tuning_studies);
    print_table("tuning set", &tuning);
    let held = figures_of(&study(Half::HeldOut));
    print_table("held-out set", &held);
    assert_eq!(
        pick.best().params,
        StridekitParams::DEFAULT,
        "the search over the tuning half picks {} (StridekitParams::DEFAULT must be the pick)",
        pick.best().params.settings()
    );
    let all: Vec<Figures> = tuning.into_iter().chain(held).collect();
    assert_eq!(all.len(), CORPUS.len());
    let failures = targets::check_against_known(&all, KNOWN_MISSES);
    assert!(
        failures.is_empty(),
        "policy:stridekit against issue 22's targets on the corpus:\n{}",
        failures.join("\n")
    );
}

/// The split in the code is the one written down in the corpus README, and every trace
/// file of the data folders is in the corpus.
#[test]
fn the_split_is_the_written_rule() {
    let readme = std::fs::read_to_string(data("corpus/README.md")).unwrap();
    let listed = |prefix: &str| -> Vec<String> {
        let start = readme
            .find(prefix)
            .unwrap_or_else(|| panic!("no '{prefix}' in the corpus README"));
        let rest = &readme[start + prefix.len()..];
        let para = &rest[..rest.find("\n\n").unwrap_or(rest.len())];
        let mut names: Vec<String> = para
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        names.sort();
        names
    };
    let of = |half: Half| -> Vec<String> {
        let mut v: Vec<String> = CORPUS
            .iter()
            .filter(|(_, h)| *h == half)
            .map(|(n, _)| n.trim_end_matches(".csv").to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(listed("Tuning set (10):"), of(Half::Tuning));
    assert_eq!(listed("Held-out set (10):"), of(Half::HeldOut));
    for dir in ["corpus", "real"] {
        for entry in std::fs::read_dir(data(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().to_string();
            if name.ends_with(".md") {
                continue;
            }
            let path = format!("{dir}/{}", name.trim_end_matches(".gz"));
            assert!(
                CORPUS.iter().any(|(n, _)| *n == path),
                "{path} is not in alloc_common::CORPUS"
            );
        }
    }
}

/// The checker itself: each target's direction, and a known-miss list asserted exactly
/// (a miss no worse than listed passes, a worse one or an unlisted one fails, and a listed
/// miss that is now met fails).
#[test]
fn the_checker_holds_known_misses_exactly() {
    let f = |req: i64, res: i64, best: i64, calls: u64, exp: u64| Figures {
        trace: "t".into(),
        setting: "policy:stridekit".into(),
        requested: req,
        reserved: res,
        best_reserved: best,
        best_setting: "default".into(),
        calls,
        expandable_calls: exp,
        oom: false,
    };
    let good = f(96, 100, 100, 20, 10);
    assert!(good.meets_all());
    assert!(targets::check_against_known(std::slice::from_ref(&good), &[]).is_empty());
    let low = f(90, 100, 100, 20, 10);
    assert_eq!(low.misses(), vec![Target::RequestedOverReserved]);
    assert_eq!(
        f(96, 101, 100, 20, 10).misses(),
        vec![Target::ReservedOverBest]
    );
    assert_eq!(
        f(96, 100, 100, 21, 10).misses(),
        vec![Target::CallsOverExpandable]
    );
    let listed: &[KnownMiss] = &[("t", Target::RequestedOverReserved, 0.9)];
    assert!(targets::check_against_known(std::slice::from_ref(&low), listed).is_empty());
    let worse = f(89, 100, 100, 20, 10);
    assert_eq!(
        targets::check_against_known(std::slice::from_ref(&worse), listed).len(),
        1
    );
    assert_eq!(targets::check_against_known(&[low], &[]).len(), 1);
    let fixed = targets::check_against_known(&[good], listed);
    assert_eq!(fixed.len(), 1);
    assert!(fixed[0].contains("now meets"), "{fixed:?}");
    let mut oom = f(96, 100, 100, 20, 10);
    oom.oom = true;
    assert_eq!(oom.misses().len(), 3);
}
