//! Whole destination lines for transposes whose destination rows are off the 64-byte line
//! grid (a row length that is not a multiple of 64 bytes: a 16380 x 16384 f32 transpose's
//! rows are 65520 bytes apart). [`super::lines`]' blocks then produce, for each destination
//! row, 64 bytes that straddle two lines; written as they come, every line would be
//! written in two pieces, a band apart, with plain stores that read the line first. Here
//! each row keeps its last block's 64 bytes (a carry, one line per row of the tile), and
//! the next band's block completes the line they began: one lane permute puts the carry's
//! last `m` bytes and the new block's first `64 - m` together into the whole line, which
//! goes out with one non-temporal store (`vpermt2b/w/d/q` by the element width: rows
//! start on elements, so `m` is a whole number of lanes). Only a row's first and last partial lines in the
//! tile are written plainly, under a byte mask (the neighbouring tile owns the rest of
//! those lines).
//!
//! Measured at 1 GiB on the AMD EPYC (Zen 4) development host (`cpu_1gib`, builds before
//! and after alternated, 3 rounds, 1 and 2 threads; bench/cpu_1gib_s22_realign.md), share
//! of the same run's memcpy rate: the u8 transpose 32764 x 32772 15-17% -> 28-30%, f16
//! 16380 x 32776 25-27% -> 40-43%, f32 16380 x 16388 28-30% -> 41-44%, f32 16380 x 16384
//! (only the destination's rows off the grid) 24-25% -> 45-50%; the transposes whose rows
//! are on the grid 47-65% in both builds.

/// The bytes of a cache line, the unit the whole-line blocks read and write ([`LINE`] of
/// [`super::lines`], which takes it from here: this module is below it).
///
/// [`LINE`]: super::lines::LINE
pub(super) const LINE: usize = 64;

