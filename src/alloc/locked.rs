//! [`CachingAllocator`]: the caching allocator behind a lock, for callers on several
//! threads (the C ABI, the Python module, the PyTorch pluggable allocator).

use parking_lot::Mutex;

use super::config::AllocConfig;
use super::device::{RawDevice, StreamId};
use super::error::AllocResult;
use super::policy::{BlockHandle, DeviceCachingAllocator};
use super::report;
use super::stats::DeviceStats;

/// A thread-safe caching allocator over a [`RawDevice`]: every operation takes the lock.
pub struct CachingAllocator<D: RawDevice> {
    inner: Mutex<DeviceCachingAllocator<D>>,
}

impl<D: RawDevice> CachingAllocator<D> {
    /// A caching allocator over `dev` with settings `cfg`.
    pub fn new(dev: D, cfg: AllocConfig) -> AllocResult<Self> {
        Ok(CachingAllocator {
            inner: Mutex::new(DeviceCachingAllocator::new(dev, cfg)?),
        })
    }

    /// Allocate `size` bytes for use on `stream`.
    pub fn malloc(&self, size: u64, stream: StreamId) -> AllocResult<BlockHandle> {
        self.inner.lock().malloc(size, stream)
    }

    /// Return an allocation to the cache.
    pub fn free(&self, h: BlockHandle) -> AllocResult<()> {
        self.inner.lock().free(h)
    }

    /// Record that the allocation is used on `stream` as well.
    pub fn record_stream(&self, h: BlockHandle, stream: StreamId) -> AllocResult<()> {
        self.inner.lock().record_stream(h, stream)
    }

    /// Release cached segments that hold no allocation.
    pub fn empty_cache(&self) -> AllocResult<()> {
        self.inner.lock().empty_cache()
    }

    /// A copy of the statistics.
    pub fn stats(&self) -> DeviceStats {
        self.inner.lock().stats().clone()
    }

    /// Peaks back to the current values.
    pub fn reset_peak_stats(&self) {
        self.inner.lock().reset_peak_stats()
    }

    /// Accumulated counters back to zero.
    pub fn reset_accumulated_stats(&self) {
        self.inner.lock().reset_accumulated_stats()
    }

    /// Limit the allocator to `fraction` of device memory.
    pub fn set_memory_fraction(&self, fraction: f64) -> AllocResult<()> {
        self.inner.lock().set_memory_fraction(fraction)
    }

    /// Segments and their blocks as JSON (like `torch.cuda.memory_snapshot()`).
    pub fn snapshot(&self) -> serde_json::Value {
        report::snapshot(&self.inner.lock())
    }

    /// A table like `torch.cuda.memory_summary()`.
    pub fn memory_summary(&self) -> String {
        report::memory_summary(self.inner.lock().stats())
    }

    /// Run `f` with exclusive access to the allocator.
    pub fn with<R>(&self, f: impl FnOnce(&mut DeviceCachingAllocator<D>) -> R) -> R {
        f(&mut self.inner.lock())
    }

    /// The allocator, unlocked.
    pub fn into_inner(self) -> DeviceCachingAllocator<D> {
        self.inner.into_inner()
    }
}
