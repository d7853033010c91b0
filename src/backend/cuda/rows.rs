//! The row gather's launch (cuda/index.cu sk_rows_*): index_select / embedding lookups
//! along dim 0, in element-width words and, where rows, strides and offsets allow, wider
//! ones (needs no GPU).

use super::choose::{BLOCK, GpuLaunch, LaunchParams, ROWS_PER_WARP, blocks_for};
use super::kernels::KernelId;
use super::params::SkRowGather;
use crate::dtype::DType;
use crate::plan::RowGatherShape;

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
