//! `alloc replay --why`: reserved minus allocated bytes at the peak of reserved bytes (and
//! at the first out-of-memory) is attributed to its causes.

use std::process::Command;

use serde_json::Value;
use stridekit::alloc::config::AllocConfig;
use stridekit::alloc::replay::{self, ReplayOptions};
use stridekit::alloc::why;

mod alloc_common;
use alloc_common::{RECORDED_SETTINGS, SHIPPED, data, shipped};

fn check(w: &why::Waste, what: &str) {
    let gap = w.gap();
    assert!(gap > 0, "{what}: no gap");
    assert!(
        w.attributed() <= gap,
        "{what}: more attributed than the gap"
    );
    assert!(
        w.attributed() as f64 >= 0.99 * gap as f64,
        "{what}: {} of {gap} attributed",
        w.attributed()
    );
    assert!(w.requested <= w.allocated);
    // The per-pool-and-stream figures add up to the whole: reserved, and the free bytes
    // split into idle ones and free bytes of partly used chunks.
    let sum = |f: fn(&why::PlaceWaste) -> u64| w.places.iter().map(f).sum::<u64>();
    assert_eq!(sum(|p| p.reserved), w.reserved, "{what}: places' reserved");
    assert_eq!(
        sum(|p| p.idle),
        w.free_cached_segments,
        "{what}: places' idle bytes"
    );
    assert_eq!(
        sum(|p| p.in_partly_used),
        w.inactive_split + w.page_rounding,
        "{what}: places' bytes in partly used chunks"
    );
    for p in &w.places {
        assert_eq!(
            p.reserved,
            p.active + p.idle + p.in_partly_used,
            "{what}: {p:?}"
        );
    }
    let chunks: usize = w.partly_used_chunks.iter().map(|c| c.chunks).sum();
    assert_eq!(
        chunks,
        w.places.iter().map(|p| p.partly_used_chunks).sum::<usize>()
    );
    assert_eq!(
        w.partly_used_chunks.iter().map(|c| c.free).sum::<u64>(),
        w.inactive_split + w.page_rounding,
        "{what}: partly used chunks' free bytes"
    );
    assert!(
        w.partly_used_chunks
            .iter()
            .all(|c| c.free < c.chunk_size * c.chunks as u64)
    );
}

#[test]
fn the_gap_at_the_peak_is_attributed_on_every_trace() {
    for t in SHIPPED {
        let tr = shipped(t);
        for s in RECORDED_SETTINGS.into_iter().chain(["policy:stridekit"]) {
            let cfg = AllocConfig::parse(s).unwrap();
            let opts = ReplayOptions::default();
            let r = replay::replay_simulated(&tr, &cfg, &opts).unwrap();
            let stop = ReplayOptions {
                stop_after: Some(r.peak_reserved_at),
                ..opts
            };
            let (a, _) = replay::replay_simulated_state(&tr, &cfg, &stop).unwrap();
            let w = why::waste(&a, 5);
            assert_eq!(
                w.reserved as i64,
                r.peak_reserved(),
                "{t} {s}: not at the peak"
            );
            check(&w, &format!("{t} {s}"));
            if !cfg.expandable_segments {
                assert_eq!(
                    w.inactive_split as i64,
                    a.stats().inactive_split_bytes[0].current,
                    "{t} {s}: inactive split differs from PyTorch's statistic"
                );
            }
            assert!(w.top_segments.len() <= 5);
            assert!(w.top_segments.windows(2).all(|p| p[0].free >= p[1].free));
        }
    }
}

#[test]
fn why_reports_the_peak_and_the_oom_in_json_and_table() {
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
            .args(["alloc", "replay", "--why", "--capacity", "8GiB"])
            .arg(data("trace_llm_serving.csv"))
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let v: Value = serde_json::from_str(&run(&["--json"])).unwrap();
    let w = &v[0]["why"];
    for part in ["peak", "oom"] {
        let p = &w[part];
        let gap = p["reserved"].as_u64().unwrap() - p["allocated"].as_u64().unwrap();
        let sum: u64 = [
            "inactive_split",
            "free_cached_segments",
            "page_rounding",
            "pending_free",
        ]
        .iter()
        .map(|k| p[k].as_u64().unwrap())
        .sum();
        assert!(
            sum as f64 >= 0.99 * gap as f64 && sum <= gap,
            "{part}: {sum} of {gap}"
        );
    }
    assert!(w["oom_event"].as_u64().is_some());
    let table = run(&[]);
    assert!(
        table.contains("at the peak of reserved bytes")
            && table.contains("at the first out-of-memory")
    );
    assert!(
        table.contains("inactive split blocks")
            && table.contains("segments with the most free bytes")
            && table.contains("per pool and stream")
    );
    assert!(
        w["peak"]["places"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    );
}
