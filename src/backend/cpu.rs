//! The CPU backend: runs [`CopyPlan`]s over host bytes.
//!
//! Same-dtype copies move whole elements by width (memcpy for contiguous runs); converting
//! copies go through [`Scalar`], so there is one code path for every dtype.
//! Large copies are split by their outermost dimension across threads (rayon) when each
//! index of it writes its own contiguous stretch of the destination.

use rayon::prelude::*;

use crate::dtype::DType;
use crate::plan::{CopyPlan, PlanKind, RowGatherShape};
use crate::scalar::Scalar;

/// Copies of at least this many elements run on several threads (when they can be split).
const PARALLEL_MIN_ELEMENTS: i64 = 1 << 20;

/// Runs `dst[i] = src[i]` (converting dtype when needed). `dst` and `src` are whole
/// storages' bytes; the plan's offsets and strides address elements inside them.
pub fn copy(plan: &CopyPlan, dst: &mut [u8], src: &[u8]) {
    match outer_stretches(plan) {
        Some(stretch) if plan.numel() >= PARALLEL_MIN_ELEMENTS => {
            // Index i of the outermost dimension writes only elements
            // [dst_offset + i * stretch, dst_offset + (i + 1) * stretch): disjoint chunks.
            let dsz = plan.dst_dtype.itemsize();
            let start = plan.dst_offset as usize * dsz;
            dst[start..]
                .par_chunks_mut(stretch as usize * dsz)
                .take(plan.sizes[0] as usize)
                .enumerate()
                .for_each(|(i, chunk)| {
                    let mut inner = plan.inner(&[i as i64]);
                    inner.dst_offset = 0;
                    copy_serial(&inner, chunk, src);
                });
        }
        _ => copy_serial(plan, dst, src),
    }
}

/// The destination stride of the outermost dimension, when every index of it writes only
/// the elements before the next one's (non-negative strides, inner extent below it).
fn outer_stretches(plan: &CopyPlan) -> Option<i64> {
    if plan.kind != PlanKind::Strided || plan.sizes.len() < 2 {
        return None;
    }
    let s0 = plan.dst_strides[0];
    let inner_extent: i64 = (1..plan.sizes.len())
        .map(|k| (plan.sizes[k] - 1) * plan.dst_strides[k])
        .sum();
    let ok = s0 > 0 && plan.dst_strides.iter().all(|&s| s >= 0) && inner_extent < s0;
    ok.then_some(s0)
}

fn copy_serial(plan: &CopyPlan, dst: &mut [u8], src: &[u8]) {
    let (dsz, ssz) = (plan.dst_dtype.itemsize(), plan.src_dtype.itemsize());
    match plan.kind {
        PlanKind::Empty => {}
        PlanKind::Memcpy { bytes } => {
            let d = plan.dst_offset as usize * dsz;
            let s = plan.src_offset as usize * ssz;
            dst[d..d + bytes].copy_from_slice(&src[s..s + bytes]);
        }
        PlanKind::Strided if plan.dst_dtype == plan.src_dtype => {
            plan.for_each_row(|d, s, len, dstep, sstep| {
                if dstep == 1 && sstep == 1 {
                    let (d, s, n) = (d as usize * dsz, s as usize * dsz, len as usize * dsz);
                    dst[d..d + n].copy_from_slice(&src[s..s + n]);
                } else {
                    for i in 0..len {
                        let d = (d + i * dstep) as usize * dsz;
                        let s = (s + i * sstep) as usize * dsz;
                        dst[d..d + dsz].copy_from_slice(&src[s..s + dsz]);
                    }
                }
            });
        }
        PlanKind::Strided => {
            let (dt, st) = (plan.dst_dtype, plan.src_dtype);
            plan.for_each_row(|d, s, len, dstep, sstep| {
                for i in 0..len {
                    let d = (d + i * dstep) as usize * dsz;
                    let s = (s + i * sstep) as usize * ssz;
                    Scalar::read(st, &src[s..s + ssz]).write(dt, &mut dst[d..d + dsz]);
                }
            });
        }
    }
}

/// Runs a row gather (`dst[r, :] = src[index[r], :]`) of `dtype` elements. An index
/// outside `0..src_rows` (negative ones included, as `torch.index_select` refuses them)
/// stops the gather before anything is written and returns its position in `index`.
pub fn row_gather(
    shape: &RowGatherShape,
    dtype: DType,
    dst: &mut [u8],
    src: &[u8],
    index: &[i64],
) -> Result<(), usize> {
    let index = &index[..shape.num_rows as usize];
    if let Some(bad) = shape.first_out_of_range(index) {
        return Err(bad);
    }
    let sz = dtype.itemsize() as i64;
    let n = (shape.row_len * sz) as usize;
    for (r, &i) in index.iter().enumerate() {
        let s = ((shape.src_offset + i * shape.src_row_stride) * sz) as usize;
        let d = ((shape.dst_offset + r as i64 * shape.dst_row_stride) * sz) as usize;
        dst[d..d + n].copy_from_slice(&src[s..s + n]);
    }
    Ok(())
}

/// Writes `value` (converted to the plan's dtype) into every element the plan visits.
pub fn fill(plan: &CopyPlan, bytes: &mut [u8], value: Scalar) {
    let dt = plan.dst_dtype;
    let sz = dt.itemsize();
    let mut pattern = [0u8; 8];
    value.write(dt, &mut pattern);
    plan.for_each_row(|d, _, len, dstep, _| {
        for i in 0..len {
            let at = (d + i * dstep) as usize * sz;
            bytes[at..at + sz].copy_from_slice(&pattern[..sz]);
        }
    });
}

/// Reads every element of a layout in logical (row-major) order.
pub fn read_values(layout: &crate::layout::Layout, dtype: DType, bytes: &[u8]) -> Vec<Scalar> {
    let sz = dtype.itemsize();
    layout
        .indices()
        .map(|idx| {
            let at = layout.element_at(&idx) as usize * sz;
            Scalar::read(dtype, &bytes[at..at + sz])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Layout, view};

    fn counting(n: usize) -> Vec<u8> {
        (0..n as u32).flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn large_copies_split_across_threads_match_the_serial_copy() {
        // A transpose (2 Mi elements) into a contiguous and into a gapped destination.
        let src = view::t(&Layout::contiguous(&[1024, 2048])).unwrap();
        let input = counting(1024 * 2048);
        for dst in [
            Layout::contiguous(&[2048, 1024]),
            Layout::new(&[2048, 1024], &[1030, 1], 3).unwrap(),
        ] {
            let plan = CopyPlan::copy(&dst, DType::I32, &src, DType::I32);
            assert!(plan.numel() >= PARALLEL_MIN_ELEMENTS);
            assert_eq!(outer_stretches(&plan), Some(dst.strides()[0]));
            let len = (view::required_storage_bytes(&dst, 4)) as usize;
            let (mut par, mut serial) = (vec![0xA5; len], vec![0xA5; len]);
            copy(&plan, &mut par, &input);
            copy_serial(&plan, &mut serial, &input);
            assert_eq!(par, serial);
        }
        // Reversed destination rows: not split (negative stride), still correct.
        let dst = Layout::new(&[2048, 1024], &[-1024, 1], 2047 * 1024).unwrap();
        let plan = CopyPlan::copy(&dst, DType::I32, &src, DType::I32);
        assert_eq!(outer_stretches(&plan), None);
    }
}
