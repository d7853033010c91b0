//! The row gather's launch (cuda/index.cu sk_rows_*): index_select / embedding lookups
//! along dim 0, in element-width words and, where rows, strides and offsets allow, wider
//! ones (needs no GPU).
//!
//! A warp walks chunks of [`ROWS_CHUNK`] rows, one index per lane loaded a chunk ahead;
//! a row takes [`row_lanes`] lanes, so that short rows share a warp step; each lane batches
//! the loads of [`ROWS_UNROLL`] steps before their stores. The grid is a warp per chunk up
//! to [`ROWS_BLOCKS`] blocks; past that each warp walks several chunks, the indices of all
//! but its first arriving while the rows before them move.

use super::choose::{BLOCK, GpuLaunch, LaunchParams, TILE_BLOCKS, blocks_for};
use super::kernels::KernelId;
use super::params::SkRowGather;
use crate::dtype::DType;
use crate::plan::RowGatherShape;

/// Rows of a warp's chunk: one index per lane (SK_ROWS_CHUNK in index.cu).
pub const ROWS_CHUNK: i64 = 32;
/// Warp steps whose loads a lane issues before their stores (SK_ROWS_UNROLL in index.cu).
pub const ROWS_UNROLL: i64 = 4;
/// Blocks a row gather launch is bounded to: the tiles' bound (two waves of a full H200 at
/// 8 blocks of 256 threads per SM; four at the 4 blocks the 16-byte kernels' registers
/// allow). Fewer chunks than its warps: a warp per chunk, every SM busy on mid-size
/// gathers; more (index_select_rows_f16_4Mx128: 65536 chunks, ~3.9 per warp): each warp
/// walks several, all but its first finding their indices loaded.
pub const ROWS_BLOCKS: i64 = TILE_BLOCKS;

/// Lanes that move one row of `row_len` words (index.cu: `lanes`): the power of two at
/// least the row's words, at most 32.
pub const fn row_lanes(row_len: i64) -> i64 {
    let mut lanes = 1;
    while lanes < 32 && lanes < row_len {
        lanes *= 2;
    }
    lanes
}

/// Blocks of a row gather of `num_rows` rows: a warp per chunk, at most [`ROWS_BLOCKS`].
pub fn rows_grid(num_rows: i64) -> u32 {
    let warps = (BLOCK / 32) as i64;
    blocks_for(num_rows, warps * ROWS_CHUNK).min(ROWS_BLOCKS as u32)
}

/// Row gather along dim 0: `dst[r, :] = src[index[r], :]` for `num_rows` indices.
#[derive(Debug, Clone, Copy)]
pub struct RowGatherPlan {
    pub narrow: GpuLaunch,
    pub wide: Option<(GpuLaunch, u32)>,
}

impl RowGatherPlan {
    /// Plans a row gather of `dtype` elements with int32 (`index64 == false`) or int64
    /// indices.
    pub fn new(dtype: DType, shape: RowGatherShape, index64: bool) -> RowGatherPlan {
        let launch = |s: RowGatherShape, width: usize| GpuLaunch {
            kernel: KernelId::rows(width, index64),
            grid: (rows_grid(s.num_rows), 1, 1),
            block: (BLOCK, 1, 1),
            shared_bytes: 0,
            params: LaunchParams::Rows(SkRowGather {
                num_rows: s.num_rows,
                row_len: s.row_len,
                src_rows: s.src_rows,
                src_row_stride: s.src_row_stride,
                dst_row_stride: s.dst_row_stride,
                src_offset: s.src_offset,
                dst_offset: s.dst_offset,
                error_flag: 0,
            }),
        };
        let w = dtype.itemsize();
        let narrow = launch(shape, w);
        let mut wide = None;
        let mut k = (16 / w) as i64;
        while k >= 2 {
            let s = shape;
            if [
                s.row_len,
                s.src_row_stride,
                s.dst_row_stride,
                s.src_offset,
                s.dst_offset,
            ]
            .iter()
            .all(|v| v % k == 0)
            {
                let ws = RowGatherShape {
                    row_len: s.row_len / k,
                    src_row_stride: s.src_row_stride / k,
                    dst_row_stride: s.dst_row_stride / k,
                    src_offset: s.src_offset / k,
                    dst_offset: s.dst_offset / k,
                    ..s
                };
                wide = Some((launch(ws, k as usize * w), (k as usize * w) as u32));
                break;
            }
            k /= 2;
        }
        RowGatherPlan { narrow, wide }
    }

    pub fn launch_for(&self, dst: u64, src: u64) -> &GpuLaunch {
        match &self.wide {
            Some((w, align))
                if dst.is_multiple_of(*align as u64) && src.is_multiple_of(*align as u64) =>
            {
                w
            }
            _ => &self.narrow,
        }
    }
}
