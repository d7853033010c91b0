//! Property tests: random chains of view operations against a naive reference that
//! enumerates every logical index and carries the storage element it addresses.

use proptest::prelude::*;
use stridekit::accounting::addressed_bytes;
use stridekit::layout::IndexIter;
use stridekit::layout::index::IndexItem;
use stridekit::layout::overlap::has_internal_overlap;
use stridekit::{DType, Tensor};

/// The reference: a shape and, in row-major order, the storage element each index
/// addresses and the value it reads.
#[derive(Clone, Debug)]
struct Naive {
    shape: Vec<i64>,
    addr: Vec<i64>,
    val: Vec<i64>,
}

impl Naive {
    fn flat(&self, idx: &[i64]) -> i64 {
        let mut flat = 0;
        for (i, n) in idx.iter().zip(&self.shape) {
            flat = flat * n + i;
        }
        flat
    }

    /// A new shape whose element at `idx` is this one's element at `map(idx)`.
    fn remap(&self, shape: Vec<i64>, map: impl Fn(&[i64]) -> Vec<i64>) -> Naive {
        let flat: Vec<usize> = IndexIter::new(&shape)
            .map(|i| self.flat(&map(&i)) as usize)
            .collect();
        Naive {
            addr: flat.iter().map(|&k| self.addr[k]).collect(),
            val: flat.iter().map(|&k| self.val[k]).collect(),
            shape,
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Transpose(usize, usize),
    Narrow(usize, i64, i64),
    Select(usize, i64),
    Slice(usize, i64, i64, i64),
    Unsqueeze(usize),
    ExpandFirstUnit(i64),
    Unfold(usize, i64, i64),
    Diagonal(i64),
    Flatten,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..6usize, 0..6usize).prop_map(|(a, b)| Op::Transpose(a, b)),
        (0..6usize, 0..4i64, 0..4i64).prop_map(|(d, s, l)| Op::Narrow(d, s, l)),
        (0..6usize, 0..4i64).prop_map(|(d, i)| Op::Select(d, i)),
        (0..6usize, 0..3i64, 0..6i64, 1..4i64).prop_map(|(d, a, b, s)| Op::Slice(d, a, b, s)),
        (0..6usize).prop_map(Op::Unsqueeze),
        (2..4i64).prop_map(Op::ExpandFirstUnit),
        (0..6usize, 1..3i64, 1..3i64).prop_map(|(d, s, t)| Op::Unfold(d, s, t)),
        (-2..3i64).prop_map(Op::Diagonal),
        Just(Op::Flatten),
    ]
}

