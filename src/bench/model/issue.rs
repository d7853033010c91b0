//! Instruction issue: the warp instructions a launch executes, counted from the sm_90 SASS
//! of the kernels, and the rate they cap the copy at.
//!
//! The first H200 run (bench/results/h200-2026-12-04) measured the tiled transposes at
//! 40-65% of memcpy where every memory figure of the model (sectors, banks, flight) was
//! met. Their SASS explains it: every thread recomputes its tile coordinates with 32-bit
//! divisions by run-time extents (about 20 instructions each), stores 16-byte words into
//! the tile lane by lane, and runs a prologue and the batch offsets once per tile, so a
//! tile of 4 KB costs ~2,700 warp instructions. At the memcpy rate an SM moves ~16 bytes
//! (read + written) per clock, so such a kernel needs ~5 warp instructions per clock of an
//! SM that issues at most 4: it is bound by issue, not by DRAM. The same holds for the
//! element-wise gathers of 4-byte words (a division per dimension per element).
//!
//! The counts are per thread and come from reading the disassembly (nvcc 13.0.88
//! `-cubin -arch=sm_90`, nvdisasm): each constant is the number of instructions between
//! two addresses of the listing (bench/model-notes.md, "Calibration against the first H200
//! run", gives the ranges). They are dynamic counts along the path a thread takes (loops
//! by their trip counts, blocks a warp skips when no lane takes them), rounded to the
//! instruction; only the kernels whose SASS was read are counted, the others have no
//! issue bound (`None`). Counted: `sk_tile_w4_i32`, `sk_tilev_w{1,2,4,8}_i32`, `sk_tilevs_w{4,8}_i32`,
//! `sk_tilen_w{4,8}_i32`, `sk_tilem_w{4,8}_i32`,
//! `sk_gather_w*_i32`, `sk_rows_w*_idx*`, `sk_realign_w*`.
//!
//! Fitted (to the 13 tile cases of the H200 run, the gathers held out): [`ISSUE_IPC`],
//! the warp instructions per clock an SM sustains on these kernels, and [`BLEND`], the
//! exponent that joins the issue and memory bounds. Everything else is counted or measured.

use crate::backend::cuda::choose::copy_ept;
use crate::backend::cuda::params::SkTile;
use crate::backend::cuda::{GpuLaunch, LaunchParams};

/// Warp instructions per clock an SM sustains on the layout kernels (of 4 it can issue):
/// **fitted** to the tile cases of the H200 run of 2026-12-04 (they achieved 3.2-3.5).
pub const ISSUE_IPC: f64 = 3.4;
/// The exponent of the soft minimum joining the bounds, `(m^-k + i^-k)^(-1/k)`: **fitted**
/// with [`ISSUE_IPC`] (a case near both bounds, the f64 transpose, runs below either).
pub const BLEND: f64 = 4.5;
/// SM clock of the H200 runs (its maximum, held in every case but one).
pub const SM_CLOCK_HZ: f64 = 1.98e9;
/// The measured memcpy of the run (read + written bytes per second), the 100% line.
pub const MEMCPY_BYTES_PER_S: f64 = 4254.7e9;
/// The H200's theoretical DRAM rate: a copy that only writes (or only reads) has no
/// read/write turnarounds and may pass the memcpy line up to it.
pub const PEAK_BYTES_PER_S: f64 = 4815.0e9;

/// Bytes (read + written) per clock per SM at the memcpy rate: ~16.3.
pub fn memcpy_bytes_per_sm_clock() -> f64 {
    MEMCPY_BYTES_PER_S / (super::occupancy::SMS as f64 * SM_CLOCK_HZ)
}

