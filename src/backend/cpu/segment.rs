//! The innermost loops: a [`Segment`] moves one strided run of elements, or one tile of
//! two dimensions. [`Move`] is the same-dtype mover, one generic body instantiated per
//! element width (1, 2, 4, 8, 16 bytes), never per dtype: contiguous runs are one
//! `copy_nonoverlapping`, broadcast, reversed and gathering runs are plain loops the compiler
//! vectorises for the width, and tiles of a transpose go through `B`x`B` register blocks.

use std::marker::PhantomData;
use std::ptr::{copy_nonoverlapping, read_unaligned, write_unaligned};

use super::channels::{self, Pixels, Way};
use super::contiguous::{self, CacheLevel};
use super::layers::Layers;
use super::lines::{self, Corner};
use super::staged;
use super::ymm;

/// A tile of two dimensions, `a` (the source's contiguous one) and `b` (the destination's
/// innermost): element `(i, j)`, `i < na`, `j < nb`, moves from `s + i*sa + j*sb` to
/// `d + i*da + j*db` (byte steps).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tile {
    pub na: usize,
    pub nb: usize,
    pub da: isize,
    pub db: isize,
    pub sa: isize,
    pub sb: isize,
    /// The walk is far larger than the caches: the tile's full blocks go through
    /// [`lines`]' whole-line blocks where they apply.
    pub lines: bool,
    /// The walk is far larger than the caches and the tile's destination is one contiguous
    /// block (`da == nb * db`): the tile is moved into a buffer and streamed out with
    /// non-temporal stores (not fenced: the walk fences after its last tile).
    pub stream: bool,
}

/// One way of moving elements from the source bytes to the destination bytes.
pub(super) trait Segment: Sync {
    /// Moves `len` elements, the `i`-th from `s + i*sstep` to `d + i*dstep` (bytes).
    ///
    /// # Safety
    /// Every address reached is inside the caller's checked slices (whole elements), and no
    /// other thread writes the destination bytes meanwhile.
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize);

    /// Moves a tile (in runs along its longer side unless a mover knows better).
    ///
    /// # Safety
    /// As [`Segment::run`], for every element of the tile.
    unsafe fn tile(&self, d: *mut u8, s: *const u8, t: Tile) {
        // SAFETY: forwarded.
        unsafe { tile_in_runs(self, d, s, t) }
    }

    /// Moves `layers.n` tiles of shape `t` (one tile at a time unless a mover knows better).
    ///
    /// # Safety
    /// As [`Segment::tile`], for every element of every layer.
    unsafe fn layers(&self, d: *mut u8, s: *const u8, t: Tile, layers: Layers) {
        // SAFETY: forwarded.
        unsafe { tile_by_layer(self, d, s, t, layers) }
    }
}

/// Moves `layers.n` tiles of shape `t`, one [`Segment::tile`] each.
///
/// # Safety
/// As [`Segment::layers`].
unsafe fn tile_by_layer<S: Segment + ?Sized>(
    op: &S,
    d: *mut u8,
    s: *const u8,
    t: Tile,
    layers: Layers,
) {
    for l in 0..layers.n as isize {
        // SAFETY: layer l is one of the caller's tiles.
        unsafe { op.tile(d.offset(l * layers.dl), s.offset(l * layers.sl), t) };
    }
}

/// A tile as runs along `b` (one per `a`) or along `a`, whichever is longer.
///
/// # Safety
/// As [`Segment::tile`].
pub(super) unsafe fn tile_in_runs<S: Segment + ?Sized>(op: &S, d: *mut u8, s: *const u8, t: Tile) {
    // SAFETY (all runs): inside the tile, which the caller vouches for.
    if t.nb >= t.na {
        for i in 0..t.na {
            let o = i as isize;
            unsafe { op.run(d.offset(o * t.da), s.offset(o * t.sa), t.nb, t.db, t.sb) };
        }
    } else {
        for j in 0..t.nb {
            let o = j as isize;
            unsafe { op.run(d.offset(o * t.db), s.offset(o * t.sb), t.na, t.da, t.sa) };
        }
    }
}

