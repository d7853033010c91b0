//! The CPU backend: runs [`CopyPlan`]s over host bytes.
//!
//! A plan is taken in bytes ([`shape::ByteWalk`]: checked once against both slices, a
//! short contiguous innermost dimension widened into one element), then walked as rows, or
//! as L1-sized tiles when it transposes the innermost dimension ([`walk`]). The innermost
//! loops are one generic mover per element width ([`segment`]); converting copies convert
//! buffered chunks as slices ([`convert`], vectorised by [`vector`] for f32<->f16/bf16). Copies of at least two grains of 32 KiB are
//! split over a thread pool ([`threads`]) when their destination elements are disjoint;
//! smaller ones run on the calling thread. Every path writes exactly what
//! [`reference::copy`], the element-by-element walk, writes.

mod channels;
mod contiguous;
mod convert;
mod gather;
pub mod isa;
mod layers;
mod lines;
mod realign;
pub mod reference;
mod segment;
mod shape;
mod spin_pool;
mod staged;
mod streamed;
pub mod threads;
mod tile_order;
mod vector;
mod walk;
mod ymm;

pub use gather::{row_gather, row_gather_with};
pub use isa::{CAPABILITY_ENV, Capability, capability};
use threads::Ptr;
pub use threads::{GRAIN_BYTES, Parallelism, THREADS_ENV, num_threads, set_num_threads};

use crate::dtype::DType;
use crate::plan::CopyPlan;
use crate::scalar::Scalar;
use segment::{MoverFn, Segment, with_mover};
use shape::ByteWalk;
use streamed::Streamed;
use walk::Tiling;

/// Runs `dst[i] = src[i]` (converting dtype when needed). `dst` and `src` are whole
/// storages' bytes; the plan's offsets and strides address elements inside them. Uses
/// [`Parallelism::current`].
///
/// # Panics
/// When the plan addresses bytes outside either slice (every caller checks its layouts
/// against their storages first).
pub fn copy(plan: &CopyPlan, dst: &mut [u8], src: &[u8]) {
    copy_with(plan, dst, src, Parallelism::current());
}

/// [`copy`] with an explicit thread count and grain (for benchmarks and tests).
pub fn copy_with(plan: &CopyPlan, dst: &mut [u8], src: &[u8], par: Parallelism) {
    let Some(w) = ByteWalk::new(plan, dst.len(), src.len()) else {
        return;
    };
    let job = Job {
        w: &w,
        d: Ptr(dst.as_mut_ptr()),
        s: Ptr(src.as_ptr() as *mut u8),
        par,
        same: plan.dst_dtype == plan.src_dtype,
    };
    if plan.dst_dtype == plan.src_dtype {
        with_mover(w.dw, job);
    } else {
        job.call(&convert::Convert::new(plan.src_dtype, plan.dst_dtype));
    }
}

/// Writes `value` (converted to the plan's dtype) into every element the plan visits.
pub fn fill(plan: &CopyPlan, bytes: &mut [u8], value: Scalar) {
    let sz = plan.dst_dtype.itemsize();
    let mut pattern = [0u8; 8];
    value.write(plan.dst_dtype, &mut pattern);
    // An element-wise plan reads its source at offset 0 with every stride 0.
    copy(plan, bytes, &pattern[..sz]);
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

/// One checked copy, run by whichever mover [`with_mover`] picks.
struct Job<'a> {
    w: &'a ByteWalk,
    d: Ptr,
    s: Ptr,
    par: Parallelism,
    /// The mover moves bytes unchanged (no conversion).
    same: bool,
}

impl MoverFn<()> for Job<'_> {
    fn call<S: Segment>(self, op: &S) {
        let Job { w, d, s, par, same } = self;
        // Parallel or tiled only when no two elements write one byte: otherwise the plan's
        // row order (the reference's) decides which write lands last.
        let disjoint = w.dst_is_disjoint();
        let work = w.numel() * w.dw.max(w.sw);
        match Tiling::of(w).filter(|_| disjoint) {
            Some(t) => {
                let units = t.count(w);
                let tasks = par.tasks(work, units);
                threads::run_tasks(par.threads, tasks, |i| {
                    let (a, b) = threads::part(units, tasks, i);
                    // SAFETY: `w` was checked against both slices; tiles are disjoint.
                    unsafe { walk::tiles(w, op, t, d.get(), s.get(), a, b) }
                });
            }
            None => {
                let units = w.numel();
                let tasks = if disjoint { par.tasks(work, units) } else { 1 };
                // A walk far larger than the caches streams its dense destination runs out
                // (a destination that rows write twice keeps plain stores, in order).
                let streamed = Streamed {
                    op,
                    sw: w.sw,
                    dw: w.dw,
                    same,
                };
                let stream = disjoint && walk::is_large(w);
                threads::run_tasks(par.threads, tasks, |i| {
                    let (a, b) = threads::part(units, tasks, i);
                    // SAFETY: `w` was checked against both slices; element ranges of a
                    // disjoint destination write disjoint bytes.
                    unsafe {
                        if stream {
                            walk::rows(w, &streamed, d.get(), s.get(), a, b);
                            contiguous::store_fence();
                        } else {
                            walk::rows(w, op, d.get(), s.get(), a, b);
                        }
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod lines_tests;
#[cfg(test)]
mod tests;
