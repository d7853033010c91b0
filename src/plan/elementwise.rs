//! The element-wise plan: the layouts of an element-wise op's output and tensor inputs,
//! folded together by the folding the copy plan uses ([`super::fold_dims`]), so that both backends
//! and every kernel address exactly the same elements. Inputs are given already broadcast to
//! the output's shape (stride 0 along broadcast dimensions).

use super::fold::{fold_dims, offset_at};
use crate::layout::{Dims, IndexIter, Layout};

/// The output and at most three tensor inputs (`where(c, a, b)`, `clamp(a, lo, hi)`).
pub const MAX_OPERANDS: usize = 4;

/// Folded dimensions of an element-wise op: operand 0 is the output, operand k + 1 is the
/// op's input k (a Python number has no layout: its strides stay 0 and are never read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementwisePlan {
    /// Folded sizes, outermost first (by the output's strides).
    pub sizes: Dims,
    pub strides: [Dims; MAX_OPERANDS],
    pub offsets: [i64; MAX_OPERANDS],
    /// Some dimension has size 0: nothing to compute.
    pub empty: bool,
}

impl ElementwisePlan {
    /// Plans `out[i] = op(inputs[0][i], ...)` for every logical index `i`; `inputs[k]` is
    /// input k's layout (None for a number), of `out`'s shape.
    ///
    /// # Panics
    /// With more than `MAX_OPERANDS - 1` inputs, or an input of another shape (callers
    /// broadcast first).
    pub fn new(out: &Layout, inputs: &[Option<&Layout>]) -> ElementwisePlan {
        assert!(inputs.len() < MAX_OPERANDS, "{} inputs", inputs.len());
        let zeros = Dims::from_elem(0, out.ndim());
        let mut strides: [&[i64]; MAX_OPERANDS] = [&zeros; MAX_OPERANDS];
        let mut offsets = [0; MAX_OPERANDS];
        strides[0] = out.strides();
        offsets[0] = out.offset();
        for (k, input) in inputs.iter().enumerate() {
            if let Some(l) = input {
                assert_eq!(l.sizes(), out.sizes(), "inputs are broadcast first");
                strides[k + 1] = l.strides();
                offsets[k + 1] = l.offset();
            }
        }
        let (sizes, strides, empty) = fold_dims(out.sizes(), strides);
        ElementwisePlan {
            sizes,
            strides,
            offsets,
            empty,
        }
    }

    pub fn numel(&self) -> i64 {
        if self.empty {
            0
        } else {
            self.sizes.iter().product()
        }
    }

