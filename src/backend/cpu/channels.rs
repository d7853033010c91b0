//! Copies between pixels of a few channels and planes of one channel: NHWC <-> NCHW with
//! C = 2, 3 or 4 (an RGB image batch), the tiles whose one side holds all C channels of a
//! pixel next to each other. The tile loops moved them one channel at a time, each a run
//! of single elements C apart (a byte at a time for u8 images). Here 64 / w pixels
//! (elements of w bytes) at a time: C 64-byte registers of pixels become C 64-byte
//! registers of one channel each (or back), every output byte picked from its register by
//! a masked byte permute (`vpermb`, AVX-512 VBMI), at most C per output register, with
//! tables computed at compile time for each (C, w); with AVX2, 32 / w pixels at a time as
//! two 16-byte groups per register, each output lane the OR of up to C `pshufb`s.
//!
//! Measured at 1 GiB on the AMD EPYC (Zen 4) development host (`cpu_1gib`, builds
//! alternated, 1 and 2 threads, two runs), share of the same run's memcpy rate: NCHW <->
//! NHWC of 3 x 224 x 224 u8 images 17-30% -> 59-83% (66-67% in the quieter run), f32
//! 40-60% -> 63-89% (64-70%); under `STRIDEKIT_CPU_CAPABILITY=avx2` (the `pshufb` loop, two
//! A/B runs, 1 thread) u8 21-23% -> 49-62%, f32 41-53% -> 61-69%.

/// Whether the channel moves run on this CPU (AVX-512 F, BW and VBMI, or AVX2).
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let f = super::isa::features();
        (f.avx512bw && f.avx512vbmi) || f.avx2
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The channel counts the moves serve.
pub(super) const CHANNELS: std::ops::RangeInclusive<usize> = 2..=4;

/// Which way a move goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Way {
    /// Pixels (`c` channels of `w` bytes, contiguous) into `c` planes.
    Split,
    /// `c` planes into pixels.
    Join,
}

/// A move between pixels at `px` (pixel `p`, channel `k` at `px + (p*c + k)*w`) and
/// planes at `pl` (channel `k`, pixel `p` at `pl + k*step + p*w`), `n` pixels, as `way`
/// says; `stream`: the walk is far larger than the caches, and a split's planes, or with
/// AVX-512 a join's pixels, go out with non-temporal stores where aligned (the walk
/// fences). Measured at 1 GiB (two A/B runs, 1 thread, 3-channel images): NHWC -> NCHW u8
/// and f32 57-69% -> 88-99% of the memcpy rate, 60% -> 65-74% under `avx2`. Joins (NCHW ->
/// NHWC) gained nothing while the streamed tiles (1365 pixels of f32) started off the line
/// grid but for one in 16, and lost 8-15 points under `avx2` (16-byte halves); with tiles
/// of whole plane lines (session 24, [`super::walk`]) and AVX-512, 224 x 224 images at 1
/// thread, CPU ms: u8 92-132 -> 60-64, f32 88-148 -> 56-60, the memcpy's rate (the AVX2
/// joins stay plain; bench/cpu_1gib_s24_images.md).
#[derive(Debug, Clone, Copy)]
pub(super) struct Pixels {
    pub way: Way,
    pub n: usize,
    pub px: *mut u8,
    pub pl: *mut u8,
    pub step: isize,
    pub stream: bool,
}

