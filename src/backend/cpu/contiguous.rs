//! Contiguous byte runs: the copy every contiguous run of a plan goes through.
//!
//! glibc's `memcpy` (what `copy_nonoverlapping` calls) takes `rep movsb` for runs of a few
//! KiB on this project's AMD hosts, which measured 2x slower than a plain 32-byte vector
//! loop on 4 KiB rows (a broadcast row copy is a thousand of them). On x86-64 with AVX2
//! (detected at run time, once) runs of at least [`VECTOR_MIN`] bytes go through such a
//! loop; runs of at least [`STREAM_MIN`] bytes (far beyond any cache) write with
//! non-temporal stores, which skip reading the destination lines first. Everything else is
//! `copy_nonoverlapping`.

/// Runs shorter than this go to `copy_nonoverlapping` (its small-size paths are good).
pub(super) const VECTOR_MIN: usize = 512;

/// Runs at least this long bypass the caches on the way out (larger than the last-level
/// cache of the hosts measured, 32 MiB, so an in-cache copy keeps its destination cached).
pub(super) const STREAM_MIN: usize = 64 << 20;

/// Copies `n` bytes from `s` to `d`.
///
/// # Safety
/// `s..s+n` is readable, `d..d+n` writable, the two do not overlap, and no other thread
/// writes `d..d+n` meanwhile.
#[inline]
pub(super) unsafe fn copy(d: *mut u8, s: *const u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    if n >= VECTOR_MIN && x86::has_avx2() {
        // SAFETY: the caller's contract; the CPU has AVX2.
        return unsafe { x86::copy(d, s, n) };
    }
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(s, d, n) }
}

/// Writes the `w`-byte element at `e` into `len` consecutive elements from `d` (a
/// broadcast run), when a vector loop applies (x86-64 with AVX2, `w` dividing 32, at least
/// [`VECTOR_MIN`] bytes); false, with nothing written, otherwise.
///
/// # Safety
/// `e..e+w` is readable, `d..d+len*w` writable and not overlapping it, and no other thread
/// writes `d..d+len*w` meanwhile.
#[inline]
pub(super) unsafe fn fill(d: *mut u8, e: *const u8, w: usize, len: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if w <= 32 && 32 % w == 0 && len * w >= VECTOR_MIN && x86::has_avx2() {
        // SAFETY: the caller's contract; the CPU has AVX2.
        unsafe { x86::fill(d, e, w, len * w) };
        return true;
    }
    let _ = (d, e, w, len);
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::sync::OnceLock;

    pub fn has_avx2() -> bool {
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| is_x86_feature_detected!("avx2"))
    }

    /// `n` bytes (a multiple of `w`) of the `w`-byte element at `e` repeated from `d`.
    ///
    /// # Safety
    /// As [`super::fill`], `w` dividing 32, and the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn fill(d: *mut u8, e: *const u8, w: usize, n: usize) {
        let mut pattern = [0u8; 32];
        for k in (0..32).step_by(w) {
            // SAFETY: the element's w bytes are readable; k + w <= 32.
            unsafe { std::ptr::copy_nonoverlapping(e, pattern.as_mut_ptr().add(k), w) };
        }
        // SAFETY: the pattern is 32 bytes.
        let v = unsafe { _mm256_loadu_si256(pattern.as_ptr() as *const __m256i) };
        let mut i = 0;
        while i + 32 <= n {
            // SAFETY: bytes i..i+32 are inside the destination range.
            unsafe { _mm256_storeu_si256(d.add(i) as *mut __m256i, v) };
            i += 32;
        }
        // The tail: whole elements (n and 32 are multiples of w), the pattern's first.
        // SAFETY: bytes i..n are inside the destination range and i..n is under 32 bytes.
        unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), d.add(i), n - i) };
    }

    /// # Safety
    /// As [`super::copy`], and the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn copy(d: *mut u8, s: *const u8, n: usize) {
        let mut i = 0;
        let stream = n >= super::STREAM_MIN;
        if stream {
            // Non-temporal stores need 32-byte aligned addresses: the head moves plainly.
            i = (32 - (d as usize) % 32) % 32;
            // SAFETY: i < 32 <= n bytes, inside both ranges.
            unsafe { std::ptr::copy_nonoverlapping(s, d, i) };
        }
        while i + 128 <= n {
            // SAFETY: bytes i..i+128 are inside both ranges; unaligned loads (and stores
            // unless streaming, when d+i is 32-byte aligned).
            unsafe {
                let p = s.add(i) as *const __m256i;
                let q = d.add(i) as *mut __m256i;
                let v = [
                    _mm256_loadu_si256(p),
                    _mm256_loadu_si256(p.add(1)),
                    _mm256_loadu_si256(p.add(2)),
                    _mm256_loadu_si256(p.add(3)),
                ];
                for (k, v) in v.into_iter().enumerate() {
                    if stream {
                        _mm256_stream_si256(q.add(k), v);
                    } else {
                        _mm256_storeu_si256(q.add(k), v);
                    }
                }
            }
            i += 128;
        }
        if stream {
            // Orders the streamed stores before anything the caller does next.
            _mm_sfence();
        }
        // SAFETY: the tail i..n is inside both ranges.
        unsafe { std::ptr::copy_nonoverlapping(s.add(i), d.add(i), n - i) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_and_misalignment_copies_exactly() {
        // Around the vector and streaming thresholds, at odd offsets on both sides.
        let big = STREAM_MIN + 300;
        let src: Vec<u8> = (0..big + 64).map(|i| (i * 31 + i / 251) as u8).collect();
        let mut dst = vec![0u8; big + 64];
        for n in [
            0,
            1,
            31,
            VECTOR_MIN - 1,
            VECTOR_MIN,
            VECTOR_MIN + 129,
            4096,
            big,
        ] {
            for (so, dofs) in [(0, 0), (3, 17), (33, 1)] {
                dst.fill(0);
                // SAFETY: both ranges are inside their vectors, which do not overlap.
                unsafe { copy(dst.as_mut_ptr().add(dofs), src.as_ptr().add(so), n) };
                assert!(
                    dst[dofs..dofs + n] == src[so..so + n],
                    "{n} bytes at {so}/{dofs}"
                );
                assert!(dst[..dofs].iter().all(|&b| b == 0));
                assert!(dst[dofs + n..].iter().all(|&b| b == 0));
            }
        }
    }
}
