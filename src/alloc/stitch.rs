//! stridekit's own policy (`policy:stridekit` in the settings string): expandable
//! segments whose free physical pages are stitched to where memory is needed.
//!
//! PyTorch's expandable segments map new pages at the end of a segment whenever no free
//! mapped block fits a request, and unmap free pages only when the device runs out; free
//! pages stranded between live blocks stay mapped, so reserved memory is the high-water
//! mark of the segment's extent, not of what is live. Here:
//!
//! - a request that no free mapped block fits goes where it maps the fewest new pages
//!   (a free block followed by unmapped address space, a hole left by earlier stitching,
//!   or the end of the segment);
//! - before mapping them, as many whole free pages as it needs are taken from free blocks
//!   elsewhere (lowest addresses first, the top pages of each block): each is unmapped
//!   with its physical memory kept (`cuMemUnmap`, the handle kept) and mapped again where
//!   the request lands (`cuMemMap` + `cuMemSetAccess`, no `cuMemCreate`), as GMLake
//!   stitches physical chunks into new virtual ranges. Pages are created only when no
//!   free whole page is left, so reserved memory follows the pages live blocks touch;
//! - the large pool maps 16 MiB pages (PyTorch: 20 MiB): a boundary strands less, while
//!   a page still costs one create and one map; 2 MiB pages would strand even less but
//!   need about ten times PyTorch's device calls;
//! - `max_split_size` does not apply to blocks of expandable segments (under PyTorch it
//!   only makes them grow, pytorch/pytorch#123548).
//!
//! Device calls: a stitched page costs one unmap and one map, a new page one create and
//! one map; the simulated device counts them ([`super::device::DeviceCalls`]). On a GPU
//! the same calls go through cudarc's `cuMemUnmap` / `cuMemMap` / `cuMemSetAccess`
//! ([`super::CudaDevice`]); that path compiles but has not run on a GPU yet.

use super::device::{RawDevice, StreamId};
use super::error::AllocResult;
use super::policy::{DeviceCachingAllocator, NIL, PoolKind};

/// Page size of the large pool's expandable segments under stridekit's policy.
pub const LARGE_PAGE: u64 = 16 << 20;

impl<D: RawDevice> DeviceCachingAllocator<D> {
    /// New pages a request of `size` bytes starting at free block `c` maps, walking the
    /// free blocks after it as the mapping will; None when they do not reach `size`.
    fn pages_needed(&self, c: u32, size: u64) -> Option<u64> {
        let first = &self.blocks[c as usize];
        let seg = &self.segs[first.seg as usize];
        let (base, page) = (seg.base, seg.page);
        let (mut bytes, mut pages, mut i) = (0u64, 0u64, c);
        while bytes < size && self.allocatable(i) {
            let b = &self.blocks[i as usize];
            let take = b.size.min(size - bytes);
            if !b.mapped {
                pages += (b.ptr + take - base).div_ceil(page) - (b.ptr - base) / page;
            }
            bytes += take;
            i = b.next;
        }
        (bytes >= size).then_some(pages)
    }

    /// Where a request of `size` bytes lands in the pool's expandable segments: of the
    /// places with enough free address space, the one that maps the fewest new pages
    /// (then the lowest address); returns (first block, extent to keep clear, pages).
    fn placement(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        size: u64,
    ) -> AllocResult<(u32, (u64, u64), u64)> {
        let unmapped: Vec<u32> = match pool {
            PoolKind::Small => &self.small,
            PoolKind::Large => &self.large,
        }
        .unmapped
        .range((stream, 0)..)
        .take_while(|(k, _)| k.0 == stream)
        .map(|(_, &v)| v)
        .collect();
        let mut best: Option<(u64, u32)> = None;
        for u in unmapped {
            let prev = self.blocks[u as usize].prev;
            let c = if self.allocatable(prev) { prev } else { u };
            if let Some(n) = self.pages_needed(c, size)
                && best.is_none_or(|(m, _)| n < m)
            {
                best = Some((n, c));
            }
        }
        let (pages, c) = match best {
            Some(b) => b,
            None => {
                let c = self.find_expandable_block(stream, pool, size)?;
                (self.pages_needed(c, size).unwrap_or(0), c)
            }
        };
        let b = &self.blocks[c as usize];
        let page = self.segs[b.seg as usize].page;
        Ok((c, (b.ptr.saturating_sub(page), b.ptr + size + page), pages))
    }

