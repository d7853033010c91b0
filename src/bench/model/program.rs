//! The memory accesses of one thread of a layout kernel, in program order: a mirror of the
//! index arithmetic of cuda/gather_scatter.cu, cuda/permute.cu (with cuda/include/tile.cuh)
//! and cuda/index.cu. tests/kernel_emulation.rs records the real sources' accesses (compiled
//! as host C++) and checks that these programs give the same counts, launch by launch.

mod narrow;
mod realign;
mod tile64;

use super::error::ModelError;
use crate::backend::cuda::choose::{
    BLOCK, MAX_RANK, copy_ept, tile_packed_ept, tile_packed_pitch, tile_pitch, tile_vec_col,
    tile_vec_fill_lane, tile_vec_pitch, tile_vec_swizzled,
};
use crate::backend::cuda::params::SkTile;
use crate::backend::cuda::rows::{ROWS_CHUNK, ROWS_UNROLL, row_lanes};
use crate::backend::cuda::{GpuLaunch, LaunchParams};

/// Which memory an access goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Buffer {
    Dst,
    Src,
    /// The row gather's index tensor.
    Index,
    Shared,
}

/// One access of one thread: `site` numbers the memory instructions of the kernel in
/// program order; `byte` is the offset from the buffer's base (cudaMalloc bases are
/// 256-byte aligned, so sectors and lines are counted from there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub site: u8,
    pub buffer: Buffer,
    pub store: bool,
    pub byte: u64,
    pub bytes: u32,
    /// The address depends on an earlier load (the row gather's rows on their index): the
    /// loads before it had to arrive first.
    pub after_wait: bool,
    /// The warp-uniform step that issues the access, for kernels whose guards also drop
    /// leading lanes (the packed tile's aligned requests): requests are grouped by (site,
    /// issue) and ordered by issue. None: the n-th access of a site is its n-th request.
    pub issue: Option<u32>,
}

/// The kernel families the model follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// strided, gather, scatter: sk_copy_body.
    Linear,
    Tile,
    TileVec,
    /// The packed tile (sk_tilep_*).
    TilePacked,
    Rows,
    /// The realigning copy (sk_realign_*).
    Realign,
    /// The narrow tile (sk_tilen_*) and its mirror (sk_tilem_*): program/narrow.rs.
    TileNarrow,
    TileMirror,
}

/// A launch made ready to walk: family, word width, index width and geometry.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    shape: Shape,
    pub width: usize,
    idx64: bool,
    /// The tiles' batch walk: each block's batch indices by, by + gy, ... (the 64-bit
    /// kernels, and [`Program::sampled`]) rather than one contiguous chunk per block row.
    batch_stride: bool,
    pub grid: (u32, u32),
    launch: &'a GpuLaunch,
    /// The row gather's indices.
    index: &'a [i64],
    /// Outer-loop iterations walked per block (grid-stride and batch loops).
    max_steps: u64,
    /// The row gather as the H200 run of 2026-12-04 measured it (build bb865aa: four rows
    /// per warp, an index load before each): [`Program::measured_rows`].
    old_rows: bool,
}

/// Rows a warp of the measured build's row gather moved at once (its SK_ROWS_PER_WARP).
pub const MEASURED_ROWS_PER_WARP: i64 = 4;

/// Word width and index width from a kernel name such as `sk_tilev_w4_i64`.
pub(super) fn width_of(name: &str) -> Option<(usize, bool)> {
    let mut parts = name.split('_').skip(2);
    let w = parts.next()?.strip_prefix('w')?.parse().ok()?;
    let idx64 = parts.next()?.ends_with("64");
    Some((w, idx64))
}

