//! The AVX2 blocks of [`super::staged`]'s whole-line tiles: 32-byte registers in place of
//! the 16-byte SSE2 blocks of [`super::segment`], and the stage's lines streamed with two
//! 32-byte non-temporal stores inlined into the loop (not through a function pointer).
//!
//! A block is `2B` source rows of 16 bytes (`B` lanes of `T`'s width, `B = 16 / width`):
//! rows `j` and `j + B` share a register (its low and high 128-bit halves), and the SSE2
//! block's `log2(B)` rounds of lane interleaves run on both halves at once (the AVX2
//! `vpunpckl/h*` interleave within each half). Register `i` then holds lane `i` of rows
//! `0..B` (low half) and of rows `B..2B` (high half): 32 contiguous bytes of destination
//! row `i`, stored at once. One generic body for every width, as the SSE2 block.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::marker::PhantomData;

use super::isa;
use super::lines::Corner;
use super::staged::{self, Stager};

/// Whether the CPU has AVX2 and the cap allows it (detected once per process).
pub(super) fn available() -> bool {
    cfg!(target_arch = "x86_64") && isa::features().avx2
}

/// Whether [`tile`] moves elements of `width` bytes: with AVX2, but for 2-byte elements,
/// which stay on the SSE2 blocks (in groups of parts; [`staged::GROUP_MAX`]). The AVX2
/// blocks of 2 bytes (16 row addresses a block; the compiled loop spilled them to the
/// stack) measured at 1 GiB under `STRIDEKIT_CPU_CAPABILITY=avx2`, 1 thread, share of the
/// same run's memcpy rate, SSE2 blocks in groups -> AVX2 blocks: the f16 transpose 41-54%
/// -> 34-46%, NHWC -> NCHW f16 65-68% -> 31-33% (session 23).
pub(super) fn serves(width: usize) -> bool {
    available() && width != 2
}

/// [`staged::tile`] with the AVX2 blocks, for elements of `T`'s width in SSE2 blocks of
/// `B` lanes (`B * width == 16`; any other `B` moves nothing: `(0, 0)`).
///
/// # Safety
/// As [`staged::tile`]; the CPU has AVX2 ([`available`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tile<T, const B: usize>(
    d: *mut u8,
    s: *const u8,
    c: Corner,
) -> (usize, usize) {
    if B * size_of::<T>() != 16 {
        return (0, 0);
    }
    let x = Ymm::<T, B>(PhantomData);
    // SAFETY: forwarded; the block moves exactly the block it is given; the CPU has AVX2,
    // and the blocks (inlined here) are compiled with it.
    unsafe { staged::tile(&x, d, s, c) }
}

/// Off x86-64 there is no AVX2 ([`available`] is false): never called.
///
/// # Safety
/// None needed.
#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn tile<T, const B: usize>(
    _: *mut u8,
    _: *const u8,
    _: Corner,
) -> (usize, usize) {
    (0, 0)
}

/// [`Stager`] with 32-byte registers.
struct Ymm<T, const B: usize>(PhantomData<T>);

#[cfg(target_arch = "x86_64")]
impl<T, const B: usize> Stager for Ymm<T, B> {
    const WIDTH: usize = size_of::<T>();
    const LANES: usize = B;
    const DEPTH: usize = 2 * B;

    const GROUP: usize = staged::GROUP_MAX;
    type Stage = staged::Pages<{ staged::GROUP_MAX }>;

    #[inline(always)]
    unsafe fn block(&self, d: *mut u8, s: *const u8, da: isize, sb: isize) {
        // Plain loops, not closures: a closure would not share the caller's features.
        // SAFETY: the caller (`tile`, compiled with AVX2) has AVX2; every row read is 16
        // bytes inside the block, every row written 32 bytes inside it.
        unsafe {
            let mut r = [_mm256_setzero_si256(); B];
            for (j, v) in r.iter_mut().enumerate() {
                let lo = _mm_loadu_si128(s.offset(j as isize * sb) as *const __m128i);
                let hi = _mm_loadu_si128(s.offset((j + B) as isize * sb) as *const __m128i);
                *v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            }
            let mut round = 1;
            while round < B {
                let mut next = r;
                for (k, v) in next.iter_mut().enumerate() {
                    let (x, y) = (r[k / 2], r[k / 2 + B / 2]);
                    *v = match (size_of::<T>(), k % 2) {
                        (1, 0) => _mm256_unpacklo_epi8(x, y),
                        (1, _) => _mm256_unpackhi_epi8(x, y),
                        (2, 0) => _mm256_unpacklo_epi16(x, y),
                        (2, _) => _mm256_unpackhi_epi16(x, y),
                        (4, 0) => _mm256_unpacklo_epi32(x, y),
                        (4, _) => _mm256_unpackhi_epi32(x, y),
                        (_, 0) => _mm256_unpacklo_epi64(x, y),
                        (_, _) => _mm256_unpackhi_epi64(x, y),
                    };
                }
                r = next;
                round *= 2;
            }
            for (i, v) in r.into_iter().enumerate() {
                _mm256_storeu_si256(d.offset(i as isize * da) as *mut __m256i, v);
            }
        }
    }

