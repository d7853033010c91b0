//! View operations: each maps a layout to a new layout over the same storage, with PyTorch's
//! rules and messages. None of them allocates for rank <= 8.

use super::dims::{Dims, check_sizes_nonnegative, fmt_dims, wrap_dim};
use super::strided::Layout;
use crate::error::{ErrorKind, Result, TensorError, err};

/// PyTorch's `infer_size`: resolves one `-1` in `shape` against `numel`.
pub fn infer_size(shape: &[i64], numel: i64) -> Result<Dims> {
    let mut out = Dims::from_slice(shape);
    let mut infer_dim = None;
    let mut known: i64 = 1;
    for (d, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer_dim.is_some() {
                return err(
                    ErrorKind::InvalidShape,
                    "only one dimension can be inferred",
                );
            }
            infer_dim = Some(d);
        } else if s >= 0 {
            known = known.saturating_mul(s);
        } else {
            return err(
                ErrorKind::InvalidShape,
                format!(
                    "invalid shape dimension {s} at index {d} of shape {}",
                    fmt_dims(shape)
                ),
            );
        }
    }
    if numel == known || (infer_dim.is_some() && known > 0 && numel % known == 0) {
        if let Some(d) = infer_dim {
            if known == 0 {
                return err(
                    ErrorKind::InvalidShape,
                    format!(
                        "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 can be any value and is ambiguous",
                        fmt_dims(shape)
                    ),
                );
            }
            out[d] = numel / known;
        }
        return Ok(out);
    }
    err(
        ErrorKind::InvalidShape,
        format!(
            "shape '{}' is invalid for input of size {numel}",
            fmt_dims(shape)
        ),
    )
}

/// PyTorch's `computeStride`: strides that let `new_shape` view the same elements in the
/// same logical order, or `None` when some new dimension would span two old chunks.
pub fn compute_stride(old_shape: &[i64], old_stride: &[i64], new_shape: &[i64]) -> Option<Dims> {
    if old_shape.is_empty() {
        return Some(Dims::from_elem(1, new_shape.len()));
    }
    let numel: i64 = old_shape.iter().product();
    if numel == 0 && old_shape == new_shape {
        return Some(Dims::from_slice(old_stride));
    }
    let mut new_stride = Dims::from_elem(0, new_shape.len());
    if numel == 0 {
        for d in (0..new_shape.len()).rev() {
            new_stride[d] = if d == new_shape.len() - 1 {
                1
            } else {
                new_shape[d + 1].max(1) * new_stride[d + 1]
            };
        }
        return Some(new_stride);
    }
    let mut view_d = new_shape.len() as i64 - 1;
    let mut chunk_base_stride = *old_stride.last().unwrap();
    let mut tensor_numel: i64 = 1;
    let mut view_numel: i64 = 1;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[tensor_d];
        let chunk_ends = tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride);
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_stride[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_stride[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_stride)
}

pub const VIEW_INCOMPATIBLE_MSG: &str = "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.";

/// `x.view(shape)`: same elements, new shape; fails when the strides cannot express it.
pub fn view(l: &Layout, shape: &[i64]) -> Result<Layout> {
    let sizes = infer_size(shape, l.numel())?;
    match compute_stride(l.sizes(), l.strides(), &sizes) {
        Some(strides) => Ok(Layout::from_parts(sizes, strides, l.offset())),
        None => err(ErrorKind::ViewIncompatible, VIEW_INCOMPATIBLE_MSG),
    }
}

/// `x.reshape(shape)` as a view when the strides allow it; `Ok(None)` means "copy".
pub fn reshape_view(l: &Layout, shape: &[i64]) -> Result<std::result::Result<Layout, Dims>> {
    let sizes = infer_size(shape, l.numel())?;
    Ok(match compute_stride(l.sizes(), l.strides(), &sizes) {
        Some(strides) => Ok(Layout::from_parts(sizes, strides, l.offset())),
        None => Err(sizes),
    })
}

