//! `stridekit report` end to end: a synthetic fleet with planted problems (committed in
//! tests/data/fleet/, made by [`fleet_files`] here; the test fails if they drift), records
//! from real `bench --device cpu` runs, acceptance verdicts and exit statuses, and errors
//! that name the file and the field.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use stridekit::bench::health::Health;
use stridekit::bench::record::{DeviceInfo, GpuFacts, Header, Record, Report, to_json};
use stridekit::bench::rng::SplitMix64;
use stridekit::bench::telemetry::WindowStats;
use stridekit::bench::{MEMCPY_CASE, Place, Suite};

fn stridekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(args)
        .output()
        .expect("run stridekit")
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fleet")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stridekit-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The stridekit version most of the synthetic fleet ran.
const FLEET_VERSION: &str = "0.1.0";

/// The H200's theoretical DRAM bandwidth (NVML: 2 x 3201 MHz x 6016 bits / 8).
const PEAK_GBPS: f64 = 4814.304;

/// What is wrong with one synthetic GPU.
#[derive(Clone, Copy, Default)]
struct Plant {
    /// Every layout figure's bandwidth scaled by this (1: healthy).
    slow: Option<f64>,
    power_throttled: bool,
    /// Uncorrected ECC errors that appear during the run.
    ecc_uncorrected: u64,
    /// PCIe link width (16 when healthy).
    half_link: bool,
    /// The stridekit version it ran, when not the fleet's.
    version: Option<&'static str>,
}

/// The planted problems by GPU (`host:index`).
fn plants() -> BTreeMap<&'static str, Plant> {
    BTreeMap::from([
        (
            "node01:2",
            Plant {
                slow: Some(0.85),
                ..Plant::default()
            },
        ),
        (
            "node02:1",
            Plant {
                power_throttled: true,
                ..Plant::default()
            },
        ),
        (
            "node02:3",
            Plant {
                ecc_uncorrected: 2,
                ..Plant::default()
            },
        ),
        (
            "node03:0",
            Plant {
                half_link: true,
                ..Plant::default()
            },
        ),
        (
            "node03:3",
            Plant {
                version: Some("0.0.9"),
                ..Plant::default()
            },
        ),
    ])
}

/// (case, suite, % of memcpy for layout cases or GB/s for transfers, bytes moved per run).
const CASES: [(&str, Suite, f64, u64); 7] = [
    (MEMCPY_CASE, Suite::Layout, 100.0, 1 << 31),
    ("transpose2d_f32_16384x16384", Suite::Layout, 74.0, 1 << 31),
    (
        "heads_0213_f16_32x2048x32x128",
        Suite::Layout,
        79.0,
        1 << 30,
    ),
    (
        "nchw2nhwc_f32_256x3x224x224",
        Suite::Layout,
        61.0,
        308281344,
    ),
    ("index_select_rows_f16_4Mx128", Suite::Layout, 46.0, 1 << 30),
    ("h2d_pinned_1GiB", Suite::Transfers, 55.3, 1 << 30),
    ("d2h_pinned_1GiB", Suite::Transfers, 55.8, 1 << 30),
];

fn node_number(host: &str) -> u32 {
    host.trim_start_matches("node").parse().unwrap()
}

fn uuid(host: &str, gpu: usize) -> String {
    let n = node_number(host);
    format!("GPU-{n:08x}-0000-4000-8000-{gpu:012x}")
}