/// Moves the first whole groups of `m`'s pixels, `c` channels of `w` bytes; returns the
/// pixels moved (the caller moves the rest). Nothing is moved unless [`available`], `c` is
/// in [`CHANNELS`] and `w` is 1, 2, 4 or 8.
///
/// # Safety
/// Every byte reached is inside the caller's slices, the destination's bytes are the
/// caller's to write, and the two sides do not overlap.
pub(super) unsafe fn move_pixels(m: Pixels, w: usize, c: usize) -> usize {
    if !available() || !CHANNELS.contains(&c) {
        return 0;
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded; the CPU has the features (available).
    unsafe {
        x86::dispatch(m, w, c)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (m, w);
        0
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::super::lines::LINE;
    use super::super::realign::x86::{Carry, Realigned, Sink};
    use super::{Pixels, Way};

    /// For each output register of a group of `B`-byte registers (`C` of them): the byte
    /// each of its `B` bytes takes from its input register (`idx`) and, per input
    /// register, the mask of the bytes taken from it (`from`).
    struct Table<const C: usize, const B: usize> {
        idx: [[u8; B]; C],
        from: [[u64; C]; C],
    }

    /// The table of `way` for `C` channels of `W` bytes in registers of `B` bytes.
    const fn table<const C: usize, const W: usize, const B: usize>(way: Way) -> Table<C, B> {
        let mut t = Table {
            idx: [[0; B]; C],
            from: [[0; C]; C],
        };
        let mut out = 0;
        while out < C {
            let mut j = 0;
            while j < B {
                // The byte of the whole group: pixels (C*W bytes each) or planes (64
                // bytes of each channel).
                let (reg, at) = match way {
                    Way::Split => {
                        // Plane `out`, byte j: pixel j / W, its byte j % W of channel out.
                        let off = (j / W) * C * W + out * W + j % W;
                        (off / B, off % B)
                    }
                    Way::Join => {
                        // Pixel bytes out*B + j: pixel p, channel k, byte b.
                        let o = out * B + j;
                        let (p, k, b) = (o / (C * W), (o % (C * W)) / W, o % W);
                        (k, p * W + b)
                    }
                };
                t.idx[out][j] = at as u8;
                t.from[out][reg] |= 1 << j;
                j += 1;
            }
            out += 1;
        }
        t
    }

    /// [`Table`] for 16-byte `pshufb` lanes: output register `o`'s index into input
    /// register `r`, 0x80 (a zero byte) where the byte comes from another register.
    const fn shuffles<const C: usize, const W: usize>(way: Way) -> [[[u8; 16]; C]; C] {
        let t = table::<C, W, 16>(way);
        let mut out = [[[0x80; 16]; C]; C];
        let mut o = 0;
        while o < C {
            let mut r = 0;
            while r < C {
                let mut j = 0;
                while j < 16 {
                    if t.from[o][r] & (1 << j) != 0 {
                        out[o][r][j] = t.idx[o][j];
                    }
                    j += 1;
                }
                r += 1;
            }
            o += 1;
        }
        out
    }

    /// The tables of one (C, W) pair, both ways: 64-byte `vpermb` and 16-byte `pshufb`.
    struct Tables<const C: usize, const W: usize>;

    impl<const C: usize, const W: usize> Tables<C, W> {
        const SPLIT: Table<C, LINE> = table::<C, W, LINE>(Way::Split);
        const JOIN: Table<C, LINE> = table::<C, W, LINE>(Way::Join);
        const SPLIT16: [[[u8; 16]; C]; C] = shuffles::<C, W>(Way::Split);
        const JOIN16: [[[u8; 16]; C]; C] = shuffles::<C, W>(Way::Join);
    }

    /// [`super::move_pixels`] for the CPU's features.
    ///
    /// # Safety
    /// As [`super::move_pixels`]; the CPU has AVX-512 F, BW and VBMI, or AVX2.
    pub unsafe fn dispatch(m: Pixels, w: usize, c: usize) -> usize {
        let f = super::super::isa::features();
        let wide = f.avx512bw && f.avx512vbmi;
        // SAFETY (every arm): forwarded, to the loop the CPU has.
        unsafe {
            match (c, w) {
                (2, 1) => groups::<2, 1>(wide, m),
                (2, 2) => groups::<2, 2>(wide, m),
                (2, 4) => groups::<2, 4>(wide, m),
                (2, 8) => groups::<2, 8>(wide, m),
                (3, 1) => groups::<3, 1>(wide, m),
                (3, 2) => groups::<3, 2>(wide, m),
                (3, 4) => groups::<3, 4>(wide, m),
                (3, 8) => groups::<3, 8>(wide, m),
                (4, 1) => groups::<4, 1>(wide, m),
                (4, 2) => groups::<4, 2>(wide, m),
                (4, 4) => groups::<4, 4>(wide, m),
                (4, 8) => groups::<4, 8>(wide, m),
                _ => 0,
            }
        }
    }

    /// The whole groups of `n` pixels of `C` channels of `W` bytes, in 64-byte registers
    /// (`wide`) or in 32-byte ones.
    ///
    /// # Safety
    /// As [`dispatch`].
    #[inline(always)]
    unsafe fn groups<const C: usize, const W: usize>(wide: bool, m: Pixels) -> usize {
        // SAFETY: forwarded; the features are the CPU's.
        unsafe {
            if wide {
                groups_vbmi::<C, W>(m)
            } else {
                groups_avx2::<C, W>(m)
            }
        }
    }

    /// The whole groups of `32 / W` pixels of `n` with AVX2: each 32-byte register is two
    /// groups of 16-byte `pshufb` lanes (the pixels of two groups, or 32 bytes of a
    /// plane), every output lane the OR of at most `C` shuffles.
    #[target_feature(enable = "avx2")]
    unsafe fn groups_avx2<const C: usize, const W: usize>(m: Pixels) -> usize {
        let Pixels {
            way,
            n,
            px,
            pl,
            step,
            stream,
        } = m;
        const B: usize = 16;
        let per = 2 * B / W;
        let steps = n / per;
        let t = match way {
            Way::Split => &Tables::<C, W>::SPLIT16,
            Way::Join => &Tables::<C, W>::JOIN16,
        };
        // SAFETY: the table rows are 16 bytes.
        let idx: [[__m256i; C]; C] = std::array::from_fn(|o| {
            std::array::from_fn(|r| unsafe {
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t[o][r].as_ptr().cast()))
            })
        });
        let used: [[bool; C]; C] =
            std::array::from_fn(|o| std::array::from_fn(|r| t[o][r].iter().any(|&b| b < 0x80)));
        for g in 0..steps {
            // SAFETY: step g's pixels (2*C*16 bytes from px + g*2*C*16) and its 32 bytes of
            // each plane (from pl + k*step + g*32) are inside the caller's slices.
            unsafe {
                let (gx, gl) = (px.add(g * 2 * C * B), pl.add(g * 2 * B));
                let input: [__m256i; C] = std::array::from_fn(|r| match way {
                    Way::Split => {
                        _mm256_loadu2_m128i(gx.add(C * B + r * B).cast(), gx.add(r * B).cast())
                    }
                    Way::Join => _mm256_loadu_si256(gl.offset(r as isize * step).cast()),
                });
                let out: [__m256i; C] = std::array::from_fn(|o| {
                    let mut v = _mm256_setzero_si256();
                    for r in 0..C {
                        if used[o][r] {
                            v = _mm256_or_si256(v, _mm256_shuffle_epi8(input[r], idx[o][r]));
                        }
                    }
                    v
                });
                // A plane's 32 bytes each (split); for pixels (join), each register's two
                // lanes to their groups.
                for (o, &v) in out.iter().enumerate() {
                    match way {
                        Way::Split => {
                            let at = gl.offset(o as isize * step);
                            if stream && (at as usize).is_multiple_of(2 * B) {
                                _mm256_stream_si256(at.cast(), v)
                            } else {
                                _mm256_storeu_si256(at.cast(), v)
                            }
                        }
                        Way::Join => {
                            let (hi, lo) = (gx.add(C * B + o * B), gx.add(o * B));
                            _mm256_storeu2_m128i(hi.cast(), lo.cast(), v)
                        }
                    }
                }
            }
        }
        steps * per
    }

    /// The whole groups of `64 / W` pixels of `n` with AVX-512 VBMI.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn groups_vbmi<const C: usize, const W: usize>(m: Pixels) -> usize {
        let Pixels {
            way,
            n,
            px,
            pl,
            step,
            stream,
        } = m;
        let per = LINE / W;
        let groups = n / per;
        let t = match way {
            Way::Split => &Tables::<C, W>::SPLIT,
            Way::Join => &Tables::<C, W>::JOIN,
        };
        // SAFETY: the tables are 64 bytes a row.
        let idx: [__m512i; C] =
            std::array::from_fn(|o| unsafe { _mm512_loadu_si512(t.idx[o].as_ptr().cast()) });
        // A streamed split's planes go out as the realigned lines of the whole-line blocks
        // do ([`Realigned`], planes as rows): a plane that starts off a line (planes not
        // whole lines apart, or a tile starting mid-line) gets each line that a group's 64
        // bytes complete with the previous group's (its carry) whole, with one `vpermt2b`
        // and a non-temporal store, its first and last partial lines plainly.
        let planes = stream && matches!(way, Way::Split);
        let mut carries = [Carry::ZERO; C];
        for g in 0..groups {
            // SAFETY: group g's pixels (C*64 bytes from px + g*C*64) and its 64 bytes of
            // each plane (from pl + k*step + g*64) are inside the caller's slices.
            unsafe {
                let (gx, gl) = (px.add(g * C * LINE), pl.add(g * LINE));
                let mut realigned =
                    Realigned::<LINE>::new(gl, step, carries.as_mut_ptr(), g == 0, g + 1 == groups);
                let input: [__m512i; C] = std::array::from_fn(|r| match way {
                    Way::Split => _mm512_loadu_si512(gx.add(r * LINE).cast()),
                    Way::Join => _mm512_loadu_si512(gl.offset(r as isize * step).cast()),
                });
                for (o, ix) in idx.iter().enumerate() {
                    let mut out = _mm512_setzero_si512();
                    for (r, v) in input.iter().enumerate() {
                        let m = t.from[o][r];
                        if m != 0 {
                            out = _mm512_mask_permutexvar_epi8(out, m, *ix, *v);
                        }
                    }
                    if planes {
                        realigned.line(o, out);
                        continue;
                    }
                    let at: *mut u8 = match way {
                        Way::Split => gl.offset(o as isize * step),
                        Way::Join => gx.add(o * LINE),
                    };
                    if stream && (at as usize).is_multiple_of(LINE) {
                        _mm512_stream_si512(at.cast(), out);
                    } else {
                        _mm512_storeu_si512(at.cast(), out);
                    }
                }
            }
        }
        groups * per
    }
}
