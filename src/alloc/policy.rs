//! The caching policy of PyTorch 2.11's CUDA caching allocator
//! (`c10/cuda/CUDACachingAllocator.cpp`, `DeviceCachingAllocator`), reproduced decision for
//! decision over a [`RawDevice`]. Device agnostic: it never calls CUDA itself.
//!
//! - Sizes round up to a multiple of 512 bytes, or to a power-of-two division with
//!   `roundup_power2_divisions`.
//! - Requests of at most 1 MiB use the small pool, packed in 2 MiB segments; larger ones use
//!   the large pool, with 20 MiB segments below 10 MiB and sizes rounded to 2 MiB above.
//! - Free blocks are found best fit in the order (stream, size, address); a block is split
//!   when the remainder is worth keeping (`should_split`); free neighbours in a segment merge.
//! - With `max_split_size`, oversize blocks are never split and are only reused for requests
//!   within `max_non_split_rounding` (20 MiB) of their size.
//! - When the device runs out: free cached oversize blocks and retry, then free all unsplit
//!   cached blocks and retry, then fail with [`AllocError::OutOfMemory`].
//! - Blocks used on other streams (`record_stream`) are reused only after events recorded on
//!   those streams at free time have completed.
//! - `expandable_segments`: one growing segment per pool and stream, mapped page by page
//!   (2 MiB pages in the small pool, 20 MiB in the large pool).
//!
//! The layers under it: [`super::sizes`] and [`super::rounding`] (sizes), [`super::block`]
//! and [`super::state`] (the block table, free lists, history), [`super::expandable`]
//! (mapping physical chunks), [`super::stitch`] (stridekit's placement and chunk moves),
//! [`super::config`] (settings), [`super::stats`] (statistics), [`super::device`] (the
//! device interface). Nothing under it imports it.

use std::collections::VecDeque;

use super::block::{Block, NIL, fkey, key_rank, key_size};
use super::device::{DeviceError, RawDevice, StreamId};
use super::error::{AllocError, AllocResult, OutOfMemory};
use super::stats;

pub use super::block::{BlockHandle, PoolKind};
pub use super::rounding::{allocation_size, round_size, roundup_power2_next_division};
pub use super::sizes::{
    K_LARGE_BUFFER, K_MIN_BLOCK_SIZE, K_MIN_LARGE_ALLOC, K_ROUND_LARGE, K_SMALL_BUFFER,
    K_SMALL_SIZE, MAX_BLOCK_SIZE,
};
use super::state::Side;
pub use super::state::{Action, DeviceCachingAllocator, HistoryEntry};

struct Params {
    size: u64,
    stream: StreamId,
    rank: u16,
    pool: PoolKind,
    alloc_size: u64,
}

impl<D: RawDevice> DeviceCachingAllocator<D> {
    // ----- malloc -----

