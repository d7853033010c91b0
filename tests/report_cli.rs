//! `stridekit report` end to end: a synthetic fleet with planted problems (committed in
//! tests/data/fleet/, made by `fleet_files` in tests/report_cli/fleet.rs; the test fails if
//! they drift), records from real `bench --device cpu` runs, acceptance verdicts and exit
//! statuses, and errors that name the file and the field. The helpers that run the CLI and
//! read its JSON are here; the tests are grouped by topic in tests/report_cli/.

#[path = "report_cli/cpu_runs.rs"]
mod cpu_runs;
#[path = "report_cli/errors.rs"]
mod errors;
#[path = "report_cli/fleet.rs"]
mod fleet;
#[path = "report_cli/verdicts.rs"]
mod verdicts;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

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
