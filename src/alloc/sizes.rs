//! The size constants of PyTorch's caching allocator (bottom layer: imports nothing).

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

/// Sizes at or above this cannot be packed into a free-list key (256 TiB); no device has
/// that much memory, so such requests fail as out of memory.
pub const MAX_BLOCK_SIZE: u64 = 1 << 48;

/// CUDA's allocation granularity: every physical chunk is a multiple of it, at a multiple
/// of it.
pub const GRANULE: u64 = 2 << 20;