/// Per-thread instruction counts of a tile kernel's work on one (tile, batch index).
#[derive(Debug, Clone, Copy)]
struct TileCost {
    /// Measured build: once per block, the prologue (tile coordinates: a division by
    /// tiles_b). Current build: see [`WalkCost`].
    prologue: u32,
    /// Per (tile, batch index): the batch loop's head with no batch dimension, and per
    /// dimension (measured build: the batch offsets from scratch; current build: 0, the
    /// walk's costs are in [`WalkCost`]).
    batch: u32,
    batch_dim: u32,
    /// Per (tile, batch index): before the fill loop, between the phases (barrier), at the
    /// end (current build: with the incremental batch step).
    fixed: u32,
    /// Per fill trip: the loads and their coordinates, and per word (or element) stored.
    fill: u32,
    fill_word: u32,
    /// Words (16-byte tile) or elements (scalar tile) a thread loads per fill trip.
    per_trip: u32,
    /// Per store trip, and once before the store loop.
    store: u32,
    store_once: u32,
}

/// The current build's walk (tile.cuh sk_tile_walk, 32-bit indices; change 19 of
/// bench/model-notes.md), per thread: the block's prologue with no batch dimension and per
/// batch dimension (the chunk, its first batch offsets, the innermost dimension), once per
/// tile the block walks (its span and corner offsets, the tile loop's latch), and when the
/// innermost batch index wraps inside a chunk (the offsets from the divisors again).
#[derive(Debug, Clone, Copy)]
struct WalkCost {
    prologue: u32,
    prologue_dim: u32,
    tile: u32,
    wrap: u32,
    wrap_dim: u32,
}

/// Which kernels' SASS the counts are of: those measured on the H200 run of 2026-12-04
/// (build bb865aa: 32-bit divisions by run-time values, one tile per block), which
/// tests/model_calibration.rs checks the model against, or the current ones (division by
/// invariant integers, change 18 of bench/model-notes.md, and several tiles per block,
/// change 19), which `stridekit model` predicts. Both counted the same way (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelBuild {
    MeasuredH200,
    Current,
}

/// A [`TileCost`] from its fields in declaration order.
fn cost(v: [u32; 9]) -> TileCost {
    TileCost {
        prologue: v[0],
        batch: v[1],
        batch_dim: v[2],
        fixed: v[3],
        fill: v[4],
        fill_word: v[5],
        per_trip: v[6],
        store: v[7],
        store_once: v[8],
    }
}

/// The 16-byte tiles, by element width (sk_tilev_w{1,2,4,8}_i32; the 1-byte counts are
/// those of the swizzled 64 x 64 tile).
fn tilev_cost(width: usize, build: KernelBuild) -> Option<TileCost> {
    Some(cost(match (build, width) {
        (KernelBuild::MeasuredH200, 1) => [67, 37, 32, 42, 43, 110, 1, 118, 0],
        (KernelBuild::MeasuredH200, 2) => [71, 30, 32, 44, 92, 67, 2, 129, 0],
        (KernelBuild::MeasuredH200, 4) => [88, 34, 32, 39, 89, 24, 2, 47, 12],
        (KernelBuild::MeasuredH200, 8) => [86, 30, 32, 38, 87, 41, 2, 46, 14],
        // Current (nvcc 13.0.88 sm_90, change 19): per (tile, batch index) the item loop's
        // head, the code between the phases and after the store loop, and the incremental
        // batch step; fill and store trips as the loops' lengths (the store loops are no
        // longer unrolled), a word the mean of its guarded block.
        (KernelBuild::Current, 1) => [0, 0, 0, 45, 32, 91, 1, 111, 0],
        (KernelBuild::Current, 2) => [0, 0, 0, 27, 71, 58, 2, 87, 0],
        (KernelBuild::Current, 4) => [0, 0, 0, 26, 62, 16, 2, 40, 0],
        (KernelBuild::Current, 8) => [0, 0, 0, 27, 63, 34, 2, 39, 0],
        _ => return None,
    }))
}