    /// Unmap up to `pages` whole free pages of the pool's expandable segments on `stream`,
    /// keeping their physical memory as spare pages; blocks overlapping `keep` (the
    /// extent a request is about to use), and the neighbours of the request's first block
    /// `c` and of the unmapped block after it (so that neither is merged away), are left
    /// alone.
    fn take_free_pages(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        mut pages: u64,
        keep: (u64, u64),
        c: u32,
    ) -> AllocResult<()> {
        let cb = &self.blocks[c as usize];
        let u = if cb.mapped { cb.next } else { c };
        let near = |i: u32| {
            let b = &self.blocks[i as usize];
            i == c || i == u || [c, u].contains(&b.prev) || [c, u].contains(&b.next)
        };
        let pool_blocks = match pool {
            PoolKind::Small => &self.small.blocks,
            PoolKind::Large => &self.large.blocks,
        };
        let mut cands: Vec<(u64, u32, u64)> = Vec::new();
        for &i in pool_blocks.values() {
            let b = &self.blocks[i as usize];
            if b.seg == NIL || b.stream != stream || !self.allocatable(i) {
                continue;
            }
            if (b.ptr < keep.1 && b.ptr + b.size > keep.0) || near(i) {
                continue;
            }
            let s = &self.segs[b.seg as usize];
            let whole = ((b.ptr + b.size - s.base) / s.page)
                .saturating_sub((b.ptr - s.base).div_ceil(s.page));
            if whole > 0 {
                cands.push((b.ptr, i, whole));
            }
        }
        cands.sort_unstable_by_key(|c| c.0);
        for (_, i, whole) in cands {
            if pages == 0 {
                break;
            }
            let n = whole.min(pages);
            self.unmap_block_pages(i, Some(n), true)?;
            pages -= n;
        }
        Ok(())
    }

    /// Allocate `size` bytes from the pool's expandable segment, mapping stitched free
    /// pages before creating new ones.
    pub(crate) fn try_allocate_stitched_block(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        size: u64,
    ) -> AllocResult<Option<u32>> {
        let (c, keep, pages) = self.placement(stream, pool, size)?;
        if pages > 0 {
            self.take_free_pages(stream, pool, pages, keep, c)?;
        }
        let found = self.allocate_expandable_at(c, size);
        // Pages taken but not mapped again (the request failed) go back to the device.
        self.dev.release_spare_pages()?;
        found
    }
}

#[cfg(test)]
mod tests {
    use crate::alloc::{AllocConfig, DeviceCachingAllocator, SimulatedDevice};

    const MIB: u64 = 1 << 20;

    /// A freed block's pages are stitched to the end of the segment instead of new pages.
    #[test]
    fn free_pages_move_to_where_a_request_lands() {
        let run = |setting: &str| {
            let mut a = DeviceCachingAllocator::new(
                SimulatedDevice::new(16 << 30),
                AllocConfig::parse(setting).unwrap(),
            )
            .unwrap();
            let x = a.malloc(64 * MIB, 0).unwrap();
            let _y = a.malloc(64 * MIB, 0).unwrap();
            a.free(x).unwrap();
            let z = a.malloc(96 * MIB, 0).unwrap();
            assert!(z.ptr > x.ptr);
            (a.stats().reserved_bytes[0].peak as u64, a.device().calls)
        };
        let (reserved, calls) = run("policy:stridekit");
        // 4 + 4 pages of 16 MiB, then x's 4 pages move and 2 are created for z.
        assert_eq!(reserved, 160 * MIB);
        assert_eq!(calls.page_creates, 10);
        assert_eq!(calls.page_maps, 14);
        assert_eq!(calls.page_unmaps, 4);
        assert_eq!(calls.page_releases, 0);
        let (pytorch, _) = run("expandable_segments:True");
        assert!(pytorch > reserved, "{pytorch} <= {reserved}");
    }

    /// Out of memory under the policy: nothing is left behind as spare pages.
    #[test]
    fn failed_requests_release_the_pages_they_took() {
        let mut a = DeviceCachingAllocator::new(
            SimulatedDevice::new(256 * MIB),
            AllocConfig::parse("policy:stridekit").unwrap(),
        )
        .unwrap();
        let x = a.malloc(64 * MIB, 0).unwrap();
        let _y = a.malloc(64 * MIB, 0).unwrap();
        a.free(x).unwrap();
        assert!(a.malloc(300 * MIB, 0).is_err());
        let used = a.device().used();
        assert_eq!(used as i64, a.stats().reserved_bytes[0].current);
    }
}
