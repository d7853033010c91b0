//! The blocks of the allocator's segments and the free lists that hold them: the data
//! every layer above shares (block table entries, pools, handles, expandable segments).

use super::device::StreamId;
use super::free_list::FreeList;
use super::sizes::MAX_BLOCK_SIZE;
use super::sorted::SortedMap;
use super::stats::{LARGE_POOL, SMALL_POOL};

pub(crate) const NIL: u32 = u32::MAX;

/// Free-list key: (stream rank, size, address) packed so that integer order is PyTorch's
/// (stream, size, address) order.
#[inline]
pub(crate) fn fkey(rank: u16, size: u64, ptr: u64) -> u128 {
    ((((rank as u64) << 48) | size) as u128) << 64 | ptr as u128
}
#[inline]
pub(crate) fn key_rank(k: u128) -> u16 {
    (k >> 112) as u16
}
#[inline]
pub(crate) fn key_size(k: u128) -> u64 {
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
    pub(crate) fn stat(self) -> usize {
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
    pub(crate) fn is_split(&self) -> bool {
        self.prev != NIL || self.next != NIL
    }
}

#[derive(Debug, Default)]
pub(crate) struct BlockPool {
    /// Free mapped blocks by (stream, size, address), packed by [`fkey`].
    pub blocks: FreeList,
    /// Unmapped address ranges of expandable segments by (stream, address).
    pub unmapped: SortedMap<(StreamId, u64), u32>,
    pub get_free_blocks_call_count: i64,
}

/// An expandable segment: a reserved address range into which physical chunks are
/// mapped. Under PyTorch's policy every chunk is one page (`page` bytes, at a multiple of
/// `page` from `base`); under stridekit's, `page` is the 2 MiB granularity and a chunk is
/// any multiple of it (stridekit's stitching, `stitch.rs`).
#[derive(Debug, Clone)]
pub(crate) struct ExpandableSegment {
    pub base: u64,
    pub page: u64,
    pub max_pages: u64,
    /// The mapped chunks: address -> size (each one cuMemCreate handle).
    pub chunks: SortedMap<u64, u64>,
    pub stream: StreamId,
    pub live: bool,
}

impl ExpandableSegment {
    pub(crate) fn size(&self) -> u64 {
        self.page * self.max_pages
    }

    /// The mapped chunks lying wholly inside `[ptr, end)`, by address: (address, size).
    pub(crate) fn whole_chunks(&self, ptr: u64, end: u64) -> impl Iterator<Item = (u64, u64)> {
        self.chunks
            .range(&ptr, &end)
            .iter()
            .copied()
            .filter(move |&(p, s)| p + s <= end)
    }
}
