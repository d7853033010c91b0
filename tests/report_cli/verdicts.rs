//! What the report makes of the synthetic fleet: exactly the planted problems flagged, the
//! limit and fleet-size rules, the table, markdown, CSV and plot outputs, and acceptance
//! verdicts (a planted rule file and examples/accept/h200.toml).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::fleet::plants;
use super::{data, flag_kinds, fleet_glob, label, reasons, report_json, stridekit, tmp};

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