/// The 64 x 64 path of the 1- and 2-byte 16-byte tiles (cuda/include/tile64.cuh; change 22
/// of bench/model-notes.md), from the sm_90 listing of sk_tilev_w{1,2}_i32 (nvcc 13.0.88),
/// per (tile, batch index): fixed 30 / 28 (the item's head 6 / 4, before the fill loop 4,
/// between the phases 7, after the store loop 3, the incremental batch step 10); the fill
/// trip 42 / 111 of which each word's guarded pieces 22 / 37 (BSSY to BSYNC); the store
/// unit's trip 109 (4 columns x 16 rows: 16 LDS, 32 PRMT, 4 STG) / 61 (2 x 8: 8 LDS, 8 PRMT,
/// 2 STG), 3 once before the store loop. Store units: 64 / 256 (one per thread at most).
/// Listing addresses (w1 / w2): the item from 0x4350 / 0x4520, the fill trip [0x43f0,
/// 0x4680] / [0x45a0, 0x4c80], the store trip [0x4730, 0x4df0] / [0x4d30, 0x50f0].
fn tilev64_cost(width: usize) -> Option<(TileCost, i64)> {
    match width {
        1 => Some((cost([0, 0, 0, 30, 20, 22, 1, 109, 3]), 64)),
        2 => Some((cost([0, 0, 0, 28, 37, 37, 2, 61, 3]), 256)),
        _ => None,
    }
}

/// The stacked 16-byte tiles (sk_tilevs_w{4,8}_i32, change 23 of bench/model-notes.md),
/// from their sm_90 listing (nvcc 13.0.88): the pair item (two batch indices, their tiles
/// stacked) and the single one (a chunk's odd last index). Fixed per pair 48 / 47: the
/// item's head 5, the second index's offsets 6 (4 + the incremental step 2), the fill
/// loop's head 4 / 6 and the code before it 4 / 5, between the phases 14 / 10, after the
/// store loop 5, the loop's check 3 and the next index's step 7; fill trip 109 / 143 of
/// which each word's guarded block 16 / 34; store trip 48 / 54, 7 / 5 once before it.
/// Single: fixed 46 / 43 (the head 5 + 9, before the fill loop 4 / 5, between 14 / 10,
/// after 4, check and step 10), fill trip 92 / 126, store trip 40 / 38, 3 once.
/// Listing addresses (w4 / w8): pair fill trip [0x2750, 0x2e10] / [0x29f0, 0x32d0], pair
/// store trip [0x2f70, 0x3260] / [0x33d0, 0x3720]; single fill [0x1560, 0x1b10] /
/// [0x1610, 0x1de0], single store [0x1c30, 0x1ea0] / [0x1ec0, 0x2110].
fn tilevs_cost(width: usize) -> Option<(TileCost, TileCost)> {
    match width {
        4 => Some((
            cost([0, 0, 0, 48, 77, 16, 2, 48, 7]),
            cost([0, 0, 0, 46, 60, 16, 2, 40, 3]),
        )),
        8 => Some((
            cost([0, 0, 0, 47, 75, 34, 2, 54, 5]),
            cost([0, 0, 0, 43, 58, 34, 2, 38, 3]),
        )),
        _ => None,
    }
}

/// The scalar tile of 4-byte elements (sk_tile_w4_i32): 4 loads per fill trip.
fn tile_w4_cost(build: KernelBuild) -> TileCost {
    cost(match build {
        KernelBuild::MeasuredH200 => [96, 34, 33, 47, 32, 62, 4, 27, 0],
        // Fill trip 84 (its elements predicated, not branched: split 24 + 15 per element),
        // the store loop 17 per element (not unrolled).
        KernelBuild::Current => [0, 0, 0, 34, 24, 15, 4, 17, 0],
    })
}

