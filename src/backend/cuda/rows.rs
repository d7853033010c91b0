//! The row gather's launch (cuda/index.cu sk_rows_*): index_select / embedding lookups
//! along dim 0, in element-width words and, where rows, strides and offsets allow, wider
//! ones (needs no GPU).
//!
//! A warp walks chunks of [`ROWS_CHUNK`] rows, one index per lane loaded a chunk ahead;
//! a row takes [`row_lanes`] lanes, so that short rows share a warp step; each lane batches
//! the loads of [`ROWS_UNROLL`] steps before their stores. The grid gives each warp about
//! [`ROWS_CHUNKS_PER_WARP`] chunks, so that the indices of all but its first arrive while
//! the rows before them move.

use super::choose::{BLOCK, GpuLaunch, LaunchParams, blocks_for};
use super::kernels::KernelId;
use super::params::SkRowGather;
use crate::dtype::DType;
use crate::plan::RowGatherShape;

/// Rows of a warp's chunk: one index per lane (SK_ROWS_CHUNK in index.cu).
pub const ROWS_CHUNK: i64 = 32;
/// Warp steps whose loads a lane issues before their stores (SK_ROWS_UNROLL in index.cu).
pub const ROWS_UNROLL: i64 = 4;
/// Chunks the grid gives each warp (the last warps fewer): all but the first of them find
/// their indices loaded while the chunk before moves.
pub const ROWS_CHUNKS_PER_WARP: i64 = 4;
/// Rows a warp of the row gather moves over the launch.
pub const ROWS_PER_WARP: i64 = ROWS_CHUNK * ROWS_CHUNKS_PER_WARP;

/// Lanes that move one row of `row_len` words (index.cu: `lanes`): the power of two at
/// least the row's words, at most 32.
pub const fn row_lanes(row_len: i64) -> i64 {
    let mut lanes = 1;
    while lanes < 32 && lanes < row_len {
        lanes *= 2;
    }
    lanes
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
        let launch = |s: RowGatherShape, width: usize| {
            let warps = (BLOCK / 32) as i64;
            GpuLaunch {
                kernel: KernelId::rows(width, index64),
                grid: (blocks_for(s.num_rows, warps * ROWS_PER_WARP), 1, 1),
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
            }
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
