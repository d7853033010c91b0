//! Expandable segments: a reserved virtual range per pool and stream into which physical
//! chunks are mapped and unmapped (PyTorch's `ExpandableSegment`), one page per chunk
//! under PyTorch's policy, or the chunks stridekit's policy plans ([`super::chunks`]).
//! Mechanism only: where a request goes is decided by the policy above.

use super::block::{ExpandableSegment, NIL, PoolKind};
use super::chunks;
use super::device::{DeviceError, RawDevice, StreamId};
use super::error::AllocResult;
use super::sizes::{GRANULE, K_LARGE_BUFFER, K_SMALL_BUFFER};
use super::sorted::SortedMap;
use super::state::{Action, DeviceCachingAllocator, Side};
use super::stats;

impl<D: RawDevice> DeviceCachingAllocator<D> {
    pub(crate) fn find_expandable_block(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        size: u64,
    ) -> AllocResult<u32> {
        let p = match pool {
            PoolKind::Small => &self.small,
            PoolKind::Large => &self.large,
        };
        let cands = p.unmapped.from(&(stream, 0)).iter();
        for &(_, c0) in cands.take_while(|((s, _), _)| *s == stream) {
            let mut c = c0;
            let prev = self.blocks[c as usize].prev;
            if self.allocatable(prev) {
                c = prev;
            }
            let mut bytes = 0u64;
            let mut b = c;
            while bytes < size && self.allocatable(b) {
                bytes += self.blocks[b as usize].size;
                b = self.blocks[b as usize].next;
            }
            if bytes >= size {
                return Ok(c);
            }
        }
        let page = match pool {
            PoolKind::Small => K_SMALL_BUFFER,
            PoolKind::Large if self.cfg.is_stridekit() => GRANULE,
            PoolKind::Large => K_LARGE_BUFFER,
        };
        // Saturating and clamped: a huge device total (a caller's simulated capacity) makes
        // the largest reservation that fits an address, never an overflow.
        let space = self.device_total.saturating_add(self.device_total / 8);
        let max_pages = space.div_ceil(page).clamp(1, u64::MAX / page);
        let base = self.dev.reserve(page * max_pages, page)?;
        let seg = ExpandableSegment {
            base,
            page,
            max_pages,
            chunks: SortedMap::new(),
            stream,
            live: true,
        };
        self.segs.push(seg);
        let si = (self.segs.len() - 1) as u32;
        let rank = self.stream_rank(stream);
        let mut b = Self::blank(stream, rank, page * max_pages, pool, base);
        b.mapped = false;
        b.seg = si;
        let i = self.new_block(b);
        self.insert_unmapped(i);
        Ok(i)
    }

    /// Map chunks at `[ptr, ptr+size)` (`ptr` starts an unmapped block of `room` bytes):
    /// PyTorch's pages covering the range, or the chunks stridekit's policy plans there
    /// ([`chunks::chunk_plan`]). Returns the mapped (ptr, size), size 0 on out of memory.
    pub(super) fn seg_map(
        &mut self,
        si: u32,
        ptr: u64,
        size: u64,
        room: u64,
        pool: PoolKind,
    ) -> AllocResult<(u64, u64)> {
        let (base, page) = {
            let s = &self.segs[si as usize];
            (s.base, s.page)
        };
        let mut plan = std::mem::take(&mut self.scratch.plan);
        plan.clear();
        // Slack feedback (off by default) watches the large pool's growths.
        let feedback = self.cfg.is_stridekit()
            && self.cfg.stridekit.slack_decay > 0
            && pool == PoolKind::Large;
        if self.cfg.is_stridekit() {
            let mut params = self.cfg.stridekit;
            if self.life.exact_growth {
                params.min_chunk = super::sizes::GRANULE;
            } else if feedback {
                let decay = params.slack_decay;
                params.min_chunk = self.slack.least_growth(ptr, params.min_chunk, decay);
            }
            let cap = self.share_slack_cap();
            let reserved = self.stats.reserved_bytes[pool.stat()].current as u64;
            chunks::chunk_plan(
                &params,
                &mut self.spare_chunks,
                (ptr, size, room),
                pool,
                cap,
                reserved,
                &mut plan,
            );
        } else {
            let begin = (ptr - base) / page;
            let end = (ptr + size - base).div_ceil(page);
            plan.extend((begin..end).map(|_| (page, false)));
        }
        let r = self.map_plan(si, ptr, &plan);
        self.scratch.plan = plan;
        if let Ok((at, len)) = r
            && len > 0
            && feedback
        {
            self.slack.grew(ptr + size, at + len);
        }
        r
    }

