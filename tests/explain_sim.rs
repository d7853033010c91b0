//! `explain --device sim`: a simulated cuda:0 on any machine whose storages take blocks of
//! PyTorch's caching allocator; `allocator` in the JSON at the end and in every step.

use std::process::Command;

use serde_json::Value;

mod common;
use common::stridekit_bin;

const KEYS: [&str; 7] = [
    "allocated_bytes.all.current",
    "reserved_bytes.all.current",
    "active_bytes.all.current",
    "inactive_split_bytes.all.current",
    "segment.all.current",
    "allocated_bytes.all.peak",
    "reserved_bytes.all.peak",
];

fn sim(program: &str) -> Value {
    stridekit::explain::run_with(program, stridekit::explain::Target::Sim, false).to_json()
}

/// `key` after each statement.
fn per_step(report: &Value, key: &str) -> Vec<i64> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["allocator"][key].as_i64().unwrap())
        .collect()
}

fn allocated(report: &Value) -> Vec<i64> {
    per_step(report, "allocated_bytes.all.current")
}

fn peaks(report: &Value) -> Vec<i64> {
    per_step(report, "allocated_bytes.all.peak")
}

const MIB2: i64 = 2 << 20;

#[test]
fn tv209_on_sim_is_pytorchs_1024_allocated_in_2_mib_reserved() {
    let out = Command::new(stridekit_bin())
        .args(["explain", "--device", "sim", "--json"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tv209.py"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["error"].is_null(), "{}", r["error"]);
    let end = &r["allocator"];
    assert_eq!(end["allocated_bytes.all.current"], 1024);
    assert_eq!(end["reserved_bytes.all.current"], 2097152);
    assert_eq!(end["segment.all.current"], 1);
    assert_eq!(end["inactive_split_bytes.all.current"], 2097152 - 1024);
    assert_eq!(allocated(&r), [512, 512, 1024]);
    assert_eq!(per_step(&r, "reserved_bytes.all.current"), [MIB2; 3]);
    // The storage side is the CPU's: 96 bytes of storage.
    assert_eq!(r["totals"]["unique_storage_bytes"], 96);
    // `allocator` is the report's last key; each entry has exactly PyTorch's seven keys.
    let text = String::from_utf8(out.stdout).unwrap();
    let tail = &text[text.rfind("\"allocator\":").unwrap()..];
    assert!(!tail.contains("\"error\""), "{tail}");
    for a in std::iter::once(end).chain(
        r["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &s["allocator"]),
    ) {
        let mut keys: Vec<&str> = a.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want = KEYS.to_vec();
        keys.sort();
        want.sort();
        assert_eq!(keys, want, "{a}");
    }
}

#[test]
fn cpu_reports_a_null_allocator_everywhere() {
    let r = stridekit::explain::run_to_json("x = torch.ones(3)\ny = x + 1\n");
    assert!(r["allocator"].is_null());
    for s in r["steps"].as_array().unwrap() {
        assert!(s["allocator"].is_null(), "{s}");
    }
}

#[test]
fn text_report_has_an_allocator_section_on_sim_only() {
    let run = |device: &str| {
        let out = Command::new(stridekit_bin())
            .args(["explain", "--device", device])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tv209.py"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("sim");
    assert!(text.contains("\nallocator: simulated cuda:0"), "{text}");
    assert!(
        text.contains("allocated 1024 bytes (peak 1024) in 1 segment(s), reserved 2097152 bytes"),
        "{text}"
    );
    assert!(text.contains("`c = t.contiguous()`"), "{text}");
    assert!(!run("cpu").contains("allocator"));
}

#[test]
fn an_elementwise_result_takes_exactly_one_block_and_its_staging_none() {
    // Operands through views and broadcasting are staged on the host: the peak never
    // exceeds what the names hold.
    let r = sim("x = torch.ones(100)\ny = torch.ones(4, 100).t()\na = x + y.t()\nb = y * 2\n");
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(allocated(&r), [512, 2560, 4608, 6656]);
    assert_eq!(peaks(&r), allocated(&r));
}

#[test]
fn op_results_take_one_block_and_in_place_ops_none() {
    // (statement, blocks its names keep, blocks PyTorch allocates and frees inside it
    // (masks, tensor operands), or None where PyTorch also allocates transients stridekit
    // does not model (the index tensor of `x[[0, 2]]` moved to the device)).
    let prefix = "x = torch.arange(24.).view(4, 6)\n";
    for (statement, kept, transient) in [
        ("r = x.sum(0)", 1, Some(0)),
        ("r = x[[0, 2]]", 1, None),
        ("r = torch.cat([x, x])", 1, Some(0)),
        ("r = x.repeat(2, 1)", 1, Some(0)),
        ("r = x.flip(0)", 1, Some(0)),
        ("r = x.roll(1, 0)", 1, Some(0)),
        ("r = x.roll(1)", 1, Some(0)),
        ("r = x.t().roll(1)", 1, Some(1)), // flatten of the transpose copies, as PyTorch's
        ("r = x.t().contiguous()", 1, Some(0)),
        ("r = x.t().reshape(24)", 1, Some(0)),
        ("r = x.to(torch.float64)", 1, Some(0)),
        (
            "r = torch.index_select(x, 1, torch.tensor([0, 2]))",
            1,
            Some(1),
        ),
        ("r = x.masked_fill(x > 3, 0.)", 1, Some(1)),
        ("x.add_(torch.ones(6))", 0, Some(1)),
        ("x.masked_fill_(x > 3, 0.)", 0, Some(1)),
        ("x.mul_(2)", 0, Some(0)),
        ("x[0] = 5", 0, Some(0)),
        ("x[:, 1] = torch.arange(4.)", 0, Some(1)),
        ("r = x.cpu()", 0, Some(0)),
        ("r = x.view(6, 4)", 0, Some(0)),
    ] {
        let r = sim(&format!("{prefix}{statement}\n"));
        assert!(r["error"].is_null(), "{statement}: {}", r["error"]);
        let a = allocated(&r);
        assert_eq!(a[1] - a[0], 512 * kept, "{statement}");
        if let Some(t) = transient {
            assert_eq!(
                peaks(&r)[1] - a[0],
                512 * (kept + t),
                "{statement}: a temporary of stridekit's went through the allocator"
            );
        }
    }
}

#[test]
fn results_live_on_the_simulated_device() {
    let r = sim(
        "x = torch.ones(2, 3)\nr = x.repeat(2, 1)\nf = x.flip(0)\nassert r.is_cuda and f.is_cuda and x.device.type == 'cuda'\nc = x.cpu()\nassert not c.is_cuda\n",
    );
    assert!(r["error"].is_null(), "{}", r["error"]);
}

#[test]
fn autograd_makes_every_tensor_on_the_inputs_device() {
    // the implicit gradient of backward(), the gradients the nodes compute from it (x * x
    // multiplies it with a device tensor) and the leaf's `.grad` all live on cuda:0
    let r = sim(
        "x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = (x * x).sum()\ny.backward()\ng = x.grad\nassert g.is_cuda and x.is_cuda\nprint(g.tolist())\nw = torch.ones(2, 3, requires_grad=True)\n((w * w).mean() + (w.exp() * w).sum()).backward()\nassert w.grad.device.type == 'cuda'\nv = torch.ones(3, requires_grad=True)\n(v * v).backward(torch.ones(3))\nassert v.grad.is_cuda\n",
    );
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(r["output"], "[2.0, 4.0, 6.0]\n");
    // backward leaves one more device block: x.grad's (the temporaries went back)
    let a = allocated(&r);
    assert_eq!(a[2] - a[1], 512, "{a:?}");
}

#[test]
fn a_storage_returns_its_block_when_its_last_tensor_goes() {
    let r = sim("x = torch.ones(1000)\nv = x[10:]\nx = torch.ones(10)\ndel v\ndel x\n");
    assert!(r["error"].is_null(), "{}", r["error"]);
    // 4000 bytes round to 4096; the view keeps the block alive after x is rebound.
    assert_eq!(allocated(&r), [4096, 4096, 4608, 512, 0]);
    assert_eq!(per_step(&r, "reserved_bytes.all.current"), [MIB2; 5]);
    assert_eq!(peaks(&r)[4], 4608);
}

#[test]
fn a_freed_block_is_reused_at_the_same_address() {
    let r = sim(
        "a = torch.ones(10)\np = a.data_ptr()\ndel a\nb = torch.ones(10)\nassert b.data_ptr() == p\n",
    );
    assert!(r["error"].is_null(), "{}", r["error"]);
}

#[test]
fn only_cuda_0_exists() {
    let r = sim("x = torch.ones(2, device='cuda:1')\n");
    assert_eq!(r["error"]["kind"], "device");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid device ordinal"),
        "{}",
        r["error"]
    );
}

#[test]
fn alloc_conf_applies_and_a_bad_one_is_refused() {
    let program = "x = torch.ones(3 * 1024 * 1024 + 1)\n";
    let run = |conf: &str| {
        Command::new(stridekit_bin())
            .args(["explain", "--device", "sim", "--json", "-e", program])
            .env("STRIDEKIT_ALLOC_CONF", conf)
            .output()
            .unwrap()
    };
    let nbytes = (3 * 1024 * 1024 + 1) * 4;
    let mut seen = Vec::new();
    for conf in ["", "roundup_power2_divisions:4"] {
        let out = run(conf);
        assert!(out.status.success(), "{out:?}");
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let cfg = stridekit::alloc::AllocConfig::parse(conf).unwrap();
        let want = stridekit::alloc::round_size(&cfg, nbytes) as i64;
        assert_eq!(allocated(&r), [want], "{conf}");
        seen.push(want);
    }
    assert_ne!(seen[0], seen[1], "the setting changes the block size");
    let bad = run("no_such_setting:1");
    assert_eq!(bad.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(r["error"]["kind"], "device");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("--device sim: "),
        "{}",
        r["error"]
    );
}

/// The report without the allocator's figures (and, where the program prints, without its
/// output, which names the device).
fn without_allocator(mut r: Value) -> Value {
    r.as_object_mut().unwrap().remove("allocator");
    for s in r["steps"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("allocator");
    }
    r.as_object_mut().unwrap().remove("output");
    // PyTorch's version-counter message names a CUDA tensor's legacy type as
    // `torch.cuda.FloatTensor` (the CPU's: `torch.FloatTensor`)
    if let Some(m) = r["error"]["message"].as_str() {
        r["error"]["message"] = Value::String(m.replace("[torch.cuda.", "[torch."));
    }
    r
}

/// Every golden program (seeds and random ones) gives the CPU's report on sim, and
/// everything the program holds at the end is accounted: allocated >= the storages' bytes.
#[test]
fn golden_programs_on_sim_match_the_cpu() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    let mut differ = Vec::new();
    let mut n = 0;
    for file in ["seeds.jsonl", "random.jsonl"] {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let case: Value = serde_json::from_str(line).unwrap();
            let program = case["program"].as_str().unwrap();
            if program.contains("device") || program.contains("data_ptr") {
                continue;
            }
            n += 1;
            let cpu = stridekit::explain::run_to_json(program);
            let on_sim = sim(program);
            let a = &on_sim["allocator"];
            let held: i64 = on_sim["storages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["nbytes"].as_i64().unwrap())
                .sum();
            assert!(
                a["allocated_bytes.all.current"].as_i64().unwrap() >= held,
                "{}: {a}",
                case["name"]
            );
            if without_allocator(cpu) != without_allocator(on_sim) {
                differ.push(case["name"].as_str().unwrap().to_string());
            }
        }
    }
    assert!(n > 1000, "{n} programs");
    assert!(differ.is_empty(), "{} differ: {differ:?}", differ.len());
}
