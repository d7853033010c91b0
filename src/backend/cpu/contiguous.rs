//! Contiguous byte runs: the copy every contiguous run of a plan goes through.
//!
//! glibc's `memcpy` (what `copy_nonoverlapping` calls) takes `rep movsb` for runs of a few
//! KiB on this project's AMD hosts, which measured 2x slower than a plain 32-byte vector
//! loop on 4 KiB rows (a broadcast row copy is a thousand of them). On an AMD x86-64 CPU
//! with AVX2 (detected at run time, once) runs of at least [`VECTOR_MIN`] bytes go through
//! such a loop. Elsewhere (Intel) glibc's copy is the faster one at every size that stays
//! in the caches: on the development Xeon (AVX-512), one thread, a run copied again and
//! again, GB/s vector loop / glibc: 16 KiB 53-88 / 124-144 (glibc's 64-byte stores), 4 KiB
//! 123-137 / 138-157, 128-512 KiB about equal (32-40 both), 1 MiB 16-18 / 19-20, 2 MiB
//! 11-12 / 11-13 (session 16), so plain runs there go to `copy_nonoverlapping`. Runs of at
//! least [`STREAM_MIN`] bytes (far beyond any cache), and the pieces of walks that large,
//! write with non-temporal stores on every x86-64 CPU with AVX2, which skip reading the
//! destination lines first. Those stores cover whole 64-byte lines only (the partial lines
//! at either end of a run are written plainly): a line written partly non-temporally, or
//! both ways, is merged in memory, which measured 2.6x slower on 1 KiB rows 16 bytes off a
//! line. With AVX-512F they are 64 bytes wide. Everything else is `copy_nonoverlapping`.

#[cfg(target_arch = "x86_64")]
use super::isa;

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
    let stream = n >= STREAM_MIN;
    // SAFETY: the caller's contract.
    unsafe { copy_unfenced(d, s, n, stream) };
    if stream {
        // Orders the streamed stores before anything the caller does next.
        store_fence();
    }
}

/// Copies `n` bytes from `s` to `d` as [`copy`] does, with non-temporal stores whatever
/// `n` (where the vector loop applies): for one piece of a run that as a whole is at least
/// [`STREAM_MIN`] bytes, as a long converting run's chunks are. The stores are not
/// fenced: the caller calls [`store_fence`] after its last piece.
///
/// # Safety
/// As [`copy`].
#[inline]
pub(super) unsafe fn copy_streaming(d: *mut u8, s: *const u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { copy_unfenced(d, s, n, true) }
}

/// Streams `lines` whole 64-byte lines from `s` to the 64-byte aligned `d`, unfenced.
pub(super) type LineStreamer = unsafe fn(*mut u8, *const u8, usize);

/// The widest [`LineStreamer`] this CPU has (AVX-512 F, AVX2 or SSE2 stores; plain copies
/// off x86-64).
pub(super) fn line_streamer() -> LineStreamer {
    #[cfg(target_arch = "x86_64")]
    {
        if isa::features().avx512f {
            x86::stream_lines_avx512
        } else if isa::features().avx2 {
            x86::stream_lines_avx2
        } else {
            x86::stream_lines_sse2
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        copy_lines_plainly
    }
}

/// [`LineStreamer`] off x86-64: plain copies.
///
/// # Safety
/// Both ranges hold `lines * 64` bytes and do not overlap.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn copy_lines_plainly(d: *mut u8, s: *const u8, lines: usize) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(s, d, lines * 64) }
}

/// A page (the unit the walks plan their strides against).
pub(super) const PAGE: usize = 4096;

/// `N` bytes on a 64-byte line: the buffer a streamed piece or tile is produced in and
/// [`copy_streaming`] then loads from, 64 (or 32) bytes at a time. A `[u128; _]` on the
/// stack is only 16-byte aligned, and where the stack put it 16 bytes off a 32-byte
/// boundary every such load split across two lines: measured at 1 GiB on the AMD EPYC (Zen
/// 4) development host, 1 thread, a broadcast of columns (16384 x 16384 f32) took 65-72 ms
/// with its buffer 16 or 48 bytes past a line against 38-40 ms at 0 or 32, and f16 -> f32
/// and bf16 -> f32 of 2^28 elements 68-75 against 40-45 ms (session 19). Which one a build
/// got moved with the stack (twice torch's time through the C ABI in one run).
#[repr(C, align(64))]
pub(super) struct LineBuf<const N: usize>([u8; N]);