/// What `flatten(start_dim, end_dim)` does: return the input itself, or reshape to a shape.
pub enum Flatten {
    Same,
    Reshape(Dims),
}

pub fn flatten(l: &Layout, start_dim: i64, end_dim: i64) -> Result<Flatten> {
    let start = wrap_dim(start_dim, l.ndim())?;
    let end = wrap_dim(end_dim, l.ndim())?;
    if start > end {
        return err(
            ErrorKind::DimOutOfRange,
            "flatten() has invalid args: start_dim cannot come after end_dim",
        );
    }
    if l.ndim() == 0 {
        return Ok(Flatten::Reshape(Dims::from_elem(1, 1)));
    }
    if start == end {
        return Ok(Flatten::Same);
    }
    let s = l.sizes();
    let mut shape: Dims = s[..start].iter().copied().collect();
    shape.push(s[start..=end].iter().product());
    shape.extend_from_slice(&s[end + 1..]);
    Ok(Flatten::Reshape(shape))
}

/// `x.permute(dims)`.
pub fn permute(l: &Layout, dims: &[i64]) -> Result<Layout> {
    let n = l.ndim();
    if dims.len() != n {
        return err(
            ErrorKind::BadPermutation,
            format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {}",
                dims.len()
            ),
        );
    }
    let mut sizes = Dims::with_capacity(n);
    let mut strides = Dims::with_capacity(n);
    let mut seen = [false; 64];
    for &d in dims {
        let w = wrap_dim(d, n)?;
        if seen[w] {
            return err(
                ErrorKind::BadPermutation,
                "permute(): duplicate dims are not allowed.",
            );
        }
        seen[w] = true;
        sizes.push(l.sizes()[w]);
        strides.push(l.strides()[w]);
    }
    Ok(Layout::from_parts(sizes, strides, l.offset()))
}

/// `x.transpose(dim0, dim1)`.
pub fn transpose(l: &Layout, dim0: i64, dim1: i64) -> Result<Layout> {
    let a = wrap_dim(dim0, l.ndim())?;
    let b = wrap_dim(dim1, l.ndim())?;
    let mut out = l.clone();
    if a != b {
        out.sizes.swap(a, b);
        out.strides.swap(a, b);
    }
    Ok(out)
}

/// `x.t()`: transpose of a matrix; tensors of rank < 2 are returned as they are.
pub fn t(l: &Layout) -> Result<Layout> {
    if l.ndim() > 2 {
        return err(
            ErrorKind::DimOutOfRange,
            format!(
                "t() expects a tensor with <= 2 dimensions, but self is {}D",
                l.ndim()
            ),
        );
    }
    transpose(l, 0, if l.ndim() < 2 { 0 } else { 1 })
}

/// `x.T`: all dimensions reversed.
pub fn numpy_t(l: &Layout) -> Layout {
    let sizes = l.sizes().iter().rev().copied().collect();
    let strides = l.strides().iter().rev().copied().collect();
    Layout::from_parts(sizes, strides, l.offset())
}

/// `x.mT`: the last two dimensions swapped.
pub fn mt(l: &Layout) -> Result<Layout> {
    if l.ndim() < 2 {
        return err(
            ErrorKind::DimOutOfRange,
            format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                l.ndim()
            ),
        );
    }
    transpose(l, -2, -1)
}

/// The source of `dst.copy_(src)` broadcast to the destination's sizes, with
/// TensorIterator's messages (`scalar_type` is the source's C++ dtype name, for
/// `expand`'s). A 0-d source gets stride 0 in every dimension, size 1 included.
pub fn broadcast_for_copy(dst_sizes: &[i64], src: &Layout, scalar_type: &str) -> Result<Layout> {
    let shape = super::broadcast::broadcast_shapes(&[dst_sizes, src.sizes()])?;
    super::broadcast::check_output_shape(dst_sizes, &shape)?;
    let a = dst_sizes;
    let l = expand(src, a, scalar_type)?;
    if src.ndim() == 0 {
        let zeros = Dims::from_elem(0, l.ndim());
        return Ok(Layout::from_parts(
            Dims::from_slice(l.sizes()),
            zeros,
            l.offset(),
        ));
    }
    Ok(l)
}

