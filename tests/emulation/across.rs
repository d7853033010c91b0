//! Copies whose packed tile runs across rows of the source (shared by
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
