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

use std::collections::{BTreeMap, VecDeque};

use super::config::AllocConfig;
use super::device::{DeviceError, EventId, RawDevice, StreamId};
use super::error::{AllocError, AllocResult, OutOfMemory};
use super::stats::{self, DeviceStats, LARGE_POOL, SMALL_POOL};

/// All sizes are rounded to at least 512 bytes.
pub const K_MIN_BLOCK_SIZE: u64 = 512;
/// Largest "small" request: 1 MiB.
pub const K_SMALL_SIZE: u64 = 1 << 20;
/// Small requests are packed in 2 MiB segments.
pub const K_SMALL_BUFFER: u64 = 2 << 20;
/// Large requests below [`K_MIN_LARGE_ALLOC`] are packed in 20 MiB segments.
pub const K_LARGE_BUFFER: u64 = 20 << 20;
/// Requests from 10 MiB on get a segment of their own size (rounded to 2 MiB).
pub const K_MIN_LARGE_ALLOC: u64 = 10 << 20;
/// Large segments are rounded up to 2 MiB.
pub const K_ROUND_LARGE: u64 = 2 << 20;

pub(crate) const NIL: u32 = u32::MAX;

/// Sizes at or above this cannot be packed into a free-list key (256 TiB); no device has
/// that much memory, so such requests fail as out of memory.
pub const MAX_BLOCK_SIZE: u64 = 1 << 48;

/// Free-list key: (stream rank, size, address) packed so that integer order is PyTorch's
/// (stream, size, address) order.
#[inline]
pub(crate) fn fkey(rank: u16, size: u64, ptr: u64) -> u128 {
    ((((rank as u64) << 48) | size) as u128) << 64 | ptr as u128
}
#[inline]
fn key_rank(k: u128) -> u16 {
    (k >> 112) as u16
}
#[inline]
fn key_size(k: u128) -> u64 {
    ((k >> 64) as u64) & (MAX_BLOCK_SIZE - 1)
}

/// Which pool a block belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolKind {
    Small,
    Large,
}

impl PoolKind {
    #[inline]
    fn stat(self) -> usize {
        match self {
            PoolKind::Small => SMALL_POOL,
            PoolKind::Large => LARGE_POOL,
        }
    }
}

/// A handle to a live allocation. Valid until passed to `free`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    /// The device address of the allocation.
    pub ptr: u64,
    /// The rounded size of the block in bytes.
    pub size: u64,
}

/// The streams other than its own that a block was used on (rarely any; boxed so that
/// blocks stay small).
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamUses(Option<Box<[StreamId]>>);

impl StreamUses {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
    pub fn contains(&self, s: &StreamId) -> bool {
        self.0.as_ref().is_some_and(|v| v.contains(s))
    }
    pub fn push(&mut self, s: StreamId) {
        let mut v = self.take();
        v.push(s);
        self.0 = Some(v.into_boxed_slice());
    }
    #[inline]
    pub fn clear(&mut self) {
        self.0 = None;
    }
    pub fn take(&mut self) -> Vec<StreamId> {
        self.0.take().map(|b| b.into_vec()).unwrap_or_default()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub ptr: u64,
    pub size: u64,
    pub requested: u64,
    pub stream: StreamId,
    /// Rank of `stream` among the streams seen so far (ordered like the stream values).
    pub rank: u16,
    pub prev: u32,
    pub next: u32,
    pub pool: PoolKind,
    pub allocated: bool,
    pub mapped: bool,
    pub in_use: bool,
    pub seg: u32,
    pub event_count: u32,
    pub generation: u32,
    pub stream_uses: StreamUses,
    pub gc_count_base: i64,
}

impl Block {
    #[inline]
    fn is_split(&self) -> bool {
        self.prev != NIL || self.next != NIL
    }
}

#[derive(Debug, Default)]
pub(crate) struct BlockPool {
    /// Free mapped blocks by (stream, size, address), packed by [`fkey`].
    pub blocks: BTreeMap<u128, u32>,
    /// Unmapped address ranges of expandable segments by (stream, address).
    pub unmapped: BTreeMap<(StreamId, u64), u32>,
    pub get_free_blocks_call_count: i64,
}

/// An expandable segment: a reserved address range into which physical chunks are
/// mapped. Under PyTorch's policy every chunk is one page (`page` bytes, at a multiple of
/// `page` from `base`); under stridekit's, `page` is the 2 MiB granularity and a chunk is
/// any multiple of it ([`super::stitch`]).
#[derive(Debug, Clone)]
pub(crate) struct ExpandableSegment {
    pub base: u64,
    pub page: u64,
    pub max_pages: u64,
    /// The mapped chunks: address -> size (each one cuMemCreate handle).
    pub chunks: BTreeMap<u64, u64>,
    pub stream: StreamId,
    pub live: bool,
}

impl ExpandableSegment {
    fn size(&self) -> u64 {
        self.page * self.max_pages
    }

