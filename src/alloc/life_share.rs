//! Lifetime-matched sharing of chunks for policy:stridekit (`stridekit_share_life`, off by
//! default; design (b) of issue 22, docs/alloc_design_studies.md, "Session 15").
//!
//! The peak's waste sits in the free parts of chunks that also hold a live block
//! (session 10). A chunk becomes idle (movable) only when every block in it is freed, so
//! the blocks that share a chunk should die together: a chunk holding a long-lived block
//! is best filled with other long-lived blocks, and short-lived blocks' chunks should hold
//! only short-lived ones, so that they become idle together. Each request is predicted
//! long- or short-lived by [`super::lifetime`] at `stridekit_share_life` requests; a live
//! block counts as long-lived when it was predicted so or has lived that long already.
//!
//! A request's *partners* are the live blocks it would share a chunk with: the block before
//! it when it starts inside a chunk, the block after it when its last chunk reaches past
//! the free block it takes. A side's *mismatch* is 1 when the partner's lifetime class
//! differs from the request's, or, for a long-lived request, when that side's chunk holds
//! no live block but free bytes the request would pin; 0 otherwise (a side ending at a
//! chunk boundary shares nothing). What it decides (`stridekit_share_mode`):
//!
//! - bit 0: of the free mapped blocks that fit, up to `stridekit_share_window_mb` larger
//!   than best fit's (at most 64 candidates), the request takes the one with the fewest
//!   mismatches (best fit's order among equals);
//! - bit 1: a growth's placement is ranked by (bytes created, mismatch of its first side,
//!   chunks moved, bytes mapped) instead of (created, moved, mapped);
//! - bit 2: a long-lived request's growth leaves at most the window free in its last
//!   chunk: an idle chunk covers the rest alone only if it is at most the window larger,
//!   and the least growth stops the window past the request.

use super::block::NIL;
use super::device::RawDevice;
use super::state::DeviceCachingAllocator;

/// Who a request shares the chunk at one of its ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The end is a chunk boundary.
    Clean,
    /// Only free bytes share the chunk.
    Free,
    /// Live block `i` shares the chunk.
    Partner(u32),
}

impl<D: RawDevice> DeviceCachingAllocator<D> {
    /// The sharing mode's bits when lifetime-matched sharing is on, else 0.
    pub(crate) fn share_bits(&self) -> u8 {
        let k = &self.cfg.stridekit;
        if self.cfg.is_stridekit() && k.share_life > 0 {
            k.share_mode
        } else {
            0
        }
    }

    fn side_mismatch(&self, side: Side) -> u32 {
        let long = self.life.share_long;
        match side {
            Side::Clean => 0,
            Side::Free => long as u32,
            Side::Partner(p) => {
                (self.life.live_long(p, self.cfg.stridekit.share_life) != long) as u32
            }
        }
    }

    /// Who shares the chunk holding the first byte of free block `i` (the request starts
    /// there).
    fn first_side(&self, i: u32) -> Side {
        let b = &self.blocks[i as usize];
        if b.seg == NIL || self.segs[b.seg as usize].chunks.get(&b.ptr).is_some() {
            return Side::Clean;
        }
        match b.prev {
            p if p != NIL && self.blocks[p as usize].allocated => Side::Partner(p),
            _ => Side::Free,
        }
    }

    /// Who shares the chunk holding the last byte of `size` bytes taken from the start of
    /// free block `i`.
    fn last_side(&self, i: u32, size: u64) -> Side {
        let b = &self.blocks[i as usize];
        if b.seg == NIL {
            return Side::Clean;
        }
        let chunks = &self.segs[b.seg as usize].chunks;
        let (end, bend) = (b.ptr + size, b.ptr + b.size);
        if chunks.get(&end).is_some() {
            return Side::Clean;
        }
        if !chunks.range(&end, &(bend + 1)).is_empty() {
            return Side::Free;
        }
        match b.next {
            n if n != NIL && self.blocks[n as usize].allocated => Side::Partner(n),
            _ => Side::Free,
        }
    }

    /// The mismatches of serving `size` bytes from the start of free block `i`.
    fn mismatches(&self, i: u32, size: u64) -> u32 {
        self.side_mismatch(self.first_side(i)) + self.side_mismatch(self.last_side(i, size))
    }

    /// The mismatch of a growth starting at block `c` (a free mapped block followed by
    /// unmapped space, or an unmapped block): its first side only, the last chunk of a
    /// growth holding nothing live yet (bit 1).
    pub(crate) fn growth_mismatch(&self, c: u32) -> u32 {
        if self.share_bits() & 2 == 0 || !self.blocks[c as usize].mapped {
            return 0;
        }
        self.side_mismatch(self.first_side(c))
    }

    /// The free block the request takes instead of `found` (best fit, at free-list
    /// position `pos`, of the large pool when `pool_large`): the fewest mismatches among
    /// the fitting blocks up to the window larger (bit 0).
    pub(crate) fn share_refit(
        &self,
        found: (u32, usize),
        rank: u16,
        size: u64,
        pool_large: bool,
    ) -> (u32, usize) {
        if self.share_bits() & 1 == 0 {
            return found;
        }
        let mut best = (self.mismatches(found.0, size), found);
        if best.0 == 0 {
            return found;
        }
        let most = self.blocks[found.0 as usize].size + self.cfg.stridekit.share_window;
        for (i, pos) in self.refit_candidates(rank, size, pool_large, most) {
            let m = self.mismatches(i, size);
            if m < best.0 {
                best = (m, (i, pos));
                if m == 0 {
                    break;
                }
            }
        }
        best.1
    }

    /// The most free bytes a growth of the current request may leave in its last chunk
    /// (bit 2, for a predicted long-lived request; `u64::MAX`: no limit).
    pub(crate) fn share_slack_cap(&self) -> u64 {
        if self.share_bits() & 4 != 0 && self.life.share_long {
            self.cfg.stridekit.share_window
        } else {
            u64::MAX
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::alloc::{AllocConfig, DeviceCachingAllocator, SimulatedDevice};

    const MIB: u64 = 1 << 20;

    /// Mixed short- and long-lived requests under every mode: the books balance (the
    /// device holds what is reserved) and everything goes back at the end.
    #[test]
    fn the_books_balance_under_every_mode() {
        for mode in 1..8 {
            let conf = format!(
                "policy:stridekit,stridekit_share_life:20,stridekit_share_mode:{mode},stridekit_share_window_mb:2"
            );
            let mut a = DeviceCachingAllocator::new(
                SimulatedDevice::new(16 << 30),
                AllocConfig::parse(&conf).unwrap(),
            )
            .unwrap();
            let mut live = Vec::new();
            let mut x = 12345u64;
            for step in 0..3000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let size = (x >> 33) % (40 * MIB) + 1;
                live.push(a.malloc(size, 0).unwrap());
                // Every third block lives long; the others are freed soon.
                if step % 3 != 0 && live.len() > 4 {
                    let k = live.len() - 2 - (x >> 60) as usize % 2;
                    a.free(live.remove(k)).unwrap();
                }
                if live.len() > 150 {
                    a.free(live.remove(0)).unwrap();
                }
            }
            let reserved = a.stats().reserved_bytes[0].current as u64;
            assert_eq!(a.device().used(), reserved, "mode {mode}");
            for h in live {
                a.free(h).unwrap();
            }
            a.release_all().unwrap();
            assert_eq!(a.device().used(), 0, "mode {mode}");
        }
    }
}
