//! The allocator's state and the bookkeeping every layer above uses: the block table and
//! its segment lists, the free lists, stream ranks, the history, handles. It makes no
//! decision; the layers above it do: the expandable segments (`expandable.rs`),
//! stridekit's stitching (`stitch.rs`) and the policy (`policy.rs`).

use std::collections::VecDeque;

use super::block::{
    Block, BlockHandle, BlockPool, ExpandableSegment, NIL, PoolKind, StreamUses, fkey,
};
use super::config::AllocConfig;
use super::device::{EventId, RawDevice, StreamId};
use super::error::{AllocError, AllocResult};
use super::lifetime::Lifetimes;
use super::rounding::round_size;
use super::scratch::Scratch;
use super::slack_feedback::SlackFeedback;
use super::stats::DeviceStats;

/// The per-device caching allocator (not thread-safe; wrap it in
/// `CachingAllocator` to share it).
pub struct DeviceCachingAllocator<D: RawDevice> {
    pub(crate) dev: D,
    pub(crate) cfg: AllocConfig,
    pub(crate) stats: DeviceStats,
    pub(crate) blocks: Vec<Block>,
    pub(super) free_slots: Vec<u32>,
    pub(crate) small: BlockPool,
    pub(crate) large: BlockPool,
    pub(super) cuda_events: Vec<(StreamId, VecDeque<(EventId, u32)>)>,
    pub(crate) total_allocated_memory: u64,
    pub(super) allowed_memory_maximum: u64,
    pub(super) set_fraction: bool,
    pub(crate) segs: Vec<ExpandableSegment>,
    pub(super) device_total: u64,
    /// Streams seen so far, sorted by value; a block's rank indexes this list.
    pub(super) streams: Vec<StreamId>,
    pub(super) last_stream: (StreamId, u16),
    /// The allocator's history in the form of a snapshot's `device_traces`, when recording.
    pub(super) history: Option<Vec<HistoryEntry>>,
    /// Sizes of the chunks unmapped with their physical memory kept (stridekit's policy),
    /// in the order they are to be mapped again; the device holds the same spares.
    pub(crate) spare_chunks: Vec<u64>,
    /// Buffers the decisions reuse (nothing is allocated per request in steady state).
    pub(crate) scratch: Scratch,
    /// policy:stridekit's lifetime predictor (`stridekit_long_life`, `stridekit_share_life`;
    /// unused when both are off).
    pub(crate) life: Lifetimes,
    /// policy:stridekit's slack feedback (`stridekit_slack_decay`; unused when off).
    pub(crate) slack: SlackFeedback,
}

