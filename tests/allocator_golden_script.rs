//! scripts/torch_allocator_golden.py without a GPU: program selection, its refusal without
//! torch or a GPU, and the comparison itself against recorded PyTorch figures on
//! `--device sim`. Skips where python3 is missing.

use std::process::{Command, Output};

mod common;
use common::stridekit_bin;

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/scripts/torch_allocator_golden.py"
);
const FIGURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/allocator/tv209_pytorch_figures.jsonl"
);

fn script(args: &[&str]) -> Option<Output> {
    match Command::new("python3").arg(SCRIPT).args(args).output() {
        Ok(o) => Some(o),
        Err(_) => {
            eprintln!("skipped: python3 not found");
            None
        }
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn selects_the_golden_programs_pytorch_ran_without_devices_or_errors() {
    let Some(o) = script(&["--list"]) else { return };
    assert!(o.status.success(), "{}", text(&o));
    let names = String::from_utf8(o.stdout).unwrap();
    let names: Vec<&str> = names.lines().collect();
    assert!(names.len() > 1000, "{}", names.len());
    assert!(names.contains(&"tv209_base_transpose_copy"));
    // A seed that names a device and one that fails are left out.
    let seeds = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/seeds.jsonl"
    ))
    .unwrap();
    for line in seeds.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = case["name"].as_str().unwrap();
        let program = case["program"].as_str().unwrap();
        if !case["expected"]["error"].is_null() || program.contains("device") {
            assert!(!names.contains(&name), "{name} selected");
        }
    }
    let Some(o) = script(&["--list", "--filter", "tv209_base", "--limit", "1"]) else {
        return;
    };
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "tv209_base_transpose_copy\n"
    );
}

#[test]
fn recorded_figures_compare_with_sim_and_a_wrong_one_fails() {
    let bin = stridekit_bin();
    let bin = bin.to_str().unwrap();
    let Some(o) = script(&[
        "--torch-figures",
        FIGURES,
        "--device",
        "sim",
        "--stridekit",
        bin,
    ]) else {
        return;
    };
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("1 programs on --device sim, 1 match PyTorch's"),
        "{}",
        text(&o)
    );
    let wrong = std::env::temp_dir().join(format!("sk-alloc-golden-{}.jsonl", std::process::id()));
    std::fs::write(
        &wrong,
        std::fs::read_to_string(FIGURES)
            .unwrap()
            .replace("[512, 512, 1024]", "[512, 1024, 1024]"),
    )
    .unwrap();
    let out_json = wrong.with_extension("json");
    let o = script(&[
        "--torch-figures",
        wrong.to_str().unwrap(),
        "--device",
        "sim",
        "--stridekit",
        bin,
        "--json",
        out_json.to_str().unwrap(),
    ])
    .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("allocated after statement 1: PyTorch 1024, stridekit 512"),
        "{}",
        text(&o)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_json).unwrap()).unwrap();
    assert_eq!(summary["differ"][0]["name"], "tv209_base_transpose_copy");
    let _ = std::fs::remove_file(wrong);
    let _ = std::fs::remove_file(out_json);
}

#[test]
fn refuses_without_a_gpu_and_bad_arguments() {
    let Some(o) = script(&["--limit", "0"]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--limit must be at least 1"),
        "{}",
        text(&o)
    );
    let o = script(&["--device", "tpu"]).unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    if stridekit::backend::cuda::device_count().unwrap_or(0) == 0 {
        // No torch, or torch without a GPU: one line, exit 2.
        let o = script(&["--limit", "1"]).unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let t = text(&o);
        assert!(
            t.contains("torch is not installed") || t.contains("no GPU"),
            "{t}"
        );
    }
}
