//! What `explain --device sim` holds on the device during `backward()`, against PyTorch 2.11's
//! own engine: each figure is `allocated_bytes.all.current` / `.peak` after the program's last
//! line (512-byte blocks), as PyTorch allocates the same program. The references were
//! measured on PyTorch 2.11 (CPU) with torch.profiler's allocation events and no dispatch mode
//! (the tracer's TorchDispatchMode changes what the engine does: class T2 of
//! python/tests/data/trace_sim_divergences.txt), the host-side wrapped Python numbers left
//! out as a CUDA run keeps them on the host.

use serde_json::Value;

fn sim(program: &str) -> Value {
    stridekit::explain::run_with(program, stridekit::explain::Target::Sim, false).to_json()
}

/// (allocated now, allocated peak) at the end; the program must run without error.
fn figures(program: &str) -> (i64, i64) {
    let r = sim(program);
    assert!(r["error"].is_null(), "{}", r["error"]);
    let a = &r["allocator"];
    (
        a["allocated_bytes.all.current"].as_i64().unwrap(),
        a["allocated_bytes.all.peak"].as_i64().unwrap(),
    )
}

fn output(program: &str) -> String {
    let r = stridekit::explain::run_with(program, stridekit::explain::Target::Sim, false).to_json();
    assert!(r["error"].is_null(), "{}", r["error"]);
    r["output"].as_str().unwrap().to_string()
}

// A1: the root gradient (ones_like of the loss) stays allocated until backward() returns.
#[test]
fn the_root_gradient_lives_until_backward_returns() {
    // x, loss (ExpBackward0's saved result); backward: the ones, grad * result, and the
    // leaf's gradient laid out anew (an expand of the sum's gradient obeys no layout).
    let p = "x = torch.ones(3, requires_grad=True)\nloss = x.sum().exp()\nloss.backward()\n";
    assert_eq!(figures(p), (1536, 2560));
}

// A2: the input buffer adds a second gradient into the first in place when it holds the
// only reference; AccumulateGrad steals a gradient nothing else references.
#[test]
fn a_leafs_two_gradients_are_summed_in_place() {
    // x, y; the ones, grad * x twice, summed into the first (no third block), stolen as .grad.
    let p = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\ny.backward()\n";
    assert_eq!(figures(p), (1536, 2560));
    // Its version counts the in-place add, as PyTorch's (the stolen tensor is detached).
    let p = "x = torch.tensor([1., 2.], requires_grad=True)\n(x * x).sum().backward()\nprint(x.grad._version)\n";
    assert_eq!(output(p), "1\n");
    // AddBackward0 hands the same gradient to both edges: neither buffer holds it alone,
    // so the two are summed into a new tensor (version 0).
    let p = "w = torch.ones(3, requires_grad=True)\n(w + w).sum().backward()\nprint(w.grad._version, w.grad.tolist())\n";
    assert_eq!(output(p), "0 [2.0, 2.0, 2.0]\n");
    // backward(gradient=g): the caller keeps g, so a gradient reaching the leaf unchanged
    // is copied, not stolen.
    let p = "x = torch.ones(3, requires_grad=True)\ng = torch.ones(3)\nx.backward(g)\nprint(x.grad.data_ptr() == g.data_ptr())\n";
    assert_eq!(output(p), "False\n");
    let p = "x = torch.ones(3, requires_grad=True)\ng = torch.ones(3)\nx.backward(g)\n";
    assert_eq!(figures(p), (1536, 1536));
}

#[test]
fn the_ready_node_made_last_runs_first() {
    // MeanBackward1's dense gradient reaches x's buffer before the two sums' expanded ones
    // (PyTorch's ready queue: the largest sequence number first), so they are added into it.
    let p = "x = torch.arange(24.).view(2, 3, 4).requires_grad_()\ny = x.sum(1)\nz = x.sum((0, 2), keepdim=True)\nm = x.mean(-1)\n(y.sum() + z.sum() * 2 + m.sum()).backward()\n";
    assert_eq!(figures(p), (2560, 4096));
}

// A3: the formulas as the generated nodes compute them.
#[test]
fn div_backward_keeps_its_three_temporaries_until_the_product() {
    // a, b, y, sub's result (saved), y.sum(), the ones; DivBackward0 for `other` first:
    // -grad, self / other, that / other, the product: 10 blocks.
    let p = "a = torch.tensor([1., 2., 4.], requires_grad=True)\nb = torch.tensor([2., 4., 8.], requires_grad=True)\ny = torch.sub(a, b, alpha=2) / b\ny.sum().backward()\nprint(a.grad.tolist(), b.grad.tolist())\n";
    assert_eq!(figures(p), (2560, 5120));
    assert_eq!(output(p), "[0.5, 0.25, 0.125] [-0.25, -0.125, -0.0625]\n");
}

#[test]
fn pow_backward_keeps_its_two_temporaries_until_the_product() {
    // x, c, loss; the ones, self.pow(1), 2 * that, grad * that; then the transposed
    // gradient copied into .grad laid out like x.
    let p = "x = torch.tensor([[0., 1., 2.], [3., 4., 5.]], requires_grad=True)\nc = x.T.contiguous()\nloss = c.square().sum()\nloss.backward()\nprint(x.grad.tolist())\n";
    assert_eq!(figures(p), (2048, 3584));
    assert_eq!(output(p), "[[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]\n");
}

/// allocated_bytes.all.current after every step; the program must run without error.
fn steps(program: &str) -> Vec<i64> {
    let r = sim(program);
    assert!(r["error"].is_null(), "{}", r["error"]);
    r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["allocator"]["allocated_bytes.all.current"]
                .as_i64()
                .unwrap()
        })
        .collect()
}

// A backward() that raises: Tensor.backward and torch.autograd.backward are Python frames,
// which the exception's traceback keeps, so the tensor backward() was called on and the root
// gradient live as long as the exception (PyTorch 2.11 on an H200, golden program
// ag_version_error_catch: 2560 after the print in the except body; on the CPU the same, seen
// through weakref.finalize on the two storages: freed when the except body ends).
#[test]
fn a_caught_backward_error_keeps_what_its_traceback_holds() {
    let body = "w = torch.ones(2, 3, requires_grad=True)\ny = w * 2\nz = y * y\ny.add_(1)\ntry:\n    z.sum().backward()\nexcept RuntimeError as err:\n    print(str(err))\n";
    // w, y, z: 1536; z.sum() and the ones: 1024 more inside the except body, gone after it.
    assert_eq!(
        steps(&format!("{body}a = 1\n")),
        [512, 1024, 1536, 1536, 2560, 1536]
    );
    // Kept by the program, the exception keeps them until it goes.
    assert_eq!(
        steps(&format!("{body}    kept = err\na = 1\ndel kept\n")),
        [512, 1024, 1536, 1536, 2560, 2560, 2560, 1536]
    );
    // An exception raised in the except body holds the first as its __context__.
    let chained = "w = torch.ones(2, 3, requires_grad=True)\ny = w * 2\nz = y * y\ny.add_(1)\ntry:\n    try:\n        z.sum().backward()\n    except RuntimeError as err:\n        raise ValueError('again')\nexcept ValueError as e2:\n    b = 1\nc = 1\n";
    assert_eq!(steps(chained), [512, 1024, 1536, 1536, 2560, 1536]);
    // A backward() refused before its pass made no root gradient: the receiver only.
    let p = "w = torch.ones(3)\ntry:\n    (w * 2).sum().backward()\nexcept RuntimeError as e:\n    b = 1\nc = 1\n";
    assert_eq!(steps(p), [512, 1024, 512]);
}
