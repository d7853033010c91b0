//! Kernel choice and launch geometry for a [`CopyPlan`], decided once (no GPU needed).
//!
//! A [`GpuPlan`] holds everything a launch needs: kernel id, grid, block, shared memory
//! and the by-value argument struct. Running it again does no host allocation and no
//! host-to-device copy. The choice, for a strided plan of one dtype:
//!
//! 1. the innermost destination dimension (stride 1) is not the source's innermost (some
//!    other dimension has source stride 1): tiled transpose ([`Family::Tile`]); tiny
//!    dimensions (channels_last C = 3) get a long, thin tile;
//! 2. otherwise, when the innermost dimension is contiguous on both sides, the words are
//!    widened up to 16 bytes where sizes, strides and offsets allow (the pointers'
//!    alignment is checked at launch, with the element-width launch as the fallback);
//! 3. destination row-major: gather; source row-major: scatter; else strided.
//!
//! Plans of two dtypes use the converting-copy kernels (the converting tile when the copy is
//! also a transpose between the specialised float pairs). Offsets that fit in 32 bits (and
//! at most 2^30 elements) use the 32-bit index kernels, anything else the 64-bit ones.

// Index loops over the parallel size/stride arrays read better than zipped iterators.
#![allow(clippy::needless_range_loop)]

use super::divisor;
use super::error::CudaError;
use super::kernels::{Family, KernelId};
pub use super::packed::{DeviceLimits, TILEP_REGISTERS, tile_packed_pitch};
use super::packed::{PackedBudget, enough_flight, packed_tile, run_efficiency};
use super::params::{SkEw32, SkEw64, SkRowGather, SkStrided32, SkStrided64, SkTile};
pub use super::tile_layout::{
    TILE_BLOCKS, tile_grid, tile_pitch, tile_vec_col, tile_vec_fill_lane, tile_vec_lanes,
    tile_vec_pitch, tile_vec_stack, tile_vec_swizzled,
};
use super::tile_layout::{tile_extents, vec_tile_extents};
use crate::dtype::DType;
use crate::plan::{CopyPlan, PlanKind};

/// Threads per block of every kernel (SK_BLOCK in common.cuh).
pub const BLOCK: u32 = 256;
/// Elements per thread of the element-wise kernels (SK_EPT in common.cuh).
pub const EPT: u32 = 4;

/// Elements per thread per step of the pure-copy kernels of `width`-byte words
/// (sk_copy_ept in common.cuh): all of a thread's loads are issued before its stores, and
/// narrow words take more of them so that about 16 bytes per thread are in flight (8 for
/// 1-byte words with 64-bit indices, whose sixteen offsets would spill).
pub const fn copy_ept(width: usize, idx64: bool) -> u32 {
    match width {
        1 if idx64 => 8,
        1 => 16,
        2 => 8,
        _ => 4,
    }
}

/// Largest grid.x the element-wise kernels use; they grid-stride past it.
const MAX_BLOCKS: i64 = 1 << 20;
/// Most kernel dimensions (SK_MAX_RANK).
pub const MAX_RANK: usize = 8;
const MAX_SHARED: usize = 48 * 1024;

/// The by-value argument struct of a launch.
#[derive(Debug, Clone, Copy)]
pub enum LaunchParams {
    Strided32(SkStrided32),
    Strided64(SkStrided64),
    Tile(SkTile),
    Rows(SkRowGather),
    /// The element-wise family (cuda/elementwise.cu).
    Ew32(SkEw32),
    Ew64(SkEw64),
}

/// One kernel launch, fully decided.
#[derive(Debug, Clone, Copy)]
pub struct GpuLaunch {
    pub kernel: KernelId,
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_bytes: u32,
    pub params: LaunchParams,
}

/// What running a [`CopyPlan`] on the GPU does. A plain value (no heap), so the kernel
/// variants are large by design.
#[derive(Debug, Clone, Copy)]
#[allow(clippy::large_enum_variant)]
pub enum GpuPlan {
    /// Nothing to move.
    Empty,
    /// cuMemcpyDtoDAsync of `bytes` bytes.
    Memcpy {
        dst_byte_offset: u64,
        src_byte_offset: u64,
        bytes: u64,
    },
    /// A kernel. `wide` (with the pointer alignment it needs, in bytes) moves wider words
    /// and is used when both base pointers are aligned; `narrow` always works.
    Kernel {
        narrow: GpuLaunch,
        wide: Option<(GpuLaunch, u32)>,
    },
}