impl<const N: usize> LineBuf<N> {
    pub fn new() -> LineBuf<N> {
        LineBuf([0; N])
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr()
    }
}

/// The copy of [`copy`] and [`copy_streaming`]: the vector loop where it applies (its
/// stores non-temporal when `stream`), else `copy_nonoverlapping`; never fenced. (SSE2's
/// non-temporal stores instead of `copy_nonoverlapping` for streamed copies without AVX2
/// took a 1 GiB memcpy from about 100 to 61 ms on the AMD development host under
/// `STRIDEKIT_CPU_CAPABILITY=default`, but a streamed gather of 1 KiB rows from 80 to
/// 139 ms; not kept, session 21.)
///
/// # Safety
/// As [`copy`].
#[inline]
unsafe fn copy_unfenced(d: *mut u8, s: *const u8, n: usize, stream: bool) {
    #[cfg(target_arch = "x86_64")]
    if n >= VECTOR_MIN && isa::features().avx2 && (stream || x86::is_amd()) {
        // SAFETY: the caller's contract; the CPU has AVX2; n >= VECTOR_MIN >= 32.
        return unsafe { x86::copy(d, s, n, stream) };
    }
    let _ = stream;
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(s, d, n) }
}

/// Orders the non-temporal stores this thread made (by [`copy_streaming`]) before its
/// later stores.
#[inline]
pub(super) fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// The cache a prefetch brings its lines into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CacheLevel {
    /// L1 and the caches below it (`prefetcht0`).
    L1,
    /// L2 and below, not L1 (`prefetcht1`), which leaves L1 to the loads already in use.
    L2,
}

impl CacheLevel {
    /// The cache the walks that ask for lines a few blocks or one tile ahead (the
    /// whole-line blocks' source lines, the small tiles' next tile) bring them into: L1,
    /// except on AMD (and Hygon) CPUs, where L2.
    ///
    /// Measured at 1 GiB, A/B in one process (`benches/cpu_1gib.rs` with a temporary
    /// switch), share of the same run's memcpy rate, L1 -> L2:
    /// - development Xeon (48 KiB L1d), session 17: the other cases moved within the
    ///   noise or down (the 6-d permute at 2 threads 33-38% -> 29-31%);
    /// - AMD EPYC (Zen 4, 32 KiB L1d), 1 thread, 8 rounds, load 4-5, session 18: u8
    ///   transpose 32% -> 42%, 3-d permute 46% -> 57%, NHWC -> NCHW f16 49% -> 73% and f32
    ///   48% -> 70%, a 4-d permute (3, 0, 1, 2) of 256x64x128x128 f32 48% -> 64%; the 4-d
    ///   reversal within the noise (43-45%).
    pub(super) fn near() -> CacheLevel {
        if is_amd() {
            CacheLevel::L2
        } else {
            CacheLevel::L1
        }
    }
}

