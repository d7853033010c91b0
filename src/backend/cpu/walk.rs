//! Walks a [`ByteWalk`] (or a part of it, for one task) through a [`Segment`]: as rows
//! along the innermost dimension, or as cache-sized tiles of two dimensions when the
//! innermost dimension is strided in the source and another is contiguous there (a
//! transpose or a permute that moves the innermost dimension).

use super::contiguous::{self, CacheLevel, STREAM_MIN};
use super::layers::Layers;
use super::lines;
use super::segment::{STAGE_BYTES, Segment, Tile, square_edge};
use super::shape::{ByteWalk, Sizes};
use super::staged;
use super::tile_order::TileOrder;

/// The two dimensions a tiled walk blocks: `a` (small source stride) and `b` (innermost),
/// and the tile edges in elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tiling {
    pub a: usize,
    pub b: usize,
    pub ta: usize,
    pub tb: usize,
    /// Tiles of whole-line blocks ([`lines`]): the walk is at least [`STREAM_MIN`] bytes,
    /// one width on both sides, dense along both tile dimensions, its destination rows (along
    /// `a`) at least a page apart, and the CPU has the blocks for the width (else they go
    /// as [`staged`] whole lines, on x86-64 for the same widths). (Rows closer
    /// than a page, as NCHW -> NHWC writes them, share pages and lines between tiles: the
    /// square tiles measured faster there.)
    pub lines: bool,
    /// Square tiles whose destination blocks are contiguous (the tile spans all of `b`,
    /// and destination rows along `a` follow each other), in a walk of at least
    /// [`STREAM_MIN`] bytes: each tile is streamed out through a buffer
    /// ([`Tile::stream`]), as NCHW -> NHWC's tiles are.
    pub stream: bool,
    /// A third dimension whose layers each tile stacks ([`Pack`]).
    pub pack: Option<Pack>,
}

/// A packed tile's third dimension `c` and its edge `tc`: whole-line tiles that span all of
/// `a` and `b` and are small take `tc` layers along a dimension `c` that continues the
/// source's run along `a` (`c` steps the source by all of `a`) and the destination's run
/// along `b` (likewise), as cuTT's "packed" kernels do: the bench's 6-d permute (5, 0, 3,
/// 1, 4, 2) of 32x32x16x32x16x32 f32 tiles source dims 5 (a, 32) and 2 (b, 16) in 2 KiB
/// and packs dim 4 (16): each tile reads 16 source runs of 2 KiB and writes 32 destination
/// runs of 1 KiB, in one call into the whole-line blocks instead of sixteen. Measured at
/// 1 GiB on the AMD EPYC (Zen 4) development host, A/B in one process (a temporary
/// switch, 8-10 rounds, load 4-5, session 18), that permute's share of the same run's
/// memcpy rate unpacked -> packed: 50-53% -> 64-68% (1 thread), 53-54% -> 66-68% (2
/// threads). Its per-tile work, not its memory traffic, had set the pace: the same walk
/// with the blocks' loads and stores sent to a 16 KiB scratch buffer took about as long
/// as the memcpy. A packed walk keeps row-major order over the other dimensions (visiting
/// two of them in blocks moved within the noise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pack {
    pub c: usize,
    pub tc: usize,
}

/// Whole-line tiles of at most this many source bytes are packed, up to [`PACK_BYTES`]
/// with their layers (not tuned: the 6-d permute's 16 layers, 32 KiB, fit whole).
const PACK_BELOW: usize = 16 * 1024;
const PACK_BYTES: usize = 64 * 1024;

/// A whole-line tile's bytes along `a` (each source row's run: a page) and along `b` (each
/// destination row's run: 4 pages). Measured at 1 GiB on the development Xeon (1 thread,
/// share of the same run's memcpy rate, u8 / f16 / f32 / f64 transposes): 4 KiB x 4 KiB
/// tiles 25 / 42 / 57-66 / 69%, 8 x 8 KiB 32-36 / 44-47 / 59-63 / 79-83%, 4 x 16 KiB
/// 34 / 53 / 75 / 80%; longer source runs with shorter destination runs (16 x 4, 32 x 2,
/// 16 x 1 KiB) were slower, 13-45%: the tile's bands revisit its destination rows, and the
/// longer those runs, the fewer pages and lines each band opens. On AMD CPUs the tiles are
/// 8 x 8 KiB ([`line_tile`]).
const LINE_TILE_A: usize = 4096;
const LINE_TILE_B: usize = 16384;