/// The SkDType code of a dtype (cuda/include/params.h, in `DType::ALL` order).
pub fn dtype_code(d: DType) -> i32 {
    DType::ALL.iter().position(|&x| x == d).unwrap() as i32
}

/// Folded dimensions, innermost last, as the kernels see them.
#[derive(Debug, Clone, Copy)]
struct Dims {
    rank: usize,
    sizes: [i64; MAX_RANK],
    dst: [i64; MAX_RANK],
    src: [i64; MAX_RANK],
    dst_offset: i64,
    src_offset: i64,
    /// Take the 64-bit index kernels even when 32 bits would do.
    force64: bool,
    /// Shared memory one block of the packed tile may use (the device's opt-in limit).
    max_shared: i64,
}

impl Dims {
    fn from_plan(plan: &CopyPlan) -> Result<Dims, CudaError> {
        let rank = plan.sizes.len();
        if rank > MAX_RANK {
            return Err(CudaError::RankTooLarge(rank));
        }
        let mut d = Dims {
            rank,
            sizes: [1; MAX_RANK],
            dst: [0; MAX_RANK],
            src: [0; MAX_RANK],
            dst_offset: plan.dst_offset,
            src_offset: plan.src_offset,
            force64: false,
            max_shared: MAX_SHARED as i64,
        };
        d.sizes[..rank].copy_from_slice(&plan.sizes);
        d.dst[..rank].copy_from_slice(&plan.dst_strides);
        d.src[..rank].copy_from_slice(&plan.src_strides);
        Ok(d)
    }

    fn numel(&self) -> i64 {
        self.sizes[..self.rank].iter().product()
    }

    /// Whether the 32-bit index kernels are exact for this copy.
    fn fits32(&self) -> bool {
        let (sizes, rank) = (&self.sizes[..self.rank], self.rank);
        fits_i32(
            self.numel(),
            [
                span(sizes, &self.dst[..rank], self.dst_offset),
                span(sizes, &self.src[..rank], self.src_offset),
            ],
        )
    }

    /// Whether the launch takes the 64-bit index kernels.
    fn idx64(&self) -> bool {
        self.force64 || !self.fits32()
    }

    fn row_major(&self, strides: &[i64; MAX_RANK]) -> bool {
        let mut expect = 1;
        for k in (0..self.rank).rev() {
            if strides[k] != expect {
                return false;
            }
            expect *= self.sizes[k];
        }
        true
    }

    /// The same copy in words of `k` elements, when the innermost dimension is contiguous
    /// on both sides and sizes, strides and offsets are multiples of `k`.
    fn widen(&self, k: i64) -> Option<Dims> {
        let r = self.rank;
        if r == 0 || self.dst[r - 1] != 1 || self.src[r - 1] != 1 || self.sizes[r - 1] % k != 0 {
            return None;
        }
        if self.dst_offset % k != 0 || self.src_offset % k != 0 {
            return None;
        }
        if (0..r - 1).any(|i| self.dst[i] % k != 0 || self.src[i] % k != 0) {
            return None;
        }
        let mut w = *self;
        w.sizes[r - 1] /= k;
        for i in 0..r - 1 {
            w.dst[i] /= k;
            w.src[i] /= k;
        }
        w.dst_offset /= k;
        w.src_offset /= k;
        Some(w)
    }

    /// Source and destination dimensions for a tiled transpose: (A, B) where A is the
    /// innermost (destination stride 1) and B has source stride 1.
    fn transpose_dims(&self) -> Option<(usize, usize)> {
        let r = self.rank;
        if r < 2 || self.dst[r - 1] != 1 || self.src[r - 1] == 1 {
            return None;
        }
        let b = (0..r - 1).rev().find(|&j| self.src[j] == 1)?;
        Some((r - 1, b))
    }
}

