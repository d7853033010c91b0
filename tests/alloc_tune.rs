//! `stridekit alloc tune`: every point of the default grid replays on every shipped trace,
//! the ranking, and tune's numbers against `alloc replay --conf` run alone.

use std::process::Command;

use serde_json::Value;
use stridekit::alloc::config::AllocConfig;
use stridekit::alloc::grid;
use stridekit::alloc::replay::{self, H200_CAPACITY, ReplayOptions};
use stridekit::alloc::trace::Trace;
use stridekit::alloc::tune::{self, TuneOptions};

mod alloc_common;
use alloc_common::{SHIPPED as TRACES, data, shipped};

fn tmp(name: &str) -> std::path::PathBuf {
    alloc_common::tmp("alloc-tune", name)
}

/// The combinations that stopped with "cudaFree failed: ... is not a live segment":
/// expandable segments with max_split_size. PyTorch 2.11 applies the oversize rules to
/// blocks of expandable segments too, so reserved memory grows until the device is full
/// (pytorch/pytorch#123548); then it frees cached oversize blocks, skipping those inside
/// expandable segments (#134338), and finally unmaps every free page and retries. The
/// replay must do the same: no internal error, no failed allocation, reserved up to the
/// capacity and one retry.
#[test]
fn expandable_segments_with_max_split_size_reaches_capacity_and_retries() {
    let t = shipped("trace_random.csv");
    let capacity = 24u64 << 30;
    let opts = ReplayOptions {
        capacity,
        ..ReplayOptions::default()
    };
    for s in [
        "expandable_segments:True,max_split_size_mb:128",
        "expandable_segments:True,max_split_size_mb:64",
        "expandable_segments:True,max_split_size_mb:256,roundup_power2_divisions:2",
    ] {
        let r = replay::replay_simulated(&t, &AllocConfig::parse(s).unwrap(), &opts)
            .unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(r.failed_allocs, 0, "{s}");
        assert!(r.stats.num_alloc_retries >= 1, "{s}: no retry");
        let peak = r.peak_reserved() as u64;
        assert!(
            peak <= capacity && peak > capacity - (1 << 30),
            "{s}: peak reserved {peak} does not reach the capacity {capacity}"
        );
        // Pages of the expandable segment were unmapped at the retry.
        assert!(r.device_calls.page_unmaps > 0, "{s}");
    }
}

/// Every point of the default grid (and policy:stridekit) on every shipped trace, at the
/// H200's capacity and at a capacity that makes many settings run out of memory: no
/// internal error, and the ranking is by (OOM, peak reserved, device calls).
#[test]
fn every_default_grid_point_replays_on_every_trace() {
    let traces: Vec<Trace> = TRACES.iter().map(|t| shipped(t)).collect();
    let mut settings = grid::default_grid();
    settings.push(grid::STRIDEKIT_SETTING.to_string());
    for capacity in [H200_CAPACITY, 11u64 << 30] {
        let opts = TuneOptions {
            capacity,
            progress: false,
        };
        let studies = tune::run(&traces, &settings, &opts).unwrap();
        assert_eq!(studies.len(), traces.len());
        for (st, t) in studies.iter().zip(&traces) {
            assert_eq!(st.rows.len(), settings.len());
            for r in &st.rows {
                assert_eq!(r.report.events, t.ops.len());
                assert!(r.report.peak_reserved() as u64 <= capacity, "{}", r.setting);
                assert!(r.report.peak_reserved() >= r.report.peak_allocated());
            }
            for w in st.rows.windows(2) {
                let k = |r: &tune::TuneRow| (r.oom(), r.report.peak_reserved(), r.device_calls());
                assert!(k(&w[0]) <= k(&w[1]), "{} not ranked", st.trace);
            }
            assert!(st.default_row().is_some());
            assert!(st.best_stridekit().is_some());
        }
        // policy:stridekit's targets on these traces are checked with the rest of the
        // corpus by tests/alloc_corpus.rs (the shared checker, stridekit::alloc::targets).
        if capacity < H200_CAPACITY {
            assert!(
                studies.iter().any(|s| s.rows.iter().any(|r| r.oom())),
                "11 GiB should be too little for some setting"
            );
        }
    }
}