    /// The mapped chunks lying wholly inside `[ptr, end)`, by address: (address, size).
    pub(crate) fn whole_chunks(&self, ptr: u64, end: u64) -> impl Iterator<Item = (u64, u64)> {
        self.chunks
            .range(ptr..end)
            .map(|(&p, &s)| (p, s))
            .filter(move |&(p, s)| p + s <= end)
    }
}

struct Params {
    size: u64,
    stream: StreamId,
    rank: u16,
    pool: PoolKind,
    alloc_size: u64,
}

/// The per-device caching allocator (not thread-safe; wrap it in
/// [`super::CachingAllocator`] to share it).
pub struct DeviceCachingAllocator<D: RawDevice> {
    pub(crate) dev: D,
    pub(crate) cfg: AllocConfig,
    pub(crate) stats: DeviceStats,
    pub(crate) blocks: Vec<Block>,
    free_slots: Vec<u32>,
    pub(crate) small: BlockPool,
    pub(crate) large: BlockPool,
    cuda_events: Vec<(StreamId, VecDeque<(EventId, u32)>)>,
    pub(crate) total_allocated_memory: u64,
    allowed_memory_maximum: u64,
    set_fraction: bool,
    pub(crate) segs: Vec<ExpandableSegment>,
    device_total: u64,
    /// Streams seen so far, sorted by value; a block's rank indexes this list.
    streams: Vec<StreamId>,
    last_stream: (StreamId, u16),
    /// The allocator's history in the form of a snapshot's `device_traces`, when recording.
    history: Option<Vec<HistoryEntry>>,
    /// Sizes of the chunks unmapped with their physical memory kept (stridekit's policy),
    /// in the order they are to be mapped again; the device holds the same spares.
    pub(crate) spare_chunks: Vec<u64>,
}

/// What a history entry records (PyTorch's `TraceEntry` actions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Oom,
}

impl Action {
    /// The action's name in a snapshot.
    pub fn name(self) -> &'static str {
        match self {
            Action::Alloc => "alloc",
            Action::FreeRequested => "free_requested",
            Action::FreeCompleted => "free_completed",
            Action::SegmentAlloc => "segment_alloc",
            Action::SegmentFree => "segment_free",
            Action::SegmentMap => "segment_map",
            Action::SegmentUnmap => "segment_unmap",
            Action::Oom => "oom",
        }
    }
}

/// One entry of the allocator's history: for `alloc` and frees the block address and the
/// requested size, for segments the range, for `oom` the free device memory in `addr`
/// and the size that was tried (as PyTorch records them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryEntry {
    pub action: Action,
    pub addr: u64,
    pub size: u64,
    pub stream: StreamId,
}

impl<D: RawDevice> DeviceCachingAllocator<D> {
    /// A caching allocator over `dev` with settings `cfg`.
    pub fn new(mut dev: D, cfg: AllocConfig) -> AllocResult<Self> {
        let (_, total) = dev.mem_info()?;
        let mut a = DeviceCachingAllocator {
            dev,
            stats: DeviceStats {
                max_split_size: if cfg.max_split_size == u64::MAX {
                    -1
                } else {
                    cfg.max_split_size as i64
                },
                ..DeviceStats::default()
            },
            cfg,
            blocks: Vec::with_capacity(1024),
            free_slots: Vec::new(),
            small: BlockPool::default(),
            large: BlockPool::default(),
            cuda_events: Vec::new(),
            total_allocated_memory: 0,
            allowed_memory_maximum: 0,
            set_fraction: false,
            segs: Vec::new(),
            device_total: total,
            streams: Vec::new(),
            last_stream: (StreamId::MAX, u16::MAX),
            history: None,
            spare_chunks: Vec::new(),
        };
        if let Some(f) = a.cfg.per_process_memory_fraction {
            a.set_memory_fraction(f)?;
        }
        Ok(a)
    }

