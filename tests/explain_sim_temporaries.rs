//! `explain --device sim` accounts the temporaries PyTorch's CUDA build allocates on the
//! device during an op (index tensors, wrapped Python numbers, torch.equal's, roll's), as
//! python/tests/data/trace_sim_divergences.txt diagnoses them (classes E1-E6). Each figure is
//! `allocated_bytes.all.current` / `.peak` after the program's last line, as the tracer
//! measures the same program run by PyTorch 2.11 and replayed into the caching allocator.

use serde_json::Value;

fn sim(program: &str) -> Value {
    stridekit::explain::run_with(program, stridekit::explain::Target::Sim, false).to_json()
}

/// (allocated now, allocated peak) at the end.
fn figures(program: &str) -> (i64, i64) {
    let r = sim(program);
    let a = &r["allocator"];
    (
        a["allocated_bytes.all.current"].as_i64().unwrap(),
        a["allocated_bytes.all.peak"].as_i64().unwrap(),
    )
}

fn ok(program: &str) -> (i64, i64) {
    let r = sim(program);
    assert!(r["error"].is_null(), "{}", r["error"]);
    figures(program)
}

// E1: a list index is an index tensor on the indexed tensor's device, alive during the op.
#[test]
fn list_index_read_makes_its_index_tensor_on_the_device() {
    let p = "x = torch.arange(6).view(2, 3)\na = x[[1, 0]]\n";
    assert_eq!(ok(p), (1024, 1536));
}

#[test]
fn list_index_on_a_later_dim_and_an_empty_result_still_make_it() {
    // x (512), the index (512), the (2, 1) result (512).
    assert_eq!(ok("x = torch.zeros(2, 3)\na = x[:, [0]]\n"), (1024, 1536));
    // An empty list is an empty int64 tensor: no block; the empty result: none either.
    assert_eq!(ok("x = torch.zeros(2, 3)\na = x[[]]\n"), (512, 512));
    // An empty result from a non-empty index: the index's block is still taken.
    assert_eq!(ok("x = torch.zeros(0, 3)\na = x[:, [0, 1]]\n"), (0, 512));
}

#[test]
fn list_index_write_makes_its_index_tensor_on_the_device() {
    // The value is a host scalar (THPVariable_setitem wraps it on the CPU for a CUDA self).
    assert_eq!(ok("x = torch.zeros(2, 3)\nx[[0, 1]] = 1.0\n"), (512, 1024));
    let p = "x = torch.zeros(2, 3)\nv = torch.ones(3)\nx[[0, 1]] = v\n";
    assert_eq!(ok(p), (1024, 1536));
}

#[test]
fn zero_dim_bool_index_is_an_int64_index_tensor_on_the_device() {
    // x (512), the bool (512), the int64 [0] (512), the (1, 3) result (512).
    let p = "x = torch.zeros(2, 3)\nm = torch.tensor(True)\na = x[m]\n";
    assert_eq!(ok(p), (1536, 2048));
    // False: an empty int64 tensor and an empty result, no block.
    let p = "x = torch.zeros(2, 3)\nm = torch.tensor(False)\na = x[m]\n";
    assert_eq!(ok(p), (1024, 1024));
}

#[test]
fn failing_list_index_took_its_index_tensor_before_failing() {
    let r = sim("x = torch.zeros(2, 3)\na = x[[0, 1], [[0, 1, 2]]]\n");
    assert!(!r["error"].is_null());
    let p = "x = torch.zeros(2, 3)\ntry:\n    a = x[[0, 1], [[0, 1, 2]]]\nexcept IndexError:\n    pass\n";
    assert_eq!(ok(p), (512, 1536));
}

#[test]
fn cpu_runs_are_unchanged() {
    let r = stridekit::explain::run_with(
        "x = torch.arange(6).view(2, 3)\na = x[[1, 0]]\nm = torch.tensor(True)\nb = x[m]\n",
        stridekit::explain::Target::Device(stridekit::storage::Device::Cpu),
        false,
    )
    .to_json();
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert!(r["allocator"].is_null());
}

// E2: torch.where's Python numbers are 0-dim tensors on the device while it runs.
#[test]
fn where_wraps_each_python_number_on_the_device() {
    let p = "c = torch.ones(3)\nw = torch.where(c > 0, c, 2.0)\n";
    assert_eq!(ok(p), (1024, 2048));
    let p = "c = torch.ones(3)\nw = torch.where(c > 0, 1.0, 2.0)\n";
    assert_eq!(ok(p), (1024, 2560));
    let p = "c = torch.ones(3)\nw = c.where(c > 0, 2.0)\n";
    assert_eq!(ok(p), (1024, 2048));
    // A number of another dtype than the tensor: the tensor is cast to the result dtype.
    let p = "a = torch.arange(3)\nm = a > 0\nw = torch.where(m, a, 2.5)\n";
    assert_eq!(ok(p), (1536, 2560));
    let p = "a = torch.arange(3)\nm = a > 0\nw = torch.where(m, a, -1)\n";
    assert_eq!(ok(p), (1536, 2048));
    // Two tensors of two dtypes: no cast.
    let p = "a = torch.arange(3)\nm = a > 0\nw = torch.where(m, a, a.float())\n";
    assert_eq!(ok(p), (1536, 2048));
    // Tensors only: no temporary beyond the condition.
    let p = "c = torch.ones(3)\nw = torch.where(c > 0, c, c)\n";
    assert_eq!(ok(p), (1024, 1536));
}

