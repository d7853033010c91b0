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
//!
//! With AVX2 (session 23, bench/cpu_1gib_s23_avx2.md) the blocks are [`super::ymm`]'s
//! (32-byte registers; 2-byte elements keep the SSE2 blocks), and up to [`GROUP_MAX`]
//! neighbouring parts along `b` are staged at one place along `a` before each destination
//! row's lines of them leave one after another (runs of 4 lines a row instead of one, as
//! [`super::lines`]' u8 groups); a u8 part's 64 source lines, which all share one L1 set
//! when the source rows are a multiple of 4 KiB apart, are first copied into a dense buffer.

use std::mem::MaybeUninit;

use super::contiguous::{self, CacheLevel, PAGE};
use super::lines::{Corner, LINE};

/// The bytes of a part along each side: one line.
const PART: usize = LINE;

/// How many parts ahead along `a` a part's source lines are asked for (into
/// [`CacheLevel::near`]).
const AHEAD: usize = 2;

/// The most parts along `b` a [`Stager`] stages together ([`Stager::group`]).
pub(super) const GROUP_MAX: usize = 4;

/// Whether staged whole-line tiles move elements of `width` bytes where [`super::lines`]'s
/// blocks do not: on x86-64 (whose SSE2 has non-temporal stores), for the widths the
/// blocks serve.
pub(super) fn available(width: usize) -> bool {
    cfg!(target_arch = "x86_64") && matches!(width, 1 | 2 | 4 | 8)
}

/// How a staged tile transposes its parts into the stage and streams the stage's lines
/// out: the 16-byte SSE2 blocks ([`super::segment`]) or the 32-byte AVX2 ones
/// ([`super::ymm`]).
pub(super) trait Stager {
    /// The bytes of an element.
    const WIDTH: usize;
    /// The elements along `a` (of each destination row) one block moves.
    const LANES: usize;
    /// The source rows (along `b`) one block moves.
    const DEPTH: usize;

    /// How many parts along `b` (neighbouring bands) are staged at one place along `a`
    /// before each destination row's lines of them leave one after another (1 to
    /// [`GROUP_MAX`]; the stage is sized for it).
    const GROUP: usize;
    /// The stage: `Pages<GROUP>` (pages for `GROUP` parts' lines, and one more for
    /// [`realigned`]'s carries).
    type Stage;

    /// Whether a part's source lines are first copied into a dense buffer in L1.
    fn dense(&self) -> bool {
        false
    }

    /// Transposes one block: [`Self::DEPTH`] source rows `sb` bytes apart, [`Self::LANES`]
    /// elements each, into [`Self::LANES`] destination rows `da` bytes apart.
    ///
    /// # Safety
    /// Every element of the block is inside the caller's slices (or the stage).
    unsafe fn block(&self, d: *mut u8, s: *const u8, da: isize, sb: isize);

    /// Streams one 64-byte line from `s` to the 64-byte aligned `d`, unfenced.
    ///
    /// # Safety
    /// Both lines are the caller's; `d` is 64-byte aligned.
    unsafe fn line(&self, d: *mut u8, s: *const u8);

    /// Copies one 64-byte line from `s` to the 64-byte aligned `d` (plain stores).
    ///
    /// # Safety
    /// Both lines are the caller's.
    #[inline(always)]
    unsafe fn copy_line(&self, d: *mut u8, s: *const u8) {
        // SAFETY: forwarded.
        unsafe { std::ptr::copy_nonoverlapping(s, d, PART) }
    }
}

/// A part's source lines, dense, on a page (where the stack put it otherwise varied from
/// process to process with the stack's random base: the u8 transpose at 1 GiB, `avx2`, 1
/// thread, read 13-28% of the memcpy rate in some processes and 43-56% in others).
#[repr(C, align(4096))]
struct Dense([u8; PART * PART]);

/// The parts along `b` that `X` stages together in a tile `parts` parts long along `a`:
/// [`Stager::GROUP`], but one where fewer than [`GROUP_MAX`] parts lie along `a`. Measured
/// at 1 GiB under `STRIDEKIT_CPU_CAPABILITY=avx2` (AMD EPYC Zen 4, session 23), share of
/// the same run's memcpy rate, AVX2 blocks in groups of 1 -> 4: NHWC -> NCHW f16 (64 channels: 2 parts
/// along `a`) 52-66% -> 28-30%, while f32 (4 parts) 40-43% -> 48-59% and the 3-d permute
/// (16 parts) 46-51% -> 66-76%.
#[inline(always)]
fn group<X: Stager>(parts: usize) -> usize {
    if parts < GROUP_MAX { 1 } else { X::GROUP }
}

/// A page of the stage, which holds up to [`GROUP_MAX`] lines of each of a part's
/// destination rows, page-aligned (where an unaligned stage fell on the stack decided a u8 transpose's speed: 1 GiB, AVX2:
/// 500-600 ms with one build's 4 KiB stage, 200-260 with others; page-aligned 207-217 ms,
/// session 21).
#[repr(C, align(4096))]
pub(super) struct Page([u8; PAGE]);

