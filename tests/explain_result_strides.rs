//! The strides explain gives a result's size-1 dimensions (issue 21 item 4), against PyTorch
//! 2.11 (CPU): element-wise ops take TensorIterator's layout (its fast setup for contiguous,
//! channels_last or equal dense operands, else its dimension order with a size-1 dimension's
//! own stride as an operand's opinion), `to` keeps a dense layout or infers one,
//! `masked_fill` is a contiguous clone whatever its input's layout, and `roll` on the CPU is
//! laid out as `cat` lays out its two pieces. Each expected value was printed by PyTorch 2.11
//! for the same program (a differential of 9,400 random cases found the masked_fill and roll
//! ones; see the session 8 report).

fn strides_of_r(program: &str) -> Vec<i64> {
    let r = stridekit::explain::run_with(program, stridekit::Device::Cpu, false).to_json();
    assert!(r["error"].is_null(), "{}: {}", program, r["error"]);
    let t = r["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "r")
        .unwrap_or_else(|| panic!("no r in {program}"));
    t["strides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect()
}

#[test]
fn size_one_dimensions_get_pytorchs_strides() {
    let cases: &[(&str, &str, &str, &[i64])] = &[
        ("[3, 1, 2]", "[1, 7, 3]", "a.exp()", &[1, 7, 3]),
        ("[2, 1, 3]", "[3, 12, 1]", "a + 1.5", &[3, 6, 1]),
        ("[2, 1, 3]", "[1, 5, 2]", "-a", &[1, 5, 2]),
        ("[3, 1, 2, 1]", "[8, 1, 1, 1]", "a * 2", &[2, 1, 1, 1]),
        ("[1, 3, 1]", "[0, 1, 7]", "a > 1", &[3, 1, 3]),
        (
            "[2, 1, 2]",
            "[1, 0, 2]",
            "torch.where(a > 0, a, 0.0)",
            &[1, 2, 2],
        ),
        ("[2, 2, 1]", "[1, 8, 7]", "a.to(torch.float64)", &[1, 2, 2]),
        ("[3, 1, 3, 2]", "[6, 1, 2, 1]", "a + a", &[6, 6, 2, 1]),
        (
            "[2, 1, 3]",
            "[1, 5, 2]",
            "a.sum(1, keepdim=True)",
            &[3, 3, 1],
        ),
    ];
    for (sizes, strides, op, want) in cases {
        let p = format!(
            "base = torch.arange(200.)\na = base.as_strided({sizes}, {strides})\nr = {op}\n"
        );
        assert_eq!(strides_of_r(&p), *want, "{p}");
    }
}

#[test]
fn masked_fill_is_a_contiguous_clone() {
    let cases: &[(&str, &str, &[i64])] = &[
        ("[1, 1, 1, 2]", "[1, 1, 12, 1]", &[2, 2, 2, 1]),
        ("[3, 1, 3, 1]", "[3, 0, 1, 5]", &[3, 3, 1, 1]),
        ("[2, 2, 1]", "[1, 8, 7]", &[2, 1, 1]),
        ("[3, 1, 3, 2]", "[6, 1, 2, 1]", &[6, 6, 2, 1]),
    ];
    for (sizes, strides, want) in cases {
        let p = format!(
            "base = torch.arange(200.)\na = base.as_strided({sizes}, {strides})\nr = a.masked_fill(a > 2, 0.0)\n"
        );
        assert_eq!(strides_of_r(&p), *want, "{p}");
    }
    // A transposed and a channels_last input: contiguous too (PyTorch 2.11: (2, 1) and
    // (60, 20, 5, 1)).
    let p = "a = torch.arange(6.).view(2, 3).t()\nr = a.masked_fill(a > 2, 0.0)\n";
    assert_eq!(strides_of_r(p), [2, 1]);
    let p = "a = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)\nr = a.masked_fill(a > 2, 0.0)\n";
    assert_eq!(strides_of_r(p), [60, 20, 5, 1]);
}

#[test]
fn roll_on_the_cpu_is_laid_out_as_cat_lays_out_its_pieces() {
    // roll_cpu is cat(narrow, narrow): channels_last when both pieces suggest it (a size-1
    // channel dim makes a contiguous tensor channels_last too), else contiguous; the GPU's
    // roll_cuda is contiguous (tests/explain_sim_temporaries.rs).
    let cases: &[(&str, &str, &str, &[i64])] = &[
        (
            "[3, 1, 3, 2]",
            "[6, 1, 2, 1]",
            "a.roll(1, 3)",
            &[6, 1, 2, 1],
        ),
        (
            "[3, 1, 2, 1]",
            "[8, 1, 1, 1]",
            "a.roll(1, 0)",
            &[2, 1, 1, 1],
        ),
        (
            "[3, 1, 2, 1]",
            "[8, 1, 1, 1]",
            "a.roll((1, 1), (0, -1))",
            &[2, 2, 1, 1],
        ),
        (
            "[2, 3, 4, 5]",
            "[60, 1, 15, 3]",
            "a.roll(2, 2)",
            &[60, 1, 15, 3],
        ),
        ("[3, 2]", "[1, 3]", "a.roll(1, 0)", &[2, 1]),
    ];
    for (sizes, strides, op, want) in cases {
        let p = format!(
            "base = torch.arange(200.)\na = base.as_strided({sizes}, {strides})\nr = {op}\n"
        );
        assert_eq!(strides_of_r(&p), *want, "{p}");
    }
}
