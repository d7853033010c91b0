//! Dimension lists and the checks and messages PyTorch gives for them: [`Dims`] (inline up
//! to rank 8), dimension wrapping, negative sizes, `[2, 3]` formatting.

use smallvec::SmallVec;

use crate::error::{ErrorKind, Result, TensorError};

/// A list of sizes or strides, inline up to rank 8.
pub type Dims = SmallVec<[i64; 8]>;

/// PyTorch's dimension wrapping: `dim` may be negative; rank 0 accepts -1 and 0.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = (ndim as i64).max(1);
    if dim < -n || dim >= n {
        return Err(TensorError::new(
            ErrorKind::DimOutOfRange,
            format!(
                "Dimension out of range (expected to be in range of [{}, {}], but got {})",
                -n,
                n - 1,
                dim
            ),
        ));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// Rejects negative sizes with PyTorch's message.
pub fn check_sizes_nonnegative(sizes: &[i64]) -> Result<()> {
    if let Some(bad) = sizes.iter().find(|&&s| s < 0) {
        return Err(TensorError::new(
            ErrorKind::InvalidShape,
            format!("Trying to create tensor with negative dimension {bad}: {sizes:?}"),
        ));
    }
    Ok(())
}

/// Formats a dimension list the way PyTorch's messages do: `[2, 3]`.
pub fn fmt_dims(dims: &[i64]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_dim_messages() {
        assert_eq!(wrap_dim(-1, 3).unwrap(), 2);
        assert_eq!(wrap_dim(0, 0).unwrap(), 0);
        let e = wrap_dim(1, 0).unwrap_err();
        assert_eq!(
            e.message,
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
        );
        assert_eq!(e.kind, ErrorKind::DimOutOfRange);
    }
}