    /// Allocate `orig_size` bytes for use on `stream`.
    pub fn malloc(&mut self, orig_size: u64, stream: StreamId) -> AllocResult<BlockHandle> {
        if !self.cuda_events.is_empty() {
            self.process_events()?;
        }
        let size = self.round_size(orig_size);
        let pool = if size <= K_SMALL_SIZE {
            PoolKind::Small
        } else {
            PoolKind::Large
        };
        if size >= MAX_BLOCK_SIZE {
            let (device_free, device_total) = self.dev.mem_info()?;
            self.stats.num_ooms += 1;
            return Err(self.out_of_memory(size, orig_size, (device_free, device_total)));
        }
        if self.streams.len() >= u16::MAX as usize && self.streams.binary_search(&stream).is_err() {
            return Err(AllocError::Device {
                call: "malloc",
                message: format!("more than {} distinct streams", u16::MAX),
            });
        }
        let rank = self.stream_rank(stream);
        let p = Params {
            size,
            stream,
            rank,
            pool,
            alloc_size: allocation_size(size),
        };
        self.life_on_request(size);
        // A block found in the free list keeps its entry until it is known whether a
        // remainder takes it over (`alloc_found_block`).
        let listed = self
            .get_free_block(&p)
            .map(|f| self.life_refit(f, rank, size, pool == PoolKind::Large))
            .map(|f| self.share_refit(f, rank, size, pool == PoolKind::Large));
        let mut found = listed.map(|(i, _)| i);
        if found.is_none() {
            if self.set_fraction && self.cfg.garbage_collection_threshold > 0.0 {
                self.garbage_collect_cached_blocks()?;
            }
            found = self.alloc_block(&p, false)?;
            if found.is_none() && self.release_available_cached_blocks(&p)? {
                found = self.alloc_block(&p, false)?;
            }
            if found.is_none() {
                self.release_cached_blocks()?;
                found = self.alloc_block(&p, true)?;
            }
        }
        let Some(block) = found else {
            let (device_free, device_total) = self.dev.mem_info()?;
            self.stats.num_ooms += 1;
            self.record(Action::Oom, device_free, p.alloc_size, stream);
            return Err(self.out_of_memory(p.alloc_size, orig_size, (device_free, device_total)));
        };
        let split = self.should_split(block, size);
        let i = self.alloc_found_block(block, &p, orig_size, split, listed.map(|(_, pos)| pos));
        self.life_on_alloc(i);
        if self.cfg.stridekit.slack_decay > 0 {
            let b = &self.blocks[i as usize];
            self.slack.on_alloc(b.ptr, b.size);
        }
        Ok(self.handle(i))
    }

    /// The out-of-memory error of a request of `orig_size` bytes that tried `tried`, with
    /// the device's (free, total) memory and the allocator's own figures.
    fn out_of_memory(&self, tried: u64, orig_size: u64, info: (u64, u64)) -> AllocError {
        AllocError::OutOfMemory(Box::new(OutOfMemory {
            tried,
            requested: orig_size,
            capacity: info.1,
            device_free: info.0,
            allocated: self.stats.allocated_bytes[0].current as u64,
            reserved: self.stats.reserved_bytes[0].current as u64,
            allowed: self.set_fraction.then_some(self.allowed_memory_maximum),
        }))
    }

    #[inline]
    fn should_split(&self, i: u32, size: u64) -> bool {
        let b = &self.blocks[i as usize];
        let remaining = b.size - size;
        if b.pool == PoolKind::Small || self.cfg.expandable_segments {
            remaining >= K_MIN_BLOCK_SIZE
        } else {
            size < self.cfg.max_split_size && remaining > K_SMALL_SIZE
        }
    }

    /// The free block that serves `p` (PyTorch's `get_free_block`) and its position in
    /// the pool's free list, where its entry is left (see [`Self::alloc_found_block`]).
    fn get_free_block(&mut self, p: &Params) -> Option<(u32, usize)> {
        let gc_on = self.set_fraction && self.cfg.garbage_collection_threshold > 0.0;
        let expandable_on = self.cfg.expandable_segments;
        let mss = self.cfg.max_split_size;
        let rounding = self.cfg.max_non_split_rounding_size;
        let stitching = self.cfg.is_stridekit();
        let blocks = &self.blocks;
        let pool = match p.pool {
            PoolKind::Small => &mut self.small,
            PoolKind::Large => &mut self.large,
        };
        if gc_on {
            pool.get_free_blocks_call_count += 1;
        }
        let mut it = pool.blocks.from(fkey(p.rank, p.size, 0));
        let (mut pos, mut key, mut idx) = match it.next() {
            Some((pos, k, v)) if key_rank(k) == p.rank => (pos, k, v),
            _ => return None,
        };
        if blocks[idx as usize].seg != NIL {
            if expandable_on {
                let exp_size = |i: u32| {
                    let b = &blocks[i as usize];
                    b.size
                        + if b.next != NIL && !blocks[b.next as usize].mapped {
                            blocks[b.next as usize].size
                        } else {
                            0
                        }
                };
                for (at, k, v) in it {
                    if blocks[idx as usize].seg != NIL
                        && key_rank(k) == p.rank
                        && exp_size(v) < exp_size(idx)
                    {
                        pos = at;
                        key = k;
                        idx = v;
                    } else {
                        break;
                    }
                }
            } else {
                let mut found = false;
                for (at, k, v) in it {
                    if key_rank(k) != p.rank {
                        return None;
                    }
                    if blocks[v as usize].seg == NIL {
                        pos = at;
                        key = k;
                        idx = v;
                        found = true;
                        break;
                    }
                }
                if !found {
                    return None;
                }
            }
        }
        let bsize = key_size(key);
        let oversize_rules = !(stitching && blocks[idx as usize].seg != NIL);
        if oversize_rules && p.size < mss && bsize >= mss {
            return None;
        }
        if oversize_rules && p.size >= mss && bsize >= p.size.saturating_add(rounding) {
            return None;
        }
        Some((idx, pos))
    }