/// The same-dtype mover for elements of `T`'s width (`u8`, `u16`, `u32`, `u64`, `u128`:
/// the bytes move unchanged), with `B`x`B` register blocks for tiles.
pub(super) struct Move<T, const B: usize>(PhantomData<T>);

impl<T, const B: usize> Move<T, B> {
    pub const NEW: Self = Move(PhantomData);
}

// SAFETY: Move holds no data.
unsafe impl<T, const B: usize> Sync for Move<T, B> {}

impl<T: Copy, const B: usize> Segment for Move<T, B> {
    #[inline]
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize) {
        let w = size_of::<T>() as isize;
        let (dt, st) = (d as *mut T, s as *const T);
        // SAFETY (every access): the caller vouches for each element address; unaligned
        // reads and writes because host bytes carry no alignment promise.
        unsafe {
            if dstep == w {
                if sstep == w {
                    contiguous::copy(d, s, len * w as usize);
                } else if sstep == 0 {
                    let v = read_unaligned(st);
                    if contiguous::fill(d, v, len) {
                        return;
                    }
                    for i in 0..len {
                        write_unaligned(dt.add(i), v);
                    }
                } else if sstep == -w {
                    for i in 0..len {
                        write_unaligned(dt.add(i), read_unaligned(st.sub(i)));
                    }
                } else if sstep == 2 * w {
                    // Every other element (a step-2 slice): with the step known, the
                    // compiler moves several elements per vector shuffle.
                    for i in 0..len {
                        write_unaligned(dt.add(i), read_unaligned(st.add(2 * i)));
                    }
                } else {
                    for i in 0..len {
                        let v = read_unaligned(st.byte_offset(i as isize * sstep));
                        write_unaligned(dt.add(i), v);
                    }
                }
            } else {
                for i in 0..len {
                    let v = read_unaligned(st.byte_offset(i as isize * sstep));
                    write_unaligned(dt.byte_offset(i as isize * dstep), v);
                }
            }
        }
    }

    unsafe fn tile(&self, d: *mut u8, s: *const u8, t: Tile) {
        let w = size_of::<T>() as isize;
        // SAFETY: forwarded.
        if t.db == w && t.sa == w && unsafe { in_channels(self, d, s, t) } {
            return;
        }
        if t.db != w || t.sa != w || t.na < B || t.nb < B {
            // SAFETY: forwarded.
            return unsafe { tile_in_runs(self, d, s, t) };
        }
        if t.lines {
            // SAFETY: forwarded.
            if unsafe { self.in_lines(d, s, t, Layers::ONE) } {
                return;
            }
            if !lines::available(w as usize) && staged::available(w as usize) {
                // No whole-line blocks on this CPU: staged whole lines instead.
                // SAFETY: forwarded.
                return unsafe { self.in_staged(d, s, t) };
            }
            // Lines do not apply here (an unaligned destination): the tile, sized for
            // them, goes in square cache-sized tiles instead.
            // SAFETY: forwarded, piece by piece.
            return unsafe { in_square_tiles(self, d, s, t) };
        }
        let bytes = t.na * t.nb * w as usize;
        if t.stream && t.da == (t.nb * w as usize) as isize && bytes <= STAGE_BYTES {
            // SAFETY: forwarded.
            return unsafe { self.streamed(d, s, t) };
        }
        let row = t.na * w as usize;
        if t.sb.unsigned_abs().is_multiple_of(CONFLICT_STEP) && row * t.nb <= STAGE_BYTES {
            // Source rows a multiple of 1 KiB apart share at most 4 of L1's 64 sets: the
            // register blocks would evict them before the tile is done with them. The
            // tile's source rows are first copied whole into a dense buffer.
            let mut buf = [0u128; STAGE_BYTES / 16];
            let b = buf.as_mut_ptr() as *mut u8;
            for j in 0..t.nb {
                // SAFETY: source row j of the tile (na contiguous elements) is inside the
                // caller's slice; buffer row j is inside the buffer (row * nb bytes fit).
                unsafe { copy_nonoverlapping(s.offset(j as isize * t.sb), b.add(j * row), row) };
            }
            let staged = Tile {
                sb: row as isize,
                ..t
            };
            // SAFETY: the destination as the caller vouches; the source is the buffer.
            return unsafe { self.blocks(d, b, staged) };
        }
        // SAFETY: forwarded.
        unsafe { self.blocks(d, s, t) }
    }

    unsafe fn layers(&self, d: *mut u8, s: *const u8, t: Tile, layers: Layers) {
        let w = size_of::<T>() as isize;
        let blocks = t.db == w && t.sa == w && t.na >= B && t.nb >= B;
        // SAFETY: forwarded.
        if !(t.lines && blocks && unsafe { self.in_lines(d, s, t, layers) }) {
            // SAFETY: forwarded.
            unsafe { tile_by_layer(self, d, s, t, layers) }
        }
    }
}

