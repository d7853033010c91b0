//! Row gathers (`dst[r, :] = src[index[r], :]`): each row is one `copy_nonoverlapping`,
//! and gathers of at least two grains are split by rows over the thread pool.

use super::threads::{self, Parallelism};
use crate::dtype::DType;
use crate::plan::RowGatherShape;

/// Runs a row gather of `dtype` elements. An index outside `0..src_rows` (negative ones
/// included, as `torch.index_select` refuses them) stops the gather before anything is
/// written and returns its position in `index`.
///
/// # Panics
/// When a row the shape addresses lies outside either slice, or `index` is shorter than
/// `shape.num_rows` (every caller checks both first).
pub fn row_gather(
    shape: &RowGatherShape,
    dtype: DType,
    dst: &mut [u8],
    src: &[u8],
    index: &[i64],
) -> Result<(), usize> {
    row_gather_with(shape, dtype, dst, src, index, Parallelism::current())
}

/// [`row_gather`] with an explicit thread count and grain.
pub fn row_gather_with(
    shape: &RowGatherShape,
    dtype: DType,
    dst: &mut [u8],
    src: &[u8],
    index: &[i64],
    par: Parallelism,
) -> Result<(), usize> {
    let index = &index[..shape.num_rows as usize];
    if let Some(bad) = shape.first_out_of_range(index) {
        return Err(bad);
    }
    let sz = dtype.itemsize() as i128;
    let n = shape.row_len as i128 * sz;
    // Byte offset of a row start, checked to keep the whole row inside `len` bytes.
    let at = |offset: i64, row: i64, stride: i64, len: usize, side: &str| -> usize {
        let start = (offset as i128 + row as i128 * stride as i128) * sz;
        assert!(
            start >= 0 && start + n <= len as i128,
            "row gather reaches {side} bytes {start}..{} outside a {len}-byte buffer",
            start + n
        );
        start as usize
    };
    let (slen, dlen) = (src.len(), dst.len());
    let rows = index.len();
    if rows == 0 || n == 0 {
        return Ok(());
    }
    // Every row's bounds first (work bounded by the rows themselves), so the copies need
    // no checks; the destination rows are the extremes of an arithmetic sequence.
    for &i in index {
        at(shape.src_offset, i, shape.src_row_stride, slen, "src");
    }
    at(shape.dst_offset, 0, shape.dst_row_stride, dlen, "dst");
    at(
        shape.dst_offset,
        rows as i64 - 1,
        shape.dst_row_stride,
        dlen,
        "dst",
    );
    let n = n as usize;
    let disjoint = (shape.dst_row_stride.unsigned_abs() as u128) * sz as u128 >= n as u128;
    let tasks = if disjoint {
        par.tasks(rows * n, rows)
    } else {
        1
    };
    let (dp, sp) = (
        threads::Ptr(dst.as_mut_ptr()),
        threads::Ptr(src.as_ptr() as *mut u8),
    );
    threads::run_tasks(par.threads, tasks, |t| {
        let (a, b) = threads::part(rows, tasks, t);
        for (r, &i) in index.iter().enumerate().take(b).skip(a) {
            let s = at(shape.src_offset, i, shape.src_row_stride, slen, "src");
            let d = at(
                shape.dst_offset,
                r as i64,
                shape.dst_row_stride,
                dlen,
                "dst",
            );
            // SAFETY: both rows are inside the slices (checked above); rows of a disjoint
            // destination do not share bytes, so the tasks write apart.
            unsafe { super::contiguous::copy(dp.get().add(d), sp.get().add(s), n) };
        }
    });
    Ok(())
}
