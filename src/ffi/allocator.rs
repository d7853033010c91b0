//! The caching allocator behind the C ABI: one PyTorch-policy [`CachingAllocator`] over a
//! real GPU (`"cuda"`, `"cuda:N"`) or over [`HostDevice`] (`"sim"`, `"sim:BYTES"`: a
//! simulated CUDA device whose blocks are host memory, for machines without a GPU), with
//! blocks named by their address as C callers name them.

use std::collections::HashMap;

use parking_lot::Mutex;

use crate::alloc::{
    AllocConfig, AllocResult, BlockHandle, CachingAllocator, CudaDevice, DeviceStats, HostDevice,
    RawDevice, StreamId,
};

use super::error::{FfiError, FfiResult};

/// The capacity of `"sim"` without a size: 4 GiB of host memory at most (only what is
/// allocated is touched).
pub const DEFAULT_SIM_CAPACITY: u64 = 4 << 30;

/// The largest `"sim:BYTES"` capacity: 256 TiB, more than a host's address space holds (the
/// policy's arithmetic on the device's total stays far from the integer limits).
const MAX_SIM_CAPACITY: u64 = 1 << 48;

/// What the handle needs of a [`CachingAllocator`], whatever its device.
trait Pool: Send + Sync {
    fn malloc(&self, size: u64, stream: StreamId) -> AllocResult<BlockHandle>;
    fn free(&self, h: BlockHandle) -> AllocResult<()>;
    fn record_stream(&self, h: BlockHandle, stream: StreamId) -> AllocResult<()>;
    fn empty_cache(&self) -> AllocResult<()>;
    fn stats(&self) -> DeviceStats;
    fn release_all(&self) -> AllocResult<()>;
}

impl<D: RawDevice + Send> Pool for CachingAllocator<D> {
    fn malloc(&self, size: u64, stream: StreamId) -> AllocResult<BlockHandle> {
        CachingAllocator::malloc(self, size, stream)
    }
    fn free(&self, h: BlockHandle) -> AllocResult<()> {
        CachingAllocator::free(self, h)
    }
    fn record_stream(&self, h: BlockHandle, stream: StreamId) -> AllocResult<()> {
        CachingAllocator::record_stream(self, h, stream)
    }
    fn empty_cache(&self) -> AllocResult<()> {
        CachingAllocator::empty_cache(self)
    }
    fn stats(&self) -> DeviceStats {
        CachingAllocator::stats(self)
    }
    fn release_all(&self) -> AllocResult<()> {
        self.with(|a| a.release_all())
    }
}

/// Which device an allocator serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocDevice {
    Cuda(i32),
    Sim(u64),
}

impl std::str::FromStr for AllocDevice {
    type Err = FfiError;

    /// `cuda` (device 0), `cuda:N`, `sim` ([`DEFAULT_SIM_CAPACITY`]) or `sim:BYTES`
    /// (`8GiB`, `500M`, `1073741824`).
    fn from_str(s: &str) -> FfiResult<AllocDevice> {
        let bad = || {
            FfiError::invalid(format!(
                "allocator device '{s}': expected cuda, cuda:N, sim or sim:BYTES (e.g. sim:8GiB)"
            ))
        };
        match s.trim() {
            "cuda" => Ok(AllocDevice::Cuda(0)),
            "sim" => Ok(AllocDevice::Sim(DEFAULT_SIM_CAPACITY)),
            t => {
                if let Some(n) = t.strip_prefix("cuda:") {
                    return n.parse().map(AllocDevice::Cuda).map_err(|_| bad());
                }
                let size = t.strip_prefix("sim:").ok_or_else(bad)?;
                crate::alloc::cli::parse_bytes(size)
                    .map(AllocDevice::Sim)
                    .map_err(|_| bad())
            }
        }
    }
}

/// A caching allocator handle: PyTorch's policy and statistics, blocks by address.
///
/// Thread-safe: one lock covers the pool and the map of live addresses, so that a block
/// freed by one thread and handed out again to another is never lost between the two,
/// and statistics read under it are exact.
pub struct Allocator {
    device: AllocDevice,
    state: Mutex<State>,
}

struct State {
    pool: Box<dyn Pool>,
    live: HashMap<u64, BlockHandle>,
}

impl State {
    fn handle(&self, ptr: u64, call: &str) -> FfiResult<BlockHandle> {
        self.live.get(&ptr).copied().ok_or_else(|| {
            FfiError::invalid(format!(
                "{call}: {ptr:#x} is not an allocation of this allocator (or was freed)"
            ))
        })
    }
}

impl Allocator {
    /// An allocator for `device` with settings `conf` (PYTORCH_CUDA_ALLOC_CONF syntax;
    /// None: STRIDEKIT_ALLOC_CONF, else PYTORCH_CUDA_ALLOC_CONF, else the defaults).
    pub fn new(device: AllocDevice, conf: Option<&str>) -> FfiResult<Allocator> {
        let cfg = match conf {
            Some(c) => AllocConfig::parse(c)?,
            None => AllocConfig::from_env()?,
        };
        let pool: Box<dyn Pool> = match device {
            AllocDevice::Cuda(n) => Box::new(CachingAllocator::new(CudaDevice::new(n)?, cfg)?),
            AllocDevice::Sim(cap) if cap > MAX_SIM_CAPACITY => {
                return Err(FfiError::invalid(format!(
                    "allocator device sim:{cap}: a simulated device holds at most \
                     {MAX_SIM_CAPACITY} bytes (256 TiB)"
                )));
            }
            AllocDevice::Sim(cap) => Box::new(CachingAllocator::new(HostDevice::new(cap), cfg)?),
        };
        Ok(Allocator {
            device,
            state: Mutex::new(State {
                pool,
                live: HashMap::new(),
            }),
        })
    }