/// Which side of a block a new block is linked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Before,
    After,
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
            scratch: Scratch::default(),
            life: Lifetimes::default(),
            slack: SlackFeedback::default(),
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
    pub(super) fn record(&mut self, action: Action, addr: u64, size: u64, stream: StreamId) {
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
    pub(super) fn new_block(&mut self, b: Block) -> u32 {
        if let Some(i) = self.free_slots.pop() {
            let generation = self.blocks[i as usize].generation;
            self.blocks[i as usize] = Block { generation, ..b };
            i
        } else {
            self.blocks.push(b);
            (self.blocks.len() - 1) as u32
        }
    }

    /// Adds `b` to the block table and links it into `at`'s segment list on `side` of `at`.
    pub(super) fn link(&mut self, at: u32, mut b: Block, side: Side) -> u32 {
        let (prev, next) = match side {
            Side::Before => (self.blocks[at as usize].prev, at),
            Side::After => (at, self.blocks[at as usize].next),
        };
        b.prev = prev;
        b.next = next;
        let bi = self.new_block(b);
        if prev != NIL {
            self.blocks[prev as usize].next = bi;
        }
        if next != NIL {
            self.blocks[next as usize].prev = bi;
        }
        bi
    }

    #[inline]
    pub(super) fn delete_block(&mut self, i: u32) {
        let b = &mut self.blocks[i as usize];
        b.in_use = false;
        b.allocated = false;
        b.generation = b.generation.wrapping_add(1);
        b.stream_uses.clear();
        self.free_slots.push(i);
    }

    pub(super) fn blank(stream: StreamId, rank: u16, size: u64, pool: PoolKind, ptr: u64) -> Block {
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
    pub(super) fn pool_mut(&mut self, p: PoolKind) -> &mut BlockPool {
        match p {
            PoolKind::Small => &mut self.small,
            PoolKind::Large => &mut self.large,
        }
    }

    #[inline]
    pub(super) fn insert_into_blocks(&mut self, i: u32) {
        let b = &self.blocks[i as usize];
        let key = fkey(b.rank, b.size, b.ptr);
        let pool = b.pool;
        let p = self.pool_mut(pool);
        let base = p.get_free_blocks_call_count;
        p.blocks.insert(key, i);
        self.blocks[i as usize].gc_count_base = base;
    }

    #[inline]
    pub(super) fn erase_from_blocks(&mut self, i: u32) -> bool {
        let b = &self.blocks[i as usize];
        let key = fkey(b.rank, b.size, b.ptr);
        let pool = b.pool;
        self.pool_mut(pool).blocks.remove(key).is_some()
    }

    /// Put block `i`, just resized, in its pool's free list in place of the entry at key
    /// `old` (a merged neighbour's), or insert it when there is none.
    #[inline]
    pub(super) fn replace_in_blocks(&mut self, old: u128, i: u32) {
        let b = &self.blocks[i as usize];
        let key = fkey(b.rank, b.size, b.ptr);
        let pool = b.pool;
        let p = self.pool_mut(pool);
        let base = p.get_free_blocks_call_count;
        p.blocks.replace(old, key, i);
        self.blocks[i as usize].gc_count_base = base;
    }

    /// Put block `i`, just resized, in its pool's free list in place of the entry at
    /// position `pos` (its own, left there when it was found for a request).
    #[inline]
    pub(super) fn move_in_blocks(&mut self, pos: usize, i: u32) {
        let b = &self.blocks[i as usize];
        let key = fkey(b.rank, b.size, b.ptr);
        let pool = b.pool;
        let p = self.pool_mut(pool);
        let base = p.get_free_blocks_call_count;
        p.blocks.move_at(pos, key, i);
        self.blocks[i as usize].gc_count_base = base;
    }

    pub(super) fn insert_unmapped(&mut self, i: u32) {
        let b = &self.blocks[i as usize];
        let key = (b.stream, b.ptr);
        let pool = b.pool;
        self.pool_mut(pool).unmapped.insert(key, i);
    }

    pub(super) fn erase_unmapped(&mut self, i: u32) -> bool {
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

    pub(super) fn handle(&self, i: u32) -> BlockHandle {
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
    pub(super) fn stream_rank(&mut self, stream: StreamId) -> u16 {
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

    pub(super) fn renumber_streams(&mut self) {
        for b in self.blocks.iter_mut() {
            if b.in_use
                && let Ok(r) = self.streams.binary_search(&b.stream)
            {
                b.rank = r as u16;
            }
        }
        let blocks = &self.blocks;
        let key = |i: u32| {
            let b = &blocks[i as usize];
            fkey(b.rank, b.size, b.ptr)
        };
        self.small.blocks.rekey(key);
        self.large.blocks.rekey(key);
    }

    /// Merge `src` into `dst` if `src` is a free neighbour in the same mapping state.
    /// Returns the size subsumed (0 if no merge).
    pub(super) fn try_merge_blocks(&mut self, dst: u32, src: u32) -> u64 {
        match self.merge_keeping_entry(dst, src) {
            (s, Some(key)) => {
                let pool = self.blocks[dst as usize].pool;
                self.pool_mut(pool).blocks.remove(key);
                s
            }
            (s, None) => s,
        }
    }

    /// [`Self::try_merge_blocks`], except that a mapped `src`'s free-list entry is left
    /// in place and its key returned, for the caller to give to the merged block
    /// ([`Self::replace_in_blocks`]) or remove.
    pub(super) fn merge_keeping_entry(&mut self, dst: u32, src: u32) -> (u64, Option<u128>) {
        if src == NIL {
            return (0, None);
        }
        {
            let s = &self.blocks[src as usize];
            let d = &self.blocks[dst as usize];
            if s.allocated || s.event_count > 0 || !s.stream_uses.is_empty() || d.mapped != s.mapped
            {
                return (0, None);
            }
        }
        let (s_ptr, s_size, s_prev, s_next, s_mapped) = {
            let s = &self.blocks[src as usize];
            (s.ptr, s.size, s.prev, s.next, s.mapped)
        };
        let entry = if s_mapped {
            let s = &self.blocks[src as usize];
            Some(fkey(s.rank, s.size, s.ptr))
        } else {
            self.erase_unmapped(src);
            None
        };
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
        (s_size, entry)
    }

    pub(crate) fn allocatable(&self, i: u32) -> bool {
        if i == NIL {
            return false;
        }
        let b = &self.blocks[i as usize];
        !b.allocated && b.event_count == 0 && b.stream_uses.is_empty()
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
