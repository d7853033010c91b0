//! Exact overlap questions: does a view address an element twice, do two views share one,
//! and which bytes of a storage a set of views addresses.
//!
//! PyTorch only proves the easy cases (a stride-0 dimension; two dense tensors whose ranges
//! intersect) and lets the rest through. stridekit answers exactly: an overlapping
//! `as_strided` or `unfold` window view is detected too.

use super::contiguity::is_non_overlapping_and_dense;
use super::dims::Dims;
use super::strided::{IndexIter, Layout};

/// Whether some storage element is addressed by two different logical indices.
pub fn has_internal_overlap(l: &Layout) -> bool {
    if l.numel() <= 1 {
        return false;
    }
    let dims = steps_innermost_first(l);
    if dims.iter().any(|&(_, s)| s == 0) {
        return true;
    }
    // Sufficient for no overlap: each stride steps past everything the smaller ones reach.
    let mut reach = 0i64;
    let mut separated = true;
    for &(n, s) in &dims {
        if s <= reach {
            separated = false;
            break;
        }
        reach += (n - 1) * s;
    }
    if separated {
        return false;
    }
    let span: i64 = 1 + dims.iter().map(|&(n, s)| (n - 1) * s).sum::<i64>();
    let numel: i64 = dims.iter().map(|&(n, _)| n).product();
    if numel > span {
        return true; // pigeonhole
    }
    // Exact: mark every address of the view relative to its lowest one.
    let sizes: Dims = dims.iter().map(|&(n, _)| n).collect();
    let strides: Dims = dims.iter().map(|&(_, s)| s).collect();
    let rel = Layout::from_parts(sizes, strides, 0);
    let mut seen = vec![0u64; (span as usize).div_ceil(64)];
    for idx in rel.indices() {
        let a = rel.element_at(&idx) as usize;
        let (w, b) = (a / 64, 1u64 << (a % 64));
        if seen[w] & b != 0 {
            return true;
        }
        seen[w] |= b;
    }
    false
}

type SmallDims = smallvec::SmallVec<[(i64, i64); 8]>;

/// (size, |stride|) of every dimension that can step (size > 1), smallest stride first.
fn steps_innermost_first(l: &Layout) -> SmallDims {
    let mut dims: SmallDims = l
        .sizes()
        .iter()
        .zip(l.strides())
        .filter(|(n, _)| **n > 1)
        .map(|(&n, &s)| (n, s.abs()))
        .collect();
    dims.sort_by_key(|&(_, s)| s);
    dims
}

/// How two views of one storage relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// No element is shared.
    No,
    /// Both address exactly the same elements in the same logical order.
    Full,
    /// Some element is shared, but the views are not identical.
    Partial,
}

/// Whether two layouts over the same storage (same itemsize) share any element.
pub fn overlap_status(a: &Layout, b: &Layout) -> Overlap {
    if a.numel() == 0 || b.numel() == 0 {
        return Overlap::No;
    }
    // Identical views (PyTorch calls dense views "full" overlap only when their strides are
    // equal too, even in size-1 dimensions).
    if a == b {
        return Overlap::Full;
    }
    let (Some((a0, a1)), Some((b0, b1))) = (a.element_span(), b.element_span()) else {
        return Overlap::No;
    };
    if a1 <= b0 || b1 <= a0 {
        return Overlap::No;
    }
    if runs_intersect(&element_runs(a), &element_runs(b)) {
        Overlap::Partial
    } else {
        Overlap::No
    }
}

