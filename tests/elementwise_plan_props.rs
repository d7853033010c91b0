//! The element-wise plan (the copy plan's folding over the output and up to three inputs)
//! addresses exactly the elements of the unfolded layouts: walking the folded sizes with
//! each operand's folded strides gives, for every logical element, the same storage
//! position in every operand as the layouts themselves (random shapes, permutations,
//! broadcast dimensions, negative strides, gaps and offsets). The kernels' and the
//! emulation's index math is this walk; the plan's 32/64-bit choice follows from the spans.

use proptest::prelude::*;
use std::collections::BTreeSet;
use stridekit::Layout;
use stridekit::plan::ElementwisePlan;

/// Every (output, input...) storage position the plan visits, by its own odometer.
fn plan_positions(p: &ElementwisePlan, operands: usize) -> BTreeSet<Vec<i64>> {
    let mut out = BTreeSet::new();
    let n = p.numel();
    for linear in 0..n {
        let mut rest = linear;
        let mut pos: Vec<i64> = p.offsets[..operands].to_vec();
        for k in (0..p.sizes.len()).rev() {
            let r = rest % p.sizes[k];
            rest /= p.sizes[k];
            for (j, at) in pos.iter_mut().enumerate() {
                *at += r * p.strides[j][k];
            }
        }
        out.insert(pos);
    }
    out
}

/// The same positions from the layouts, by logical index.
fn layout_positions(layouts: &[&Layout]) -> BTreeSet<Vec<i64>> {
    layouts[0]
        .indices()
        .map(|idx| layouts.iter().map(|l| l.element_at(&idx)).collect())
        .collect()
}

/// A layout of `sizes`: dimensions in the order `perm` (outermost first), gaps of `gap`
/// elements between them, some dimensions read backwards (the offset keeps every position
/// non-negative), some broadcast (stride 0).
fn layout(sizes: &[i64], perm: &[usize], gap: i64, back: u8, zero: u8) -> Layout {
    let mut strides = vec![0i64; sizes.len()];
    let mut next = 1;
    for &d in perm.iter().rev() {
        strides[d] = next;
        next *= sizes[d] * gap;
    }
    let mut offset = 0;
    for d in 0..sizes.len() {
        if zero >> d & 1 == 1 {
            strides[d] = 0;
        } else if back >> d & 1 == 1 {
            offset += (sizes[d] - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    Layout::new(sizes, &strides, offset + gap).unwrap()
}

fn arb_layout(sizes: Vec<i64>) -> impl Strategy<Value = Layout> {
    let n = sizes.len();
    (
        Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        1i64..3,
        any::<u8>(),
        any::<u8>(),
    )
        .prop_map(move |(perm, gap, back, zero)| layout(&sizes, &perm, gap, back, zero))
}

fn arb_case() -> impl Strategy<Value = (Layout, Vec<Layout>)> {
    prop::collection::vec(1i64..4, 0..5).prop_flat_map(|sizes| {
        // The output is dense and never broadcast: its own order, no gaps.
        let out = Just(sizes.clone()).prop_flat_map(|s| {
            let n = s.len();
            Just((0..n).collect::<Vec<usize>>())
                .prop_shuffle()
                .prop_map(move |perm| layout(&s, &perm, 1, 0, 0))
        });
        (out, prop::collection::vec(arb_layout(sizes), 1..4))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_folded_plan_visits_the_layouts_elements((out, inputs) in arb_case()) {
        let refs: Vec<Option<&Layout>> = inputs.iter().map(Some).collect();
        let plan = ElementwisePlan::new(&out, &refs);
        let mut all: Vec<&Layout> = vec![&out];
        all.extend(inputs.iter());
        prop_assert_eq!(plan_positions(&plan, all.len()), layout_positions(&all));
        prop_assert!(plan.sizes.len() <= out.ndim().max(1));
        // A number's slot never moves.
        let with_number = ElementwisePlan::new(&out, &[Some(&inputs[0]), None]);
        prop_assert!(with_number.strides[2].iter().all(|&s| s == 0));
        prop_assert_eq!(with_number.offsets[2], 0);
    }
}