    /// Hand out block `i` for `p`, splitting off the rest when `split`. `listed`: the
    /// position of `i`'s free-list entry when it came from the free list; the remainder
    /// of a split takes that entry over, else it is removed.
    fn alloc_found_block(
        &mut self,
        i: u32,
        p: &Params,
        orig_size: u64,
        split: bool,
        listed: Option<usize>,
    ) -> u32 {
        let size = p.size;
        let ps = p.pool.stat();
        let already_split = self.blocks[i as usize].is_split();
        let mut block = i;
        if !split && let Some(pos) = listed {
            self.pool_mut(p.pool).blocks.remove_at(pos);
        }
        if split {
            let remaining = i;
            let (r_ptr, r_seg) = {
                let r = &self.blocks[remaining as usize];
                (r.ptr, r.seg)
            };
            let mut nb = Self::blank(p.stream, p.rank, size, p.pool, r_ptr);
            nb.seg = r_seg;
            block = self.link(remaining, nb, Side::Before);
            {
                let rb = &mut self.blocks[remaining as usize];
                rb.ptr += size;
                rb.size -= size;
            }
            match listed {
                Some(pos) => self.move_in_blocks(pos, remaining),
                None => self.insert_into_blocks(remaining),
            }
            let expandable = r_seg != NIL;
            if already_split && !expandable {
                stats::dec(&mut self.stats.inactive_split_bytes, ps, size);
            } else if !expandable {
                let rs = self.blocks[remaining as usize].size;
                stats::inc(&mut self.stats.inactive_split_bytes, ps, rs);
                stats::inc(&mut self.stats.inactive_split, ps, 1);
            }
        } else if already_split && self.blocks[i as usize].seg == NIL {
            let bs = self.blocks[i as usize].size;
            stats::dec(&mut self.stats.inactive_split_bytes, ps, bs);
            stats::dec(&mut self.stats.inactive_split, ps, 1);
        }
        let b = &mut self.blocks[block as usize];
        b.allocated = true;
        b.requested = orig_size;
        let bsize = b.size;
        let bptr = b.ptr;
        self.record(Action::Alloc, bptr, orig_size, p.stream);
        let st = &mut self.stats;
        stats::inc(&mut st.allocation, ps, 1);
        stats::inc(&mut st.allocated_bytes, ps, bsize);
        stats::inc(&mut st.active, ps, 1);
        stats::inc(&mut st.active_bytes, ps, bsize);
        stats::inc(&mut st.requested_bytes, ps, orig_size);
        if bsize >= self.cfg.max_split_size {
            st.oversize_allocations.increase(1);
        }
        block
    }

