//! Transposes whose destination rows are shorter than a sector and follow each other
//! (permute.cu sk_tilen_*, backend/cuda/narrow.rs; shared by tests/kernel_emulation.rs and
//! tests/kernel_model.rs): n_a = 3, 5, 7 rows of 4-byte elements and 3 of 8-byte ones into
//! [N, n_a] destinations, N from 2 words (rows shorter than a warp's 32 words) past several
//! tiles (an edge tile of one word), padded source rows, source and destination offsets at
//! multiples of 16 bytes, and batches (channels_last: [n, C, hw] -> [n, hw, C]) with
//! padded batch strides. A few cases the plan keeps on the scalar tile (an offset off the
//! 16-byte grid, an even n_a) run too. Each case also runs mirrored (sk_tilem_*: source
//! rows of n_a elements into destination rows of N).

#![allow(dead_code)]

use crate::common::{Rng, random_bytes, storage_len};
use stridekit::{DType, Layout};

/// One copy: the source view over `bytes` and the destination layout, of `dtype`.
pub struct NarrowCase {
    pub what: String,
    pub dtype: DType,
    pub bytes: Vec<u8>,
    pub src: Layout,
    pub dst: Layout,
    /// Whether the plan should take the narrow tile or its mirror (16-byte-aligned bases).
    pub narrow: bool,
}

/// Columns N in 16-byte words (times V elements): short rows, a warp's 32 words, the
/// f32 tile's 128 words (512 elements for n_a = 7) and one more, several tiles.
const WORDS: [i64; 9] = [2, 5, 31, 32, 33, 128, 129, 300, 700];

pub fn narrow_cases(rng: &mut Rng) -> Vec<NarrowCase> {
    let mut out = Vec::new();
    let mut n = 0;
    for (dtype, rows) in [
        (DType::F32, &[3i64, 5, 7][..]),
        (DType::F64, &[3][..]),
        (DType::F32, &[6][..]),
    ] {
        let v = (16 / dtype.itemsize()) as i64;
        for &na in rows {
            for &words in &WORDS {
                n += 1;
                let nb = words * v;
                // Offsets and paddings in 16-byte words (one case in 5 off the grid).
                let off = n % 5 == 4;
                let s_off = v * rng.range(0, 3) + off as i64;
                let d_off = v * rng.range(0, 2);
                let row = nb + v * rng.range(0, 2);
                let batch = if n % 3 == 0 { rng.range(2, 4) } else { 1 };
                let bgap = v * rng.range(0, 2);
                // Source [batch, na, nb] (rows of `row`), viewed [batch, nb, na]; the
                // destination [batch, nb, na] row-major from d_off (batch stride padded).
                let sb = na * row + bgap;
                let src = Layout::new(&[batch, nb, na], &[sb, 1, row], s_off).unwrap();
                let db = na * nb + bgap;
                let dst = Layout::new(&[batch, nb, na], &[db, na, 1], d_off).unwrap();
                let bytes = random_bytes(rng, storage_len(&src), dtype, dtype);
                out.push(NarrowCase {
                    what: format!(
                        "narrow case {n}: {dtype} {batch} x {na} x {nb}, row {row}, offsets {s_off} -> {d_off}"
                    ),
                    dtype,
                    bytes,
                    src,
                    dst,
                    narrow: !off && na % 2 == 1,
                });
                // The mirror (sk_tilem_*): source [batch, nb, na] (rows of na elements
                // that follow each other), destination [batch, na, nb] (rows of `row`).
                let sb = na * nb + bgap;
                let src = Layout::new(&[batch, na, nb], &[sb, 1, na], s_off).unwrap();
                let db = na * row + bgap;
                let dst = Layout::new(&[batch, na, nb], &[db, row, 1], d_off).unwrap();
                let bytes = random_bytes(rng, storage_len(&src), dtype, dtype);
                out.push(NarrowCase {
                    what: format!(
                        "mirror case {n}: {dtype} {batch} x {nb} x {na}, row {row}, offsets {s_off} -> {d_off}"
                    ),
                    dtype,
                    bytes,
                    src,
                    dst,
                    narrow: !off && na % 2 == 1,
                });
            }
        }
    }
    out
}
