//! The copy plan: one description of an element-wise copy (or fill) that every backend runs.
//!
//! Building a plan drops size-1 dimensions, orders dimensions by the destination's strides,
//! folds dimensions that are contiguous in both operands into one, and detects a plain
//! memcpy. Kernel choice and launch geometry for the GPU are derived from the same plan, so
//! the CPU reference and the GPU run exactly the same element mapping.

use crate::dtype::DType;
use crate::layout::{Dims, Layout};

pub mod elementwise;
mod fold;
pub use elementwise::ElementwisePlan;
pub use fold::fold_dims;
use fold::offset_at;

/// What a plan does, decided once when it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanKind {
    /// Nothing to move: some dimension has size 0.
    Empty,
    /// Both sides are one contiguous run of the same dtype: a byte copy of this many bytes.
    Memcpy { bytes: usize },
    /// A strided element-wise copy (with a dtype conversion when the dtypes differ).
    Strided,
}

/// An element mapping from a source layout to a destination layout of the same shape. A
/// fill has a source with every stride 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyPlan {
    /// Folded sizes, outermost first (by destination stride).
    pub sizes: Dims,
    pub dst_strides: Dims,
    pub src_strides: Dims,
    pub dst_offset: i64,
    pub src_offset: i64,
    pub dst_dtype: DType,
    pub src_dtype: DType,
    pub kind: PlanKind,
}

impl CopyPlan {
    /// Plans `dst[i] = src[i]` for every logical index `i`. `src` must already have `dst`'s
    /// shape (broadcast dimensions carry stride 0).
    pub fn copy(dst: &Layout, dst_dtype: DType, src: &Layout, src_dtype: DType) -> CopyPlan {
        debug_assert_eq!(dst.sizes(), src.sizes());
        Self::build(dst, dst_dtype, src.strides(), src.offset(), src_dtype)
    }

    /// Plans a visit of every element of `dst` (a fill or an in-place update).
    pub fn elementwise(dst: &Layout, dtype: DType) -> CopyPlan {
        let zeros = Dims::from_elem(0, dst.ndim());
        Self::build(dst, dtype, &zeros, 0, dtype)
    }

    fn build(
        dst: &Layout,
        dst_dtype: DType,
        src_strides: &[i64],
        src_offset: i64,
        src_dtype: DType,
    ) -> CopyPlan {
        let (sizes, [dst_strides, src_strides], empty) =
            fold_dims(dst.sizes(), [dst.strides(), src_strides]);
        let numel: i64 = sizes.iter().product();
        let kind = if empty {
            PlanKind::Empty
        } else if dst_dtype == src_dtype
            && dst_strides.iter().all(|&d| d == 1)
            && src_strides.iter().all(|&s| s == 1)
            && sizes.len() <= 1
        {
            PlanKind::Memcpy {
                bytes: numel as usize * dst_dtype.itemsize(),
            }
        } else {
            PlanKind::Strided
        };
        CopyPlan {
            sizes,
            dst_strides,
            src_strides,
            dst_offset: dst.offset(),
            src_offset,
            dst_dtype,
            src_dtype,
            kind,
        }
    }

    pub fn numel(&self) -> i64 {
        if self.kind == PlanKind::Empty {
            0
        } else {
            self.sizes.iter().product()
        }
    }

