//! Where the scalar and 16-byte-access tiles of the tiled transpose (permute.cu sk_tile_*
//! and sk_tilev_*) keep each element in shared memory: row pitches, and the XOR swizzle of
//! the full 16-byte tiles (tile.cuh's sk_tile_pitch, sk_tilev_* mirror these; choose.rs
//! sizes the launches with them and the model's thread programs read them).

/// Elements per row of the scalar shared tile of `width`-byte elements, `tile_a` x `tile_b`
/// (sk_tile_pitch in tile.cuh). A bank row holds `u` = 32 (4-byte) or 16 (8-byte)
/// elements; for an odd `tile_a` below `u` and a `tile_b` that `u` divides (a skinny tile cut
/// on 32-element boundaries, so no warp of the fill crosses a row) the pitch is congruent to
/// the inverse of `tile_a` modulo `u`, so the write phase's 32 lanes (e = b * tile_a + a)
/// hit 32 banks. Otherwise an
/// odd number of 4-byte words for widths up to 4, one element of padding for 8 bytes.
pub const fn tile_pitch(tile_a: i64, tile_b: i64, width: usize) -> i64 {
    let w = width as i64;
    let u = match width {
        4 => 32,
        8 => 16,
        _ => 0,
    };
    if u != 0 && tile_a % 2 == 1 && tile_a < u && tile_b % u == 0 {
        let mut x = tile_a;
        x = x.wrapping_mul(2 - tile_a.wrapping_mul(x));
        x = x.wrapping_mul(2 - tile_a.wrapping_mul(x));
        let inv = x & (u - 1);
        return tile_b + ((inv - tile_b) & (u - 1));
    }
    if w >= 8 {
        return tile_b + 1;
    }
    let words = ((tile_b * w + 3) / 4) | 1;
    words * 4 / w
}

/// Whether the 16-byte-access tile of `width`-byte elements, `tile_a` x `tile_b`, is XOR
/// swizzled (sk_tilev_swizzled in tile.cuh): full 64 x 64 tiles of 1- and 2-byte elements
/// and 32 x 32 tiles of 8-byte ones.
pub const fn tile_vec_swizzled(tile_a: i64, tile_b: i64, width: usize) -> bool {
    let edge = if width <= 2 { 64 } else { 32 };
    width != 4 && tile_a >= edge && tile_b >= edge && tile_b % edge == 0
}

/// Elements per row of the 16-byte-access tile (sk_tilev_pitch in tile.cuh).
pub const fn tile_vec_pitch(swizzled: bool, tile_b: i64, width: usize) -> i64 {
    tile_b
        + match (swizzled, width) {
            (true, 2) => 2,
            (true, _) => 0,
            (false, 1) => 2,
            (false, 2) => 3,
            (false, _) => 1,
        }
}

/// Where column `c` of row `r` of the 16-byte-access tile lives in its row (sk_tilev_col in
/// tile.cuh): XORed by a function of the row when the tile is swizzled, so that neither
/// phase has bank conflicts.
pub const fn tile_vec_col(swizzled: bool, r: i64, c: i64, width: usize) -> i64 {
    let x = match width {
        1 => (((r >> 4) & 3) << 4) ^ (((r >> 1) & 3) << 2),
        2 => (r >> 1) & 31,
        _ => (r >> 1) & 15,
    };
    if swizzled { c ^ x } else { c }
}

/// The element of its 16-byte word (word `bv` of its row) a thread of the 16-byte fill
/// stores `k`-th (sk_tilev_fill_lane in tile.cuh): rotated by the word for swizzled 8-byte
/// tiles.
pub const fn tile_vec_fill_lane(swizzled: bool, k: i64, bv: i64, width: usize) -> i64 {
    if swizzled && width == 8 {
        (k + (bv >> 3)) & 1
    } else {
        k
    }
}

/// Threads per row (fill) or per column (store) of the 16-byte tile, in 16-byte words, for
/// a row or column of `words` words (sk_tilev_rows reads them from div_b and div_a): 8, a
/// bank row (128 bytes), for the unswizzled tiles of 4- and 8-byte elements whose rows or
/// columns are shorter (the words past them idle), `words` otherwise. With 8 a warp's
/// lanes cover 4 rows (4 columns) of whole bank rows, whose odd pitch puts them on distinct
/// banks in both phases; with the 6 words of a 24-element f32 row they straddled rows and
/// conflicted (bench/model-notes.md change 23).
pub const fn tile_vec_lanes(words: i64, swizzled: bool, width: usize) -> i64 {
    if !swizzled && words < 8 && (width == 4 || width == 8) {
        8
    } else {
        words
    }
}

