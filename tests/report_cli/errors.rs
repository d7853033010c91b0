//! Unreadable inputs: exit status 2 and one line naming the file and the field.

use serde_json::Value;

use super::{data, stridekit, tmp};

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