fn stridekit(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stridekit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `alloc tune --json` over a grid file gives, for every setting, exactly the statistics of
/// `alloc replay --conf SETTING --json` run alone, and its best PyTorch setting is at least
/// as good as each of them; the table names the winner as a PYTORCH_CUDA_ALLOC_CONF string.
#[test]
fn tune_agrees_with_replay_run_alone() {
    let settings = [
        "default",
        "expandable_segments:True",
        "max_split_size_mb:128",
        "roundup_power2_divisions:4",
        "max_split_size_mb:256,roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
        "garbage_collection_threshold:0.6,per_process_memory_fraction:1.0",
        "expandable_segments:True,max_split_size_mb:128",
        "policy:stridekit",
    ];
    let gfile = tmp("grid.txt");
    std::fs::write(&gfile, format!("# test grid\n{}\n", settings.join("\n"))).unwrap();
    let g = gfile.to_str().unwrap();
    let plot = tmp("tune.svg");
    for t in TRACES {
        let path = data(t);
        let tuned: Value = serde_json::from_str(&stridekit(&[
            "alloc",
            "tune",
            &path,
            "--grid",
            g,
            "--json",
            "--capacity",
            "40GiB",
        ]))
        .unwrap();
        let rows = tuned.as_array().unwrap();
        assert_eq!(rows.len(), settings.len());
        let best = rows
            .iter()
            .find(|r| r["is_best_pytorch"] == true)
            .expect("a best PyTorch row");
        for s in settings {
            let row = rows.iter().find(|r| r["setting"] == s).unwrap();
            let alone: Value = serde_json::from_str(&stridekit(&[
                "alloc",
                "replay",
                &path,
                "--conf",
                s,
                "--json",
                "--capacity",
                "40GiB",
            ]))
            .unwrap();
            assert_eq!(row["stats"], alone[0]["stats"], "{t} {s}");
            let reserved = |v: &Value| v["stats"]["reserved_bytes.all.peak"].as_i64().unwrap();
            if row["policy"] == "pytorch" && row["oom"] == false {
                assert!(reserved(best) <= reserved(row), "{t}: {s} beats the best");
            }
        }
        let table = stridekit(&[
            "alloc",
            "tune",
            &path,
            "--grid",
            g,
            "--capacity",
            "40GiB",
            "--plot",
            plot.to_str().unwrap(),
        ]);
        let winner = best["setting"].as_str().unwrap();
        assert!(
            table.contains(&format!("PYTORCH_CUDA_ALLOC_CONF={winner}\n")),
            "{table}"
        );
        assert!(table.contains("default") && table.contains("stridekit policy:"));
        let svg = std::fs::read_to_string(&plot).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }
}

#[test]
fn tune_rejects_a_bad_grid_file_by_line() {
    let gfile = tmp("bad.txt");
    std::fs::write(&gfile, "default\nmax_split_size_mb:abc\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(["alloc", "tune", &data("trace_training.csv"), "--grid"])
        .arg(&gfile)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt:2") && err.contains("abc"), "{err}");
}

/// The table ends with the policy:stridekit parameters that do best over the traces given,
/// why, and the runner-up; a grid without policy:stridekit prints no such line.
#[test]
fn tune_says_which_stridekit_parameters_it_picked_and_why() {
    let gfile = tmp("stridekit_grid.txt");
    std::fs::write(
        &gfile,
        "default\nexpandable_segments:True\npolicy:stridekit\n\
         policy:stridekit,stridekit_min_chunk_mb:20,stridekit_max_chunk_mb:32,stridekit_max_moves:8\n",
    )
    .unwrap();
    let g = gfile.to_str().unwrap();
    let t = data("trace_training.csv");
    let out = stridekit(&["alloc", "tune", &t, "--grid", g]);
    let line = out
        .lines()
        .find(|l| l.starts_with("policy:stridekit parameters: picked "))
        .unwrap_or_else(|| panic!("no pick line in\n{out}"));
    assert!(line.contains("over 1 trace of 2 candidates"), "{line}");
    assert!(line.contains("runner-up"), "{line}");
    assert!(line.contains("rule: fewest targets missed"), "{line}");
    assert!(line.contains("stridekit_min_chunk_mb:"), "{line}");
    std::fs::write(&gfile, "default\nexpandable_segments:True\n").unwrap();
    let out = stridekit(&["alloc", "tune", &t, "--grid", g]);
    assert!(!out.contains("policy:stridekit parameters"), "{out}");
}

/// A study replays settings that decide alike once (`max_non_split_rounding_mb` without
/// `max_split_size_mb` decides nothing) and gives each its own row: the same figures and
/// device calls as a replay of that setting alone, under its own label. With
/// `max_split_size_mb` the rounding is replayed on its own.
#[test]
fn settings_that_decide_alike_share_one_replay() {
    let settings: Vec<String> = [
        "default",
        "max_non_split_rounding_mb:64",
        "roundup_power2_divisions:4,max_non_split_rounding_mb:512",
        "roundup_power2_divisions:4",
        "max_split_size_mb:64",
        "max_split_size_mb:64,max_non_split_rounding_mb:1024",
    ]
    .map(String::from)
    .to_vec();
    let cfgs: Vec<AllocConfig> = settings
        .iter()
        .map(|s| AllocConfig::parse(s).unwrap())
        .collect();
    assert_eq!(tune::effective(&cfgs[1]), tune::effective(&cfgs[0]));
    assert_eq!(tune::effective(&cfgs[2]), tune::effective(&cfgs[3]));
    assert_ne!(tune::effective(&cfgs[5]), tune::effective(&cfgs[4]));
    let traces: Vec<Trace> = ["trace_random.csv", "trace_training.csv"]
        .iter()
        .map(|t| shipped(t))
        .collect();
    let opts = TuneOptions {
        capacity: 40 << 30,
        progress: false,
    };
    let ropts = ReplayOptions {
        capacity: opts.capacity,
        ..ReplayOptions::default()
    };
    let mut oversize_differs = false;
    for (st, t) in tune::run(&traces, &settings, &opts)
        .unwrap()
        .iter()
        .zip(&traces)
    {
        let row = |c: usize| st.rows.iter().find(|r| r.grid_index == c).unwrap();
        for (c, cfg) in cfgs.iter().enumerate() {
            let alone = replay::replay_simulated(t, cfg, &ropts).unwrap();
            let r = &row(c).report;
            assert_eq!(r.stats, alone.stats, "{} {}", t.name, settings[c]);
            assert_eq!(r.device_calls, alone.device_calls, "{}", settings[c]);
            assert_eq!(r.config, cfg.label());
            assert_eq!(r.peak_reserved_at, alone.peak_reserved_at);
        }
        // Shared: the very same replay (its timing too), not a second one that agrees.
        assert_eq!(row(0).report.seconds, row(1).report.seconds);
        assert_eq!(row(2).report.seconds, row(3).report.seconds);
        oversize_differs |= row(4).report.stats != row(5).report.stats;
    }
    // The rounding decides something once max_split_size is set, on one of the traces
    // at least (so that `effective` must keep it).
    assert!(
        oversize_differs,
        "max_non_split_rounding_mb changed nothing with max_split_size_mb"
    );
}
