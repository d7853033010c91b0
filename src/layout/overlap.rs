//! Exact overlap questions: does a view address an element twice, do two views share one,
//! and which bytes of a storage a set of views addresses.
//!
//! PyTorch only proves the easy cases (a stride-0 dimension; two dense tensors whose ranges
//! intersect) and lets the rest through. stridekit answers exactly: an overlapping
//! `as_strided` or `unfold` window view is detected too.

use super::contiguity::is_non_overlapping_and_dense;
use super::dims::Dims;
use super::strided::{IndexIter, Layout};

/// Most bits the exact fallback of [`internal_overlap`] may mark (512 KiB of bitmap), and
/// with it the most addresses it may visit.
pub const EXACT_OVERLAP_WORK_CAP: i64 = 1 << 22;

/// Most element runs [`overlap_status_bounded`] may list for one view.
pub const RUN_WORK_CAP: i64 = 1 << 20;

/// The answer of a bounded overlap test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalOverlap {
    /// No storage element is addressed twice.
    No,
    /// Some storage element is addressed by two logical indices.
    Yes,
    /// Not decided within [`EXACT_OVERLAP_WORK_CAP`] (PyTorch's `TOO_HARD`).
    TooHard,
}

/// Whether some storage element is addressed by two different logical indices, exactly
/// (the tensor layer's question, for views of storage that exists: the fallback's bitmap
/// is the view's span in bits).
pub fn has_internal_overlap(l: &Layout) -> bool {
    match internal_overlap(l) {
        InternalOverlap::No => false,
        InternalOverlap::Yes => true,
        InternalOverlap::TooHard => {
            exact_internal_overlap(&steps_innermost_first(l), i64::MAX).unwrap_or(true)
        }
    }
}

/// [`has_internal_overlap`] in time and memory bounded by the metadata: O(ndim^2) work for
/// every layout the sorted strides decide (a stride 0; each stride past the reach of the
/// smaller ones, after dividing out common factors and peeling separated dimensions; two
/// interleaved dimensions, solved exactly; more elements than addresses), then an exact
/// search over at most [`EXACT_OVERLAP_WORK_CAP`] addresses, else [`InternalOverlap::TooHard`].
/// Every sum is checked: a span past `i64::MAX` is too hard, never a wrapped value.
pub fn internal_overlap(l: &Layout) -> InternalOverlap {
    if l.numel() <= 1 {
        return InternalOverlap::No;
    }
    let mut dims = steps_innermost_first(l);
    if dims.iter().any(|&(_, s)| s == 0) {
        return InternalOverlap::Yes;
    }
    loop {
        let before = dims.len();
        reduce_by_gcd(&mut dims);
        peel_separated(&mut dims);
        if dims.len() == before || dims.len() <= 1 {
            break;
        }
    }
    match dims.len() {
        0 | 1 => return InternalOverlap::No,
        2 => return two_dims_overlap(dims[0], dims[1]),
        _ => {}
    }
    let Some(span) = span_of(&dims) else {
        return InternalOverlap::TooHard;
    };
    let numel = dims
        .iter()
        .try_fold(1i64, |acc, &(n, _)| acc.checked_mul(n));
    if numel.is_none_or(|n| n > span) {
        return InternalOverlap::Yes; // pigeonhole
    }
    match exact_internal_overlap(&dims, EXACT_OVERLAP_WORK_CAP) {
        Some(true) => InternalOverlap::Yes,
        Some(false) => InternalOverlap::No,
        None => InternalOverlap::TooHard,
    }
}

