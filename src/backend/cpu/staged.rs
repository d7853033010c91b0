//! Whole-line tiles on CPUs without AVX-512 (or without VBMI, for bytes): the tile of a
//! transpose far larger than the caches moved in parts of [`PART`] x [`PART`] bytes, one
//! line of each source row and of each destination row. A part is transposed into a stage
//! in L1 by the in-cache register blocks ([`block`]), and each of its destination rows
//! then leaves as one whole line with non-temporal stores (AVX2 or SSE2), which skip
//! reading the destination line first: the whole-line blocks' memory pattern
//! ([`super::lines`]), with the transpose done in 16-byte registers and a stage.
//!
//! Measured at 1 GiB on the AMD EPYC (Zen 4) development host under
//! `STRIDEKIT_CPU_CAPABILITY=avx2`, 1 thread, share of the same run's memcpy rate (see
//! docs/cpu_history_2.md, session 21): the u8, f16, f32 and f64 transposes 15-24% (square
//! tiles with plain stores) -> 27-44%; the AVX-512 blocks reach 47-62% on the same host.

use super::contiguous::{self, CacheLevel, LineBuf, PAGE};
use super::lines::LINE;
use super::segment::{Segment, Tile, block, strips};

/// The bytes of a part along each side: one line.
const PART: usize = LINE;

/// How many parts ahead along `a` a part's source lines are asked for (into
/// [`CacheLevel::near`]).
const AHEAD: usize = 2;

/// Whether staged whole-line tiles move elements of `width` bytes where [`super::lines`]'s
/// blocks do not: on x86-64 (whose SSE2 has non-temporal stores), for the widths the
/// blocks serve.
pub(super) fn available(width: usize) -> bool {
    cfg!(target_arch = "x86_64") && matches!(width, 1 | 2 | 4 | 8)
}

/// Moves tile `t` of `T` elements (register blocks of `B` x `B`): the parts that whole
/// lines cover as above, the rest of the tile (its last partial parts) as runs.
///
/// # Safety
/// As [`Segment::tile`]; `db` and `sa` are one element, and `B` divides `PART / T`'s
/// width.
pub(super) unsafe fn tile<T: Copy, const B: usize, S: Segment>(
    op: &S,
    d: *mut u8,
    s: *const u8,
    t: Tile,
) {
    let w = size_of::<T>();
    let e = PART / w;
    const { assert!(PART / size_of::<T>() >= B && PART * PART <= PAGE) };
    // The stage is the page inside a buffer of two: where it fell on the stack decided a
    // u8 transpose's speed (1 GiB, AVX2: 500-600 ms with one build's 4 KiB stage, 200-260
    // with others; the page-aligned stage 207-217 ms, session 21).
    let mut buf = LineBuf::<{ 2 * PAGE }>::new();
    let base = buf.as_mut_ptr();
    // SAFETY: the page from the first page boundary at or after `base` is inside `buf`.
    let o = unsafe { base.add(base.align_offset(PAGE)) };
    let (fa, fb) = (t.na / e * e, t.nb / e * e);
    let on_lines = (d as usize).is_multiple_of(LINE) && t.da.unsigned_abs().is_multiple_of(LINE);
    let put = contiguous::line_streamer();
    let level = CacheLevel::near();
    for j0 in (0..fb).step_by(e) {
        for i0 in (0..fa).step_by(e) {
            let (i, j) = (i0 as isize, j0 as isize);
            // SAFETY: the part (e x e elements from (i0, j0)) is inside the tile; the stage
            // holds its e destination rows of one line each; the prefetched lines are
            // inside the tile too (a prefetch reads nothing).
            unsafe {
                let s = s.offset(i * w as isize + j * t.sb);
                if i0 + (AHEAD + 1) * e <= fa {
                    let next = s.add(AHEAD * PART);
                    contiguous::prefetch_rows(next, e, t.sb, PART, level);
                }
                for jb in (0..e).step_by(B) {
                    for ib in (0..e).step_by(B) {
                        let from = s.offset((ib * w) as isize + jb as isize * t.sb);
                        block::<T, B>(o.add(ib * PART + jb * w), from, PART as isize, t.sb);
                    }
                }
                let d = d.offset(i * t.da + j * w as isize);
                for r in 0..e {
                    let (dr, or) = (d.offset(r as isize * t.da), o.add(r * PART));
                    if on_lines {
                        put(dr, or, 1);
                    } else {
                        contiguous::copy_lines(dr, or, PART);
                    }
                }
            }
        }
    }
    // SAFETY: the rest of the tile.
    unsafe { strips(op, d, s, t, fa, fb) }
}
