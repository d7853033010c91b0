//! Copies whose innermost run is contiguous on both sides but starts off the sector grid
//! (gather_scatter.cu sk_realign_*, backend/cuda/realign.rs; shared by
//! tests/kernel_emulation.rs, tests/kernel_model.rs and tests/gpu_kernels.rs): runs of 1 to
//! 385 words (below the plan's 128-word threshold too, where the copy kernels keep them),
//! source and destination offsets at every residue mod 8 words and at several places in
//! the 32-word chunk, 4- and 8-byte words (and 2-byte elements that widen to 4-byte words),
//! gathers (contiguous destination), scatters (contiguous source) and copies strided on
//! both sides, one to a dozen runs, rank 2 and 3.

#![allow(dead_code)]

use crate::common::{Rng, random_bytes, storage_len};
use stridekit::{DType, Layout};

/// One copy: the source view over `bytes` and the destination layout, of `dtype`.
pub struct RealignCase {
    pub what: String,
    pub dtype: DType,
    pub bytes: Vec<u8>,
    pub src: Layout,
    pub dst: Layout,
}

/// Run lengths in words: below the plan's 128 (kernel_emulation also runs these through
/// the realigning kernel directly), at and past it, past several batches of 4 chunks.
pub const RUNS: [i64; 16] = [
    1, 7, 31, 32, 33, 65, 100, 127, 128, 129, 150, 191, 200, 257, 300, 385,
];

/// The cases: for each run length and each pair of offset residues (mod 8: all 64 pairs
/// for a few lengths, 8 pairs covering each residue on both sides for the others), a
/// dtype of 4 or 8 bytes (every fourth a 2-byte one at even offsets, which widens), a
/// layout (gather, scatter, strided, rank 3) and a run count.
pub fn realign_cases(rng: &mut Rng) -> Vec<RealignCase> {
    let mut out = Vec::new();
    let mut n = 0u64;
    for &run in &RUNS {
        let all = [33, 129, 257].contains(&run);
        for so in 0..8i64 {
            let dos: Vec<i64> = if all {
                (0..8).collect()
            } else {
                vec![(so * 3 + run) % 8]
            };
            for d in dos {
                n += 1;
                let dtype = match n % 8 {
                    0 | 3 | 5 => DType::F64,
                    6 => DType::F16,
                    _ => DType::F32,
                };
                let k = if dtype == DType::F16 { 2 } else { 1 };
                // Offsets at `so` / `d` words (of 4 or 8 bytes) and a random place among
                // the 32-word chunk's sectors.
                let s_off = k * (so + 8 * rng.range(0, 3));
                let d_off = k * (d + 8 * rng.range(0, 3));
                let len = k * run;
                let rows = rng.range(1, 12);
                let gap = k * rng.range(1, 9);
                let shape = n % 4;
                let (src, dst) = match shape {
                    // Gather: a narrowed source, contiguous destination.
                    0 | 1 => (
                        Layout::new(&[rows, len], &[len + gap, 1], s_off).unwrap(),
                        Layout::new(&[rows, len], &[len, 1], d_off).unwrap(),
                    ),
                    // Scatter: contiguous source into a narrowed destination.
                    2 => (
                        Layout::new(&[rows, len], &[len, 1], s_off).unwrap(),
                        Layout::new(&[rows, len], &[len + gap, 1], d_off).unwrap(),
                    ),
                    // Strided on both sides, rank 3 (the outer dimension reversed in order).
                    _ => {
                        let a = rng.range(1, 3);
                        let row = len + gap;
                        (
                            Layout::new(&[a, rows, len], &[rows * row, row, 1], s_off).unwrap(),
                            Layout::new(&[a, rows, len], &[len + k, a * (len + k), 1], d_off)
                                .unwrap(),
                        )
                    }
                };
                let bytes = random_bytes(rng, storage_len(&src), dtype, dtype);
                out.push(RealignCase {
                    what: format!("realign case {n}: run {run}, offsets {s_off} -> {d_off}"),
                    dtype,
                    bytes,
                    src,
                    dst,
                });
            }
        }
    }
    out
}
