//! Broadcasting and the layout of element-wise results, as PyTorch's TensorIterator decides
//! them.
//!
//! * [`broadcast_shapes`]: shapes align from the right; a size-1 (or missing) dimension takes
//!   the other size; anything else must agree, with PyTorch's message.
//! * [`broadcast_strides`]: an operand's strides over the broadcast shape (0 where it is
//!   broadcast), as TensorIterator's `compute_strides` gives them.
//! * [`output_strides`]: the strides of a freshly allocated result. When every operand has
//!   the output's shape and all are contiguous, all channels_last, or all dense with equal
//!   strides, the result takes that layout (TensorIterator's fast setup). Otherwise the
//!   dimensions are sorted innermost-first by the operands' strides (the first operand with
//!   an opinion decides; broadcast dimensions have none; equal strides put the smaller size
//!   inside) and the result is dense in that order, so a permuted or channels_last input gives
//!   a permuted or channels_last result.

use super::contiguity::MemoryFormat;
use super::contiguity::{
    contiguous_strides, is_contiguous, is_contiguous_as, is_non_overlapping_and_dense,
};
use super::dims::{Dims, fmt_dims};
pub use super::order::{Operand, broadcast_strides, iteration_order};
use crate::error::{ErrorKind, Result, TensorError};

/// The broadcast shape of `shapes` (in order), or PyTorch's error for the first pair that
/// does not broadcast: "The size of tensor a (3) must match the size of tensor b (2) at
/// non-singleton dimension 1" (a: the shape so far, b: the next one; the dimension counts in
/// the result). As c10's `infer_size`, each pair is compared from the last dimension, so
/// the message names the last mismatching one.
pub fn broadcast_shapes(shapes: &[&[i64]]) -> Result<Dims> {
    let mut out = Dims::new();
    for b in shapes {
        let n = out.len().max(b.len());
        let mut next = Dims::from_elem(1, n);
        for i in (0..n).rev() {
            let da = (i + out.len()).checked_sub(n).map_or(1, |k| out[k]);
            let db = (i + b.len()).checked_sub(n).map_or(1, |k| b[k]);
            next[i] = if da == db || db == 1 {
                da
            } else if da == 1 {
                db
            } else {
                return Err(TensorError::new(
                    ErrorKind::ExpandInvalid,
                    format!(
                        "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
                    ),
                ));
            };
        }
        out = next;
    }
    Ok(out)
}

/// PyTorch's check that an output (an in-place op's self, a copy's destination) is not
/// itself broadcast: its sizes must be the broadcast shape.
pub fn check_output_shape(out: &[i64], shape: &[i64]) -> Result<()> {
    if shape != out {
        return Err(TensorError::new(
            ErrorKind::ExpandInvalid,
            format!(
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_dims(out),
                fmt_dims(shape)
            ),
        ));
    }
    Ok(())
}

/// The strides of the result of an element-wise op of `inputs` (in argument order) with the
/// broadcast shape `shape`.
pub fn output_strides(shape: &[i64], inputs: &[Operand<'_>]) -> Dims {
    if let Some(s) = fast_setup(shape, inputs) {
        return s;
    }
    let ndim = shape.len();
    if ndim <= 1 {
        return contiguous_strides(shape);
    }
    let perm = iteration_order(shape, inputs);
    if perm
        .iter()
        .enumerate()
        .all(|(j, &p)| p as usize == ndim - 1 - j)
    {
        return contiguous_strides(shape);
    }
    // Dense in the sorted order (sizes not clamped to 1, as TensorIterator's compatible_stride).
    let mut out = Dims::from_elem(0, ndim);
    let mut next = 1;
    for &d in &perm {
        out[d as usize] = next;
        next *= shape[d as usize];
    }
    out
}

/// TensorIterator's fast setup: every operand of the output's shape and all contiguous, all
/// channels_last (4-d), or all dense with the same strides.
fn fast_setup(shape: &[i64], inputs: &[Operand<'_>]) -> Option<Dims> {
    if inputs.is_empty() || inputs.iter().any(|o| o.sizes != shape) {
        return None;
    }
    if inputs.iter().all(|o| is_contiguous(o.sizes, o.strides)) {
        return Some(contiguous_strides(shape));
    }
    if inputs
        .iter()
        .all(|o| is_contiguous_as(o.sizes, o.strides, MemoryFormat::ChannelsLast))
    {
        return super::contiguity::strides_for_format(shape, MemoryFormat::ChannelsLast).ok();
    }
    let first = inputs[0].strides;
    let same = inputs
        .iter()
        .all(|o| is_non_overlapping_and_dense(o.sizes, o.strides) && o.strides == first);
    same.then(|| Dims::from_slice(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op<'a>(sizes: &'a [i64], strides: &'a [i64]) -> Operand<'a> {
        Operand { sizes, strides }
    }

    #[test]
    fn shapes_broadcast_from_the_right() {
        assert_eq!(
            broadcast_shapes(&[&[2, 3], &[3]]).unwrap().as_slice(),
            &[2, 3]
        );
        assert_eq!(
            broadcast_shapes(&[&[2, 1], &[2]]).unwrap().as_slice(),
            &[2, 2]
        );
        assert_eq!(
            broadcast_shapes(&[&[], &[4, 1], &[1, 5]])
                .unwrap()
                .as_slice(),
            &[4, 5]
        );
        let e = broadcast_shapes(&[&[2, 3], &[2]]).unwrap_err();
        assert_eq!(
            e.message,
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
        );
    }

    #[test]
    fn results_keep_the_inputs_order() {
        // The seeds: channels_last in, channels_last out (cl + 1).
        let cl = [60, 1, 15, 3];
        let s = output_strides(&[2, 3, 4, 5], &[op(&[2, 3, 4, 5], &cl), op(&[], &[])]);
        assert_eq!(s.as_slice(), &cl);
        // A transpose plus a contiguous tensor: the first operand decides (measured in 2.11).
        assert_eq!(
            output_strides(&[3, 2], &[op(&[3, 2], &[1, 3]), op(&[3, 2], &[2, 1])]).as_slice(),
            &[1, 3]
        );
        assert_eq!(
            output_strides(&[3, 2], &[op(&[3, 2], &[2, 1]), op(&[3, 2], &[1, 3])]).as_slice(),
            &[2, 1]
        );
        // A slice with a gap: dense in its order.
        assert_eq!(
            output_strides(&[2, 2], &[op(&[2, 2], &[1, 6]), op(&[], &[])]).as_slice(),
            &[1, 2]
        );
    }
}