/// The narrow tile (sk_tilen_w{4,8}_i32, change 26 of bench/model-notes.md; current build
/// only), from the sm_90 listings (nvcc 13.0.88), w4 / w8: per (tile, batch index) 38 (the
/// item's head [0x1430, 0x14d0) 10, between the phases [0x2210, 0x2300) 15, after the store
/// loop 5, the incremental batch step 8); the fill trip [0x14d0, 0x2210) 212 / [0x14c0,
/// 0x1f70) 171, of which each word's guarded block (its V shared stores and their slots)
/// 22 / 12, 4 words per trip; the store trip (V shared loads, one 16-byte store) [0x2300,
/// 0x2490) 25 / [0x2060, 0x2180) 18.
fn tilen_cost(width: usize, build: KernelBuild) -> Option<TileCost> {
    Some(cost(match (build, width) {
        (KernelBuild::Current, 4) => [0, 0, 0, 38, 124, 22, 4, 25, 0],
        (KernelBuild::Current, 8) => [0, 0, 0, 38, 123, 12, 4, 18, 0],
        _ => return None,
    }))
}

/// The narrow tile's mirror (sk_tilem_w{4,8}_i32, change 27; current build only), from the
/// sm_90 listings, w4 / w8: per (tile, batch index) 42 / 46 (the item's head 19 / 20,
/// between the phases 11 / 14, after the store loop 5, the batch step 7); the fill trip
/// [0x15a0, 0x1ea0) 144 / [0x15b0, 0x1c10) 102 of which each word's guarded block (V
/// shared stores) ~18 / 9, 4 words per trip; the store trip (the row's division, V shared
/// loads, one 16-byte store) [0x1f50, 0x2200) 43 / [0x1cf0, 0x1f20) 35.
fn tilem_cost(width: usize, build: KernelBuild) -> Option<TileCost> {
    Some(cost(match (build, width) {
        (KernelBuild::Current, 4) => [0, 0, 0, 42, 73, 18, 4, 43, 0],
        (KernelBuild::Current, 8) => [0, 0, 0, 46, 66, 9, 4, 35, 0],
        _ => return None,
    }))
}

/// The current build's walk costs, from the listings: the prologue [0, tile loop head)
/// less its guarded blocks (the first batch offsets, ~12 instructions per dimension of 8,
/// and the innermost dimension's selection, ~12 for each of 8 of which one runs when there
/// is a batch); the tile loop's head and latch; the recompute after a wrap (119 less ~12
/// per unused dimension of 8).
fn walk_cost(name: &str, tile64: bool) -> WalkCost {
    let (prologue, tile) = match name {
        // The 64 x 64 path's own walk (tile64.cuh): the prologue [0, 0x90) and from its
        // branch target to the tile loop head, less the 16 guarded blocks (301 - 185); the
        // tile loop's head (35 / 37) and exit (2).
        "sk_tilev_w1_i32" if tile64 => (116, 37),
        "sk_tilev_w2_i32" if tile64 => (116, 39),
        "sk_tilev_w1_i32" => (122, 37),
        "sk_tilev_w2_i32" => (123, 39),
        // The stacked tiles: sk_tilev_w*'s walk, not recounted (per block and per tile:
        // under 1% of a stacked launch's count).
        "sk_tilev_w8_i32" | "sk_tilevs_w8_i32" => (120, 35),
        "sk_tile_w4_i32" => (128, 43),
        // The narrow tile: the prologue [0, 0x1290) 297 less the 16 guarded blocks (185);
        // the tile loop's head (26 / 25) and latch (6).
        "sk_tilen_w4_i32" => (112, 32),
        "sk_tilen_w8_i32" => (112, 31),
        "sk_tilem_w4_i32" => (115, 33),
        "sk_tilem_w8_i32" => (116, 32),
        _ => (115, 37),
    };
    WalkCost {
        prologue,
        prologue_dim: 12,
        tile,
        wrap: 21,
        wrap_dim: 12,
    }
}

/// Threads per block (SK_BLOCK) and per warp.
const THREADS: i64 = 256;
const LANES: i64 = 32;
const WARPS: i64 = THREADS / LANES;

/// Trips of `for (e = t; e < n; e += step)` for thread `t`.
fn trips(t: i64, n: i64, step: i64) -> i64 {
    if t >= n { 0 } else { (n - t + step - 1) / step }
}

