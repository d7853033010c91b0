//! When a copy takes the realigning kernel (cuda/gather_scatter.cu sk_realign_*), and its
//! grid (needs no GPU).
//!
//! The kernel moves copies whose innermost dimension is a run contiguous on both sides, a
//! warp per run: 32-word chunks loaded at 32-word-aligned source addresses, funnel-shifted
//! across the lanes (`__shfl_sync`) and stored at 32-word-aligned destination addresses, so
//! both sides' requests cover whole sectors but at each run's two ends. sk_copy_body maps
//! consecutive threads to consecutive destination (gather) or source (scatter) elements:
//! that side is aligned, the other is not when its runs start off the sector grid (a warp's
//! 128 bytes of 4-byte words then span 5 sectors: 80% per request; 8-byte words 9: 89%).
//!
//! The plan takes it for 4- and 8-byte words when the runs are at least [`REALIGN_MIN_RUN`]
//! words long and sk_copy_body's requests would be off the sector grid on a side (with
//! cudaMalloc's 256-byte-aligned bases): the side's runs start at another phase than their
//! logical indices (narrow_cols: one element off; unfold_windows: windows of 1025 words
//! 512 apart into a contiguous destination).

use super::kernels::Family;
use super::tile_layout::TILE_BLOCKS;

/// Fewest words of a run the realigning copy takes: enough for a batch of
/// [`REALIGN_UNROLL`] chunks, so that a warp has as many bytes in flight as sk_copy_body's
/// (4 words per lane). Shorter runs (32-127 words) would have every request but the two
/// ends whole, but a warp moves one run at a time: `stridekit model` predicted such a case
/// slower (model_r3_int8_456x275x536_p102, runs of 67 8-byte words: 96.0% -> 87.7% of
/// memcpy, half the bytes in flight), so they stay on sk_copy_body.
pub const REALIGN_MIN_RUN: i64 = 128;
/// Chunks of 32 words whose loads a lane issues before their stores (SK_REALIGN_UNROLL).
pub const REALIGN_UNROLL: i64 = 4;
/// Blocks a realigning launch is bounded to (the tiles' bound); past it warps walk several
/// runs.
pub const REALIGN_BLOCKS: i64 = TILE_BLOCKS;

/// Whether sk_copy_body's requests on a side of `strides` from `offset` are off the
/// sector grid of `sector` words: its warps take 32 consecutive logical indices from a
/// multiple of 32, so a side's requests are aligned when its offset and, for every outer
/// dimension, the difference between its stride and the row-major one are multiples of a
/// sector (a run then starts at the same phase as its logical index).
fn off_sectors(sizes: &[i64], strides: &[i64], offset: i64, sector: i64) -> bool {
    let mut row = 1;
    let mut off = offset % sector != 0;
    for (&n, &s) in sizes.iter().zip(strides).rev() {
        off |= n > 1 && (s - row) % sector != 0;
        row *= n;
    }
    off
}

/// Whether `strides` lay the copy out row-major (contiguous, innermost last).
fn row_major(sizes: &[i64], strides: &[i64]) -> bool {
    let mut expect = 1;
    for (&n, &s) in sizes.iter().zip(strides).rev() {
        if s != expect {
            return false;
        }
        expect *= n;
    }
    true
}

/// The pure-copy family sk_copy_body takes for these strides (choose.rs copy_choice).
pub fn copy_family(sizes: &[i64], dst: &[i64], src: &[i64]) -> Family {
    if row_major(sizes, dst) {
        Family::Gather
    } else if row_major(sizes, src) {
        Family::Scatter
    } else {
        Family::Strided
    }
}

/// The grid of the realigning copy of `width`-byte words over `sizes` (innermost last),
/// `strides` (destination, source) and `offsets` (destination, source), or None where it
/// does not take it: a warp per run (8 per block of 256 threads), at most
/// [`REALIGN_BLOCKS`] blocks.
pub fn grid<S: AsRef<[i64]>>(
    (sizes, strides, offsets): (&[i64], [S; 2], [i64; 2]),
    width: usize,
) -> Option<u32> {
    let n = sizes.len();
    let (dst, src) = (&strides[0].as_ref()[..n], &strides[1].as_ref()[..n]);
    let inner = sizes.len().checked_sub(1)?;
    let run = sizes[inner];
    if !(width == 4 || width == 8) || dst[inner] != 1 || src[inner] != 1 || run < REALIGN_MIN_RUN {
        return None;
    }
    let sector = 32 / width as i64;
    let misaligned =
        off_sectors(sizes, src, offsets[1], sector) || off_sectors(sizes, dst, offsets[0], sector);
    let runs = sizes.iter().product::<i64>() / run;
    misaligned.then(|| ((runs + 7) / 8).clamp(1, REALIGN_BLOCKS) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_long_runs_off_the_sector_grid_only() {
        let s = [100i64, 200];
        // narrow(1, 1, 200) of 100 x 201 f32 rows into a contiguous destination: a gather.
        let g = grid((&s, [&[200, 1], &[201, 1]], [0, 1]), 4);
        assert_eq!(g, Some(13));
        // Source runs at their logical index's phase (stride 208, offset 8): aligned.
        assert_eq!(grid((&s, [&[200, 1], &[208, 1]], [0, 8]), 4), None);
        // unfold(0, 1025, 512): source runs on sectors, at another phase than the index's.
        assert!(grid((&[1000, 1025], [&[1025, 1], &[512, 1]], [0, 0]), 4).is_some());
        // Short runs, 2- and 16-byte words: not taken.
        assert_eq!(grid((&[100, 127], [&[127, 1], &[128, 1]], [0, 1]), 4), None);
        assert_eq!(grid((&s, [&[200, 1], &[201, 1]], [0, 1]), 2), None);
        assert_eq!(grid((&s, [&[200, 1], &[201, 1]], [0, 1]), 16), None);
        // A scatter is misaligned on its destination side.
        assert_eq!(grid((&s, [&[201, 1], &[200, 1]], [1, 0]), 8), Some(13));
        assert_eq!(grid((&s, [&[204, 1], &[200, 1]], [4, 0]), 8), None);
        // Many runs: bounded, warps walk several.
        let g = grid((&[1 << 20, 140], [&[140, 1], &[141, 1]], [0, 0]), 4);
        assert_eq!(g, Some(REALIGN_BLOCKS as u32));
    }
}
