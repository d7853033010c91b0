//! The simple reference walk: one element at a time, in the plan's row order, through
//! [`Scalar`] for converting copies. The fast paths of this backend are checked against it
//! (tests/cpu_fast_paths.rs) and the benchmarks report it beside them; it is the CPU
//! backend as it was before threads, tiles and width-specialised loops.

use crate::plan::{CopyPlan, PlanKind};
use crate::scalar::Scalar;

/// Runs `dst[i] = src[i]` element by element on the calling thread. Same contract as
/// [`super::copy`]; panics (slice index out of range) where the plan addresses bytes outside
/// either slice.
pub fn copy(plan: &CopyPlan, dst: &mut [u8], src: &[u8]) {
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
                for i in 0..len {
                    let d = (d + i * dstep) as usize * dsz;
                    let s = (s + i * sstep) as usize * dsz;
                    dst[d..d + dsz].copy_from_slice(&src[s..s + dsz]);
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
