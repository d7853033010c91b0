//! `stridekit explain --device`: the same report on every device; without a GPU, a request
//! for one is refused in one line before anything runs.

use std::process::Command;

fn explain(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stridekit"))
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
        assert_eq!(gpu.stdout, cpu.stdout);
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
    let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .arg("info")
        .output()
        .unwrap();
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
