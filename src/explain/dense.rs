//! New dense tensors from computed values: laid out as TensorIterator lays out a unary op's
//! result, contiguous, or with given strides (offset 0, every element once), on another
//! tensor's device. The values are written in storage order, so nothing else is allocated.

use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::scalar::Scalar;
use crate::tensor::Tensor;

/// A new tensor of `shape` whose strides are TensorIterator's for a unary op of `like`
/// (dense, offset 0), holding `values` in row-major logical order.
pub fn dense_like(like: &Tensor, values: &[f64], dtype: DType) -> Result<Tensor> {
    let op = crate::layout::broadcast::Operand {
        sizes: like.sizes(),
        strides: like.strides(),
    };
    let strides = crate::layout::broadcast::output_strides(like.sizes(), &[op]);
    laid_out(like.sizes(), &strides, values, dtype, like)
}

/// A contiguous tensor of `shape` holding `values`, on `like`'s device.
pub fn contiguous(shape: &[i64], values: &[f64], dtype: DType, like: &Tensor) -> Result<Tensor> {
    let strides = crate::layout::contiguity::contiguous_strides(shape);
    laid_out(shape, &strides, values, dtype, like)
}

pub fn laid_out(
    shape: &[i64],
    strides: &[i64],
    values: &[f64],
    dtype: DType,
    like: &Tensor,
) -> Result<Tensor> {
    let layout = Layout::from_parts(shape.into(), strides.into(), 0);
    let mut storage_order = vec![Scalar::Float(0.0); values.len()];
    for (idx, v) in layout.indices().zip(values) {
        let at: i64 = idx.iter().zip(strides).map(|(i, s)| i * s).sum();
        storage_order[at as usize] = if dtype.is_floating() {
            Scalar::Float(*v)
        } else if dtype == DType::Bool {
            Scalar::Bool(*v != 0.0)
        } else {
            Scalar::Int(*v as i64)
        };
    }
    let flat = Tensor::from_values(&[values.len() as i64], &storage_order, Some(dtype))?;
    Tensor::from_storage(flat.storage().clone(), layout, dtype)?.placed_on(like.device())
}
