//! [`Layout`]: sizes, strides and a storage offset, in elements, and the row-major
//! enumeration of a shape's indices.

use super::contiguity::{self, MemoryFormat};
use super::dims::{Dims, check_sizes_nonnegative};
use crate::error::{ErrorKind, Result, TensorError};

/// Where a dense strided tensor's elements sit in its storage: element `(i0, .., in)` is at
/// storage element `offset + sum(ik * strides[k])`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    // Visible to the layout module's files (views edit them in place).
    pub(super) sizes: Dims,
    pub(super) strides: Dims,
    pub(super) offset: i64,
}

impl Layout {
    /// A layout from parts. Sizes must be non-negative and the lists of equal length.
    pub fn new(sizes: &[i64], strides: &[i64], offset: i64) -> Result<Layout> {
        if sizes.len() != strides.len() {
            return Err(TensorError::new(
                ErrorKind::Other,
                format!(
                    "mismatch in length of strides and shape: {} vs {}",
                    strides.len(),
                    sizes.len()
                ),
            ));
        }
        check_sizes_nonnegative(sizes)?;
        if offset < 0 {
            return Err(TensorError::new(
                ErrorKind::Other,
                format!("Tensor: invalid storage offset {offset}"),
            ));
        }
        Ok(Layout::from_parts(
            Dims::from_slice(sizes),
            Dims::from_slice(strides),
            offset,
        ))
    }

    /// A layout from parts already checked by the caller.
    pub(crate) fn from_parts(sizes: Dims, strides: Dims, offset: i64) -> Layout {
        debug_assert_eq!(sizes.len(), strides.len());
        Layout {
            sizes,
            strides,
            offset,
        }
    }

    /// The row-major (contiguous) layout of `sizes` at offset zero.
    pub fn contiguous(sizes: &[i64]) -> Layout {
        Layout::from_parts(
            Dims::from_slice(sizes),
            contiguity::contiguous_strides(sizes),
            0,
        )
    }

    /// The layout of `sizes` in a memory format at offset zero.
    pub fn with_format(sizes: &[i64], format: MemoryFormat) -> Result<Layout> {
        Ok(Layout::from_parts(
            Dims::from_slice(sizes),
            contiguity::strides_for_format(sizes, format)?,
            0,
        ))
    }

    pub fn sizes(&self) -> &[i64] {
        &self.sizes
    }

    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    /// The storage offset, in elements.
    pub fn offset(&self) -> i64 {
        self.offset
    }

    pub fn ndim(&self) -> usize {
        self.sizes.len()
    }

    /// The element count; saturates at `i64::MAX` (more than any storage holds) when the
    /// product of the sizes overflows, so that a hostile shape is refused by the size
    /// checks after it instead of wrapping (or panicking in debug builds).
    pub fn numel(&self) -> i64 {
        if self.sizes.contains(&0) {
            return 0;
        }
        self.sizes
            .iter()
            .try_fold(1i64, |acc, &n| acc.checked_mul(n))
            .unwrap_or(i64::MAX)
    }

    /// Storage element addressed by a logical index (one entry per dimension).
    pub fn element_at(&self, index: &[i64]) -> i64 {
        debug_assert_eq!(index.len(), self.ndim());
        self.offset
            + index
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<i64>()
    }

    /// Byte address of a logical index from the storage start: itemsize x element.
    pub fn byte_at(&self, index: &[i64], itemsize: usize) -> i64 {
        self.element_at(index) * itemsize as i64
    }

    /// NumPy-style strides: bytes to step along each dimension.
    pub fn byte_strides(&self, itemsize: usize) -> Dims {
        self.strides.iter().map(|s| s * itemsize as i64).collect()
    }

    /// The lowest and one-past-highest storage elements addressed, or `None` when empty.
    pub fn element_span(&self) -> Option<(i64, i64)> {
        if self.numel() == 0 {
            return None;
        }
        let mut lo = self.offset;
        let mut hi = self.offset;
        for (&n, &s) in self.sizes.iter().zip(&self.strides) {
            let reach = (n - 1) * s;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        Some((lo, hi + 1))
    }

    /// Storage elements needed to hold every addressed element (0 when empty).
    pub fn required_storage_elems(&self) -> i64 {
        self.element_span().map_or(0, |(_, end)| end)
    }

    pub fn is_contiguous(&self) -> bool {
        contiguity::is_contiguous(&self.sizes, &self.strides)
    }

    /// PyTorch's `is_contiguous(memory_format=...)`.
    pub fn is_contiguous_as(&self, format: MemoryFormat) -> bool {
        contiguity::is_contiguous_as(&self.sizes, &self.strides, format)
    }

    /// The logical indices in row-major order, for references and small tensors.
    pub fn indices(&self) -> IndexIter {
        IndexIter::new(&self.sizes)
    }
}

/// Row-major enumeration of every index tuple of a shape.
pub struct IndexIter {
    sizes: Dims,
    next: Option<Dims>,
}

impl IndexIter {
    pub fn new(sizes: &[i64]) -> IndexIter {
        let empty = sizes.contains(&0);
        IndexIter {
            sizes: Dims::from_slice(sizes),
            next: if empty {
                None
            } else {
                Some(Dims::from_elem(0, sizes.len()))
            },
        }
    }
}

impl Iterator for IndexIter {
    type Item = Dims;

    fn next(&mut self) -> Option<Dims> {
        let current = self.next.take()?;
        let mut following = current.clone();
        let mut d = following.len();
        loop {
            if d == 0 {
                break;
            }
            d -= 1;
            following[d] += 1;
            if following[d] < self.sizes[d] {
                self.next = Some(following);
                break;
            }
            following[d] = 0;
        }
        Some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_iter_row_major() {
        let all: Vec<Dims> = IndexIter::new(&[2, 2]).collect();
        assert_eq!(all.len(), 4);
        assert_eq!(all[1].as_slice(), &[0, 1]);
        assert_eq!(IndexIter::new(&[]).count(), 1);
        assert_eq!(IndexIter::new(&[3, 0]).count(), 0);
    }
}
