//! Run-time divisors prepared for the kernels ([`SkDiv32`], cuda/include/params.h): the
//! host computes a multiplier and a shift per divisor so that a kernel divides by a
//! multiply-high, an add and a shift (common.cuh: sk_div) instead of a 32-bit division by a
//! run-time value (~20 SASS instructions). The method is Granlund and Montgomery's
//! division by invariant integers; params.h carries the proof of the range it is exact
//! on: divisors 1..=2^31, dividends 0..=2^31. The 64-bit index kernels take [`SkDiv64`]
//! ([`div64`], common.cuh: sk_div64): the same method with 64 for 32, exact for divisors
//! 1..=2^63 and dividends 0..=2^63, instead of a 64-bit division (a called subroutine).

use super::params::{SkDiv32, SkDiv64, SkTile};

/// The largest divisor and the largest dividend [`div32`]'s triple is exact for.
pub const MAX_DIVISOR: u32 = 1 << 31;
pub const MAX_DIVIDEND: u32 = 1 << 31;

/// The divisor `d` (1..=2^31) as the kernels take it: s = ceil(log2 d), m = ceil(2^(32+s) /
/// d) - 2^32. Panics outside that range (the plan never divides by 0 or by more).
pub fn div32(d: u32) -> SkDiv32 {
    assert!(
        (1..=MAX_DIVISOR).contains(&d),
        "div32: divisor {d} outside 1..=2^31"
    );
    let s = 32 - (d - 1).leading_zeros();
    let d64 = d as u64;
    // 2^(32+s) <= 2^63: no overflow in u64.
    let big = (1u64 << (32 + s)).div_ceil(d64);
    SkDiv32 {
        d,
        m: (big - (1u64 << 32)) as u32,
        s,
    }
}

/// The largest divisor and the largest dividend [`div64`]'s triple is exact for.
pub const MAX_DIVISOR64: u64 = 1 << 63;
pub const MAX_DIVIDEND64: u64 = 1 << 63;

/// The divisor `d` (1..=2^63) as the 64-bit index kernels take it: s = ceil(log2 d), m =
/// ceil(2^(64+s) / d) - 2^64. Panics outside that range.
pub fn div64(d: u64) -> SkDiv64 {
    assert!(
        (1..=MAX_DIVISOR64).contains(&d),
        "div64: divisor {d} outside 1..=2^63"
    );
    let s = 64 - (d - 1).leading_zeros();
    // 2^(64+s) <= 2^127: no overflow in u128.
    let big = (1u128 << (64 + s)).div_ceil(d as u128);
    SkDiv64 {
        d,
        m: (big - (1u128 << 64)) as u64,
        s,
        pad_: 0,
    }
}

/// What the 64-bit kernels compute (common.cuh: sk_div64), in the device's arithmetic.
pub fn apply64(v: &SkDiv64, n: u64) -> u64 {
    let hi = ((n as u128 * v.m as u128) >> 64) as u64;
    hi.wrapping_add(n) >> v.s
}

/// A size as a 64-bit divisor (sizes below 1 become 1, as in [`div_of`]).
fn div64_of(n: i64) -> SkDiv64 {
    div64(n.max(1) as u64)
}

/// A size of a plan as a divisor: sizes below 1 (unused entries, empty dimensions, which no
/// kernel divides by) become 1.
pub(super) fn div_of(n: i64) -> SkDiv32 {
    div32(n.clamp(1, MAX_DIVISOR as i64) as u32)
}

/// What the kernels compute (common.cuh: sk_div), in the device's 32-bit arithmetic: the
/// sum wraps as a u32 would (it cannot for dividends up to 2^31).
pub fn apply(v: &SkDiv32, n: u32) -> u32 {
    let hi = ((n as u64 * v.m as u64) >> 32) as u32;
    hi.wrapping_add(n) >> v.s
}

/// A launch's sizes as the 32-bit kernels' divisors (`size_divs` of [`SkStrided32`](super::params::SkStrided32) and
/// [`SkEw32`](super::params::SkEw32), a tile's `batch_divs`; sizes below 1 become 1).
pub fn divs32<T: Copy + Into<i64>, const N: usize>(sizes: &[T; N]) -> [SkDiv32; N] {
    sizes.map(|n| div_of(n.into()))
}

/// A launch's sizes as the 64-bit kernels' divisors (`size_divs` of [`SkStrided64`](super::params::SkStrided64) and
/// [`SkEw64`](super::params::SkEw64), a tile's `batch_divs64`; sizes below 1 become 1).
pub fn divs64<const N: usize>(sizes: &[i64; N]) -> [SkDiv64; N] {
    sizes.map(div64_of)
}

