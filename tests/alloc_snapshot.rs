//! `alloc replay --snapshot`: the written pickle has PyTorch's snapshot shape, its totals
//! are the allocator's, and replaying it gives the same statistics.

use std::process::Command;

use stridekit::alloc::config::AllocConfig;
use stridekit::alloc::replay::{self, ReplayOptions};
use stridekit::alloc::snapshot;
use stridekit::alloc::trace;

mod alloc_common;
use alloc_common::{RECORDED_SETTINGS, SHIPPED, data, shipped};

fn tmp(name: &str) -> std::path::PathBuf {
    alloc_common::tmp("alloc-snapshot", name)
}

#[test]
fn snapshots_replay_to_the_same_statistics() {
    for t in SHIPPED {
        let tr = shipped(t);
        for s in RECORDED_SETTINGS.into_iter().chain(["policy:stridekit"]) {
            let cfg = AllocConfig::parse(s).unwrap();
            let full = replay::replay_simulated(&tr, &cfg, &ReplayOptions::default()).unwrap();
            for at in ["end", "peak"] {
                let file = tmp(&format!("{t}-{}-{at}.pickle", s.replace(':', "-")));
                let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
                    .args(["alloc", "replay", &data(t), "--conf", s, "--snapshot"])
                    .arg(&file)
                    .args(["--snapshot-at", at])
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                // The state the snapshot was taken in.
                let stop = (at == "peak").then_some(full.peak_reserved_at);
                let opts = ReplayOptions {
                    stop_after: stop,
                    ..ReplayOptions::default()
                };
                let (a, want) = replay::replay_simulated_state(&tr, &cfg, &opts).unwrap();
                let raw = std::fs::read(&file).unwrap();
                let snap = snapshot::from_pickle("s", &raw).unwrap();
                let reserved: u64 = snap.segments.iter().map(|g| g.total_size).sum();
                let requested: u64 = snap
                    .segments
                    .iter()
                    .flat_map(|g| &g.blocks)
                    .filter(|b| b.state == "active_allocated")
                    .map(|b| b.requested_size)
                    .sum();
                let st = a.stats();
                assert_eq!(
                    reserved as i64, st.reserved_bytes[0].current,
                    "{t} {s} {at}"
                );
                assert_eq!(
                    requested as i64, st.requested_bytes[0].current,
                    "{t} {s} {at}"
                );
                assert_eq!(snap.device_traces.len(), 1);
                assert_eq!(
                    snap.allocator_settings.expandable_segments,
                    Some(cfg.expandable_segments)
                );
                for e in &snap.device_traces[0] {
                    assert!(
                        [
                            "alloc",
                            "free_requested",
                            "free_completed",
                            "segment_alloc",
                            "segment_free",
                            "segment_map",
                            "segment_unmap",
                            "oom"
                        ]
                        .contains(&e.action.as_str()),
                        "{}",
                        e.action
                    );
                }
                // Replaying the written file under the same setting.
                let back = trace::read_trace(&file).unwrap();
                // Each pickle is megabytes (a run wrote 121 MB into /tmp and left it there).
                std::fs::remove_file(&file).unwrap();
                let again =
                    replay::replay_simulated(&back, &cfg, &ReplayOptions::default()).unwrap();
                assert_eq!(
                    again.stats.to_json(),
                    want.stats.to_json(),
                    "{t} {s} {at}: replaying the snapshot differs"
                );
                if at == "peak" {
                    assert_eq!(again.peak_reserved(), full.peak_reserved());
                }
            }
        }
    }
}

#[test]
fn snapshot_needs_the_simulated_device() {
    let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args([
            "alloc",
            "replay",
            &data("trace_training.csv"),
            "--device",
            "cuda",
        ])
        .arg("--snapshot")
        .arg(tmp("x.pickle"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--snapshot"));
}
