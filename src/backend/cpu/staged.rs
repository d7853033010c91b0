//! Whole-line tiles on CPUs without AVX-512 (or without VBMI, for bytes): the tile of a
//! transpose far larger than the caches moved in parts of [`PART`] x [`PART`] bytes, one
//! line of each source row and of each destination row. A part is transposed into a stage
//! in L1 by the in-cache register blocks (segment.rs), and each of its destination rows
//! then leaves as one whole line with non-temporal stores (AVX2 or SSE2), which skip
//! reading the destination line first: the whole-line blocks' memory pattern
//! ([`super::lines`]), with the transpose done in 16-byte registers and a stage.
//!
//! Measured at 1 GiB on the AMD EPYC (Zen 4) development host under
//! `STRIDEKIT_CPU_CAPABILITY=avx2`, 1 thread, share of the same run's memcpy rate
//! (bench/cpu_1gib_s21_capped.md): the u8, f16, f32 and f64 transposes 16-25% (square
//! tiles with plain stores) -> 31-60%, the permutes 20-24% -> 34-48%; the AVX-512 blocks
//! reach 47-67% on the same host.
//!
//! Destination rows off the line grid (a row length that is not a multiple of 64 bytes)
//! are realigned as [`super::realign`] does for the AVX-512 blocks, here through memory:
//! each row's part is staged right after the row's previous part, and the line the two
//! share is read unaligned from between them and leaves whole (before: every line of such
//! a row went in two plain pieces). Under `avx2`, 1 GiB, 1 thread: the u8 transpose 32764 x
//! 32772 12% -> 22-23% of the memcpy rate, f16 16380 x 32776 13% -> 31%, f32 16380 x 16388
//! and 16380 x 16384 12-13% -> 33% (bench/cpu_1gib_s22_realign.md).

use super::contiguous::{self, CacheLevel, LineBuf, PAGE};
use super::lines::{Corner, LINE};

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

/// Moves the parts of tile `c` (elements of `width` bytes; source rows contiguous along
/// `a`, destination rows contiguous along `b`; one layer) that whole parts cover, with
/// `block` transposing `lanes` x `lanes` elements (`block(d, s, da, sb)`: `lanes` source
/// rows `sb` bytes apart into `lanes` destination rows `da` bytes apart); returns the
/// corner moved, `(fa, fb)` elements along `a` and `b` from the tile's start (the caller
/// moves the rest). `lanes` divides the part's `PART / width` elements.
///
/// # Safety
/// Every element of the tile is inside the caller's slices, no other thread writes the
/// destination meanwhile, and `block` moves exactly the block it is given.
#[inline(always)]
pub(super) unsafe fn tile(
    width: usize,
    lanes: usize,
    d: *mut u8,
    s: *const u8,
    c: Corner,
    block: impl Fn(*mut u8, *const u8, isize, isize),
) -> (usize, usize) {
    let w = width;
    let e = PART / w;
    debug_assert!(e >= lanes && e.is_multiple_of(lanes) && PART * PART <= PAGE);
    let (fa, fb) = (c.na / e * e, c.nb / e * e);
    let part = Part {
        w,
        lanes,
        s,
        c,
        fa,
        level: CacheLevel::near(),
    };
    let on_lines = (d as usize).is_multiple_of(LINE) && c.da.unsigned_abs().is_multiple_of(LINE);
    if !on_lines {
        // SAFETY: forwarded.
        unsafe { realigned(d, &part, &block, fb) };
        return (fa, fb);
    }
    // The stage is the page inside a buffer of two: where it fell on the stack decided a
    // u8 transpose's speed (1 GiB, AVX2: 500-600 ms with one build's 4 KiB stage, 200-260
    // with others; the page-aligned stage 207-217 ms, session 21).
    let mut buf = LineBuf::<{ 2 * PAGE }>::new();
    let base = buf.as_mut_ptr();
    // SAFETY: the page from the first page boundary at or after `base` is inside `buf`.
    let o = unsafe { base.add(base.align_offset(PAGE)) };
    let put = contiguous::line_streamer();
    for j0 in (0..fb).step_by(e) {
        for i0 in (0..fa).step_by(e) {
            // SAFETY: the part is inside the tile; the stage holds its e destination rows
            // of one line each, PART apart; each destination row's line is 64-byte aligned
            // (on_lines) and the caller's.
            unsafe {
                part.stage(i0, j0, o, PART, &block);
                let d = d.offset(i0 as isize * c.da + (j0 * w) as isize);
                for r in 0..e {
                    put(d.offset(r as isize * c.da), o.add(r * PART), 1);
                }
            }
        }
    }
    (fa, fb)
}