/// The records of one synthetic GPU: figures shaped after an H200 (memcpy about 4166 GB/s,
/// about 420 W) with +-1% seeded noise per figure, and the GPU's planted problem.
fn gpu_records(host: &str, gpu: usize, p: Plant, rng: &mut SplitMix64) -> Vec<Record> {
    let version = p.version.unwrap_or(FLEET_VERSION);
    let mut noise = || 1.0 + 0.02 * (rng.unit() - 0.5);
    let memcpy =
        4166.0 * noise() * p.slow.unwrap_or(1.0) * if p.power_throttled { 0.97 } else { 1.0 };
    let sm = if p.power_throttled {
        1650.0
    } else {
        1980.0 * (1.0 + 0.002 * (noise() - 1.0))
    };
    let watts = if p.power_throttled {
        400.0
    } else {
        420.0 * noise()
    };
    let health = Health {
        ecc_corrected_before: Some(0),
        ecc_corrected_after: Some(0),
        ecc_uncorrected_before: Some(0),
        ecc_uncorrected_after: Some(p.ecc_uncorrected),
        retired_pages_before: None,
        retired_pages_after: None,
        row_remap_pending: Some(false),
        row_remap_failure: Some(false),
        pcie_replay_before: Some(0),
        pcie_replay_after: Some(0),
        pcie_link_gen: Some(5),
        pcie_link_gen_max: Some(5),
        pcie_link_width: Some(if p.half_link { 8 } else { 16 }),
        pcie_link_width_max: Some(16),
        power_violation_ms_before: Some(0.0),
        power_violation_ms_after: Some(if p.power_throttled { 1850.0 } else { 0.0 }),
        thermal_violation_ms_before: Some(0.0),
        thermal_violation_ms_after: Some(0.0),
        health_note: Some(
            "retired_pages_before, retired_pages_after: not supported by this GPU or driver".into(),
        ),
    };
    CASES
        .iter()
        .map(|&(case, suite, figure, bytes)| {
            let gbps = match suite {
                Suite::Layout => memcpy * figure / 100.0 * noise(),
                Suite::Transfers => figure * noise() * if p.half_link { 0.5 } else { 1.0 },
            };
            let ms = bytes as f64 / gbps / 1e6;
            let w = watts * noise();
            Record {
                case: case.into(),
                dtype: "float32".into(),
                shape: vec![(bytes / 8) as i64],
                op: "synthetic".into(),
                bytes_read: if suite == Suite::Layout {
                    bytes / 2
                } else {
                    bytes
                },
                bytes_written: if suite == Suite::Layout {
                    bytes / 2
                } else {
                    bytes
                },
                ms_median: Some(ms),
                ms_min: Some(ms * 0.99),
                ms_max: Some(ms * 1.01),
                samples: 20,
                gbps: Some(gbps),
                pct_of_memcpy: (suite == Suite::Layout).then(|| 100.0 * gbps / memcpy),
                pct_of_peak: (suite == Suite::Layout).then(|| 100.0 * gbps / PEAK_GBPS),
                telemetry: WindowStats {
                    power_w_mean: Some(w),
                    power_w_max: Some(w * 1.05),
                    energy_j: Some(w * 0.5),
                    j_per_gb: Some(w / gbps),
                    sm_mhz_mean: Some(sm),
                    mem_mhz_mean: Some(3201.0),
                    temp_c_max: Some(47),
                    throttle_reasons: Some(if p.power_throttled {
                        vec!["sw_power_cap".into()]
                    } else {
                        vec![]
                    }),
                },
                verified: true,
                place: Place {
                    host: host.into(),
                    device_name: Some("NVIDIA H200".into()),
                    gpu_index: Some(gpu),
                    gpu_uuid: Some(uuid(host, gpu)),
                    slurm_job_id: Some("9001".into()),
                    slurm_task_id: Some((node_number(host) - 1).to_string()),
                },
                discarded_low_clock: 0,
                build: format!("v{version}"),
                suite,
                health: health.clone(),
            }
        })
        .collect()
}

fn header(host: &str, gpus: &[usize], version: &str) -> Header {
    Header {
        gpu: GpuFacts::default(),
        driver: Some("580.159.04".into()),
        stridekit_version: version.into(),
        build: format!("v{version}"),
        kernel_image: "fatbin sm_80,sm_90,sm_100+compute_80 (nvcc 13.0.88)".into(),
        backend: "cuda".into(),
        host: host.into(),
        command_line: "stridekit bench --suite all --device all --json bench-{host}.json".into(),
        timestamp: "2026-12-01T06:00:00Z".into(),
        quick: false,
        seed: 42,
        suite: "all".into(),
        sampling: "synthetic: made by tests/report_cli.rs".into(),
        verification: "synthetic".into(),
        devices: gpus
            .iter()
            .map(|&g| DeviceInfo {
                gpu_index: g,
                facts: GpuFacts {
                    gpu_name: Some("NVIDIA H200".into()),
                    gpu_uuid: Some(uuid(host, g)),
                    sm_mhz_max: Some(1980),
                    mem_mhz_max: Some(3201),
                    bus_width_bits: Some(6016),
                    peak_gbps: Some(PEAK_GBPS),
                },
                l2_bytes: Some(52428800),
                telemetry: "available".into(),
            })
            .collect(),
        cases_not_run: vec![],
    }
}

