//! The 64 x 64 path of the 1- and 2-byte 16-byte tiles (cuda/include/tile64.cuh,
//! sk_tilev64_body), taken by the 32-bit index kernels when the tile is 64 x 64: the fill
//! stores each 16-byte source word as four 4-byte pieces, and the store phase gives each
//! thread a unit of 4 columns x 16 rows (1 byte) or 2 columns x 8 rows (2 bytes) read as one
//! 4-byte word per row and written as 4 or 2 destination words.

use crate::backend::cuda::choose::{BLOCK, tile_vec_col};
use crate::backend::cuda::params::SkTile;

/// Whether the kernel takes the 64 x 64 path (sk_tilev_body's condition).
pub fn applies(width: usize, idx64: bool, p: &SkTile) -> bool {
    width <= 2 && !idx64 && p.tile_a == 64 && p.tile_b == 64
}

/// The memory instructions of the path, in program order: the fill's 16-byte source load
/// and 4-byte shared store, the store phase's 4-byte shared load and 16-byte destination
/// store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    Load,
    Fill,
    Read,
    Store,
}

/// Store unit `e` of the 64 x 64 tile: (its rows / 16 or 8 = av, its first column, the
/// row order flag: 1 byte reads rows in the order k ^ f).
fn unit(width: usize, e: i64) -> (i64, i64, i64) {
    if width == 1 {
        let av = e & 3;
        (av, 4 * (e >> 2), av & 1)
    } else {
        let q = e >> 3;
        let bp = (q & !6) | ((q & 2) << 1) | ((q >> 1) & 2);
        (e & 7, 2 * bp, 0)
    }
}

/// The accesses of thread `t` on one (tile, batch index) (corner offsets `s`, `d` in
/// elements, extents `na` x `nb`), as `put(site, byte, bytes, issue)` with issue steps from
/// `step`, which advances by the block's trips (warp-uniform).
#[allow(clippy::too_many_arguments)]
pub fn item(
    width: usize,
    p: &SkTile,
    t: i64,
    (s, d, na, nb): (i64, i64, i64, i64),
    step: &mut u32,
    mut put: impl FnMut(Site, i64, u64, u32),
) {
    let w = width as i64;
    let v = 16 / w;
    let fb = 64 / v;
    let pitch = if width == 1 { 64 } else { 66 };
    let fill = if width == 1 { 1 } else { 2 };
    let (units, rows, cols) = if width == 1 { (64, 16, 4) } else { (256, 8, 2) };
    let nt = BLOCK as i64;
    let fills = ((64 * fb + fill * nt - 1) / (fill * nt)) as u32;
    let reads = ((units + nt - 1) / nt) as u32;
    let base = *step;
    let nbv = nb / v;
    let mut e0 = t;
    while e0 < 64 * fb {
        for k in 0..fill {
            let e = e0 + k * nt;
            let (a, bv) = (e / fb, e % fb);
            if a < na && bv < nbv {
                let at = s + a * p.src_stride_a + bv * v;
                put(Site::Load, at * w, 16, *step + k as u32);
            }
        }
        for k in 0..fill {
            let e = e0 + k * nt;
            let (a, bv) = (e / fb, e % fb);
            if a < na && bv < nbv {
                for q in 0..4 {
                    let c = tile_vec_col(true, a, bv * v + q * (4 / w), width);
                    let byte = ((a * pitch + c) * w) & !3;
                    put(Site::Fill, byte, 4, *step + (fill + k * 4 + q) as u32);
                }
            }
        }
        *step += 5 * fill as u32;
        e0 += fill * nt;
    }
    let mut e = t;
    while e < units {
        let (av, b0, f) = unit(width, e);
        if av < na / v && b0 < nb {
            for k in 0..rows {
                let r = av * rows + (k ^ f);
                let byte = ((r * pitch + tile_vec_col(true, r, b0, width)) * w) & !3;
                put(Site::Read, byte, 4, *step + k as u32);
            }
            for i in 0..cols {
                let at = d + (b0 + i) * p.dst_stride_b + av * v;
                put(Site::Store, at * w, 16, *step + (rows + i) as u32);
            }
        }
        *step += (rows + cols) as u32;
        e += nt;
    }
    *step = base + fills * 5 * fill as u32 + reads * (rows + cols) as u32;
}
