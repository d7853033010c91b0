//! A copy plan in bytes, as the CPU walks it: folded sizes with byte strides and offsets,
//! checked against the slices once, then walked without per-element bounds checks.

use smallvec::SmallVec;

use crate::plan::{CopyPlan, PlanKind};

pub(super) type Sizes = SmallVec<[usize; 8]>;
pub(super) type Steps = SmallVec<[isize; 8]>;

/// The plan in bytes. Every element address `d0 + sum(i_k * dst[k])` (and the source's)
/// lies inside the slices it was checked against, whole element included.
#[derive(Debug, Clone)]
pub(super) struct ByteWalk {
    /// Sizes, outermost first; at least one dimension.
    pub sizes: Sizes,
    pub dst: Steps,
    pub src: Steps,
    pub d0: usize,
    pub s0: usize,
    /// Bytes per element on each side (a same-dtype walk may have widened elements).
    pub dw: usize,
    pub sw: usize,
}

impl ByteWalk {
    /// The walk of `plan` over slices of `dst_len` and `src_len` bytes; None for an empty
    /// plan. Panics when the plan addresses bytes outside either slice (a caller bug: every
    /// caller checks layouts against their storage first), as slice indexing would.
    pub fn new(plan: &CopyPlan, dst_len: usize, src_len: usize) -> Option<ByteWalk> {
        if plan.kind == PlanKind::Empty {
            return None;
        }
        let (dw, sw) = (plan.dst_dtype.itemsize(), plan.src_dtype.itemsize());
        let mut w = ByteWalk {
            sizes: SmallVec::new(),
            dst: SmallVec::new(),
            src: SmallVec::new(),
            d0: in_range(
                plan.dst_offset,
                &plan.sizes,
                &plan.dst_strides,
                dw,
                dst_len,
                "dst",
            ),
            s0: in_range(
                plan.src_offset,
                &plan.sizes,
                &plan.src_strides,
                sw,
                src_len,
                "src",
            ),
            dw,
            sw,
        };
        for k in 0..plan.sizes.len() {
            // In range (checked above), so the products fit.
            w.sizes.push(plan.sizes[k] as usize);
            w.dst.push(plan.dst_strides[k] as isize * dw as isize);
            w.src.push(plan.src_strides[k] as isize * sw as isize);
        }
        if w.sizes.is_empty() {
            w.sizes.push(1);
            w.dst.push(dw as isize);
            w.src.push(sw as isize);
        }
        if plan.dst_dtype == plan.src_dtype {
            w.widen();
        }
        Some(w)
    }

    pub fn rank(&self) -> usize {
        self.sizes.len()
    }

    pub fn numel(&self) -> usize {
        self.sizes.iter().product()
    }

    /// A same-dtype innermost dimension contiguous on both sides and 2, 4, 8 or 16 bytes
    /// long (a pair of f32, four f16) moves as one wider element, so a permute that keeps a
    /// short innermost dimension runs 8- or 16-byte moves instead of a loop per element.
    fn widen(&mut self) {
        let k = self.rank() - 1;
        let (w, n) = (self.dw as isize, self.sizes[k]);
        let bytes = self.dw * n;
        if self.rank() > 1
            && self.dst[k] == w
            && self.src[k] == w
            && matches!(bytes, 2 | 4 | 8 | 16)
        {
            self.sizes.pop();
            self.dst.pop();
            self.src.pop();
            self.dw = bytes;
            self.sw = bytes;
        }
    }

    /// Whether no two elements share a destination byte (a sufficient test, by extents: the
    /// dimensions are ordered by destination stride, each must step past all inner ones).
    pub fn dst_is_disjoint(&self) -> bool {
        let mut extent = self.dw as u128;
        for k in (0..self.rank()).rev() {
            let step = self.dst[k].unsigned_abs() as u128;
            if self.sizes[k] > 1 && step < extent {
                return false;
            }
            extent += step * (self.sizes[k] as u128 - 1);
        }
        true
    }

    /// The element of dimension `k` at index `i` moved from `(d, s)`.
    #[inline]
    pub fn step(&self, k: usize, i: usize, d: usize, s: usize) -> (usize, usize) {
        let i = i as isize;
        (
            d.wrapping_add_signed(i * self.dst[k]),
            s.wrapping_add_signed(i * self.src[k]),
        )
    }
}

/// The byte offset of `offset`'s element, after checking that every element the dimensions
/// reach from it lies inside `len` bytes.
fn in_range(
    offset: i64,
    sizes: &[i64],
    strides: &[i64],
    w: usize,
    len: usize,
    side: &str,
) -> usize {
    let (mut lo, mut hi) = (Some(offset as i128), Some(offset as i128));
    for (&n, &s) in sizes.iter().zip(strides) {
        let reach = (n as i128 - 1) * s as i128; // each factor fits in 64 bits
        if reach < 0 {
            lo = lo.and_then(|v| v.checked_add(reach));
        } else {
            hi = hi.and_then(|v| v.checked_add(reach));
        }
    }
    let end = hi.and_then(|h| (h + 1).checked_mul(w as i128));
    let ok = matches!((lo, end), (Some(l), Some(e)) if l >= 0 && e <= len as i128);
    assert!(
        ok,
        "copy plan reaches {side} elements {lo:?}..={hi:?} ({w} bytes each) outside a {len}-byte buffer"
    );
    (offset as i128 * w as i128) as usize
}
