//! Row gathers (`dst[r, :] = src[index[r], :]`): each row is one contiguous run
//! ([`super::contiguous`]), and gathers of at least two grains are split by rows over the
//! thread pool. A gather that writes at least [`STREAM_MIN`] bytes (far beyond any cache)
//! streams its rows out with non-temporal stores: 1 KiB rows of a 512 MiB gather, scattered
//! over 1 GiB, ran in 0.72x the time of plain stores on the development host (AVX-512).
//! A gather from a source of at least [`STREAM_MIN`] bytes prefetches its rows a few KiB
//! ahead ([`prefetch_ahead`]).

use super::contiguous::{self, CacheLevel, PAGE, STREAM_MIN};
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
    let bytes = (shape.num_rows as u128)
        .saturating_mul(shape.row_len as u128)
        .saturating_mul(dtype.itemsize() as u128);
    let stream = bytes >= STREAM_MIN as u128;
    gather_rows(shape, dtype, dst, src, index, par, stream)
}

/// [`row_gather_with`], its rows written with non-temporal stores when `stream` (whatever
/// the size: tests reach the streamed rows with small gathers).
pub(super) fn gather_rows(
    shape: &RowGatherShape,
    dtype: DType,
    dst: &mut [u8],
    src: &[u8],
    index: &[i64],
    par: Parallelism,
    stream: bool,
) -> Result<(), usize> {
    let index = &index[..shape.num_rows as usize];
    // The extreme indices in one pass; the first bad one's position only when there is one.
    let (lo, hi) = index
        .iter()
        .fold((i64::MAX, i64::MIN), |(lo, hi), &i| (lo.min(i), hi.max(i)));
    if (lo < 0 || hi >= shape.src_rows)
        && let Some(bad) = shape.first_out_of_range(index)
    {
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
    // Every row's bounds first, so the copies need no checks: a row's start is affine in
    // its index, so the rows of the extreme indices (and of the first and last destination
    // rows) bound all the others.
    at(shape.src_offset, lo, shape.src_row_stride, slen, "src");
    at(shape.src_offset, hi, shape.src_row_stride, slen, "src");
    at(shape.dst_offset, 0, shape.dst_row_stride, dlen, "dst");
    at(
        shape.dst_offset,
        rows as i64 - 1,
        shape.dst_row_stride,
        dlen,
        "dst",
    );
    let (n, isz) = (n as usize, sz as i64);
    let disjoint = (shape.dst_row_stride.unsigned_abs() as u128) * sz as u128 >= n as u128;
    // Rows that share bytes (a destination stride under a row) are written plainly, in
    // order, on one thread.
    let stream = stream && disjoint;
    let tasks = if disjoint {
        par.tasks(rows * n, rows)
    } else {
        1
    };
    let ahead = prefetch_ahead(n, slen);
    let (dp, sp) = (
        threads::Ptr(dst.as_mut_ptr()),
        threads::Ptr(src.as_ptr() as *mut u8),
    );
    threads::run_tasks(par.threads, tasks, |t| {
        let (a, b) = threads::part(rows, tasks, t);
        for (r, &i) in index.iter().enumerate().take(b).skip(a) {
            if ahead > 0 && r + ahead < b {
                let s = row_start(
                    shape.src_offset,
                    index[r + ahead],
                    shape.src_row_stride,
                    isz,
                );
                // A prefetch has no visible effect: the row was checked, but any address
                // would do.
                contiguous::prefetch_rows(sp.get().wrapping_add(s), 1, 0, n, CacheLevel::L2);
            }
            let s = row_start(shape.src_offset, i, shape.src_row_stride, isz);
            let d = row_start(shape.dst_offset, r as i64, shape.dst_row_stride, isz);
            // SAFETY: both rows are inside the slices (checked above); rows of a disjoint
            // destination do not share bytes, so the tasks write apart.
            unsafe {
                let (d, s) = (dp.get().add(d), sp.get().add(s));
                if stream {
                    contiguous::copy_streaming(d, s, n);
                } else {
                    contiguous::copy(d, s, n);
                }
            }
        }
        if stream {
            contiguous::store_fence();
        }
    });
    Ok(())
}

/// Bytes of source rows a gather keeps prefetching ahead of the row it copies.
const PREFETCH_BYTES: usize = 8 * 1024;

/// How many rows ahead a gather prefetches the source row (into L2), for rows of `n` bytes
/// from a source of `len` bytes: none for a source under [`STREAM_MIN`] (it may sit in the
/// caches) or rows over a page (long runs the hardware prefetchers follow), else
/// [`PREFETCH_BYTES`] of rows. Each row is a jump the hardware cannot foresee: the bench's
/// 1 GiB gather of 1 KiB f32 rows (`cpu_1gib`, AMD EPYC Zen 4, two runs of 7 rounds, 1 and
/// 2 threads) took 141-166 ms without, 65-82 ms with 8 rows ahead into L2 (4 rows:
/// 75-85 ms, 16: 72-118 ms; into L1 at 2-8 rows: 92-123 ms).
pub(super) fn prefetch_ahead(n: usize, len: usize) -> usize {
    if len < STREAM_MIN || n == 0 || n > PAGE {
        0
    } else {
        PREFETCH_BYTES.div_ceil(n)
    }
}

/// The byte offset of a row start, `(offset + row * stride) * itemsize`, for a row whose
/// bounds were checked (`at` in [`gather_rows`]): the exact value lies in `0..len`, so the
/// wrapping arithmetic gives it. The checked form, in the loop, took a fifth of a 1 KiB
/// row's copy time (its asserts and 128-bit products kept per row).
#[inline]
fn row_start(offset: i64, row: i64, stride: i64, itemsize: i64) -> usize {
    offset
        .wrapping_add(row.wrapping_mul(stride))
        .wrapping_mul(itemsize) as usize
}
