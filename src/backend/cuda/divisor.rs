//! Run-time divisors prepared for the kernels ([`SkDiv32`], cuda/include/params.h): the
//! host computes a multiplier and a shift per divisor so that a kernel divides by a
//! multiply-high, an add and a shift (common.cuh: sk_div) instead of a 32-bit division by a
//! run-time value (~20 SASS instructions). The method is Granlund and Montgomery's
//! division by invariant integers; params.h carries the proof of the range it is exact
//! on: divisors 1..=2^31, dividends 0..=2^31.

use super::params::{SK_MAX_RANK, SkDiv32, SkStrided32, SkTile};

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

/// A size of a plan as a divisor: sizes below 1 (unused entries, empty dimensions, which no
/// kernel divides by) become 1.
fn div_of(n: i64) -> SkDiv32 {
    div32(n.clamp(1, MAX_DIVISOR as i64) as u32)
}

/// What the kernels compute (common.cuh: sk_div), in the device's 32-bit arithmetic: the
/// sum wraps as a u32 would (it cannot for dividends up to 2^31).
pub fn apply(v: &SkDiv32, n: u32) -> u32 {
    let hi = ((n as u64 * v.m as u64) >> 32) as u32;
    hi.wrapping_add(n) >> v.s
}

/// Sets an element-wise launch's divisors (its sizes, [`SkStrided32::size_divs`]).
pub fn strided_divisors(p: &mut SkStrided32) {
    for k in 0..SK_MAX_RANK as usize {
        p.size_divs[k] = div_of(p.sizes[k] as i64);
    }
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
    for k in 0..SK_MAX_RANK as usize {
        p.batch_divs[k] = div_of(p.batch_sizes[k]);
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn small_values_are_exact() {
        assert_eq!((div32(1).m, div32(1).s), (0, 0));
        for k in 0..=31 {
            assert_eq!((div32(1 << k).m, div32(1 << k).s), (0, k));
        }
        for d in 1..=1024 {
            for n in 0..=4096 {
                check(d, n);
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20000))]
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
