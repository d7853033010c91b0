//! `stridekit bench` end to end on the CPU backend (a subset of the quick suite with a short
//! time limit): the JSON against the documented fields and their types, byte counts and
//! rates, the CSV, the SVG, the baseline ratio column, the case spec, and the errors.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;
use stridekit::bench::record::FIELDS;

fn stridekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(args)
        .env("SLURM_JOB_ID", "4242")
        .env("SLURM_PROCID", "3")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .expect("run stridekit")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stridekit-bench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

const CASES: &str = "transpose2d_f32_16384|nchw2nhwc_f32|nhwc2nchw_f16|unfold|index_select|expand_rows|slice_step2|rand_r3_0";

/// (case, bytes read, bytes written) at the quick sizes, worked out by hand.
const QUICK_BYTES: [(&str, u64, u64); 6] = [
    ("memcpy_f32_1GiB", 4 << 20, 4 << 20),
    ("transpose2d_f32_16384x16384", 4 << 20, 4 << 20),
    // 2^19 int32, windows of 1025 every 512: 1022 windows reach element 1021 * 512 + 1025.
    ("unfold_windows_i32_1025s512", 523777 * 4, 1022 * 1025 * 4),
    ("expand_rows_f32_16384", 1024 * 4, 1024 * 1024 * 4),
    (
        "index_select_rows_f16_4Mx128",
        8192 * 128 * 2,
        8192 * 128 * 2,
    ),
    ("slice_step2_f32_16384x16384", 512 * 512 * 4, 512 * 512 * 4),
];

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn cpu_quick_run_writes_documented_reports() {
    let (json, csv, svg, base, other, stream) = (
        tmp("out.json"),
        tmp("out.csv"),
        tmp("out.svg"),
        tmp("base.json"),
        tmp("other.json"),
        tmp("out.jsonl"),
    );
    // A hand-made baseline from this machine's CPU: two variants, one case each plus memcpy.
    let here = stridekit::bench::cpu_device_name();
    std::fs::write(
        &base,
        format!(
            r#"{{"header": {{"label": "torch", "device_name": {here:?}}}, "records": [
            {{"case": "memcpy_f32_1GiB", "variant": "torch eager", "pct_of_memcpy": 100.0}},
            {{"case": "transpose2d_f32_16384x16384", "variant": "torch eager", "pct_of_memcpy": 27.6}},
            {{"case": "transpose2d_f32_16384x16384", "variant": "torch.compile", "pct_of_memcpy": 77.9}}
        ]}}"#
        ),
    )
    .unwrap();
    // And one from another device model: shown as its own % of memcpy, never as a ratio.
    std::fs::write(
        &other,
        r#"{"header": {"label": "anchors", "gpu_name": "NVIDIA H200"}, "records": [
            {"case": "transpose2d_f32_16384x16384", "pct_of_memcpy": 27.6}
        ]}"#,
    )
    .unwrap();
    let out = stridekit(&[
        "bench",
        "--device",
        "cpu",
        "--quick",
        "--cases",
        CASES,
        "--warmup",
        "1",
        "--min-samples",
        "3",
        "--min-time",
        "0.02",
        "--time-limit",
        "0.2",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
        "--baseline",
        base.to_str().unwrap(),
        "--baseline",
        other.to_str().unwrap(),
        "--records",
        stream.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");

    // JSON: header, then records with exactly the documented fields.
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let h = &report["header"];
    for key in [
        "gpu_name",
        "gpu_uuid",
        "driver",
        "sm_mhz_max",
        "mem_mhz_max",
        "bus_width_bits",
        "peak_gbps",
        "stridekit_version",
        "kernel_image",
        "backend",
        "host",
        "command_line",
        "timestamp",
        "devices",
    ] {
        assert!(h.get(key).is_some(), "header lacks {key}");
    }
    assert_eq!(h["backend"], "cpu");
    assert!(h["cpu_threads"].as_u64().is_some_and(|n| n >= 1));
    let cap = h["cpu_capability"].as_str().unwrap();
    assert!(["default", "avx2", "avx512"].contains(&cap), "{cap}");
    assert_eq!(h["stridekit_version"], env!("CARGO_PKG_VERSION"));
    assert!(h["command_line"].as_str().unwrap().contains("--device cpu"));
    assert!(h["timestamp"].as_str().unwrap().ends_with('Z'));
    let records = report["records"].as_array().unwrap();
    assert_eq!(records.len(), 9, "memcpy + 8 filtered cases");
    assert_eq!(records[0]["case"], "memcpy_f32_1GiB");
    let memcpy_gbps = num(&records[0]["gbps"]);
    for r in records {
        let name = r["case"].as_str().unwrap();
        let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        keys.sort();
        let mut want = FIELDS.to_vec();
        want.sort();
        assert_eq!(keys, want, "{name}");
        assert!(r["dtype"].is_string() && r["op"].is_string() && r["host"].is_string());
        assert!(r["shape"].as_array().unwrap().iter().all(|d| d.is_u64()));
        assert_eq!(r["verified"], true, "{name}");
        let (read, written) = (
            r["bytes_read"].as_u64().unwrap(),
            r["bytes_written"].as_u64().unwrap(),
        );
        let samples = r["samples"].as_u64().unwrap();
        assert!(samples >= 1, "{name}");
        let (med, min, max) = (num(&r["ms_median"]), num(&r["ms_min"]), num(&r["ms_max"]));
        assert!(min <= med && med <= max && min > 0.0, "{name}");
        let gbps = num(&r["gbps"]);
        let want_gbps = (read + written) as f64 / (med * 1e-3) / 1e9;
        assert!((gbps / want_gbps - 1.0).abs() < 1e-9, "{name}");
        let pct = num(&r["pct_of_memcpy"]);
        assert!((pct - 100.0 * gbps / memcpy_gbps).abs() < 1e-6, "{name}");
        // CPU backend: no peak, no telemetry, no GPU.
        for k in [
            "pct_of_peak",
            "power_w_mean",
            "power_w_max",
            "energy_j",
            "j_per_gb",
            "sm_mhz_mean",
            "mem_mhz_mean",
            "temp_c_max",
            "throttle_reasons",
            "gpu_index",
            "gpu_uuid",
        ] {
            assert!(r[k].is_null(), "{name}: {k} = {}", r[k]);
        }
        // Health counters: every one null on the CPU, and the note says why.
        for k in &FIELDS[FIELDS.len() - 19..FIELDS.len() - 1] {
            assert!(r[k].is_null(), "{name}: {k} = {}", r[k]);
        }
        let note = r["health_note"].as_str().unwrap();
        assert!(
            note.starts_with("ecc_corrected_before, ")
                && note.ends_with(": the CPU backend has no GPU health counters"),
            "{note}"
        );
        assert_eq!(r["suite"], "layout");
        assert_eq!(r["slurm_job_id"], "4242");
        assert_eq!(r["slurm_task_id"], "3");
        assert_eq!(r["discarded_low_clock"], 0);
    }
    assert_eq!(num(&records[0]["pct_of_memcpy"]), 100.0);
    for (case, read, written) in QUICK_BYTES {
        let r = records.iter().find(|r| r["case"] == case).unwrap();
        assert_eq!(r["bytes_read"], read, "{case}");
        assert_eq!(r["bytes_written"], written, "{case}");
    }
    let cl = records
        .iter()
        .find(|r| r["case"] == "nchw2nhwc_f32_256x3x224x224")
        .unwrap();
    assert_eq!(
        cl["shape"],
        serde_json::json!([32, 3, 28, 56]),
        "C = 3 kept"
    );

    // CSV: the documented header, one row per record.
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], FIELDS.join(","));
    assert_eq!(lines.len(), 1 + records.len());
    assert!(lines[1].starts_with("memcpy_f32_1GiB,float32,1048576,x.clone(),4194304,4194304,"));

    // SVG: one stridekit bar per case, baseline bars where the baseline has the case.
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.trim_end().ends_with("</svg>"));
    assert_eq!(
        plot.matches("class=\"bar stridekit\"").count(),
        records.len()
    );
    assert_eq!(plot.matches("class=\"bar baseline\"").count(), 4);
    assert_eq!(
        plot.matches("<rect").count(),
        plot.matches("</rect>").count() + 1 + 4
    );
    assert!(plot.contains(">anchors on NVIDIA H200</text>"), "{plot}");

    // Table: a ratio column per baseline series of this device model; the other device's
    // own figure, with a note.
    let header = stdout.lines().next().unwrap();
    assert!(
        header.contains("vs torch eager")
            && header.contains("vs torch.compile")
            && header.ends_with("%memcpy anchors on NVIDIA H200"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "baseline 'anchors' ran on NVIDIA H200, this run on {here}: its own % of memcpy is shown, not a ratio"
        )),
        "{stdout}"
    );
    let t_row = stdout
        .lines()
        .find(|l| l.starts_with("transpose2d_f32_16384x16384"))
        .unwrap();
    let t = records
        .iter()
        .find(|r| r["case"] == "transpose2d_f32_16384x16384")
        .unwrap();
    let ratio = num(&t["pct_of_memcpy"]) / 77.9;
    let cells: Vec<&str> = t_row.split_whitespace().collect();
    assert_eq!(
        cells[cells.len() - 2..],
        [format!("x{ratio:.2}").as_str(), "27.6"],
        "{t_row}"
    );
    // The stream: every record as the report has it, one line each, in the same order.
    let streamed: Vec<Value> = std::fs::read_to_string(&stream)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&streamed, records);
    let m: Vec<&str> = stdout
        .lines()
        .find(|l| l.starts_with("memcpy_f32_1GiB"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        m[m.len() - 3..],
        ["x1.00", "-", "-"],
        "no memcpy in the compile series"
    );
}