/// Moves tile `t` (`db` and `sa` one element) if one of its sides is pixels of a few
/// channels ([`channels`]): `na` channels contiguous in each source pixel (`sb` = `na`
/// elements: NHWC -> NCHW), or `nb` in each destination pixel (`da` = `nb` elements); the
/// pixels past the last whole group go as runs. False, with nothing moved, otherwise.
///
/// # Safety
/// As [`Segment::tile`].
#[inline(always)]
unsafe fn in_channels<S: Segment>(op: &S, d: *mut u8, s: *const u8, t: Tile) -> bool {
    let w = t.db;
    let wu = w as usize;
    let stream = t.lines || t.stream;
    // SAFETY (both): the pixels and planes are the tile's; the source is only read (a
    // split reads `px`, a join `pl`).
    unsafe {
        if channels::CHANNELS.contains(&t.na) && t.sb == t.na as isize * w {
            let m = Pixels {
                way: Way::Split,
                n: t.nb,
                px: s.cast_mut(),
                pl: d,
                step: t.da,
                stream,
            };
            let done = channels::move_pixels(m, wu, t.na);
            if done > 0 {
                let (dd, ss) = (d.add(done * wu), s.offset(done as isize * t.sb));
                tile_in_runs(
                    op,
                    dd,
                    ss,
                    Tile {
                        nb: t.nb - done,
                        ..t
                    },
                );
                return true;
            }
        }
        if channels::CHANNELS.contains(&t.nb) && t.da == t.nb as isize * w {
            // Streamed, the groups start at the first pixel on a line (their non-temporal
            // stores take whole lines only); the pixels before it go as runs.
            let head = if stream {
                pixels_to_line(d, t.da as usize, t.na)
            } else {
                0
            };
            let m = Pixels {
                way: Way::Join,
                n: t.na - head,
                px: d.add(head * t.da as usize),
                pl: s.add(head * wu).cast_mut(),
                step: t.sb,
                stream,
            };
            let done = channels::move_pixels(m, wu, t.nb);
            if done > 0 {
                tile_in_runs(op, d, s, Tile { na: head, ..t });
                let moved = head + done;
                let (dd, ss) = (d.offset(moved as isize * t.da), s.add(moved * wu));
                tile_in_runs(
                    op,
                    dd,
                    ss,
                    Tile {
                        na: t.na - moved,
                        ..t
                    },
                );
                return true;
            }
        }
    }
    false
}

/// How many of `n` pixels of `bytes` each, from `d`, come before the first that starts on
/// a 64-byte line; 0 where none of the first 64 does (then none does: pixel offsets
/// repeat every 64 pixels).
fn pixels_to_line(d: *const u8, bytes: usize, n: usize) -> usize {
    (0..n.min(64))
        .find(|&k| (d as usize).wrapping_add(k * bytes).is_multiple_of(64))
        .unwrap_or(0)
}

/// Source steps that are multiples of this many bytes stage a tile through a buffer.
const CONFLICT_STEP: usize = 1024;

/// The largest staged tile (source bytes), and the largest streamed one (destination
/// bytes): the tiles of [`super::walk`] fit.
pub(super) const STAGE_BYTES: usize = 16 * 1024;