fn runs_intersect(a: &[(i64, i64)], b: &[(i64, i64)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].1 <= b[j].0 {
            i += 1;
        } else if b[j].1 <= a[i].0 {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// The storage elements a layout addresses, as sorted, merged half-open runs.
pub fn element_runs(l: &Layout) -> Vec<(i64, i64)> {
    let Some((lo, hi)) = l.element_span() else {
        return Vec::new();
    };
    if is_non_overlapping_and_dense(l.sizes(), l.strides()) {
        return vec![(lo, hi)];
    }
    // Innermost first; fold a stride-1 chain into one run length.
    let dims = steps_innermost_first(l);
    let mut run = 1i64;
    let mut k = 0;
    while k < dims.len() && dims[k].1 == run {
        run *= dims[k].0;
        k += 1;
    }
    let outer_sizes: Dims = dims[k..].iter().map(|&(n, _)| n).collect();
    let outer_strides: Dims = dims[k..].iter().map(|&(_, s)| s).collect();
    // With every stride made positive, the same set of elements starts at the lowest one.
    let outer = Layout::from_parts(outer_sizes, outer_strides, lo);
    let mut runs: Vec<(i64, i64)> = IndexIter::new(outer.sizes())
        .map(|idx| {
            let s = outer.element_at(&idx);
            (s, s + run)
        })
        .collect();
    runs.sort_unstable();
    merge_runs(runs)
}

/// Merges sorted half-open runs that touch or overlap.
pub fn merge_runs(sorted: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(sorted.len());
    for (s, e) in sorted {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Whether PyTorch's own check refuses an in-place write into `l`: `has_internal_overlap`
/// answers Yes only for a layout that is not dense and has a stride-0 dimension of size > 1
/// (every other overlap is "too hard" and let through).
pub fn pytorch_refuses_internal(l: &Layout) -> bool {
    !is_non_overlapping_and_dense(l.sizes(), l.strides())
        && l.sizes()
            .iter()
            .zip(l.strides())
            .any(|(&n, &s)| s == 0 && n > 1)
}

/// Whether PyTorch's `assert_no_partial_overlap` refuses two views of one storage: both must be
/// dense, and their byte ranges intersect without being the same range with the same strides.
pub fn pytorch_refuses_partial(
    a: &Layout,
    a_itemsize: usize,
    b: &Layout,
    b_itemsize: usize,
) -> bool {
    if a.numel() == 0 || b.numel() == 0 {
        return false;
    }
    if !is_non_overlapping_and_dense(a.sizes(), a.strides())
        || !is_non_overlapping_and_dense(b.sizes(), b.strides())
    {
        return false;
    }
    let (asz, bsz) = (a_itemsize as i64, b_itemsize as i64);
    let (ab, ae) = (a.offset() * asz, (a.offset() + a.numel()) * asz);
    let (bb, be) = (b.offset() * bsz, (b.offset() + b.numel()) * bsz);
    if ab == bb && ae == be {
        return a.strides() != b.strides();
    }
    ab < be && bb < ae
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lay(sizes: &[i64], strides: &[i64], off: i64) -> Layout {
        Layout::new(sizes, strides, off).unwrap()
    }

    #[test]
    fn internal_overlap_exact() {
        assert!(has_internal_overlap(&lay(&[1000, 1000], &[0, 1], 0)));
        assert!(has_internal_overlap(&lay(&[4, 4], &[2, 1], 0))); // unfold windows
        assert!(!has_internal_overlap(&lay(&[4, 2], &[2, 1], 0)));
        assert!(!has_internal_overlap(&lay(&[3, 4], &[1, 3], 0)));
        // Interleaved but disjoint: strides 3 and 2 over sizes 2 and 2: {0,2,3,5}.
        assert!(!has_internal_overlap(&lay(&[2, 2], &[3, 2], 0)));
        // {0,2,4} + {0,3} -> 0,2,4,3,5,7: distinct; {0,2,4}+{0,4} -> overlap at 4.
        assert!(!has_internal_overlap(&lay(&[3, 2], &[2, 3], 0)));
        assert!(has_internal_overlap(&lay(&[3, 2], &[2, 4], 0)));
        assert!(!has_internal_overlap(&lay(&[5, 1], &[1, 0], 0)));
    }

    #[test]
    fn cross_overlap() {
        let x = Layout::contiguous(&[3, 3]);
        let t = super::super::view::transpose(&x, 0, 1).unwrap();
        assert_eq!(overlap_status(&x, &x), Overlap::Full);
        assert_eq!(overlap_status(&x, &t), Overlap::Partial);
        let even = lay(&[5], &[2], 0);
        let odd = lay(&[5], &[2], 1);
        assert_eq!(overlap_status(&even, &odd), Overlap::No);
        let a = lay(&[2, 2], &[3, 1], 0);
        let b = lay(&[2, 2], &[3, 1], 1);
        assert_eq!(overlap_status(&a, &b), Overlap::Partial);
        assert_eq!(overlap_status(&lay(&[0], &[1], 0), &x), Overlap::No);
    }

    #[test]
    fn runs_of_a_row_view() {
        let r = lay(&[3], &[1], 3);
        assert_eq!(element_runs(&r), vec![(3, 6)]);
        let cols = lay(&[4, 2], &[3, 1], 1);
        assert_eq!(element_runs(&cols), vec![(1, 3), (4, 6), (7, 9), (10, 12)]);
        let e = lay(&[1000, 1000], &[0, 1], 0);
        assert_eq!(element_runs(&e), vec![(0, 1000)]);
    }
}