/// A whole-line tile's bytes along `a` and `b`: 8 x 8 KiB on AMD CPUs, else [`LINE_TILE_A`]
/// x [`LINE_TILE_B`]. Measured at 1 GiB on the AMD EPYC (Zen 4) development host, A/B in
/// one process (a temporary switch, 6-10 rounds, three runs, load 2.7-4, session 18),
/// share of the same run's memcpy rate by CPU time, 4 x 16 -> 8 x 8 KiB, 1 / 2 threads:
/// f16 transpose 55-60% -> 59-62%, 66-75% -> 67-79%; f32 57-60% -> 61-64%, 56-75% -> 62-75%;
/// f64 58-61% -> 63-65%, 60-76% -> 65-80%; the u8 transpose alike (43-46%); 2 x 16, 4 x 32
/// and 1 x 64 KiB were level or slower (1 x 64: 36-52%). The cases whose tiles the
/// dimensions bound (the permutes, NHWC -> NCHW) moved within the noise.
fn line_tile() -> (usize, usize) {
    if contiguous::is_amd() {
        (8192, 8192)
    } else {
        (LINE_TILE_A, LINE_TILE_B)
    }
}

/// The fewest whole-line tiles a walk is cut into (the units split over threads).
const LINE_TILES_AT_LEAST: usize = 16;

/// Destination rows (along `a`) at least this many bytes apart take whole-line tiles.
const LINE_ROWS_APART: usize = 4096;

/// Whether a walk is far larger than the caches (at least [`lines_from`] bytes on its wider
/// side): its tiles may be whole-line or streamed tiles, its rows are streamed out
/// ([`super::streamed`]).
pub(super) fn is_large(w: &ByteWalk) -> bool {
    w.numel().saturating_mul(w.sw.max(w.dw)) >= lines_from()
}

/// The least walk, in bytes, that [`is_large`]: [`STREAM_MIN`] (tests lower it to reach
/// the whole-line blocks, the streamed tiles and rows with small tensors; every path writes
/// what the reference writes, so a test running meanwhile checks the same bytes).
fn lines_from() -> usize {
    #[cfg(test)]
    {
        LINES_FROM.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(not(test))]
    {
        STREAM_MIN
    }
}

#[cfg(test)]
pub(super) static LINES_FROM: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(STREAM_MIN);

impl Tiling {
    /// The tiling for a walk whose destination elements are disjoint, when its innermost
    /// dimension is strided in the source and some outer dimension steps less there.
    pub fn of(w: &ByteWalk) -> Option<Tiling> {
        let r = w.rank();
        if r < 2 || w.sizes[r - 1] < 2 {
            return None;
        }
        let b = r - 1;
        let sb = w.src[b].unsigned_abs();
        let a = (0..b)
            .filter(|&k| w.sizes[k] >= 2 && w.src[k] != 0)
            .min_by_key(|&k| w.src[k].unsigned_abs())?;
        if w.src[a].unsigned_abs() >= sb || sb <= w.sw {
            return None;
        }
        let wide = w.sw.max(w.dw);
        let dense = w.src[a] == wide as isize && w.dst[b] == wide as isize;
        let lines = w.sw == w.dw
            && dense
            && w.dst[a].unsigned_abs() >= LINE_ROWS_APART
            && is_large(w)
            && (lines::available(wide) || staged::available(wide));
        let (ea, eb) = if lines {
            let (along_a, along_b) = line_tile();
            (along_a / wide, along_b / wide)
        } else {
            (square_edge(wide), square_edge(wide))
        };
        let tb = eb.min(w.sizes[b]);
        // A streamed tile takes as many rows along `a` as fill segment.rs's buffer (which
        // its source is staged in too). Measured at 1 GiB on the development Xeon (1
        // thread, share of memcpy by CPU time, NCHW -> NHWC with 64 channels, A/B in one
        // binary): f32 48-54% -> 56-60% (64 rows, as the square tiles); f16 45-47% ->
        // 37-38% with the square tiles' 64 rows (8 KiB), 49-52% with 128 (16 KiB). The
        // rows are whole lines of a plane (a multiple of 64 / `wide`), so that each tile's
        // planes and pixels start on a line where the first tile's do, and their
        // non-temporal stores apply to all of them or none ([`super::channels::Pixels`]).
        let stream_rows = STAGE_BYTES / (tb * wide);
        let per_line = (lines::LINE / wide).max(1);
        let stream_rows = if stream_rows >= per_line {
            stream_rows / per_line * per_line
        } else {
            stream_rows
        };
        let stream = !lines
            && w.sw == w.dw
            && w.dst[b] == wide as isize
            && tb == w.sizes[b]
            && w.dst[a] == (tb * wide) as isize
            && stream_rows >= 8
            && is_large(w);
        let ea = if stream { stream_rows } else { ea };
        let mut t = Tiling {
            a,
            b,
            ta: ea.min(w.sizes[a]),
            tb,
            lines,
            stream,
            pack: None,
        };
        // A walk of few whole-line tiles (a 64 MiB u8 transpose is one) gives them narrower
        // destination runs, so that it still splits over threads.
        while t.lines && t.count(w) < LINE_TILES_AT_LEAST && t.tb >= 2 * lines::LINE {
            t.tb /= 2;
        }
        if t.lines {
            t.pack = t.packed(w);
        }
        Some(t)
    }

