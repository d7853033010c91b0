//! The innermost loops: a [`Segment`] moves one strided run of elements, or one tile of
//! two dimensions. [`Move`] is the same-dtype mover, one generic body instantiated per
//! element width (1, 2, 4, 8, 16 bytes), never per dtype: contiguous runs are one
//! `copy_nonoverlapping`, broadcast, reversed and gathering runs are plain loops the compiler
//! vectorises for the width, and tiles of a transpose go through `B`x`B` register blocks.

use std::marker::PhantomData;
use std::ptr::{copy_nonoverlapping, read_unaligned, write_unaligned};

use super::contiguous;

/// A tile of two dimensions, `a` (the source's contiguous one) and `b` (the destination's
/// innermost): element `(i, j)`, `i < na`, `j < nb`, moves from `s + i*sa + j*sb` to
/// `d + i*da + j*db` (byte steps).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tile {
    pub na: usize,
    pub nb: usize,
    pub da: isize,
    pub db: isize,
    pub sa: isize,
    pub sb: isize,
}

/// One way of moving elements from the source bytes to the destination bytes.
pub(super) trait Segment: Sync {
    /// Moves `len` elements, the `i`-th from `s + i*sstep` to `d + i*dstep` (bytes).
    ///
    /// # Safety
    /// Every address reached is inside the caller's checked slices (whole elements), and no
    /// other thread writes the destination bytes meanwhile.
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize);

    /// Moves a tile (in runs along its longer side unless a mover knows better).
    ///
    /// # Safety
    /// As [`Segment::run`], for every element of the tile.
    unsafe fn tile(&self, d: *mut u8, s: *const u8, t: Tile) {
        // SAFETY: forwarded.
        unsafe { tile_in_runs(self, d, s, t) }
    }
}

/// A tile as runs along `b` (one per `a`) or along `a`, whichever is longer.
///
/// # Safety
/// As [`Segment::tile`].
pub(super) unsafe fn tile_in_runs<S: Segment + ?Sized>(op: &S, d: *mut u8, s: *const u8, t: Tile) {
    // SAFETY (all runs): inside the tile, which the caller vouches for.
    if t.nb >= t.na {
        for i in 0..t.na {
            let o = i as isize;
            unsafe { op.run(d.offset(o * t.da), s.offset(o * t.sa), t.nb, t.db, t.sb) };
        }
    } else {
        for j in 0..t.nb {
            let o = j as isize;
            unsafe { op.run(d.offset(o * t.db), s.offset(o * t.sb), t.na, t.da, t.sa) };
        }
    }
}

/// The same-dtype mover for elements of `T`'s width (`u8`, `u16`, `u32`, `u64`, `u128`:
/// the bytes move unchanged), with `B`x`B` register blocks for tiles.
pub(super) struct Move<T, const B: usize>(PhantomData<T>);

impl<T, const B: usize> Move<T, B> {
    pub const NEW: Self = Move(PhantomData);
}

// SAFETY: Move holds no data.
unsafe impl<T, const B: usize> Sync for Move<T, B> {}

