//! scripts/torch_allocator_golden.py without a GPU: program selection, its refusal without
//! torch or a GPU, and the comparison itself against recorded PyTorch figures on
//! `--device sim` (TV-209's, and the H200's for 227 golden programs). Skips where python3 is
//! missing.

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
const H200_FIGURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/allocator/h200_pytorch_figures.jsonl"
);
const KNOWN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/allocator/known_differences.txt"
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

/// PyTorch's figures recorded on an H200 (tests/data/allocator/README.md) for every golden
/// program the script selects, against `--device sim`: the programs that differ are exactly
/// those of tests/data/allocator/known_differences.txt (each with its reason there), so a new
/// difference, or a known one that goes away, fails here.
#[test]
fn h200_figures_differ_from_sim_only_where_known() {
    let bin = stridekit_bin();
    let out_json =
        std::env::temp_dir().join(format!("sk-alloc-golden-h200-{}.json", std::process::id()));
    let run = |known: &str| {
        script(&[
            "--torch-figures",
            H200_FIGURES,
            "--device",
            "sim",
            "--stridekit",
            bin.to_str().unwrap(),
            "--known",
            known,
            "--json",
            out_json.to_str().unwrap(),
        ])
    };
    let Some(o) = run(KNOWN) else { return };
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("227 programs on --device sim, 226 match PyTorch's"),
        "{t}"
    );
    assert!(
        t.contains("1 known difference(s); not known: none; known but now matching: none"),
        "{t}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_json).unwrap()).unwrap();
    let known: Vec<String> = std::fs::read_to_string(KNOWN)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let mut differ: Vec<String> = summary["differ"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    differ.sort_unstable();
    assert_eq!(differ, known, "{t}");
    // Without the list the difference fails the run; a listed program that matches does too.
    let list = std::env::temp_dir().join(format!("sk-known-{}.txt", std::process::id()));
    std::fs::write(&list, "# nothing known\n").unwrap();
    let o = run(list.to_str().unwrap()).unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("not known: ag_integer_requires_grad_errors;"),
        "{}",
        text(&o)
    );
    std::fs::write(
        &list,
        "ag_integer_requires_grad_errors\ntv209_base_transpose_copy\n",
    )
    .unwrap();
    let o = run(list.to_str().unwrap()).unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("known but now matching: tv209_base_transpose_copy"),
        "{}",
        text(&o)
    );
    let _ = std::fs::remove_file(list);
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