/// Warp instructions of one block for one (tile, batch index), and of its prologue, for a
/// tile whose fill loop walks `load_units` units (words or elements) and whose store loop
/// walks `store_units`.
fn tile_block(c: &TileCost, batch_rank: i64, load_units: i64, store_units: i64) -> (f64, f64) {
    let per_trip = c.per_trip as i64;
    let mut body = 0i64;
    for w in 0..WARPS {
        let lanes = w * LANES..(w + 1) * LANES;
        let mut n = (c.batch as i64) + batch_rank * c.batch_dim as i64 + c.fixed as i64;
        let fill_trips = lanes
            .clone()
            .map(|t| trips(t, load_units, per_trip * THREADS))
            .max()
            .unwrap_or(0);
        for it in 0..fill_trips {
            n += c.fill as i64;
            for k in 0..per_trip {
                let first = w * LANES + it * per_trip * THREADS + k * THREADS;
                if first < load_units {
                    n += c.fill_word as i64;
                }
            }
        }
        let st = lanes
            .map(|t| trips(t, store_units, THREADS))
            .max()
            .unwrap_or(0);
        if st > 0 {
            n += c.store_once as i64 + st * c.store as i64;
        }
        body += n;
    }
    let prologue = WARPS * c.prologue as i64;
    (body as f64, prologue as f64)
}

/// Warp instructions of the current build's walk over a launch of `grid` blocks (tile.cuh
/// sk_tile_walk, 32-bit indices), a chunk of n batch indices costing `chunk(n)` per tile:
/// every block's prologue, each batch chunk walking every tile once, and the innermost
/// batch index wrapping inside a chunk (counted exactly from the chunks).
fn walk_instructions(
    w: &WalkCost,
    p: &SkTile,
    grid: (u32, u32),
    chunk_cost: impl Fn(i64) -> f64,
) -> f64 {
    let rank = p.batch_rank.max(0) as i64;
    let (tiles, batch) = (p.tiles.max(0) as i64, p.batch.max(0));
    let gy = grid.1.max(1) as i64;
    let chunk = ((batch + gy - 1) / gy).max(1);
    let rows = (batch + chunk - 1) / chunk;
    let inner = if rank > 0 {
        p.batch_sizes[rank as usize - 1].max(1)
    } else {
        i64::MAX
    };
    // Multiples of `inner` in [1, n]: the wraps of a walk from 0.
    let multiples = |n: i64| if n <= 0 { 0 } else { n / inner };
    let (mut wraps, mut items) = (0, 0.0);
    for r in 0..rows {
        let (first, end) = (r * chunk, ((r + 1) * chunk).min(batch));
        wraps += multiples(end - 1) - multiples(first);
        items += chunk_cost(end - first);
    }
    let blocks = grid.0 as f64 * grid.1 as f64;
    let per = |n: u32, dim: u32| (WARPS * (n as i64 + rank * dim as i64)) as f64;
    let selected = if rank > 0 { w.prologue_dim } else { 0 };
    blocks * per(w.prologue + selected, w.prologue_dim)
        + (tiles * rows) as f64 * per(w.tile, 0)
        + (tiles * wraps) as f64 * per(w.wrap, w.wrap_dim)
        + tiles as f64 * items
}

/// Per-element and per-step counts of the element-wise copies (sk_copy_body, gather mode):
/// measured build, per element 37 instructions for the innermost dimension, 29.5 per
/// further dimension (a 32-bit division and two multiply-adds) and 1 per unused one of
/// the 8; current build (the loop [0x2a0, 0x1970) of sk_gather_w4_i32, 365 for 4 elements
/// of rank 8), 30 and 8 per further dimension. Per step 20 (the stores, the loop); 28 once
/// per thread.
fn gather_step(rank: i64, ept: i64, build: KernelBuild) -> f64 {
    let (first, dim) = match build {
        KernelBuild::MeasuredH200 => (37.0, 29.5),
        KernelBuild::Current => (30.0, 8.0),
    };
    let element = first + (rank - 1).max(0) as f64 * dim + (8 - rank).max(0) as f64;
    20.0 + ept as f64 * element
}