/// `x.expand(sizes)`: broadcast size-1 dimensions (and new leading ones) with stride 0.
/// `scalar_type` names the element type in messages (`Float` prints as `torch.FloatTensor`).
pub fn expand(l: &Layout, sizes: &[i64], scalar_type: &str) -> Result<Layout> {
    let ndim = sizes.len();
    let tdim = l.ndim();
    if ndim < tdim {
        return err(
            ErrorKind::ExpandInvalid,
            format!(
                "expand(torch.{scalar_type}Tensor{{{}}}, size={}): the number of sizes provided ({ndim}) must be greater or equal to the number of dimensions in the tensor ({tdim})",
                fmt_dims(l.sizes()),
                fmt_dims(sizes)
            ),
        );
    }
    let mut out_sizes = Dims::from_elem(0, ndim);
    let mut out_strides = Dims::from_elem(0, ndim);
    for i in (0..ndim).rev() {
        let offset = ndim - 1 - i;
        let dim = tdim as i64 - 1 - offset as i64;
        let mut size = if dim >= 0 { l.sizes()[dim as usize] } else { 1 };
        let mut stride = if dim >= 0 {
            l.strides()[dim as usize]
        } else if i + 1 < ndim {
            // Only a size-1 (or expanded, stride-0) leading dimension gets this stride, so
            // saturating changes no address; an empty source's strides are unbounded.
            out_sizes[i + 1].saturating_mul(out_strides[i + 1])
        } else {
            1
        };
        let mut target = sizes[i];
        if target == -1 {
            if dim < 0 {
                return err(
                    ErrorKind::ExpandInvalid,
                    format!(
                        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                    ),
                );
            }
            target = size;
        }
        if size != target {
            if size != 1 {
                return err(
                    ErrorKind::ExpandInvalid,
                    format!(
                        "The expanded size of the tensor ({target}) must match the existing size ({size}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
                        fmt_dims(sizes),
                        fmt_dims(l.sizes())
                    ),
                );
            }
            size = target;
            stride = 0;
        }
        out_sizes[i] = size;
        out_strides[i] = stride;
    }
    check_sizes_nonnegative(&out_sizes)
        .map_err(|e| TensorError::new(ErrorKind::ExpandInvalid, e.message))?;
    Ok(Layout::from_parts(out_sizes, out_strides, l.offset()))
}

/// `x.narrow(dim, start, length)`.
pub fn narrow(l: &Layout, dim: i64, start: i64, length: i64) -> Result<Layout> {
    if l.ndim() == 0 {
        return err(
            ErrorKind::IndexOutOfRange,
            "narrow() cannot be applied to a 0-dim tensor.",
        );
    }
    if length < 0 {
        return err(
            ErrorKind::InvalidShape,
            "narrow(): length must be non-negative.",
        );
    }
    let d = wrap_dim(dim, l.ndim())?;
    let cur = l.sizes()[d];
    if start < -cur || start > cur {
        return err(
            ErrorKind::IndexOutOfRange,
            format!(
                "start out of range (expected to be in range of [{}, {cur}], but got {start})",
                -cur
            ),
        );
    }
    let start = if start < 0 { start + cur } else { start };
    if start > cur - length {
        return err(
            ErrorKind::IndexOutOfRange,
            format!("start ({start}) + length ({length}) exceeds dimension size ({cur})."),
        );
    }
    slice(l, d, Some(start), Some(start + length), 1)
}

