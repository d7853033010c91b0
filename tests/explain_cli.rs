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
    assert_eq!(r["peak"]["line"], 2);
    assert_eq!(r["peak"]["unique_storage_bytes"], 96);
    assert_eq!(r["steps"][1]["live_tensors"], 2);
    assert_eq!(r["steps"][1]["live_storages"], 2);
    let (_, text) = explain(&["-e", program]);
    assert!(
        text.contains("peak: 96 unique storage bytes after statement 1 (line 2) `c = base.t().contiguous()`, in 2 storage(s):"),
        "{text}"
    );
    assert!(text.contains("48 bytes  tensors: base"), "{text}");
}

#[test]
fn order_dependent_overlaps_run_with_a_warning_or_are_refused_when_strict() {
    // The seeds' as_strided window: PyTorch lets w.mul_(2) through and doubles elements 2-7
    // twice; explain runs it in PyTorch's order and says so.
    let program = "a = torch.arange(10.)\nw = a.as_strided((4, 4), (2, 1))\nw.mul_(2)\n";
    let (rc, r) = explain_json(program);
    assert_eq!(rc, 0);
    let values: Vec<f64> = r["tensors"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(values, [0., 2., 8., 12., 16., 20., 24., 28., 16., 18.]);
    assert_eq!(r["warnings"][0]["statement"], 2);
    assert_eq!(r["warnings"][0]["kind"], "order_dependent_overlap");
    let (_, text) = explain(&["-e", program]);
    assert!(
        text.contains("warning in statement 2 (line 3) `w.mul_(2)` (order_dependent_overlap)"),
        "{text}"
    );
    let (rc, out) = explain(&["--json", "--strict-overlap", "-e", program]);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rc, 1);
    assert_eq!(r["error"]["kind"], "internal_overlap");
    assert_eq!(r["warnings"].as_array().unwrap().len(), 0);
    // What PyTorch itself refuses stays refused without the flag.
    let (rc, r) = explain_json("e = torch.zeros(3).expand(2, 3)\ne.add_(1)");
    assert_eq!(rc, 1);
    assert_eq!(r["error"]["kind"], "internal_overlap");
}

#[test]
fn asserts_prints_and_autograd() {
    let (rc, r) = explain_json(
        "x = torch.zeros(2)\nprint(x.shape, x.dtype)\nassert x.shape == (3,), 'wrong shape'",
    );
    assert_eq!(rc, 1);
    assert_eq!(r["output"], "torch.Size([2]) torch.float32\n");
    assert_eq!(r["error"]["kind"], "assertion_failed");
    assert_eq!(r["error"]["message"], "wrong shape");
    let (_, text) = explain(&["-e", "print('hello')\nx = torch.ones(1)"]);
    assert!(text.starts_with("output\n  hello\n"), "{text}");
    // autograd runs; an op it cannot differentiate is an `unsupported` stop
    let (rc, r) = explain_json(
        "w = torch.ones(3, requires_grad=True)\nl = (w * w).sum()\nl.backward()\nprint(w.grad.tolist(), l.grad_fn.name())",
    );
    assert_eq!(rc, 0, "{r}");
    assert_eq!(r["output"], "[2.0, 2.0, 2.0] SumBackward0\n");
    let (rc, r) = explain_json("x = torch.ones(3)\nx.sum().backward()");
    assert_eq!(rc, 1);
    assert_eq!(
        r["error"]["message"],
        "element 0 of tensors does not require grad and does not have a grad_fn"
    );
    let (rc, r) = explain_json("w = torch.ones(3, requires_grad=True)\nc = torch.cat([w, w])");
    assert_eq!(rc, 1);
    assert_eq!(r["error"]["kind"], "unsupported");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no derivative for"),
        "{r}"
    );
}

#[test]
fn random_constructors_are_seeded_and_say_their_values_are_not_pytorchs() {
    let program = "torch.manual_seed(3)\nx = torch.randn(2, 3)\ny = torch.randint(0, 5, (4,), dtype=torch.int32)\nz = torch.rand(2)";
    let (rc, a) = explain_json(program);
    let (_, b) = explain_json(program);
    assert_eq!(rc, 0);
    assert_eq!(a["tensors"], b["tensors"], "same seed, same values");
    assert_eq!(a["tensors"][0]["strides"], serde_json::json!([3, 1]));
    assert_eq!(a["tensors"][1]["dtype"], "int32");
    let kinds: Vec<&str> = a["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["random_values"; 3]);
    for v in a["tensors"][1]["values"].as_array().unwrap() {
        assert!((0..5).contains(&v.as_i64().unwrap()));
    }
}