impl<T: Copy, const B: usize> Move<T, B> {
    /// A streamed tile (its destination one contiguous block of at most [`STAGE_BYTES`]),
    /// written without reading the destination lines first: through [`lines`]' whole-line
    /// blocks straight from the source where they apply (each block writes whole
    /// destination lines with non-temporal stores, unfenced: the walk fences), else (no
    /// AVX-512) as [`staged`] whole lines, else (off x86-64) into a buffer in L1 that is
    /// then streamed out. The staged lines against that buffer, 1 GiB NCHW -> NHWC on the
    /// AMD EPYC host, two A/B runs (session 21), 1 / 2 threads, share of the memcpy rate:
    /// under `STRIDEKIT_CPU_CAPABILITY=avx2` f16 31-32% -> 45% / 44-46% -> 68-71%, f32 31%
    /// -> 37% / 46-47% -> 57-59%; under `default` f16 41-42% -> 72% / 37-44% -> 71-81%,
    /// f32 41-42% -> 58% / 46-48% -> 60-64%.
    ///
    /// The next tile along `a` (the walk's next, in a streamed walk) reads the same source
    /// rows further on: its lines are asked for first, so that they arrive while this tile
    /// is moved. The rows are a plane apart (NCHW -> NHWC's 64 channel rows, 32 KiB apart
    /// at 128 x 128 f16), more streams than the hardware prefetchers follow. Measured at
    /// 1 GiB, A/B in one process (`benches/cpu_1gib.rs` with a temporary switch), share of
    /// the same run's memcpy rate, NCHW -> NHWC f16 and f32, 1 / 2 threads:
    /// - through the buffer, no prefetch -> the next tile's lines into L1 (development
    ///   Xeon, 48 KiB L1d, 5 rounds, session 15): f16 51% / 45% -> 57% / 57%, f32 58% /
    ///   53% -> 59% / 58%; two or four tiles ahead: 1-3 points below one tile ahead;
    /// - on the AMD EPYC (Zen 4, 32 KiB L1d: the buffer, the source rows it is staged in
    ///   and the prefetched tile, 16 KiB each, overflow it) host, 8 rounds, load 2.5-3,
    ///   session 18: through the buffer with the L1 prefetch 35-39%; the same into L2
    ///   42-44%; whole-line blocks from the source into the destination with the L2
    ///   prefetch 64-69% (f16 67% / 69%, f32 64% / 78%; with the L1 prefetch 51-55%; from
    ///   a staged copy of the source rows 45-49%).
    ///
    /// # Safety
    /// As [`Segment::tile`]; the tile has `db` and `sa` one element, is at least `B`x`B`,
    /// and its destination block (`da == nb * db`) is at most [`STAGE_BYTES`].
    unsafe fn streamed(&self, d: *mut u8, s: *const u8, t: Tile) {
        let w = size_of::<T>();
        let bytes = t.na * t.nb * w;
        let direct = lines::available(w);
        let next = s.wrapping_offset((t.na as isize).wrapping_mul(t.sa));
        let level = if direct {
            CacheLevel::L2
        } else {
            CacheLevel::L1
        };
        contiguous::prefetch_rows(next, t.nb, t.sb, t.na * w, level);
        let whole = Tile {
            lines: true,
            stream: false,
            ..t
        };
        // SAFETY: forwarded.
        if direct && unsafe { self.in_lines(d, s, whole, Layers::ONE) } {
            return;
        }
        if !direct && staged::available(w) {
            // SAFETY: forwarded.
            return unsafe { self.in_staged(d, s, t) };
        }
        let mut out = contiguous::LineBuf::<STAGE_BYTES>::new();
        let o = out.as_mut_ptr();
        let inner = Tile { stream: false, ..t };
        // SAFETY: the buffer holds the tile's destination block (bytes fit); the source as
        // the caller vouches; the destination block is the caller's.
        unsafe {
            self.tile(o, s, inner);
            contiguous::copy_streaming(d, o, bytes);
        }
    }