    /// The plan as sub-plans of at most `max_rank` dimensions (for kernels with fixed-size
    /// dimension arrays), as [`super::CopyPlan::split_outer`].
    pub fn split_outer(&self, max_rank: usize) -> impl Iterator<Item = ElementwisePlan> + '_ {
        let extra = self.sizes.len().saturating_sub(max_rank);
        let outer = if extra == 0 || self.empty {
            IndexIter::new(&[])
        } else {
            IndexIter::new(&self.sizes[..extra])
        };
        outer.map(move |idx| self.inner(&idx))
    }

    /// The plan over the dimensions after the first `idx.len()`, at index `idx` of those.
    fn inner(&self, idx: &[i64]) -> ElementwisePlan {
        let n = idx.len();
        ElementwisePlan {
            sizes: Dims::from_slice(&self.sizes[n..]),
            strides: std::array::from_fn(|j| Dims::from_slice(&self.strides[j][n..])),
            offsets: std::array::from_fn(|j| self.offsets[j] + offset_at(idx, &self.strides[j])),
            empty: self.empty,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{broadcast::broadcast_strides, view};

    fn broadcast(l: &Layout, shape: &[i64]) -> Layout {
        Layout::from_parts(
            Dims::from_slice(shape),
            broadcast_strides(l.sizes(), l.strides(), shape),
            l.offset(),
        )
    }

    #[test]
    fn contiguous_operands_fold_to_one_dimension() {
        let out = Layout::contiguous(&[4, 5, 6]);
        let p = ElementwisePlan::new(&out, &[Some(&out), None, Some(&out)]);
        assert_eq!(p.sizes.as_slice(), &[120]);
        assert_eq!(p.strides[0].as_slice(), &[1]);
        assert_eq!(p.strides[1].as_slice(), &[1]);
        // A number's slot is all zeros, and folds with anything.
        assert_eq!(p.strides[2].as_slice(), &[0]);
        assert_eq!(p.strides[3].as_slice(), &[1]);
        assert_eq!(p.numel(), 120);
    }

    #[test]
    fn a_broadcast_row_keeps_two_dimensions() {
        // scores [2, 3] + bias [3]: the bias has stride 0 along dim 0.
        let out = Layout::contiguous(&[2, 3]);
        let bias = broadcast(&Layout::contiguous(&[3]), &[2, 3]);
        let p = ElementwisePlan::new(&out, &[Some(&out), Some(&bias)]);
        assert_eq!(p.sizes.as_slice(), &[2, 3]);
        assert_eq!(p.strides[2].as_slice(), &[0, 1]);
    }

    #[test]
    fn channels_last_output_orders_by_its_strides() {
        // A channels_last result of [2, 3, 4, 5]: folded outermost first by the output's
        // strides (N, then H*W folded, then C), a contiguous input permuted along.
        let cl = view::permute(&Layout::contiguous(&[2, 4, 5, 3]), &[0, 3, 1, 2]).unwrap();
        let nchw = Layout::contiguous(&[2, 3, 4, 5]);
        let p = ElementwisePlan::new(&cl, &[Some(&cl), Some(&nchw)]);
        assert_eq!(p.sizes.as_slice(), &[2, 20, 3]);
        assert_eq!(p.strides[0].as_slice(), &[60, 3, 1]);
        assert_eq!(p.strides[1].as_slice(), &[60, 3, 1]);
        assert_eq!(p.strides[2].as_slice(), &[60, 1, 20]);
    }

    #[test]
    fn flipped_input_keeps_its_negative_stride_and_offset() {
        // flip's source view: read backwards from the last element.
        let x = Layout::contiguous(&[6]);
        let f = Layout::new(&[6], &[-1], 5).unwrap();
        let p = ElementwisePlan::new(&x, &[Some(&x), Some(&f)]);
        assert_eq!(p.sizes.as_slice(), &[6]);
        assert_eq!(p.strides[2].as_slice(), &[-1]);
        assert_eq!(p.offsets[2], 5);
    }

    #[test]
    fn split_outer_covers_the_same_offsets() {
        let sizes = [2, 3, 2, 2, 3, 2, 2, 2, 3, 2];
        let base = Layout::contiguous(&sizes);
        let rev: Vec<i64> = (0..10).rev().collect();
        let src = view::permute(&base, &rev).unwrap();
        let out = Layout::contiguous(src.sizes());
        let p = ElementwisePlan::new(&out, &[Some(&src)]);
        assert_eq!(p.sizes.len(), 10);
        let subs: Vec<ElementwisePlan> = p.split_outer(8).collect();
        assert_eq!(subs.len(), 6);
        let mut seen: Vec<i64> = subs.iter().map(|s| s.offsets[0]).collect();
        seen.sort_unstable();
        // The outer [2, 3] of the output (strides 1728, 576).
        assert_eq!(seen, vec![0, 576, 1152, 1728, 2304, 2880]);
        assert!(subs.iter().all(|s| s.sizes.len() == 8));
        assert_eq!(p.split_outer(10).count(), 1);
        let e = ElementwisePlan::new(&Layout::contiguous(&[0, 3]), &[]);
        assert!(e.empty);
        assert_eq!(e.numel(), 0);
    }
}