/// The synthetic fleet: three nodes of four H200s, one file per node, except node03's
/// GPU 3, which ran an older stridekit on its own.
fn fleet_files() -> Vec<(String, String)> {
    let plants = plants();
    let mut rng = SplitMix64(2026);
    let mut files = Vec::new();
    for host in ["node01", "node02", "node03"] {
        let mut by_version: BTreeMap<&str, (Vec<usize>, Vec<Record>)> = BTreeMap::new();
        for gpu in 0..4 {
            let p = plants
                .get(format!("{host}:{gpu}").as_str())
                .copied()
                .unwrap_or_default();
            let v = by_version
                .entry(p.version.unwrap_or(FLEET_VERSION))
                .or_default();
            v.0.push(gpu);
            v.1.extend(gpu_records(host, gpu, p, &mut rng));
        }
        for (version, (gpus, records)) in by_version {
            let name = if version == FLEET_VERSION {
                format!("bench-{host}.json")
            } else {
                format!("bench-{host}-gpu{}-v{version}.json", gpus[0])
            };
            let report = Report {
                header: header(host, &gpus, version),
                records,
            };
            files.push((name, to_json(&report)));
        }
    }
    files
}

/// The committed fixtures are exactly what [`fleet_files`] makes
/// (STRIDEKIT_REGENERATE=1 rewrites them).
#[test]
fn fleet_fixtures_are_current() {
    for (name, text) in fleet_files() {
        let path = data().join(&name);
        if std::env::var_os("STRIDEKIT_REGENERATE").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("{}: {e} (STRIDEKIT_REGENERATE=1 writes it)", path.display())
        });
        assert!(
            committed == text,
            "{name} differs from the generator (STRIDEKIT_REGENERATE=1)"
        );
    }
}

fn fleet_glob() -> String {
    format!("{}/bench-*.json", data().display())
}

fn report_json(args: &[&str]) -> (Output, Value) {
    let out = stridekit(args);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, v)
}

fn label(g: &Value) -> String {
    format!("{}:{}", g["host"].as_str().unwrap(), g["gpu_index"])
}

