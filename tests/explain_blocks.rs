//! `explain` programs with blocks: the seed document's fences run unchanged, what a step is
//! in loops, where errors inside blocks and functions are reported, the exception classes
//! `except` catches, the interpreter's limits, and random block programs that never panic.

use proptest::prelude::*;
use serde_json::Value;

fn run(src: &str) -> Value {
    stridekit::explain::run_to_json(src)
}

fn fence(n: usize) -> String {
    let path = format!(
        "{}/tests/data/explain_fences/fence{n}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_storage_document_fences_run_unchanged() {
    let expected = [
        (
            1,
            "address formula matches indexing on 3 headers x 10 indices\n",
        ),
        (
            2,
            "views share storage; reshape after transpose copies; expand has stride 0\n",
        ),
        (
            3,
            "write-through, shared version counter, and autograd check behave as described\n",
        ),
        (4, "channels_last strides (60, 1, 15, 3)\n"),
        (5, "unfold windows (4, 4) stride (2, 1)\n"),
    ];
    for (n, output) in expected {
        let r = run(&fence(n));
        assert!(r["error"].is_null(), "fence {n}: {}", r["error"]);
        assert_eq!(r["output"], output, "fence {n}");
    }
    // Fence 1: the loop variable stays bound after the loop, as in Python, and every
    // iteration of the loop body is a step (3 tensors x 10 indices x 2 asserts + idx).
    let r = run(&fence(1));
    let names: Vec<&str> = r["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["flat", "x", "xt", "xs", "t"]);
    let body_steps = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| (17..=19).contains(&s["line"].as_u64().unwrap()))
        .count();
    assert_eq!(body_steps, 90);
    // Fence 2's expand(1000, 1000) is the peak: 4000 bytes of storage behind 4 MB of view.
    let r = run(&fence(2));
    assert_eq!(r["peak"]["line"], 22);
    // Fence 3 runs whole: at the end the graph behind y and z still holds y = w * 2's
    // wrapped number 2 (8 bytes only the graph reaches); z's saved y moved on in place and
    // can no longer be unpacked.
    let r = run(&fence(3));
    assert_eq!(
        r["autograd"]["saved_tensors"][0]["grad_fn"],
        "MulBackward0._saved_other"
    );
    assert_eq!(r["autograd"]["saved_tensors"].as_array().unwrap().len(), 1);
    assert_eq!(r["autograd"]["saved_storage_bytes"], 8);
    assert_eq!(r["autograd"]["graph_only_storage_bytes"], 8);
}

#[test]
fn errors_inside_blocks_and_functions_name_that_statement() {
    let r =
        run("def f(t):\n    a = t.t()\n    return a.view(-1)\n\nx = torch.zeros(2, 3)\ny = f(x)\n");
    assert_eq!(r["error"]["statement"], 2);
    assert_eq!(
        (r["error"]["line"].as_u64(), r["error"]["col"].as_u64()),
        (Some(3), Some(5))
    );
    assert_eq!(r["error"]["kind"], "view_incompatible");
    let r =
        run("x = torch.arange(6)\nfor i in range(3):\n    if i == 2:\n        y = x.view(4, 4)\n");
    assert_eq!(
        (r["error"]["line"].as_u64(), r["error"]["col"].as_u64()),
        (Some(4), Some(9))
    );
    // the text report says where
    let text = stridekit::explain::run("for i in range(2):\n    x = torch.zeros(2)[5]\n").to_text();
    assert!(
        text.contains("error in statement 0 (line 2, column 5) (index_out_of_range)"),
        "{text}"
    );
}

#[test]
fn except_catches_the_class_pytorch_raises() {
    let r = run("x = torch.zeros(2, 3)\n\
         for k in range(6):\n\
         \x20   try:\n\
         \x20       if k == 0:\n\
         \x20           x.transpose(0, 3)\n\
         \x20       elif k == 1:\n\
         \x20           x[:, ::-1]\n\
         \x20       elif k == 2:\n\
         \x20           x.t().view(-1)\n\
         \x20       elif k == 3:\n\
         \x20           undefined_name\n\
         \x20       elif k == 4:\n\
         \x20           torch.arange(5, dtype=torch.bool)\n\
         \x20       else:\n\
         \x20           torch.zeros('a')\n\
         \x20   except IndexError:\n\
         \x20       print('IndexError')\n\
         \x20   except ValueError:\n\
         \x20       print('ValueError')\n\
         \x20   except NotImplementedError:\n\
         \x20       print('NotImplementedError')\n\
         \x20   except RuntimeError:\n\
         \x20       print('RuntimeError')\n\
         \x20   except Exception as e:\n\
         \x20       print('Exception', e is not None)\n");
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(
        r["output"],
        "IndexError\nValueError\nRuntimeError\nException True\nNotImplementedError\nException True\n"
    );
    // `as e` is unbound after the handler, as in Python.
    let r = run("try:\n    raise ValueError('v')\nexcept ValueError as e:\n    pass\nprint(e)\n");
    assert_eq!(r["error"]["message"], "name 'e' is not defined");
    // An op explain cannot differentiate stays a stop, even under `except Exception`:
    // PyTorch would not have raised.
    let r = run(
        "w = torch.ones(2, requires_grad=True)\ntry:\n    c = torch.cat([w, w])\nexcept Exception:\n    pass\n",
    );
    assert_eq!(r["error"]["kind"], "unsupported");
}

#[test]
fn limits_are_typed_errors() {
    // Recursion deeper than explain's 48 calls is Python's RecursionError (catchable).
    let r = run("def f(n):\n    return f(n + 1)\n\nf(0)\n");
    assert_eq!(r["error"]["kind"], "other");
    assert_eq!(r["error"]["message"], "maximum recursion depth exceeded");
    assert_eq!(r["error"]["line"], 2);
    let r = run(
        "def f(n):\n    return f(n + 1)\n\ntry:\n    f(0)\nexcept RecursionError:\n    print('deep')\n",
    );
    assert_eq!(r["output"], "deep\n");
    // A loop that never ends stops, uncatchable (Python would have gone on).
    let r = run("n = 0\ntry:\n    while True:\n        pass\nexcept Exception:\n    pass\n");
    assert_eq!(r["error"]["kind"], "limit_exceeded");
    let r = run("x = [i for i in range(10**12)]\n");
    assert_eq!(r["error"]["kind"], "out_of_memory");
    // a deep recursion does not overflow the stack either
    let r = run("f = lambda n: f(n + 1)\nf(0)\n");
    assert_eq!(r["error"]["message"], "maximum recursion depth exceeded");
}

#[test]
fn steps_stay_bounded_in_long_loops() {
    let r = run("x = torch.zeros(3)\nfor i in range(250):\n    x.add_(1)\n    y = x[1:]\n");
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1 + 100 + 100);
    assert_eq!(r["steps_omitted"], 300);
    assert_eq!(steps[1]["line"], 3);
    assert_eq!(steps[1]["statement"], 1);
    // a warning repeated in a loop is listed once
    let r = run(
        "g = torch.Generator().manual_seed(1)\nfor i in range(5):\n    t = torch.rand(2, generator=g)\n",
    );
    assert_eq!(r["warnings"].as_array().unwrap().len(), 1);
    assert_eq!(r["warnings"][0]["line"], 3);
    // one raised by a block's header names the header's line
    let r = run("x = 1\nfor t in torch.rand(2, 2):\n    pass\n");
    assert_eq!(r["warnings"][0]["line"], 2);
}

