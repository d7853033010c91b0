//! The model's random-permutation suite: [`RANDOM_CASES`] permutations of ranks 2 to 7 over
//! every element width (int8, float16, float32, float64), sizes spread around the rank-th
//! root of about 2^26 elements, in the manner of the bench suite's fp32 ones.

use crate::bench::cases::{Case, Format, Op, Step, dims_x, random_permutation, random_shape};
use crate::dtype::DType;
use crate::rng::SplitMix64;

/// Cases in the model's random suite.
pub const RANDOM_CASES: usize = 204;
const LOG2_ELEMENTS: f64 = 26.0;
const DTYPES: [DType; 4] = [DType::I8, DType::F16, DType::F32, DType::F64];

/// `count` random permutations, rank 2 + (i % 6), width DTYPES[(i / 6) % 4], from `seed`.
pub fn random_suite(count: usize, seed: u64) -> Vec<Case> {
    let mut rng = SplitMix64(seed ^ 0x6d6f_6465_6c00_0000);
    (0..count)
        .map(|i| {
            let rank = 2 + i % 6;
            let dtype = DTYPES[(i / 6) % DTYPES.len()];
            let shape = random_shape(&mut rng, rank, LOG2_ELEMENTS);
            let dims = random_permutation(&mut rng, rank);
            let perm: String = dims.iter().map(|d| d.to_string()).collect();
            Case {
                case: format!("model_r{rank}_{dtype}_{}_p{perm}", dims_x(&shape)),
                dtype,
                shape,
                input_format: Format::Contiguous,
                op: Op::Copy {
                    steps: vec![Step::Permute { dims }],
                    output: Format::Contiguous,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_and_width_is_covered_and_seeded() {
        let s = random_suite(RANDOM_CASES, 42);
        assert_eq!(s, random_suite(RANDOM_CASES, 42));
        assert_ne!(s, random_suite(RANDOM_CASES, 7));
        for rank in 2..=7 {
            for d in DTYPES {
                let n = s
                    .iter()
                    .filter(|c| c.shape.len() == rank && c.dtype == d)
                    .count();
                assert!(n >= 8, "rank {rank} {d}: {n}");
            }
        }
        for c in &s {
            let n: i64 = c.shape.iter().product();
            assert!(
                (n as f64).log2() > 25.0 && (n as f64).log2() < 27.0,
                "{}",
                c.case
            );
            c.work().unwrap();
        }
    }
}
