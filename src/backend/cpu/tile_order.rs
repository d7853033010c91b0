//! The order a tiled walk visits the indices of its other dimensions (those outside the
//! tile) in: pure index math, no memory touched.
//!
//! Row-major order over the other dimensions steps the innermost of them fastest. When
//! that dimension keeps the walk inside the destination's pages but jumps pages in the
//! source (or the reverse), every tile opens new pages on one side: the 4-d reversal of
//! 128^4 f32 opens 128 source pages per 64 KiB tile. Visiting that dimension and one that
//! stays inside the other side's pages in square blocks of [`BLOCK`] x [`BLOCK`] indices
//! reuses the pages of both sides within a block (1 thread, 1 GiB, share of the memcpy
//! rate on the development Xeon, A/B of two builds alternating: the 4-d reversal 47-48%
//! -> 50-54%, about the same with blocks of 4, 8 or 16). A walk with a dimension that
//! stays inside the pages of both sides is not blocked: visiting that one innermost
//! already reuses them (the bench's 6-d permute measured 47-50% blocked against 51-53%
//! row-major).

use super::contiguous::PAGE;
use super::shape::{ByteWalk, Sizes};

/// The edge of a block of indices over the two blocked dimensions.
pub(super) const BLOCK: usize = 8;

/// The other dimensions in visiting order (`dims`, row-major over them once unblocked) and,
/// when the last two are visited in blocks, the place of the first of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TileOrder {
    pub dims: Sizes,
    blocked: Option<usize>,
}

/// Whether a step along `k` stays inside the pages of each side (destination, source).
fn near(w: &ByteWalk, k: usize) -> (bool, bool) {
    (
        w.dst[k].unsigned_abs() < PAGE,
        w.src[k].unsigned_abs() < PAGE,
    )
}

impl TileOrder {
    /// The order over `others` (the walk's dimensions outside the tile, outermost first).
    /// Blocks are planned only when `pages` (a walk far larger than the caches: in cache,
    /// pages are not what limits a tile).
    pub fn new(w: &ByteWalk, others: &[usize], pages: bool) -> TileOrder {
        let plain = TileOrder {
            dims: others.iter().copied().collect(),
            blocked: None,
        };
        let used = |k: &usize| w.sizes[*k] >= 2;
        let near_in = |side: (bool, bool)| {
            others
                .iter()
                .copied()
                .filter(used)
                .rfind(|&k| near(w, k) == side)
        };
        if !pages || near_in((true, true)).is_some() {
            return plain;
        }
        let (Some(y), Some(x)) = (near_in((true, false)), near_in((false, true))) else {
            return plain;
        };
        // The destination-near dimension innermost: within a block the destination's
        // pages are written in order, the source's revisited.
        let mut dims: Sizes = others
            .iter()
            .copied()
            .filter(|k| *k != x && *k != y)
            .collect();
        let at = dims.len();
        dims.extend([x, y]);
        TileOrder {
            dims,
            blocked: Some(at),
        }
    }

    /// Whether two of the dimensions are visited in blocks.
    pub fn is_blocked(&self) -> bool {
        self.blocked.is_some()
    }

    /// The row-major index over [`Self::dims`] of the `o`-th index visited (`o` below the
    /// product of their sizes; a bijection on that range).
    pub fn row(&self, w: &ByteWalk, o: usize) -> usize {
        let Some(at) = self.blocked else {
            return o;
        };
        let (nx, ny) = (w.sizes[self.dims[at]], w.sizes[self.dims[at + 1]]);
        let (hi, r) = (o / (nx * ny), o % (nx * ny));
        // A band of `bh` rows of x (the last band may be shorter), cut into blocks of
        // `bw` columns of y (the last block may be narrower), each visited row-major.
        let band = r / (BLOCK * ny);
        let bh = BLOCK.min(nx - band * BLOCK);
        let r = r % (BLOCK * ny);
        let col = r / (bh * BLOCK);
        let bw = BLOCK.min(ny - col * BLOCK);
        let r = r - col * bh * BLOCK;
        let (ix, iy) = (band * BLOCK + r / bw, col * BLOCK + r % bw);
        (hi * nx + ix) * ny + iy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallvec::smallvec;

    fn walk(sizes: &[usize], dst: &[isize], src: &[isize]) -> ByteWalk {
        ByteWalk {
            sizes: sizes.iter().copied().collect(),
            dst: dst.iter().copied().collect(),
            src: src.iter().copied().collect(),
            d0: 0,
            s0: 0,
            dw: 4,
            sw: 4,
        }
    }

    /// The 4-d reversal of 128^4 f32 (tile over dims 0 and 3): dims 1 and 2 are blocked,
    /// the destination-near one (2) innermost.
    #[test]
    fn a_reversal_blocks_its_two_middle_dimensions() {
        let m = 1 << 23;
        let w = walk(&[128; 4], &[m, 1 << 16, 512, 4], &[4, 512, 1 << 16, m]);
        let o = TileOrder::new(&w, &[1, 2], true);
        assert_eq!(o.dims, Sizes::from_slice(&[1, 2]));
        assert_eq!(o.blocked, Some(0));
        // The first block: 8 x 8 indices, dim 2 fastest.
        let first: Vec<usize> = (0..10).map(|i| o.row(&w, i)).collect();
        assert_eq!(first, [0, 1, 2, 3, 4, 5, 6, 7, 128, 129]);
        assert_eq!(o.row(&w, 64), 8);
        // In cache, or with no pair near opposite sides, the order is row-major.
        assert_eq!(TileOrder::new(&w, &[1, 2], false).blocked, None);
        let w2 = walk(&[128; 4], &[m, 512, 1 << 16, 4], &[4, 1 << 16, 512, m]);
        let o2 = TileOrder::new(&w2, &[1, 2], true);
        assert_eq!(o2.dims, Sizes::from_slice(&[2, 1]));
    }

    /// Every order is a bijection on its range, whatever the sizes (blocks cut at the
    /// edges); a dimension near both sides leaves the order row-major.
    #[test]
    fn every_order_visits_each_index_once() {
        for (nx, ny) in [(8, 8), (13, 9), (1, 5), (5, 1), (17, 33), (2, 2)] {
            let sizes: Sizes = smallvec![3, nx, 7, ny, 2];
            let w = ByteWalk {
                dst: smallvec![1 << 20, 8192, 1 << 16, 64, 4],
                src: smallvec![1 << 21, 64, 1 << 18, 8192, 1 << 24],
                ..walk(&sizes, &[0; 5], &[0; 5])
            };
            let o = TileOrder::new(&w, &[0, 1, 2, 3], true);
            assert_eq!(o.is_blocked(), nx >= 2 && ny >= 2, "{nx} {ny}");
            let n: usize = [0, 1, 2, 3].iter().map(|&k| sizes[k]).product();
            let mut seen = vec![false; n];
            for i in 0..n {
                let r = o.row(&w, i);
                assert!(r < n && !seen[r], "{nx} {ny}: {i} -> {r}");
                seen[r] = true;
            }
            let both = ByteWalk {
                dst: smallvec![1 << 20, 8192, 16, 64, 4],
                src: smallvec![1 << 21, 64, 32, 8192, 1 << 24],
                ..w.clone()
            };
            assert!(!TileOrder::new(&both, &[0, 1, 2, 3], true).is_blocked());
        }
    }
}
