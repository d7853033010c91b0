//! When a transpose takes the narrow tile (cuda/permute.cu sk_tilen_*), and its extents
//! (needs no GPU).
//!
//! The destination's rows (dimension A, stride 1) are shorter than a sector and follow each
//! other (the destination stride of B, the source's innermost dimension, is n_a): 7 rows of
//! a long source row (transpose2d_f32_7x33554432), channels_last with C = 3 (nchw2nhwc).
//! The scalar tile moves such a copy an element per thread and is instruction-issue bound
//! (bench/model-calibration-h200.md: 42.8% of memcpy measured for the 7 rows). The narrow
//! tile takes the whole A dimension and a run of B columns, so its part of the destination
//! is one contiguous run: 16-byte loads along the source rows, 16-byte stores along the
//! run, the transpose inside shared memory (element f = b * n_a + a of the run at slot
//! f ^ ((f / R) & (V - 1)), R = 128 / width: conflict-free for odd n_a).
//!
//! Taken for 4- and 8-byte elements when n_a is odd, n_a * width < 32 bytes, and V = 16 /
//! width divides n_b, the source stride of A, both offsets and every batch stride (the base
//! pointers' 16-byte alignment is checked at launch, with the scalar tile as the fallback:
//! the plan's `wide` launch).

use super::divisor;
use super::params::SkTile;
use super::tile_layout::{tile_extents, tile_grid, tile_pitch};

/// Bytes of a full narrow tile the extents aim at (n_a x tile_b elements).
pub const NARROW_TILE_BYTES: i64 = 16 * 1024;

/// The narrow tile's extents (n_a, tile_b) for the transpose of dimensions (`a`, `b`) of a
/// copy of `width`-byte elements with `sizes`, `strides` (destination, source) and
/// `offsets` (destination, source), or None where it does not apply.
pub fn extents(
    sizes: &[i64],
    [dst, src]: [&[i64]; 2],
    offsets: [i64; 2],
    (a, b): (usize, usize),
    width: usize,
) -> Option<(i64, i64)> {
    let (na, tb) = short_rows(sizes, [dst, src], offsets, (a, b), (dst[b], src[a]), width)?;
    Some((na, tb))
}

/// The mirror's extents (tile_a, n_b) (permute.cu sk_tilem_*: source rows of n_b elements,
/// odd, under a sector, that follow each other, src_stride_a = n_b, into long destination
/// rows), or None where it does not apply: V dividing n_a, the destination stride of B,
/// both offsets and every batch stride; tile_a a multiple of 32 V (at most n_a).
pub fn mirror_extents(
    sizes: &[i64],
    [dst, src]: [&[i64]; 2],
    offsets: [i64; 2],
    (a, b): (usize, usize),
    width: usize,
) -> Option<(i64, i64)> {
    let (nb, ta) = short_rows(sizes, [dst, src], offsets, (b, a), (src[a], dst[b]), width)?;
    Some((ta, nb))
}

/// What both narrow tiles need, with `short` the dimension of the rows under a sector and
/// `long` the other: `(follow, other)` are the stride of `long` on the side where the
/// short rows follow each other (it must be n_short) and the stride of `short` on the
/// other side. Returns (n_short, the tile along `long`: a multiple of 32 V words, so that
/// a warp's loads never cross a row, at most n_long), or None.
fn short_rows(
    sizes: &[i64],
    [dst, src]: [&[i64]; 2],
    offsets: [i64; 2],
    (short, long): (usize, usize),
    (follow, other): (i64, i64),
    width: usize,
) -> Option<(i64, i64)> {
    if width != 4 && width != 8 {
        return None;
    }
    let v = (16 / width) as i64;
    let (ns, nl) = (sizes[short], sizes[long]);
    if ns < 3 || ns % 2 == 0 || ns * width as i64 >= 32 || follow != ns || nl < 2 * v {
        return None;
    }
    let batch = (0..sizes.len()).filter(|&k| k != short && k != long);
    let multiples = [nl, other, offsets[0], offsets[1]]
        .into_iter()
        .chain(batch.flat_map(|k| [dst[k], src[k]]));
    if !multiples.into_iter().all(|x| x % v == 0) {
        return None;
    }
    let unit = 32 * v;
    let tile = (NARROW_TILE_BYTES / (width as i64 * ns) / unit * unit).max(unit);
    Some((ns, tile.min(nl)))
}

/// The scalar tile's parameters, shared bytes and grid for the transpose a narrow tile `p`
/// of `width`-byte elements moves (what the plan launches without the narrow tile: the
/// build the H200 run measured, bench/model-notes.md change 26).
pub fn scalar_tile(p: &SkTile, width: usize) -> (SkTile, u32, (u32, u32, u32)) {
    let (ta, tb) = tile_extents(p.n_a, p.n_b, width);
    let pitch = tile_pitch(ta, tb, width);
    let mut q = *p;
    let tiles_a = (p.n_a + ta - 1) / ta;
    let tiles_b = (p.n_b + tb - 1) / tb;
    q.tile_a = ta as i32;
    q.tile_b = tb as i32;
    q.tiles_b = tiles_b as i32;
    q.tiles = (tiles_a * tiles_b) as i32;
    divisor::tile_divisors(&mut q, 1);
    let shared = (ta * pitch) as u32 * width as u32;
    (q, shared, tile_grid(tiles_a * tiles_b, p.batch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_rows_and_three_channels_take_the_narrow_tile() {
        let n = 33554432;
        assert_eq!(
            extents(&[n, 7], [&[7, 1], &[1, n]], [0, 0], (1, 0), 4),
            Some((7, 512))
        );
        // nchw -> nhwc, C = 3: (N, HW, C) with C innermost in the destination.
        let hw = 224 * 224;
        let sizes = [256, hw, 3];
        let (dst, src) = ([3 * hw, 3, 1], [3 * hw, 1, hw]);
        assert_eq!(
            extents(&sizes, [&dst, &src], [0, 0], (2, 1), 4),
            Some((3, 1280))
        );
        assert_eq!(
            extents(&sizes, [&dst, &src], [0, 0], (2, 1), 8),
            Some((3, 640))
        );
        // Even rows, rows of a sector, unaligned strides or offsets: no.
        assert_eq!(
            extents(&[n, 6], [&[6, 1], &[1, n]], [0, 0], (1, 0), 4),
            None
        );
        assert_eq!(
            extents(&[n, 9], [&[9, 1], &[1, n]], [0, 0], (1, 0), 4),
            None
        );
        assert_eq!(
            extents(&[n + 2, 7], [&[7, 1], &[1, n + 2]], [0, 0], (1, 0), 4),
            None
        );
        assert_eq!(
            extents(&[n, 7], [&[7, 1], &[1, n]], [4, 2], (1, 0), 4),
            None
        );
        assert_eq!(
            extents(&[n, 7], [&[7, 1], &[1, n]], [0, 0], (1, 0), 2),
            None
        );
        // The mirror: nhwc -> nchw, C = 3 ((N, C, HW) with HW innermost in the destination).
        let (dst, src) = ([3 * hw, hw, 1], [3 * hw, 1, 3]);
        let sizes = [256, 3, hw];
        assert_eq!(
            mirror_extents(&sizes, [&dst, &src], [0, 0], (2, 1), 4),
            Some((1280, 3))
        );
        assert_eq!(extents(&sizes, [&dst, &src], [0, 0], (2, 1), 4), None);
        // A short row: at most the row.
        assert_eq!(
            extents(&[40, 5], [&[5, 1], &[1, 40]], [0, 0], (1, 0), 4),
            Some((5, 40))
        );
    }
}