    /// Map the chunks of `plan` one after the other from `ptr`; on out of memory, unmap
    /// those already mapped and return size 0.
    fn map_plan(&mut self, si: u32, ptr: u64, plan: &[(u64, bool)]) -> AllocResult<(u64, u64)> {
        let mut at = ptr;
        for (k, &(len, spare)) in plan.iter().enumerate() {
            let r = if spare {
                self.dev.map_spare(at, len)
            } else {
                self.dev.map_page(at, len)
            };
            match r {
                Ok(()) => {
                    self.segs[si as usize].chunks.insert(at, len);
                    at += len;
                }
                Err(DeviceError::OutOfMemory) => {
                    let mut p = ptr;
                    for &(l, _) in &plan[..k] {
                        self.dev.unmap_page(p, l)?;
                        self.segs[si as usize].chunks.remove(&p);
                        p += l;
                    }
                    return Ok((ptr, 0));
                }
                Err(DeviceError::Other(e)) => return Err(e),
            }
        }
        Ok((ptr, at - ptr))
    }

    /// Unmap the chunks lying wholly inside `[lo, hi)` (`keep`: keep their physical
    /// memory as spare chunks); returns the unmapped (ptr, size).
    pub(super) fn seg_unmap(
        &mut self,
        si: u32,
        lo: u64,
        hi: u64,
        keep: bool,
    ) -> AllocResult<(u64, u64)> {
        let stream = self.segs[si as usize].stream;
        // The whole chunks of [lo, hi), first to last: each is removed once unmapped, so
        // the next one is always the first left.
        let mut run: Option<(u64, u64)> = None;
        loop {
            let first = self.segs[si as usize].whole_chunks(lo, hi).next();
            let Some((p, len)) = first else { break };
            if run.is_none() {
                self.dev.synchronize_stream(stream)?;
            }
            if keep {
                self.dev.unmap_page_keep(p, len)?;
                self.spare_chunks.push(len);
            } else {
                self.dev.unmap_page(p, len)?;
            }
            self.segs[si as usize].chunks.remove(&p);
            run = Some((run.map_or(p, |r| r.0), p + len));
        }
        Ok(run.map_or((lo, 0), |(first, end)| (first, end - first)))
    }

    pub(super) fn map_block(&mut self, to_map: u32, size: u64) -> AllocResult<bool> {
        let (ptr, seg, bsize, stream, rank, pool) = {
            let b = &self.blocks[to_map as usize];
            (b.ptr, b.seg, b.size, b.stream, b.rank, b.pool)
        };
        let (mptr, msize) = self.seg_map(seg, ptr, size, bsize, pool)?;
        if msize == 0 {
            return Ok(false);
        }
        debug_assert_eq!(mptr, ptr);
        self.erase_unmapped(to_map);
        self.blocks[to_map as usize].mapped = true;
        if msize < bsize {
            let mut r = Self::blank(stream, rank, bsize - msize, pool, ptr + msize);
            r.mapped = false;
            r.seg = seg;
            let ri = self.link(to_map, r, Side::After);
            self.insert_unmapped(ri);
            self.blocks[to_map as usize].size = msize;
        }
        let prev = self.blocks[to_map as usize].prev;
        self.try_merge_blocks(to_map, prev);
        let next = self.blocks[to_map as usize].next;
        self.try_merge_blocks(to_map, next);
        self.insert_into_blocks(to_map);
        self.total_allocated_memory += msize;
        self.record(Action::SegmentMap, mptr, msize, stream);
        stats::inc(&mut self.stats.reserved_bytes, pool.stat(), msize);
        self.stats.num_device_alloc += 1;
        Ok(true)
    }

