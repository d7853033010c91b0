//! Converting copies: each run is gathered into an aligned buffer of source elements (by the
//! width-specialised mover), converted as a slice, and scattered to the destination. The
//! float32 <-> float16/bfloat16 conversions are vectorised ([`super::vector`]: F16C and
//! AVX2 where the CPU has them, detected at run time); every other pair goes through
//! [`Scalar`], the conversions of the reference, one element at a time.

use half::{bf16, f16};

use super::contiguous;
use super::vector;

use super::segment::{MoverFn, Segment, Tile, tile_in_runs, with_mover};
use crate::dtype::DType;
use crate::scalar::Scalar;

/// Elements per buffered chunk (2 KiB of 8-byte elements: stays in L1).
const CHUNK: usize = 256;

/// How one chunk is converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slices {
    F32ToF16,
    F16ToF32,
    F32ToBf16,
    Bf16ToF32,
    /// Any other pair: [`Scalar::read`] then [`Scalar::write`], as the reference does.
    PerElement,
}

/// The converting mover from `from` to `to` elements.
pub(super) struct Convert {
    from: DType,
    to: DType,
    how: Slices,
}

impl Convert {
    pub fn new(from: DType, to: DType) -> Convert {
        let how = match (from, to) {
            (DType::F32, DType::F16) => Slices::F32ToF16,
            (DType::F16, DType::F32) => Slices::F16ToF32,
            (DType::F32, DType::BF16) => Slices::F32ToBf16,
            (DType::BF16, DType::F32) => Slices::Bf16ToF32,
            _ => Slices::PerElement,
        };
        Convert { from, to, how }
    }

    /// Converts `n` elements from `sp` (source elements) into `dp`.
    ///
    /// # Safety
    /// `n` source elements at `sp` are readable and `n` destination elements at `dp`
    /// writable, each address aligned to its element's width, the two not overlapping and
    /// nothing else writing `dp`'s bytes meanwhile.
    unsafe fn convert(&self, dp: *mut u8, sp: *const u8, n: usize) {
        // SAFETY (the views): the caller's contract.
        unsafe {
            match self.how {
                Slices::F32ToF16 => vector::f32_to_f16(slice(sp, n), slice_mut::<f16>(dp, n)),
                Slices::F16ToF32 => vector::f16_to_f32(slice::<f16>(sp, n), slice_mut(dp, n)),
                Slices::F32ToBf16 => vector::f32_to_bf16(slice(sp, n), slice_mut::<bf16>(dp, n)),
                Slices::Bf16ToF32 => vector::bf16_to_f32(slice::<bf16>(sp, n), slice_mut(dp, n)),
                Slices::PerElement => {
                    let (sw, dw) = (self.from.itemsize(), self.to.itemsize());
                    let s = slice::<u8>(sp, n * sw);
                    let d = slice_mut::<u8>(dp, n * dw);
                    for (s, d) in s.chunks_exact(sw).zip(d.chunks_exact_mut(dw)) {
                        Scalar::read(self.from, s).write(self.to, d);
                    }
                }
            }
        }
    }
}

/// # Safety
/// `n` elements of `T` at `p` are initialised, aligned and inside one buffer.
unsafe fn slice<'a, T>(p: *const u8, n: usize) -> &'a [T] {
    // SAFETY: the caller's.
    unsafe { std::slice::from_raw_parts(p as *const T, n) }
}

/// # Safety
/// As [`slice`], and nothing else refers to those bytes meanwhile.
unsafe fn slice_mut<'a, T>(p: *mut u8, n: usize) -> &'a mut [T] {
    // SAFETY: the caller's.
    unsafe { std::slice::from_raw_parts_mut(p as *mut T, n) }
}

