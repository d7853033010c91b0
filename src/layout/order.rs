//! TensorIterator's dimension order: an operand's strides over a broadcast shape, and the
//! order (innermost first) in which an element-wise op walks its dimensions. Below both
//! contiguity (`infer_dense_strides` sorts with it) and broadcasting (result layouts).

use super::dims::Dims;

/// An operand's strides over `shape` (which it must broadcast to): 0 for a missing leading
/// dimension and for a size-1 dimension stretched to another size.
pub fn broadcast_strides(sizes: &[i64], strides: &[i64], shape: &[i64]) -> Dims {
    let lead = shape.len() - sizes.len();
    (0..shape.len())
        .map(|i| match i.checked_sub(lead) {
            Some(k) if !(sizes[k] == 1 && shape[i] != 1) => strides[k],
            _ => 0,
        })
        .collect()
}

/// One input of an element-wise op: its sizes and strides before broadcasting.
#[derive(Debug, Clone, Copy)]
pub struct Operand<'a> {
    pub sizes: &'a [i64],
    pub strides: &'a [i64],
}

/// TensorIterator's dimension order (`reorder_dimensions`) for `operands` (outputs first when
/// they exist): innermost first. Dimensions are sorted by the operands' strides, the first
/// operand with an opinion deciding (broadcast dimensions have none; equal strides put the
/// smaller size inside); ties keep the row-major order.
pub fn iteration_order(shape: &[i64], operands: &[Operand<'_>]) -> Dims {
    let ndim = shape.len();
    if ndim <= 1 {
        return (0..ndim as i64).collect();
    }
    let strides: Vec<Dims> = operands
        .iter()
        .map(|o| broadcast_strides(o.sizes, o.strides, shape))
        .collect();
    // perm[0] is the innermost dimension.
    let mut perm: Dims = (0..ndim as i64).rev().collect();
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for s in &strides {
            let (s0, s1) = (s[d0], s[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    for i in 1..ndim {
        let mut dim1 = i;
        for dim0 in (0..i).rev() {
            match should_swap(perm[dim0] as usize, perm[dim1] as usize) {
                c if c > 0 => {
                    perm.swap(dim0, dim1);
                    dim1 = dim0;
                }
                c if c < 0 => break,
                _ => {}
            }
        }
    }
    perm
}
