//! Row gathers that reach every path of index.cu's sk_rows_body (shared by
//! tests/kernel_emulation.rs, tests/kernel_model.rs and tests/gpu_kernels.rs): rows of 1 to
//! 70 words (one lane, several rows packed per warp step, a whole warp, more than 32
//! words), row counts below, at and past a chunk of 32 and past a block's 1024, bad indices
//! (negative and past the source) among good ones, destination gaps and offsets, and
//! launches on the plan's grid and on one block (every warp walking several chunks, each
//! loading the next one's indices ahead).

#![allow(dead_code)]

use crate::common::{POISON, Rng, random_bytes};
use stridekit::DType;
use stridekit::backend::cuda::{GpuLaunch, LaunchParams, RowGatherPlan};
use stridekit::plan::RowGatherShape;

/// One gather: what the kernels must write (rows with a bad index left poisoned) and
/// whether the error flag must be set.
pub struct RowCase {
    pub what: String,
    pub dtype: DType,
    pub shape: RowGatherShape,
    pub src: Vec<u8>,
    pub idx: Vec<i64>,
    pub want: Vec<u8>,
    pub flag: bool,
}

impl RowCase {
    pub fn index_bytes(&self, index64: bool) -> Vec<u8> {
        crate::common::index_bytes(&self.idx, index64)
    }

    /// The launches to run: the plan's narrow and wide ones, each on its own grid and on
    /// one block.
    pub fn launches(&self, index64: bool) -> Vec<GpuLaunch> {
        let plan = RowGatherPlan::new(self.dtype, self.shape, index64);
        [Some(plan.narrow), plan.wide.map(|w| w.0)]
            .into_iter()
            .flatten()
            .flat_map(|l| {
                let one = GpuLaunch {
                    grid: (1, 1, 1),
                    ..l
                };
                if l.grid.0 > 1 { vec![l, one] } else { vec![l] }
            })
            .collect()
    }
}

pub fn params_of(l: &GpuLaunch) -> stridekit::backend::cuda::params::SkRowGather {
    match l.params {
        LaunchParams::Rows(p) => p,
        other => panic!("{other:?}"),
    }
}

/// The cases: every dtype width, row lengths in elements chosen so that the element-width
/// and widened launches see 1, 2, 3, 5, 8, 16, 17, 32, 33 and 70 words, and `counts` rows.
pub fn row_cases(rng: &mut Rng, counts: &[i64]) -> Vec<RowCase> {
    let mut cases = Vec::new();
    let dtypes = [DType::U8, DType::F16, DType::F32, DType::F64];
    let mut n = 0;
    for dt in dtypes {
        let per16 = (16 / dt.itemsize()) as i64;
        let lens = [1, 2, 3, 5, 8, 16, 17, 32, 33, 70]
            .into_iter()
            .flat_map(|w| [w, w * per16]);
        for row_len in lens {
            for &num in counts {
                n += 1;
                let rows = rng.range(1, 40);
                let offset = [0, per16][n % 2];
                let shape = RowGatherShape {
                    num_rows: num,
                    row_len,
                    src_rows: rows,
                    src_row_stride: row_len + [0, per16][n / 2 % 2],
                    dst_row_stride: row_len + [0, per16, 1][n % 3],
                    src_offset: offset,
                    dst_offset: [0, per16][n / 3 % 2],
                };
                let src_len = (shape.src_offset + rows * shape.src_row_stride) as usize;
                let src = random_bytes(rng, src_len, dt, dt);
                // Every third case has bad indices: negative and past the source's rows.
                let bad = n % 3 == 0;
                let idx: Vec<i64> = (0..num)
                    .map(|_| match rng.range(0, 19) {
                        0 if bad => -rng.range(1, 3),
                        1 if bad => rows + rng.range(0, 2),
                        _ => rng.range(0, rows - 1),
                    })
                    .collect();
                let w = dt.itemsize();
                let dst_len = (shape.dst_offset + num * shape.dst_row_stride) as usize * w;
                let mut want = vec![POISON; dst_len];
                let mut flag = false;
                for (r, &ix) in idx.iter().enumerate() {
                    if !(0..rows).contains(&ix) {
                        flag = true;
                        continue;
                    }
                    let s = (shape.src_offset + ix * shape.src_row_stride) as usize * w;
                    let d = (shape.dst_offset + r as i64 * shape.dst_row_stride) as usize * w;
                    let len = row_len as usize * w;
                    want[d..d + len].copy_from_slice(&src[s..s + len]);
                }
                cases.push(RowCase {
                    what: format!("rows {n}: {dt} {shape:?}"),
                    dtype: dt,
                    shape,
                    src,
                    idx,
                    want,
                    flag,
                });
            }
        }
    }
    cases
}
