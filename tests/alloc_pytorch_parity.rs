//! Replays each of the twelve runs PyTorch 2.11 recorded on an H200 (tests/data/alloc) under
//! its own setting and compares the statistics with PyTorch's `memory_stats()`.

use std::path::PathBuf;

use stridekit::alloc::replay::{ReplayOptions, replay_simulated};
use stridekit::alloc::trace::{parse_trace_bytes, snapshot_csv_to_pickle};
use stridekit::alloc::{AllocConfig, DeviceStats};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/alloc")
        .join(name)
}

const TRACES: [&str; 3] = ["llm_serving", "random", "training"];

fn expected() -> serde_json::Value {
    let s = std::fs::read_to_string(data("pytorch_stats.json")).unwrap();
    serde_json::from_str(&s).unwrap()
}

fn file_setting(setting: &str) -> String {
    setting.replace(':', "-")
}

fn replay(trace: &str, setting: &str, pickle: bool) -> DeviceStats {
    let f = format!("trace_{trace}__{}.csv.gz", file_setting(setting));
    let raw = std::fs::read(data(&f)).unwrap();
    let t = if pickle {
        let p = snapshot_csv_to_pickle(&f, &raw).unwrap();
        parse_trace_bytes(&f, &p).unwrap()
    } else {
        parse_trace_bytes(&f, &raw).unwrap()
    };
    let cfg = if setting == "default" {
        AllocConfig::default()
    } else {
        AllocConfig::parse(setting).unwrap()
    };
    replay_simulated(&t, &cfg, &ReplayOptions::default())
        .unwrap()
        .stats
}

fn mismatches(trace: &str, setting: &str, s: &DeviceStats) -> Vec<String> {
    let exp = expected();
    let e = exp[format!("{trace}|{setting}")]
        .as_object()
        .unwrap()
        .clone();
    let mut bad = Vec::new();
    for (k, v) in e {
        let want = v.as_i64().unwrap();
        let got = s.get(&k).unwrap_or_else(|| panic!("no key {k}"));
        if want != got {
            bad.push(format!("{k}: pytorch {want} stridekit {got}"));
        }
    }
    bad
}

fn exact(setting: &str, pickle: bool) {
    let mut all = Vec::new();
    for t in TRACES {
        let s = replay(t, setting, pickle);
        for m in mismatches(t, setting, &s) {
            all.push(format!("{t}|{setting}: {m}"));
        }
    }
    assert!(all.is_empty(), "mismatches:\n{}", all.join("\n"));
}

#[test]
fn default_exact_csv() {
    exact("default", false);
}

#[test]
fn max_split_size_exact_csv() {
    exact("max_split_size_mb:128", false);
}

#[test]
fn roundup_power2_divisions_exact_csv() {
    exact("roundup_power2_divisions:4", false);
}

#[test]
fn default_exact_pickle() {
    exact("default", true);
}

#[test]
fn max_split_size_exact_pickle() {
    exact("max_split_size_mb:128", true);
}

#[test]
fn roundup_power2_divisions_exact_pickle() {
    exact("roundup_power2_divisions:4", true);
}

#[test]
fn expandable_segments_within_one_percent() {
    let exp = expected();
    let setting = "expandable_segments:True";
    for t in TRACES {
        let s = replay(t, setting, false);
        let e = &exp[format!("{t}|{setting}")];
        let want = e["reserved_bytes.all.peak"].as_i64().unwrap() as f64;
        let got = s.reserved_bytes[0].peak as f64;
        assert!(
            (got - want).abs() / want <= 0.01,
            "{t}: peak reserved pytorch {want} stridekit {got}"
        );
        // With the recorded addresses the replay is exact here too.
        let m = mismatches(t, setting, &s);
        assert!(m.is_empty(), "{t}|{setting}: {m:?}");
    }
}

#[test]
fn expandable_segments_exact_pickle() {
    exact("expandable_segments:True", true);
}

/// The pickle written by Python's own pickler (`to_pickle.py`, protocol 4 with memo and
/// frames) reads the same as the CSV and replays exactly.
#[test]
fn python_written_pickle_training_default() {
    use stridekit::alloc::read_trace_file;
    let t = read_trace_file(&data("trace_training__default.pickle.gz")).unwrap();
    let c = read_trace_file(&data("trace_training__default.csv.gz")).unwrap();
    assert_eq!(t.ops, c.ops);
    assert_eq!(t.segment_addrs, c.segment_addrs);
    let s = replay_simulated(&t, &AllocConfig::default(), &ReplayOptions::default())
        .unwrap()
        .stats;
    let m = mismatches("training", "default", &s);
    assert!(m.is_empty(), "{m:?}");
}

/// Without the recorded addresses the policy is the same but ties break differently;
/// the replay still runs and stays close.
#[test]
fn made_up_addresses_still_close() {
    let f = "trace_llm_serving__default.csv.gz";
    let t = parse_trace_bytes(f, &std::fs::read(data(f)).unwrap()).unwrap();
    let opts = ReplayOptions {
        use_recorded_addresses: false,
        ..ReplayOptions::default()
    };
    let s = replay_simulated(&t, &AllocConfig::default(), &opts)
        .unwrap()
        .stats;
    let exp = expected();
    let want = exp["llm_serving|default"]["reserved_bytes.all.peak"]
        .as_i64()
        .unwrap() as f64;
    let got = s.reserved_bytes[0].peak as f64;
    assert!((got - want).abs() / want < 0.25, "{got} vs {want}");
}

/// A replay that records the addresses it obtained, replayed again with those addresses,
/// gives identical statistics (what `--record-addresses` / `--addresses` do with a GPU run).
#[test]
fn recorded_addresses_reproduce_statistics() {
    use stridekit::alloc::read_trace_file;
    let mut t = read_trace_file(&data("trace_random.csv")).unwrap();
    let cfg = AllocConfig::default();
    let first = replay_simulated(&t, &cfg, &ReplayOptions::default()).unwrap();
    assert!(!first.segment_addresses.is_empty());
    t.segment_addrs = first.segment_addresses.clone();
    let second = replay_simulated(&t, &cfg, &ReplayOptions::default()).unwrap();
    assert_eq!(first.stats, second.stats);
    assert_eq!(first.segment_addresses, second.segment_addresses);
}