/// `at::slice(dim, start, end, step)`: bounds are clamped, step must be positive.
pub fn slice(
    l: &Layout,
    dim: usize,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Layout> {
    if l.ndim() == 0 {
        return err(
            ErrorKind::IndexOutOfRange,
            "slice() cannot be applied to a 0-dim tensor.",
        );
    }
    if step <= 0 {
        return err(ErrorKind::BadStep, "slice step must be positive");
    }
    let size = l.sizes()[dim];
    let mut s = start.unwrap_or(0);
    let mut e = end.unwrap_or(i64::MAX);
    if s < 0 {
        s += size;
    }
    if e < 0 {
        e += size;
    }
    s = s.clamp(0, size);
    e = if e < s { s } else { e.min(size) };
    let mut out = l.clone();
    out.offset += s * l.strides()[dim];
    out.sizes[dim] = (e - s + step - 1) / step;
    out.strides[dim] *= step;
    Ok(out)
}

/// `x.select(dim, index)`.
pub fn select(l: &Layout, dim: i64, index: i64) -> Result<Layout> {
    if l.ndim() == 0 {
        return err(
            ErrorKind::IndexOutOfRange,
            "select() cannot be applied to a 0-dim tensor.",
        );
    }
    let d = wrap_dim(dim, l.ndim())?;
    let size = l.sizes()[d];
    if index < -size || index >= size {
        return err(
            ErrorKind::IndexOutOfRange,
            format!(
                "select(): index {index} out of range for tensor of size {} at dimension {d}",
                fmt_dims(l.sizes())
            ),
        );
    }
    Ok(select_unchecked(
        l,
        d,
        if index < 0 { index + size } else { index },
    ))
}

/// Drops dimension `d` at a valid, non-negative `index`.
pub(crate) fn select_unchecked(l: &Layout, d: usize, index: i64) -> Layout {
    let mut out = l.clone();
    out.offset += index * l.strides()[d];
    out.sizes.remove(d);
    out.strides.remove(d);
    out
}

/// `x.unsqueeze(dim)`.
pub fn unsqueeze(l: &Layout, dim: i64) -> Result<Layout> {
    let d = wrap_dim(dim, l.ndim() + 1)?;
    Ok(unsqueeze_at(l, d))
}

pub(crate) fn unsqueeze_at(l: &Layout, d: usize) -> Layout {
    let stride = if d >= l.ndim() {
        1
    } else {
        l.sizes()[d] * l.strides()[d]
    };
    let mut out = l.clone();
    out.sizes.insert(d, 1);
    out.strides.insert(d, stride);
    out
}

/// `x.squeeze()` (no dims: every size-1 dimension) or `x.squeeze(dims)`.
pub fn squeeze(l: &Layout, dims: Option<&[i64]>) -> Result<Layout> {
    let mut drop = [false; 64];
    match dims {
        None => {
            for (d, &s) in l.sizes().iter().enumerate() {
                drop[d] = s == 1;
            }
        }
        Some(dims) => {
            let mut seen = [false; 64];
            for &d in dims {
                let w = wrap_dim(d, l.ndim())?;
                if seen[w] {
                    return err(
                        ErrorKind::BadPermutation,
                        format!("dim {w} appears multiple times in the list of dims"),
                    );
                }
                seen[w] = true;
                if l.ndim() > 0 && l.sizes()[w] == 1 {
                    drop[w] = true;
                }
            }
        }
    }
    let (sizes, strides): (Dims, Dims) = l
        .sizes()
        .iter()
        .zip(l.strides())
        .zip(drop)
        .filter(|(_, dropped)| !dropped)
        .map(|((&n, &s), _)| (n, s))
        .unzip();
    Ok(Layout::from_parts(sizes, strides, l.offset()))
}

/// `x.diagonal(offset, dim1, dim2)`: the diagonal becomes the last dimension.
pub fn diagonal(l: &Layout, offset: i64, dim1: i64, dim2: i64) -> Result<Layout> {
    let d1 = wrap_dim(dim1, l.ndim())?;
    let d2 = wrap_dim(dim2, l.ndim())?;
    if d1 == d2 {
        return err(
            ErrorKind::BadPermutation,
            format!("diagonal dimensions cannot be identical {dim1}, {dim2}"),
        );
    }
    let (n1, n2) = (l.sizes()[d1], l.sizes()[d2]);
    let (s1, s2) = (l.strides()[d1], l.strides()[d2]);
    let diag = if offset >= 0 {
        n1.min(n2 - offset).max(0)
    } else {
        (n1 + offset).min(n2).max(0)
    };
    let mut start = l.offset();
    if diag > 0 {
        start += if offset >= 0 {
            offset * s2
        } else {
            -offset * s1
        };
    }
    let mut sizes = Dims::from_slice(l.sizes());
    let mut strides = Dims::from_slice(l.strides());
    for d in [d1.max(d2), d1.min(d2)] {
        sizes.remove(d);
        strides.remove(d);
    }
    sizes.push(diag);
    strides.push(s1 + s2);
    Ok(Layout::from_parts(sizes, strides, start))
}

/// `x.unfold(dim, size, step)`: windows of `size` every `step`, as a new last dimension.
pub fn unfold(l: &Layout, dim: i64, size: i64, step: i64) -> Result<Layout> {
    let n = l.ndim();
    let d = wrap_dim(dim, n)?;
    let max_size = if n == 0 { 1 } else { l.sizes()[d] };
    if size > max_size {
        return err(
            ErrorKind::InvalidShape,
            format!("maximum size for tensor at dimension {d} is {max_size} but size is {size}"),
        );
    }
    if size < 0 {
        return err(
            ErrorKind::InvalidShape,
            format!("size is {size} but must be >= 0"),
        );
    }
    if step <= 0 {
        return err(
            ErrorKind::BadStep,
            format!("step is {step} but must be > 0"),
        );
    }
    let mut sizes = Dims::from_slice(l.sizes());
    let mut strides = Dims::from_slice(l.strides());
    if n > 0 {
        sizes[d] = (l.sizes()[d] - size) / step + 1;
        strides[d] = step * l.strides()[d];
    }
    sizes.push(size);
    strides.push(if n == 0 { 1 } else { l.strides()[d] });
    Ok(Layout::from_parts(sizes, strides, l.offset()))
}

/// Bytes a layout needs from its storage start: PyTorch's `computeStorageNbytes` plus the
/// offset (0 for an empty layout, which fits any storage). Saturates at `i64::MAX` (more
/// than any storage holds, so the caller's size check refuses it) where the arithmetic
/// overflows: the same answer in debug and release builds.
pub fn required_storage_bytes(l: &Layout, itemsize: usize) -> i64 {
    if l.numel() == 0 {
        return 0;
    }
    let span = l.sizes().iter().zip(l.strides()).fold(1i64, |acc, (n, s)| {
        acc.saturating_add((n - 1).saturating_mul(*s))
    });
    span.saturating_add(l.offset())
        .saturating_mul(itemsize as i64)
}

/// `x.as_strided(size, stride, storage_offset)`, checked against the storage's size.
pub fn as_strided(
    sizes: &[i64],
    strides: &[i64],
    offset: i64,
    itemsize: usize,
    storage_nbytes: usize,
) -> Result<Layout> {
    if sizes.len() != strides.len() {
        return err(
            ErrorKind::InvalidShape,
            "mismatch in length of strides and shape",
        );
    }
    if strides.iter().any(|&s| s < 0) {
        return err(
            ErrorKind::Other,
            format!(
                "as_strided: Negative strides are not supported at the moment, got strides: {}",
                fmt_dims(strides)
            ),
        );
    }
    if offset < 0 {
        return err(
            ErrorKind::OutOfBoundsStorage,
            format!("Tensor: invalid storage offset {offset}"),
        );
    }
    // PyTorch's message for a negative size and for a size past int64.
    let overflowed = || {
        err(
            ErrorKind::InvalidShape,
            format!(
                "Storage size calculation overflowed with sizes={} and strides={}",
                fmt_dims(sizes),
                fmt_dims(strides)
            ),
        )
    };
    if sizes.iter().any(|&s| s < 0) {
        return overflowed();
    }
    let l = Layout::new(sizes, strides, offset)?;
    let needed = required_storage_bytes(&l, itemsize);
    if needed == i64::MAX {
        return overflowed();
    }
    if needed > storage_nbytes as i64 {
        return err(
            ErrorKind::OutOfBoundsStorage,
            format!(
                "setStorage: sizes {}, strides {}, storage offset {offset}, and itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage of size {storage_nbytes}",
                fmt_dims(sizes),
                fmt_dims(strides)
            ),
        );
    }
    Ok(l)
}

/// `x.movedim(source, destination)`.
pub fn movedim(l: &Layout, source: &[i64], destination: &[i64]) -> Result<Layout> {
    let n = l.ndim();
    if source.len() != destination.len() {
        return err(
            ErrorKind::BadPermutation,
            format!(
                "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as destination ({} dims)",
                fmt_dims(source),
                fmt_dims(destination)
            ),
        );
    }
    let mut order = [usize::MAX; 64];
    let mut src_used = [false; 64];
    let mut dst_used = [false; 64];
    for (&s, &d) in source.iter().zip(destination) {
        let s = wrap_dim(s, n)?;
        let d = wrap_dim(d, n)?;
        if src_used[s] {
            return err(
                ErrorKind::BadPermutation,
                format!("movedim: repeated dim in `source` ({})", fmt_dims(source)),
            );
        }
        if dst_used[d] {
            return err(
                ErrorKind::BadPermutation,
                format!(
                    "movedim: repeated dim in `destination` ({})",
                    fmt_dims(destination)
                ),
            );
        }
        src_used[s] = true;
        dst_used[d] = true;
        order[d] = s;
    }
    let mut rest_src = (0..n).filter(|&s| !src_used[s]);
    for slot in order.iter_mut().take(n) {
        if *slot == usize::MAX {
            *slot = rest_src.next().unwrap_or(0);
        }
    }
    let perm: Dims = order[..n].iter().map(|&d| d as i64).collect();
    permute(l, &perm)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lay(sizes: &[i64], strides: &[i64], off: i64) -> Layout {
        Layout::new(sizes, strides, off).unwrap()
    }

    #[test]
    fn view_after_transpose_fails_like_pytorch() {
        let x = Layout::contiguous(&[2, 3]);
        let t = transpose(&x, 0, 1).unwrap();
        let e = view(&t, &[6]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ViewIncompatible);
        assert_eq!(e.message, VIEW_INCOMPATIBLE_MSG);
        assert_eq!(view(&x, &[-1]).unwrap().strides(), &[1]);
        let v = view(&Layout::contiguous(&[17520, 17]), &[-1, 24, 17]).unwrap();
        assert_eq!(v.sizes(), &[730, 24, 17]);
        assert_eq!(v.strides(), &[408, 17, 1]);
    }

    #[test]
    fn infer_size_messages() {
        assert_eq!(
            infer_size(&[5, -1], 12).unwrap_err().message,
            "shape '[5, -1]' is invalid for input of size 12"
        );
        assert_eq!(
            infer_size(&[-1, -1], 12).unwrap_err().message,
            "only one dimension can be inferred"
        );
        assert_eq!(
            infer_size(&[-1, 0], 0).unwrap_err().kind,
            ErrorKind::InvalidShape
        );
    }

    #[test]
    fn seed_views() {
        // arange(10).unfold(0, 4, 2): shape (4, 4), strides (2, 1).
        let u = unfold(&Layout::contiguous(&[10]), 0, 4, 2).unwrap();
        assert_eq!((u.sizes(), u.strides()), (&[4i64, 4][..], &[2i64, 1][..]));
        // zeros(1, 1000).expand(1000, 1000): strides (0, 1).
        let e = expand(&Layout::contiguous(&[1, 1000]), &[1000, 1000], "Float").unwrap();
        assert_eq!(e.strides(), &[0, 1]);
        // diagonal of a contiguous (3, 4): stride 5.
        let d = diagonal(&Layout::contiguous(&[3, 4]), 0, 0, 1).unwrap();
        assert_eq!((d.sizes(), d.strides()), (&[3i64][..], &[5i64][..]));
        // mT on (2, 3, 4): strides (12, 1, 4).
        assert_eq!(
            mt(&Layout::contiguous(&[2, 3, 4])).unwrap().strides(),
            &[12, 1, 4]
        );
        // x[1:3] of a (4, 3): offset 3.
        let s = slice(&Layout::contiguous(&[4, 3]), 0, Some(1), Some(3), 1).unwrap();
        assert_eq!(s.offset(), 3);
        assert_eq!(s.element_at(&[1, 2]), 8);
        // img.unfold(2, 2, 2).unfold(3, 2, 2) on (1, 1, 4, 4).
        let img = Layout::contiguous(&[1, 1, 4, 4]);
        let p = unfold(&unfold(&img, 2, 2, 2).unwrap(), 3, 2, 2).unwrap();
        assert_eq!(p.sizes(), &[1, 1, 2, 2, 2, 2]);
        assert_eq!(p.strides(), &[16, 16, 8, 2, 4, 1]);
    }

    #[test]
    fn as_strided_bounds() {
        let e = as_strided(&[4, 4], &[3, 1], 0, 4, 40).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfBoundsStorage);
        assert_eq!(
            e.message,
            "setStorage: sizes [4, 4], strides [3, 1], storage offset 0, and itemsize 4 requiring a storage size of 52 are out of bounds for storage of size 40"
        );
        assert!(as_strided(&[4, 4], &[2, 1], 0, 4, 40).is_ok());
    }

    #[test]
    fn movedim_and_permute() {
        let l = lay(&[2, 3, 4], &[12, 4, 1], 0);
        let m = movedim(&l, &[0], &[2]).unwrap();
        assert_eq!(m.sizes(), &[3, 4, 2]);
        assert_eq!(
            permute(&l, &[0, 0, 1]).unwrap_err().kind,
            ErrorKind::BadPermutation
        );
        let p = permute(&Layout::contiguous(&[2, 3, 4]), &[2, 0, 1]).unwrap();
        assert_eq!(p.strides(), &[1, 12, 4]);
    }

    #[test]
    fn expand_errors() {
        let l = Layout::contiguous(&[2, 3]);
        let e = expand(&l, &[2, 4], "Float").unwrap_err();
        assert_eq!(e.kind, ErrorKind::ExpandInvalid);
        assert_eq!(
            e.message,
            "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]"
        );
    }

    #[test]
    fn tv209_addresses() {
        // TV-209: a 4 x 3 float32 base, strides (3, 1); its transpose has strides (1, 3).
        let base = Layout::contiguous(&[4, 3]);
        assert_eq!(base.strides(), &[3, 1]);
        let t = transpose(&base, 0, 1).unwrap();
        assert_eq!(t.sizes(), &[3, 4]);
        assert_eq!(t.strides(), &[1, 3]);
        assert_eq!(t.element_at(&[2, 1]), 5);
        assert_eq!(t.byte_at(&[2, 1], 4), 20);
        // The contiguous materialisation addresses (2, 1) at element 9, byte 36.
        let c = Layout::contiguous(&[3, 4]);
        assert_eq!(c.element_at(&[2, 1]), 9);
        assert_eq!(c.byte_at(&[2, 1], 4), 36);
        assert_eq!(base.byte_strides(4).as_slice(), &[12, 4]);
    }
}
