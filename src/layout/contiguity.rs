//! Contiguity, memory formats and the stride choices of PyTorch's copies.
//!
//! These follow c10's rules exactly, including their quirks: size-1 dimensions are ignored
//! by contiguity checks, contiguous strides treat size 0 as 1 while channels_last strides do
//! not, and a tensor counts as "strides like channels_last" by a heuristic that falls back to
//! the default format in ambiguous cases.

use super::dims::Dims;
use super::order::{Operand, iteration_order};
use crate::error::{ErrorKind, Result, TensorError};

/// PyTorch's memory formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryFormat {
    /// Row-major: the last dimension varies fastest.
    Contiguous,
    /// NHWC order for a 4-d NCHW tensor.
    ChannelsLast,
    /// NDHWC order for a 5-d NCDHW tensor.
    ChannelsLast3d,
    /// Keep the input's layout (copies only).
    Preserve,
}

impl MemoryFormat {
    /// The attribute name in the `torch` module.
    pub fn torch_name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "contiguous_format",
            MemoryFormat::ChannelsLast => "channels_last",
            MemoryFormat::ChannelsLast3d => "channels_last_3d",
            MemoryFormat::Preserve => "preserve_format",
        }
    }

    pub fn from_torch_attr(name: &str) -> Option<MemoryFormat> {
        Some(match name {
            "contiguous_format" => MemoryFormat::Contiguous,
            "channels_last" => MemoryFormat::ChannelsLast,
            "channels_last_3d" => MemoryFormat::ChannelsLast3d,
            "preserve_format" => MemoryFormat::Preserve,
            _ => return None,
        })
    }

    /// Dimension order from outermost to innermost (fastest) for a format's rank.
    fn physical_order(self) -> &'static [usize] {
        match self {
            MemoryFormat::ChannelsLast => &[0, 2, 3, 1],
            MemoryFormat::ChannelsLast3d => &[0, 2, 3, 4, 1],
            _ => &[],
        }
    }
}

/// Row-major strides; a size-0 dimension steps like a size-1 one, as in PyTorch.
pub fn contiguous_strides(sizes: &[i64]) -> Dims {
    let mut strides = Dims::from_elem(1, sizes.len());
    for d in (0..sizes.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * sizes[d + 1].max(1);
    }
    strides
}

/// Strides of a fresh tensor in `format`. Channels-last formats need rank 4 or 5.
pub fn strides_for_format(sizes: &[i64], format: MemoryFormat) -> Result<Dims> {
    match format {
        MemoryFormat::Contiguous | MemoryFormat::Preserve => Ok(contiguous_strides(sizes)),
        MemoryFormat::ChannelsLast | MemoryFormat::ChannelsLast3d => {
            let rank = format.physical_order().len();
            if sizes.len() != rank {
                let name = format.torch_name();
                return Err(TensorError::new(
                    ErrorKind::DimOutOfRange,
                    format!("required rank {rank} tensor to use {name} format"),
                ));
            }
            // Unlike contiguous strides, size 0 is not clamped to 1 here (c10 does the same).
            let mut strides = Dims::from_elem(0, rank);
            let mut step = 1;
            for &d in format.physical_order().iter().rev() {
                strides[d] = step;
                step *= sizes[d];
            }
            Ok(strides)
        }
    }
}

/// Row-major contiguity, ignoring size-1 dimensions; empty tensors are contiguous.
pub fn is_contiguous(sizes: &[i64], strides: &[i64]) -> bool {
    if sizes.contains(&0) {
        return true;
    }
    dense_in_order(sizes, strides, (0..sizes.len()).rev())
}

/// Walks dimensions from innermost to outermost and checks each non-size-1 one steps by the
/// product of the sizes inside it.
fn dense_in_order(
    sizes: &[i64],
    strides: &[i64],
    inner_to_outer: impl Iterator<Item = usize>,
) -> bool {
    let mut expected = 1;
    for d in inner_to_outer {
        if sizes[d] != 1 {
            if strides[d] != expected {
                return false;
            }
            expected *= sizes[d];
        }
    }
    true
}

fn is_channels_last_contiguous_nd(sizes: &[i64], strides: &[i64], format: MemoryFormat) -> bool {
    let order = format.physical_order();
    sizes.len() == order.len() && dense_in_order(sizes, strides, order.iter().rev().copied())
}

/// PyTorch's `is_contiguous(memory_format=format)`.
pub fn is_contiguous_as(sizes: &[i64], strides: &[i64], format: MemoryFormat) -> bool {
    match format {
        MemoryFormat::Contiguous | MemoryFormat::Preserve => is_contiguous(sizes, strides),
        MemoryFormat::ChannelsLast | MemoryFormat::ChannelsLast3d => {
            is_channels_last_contiguous_nd(sizes, strides, format)
        }
    }
}

/// c10's heuristic "strides like channels_last": the format `suggest_memory_format` picks.
fn is_strides_like(sizes: &[i64], strides: &[i64], format: MemoryFormat) -> bool {
    let order = format.physical_order();
    if sizes.len() != order.len() || strides[1] == 0 {
        return false;
    }
    let mut min = 0;
    for &d in order.iter().rev() {
        if sizes[d] == 0 || strides[d] < min {
            return false;
        }
        // Ambiguous N111-like cases fall back to the default format.
        if d == 0 && min == strides[1] {
            return false;
        }
        min = strides[d];
        if sizes[d] > 1 {
            min *= sizes[d];
        }
    }
    true
}