/// Warp instructions the launch executes (current kernels), or None for a kernel whose
/// SASS was not counted.
pub fn warp_instructions(l: &GpuLaunch) -> Option<f64> {
    warp_instructions_of(l, KernelBuild::Current)
}

/// The same for the kernels of `build`.
pub fn warp_instructions_of(l: &GpuLaunch, build: KernelBuild) -> Option<f64> {
    let name = l.kernel.name();
    let width = |prefix: &str| -> Option<usize> {
        name.strip_prefix(prefix)?
            .strip_suffix("_i32")?
            .parse()
            .ok()
    };
    match l.params {
        LaunchParams::Tile(p) if name.starts_with("sk_tilevs_w") => {
            // Stacked (current build only): pairs of batch indices, a chunk's odd last one
            // alone, on the threads of div_a / div_b words per column / row.
            let (pair, single) = tilevs_cost(width("sk_tilevs_w")?)?;
            if build != KernelBuild::Current {
                return None;
            }
            let (ta, tb) = (p.tile_a as i64, p.tile_b as i64);
            let (fav, fbv) = (p.div_a.d as i64, p.div_b.d as i64);
            let rank = p.batch_rank as i64;
            let (two, _) = tile_block(&pair, rank, 2 * ta * fbv, 2 * tb * fav);
            let (one, _) = tile_block(&single, rank, ta * fbv, tb * fav);
            let chunk = |n: i64| (n / 2) as f64 * two + (n % 2) as f64 * one;
            Some(walk_instructions(
                &walk_cost(name, false),
                &p,
                (l.grid.0, l.grid.1),
                chunk,
            ))
        }
        LaunchParams::Tile(p) => {
            let tile64 = build == KernelBuild::Current
                && width("sk_tilev_w").is_some_and(|w| w <= 2)
                && (p.tile_a, p.tile_b) == (64, 64);
            let (cost, load_units, store_units) = if let Some(w) = width("sk_tilev_w") {
                // Threads per tile row and column in words (div_b, div_a: choose.rs
                // tile_vec_lanes; the measured build's were the tile's words).
                let (ta, tb) = (p.tile_a as i64, p.tile_b as i64);
                let (fav, fbv) = match build {
                    KernelBuild::Current => (p.div_a.d as i64, p.div_b.d as i64),
                    KernelBuild::MeasuredH200 => (ta / (16 / w) as i64, tb / (16 / w) as i64),
                };
                match tilev64_cost(w).filter(|_| tile64) {
                    Some((c, units)) => (c, ta * fbv, units),
                    None => (tilev_cost(w, build)?, ta * fbv, tb * fav),
                }
            } else if let Some(w) = width("sk_tilen_w") {
                // Threads on a full tile's words on both sides (tile_a rows of div_b words).
                let n = p.tile_a as i64 * p.div_b.d as i64;
                (tilen_cost(w, build)?, n, n)
            } else if let Some(w) = width("sk_tilem_w") {
                // Threads on a full tile's words on both sides (tile_b rows of div_a words).
                let n = p.tile_b as i64 * p.div_a.d as i64;
                (tilem_cost(w, build)?, n, n)
            } else if name == "sk_tile_w4_i32" {
                let n = p.tile_a as i64 * p.tile_b as i64;
                (tile_w4_cost(build), n, n)
            } else {
                return None;
            };
            let (body, prologue) = tile_block(&cost, p.batch_rank as i64, load_units, store_units);
            match build {
                // One tile per block, the grid the measured build launched (tiles x batch
                // up to 65535 rows, grid-striding the rest), whatever the plan's grid now.
                KernelBuild::MeasuredH200 => {
                    let rows = p.batch.clamp(1, 65535) as f64;
                    Some(p.tiles as f64 * (p.batch.max(1) as f64 * body + rows * prologue))
                }
                KernelBuild::Current => Some(walk_instructions(
                    &walk_cost(name, tile64),
                    &p,
                    (l.grid.0, l.grid.1),
                    |n| n as f64 * body,
                )),
            }
        }
        LaunchParams::Strided32(p) if name.starts_with("sk_gather_w") => {
            let w: usize = width("sk_gather_w")?;
            let ept = copy_ept(w, false) as i64;
            let warp_steps = (p.numel as f64 / (LANES * ept) as f64).ceil();
            let once = l.grid.0 as f64 * (THREADS / LANES) as f64 * 28.0;
            Some(warp_steps * gather_step(p.rank as i64, ept, build) + once)
        }
        LaunchParams::Rows(p)
            if name.starts_with("sk_rows_w") && build == KernelBuild::MeasuredH200 =>
        {
            // Per warp iteration of 4 rows: 28 + 41 per row (its index load, the bounds
            // check, both row addresses), then 46 per trip along the rows (4 loads, 4
            // stores, addresses).
            let rows = super::program::MEASURED_ROWS_PER_WARP;
            let iterations = (p.num_rows as f64 / rows as f64).ceil();
            let along = (p.row_len + LANES - 1) / LANES;
            Some(iterations * (28.0 + 41.0 * rows as f64 + 46.0 * along as f64))
        }
        LaunchParams::Rows(p) if name.starts_with("sk_rows_w") => {
            Some(rows_instructions(&p, l.grid.0))
        }
        // The measured build had no realigning copy (mod.rs as_measured maps it back).
        _ if name.starts_with("sk_realign_w") && build == KernelBuild::Current => {
            realign_instructions(l)
        }
        _ => None,
    }
}