    /// Tile `t` (at least `B`x`B`, `db` and `sa` one element) in [`staged`] whole lines,
    /// its last partial parts as runs.
    ///
    /// # Safety
    /// As [`Segment::tile`].
    #[inline(always)]
    unsafe fn in_staged(&self, d: *mut u8, s: *const u8, t: Tile) {
        let c = Corner {
            na: t.na,
            nb: t.nb,
            da: t.da,
            sb: t.sb,
            layers: Layers::ONE,
        };
        // SAFETY: forwarded; the stagers' blocks move the blocks they are given.
        let (fa, fb) = unsafe {
            if ymm::serves(size_of::<T>()) {
                ymm::tile::<T, B>(d, s, c)
            } else if ymm::available() && t.lines && t.na * size_of::<T>() >= staged::GROUP_MAX * 64
            {
                // 2-byte elements with AVX2: in groups of parts as the AVX2 blocks, but for
                // streamed tiles (NCHW -> NHWC f16 at 1 GiB, `avx2`, share of the memcpy
                // rate: 50-53% -> 39-44% with groups, session 23) and tiles of fewer parts
                // than a group along `a`, whose stage stays the one page of a group of one
                // (NHWC -> NCHW f16, 64 channels, 1 GiB, `avx2`, 1 thread: 94-96 ms with
                // the stage of four, 84-88 with the page, as before the groups).
                let x = Sse::<T, B, { staged::GROUP_MAX }>::new();
                staged::tile(&x, d, s, c)
            } else {
                staged::tile(&Sse::<T, B, 1>::new(), d, s, c)
            }
        };
        // SAFETY: the rest of the tile.
        unsafe { strips(self, d, s, t, fa, fb) }
    }

    /// Moves `layers` of tile `t` (at least `B`x`B`, `db` and `sa` one element) through
    /// [`lines`]' whole-line blocks, all layers' blocks in one call, then the rest of each
    /// layer as runs; false, with nothing moved, where the blocks do not apply.
    ///
    /// # Safety
    /// As [`Segment::layers`].
    #[inline(always)]
    unsafe fn in_lines(&self, d: *mut u8, s: *const u8, t: Tile, layers: Layers) -> bool {
        let c = Corner {
            na: t.na,
            nb: t.nb,
            da: t.da,
            sb: t.sb,
            layers,
        };
        // SAFETY: forwarded (the corner is the tiles' own).
        let (fa, j0, j1) = unsafe { lines::tile(size_of::<T>(), d, s, c) };
        if fa == 0 {
            return false;
        }
        for l in 0..layers.n as isize {
            // SAFETY: the rest of layer l, as the caller vouches for the whole.
            unsafe {
                let (d, s) = (d.offset(l * layers.dl), s.offset(l * layers.sl));
                around(self, d, s, t, fa, j0, j1)
            };
        }
        true
    }

    /// A tile of at least `B`x`B` with `db` and `sa` one element, in register blocks.
    ///
    /// # Safety
    /// As [`Segment::tile`].
    #[inline(always)]
    unsafe fn blocks(&self, d: *mut u8, s: *const u8, t: Tile) {
        let w = size_of::<T>() as isize;
        let (fa, fb) = (t.na / B * B, t.nb / B * B);
        // SAFETY (all below): every block and strip lies inside the tile.
        for i0 in (0..fa).step_by(B) {
            let (d, s) = unsafe { (d.offset(i0 as isize * t.da), s.offset(i0 as isize * w)) };
            for j0 in (0..fb).step_by(B) {
                let j = j0 as isize;
                unsafe { block::<T, B>(d.offset(j * w), s.offset(j * t.sb), t.da, t.sb) };
            }
        }
        // SAFETY: the rest of the tile.
        unsafe { strips(self, d, s, t, fa, fb) }
    }
}

/// [`staged`] whole lines through `B` x `B` [`block`]s of 16 bytes a row (SSE2), each
/// line streamed by `put`, `G` parts along `b` at a time (without AVX2, or under
/// `STRIDEKIT_CPU_CAPABILITY=default`: one; 2-byte elements with AVX2: see [`ymm::serves`]).
struct Sse<T, const B: usize, const G: usize> {
    put: contiguous::LineStreamer,
    t: PhantomData<T>,
}

impl<T, const B: usize, const G: usize> Sse<T, B, G> {
    fn new() -> Self {
        Sse {
            put: contiguous::line_streamer(),
            t: PhantomData,
        }
    }
}

impl<T: Copy, const B: usize, const G: usize> staged::Stager for Sse<T, B, G> {
    const WIDTH: usize = size_of::<T>();
    const LANES: usize = B;
    const DEPTH: usize = B;
    const GROUP: usize = G;
    type Stage = staged::Pages<G>;