    /// The [`Pack`] of a whole-line tiling, if one applies: the tile spans all of `a` and
    /// `b` in at most [`PACK_BELOW`] bytes, some other dimension `c` steps the source by
    /// all of `a` and the destination by all of `b` (whole lines: every layer's blocks
    /// start on lines), and the walk keeps at least [`LINE_TILES_AT_LEAST`] tiles.
    pub(super) fn packed(&self, w: &ByteWalk) -> Option<Pack> {
        let wide = w.sw;
        let bytes = self.ta * self.tb * wide;
        let (run_a, run_b) = (self.ta * wide, self.tb * wide);
        if self.ta != w.sizes[self.a]
            || self.tb != w.sizes[self.b]
            || bytes > PACK_BELOW
            || !run_b.is_multiple_of(lines::LINE)
        {
            return None;
        }
        let c = self.others(w).into_iter().rev().find(|&k| {
            w.sizes[k] >= 2 && w.src[k] == run_a as isize && w.dst[k] == run_b as isize
        })?;
        let mut p = Pack {
            c,
            tc: w.sizes[c].min(PACK_BYTES / bytes),
        };
        while p.tc > 1
            && (Tiling {
                pack: Some(p),
                ..*self
            })
            .count(w)
                < LINE_TILES_AT_LEAST
        {
            p.tc /= 2;
        }
        (p.tc > 1).then_some(p)
    }

    /// Tiles per index of the other dimensions: along `a`, `b` and the packed `c`.
    fn per_outer(&self, w: &ByteWalk) -> (usize, usize, usize) {
        (
            w.sizes[self.a].div_ceil(self.ta),
            w.sizes[self.b].div_ceil(self.tb),
            self.pack.map_or(1, |p| w.sizes[p.c].div_ceil(p.tc)),
        )
    }

    /// Tiles in the whole walk (the units a tiled walk is split into).
    pub fn count(&self, w: &ByteWalk) -> usize {
        let (na, nb, nc) = self.per_outer(w);
        self.others(w)
            .iter()
            .map(|&k| w.sizes[k])
            .product::<usize>()
            * na
            * nb
            * nc
    }

    /// The dimensions outside the tile (and outside its layers).
    fn others(&self, w: &ByteWalk) -> Sizes {
        let c = self.pack.map(|p| p.c);
        (0..w.rank())
            .filter(|&k| k != self.a && k != self.b && Some(k) != c)
            .collect()
    }
}

/// Moves elements `e0..e1` of the walk (in its row-major order) as runs along the innermost
/// dimension. Whole rows along the next dimension out are moved in a loop of their own,
/// which steps both offsets by that dimension's strides; the odometer over the outer
/// dimensions turns once per pass of it (a broadcast row copied to 1024 rows of 4 KiB went
/// through it once per row).
///
/// # Safety
/// `w` was checked against the slices at `d` and `s`; no other thread writes the
/// destination bytes of these elements meanwhile.
pub(super) unsafe fn rows<S: Segment>(
    w: &ByteWalk,
    op: &S,
    d: *mut u8,
    s: *const u8,
    e0: usize,
    e1: usize,
) {
    let inner = w.rank() - 1;
    let n = w.sizes[inner];
    let (dstep, sstep) = (w.dst[inner], w.src[inner]);
    let outer: Sizes = (0..inner).collect();
    let (mut idx, mut dp, mut sp) = start(w, &outer, e0 / n);
    let col = e0 % n;
    let mut left = e1 - e0;
    if col > 0 {
        // The first row's tail.
        let len = (n - col).min(left);
        let (dd, ss) = w.step(inner, col, dp, sp);
        // SAFETY: every element of the run is one of the walk's, inside the checked slices.
        unsafe { op.run(d.add(dd), s.add(ss), len, dstep, sstep) };
        left -= len;
        advance(w, &outer, &mut idx, &mut dp, &mut sp);
    }
    // Whole rows: along the next dimension out (if any), to its end or the last whole row.
    // That dimension `k` is also the odometer's last digit (`outer` is 0..inner).
    let next_out = inner.checked_sub(1);
    while left >= n {
        let (count, rd, rs) = match next_out {
            Some(k) => ((w.sizes[k] - idx[k]).min(left / n), w.dst[k], w.src[k]),
            None => (1, 0, 0),
        };
        let (mut dd, mut ss) = (dp, sp);
        for _ in 0..count {
            // SAFETY: as above, row by row.
            unsafe { op.run(d.add(dd), s.add(ss), n, dstep, sstep) };
            (dd, ss) = (dd.wrapping_add_signed(rd), ss.wrapping_add_signed(rs));
        }
        left -= count * n;
        if let Some(k) = next_out {
            // The odometer's last digit moves to the last row done, then turns once.
            idx[k] += count - 1;
            (dp, sp) = w.step(k, count - 1, dp, sp);
        }
        advance(w, &outer, &mut idx, &mut dp, &mut sp);
    }
    if left > 0 {
        // The last row's head.
        // SAFETY: as above.
        unsafe { op.run(d.add(dp), s.add(sp), left, dstep, sstep) };
    }
}

