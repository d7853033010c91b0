//! A caching device allocator that reproduces PyTorch 2.11's CUDA caching allocator policy
//! (see [`policy`]), with PyTorch's statistics, a snapshot, a memory summary, and trace
//! replay on a simulated device ([`replay`]).
//!
//! ```
//! use stridekit::alloc::{AllocConfig, CachingAllocator, SimulatedDevice};
//! let a = CachingAllocator::new(SimulatedDevice::new(1 << 30), AllocConfig::default()).unwrap();
//! let h = a.malloc(1000, 0).unwrap();
//! assert_eq!(h.size, 1024);
//! a.free(h).unwrap();
//! let s = a.stats();
//! assert_eq!(s.reserved_bytes[0].current, 2 << 20);
//! assert_eq!(s.allocated_bytes[0].current, 0);
//! ```

pub mod block;
pub mod chunks;
pub mod cli;
pub mod config;
pub mod cuda_device;
pub mod device;
pub mod error;
pub mod expandable;
pub mod grid;
pub mod host_device;
pub mod policy;
pub mod replay;
pub mod report;
pub mod rounding;
pub mod sizes;
pub mod snapshot;
pub mod state;
pub mod stats;
pub mod stitch;
pub mod targets;
pub mod trace;
pub mod tune;
pub mod tune_pick;
pub mod tune_report;
pub mod why;

pub use config::AllocConfig;
pub use cuda_device::CudaDevice;
pub use device::{DeviceError, RawDevice, SimulatedDevice, StreamId};
pub use error::{AllocError, AllocResult, OutOfMemory};
pub use host_device::HostDevice;
pub use policy::{BlockHandle, DeviceCachingAllocator, round_size};
pub use stats::{DeviceStats, Stat};
pub use trace::{Trace, read_trace as read_trace_file};

use parking_lot::Mutex;

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