/// Sets a tile launch's divisors from its other fields. `unit`: elements per access of
/// the kernel (V = 16 / width for the 16-byte tile, 1 otherwise), which divides the tile
/// extents and the sizes of A and B there.
pub fn tile_divisors(p: &mut SkTile, unit: i64) {
    let (ta, tb) = (p.tile_a.max(1) as i64, p.tile_b.max(1) as i64);
    let edge = |n: i64, t: i64| {
        let r = n % t;
        if n > 0 && r != 0 { r } else { t }
    };
    p.div_tiles_b = div_of(p.tiles_b as i64);
    p.div_a = div_of(ta / unit);
    p.div_b = div_of(tb / unit);
    p.div_a_edge = div_of(edge(p.n_a, ta) / unit);
    p.div_b_edge = div_of(edge(p.n_b, tb) / unit);
    p.batch_divs = divs32(&p.batch_sizes);
    p.batch_divs64 = divs64(&p.batch_sizes);
}

#[cfg(test)]
mod tests {
    use super::super::params::{SkEw32, SkStrided64};
    use super::*;
    use proptest::prelude::*;

    fn check(d: u32, n: u32) {
        let v = div32(d);
        assert_eq!(apply(&v, n), n / d, "{n} / {d} (m {}, s {})", v.m, v.s);
    }

    /// Dividends around the multiples of d and at the ends of the range.
    fn edge_dividends(d: u32) -> Vec<u32> {
        let mut n = vec![
            0,
            1,
            2,
            3,
            MAX_DIVIDEND - 1,
            MAX_DIVIDEND,
            (1 << 30) - 1,
            1 << 30,
        ];
        let top = MAX_DIVIDEND / d;
        for q in [1, 2, 3, top / 2, top.saturating_sub(1), top] {
            let base = q as u64 * d as u64;
            for x in [base.wrapping_sub(1), base, base + 1] {
                if x <= MAX_DIVIDEND as u64 {
                    n.push(x as u32);
                }
            }
        }
        n
    }

    /// Both widths: d = 1 and the powers of two need no multiplier; every small quotient.
    #[test]
    fn small_values_are_exact() {
        assert_eq!((div32(1).m, div32(1).s), (0, 0));
        assert_eq!((div64(1).m, div64(1).s), (0, 0));
        for k in 0..=63 {
            if k < 32 {
                assert_eq!((div32(1 << k).m, div32(1 << k).s), (0, k));
            }
            assert_eq!((div64(1 << k).m, div64(1 << k).s), (0, k));
        }
        for d in 1..=1024u32 {
            for n in 0..=4096u32 {
                check(d, n);
                check64(d as u64, n as u64);
            }
        }
    }

    #[test]
    fn edges_are_exact() {
        let mut divisors: Vec<u32> = (0..=31)
            .flat_map(|k| {
                let p = 1u32 << k;
                [p - 1, p, p + 1]
            })
            .filter(|&d| (1..=MAX_DIVISOR).contains(&d))
            .collect();
        divisors.extend([
            3,
            5,
            6,
            7,
            24,
            224,
            641,
            6700417,
            0x7fff_ffff,
            0x7fff_fffe,
            0x5555_5555,
        ]);
        divisors.extend(1..=300);
        for d in divisors {
            for n in edge_dividends(d) {
                check(d, n);
            }
        }
    }

    #[test]
    #[should_panic]
    fn zero_is_refused() {
        div32(0);
    }

    #[test]
    fn tile_divisors_follow_the_tile() {
        let mut p = SkTile {
            n_a: 100,
            n_b: 64,
            tile_a: 32,
            tile_b: 32,
            tiles_b: 2,
            ..Default::default()
        };
        p.batch_sizes[0] = 5;
        tile_divisors(&mut p, 4);
        assert_eq!(
            (p.div_a.d, p.div_b.d, p.div_a_edge.d, p.div_b_edge.d),
            (8, 8, 1, 8)
        );
        assert_eq!(
            (p.div_tiles_b.d, p.batch_divs[0].d, p.batch_divs[1].d),
            (2, 5, 1)
        );
    }

    fn check64(d: u64, n: u64) {
        let v = div64(d);
        assert_eq!(apply64(&v, n), n / d, "{n} / {d} (m {}, s {})", v.m, v.s);
    }

    /// Divisors around the powers of two and odd ones with long magic numbers.
    fn edge_divisors64() -> Vec<u64> {
        let mut d: Vec<u64> = (0..=63)
            .flat_map(|k| {
                let p = 1u64 << k;
                [p - 1, p, p + 1]
            })
            .filter(|&d| (1..=MAX_DIVISOR64).contains(&d))
            .collect();
        d.extend([3, 5, 6, 7, 24, 224, 641, 6700417, 274177, 67280421310721]);
        d.extend([MAX_DIVISOR64 - 1, MAX_DIVISOR64 - 3, 0x5555_5555_5555_5555]);
        d.extend([
            0x7fff_ffff,
            0x8000_0001,
            u32::MAX as u64,
            1 << 32,
            (1 << 32) + 1,
        ]);
        d.extend(1..=300);
        d
    }