/// Lines of random block programs: headers open blocks, `{p}` picks an indentation.
const LINES: &[&str] = &[
    "x = torch.arange(6.).view(2, 3)",
    "y = x.t()",
    "y.add_(1)",
    "z = x[{n}:]",
    "del y",
    "print(x.shape, sum(s for s in x.stride()))",
    "for i in range({n}):",
    "for r in x:",
    "for k, v in {'a': x, 'b': x.t()}.items():",
    "while x.sum() < {n}:",
    "if x.numel() > {n}:",
    "elif x.dim() == 2:",
    "else:",
    "try:",
    "except RuntimeError as e:",
    "except (IndexError, ValueError):",
    "finally:",
    "def f(t, k={n}):",
    "return t[k:]",
    "y = f(x)",
    "break",
    "continue",
    "pass",
    "raise ValueError('v')",
    "raise",
    "x.view(-1, 5)",
    "x = x.clone()",
    "assert x.shape == (2, 3), x.shape",
];

fn block_program() -> impl Strategy<Value = String> {
    let line = (
        0..LINES.len(),
        0usize..4,
        0i64..4,
        prop::bool::weighted(0.05),
    )
        .prop_map(|(l, depth, n, tab)| {
            let pad = if tab {
                "\t".repeat(depth)
            } else {
                "    ".repeat(depth)
            };
            format!("{pad}{}", LINES[l].replace("{n}", &n.to_string()))
        });
    prop::collection::vec(line, 1..14).prop_map(|lines| lines.join("\n") + "\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_block_programs_never_panic(src in block_program()) {
        let report = run(&src);
        let kind = report["error"]["kind"].as_str().unwrap_or("");
        prop_assert!(report["error"].is_null() || !kind.is_empty(), "{src}\n{report}");
        if !report["error"].is_null() {
            prop_assert!(report["error"]["line"].as_u64().is_some(), "{src}\n{report}");
        }
    }
}

