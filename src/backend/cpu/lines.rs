//! Whole-line transposes for walks far larger than the caches: a tile of a transpose or
//! permute moved in blocks of `L` x `L` elements of `64 / L` bytes (64 x 64 bytes, 32 x 32
//! 2-byte, 16 x 16 4-byte, 8 x 8 8-byte), so that each block reads `L` whole 64-byte
//! source lines and writes `L` whole destination lines, each with one non-temporal store.
//!
//! Why: at 1 GiB a transpose's destination lines are far apart (one source row step), and
//! stores of 16 bytes fill each line over several blocks; the core reads every line before
//! writing it (or holds a partly written non-temporal line), and the copy ran at about a
//! fifth of the same run's memcpy rate on this project's Xeon host. A line written whole by
//! one store skips the read and goes out at once. The blocks need AVX-512 (F and BW; VBMI
//! for bytes), detected at run time once; they start at the first destination column that
//! starts a line, and the columns before it and the partial blocks at the edges are left to
//! the caller ([`super::segment`]'s runs). Destination rows that are not whole lines apart
//! (one layer, starting on an element) go through the same blocks with [`super::realign`]'s
//! carried lines. Without AVX-512, or where no column starts a line, the caller moves the
//! whole tile.
//!
//! One generic body serves every width. 4- and 8-byte blocks (16 and 8 registers) are
//! transposed in registers: `log2(L)` rounds of one lane interleave (`vpermt2d/q` with a
//! low and a high index vector), after which register `i` holds lane `i` of every source
//! row. 1- and 2-byte blocks would need 64 and 32 registers (they spilled): they go in
//! passes of 16 destination lines, each packing the lanes of 4 or 2 source rows into
//! dwords (`vpermb/w`) and transposing those as a 4-byte block is. 1-byte blocks go
//! through a stage in groups of [`GROUP`] bands, so that each destination row gets runs of
//! lines.

use super::layers::Layers;
use super::realign;

/// The bytes of a line, the unit each block reads and writes whole.
pub(super) const LINE: usize = realign::LINE;

/// Whether whole-line blocks can move elements of `width` bytes on this CPU.
pub(super) fn available(width: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        x86::supports(width)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = width;
        false
    }
}

/// The tiles of a transpose that [`tile`] moves: element `(i, j)` of layer `l`, `i < na`,
/// `j < nb`, `l < layers.n`, from `s + i*width + j*sb + l*layers.sl` to
/// `d + i*da + j*width + l*layers.dl` (byte steps).
#[derive(Debug, Clone, Copy)]
pub(super) struct Corner {
    pub na: usize,
    pub nb: usize,
    pub da: isize,
    pub sb: isize,
    pub layers: Layers,
}