    fn alloc_block(&mut self, p: &Params, is_retry: bool) -> AllocResult<Option<u32>> {
        if is_retry {
            self.stats.num_alloc_retries += 1;
        }
        let size = p.alloc_size;
        if self.set_fraction && self.total_allocated_memory + size > self.allowed_memory_maximum {
            return Ok(None);
        }
        if self.cfg.is_stridekit() {
            return self.try_allocate_stitched_block(p.stream, p.pool, p.size);
        }
        if self.cfg.expandable_segments {
            return self.try_allocate_expandable_block(p.stream, p.pool, p.size);
        }
        let ptr = match self.dev.malloc(size) {
            Ok(ptr) => ptr,
            Err(DeviceError::OutOfMemory) => return Ok(None),
            Err(DeviceError::Other(e)) => return Err(e),
        };
        self.total_allocated_memory += size;
        self.record(Action::SegmentAlloc, ptr, size, p.stream);
        let i = self.new_block(Self::blank(p.stream, p.rank, size, p.pool, ptr));
        let ps = p.pool.stat();
        stats::inc(&mut self.stats.segment, ps, 1);
        stats::inc(&mut self.stats.reserved_bytes, ps, size);
        if size >= self.cfg.max_split_size {
            self.stats.oversize_segments.increase(1);
        }
        self.stats.num_device_alloc += 1;
        Ok(Some(i))
    }

    /// Free cached oversize blocks, only as many as the request needs.
    fn release_available_cached_blocks(&mut self, p: &Params) -> AllocResult<bool> {
        let mss = self.cfg.max_split_size;
        if mss == u64::MAX {
            return Ok(false);
        }
        let want = p.size.max(mss);
        let pool = match p.pool {
            PoolKind::Small => &self.small,
            PoolKind::Large => &self.large,
        };
        // Blocks inside expandable segments are never released here: they are not device
        // allocations of their own (PyTorch skips them too, since pytorch/pytorch#134338;
        // its free pages are unmapped by the release-everything retry that follows).
        let at = pool.blocks.from(fkey(p.rank, want, 0)).next();
        match at {
            Some((_, k, v)) if key_rank(k) == p.rank && self.blocks[v as usize].seg == NIL => {
                self.release_block(v)?;
                Ok(true)
            }
            _ => {
                // No single block is large enough: free oversize blocks from the largest down.
                let candidates: Vec<(u128, u32)> =
                    pool.blocks.below(fkey(p.rank, want, 0)).rev().collect();
                if candidates.is_empty() {
                    return Ok(false);
                }
                let mut released = 0u64;
                for (k, v) in candidates {
                    if released >= want || key_size(k) < mss || key_rank(k) != p.rank {
                        break;
                    }
                    if self.blocks[v as usize].seg == NIL {
                        released += key_size(k);
                        self.release_block(v)?;
                    }
                }
                Ok(released >= want)
            }
        }
    }

    /// Free every unsplit cached block (after waiting for outstanding events).
    fn release_cached_blocks(&mut self) -> AllocResult<()> {
        self.synchronize_and_free_events()?;
        self.release_blocks(PoolKind::Large)?;
        self.release_blocks(PoolKind::Small)?;
        Ok(())
    }

    fn release_blocks(&mut self, pool: PoolKind) -> AllocResult<()> {
        let list: Vec<u32> = self.pool_mut(pool).blocks.values().collect();
        let mut to_unmap = Vec::new();
        for i in list {
            let b = &self.blocks[i as usize];
            if b.seg != NIL {
                to_unmap.push(i);
            } else if !b.is_split() {
                self.release_block(i)?;
            }
        }
        for i in to_unmap {
            self.unmap_block(i)?;
            let b = &self.blocks[i as usize];
            if b.in_use && !b.is_split() && !b.mapped {
                self.release_expandable_segment(i)?;
            }
        }
        Ok(())
    }

    fn release_block(&mut self, i: u32) -> AllocResult<()> {
        let (ptr, size, pool, stream) = {
            let b = &self.blocks[i as usize];
            (b.ptr, b.size, b.pool, b.stream)
        };
        self.stats.num_device_free += 1;
        self.record(Action::SegmentFree, ptr, size, stream);
        self.dev.free(ptr, size)?;
        self.total_allocated_memory -= size;
        let ps = pool.stat();
        stats::dec(&mut self.stats.segment, ps, 1);
        stats::dec(&mut self.stats.reserved_bytes, ps, size);
        if size >= self.cfg.max_split_size {
            self.stats.oversize_segments.decrease(1);
        }
        self.erase_from_blocks(i);
        self.delete_block(i);
        Ok(())
    }

