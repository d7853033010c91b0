//! `scripts/gpu-check` without a GPU: its help, its refusal without built binaries, and a
//! whole `all` run over stand-in binaries (shell scripts that print what the real test
//! binaries, compute-sanitizer and nvidia-smi print), carried without their execute bits,
//! under a budget that one slow step overruns. Checks the step logs, the build label in
//! every log, the exec-bit repair, the time limits and the summary table with its exit
//! status, so the script's own logic has run before it meets the H200.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sk-gpu-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A tree with the script, the summary script and what the steps read.
fn tree(name: &str) -> PathBuf {
    let root = scratch(name);
    for f in [
        "scripts/gpu-check",
        "scripts/gpu_check_summary.py",
        "examples/tv209.py",
        "tests/data/alloc/trace_training.csv",
    ] {
        let to = root.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo().join(f), &to).unwrap();
    }
    root
}

fn write(path: &Path, text: &str, mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn gpu_check(root: &Path, args: &[&str], path_dir: Option<&Path>) -> Output {
    let mut c = Command::new("bash");
    c.arg(root.join("scripts/gpu-check")).args(args);
    c.env("OUT", root.join("out"));
    if let Some(p) = path_dir {
        c.env(
            "PATH",
            format!("{}:{}", p.display(), std::env::var("PATH").unwrap()),
        );
    }
    c.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn help_names_every_mode_and_its_duration() {
    let o = Command::new("bash")
        .arg(repo().join("scripts/gpu-check"))
        .arg("--help")
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    for want in [
        "gpu-check build",
        "gpu-check all",
        "gpu-check bench",
        "well inside 9 minutes",
        "racecheck",
        "--variants eager,compile",
        "4-6 minutes",
    ] {
        assert!(t.contains(want), "help lacks {want:?}:\n{t}");
    }
    let o = Command::new("bash")
        .arg(repo().join("scripts/gpu-check"))
        .arg("nonsense")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // An option given last without its value is a usage error that names it.
    for (mode, option) in [("bench", "--baseline"), ("all", "--budget")] {
        let o = Command::new("bash")
            .arg(repo().join("scripts/gpu-check"))
            .args([mode, option])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(
            text(&o).contains(&format!("{option} needs a value")),
            "{}",
            text(&o)
        );
    }
}

#[test]
fn without_built_binaries_it_says_what_to_run() {
    let root = tree("missing");
    for mode in ["all", "bench"] {
        let o = gpu_check(&root, &[mode], None);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(
            text(&o).contains("run 'scripts/gpu-check build' first"),
            "{}",
            text(&o)
        );
    }
}

/// libtest's output for `n` passing tests, and one failing test when `fail` is given.
fn libtest(n: usize, fail: Option<&str>) -> String {
    let mut s = format!("echo 'running {} tests'\n", n + fail.iter().count());
    for k in 0..n {
        s.push_str(&format!("echo 'test t{k} ... ok'\n"));
    }
    match fail {
        Some(f) => s.push_str(&format!(
            "echo 'test {f} ... FAILED'\necho 'test result: FAILED. {n} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s'\nexit 101\n"
        )),
        None => s.push_str(&format!(
            "echo 'test result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s'\n"
        )),
    }
    s
}

#[test]
fn all_runs_every_step_under_its_budget_and_summarises() {
    let root = tree("all");
    let bin = root.join(".gpu/bin");
    let sh = |body: &str| format!("#!/usr/bin/env bash\n{body}");
    // Carried without execute bits (mode 0644): the script must restore them.
    write(&root.join(".gpu/build"), "v0.1.0-7-gabcdef0-dirty\n", 0o644);
    write(&bin.join("stridekit_lib"), &sh(&libtest(5, None)), 0o644);
    write(
        &bin.join("gpu_kernels"),
        &sh(&format!(
            "case \"$*\" in\n*shared_memory*) {}\n;;\n*--exact*) {}\n;;\n*) {}\n;;\nesac\n",
            libtest(1, None),
            libtest(2, None),
            libtest(9, None)
        )),
        0o644,
    );
    write(
        &bin.join("gpu_launch_alloc"),
        &sh(&libtest(1, Some("running_a_plan_again_does_not_allocate"))),
        0o644,
    );
    write(&bin.join("gpu_elementwise"), &sh(&libtest(2, None)), 0o644);
    write(&bin.join("alloc_cuda"), &sh(&libtest(1, None)), 0o644);
    write(&bin.join("gpu_memory"), &sh(&libtest(1, None)), 0o644);
    write(&bin.join("ffi_copy"), &sh(&libtest(4, None)), 0o644);
    write(&bin.join("ffi_threads"), &sh(&libtest(1, None)), 0o644);
    write(&bin.join("explain_device"), &sh(&libtest(3, None)), 0o644);
    // explain prints the same on both devices; alloc replay records two addresses and
    // varies only in its speed; bench streams one record, then overruns the budget: it is
    // killed at its limit and the summary reads its stream.
    write(
        &bin.join("stridekit"),
        &sh(r#"case "$1" in
info) echo "stridekit 0.1.0 (build $STRIDEKIT_BUILD)";;
explain) echo '{"tensors": []}';;
alloc) while [[ $# -gt 0 ]]; do [[ "$1" == --record-addresses ]] && printf '0x1\n0x2\n' > "$2"; shift; done
       echo "[{\"stats\": {\"reserved_bytes.all.peak\": 2097152}, \"events_per_second\": $RANDOM}]";;
bench) while [[ $# -gt 0 ]]; do [[ "$1" == --records ]] && out=$2; shift; done
       echo '{"case": "memcpy_f32_1GiB", "pct_of_memcpy": 100.0, "verified": true}' > "$out"
       sleep 30;;
esac
"#),
        0o644,
    );
    // The machine's tools.
    let tools = root.join("tools");
    write(
        &tools.join("nvidia-smi"),
        &sh("echo 'name, uuid'\necho 'NVIDIA H200, GPU-1'\n"),
        0o755,
    );
    write(
        &tools.join("compute-sanitizer"),
        &sh(r#"tool=memcheck
while [[ "$1" == --* ]]; do [[ "$1" == --tool ]] && tool=$2; shift 2; done
"$@"; rc=$?
if [[ $tool == racecheck ]]; then echo '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)'
else echo '========= ERROR SUMMARY: 2 errors'; exit 99; fi
exit $rc
"#),
        0o755,
    );
    let t0 = std::time::Instant::now();
    let o = gpu_check(&root, &["all", "--budget", "6"], Some(&tools));
    let took = t0.elapsed().as_secs_f64();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(took < 25.0, "the budget bounds the run: {took} s\n{t}");
    let out = root.join("out");
    // Every log is headed by the build label; the binaries became executable.
    let head = std::fs::read_to_string(out.join("gpu-check-all.log")).unwrap();
    assert!(
        head.starts_with("gpu-check all  build v0.1.0-7-gabcdef0-dirty"),
        "{head}"
    );
    for log in std::fs::read_dir(out.join("logs")).unwrap() {
        let p = log.unwrap().path();
        let s = std::fs::read_to_string(&p).unwrap();
        assert!(
            s.starts_with("build v0.1.0-7-gabcdef0-dirty") || s.starts_with("not run"),
            "{}: {s}",
            p.display()
        );
    }
    let info = std::fs::read_to_string(out.join("logs/info.log")).unwrap();
    assert!(info.contains("(build v0.1.0-7-gabcdef0-dirty)"), "{info}");
    let mode = std::fs::metadata(bin.join("gpu_kernels"))
        .unwrap()
        .permissions()
        .mode();
    assert!(mode & 0o100 != 0, "execute bit restored");
    // The summary: per step, then the totals, last.
    let row = |step: &str| -> Vec<String> {
        t.lines()
            .find(|l| l.starts_with(&format!("{step} ")))
            .unwrap_or_else(|| panic!("no row for {step}:\n{t}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("unit-tests")[1..2], ["ok"]);
    assert_eq!(row("unit-tests")[3..], ["5", "0", "-"]);
    // Memcheck found errors: the step fails and they are counted.
    assert_eq!(row("memcheck-kernels")[1..3], ["FAILED", "rc=99"]);
    assert_eq!(row("memcheck-kernels")[4..], ["9", "0", "2"]);
    assert_eq!(row("racecheck-tiles")[3..], ["1", "0", "0"]);
    assert_eq!(row("big-tensor")[3..], ["2", "0", "-"]);
    // Column 2 is the step's wall time in seconds: machine-dependent, not asserted.
    assert_eq!(row("elementwise")[1..2], ["ok"]);
    assert_eq!(row("elementwise")[3..], ["2", "0", "-"]);
    assert_eq!(row("memcheck-elementwise")[1..3], ["FAILED", "rc=99"]);
    assert_eq!(row("launch-alloc")[1..3], ["FAILED", "rc=101"]);
    assert_eq!(row("memcheck-alloc")[1..2], ["FAILED"]);
    assert_eq!(row("alloc-replay-cuda")[1], "ok");
    assert_eq!(row("explain-device")[1..2], ["ok"]);
    assert_eq!(row("explain-device")[3..], ["3", "0", "-"]);
    assert_eq!(row("explain-examples")[1], "ok");
    assert_eq!(row("bench-quick")[1], "TIMEOUT");
    assert_eq!(row("gpu-memory")[1], "ok");
    assert_eq!(row("memcheck-ffi")[4..], ["4", "0", "2"]);
    assert_eq!(row("ffi-threads-gpu")[1..2], ["ok"]);
    assert_eq!(row("ffi-threads-gpu")[3..], ["1", "0", "-"]);
    // The embedding surfaces run before the quick bench (this tree has none of their
    // scripts, so they fail); the steps after the quick bench's overrun are not run, the
    // explain parity over every golden program last.
    for surface in [
        "allocator-golden",
        "python-gpu",
        "torch-pluggable",
        "trace-cuda",
    ] {
        assert_eq!(row(surface)[1], "FAILED", "{surface}");
    }
    for later in [
        "model-calibration",
        "bench-gpu",
        "transfers",
        "report",
        "explain-parity",
    ] {
        assert_eq!(row(later)[1..3], ["not", "run"], "{later}");
    }
    let replay = std::fs::read_to_string(out.join("logs/alloc-replay-cuda.log")).unwrap();
    assert!(replay.contains("agree on every statistic"), "{replay}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let n = lines.len();
    assert_eq!(
        lines[n - 5..],
        [
            "tests: 32 passed, 1 failed (running_a_plan_again_does_not_allocate)",
            "sanitizer errors: 8 (reported by memcheck-kernels, racecheck-tiles, memcheck-elementwise, memcheck-alloc, memcheck-ffi)",
            "bench: 1/1 cases verified, worst % of memcpy - [bench-quick.jsonl (the run was cut short)]",
            "NVML fields present: power_w_mean 0/1, energy_j 0/1, sm_mhz_mean 0/1, mem_mhz_mean 0/1, throttle_reasons 0/1, ecc_uncorrected_before 0/1, pcie_link_gen 0/1, power_violation_ms_before 0/1",
            "gpu-check all: FAILED: memcheck-kernels, memcheck-elementwise, launch-alloc, memcheck-alloc, memcheck-ffi, allocator-golden, python-gpu, torch-pluggable, trace-cuda, bench-quick, model-calibration, bench-gpu, transfers, report, explain-parity",
        ]
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["passed"], false);
    assert_eq!(summary["tests_failed"], 1);
    let _ = std::fs::remove_dir_all(&root);
}

/// The summary over a quick bench that was killed: its stream is read, a cut last line
/// ignored; the worst case and the NVML fields are counted.
#[test]
fn summary_reads_a_cut_bench_stream() {
    let out = scratch("stream");
    std::fs::create_dir_all(out.join("logs")).unwrap();
    std::fs::write(
        out.join("steps.jsonl"),
        "{\"step\": \"unit-tests\", \"rc\": 0, \"seconds\": 3, \"limit\": 60, \"log\": \"logs/unit-tests.log\"}\n",
    )
    .unwrap();
    std::fs::write(
        out.join("logs/unit-tests.log"),
        "test result: ok. 116 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 6.64s\n",
    )
    .unwrap();
    let rec = |case: &str, pct: f64, power: &str| {
        format!(
            "{{\"case\": \"{case}\", \"pct_of_memcpy\": {pct}, \"verified\": true, \"power_w_mean\": {power}, \"energy_j\": 1.0, \"sm_mhz_mean\": 1980.0, \"mem_mhz_mean\": 3201.0, \"throttle_reasons\": []}}\n"
        )
    };
    let stream = rec("memcpy_f32_1GiB", 100.0, "400.0")
        + &rec("transpose2d_f32_16384x16384", 61.5, "null")
        + &rec("perm3d_201_f32_1024x1024x256", 83.25, "410.0")
        + "{\"case\": \"cut";
    std::fs::write(out.join("bench-quick.jsonl"), stream).unwrap();
    let o = Command::new("python3")
        .arg(repo().join("scripts/gpu_check_summary.py"))
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("tests: 116 passed, 0 failed\n"), "{t}");
    assert!(
        t.contains("sanitizer errors: 0 (reported by no step)"),
        "{t}"
    );
    assert!(
        t.contains("bench: 3/3 cases verified, worst % of memcpy 61.5% (transpose2d_f32_16384x16384) [bench-quick.jsonl (the run was cut short)]"),
        "{t}"
    );
    assert!(
        t.contains("NVML fields present: power_w_mean 2/3, energy_j 3/3, sm_mhz_mean 3/3, mem_mhz_mean 3/3, throttle_reasons 3/3, ecc_uncorrected_before 0/3, pcie_link_gen 0/3, power_violation_ms_before 0/3"),
        "{t}"
    );
    assert!(t.trim_end().ends_with("gpu-check all: PASSED"), "{t}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `bench` over stand-ins: PyTorch's side gets 40% of the budget and writes its stream;
/// when it left no torch.json (killed), stridekit's side takes the stream as its baseline,
/// with the rest of the budget, the same cases and the build label.
#[test]
fn bench_runs_both_sides_on_the_same_cases_within_the_budget() {
    let root = tree("bench");
    let sh = |body: &str| format!("#!/usr/bin/env bash\n{body}");
    write(&root.join(".gpu/build"), "v0.1.0-8-g1234567\n", 0o644);
    write(
        &root.join(".gpu/bin/stridekit"),
        &sh("echo \"stridekit $*\"\n"),
        0o644,
    );
    let tools = root.join("tools");
    // A PyTorch side that streams one record and is "killed" before writing torch.json.
    write(
        &tools.join("python3"),
        &sh(r#"echo "python3 $*"
while [[ $# -gt 0 ]]; do [[ "$1" == --records ]] && echo '{"case": "memcpy_f32_1GiB", "gbps": 1.0}' > "$2"; shift; done
exit 137
"#),
        0o755,
    );
    write(
        &tools.join("nvidia-smi"),
        &sh("echo 'NVIDIA H200'\n"),
        0o755,
    );
    let o = gpu_check(
        &root,
        &["bench", "--cases", "transpose2d", "--budget", "100"],
        Some(&tools),
    );
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let out = root.join("out");
    let py = t.lines().find(|l| l.starts_with("python3 ")).unwrap();
    for want in [
        "--cases transpose2d",
        "--variants eager",
        "--budget 40",
        "--build v0.1.0-8-g1234567",
        "--records",
    ] {
        assert!(py.contains(want), "{want}: {py}");
    }
    let sk = t
        .lines()
        .find(|l| l.starts_with("stridekit bench"))
        .unwrap();
    let stream = out.join("torch.jsonl");
    for want in [
        "--device 0 --cases transpose2d".to_string(),
        format!("--baseline {}", stream.display()),
        "--records".into(),
        "--json".into(),
    ] {
        assert!(sk.contains(&want), "{want}: {sk}");
    }
    let budget: u64 = sk
        .split("--budget ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (30..=85).contains(&budget),
        "the rest of the budget: {budget}"
    );
    // The model's predictions beside the measured run, on the same cases.
    let model = t
        .lines()
        .find(|l| l.starts_with("stridekit model"))
        .unwrap_or_else(|| panic!("no model step:\n{t}"));
    for want in [
        "--cases transpose2d --random 0".to_string(),
        format!("--measured {}", out.join("bench.json").display()),
        format!("--json {}", out.join("model.json").display()),
    ] {
        assert!(model.contains(&want), "{want}: {model}");
    }
    let log = std::fs::read_to_string(out.join("bench.log")).unwrap();
    assert!(
        log.starts_with("gpu-check bench  build v0.1.0-8-g1234567"),
        "{log}"
    );
    assert!(log.contains("== compare_torch: rc=137"), "{log}");
    // With PyTorch's figures from an earlier run, PyTorch is not run and stridekit's bench
    // gets the whole budget beside that file.
    let anchor = root.join("anchor.json");
    let o = gpu_check(
        &root,
        &[
            "bench",
            "--cases",
            "transpose2d",
            "--budget",
            "100",
            "--baseline",
            anchor.to_str().unwrap(),
        ],
        Some(&tools),
    );
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(!t.lines().any(|l| l.starts_with("python3 ")), "{t}");
    let sk = t
        .lines()
        .find(|l| l.starts_with("stridekit bench"))
        .unwrap();
    assert!(
        sk.contains(&format!("--baseline {}", anchor.display())),
        "{sk}"
    );
    assert!(sk.contains("--budget 85"), "{sk}");
    let _ = std::fs::remove_dir_all(&root);
}