    fn dense(&self) -> bool {
        Self::WIDTH == 1
    }

    #[inline(always)]
    unsafe fn copy_line(&self, d: *mut u8, s: *const u8) {
        // SAFETY: the caller's lines; the caller has AVX2.
        unsafe {
            let (p, q) = (s as *const __m256i, d as *mut __m256i);
            let (a, b) = (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)));
            _mm256_store_si256(q, a);
            _mm256_store_si256(q.add(1), b);
        }
    }

    #[inline(always)]
    unsafe fn line(&self, d: *mut u8, s: *const u8) {
        // SAFETY: the caller's line, `d` 64-byte aligned; the caller has AVX2.
        unsafe {
            let (p, q) = (s as *const __m256i, d as *mut __m256i);
            let (a, b) = (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)));
            _mm256_stream_si256(q, a);
            _mm256_stream_si256(q.add(1), b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::contiguous::store_fence;
    use super::super::layers::Layers;
    use super::super::lines::LINE;
    use super::*;

    /// [`tile`] for `T` against a plain transpose: parts along `a` under and over
    /// [`staged::GROUP_MAX`] (groups of one and of four), bands along `b` in one partial
    /// group, in whole groups and with a partial last group, partial parts at both edges,
    /// destination rows on the line grid (from a line or not) and off it.
    fn corners_match_a_plain_transpose<T, const B: usize>() {
        let w = size_of::<T>();
        let e = LINE / w;
        for (parts, bands) in [(2, 3), (5, 4), (5, 6), (4, 9)] {
            let (na, nb) = (parts * e + 3, bands * e + 5);
            // Source: element (i, j) at i*w + j*sb.
            let sb = (na * w + 40) as isize;
            let src: Vec<u8> = (0..sb as usize * nb)
                .map(|v| (v * 7 + v / 251) as u8)
                .collect();
            let grid = (nb * w).next_multiple_of(LINE) + LINE;
            for (da, skew) in [(grid, 0), (grid, w), (grid + 3 * w, 0), (grid + w, 5 * w)] {
                let mut buf = vec![0u8; da * na + 2 * LINE];
                let base = buf.as_ptr().align_offset(LINE) + skew;
                let c = Corner {
                    na,
                    nb,
                    da: da as isize,
                    sb,
                    layers: Layers::ONE,
                };
                // SAFETY: every element of the corner is inside `src` and `buf` (the
                // extents above); nothing else writes `buf`; the CPU has AVX2.
                let (fa, fb) = unsafe {
                    let moved = tile::<T, B>(buf.as_mut_ptr().add(base), src.as_ptr(), c);
                    store_fence();
                    moved
                };
                assert_eq!((fa, fb), (parts * e, bands * e), "width {w}");
                for i in 0..na {
                    for j in 0..nb {
                        let at = base + i * da + j * w;
                        let from = j * sb as usize + i * w;
                        let want = if i < fa && j < fb {
                            &src[from..from + w]
                        } else {
                            &[0u8; 8][..w]
                        };
                        let got = &buf[at..at + w];
                        assert_eq!(
                            got, want,
                            "width {w} {parts}x{bands} da {da} skew {skew} ({i}, {j})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn staged_ymm_corners_of_every_width_match_a_plain_transpose() {
        if !available() {
            return;
        }
        corners_match_a_plain_transpose::<u8, 16>();
        corners_match_a_plain_transpose::<u16, 8>();
        corners_match_a_plain_transpose::<u32, 4>();
        corners_match_a_plain_transpose::<u64, 2>();
    }
}