impl Segment for Convert {
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize) {
        let (sw, dw) = (self.from.itemsize(), self.to.itemsize());
        let aligned = (s as usize).is_multiple_of(sw) && (d as usize).is_multiple_of(dw);
        if aligned && sstep == sw as isize && dstep == dw as isize {
            // Both sides contiguous and aligned: converted in place, no buffers (a walk
            // far larger than the caches converts into the buffer of `super::streamed`).
            // SAFETY: the run's `len` elements are inside the caller's slices, aligned,
            // and the destination is the caller's alone.
            return unsafe { self.convert(d, s, len) };
        }
        let mut sbuf = contiguous::LineBuf::<{ CHUNK * 8 }>::new();
        let mut dbuf = contiguous::LineBuf::<{ CHUNK * 8 }>::new();
        let mut done = 0;
        while done < len {
            let n = CHUNK.min(len - done);
            let at = done as isize;
            // SAFETY: the run's elements are inside the caller's slices; the buffers hold
            // CHUNK elements of up to 8 bytes, on a line (aligned for every element type;
            // the vector conversions' loads from an 8-byte aligned buffer split, see
            // `Convert::tile`).
            unsafe {
                let (s, d) = (s.offset(at * sstep), d.offset(at * dstep));
                with_mover(
                    sw,
                    Run {
                        d: sbuf.as_mut_ptr(),
                        s,
                        n,
                        dstep: sw as isize,
                        sstep,
                    },
                );
                self.convert(dbuf.as_mut_ptr(), sbuf.as_mut_ptr(), n);
                with_mover(
                    dw,
                    Run {
                        d,
                        s: dbuf.as_mut_ptr(),
                        n,
                        dstep,
                        sstep: dw as isize,
                    },
                );
            }
            done += n;
        }
    }

    /// A tile whose source is contiguous along `a` (a converting transpose): transposed
    /// first into a buffer of source elements in the destination's order, by the
    /// same-dtype mover of the source width (its register blocks), then converted row by
    /// row along `b` as runs.
    unsafe fn tile(&self, d: *mut u8, s: *const u8, t: Tile) {
        let sw = self.from.itemsize();
        if t.sa != sw as isize || t.na * t.nb * sw > TILE_BUF {
            // SAFETY: forwarded.
            return unsafe { tile_in_runs(self, d, s, t) };
        }
        // On a line ([`contiguous::LineBuf`]): the 8-byte aligned buffer this replaced split
        // the conversions' vector loads wherever the stack put it off 32 bytes. A/B in one
        // run order (1 thread, in cache, f32 -> f16 of a 1024 x 1024 transpose): 475-486 ->
        // 438-441 us; 2 threads 282 -> 228 us; at 1 GiB 236-237 -> 225-226 ms (session 19).
        let mut buf = contiguous::LineBuf::<TILE_BUF>::new();
        let b = buf.as_mut_ptr();
        let row = (t.nb * sw) as isize;
        // SAFETY: the tile's elements are inside the caller's slices (its contract); the
        // buffer holds na * nb source elements, element (i, j) at (i * nb + j) * sw.
        unsafe {
            let into = Tile {
                da: row,
                db: sw as isize,
                lines: false,
                stream: false,
                ..t
            };
            with_mover(sw, TileRun { d: b, s, t: into });
            for i in 0..t.na as isize {
                self.run(
                    d.offset(i * t.da),
                    b.offset(i * row),
                    t.nb,
                    t.db,
                    sw as isize,
                );
            }
        }
    }
}

/// Bytes of the buffer a converting tile is transposed into (a tile's source elements: tile
/// edges are sized so that edge * edge * the wider width fits in 16 KiB).
const TILE_BUF: usize = 16 * 1024;

/// One tile, for [`with_mover`].
struct TileRun {
    d: *mut u8,
    s: *const u8,
    t: Tile,
}

impl MoverFn<()> for TileRun {
    fn call<S: Segment>(self, op: &S) {
        // SAFETY: built by Convert::tile from a tile inside the caller's slices and its own
        // buffer.
        unsafe { op.tile(self.d, self.s, self.t) }
    }
}

/// One run, for [`with_mover`].
struct Run {
    d: *mut u8,
    s: *const u8,
    n: usize,
    dstep: isize,
    sstep: isize,
}

impl MoverFn<()> for Run {
    fn call<S: Segment>(self, op: &S) {
        // SAFETY: built by Convert::run from addresses inside the caller's slices and its
        // own buffers.
        unsafe { op.run(self.d, self.s, self.n, self.dstep, self.sstep) }
    }
}
