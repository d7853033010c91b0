//! policy:stridekit on real training and serving traces: the allocation requests of GPT-2
//! small training and generation, BERT-base serving and ResNet-50 training, recorded from
//! PyTorch 2.11 model steps by scripts/record_model_traces.py (tests/data/alloc/real/,
//! provenance in its README). Each trace replays under PyTorch's default, under
//! expandable_segments:True and under policy:stridekit. The targets policy:stridekit is
//! held to on these traces and the rest of the corpus are checked by tests/alloc_corpus.rs
//! (one shared checker, `stridekit::alloc::targets`).

use stridekit::alloc::config::AllocConfig;
use stridekit::alloc::grid;
use stridekit::alloc::replay::{self, ReplayOptions};
use stridekit::alloc::trace::{Op, Trace};

mod alloc_common;
use alloc_common::{REAL, data, shipped_any};

const EXPANDABLE: &str = "expandable_segments:True";

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
