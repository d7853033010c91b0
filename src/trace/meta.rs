//! The metadata of a tensor another library made (PyTorch, seen by the live tracer): its
//! layout, its storage's identity and size. Checked when it arrives, so that the
//! accounting over it never overflows and never reads past a storage.

use crate::accounting::Accountable;
use crate::layout::Layout;

/// Why the tracer refused an event or a tensor.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("tensor '{name}': {message}")]
    BadTensor { name: String, message: String },
    #[error("storage {0} was created twice without a free")]
    StorageTwice(u64),
    #[error("allocator: {0}")]
    Alloc(#[from] crate::alloc::AllocError),
    #[error("threshold {name}: {message}")]
    BadThreshold { name: &'static str, message: String },
    #[error("cannot write the trace {path}: {message}")]
    Write { path: String, message: String },
}

/// One tensor as the tracer saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMeta {
    pub name: String,
    /// The storage's identity (the caller numbers its storages; equal keys, same storage).
    pub storage: u64,
    pub storage_nbytes: u64,
    pub layout: Layout,
    pub itemsize: usize,
}

impl TensorMeta {
    /// Checks the parts: sizes non-negative, every product within i64, and every element
    /// the layout addresses inside the storage (as PyTorch guarantees for a real tensor).
    pub fn new(
        name: &str,
        storage: u64,
        storage_nbytes: u64,
        sizes: &[i64],
        strides: &[i64],
        offset: i64,
        itemsize: usize,
    ) -> Result<TensorMeta, TraceError> {
        let bad = |message: String| TraceError::BadTensor {
            name: name.to_string(),
            message,
        };
        if sizes.len() > 64 {
            return Err(bad(format!("{} dimensions (at most 64)", sizes.len())));
        }
        if !(1..=16).contains(&itemsize) {
            return Err(bad(format!("itemsize {itemsize} (1 to 16)")));
        }
        let layout = Layout::new(sizes, strides, offset).map_err(|e| bad(e.message))?;
        let mut numel: i64 = 1;
        for &n in sizes {
            numel = numel
                .checked_mul(n)
                .ok_or_else(|| bad("number of elements overflows".into()))?;
        }
        if numel > 0 {
            // Lowest and highest element addressed, in checked arithmetic.
            let (mut lo, mut hi) = (offset, offset);
            for (&n, &s) in sizes.iter().zip(strides) {
                let reach = (n - 1)
                    .checked_mul(s)
                    .ok_or_else(|| bad("extent overflows".into()))?;
                if reach < 0 {
                    lo = lo
                        .checked_add(reach)
                        .ok_or_else(|| bad("extent overflows".into()))?;
                } else {
                    hi = hi
                        .checked_add(reach)
                        .ok_or_else(|| bad("extent overflows".into()))?;
                }
            }
            let end_bytes = (hi as i128 + 1) * itemsize as i128;
            if lo < 0 || end_bytes > storage_nbytes as i128 {
                return Err(bad(format!(
                    "addresses elements {lo}..={hi} of {itemsize} bytes, outside its storage of {storage_nbytes} bytes"
                )));
            }
        }
        Ok(TensorMeta {
            name: name.to_string(),
            storage,
            storage_nbytes,
            layout,
            itemsize,
        })
    }
}

impl Accountable for TensorMeta {
    fn storage_key(&self) -> u64 {
        self.storage
    }
    fn storage_nbytes(&self) -> u64 {
        self.storage_nbytes
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }
    fn itemsize(&self) -> usize {
        self.itemsize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::{account, addressed_bytes};

    #[test]
    fn a_row_of_a_matrix_addresses_its_row() {
        let base = TensorMeta::new("x", 7, 48, &[4, 3], &[3, 1], 0, 4).unwrap();
        let row = TensorMeta::new("r", 7, 48, &[3], &[1], 3, 4).unwrap();
        assert_eq!(addressed_bytes(&[&row]), 12);
        let a = account([("r", &row)]);
        assert_eq!(a.storages[0].retained_unaddressed_bytes, 36);
        let a = account([("x", &base), ("r", &row)]);
        assert_eq!(a.storages.len(), 1);
        assert_eq!(a.totals.logical_bytes, 60);
        assert_eq!(a.totals.unique_storage_bytes, 48);
    }

    #[test]
    fn hostile_metadata_is_refused() {
        let e = TensorMeta::new("x", 1, 48, &[4, 3], &[3, 1], 1, 4).unwrap_err();
        assert!(e.to_string().contains("outside its storage"), "{e}");
        let e = TensorMeta::new("x", 1, 48, &[i64::MAX, 3], &[3, 1], 0, 4).unwrap_err();
        assert!(e.to_string().contains("overflows"), "{e}");
        let e = TensorMeta::new("x", 1, 48, &[2, 2], &[i64::MAX, 1], 0, 4).unwrap_err();
        assert!(e.to_string().contains("overflows"), "{e}");
        assert!(TensorMeta::new("x", 1, 48, &[2], &[1, 1], 0, 4).is_err());
        assert!(TensorMeta::new("x", 1, 48, &[-1], &[1], 0, 4).is_err());
        assert!(TensorMeta::new("x", 1, 48, &[2], &[-1], 0, 4).is_err());
        assert!(TensorMeta::new("x", 1, 48, &[2], &[1], 0, 0).is_err());
        // Zero elements address nothing, wherever they start.
        assert!(TensorMeta::new("x", 1, 0, &[0, 5], &[5, 1], 9, 4).is_ok());
    }
}