    fn garbage_collect_cached_blocks(&mut self) -> AllocResult<()> {
        let threshold =
            (self.cfg.garbage_collection_threshold * self.allowed_memory_maximum as f64) as u64;
        if self.total_allocated_memory <= threshold {
            return Ok(());
        }
        let target = self.total_allocated_memory - threshold;
        let mut reclaimed = 0u64;
        let count_now = self.large.get_free_blocks_call_count;
        let age = |b: &Block| (count_now - b.gc_count_base) as i32 as i64 as u64;
        let mut total_age = 0u64;
        let mut freeable = 0i64;
        for i in self.large.blocks.values() {
            let b = &self.blocks[i as usize];
            if !b.is_split() && b.seg == NIL {
                total_age += age(b);
                freeable += 1;
            }
        }
        if freeable == 0 {
            return Ok(());
        }
        let mut block_freed = true;
        while reclaimed < target && block_freed && freeable > 0 {
            let age_threshold = total_age as f64 / freeable as f64;
            block_freed = false;
            let list: Vec<u32> = self.large.blocks.values().collect();
            for i in list {
                let b = &self.blocks[i as usize];
                if !b.is_split() && b.seg == NIL && age(b) as f64 >= age_threshold {
                    block_freed = true;
                    reclaimed += b.size;
                    total_age -= age(b);
                    freeable -= 1;
                    self.release_block(i)?;
                }
            }
        }
        Ok(())
    }

    // ----- free -----

    /// Return an allocation to the cache.
    pub fn free(&mut self, h: BlockHandle) -> AllocResult<()> {
        let i = self.resolve(h)?;
        self.free_index(i)
    }

    pub(crate) fn free_index(&mut self, i: u32) -> AllocResult<()> {
        let (size, pool, has_uses, ptr, requested, stream) = {
            let b = &mut self.blocks[i as usize];
            b.allocated = false;
            // A handle of this allocation is stale from here on, even if the block is
            // handed out again unsplit.
            b.generation = b.generation.wrapping_add(1);
            (
                b.size,
                b.pool,
                !b.stream_uses.is_empty(),
                b.ptr,
                b.requested,
                b.stream,
            )
        };
        self.record(Action::FreeRequested, ptr, requested, stream);
        self.life_on_free(i);
        let ps = pool.stat();
        stats::dec(&mut self.stats.allocation, ps, 1);
        stats::dec(&mut self.stats.allocated_bytes, ps, size);
        if size >= self.cfg.max_split_size {
            self.stats.oversize_allocations.decrease(1);
        }
        if has_uses {
            self.insert_events(i)
        } else {
            self.free_block(i);
            Ok(())
        }
    }

    /// Mark an allocation as used on `stream` too: it will not be reused until work
    /// queued on `stream` before its free has completed.
    pub fn record_stream(&mut self, h: BlockHandle, stream: StreamId) -> AllocResult<()> {
        let i = self.resolve(h)?;
        let b = &mut self.blocks[i as usize];
        if stream != b.stream && !b.stream_uses.contains(&stream) {
            b.stream_uses.push(stream);
        }
        Ok(())
    }

