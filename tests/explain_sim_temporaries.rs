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
