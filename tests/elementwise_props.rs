//! Broadcasting, promotion and the layout of element-wise results against PyTorch 2.11:
//! tests/data/elementwise/*.jsonl are made by scripts/torch_elementwise_cases.py (see
//! tests/data/README.md), and every case must match exactly.

use serde_json::Value;
use stridekit::dtype::{Category, DType, PromotionOperand, result_type};
use stridekit::layout::broadcast::{Operand, broadcast_shapes, output_strides};

fn lines(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/data/elementwise/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_i64().expect("int"))
        .collect()
}

#[test]
fn result_layouts_match_pytorch() {
    let cases = lines("layouts.jsonl");
    assert!(cases.len() >= 500);
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let inputs: Vec<(Vec<i64>, Vec<i64>)> = case["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (ints(&o["sizes"]), ints(&o["strides"])))
            .collect();
        let shapes: Vec<&[i64]> = inputs.iter().map(|(s, _)| s.as_slice()).collect();
        let got = broadcast_shapes(&shapes);
        if let Some(msg) = case["error"].as_str() {
            match got {
                Err(e) if e.message == msg => {}
                other => failures.push(format!("case {i}: expected error {msg:?}, got {other:?}")),
            }
            continue;
        }
        let shape = got.unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert_eq!(
            shape.as_slice(),
            ints(&case["shape"]).as_slice(),
            "case {i}"
        );
        let ops: Vec<Operand> = inputs
            .iter()
            .map(|(s, t)| Operand {
                sizes: s,
                strides: t,
            })
            .collect();
        let strides = output_strides(&shape, &ops);
        if strides.as_slice() != ints(&case["strides"]).as_slice() {
            failures.push(format!(
                "case {i}: inputs {:?}: expected strides {:?}, got {:?}",
                inputs,
                ints(&case["strides"]),
                strides
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn promotion_matches_torch_result_type() {
    let cases = lines("promotion.jsonl");
    assert!(cases.len() >= 500);
    for case in &cases {
        let ops: Vec<PromotionOperand> = case["operands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                let (kind, what) = (o[0].as_str().unwrap(), o[1].as_str().unwrap());
                match kind {
                    "dim" => PromotionOperand::Dimensioned(DType::parse(what).unwrap()),
                    "zero" => PromotionOperand::ZeroDim(DType::parse(what).unwrap()),
                    _ => PromotionOperand::Number(match what {
                        "bool" => Category::Bool,
                        "int" => Category::Integral,
                        _ => Category::Floating,
                    }),
                }
            })
            .collect();
        let expected = DType::parse(case["dtype"].as_str().unwrap()).unwrap();
        assert_eq!(result_type(&ops), expected, "{case}");
    }
}
