//! Copies whose packed tile runs across rows of the source, and gathers of short kept runs
//! that take the packed tile of runs (shared by
//! tests/kernel_emulation.rs and tests/kernel_model.rs).

use crate::common::{CopyCase, Rng, random_bytes, storage_len};
use stridekit::{DType, Layout};

/// (3, y, z) permuted by (0, 2, 1) at offsets 0 and 5, y in {48, 120, 240}, z from 3 to
/// 40: group A (y) has source stride z = n_b, so its rows follow each other in the source;
/// the z whose pitch is z (by width: odd, 2 mod 4, 4 mod 8) run across them.
pub fn rows_across_cases(rng: &mut Rng, dt: DType) -> Vec<CopyCase> {
    let mut cases = Vec::new();
    for (i, (y, z)) in [48, 120, 240]
        .into_iter()
        .flat_map(|y| (3..=40).map(move |z| (y, z)))
        .enumerate()
    {
        let sizes = [3, y, z];
        let offset = [0, 5][i % 2];
        let base = Layout::new(&sizes, Layout::contiguous(&sizes).strides(), offset).unwrap();
        let src = stridekit::layout::view::permute(&base, &[0, 2, 1]).unwrap();
        cases.push(CopyCase {
            what: format!("rows across {i}: {sizes:?} offset {offset} perm [0, 2, 1]"),
            bytes: random_bytes(rng, storage_len(&base), dt, dt),
            dst: Layout::contiguous(src.sizes()),
            src,
        });
    }
    cases
}

/// Gathers that keep a short innermost run: (b, x, y, z, l) contiguous at offset 0 or 4,
/// b from 264 to 270 (the batch the packed tile of runs needs: two blocks per SM of an
/// H200), x, y, z from 2 to 6, l elements of `dt` making 8 to 64 bytes (whole 4-byte words),
/// permuted by a permutation of the middle three that keeps l innermost and moves
/// something: the plan may take the packed tile of runs (choose.rs run_tile_launch).
pub fn run_cases(rng: &mut Rng, dt: DType, count: usize) -> Vec<CopyCase> {
    let w = dt.itemsize() as i64;
    let perms: [[i64; 5]; 5] = [
        [0, 1, 3, 2, 4],
        [0, 2, 1, 3, 4],
        [0, 2, 3, 1, 4],
        [0, 3, 1, 2, 4],
        [0, 3, 2, 1, 4],
    ];
    (0..count)
        .map(|i| {
            let words = rng.range(2, 16);
            let sizes = [
                rng.range(264, 270),
                rng.range(2, 6),
                rng.range(2, 6),
                rng.range(2, 6),
                (words * 4 / w).max(1),
            ];
            let offset = [0, 4][rng.below(2) as usize];
            let base = Layout::new(&sizes, Layout::contiguous(&sizes).strides(), offset).unwrap();
            let perm = perms[rng.below(perms.len() as u64) as usize];
            let src = stridekit::layout::view::permute(&base, &perm).unwrap();
            CopyCase {
                what: format!("runs {i}: {sizes:?} offset {offset} perm {perm:?}"),
                bytes: random_bytes(rng, storage_len(&base), dt, dt),
                dst: Layout::contiguous(src.sizes()),
                src,
            }
        })
        .collect()
}

/// Copies whose packed tile starts from a divisor of each of its first two dimensions
/// (too large to take whole; packed.rs `split_start`): transposes (b, y, z) permuted by
/// (0, 2, 1) with y and z in the hundreds, and gathers (b, x, y, l) permuted by
/// (0, 2, 1, 3) keeping a run of l elements (16 to 48 bytes), at offsets 0 and 4, about a
/// million elements each (kernel_emulation and gpu_kernels; kernel_model, which includes
/// this file too, records accesses thread by thread and leaves these large cases out).
#[allow(dead_code)]
pub fn split_start_cases(rng: &mut Rng, dt: DType) -> Vec<CopyCase> {
    let square = [(240, 260), (300, 280), (200, 330), (252, 264), (180, 350)];
    let runs = [(60, 66), (90, 84), (120, 110), (66, 65), (84, 91)];
    large_tile_cases(rng, dt, square, runs)
}

/// The cases of [`split_start_cases`] and [`ragged_start_cases`]: a transpose (b, y, z) by
/// (0, 2, 1) for each `(y, z)` of `square`, then a gather (b, x, y, l) by (0, 2, 1, 3) for
/// each `(x, y)` of `runs`.
#[allow(dead_code)]
fn large_tile_cases(
    rng: &mut Rng,
    dt: DType,
    square: [(i64, i64); 5],
    runs: [(i64, i64); 5],
) -> Vec<CopyCase> {
    let w = dt.itemsize() as i64;
    let mut cases = Vec::new();
    for (i, (y, z)) in square.into_iter().enumerate() {
        let sizes = [(1_000_000 / (y * z)).max(2), y, z];
        cases.push(permuted_case(rng, dt, &sizes, &[0, 2, 1], i));
    }
    for (i, (x, y)) in runs.into_iter().enumerate() {
        let l = (rng.range(4, 12) * 4 / w).max(1);
        let sizes = [(600_000 / (x * y * l)).max(1), x, y, l];
        cases.push(permuted_case(
            rng,
            dt,
            &sizes,
            &[0, 2, 1, 3],
            i + square.len(),
        ));
    }
    cases
}

/// Like [`split_start_cases`], but the two large dimensions are primes (or have no
/// divisor that makes a good tile), so a split start needs a ragged last chunk
/// (packed.rs `split_start`, permute.cu's masked last chunk).
#[allow(dead_code)]
pub fn ragged_start_cases(rng: &mut Rng, dt: DType) -> Vec<CopyCase> {
    let square = [(251, 263), (307, 281), (211, 331), (257, 269), (193, 347)];
    let runs = [(61, 67), (89, 83), (127, 109), (67, 71), (83, 97)];
    large_tile_cases(rng, dt, square, runs)
}

#[allow(dead_code)]
fn permuted_case(rng: &mut Rng, dt: DType, sizes: &[i64], perm: &[i64], i: usize) -> CopyCase {
    let offset = [0, 4][i % 2];
    let base = Layout::new(sizes, Layout::contiguous(sizes).strides(), offset).unwrap();
    let src = stridekit::layout::view::permute(&base, perm).unwrap();
    CopyCase {
        what: format!("split start {i}: {sizes:?} offset {offset} perm {perm:?}"),
        bytes: random_bytes(rng, storage_len(&base), dt, dt),
        dst: Layout::contiguous(src.sizes()),
        src,
    }
}
