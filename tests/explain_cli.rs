//! `stridekit explain` as a user runs it: exit codes, the JSON error kinds and the text
//! report's lines for what a program prints and where its storage peaked.

use serde_json::Value;
use std::process::Command;

fn explain(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .arg("explain")
        .args(args)
        .output()
        .expect("run stridekit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn explain_json(code: &str) -> (i32, Value) {
    let (rc, out) = explain(&["--json", "-e", code]);
    (rc, serde_json::from_str(&out).expect("JSON report"))
}

#[test]
fn an_allocation_that_cannot_succeed_is_out_of_memory_not_an_abort() {
    let (rc, r) = explain_json("x = torch.ones(3)\ny = torch.zeros(2**40)\nz = torch.ones(1)");
    assert_eq!(rc, 1);
    assert_eq!(r["error"]["kind"], "out_of_memory");
    assert_eq!(r["error"]["statement"], 1);
    assert_eq!(
        r["error"]["message"],
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)"
    );
    // What ran before stays in the report.
    assert_eq!(r["tensors"][0]["name"], "x");
    assert_eq!(r["steps"].as_array().unwrap().len(), 1);
    let (rc, r) = explain_json("a = torch.arange(142949672962.)");
    assert_eq!(rc, 1);
    assert_eq!(r["error"]["kind"], "out_of_memory");
}

#[test]
fn steps_follow_every_statement_and_the_text_names_the_peak() {
    let program = "base = torch.arange(12.).view(4, 3)\nc = base.t().contiguous()\ndel base\n";
    let (rc, r) = explain_json(program);
    assert_eq!(rc, 0);
    let unique: Vec<u64> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["unique_storage_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(unique, [48, 96, 48]);
    assert_eq!(r["peak"]["statement"], 1);
    assert_eq!(r["peak"]["unique_storage_bytes"], 96);
    assert_eq!(r["steps"][1]["live_tensors"], 2);
    assert_eq!(r["steps"][1]["live_storages"], 2);
    let (_, text) = explain(&["-e", program]);
    assert!(
        text.contains("peak: 96 unique storage bytes after statement 1 `c = base.t().contiguous()`, in 2 storage(s):"),
        "{text}"
    );
    assert!(text.contains("48 bytes  tensors: base"), "{text}");
}
