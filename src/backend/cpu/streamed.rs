//! Row walks far larger than the caches: each dense destination run is produced in pieces
//! into an L1-resident buffer by the walk's own mover and written out with non-temporal
//! stores ([`contiguous::copy_streaming`]), which skip reading every destination line
//! before it is written (at 1 GiB a third of a copy's traffic, half of a broadcast's).
//! Contiguous same-dtype runs stream straight from the source, without the buffer.

use super::contiguous;
use super::lines::LINE;
use super::segment::{Segment, Tile};

/// Destination bytes of each piece a run is produced in (well inside L1 with its source).
const PIECE_BYTES: usize = 4096;

/// Runs shorter than this many destination bytes are written plainly: a streamed run's
/// partial lines at either end are written plainly anyway.
const RUN_MIN: usize = 8 * LINE;

/// `op`, its dense destination runs streamed. `sw` and `dw` are the source and destination
/// element widths (equal for a same-dtype mover), `same` whether `op` moves bytes
/// unchanged (so that a contiguous run is a plain byte copy).
pub(super) struct Streamed<'a, S> {
    pub op: &'a S,
    pub sw: usize,
    pub dw: usize,
    pub same: bool,
}

impl<S: Segment> Segment for Streamed<'_, S> {
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize) {
        let (sw, dw) = (self.sw, self.dw);
        let bytes = len.saturating_mul(dw);
        if dstep != dw as isize || bytes < RUN_MIN || !LINE.is_multiple_of(dw) {
            // SAFETY: forwarded.
            return unsafe { self.op.run(d, s, len, dstep, sstep) };
        }
        if self.same && sstep == sw as isize {
            // SAFETY: the run's bytes are inside the caller's slices, the destination the
            // caller's alone.
            return unsafe { contiguous::copy_streaming(d, s, bytes) };
        }
        // The elements before the first whole destination line go plainly (so that every
        // piece after them starts on a line), when the destination is element-aligned.
        let head = if (d as usize).is_multiple_of(dw) {
            (((LINE - d as usize % LINE) % LINE) / dw).min(len)
        } else {
            0
        };
        let mut buf = contiguous::LineBuf::<PIECE_BYTES>::new();
        let b = buf.as_mut_ptr();
        let per = PIECE_BYTES / dw;
        // SAFETY (all): every piece's elements are the run's, inside the caller's slices;
        // the buffer holds `per` dense destination elements, aligned for any of them.
        unsafe {
            self.op.run(d, s, head, dstep, sstep);
            let mut done = head;
            while done < len {
                let k = per.min(len - done);
                let at = done as isize;
                self.op.run(b, s.offset(at * sstep), k, dstep, sstep);
                contiguous::copy_streaming(d.offset(at * dstep), b, k * dw);
                done += k;
            }
        }
    }

    unsafe fn tile(&self, d: *mut u8, s: *const u8, t: Tile) {
        // SAFETY: forwarded (tiles stream their own way, see `Tile::stream`).
        unsafe { self.op.tile(d, s, t) }
    }
}
