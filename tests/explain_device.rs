//! `stridekit explain --device`: the same report on every device; without a GPU, a request
//! for one is refused in one line before anything runs.

use std::process::Command;

mod common;
use common::stridekit_bin;

fn explain(args: &[&str]) -> std::process::Output {
    Command::new(stridekit_bin())
        .arg("explain")
        .args(args)
        .output()
        .unwrap()
}

const PROGRAM: &str = "x = torch.arange(12.).view(3, 4)\ny = x.t().contiguous()\nx[0] = 7\n";

#[test]
fn cpu_device_is_the_default() {
    let a = explain(&["--json", "-e", PROGRAM]);
    let b = explain(&["--json", "--device", "cpu", "-e", PROGRAM]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn cuda_device_matches_cpu_or_is_refused_in_one_line() {
    let cpu = explain(&["--json", "-e", PROGRAM]);
    let gpu = explain(&["--json", "--device", "cuda", "-e", PROGRAM]);
    if stridekit::backend::cuda::device_count().unwrap_or(0) > 0 {
        assert!(gpu.status.success());
        let gpu: serde_json::Value = serde_json::from_slice(&gpu.stdout).unwrap();
        let cpu: serde_json::Value = serde_json::from_slice(&cpu.stdout).unwrap();
        assert!(gpu["allocator"].is_object(), "{gpu}");
        assert_eq!(without_allocator(gpu), without_allocator(cpu));
    } else {
        assert_eq!(gpu.status.code(), Some(2));
        assert!(gpu.stdout.is_empty());
        let err = String::from_utf8(gpu.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("stridekit explain: --device cuda:0: "),
            "{err}"
        );
    }
}

#[test]
fn unknown_device_is_a_usage_error() {
    let out = explain(&["--device", "tpu", "-e", "x = 1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("unknown device 'tpu'"), "{err}");
}

#[test]
fn info_names_the_kernel_image_and_backends() {
    let out = Command::new(stridekit_bin()).arg("info").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("kernel image: "), "{text}");
    assert!(text.contains("backend cpu: "), "{text}");
    assert!(text.contains("backend cuda: "), "{text}");
}

#[test]
fn programs_may_name_their_devices() {
    let program = "x = torch.ones(2, 3, device='cuda')\ny = x.t().contiguous().cpu()\n";
    let report = stridekit::explain::run_to_json(program);
    if stridekit::backend::cuda::device_count().unwrap_or(0) > 0 {
        assert!(report["error"].is_null(), "{report}");
        assert_eq!(report["tensors"][1]["values"].as_array().unwrap().len(), 6);
    } else {
        // Without a GPU: a typed device error at the first statement that needs one.
        assert_eq!(report["error"]["kind"], "device", "{report}");
        assert_eq!(report["error"]["statement"], 0);
        assert!(report["tensors"].as_array().unwrap().is_empty());
    }
}

/// Issue 10's ops on a GPU (arithmetic with broadcasting and promotion, comparisons, where,
/// in-place ops with tensor operands, advanced indexing read and write, repeat, cat, flip,
/// roll, reductions, an order-dependent overlap, *_like): the report must be the CPU's.
/// Skips without a GPU; with STRIDEKIT_REQUIRE_GPU=1 (scripts/gpu-check) no GPU is a failure.
#[test]
fn issue_10_ops_on_cuda_match_cpu() {
    const OPS: &str = "x = torch.arange(24.).view(2, 3, 4).permute(2, 0, 1)\n\
        cl = torch.arange(24.).view(1, 2, 3, 4).contiguous(memory_format=torch.channels_last)\n\
        a = x + torch.arange(3.)\nb = cl * 2\nc = (x > 5) & (x < 20)\nd = torch.where(c, x, -1.)\n\
        i = torch.arange(6, dtype=torch.int8).view(2, 3) + 1000\n\
        x[0].add_(torch.ones(3))\ne = x[[0, 2]]\nf = x[x > 10]\nx[[1, 3]] = 5.\n\
        g = x.repeat(1, 2, 1)\nh = torch.cat([x, x], 1)\nk = x.flip(0)\nm = x.roll(1, 2)\n\
        s = x.sum(1)\nn = x.amax((0, 2), keepdim=True)\nz = torch.zeros_like(cl)\n\
        w = torch.arange(10.)\nw.as_strided((4, 4), (2, 1)).mul_(2)\n\
        assert torch.equal(a, a) and b.stride() == cl.stride()\nprint(s)\n";
    if !gpu_or_skip() {
        return;
    }
    let cpu = stridekit::explain::run_to_json(OPS);
    assert!(cpu["error"].is_null(), "{}", cpu["error"]);
    let gpu = stridekit::explain::run_on(OPS, stridekit::Device::Cuda(0)).to_json();
    // Arithmetic, comparisons, where, in-place ops, copies, repeat, cat, flip and roll run
    // on the GPU; advanced indexing (e, f, the write), the reductions (s, n) and the
    // overlapping window write say they ran on the host. The CPU run has none.
    assert_eq!(
        host_fallbacks(&gpu),
        vec![8, 9, 10, 15, 16, 19],
        "{}",
        gpu["warnings"]
    );
    assert!(host_fallbacks(&cpu).is_empty());
    // `print(s)` of a CUDA tensor ends in `device='cuda:0'`, as PyTorch's does (seen on an
    // H200, 2026-12-04); everything else printed is the CPU's.
    let (mut gpu, mut cpu) = (without_allocator(gpu), without_allocator(cpu));
    let cpu_text = cpu["output"].as_str().unwrap().to_string();
    let body = cpu_text
        .strip_suffix(")\n")
        .expect("print(s) ends a tensor's repr");
    assert_eq!(gpu["output"], format!("{body}, device='cuda:0')\n"));
    for r in [&mut gpu, &mut cpu] {
        r["output"] = serde_json::Value::Null;
    }
    assert_eq!(gpu, cpu);
}

/// The storage document's fences (blocks, functions, try/except, a torch.Generator) on a GPU:
/// the report must be the CPU's, and the allocator's figures after every step (loop
/// iterations included) those of `--device sim`. Skips without a GPU; with
/// STRIDEKIT_REQUIRE_GPU=1 no GPU is a failure.
#[test]
fn fences_with_blocks_on_cuda_match_cpu_and_sim() {
    if !gpu_or_skip() {
        return;
    }
    for n in [1, 2, 4, 5] {
        let path = format!(
            "{}/tests/data/explain_fences/fence{n}.py",
            env!("CARGO_MANIFEST_DIR")
        );
        let program = std::fs::read_to_string(&path).unwrap();
        let cpu = stridekit::explain::run_to_json(&program);
        assert!(cpu["error"].is_null(), "fence {n}: {}", cpu["error"]);
        let gpu = stridekit::explain::run_on(&program, stridekit::Device::Cuda(0)).to_json();
        let sim = stridekit::explain::run_with(&program, stridekit::explain::Target::Sim, false)
            .to_json();
        let figures = |r: &serde_json::Value| -> Vec<serde_json::Value> {
            r["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["allocator"]["allocated_bytes.all.current"].clone())
                .collect()
        };
        assert_eq!(figures(&gpu), figures(&sim), "fence {n}");
        assert_eq!(without_allocator(gpu), without_allocator(cpu), "fence {n}");
    }
}

/// The report without the allocator's figures (null on the CPU, the GPU's on cuda) and
/// without the `host_fallback` warnings (only a GPU run has work that falls back to the
/// host).
fn without_allocator(mut r: serde_json::Value) -> serde_json::Value {
    r.as_object_mut().unwrap().remove("allocator");
    for s in r["steps"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("allocator");
    }
    r["warnings"]
        .as_array_mut()
        .unwrap()
        .retain(|w| w["kind"] != "host_fallback");
    r
}

/// The statements of `report` with a `host_fallback` warning.
fn host_fallbacks(report: &serde_json::Value) -> Vec<u64> {
    report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "host_fallback")
        .map(|w| w["statement"].as_u64().unwrap())
        .collect()
}

/// `--device cuda` reports the GPU's caching allocator: for TV-209 PyTorch's figures (two
/// 512-byte blocks in one 2 MiB segment), the same as `--device sim` after every statement.
/// Skips without a GPU; fails under STRIDEKIT_REQUIRE_GPU=1 without one.
#[test]
fn cuda_reports_the_gpu_allocator_as_sim_does() {
    if !gpu_or_skip() {
        return;
    }
    let program =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tv209.py")).unwrap();
    let gpu = stridekit::explain::run_on(&program, stridekit::Device::Cuda(0)).to_json();
    let sim =
        stridekit::explain::run_with(&program, stridekit::explain::Target::Sim, false).to_json();
    assert!(gpu["error"].is_null(), "{}", gpu["error"]);
    let current = |r: &serde_json::Value, key: &str| -> Vec<i64> {
        r["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["allocator"][key].as_i64().unwrap())
            .collect()
    };
    for key in ["allocated_bytes.all.current", "reserved_bytes.all.current"] {
        assert_eq!(current(&gpu, key), current(&sim, key), "{key}");
    }
    assert_eq!(
        current(&gpu, "allocated_bytes.all.current"),
        [512, 512, 1024]
    );
    assert_eq!(gpu["allocator"]["reserved_bytes.all.current"], 2 << 20);
    // A fresh run starts from the released cache: the same figures again.
    let again = stridekit::explain::run_on(&program, stridekit::Device::Cuda(0)).to_json();
    assert_eq!(
        current(&again, "reserved_bytes.all.current"),
        current(&gpu, "reserved_bytes.all.current")
    );
}

/// Whether a GPU is there; without one, the test skips (a failure under
/// STRIDEKIT_REQUIRE_GPU=1, as scripts/gpu-check runs it).
fn gpu_or_skip() -> bool {
    if stridekit::backend::cuda::device_count().unwrap_or(0) > 0 {
        return true;
    }
    assert!(
        std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_none_or(|v| v != "1"),
        "STRIDEKIT_REQUIRE_GPU=1 but there is no GPU"
    );
    eprintln!("skipped: no GPU");
    false
}