impl<'a> Program<'a> {
    pub fn new(
        launch: &'a GpuLaunch,
        index: &'a [i64],
        max_steps: u64,
    ) -> Result<Program<'a>, ModelError> {
        let name = launch.kernel.name();
        let shape = if ["sk_strided_", "sk_gather_", "sk_scatter_"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            Shape::Linear
        } else if name.starts_with("sk_tilep_") {
            Shape::TilePacked
        } else if name.starts_with("sk_tilev_") || name.starts_with("sk_tilevs_") {
            Shape::TileVec
        } else if name.starts_with("sk_tile_") {
            Shape::Tile
        } else if name.starts_with("sk_rows_") {
            Shape::Rows
        } else if name.starts_with("sk_realign_") {
            Shape::Realign
        } else if name.starts_with("sk_tilen_") {
            Shape::TileNarrow
        } else if name.starts_with("sk_tilem_") {
            Shape::TileMirror
        } else {
            return Err(ModelError::Unmodelled(name.to_string()));
        };
        let (width, idx64) = width_of(name).ok_or(ModelError::Unmodelled(name.to_string()))?;
        if launch.block.0 != BLOCK {
            return Err(ModelError::Unmodelled(format!(
                "{name} with {} threads per block",
                launch.block.0
            )));
        }
        Ok(Program {
            shape,
            width,
            idx64,
            batch_stride: idx64,
            grid: (launch.grid.0, launch.grid.1),
            launch,
            index,
            max_steps: max_steps.max(1),
            old_rows: false,
        })
    }

    /// The program of the row gather the H200 run of 2026-12-04 measured (bb865aa's
    /// sk_rows_*; tests/model_calibration.rs compares its model with the measurement).
    pub fn measured_rows(mut self) -> Program<'a> {
        self.old_rows = self.shape == Shape::Rows;
        self
    }

    pub fn blocks(&self) -> u64 {
        self.grid.0 as u64 * self.grid.1 as u64
    }

    /// The program whose blocks the model samples for its access figures (sectors, banks,
    /// DRAM merging): the launch itself, but for the scalar and 16-byte tiles one block per
    /// tile and per batch index up to 65535 (grid = (tiles, min(batch, 65535))), each
    /// walking the batch indices by, by + 65535, ... of its tile. What a
    /// (tile, batch index) item accesses does not depend on which block walks it, and a
    /// bounded launch grid (choose.rs tile_grid) would otherwise make the sample, and so
    /// the figures, follow the grid: neighbouring sampled blocks are neighbouring tiles
    /// at the same batch index, as the first items of neighbouring blocks are on the GPU.
    /// The issue bound counts the launch's own grid (issue.rs).
    pub fn sampled(&self) -> Program<'a> {
        let mut q = self.clone();
        use Shape::{Tile, TileMirror, TileNarrow, TileVec};
        if let (Tile | TileVec | TileNarrow | TileMirror, LaunchParams::Tile(p)) =
            (self.shape, &self.launch.params)
        {
            let items = (p.batch.max(1) + q.stack() - 1) / q.stack();
            q.grid = (p.tiles.max(1) as u32, items.clamp(1, 65535) as u32);
            q.batch_stride = true;
        }
        q
    }

    /// Batch indices per item of a tile launch: 2 for the stacked 16-byte tile
    /// (sk_tilevs_*: permute.cu sk_tilev_rows), 1 otherwise.
    fn stack(&self) -> i64 {
        if self.launch.kernel.name().starts_with("sk_tilevs_") {
            2
        } else {
            1
        }
    }

    /// The accesses of thread `t` of block (`bx`, `by`), in program order.
    pub fn thread(&self, bx: u64, by: u64, t: u64, out: &mut Vec<Access>) {
        match (self.shape, &self.launch.params) {
            (Shape::Linear, p) => self.linear(bx, t, &Linear::of(p), out),
            (Shape::Tile, LaunchParams::Tile(p)) => self.tile(bx, by, t, p, out),
            (Shape::TileVec, LaunchParams::Tile(p)) => self.tile_vec(bx, by, t, p, out),
            (Shape::TilePacked, LaunchParams::Tile(p)) => self.tile_packed(bx, by, t, p, out),
            (Shape::Rows, LaunchParams::Rows(p)) if self.old_rows => {
                self.rows_measured(bx, t, p, out)
            }
            (Shape::Rows, LaunchParams::Rows(p)) => self.rows(bx, t, p, out),
            (Shape::Realign, p) => self.realign(bx, t, &Linear::of(p), out),
            (Shape::TileNarrow | Shape::TileMirror, LaunchParams::Tile(p)) => {
                self.tile_narrow(bx, by, t, p, out)
            }
            _ => {}
        }
    }

    fn linear(&self, bx: u64, t: u64, p: &Linear, out: &mut Vec<Access>) {
        let w = self.width as u64;
        let ept = copy_ept(self.width, self.idx64) as u64;
        let per_block = BLOCK as u64 * ept;
        let step = self.grid.0 as u64 * per_block;
        let mut base = bx * per_block + t;
        let mut d = [0u64; 16];
        for _ in 0..self.max_steps {
            if base >= p.numel {
                break;
            }
            for j in 0..ept {
                let linear = base + j * BLOCK as u64;
                if linear < p.numel {
                    let (dd, s) = p.offsets(linear);
                    d[j as usize] = dd;
                    out.push(access(0, Buffer::Src, false, s * w, w));
                }
            }
            for j in 0..ept {
                if base + j * (BLOCK as u64) < p.numel {
                    out.push(access(1, Buffer::Dst, true, d[j as usize] * w, w));
                }
            }
            base += step;
        }
    }

    /// Calls `move(s, d, na, nb, second)` for each (tile, batch index) the block walks, in
    /// the kernel's order, at most `max_steps` of them (tile.cuh sk_tile_walk): 32-bit
    /// indices walk the tiles bx, bx + gx, ... and for each the contiguous batch chunk by of
    /// ceil(batch / gy) indices; 64-bit indices the batch indices by, by + gy, ... and for
    /// each the tiles. A stacked 16-byte tile (sk_tilevs_*) takes a chunk's indices two at
    /// a time, `second` the offsets (s, d) of the next index (None for an odd last one);
    /// sampled ([`Program::sampled`]), block row by walks the pairs by, by + gy, ...
    fn tile_batches(
        &self,
        bx: u64,
        by: u64,
        p: &SkTile,
        mut f: impl FnMut(i64, i64, i64, i64, Option<(i64, i64)>),
    ) {
        let (gx, gy) = (self.grid.0.max(1) as i64, self.grid.1.max(1) as i64);
        let tiles = p.tiles.max(0) as i64;
        let batch = p.batch.max(0);
        let tiles_b = p.tiles_b.max(1) as i64;
        let offsets = |bt: i64| {
            let (mut d0, mut s0) = (p.dst_offset, p.src_offset);
            let mut rest = bt;
            for k in (0..p.batch_rank as usize).rev() {
                let n = p.batch_sizes[k].max(1);
                let r = rest % n;
                rest /= n;
                d0 += r * p.batch_dst_strides[k];
                s0 += r * p.batch_src_strides[k];
            }
            (d0, s0)
        };
        let stack = self.stack();
        let mut item = |tile: i64, bt: i64, end: i64| {
            let (ti, tj) = (tile / tiles_b, tile % tiles_b);
            let (a0, b0) = (ti * p.tile_a as i64, tj * p.tile_b as i64);
            let na = (p.n_a - a0).min(p.tile_a as i64);
            let nb = (p.n_b - b0).min(p.tile_b as i64);
            let (d0, s0) = offsets(bt);
            let second = (stack > 1 && bt + 1 < end).then(|| {
                let (d1, s1) = offsets(bt + 1);
                (s1 + a0 * p.src_stride_a + b0, d1 + b0 * p.dst_stride_b + a0)
            });
            f(
                s0 + a0 * p.src_stride_a + b0,
                d0 + b0 * p.dst_stride_b + a0,
                na,
                nb,
                second,
            );
        };
        let mut steps = 0;
        let mut more = || {
            steps += 1;
            steps <= self.max_steps
        };
        let tiles_of = |bx: i64| (bx..tiles).step_by(gx as usize);
        if self.batch_stride {
            for bt in (by as i64 * stack..batch).step_by((gy * stack) as usize) {
                for tile in tiles_of(bx as i64) {
                    if !more() {
                        return;
                    }
                    item(tile, bt, batch);
                }
            }
        } else {
            let chunk = (batch + gy - 1) / gy;
            let first = by as i64 * chunk;
            let end = (first + chunk).min(batch);
            for tile in tiles_of(bx as i64) {
                for bt in (first..end).step_by(stack as usize) {
                    if !more() {
                        return;
                    }
                    item(tile, bt, end);
                }
            }
        }
    }

    fn tile(&self, bx: u64, by: u64, t: u64, p: &SkTile, out: &mut Vec<Access>) {
        let w = self.width as i64;
        let ilp = copy_ept(self.width, self.idx64) as i64;
        let pitch = tile_pitch(p.tile_a as i64, p.tile_b as i64, self.width);
        let nt = BLOCK as i64;
        self.tile_batches(bx, by, p, |s, d, na, nb, _| {
            let count = na * nb;
            let mut e0 = t as i64;
            while e0 < count {
                for k in 0..ilp {
                    let e = e0 + k * nt;
                    if e < count {
                        let a = e / nb;
                        let at = s + a * p.src_stride_a + (e - a * nb);
                        out.push(access(0, Buffer::Src, false, (at * w) as u64, w as u64));
                    }
                }
                for k in 0..ilp {
                    let e = e0 + k * nt;
                    if e < count {
                        let a = e / nb;
                        let slot = a * pitch + (e - a * nb);
                        out.push(access(1, Buffer::Shared, true, (slot * w) as u64, w as u64));
                    }
                }
                e0 += ilp * nt;
            }
            let mut e = t as i64;
            while e < count {
                let (b, a) = (e / na, e % na);
                let slot = a * pitch + b;
                out.push(access(
                    2,
                    Buffer::Shared,
                    false,
                    (slot * w) as u64,
                    w as u64,
                ));
                let at = d + b * p.dst_stride_b + a;
                out.push(access(3, Buffer::Dst, true, (at * w) as u64, w as u64));
                e += nt;
            }
        });
    }

    /// sk_tilev_body (permute.cu): threads on the words of a full tile (edge tiles' extra
    /// words idle, so accesses carry the warp-uniform step that issues them), `fill` words
    /// loaded before they are stored into the tile.
    fn tile_vec(&self, bx: u64, by: u64, t: u64, p: &SkTile, out: &mut Vec<Access>) {
        if tile64::applies(self.width, self.idx64, p) {
            let mut step = 0;
            return self.tile_batches(bx, by, p, |s, d, na, nb, _| {
                tile64::item(
                    self.width,
                    p,
                    t as i64,
                    (s, d, na, nb),
                    &mut step,
                    |site, byte, bytes, issue| {
                        let (n, buf, store) = match site {
                            tile64::Site::Load => (0, Buffer::Src, false),
                            tile64::Site::Fill => (1, Buffer::Shared, true),
                            tile64::Site::Read => (2, Buffer::Shared, false),
                            tile64::Site::Store => (3, Buffer::Dst, true),
                        };
                        let mut a = access(n, buf, store, byte as u64, bytes);
                        a.issue = Some(issue);
                        out.push(a);
                    },
                );
            });
        }
        let w = self.width as i64;
        let v = 16 / w;
        let fill = if self.width == 1 { 1 } else { 2 };
        let swz = tile_vec_swizzled(p.tile_a as i64, p.tile_b as i64, self.width);
        let pitch = tile_vec_pitch(swz, p.tile_b as i64, self.width);
        let nt = BLOCK as i64;
        // Threads per tile column and row in words (the kernel reads div_a and div_b).
        let (fav, fbv) = (p.div_a.d as i64, p.div_b.d as i64);
        let mut step = 0i64;
        let mut put = |site: u8, buf: Buffer, store: bool, at: i64, bytes: i64, issue: i64| {
            let mut a = access(site, buf, store, (at * w) as u64, bytes as u64);
            a.issue = Some(issue as u32);
            out.push(a);
        };
        let (ta, tb) = (p.tile_a as i64, p.tile_b as i64);
        self.tile_batches(bx, by, p, |s, d, na, nb, second| {
            // Batch indices of the item (stacked: rows ta.. and column slots tb.. are the
            // second's). Steps advance by the block's iterations, so they stay warp-uniform
            // where some lanes leave a loop early.
            let items = if second.is_some() { 2 } else { 1 };
            let (fills, reads) = (
                (items * ta * fbv + fill * nt - 1) / (fill * nt),
                (items * tb * fav + nt - 1) / nt,
            );
            let (nav, nbv) = (na / v, nb / v);
            // The source and destination offsets of the item's index g.
            let at = |g: bool| match (g, second) {
                (true, Some(x)) => Some(x),
                (true, None) => None,
                (false, _) => Some((s, d)),
            };
            let base = step;
            let mut e0 = t as i64;
            while e0 < items * ta * fbv {
                let word = |e: i64| {
                    let (r, bv) = (e / fbv, e % fbv);
                    let a = if r >= ta { r - ta } else { r };
                    at(r >= ta)
                        .filter(|_| a < na && bv < nbv)
                        .map(|(s, _)| (r, bv, s + a * p.src_stride_a + bv * v))
                };
                for k in 0..fill {
                    if let Some((_, _, src)) = word(e0 + k * nt) {
                        put(0, Buffer::Src, false, src, 16, step + k);
                    }
                }
                for k in 0..fill {
                    if let Some((r, bv, _)) = word(e0 + k * nt) {
                        for j in 0..v {
                            let kk = tile_vec_fill_lane(swz, j, bv, self.width);
                            let slot = r * pitch + tile_vec_col(swz, r, bv * v + kk, self.width);
                            put(1, Buffer::Shared, true, slot, w, step + fill + k * v + j);
                        }
                    }
                }
                step += fill + fill * v;
                e0 += fill * nt;
            }
            step = base + fills * (fill + fill * v);
            let mut e = t as i64;
            while e < items * tb * fav {
                let (c, av) = (e / fav, e % fav);
                let (g, b) = if c >= tb { (1, c - tb) } else { (0, c) };
                if let Some((_, d)) = at(g == 1).filter(|_| b < nb && av < nav) {
                    for k in 0..v {
                        let r = g * ta + av * v + k;
                        let slot = r * pitch + tile_vec_col(swz, r, b, self.width);
                        put(2, Buffer::Shared, false, slot, w, step + k);
                    }
                    let dst = d + b * p.dst_stride_b + av * v;
                    put(3, Buffer::Dst, true, dst, 16, step + v);
                }
                step += v + 1;
                e += nt;
            }
            step = base + fills * (fill + fill * v) + reads * (v + 1);
        });
    }

    /// sk_tilep_body (permute.cu): warps on whole source rows, then on whole destination
    /// runs, each in requests aligned to 32-byte sectors; a gather's kept run of `lr`
    /// elements (`dst_stride_b`) makes each tile element `lr` elements.
    fn tile_packed(&self, bx: u64, _by: u64, t: u64, p: &SkTile, out: &mut Vec<Access>) {
        let w = self.width as i64;
        let ilp = tile_packed_ept(self.width, self.idx64) as i64;
        let sec = 32 / w;
        let (na, nb, lr) = (p.n_a, p.n_b, p.dst_stride_b.max(1));
        let pitch = tile_packed_pitch(nb, lr, self.width);
        let lanes = 32i64.min(BLOCK as i64);
        let warps = BLOCK as i64 / lanes;
        let (lane, warp) = (t as i64 % lanes, t as i64 / lanes);
        let ranks = |x: i32| x.clamp(0, MAX_RANK as i32) as usize;
        let (ga, gb) = (ranks(p.batch_rank), ranks(p.batch_rank + p.tile_a));
        let (ca, cb) = (ranks(p.tile_a), ranks(p.tile_b));
        let group = |first: usize, count: usize, strides: &[i64; MAX_RANK], mut x: i64| {
            let mut off = 0;
            for k in (first..(first + count).min(MAX_RANK)).rev() {
                let n = p.batch_sizes[k].max(1);
                off += (x % n) * strides[k];
                x /= n;
            }
            off
        };
        let mut bt = bx as i64;
        let mut issue = 0u32;
        let mut put = |site: u8, buf: Buffer, store: bool, at: i64, issue: u32| {
            let mut a = access(site, buf, store, (at * w) as u64, w as u64);
            a.issue = Some(issue);
            out.push(a);
        };
        for _ in 0..self.max_steps {
            if bt >= p.batch {
                break;
            }
            let (mut d0, mut s0) = (p.dst_offset, p.src_offset);
            let mut rest = bt;
            for k in (0..ranks(p.batch_rank)).rev() {
                let n = p.batch_sizes[k].max(1);
                d0 += (rest % n) * p.batch_dst_strides[k];
                s0 += (rest % n) * p.batch_src_strides[k];
                rest /= n;
            }
            // Source runs of `tiles_b` rows that follow each other, `src_stride_a` elements.
            let (ra, mut len) = (p.tiles_b.max(1) as i64, p.src_stride_a);
            // A ragged last chunk: src_dtype / dst_dtype > 0 the A / B group's last chunk's
            // size, the chunk indices the innermost batch entries (A's first).
            let (mut na, mut nb) = (na, nb);
            let (mut q, mut k) = (bt, ranks(p.batch_rank));
            let last = |q: &mut i64, k: &mut usize| {
                let n = p.batch_sizes[k.saturating_sub(1)].max(1);
                let is_last = *q % n == n - 1;
                (*q, *k) = (*q / n, k.saturating_sub(1));
                is_last
            };
            if p.src_dtype > 0 && last(&mut q, &mut k) {
                na = p.src_dtype as i64;
            }
            if p.dst_dtype > 0 && last(&mut q, &mut k) {
                nb = p.dst_dtype as i64;
                len = nb * lr;
            }
            let (mut a, mut c) = (warp * ra, 0i64);
            let row_of = |a: i64| s0 + group(ga, ca, &p.batch_src_strides, a);
            let mut row = if a < na { row_of(a) } else { 0 };
            let mut m = row % sec;
            while a < na {
                let mut slots = Vec::with_capacity(ilp as usize);
                for k in 0..ilp {
                    if a >= na {
                        break;
                    }
                    let j = c * lanes + lane - m;
                    if (0..len).contains(&j) {
                        put(0, Buffer::Src, false, row + j, issue + k as u32);
                        slots.push((k, a * pitch + j));
                    }
                    c += 1;
                    if c * lanes >= m + len {
                        (c, a) = (0, a + warps * ra);
                        if a < na {
                            row = row_of(a);
                            m = row % sec;
                        }
                    }
                }
                for (k, slot) in slots {
                    put(1, Buffer::Shared, true, slot, issue + (ilp + k) as u32);
                }
                issue += 2 * ilp as u32;
            }
            let mut b = warp;
            while b < nb {
                let run = d0 + group(gb, cb, &p.batch_dst_strides, b);
                let mb = run % sec;
                // The warp steps while its first lane's element is in the run (lanes past
                // the end idle: the issue count stays warp-uniform).
                let mut cc = 0;
                while cc * lanes < mb + na * lr {
                    let i = cc * lanes + lane - mb;
                    if (0..na * lr).contains(&i) {
                        let slot = i + (i / lr) * (pitch - lr) + b * lr;
                        put(2, Buffer::Shared, false, slot, issue);
                        put(3, Buffer::Dst, true, run + i, issue + 1);
                    }
                    issue += 2;
                    cc += 1;
                }
                b += warps;
            }
            bt += self.grid.0 as i64;
        }
    }

    /// sk_rows_body (index.cu): the warp's chunks of 32 rows, each lane loading one index
    /// a chunk ahead; `lanes` lanes per row, the loads of [`ROWS_UNROLL`] warp steps
    /// before their stores. Accesses carry the warp-uniform step that issues them (lanes
    /// past a row's end, or on a row with a bad index, skip theirs).
    fn rows(
        &self,
        bx: u64,
        t: u64,
        p: &crate::backend::cuda::params::SkRowGather,
        out: &mut Vec<Access>,
    ) {
        let w = self.width as i64;
        let iw = if self.idx64 { 8 } else { 4 };
        let warps = (BLOCK / 32) as i64;
        let lane = t as i64 % 32;
        let nwarps = self.grid.0 as i64 * warps;
        let chunks = (p.num_rows + ROWS_CHUNK - 1) / ROWS_CHUNK;
        let lanes = row_lanes(p.row_len);
        let (sub, first) = (lane / lanes, lane % lanes);
        // Warp steps along a row: the trips of its first lane.
        let trips = (p.row_len.max(0) + lanes - 1) / lanes;
        let put = |out: &mut Vec<Access>, mut a: Access, issue: u32| {
            a.issue = Some(issue);
            out.push(a);
        };
        let index_load = |r: i64| access(0, Buffer::Index, false, (r * iw) as u64, iw as u64);
        let mut c = bx as i64 * warps + t as i64 / 32;
        let mut issue = 0u32;
        if c < chunks && c * ROWS_CHUNK + lane < p.num_rows {
            put(out, index_load(c * ROWS_CHUNK + lane), issue);
        }
        issue += 1;
        let mut waited = false;
        for _ in 0..self.max_steps {
            if c >= chunks {
                break;
            }
            let r0 = c * ROWS_CHUNK;
            let n0 = (c + nwarps) * ROWS_CHUNK;
            if c + nwarps < chunks && n0 + lane < p.num_rows {
                let mut a = index_load(n0 + lane);
                a.site = 1;
                put(out, a, issue);
            }
            issue += 1;
            for s in (0..lanes).step_by(ROWS_UNROLL as usize) {
                let mut rows = [None; ROWS_UNROLL as usize];
                for (u, slot) in rows.iter_mut().enumerate() {
                    let q = (s + u as i64) * (32 / lanes) + sub;
                    let r = r0 + q;
                    let ix = self.index.get(r as usize).copied().unwrap_or(-1);
                    if s + (u as i64) < lanes && r < p.num_rows && (0..p.src_rows).contains(&ix) {
                        *slot = Some((
                            p.src_offset + ix * p.src_row_stride,
                            p.dst_offset + r * p.dst_row_stride,
                        ));
                    }
                }
                for k in 0..trips {
                    let e = first + k * lanes;
                    if e < p.row_len {
                        for (u, row) in rows.iter().enumerate() {
                            if let Some((s, _)) = row {
                                let at = ((s + e) * w) as u64;
                                let mut a = access(2, Buffer::Src, false, at, w as u64);
                                // Only the warp's first rows wait on an index load.
                                a.after_wait = !waited;
                                waited = true;
                                put(out, a, issue + u as u32);
                            }
                        }
                        for (u, row) in rows.iter().enumerate() {
                            if let Some((_, d)) = row {
                                let at = ((d + e) * w) as u64;
                                let a = access(3, Buffer::Dst, true, at, w as u64);
                                put(out, a, issue + (ROWS_UNROLL as usize + u) as u32);
                            }
                        }
                    }
                    issue += 2 * ROWS_UNROLL as u32;
                }
            }
            c += nwarps;
        }
    }

    /// bb865aa's sk_rows_body: four rows per warp at a time, lane-serially an index load
    /// (every lane the same) before each row's words.
    fn rows_measured(
        &self,
        bx: u64,
        t: u64,
        p: &crate::backend::cuda::params::SkRowGather,
        out: &mut Vec<Access>,
    ) {
        let w = self.width as i64;
        let iw = if self.idx64 { 8 } else { 4 };
        let warps = (BLOCK / 32) as i64;
        let warp = bx as i64 * warps + t as i64 / 32;
        let lane = t as i64 % 32;
        let nwarps = self.grid.0 as i64 * warps;
        let mut r0 = warp;
        for _ in 0..self.max_steps {
            if r0 >= p.num_rows {
                break;
            }
            let mut rows = [None; MEASURED_ROWS_PER_WARP as usize];
            for (k, slot) in rows.iter_mut().enumerate() {
                let r = r0 + k as i64 * nwarps;
                if r >= p.num_rows {
                    continue;
                }
                out.push(access(0, Buffer::Index, false, (r * iw) as u64, iw as u64));
                let ix = self.index.get(r as usize).copied().unwrap_or(-1);
                if (0..p.src_rows).contains(&ix) {
                    *slot = Some((
                        p.src_offset + ix * p.src_row_stride,
                        p.dst_offset + r * p.dst_row_stride,
                    ));
                }
            }
            let mut e = lane;
            let mut first = true;
            while e < p.row_len {
                for &(s, _) in rows.iter().flatten() {
                    let mut a = access(1, Buffer::Src, false, ((s + e) * w) as u64, w as u64);
                    a.after_wait = first;
                    first = false;
                    out.push(a);
                }
                for &(_, d) in rows.iter().flatten() {
                    out.push(access(2, Buffer::Dst, true, ((d + e) * w) as u64, w as u64));
                }
                e += 32;
            }
            r0 += MEASURED_ROWS_PER_WARP * nwarps;
        }
    }
}

