//! Records from real runs on this host: `bench --device cpu` twice and the report with a CPU
//! acceptance rule, and the sbatch example end to end with a stand-in `srun`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{report_json, tmp};

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
