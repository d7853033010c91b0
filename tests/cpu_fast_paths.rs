//! The CPU backend's fast paths (tiles, wide moves, slice conversions, thread splits)
//! against the simple reference walk (`cpu::reference::copy`), byte for byte, over random
//! layouts: any strides (negative, zero for broadcasts, overlapping windows in the source;
//! gapped, reversed, permuted and sometimes self-overlapping destinations), every dtype pair
//! and 1 to 3 threads with grains small enough to split these sizes.

use proptest::prelude::*;
use stridekit::DType;
use stridekit::backend::cpu::{self, Parallelism};
use stridekit::layout::Layout;
use stridekit::plan::CopyPlan;

/// A layout of `sizes` with the given strides, its offset chosen so the lowest element is
/// at `pad`; returns it with the number of elements its storage needs.
fn placed(sizes: &[i64], strides: &[i64], pad: i64) -> (Layout, usize) {
    let low: i64 = sizes
        .iter()
        .zip(strides)
        .map(|(n, s)| (n - 1) * s.min(&0))
        .sum();
    let high: i64 = sizes
        .iter()
        .zip(strides)
        .map(|(n, s)| (n - 1) * s.max(&0))
        .sum();
    let offset = pad - low;
    let layout = Layout::new(sizes, strides, offset).unwrap();
    (layout, (offset + high + 1) as usize)
}

/// Contiguous strides of `sizes` taken in `order` (outermost first), each dimension
/// optionally reversed, with `gap` extra elements per step of the innermost one.
fn dense(sizes: &[i64], order: &[usize], flips: &[bool], gap: i64) -> Vec<i64> {
    let mut strides = vec![0; sizes.len()];
    let mut step = 1 + gap;
    for &k in order.iter().rev() {
        strides[k] = if flips[k] { -step } else { step };
        step *= sizes[k];
    }
    strides
}

#[derive(Debug, Clone)]
struct Case {
    sizes: Vec<i64>,
    dst_strides: Vec<i64>,
    src_strides: Vec<i64>,
    dst_dtype: DType,
    src_dtype: DType,
    threads: usize,
    grain: usize,
    seed: u64,
}

fn dtype() -> impl Strategy<Value = DType> {
    (0..DType::ALL.len()).prop_map(|i| DType::ALL[i])
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=5)
        .prop_flat_map(|rank| {
            let max = [0, 300, 70, 24, 10, 6][rank];
            proptest::collection::vec(1i64..=max, rank)
        })
        .prop_flat_map(|sizes| {
            let r = sizes.len();
            let order = Just((0..r).collect::<Vec<_>>()).prop_shuffle();
            let src_kind = prop_oneof![
                // A permuted, flipped dense source (transposes, reversals).
                (order.clone(), proptest::collection::vec(any::<bool>(), r), 0i64..2)
                    .prop_map(|(o, f, g)| (o, f, g, None)),
                // Any strides: broadcast (0), overlapping windows, steps, negative.
                proptest::collection::vec(-5i64..=5, r).prop_map(|s| (vec![], vec![], 0, Some(s))),
            ];
            let dst_kind = prop_oneof![
                4 => (order, proptest::collection::vec(any::<bool>(), r), 0i64..2)
                    .prop_map(|(o, f, g)| (o, f, g, None)),
                1 => proptest::collection::vec(-3i64..=3, r).prop_map(|s| (vec![], vec![], 0, Some(s))),
            ];
            (
                Just(sizes),
                src_kind,
                dst_kind,
                (dtype(), dtype()),
                1usize..=3,
                prop_oneof![Just(64usize), Just(4096), Just(cpu::GRAIN_BYTES)],
                any::<u64>(),
            )
        })
        .prop_map(|(sizes, s, d, (dt, st), threads, grain, seed)| {
            let strides = |(o, f, g, any): (Vec<usize>, Vec<bool>, i64, Option<Vec<i64>>)| {
                any.unwrap_or_else(|| dense(&sizes, &o, &f, g))
            };
            // Same dtype half the time: the width-specialised movers.
            let st = if seed % 2 == 0 { dt } else { st };
            Case {
                dst_strides: strides(d),
                src_strides: strides(s),
                sizes,
                dst_dtype: dt,
                src_dtype: st,
                threads,
                grain,
                seed,
            }
        })
}

/// Random bytes (NaNs, infinities and subnormals of every float type included).
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn fast_paths_write_what_the_reference_walk_writes(c in case()) {
        let (src, src_elems) = placed(&c.sizes, &c.src_strides, (c.seed % 3) as i64);
        let (dst, dst_elems) = placed(&c.sizes, &c.dst_strides, (c.seed % 5) as i64);
        let plan = CopyPlan::copy(&dst, c.dst_dtype, &src, c.src_dtype);
        let input = bytes(src_elems * c.src_dtype.itemsize(), c.seed);
        let dst_len = dst_elems * c.dst_dtype.itemsize();
        let mut want = vec![0x5Au8; dst_len];
        cpu::reference::copy(&plan, &mut want, &input);
        let mut got = vec![0x5Au8; dst_len];
        let par = Parallelism { threads: c.threads, grain_bytes: c.grain };
        cpu::copy_with(&plan, &mut got, &input, par);
        prop_assert!(got == want, "{:?}\nplan {:?}", c, plan);
    }
}
