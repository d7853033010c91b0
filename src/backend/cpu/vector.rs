//! Vectorised float32 <-> float16/bfloat16 slice conversions, bit for bit those of
//! `half::f16::from_f32` / `bf16::from_f32` (and back) that the reference's [`Scalar`] uses.
//!
//! On x86-64 with AVX2 and F16C (detected at run time, once, by std) float16 goes through
//! `vcvtps2ph`/`vcvtph2ps` eight lanes at a time (sixteen where the CPU has AVX-512 F), float32 -> bfloat16 is half's rounding
//! written branch-free in AVX2 registers (eight lanes, NaNs blended in; sixteen in AVX-512 F
//! registers where the CPU has them) and bfloat16 ->
//! float32 a loop compiled for AVX2 or AVX-512 F (the compiler vectorises the shift); the
//! sixteen-lane forms measured, on the development Xeon, one thread, a slice in L1 converted
//! again and again in one process (session 16), 256 elements (the tiles' staged chunks):
//! f32 -> f16 19 -> 15 ns, f16 -> f32 22 -> 16-17 ns, bf16 -> f32 40 -> 25 ns; 4096
//! elements 1.1-1.6x faster; 1 Mi elements (4 MiB, past L2) alike. Elsewhere the same loops run as
//! compiled for the baseline target. The F16C instructions round to nearest even and keep
//! NaN payloads exactly as `half`'s software conversion (tests/cpu_fast_paths.rs checks
//! random bit patterns, NaNs included, against the reference).
//!
//! [`Scalar`]: crate::scalar::Scalar

use half::{bf16, f16};

#[cfg(target_arch = "x86_64")]
use super::isa;