    pub(crate) fn try_allocate_expandable_block(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        size: u64,
    ) -> AllocResult<Option<u32>> {
        let c = self.find_expandable_block(stream, pool, size)?;
        self.allocate_expandable_at(c, size)
    }

    /// Allocate `size` bytes starting at block `c` of an expandable segment (a free block,
    /// mapped or not, with enough free address space after it), mapping what is needed.
    pub(crate) fn allocate_expandable_at(
        &mut self,
        mut c: u32,
        size: u64,
    ) -> AllocResult<Option<u32>> {
        let (mapped, csize) = {
            let b = &self.blocks[c as usize];
            (b.mapped, b.size)
        };
        if !mapped && !self.map_block(c, csize.min(size))? {
            return Ok(None);
        }
        while self.blocks[c as usize].size < size {
            let remaining = size - self.blocks[c as usize].size;
            let nc = self.blocks[c as usize].next;
            if nc == NIL {
                return Ok(None);
            }
            let nsize = self.blocks[nc as usize].size;
            if !self.map_block(nc, remaining.min(nsize))? {
                return Ok(None);
            }
            c = nc;
        }
        self.erase_from_blocks(c);
        Ok(Some(c))
    }

    pub(super) fn unmap_block(&mut self, i: u32) -> AllocResult<()> {
        let b = &self.blocks[i as usize];
        self.unmap_block_chunks(i, (b.ptr, b.ptr + b.size), false)
    }

    /// Unmap the chunks of free block `i` lying wholly inside `range` (`keep`: as spare
    /// chunks), splitting the block into mapped and unmapped blocks.
    pub(crate) fn unmap_block_chunks(
        &mut self,
        i: u32,
        range: (u64, u64),
        keep: bool,
    ) -> AllocResult<()> {
        let (ptr, size, seg, stream, rank, pool) = {
            let b = &self.blocks[i as usize];
            (b.ptr, b.size, b.seg, b.stream, b.rank, b.pool)
        };
        let lo = range.0.max(ptr);
        let hi = range.1.min(ptr + size);
        let (uptr, usize_) = self.seg_unmap(seg, lo, hi, keep)?;
        if usize_ == 0 {
            return Ok(());
        }
        self.erase_from_blocks(i);
        let before = uptr - ptr;
        if before > 0 {
            let mut bf = Self::blank(stream, rank, before, pool, ptr);
            bf.seg = seg;
            let bi = self.link(i, bf, Side::Before);
            self.insert_into_blocks(bi);
        }
        let after = size - (before + usize_);
        if after > 0 {
            let mut af = Self::blank(stream, rank, after, pool, uptr + usize_);
            af.seg = seg;
            let ai = self.link(i, af, Side::After);
            self.insert_into_blocks(ai);
        }
        {
            let b = &mut self.blocks[i as usize];
            b.ptr = uptr;
            b.size = usize_;
            b.mapped = false;
        }
        let prev = self.blocks[i as usize].prev;
        self.try_merge_blocks(i, prev);
        let next = self.blocks[i as usize].next;
        self.try_merge_blocks(i, next);
        self.insert_unmapped(i);
        self.total_allocated_memory -= usize_;
        self.record(Action::SegmentUnmap, uptr, usize_, stream);
        stats::dec(&mut self.stats.reserved_bytes, pool.stat(), usize_);
        self.stats.num_device_free += 1;
        Ok(())
    }

    pub(super) fn release_expandable_segment(&mut self, i: u32) -> AllocResult<()> {
        let seg = self.blocks[i as usize].seg;
        let (base, size) = {
            let s = &mut self.segs[seg as usize];
            s.live = false;
            (s.base, s.size())
        };
        self.erase_unmapped(i);
        self.delete_block(i);
        self.dev.release_reservation(base, size)
    }
}
