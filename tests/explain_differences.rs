//! Small differences a wider differential against PyTorch found (issue 21 item 4), each
//! with the message PyTorch 2.11.0 (CPU) gives, recorded from the pinned venv.

use serde_json::Value;

fn error_of(program: &str) -> Value {
    stridekit::explain::run_to_json(program)["error"].clone()
}

const ONE_BOOL: &str = "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.";
const TWO_BOOLS: &str = "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.";

#[test]
fn subtraction_with_one_bool_operand_is_refused_as_pytorch_does() {
    // torch 2.11: each of these raises RuntimeError with ONE_BOOL (a Python number joins as
    // a wrapped tensor of its own type; True is a bool one)
    for line in [
        "b = a - 1",
        "b = 1 - a",
        "b = torch.ones(2) - a",
        "b = a.sub(1.5)",
        "b = torch.ones(2) - True",
        "b = torch.ones(2, dtype=torch.int64).sub_(a)",
        "b = torch.sub(torch.ones(2), a, alpha=2)",
    ] {
        let e = error_of(&format!("a = torch.tensor([True, False])\n{line}\n"));
        assert_eq!(e["message"], ONE_BOOL, "{line}: {e}");
        assert_eq!(e["kind"], "dtype_unsupported", "{line}");
        assert_eq!(e["statement"], 1, "{line}");
    }
    // two bool operands keep PyTorch's other message
    for line in ["b = a - True", "b = a - a"] {
        let e = error_of(&format!("a = torch.tensor([True, False])\n{line}\n"));
        assert_eq!(e["message"], TWO_BOOLS, "{line}: {e}");
    }
    // addition and the other ops with a bool operand still run
    let r = stridekit::explain::run_to_json(
        "a = torch.tensor([True, False])\nb = a + 1\nc = torch.ones(2) * a\nd = torch.ones(2) - a.int()\n",
    );
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(r["tensors"][3]["values"], serde_json::json!([0.0, 1.0]));
}

/// An index write with an out-of-range index: PyTorch 2.11's CPU kernel writes the elements
/// before the bad index (in its iteration order) and then raises; explain checks every index
/// first and leaves the tensor unchanged (the documented difference, README and
/// docs/explain.md). Recorded from the pinned venv: `x = torch.zeros(5); x[torch.tensor([0, 1,
/// 7])] = 1.` leaves x = [1, 1, 0, 0, 0] in PyTorch.
#[test]
fn index_writes_with_a_bad_index_write_nothing() {
    for line in [
        "x[torch.tensor([0, 1, 7])] = 1.",
        "x[[0, 2, 9]] = torch.tensor([1., 2., 3.])",
        "x.index_put_((torch.tensor([1, 6]),), torch.tensor(2.))",
    ] {
        let r = stridekit::explain::run_to_json(&format!("x = torch.zeros(5)\n{line}\n"));
        assert_eq!(r["error"]["kind"], "index_out_of_range", "{line}");
        assert_eq!(r["error"]["statement"], 1, "{line}");
        assert_eq!(
            r["tensors"][0]["values"],
            serde_json::json!([0.0, 0.0, 0.0, 0.0, 0.0]),
            "{line}"
        );
        assert_eq!(r["tensors"][0]["version"], 0, "{line}");
    }
}