/// `dst[i] = f16::from_f32(src[i])`.
pub(super) fn f32_to_f16(src: &[f32], dst: &mut [f16]) {
    #[cfg(target_arch = "x86_64")]
    if isa::features().avx512f && isa::features().f16c {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { x86::f32_to_f16_x16(src, dst) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa::features().f16c {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { x86::f32_to_f16(src, dst) };
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d = f16::from_f32(*s);
    }
}

/// `dst[i] = src[i].to_f32()`.
pub(super) fn f16_to_f32(src: &[f16], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if isa::features().avx512f && isa::features().f16c {
        // SAFETY: as above.
        return unsafe { x86::f16_to_f32_x16(src, dst) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa::features().f16c {
        // SAFETY: as above.
        return unsafe { x86::f16_to_f32(src, dst) };
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.to_f32();
    }
}

/// `dst[i] = bf16::from_f32(src[i])`.
pub(super) fn f32_to_bf16(src: &[f32], dst: &mut [bf16]) {
    #[cfg(target_arch = "x86_64")]
    if isa::features().avx512f {
        // SAFETY: as above.
        return unsafe { x86::f32_to_bf16_x16(src, dst) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa::features().avx2 {
        // SAFETY: as above.
        return unsafe { x86::f32_to_bf16(src, dst) };
    }
    f32_to_bf16_loop(src, dst);
}

/// `dst[i] = src[i].to_f32()`.
pub(super) fn bf16_to_f32(src: &[bf16], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if isa::features().avx512f {
        // SAFETY: as above.
        return unsafe { x86::bf16_to_f32_x16(src, dst) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa::features().avx2 {
        // SAFETY: as above.
        return unsafe { x86::bf16_to_f32(src, dst) };
    }
    bf16_to_f32_loop(src, dst);
}

#[inline(always)]
fn f32_to_bf16_loop(src: &[f32], dst: &mut [bf16]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = bf16::from_f32(*s);
    }
}

#[inline(always)]
fn bf16_to_f32_loop(src: &[bf16], dst: &mut [f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.to_f32();
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use half::{bf16, f16};
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU has AVX and F16C.
    #[target_feature(enable = "avx,f16c")]
    pub unsafe fn f32_to_f16(src: &[f32], dst: &mut [f16]) {
        let n = src.len().min(dst.len());
        let full = n / 8 * 8;
        for i in (0..full).step_by(8) {
            // SAFETY: lanes i..i+8 are inside both slices; unaligned loads and stores.
            unsafe {
                let v = _mm256_loadu_ps(src.as_ptr().add(i));
                let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
                _mm_storeu_si128(dst.as_mut_ptr().add(i) as *mut __m128i, h);
            }
        }
        for i in full..n {
            dst[i] = f16::from_f32(src[i]);
        }
    }

    /// # Safety
    /// The CPU has AVX and F16C.
    #[target_feature(enable = "avx,f16c")]
    pub unsafe fn f16_to_f32(src: &[f16], dst: &mut [f32]) {
        let n = src.len().min(dst.len());
        let full = n / 8 * 8;
        for i in (0..full).step_by(8) {
            // SAFETY: as above.
            unsafe {
                let h = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
                _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
            }
        }
        for i in full..n {
            dst[i] = src[i].to_f32();
        }
    }

    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn f32_to_bf16(src: &[f32], dst: &mut [bf16]) {
        // half's rounding without its branches, 8 lanes: NaN keeps the high half with the
        // quiet bit set; anything else rounds to nearest even, (x + 0x7FFF + bit 16) >> 16
        // (the carry out of the low half is exactly half's round-up condition).
        let n = src.len().min(dst.len());
        let full = n / 8 * 8;
        // SAFETY (constants): plain register operations.
        let (abs, inf, low, one, quiet) = (
            _mm256_set1_epi32(0x7FFF_FFFF),
            _mm256_set1_epi32(0x7F80_0000),
            _mm256_set1_epi32(0x7FFF),
            _mm256_set1_epi32(1),
            _mm256_set1_epi32(0x40),
        );
        // Register operations only (the closure has the function's AVX2).
        let round = |x: __m256i| {
            let hi = _mm256_srli_epi32::<16>(x);
            let nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, abs), inf);
            let up = _mm256_add_epi32(_mm256_add_epi32(x, low), _mm256_and_si256(hi, one));
            _mm256_blendv_epi8(_mm256_srli_epi32::<16>(up), _mm256_or_si256(hi, quiet), nan)
        };
        // 16 lanes a step: the two halves' results packed and stored together.
        let pairs = n / 16 * 16;
        for i in (0..pairs).step_by(16) {
            // SAFETY: lanes i..i+16 are inside both slices; unaligned loads and stores.
            unsafe {
                let p = src.as_ptr().add(i) as *const __m256i;
                let (a, b) = (
                    round(_mm256_loadu_si256(p)),
                    round(_mm256_loadu_si256(p.add(1))),
                );
                // Every lane is under 0x10000: the unsigned-saturating pack keeps it. The
                // pack interleaves the halves' 128-bit lanes; the permute restores order.
                let packed = _mm256_permute4x64_epi64::<0b1101_1000>(_mm256_packus_epi32(a, b));
                _mm256_storeu_si256(dst.as_mut_ptr().add(i) as *mut __m256i, packed);
            }
        }
        for i in (pairs..full).step_by(8) {
            // SAFETY: lanes i..i+8 are inside both slices; unaligned loads and stores.
            unsafe {
                let r = round(_mm256_loadu_si256(src.as_ptr().add(i) as *const __m256i));
                let packed = _mm256_permute4x64_epi64::<0b1000>(_mm256_packus_epi32(r, r));
                _mm_storeu_si128(
                    dst.as_mut_ptr().add(i) as *mut __m128i,
                    _mm256_castsi256_si128(packed),
                );
            }
        }
        super::f32_to_bf16_loop(&src[full..n], &mut dst[full..n]);
    }

    /// [`f32_to_bf16`] 16 lanes at a time: the same rounding, the NaN lanes chosen by a
    /// mask, narrowed by `vpmovdw` (every lane is under 0x10000). At 1 GiB the 8-lane loop
    /// was 1.03x / 1.10x torch's time at 1 / 2 threads (docs/cpu.md, session 14).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and AVX2 (the tail).
    #[target_feature(enable = "avx512f,avx2")]
    pub unsafe fn f32_to_bf16_x16(src: &[f32], dst: &mut [bf16]) {
        let n = src.len().min(dst.len());
        let full = n / 16 * 16;
        let (abs, inf, low, one, quiet) = (
            _mm512_set1_epi32(0x7FFF_FFFF),
            _mm512_set1_epi32(0x7F80_0000),
            _mm512_set1_epi32(0x7FFF),
            _mm512_set1_epi32(1),
            _mm512_set1_epi32(0x40),
        );
        for i in (0..full).step_by(16) {
            // SAFETY: lanes i..i+16 are inside both slices; unaligned loads and stores.
            unsafe {
                let x = _mm512_loadu_si512(src.as_ptr().add(i) as *const __m512i);
                let hi = _mm512_srli_epi32::<16>(x);
                let nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, abs), inf);
                let up = _mm512_add_epi32(_mm512_add_epi32(x, low), _mm512_and_si512(hi, one));
                let r = _mm512_mask_blend_epi32(
                    nan,
                    _mm512_srli_epi32::<16>(up),
                    _mm512_or_si512(hi, quiet),
                );
                _mm256_storeu_si256(
                    dst.as_mut_ptr().add(i) as *mut __m256i,
                    _mm512_cvtepi32_epi16(r),
                );
            }
        }
        // SAFETY: the CPU has AVX2.
        unsafe { f32_to_bf16(&src[full..n], &mut dst[full..n]) };
    }

    /// [`f32_to_f16`] 16 lanes at a time (`vcvtps2ph` on AVX-512 registers).
    ///
    /// # Safety
    /// The CPU has AVX-512 F, AVX and F16C (the tail).
    #[target_feature(enable = "avx512f,avx,f16c")]
    pub unsafe fn f32_to_f16_x16(src: &[f32], dst: &mut [f16]) {
        let n = src.len().min(dst.len());
        let full = n / 16 * 16;
        for i in (0..full).step_by(16) {
            // SAFETY: lanes i..i+16 are inside both slices; unaligned loads and stores.
            unsafe {
                let v = _mm512_loadu_ps(src.as_ptr().add(i));
                let h = _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
                _mm256_storeu_si256(dst.as_mut_ptr().add(i) as *mut __m256i, h);
            }
        }
        // SAFETY: the CPU has AVX and F16C.
        unsafe { f32_to_f16(&src[full..n], &mut dst[full..n]) };
    }

    /// [`f16_to_f32`] 16 lanes at a time (`vcvtph2ps` on AVX-512 registers).
    ///
    /// # Safety
    /// The CPU has AVX-512 F, AVX and F16C (the tail).
    #[target_feature(enable = "avx512f,avx,f16c")]
    pub unsafe fn f16_to_f32_x16(src: &[f16], dst: &mut [f32]) {
        let n = src.len().min(dst.len());
        let full = n / 16 * 16;
        for i in (0..full).step_by(16) {
            // SAFETY: as above.
            unsafe {
                let h = _mm256_loadu_si256(src.as_ptr().add(i) as *const __m256i);
                _mm512_storeu_ps(dst.as_mut_ptr().add(i), _mm512_cvtph_ps(h));
            }
        }
        // SAFETY: the CPU has AVX and F16C.
        unsafe { f16_to_f32(&src[full..n], &mut dst[full..n]) };
    }

    /// [`super::bf16_to_f32`]'s loop compiled for AVX-512 F (the compiler widens the shift
    /// to 16 lanes).
    ///
    /// # Safety
    /// The CPU has AVX-512 F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn bf16_to_f32_x16(src: &[bf16], dst: &mut [f32]) {
        super::bf16_to_f32_loop(src, dst);
    }

    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn bf16_to_f32(src: &[bf16], dst: &mut [f32]) {
        super::bf16_to_f32_loop(src, dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every float16 and bfloat16 bit pattern, and float32 patterns around every float16
    /// rounding boundary plus NaNs, converted by the dispatching functions (the widest
    /// loop this CPU has) at lengths that leave every tail, against `half` bit for bit.
    #[test]
    fn every_loop_converts_as_half_does() {
        let halves: Vec<u16> = (0..=u16::MAX).collect();
        let mut floats: Vec<f32> = halves
            .iter()
            .flat_map(|&h| {
                let x = f16::from_bits(h).to_f32().to_bits();
                [
                    x,
                    x.wrapping_add(1),
                    x.wrapping_sub(1),
                    x ^ 0x1000,
                    x | 0x7F80_0001,
                ]
            })
            .map(f32::from_bits)
            .collect();
        floats.extend([0x7FC0_1234u32, 0xFF80_0001, 0x3380_0000, 0x4780_0000].map(f32::from_bits));
        for n in (0..40).chain([floats.len() - 3]) {
            let src = &floats[floats.len() - n..];
            let mut h = vec![f16::ZERO; n];
            f32_to_f16(src, &mut h);
            let mut b = vec![bf16::ZERO; n];
            f32_to_bf16(src, &mut b);
            for (i, s) in src.iter().enumerate() {
                assert_eq!(
                    h[i].to_bits(),
                    f16::from_f32(*s).to_bits(),
                    "f16 of {:#x}",
                    s.to_bits()
                );
                assert_eq!(
                    b[i].to_bits(),
                    bf16::from_f32(*s).to_bits(),
                    "bf16 of {:#x}",
                    s.to_bits()
                );
            }
        }
        for n in (0..40).chain([halves.len() - 5]) {
            let bits = &halves[halves.len() - n..];
            let (hs, bs): (Vec<f16>, Vec<bf16>) = bits
                .iter()
                .map(|&x| (f16::from_bits(x), bf16::from_bits(x)))
                .unzip();
            let (mut fh, mut fb) = (vec![0f32; n], vec![0f32; n]);
            f16_to_f32(&hs, &mut fh);
            bf16_to_f32(&bs, &mut fb);
            for i in 0..n {
                assert_eq!(
                    fh[i].to_bits(),
                    hs[i].to_f32().to_bits(),
                    "f16 {:#x}",
                    bits[i]
                );
                assert_eq!(
                    fb[i].to_bits(),
                    bs[i].to_f32().to_bits(),
                    "bf16 {:#x}",
                    bits[i]
                );
            }
        }
    }
}