/// Flag kinds per flagged GPU.
fn flag_kinds(v: &Value) -> BTreeMap<String, BTreeSet<String>> {
    v["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| !g["flags"].as_array().unwrap().is_empty())
        .map(|g| {
            let kinds = g["flags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["kind"].as_str().unwrap().to_string())
                .collect();
            (label(g), kinds)
        })
        .collect()
}

fn reasons(v: &Value, gpu: &str) -> String {
    let g = v["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| label(g) == gpu)
        .unwrap();
    g["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["reason"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn report_flags_exactly_the_planted_problems() {
    let (out, v) = report_json(&["report", &fleet_glob(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["gpus"].as_array().unwrap().len(), 12);
    assert_eq!(v["files"], 4);
    let kinds = flag_kinds(&v);
    let flagged: BTreeSet<&str> = kinds.keys().map(String::as_str).collect();
    let planted: BTreeSet<&str> = plants().keys().copied().collect();
    assert_eq!(flagged, planted, "{kinds:?}");
    let set = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert!(kinds["node01:2"] == set(&["outlier"]), "{kinds:?}");
    let slow = reasons(&v, "node01:2");
    assert!(
        slow.contains("memcpy_gbps") && slow.contains("below the NVIDIA H200 median"),
        "{slow}"
    );
    assert!(kinds["node02:1"].contains("throttle"), "{kinds:?}");
    let thr = reasons(&v, "node02:1");
    assert!(
        thr.contains("clocks held down: sw_power_cap; power violation time +1850 ms"),
        "{thr}"
    );
    assert!(thr.contains("sm_mhz_mean 1650"), "{thr}");
    assert!(kinds["node02:3"] == set(&["health"]), "{kinds:?}");
    assert_eq!(
        reasons(&v, "node02:3"),
        "uncorrected ECC errors rose by 2 during the run"
    );
    assert!(kinds["node03:0"].contains("health"), "{kinds:?}");
    let link = reasons(&v, "node03:0");
    assert!(
        link.contains("PCIe link runs at x8, below its maximum x16"),
        "{link}"
    );
    assert!(link.contains("h2d_gbps"), "half the host bandwidth: {link}");
    assert!(kinds["node03:3"] == set(&["mixed"]), "{kinds:?}");
    assert!(reasons(&v, "node03:3").starts_with("ran stridekit 0.0.9"));
    // Groups: the 11 GPUs on 0.1.0 with the outlier rule, the old one alone without.
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    let main = groups.iter().find(|g| g["majority"] == true).unwrap();
    assert_eq!(
        (main["gpus"].as_u64(), main["outlier_rule"].as_bool()),
        (Some(11), Some(true))
    );
    let m = main["bands"]["memcpy_gbps"]["median"].as_f64().unwrap();
    assert!((m / 4166.0 - 1.0).abs() < 0.01, "{m}");
    let notes = v["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n.as_str().unwrap().contains("0.0.9")),
        "{notes:?}"
    );
    // The deltas and link of one row.
    let g = v["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| label(g) == "node02:3")
        .unwrap();
    assert_eq!(g["ecc_uncorrected_delta"], 2);
    assert_eq!(g["retired_pages_delta"], Value::Null);
    assert_eq!(g["pcie_link_width_max"], 16);
}

#[test]
fn a_larger_limit_or_a_small_fleet_flags_fewer() {
    // k = 50: only the half-width link's host bandwidth and the slow card's stay out.
    let (_, v) = report_json(&["report", &fleet_glob(), "--json", "--mad-k", "50"]);
    let kinds = flag_kinds(&v);
    assert!(!kinds["node02:1"].contains("outlier"), "{kinds:?}");
    // One node alone: four GPUs, below the rule's minimum, so no outlier is flagged but
    // the health flags stand.
    let node = data().join("bench-node01.json");
    let (_, v) = report_json(&["report", node.to_str().unwrap(), "--json"]);
    assert!(
        flag_kinds(&v).is_empty(),
        "node01:2 is slow, but 4 GPUs make no fleet"
    );
    let notes = v["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("fewer than 5: no outlier rule"),
        "{notes:?}"
    );
}

#[test]
fn table_markdown_csv_and_plot() {
    let (md, csv, svg) = (tmp("fleet.md"), tmp("fleet.csv"), tmp("fleet.svg"));
    let out = stridekit(&[
        "report",
        &fleet_glob(),
        "--markdown",
        md.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let first = table.lines().next().unwrap();
    assert!(
        first.starts_with("host ") && first.contains("memcpy GB/s") && first.ends_with("flags"),
        "{first}"
    );
    assert_eq!(table.lines().filter(|l| l.starts_with("node")).count(), 12);
    assert!(table.contains("flags: 5 of 12 GPU(s)"), "{table}");
    assert!(table.contains("node02:3 (GPU-00000002-0000-4000-8000-000000000003): health: uncorrected ECC errors rose by 2"), "{table}");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.starts_with("## GPUs\n\n| host | gpu |"), "{md}");
    assert!(md.contains("|---|---|---|---|---:|"));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 13);
    assert!(
        lines[0].starts_with("host,gpu_index,gpu_uuid,model,stridekit_version,suite,memcpy_gbps")
    );
    let slow = lines.iter().find(|l| l.starts_with("node01,2,")).unwrap();
    assert!(slow.contains(",outlier,"), "{slow}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    assert_eq!(
        svg.matches("class=\"bar\"").count(),
        24,
        "memcpy and J/GB for 12 GPUs"
    );
    assert_eq!(
        svg.matches("fill=\"#d62728\"").count(),
        10,
        "5 flagged GPUs in red, twice"
    );
}

#[test]
fn acceptance_fails_exactly_the_cards_that_break_it() {
    let acc = data().join("accept.toml");
    let (out, v) = report_json(&[
        "report",
        &fleet_glob(),
        "--accept",
        acc.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdicts = v["acceptance"]["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), 12);
    let failed: BTreeMap<String, String> = verdicts
        .iter()
        .filter(|d| d["pass"] == false)
        .map(|d| {
            let rs: Vec<&str> = d["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            (label(d), rs.join(" | "))
        })
        .collect();
    let names: Vec<&str> = failed.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["node01:2", "node02:1", "node02:3", "node03:0"],
        "{failed:?}"
    );
    assert!(
        failed["node01:2"].starts_with("memcpy GB/s 35"),
        "{failed:?}"
    );
    assert!(
        failed["node01:2"].contains("below the minimum 3900"),
        "{failed:?}"
    );
    assert_eq!(failed["node02:1"], "throttled: sw_power_cap");
    assert_eq!(failed["node02:3"], "uncorrected ECC count moved by 2");
    assert!(
        failed["node03:0"].contains("host-to-device GB/s 27"),
        "{failed:?}"
    );
    assert!(
        failed["node03:0"].contains("PCIe link at x8, below its maximum x16"),
        "{failed:?}"
    );
    assert_eq!(v["acceptance"]["pass"], false);
    // The table says PASS/FAIL per GPU and the reasons.
    let out = stridekit(&["report", &fleet_glob(), "--accept", acc.to_str().unwrap()]);
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(
        t.contains("acceptance (") && t.contains("): 8 of 12 GPU(s) pass"),
        "{t}"
    );
    assert!(
        t.contains("  node02:3 FAIL: uncorrected ECC count moved by 2\n"),
        "{t}"
    );
    // Only passing cards: exit 0.
    let ok = data().join("bench-node03-gpu3-v0.0.9.json");
    let out = stridekit(&[
        "report",
        ok.to_str().unwrap(),
        "--accept",
        acc.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_h200_example_file_reads_and_passes_healthy_cards() {
    let acc = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/accept/h200.toml");
    let (out, v) = report_json(&[
        "report",
        &fleet_glob(),
        "--accept",
        acc.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let failed: Vec<String> = v["acceptance"]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["pass"] == false)
        .map(label)
        .collect();
    assert_eq!(
        failed,
        ["node01:2", "node02:3", "node03:0"],
        "the power cap is not in its fail list"
    );
}

fn fails_with(args: &[&str], code: i32, needle: &str) {
    let out = stridekit(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn unreadable_inputs_exit_2_naming_the_file_and_the_field() {
    let good = data().join("bench-node01.json");
    let good = good.to_str().unwrap();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(good).unwrap()).unwrap();
    v["records"][5]["pcie_link_width"] = "x16".into();
    let bad = tmp("bad-field.json");
    std::fs::write(&bad, v.to_string()).unwrap();
    let bad = bad.to_str().unwrap();
    fails_with(
        &["report", good, bad],
        2,
        &format!(
            "stridekit report: {bad}: field records[5].pcie_link_width: invalid type: string \"x16\""
        ),
    );
    fails_with(
        &["report", "/nonexistent/x.json"],
        2,
        "stridekit report: /nonexistent/x.json: ",
    );
    fails_with(
        &["report", "/nonexistent/*.json"],
        2,
        "'/nonexistent/*.json' matches no bench JSON file",
    );
    let acc = tmp("acc.toml");
    std::fs::write(&acc, "[models.\"NVIDIA H200\"]\nmin_memcpy_gbs = 3900\n").unwrap();
    fails_with(
        &["report", good, "--accept", acc.to_str().unwrap()],
        2,
        "unknown field `min_memcpy_gbs`",
    );
    let acc_json = tmp("acc.json");
    std::fs::write(
        &acc_json,
        r#"{"models": {"NVIDIA H200": {"fail_throttle_reasons": ["hot"]}}}"#,
    )
    .unwrap();
    fails_with(
        &["report", good, "--accept", acc_json.to_str().unwrap()],
        2,
        &format!(
            "acceptance file {}: field models.\"NVIDIA H200\".fail_throttle_reasons[0]: unknown throttle reason 'hot'",
            acc_json.display()
        ),
    );
    std::fs::write(
        &acc_json,
        r#"{"models": {"NVIDIA H200": {"max_j_per_gb": "low"}}}"#,
    )
    .unwrap();
    fails_with(
        &["report", good, "--accept", acc_json.to_str().unwrap()],
        2,
        "field models.NVIDIA H200.max_j_per_gb: invalid type: string \"low\"",
    );
}

/// Records from real CPU runs: two `bench --device cpu` runs of the same host, the second
/// the one that counts; a CPU acceptance rule; `{host}`/`{date}` placeholders in --json.
#[test]
fn cpu_runs_report_and_accept() {
    let dir = tmp("cpu-runs");
    std::fs::create_dir_all(&dir).unwrap();
    let pattern = format!("{}/cpu-{{host}}-{{slurm_job}}-{{n}}.json", dir.display());
    for n in ["1", "2"] {
        let json = pattern.replace("{n}", n);
        // A directory the run makes, named by placeholders too.
        let records = format!(
            "{}/streams-{{slurm_job}}/cpu-{{host}}-{n}.jsonl",
            dir.display()
        );
        let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
            .args([
                "bench",
                "--device",
                "cpu",
                "--quick",
                "--cases",
                "transpose2d_f32_16384|expand_rows",
                "--warmup",
                "1",
                "--min-samples",
                "3",
                "--min-time",
                "0.02",
                "--time-limit",
                "0.1",
                "--json",
                &json,
                "--records",
                &records,
                "-q",
            ])
            .env("SLURM_JOB_ID", "77")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let host = stridekit::bench::record::host_name();
    let streamed = dir.join(format!("streams-77/cpu-{host}-2.jsonl"));
    let lines = std::fs::read_to_string(&streamed).unwrap();
    assert_eq!(
        lines.lines().count(),
        3,
        "memcpy and two cases, one line each"
    );
    for f in &files {
        let name = f.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(&format!("cpu-{host}-77-")), "{name}");
    }
    let acc = tmp("cpu.toml");
    // The CPU backend's records name the processor as their device model.
    let cpu = stridekit::bench::cpu_device_name();
    let rules = |body: &str| format!("[models.{cpu:?}]\n{body}");
    std::fs::write(
        &acc,
        format!(
            "source = \"test\"\n{}[[models.{cpu:?}.cases]]\npattern = \"transpose2d\"\nmin_pct_of_memcpy = 0.0001\n",
            rules("min_memcpy_gbps = 0.001\n")
        ),
    )
    .unwrap();
    let glob = format!("{}/*.json", dir.display());
    let (out, v) = report_json(&["report", &glob, "--accept", acc.to_str().unwrap(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gpus = v["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 1, "one CPU, two runs");
    let g = &gpus[0];
    assert_eq!(g["model"], cpu.as_str());
    assert_eq!(g["files"].as_array().unwrap().len(), 2);
    assert!(g["memcpy_gbps"].as_f64().unwrap() > 0.0);
    assert!(
        g["health_note"]
            .as_str()
            .unwrap()
            .ends_with("the CPU backend has no GPU health counters")
    );
    assert_eq!(g["ecc_uncorrected_delta"], Value::Null);
    assert_eq!(v["acceptance"]["verdicts"][0]["pass"], true);
    // A bar the CPU cannot meet fails it, with the reason; a model without rules fails too.
    std::fs::write(
        &acc,
        rules("min_memcpy_gbps = 1e9\n") + "[models.\"NVIDIA H200\"]\n",
    )
    .unwrap();
    let (out, v) = report_json(&["report", &glob, "--accept", acc.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let r = v["acceptance"]["verdicts"][0]["reasons"][0]
        .as_str()
        .unwrap();
    assert!(
        r.starts_with("memcpy GB/s ") && r.ends_with("below the minimum 1000000000"),
        "{r}"
    );
    std::fs::write(&acc, "[models.\"NVIDIA H200\"]\n").unwrap();
    let (out, v) = report_json(&["report", &glob, "--accept", acc.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        v["acceptance"]["verdicts"][0]["reasons"][0],
        format!("the acceptance file has no rules for model '{cpu}'")
    );
}

/// examples/slurm/stridekit-rack.sbatch end to end on the CPU: a stand-in `srun` runs the
/// task once (this host as the one node), then the report with its acceptance file.
#[test]
fn sbatch_example_runs_end_to_end() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tmp("sbatch");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let srun = dir.join("bin/srun");
    // Drops srun's own options, then runs the task.
    std::fs::write(
        &srun,
        "#!/bin/bash\nwhile [[ $1 == -* ]]; do shift; done\nexec \"$@\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&srun, std::fs::Permissions::from_mode(0o755)).unwrap();
    let acc = dir.join("cpu.toml");
    let cpu = stridekit::bench::cpu_device_name();
    std::fs::write(&acc, format!("[models.{cpu:?}]\nmin_memcpy_gbps = 0.001\n")).unwrap();
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let results = dir.join("results");
    let sbatch = |job: &str| {
        Command::new("bash")
            .arg(root.join("examples/slurm/stridekit-rack.sbatch"))
            .current_dir(root)
            .env("PATH", &path)
            .env("SLURM_JOB_ID", job)
            .env("STRIDEKIT", env!("CARGO_BIN_EXE_stridekit"))
            .env("RESULTS", &results)
            .env("ACCEPT", &acc)
            .env(
                "BENCH_ARGS",
                "--device cpu --quick --cases expand_rows --warmup 1 --min-samples 2 --min-time 0 --time-limit 0.05",
            )
            .output()
            .unwrap()
    };
    let out = sbatch("31337");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stderr}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let job = results.join("31337");
    let host = stridekit::bench::record::host_name();
    assert!(job.join(format!("bench-{host}.json")).is_file(), "{stderr}");
    for f in ["report.json", "report.md", "report.svg"] {
        assert!(job.join(f).is_file(), "{f}");
    }
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(job.join("report.json")).unwrap()).unwrap();
    assert_eq!(v["acceptance"]["pass"], true);
    // A bar the CPU misses: the job fails with status 1.
    std::fs::write(&acc, format!("[models.{cpu:?}]\nmin_memcpy_gbps = 1e12\n")).unwrap();
    let out = sbatch("31338");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