    #[inline(always)]
    unsafe fn block(&self, d: *mut u8, s: *const u8, da: isize, sb: isize) {
        // SAFETY: forwarded.
        unsafe { block::<T, B>(d, s, da, sb) }
    }

    #[inline(always)]
    unsafe fn line(&self, d: *mut u8, s: *const u8) {
        // SAFETY: forwarded (one line).
        unsafe { (self.put)(d, s, 1) }
    }
}

/// Bytes of one square tile at most (half of a 32 KiB L1 data cache: a tile's destination
/// bytes and the source lines it reads fit together).
const TILE_BYTES: usize = 16 * 1024;

/// The edge of the square tiles of elements of `wide` bytes: at most [`TILE_BYTES`], a
/// multiple of 8 in 8..=64 (64x64 for 2 and 4 bytes, 40x40 for 8, 32x32 for 16), and
/// 128x128 for 1 byte (a 64-byte edge would read a single cache line of each source row
/// per tile).
pub(super) fn square_edge(wide: usize) -> usize {
    let edge = (TILE_BYTES / wide.max(1)).isqrt() / 8 * 8;
    edge.clamp(8, if wide == 1 { 128 } else { 64 })
}

/// A tile as square tiles of [`square_edge`] (and narrower at its edges), each moved
/// by `op` as a walk's tiles are.
///
/// # Safety
/// As [`Segment::tile`].
unsafe fn in_square_tiles<S: Segment>(op: &S, d: *mut u8, s: *const u8, t: Tile) {
    let e = square_edge(t.db.unsigned_abs());
    for i0 in (0..t.na).step_by(e) {
        for j0 in (0..t.nb).step_by(e) {
            let (i, j) = (i0 as isize, j0 as isize);
            let part = Tile {
                na: e.min(t.na - i0),
                nb: e.min(t.nb - j0),
                lines: false,
                stream: false,
                ..t
            };
            // SAFETY: the part is inside the tile.
            unsafe {
                op.tile(
                    d.offset(i * t.da + j * t.db),
                    s.offset(i * t.sa + j * t.sb),
                    part,
                )
            };
        }
    }
}

/// The parts of tile `t` outside rows `0..fa` x columns `j0..j1` (moved as runs): the
/// columns before `j0`, then those from `j1`, then the rows from `fa` under the rest.
///
/// # Safety
/// As [`Segment::tile`]; `fa <= t.na`, `j0 <= j1 <= t.nb`.
unsafe fn around<S: Segment>(
    op: &S,
    d: *mut u8,
    s: *const u8,
    t: Tile,
    fa: usize,
    j0: usize,
    j1: usize,
) {
    // SAFETY (all): the parts are inside the tile.
    unsafe {
        tile_in_runs(op, d, s, Tile { nb: j0, ..t });
        let (j, w) = (j0 as isize, t.db);
        strips(
            op,
            d.offset(j * w),
            s.offset(j * t.sb),
            Tile { nb: t.nb - j0, ..t },
            fa,
            j1 - j0,
        );
    }
}

/// The parts of tile `t` outside its `fa` x `fb` corner (moved as runs): the columns from
/// `fb` along `b`, then the rows from `fa` along `a` under the corner.
///
/// # Safety
/// As [`Segment::tile`]; `fa <= t.na`, `fb <= t.nb`.
#[inline(always)]
unsafe fn strips<S: Segment>(op: &S, d: *mut u8, s: *const u8, t: Tile, fa: usize, fb: usize) {
    let w = t.db;
    // SAFETY (both strips): inside the tile.
    if fb < t.nb {
        let (dd, ss) = unsafe { (d.offset(fb as isize * w), s.offset(fb as isize * t.sb)) };
        let nb = t.nb - fb;
        unsafe { tile_in_runs(op, dd, ss, Tile { nb, ..t }) };
    }
    if fa < t.na {
        let (dd, ss) = unsafe { (d.offset(fa as isize * t.da), s.offset(fa as isize * t.sa)) };
        let (na, nb) = (t.na - fa, fb);
        unsafe { tile_in_runs(op, dd, ss, Tile { na, nb, ..t }) };
    }
}