/// The fenced block of `lang` that follows `marker` in docs/explain.md (the explain reference,
/// moved there from the README), unindented.
fn docs_block(marker: &str, lang: &str) -> String {
    let page = std::fs::read_to_string(format!("{}/docs/explain.md", env!("CARGO_MANIFEST_DIR")))
        .expect("docs/explain.md");
    let at = page.find(marker).expect("docs/explain.md example marker");
    let rest = &page[at..];
    let open = format!("```{lang}\n");
    let start = rest.find(&open).expect("opening fence") + open.len();
    let end = start + rest[start..].find("```").expect("closing fence");
    rest[start..end]
        .lines()
        .map(|l| l.strip_prefix("  ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn the_docs_blocks_example_runs_as_shown() {
    let marker = "a view made in a loop keeps the previous iteration's clone alive";
    let program = docs_block(marker, "python");
    let report = stridekit::explain::run(&program);
    assert!(report.error.is_none(), "{:?}", report.error);
    let text = report.to_text();
    for line in docs_block(marker, "text").lines() {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    let json = report.to_json();
    let steps: Vec<(u64, u64, u64)> = json["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["statement"].as_u64().unwrap(),
                s["line"].as_u64().unwrap(),
                s["unique_storage_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            (0, 1, 0),
            (1, 4, 4000),
            (2, 6, 8000),
            (2, 7, 8000),
            (2, 6, 12000),
            (2, 7, 8000),
            (2, 6, 12000),
            (2, 7, 8000),
            (3, 8, 4000),
            (4, 12, 4000)
        ]
    );
}

fn seed001(name: &str) -> String {
    let path = format!(
        "{}/tests/data/explain_fences/seed001_{name}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Seed 001's first program (section 23.1) and its linear layer moved to a device (section
/// 23.5) run unchanged to their last line: on the CPU the layer's output is [1, 2] on cpu;
/// with `--device sim`, `torch.cuda.is_available()` is true and everything is on cuda.
#[test]
fn seed001_programs_run_unchanged() {
    let r = run(&seed001("shapes"));
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(r["output"], "torch.Size([4, 8, 16])\ntorch.float32\ncpu\n");

    let src = seed001("linear_device");
    let r = run(&src);
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(r["output"], "cpu torch.Size([1, 2])\n");
    let logits = &r["tensors"][1];
    assert_eq!(logits["name"], "logits");
    assert_eq!(logits["shape"], serde_json::json!([1, 2]));
    // the weights are random (stridekit's generator), and the report says so
    assert!(
        r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "random_values")
    );
    // the output records the graph: the layer's parameters require grad
    assert_eq!(r["autograd"]["saved_tensors"].as_array().unwrap().len(), 1);

    let sim = stridekit::explain::run_with(&src, stridekit::explain::Target::Sim, false);
    let j = sim.to_json();
    assert!(j["error"].is_null(), "{}", j["error"]);
    assert!(j["output"].as_str().unwrap().starts_with("cuda"));
}