/// Batch indices a block of the 16-byte tile stages at once: 2 (the kernels sk_tilevs_*;
/// sk_tilev_rows in permute.cu) where one index's tile, on the threads of
/// [`tile_vec_lanes`], leaves some of the block's threads without a word to load and both
/// phases run on 8 threads per row and per column (small unswizzled tiles of 4- and 8-byte
/// elements, at most 8 words each way, with 32-bit indices and a batch to pair), their
/// tiles stacked along A in shared memory; 1 otherwise. Two indices double the bytes a
/// block has in flight (a 24 x 24 f32 tile alone: 18 KB per SM at 8 blocks) and share the
/// item's fixed work. A
/// 30 x 16 f64 tile (columns of 15 words) stacked had more bank conflicts: not taken.
/// `threads`: a block's (choose.rs BLOCK).
pub const fn tile_vec_stack(
    (tile_a, tile_b): (i64, i64),
    width: usize,
    idx64: bool,
    batch: i64,
    threads: i64,
) -> i64 {
    let v = 16 / width as i64;
    let swizzled = tile_vec_swizzled(tile_a, tile_b, width);
    let row = tile_vec_lanes(tile_b / v, swizzled, width);
    let column = tile_vec_lanes(tile_a / v, swizzled, width);
    if (width == 4 || width == 8)
        && !idx64
        && !swizzled
        && batch >= 2
        && row == 8
        && column == 8
        && tile_a * row < threads
    {
        2
    } else {
        1
    }
}

/// Blocks a scalar or 16-byte tile launch is bounded to: two waves of a full H200 (132 SMs,
/// 8 blocks of 256 threads each, the most an SM holds). Each block walks several tiles and
/// batch indices (tile.cuh sk_tile_walk), so its prologue (the parameters, the pitch, the
/// chunk's first batch offsets) is paid once per ~W / 2112 of the W tiles x batch indices
/// instead of once per tile; two waves rather than one so that an SM holding fewer blocks
/// (large tiles, registers) still has several, and every block of a launch gets the same
/// work to within one (tile, batch index).
pub const TILE_BLOCKS: i64 = 132 * 8 * 2;

/// The grid of a tile launch of `tiles` tiles per batch index: grid.x the tiles (up to
/// [`TILE_BLOCKS`]), grid.y chunks of the batch, as many as the remaining blocks allow
/// (and 65535), of equal length so that none is empty; tiles x batch when that is fewer.
pub fn tile_grid(tiles: i64, batch: i64) -> (u32, u32, u32) {
    let (tiles, batch) = (tiles.max(1), batch.max(1));
    let gx = tiles.min(TILE_BLOCKS);
    let rows = (TILE_BLOCKS / gx).clamp(1, 65535).min(batch);
    let chunk = (batch + rows - 1) / rows;
    (gx as u32, ((batch + chunk - 1) / chunk) as u32, 1)
}

/// Tile extents of the element-wise tile of `width`-byte elements: 32 x 32 (64 x 64 for 1-
/// and 2-byte elements, so each thread has 16 loads to issue), or a tile spanning a tiny
/// dimension and a long run of the other. The long run is a multiple of 32 elements where it
/// is cut, so that each warp's accesses along it start on a 32-element boundary.
pub fn tile_extents(n_a: i64, n_b: i64, width: usize) -> (i64, i64) {
    let edge: i64 = if width <= 2 { 64 } else { 32 };
    let area: i64 = 2048;
    let long = |other: i64, n: i64| {
        let run = (area / other).max(32);
        if run >= n { n } else { (run / 32 * 32).max(32) }
    };
    if n_a >= edge && n_b >= edge {
        (edge, edge)
    } else if n_a >= 32 && n_b >= 32 {
        (32, 32)
    } else if n_a <= n_b {
        (n_a, long(n_a, n_b))
    } else {
        (long(n_b, n_a), n_b)
    }
}

/// Tile extents for the 16-byte-access transpose: multiples of V = 16 / width (the sizes
/// are), 64 x 64 for 1- and 2-byte elements and 32 x 32 otherwise, a tiny dimension taken
/// whole with a longer run of the other.
pub fn vec_tile_extents(n_a: i64, n_b: i64, width: usize) -> (i64, i64) {
    let v = (16 / width) as i64;
    let edge = if width <= 2 { 64 } else { 32 };
    let area = edge * edge;
    let long = |other: i64, n: i64| n.min((area / other).max(edge) / v * v);
    match (n_a >= edge, n_b >= edge) {
        (true, true) => (edge, edge),
        (false, _) if n_a <= n_b => (n_a, long(n_a, n_b)),
        _ => (long(n_b, n_a), n_b),
    }
}