/// Moves tiles `t0..t1` of a tiled walk (ordered by the other dimensions, in
/// [`TileOrder`]'s order, then tile rows along `a`, then tiles along `b`, then packed
/// layers along `c`).
///
/// # Safety
/// As [`rows`].
pub(super) unsafe fn tiles<S: Segment>(
    w: &ByteWalk,
    op: &S,
    t: Tiling,
    d: *mut u8,
    s: *const u8,
    t0: usize,
    t1: usize,
) {
    let others = t.others(w);
    // A packed walk keeps row-major order: its layers are a dimension near both sides,
    // which would have kept it row-major unpacked ([`TileOrder`]).
    let pages = (t.lines || t.stream) && t.pack.is_none();
    let order = TileOrder::new(w, &others, pages);
    let (na, nb, nc) = t.per_outer(w);
    let per = na * nb * nc;
    let place = |rest: usize| (rest / (nb * nc), rest / nc % nb, rest % nc);
    if order.is_blocked() {
        for tile in t0..t1 {
            let (o, rest) = (tile / per, tile % per);
            let (_, dp, sp) = start(w, &order.dims, order.row(w, o));
            // SAFETY: the tile's elements are the walk's, inside the checked slices.
            unsafe { tile_at(w, op, t, (d, s), (dp, sp), place(rest)) };
        }
    } else {
        // Row-major, the other dimensions' offsets moved as an odometer, without the
        // blocked order's arithmetic: with it in this loop (one loop for both orders,
        // `row` an identity when unblocked), the bench's 6-d permute, 512 Ki tiles of
        // 2 KiB, ran 3-4 points of the memcpy rate slower (codegen, not the arithmetic:
        // the odometer measured the same as decoding each index).
        let (mut idx, mut dp, mut sp) = start(w, &others, t0 / per);
        let (mut ra, mut rb, mut rc) = place(t0 % per);
        let ahead = prefetches_next(w, t);
        for _ in t0..t1 {
            let here = (dp, sp, (ra, rb, rc));
            rc += 1;
            if rc == nc {
                rc = 0;
                rb += 1;
                if rb == nb {
                    rb = 0;
                    ra += 1;
                    if ra == na {
                        ra = 0;
                        advance(w, &others, &mut idx, &mut dp, &mut sp);
                    }
                }
            }
            if ahead {
                prefetch_tile(w, t, s, sp, (ra, rb, rc));
            }
            let (dp, sp, at) = here;
            // SAFETY: the tile's elements are the walk's, inside the checked slices.
            unsafe { tile_at(w, op, t, (d, s), (dp, sp), at) };
        }
    }
    if t.stream || t.lines {
        // Streamed and whole-line tiles write with non-temporal stores, unfenced: one
        // fence orders them all before the task ends (and another thread reads them).
        super::contiguous::store_fence();
    }
}

/// Whether a tiled walk asks for each tile's source lines while it moves the tile before:
/// whole-line tiles of at most [`PREFETCH_TILE`] source bytes, dense along `a`, unpacked
/// (the lines blocks prefetch inside a tile and across its layers ([`lines`]); a tile this
/// small has no block after its second). Measured at 1 GiB on the development Xeon, A/B
/// in one process (`benches/cpu_1gib.rs` with a temporary switch, 5 rounds, twice,
/// session 15), the 6-d permute's share of the same run's memcpy rate without -> with
/// (then unpacked, 512 Ki tiles of 32 x 16 f32): 46-47% -> 49-50% (1 thread), 40-41% ->
/// 48-51% (2 threads). Larger tiles (up to 64 KiB: the 4-d reversal) moved within the
/// noise.
fn prefetches_next(w: &ByteWalk, t: Tiling) -> bool {
    t.lines
        && t.pack.is_none()
        && w.src[t.a] == w.sw as isize
        && t.ta.saturating_mul(t.tb).saturating_mul(w.sw) <= PREFETCH_TILE
}