    fn free_block(&mut self, i: u32) {
        let (orig_size, requested, prev, next, pool, ptr, stream) = {
            let b = &self.blocks[i as usize];
            (b.size, b.requested, b.prev, b.next, b.pool, b.ptr, b.stream)
        };
        self.record(Action::FreeCompleted, ptr, requested, stream);
        let mut net_blocks: i64 = 0;
        let mut net_size: i64 = 0;
        // The merged block takes over a merged neighbour's free-list entry.
        let mut entries = [None, None];
        for (cand, entry) in [prev, next].into_iter().zip(&mut entries) {
            let (s, e) = self.merge_keeping_entry(i, cand);
            *entry = e;
            if s > 0 {
                net_blocks -= 1;
                net_size -= s as i64;
            }
        }
        match entries {
            [None, None] => self.insert_into_blocks(i),
            [Some(old), None] | [None, Some(old)] => self.replace_in_blocks(old, i),
            [Some(old), Some(other)] => {
                self.pool_mut(pool).blocks.remove(other);
                self.replace_in_blocks(old, i);
            }
        }
        let b = &self.blocks[i as usize];
        if b.is_split() {
            net_blocks += 1;
            net_size += b.size as i64;
        }
        let expandable = b.seg != NIL;
        let ps = pool.stat();
        let st = &mut self.stats;
        if !expandable {
            if net_blocks > 0 {
                stats::inc(&mut st.inactive_split, ps, net_blocks as u64);
            } else if net_blocks < 0 {
                stats::dec(&mut st.inactive_split, ps, (-net_blocks) as u64);
            }
            if net_size > 0 {
                stats::inc(&mut st.inactive_split_bytes, ps, net_size as u64);
            } else if net_size < 0 {
                stats::dec(&mut st.inactive_split_bytes, ps, (-net_size) as u64);
            }
        }
        stats::dec(&mut st.active, ps, 1);
        stats::dec(&mut st.active_bytes, ps, orig_size);
        stats::dec(&mut st.requested_bytes, ps, requested);
    }

    // ----- events -----

    fn insert_events(&mut self, i: u32) -> AllocResult<()> {
        let uses = self.blocks[i as usize].stream_uses.take();
        for s in uses {
            let e = self.dev.record_event(s)?;
            self.blocks[i as usize].event_count += 1;
            match self.cuda_events.iter_mut().find(|(st, _)| *st == s) {
                Some((_, q)) => q.push_back((e, i)),
                None => self.cuda_events.push((s, VecDeque::from([(e, i)]))),
            }
        }
        Ok(())
    }

    fn process_events(&mut self) -> AllocResult<()> {
        if self.cuda_events.is_empty() {
            return Ok(());
        }
        let mut si = 0;
        while si < self.cuda_events.len() {
            while let Some(&(e, b)) = self.cuda_events[si].1.front() {
                if !self.dev.query_event(e)? {
                    break;
                }
                self.cuda_events[si].1.pop_front();
                self.dev.release_event(e)?;
                let blk = &mut self.blocks[b as usize];
                blk.event_count -= 1;
                if blk.event_count == 0 {
                    self.free_block(b);
                }
            }
            if self.cuda_events[si].1.is_empty() {
                self.cuda_events.remove(si);
            } else {
                si += 1;
            }
        }
        Ok(())
    }

    fn synchronize_and_free_events(&mut self) -> AllocResult<()> {
        self.stats.num_sync_all_streams += 1;
        let all = std::mem::take(&mut self.cuda_events);
        for (_, q) in all {
            for (e, b) in q {
                self.dev.synchronize_event(e)?;
                self.dev.release_event(e)?;
                let blk = &mut self.blocks[b as usize];
                blk.event_count -= 1;
                if blk.event_count == 0 {
                    self.free_block(b);
                }
            }
        }
        Ok(())
    }

    // ----- whole-cache operations -----

    /// Release every cached block that is not part of a partly used segment.
    pub fn empty_cache(&mut self) -> AllocResult<()> {
        self.release_cached_blocks()
    }

    /// Free every live allocation and release all cached memory (teardown).
    pub fn release_all(&mut self) -> AllocResult<()> {
        let live: Vec<u32> = (0..self.blocks.len() as u32)
            .filter(|&i| {
                let b = &self.blocks[i as usize];
                b.in_use && b.allocated
            })
            .collect();
        for i in live {
            self.free_index(i)?;
        }
        self.empty_cache()
    }
}
