//! `stridekit bench` on a GPU: health counters in every record (each null one named in
//! health_note with its reason), the transfers suite (pinned and pageable host copies both
//! ways, device to device when two GPUs run; verified; GB/s of the bytes copied), and the
//! report over the result. Without a GPU the tests print why they were skipped; with
//! STRIDEKIT_REQUIRE_GPU=1 (scripts/gpu-check) a missing GPU fails them.

use std::process::Command;

mod common;
use common::stridekit_bin;

use serde_json::Value;
use stridekit::bench::health::HEALTH_FIELDS;

/// The number of GPUs, or None after printing why the test is skipped.
fn gpus(test: &str) -> Option<usize> {
    let why = match stridekit::backend::cuda::device_count() {
        Ok(0) => "the CUDA driver sees no device".to_string(),
        Ok(n) => return Some(n),
        Err(e) => e.to_string(),
    };
    if std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1") {
        panic!("{test}: STRIDEKIT_REQUIRE_GPU=1 but {why}");
    }
    eprintln!("{test}: skipped: {why}");
    None
}

fn run(args: &[&str]) -> std::process::Output {
    let out = Command::new(stridekit_bin())
        .args(args)
        .output()
        .expect("run stridekit");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("stridekit-bench-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn health_counters_and_transfers_on_the_gpu() {
    let Some(n) = gpus("health_counters_and_transfers_on_the_gpu") else {
        return;
    };
    let json = tmp("all.json");
    let device = if n >= 2 { "all" } else { "0" };
    let out = run(&[
        "bench",
        "--suite",
        "all",
        "--device",
        device,
        "--quick",
        "--time-limit",
        "0.3",
        "--cases",
        "transpose2d_f32_16384|_4KiB|_4MiB",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["header"]["suite"], "all");
    let records = report["records"].as_array().unwrap();
    let nvml = report["header"]["devices"][0]["telemetry"] == "available";
    for r in records {
        let name = r["case"].as_str().unwrap();
        assert_eq!(r["verified"], true, "{name}");
        let note = r["health_note"].as_str().unwrap_or("");
        for f in &HEALTH_FIELDS[..HEALTH_FIELDS.len() - 1] {
            assert!(r.get(*f).is_some(), "{name}: {f} missing");
            if r[*f].is_null() {
                assert!(
                    note.contains(f),
                    "{name}: {f} is null and the note does not say why: {note}"
                );
            }
        }
        if nvml {
            for f in [
                "pcie_link_gen",
                "pcie_link_gen_max",
                "pcie_link_width",
                "pcie_link_width_max",
            ] {
                assert!(r[f].is_u64(), "{name}: {f} = {} ({note})", r[f]);
            }
        }
    }
    let transfers: Vec<&Value> = records
        .iter()
        .filter(|r| r["suite"] == "transfers")
        .collect();
    let names: Vec<&str> = transfers
        .iter()
        .map(|r| r["case"].as_str().unwrap())
        .collect();
    for want in [
        "h2d_pinned_4MiB",
        "d2h_pinned_4MiB",
        "h2d_pageable_4KiB",
        "d2h_pageable_4MiB",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert_eq!(
        names.iter().any(|c| c.starts_with("d2d_next_")),
        n >= 2,
        "{names:?}"
    );
    for r in &transfers {
        let bytes = r["bytes_written"].as_f64().unwrap();
        let ms = r["ms_median"].as_f64().unwrap();
        let gbps = r["gbps"].as_f64().unwrap();
        assert!(
            (gbps / (bytes / (ms * 1e-3) / 1e9) - 1.0).abs() < 1e-9,
            "one direction's bytes"
        );
        assert!(r["pct_of_memcpy"].is_null() && r["pct_of_peak"].is_null());
    }
    let h2d = transfers
        .iter()
        .find(|r| r["case"] == "h2d_pinned_4MiB")
        .unwrap();
    eprintln!(
        "h2d_pinned_4MiB: {} GB/s; link gen {} of {}, x{} of x{}; note: {}",
        h2d["gbps"],
        h2d["pcie_link_gen"],
        h2d["pcie_link_gen_max"],
        h2d["pcie_link_width"],
        h2d["pcie_link_width_max"],
        h2d["health_note"]
    );
    // The report reads it: one row per GPU, with the transfers and the health deltas.
    let out = run(&["report", json.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["gpus"].as_array().unwrap();
    assert_eq!(rows.len(), if n >= 2 { n } else { 1 });
    assert!(rows[0]["h2d_gbps"].as_f64().unwrap() > 0.0);
    eprintln!("report row: {}", rows[0]);
}