#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    use std::arch::x86_64::*;

    use super::LINE;

    /// Where a block's destination lines go: line `i` of a block is its destination row
    /// `i` (of the block's place along `a`).
    pub trait Sink {
        /// Takes line `i` of the block.
        ///
        /// # Safety
        /// `i` is under the block's lanes; the CPU has AVX-512 F, BW and what the sink
        /// needs.
        unsafe fn line(&mut self, i: usize, v: __m512i);
    }

    /// Rows `step` bytes apart from a 64-byte aligned `at`, each line stored whole:
    /// non-temporal (`stream`, to the destination) or plain (to a stage in L1). Every
    /// caller passes a constant `stream`, which inlining folds.
    pub struct Rows {
        at: *mut u8,
        step: isize,
        stream: bool,
    }

    impl Rows {
        #[inline(always)]
        pub fn new(at: *mut u8, step: isize, stream: bool) -> Rows {
            Rows { at, step, stream }
        }
    }

    impl Sink for Rows {
        #[inline(always)]
        unsafe fn line(&mut self, i: usize, v: __m512i) {
            // SAFETY: line i is 64-byte aligned and the caller's to write (the contract of
            // whoever made the sink).
            unsafe {
                let at = self.at.offset(i as isize * self.step) as *mut __m512i;
                if self.stream {
                    _mm512_stream_si512(at, v)
                } else {
                    _mm512_store_si512(at, v)
                }
            }
        }
    }

    /// A line's worth of bytes, aligned as a line: one row's carry.
    #[derive(Clone, Copy)]
    #[repr(C, align(64))]
    pub struct Carry([u8; LINE]);

    impl Carry {
        /// A carry before anything was kept in it.
        pub const ZERO: Carry = Carry([0; LINE]);
    }

    /// A block's lines (`L` lanes of `64 / L` bytes) into destination rows `da` bytes apart
    /// from `d`, which need not start on lines (but on elements): row `i`'s 64 bytes
    /// complete the line that the row's carry (its previous band's block, `carry[i]`)
    /// began, and become its carry. The first band (`first`) writes its bytes up to the
    /// row's next line plainly; the last (`last`) also writes its bytes past the last whole
    /// line plainly. A row that starts on a line streams its lines as they come.
    ///
    /// Tried first on the 16380 x 16384 f32 transpose (1 GiB, 1 thread, the aligned 16384 x
    /// 16384 one at 54-57% of the memcpy rate): square tiles with plain stores 24-25%; a
    /// stage of 8 or 16 bands per row, so that each row got runs of whole lines with only
    /// its two partial lines plain, 25-27%; square 1 KiB row segments through an L1 buffer
    /// 19%; a carry per row 45-47%. Groups of 4 bands through a stage, as the aligned u8
    /// walk has, first took the u8 transpose from 28% to 23%: its source rows were off the
    /// grid too, and only the first of the two lines each block row spans was prefetched.
    /// Since that was fixed (`contiguous::prefetch_rows`), bytes go in groups ([`flush`]),
    /// and every width in pieces of 1024 rows along `a` (`lines::REALIGN_ROWS`).
    pub struct Realigned<const L: usize> {
        d: *mut u8,
        da: isize,
        carry: *mut Carry,
        first: bool,
        last: bool,
    }

    /// One carry per destination row of a tile of `rows` rows along `a`.
    pub fn carries(rows: usize) -> Vec<Carry> {
        vec![Carry::ZERO; rows]
    }

    impl<const L: usize> Realigned<L> {
        /// The sink of a block whose destination row `i` starts at `d + i*da` and whose
        /// carries are `carry[0..L]`; `first` / `last`: the block is in the tile's first /
        /// last band.
        #[inline(always)]
        pub fn new(d: *mut u8, da: isize, carry: *mut Carry, first: bool, last: bool) -> Self {
            Realigned {
                d,
                da,
                carry,
                first,
                last,
            }
        }
    }

    /// Lanes `0..L` of `64 / L` bytes each, plus `k`: the index vector of a permute that
    /// starts `k` lanes into its first operand.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW.
    #[inline(always)]
    unsafe fn from_lane<const L: usize>(k: usize) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            let iota = _mm512_loadu_si512(IOTA[L.trailing_zeros() as usize - 3].as_ptr().cast());
            match L {
                64 => _mm512_add_epi8(iota, _mm512_set1_epi8(k as i8)),
                32 => _mm512_add_epi16(iota, _mm512_set1_epi16(k as i16)),
                16 => _mm512_add_epi32(iota, _mm512_set1_epi32(k as i32)),
                _ => _mm512_add_epi64(iota, _mm512_set1_epi64(k as i64)),
            }
        }
    }

    /// Lanes `0, 1, ...` as 8, 16, 32 and 64 lanes of 8, 4, 2 and 1 bytes (little-endian).
    static IOTA: [[u8; LINE]; 4] = [iota(8), iota(16), iota(32), iota(64)];

    const fn iota(lanes: usize) -> [u8; LINE] {
        let (w, mut out, mut i) = (LINE / lanes, [0u8; LINE], 0);
        while i < lanes {
            out[i * w] = i as u8;
            i += 1;
        }
        out
    }

    /// Lane `j` of the result: lane `ix[j]` of `(a, b)` (`permutex2var`) for `L` lanes.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and (for 64 lanes) VBMI.
    #[inline(always)]
    unsafe fn pair<const L: usize>(a: __m512i, ix: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            match L {
                64 => _mm512_permutex2var_epi8(a, ix, b),
                32 => _mm512_permutex2var_epi16(a, ix, b),
                16 => _mm512_permutex2var_epi32(a, ix, b),
                _ => _mm512_permutex2var_epi64(a, ix, b),
            }
        }
    }

    /// Lane `j` of the result: lane `ix[j] mod L` of `a` (`permutexvar`) for `L` lanes.
    ///
    /// # Safety
    /// As [`pair`].
    #[inline(always)]
    unsafe fn one<const L: usize>(ix: __m512i, a: __m512i) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            match L {
                64 => _mm512_permutexvar_epi8(ix, a),
                32 => _mm512_permutexvar_epi16(ix, a),
                16 => _mm512_permutexvar_epi32(ix, a),
                _ => _mm512_permutexvar_epi64(ix, a),
            }
        }
    }

    /// Writes the first `64 - m` bytes of `v` at `x` (`m = x % 64`, not 0, whole lanes):
    /// under a byte mask, plainly, when `first`; else after the carry's last `m` bytes
    /// (`ix`: [`from_lane`] of `64 - m` bytes), completing the line the carry began, which
    /// goes out whole with one non-temporal store.
    ///
    /// # Safety
    /// The bytes written are the caller's; the carry is a line; the CPU has what `L` needs.
    #[inline(always)]
    unsafe fn complete<const L: usize>(
        x: *mut u8,
        m: usize,
        carry: *const __m512i,
        ix: __m512i,
        v: __m512i,
        first: bool,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            if first {
                let head: __mmask64 = (1u64 << (LINE - m)) - 1;
                _mm512_mask_storeu_epi8(x as *mut i8, head, v);
            } else {
                let whole = pair::<L>(_mm512_load_si512(carry), ix, v);
                _mm512_stream_si512(x.sub(m) as *mut __m512i, whole);
            }
        }
    }

    /// Streams `L` destination rows `da` bytes apart from `d` (on elements, not
    /// necessarily on lines), `lines` x 64 bytes each, from a stage whose row `c` starts
    /// at `stage + c * pitch` (64-byte aligned, `lines` lines contiguous), realigned as
    /// [`Realigned`] does for a block: row `c`'s first line completes the one its carry
    /// (`carry[c]`, its last stage line of the previous group) began, the lines after it
    /// are read unaligned from the stage, and its last stage line becomes its carry. The
    /// first group (`first`) writes its bytes up to the row's next line plainly; the last
    /// (`last`) also writes its bytes past the last whole line plainly. One carry per row
    /// and group, where [`Realigned`] needs one per row and line.
    ///
    /// # Safety
    /// The destination bytes of the rows (and, unless `first`, the `m` bytes before each
    /// row's start that complete its first line) are the caller's to write; the stage
    /// holds the rows; the carries are the rows'; the CPU has AVX-512 F and BW (and VBMI
    /// for `L` = 64).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub unsafe fn flush<const L: usize>(
        d: *mut u8,
        da: isize,
        stage: *const u8,
        pitch: isize,
        lines: usize,
        carry: *mut Carry,
        first: bool,
        last: bool,
    ) {
        let n = lines * LINE;
        for c in 0..L {
            // SAFETY (all): the caller's contract; `x` is on an element, so `m` is whole
            // lanes; the reads of the stage stay inside row c's `n` bytes (the tail's
            // through a byte mask).
            unsafe {
                let x = d.offset(c as isize * da);
                let row = stage.offset(c as isize * pitch);
                let m = x as usize % LINE;
                if m == 0 {
                    for k in 0..lines {
                        let v = _mm512_load_si512(row.add(k * LINE) as *const __m512i);
                        _mm512_stream_si512(x.add(k * LINE) as *mut __m512i, v);
                    }
                    continue;
                }
                let carry = carry.add(c) as *mut __m512i;
                let head = _mm512_load_si512(row as *const __m512i);
                let ix = from_lane::<L>((LINE - m) / (LINE / L));
                complete::<L>(x, m, carry, ix, head, first);
                // Line k of the row's destination from its first whole one: stage bytes
                // from k * 64 - m.
                for k in 1..lines {
                    let v = _mm512_loadu_si512(row.add(k * LINE - m) as *const __m512i);
                    _mm512_stream_si512(x.add(k * LINE - m) as *mut __m512i, v);
                }
                if last {
                    let tail: __mmask64 = (1u64 << m) - 1;
                    let v = _mm512_maskz_loadu_epi8(tail, row.add(n - m) as *const i8);
                    _mm512_mask_storeu_epi8(x.add(n - m) as *mut i8, tail, v);
                } else {
                    let v = _mm512_load_si512(row.add(n - LINE) as *const __m512i);
                    _mm512_store_si512(carry, v);
                }
            }
        }
    }

    impl<const L: usize> Sink for Realigned<L> {
        #[inline(always)]
        unsafe fn line(&mut self, i: usize, v: __m512i) {
            // SAFETY (all): row i's 64 bytes from `x` are the block's to write, as are the
            // `m` bytes before them unless `first` (the previous band's, completed here)
            // and the line from `x + 64 - m` up to the row's next element the caller owns
            // (only the block's bytes are written there: masked); the carry is this row's;
            // `x` is on an element, so `m` is whole lanes; the CPU has the walk's features.
            unsafe {
                let x = self.d.offset(i as isize * self.da);
                let m = x as usize % LINE;
                if m == 0 {
                    return _mm512_stream_si512(x as *mut __m512i, v);
                }
                let carry = self.carry.add(i) as *mut __m512i;
                // Lane `j` of the result is lane `j + k` of (carry, v): the carry's last `m`
                // bytes, then v's first `64 - m`.
                let ix = from_lane::<L>((LINE - m) / (LINE / L));
                complete::<L>(x, m, carry, ix, v, self.first);
                if self.last {
                    // v's last m bytes to the start of the line after its first 64 - m.
                    let tail: __mmask64 = (1u64 << m) - 1;
                    _mm512_mask_storeu_epi8(x.add(LINE - m) as *mut i8, tail, one::<L>(ix, v));
                } else {
                    _mm512_store_si512(carry, v);
                }
            }
        }
    }
}