impl<T: Copy, const B: usize> Segment for Move<T, B> {
    #[inline]
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize) {
        let w = size_of::<T>() as isize;
        let (dt, st) = (d as *mut T, s as *const T);
        // SAFETY (every access): the caller vouches for each element address; unaligned
        // reads and writes because host bytes carry no alignment promise.
        unsafe {
            if dstep == w {
                if sstep == w {
                    contiguous::copy(d, s, len * w as usize);
                } else if sstep == 0 {
                    let v = read_unaligned(st);
                    for i in 0..len {
                        write_unaligned(dt.add(i), v);
                    }
                } else if sstep == -w {
                    for i in 0..len {
                        write_unaligned(dt.add(i), read_unaligned(st.sub(i)));
                    }
                } else {
                    for i in 0..len {
                        let v = read_unaligned(st.byte_offset(i as isize * sstep));
                        write_unaligned(dt.add(i), v);
                    }
                }
            } else {
                for i in 0..len {
                    let v = read_unaligned(st.byte_offset(i as isize * sstep));
                    write_unaligned(dt.byte_offset(i as isize * dstep), v);
                }
            }
        }
    }

    unsafe fn tile(&self, d: *mut u8, s: *const u8, t: Tile) {
        let w = size_of::<T>() as isize;
        if t.db != w || t.sa != w || t.na < B || t.nb < B {
            // SAFETY: forwarded.
            return unsafe { tile_in_runs(self, d, s, t) };
        }
        let (fa, fb) = (t.na / B * B, t.nb / B * B);
        // SAFETY (all below): every block and strip lies inside the tile.
        for i0 in (0..fa).step_by(B) {
            let (d, s) = unsafe { (d.offset(i0 as isize * t.da), s.offset(i0 as isize * w)) };
            for j0 in (0..fb).step_by(B) {
                let j = j0 as isize;
                unsafe { block::<T, B>(d.offset(j * w), s.offset(j * t.sb), t.da, t.sb) };
            }
        }
        if fb < t.nb {
            let (dd, ss) = unsafe { (d.offset(fb as isize * w), s.offset(fb as isize * t.sb)) };
            let nb = t.nb - fb;
            unsafe { tile_in_runs(self, dd, ss, Tile { nb, ..t }) };
        }
        if fa < t.na {
            let (dd, ss) = unsafe { (d.offset(fa as isize * t.da), s.offset(fa as isize * w)) };
            let (na, nb) = (t.na - fa, fb);
            unsafe { tile_in_runs(self, dd, ss, Tile { na, nb, ..t }) };
        }
    }
}

/// One `B`x`B` block of a transpose: `B` contiguous source rows of `B` elements are read
/// whole and written out as `B` contiguous destination rows (the compiler turns the index
/// swap into register shuffles).
///
/// # Safety
/// Every element of the block is inside the caller's slices.
#[inline(always)]
unsafe fn block<T: Copy, const B: usize>(d: *mut u8, s: *const u8, da: isize, sb: isize) {
    // SAFETY: inside the block, which the caller vouches for.
    let rows: [[T; B]; B] = std::array::from_fn(|j| unsafe {
        read_unaligned(s.offset(j as isize * sb) as *const [T; B])
    });
    let cols: [[T; B]; B] = std::array::from_fn(|i| std::array::from_fn(|j| rows[j][i]));
    for (i, out) in cols.into_iter().enumerate() {
        // SAFETY: as above.
        unsafe { write_unaligned(d.offset(i as isize * da) as *mut [T; B], out) };
    }
}

/// Runs `f` with the mover for elements of `width` bytes (1, 2, 4, 8 or 16; any other
/// width moves byte groups one element at a time).
pub(super) fn with_mover<R>(width: usize, f: impl MoverFn<R>) -> R {
    match width {
        1 => f.call(&Move::<u8, 16>::NEW),
        2 => f.call(&Move::<u16, 8>::NEW),
        4 => f.call(&Move::<u32, 4>::NEW),
        8 => f.call(&Move::<u64, 4>::NEW),
        16 => f.call(&Move::<u128, 2>::NEW),
        w => f.call(&Bytes(w)),
    }
}

/// A function generic over the mover (closures cannot be).
pub(super) trait MoverFn<R> {
    fn call<S: Segment>(self, op: &S) -> R;
}

/// Elements of an unusual width, moved as byte groups.
struct Bytes(usize);

impl Segment for Bytes {
    unsafe fn run(&self, d: *mut u8, s: *const u8, len: usize, dstep: isize, sstep: isize) {
        for i in 0..len as isize {
            // SAFETY: the caller vouches for each element address.
            unsafe { copy_nonoverlapping(s.offset(i * sstep), d.offset(i * dstep), self.0) };
        }
    }
}