/// The parts of a tile ([`tile`]'s arguments): elements of `w` bytes, blocks of `lanes`,
/// whole parts up to `fa` along `a`, the next parts' source lines asked for into `level`.
struct Part {
    w: usize,
    lanes: usize,
    s: *const u8,
    c: Corner,
    fa: usize,
    level: CacheLevel,
}

impl Part {
    /// Transposes part `(i0, j0)` (elements along `a` and `b`) into the stage at `o`, its
    /// destination rows `pitch` bytes apart, after asking for the source lines of the part
    /// [`AHEAD`] parts on along `a`.
    ///
    /// # Safety
    /// The part is inside the tile (the caller's slices); the stage holds `PART / w` rows
    /// of `PART` bytes `pitch` apart; `block` moves exactly the block it is given.
    #[inline(always)]
    unsafe fn stage(
        &self,
        i0: usize,
        j0: usize,
        o: *mut u8,
        pitch: usize,
        block: &impl Fn(*mut u8, *const u8, isize, isize),
    ) {
        let (w, e, c) = (self.w, PART / self.w, self.c);
        // SAFETY: the part's source rows are inside the tile; a prefetch reads nothing.
        unsafe {
            let s = self.s.offset((i0 * w) as isize + j0 as isize * c.sb);
            if i0 + (AHEAD + 1) * e <= self.fa {
                let next = s.add(AHEAD * PART);
                contiguous::prefetch_rows(next, e, c.sb, PART, self.level);
            }
            // `lanes` source rows at a time along the part (16 bytes of each per block):
            // rows a power of two apart share an L1 set, and a few of them stay in it.
            for jb in (0..e).step_by(self.lanes) {
                for ib in (0..e).step_by(self.lanes) {
                    let from = s.offset((ib * w) as isize + jb as isize * c.sb);
                    block(o.add(ib * pitch + jb * w), from, pitch as isize, c.sb);
                }
            }
        }
    }
}

/// A destination row's carry and its next part: the last part's 64 bytes (bytes `0..64`)
/// and the part being moved (`64..128`).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Pair([u8; 2 * PART]);

/// [`tile`]'s parts into destination rows off the line grid: each row's part is staged
/// after the row's previous one (its carry), so that the line the two share leaves whole,
/// read unaligned from between them; a row's first and last partial lines in the tile go
/// plainly.
///
/// # Safety
/// As [`tile`].
#[inline(always)]
unsafe fn realigned(
    d: *mut u8,
    part: &Part,
    block: &impl Fn(*mut u8, *const u8, isize, isize),
    fb: usize,
) {
    const ROW: usize = 2 * PART;
    let (w, c, fa) = (part.w, part.c, part.fa);
    let e = PART / w;
    let mut rows = vec![Pair([0; ROW]); fa];
    let base = rows.as_mut_ptr() as *mut u8;
    let put = contiguous::line_streamer();
    for j0 in (0..fb).step_by(e) {
        let (first, last) = (j0 == 0, j0 + e >= fb);
        for i0 in (0..fa).step_by(e) {
            // SAFETY: the part is inside the tile; its rows' pairs are inside `rows` (i0 + e
            // <= fa), each staged row at byte PART of its pair; the destination bytes
            // written are row r's part, the bytes before it (the previous part's, unless
            // `first`) and, when `last`, none past the part.
            unsafe {
                part.stage(i0, j0, base.add(i0 * ROW + PART), ROW, block);
                let d = d.offset(i0 as isize * c.da + (j0 * w) as isize);
                for r in 0..e {
                    let x = d.offset(r as isize * c.da);
                    let row = base.add((i0 + r) * ROW);
                    let m = x as usize % LINE;
                    if m == 0 {
                        put(x, row.add(PART), 1);
                        continue;
                    }
                    if first {
                        std::ptr::copy_nonoverlapping(row.add(PART), x, LINE - m);
                    } else {
                        put(x.sub(m), row.add(PART - m), 1);
                    }
                    if last {
                        std::ptr::copy_nonoverlapping(row.add(ROW - m), x.add(LINE - m), m);
                    } else {
                        std::ptr::copy_nonoverlapping(row.add(PART), row, PART);
                    }
                }
            }
        }
    }
}