/// PyTorch's `suggest_memory_format()`: the format a copy preserving layout falls back to.
pub fn suggest_memory_format(sizes: &[i64], strides: &[i64]) -> MemoryFormat {
    match sizes.len() {
        4 if is_strides_like(sizes, strides, MemoryFormat::ChannelsLast) => {
            MemoryFormat::ChannelsLast
        }
        5 if is_strides_like(sizes, strides, MemoryFormat::ChannelsLast3d) => {
            MemoryFormat::ChannelsLast3d
        }
        _ => MemoryFormat::Contiguous,
    }
}

/// Whether the elements fill a gap-free block, each addressed once, in some dimension order.
pub fn is_non_overlapping_and_dense(sizes: &[i64], strides: &[i64]) -> bool {
    if is_contiguous(sizes, strides)
        || is_contiguous_as(sizes, strides, MemoryFormat::ChannelsLast)
        || is_contiguous_as(sizes, strides, MemoryFormat::ChannelsLast3d)
    {
        return true;
    }
    if sizes.len() == 1 {
        return sizes[0] < 2 || strides[0] == 1;
    }
    let mut perm: Dims = (0..sizes.len() as i64).collect();
    // Dimensions of size < 2 go last; the rest by increasing stride.
    perm.sort_by_key(|&d| (sizes[d as usize] < 2, strides[d as usize]));
    let mut required = 1;
    for &d in &perm {
        let d = d as usize;
        if sizes[d] < 2 {
            return true;
        }
        if strides[d] != required {
            return false;
        }
        required *= sizes[d];
    }
    true
}

/// The strides `empty_like(x)` gives a non-dense `x` under `preserve_format`: a dense layout
/// that keeps the order of `x`'s strides (PyTorch's `infer_dense_strides`, which sorts like
/// TensorIterator: stride-0 dimensions stay in place, equal strides put the smaller size
/// first).
pub fn infer_dense_strides(sizes: &[i64], strides: &[i64]) -> Dims {
    let ndim = sizes.len();
    if ndim == 0 {
        return Dims::new();
    }
    if ndim == 1 {
        return Dims::from_elem(1, 1);
    }
    // The same sort as TensorIterator's, over this one operand.
    let perm = iteration_order(sizes, &[Operand { sizes, strides }]);
    let mut out = Dims::from_elem(0, ndim);
    let mut step = 1;
    for &d in &perm {
        out[d as usize] = step;
        if sizes[d as usize] > 1 {
            step *= sizes[d as usize];
        }
    }
    out
}

/// Strides of a copy of `(sizes, strides)` made with `format`, as `clone`, `contiguous`,
/// `to` and `empty_like` choose them.
pub fn strides_for_copy(sizes: &[i64], strides: &[i64], format: MemoryFormat) -> Result<Dims> {
    match format {
        MemoryFormat::Preserve => Ok(if is_non_overlapping_and_dense(sizes, strides) {
            Dims::from_slice(strides)
        } else {
            infer_dense_strides(sizes, strides)
        }),
        other => strides_for_format(sizes, other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_last_strides_match_the_seed() {
        let s = strides_for_format(&[2, 3, 4, 5], MemoryFormat::ChannelsLast).unwrap();
        assert_eq!(s.as_slice(), &[60, 1, 15, 3]);
        assert!(!is_contiguous(&[2, 3, 4, 5], &s));
        assert!(is_contiguous_as(
            &[2, 3, 4, 5],
            &s,
            MemoryFormat::ChannelsLast
        ));
        assert_eq!(
            suggest_memory_format(&[2, 3, 4, 5], &s),
            MemoryFormat::ChannelsLast
        );
        let s3 = strides_for_format(&[2, 3, 4, 5, 6], MemoryFormat::ChannelsLast3d).unwrap();
        assert_eq!(s3.as_slice(), &[360, 1, 90, 18, 3]);
        assert!(strides_for_format(&[2, 3], MemoryFormat::ChannelsLast).is_err());
    }

    #[test]
    fn size_one_relaxation() {
        // A (2, 1, 3) tensor transposed to (1, 2, 3) has strides (3, 3, 1) and is contiguous.
        assert!(is_contiguous(&[1, 2, 3], &[3, 3, 1]));
        assert!(!is_contiguous(&[3, 2], &[1, 3]));
        assert!(is_contiguous(&[0, 2], &[7, 9]));
    }

    #[test]
    fn dense_permutations() {
        assert!(is_non_overlapping_and_dense(&[3, 4], &[1, 3]));
        assert!(!is_non_overlapping_and_dense(&[2, 2], &[2, 2]));
        assert!(!is_non_overlapping_and_dense(&[2, 3], &[0, 1]));
        assert!(!is_non_overlapping_and_dense(&[2, 2], &[4, 1]));
    }

    #[test]
    fn infer_dense_keeps_order() {
        assert_eq!(
            infer_dense_strides(&[6, 5, 4, 3, 2], &[6, 0, 120, 0, 1]).as_slice(),
            &[6, 36, 180, 2, 1]
        );
        assert_eq!(infer_dense_strides(&[2, 2], &[1, 4]).as_slice(), &[1, 2]);
    }
}