/// A [`Stager::Stage`] of `G` + 1 pages.
#[repr(C)]
pub(super) struct Pages<const G: usize>([Page; G], Page);

/// Moves the parts of tile `c` (elements of `x`'s width; source rows contiguous along `a`,
/// destination rows contiguous along `b`; one layer) that whole parts cover, with `x`'s
/// blocks; returns the corner moved, `(fa, fb)` elements along `a` and `b` from the tile's
/// start (the caller moves the rest).
///
/// # Safety
/// Every element of the tile is inside the caller's slices, no other thread writes the
/// destination meanwhile, and `x`'s blocks move exactly the block they are given.
#[inline(always)]
pub(super) unsafe fn tile<X: Stager>(x: &X, d: *mut u8, s: *const u8, c: Corner) -> (usize, usize) {
    let w = X::WIDTH;
    let e = PART / w;
    const { assert!(PART * PART <= PAGE) };
    debug_assert!(e.is_multiple_of(X::LANES) && e.is_multiple_of(X::DEPTH));
    let (fa, fb) = (c.na / e * e, c.nb / e * e);
    let part = Part {
        w,
        s,
        c,
        fa,
        level: CacheLevel::near(),
    };
    let on_lines = (d as usize).is_multiple_of(LINE) && c.da.unsigned_abs().is_multiple_of(LINE);
    if !on_lines {
        // SAFETY: forwarded.
        unsafe { realigned(x, d, &part, fb) };
        return (fa, fb);
    }
    const { assert!(X::GROUP >= 1 && X::GROUP <= GROUP_MAX) };
    let g = group::<X>(fa / e);
    let mut stage = MaybeUninit::<X::Stage>::uninit();
    let o = stage.as_mut_ptr() as *mut u8;
    let pitch = g * PART;
    let bands = fb / e;
    for b0 in (0..bands).step_by(g) {
        let n = g.min(bands - b0);
        let j0 = b0 * e;
        for i0 in (0..fa).step_by(e) {
            // SAFETY: the parts are inside the tile; the stage holds their e destination
            // rows of n <= g lines each, `pitch` apart (every byte read back is written
            // first); each destination row's lines are 64-byte aligned (on_lines) and the
            // caller's.
            unsafe {
                for q in 0..n {
                    part.stage(x, i0, j0 + q * e, o.add(q * PART), pitch);
                }
                let d = d.offset(i0 as isize * c.da + (j0 * w) as isize);
                for r in 0..e {
                    let (d, o) = (d.offset(r as isize * c.da), o.add(r * pitch));
                    for q in 0..n {
                        x.line(d.add(q * PART), o.add(q * PART));
                    }
                }
            }
        }
    }
    (fa, fb)
}

/// The parts of a tile ([`tile`]'s arguments): elements of `w` bytes, whole parts up to
/// `fa` along `a`, the next parts' source lines asked for into `level`.
struct Part {
    w: usize,
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
    /// of `PART` bytes `pitch` apart; `x`'s blocks move exactly the block they are given.
    #[inline(always)]
    unsafe fn stage<X: Stager>(&self, x: &X, i0: usize, j0: usize, o: *mut u8, pitch: usize) {
        let (w, e, c) = (self.w, PART / self.w, self.c);
        // SAFETY: the part's source rows are inside the tile; a prefetch reads nothing.
        unsafe {
            let s = self.s.offset((i0 * w) as isize + j0 as isize * c.sb);
            if i0 + (AHEAD + 1) * e <= self.fa {
                let next = s.add(AHEAD * PART);
                contiguous::prefetch_rows(next, e, c.sb, PART, self.level);
            }
            let mut buf = MaybeUninit::<Dense>::uninit();
            let (s, sb) = if x.dense() {
                let b = buf.as_mut_ptr() as *mut u8;
                for j in 0..e {
                    x.copy_line(b.add(j * PART), s.offset(j as isize * c.sb));
                }
                (b as *const u8, PART as isize)
            } else {
                (s, c.sb)
            };
            // `DEPTH` source rows at a time along the part (16 bytes of each per block):
            // rows a power of two apart share an L1 set, and a few of them stay in it.
            for jb in (0..e).step_by(X::DEPTH) {
                for ib in (0..e).step_by(X::LANES) {
                    let from = s.offset((ib * w) as isize + jb as isize * sb);
                    x.block(o.add(ib * pitch + jb * w), from, pitch as isize, sb);
                }
            }
        }
    }
}

/// A destination row's carry: the last 64 bytes staged for it.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Carry([u8; PART]);

