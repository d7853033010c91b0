//! The packed tile's geometry (permute.cu sk_tilep_*, cuTT's Packed idea): whole small
//! dimensions on both sides of a transpose, so that a block reads one contiguous run of the
//! source per tile row and writes one contiguous run of the destination per tile column,
//! each in warp requests aligned to 32-byte sectors. choose.rs decides when it replaces the
//! scalar tile.

use super::params::{SK_MAX_RANK, SkTile};

const MAX_RANK: usize = SK_MAX_RANK as usize;

/// Elements per row of the packed tile of `nb`-element rows (sk_tilep_pitch in tile.cuh):
/// an odd number of 4-byte words up to 4-byte elements, an odd number of 8-byte ones, so a
/// warp reading a column hits 32 banks.
pub const fn tile_packed_pitch(nb: i64, width: usize) -> i64 {
    let w = width as i64;
    if w >= 8 {
        return nb | 1;
    }
    ((((nb * w + 3) / 4) | 1) * 4) / w
}

/// Expected share of the sectors a warp's requests use along runs of `len` elements: one
/// sector more than the run per `chunk` elements (a request of 32 lanes that starts
/// anywhere in a sector, or one aligned run).
pub(super) fn run_efficiency(len: i64, chunk: i64, width: usize) -> f64 {
    let bytes = (len.min(chunk) * width as i64) as f64;
    bytes / (bytes + 32.0)
}

/// A packed tile: its arguments (SkTile read as permute.cu's sk_tilep describes), shared
/// bytes, and the expected sector efficiency of its reads and of its writes.
#[derive(Debug, Clone, Copy)]
pub(super) struct PackedTile {
    pub params: SkTile,
    pub shared: i64,
    pub efficiency: (f64, f64),
}

/// Group A takes whole dimensions contiguous in the destination from `a` (destination
/// stride 1), group B whole dimensions contiguous in the source from `b` (source stride 1),
/// growing the shorter run first while the n_a x n_b tile fits in `max_shared` bytes; the
/// other dimensions are the batch. `dims` are (sizes, destination strides, source strides),
/// innermost last. None when even the two dimensions do not fit.
pub(super) fn packed_tile(
    (sizes, dst, src): (&[i64], &[i64], &[i64]),
    (dst_offset, src_offset): (i64, i64),
    (a, b): (usize, usize),
    width: usize,
    max_shared: i64,
) -> Option<PackedTile> {
    let r = sizes.len().min(MAX_RANK);
    if a >= r || b >= r || dst.len() < r || src.len() < r {
        return None;
    }
    let w = width as i64;
    let mut used = [false; MAX_RANK];
    used[a] = true;
    used[b] = true;
    // The groups, fixed arrays (planning allocates nothing): ga[..la], gb[..lb].
    let (mut ga, mut gb) = ([a; MAX_RANK], [b; MAX_RANK]);
    let (mut la, mut lb) = (1usize, 1usize);
    let (mut na, mut nb) = (sizes[a], sizes[b]);
    let fits = |na: i64, nb: i64| {
        na.checked_mul(tile_packed_pitch(nb, width))
            .and_then(|x| x.checked_mul(w))
            .is_some_and(|x| x <= max_shared)
    };
    if !fits(na, nb) {
        return None;
    }
    let next = |g: &[usize], strides: &[i64], used: &[bool; MAX_RANK]| {
        let k = *g.last()?;
        let want = strides[k].checked_mul(sizes[k])?;
        (0..r).find(|&j| !used[j] && strides[j] == want)
    };
    loop {
        let grow_a = next(&ga[..la], dst, &used)
            .and_then(|j| Some((j, na.checked_mul(sizes[j])?)))
            .filter(|&(_, n)| fits(n, nb));
        let grow_b = next(&gb[..lb], src, &used)
            .and_then(|j| Some((j, nb.checked_mul(sizes[j])?)))
            .filter(|&(_, n)| fits(na, n));
        match (grow_a, grow_b) {
            (Some((j, n)), other) if na <= nb || other.is_none() => {
                (used[j], na) = (true, n);
                ga[la] = j;
                la += 1;
            }
            (_, Some((j, n))) => {
                (used[j], nb) = (true, n);
                gb[lb] = j;
                lb += 1;
            }
            _ => break,
        }
    }
    let mut p = SkTile {
        dst_offset,
        src_offset,
        n_a: na,
        n_b: nb,
        tile_a: la as i32,
        tile_b: lb as i32,
        tiles_b: 1,
        batch_rank: (r - la - lb) as i32,
        ..Default::default()
    };
    let mut batch = 1i64;
    let batch_dims = (0..r).filter(|&k| !used[k]);
    let order = batch_dims
        .chain(ga[..la].iter().rev().copied())
        .chain(gb[..lb].iter().rev().copied());
    for (n, k) in order.enumerate() {
        p.batch_sizes[n] = sizes[k];
        p.batch_dst_strides[n] = dst[k];
        p.batch_src_strides[n] = src[k];
        if !used[k] {
            batch = batch.checked_mul(sizes[k])?;
        }
    }
    p.batch = batch;
    Some(PackedTile {
        params: p,
        shared: na * tile_packed_pitch(nb, width) * w,
        efficiency: (run_efficiency(nb, nb, width), run_efficiency(na, na, width)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_take_whole_dimensions_on_both_sides() {
        // Source (4, 5, 6, 7) contiguous, permuted by (0, 2, 3, 1): sizes (4, 6, 7, 5),
        // source strides (210, 7, 1, 42), destination contiguous. A starts at dim 3 (5),
        // B at dim 2 (7) and grows through dim 1 (6, source stride 7); A cannot grow (its
        // next destination dimension is B's dim 2). Dim 0 is the batch.
        let sizes = [4, 6, 7, 5];
        let dst = [210, 35, 5, 1];
        let src = [210, 7, 1, 42];
        let t = packed_tile((&sizes, &dst, &src), (0, 0), (3, 2), 4, 48 * 1024).unwrap();
        assert_eq!((t.params.n_a, t.params.n_b), (5, 42));
        assert_eq!(
            (t.params.batch_rank, t.params.tile_a, t.params.tile_b),
            (1, 1, 2)
        );
        assert_eq!(t.params.batch, 4);
        assert_eq!(&t.params.batch_sizes[..4], &[4, 5, 6, 7]);
        assert_eq!(t.shared, 5 * 43 * 4);
        // Nothing fits: None.
        assert!(packed_tile((&sizes, &dst, &src), (0, 0), (3, 2), 4, 16).is_none());
        assert_eq!(tile_packed_pitch(42, 4), 43);
        assert_eq!(tile_packed_pitch(42, 2), 42);
        assert_eq!(tile_packed_pitch(40, 2), 42);
        assert_eq!(tile_packed_pitch(8, 1), 12);
        assert_eq!(tile_packed_pitch(8, 8), 9);
    }
}