/// Whether the CPU is AMD's (or Hygon's, the same cores): the hosts where some choices
/// measured otherwise than on the Intel ones (this module's copy loop, [`CacheLevel::near`],
/// the whole-line tiles' shape in [`super::walk`]).
pub(super) fn is_amd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        x86::is_amd()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Asks for the 64-byte lines of `rows` runs of `bytes` bytes, `step` bytes apart from
/// `p`, to be brought into `level` ahead of their use (x86-64; nothing elsewhere). A
/// prefetch reads nothing the program sees and faults on no address, so `p` need not be
/// inside an allocation: the addresses are formed with wrapping arithmetic.
#[inline]
pub(super) fn prefetch_rows(
    p: *const u8,
    rows: usize,
    step: isize,
    bytes: usize,
    level: CacheLevel,
) {
    #[cfg(target_arch = "x86_64")]
    let on_grid = (p as usize | step as usize).is_multiple_of(64);
    #[cfg(target_arch = "x86_64")]
    for j in 0..rows as isize {
        let row = p.wrapping_offset(j.wrapping_mul(step));
        // A run off the line grid spans one line more than its bytes: ask for that too.
        let skew = if on_grid || bytes == 0 {
            0
        } else {
            row as usize % 64
        };
        let line = row.wrapping_sub(skew);
        for k in (0..bytes + skew).step_by(64) {
            let at = line.wrapping_add(k) as *const i8;
            // SAFETY: SSE is part of x86-64; a prefetch has no visible effect.
            unsafe {
                use std::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1, _mm_prefetch};
                match level {
                    CacheLevel::L1 => _mm_prefetch::<_MM_HINT_T0>(at),
                    CacheLevel::L2 => _mm_prefetch::<_MM_HINT_T1>(at),
                }
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, rows, step, bytes, level);
}

/// Writes `v` (an element of `T`'s width) into `len` consecutive elements from `d` (a
/// broadcast run), when a vector loop applies (x86-64 with AVX2, the width dividing 32, at
/// least [`VECTOR_MIN`] bytes); false, with nothing written, otherwise.
///
/// # Safety
/// `d..d+len*size_of::<T>()` is writable, and no other thread writes it meanwhile.
#[inline]
pub(super) unsafe fn fill<T: Copy>(d: *mut u8, v: T, len: usize) -> bool {
    let w = size_of::<T>();
    #[cfg(target_arch = "x86_64")]
    if w <= 32 && 32 % w == 0 && len * w >= VECTOR_MIN && isa::features().avx2 {
        // SAFETY: the caller's contract; the CPU has AVX2.
        unsafe { x86::fill(d, v, len * w) };
        return true;
    }
    let _ = (d, v, len);
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::sync::OnceLock;

    /// Whether the CPU is AMD's (or Hygon's, the same cores): the hosts where glibc's copy
    /// of runs of a few KiB measured slower than [`copy`]'s vector loop.
    pub fn is_amd() -> bool {
        static AMD: OnceLock<bool> = OnceLock::new();
        *AMD.get_or_init(|| {
            let v = __cpuid(0);
            let mut vendor = [0u8; 12];
            for (k, r) in [v.ebx, v.edx, v.ecx].into_iter().enumerate() {
                vendor[4 * k..4 * k + 4].copy_from_slice(&r.to_le_bytes());
            }
            &vendor == b"AuthenticAMD" || &vendor == b"HygonGenuine"
        })
    }

    /// `n` bytes (a multiple of `T`'s width) of `e` repeated from `d`.
    ///
    /// # Safety
    /// As [`super::fill`], `T`'s width dividing 32, and the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn fill<T: Copy>(d: *mut u8, e: T, n: usize) {
        // The pattern is built with stores of `T` (a constant width per mover, unrolled by
        // the compiler): no per-call byte copies of a run-time width.
        let mut pattern = [0u8; 32];
        let w = size_of::<T>();
        for k in 0..32 / w {
            // SAFETY: k * w + w <= 32 bytes of the pattern.
            unsafe { std::ptr::write_unaligned(pattern.as_mut_ptr().add(k * w) as *mut T, e) };
        }
        // SAFETY: the pattern is 32 bytes.
        let v = unsafe { _mm256_loadu_si256(pattern.as_ptr() as *const __m256i) };
        let mut i = 0;
        while i + 128 <= n {
            // SAFETY: bytes i..i+128 are inside the destination range.
            unsafe {
                let q = d.add(i) as *mut __m256i;
                for k in 0..4 {
                    _mm256_storeu_si256(q.add(k), v);
                }
            }
            i += 128;
        }
        while i + 32 <= n {
            // SAFETY: bytes i..i+32 are inside the destination range.
            unsafe { _mm256_storeu_si256(d.add(i) as *mut __m256i, v) };
            i += 32;
        }
        // The tail: whole elements (n and 32 are multiples of w), the pattern's first.
        // SAFETY: bytes i..n are inside the destination range and i..n is under 32 bytes.
        unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), d.add(i), n - i) };
    }

    /// The vector loop of [`super::copy_unfenced`]; streamed stores are not fenced.
    ///
    /// # Safety
    /// As [`super::copy`], `n` at least 32, and the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn copy(d: *mut u8, s: *const u8, n: usize, stream: bool) {
        if stream {
            // SAFETY: the caller's contract.
            return unsafe { copy_lines_streamed(d, s, n) };
        }
        let mut i = 0;
        while i + 128 <= n {
            // SAFETY: bytes i..i+128 are inside both ranges; unaligned loads and stores.
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
                    _mm256_storeu_si256(q.add(k), v);
                }
            }
            i += 128;
        }
        // SAFETY: the tail i..n is inside both ranges.
        unsafe { std::ptr::copy_nonoverlapping(s.add(i), d.add(i), n - i) };
    }

    /// The streamed copy: the partial line at each end plainly, every whole 64-byte line
    /// of the destination between them with non-temporal stores (64 bytes wide with
    /// AVX-512F, else two of 32 with AVX2, else four of 16); not fenced.
    ///
    /// # Safety
    /// As [`super::copy`].
    pub(super) unsafe fn copy_lines_streamed(d: *mut u8, s: *const u8, n: usize) {
        let head = ((64 - (d as usize) % 64) % 64).min(n);
        let lines = (n - head) / 64;
        if head > 0 {
            // SAFETY: bytes 0..head are inside both ranges.
            unsafe { std::ptr::copy_nonoverlapping(s, d, head) };
        }
        let (ld, ls) = (
            // SAFETY: head <= n.
            unsafe { d.add(head) },
            // SAFETY: head <= n.
            unsafe { s.add(head) },
        );
        // SAFETY: `lines` whole lines from the 64-byte aligned `ld`, inside both ranges;
        // the streamer is one this CPU has.
        unsafe { super::line_streamer()(ld, ls, lines) };
        let done = head + lines * 64;
        if done < n {
            // SAFETY: the tail done..n (under 64 bytes) is inside both ranges.
            unsafe { std::ptr::copy_nonoverlapping(s.add(done), d.add(done), n - done) };
        }
    }

    /// `lines` 64-byte lines from `s` to the 64-byte aligned `d`, non-temporally, 64-byte
    /// stores; four lines a step.
    ///
    /// # Safety
    /// Both ranges hold `lines * 64` bytes, `d` is 64-byte aligned, the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn stream_lines_avx512(d: *mut u8, s: *const u8, lines: usize) {
        let (p, q) = (s as *const __m512i, d as *mut __m512i);
        let mut l = 0;
        while l + 4 <= lines {
            // SAFETY: lines l..l+4 are inside both ranges; q + l is 64-byte aligned.
            unsafe {
                let v = [
                    _mm512_loadu_si512(p.add(l)),
                    _mm512_loadu_si512(p.add(l + 1)),
                    _mm512_loadu_si512(p.add(l + 2)),
                    _mm512_loadu_si512(p.add(l + 3)),
                ];
                for (k, v) in v.into_iter().enumerate() {
                    _mm512_stream_si512(q.add(l + k), v);
                }
            }
            l += 4;
        }
        while l < lines {
            // SAFETY: line l is inside both ranges; q + l is 64-byte aligned.
            unsafe { _mm512_stream_si512(q.add(l), _mm512_loadu_si512(p.add(l))) };
            l += 1;
        }
    }

    /// [`stream_lines_avx512`] with two 32-byte stores per line (AVX2), two lines a step.
    ///
    /// # Safety
    /// As [`stream_lines_avx512`], the CPU having AVX2 instead.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn stream_lines_avx2(d: *mut u8, s: *const u8, lines: usize) {
        let (p, q) = (s as *const __m256i, d as *mut __m256i);
        let mut l = 0;
        while l + 2 <= lines {
            // SAFETY: lines l..l+2 (halves 2l..2l+4) are inside both ranges; q + 2l is
            // 64-byte aligned.
            unsafe {
                let v = [
                    _mm256_loadu_si256(p.add(2 * l)),
                    _mm256_loadu_si256(p.add(2 * l + 1)),
                    _mm256_loadu_si256(p.add(2 * l + 2)),
                    _mm256_loadu_si256(p.add(2 * l + 3)),
                ];
                for (k, v) in v.into_iter().enumerate() {
                    _mm256_stream_si256(q.add(2 * l + k), v);
                }
            }
            l += 2;
        }
        if l < lines {
            // SAFETY: line l (halves 2l, 2l+1) is inside both ranges, 64-byte aligned.
            unsafe {
                let a = _mm256_loadu_si256(p.add(2 * l));
                let b = _mm256_loadu_si256(p.add(2 * l + 1));
                _mm256_stream_si256(q.add(2 * l), a);
                _mm256_stream_si256(q.add(2 * l + 1), b);
            }
        }
    }

    /// [`stream_lines_avx512`] with four 16-byte stores per line (SSE2, which every
    /// x86-64 CPU has).
    ///
    /// # Safety
    /// As [`stream_lines_avx512`], without its feature.
    pub(super) unsafe fn stream_lines_sse2(d: *mut u8, s: *const u8, lines: usize) {
        let (p, q) = (s as *const __m128i, d as *mut __m128i);
        for l in 0..lines {
            // SAFETY: line l (quarters 4l..4l+4) is inside both ranges, 64-byte aligned.
            unsafe {
                let v = [
                    _mm_loadu_si128(p.add(4 * l)),
                    _mm_loadu_si128(p.add(4 * l + 1)),
                    _mm_loadu_si128(p.add(4 * l + 2)),
                    _mm_loadu_si128(p.add(4 * l + 3)),
                ];
                for (k, v) in v.into_iter().enumerate() {
                    _mm_stream_si128(q.add(4 * l + k), v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached vector loop (what AMD CPUs take; an Intel host reaches it only here), at
    /// every offset in a line and lengths that leave each tail.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_cached_vector_loop_copies_exactly() {
        if !isa::features().avx2 {
            return;
        }
        let src: Vec<u8> = (0..8192).map(|i| (i * 29 + i / 113) as u8).collect();
        let mut dst = vec![0u8; 8192];
        for n in [32, 33, 63, 64, 127, VECTOR_MIN, VECTOR_MIN + 31, 4096 + 17] {
            for dofs in (0..64).step_by(9) {
                dst.fill(0);
                // SAFETY: both ranges are inside their vectors, which do not overlap; the
                // CPU has AVX2 and n >= 32.
                unsafe { x86::copy(dst.as_mut_ptr().add(dofs), src.as_ptr().add(5), n, false) };
                assert!(dst[dofs..dofs + n] == src[5..5 + n], "{n} bytes at {dofs}");
                assert!(dst[..dofs].iter().all(|&b| b == 0));
                assert!(dst[dofs + n..].iter().all(|&b| b == 0));
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn streamed_copies_of_every_line_split_copy_exactly() {
        // copy_streaming's and copy_lines_streamed's partial end lines and whole lines, from every
        // destination offset in a line; and the three whole-line loops directly (a host
        // with AVX-512 takes only the 64-byte stores through copy_streaming).
        let src: Vec<u8> = (0..8192).map(|i| (i * 13 + i / 241) as u8).collect();
        let mut dst = vec![0u8; 8192];
        for n in [VECTOR_MIN, VECTOR_MIN + 1, 575, 576, 640, 1087, 4096 + 63] {
            for dofs in (0..64).step_by(7) {
                let at = dst.as_ptr().align_offset(64) + dofs;
                dst.fill(0);
                // SAFETY: both ranges are inside their vectors, which do not overlap.
                unsafe { copy_streaming(dst.as_mut_ptr().add(at), src.as_ptr().add(3), n) };
                store_fence();
                assert!(dst[at..at + n] == src[3..3 + n], "{n} bytes at {dofs}");
                assert!(dst[..at].iter().all(|&b| b == 0));
                assert!(dst[at + n..].iter().all(|&b| b == 0));
            }
        }
        for n in [0, 1, 63, 64, 65, 200, 256, 511] {
            for dofs in (0..64).step_by(7) {
                let at = dst.as_ptr().align_offset(64) + dofs;
                dst.fill(0);
                // SAFETY: both ranges are inside their vectors, which do not overlap.
                unsafe {
                    x86::copy_lines_streamed(dst.as_mut_ptr().add(at), src.as_ptr().add(5), n)
                };
                store_fence();
                assert!(dst[at..at + n] == src[5..5 + n], "{n} bytes at {dofs}");
                assert!(dst[..at].iter().all(|&b| b == 0));
                assert!(dst[at + n..].iter().all(|&b| b == 0));
            }
        }
        for lines in [0, 1, 2, 3, 5, 8, 9] {
            // 0: SSE2, 1: AVX2, 2: AVX-512 F.
            for unit in 0..3 {
                if (unit == 1 && !is_x86_feature_detected!("avx2"))
                    || (unit == 2 && !is_x86_feature_detected!("avx512f"))
                {
                    continue;
                }
                let at = dst.as_ptr().align_offset(64);
                dst.fill(0);
                // SAFETY: `lines` lines from the aligned `at` are inside both vectors; the
                // CPU has the loop's features.
                unsafe {
                    let (d, s) = (dst.as_mut_ptr().add(at), src.as_ptr().add(1));
                    match unit {
                        0 => x86::stream_lines_sse2(d, s, lines),
                        1 => x86::stream_lines_avx2(d, s, lines),
                        _ => x86::stream_lines_avx512(d, s, lines),
                    }
                }
                store_fence();
                let n = lines * 64;
                assert!(
                    dst[at..at + n] == src[1..1 + n],
                    "{lines} lines, unit {unit}"
                );
                assert!(dst[at + n..].iter().all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn a_line_buffer_starts_on_a_line_wherever_it_lives() {
        assert_eq!(std::mem::align_of::<LineBuf<4096>>(), 64);
        let bufs: Vec<LineBuf<4096>> = (0..3).map(|_| LineBuf::new()).collect();
        for mut b in bufs {
            assert_eq!(b.as_mut_ptr() as usize % 64, 0);
        }
        // On the stack behind a byte, where a 16-byte aligned array could land anywhere.
        let (_, mut on_stack) = (std::hint::black_box(1u8), LineBuf::<64>::new());
        assert_eq!(on_stack.as_mut_ptr() as usize % 64, 0);
    }

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

    /// Broadcast runs of every mover width, around the vector threshold and its 128-byte
    /// unrolled steps, at odd destination offsets: exactly `len` copies of the element.
    fn fill_writes_exactly<T: Copy + PartialEq + std::fmt::Debug>(v: T) {
        let w = size_of::<T>();
        let mut dst = vec![0u8; VECTOR_MIN * 3 + 64];
        for len in [
            0,
            1,
            VECTOR_MIN / w - 1,
            VECTOR_MIN / w,
            VECTOR_MIN / w + 1,
            161,
            1024 / w + 3,
        ] {
            for at in [0, 1, 7, 32] {
                if at + len * w > dst.len() {
                    continue;
                }
                dst.fill(0);
                // SAFETY: at + len * w bytes are inside the vector.
                let done = unsafe { fill(dst.as_mut_ptr().add(at), v, len) };
                if !done {
                    assert!(dst.iter().all(|&b| b == 0), "nothing written when refused");
                    continue;
                }
                for k in 0..len {
                    // SAFETY: element k is inside the vector.
                    let got = unsafe {
                        std::ptr::read_unaligned(dst.as_ptr().add(at + k * w) as *const T)
                    };
                    assert_eq!(got, v, "{w}-byte element {k} of {len} at offset {at}");
                }
                assert!(dst[..at].iter().all(|&b| b == 0));
                assert!(dst[at + len * w..].iter().all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn fill_writes_every_width_exactly() {
        fill_writes_exactly(0xA5u8);
        fill_writes_exactly(0xA55Au16);
        fill_writes_exactly(0x0102_0304u32);
        fill_writes_exactly(0x0102_0304_0506_0708u64);
        fill_writes_exactly(0x0102_0304_0506_0708_090A_0B0C_0D0E_0F10u128);
    }
}