    pub fn device(&self) -> AllocDevice {
        self.device
    }

    /// `size` bytes for use on `stream` (0: the legacy default stream); 0 bytes give
    /// address 0, as PyTorch's allocator gives nullptr.
    pub fn malloc(&self, size: u64, stream: StreamId) -> FfiResult<u64> {
        if size == 0 {
            return Ok(0);
        }
        let mut st = self.state.lock();
        let h = st.pool.malloc(size, stream)?;
        if let Some(old) = st.live.insert(h.ptr, h) {
            // Two live blocks at one address: never hand it out.
            st.live.insert(old.ptr, old);
            let _ = st.pool.free(h);
            return Err(FfiError {
                status: super::error::STRIDEKIT_ERR_INTERNAL,
                message: format!(
                    "malloc: the pool returned {:#x}, which is still allocated (a bug in \
                     stridekit's allocator); the request was refused",
                    h.ptr
                ),
            });
        }
        Ok(h.ptr)
    }

    /// Returns the block at `ptr` to the cache (after the work of every stream it was
    /// recorded on). Address 0 is a no-op.
    pub fn free(&self, ptr: u64) -> FfiResult<()> {
        if ptr == 0 {
            return Ok(());
        }
        let mut st = self.state.lock();
        let h = st.handle(ptr, "free")?;
        st.pool.free(h)?;
        st.live.remove(&ptr);
        Ok(())
    }

    /// Marks the block at `ptr` as used on `stream` too: it is not reused before the work
    /// queued there at its free has finished.
    pub fn record_stream(&self, ptr: u64, stream: StreamId) -> FfiResult<()> {
        let st = self.state.lock();
        let h = st.handle(ptr, "record_stream")?;
        Ok(st.pool.record_stream(h, stream)?)
    }

    /// Releases every cached segment that holds no allocation.
    pub fn empty_cache(&self) -> FfiResult<()> {
        Ok(self.state.lock().pool.empty_cache()?)
    }

    /// The statistics, read under the lock of every other call (exact at that point).
    pub fn stats(&self) -> DeviceStats {
        self.state.lock().pool.stats()
    }

    /// How many blocks are allocated (the live addresses).
    pub fn live_blocks(&self) -> usize {
        self.state.lock().live.len()
    }

    /// `torch.cuda.memory_stats()`'s flat keys, as a JSON object.
    pub fn stats_json(&self) -> String {
        self.stats().to_json().to_string()
    }
}

impl Drop for Allocator {
    /// Everything goes back to the device, blocks still allocated included.
    fn drop(&mut self) {
        let _ = self.state.get_mut().pool.release_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse_and_bad_ones_are_named() {
        assert_eq!("cuda".parse::<AllocDevice>().unwrap(), AllocDevice::Cuda(0));
        assert_eq!(
            "cuda:3".parse::<AllocDevice>().unwrap(),
            AllocDevice::Cuda(3)
        );
        assert_eq!(
            "sim".parse::<AllocDevice>().unwrap(),
            AllocDevice::Sim(DEFAULT_SIM_CAPACITY)
        );
        assert_eq!(
            "sim:1GiB".parse::<AllocDevice>().unwrap(),
            AllocDevice::Sim(1 << 30)
        );
        let e = "gpu".parse::<AllocDevice>().unwrap_err();
        assert!(e.message.starts_with("allocator device 'gpu'"), "{e}");
        assert!("sim:lots".parse::<AllocDevice>().is_err());
        // Past u64: refused by the parser, not clamped.
        assert!(
            "sim:99999999999999999999999"
                .parse::<AllocDevice>()
                .is_err()
        );
        // Parsed, but larger than any host: refused when the allocator is made.
        let e = Allocator::new("sim:16000000TB".parse().unwrap(), Some(""))
            .err()
            .unwrap();
        assert!(e.message.contains("at most 281474976710656 bytes"), "{e}");
        assert!(Allocator::new(AllocDevice::Sim(MAX_SIM_CAPACITY), Some("")).is_ok());
    }

    #[test]
    fn blocks_by_address_with_pytorchs_figures() {
        let a = Allocator::new(AllocDevice::Sim(1 << 30), Some("default")).unwrap();
        let p = a.malloc(48, 0).unwrap();
        let q = a.malloc(48, 0).unwrap();
        assert_eq!(q, p + 512);
        assert_eq!(a.stats().allocated_bytes[0].current, 1024);
        a.record_stream(p, 7).unwrap();
        a.free(p).unwrap();
        let e = a.free(p).unwrap_err();
        assert!(e.message.contains("is not an allocation"), "{e}");
        a.free(q).unwrap();
        assert_eq!(a.malloc(0, 0).unwrap(), 0);
        a.empty_cache().unwrap();
        let s: serde_json::Value = serde_json::from_str(&a.stats_json()).unwrap();
        assert_eq!(s["reserved_bytes.all.current"], 0);
        assert_eq!(s["reserved_bytes.all.peak"], 2 << 20);
        assert_eq!(s["allocated_bytes.all.peak"], 1024);
    }

    #[test]
    fn cuda_without_a_gpu_is_a_typed_error() {
        if crate::backend::cuda::driver_available() {
            return;
        }
        let e = Allocator::new(AllocDevice::Cuda(0), None).err().unwrap();
        assert_eq!(e.status, super::super::error::STRIDEKIT_ERR_DEVICE);
    }
}