/// Lowest and highest element offset an operand of `sizes` and `strides` reaches from
/// `offset`.
pub(super) fn span(sizes: &[i64], strides: &[i64], offset: i64) -> (i64, i64) {
    let (mut lo, mut hi) = (offset, offset);
    for (&n, &s) in sizes.iter().zip(strides) {
        let reach = (n - 1) * s;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    (lo, hi)
}

/// Whether 32-bit index kernels are exact: every offset any operand reaches in i32 and
/// numel small enough (2^30) that the grid-stride loop cannot overflow.
pub(super) fn fits_i32<const N: usize>(numel: i64, spans: [(i64, i64); N]) -> bool {
    numel <= 1 << 30
        && spans
            .iter()
            .all(|&(lo, hi)| lo >= 0 && hi <= i32::MAX as i64)
}

pub(super) fn blocks_for(numel: i64, per_block: i64) -> u32 {
    (((numel + per_block - 1) / per_block).clamp(1, MAX_BLOCKS)) as u32
}

/// `per_thread`: elements a thread moves per grid-stride step.
fn strided_launch(
    d: &Dims,
    kernel: KernelId,
    codes: (i32, i32),
    idx64: bool,
    per_thread: u32,
) -> GpuLaunch {
    let numel = d.numel();
    let params = if idx64 {
        let mut p = SkStrided64 {
            numel,
            rank: d.rank as i32,
            dst_offset: d.dst_offset,
            src_offset: d.src_offset,
            dst_dtype: codes.0,
            src_dtype: codes.1,
            ..Default::default()
        };
        p.sizes = d.sizes;
        p.dst_strides = d.dst;
        p.src_strides = d.src;
        p.size_divs = divisor::divs64(&p.sizes);
        LaunchParams::Strided64(p)
    } else {
        let mut p = SkStrided32 {
            numel: numel as i32,
            rank: d.rank as i32,
            dst_offset: d.dst_offset as i32,
            src_offset: d.src_offset as i32,
            dst_dtype: codes.0,
            src_dtype: codes.1,
            ..Default::default()
        };
        for k in 0..MAX_RANK {
            p.sizes[k] = d.sizes[k] as i32;
            p.dst_strides[k] = d.dst[k] as i32;
            p.src_strides[k] = d.src[k] as i32;
        }
        p.size_divs = divisor::divs32(&p.sizes);
        LaunchParams::Strided32(p)
    };
    GpuLaunch {
        kernel,
        grid: (blocks_for(numel, (BLOCK * per_thread) as i64), 1, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: 0,
        params,
    }
}

/// The scalar tiled transpose of `width`-byte elements.
fn tile_launch(d: &Dims, a: usize, b: usize, width: usize, idx64: bool) -> Option<GpuLaunch> {
    let extents = tile_extents(d.sizes[a], d.sizes[b], width);
    let pitch = tile_pitch(extents.0, extents.1, width);
    let kernel = KernelId::copy(Family::Tile, width, idx64);
    tile_launch_with(d, (a, b), extents, kernel, width, pitch)
}

/// The transpose with 16-byte accesses on both sides, when V = 16 / width elements divide
/// both sizes, both offsets, the strides the tile walks and every batch stride (the base
/// pointers' 16-byte alignment is checked at launch).
fn vec_tile_launch(d: &Dims, a: usize, b: usize, width: usize, idx64: bool) -> Option<GpuLaunch> {
    if width >= 16 {
        return None;
    }
    let v = (16 / width) as i64;
    let batch = (0..d.rank).filter(|&k| k != a && k != b);
    let multiples = [
        d.sizes[a],
        d.sizes[b],
        d.dst_offset,
        d.src_offset,
        d.dst[b],
        d.src[a],
    ]
    .into_iter()
    .chain(batch.flat_map(|k| [d.dst[k], d.src[k]]));
    if !multiples.into_iter().all(|x| x % v == 0) {
        return None;
    }
    let extents = vec_tile_extents(d.sizes[a], d.sizes[b], width);
    let batch: i64 = (0..d.rank)
        .filter(|&k| k != a && k != b)
        .map(|k| d.sizes[k])
        .product();
    let kernel = if tile_vec_stack(extents, width, idx64, batch, BLOCK as i64) == 2 {
        KernelId::tile_stacked(width)
    } else {
        KernelId::copy(Family::TileVec, width, idx64)
    };
    let swizzled = tile_vec_swizzled(extents.0, extents.1, width);
    let pitch = tile_vec_pitch(swizzled, extents.1, width);
    tile_launch_with(d, (a, b), extents, kernel, width, pitch)
}

/// The narrow tile (permute.cu sk_tilen_*) or its mirror (sk_tilem_*) where
/// [`super::narrow::extents`] or [`super::narrow::mirror_extents`] takes it.
fn narrow_tile_launch(d: &Dims, width: usize) -> Option<GpuLaunch> {
    use super::narrow::{extents, mirror_extents};
    let ab = d.transpose_dims()?;
    let r = d.rank;
    let args = (
        &d.sizes[..r],
        [&d.dst[..r], &d.src[..r]],
        [d.dst_offset, d.src_offset],
    );
    let (idx64, e) = (d.idx64(), extents(args.0, args.1, args.2, ab, width));
    let (ext, kernel) = match e {
        Some(e) => (e, KernelId::tile_narrow(width, idx64)),
        None => (
            mirror_extents(args.0, args.1, args.2, ab, width)?,
            KernelId::tile_mirror(width, idx64),
        ),
    };
    tile_launch_with(d, ab, ext, kernel, width, ext.1)
}

fn tile_launch_with(
    d: &Dims,
    (a, b): (usize, usize),
    (ta, tb): (i64, i64),
    kernel: KernelId,
    width: usize,
    pitch: i64,
) -> Option<GpuLaunch> {
    let (n_a, n_b) = (d.sizes[a], d.sizes[b]);
    // The 16-byte tiles (sk_tilev_*, and sk_tilevs_* with two batch indices' tiles).
    let vec = kernel.name().starts_with("sk_tilev");
    let stack = if kernel.name().starts_with("sk_tilevs_") {
        2
    } else {
        1
    };
    let shared = (stack * ta * pitch) as usize * width;
    let tiles_a = (n_a + ta - 1) / ta;
    let tiles_b = (n_b + tb - 1) / tb;
    if shared > MAX_SHARED || tiles_a * tiles_b > i32::MAX as i64 {
        return None;
    }
    let mut p = SkTile {
        dst_offset: d.dst_offset,
        src_offset: d.src_offset,
        n_a,
        n_b,
        dst_stride_b: d.dst[b],
        src_stride_a: d.src[a],
        tile_a: ta as i32,
        tile_b: tb as i32,
        tiles_b: tiles_b as i32,
        ..Default::default()
    };
    let mut batch = 1;
    let mut n = 0;
    for k in 0..d.rank {
        if k != a && k != b {
            p.batch_sizes[n] = d.sizes[k];
            p.batch_dst_strides[n] = d.dst[k];
            p.batch_src_strides[n] = d.src[k];
            batch *= d.sizes[k];
            n += 1;
        }
    }
    p.batch_rank = n as i32;
    p.batch = batch;
    p.tiles = (tiles_a * tiles_b) as i32;
    let unit = if vec
        || kernel.name().starts_with("sk_tilen_")
        || kernel.name().starts_with("sk_tilem_")
    {
        16 / width as i64
    } else {
        1
    };
    divisor::tile_divisors(&mut p, unit);
    if vec {
        // The 16-byte tile's threads per row and per column (tile_vec_lanes).
        let swizzled = tile_vec_swizzled(ta, tb, width);
        p.div_a = divisor::div_of(tile_vec_lanes(ta / unit, swizzled, width));
        p.div_b = divisor::div_of(tile_vec_lanes(tb / unit, swizzled, width));
    }
    Some(GpuLaunch {
        kernel,
        grid: tile_grid(tiles_a * tiles_b, batch),
        block: (BLOCK, 1, 1),
        shared_bytes: shared as u32,
        params: LaunchParams::Tile(p),
    })
}

/// Loads per thread per step of the packed tile (sk_tilep_ept in tile.cuh): 12 / 12 / 12 /
/// 8 for 1 / 2 / 4 / 8-byte words, either index width (more 1- and 2-byte loads spilled),
/// so that a tile past 48 KB, with few blocks per SM, keeps ~20 KB in flight per SM.
pub const fn tile_packed_ept(width: usize, _idx64: bool) -> u32 {
    match width {
        8 => 8,
        _ => 12,
    }
}

/// Blocks a packed launch needs unless the scalar tile has fewer: two per SM of an H200.
const MIN_PACKED_BLOCKS: u64 = 2 * 132;

/// The packed tile's launch ([`packed_tile`]) and the expected sector efficiency of its
/// reads and of its writes. When neither A nor B is the innermost dimension, that
/// dimension is a run contiguous on both sides (a gather's kept run) and the tile's
/// elements are its runs (the groups leave it out).
fn packed_launch(
    d: &Dims,
    (a, b): (usize, usize),
    width: usize,
    min_blocks: u64,
) -> Option<(GpuLaunch, (f64, f64))> {
    let inner = d.rank.checked_sub(1)?;
    let (r, run) = if a != inner && b != inner {
        (inner, d.sizes[inner])
    } else {
        (d.rank, 1)
    };
    let budget = PackedBudget {
        max_shared: d.max_shared,
        ept: tile_packed_ept(width, d.idx64()),
        threads: BLOCK,
        min_blocks: min_blocks.min(i64::MAX as u64) as i64,
        ragged: !d.idx64(),
    };
    let tile = |budget| {
        packed_tile(
            (&d.sizes[..r], &d.dst[..r], &d.src[..r]),
            (d.dst_offset, d.src_offset),
            (a, b),
            (width, run),
            budget,
        )
    };
    let t = tile(budget)?;
    // A ragged tile gives way to the divisor-only one where that promises no less on its
    // worse side (the split start's rating does not see sector-aligned sides).
    let ragged = |p: &SkTile| p.src_dtype > 0 || p.dst_dtype > 0;
    let worse = |e: (f64, f64)| e.0.min(e.1);
    let t = match tile(PackedBudget {
        ragged: false,
        ..budget
    }) {
        Some(u) if ragged(&t.params) && worse(u.efficiency) >= worse(t.efficiency) => u,
        _ => t,
    };
    let launch = GpuLaunch {
        kernel: KernelId::copy(Family::TilePacked, width, d.idx64()),
        grid: (t.params.batch.clamp(1, MAX_BLOCKS) as u32, 1, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: t.shared as u32,
        params: LaunchParams::Tile(t.params),
    };
    Some((launch, t.efficiency))
}

/// What a tile launch of `tile_a` x `tile_b` promises of each sector on its reads (rows
/// along B) and its writes (columns along A), a warp request covering `chunk` elements of
/// a row or column: one sector more than the run, but whole sectors where every run starts
/// on a sector boundary, and rows that follow each other in memory (A next outside B in
/// the source, or B next outside A in the destination) share sectors within a request.
fn tile_promise(
    d: &Dims,
    (a, b): (usize, usize),
    (tile_a, tile_b): (i64, i64),
    (width, chunk): (usize, i64),
) -> (f64, f64) {
    let side = |run: i64, adjacent: bool| {
        let run = if adjacent { i64::MAX / 64 } else { run };
        run_efficiency(run, chunk, width)
    };
    let sec = 32 / width as i64;
    let on_sectors = |offset: i64, step: i64, strides: &[i64; MAX_RANK], tile: i64, n: i64| {
        let batch = (0..d.rank)
            .filter(|&k| k != a && k != b)
            .map(|k| strides[k]);
        [offset, step, tile, n]
            .into_iter()
            .chain(batch)
            .all(|x| x % sec == 0)
    };
    let aligned = (
        on_sectors(d.src_offset, d.src[a], &d.src, tile_b, d.sizes[b]),
        on_sectors(d.dst_offset, d.dst[b], &d.dst, tile_a, d.sizes[a]),
    );
    (
        side(tile_b, d.src[a] == d.sizes[b]).max(f64::from(u8::from(aligned.0))),
        side(tile_a, d.dst[b] == d.sizes[a]).max(f64::from(u8::from(aligned.1))),
    )
}

/// Whether a packed tile promising `packed` (reads, writes) beats a tile promising
/// `other`: neither side less, the worse side more by 0.02.
fn beats((rd, wr): (f64, f64), other: (f64, f64)) -> bool {
    rd >= other.0 && wr >= other.1 && rd.min(wr) > other.0.min(other.1) + 0.02
}

/// The transpose of `width`-byte words: the scalar tile, or the packed one where neither
/// side's runs promise less of each sector and the worse side's promise more (with its
/// promise, so the plan can weigh it against the 16-byte tile too).
fn transpose_launch(
    d: &Dims,
    (a, b): (usize, usize),
    width: usize,
) -> Option<(GpuLaunch, Option<(f64, f64)>)> {
    let tile = tile_launch(d, a, b, width, d.idx64());
    let Some(LaunchParams::Tile(t)) = tile.as_ref().map(|l| l.params) else {
        return packed_launch(d, (a, b), width, 1).map(|(l, e)| (l, Some(e)));
    };
    let extents = (t.tile_a as i64, t.tile_b as i64);
    let scalar = tile_promise(d, (a, b), extents, (width, 32));
    // Enough blocks: as many as the scalar tile has tiles x batch indices (its grid is
    // bounded: tile_grid), or two per SM of an H200 (132 SMs).
    let scalar_blocks = (t.tiles.max(0) as u64) * (t.batch.max(0) as u64);
    let enough = |l: &GpuLaunch| l.grid.0 as u64 >= scalar_blocks.min(MIN_PACKED_BLOCKS);
    match packed_launch(d, (a, b), width, scalar_blocks.min(MIN_PACKED_BLOCKS)) {
        Some((l, e)) if enough(&l) && beats(e, scalar) => Some((l, Some(e))),
        _ => tile.map(|l| (l, None)),
    }
}

/// Whether the packed tile `packed` (promising `promise` of each sector on its reads and
/// writes) replaces the 16-byte-access tile `vec` of the same transpose: it [`beats`] the
/// promise of the vec tile's rows and columns (a warp request spans whole tile rows of
/// 16-byte words, so its runs are the tile's extents) and its blocks keep 20 KB in flight
/// per SM by [`enough_flight`]. The 16-byte tile's rows start wherever the strides put
/// them (16-byte aligned only): where those are off a sector boundary, the packed tile's
/// sector-aligned requests lose less.
fn packed_over_vec(
    d: &Dims,
    ab: (usize, usize),
    (packed, promise): (&GpuLaunch, (f64, f64)),
    vec: &GpuLaunch,
    width: usize,
) -> bool {
    let (LaunchParams::Tile(p), LaunchParams::Tile(v)) = (packed.params, vec.params) else {
        return false;
    };
    let extents = (v.tile_a as i64, v.tile_b as i64);
    let vec_promise = tile_promise(d, ab, extents, (width, extents.0.max(extents.1)));
    let runs = p.n_a / i64::from(p.tiles_b.max(1));
    let launch = (width, tile_packed_ept(width, d.idx64()), BLOCK);
    let shared_batch = (i64::from(packed.shared_bytes), p.batch);
    beats(promise, vec_promise) && enough_flight(shared_batch, (runs, p.src_stride_a), launch)
}

/// A copy that keeps its innermost dimension (a run of `L` elements, contiguous on both
/// sides) through the packed tile of runs: A the destination dimension of stride `L`, B the
/// source's. Taken where its worse side promises more of each sector (runs aligned to
/// sectors on both sides) than the worse side of the element-wise copy in the widest
/// words the layout allows (a warp request of 32 words per run, from wherever it starts),
/// with two blocks per SM of an H200. Runs of whole 4-byte words only.
fn run_tile_launch(d: &Dims, width: usize) -> Option<GpuLaunch> {
    let r = d.rank;
    let (inner, run) = (r.checked_sub(1)?, d.sizes[r.checked_sub(1)?]);
    if r < 3 || d.dst[inner] != 1 || d.src[inner] != 1 || run < 2 || width >= 16 {
        return None;
    }
    // Runs of whole 4-byte words only: a 1- or 2-byte run ending inside a word puts the
    // next tile row's first element in the same bank word slot (bank conflicts).
    if (run * width as i64) % 4 != 0 {
        return None;
    }
    let a = (0..inner).find(|&j| d.dst[j] == run && d.sizes[j] > 1)?;
    let b = (0..inner).find(|&j| d.src[j] == run && d.sizes[j] > 1 && j != a)?;
    let k = [8, 4, 2]
        .into_iter()
        .find(|&k| k * width <= 16 && d.widen(k as i64).is_some());
    let word = width * k.unwrap_or(1);
    let words = run * width as i64 / word as i64;
    let contiguous = |s: &[i64; MAX_RANK]| if d.row_major(s) { 1.0 } else { 0.0 };
    // Runs whose every start is on a sector boundary (offset and outer strides multiples
    // of a sector, whole sectors long) use whole sectors, as contiguous sides do.
    let sec = 32 / width as i64;
    let on_sectors = |s: &[i64; MAX_RANK], offset: i64| {
        let outer = s[..inner].iter().zip(&d.sizes[..inner]);
        let starts = outer.filter(|&(_, &n)| n > 1).all(|(&x, _)| x % sec == 0);
        if starts && offset % sec == 0 && run % sec == 0 {
            1.0
        } else {
            contiguous(s)
        }
    };
    let copy = run_efficiency(words, 32, word);
    let copy = copy
        .max(on_sectors(&d.src, d.src_offset))
        .min(copy.max(on_sectors(&d.dst, d.dst_offset)));
    let (l, (rd, wr)) = packed_launch(d, (a, b), width, MIN_PACKED_BLOCKS)?;
    (l.grid.0 as u64 >= MIN_PACKED_BLOCKS && rd.min(wr) > copy + 0.02).then_some(l)
}

/// A pure copy of `width`-byte words over `d`.
fn copy_launch(d: &Dims, width: usize) -> GpuLaunch {
    copy_choice(d, width).0
}

/// [`copy_launch`], with the packed tile's promise where it takes one.
fn copy_choice(d: &Dims, width: usize) -> (GpuLaunch, Option<(f64, f64)>) {
    let idx64 = d.idx64();
    // (Widened 16-byte words share the innermost dimension, so they are never a transpose.)
    if let Some(ab) = d.transpose_dims()
        && width < 16
        && let Some(l) = transpose_launch(d, ab, width)
    {
        return l;
    }
    let (sz, off) = (&d.sizes[..d.rank], [d.dst_offset, d.src_offset]);
    if let Some(g) = super::realign::grid((sz, [&d.dst, &d.src], off), width) {
        let mut l = strided_launch(d, KernelId::realign(width, idx64), (0, 0), idx64, 1);
        l.grid.0 = g;
        return (l, None);
    }
    let family = if d.row_major(&d.dst) {
        Family::Gather
    } else if d.row_major(&d.src) {
        Family::Scatter
    } else {
        Family::Strided
    };
    let kernel = KernelId::copy(family, width, idx64);
    let launch = strided_launch(d, kernel, (0, 0), idx64, copy_ept(width, idx64));
    (launch, None)
}

fn convert_variant(src: DType, dst: DType) -> usize {
    use DType::*;
    match (src, dst) {
        (F32, F16) => 1,
        (F16, F32) => 2,
        (F32, BF16) => 3,
        (BF16, F32) => 4,
        (F64, F32) => 5,
        (F32, F64) => 6,
        _ => 0,
    }
}

impl GpuPlan {
    /// Decides kernel, geometry and arguments for `plan` (once; launches reuse them).
    /// Shared memory per block stays within the 48 KB every device allows; see
    /// [`GpuPlan::for_device`].
    pub fn new(plan: &CopyPlan) -> Result<GpuPlan, CudaError> {
        Self::planned(plan, false, DeviceLimits::PORTABLE)
    }

    /// The decision for a device of `limits` (the packed tile may use its opt-in shared
    /// memory: [`crate::backend::cuda::Gpu::limits`], or [`DeviceLimits::H200`]).
    pub fn for_device(plan: &CopyPlan, limits: DeviceLimits) -> Result<GpuPlan, CudaError> {
        Self::planned(plan, false, limits)
    }

    /// The same decision through the 64-bit index kernels whatever the sizes, so tests
    /// (and compute-sanitizer) can run those kernels on small tensors.
    pub fn with_64bit_indices(plan: &CopyPlan) -> Result<GpuPlan, CudaError> {
        Self::planned(plan, true, DeviceLimits::PORTABLE)
    }

    /// [`GpuPlan::with_64bit_indices`] for a device of `limits`.
    pub fn with_64bit_indices_for(
        plan: &CopyPlan,
        limits: DeviceLimits,
    ) -> Result<GpuPlan, CudaError> {
        Self::planned(plan, true, limits)
    }

    fn planned(plan: &CopyPlan, force64: bool, limits: DeviceLimits) -> Result<GpuPlan, CudaError> {
        let (dsz, ssz) = (plan.dst_dtype.itemsize(), plan.src_dtype.itemsize());
        match plan.kind {
            PlanKind::Empty => return Ok(GpuPlan::Empty),
            PlanKind::Memcpy { bytes } => {
                return Ok(GpuPlan::Memcpy {
                    dst_byte_offset: (plan.dst_offset as usize * dsz) as u64,
                    src_byte_offset: (plan.src_offset as usize * ssz) as u64,
                    bytes: bytes as u64,
                });
            }
            PlanKind::Strided => {}
        }
        let mut d = Dims::from_plan(plan)?;
        d.force64 = force64;
        d.max_shared = (limits.max_shared_per_block as i64).max(MAX_SHARED as i64);
        if plan.dst_dtype != plan.src_dtype {
            let idx64 = d.idx64();
            let codes = (dtype_code(plan.dst_dtype), dtype_code(plan.src_dtype));
            let variant = convert_variant(plan.src_dtype, plan.dst_dtype);
            // A transpose between the float pairs converts inside the shared tile (both
            // sides coalesced).
            if let Some((a, b)) = d.transpose_dims().filter(|_| variant != 0) {
                let extents = tile_extents(d.sizes[a], d.sizes[b], dsz);
                let kernel = KernelId::convert_tile(variant, idx64);
                let pitch = tile_pitch(extents.0, extents.1, dsz);
                if let Some(mut l) = tile_launch_with(&d, (a, b), extents, kernel, dsz, pitch) {
                    if let LaunchParams::Tile(t) = &mut l.params {
                        (t.dst_dtype, t.src_dtype) = codes;
                    }
                    return Ok(GpuPlan::Kernel {
                        narrow: l,
                        wide: None,
                    });
                }
            }
            let kernel = KernelId::convert(variant, idx64);
            let narrow = strided_launch(&d, kernel, codes, idx64, EPT);
            return Ok(GpuPlan::Kernel { narrow, wide: None });
        }
        let (narrow, packed) = match run_tile_launch(&d, dsz) {
            Some(l) => (l, None),
            None => copy_choice(&d, dsz),
        };
        let mut wide = None;
        if let LaunchParams::Tile(_) = narrow.params {
            // A transpose: the 16-byte-access tile when sizes, strides and offsets allow
            // (none for the packed tile of a gather's runs, already aligned to sectors),
            // unless the packed tile promises more ([`packed_over_vec`]).
            let vec = d.transpose_dims().and_then(|ab| {
                let v = vec_tile_launch(&d, ab.0, ab.1, dsz, d.idx64())?;
                let over = packed.is_some_and(|e| packed_over_vec(&d, ab, (&narrow, e), &v, dsz));
                (!over).then_some(v)
            });
            // Destination rows shorter than a sector: the narrow tile (narrow.rs).
            let vec = vec.or_else(|| narrow_tile_launch(&d, dsz));
            return Ok(GpuPlan::Kernel {
                narrow,
                wide: vec.map(|l| (l, 16)),
            });
        }
        let mut k = (16 / dsz) as i64;
        while k >= 2 {
            if let Some(w) = d.widen(k) {
                let width = k as usize * dsz;
                wide = Some((copy_launch(&w, width), width as u32));
                break;
            }
            k /= 2;
        }
        Ok(GpuPlan::Kernel { narrow, wide })
    }

    /// The launch used for base pointers `dst` and `src`.
    pub fn launch_for(&self, dst: u64, src: u64) -> Option<&GpuLaunch> {
        match self {
            GpuPlan::Kernel { narrow, wide } => Some(match wide {
                Some((w, align))
                    if dst.is_multiple_of(*align as u64) && src.is_multiple_of(*align as u64) =>
                {
                    w
                }
                _ => narrow,
            }),
            _ => None,
        }
    }
}