    /// The settings in force.
    pub fn config(&self) -> &AllocConfig {
        &self.cfg
    }

    /// The device underneath.
    pub fn device(&self) -> &D {
        &self.dev
    }

    /// The device underneath, mutably (e.g. to complete simulated events).
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.dev
    }

    /// Current statistics.
    pub fn stats(&self) -> &DeviceStats {
        &self.stats
    }

    /// Start (or stop) recording the history of allocations and device calls.
    pub fn record_history(&mut self, on: bool) {
        self.history = if on { Some(Vec::new()) } else { None };
    }

    /// The recorded history (empty when not recording).
    pub fn history(&self) -> &[HistoryEntry] {
        self.history.as_deref().unwrap_or(&[])
    }

    #[inline]
    fn record(&mut self, action: Action, addr: u64, size: u64, stream: StreamId) {
        if let Some(h) = &mut self.history {
            h.push(HistoryEntry {
                action,
                addr,
                size,
                stream,
            });
        }
    }

    /// Peaks back to current values.
    pub fn reset_peak_stats(&mut self) {
        self.stats.reset_peak();
    }

    /// Accumulated counters back to zero.
    pub fn reset_accumulated_stats(&mut self) {
        self.stats.reset_accumulated();
    }

    /// Limit the memory this allocator may hold to `fraction` of the device's total.
    pub fn set_memory_fraction(&mut self, fraction: f64) -> AllocResult<()> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(AllocError::config(
                "per_process_memory_fraction",
                format!("{fraction} is not in (0, 1]"),
            ));
        }
        let (_, total) = self.dev.mem_info()?;
        self.allowed_memory_maximum = (fraction * total as f64) as u64;
        self.set_fraction = true;
        Ok(())
    }

    // ----- rounding -----

    /// Round a request to the size of the block that serves it.
    #[inline]
    pub fn round_size(&self, size: u64) -> u64 {
        round_size(&self.cfg, size)
    }

    // ----- block arena -----

    #[inline]
    fn new_block(&mut self, b: Block) -> u32 {
        if let Some(i) = self.free_slots.pop() {
            let generation = self.blocks[i as usize].generation;
            self.blocks[i as usize] = Block { generation, ..b };
            i
        } else {
            self.blocks.push(b);
            (self.blocks.len() - 1) as u32
        }
    }

    /// Adds `b` to the block table and links it into `at`'s segment list just before `at`.
    fn link_before(&mut self, at: u32, mut b: Block) -> u32 {
        let prev = self.blocks[at as usize].prev;
        b.prev = prev;
        b.next = at;
        let bi = self.new_block(b);
        if prev != NIL {
            self.blocks[prev as usize].next = bi;
        }
        self.blocks[at as usize].prev = bi;
        bi
    }

    /// Adds `b` to the block table and links it into `at`'s segment list just after `at`.
    fn link_after(&mut self, at: u32, mut b: Block) -> u32 {
        let next = self.blocks[at as usize].next;
        b.prev = at;
        b.next = next;
        let bi = self.new_block(b);
        if next != NIL {
            self.blocks[next as usize].prev = bi;
        }
        self.blocks[at as usize].next = bi;
        bi
    }

    #[inline]
    fn delete_block(&mut self, i: u32) {
        let b = &mut self.blocks[i as usize];
        b.in_use = false;
        b.allocated = false;
        b.generation = b.generation.wrapping_add(1);
        b.stream_uses.clear();
        self.free_slots.push(i);
    }

    fn blank(stream: StreamId, rank: u16, size: u64, pool: PoolKind, ptr: u64) -> Block {
        Block {
            ptr,
            size,
            requested: 0,
            stream,
            rank,
            prev: NIL,
            next: NIL,
            pool,
            allocated: false,
            mapped: true,
            in_use: true,
            seg: NIL,
            event_count: 0,
            generation: 0,
            stream_uses: StreamUses::default(),
            gc_count_base: 0,
        }
    }

    #[inline]
    fn pool_mut(&mut self, p: PoolKind) -> &mut BlockPool {
        match p {
            PoolKind::Small => &mut self.small,
            PoolKind::Large => &mut self.large,
        }
    }

    #[inline]
    fn insert_into_blocks(&mut self, i: u32) {
        let b = &self.blocks[i as usize];
        let key = fkey(b.rank, b.size, b.ptr);
        let pool = b.pool;
        let p = self.pool_mut(pool);
        let base = p.get_free_blocks_call_count;
        p.blocks.insert(key, i);
        self.blocks[i as usize].gc_count_base = base;
    }

    #[inline]
    fn erase_from_blocks(&mut self, i: u32) -> bool {
        let b = &self.blocks[i as usize];
        let key = fkey(b.rank, b.size, b.ptr);
        let pool = b.pool;
        self.pool_mut(pool).blocks.remove(&key).is_some()
    }

    fn insert_unmapped(&mut self, i: u32) {
        let b = &self.blocks[i as usize];
        let key = (b.stream, b.ptr);
        let pool = b.pool;
        self.pool_mut(pool).unmapped.insert(key, i);
    }

    fn erase_unmapped(&mut self, i: u32) -> bool {
        let b = &self.blocks[i as usize];
        let key = (b.stream, b.ptr);
        let pool = b.pool;
        self.pool_mut(pool).unmapped.remove(&key).is_some()
    }

    /// Resolve a handle to its block index, checking it is live.
    pub(crate) fn resolve(&self, h: BlockHandle) -> AllocResult<u32> {
        match self.blocks.get(h.index as usize) {
            Some(b)
                if b.in_use && b.allocated && b.generation == h.generation && b.ptr == h.ptr =>
            {
                Ok(h.index)
            }
            _ => Err(AllocError::InvalidPointer(h.ptr)),
        }
    }

    fn handle(&self, i: u32) -> BlockHandle {
        let b = &self.blocks[i as usize];
        BlockHandle {
            index: i,
            generation: b.generation,
            ptr: b.ptr,
            size: b.size,
        }
    }

    // ----- streams -----

    /// The rank of `stream`, registering it on first sight. Ranks follow the order of the
    /// stream values, as PyTorch orders free blocks by the stream pointer; a new stream that
    /// sorts before known ones renumbers the free lists.
    #[inline]
    fn stream_rank(&mut self, stream: StreamId) -> u16 {
        if self.last_stream.0 == stream {
            return self.last_stream.1;
        }
        let r = match self.streams.binary_search(&stream) {
            Ok(r) => r as u16,
            Err(pos) => {
                self.streams.insert(pos, stream);
                if pos + 1 < self.streams.len() {
                    self.renumber_streams();
                }
                pos as u16
            }
        };
        self.last_stream = (stream, r);
        r
    }

    fn renumber_streams(&mut self) {
        for b in self.blocks.iter_mut() {
            if b.in_use
                && let Ok(r) = self.streams.binary_search(&b.stream)
            {
                b.rank = r as u16;
            }
        }
        for pool in [PoolKind::Small, PoolKind::Large] {
            let old = std::mem::take(&mut self.pool_mut(pool).blocks);
            let mut new = BTreeMap::new();
            for (_, i) in old {
                let b = &self.blocks[i as usize];
                new.insert(fkey(b.rank, b.size, b.ptr), i);
            }
            self.pool_mut(pool).blocks = new;
        }
    }

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
            return Err(AllocError::OutOfMemory(Box::new(OutOfMemory {
                tried: size,
                requested: orig_size,
                capacity: device_total,
                device_free,
                allocated: self.stats.allocated_bytes[0].current as u64,
                reserved: self.stats.reserved_bytes[0].current as u64,
                allowed: self.set_fraction.then_some(self.allowed_memory_maximum),
            })));
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
        let mut found = self.get_free_block(&p);
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
            return Err(AllocError::OutOfMemory(Box::new(OutOfMemory {
                tried: p.alloc_size,
                requested: orig_size,
                capacity: device_total,
                device_free,
                allocated: self.stats.allocated_bytes[0].current as u64,
                reserved: self.stats.reserved_bytes[0].current as u64,
                allowed: self.set_fraction.then_some(self.allowed_memory_maximum),
            })));
        };
        let split = self.should_split(block, size);
        let i = self.alloc_found_block(block, &p, orig_size, split);
        Ok(self.handle(i))
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

    fn get_free_block(&mut self, p: &Params) -> Option<u32> {
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
        let mut it = pool.blocks.range(fkey(p.rank, p.size, 0)..);
        let (mut key, mut idx) = match it.next() {
            Some((k, &v)) if key_rank(*k) == p.rank => (*k, v),
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
                for (k, &v) in it {
                    if blocks[idx as usize].seg != NIL
                        && key_rank(*k) == p.rank
                        && exp_size(v) < exp_size(idx)
                    {
                        key = *k;
                        idx = v;
                    } else {
                        break;
                    }
                }
            } else {
                let mut found = false;
                for (k, &v) in it {
                    if key_rank(*k) != p.rank {
                        return None;
                    }
                    if blocks[v as usize].seg == NIL {
                        key = *k;
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
        pool.blocks.remove(&key);
        Some(idx)
    }

    fn alloc_found_block(&mut self, i: u32, p: &Params, orig_size: u64, split: bool) -> u32 {
        let size = p.size;
        let ps = p.pool.stat();
        let already_split = self.blocks[i as usize].is_split();
        let mut block = i;
        if split {
            let remaining = i;
            let (r_ptr, r_seg) = {
                let r = &self.blocks[remaining as usize];
                (r.ptr, r.seg)
            };
            let mut nb = Self::blank(p.stream, p.rank, size, p.pool, r_ptr);
            nb.seg = r_seg;
            block = self.link_before(remaining, nb);
            {
                let rb = &mut self.blocks[remaining as usize];
                rb.ptr += size;
                rb.size -= size;
            }
            self.insert_into_blocks(remaining);
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
        let at = pool.blocks.range(fkey(p.rank, want, 0)..).next();
        match at {
            Some((k, &v)) if key_rank(*k) == p.rank && self.blocks[v as usize].seg == NIL => {
                self.release_block(v)?;
                Ok(true)
            }
            _ => {
                // No single block is large enough: free oversize blocks from the largest down.
                let candidates: Vec<(u128, u32)> = pool
                    .blocks
                    .range(..fkey(p.rank, want, 0))
                    .rev()
                    .map(|(k, &v)| (*k, v))
                    .collect();
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
        let list: Vec<u32> = self.pool_mut(pool).blocks.values().copied().collect();
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
        for &i in self.large.blocks.values() {
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
            let list: Vec<u32> = self.large.blocks.values().copied().collect();
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
        for cand in [prev, next] {
            let s = self.try_merge_blocks(i, cand);
            if s > 0 {
                net_blocks -= 1;
                net_size -= s as i64;
            }
        }
        self.insert_into_blocks(i);
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

    /// Merge `src` into `dst` if `src` is a free neighbour in the same mapping state.
    /// Returns the size subsumed (0 if no merge).
    fn try_merge_blocks(&mut self, dst: u32, src: u32) -> u64 {
        if src == NIL {
            return 0;
        }
        {
            let s = &self.blocks[src as usize];
            let d = &self.blocks[dst as usize];
            if s.allocated || s.event_count > 0 || !s.stream_uses.is_empty() || d.mapped != s.mapped
            {
                return 0;
            }
        }
        let (s_ptr, s_size, s_prev, s_next, s_mapped) = {
            let s = &self.blocks[src as usize];
            (s.ptr, s.size, s.prev, s.next, s.mapped)
        };
        if s_mapped {
            self.erase_from_blocks(src);
        } else {
            self.erase_unmapped(src);
        }
        if self.blocks[dst as usize].prev == src {
            let d = &mut self.blocks[dst as usize];
            d.ptr = s_ptr;
            d.prev = s_prev;
            if s_prev != NIL {
                self.blocks[s_prev as usize].next = dst;
            }
        } else {
            let d = &mut self.blocks[dst as usize];
            d.next = s_next;
            if s_next != NIL {
                self.blocks[s_next as usize].prev = dst;
            }
        }
        self.blocks[dst as usize].size += s_size;
        self.delete_block(src);
        s_size
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

    // ----- expandable segments -----

    pub(crate) fn allocatable(&self, i: u32) -> bool {
        if i == NIL {
            return false;
        }
        let b = &self.blocks[i as usize];
        !b.allocated && b.event_count == 0 && b.stream_uses.is_empty()
    }

    pub(crate) fn find_expandable_block(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        size: u64,
    ) -> AllocResult<u32> {
        let cands: Vec<u32> = {
            let p = match pool {
                PoolKind::Small => &self.small,
                PoolKind::Large => &self.large,
            };
            p.unmapped
                .range((stream, 0)..)
                .take_while(|(k, _)| k.0 == stream)
                .map(|(_, &v)| v)
                .collect()
        };
        for c0 in cands {
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
            PoolKind::Large if self.cfg.is_stridekit() => super::stitch::GRANULE,
            PoolKind::Large => K_LARGE_BUFFER,
        };
        let space = self.device_total + self.device_total / 8;
        let max_pages = space.div_ceil(page).max(1);
        let base = self.dev.reserve(page * max_pages, page)?;
        let seg = ExpandableSegment {
            base,
            page,
            max_pages,
            chunks: BTreeMap::new(),
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
    /// ([`Self::chunk_plan`]). Returns the mapped (ptr, size), size 0 on out of memory.
    fn seg_map(
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
        let plan: Vec<(u64, bool)> = if self.cfg.is_stridekit() {
            self.chunk_plan(ptr, size, room, pool)
        } else {
            let begin = (ptr - base) / page;
            let end = (ptr + size - base).div_ceil(page);
            (begin..end).map(|_| (page, false)).collect()
        };
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
    fn seg_unmap(&mut self, si: u32, lo: u64, hi: u64, keep: bool) -> AllocResult<(u64, u64)> {
        let s = &self.segs[si as usize];
        let stream = s.stream;
        let run: Vec<(u64, u64)> = s.whole_chunks(lo, hi).collect();
        let (Some(&(first, _)), Some(&(last, last_size))) = (run.first(), run.last()) else {
            return Ok((lo, 0));
        };
        self.dev.synchronize_stream(stream)?;
        for (p, len) in run {
            if keep {
                self.dev.unmap_page_keep(p, len)?;
                self.spare_chunks.push(len);
            } else {
                self.dev.unmap_page(p, len)?;
            }
            self.segs[si as usize].chunks.remove(&p);
        }
        Ok((first, last + last_size - first))
    }

    fn map_block(&mut self, to_map: u32, size: u64) -> AllocResult<bool> {
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
            let ri = self.link_after(to_map, r);
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

    fn unmap_block(&mut self, i: u32) -> AllocResult<()> {
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
            let bi = self.link_before(i, bf);
            self.insert_into_blocks(bi);
        }
        let after = size - (before + usize_);
        if after > 0 {
            let mut af = Self::blank(stream, rank, after, pool, uptr + usize_);
            af.seg = seg;
            let ai = self.link_after(i, af);
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

    fn release_expandable_segment(&mut self, i: u32) -> AllocResult<()> {
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

    /// Indices of the first block of every segment (for expandable segments, of every
    /// mapped range), sorted by address.
    pub(crate) fn segment_heads(&self) -> Vec<u32> {
        let mut heads: Vec<u32> = (0..self.blocks.len() as u32)
            .filter(|&i| {
                let b = &self.blocks[i as usize];
                b.in_use && b.mapped && (b.prev == NIL || !self.blocks[b.prev as usize].mapped)
            })
            .collect();
        heads.sort_by_key(|&i| self.blocks[i as usize].ptr);
        heads
    }
}

/// Round a request to its block size under `cfg` (PyTorch's `round_size`).
#[inline]
pub fn round_size(cfg: &AllocConfig, size: u64) -> u64 {
    if size < K_MIN_BLOCK_SIZE {
        return K_MIN_BLOCK_SIZE;
    }
    let div = cfg.roundup_divisions(size);
    if div > 1 && size > K_MIN_BLOCK_SIZE * div {
        roundup_power2_next_division(size, div)
    } else {
        // Saturates near u64::MAX (malloc refuses any size from MAX_BLOCK_SIZE up as out of
        // memory) instead of wrapping to a small block.
        size.div_ceil(K_MIN_BLOCK_SIZE)
            .saturating_mul(K_MIN_BLOCK_SIZE)
    }
}

/// Round `size` up to the next of `divisions` equal steps between two powers of two.
#[inline]
pub fn roundup_power2_next_division(size: u64, divisions: u64) -> u64 {
    if size.is_power_of_two() {
        return size;
    }
    let floor = 1u64 << (63 - size.leading_zeros());
    let step = floor >> (63 - divisions.leading_zeros());
    if step == 0 {
        return floor.checked_shl(1).filter(|&f| f != 0).unwrap_or(u64::MAX);
    }
    let rounded_floor = size & !(step - 1);
    if rounded_floor == size {
        size
    } else {
        // Saturates instead of wrapping past u64::MAX (see round_size).
        rounded_floor.saturating_add(step)
    }
}

/// The segment size obtained for a block of `size` bytes (PyTorch's `get_allocation_size`).
#[inline]
pub fn allocation_size(size: u64) -> u64 {
    if size <= K_SMALL_SIZE {
        K_SMALL_BUFFER
    } else if size < K_MIN_LARGE_ALLOC {
        K_LARGE_BUFFER
    } else {
        K_ROUND_LARGE * size.div_ceil(K_ROUND_LARGE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_size_default() {
        let c = AllocConfig::default();
        assert_eq!(round_size(&c, 0), 512);
        assert_eq!(round_size(&c, 1), 512);
        assert_eq!(round_size(&c, 512), 512);
        assert_eq!(round_size(&c, 513), 1024);
        assert_eq!(round_size(&c, 1200), 1536);
        assert_eq!(round_size(&c, (1 << 20) + 1), (1 << 20) + 512);
    }

    #[test]
    fn round_size_divisions() {
        let c = AllocConfig::parse("roundup_power2_divisions:4").unwrap();
        // 1200 <= 512 * 4: plain 512 rounding
        assert_eq!(round_size(&c, 1200), 1536);
        assert_eq!(round_size(&c, 2049), 2560);
        assert_eq!(round_size(&c, (1 << 20) + 1), (1 << 20) + (1 << 18));
        assert_eq!(round_size(&c, 1 << 20), 1 << 20);
        assert_eq!(round_size(&c, 3 << 29), 3 << 29);
        assert_eq!(round_size(&c, (5 << 28) + 7), 6 << 28);
        assert_eq!(roundup_power2_next_division(1200, 4), 1280);
        let c = AllocConfig::parse("roundup_power2_divisions:[256:1,512:2,>:8]").unwrap();
        assert_eq!(round_size(&c, (300 << 20) + 1), (300 << 20) + 512);
        assert_eq!(round_size(&c, (600 << 20) + 1), 640 << 20);
        assert_eq!(round_size(&c, (1100 << 20) + 1), 1152 << 20);
    }

    #[test]
    fn allocation_sizes() {
        assert_eq!(allocation_size(512), K_SMALL_BUFFER);
        assert_eq!(allocation_size(1 << 20), K_SMALL_BUFFER);
        assert_eq!(allocation_size((1 << 20) + 512), K_LARGE_BUFFER);
        assert_eq!(allocation_size((10 << 20) - 512), K_LARGE_BUFFER);
        assert_eq!(allocation_size(10 << 20), 10 << 20);
        assert_eq!(allocation_size((10 << 20) + 1), 12 << 20);
    }
}