/// One `B`x`B` block of a transpose: `B` contiguous source rows of `B` elements are read
/// whole and written out as `B` contiguous destination rows. Blocks of 16 bytes a row (the
/// movers of 1, 2, 4 and 8 bytes) go through SSE2 registers ([`block_sse2`]); others
/// through arrays the compiler keeps in registers.
///
/// # Safety
/// Every element of the block is inside the caller's slices.
#[inline(always)]
unsafe fn block<T: Copy, const B: usize>(d: *mut u8, s: *const u8, da: isize, sb: isize) {
    #[cfg(target_arch = "x86_64")]
    if B * size_of::<T>() == 16 {
        // SAFETY: forwarded; the rows are 16 bytes.
        return unsafe { block_sse2::<T, B>(d, s, da, sb) };
    }
    // SAFETY: inside the block, which the caller vouches for.
    let rows: [[T; B]; B] = std::array::from_fn(|j| unsafe {
        read_unaligned(s.offset(j as isize * sb) as *const [T; B])
    });
    let cols: [[T; B]; B] = std::array::from_fn(|i| std::array::from_fn(|j| rows[j][i]));
    for (i, out) in cols.into_iter().enumerate() {
        // SAFETY: as above.
        unsafe { write_unaligned(d.offset(i as isize * da) as *mut [T; B], out) };
    }
}

/// [`block`] for rows of 16 bytes (`B` lanes of `T`'s width, `B` a power of two), one
/// generic body for every width: log2(`B`) rounds of the same interleave, register `k`
/// of a round being the low (`k` even) or high half of registers `k/2` and `k/2 + B/2`
/// interleaved lane by lane. Each round rotates the bits of (register, lane) by one, so
/// after log2(`B`) rounds register `i` holds lane `i` of every source row: the transpose.
///
/// # Safety
/// As [`block`], and `B * size_of::<T>() == 16`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn block_sse2<T, const B: usize>(d: *mut u8, s: *const u8, da: isize, sb: isize) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64; every row is 16 bytes inside the block.
    unsafe {
        let mut r: [__m128i; B] =
            std::array::from_fn(|j| _mm_loadu_si128(s.offset(j as isize * sb) as *const __m128i));
        let mut round = 1;
        while round < B {
            r = std::array::from_fn(|k| {
                let (x, y) = (r[k / 2], r[k / 2 + B / 2]);
                match (size_of::<T>(), k % 2) {
                    (1, 0) => _mm_unpacklo_epi8(x, y),
                    (1, _) => _mm_unpackhi_epi8(x, y),
                    (2, 0) => _mm_unpacklo_epi16(x, y),
                    (2, _) => _mm_unpackhi_epi16(x, y),
                    (4, 0) => _mm_unpacklo_epi32(x, y),
                    (4, _) => _mm_unpackhi_epi32(x, y),
                    (_, 0) => _mm_unpacklo_epi64(x, y),
                    (_, _) => _mm_unpackhi_epi64(x, y),
                }
            });
            round *= 2;
        }
        for (i, v) in r.into_iter().enumerate() {
            _mm_storeu_si128(d.offset(i as isize * da) as *mut __m128i, v);
        }
    }
}

/// Runs `f` with the mover for elements of `width` bytes (1, 2, 4, 8 or 16; any other
/// width moves byte groups one element at a time).
pub(super) fn with_mover<R>(width: usize, f: impl MoverFn<R>) -> R {
    match width {
        1 => f.call(&Move::<u8, 16>::NEW),
        2 => f.call(&Move::<u16, 8>::NEW),
        4 => f.call(&Move::<u32, 4>::NEW),
        8 => f.call(&Move::<u64, 2>::NEW),
        16 => f.call(&Move::<u128, 2>::NEW),
        w => f.call(&Bytes(w)),
    }
}

/// A function generic over the mover (closures cannot be).
pub(super) trait MoverFn<R> {
    fn call<S: Segment>(self, op: &S) -> R;
}

/// Elements of an unusual width, moved as byte groups.
struct Bytes(usize);

impl Segment for Bytes {
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize) {
        for i in 0..len as isize {
            // SAFETY: the caller vouches for each element address.
            unsafe { copy_nonoverlapping(s.offset(i * sstep), d.offset(i * dstep), self.0) };
        }
    }
}