/// The issue bound in % of memcpy: the time the instructions take at [`ISSUE_IPC`] per SM
/// against the time memcpy takes to move the same read + written bytes.
pub fn issue_bound_pct(instructions: f64, bytes: f64) -> f64 {
    if instructions <= 0.0 {
        return f64::INFINITY;
    }
    100.0 * ISSUE_IPC * bytes / (instructions * memcpy_bytes_per_sm_clock())
}

/// Joins the memory bound and the issue bound (both in % of memcpy): a soft minimum, so
/// that a case near both runs below either ([`BLEND`]).
pub fn blend(memory_pct: f64, issue_pct: Option<f64>) -> f64 {
    match issue_pct {
        Some(i) if i.is_finite() && i > 0.0 && memory_pct > 0.0 => {
            let (m, i) = (memory_pct / 100.0, i / 100.0);
            100.0 * (m.powf(-BLEND) + i.powf(-BLEND)).powf(-1.0 / BLEND)
        }
        _ => memory_pct,
    }
}

/// How far above the memcpy line a copy of `read` and `written` bytes may run: 1 for as
/// many reads as writes, up to the theoretical rate over memcpy's for one direction only
/// (no read/write turnarounds), linearly in between. Not fitted: the spec's 4.8 TB/s.
pub fn direction_allowance(read: f64, written: f64) -> f64 {
    let total = read + written;
    if total <= 0.0 {
        return 1.0;
    }
    1.0 + (PEAK_BYTES_PER_S / MEMCPY_BYTES_PER_S - 1.0) * (read - written).abs() / total
}

