//! `explain`'s autograd: gradients on real values, PyTorch's errors (version counter,
//! in-place on a leaf or a view of one, backward twice), `torch.no_grad()`, and what the
//! graph keeps alive (the report's `autograd` section, per step too). The golden files
//! (`ag_*` seeds and tests/golden/autograd.jsonl) compare the same against PyTorch 2.11.

use serde_json::{Value, json};

fn run(src: &str) -> Value {
    stridekit::explain::run_to_json(src)
}

fn ok(src: &str) -> Value {
    let r = run(src);
    assert!(r["error"].is_null(), "{}", r["error"]);
    r
}

const HINT: &str = " Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).";

#[test]
fn version_counter_errors_are_pytorchs() {
    let r = run(
        "w = torch.ones(3, requires_grad=True)\ny = w * 2\nz = y * y\ny.add_(1)\nz.sum().backward()\n",
    );
    assert_eq!(r["error"]["line"], 5);
    assert_eq!(
        r["error"]["message"].as_str().unwrap(),
        format!(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of AddBackward0, is at version 1; expected version 0 instead.{HINT}"
        )
    );
    // a saved output names its own node
    let r = run(
        "x = torch.ones(2, 3, requires_grad=True)\ne = x.exp()\ne.add_(1)\ne.sum().backward()\n",
    );
    assert_eq!(
        r["error"]["message"].as_str().unwrap(),
        format!(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2, 3]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead.{HINT}"
        )
    );
    // a saved leaf changed under no_grad has no node to name
    let r = run(
        "x = torch.ones(3, dtype=torch.float64, requires_grad=True)\nq = x * x\nwith torch.no_grad():\n    x.mul_(2)\nq.sum().backward()\n",
    );
    assert_eq!(
        r["error"]["message"].as_str().unwrap(),
        format!(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.DoubleTensor [3]] is at version 1; expected version 0 instead.{HINT}"
        )
    );
    // and `except RuntimeError` catches it
    let r = ok(
        "w = torch.ones(3, requires_grad=True)\ny = w * 2\nz = y * y\ny.add_(1)\ntry:\n    z.sum().backward()\nexcept RuntimeError as err:\n    print('modified by an inplace operation' in str(err))\n",
    );
    assert_eq!(r["output"], "True\n");
}

