//! Where policy:stridekit asks the lifetime predictor ([`super::lifetime`], what the
//! modes do): before a request, after it is served, when a block is freed, and which free
//! block a predicted long-lived request takes.

use super::block::{NIL, fkey, key_rank, key_size};
use super::device::RawDevice;
use super::state::DeviceCachingAllocator;

/// Candidates past best fit that a refit looks at (bounds the work of one request).
const MOST_CANDIDATES: usize = 64;

impl<D: RawDevice> DeviceCachingAllocator<D> {
    /// Whether the predictor runs (design (a), `stridekit_long_life`, or design (b),
    /// `stridekit_share_life`).
    fn life_on(&self) -> bool {
        let k = &self.cfg.stridekit;
        self.cfg.is_stridekit() && (k.long_life > 0 || k.share_life > 0)
    }

    /// Before a request of `size` (rounded) bytes is served: predict its lifetime.
    pub(crate) fn life_on_request(&mut self, size: u64) {
        if !self.life_on() {
            return;
        }
        let k = self.cfg.stridekit;
        self.life.tick();
        let long = k.long_life > 0 && self.life.class_long(size, k.long_life);
        self.life.long = long;
        self.life.exact_growth =
            k.long_life > 0 && ((long && k.life_mode & 2 != 0) || (!long && k.life_mode & 4 != 0));
        self.life.share_long = k.share_life > 0 && self.life.class_long(size, k.share_life);
    }

    /// Block `i` was handed out.
    pub(crate) fn life_on_alloc(&mut self, i: u32) {
        if self.life_on() {
            self.life.born_at(i);
            let long = self.life.share_long;
            self.life.mark(i, long);
            self.life.exact_growth = false;
        }
    }

    /// Block `i` was freed.
    pub(crate) fn life_on_free(&mut self, i: u32) {
        if self.life_on() {
            // The class the request was predicted in: its rounded size.
            let size = self.round_size(self.blocks[i as usize].requested);
            self.life.died(i, size);
        }
    }

    /// Whether free block `i` served for `size` bytes would touch an idle chunk.
    fn pins_idle_chunk(&self, i: u32, size: u64) -> bool {
        let b = &self.blocks[i as usize];
        if b.seg == NIL {
            return false;
        }
        self.segs[b.seg as usize]
            .whole_chunks(b.ptr, b.ptr + b.size)
            .next()
            .is_some_and(|(p, _)| p < b.ptr + size)
    }

    /// The free block a predicted long-lived request takes instead of `found` (best fit,
    /// at free-list position `pos` of `large`/small pool `pool_large`): the first fitting
    /// block after it that pins no idle chunk, when `found` pins one (bit 0 of the mode).
    pub(crate) fn life_refit(
        &self,
        found: (u32, usize),
        rank: u16,
        size: u64,
        pool_large: bool,
    ) -> (u32, usize) {
        let k = self.cfg.stridekit;
        if !self.life_on() || !self.life.long || k.life_mode & 1 == 0 {
            return found;
        }
        if !self.pins_idle_chunk(found.0, size) {
            return found;
        }
        self.refit_candidates(rank, size, pool_large, u64::MAX)
            .find(|&(i, _)| !self.pins_idle_chunk(i, size))
            .unwrap_or(found)
    }

    /// The mapped free blocks of rank `rank` that fit `size` bytes and are at most
    /// `most_size` bytes, in best-fit order, as (block, free-list position): of the first
    /// [`MOST_CANDIDATES`] fitting blocks, those with a segment. What the refits of both
    /// lifetime designs ([`Self::life_refit`], `life_share`'s `share_refit`) choose among.
    pub(crate) fn refit_candidates(
        &self,
        rank: u16,
        size: u64,
        pool_large: bool,
        most_size: u64,
    ) -> impl Iterator<Item = (u32, usize)> + '_ {
        let pool = if pool_large { &self.large } else { &self.small };
        pool.blocks
            .from(fkey(rank, size, 0))
            .take_while(move |&(_, key, _)| key_rank(key) == rank && key_size(key) <= most_size)
            .take(MOST_CANDIDATES)
            .filter(|&(_, _, i)| self.blocks[i as usize].seg != NIL)
            .map(|(pos, _, i)| (i, pos))
    }
}