/// [`tile`]'s parts into destination rows off the line grid: each row's parts are staged
/// after the row's previous part (its carry), so that the lines they share leave whole,
/// read unaligned from between them; a row's first and last partial lines in the tile go
/// plainly.
///
/// # Safety
/// As [`tile`].
#[inline(always)]
unsafe fn realigned<X: Stager>(x: &X, d: *mut u8, part: &Part, fb: usize) {
    let (w, c, fa) = (part.w, part.c, part.fa);
    let e = PART / w;
    let g = group::<X>(fa / e);
    if g == 1 {
        // SAFETY: forwarded.
        return unsafe { realigned_one(x, d, part, fb) };
    }
    let pitch = (g + 1) * PART;
    let mut carries = vec![Carry([0; PART]); fa];
    let carries = carries.as_mut_ptr() as *mut u8;
    let mut stage = MaybeUninit::<X::Stage>::uninit();
    let o = stage.as_mut_ptr() as *mut u8;
    let bands = fb / e;
    for b0 in (0..bands).step_by(g) {
        let n = g.min(bands - b0);
        let j0 = b0 * e;
        let (first, last) = (b0 == 0, b0 + n == bands);
        let end = (n + 1) * PART;
        for i0 in (0..fa).step_by(e) {
            // SAFETY: the parts are inside the tile; the stage holds e rows of a carry and
            // n <= g parts, `pitch` apart (every byte read back is written first: the
            // carry unless `first`); the carries of rows i0..i0 + e are inside `carries`
            // (i0 + e <= fa); the destination bytes written are row r's n parts, the bytes
            // before them (the previous part's, unless `first`) and, when `last`, none past
            // them.
            unsafe {
                for q in 0..n {
                    part.stage(x, i0, j0 + q * e, o.add((q + 1) * PART), pitch);
                }
                let d = d.offset(i0 as isize * c.da + (j0 * w) as isize);
                for r in 0..e {
                    let to = d.offset(r as isize * c.da);
                    let row = o.add(r * pitch);
                    let m = to as usize % LINE;
                    if m == 0 {
                        for q in 0..n {
                            x.line(to.add(q * PART), row.add((q + 1) * PART));
                        }
                        continue;
                    }
                    let carry = carries.add((i0 + r) * PART);
                    if first {
                        std::ptr::copy_nonoverlapping(row.add(PART), to, LINE - m);
                    } else {
                        std::ptr::copy_nonoverlapping(carry, row, PART);
                        x.line(to.sub(m), row.add(PART - m));
                    }
                    for q in 1..n {
                        x.line(to.add(q * PART - m), row.add((q + 1) * PART - m));
                    }
                    if last {
                        std::ptr::copy_nonoverlapping(row.add(end - m), to.add(n * PART - m), m);
                    } else {
                        std::ptr::copy_nonoverlapping(row.add(end - PART), carry, PART);
                    }
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

/// [`realigned`] one part at a time (groups of one), each row's part staged in place after
/// its carry (one 64-byte copy a row and part; through [`realigned`]'s separate carries,
/// two: under `STRIDEKIT_CPU_CAPABILITY=default` at 1 GiB the off-grid transposes lost 2-10
/// points of the memcpy rate, session 23).
///
/// # Safety
/// As [`tile`].
#[inline(always)]
unsafe fn realigned_one<X: Stager>(x: &X, d: *mut u8, part: &Part, fb: usize) {
    const ROW: usize = 2 * PART;
    let (w, c, fa) = (part.w, part.c, part.fa);
    let e = PART / w;
    let mut rows = vec![Pair([0; ROW]); fa];
    let base = rows.as_mut_ptr() as *mut u8;
    for j0 in (0..fb).step_by(e) {
        let (first, last) = (j0 == 0, j0 + e >= fb);
        for i0 in (0..fa).step_by(e) {
            // SAFETY: the part is inside the tile; its rows' pairs are inside `rows` (i0 + e
            // <= fa), each staged row at byte PART of its pair; the destination bytes
            // written are row r's part, the bytes before it (the previous part's, unless
            // `first`) and, when `last`, none past the part.
            unsafe {
                part.stage(x, i0, j0, base.add(i0 * ROW + PART), ROW);
                let d = d.offset(i0 as isize * c.da + (j0 * w) as isize);
                for r in 0..e {
                    let to = d.offset(r as isize * c.da);
                    let row = base.add((i0 + r) * ROW);
                    let m = to as usize % LINE;
                    if m == 0 {
                        x.line(to, row.add(PART));
                        continue;
                    }
                    if first {
                        std::ptr::copy_nonoverlapping(row.add(PART), to, LINE - m);
                    } else {
                        x.line(to.sub(m), row.add(PART - m));
                    }
                    if last {
                        std::ptr::copy_nonoverlapping(row.add(ROW - m), to.add(LINE - m), m);
                    } else {
                        std::ptr::copy_nonoverlapping(row.add(PART), row, PART);
                    }
                }
            }
        }
    }
}