#[test]
fn in_place_and_leaf_errors() {
    let cases = [
        (
            "x = torch.ones(3, requires_grad=True)\nx.add_(1)\n",
            "a leaf Variable that requires grad is being used in an in-place operation.",
        ),
        (
            "x = torch.ones(3, requires_grad=True)\nx[0].mul_(2)\n",
            "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        ),
        (
            "x = torch.ones(3, requires_grad=True)\nx[0] = 5\n",
            "a leaf Variable that requires grad is being used in an in-place operation.",
        ),
        (
            "x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()\n",
            "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.",
        ),
        (
            "x = torch.ones(3, requires_grad=True)\n(x * 2).backward()\n",
            "grad can be implicitly created only for scalar outputs",
        ),
        (
            "x = torch.ones(3)\nx.sum().backward()\n",
            "element 0 of tensors does not require grad and does not have a grad_fn",
        ),
        (
            "x = torch.zeros(3, dtype=torch.long, requires_grad=True)\n",
            "Only Tensors of floating point and complex dtype can require gradients",
        ),
        (
            "x = torch.zeros(3, dtype=torch.int32).requires_grad_()\n",
            "only Tensors of floating point dtype can require gradients",
        ),
        (
            "x = torch.ones(3, requires_grad=True)\n(x * 2).requires_grad_(False)\n",
            "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
        ),
        (
            "x = torch.ones(3)\nx.retain_grad()\n",
            "can't retain_grad on Tensor that has requires_grad=False",
        ),
        (
            "x = torch.ones(3, requires_grad=True)\n(x * x).backward(torch.ones(2))\n",
            "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of torch.Size([3]).",
        ),
    ];
    for (src, message) in cases {
        let r = run(src);
        assert_eq!(r["error"]["kind"], "other", "{src}");
        assert_eq!(r["error"]["message"], message, "{src}");
    }
    // under no_grad the in-place update of a leaf is allowed, and results need no grad
    let r = ok(
        "w = torch.tensor([1., 2.], requires_grad=True)\n(w * w).sum().backward()\nwith torch.no_grad():\n    w.sub_(w.grad * 0.5)\n    v = w * 2\nprint(w.tolist(), v.requires_grad, torch.is_grad_enabled())\n",
    );
    assert_eq!(r["output"], "[0.0, 0.0] False True\n");
}

#[test]
fn gradients_have_real_values() {
    // seed 001's section 23.6: the gradient reaches x through the copy and the transpose
    let r = ok(
        "x = torch.tensor([[0., 1., 2.], [3., 4., 5.]], requires_grad=True)\nloss = x.T.contiguous().square().sum()\nloss.backward()\nprint(loss.item(), x.grad.tolist())\n",
    );
    assert_eq!(r["output"], "55.0 [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]\n");
    // broadcasting sums the gradient back to the operand's shape
    let r = ok(
        "a = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\nb = torch.tensor([10., 20., 30.], requires_grad=True)\n(a * b + b).sum().backward()\nprint(a.grad.tolist(), b.grad.tolist())\n",
    );
    assert_eq!(
        r["output"],
        "[[10.0, 20.0, 30.0], [10.0, 20.0, 30.0]] [7.0, 9.0, 11.0]\n"
    );
    // overlapping views add up; retain_graph lets a second backward accumulate
    let r = ok(
        "x = torch.tensor([1., 2., 3.], requires_grad=True)\nl = (x.unfold(0, 2, 1) * 3).sum() + x[0:1].expand(4).sum()\nl.backward(retain_graph=True)\nl.backward()\nprint(x.grad.tolist())\n",
    );
    assert_eq!(r["output"], "[14.0, 12.0, 6.0]\n");
    // retain_grad keeps a non-leaf's gradient; a non-leaf's .grad is None otherwise
    let r = ok(
        "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 3\ny.retain_grad()\nu = x * 1\n(y * y + u).sum().backward()\nprint(y.grad.tolist(), x.grad.tolist(), u.grad, y.is_leaf, x.is_leaf)\n",
    );
    assert_eq!(r["output"], "[6.0, 12.0] [19.0, 37.0] None False True\n");
    assert_eq!(r["warnings"][0]["kind"], "non_leaf_grad");
}

#[test]
fn names_and_printing() {
    let r = ok(
        "x = torch.ones(2, 3, requires_grad=True)\nfor v in (x.T, x.t(), x.transpose(0, 1), x[0], x[:, 1:], x.view(6), x.t().reshape(6), x.sum(), x.sum(0), x.mean(), x * 2, x.exp(), x ** 2, -x, x.to(torch.float64), x.clone(), 2 - x):\n    print(type(v.grad_fn).__name__)\nprint(x.detach().requires_grad, type(x.grad_fn).__name__)\n",
    );
    let names: Vec<&str> = r["output"].as_str().unwrap().lines().collect();
    assert_eq!(
        names,
        [
            "PermuteBackward0",
            "TBackward0",
            "TransposeBackward0",
            "SelectBackward0",
            "SliceBackward0",
            "ViewBackward0",
            "UnsafeViewBackward0",
            "SumBackward0",
            "SumBackward1",
            "MeanBackward0",
            "MulBackward0",
            "ExpBackward0",
            "PowBackward0",
            "NegBackward0",
            "ToCopyBackward0",
            "CloneBackward0",
            "RsubBackward1",
            "False NoneType"
        ]
    );
    let r = ok("x = torch.tensor([1., 2.], requires_grad=True)\nprint(x)\nprint(x * 2)\n");
    assert_eq!(
        r["output"],
        "tensor([1., 2.], requires_grad=True)\ntensor([2., 4.], grad_fn=<MulBackward0>)\n"
    );
}

#[test]
fn the_graph_keeps_saved_storages_alive() {
    // exp saves its result: deleting the name leaves its 16 bytes to the graph alone
    let r = ok("w = torch.ones(4, requires_grad=True)\ny = w.exp()\nz = y.sum()\ndel y\n");
    assert_eq!(
        r["autograd"],
        json!({
            "saved_tensors": [{
                "grad_fn": "ExpBackward0._saved_result", "shape": [4], "strides": [1],
                "storage_offset": 0, "itemsize": 4, "bytes": 16, "storage_nbytes": 16,
                "storage": null
            }],
            "saved_storage_bytes": 16,
            "graph_only_storage_bytes": 16
        })
    );
    let per_step: Vec<&Value> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["autograd"])
        .collect();
    let figures = |n: usize, saved: u64, only: u64| json!({"saved_tensor_count": n, "saved_storage_bytes": saved, "graph_only_storage_bytes": only});
    // no entry while the graph saves nothing
    assert_eq!(
        per_step,
        [
            &Value::Null,
            &figures(1, 16, 0),
            &figures(1, 16, 0),
            &figures(1, 16, 16)
        ]
    );
    let text = stridekit::explain::run(
        "w = torch.ones(4, requires_grad=True)\ny = w.exp()\nz = y.sum()\ndel y\n",
    )
    .to_text();
    assert!(
        text.contains("autograd: 1 tensor(s) saved for backward, 16 bytes of distinct storages, 16 bytes of them reached by no named tensor"),
        "{text}"
    );
    assert!(text.contains("ExpBackward0._saved_result"), "{text}");
    // on a named storage, the saved tensor names the report's storage id
    let r = ok("a = torch.ones(2)\nw = torch.ones(4, requires_grad=True)\ny = w.exp()\n");
    assert_eq!(r["autograd"]["saved_tensors"][0]["storage"], 2);
    assert_eq!(r["autograd"]["graph_only_storage_bytes"], 0);
    // a backward frees what the graph saved
    let r = ok("w = torch.ones(4, requires_grad=True)\nz = w.exp().sum()\nz.backward()\n");
    assert_eq!(r["autograd"]["saved_tensors"], json!([]));
    assert!(r["steps"][2].get("autograd").is_none());
    // mul saves each operand another input needs: both here, on w's and v's storages
    let r = ok(
        "w = torch.ones(4, requires_grad=True)\nv = torch.ones(4, requires_grad=True)\nz = w * v\n",
    );
    let mut slots: Vec<&str> = r["autograd"]["saved_tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["grad_fn"].as_str().unwrap())
        .collect();
    slots.sort();
    assert_eq!(
        slots,
        ["MulBackward0._saved_other", "MulBackward0._saved_self"]
    );
    assert_eq!(r["autograd"]["saved_storage_bytes"], 32);
    assert_eq!(r["autograd"]["graph_only_storage_bytes"], 0);
    // a Python number mul saves is a 0-dim double on a storage of its own
    let r = ok("w = torch.ones(4, requires_grad=True)\nz = w * 3\n");
    let s = &r["autograd"]["saved_tensors"][0];
    assert_eq!(s["grad_fn"], "MulBackward0._saved_other");
    assert_eq!((&s["shape"], &s["storage_nbytes"]), (&json!([]), &json!(8)));
    // no graph under no_grad
    let r = ok("w = torch.ones(4, requires_grad=True)\nwith torch.no_grad():\n    z = w.exp()\n");
    assert_eq!(r["autograd"]["saved_tensors"], json!([]));
}

#[test]
fn with_blocks() {
    // grad mode comes back even when the block raises
    let r = ok(
        "x = torch.ones(2, requires_grad=True)\ntry:\n    with torch.no_grad():\n        x.view(3)\nexcept RuntimeError:\n    pass\nprint(torch.is_grad_enabled(), (x * 2).requires_grad)\n",
    );
    assert_eq!(r["output"], "True True\n");
    let r = ok(
        "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    with torch.enable_grad():\n        y = x * 2\n    z = x * 2\nprint(y.requires_grad, z.requires_grad)\n",
    );
    assert_eq!(r["output"], "True False\n");
    let r = run("with 3:\n    pass\n");
    assert_eq!(
        r["error"]["message"],
        "'int' object does not support the context manager protocol"
    );
    // the block's statements are steps
    let r = ok("x = torch.ones(2)\nwith torch.no_grad():\n    y = x * 2\n    z = y + 1\n");
    assert_eq!(r["steps"].as_array().unwrap().len(), 3);
}

#[test]
fn ops_without_a_derivative_are_a_stop() {
    for src in [
        "w = torch.ones(3, requires_grad=True)\nc = torch.cat([w, w])\n",
        "w = torch.ones(3, requires_grad=True)\nc = w.flip(0)\n",
        "w = torch.ones(3, requires_grad=True)\nc = w.max(0)\n",
        "w = torch.ones(3, requires_grad=True)\nc = 2 / w\n",
        "w = torch.ones(3, requires_grad=True)\ny = w * 1\ny[0] = 2\n",
        "w = torch.ones(3, requires_grad=True)\nl = (w * w).sum()\nl.backward(create_graph=True)\n",
    ] {
        let r = run(src);
        assert_eq!(r["error"]["kind"], "unsupported", "{src}");
    }
    // ... but not when nothing requires grad
    ok("w = torch.ones(3)\nc = torch.cat([w, w]).flip(0)\n");
}
