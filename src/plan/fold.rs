//! The dimension folding every plan shares (the copy plan and the element-wise plan), below
//! both so that neither imports the other for it.

use crate::layout::Dims;

/// The element offset of index `idx` of the outermost `idx.len()` dimensions.
pub(super) fn offset_at(idx: &[i64], strides: &[i64]) -> i64 {
    idx.iter().zip(strides).map(|(i, s)| i * s).sum()
}

/// The dimension folding every plan shares (copies and element-wise ops): drops size-1
/// dimensions, orders the rest outermost first by the first operand's (the destination's)
/// stride magnitude, ties keeping logical order, and merges neighbours that are contiguous
/// with each other in EVERY operand. Returns the folded sizes, each operand's folded
/// strides, and whether some dimension has size 0. Allocation-free for rank <= 8.
pub fn fold_dims<const N: usize>(sizes: &[i64], strides: [&[i64]; N]) -> (Dims, [Dims; N], bool) {
    let mut dims: smallvec::SmallVec<[(i64, [i64; N]); 8]> = sizes
        .iter()
        .enumerate()
        .filter(|(_, n)| **n != 1)
        .map(|(k, &n)| (n, std::array::from_fn(|j| strides[j][k])))
        .collect();
    let empty = dims.iter().any(|&(n, _)| n == 0);
    // Outermost first in destination memory order; ties keep logical order.
    dims.sort_by_key(|d| std::cmp::Reverse(d.1[0].unsigned_abs()));
    let mut folded: smallvec::SmallVec<[(i64, [i64; N]); 8]> = smallvec::SmallVec::new();
    for (n, s) in dims {
        match folded.last_mut() {
            // Checked: an empty tensor's strides are unbounded (a product that overflows
            // cannot equal a stride).
            Some(outer) if (0..N).all(|j| s[j].checked_mul(n) == Some(outer.1[j])) => {
                outer.0 *= n;
                outer.1 = s;
            }
            _ => folded.push((n, s)),
        }
    }
    let sizes: Dims = folded.iter().map(|t| t.0).collect();
    let strides = std::array::from_fn(|j| folded.iter().map(|t| t.1[j]).collect());
    (sizes, strides, empty)
}