/// 1 + the sum of (n - 1) * s: the addresses a view spans, or None past `i64::MAX`.
fn span_of(dims: &[(i64, i64)]) -> Option<i64> {
    dims.iter().try_fold(1i64, |acc, &(n, s)| {
        acc.checked_add((n - 1).checked_mul(s)?)
    })
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Divides every stride by their common factor (the same index pairs collide).
fn reduce_by_gcd(dims: &mut SmallDims) {
    let g = dims.iter().fold(0, |g, &(_, s)| gcd(g, s));
    if g > 1 {
        dims.iter_mut().for_each(|d| d.1 /= g);
    }
}

/// Drops the dimensions that cannot take part in a collision: the largest stride when it
/// steps past the reach of all the others (its copies are disjoint), and the smallest
/// when its reach stays below the common factor of the others (every address splits
/// uniquely into its part and theirs).
fn peel_separated(dims: &mut SmallDims) {
    while dims.len() > 1 {
        let s = dims[dims.len() - 1].1;
        match span_of(&dims[..dims.len() - 1]) {
            Some(span) if s >= span => {
                dims.pop();
            }
            _ => break,
        }
    }
    while dims.len() > 1 {
        let (n, s) = dims[0];
        let g = dims[1..].iter().fold(0, |g, &(_, t)| gcd(g, t));
        match (n - 1).checked_mul(s) {
            Some(reach) if reach < g => {
                dims.remove(0);
            }
            _ => break,
        }
    }
}

/// Two dimensions (n_a, a), (n_b, b), a < b, coprime after [`reduce_by_gcd`]: i*a + j*b
/// repeats iff some (di, dj) != 0 with |di| < n_a, |dj| < n_b has di*a = dj*b, and the
/// smallest such pair is (b, a).
fn two_dims_overlap((na, a): (i64, i64), (nb, b): (i64, i64)) -> InternalOverlap {
    let g = gcd(a, b);
    if b / g < na && a / g < nb {
        InternalOverlap::Yes
    } else {
        InternalOverlap::No
    }
}

/// Marks every address of the view in a bitmap of its span (an odometer over the
/// dimensions, no allocation per element); None when the span exceeds `cap` addresses.
fn exact_internal_overlap(dims: &[(i64, i64)], cap: i64) -> Option<bool> {
    let span = span_of(dims)?;
    if span > cap {
        return None;
    }
    let mut seen = vec![0u64; usize::try_from(span).ok()?.div_ceil(64)];
    let mut idx: SmallDims = dims.iter().map(|_| (0, 0)).collect();
    let mut at: i64 = 0;
    loop {
        let (w, b) = ((at / 64) as usize, 1u64 << (at % 64));
        if seen[w] & b != 0 {
            return Some(true);
        }
        seen[w] |= b;
        // The next index, innermost first: each step stays inside the span.
        let mut d = 0;
        loop {
            if d == dims.len() {
                return Some(false);
            }
            let (n, s) = dims[d];
            if idx[d].0 + 1 < n {
                idx[d].0 += 1;
                at += s;
                break;
            }
            at -= (n - 1) * s;
            idx[d].0 = 0;
            d += 1;
        }
    }
}

type SmallDims = smallvec::SmallVec<[(i64, i64); 8]>;

/// (size, |stride|) of every dimension that can step (size > 1), smallest stride first.
fn steps_innermost_first(l: &Layout) -> SmallDims {
    let mut dims: SmallDims = l
        .sizes()
        .iter()
        .zip(l.strides())
        .filter(|(n, _)| **n > 1)
        .map(|(&n, &s)| (n, s.saturating_abs()))
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
    overlap_status_within(a, b, i64::MAX).unwrap_or(Overlap::Partial)
}

/// [`overlap_status`] in work bounded by the metadata: identical views and disjoint spans
/// in O(ndim), dense views by their ranges, else by the views' element runs when neither
/// has more than [`RUN_WORK_CAP`] of them; None (undecided) beyond that.
pub fn overlap_status_bounded(a: &Layout, b: &Layout) -> Option<Overlap> {
    overlap_status_within(a, b, RUN_WORK_CAP)
}

fn overlap_status_within(a: &Layout, b: &Layout, cap: i64) -> Option<Overlap> {
    if a.numel() == 0 || b.numel() == 0 {
        return Some(Overlap::No);
    }
    // Identical views (PyTorch calls dense views "full" overlap only when their strides are
    // equal too, even in size-1 dimensions).
    if a == b {
        return Some(Overlap::Full);
    }
    let (Some((a0, a1)), Some((b0, b1))) = (a.element_span(), b.element_span()) else {
        return Some(Overlap::No);
    };
    if a1 <= b0 || b1 <= a0 {
        return Some(Overlap::No);
    }
    let (ra, rb) = (element_runs_within(a, cap)?, element_runs_within(b, cap)?);
    Some(if runs_intersect(&ra, &rb) {
        Overlap::Partial
    } else {
        Overlap::No
    })
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
    element_runs_within(l, i64::MAX).unwrap_or_default()
}

/// [`element_runs`] when there are at most `cap` runs before merging; None beyond.
fn element_runs_within(l: &Layout, cap: i64) -> Option<Vec<(i64, i64)>> {
    let Some((lo, hi)) = l.element_span() else {
        return Some(Vec::new());
    };
    if is_non_overlapping_and_dense(l.sizes(), l.strides()) {
        return Some(vec![(lo, hi)]);
    }
    // Innermost first, broadcast (stride-0) dimensions dropped (they add no element); fold
    // a stride-1 chain into one run length.
    let mut dims = steps_innermost_first(l);
    dims.retain(|d| d.1 != 0);
    let mut run = 1i64;
    let mut k = 0;
    while k < dims.len() && dims[k].1 == run {
        run *= dims[k].0;
        k += 1;
    }
    let count = dims[k..]
        .iter()
        .try_fold(1i64, |acc, &(n, _)| acc.checked_mul(n))?;
    if count > cap {
        return None;
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
    Some(merge_runs(runs))
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

    /// Brute force: every address of the view, counted.
    fn brute_internal(l: &Layout) -> bool {
        let mut seen = std::collections::HashSet::new();
        l.indices().any(|i| !seen.insert(l.element_at(&i)))
    }

    #[test]
    fn bounded_internal_overlap_agrees_with_brute_force() {
        use proptest::prelude::*;
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 4000,
            ..ProptestConfig::default()
        });
        let dims = proptest::collection::vec((0i64..6, 0i64..14), 0..5);
        runner
            .run(&dims, |d| {
                let sizes: Vec<i64> = d.iter().map(|x| x.0).collect();
                let strides: Vec<i64> = d.iter().map(|x| x.1).collect();
                let l = lay(&sizes, &strides, 0);
                let want = brute_internal(&l);
                prop_assert_eq!(has_internal_overlap(&l), want, "{:?} {:?}", sizes, strides);
                match internal_overlap(&l) {
                    InternalOverlap::Yes => prop_assert!(want),
                    InternalOverlap::No => prop_assert!(!want),
                    InternalOverlap::TooHard => prop_assert!(false, "small layouts are decided"),
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn huge_layouts_are_decided_from_their_strides_or_too_hard() {
        // Two interleaved dimensions over 3.3e12 addresses: exact without a bitmap.
        assert_eq!(
            internal_overlap(&lay(&[3, 1 << 40], &[2, 3], 0)),
            InternalOverlap::No
        );
        assert_eq!(
            internal_overlap(&lay(&[4, 1 << 40], &[2, 3], 0)),
            InternalOverlap::Yes
        );
        // Common factors divided out, separated dimensions peeled.
        let l = lay(&[3, 1 << 30, 5], &[4, 6, 1 << 40], 0);
        assert_eq!(internal_overlap(&l), InternalOverlap::No);
        // Three interleaved dimensions past the cap.
        let l = lay(&[2, 2, 1 << 30], &[2, 3, 5], 0);
        assert_eq!(internal_overlap(&l), InternalOverlap::TooHard);
        // Spans past i64::MAX are too hard, never wrapped.
        let l = lay(&[3, 3, 3], &[i64::MAX / 2, i64::MAX / 3, i64::MAX / 5], 0);
        assert_ne!(internal_overlap(&l), InternalOverlap::No);
        // The dst-vs-src test gives up past its cap rather than listing 2^21 runs.
        let even = lay(&[1 << 21], &[2], 0);
        let odd = lay(&[1 << 21], &[2], 1);
        assert_eq!(overlap_status_bounded(&even, &odd), None);
        assert_eq!(overlap_status(&even, &odd), Overlap::No);
        let bcast = lay(&[1 << 40], &[0], 1);
        assert_eq!(
            overlap_status_bounded(&lay(&[4], &[2], 0), &bcast),
            Some(Overlap::No)
        );
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