// E3: torch.equal runs eq(a, b).all(): a bool tensor and a 0-dim bool, alive together.
#[test]
fn equal_holds_its_two_temporaries_together() {
    let p = "a = torch.arange(4.)\nb = a.clone()\nr = torch.equal(a, b)\n";
    assert_eq!(ok(p), (1024, 2048));
    // Different sizes, empty tensors, the same view: no kernel, no temporary.
    assert_eq!(
        ok("a = torch.arange(4.)\nb = torch.arange(3.)\nr = torch.equal(a, b)\n"),
        (1024, 1024)
    );
    assert_eq!(
        ok("a = torch.zeros(0)\nb = torch.zeros(0)\nr = torch.equal(a, b)\n"),
        (0, 0)
    );
    assert_eq!(
        ok("a = torch.arange(4.)\nr = torch.equal(a, a)\n"),
        (512, 512)
    );
    assert_eq!(
        ok("a = torch.arange(4.)\nr = a.equal(a.view(2, 2).view(4))\n"),
        (512, 512)
    );
}

#[test]
fn equal_answers_as_before() {
    let r = sim(
        "a = torch.tensor([1.0, float('nan')])\nr = torch.equal(a, a)\ns = torch.equal(a, a.clone())\nt = torch.equal(a[:1], a[:1].clone())\nprint(r, s, t)\n",
    );
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(r["output"], "False False True\n");
}

// E4: `a and b` drops a (and the temporaries that made it) before b runs.
#[test]
fn bool_op_drops_the_left_operand_before_the_right_runs() {
    let p = "x = torch.ones(4)\nassert (x == x).any() and (x == x).all()\n";
    assert_eq!(ok(p), (512, 1536));
    let p = "x = torch.ones(4)\nr = bool((x != x).any() or (x == x).all())\n";
    assert_eq!(ok(p), (512, 1536));
    // The operand returned stays: `r` holds the right one's 0-dim result.
    let p = "x = torch.ones(4)\nr = (x == x).any() and (x == x).all()\n";
    assert_eq!(ok(p), (1024, 1536));
}

// E5: torch.testing.assert_close runs isclose's operators, then all().
#[test]
fn assert_close_allocates_isclose_temporaries() {
    let p = "x = torch.ones(4)\ntorch.testing.assert_close(x, x.clone())\n";
    assert_eq!(ok(p), (512, 4608));
    // Integers: no tolerance, only eq and all.
    let p = "x = torch.arange(4)\ntorch.testing.assert_close(x, x.clone())\n";
    assert_eq!(ok(p), (512, 2048));
    // Tolerances on integers: one float copy first; on bools, two.
    let p = "x = torch.arange(4)\ntorch.testing.assert_close(x, x.clone(), rtol=0.1, atol=0.1)\n";
    assert_eq!(ok(p), (512, 5120));
    let p = "x = torch.ones(4) > 0\ntorch.testing.assert_close(x, x.clone(), rtol=0.1, atol=0.1)\n";
    assert_eq!(ok(p), (512, 5632));
}

// E6: roll of a non-contiguous input copies it contiguous first (freed after the output);
// with 3 or more dims every intermediate lives until the output exists.
#[test]
fn roll_copies_a_non_contiguous_input_and_keeps_intermediates() {
    let p = "x = torch.arange(6.).view(2, 3).t()\ny = x.roll(1, 0)\n";
    assert_eq!(ok(p), (1024, 1536));
    let p = "x = torch.arange(8.).view(2, 2, 2)\ny = x.roll((1, 1, 1), (0, 1, 2))\n";
    assert_eq!(ok(p), (1024, 2048));
    let p = "x = torch.arange(8.).view(2, 2, 2).transpose(0, 2)\ny = torch.roll(x, (1, 1, 1), (0, 1, 2))\n";
    assert_eq!(ok(p), (1024, 2048));
    let p = "x = torch.arange(8.).view(2, 2, 2).transpose(0, 2)\ny = x.roll((1, 1), (0, 1))\n";
    assert_eq!(ok(p), (1024, 1536));
    assert_eq!(
        ok("x = torch.arange(8.).view(2, 4).t()\ny = x.roll(3)\n"),
        (1024, 1536)
    );
    assert_eq!(
        ok("x = torch.arange(8.)[::2]\ny = x.roll(1)\n"),
        (1024, 1536)
    );
}

#[test]
fn roll_values_are_unchanged() {
    let p = "x = torch.arange(8.).view(2, 2, 2).transpose(0, 2)\ny = x.roll((1, -1, 3), (0, 1, 2))\nz = x.roll(3)\nw = x.t() if False else x.roll(1, -1)\nprint(y.tolist(), z.tolist(), w.tolist())\n";
    let sim_out = sim(p)["output"].clone();
    let cpu = stridekit::explain::run_with(
        p,
        stridekit::explain::Target::Device(stridekit::storage::Device::Cpu),
        false,
    )
    .to_json();
    assert!(cpu["error"].is_null(), "{}", cpu["error"]);
    assert_eq!(sim_out, cpu["output"]);
}

// E1b: CUDA's index kernel checks the index values on the device after its output exists
// (a device-side assert); an index write refuses them first.
#[test]
fn an_out_of_range_index_read_allocates_its_output_before_failing() {
    // x (512), the index tensor (512), the (1, 3) output (512), then the error.
    let r = sim("x = torch.zeros(2, 3)\nb = x[[5]]\n");
    assert_eq!(
        r["error"]["message"],
        "index 5 is out of bounds for dimension 0 with size 2"
    );
    assert_eq!(figures("x = torch.zeros(2, 3)\nb = x[[5]]\n"), (512, 1536));
    assert_eq!(
        figures("x = torch.zeros(2, 3)\nb = x[:, [0, 7]]\n"),
        (512, 1536)
    );
    // The write: the index tensor only.
    assert_eq!(
        figures("x = torch.zeros(2, 3)\nx[[5]] = 1.0\n"),
        (512, 1024)
    );
}