    #[test]
    fn edges_are_exact64() {
        for d in edge_divisors64() {
            let top = MAX_DIVIDEND64 / d;
            let mut n = vec![0, 1, 2, 3, MAX_DIVIDEND64 - 1, MAX_DIVIDEND64];
            n.extend([u32::MAX as u64, 1 << 32, (1 << 31) - 1, 1 << 31]);
            for q in [1, 2, 3, top / 2, top.saturating_sub(1), top] {
                let base = q as u128 * d as u128;
                for x in [base.wrapping_sub(1), base, base + 1] {
                    if x <= MAX_DIVIDEND64 as u128 {
                        n.push(x as u64);
                    }
                }
            }
            for n in n {
                check64(d, n);
            }
        }
    }

    #[test]
    #[should_panic]
    fn zero_is_refused64() {
        div64(0);
    }

    #[test]
    #[should_panic]
    fn past_2_63_is_refused64() {
        div64(MAX_DIVISOR64 + 1);
    }

    #[test]
    fn divs32_follow_the_sizes() {
        let mut p = SkEw32 {
            sizes: [7, 1 << 20, 1, 0, 1, 1, 1, 1],
            ..Default::default()
        };
        p.size_divs = divs32(&p.sizes);
        let d: Vec<u32> = p.size_divs.iter().map(|v| v.d).collect();
        assert_eq!(d, [7, 1 << 20, 1, 1, 1, 1, 1, 1]);
        for n in [0u32, 6, 7, 99, (1 << 31) - 1, 1 << 31] {
            assert_eq!(apply(&p.size_divs[0], n), n / 7);
        }
    }

    #[test]
    fn divs64_follow_the_sizes() {
        let mut p = SkStrided64::default();
        p.sizes[..3].copy_from_slice(&[3, 1 << 40, 0]);
        p.size_divs = divs64(&p.sizes);
        let d: Vec<u64> = p.size_divs.iter().map(|v| v.d).collect();
        assert_eq!(d, [3, 1 << 40, 1, 1, 1, 1, 1, 1]);
        let mut q = SkTile::default();
        q.batch_sizes[1] = 5_000_000_000;
        tile_divisors(&mut q, 1);
        assert_eq!(
            (q.batch_divs64[0].d, q.batch_divs64[1].d),
            (1, 5_000_000_000)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20000))]
        #[test]
        fn matches_division64(d in 1..=MAX_DIVISOR64, n in 0..=MAX_DIVIDEND64) {
            prop_assert_eq!(apply64(&div64(d), n), n / d);
        }

        #[test]
        fn matches_division64_small_divisors(d in 1u64..=1 << 20, n in 0..=MAX_DIVIDEND64) {
            prop_assert_eq!(apply64(&div64(d), n), n / d);
        }

        #[test]
        fn matches_division64_32_bit_divisors(d in 1u64..=u32::MAX as u64, n in 0..=MAX_DIVIDEND64) {
            prop_assert_eq!(apply64(&div64(d), n), n / d);
        }

        #[test]
        fn matches_division64_near_the_top(d in 1..=MAX_DIVISOR64, back in 0u64..=65536) {
            let n = MAX_DIVIDEND64 - back;
            prop_assert_eq!(apply64(&div64(d), n), n / d);
        }

        #[test]
        fn matches_division64_near_2_63_divisors(back in 0u64..=1 << 20, n in 0..=MAX_DIVIDEND64) {
            let d = MAX_DIVISOR64 - back;
            prop_assert_eq!(apply64(&div64(d), n), n / d);
        }

        #[test]
        fn matches_division64_near_multiples(d in 1..=MAX_DIVISOR64, q in 0u64..=u64::MAX, off in 0u64..=2) {
            // n = q' d + off - 1 for a quotient q' that keeps n in range.
            let q = q % (MAX_DIVIDEND64 / d + 1);
            if let Some(n) = (q * d + off).checked_sub(1).filter(|&n| n <= MAX_DIVIDEND64) {
                prop_assert_eq!(apply64(&div64(d), n), n / d);
            }
        }

        #[test]
        fn matches_division(d in 1..=MAX_DIVISOR, n in 0..=MAX_DIVIDEND) {
            prop_assert_eq!(apply(&div32(d), n), n / d);
        }

        #[test]
        fn matches_division_small_divisors(d in 1u32..=4096, n in 0..=MAX_DIVIDEND) {
            prop_assert_eq!(apply(&div32(d), n), n / d);
        }

        #[test]
        fn matches_division_near_the_top(d in 1..=MAX_DIVISOR, back in 0u32..=65536) {
            let n = MAX_DIVIDEND - back;
            prop_assert_eq!(apply(&div32(d), n), n / d);
        }
    }
}