/// Moves the part of each layer of tile `t` (elements of `width` bytes) that whole-line
/// blocks cover: rows `0..fa` along `a` and columns `j0..j1` along `b`, returned as
/// `(fa, j0, j1)` (`fa == 0`: nothing moved; the caller moves the rest). The columns start
/// at the first element whose destination starts a line; nothing is moved unless
/// [`available`], the destination rows (and layers) are whole lines apart and an element
/// boundary falls on a line. One layer whose destination rows are not whole lines apart
/// (and starts on an element) is moved whole from column 0 through [`super::realign`]'s
/// sink instead: `(fa, 0, j1)`.
///
/// The lines are written with non-temporal stores and not fenced: the caller calls
/// [`super::contiguous::store_fence`] after its last tile, before another thread may read
/// them. A fence after every tile cost the bench's 6-d permute (512 Ki tiles of 2 KiB) a
/// third of its time on the AMD EPYC (Zen 4) development host: 1 GiB at 1 thread, A/B in
/// one process, 34-40% -> 49-54% of the same run's memcpy rate (session 18).
///
/// # Safety
/// Every element of the tile is inside the caller's slices, and no other thread writes the
/// destination meanwhile.
pub(super) unsafe fn tile(
    width: usize,
    d: *mut u8,
    s: *const u8,
    t: Corner,
) -> (usize, usize, usize) {
    let lanes = LINE / width.max(1);
    let skew = (LINE - (d as usize) % LINE) % LINE;
    let rows_on_lines = t.da.unsigned_abs().is_multiple_of(LINE)
        && (t.layers.n == 1 || t.layers.dl.unsigned_abs().is_multiple_of(LINE));
    let on_elements = (d as usize).is_multiple_of(width.max(1));
    if !rows_on_lines && t.layers.n == 1 && on_elements && available(width) {
        // Destination rows off the line grid: whole lines put together from two blocks.
        let (fa, cols) = (t.na / lanes * lanes, t.nb / lanes * lanes);
        if fa == 0 || cols == 0 {
            return (0, 0, 0);
        }
        // In pieces of at most REALIGN_ROWS rows along `a`, each with its own carries.
        for a0 in (0..fa).step_by(REALIGN_ROWS) {
            let na = REALIGN_ROWS.min(fa - a0);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as below, without the line alignment (the realigned lines need
            // none): rows a0..a0 + na of the corner.
            unsafe {
                let c = Corner { na, nb: cols, ..t };
                x86::realigned(
                    width,
                    d.offset(a0 as isize * t.da),
                    s.add(a0 * width),
                    c,
                    na,
                    cols,
                )
            };
        }
        return (fa, 0, cols);
    }
    if !available(width) || !rows_on_lines || !skew.is_multiple_of(width) {
        return (0, 0, 0);
    }
    let j0 = skew / width;
    let (fa, cols) = (
        t.na / lanes * lanes,
        t.nb.saturating_sub(j0) / lanes * lanes,
    );
    if fa == 0 || cols == 0 {
        return (0, 0, 0);
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract covers the tiles, and the blocks lie inside them; the
    // CPU has the features (available); destination rows from column j0 start on lines in
    // every layer (layers are whole lines apart).
    unsafe {
        let c = Corner {
            na: fa,
            nb: cols,
            ..t
        };
        x86::blocks(
            width,
            d.add(skew),
            s.offset(j0 as isize * t.sb),
            c,
            fa,
            cols,
        )
    };
    (fa, j0, j0 + cols)
}

/// Bands moved together by 1-byte blocks: the blocks of up to `GROUP` neighbouring bands
/// at one place along `a` are transposed into a stage in L1, and then each destination row
/// gets its `GROUP` lines one after another. Block by block, each destination row got one
/// line per band, its next line a whole band later. A pattern test on the AMD EPYC (Zen 4)
/// development host (1 GiB, rows 32 KiB apart, non-temporal stores of loaded lines, no
/// transpose; a memcpy 57-67 ms): with sequential loads, one line per destination row took
/// 105-110 ms, runs of 4 lines 61-68 ms; with the u8 transpose's loads (one line from each
/// of 64 or 256 rows, prefetched into L2), 146 ms for one line per row, 110-118 ms for 4
/// (117 for 2, 180 for 8: 512 source rows per group). The u8 transpose itself, A/B of the
/// release builds alternated (`cpu_1gib`, 1 thread, 5 rounds, three runs): 37-42% -> 44-51%
/// of the same run's memcpy rate. Blocks of 4 and 8 bytes go in groups too where their
/// bands are long ([`GROUP_FROM_BLOCKS`]); 2-byte blocks never (measured where they are
/// walked, in the x86 module's `band`).
pub(super) const GROUP: usize = 4;

/// Blocks of 4 and 8 bytes go in groups of [`GROUP`] bands where each band has at least
/// this many blocks along `a` (16 lines of each source row: runs of at least 1 KiB), and
/// their walk then prefetches [`AHEAD_LINES`] ahead. Measured at 1 GiB, 1 thread, on the AMD
/// EPYC (Zen 4) development host, session 24 (`cpu_1gib`, one build with a temporary switch,
/// processes alternated, CPU ms): f32 transpose 100-104 -> 88, f64 94-96 -> 88-90, the 3-d
/// permute (16 blocks a band) 100-104 -> 89-90, NHWC -> NCHW f32 with 64 channels 96 -> 80,
/// 16384 x 16380 f32 (source rows off the grid) 112 -> 96; with the old distance of 2 blocks
/// (half a group's place) the groups lost (f32 104 -> 120-132). Shorter bands lose: the 4-d
/// reversals (8 blocks a band) 128-168 -> 184-200, the packed 6-d permute (2) 96 -> 128-132.
/// The 2-byte blocks lost in groups with either distance (f16 transpose 108-116 -> 128-136).
pub(super) const GROUP_FROM_BLOCKS: usize = 16;

/// Destination rows off the line grid ([`super::realign`]) are moved in pieces of at most
/// this many rows along `a`, each piece with its own carries (64 KiB of them, where a
/// whole tile's were 128-512 KiB of L2 beside the source lines prefetched there). At 1
/// GiB, 1 thread, on the AMD EPYC (Zen 4) development host (`cpu_1gib`, builds
/// alternated, by CPU time): the f16 transpose 21011 x 25551 202-211 -> 136-144 ms (32% ->
/// 47-50% of the memcpy rate), u8 30011 x 35777 212-220 -> 188-196 ms; f32 level.
pub(super) const REALIGN_ROWS: usize = 1024;

/// Where block `n` of a corner lies in the order the walk moves them, for blocks of `l`
/// lanes, `per_band` blocks along `a`, `bands` bands of `l` source rows along `b` and
/// groups of up to `g` bands: layer by layer; in each layer, the groups in order; in each
/// group, the places along `a` in order, and at each place the group's blocks one after
/// another. Returns (layer, first source row along `b`, first element along `a`). Pure
/// index math (with `g` = 1: band by band, each band's blocks along `a`), inlined into the
/// walk, whose constant `g` folds it.
#[inline(always)]
pub(super) fn block_at(
    n: usize,
    l: usize,
    g: usize,
    per_band: usize,
    bands: usize,
) -> (usize, usize, usize) {
    let per_layer = per_band * bands;
    let (layer, r) = (n / per_layer, n % per_layer);
    let b0 = r / (g * per_band) * g;
    let in_group = g.min(bands - b0);
    let r = r - b0 * per_band;
    (layer, (b0 + r % in_group) * l, r / in_group * l)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    use super::super::contiguous::{CacheLevel, PAGE, prefetch_rows};
    use super::super::isa;
    use super::super::realign::x86::{Realigned, Rows, Sink, carries, flush as realign_flush};
    use super::{Corner as Tile, GROUP, GROUP_FROM_BLOCKS, LINE, Layers, block_at};

    pub fn supports(width: usize) -> bool {
        let f = isa::features();
        match width {
            1 => f.avx512vbmi,
            2 | 4 | 8 => f.avx512bw,
            _ => false,
        }
    }

    /// The `fa` x `fb` corner of the tile in `L` x `L` blocks, `L = 64 / width`: for each
    /// band of `L` source rows (along `b`; for bytes, each group of [`GROUP`] bands), the
    /// blocks along `a`, so that the band's source rows are read as sequential streams.
    /// The stores are not fenced: the walk fences once after its last tile
    /// ([`super::tile`]).
    ///
    /// # Safety
    /// As [`super::tile`], with `fa`, `fb` multiples of `L` inside the tile and the CPU
    /// supporting `width`.
    pub unsafe fn blocks(width: usize, d: *mut u8, s: *const u8, t: Tile, fa: usize, fb: usize) {
        // SAFETY (each arm): forwarded; `supports(width)` holds for the arm's features.
        unsafe {
            match width {
                1 => band_bytes(d, s, t, fa, fb),
                2 => band::<32>(d, s, t, fa, fb),
                4 => band::<16>(d, s, t, fa, fb),
                _ => band::<8>(d, s, t, fa, fb),
            }
        }
    }

    /// [`blocks`] for destination rows off the line grid ([`Realigned`]).
    ///
    /// # Safety
    /// As [`blocks`], but for the destination's line alignment: `d` is a multiple of
    /// `width`.
    pub unsafe fn realigned(width: usize, d: *mut u8, s: *const u8, t: Tile, fa: usize, fb: usize) {
        // SAFETY (each arm): forwarded; `supports(width)` holds for the arm's features.
        unsafe {
            match width {
                1 => realigned_bytes(d, s, t, fa, fb),
                2 => realigned_in::<32>(d, s, t, fa, fb),
                4 => realigned_in::<16>(d, s, t, fa, fb),
                _ => realigned_in::<8>(d, s, t, fa, fb),
            }
        }
    }

    /// [`realigned`] for bytes: in groups of [`GROUP`] bands through the stage, as the
    /// aligned bytes go, each row's carry completing its group's first line
    /// ([`realign_flush`]). Block by block (a carry per row and line) the u8 transpose 30011
    /// x 32768 took 176-239 ms at 1 GiB, 1 thread, by CPU time; in groups 155-160 ms
    /// (`cpu_1gib`, builds alternated, AMD EPYC Zen 4 development host, a loaded host).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn realigned_bytes(d: *mut u8, s: *const u8, t: Tile, fa: usize, fb: usize) {
        // SAFETY: forwarded.
        unsafe { walk::<64, GROUP, true>(d, s, t, fa, fb) }
    }

    /// [`realigned`] for `L` lanes of 2, 4 or 8 bytes: 4- and 8-byte blocks in groups where
    /// [`grouped`] and the source rows are on the line grid. With source rows off it
    /// (each block row spans two lines, the second read again by the next place's block),
    /// groups lost: 15013 x 17863 f32 106-108 -> 115-116 ms, 16380 x 16388 level; with them
    /// on it, 16380 x 16384 f32 116-128 -> 100 (1 GiB, 1 thread, session 24).
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn realigned_in<const L: usize>(
        d: *mut u8,
        s: *const u8,
        t: Tile,
        fa: usize,
        fb: usize,
    ) {
        let source_on_lines = (s as usize | t.sb.unsigned_abs()).is_multiple_of(LINE);
        // SAFETY: forwarded.
        unsafe {
            if grouped(L, fa) && source_on_lines {
                walk::<L, GROUP, true>(d, s, t, fa, fb)
            } else {
                walk::<L, 1, true>(d, s, t, fa, fb)
            }
        }
    }

    /// Whether blocks of `l` lanes of 4 or 8 bytes go in groups of bands, for a corner of
    /// `fa` elements along `a` ([`GROUP_FROM_BLOCKS`]).
    fn grouped(l: usize, fa: usize) -> bool {
        l <= LINE / 4 && fa / l >= GROUP_FROM_BLOCKS
    }

    /// [`blocks`] for 1-byte elements (`vpermt2b` needs VBMI).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn band_bytes(d: *mut u8, s: *const u8, t: Tile, fa: usize, fb: usize) {
        // SAFETY: forwarded.
        unsafe { walk::<64, GROUP, false>(d, s, t, fa, fb) }
    }

    /// [`blocks`] for 2-, 4- and 8-byte elements: in groups where [`grouped`], else each
    /// block's lines straight to the destination.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn band<const L: usize>(d: *mut u8, s: *const u8, t: Tile, fa: usize, fb: usize) {
        // SAFETY: forwarded.
        unsafe {
            if grouped(L, fa) {
                walk::<L, GROUP, false>(d, s, t, fa, fb)
            } else {
                walk::<L, 1, false>(d, s, t, fa, fb)
            }
        }
    }

    /// The loop over blocks, inlined into each entry point (and so compiled with its
    /// features), in groups of `G` bands ([`block_at`]): with `G` > 1 the blocks of a
    /// group at one place along `a` are transposed into a stage in L1, then each
    /// destination row's lines of the group go out one after another ([`GROUP`] says
    /// why); with `G` = 1 each block's lines go straight to the destination.
    #[inline(always)]
    unsafe fn walk<const L: usize, const G: usize, const REALIGN: bool>(
        d: *mut u8,
        s: *const u8,
        t: Tile,
        fa: usize,
        fb: usize,
    ) {
        let w = (LINE / L) as isize;
        // 1- and 2-byte blocks are transposed as 16 dwords ([`block_in_dwords`]).
        let lanes = L.min(16);
        let (lo, hi) = (index(lanes, false), index(lanes, true));
        let prefetch = prefetch_into(L, t.sb, fa * w as usize);
        let (per_band, bands) = (fa / L, fb / L);
        let Layers { n: layers, dl, sl } = t.layers;
        let total = per_band * bands * layers;
        // The stage holds L rows of G lines.
        const { assert!(L * G <= LINE * GROUP) };
        let pitch = (G * LINE) as isize;
        let mut stage = [const { MaybeUninit::<__m512i>::uninit() }; LINE * GROUP];
        let stage = stage.as_mut_ptr() as *mut u8;
        // REALIGN: each destination row's last block, kept until the next band completes
        // the line it began (one layer).
        let mut carries = carries(if REALIGN { fa } else { 0 });
        let mut k = 0;
        let ahead = if G > 1 { AHEAD_LINES / L } else { AHEAD };
        for l in 0..layers as isize {
            // SAFETY: layer l is one of the caller's tiles.
            let (d, s0) = unsafe { (d.offset(l * dl), s.offset(l * sl)) };
            for b0 in (0..bands).step_by(G) {
                let in_group = G.min(bands - b0);
                let j0 = (b0 * L) as isize;
                for i0 in (0..fa).step_by(L) {
                    let i = i0 as isize;
                    // SAFETY: destination rows i0..i0 + L of layer l from element j0 are
                    // inside the tiles.
                    let d = unsafe { d.offset(i * t.da + j0 * w) };
                    for q in 0..in_group {
                        if k + ahead < total {
                            // The source lines of the block `ahead` blocks on.
                            let (pl, pj, pi) = block_at(k + ahead, L, G, per_band, bands);
                            let at = pl as isize * sl + pj as isize * t.sb + pi as isize * w;
                            prefetch_rows(s.wrapping_offset(at), L, t.sb, LINE, prefetch);
                        }
                        k += 1;
                        let j = j0 + (q * L) as isize;
                        // SAFETY: block (i0, j) of layer l is inside the tiles: source rows
                        // from j, from element i0 (L contiguous elements each: one line);
                        // its L lines go straight to the destination (line-aligned, the
                        // caller checked) or to line q of the stage's rows (q < G).
                        unsafe {
                            let s = s0.offset(j * t.sb + i * w);
                            if REALIGN && G == 1 {
                                let carry = carries.as_mut_ptr().add(i0);
                                let last = b0 + 1 == bands;
                                let mut out = Realigned::<L>::new(d, t.da, carry, b0 == 0, last);
                                block::<L, _>(&mut out, s, t.sb, lo, hi)
                            } else if G == 1 {
                                block::<L, _>(&mut Rows::new(d, t.da, true), s, t.sb, lo, hi)
                            } else {
                                let mut out = Rows::new(stage.add(q * LINE), pitch, false);
                                block::<L, _>(&mut out, s, t.sb, lo, hi)
                            }
                        };
                    }
                    if REALIGN && G > 1 {
                        // SAFETY: destination rows i0..i0 + L from element j0 (one layer):
                        // `in_group` x 64 bytes each, inside the tiles, and the bytes
                        // before them back to their line unless in the first group (the
                        // previous group's); the stage holds them; carries i0..i0 + L are
                        // theirs.
                        unsafe {
                            let carry = carries.as_mut_ptr().add(i0);
                            let (first, last) = (b0 == 0, b0 + in_group == bands);
                            realign_flush::<L>(d, t.da, stage, pitch, in_group, carry, first, last)
                        };
                    } else if G > 1 {
                        // SAFETY: destination rows i0..i0 + L of layer l, from element j0:
                        // `in_group` whole lines each, line-aligned (the caller checked),
                        // inside the tiles; the stage holds them (written above), row c
                        // from line c * G.
                        unsafe { flush::<L>(d, t.da, stage, pitch, in_group) };
                    }
                }
            }
        }
    }

    /// Streams `L` destination rows `da` apart, `lines` whole lines each, from the stage's
    /// rows `pitch` apart.
    ///
    /// # Safety
    /// The destination lines are 64-byte aligned and the caller's to write; the stage
    /// holds them; the CPU has AVX-512 F.
    #[inline(always)]
    unsafe fn flush<const L: usize>(
        d: *mut u8,
        da: isize,
        stage: *const u8,
        pitch: isize,
        lines: usize,
    ) {
        for c in 0..L as isize {
            for q in 0..lines as isize {
                let off = q * LINE as isize;
                // SAFETY: the caller's contract.
                unsafe {
                    let v = _mm512_load_si512(stage.offset(c * pitch + off) as *const __m512i);
                    _mm512_stream_si512(d.offset(c * da + off) as *mut __m512i, v);
                }
            }
        }
    }

    /// How many blocks ahead [`walk`] prefetches the source lines of a block
    /// ([`prefetch_into`]), blocks one by one.
    const AHEAD: usize = 2;

    /// How many source lines ahead [`walk`] prefetches, blocks in groups: `AHEAD_LINES / L`
    /// blocks, two places along `a` for 4-byte blocks, four for 8-byte ones, half a place
    /// for bytes (2 blocks, as [`AHEAD`]). [`GROUP_FROM_BLOCKS`] has the figures.
    const AHEAD_LINES: usize = 128;

    /// Into which cache [`walk`] prefetches the source lines of the block
    /// [`AHEAD`] blocks on, for blocks of `l` lanes whose source rows are `sb` bytes apart
    /// and `run` bytes long in the corner:
    /// - into [`CacheLevel::near`] (L1, or L2 on AMD CPUs) for 1-byte blocks (64 source
    ///   rows each, more than the hardware prefetchers follow), for rows within a page of
    ///   each other (NHWC -> NCHW, the 3-d permute) and for runs shorter than a page (the
    ///   4-d reversal's 512-byte rows);
    /// - into L2 for the other blocks of 2, 4 and 8 bytes (the f16, f32 and f64
    ///   transposes: runs of a page or more, rows 32-64 KiB apart).
    ///
    /// Measured at 1 GiB on the development Xeon, A/B in one process (`benches/cpu_1gib.rs`
    /// with a temporary switch, 5 rounds, 1 and 2 threads, each pair twice), share of the
    /// same run's memcpy rate without -> with. Session 15 (into L1): u8 transpose 38-44% ->
    /// 43-48%, NHWC -> NCHW f16 51% -> 59-64%, f32 67-69% -> 79% (1 thread), 3-d permute
    /// 67-68% -> 73% (1 thread; 2 threads within the noise), 4-d reversal 46-47% -> 51-52%
    /// (1 thread), 48% -> 50-59% (2 threads); the f32 and f64 transposes moved within the
    /// noise. Session 17, the f16 transpose into L2: 49-62% -> 55-67% at 1 thread in four
    /// runs (every pair faster), 49-59% -> 51-70% at 2 threads; into L1 it gained alike in
    /// the one run that had both (session 15 had measured a loss of 2-7 points). Into L2
    /// instead of L1 for the other cases moved them within the noise or down (the 6-d
    /// permute at 2 threads 33-38% -> 29-31%); on the AMD EPYC (Zen 4) host of session 18
    /// they gained 10-35 points ([`CacheLevel::near`]).
    ///
    /// Session 24, the 4- and 8-byte blocks into L2 (until then not prefetched), on the AMD
    /// EPYC (Zen 4) host: A/B in one build (a temporary switch, processes alternated, 7
    /// rounds, two runs), CPU ms at 1 thread: f32 16384 x 16384 112-116 -> 104, 16380 x
    /// 16388 140-144 -> 124, 15013 x 17863 120-124 -> 112, 16380 x 16384 132 -> 124; at 2
    /// threads (CPU ms of both) 120-133 -> 118-119, 148-152 -> 131-133; f64 level (96-100
    /// ms both ways).
    fn prefetch_into(l: usize, sb: isize, run: usize) -> CacheLevel {
        if l == LINE || sb.unsigned_abs() < PAGE || run < PAGE {
            CacheLevel::near()
        } else {
            CacheLevel::L2
        }
    }

    /// The lane permutation that turns `g = l / 16` pieces of 16 lanes of `64 / l` bytes
    /// (one piece per source row, row `j` in lanes `16j..16j + 16`) into 16 dwords, dword
    /// `c` holding lane `c` of each piece in row order: result lane `g*c + j` is lane
    /// `16j + c`. As bytes, for `vpermb` (`l` = 64) or `vpermw` (`l` = 32).
    const fn pack_table(l: usize) -> [u8; LINE] {
        let (w, g) = (LINE / l, l / 16);
        let mut bytes = [0u8; LINE];
        let mut c = 0;
        while c < 16 {
            let mut j = 0;
            while j < g {
                let (lane, from) = (g * c + j, 16 * j + c);
                let mut k = 0;
                while k < w {
                    bytes[lane * w + k] = (from >> (8 * k)) as u8;
                    k += 1;
                }
                j += 1;
            }
            c += 1;
        }
        bytes
    }

    /// [`pack_table`] for bytes and for 2-byte lanes.
    static PACK_BYTES: [u8; LINE] = pack_table(64);
    static PACK_WORDS: [u8; LINE] = pack_table(32);

    /// The index vector of one interleave of `lanes` lanes of `64 / lanes` bytes: lane `2m`
    /// takes lane `m` of the first operand (plus `lanes / 2` for the high half), lane
    /// `2m + 1` the same lane of the second (index `lanes + ...`).
    #[inline(always)]
    fn index(lanes: usize, high: bool) -> __m512i {
        let w = LINE / lanes;
        let mut bytes = [0u8; LINE];
        for lane in 0..lanes {
            let half = if high { lanes / 2 } else { 0 };
            let from = (lane / 2 + half + (lane % 2) * lanes) as u64;
            bytes[lane * w..(lane + 1) * w].copy_from_slice(&from.to_le_bytes()[..w]);
        }
        // SAFETY: the array is 64 bytes.
        unsafe { _mm512_loadu_si512(bytes.as_ptr() as *const __m512i) }
    }

    /// Lane `i` of the result is lane `ix[i]` of `x` (under `L`) or of `y` (`L` and up), for
    /// 16 dword or 8 quadword lanes.
    ///
    /// # Safety
    /// The CPU has AVX-512 F.
    #[inline(always)]
    unsafe fn permute<const L: usize>(x: __m512i, ix: __m512i, y: __m512i) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            if L == 16 {
                _mm512_permutex2var_epi32(x, ix, y)
            } else {
                _mm512_permutex2var_epi64(x, ix, y)
            }
        }
    }

    /// One block of `L` source lines `sb` bytes apart, its `L` destination lines to `out`:
    /// in registers ([`block_in_registers`]) for 4- and 8-byte lanes, else in dwords
    /// ([`block_in_dwords`]).
    ///
    /// # Safety
    /// Every source line is inside the caller's slices; `out` may take the block's lines;
    /// the CPU has the features the lane width needs.
    #[inline(always)]
    unsafe fn block<const L: usize, O: Sink>(
        out: &mut O,
        s: *const u8,
        sb: isize,
        lo: __m512i,
        hi: __m512i,
    ) {
        // SAFETY: forwarded.
        unsafe {
            if L > 16 {
                block_in_dwords::<L, O>(out, s, sb, lo, hi)
            } else {
                block_in_registers::<L, O>(out, s, sb, lo, hi)
            }
        }
    }

    /// One block: `L` source lines `sb` bytes apart, transposed, its `L` destination lines
    /// to `out`.
    ///
    /// # Safety
    /// As [`block`].
    #[inline(always)]
    unsafe fn block_in_registers<const L: usize, O: Sink>(
        out: &mut O,
        s: *const u8,
        sb: isize,
        lo: __m512i,
        hi: __m512i,
    ) {
        // Plain loops, not closures: a closure would not share the caller's features.
        // SAFETY: zeroing a vector needs AVX-512 F, which every caller has.
        let mut r = [unsafe { _mm512_setzero_si512() }; L];
        for (j, v) in r.iter_mut().enumerate() {
            // SAFETY: the lines are inside the slices (the caller's contract).
            *v = unsafe { _mm512_loadu_si512(s.offset(j as isize * sb) as *const __m512i) };
        }
        // SAFETY: the caller's features cover the lane width.
        let r = unsafe { transpose::<L>(r, lo, hi) };
        for (i, v) in r.into_iter().enumerate() {
            // SAFETY: line i of the block (the caller's contract).
            unsafe { out.line(i, v) };
        }
    }

    /// One block of 1- or 2-byte lanes (`L` = 64 or 32) without holding all `L` source
    /// lines in registers (64 or 32 of them: more than the core's 32, so they spilled):
    /// the block goes in `L / 16` passes of 16 destination lines. Each pass reads, for each
    /// of 16 groups of `g = L / 16` source rows, the pass's 16 lanes of each row (one
    /// `64 / g`-byte piece per row, broadcast into its place), packs them into 16 dwords
    /// (dword `c`: lane `c` of the group's rows, in row order), and transposes the 16
    /// registers as dwords; register `c` is then destination line `16 * pass + c`, whole.
    ///
    /// `lo` and `hi` are the interleave of 16 dword lanes ([`index`]).
    ///
    /// # Safety
    /// As [`block`]; `L` is 64 (the CPU has VBMI) or 32.
    #[inline(always)]
    unsafe fn block_in_dwords<const L: usize, O: Sink>(
        out: &mut O,
        s: *const u8,
        sb: isize,
        lo: __m512i,
        hi: __m512i,
    ) {
        let (w, g) = (LINE / L, L / 16);
        let piece = 16 * w;
        let table = if w == 1 { &PACK_BYTES } else { &PACK_WORDS };
        // SAFETY: the table is 64 bytes.
        let pack = unsafe { _mm512_loadu_si512(table.as_ptr() as *const __m512i) };
        // The block's source lines, copied once into a dense buffer: each pass reads every
        // line again, and lines a power of two apart (as a square matrix's rows are) share
        // an L1 set, so that read straight from the source the passes evicted each other's
        // lines.
        // SAFETY: zeroing needs AVX-512 F; each line is inside the block (the caller's
        // contract).
        let mut lines = [unsafe { _mm512_setzero_si512() }; L];
        for (j, v) in lines.iter_mut().enumerate() {
            *v = unsafe { _mm512_loadu_si512(s.offset(j as isize * sb) as *const __m512i) };
        }
        let (s, sb) = (lines.as_ptr() as *const u8, LINE as isize);
        for pass in 0..L / 16 {
            let from = (pass * piece) as isize;
            // SAFETY: zeroing a vector needs AVX-512 F, which every caller has.
            let mut r = [unsafe { _mm512_setzero_si512() }; 16];
            for (q, v) in r.iter_mut().enumerate() {
                for j in 0..g {
                    let row = (g * q + j) as isize;
                    // SAFETY: bytes `from..from + piece` of buffered line `row` are inside
                    // the buffer (`from + piece <= 64`, `row < L`); the mask writes the
                    // piece to bytes `piece*j..` of the register.
                    *v = unsafe {
                        let p = s.offset(row * sb + from);
                        let m = 0xF << (4 * j);
                        if w == 1 {
                            let x = _mm_loadu_si128(p as *const __m128i);
                            _mm512_mask_broadcast_i32x4(*v, m as __mmask16, x)
                        } else {
                            let x = _mm256_loadu_si256(p as *const __m256i);
                            _mm512_mask_broadcast_i64x4(*v, m as __mmask8, x)
                        }
                    };
                }
                // SAFETY: the caller's features cover the lane width's instruction.
                *v = unsafe {
                    if w == 1 {
                        _mm512_permutexvar_epi8(pack, *v)
                    } else {
                        _mm512_permutexvar_epi16(pack, *v)
                    }
                };
            }
            // SAFETY: dword lanes need AVX-512 F only.
            let r = unsafe { transpose::<16>(r, lo, hi) };
            for (c, v) in r.into_iter().enumerate() {
                // SAFETY: line `16 * pass + c` of the block (the caller's contract).
                unsafe { out.line(pass * 16 + c, v) };
            }
        }
    }

    /// `L` registers of `L` lanes (16 dwords or 8 quadwords) transposed: `log2(L)` rounds,
    /// register `k` of a round from registers `k/2` and `k/2 + L/2` interleaved (a perfect
    /// shuffle into a second array: measured 10-15 points of memcpy faster than an
    /// in-place butterfly at 1 GiB on the development Xeon).
    ///
    /// # Safety
    /// The CPU has AVX-512 F.
    #[inline(always)]
    unsafe fn transpose<const L: usize>(
        mut r: [__m512i; L],
        lo: __m512i,
        hi: __m512i,
    ) -> [__m512i; L] {
        for _ in 0..L.trailing_zeros() {
            let mut next = r;
            for (k, v) in next.iter_mut().enumerate() {
                let ix = if k % 2 == 0 { lo } else { hi };
                // SAFETY: the caller's contract.
                *v = unsafe { permute::<L>(r[k / 2], ix, r[k / 2 + L / 2]) };
            }
            r = next;
        }
        r
    }
}