#[test]
fn case_spec_lists_the_whole_suite() {
    let out = stridekit(&["bench", "--list", "--json"]);
    assert!(out.status.success());
    let spec: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = spec["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 22 + 24);
    assert_eq!(spec["memcpy_case"], "memcpy_f32_1GiB");
    assert_eq!(cases[0]["case"], "memcpy_f32_1GiB");
    let names: Vec<&str> = cases.iter().map(|c| c["case"].as_str().unwrap()).collect();
    for n in [
        "perm6d_503142_f32_24^6",
        "nhwc2nchw_f16_64x64x224x224",
        "index_select_rows_f16_4Mx128",
    ] {
        assert!(names.contains(&n), "{n}");
    }
    for r in 2..=7 {
        assert_eq!(
            names
                .iter()
                .filter(|n| n.starts_with(&format!("rand_r{r}_")))
                .count(),
            4
        );
    }
    let h = cases
        .iter()
        .find(|c| c["case"] == "heads_0213_f16_32x2048x32x128")
        .unwrap();
    assert_eq!(h["steps"][0]["dims"], serde_json::json!([0, 2, 1, 3]));
    assert_eq!(
        h["view"]["strides"],
        serde_json::json!([8388608, 128, 4096, 1])
    );
    assert_eq!(h["bytes_read"], 536870912u64);
    // The plain listing has one line per case after the header.
    let out = stridekit(&["bench", "--list", "--quick", "--cases", "rand_r7"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1 + 1 + 4);
}

fn fails_with(args: &[&str], needle: &str) {
    let out = stridekit(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn errors_are_one_clear_line() {
    if !stridekit::backend::cuda::driver_available() {
        fails_with(
            &["bench", "--device", "0", "--quick"],
            "run with --device cpu",
        );
        fails_with(&["bench", "--device", "all", "--quick"], "no CUDA driver");
    }
    fails_with(&["bench", "--device", "gpu"], "--device 'gpu'");
    fails_with(
        &["bench", "--device", "cpu", "--suite", "transfers"],
        "stridekit bench: --suite transfers needs a GPU: the transfers suite times host-device and device-device copies",
    );
    fails_with(
        &["bench", "--device", "cpu", "--suite", "all", "--quick"],
        "--suite all needs a GPU",
    );
    fails_with(
        &[
            "bench",
            "--device",
            "cpu",
            "--quick",
            "--json",
            "out-{nodename}.json",
        ],
        "unknown placeholder {nodename} (known: {host} {gpu} {slurm_job} {slurm_proc} {date})",
    );
    fails_with(
        &["bench", "--device", "cpu", "--cases", "no_such_case"],
        "--cases 'no_such_case' matches no case",
    );
    fails_with(
        &[
            "bench",
            "--device",
            "cpu",
            "--baseline",
            "/nonexistent/b.json",
        ],
        "baseline /nonexistent/b.json:",
    );
    let bad = tmp("bad.json");
    std::fs::write(&bad, "[1, 2]").unwrap();
    fails_with(
        &[
            "bench",
            "--device",
            "cpu",
            "--baseline",
            bad.to_str().unwrap(),
        ],
        "not a stridekit bench JSON file",
    );
    fails_with(
        &["bench", "--device", "cpu", "--time-limit=-1"],
        "--time-limit -1",
    );
}

/// scripts/compare_torch.py picks the same gathered rows as stridekit (its pure-Python
/// path; the numpy path computes the same bijection vectorised).
#[test]
fn compare_torch_gathers_the_same_rows() {
    let scripts = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts");
    let code = "import sys, json; sys.path.insert(0, sys.argv[1]); import compare_torch as c; \
                print(json.dumps([c.gather_index(500, 1000, 7), c.gather_index(64, 1 << 14, 42)]))";
    let Ok(out) = Command::new("python3").args(["-c", code, scripts]).output() else {
        eprintln!("skipped: python3 not found");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<Vec<i64>> = serde_json::from_slice(&out.stdout).unwrap();
    use stridekit::bench::rng::distinct_rows;
    assert_eq!(got[0], distinct_rows(500, 1000, 7));
    assert_eq!(got[1], distinct_rows(64, 1 << 14, 42));
}

/// The committed anchor figures read as a baseline: one series per recorded variant.
#[test]
fn anchor_baseline_file_reads_as_series() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("bench/anchors/torch_h200_anchor.json");
    let series = stridekit::bench::record::read_baseline(&path).unwrap();
    let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "torch eager (anchor run 1)",
            "torch eager (anchor run 2)",
            "torch.compile (anchor run 2)",
            "CuPy (anchor run 2)"
        ]
    );
    let eager = &series[0].by_case["transpose2d_f32_16384x16384"];
    assert!((eager.pct_of_memcpy.unwrap() - 27.65).abs() < 0.01);
    let compiled = &series[2].by_case["perm4d_3210_f32_64x64x64x64"];
    assert!((compiled.pct_of_memcpy.unwrap() - 34.6).abs() < 0.1);
    assert_eq!(series[0].by_case.len(), 22); // 21 anchor cases + the memcpy line
}

/// `--budget`: no case starts that would end past it, judged by the longest so far; the
/// first always runs, the rest are listed as not run, and the run still succeeds.
#[test]
fn budget_stops_starting_cases() {
    let json = tmp("budget.json");
    let out = stridekit(&[
        "bench",
        "--device",
        "cpu",
        "--quick",
        "--cases",
        "transpose2d_f32_16384|expand_rows",
        "--warmup",
        "0",
        "--min-samples",
        "2",
        "--min-time",
        "0",
        "--time-limit",
        "0.05",
        "--budget",
        "0",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let records = report["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "only the first case fits a budget of 0 s");
    assert_eq!(records[0]["case"], "memcpy_f32_1GiB");
    assert_eq!(
        report["header"]["cases_not_run"],
        serde_json::json!(["transpose2d_f32_16384x16384", "expand_rows_f32_16384"])
    );
    assert!(
        stderr.contains("the --budget of 0 s left 2 case(s) not run"),
        "{stderr}"
    );
}