/// The largest tile (source bytes) [`prefetches_next`] applies to.
const PREFETCH_TILE: usize = 4096;

/// Asks for the source lines of tile `(ra, rb, _)` (an unpacked walk's) of the other
/// dimensions' index whose first source element is at byte offset `sp` (nothing is read;
/// the offsets may lie past the walk's last tile).
fn prefetch_tile(w: &ByteWalk, t: Tiling, s: *const u8, sp: usize, at: (usize, usize, usize)) {
    let (ra, rb, _) = at;
    let (_, sp) = w.step(t.a, ra * t.ta, 0, sp);
    let (_, sp) = w.step(t.b, rb * t.tb, 0, sp);
    let run = t.ta.min(w.sizes[t.a].saturating_sub(ra * t.ta)) * w.sw;
    let rows = t.tb.min(w.sizes[t.b].saturating_sub(rb * t.tb));
    let level = CacheLevel::near();
    super::contiguous::prefetch_rows(s.wrapping_add(sp), rows, w.src[t.b], run, level);
}

/// Moves tile `(ra, rb, rc)` (its place along `a`, `b` and the packed `c`) of the other
/// dimensions' index whose first element is at byte offsets `(dp, sp)`.
///
/// # Safety
/// As [`rows`].
#[inline(always)]
unsafe fn tile_at<S: Segment>(
    w: &ByteWalk,
    op: &S,
    t: Tiling,
    (d, s): (*mut u8, *const u8),
    (dp, sp): (usize, usize),
    (ra, rb, rc): (usize, usize, usize),
) {
    let (ia, ib) = (ra * t.ta, rb * t.tb);
    let (dp, sp) = w.step(t.a, ia, dp, sp);
    let (dp, sp) = w.step(t.b, ib, dp, sp);
    let shape = Tile {
        na: t.ta.min(w.sizes[t.a] - ia),
        nb: t.tb.min(w.sizes[t.b] - ib),
        da: w.dst[t.a],
        db: w.dst[t.b],
        sa: w.src[t.a],
        sb: w.src[t.b],
        lines: t.lines,
        stream: t.stream,
    };
    match t.pack {
        // SAFETY: the tile's elements are the walk's, inside the checked slices.
        None => unsafe { op.tile(d.add(dp), s.add(sp), shape) },
        Some(p) => {
            let ic = rc * p.tc;
            let (dp, sp) = w.step(p.c, ic, dp, sp);
            let layers = Layers {
                n: p.tc.min(w.sizes[p.c] - ic),
                dl: w.dst[p.c],
                sl: w.src[p.c],
            };
            // SAFETY: each layer's elements are the walk's, inside the checked slices.
            unsafe { op.layers(d.add(dp), s.add(sp), shape, layers) }
        }
    }
}

/// The index, destination and source byte offsets of row `row` of the dimensions `dims`
/// (row-major over them).
fn start(w: &ByteWalk, dims: &[usize], row: usize) -> (Sizes, usize, usize) {
    let mut idx: Sizes = Sizes::from_elem(0, dims.len());
    let (mut dp, mut sp) = (w.d0, w.s0);
    let mut rem = row;
    for (j, &k) in dims.iter().enumerate().rev() {
        idx[j] = rem % w.sizes[k];
        rem /= w.sizes[k];
        (dp, sp) = w.step(k, idx[j], dp, sp);
    }
    (idx, dp, sp)
}

/// The next index of the dimensions `dims` (an odometer), moving the offsets with it.
fn advance(w: &ByteWalk, dims: &[usize], idx: &mut [usize], dp: &mut usize, sp: &mut usize) {
    for (j, &k) in dims.iter().enumerate().rev() {
        idx[j] += 1;
        if idx[j] < w.sizes[k] {
            (*dp, *sp) = w.step(k, 1, *dp, *sp);
            return;
        }
        let back = w.sizes[k] - 1;
        (*dp, *sp) = (
            dp.wrapping_add_signed(-(back as isize) * w.dst[k]),
            sp.wrapping_add_signed(-(back as isize) * w.src[k]),
        );
        idx[j] = 0;
    }
}