/// Warp instructions of the current row gather (index.cu sk_rows_body, change 24 of
/// bench/model-notes.md) over a launch of `grid` blocks, from the sm_90 listing of
/// sk_rows_w16_idx64 (nvcc 13.0.88): per warp 69 (the prologue [0x0, 0x440): the lanes per
/// row, the first chunk's index load; the exit); per chunk 63 (its head [0x440, 0x700): the
/// next chunk's index load, the lane's bounds check and flag; its tail [0x1370, 0x14a0));
/// per batch of [`ROWS_UNROLL`](crate::backend::cuda::rows::ROWS_UNROLL) warp steps 168
/// (the four rows' shuffles, checks and addresses [0x700, 0xf10) 129 with each row's
/// guarded source address, the trip loop's head [0xf10, 0x1140) 35, the batch's latch
/// [0x1330, 0x1370) 4); per trip along the rows 31 ([0x1140, 0x1330): four 16-byte loads
/// and stores, their addresses, the latch). The other word and index widths are taken as
/// the same (their listings have the same blocks; not counted one by one).
fn rows_instructions(p: &crate::backend::cuda::params::SkRowGather, grid: u32) -> f64 {
    use crate::backend::cuda::rows::{ROWS_CHUNK, ROWS_UNROLL, row_lanes};
    let warps = grid as f64 * WARPS as f64;
    let chunks = ((p.num_rows.max(0) + ROWS_CHUNK - 1) / ROWS_CHUNK) as f64;
    let lanes = row_lanes(p.row_len);
    let batches = ((lanes + ROWS_UNROLL - 1) / ROWS_UNROLL) as f64;
    let trips = ((p.row_len.max(0) + lanes - 1) / lanes) as f64;
    warps * 69.0 + chunks * (63.0 + batches * (168.0 + 31.0 * trips))
}

/// Warp instructions of the realigning copy (gather_scatter.cu sk_realign_body, change 25
/// of bench/model-notes.md), from the sm_90 listings of sk_realign_w{4,8}_{i32,i64} (nvcc
/// 13.0.88), as (per warp, per run, per run dimension, per batch):
/// - w4_i32: the prologue [0x0, 0x260) 38; per run the offsets' head and the eight
///   dimension checks 22 ([0x270, 0x9e0) holds 12 more per dimension taken), the phases,
///   the carry load and the batch loop's head [0x9e0, 0xcd0) 47 and the run's latch
///   [0x1180, 0x11d0) 5; per batch of four chunks [0xcd0, 0x1180) 75 (4 loads, 4 shuffles,
///   4 stores, their guards);
/// - w8_i32: 38; 22 + 49 + 5; 12; [0xcf0, 0x1290) 90 (8-byte words: two shuffles each);
/// - w4_i64: 44; 22 + 96 + 3; 38 ([0x2e0, 0x1740) is 326 at rank 8); [0x1d40, 0x2410) 109;
/// - w8_i64: 44; 22 + 92 + 3; 33 ([0x300, 0x1530) 291); [0x1af0, 0x22b0) 124.
///
/// A run's chunks are counted at the mean destination phase (16 words).
fn realign_instructions(l: &GpuLaunch) -> Option<f64> {
    use crate::backend::cuda::realign::REALIGN_UNROLL;
    let (rank, numel, run) = match l.params {
        LaunchParams::Strided32(p) => {
            let r = p.rank.clamp(1, 8) as usize;
            (r as i64, p.numel as i64, p.sizes[r - 1] as i64)
        }
        LaunchParams::Strided64(p) => {
            let r = p.rank.clamp(1, 8) as usize;
            (r as i64, p.numel, p.sizes[r - 1])
        }
        _ => return None,
    };
    let name = l.kernel.name();
    let (warp, per_run, per_dim, per_batch) = match name.strip_prefix("sk_realign_")? {
        "w4_i32" => (38.0, 74.0, 12.0, 75.0),
        "w8_i32" => (38.0, 76.0, 12.0, 90.0),
        "w4_i64" => (44.0, 121.0, 38.0, 109.0),
        "w8_i64" => (44.0, 117.0, 33.0, 124.0),
        _ => return None,
    };
    let run = run.max(1);
    let runs = (numel.max(0) / run) as f64;
    let chunks = (run + 16 + LANES - 1) / LANES;
    let batches = ((chunks + REALIGN_UNROLL - 1) / REALIGN_UNROLL) as f64;
    let warps = l.grid.0 as f64 * WARPS as f64;
    Some(warps * warp + runs * (per_run + per_dim * rank as f64 + batches * per_batch))
}