fn access(site: u8, buffer: Buffer, store: bool, byte: u64, bytes: u64) -> Access {
    Access {
        site,
        buffer,
        store,
        byte,
        bytes: bytes as u32,
        after_wait: false,
        issue: None,
    }
}

/// The strided family's parameters in 64 bits.
struct Linear {
    rank: usize,
    sizes: [i64; 8],
    dst: [i64; 8],
    src: [i64; 8],
    dst_offset: i64,
    src_offset: i64,
    numel: u64,
}

impl Linear {
    fn of(p: &LaunchParams) -> Linear {
        let mut l = Linear {
            rank: 0,
            sizes: [1; 8],
            dst: [0; 8],
            src: [0; 8],
            dst_offset: 0,
            src_offset: 0,
            numel: 0,
        };
        match p {
            LaunchParams::Strided32(q) => {
                l.rank = q.rank.clamp(0, 8) as usize;
                for k in 0..8 {
                    (l.sizes[k], l.dst[k], l.src[k]) = (
                        q.sizes[k] as i64,
                        q.dst_strides[k] as i64,
                        q.src_strides[k] as i64,
                    );
                }
                (l.dst_offset, l.src_offset) = (q.dst_offset as i64, q.src_offset as i64);
                l.numel = q.numel.max(0) as u64;
            }
            LaunchParams::Strided64(q) => {
                l.rank = q.rank.clamp(0, 8) as usize;
                (l.sizes, l.dst, l.src) = (q.sizes, q.dst_strides, q.src_strides);
                (l.dst_offset, l.src_offset) = (q.dst_offset, q.src_offset);
                l.numel = q.numel.max(0) as u64;
            }
            _ => {}
        }
        l
    }

    /// Element offsets of logical index `linear` on both sides (sk_offsets_of).
    fn offsets(&self, linear: u64) -> (u64, u64) {
        let (mut d, mut s) = (self.dst_offset, self.src_offset);
        let mut rest = linear as i64;
        for k in (0..self.rank).rev() {
            let n = self.sizes[k].max(1);
            let r = rest % n;
            rest /= n;
            d += r * self.dst[k];
            s += r * self.src[k];
        }
        (d.max(0) as u64, s.max(0) as u64)
    }
}