/// Applies `op` to both; returns false (and changes nothing) when the op does not apply to
/// this shape.
fn apply(t: &mut Tensor, n: &mut Naive, op: &Op) -> bool {
    let r = n.shape.len();
    match *op {
        Op::Transpose(a, b) if a < r && b < r => {
            let mut shape = n.shape.clone();
            shape.swap(a, b);
            *n = n.remap(shape, |i| {
                let mut j = i.to_vec();
                j.swap(a, b);
                j
            });
            *t = t.transpose(a as i64, b as i64).unwrap();
            true
        }
        Op::Narrow(d, s, l) if d < r && s + l <= n.shape[d] => {
            let mut shape = n.shape.clone();
            shape[d] = l;
            *n = n.remap(shape, |i| {
                let mut j = i.to_vec();
                j[d] += s;
                j
            });
            *t = t.narrow(d as i64, s, l).unwrap();
            true
        }
        Op::Select(d, i) if d < r && i < n.shape[d] => {
            let mut shape = n.shape.clone();
            shape.remove(d);
            *n = n.remap(shape, |k| {
                let mut j = k.to_vec();
                j.insert(d, i);
                j
            });
            *t = t.select(d as i64, i).unwrap();
            true
        }
        Op::Slice(d, a, b, s) if d < r => {
            let size = n.shape[d];
            let (lo, hi) = (a.min(size), b.clamp(a.min(size), size));
            let mut shape = n.shape.clone();
            shape[d] = (hi - lo + s - 1) / s;
            *n = n.remap(shape, |k| {
                let mut j = k.to_vec();
                j[d] = lo + k[d] * s;
                j
            });
            let mut items = vec![
                IndexItem::Slice {
                    start: None,
                    stop: None,
                    step: None
                };
                d
            ];
            items.push(IndexItem::Slice {
                start: Some(a),
                stop: Some(b),
                step: Some(s),
            });
            *t = t.index(&items).unwrap();
            true
        }
        Op::Unsqueeze(d) if d <= r && r < 6 => {
            let mut shape = n.shape.clone();
            shape.insert(d, 1);
            *n = n.remap(shape, |k| {
                let mut j = k.to_vec();
                j.remove(d);
                j
            });
            *t = t.unsqueeze(d as i64).unwrap();
            true
        }
        Op::ExpandFirstUnit(to) => match n.shape.iter().position(|&s| s == 1) {
            Some(d) => {
                let mut shape = n.shape.clone();
                shape[d] = to;
                *n = n.remap(shape.clone(), |k| {
                    let mut j = k.to_vec();
                    j[d] = 0;
                    j
                });
                *t = t.expand(&shape).unwrap();
                true
            }
            None => false,
        },
        Op::Unfold(d, size, step) if d < r && size <= n.shape[d] && r < 6 => {
            let mut shape = n.shape.clone();
            shape[d] = (n.shape[d] - size) / step + 1;
            shape.push(size);
            *n = n.remap(shape, |k| {
                let mut j = k[..r].to_vec();
                j[d] = k[d] * step + k[r];
                j
            });
            *t = t.unfold(d as i64, size, step).unwrap();
            true
        }
        Op::Diagonal(off) if r >= 2 => {
            let (n0, n1) = (n.shape[0], n.shape[1]);
            let len = if off >= 0 {
                n0.min(n1 - off)
            } else {
                (n0 + off).min(n1)
            }
            .max(0);
            let mut shape = n.shape[2..].to_vec();
            shape.push(len);
            *n = n.remap(shape, |k| {
                let p = k[k.len() - 1];
                let (i, j) = if off >= 0 { (p, p + off) } else { (p - off, p) };
                let mut full = vec![i, j];
                full.extend_from_slice(&k[..k.len() - 1]);
                full
            });
            *t = t.diagonal(off, 0, 1).unwrap();
            true
        }
        Op::Flatten => {
            let numel = n.addr.len() as i64;
            let flat = t.flatten(0, -1).unwrap();
            // A view keeps the addresses in order; a copy's own storage holds them 0..numel.
            let addr = if flat.shares_storage(t) {
                n.addr.clone()
            } else {
                (0..numel).collect()
            };
            *n = Naive {
                shape: vec![numel],
                addr,
                val: n.val.clone(),
            };
            *t = flat;
            true
        }
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn view_chains_match_index_enumeration(
        shape in prop::collection::vec(1..5i64, 1..4),
        ops in prop::collection::vec(op(), 1..6),
    ) {
        let numel: i64 = shape.iter().product();
        let mut t = Tensor::arange(
            stridekit::Scalar::Int(0), stridekit::Scalar::Int(numel), stridekit::Scalar::Int(1), Some(DType::I64),
        ).unwrap().view(&shape).unwrap();
        let mut n = Naive { shape: shape.clone(), addr: (0..numel).collect(), val: (0..numel).collect() };
        for o in &ops {
            apply(&mut t, &mut n, o);
            prop_assert_eq!(t.sizes(), n.shape.as_slice(), "after {:?}", o);
            for (k, idx) in IndexIter::new(&n.shape).enumerate() {
                prop_assert_eq!(t.layout().element_at(&idx), n.addr[k], "index {:?} after {:?}", idx, o);
            }
            // Values read through the view are the storage elements it addresses.
            let vals: Vec<i64> = t.values().unwrap().iter().map(|v| match v { stridekit::Scalar::Int(i) => *i, _ => -1 }).collect();
            prop_assert_eq!(&vals, &n.val);
            // Exact overlap and addressed bytes agree with the enumeration.
            let mut uniq = n.addr.clone();
            uniq.sort_unstable();
            uniq.dedup();
            prop_assert_eq!(has_internal_overlap(t.layout()), uniq.len() != n.addr.len());
            prop_assert_eq!(addressed_bytes(&[&t]), uniq.len() as u64 * 8);
        }
    }

    #[test]
    fn view_of_a_view_preserves_logical_order(
        shape in prop::collection::vec(1..5i64, 1..4),
        perm_seed in 0..24usize,
    ) {
        let numel: i64 = shape.iter().product();
        let base = Tensor::zeros(&[numel], DType::F32).unwrap().view(&shape).unwrap();
        let r = shape.len();
        let mut dims: Vec<i64> = (0..r as i64).collect();
        dims.rotate_left(perm_seed % r);
        let p = base.permute(&dims).unwrap();
        // reshape is a view exactly when view succeeds, and both keep row-major order.
        match p.view(&[-1]) {
            Ok(v) => {
                prop_assert!(v.shares_storage(&base));
                let walk: Vec<i64> = IndexIter::new(p.sizes()).map(|i| p.layout().element_at(&i)).collect();
                let flat: Vec<i64> = (0..numel).map(|i| v.layout().element_at(&[i])).collect();
                prop_assert_eq!(walk, flat);
            }
            Err(e) => {
                prop_assert_eq!(e.kind, stridekit::ErrorKind::ViewIncompatible);
                prop_assert!(!p.reshape(&[-1]).unwrap().shares_storage(&base));
            }
        }
    }
}
