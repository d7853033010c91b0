//! Seeded pseudo-random numbers: splitmix64 for the bench suite's shapes, permutations and
//! input data and for `torch.rand`-style tensors (`Tensor::random`, explain's generators),
//! and a seeded bijection that picks distinct random rows for the row gather. It imports
//! nothing of the crate, so every layer may use it (`bench::rng` re-exports it).
//!
//! Both are tiny and fully specified here, so `scripts/compare_torch.py` reproduces the
//! row indices bit for bit (its `gather_index` mirrors [`distinct_rows`]).

/// splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, one output per step.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (n > 0); the modulo bias is below 2^-40 for the n used here.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Odd multipliers of the row bijection (splitmix64's constants, all odd).
const MIX: [u64; 3] = [
    0x9E37_79B9_7F4A_7C15,
    0xBF58_476D_1CE4_E5B9,
    0x94D0_49BB_1331_11EB,
];

/// A bijection of `0..2^bits` keyed by `seed`: three rounds of xor with a seed word,
/// multiplication by an odd constant and an xorshift, each invertible modulo 2^bits.
pub fn mix_bits(i: u64, bits: u32, seed: u64) -> u64 {
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let shift = (bits / 2).max(1);
    let mut x = i & mask;
    for (r, m) in MIX.iter().enumerate() {
        x ^= (seed >> (20 * r)) & mask;
        x = x.wrapping_mul(*m) & mask;
        x ^= x >> shift;
    }
    x
}

/// `count` distinct row numbers below `rows`, in a random-looking order: the images of
/// 0, 1, 2, ... under [`mix_bits`] on the next power of two, cycle-walked into `0..rows`.
/// `count` must not exceed `rows`.
pub fn distinct_rows(count: i64, rows: i64, seed: u64) -> Vec<i64> {
    debug_assert!(count <= rows && rows > 0);
    let bits = 64 - (rows as u64 - 1).leading_zeros();
    (0..count as u64)
        .map(|i| {
            let mut x = mix_bits(i, bits, seed);
            while x >= rows as u64 {
                x = mix_bits(x, bits, seed);
            }
            x as i64
        })
        .collect()
}

/// `n` elements of `width` bytes of random data in which no element is all zero bytes or
/// equals `poison` repeated (so a missed write can never look right).
pub fn element_data(n: usize, width: usize, seed: u64, poison: u8) -> Vec<u8> {
    let mut rng = SplitMix64(seed);
    let mut out = vec![0u8; n * width];
    for chunk in out.chunks_mut(8) {
        let w = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&w[..chunk.len()]);
    }
    for e in out.chunks_mut(width) {
        if e.iter().all(|&b| b == 0) || e.iter().all(|&b| b == poison) {
            e[0] = 0x5A;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs for seed 0, as published with the algorithm.
        let mut r = SplitMix64(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn mix_is_a_bijection() {
        for bits in [1, 5, 10] {
            let n = 1u64 << bits;
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let x = mix_bits(i, bits, 42);
                assert!(!seen[x as usize]);
                seen[x as usize] = true;
            }
        }
    }

    #[test]
    fn distinct_rows_are_distinct_in_range_and_match_python() {
        let v = distinct_rows(600, 1000, 7);
        let mut s = v.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), 600);
        assert!(v.iter().all(|&r| (0..1000).contains(&r)));
        // Values printed by scripts/compare_torch.py's gather_index(8, 16384, 42).
        assert_eq!(
            distinct_rows(8, 16384, 42),
            PYTHON_GATHER_INDEX_8_16384_42.to_vec()
        );
    }

    const PYTHON_GATHER_INDEX_8_16384_42: [i64; 8] =
        [15307, 11489, 5523, 2886, 10607, 6228, 12442, 13119];

    #[test]
    fn data_avoids_zero_and_poison() {
        let d = element_data(100_000, 1, 3, 0xA5);
        assert!(d.iter().all(|&b| b != 0 && b != 0xA5));
        let d = element_data(1000, 4, 3, 0xA5);
        assert_eq!(d.len(), 4000);
        assert!(d.chunks(4).all(|e| e != [0; 4]));
    }
}