    /// Calls `row(dst_start, src_start, len, dst_step, src_step)` for every innermost row,
    /// in elements. Allocation-free for rank <= 8.
    pub fn for_each_row(&self, mut row: impl FnMut(i64, i64, i64, i64, i64)) {
        if self.kind == PlanKind::Empty {
            return;
        }
        let rank = self.sizes.len();
        if rank == 0 {
            row(self.dst_offset, self.src_offset, 1, 1, 1);
            return;
        }
        let inner = rank - 1;
        let (len, dstep, sstep) = (
            self.sizes[inner],
            self.dst_strides[inner],
            self.src_strides[inner],
        );
        let mut idx = Dims::from_elem(0, inner);
        let (mut d, mut s) = (self.dst_offset, self.src_offset);
        loop {
            row(d, s, len, dstep, sstep);
            // Odometer over the outer dimensions.
            let mut k = inner;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                idx[k] += 1;
                d += self.dst_strides[k];
                s += self.src_strides[k];
                if idx[k] < self.sizes[k] {
                    break;
                }
                d -= self.dst_strides[k] * self.sizes[k];
                s -= self.src_strides[k] * self.sizes[k];
                idx[k] = 0;
            }
        }
    }
    /// The plan as sub-plans of at most `max_rank` dimensions: the outermost dimensions
    /// beyond `max_rank` are walked here, each of their indices giving one sub-plan over
    /// the inner dimensions (for kernels with fixed-size dimension arrays). A plan within
    /// the limit comes back whole.
    pub fn split_outer(&self, max_rank: usize) -> impl Iterator<Item = CopyPlan> + '_ {
        let extra = self.sizes.len().saturating_sub(max_rank);
        let outer = if extra == 0 || self.kind == PlanKind::Empty {
            crate::layout::IndexIter::new(&[])
        } else {
            crate::layout::IndexIter::new(&self.sizes[..extra])
        };
        outer.map(move |idx| self.inner(&idx))
    }

    /// The plan over the dimensions after the first `idx.len()`, at index `idx` of those:
    /// same inner sizes and strides, offsets moved to that index.
    pub fn inner(&self, idx: &[i64]) -> CopyPlan {
        let n = idx.len();
        CopyPlan {
            sizes: Dims::from_slice(&self.sizes[n..]),
            dst_strides: Dims::from_slice(&self.dst_strides[n..]),
            src_strides: Dims::from_slice(&self.src_strides[n..]),
            dst_offset: self.dst_offset + offset_at(idx, &self.dst_strides),
            src_offset: self.src_offset + offset_at(idx, &self.src_strides),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::view;

    #[test]
    fn contiguous_copy_is_memcpy() {
        let l = Layout::contiguous(&[4, 1, 3]);
        let p = CopyPlan::copy(&l, DType::F32, &l, DType::F32);
        assert_eq!(p.kind, PlanKind::Memcpy { bytes: 48 });
        assert_eq!(p.sizes.as_slice(), &[12]);
        let p = CopyPlan::copy(&l, DType::F16, &l, DType::F32);
        assert_eq!(p.kind, PlanKind::Strided);
    }

    #[test]
    fn transpose_gather_keeps_two_dims() {
        let base = Layout::contiguous(&[4, 3]);
        let t = view::transpose(&base, 0, 1).unwrap();
        let out = Layout::contiguous(&[3, 4]);
        let p = CopyPlan::copy(&out, DType::F32, &t, DType::F32);
        assert_eq!(p.sizes.as_slice(), &[3, 4]);
        assert_eq!(p.src_strides.as_slice(), &[1, 3]);
        let mut rows = Vec::new();
        p.for_each_row(|d, s, n, _, _| rows.push((d, s, n)));
        assert_eq!(rows, vec![(0, 0, 4), (4, 1, 4), (8, 2, 4)]);
    }

    #[test]
    fn empty_and_scalar() {
        let e = Layout::contiguous(&[3, 0]);
        assert_eq!(CopyPlan::elementwise(&e, DType::I8).kind, PlanKind::Empty);
        let s = Layout::contiguous(&[]);
        let p = CopyPlan::elementwise(&s, DType::I8);
        let mut n = 0;
        p.for_each_row(|_, _, len, _, _| n += len);
        assert_eq!(n, 1);
    }
}

/// A row gather along dim 0 (index_select, embedding lookup): `dst[r, :] =
/// src[index[r], :]` for `num_rows` indices, rows of `row_len` elements contiguous on both
/// sides. Sizes, strides and offsets are in elements. Both backends run this description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowGatherShape {
    pub num_rows: i64,
    pub row_len: i64,
    pub src_rows: i64,
    pub src_row_stride: i64,
    pub dst_row_stride: i64,
    pub src_offset: i64,
    pub dst_offset: i64,
}

impl RowGatherShape {
    /// The position of the first index outside `0..src_rows` (negative ones included, as
    /// `torch.index_select` refuses them), checked before either backend writes anything.
    pub fn first_out_of_range(&self, index: &[i64]) -> Option<usize> {
        index.iter().position(|&i| i < 0 || i >= self.src_rows)
    }
}
