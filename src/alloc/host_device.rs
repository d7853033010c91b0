//! [`HostDevice`]: a simulated CUDA device whose memory is real host memory, so that the
//! caching allocator's blocks can be written and read on a machine without a GPU (the C
//! ABI's `"sim"` allocator, for CPU-only machines and tests). The policy sees a device of
//! a given capacity exactly as it sees a GPU; segments are host allocations (512-byte
//! aligned, not zeroed, like cudaMalloc's); expandable segments reserve their whole range
//! up front (untouched host pages cost nothing) and map pages by accounting. Host memory is
//! synchronous: every stream event has completed when it is queried.

use std::alloc::{Layout, alloc, dealloc};
use std::collections::HashMap;

use super::device::{DeviceError, EventId, RawDevice, SimulatedDevice, StreamId};
use super::error::{AllocError, AllocResult};

/// The alignment of every segment (CUDA's is at least 256 bytes).
const SEGMENT_ALIGN: usize = 512;

/// A device of `capacity` bytes backed by host memory. The capacity, page and event
/// accounts are a [`SimulatedDevice`]'s (segments are entered there as mapped ranges at
/// their host addresses); this type adds the host memory.
#[derive(Debug)]
pub struct HostDevice {
    accounts: SimulatedDevice,
    segments: HashMap<u64, Layout>,
    reservations: HashMap<u64, Layout>,
}

impl HostDevice {
    /// A device of `capacity` bytes.
    pub fn new(capacity: u64) -> HostDevice {
        HostDevice {
            accounts: SimulatedDevice::new(capacity),
            segments: HashMap::new(),
            reservations: HashMap::new(),
        }
    }

    /// Bytes obtained from this device and not yet returned.
    pub fn used(&self) -> u64 {
        self.accounts.used()
    }

    fn host_alloc(size: u64, align: usize) -> Option<(u64, Layout)> {
        let layout = Layout::from_size_align(usize::try_from(size).ok()?.max(1), align).ok()?;
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { alloc(layout) };
        (!p.is_null()).then_some((p as u64, layout))
    }

    fn unknown(call: &'static str, what: &str, ptr: u64) -> AllocError {
        AllocError::Device {
            call,
            message: format!("host device: {ptr:#x} is not a live {what}"),
        }
    }
}

impl RawDevice for HostDevice {
    fn malloc(&mut self, size: u64) -> Result<u64, DeviceError> {
        if self.used().saturating_add(size) > self.accounts.capacity() {
            return Err(DeviceError::OutOfMemory);
        }
        let (p, layout) =
            HostDevice::host_alloc(size, SEGMENT_ALIGN).ok_or(DeviceError::OutOfMemory)?;
        if let Err(e) = self.accounts.map_page(p, size) {
            // SAFETY: just allocated with this layout.
            unsafe { dealloc(p as *mut u8, layout) };
            return Err(e);
        }
        self.segments.insert(p, layout);
        Ok(p)
    }

    fn free(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        let layout = self
            .segments
            .remove(&ptr)
            .ok_or_else(|| HostDevice::unknown("cudaFree", "segment", ptr))?;
        self.accounts.unmap_page(ptr, size)?;
        // SAFETY: allocated by `malloc` with this layout, and no block uses it any more.
        unsafe { dealloc(ptr as *mut u8, layout) };
        Ok(())
    }

    fn reserve(&mut self, size: u64, align: u64) -> AllocResult<u64> {
        let align = (align as usize).max(SEGMENT_ALIGN).next_power_of_two();
        let (p, layout) =
            HostDevice::host_alloc(size, align).ok_or_else(|| AllocError::Device {
                call: "cuMemAddressReserve",
                message: format!("host device: cannot reserve {size} bytes of host memory"),
            })?;
        self.reservations.insert(p, layout);
        Ok(p)
    }

    fn release_reservation(&mut self, ptr: u64, _size: u64) -> AllocResult<()> {
        let layout = self
            .reservations
            .remove(&ptr)
            .ok_or_else(|| HostDevice::unknown("cuMemAddressFree", "reservation", ptr))?;
        // SAFETY: allocated by `reserve` with this layout; its pages are unmapped.
        unsafe { dealloc(ptr as *mut u8, layout) };
        Ok(())
    }

    fn map_page(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError> {
        self.accounts.map_page(ptr, size)
    }

    fn map_spare(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError> {
        self.accounts.map_spare(ptr, size)
    }

    fn unmap_page(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        self.accounts.unmap_page(ptr, size)
    }

    fn unmap_page_keep(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        self.accounts.unmap_page_keep(ptr, size)
    }

    fn release_spare_pages(&mut self) -> AllocResult<()> {
        self.accounts.release_spare_pages()
    }

    fn mem_info(&mut self) -> AllocResult<(u64, u64)> {
        self.accounts.mem_info()
    }

    fn record_event(&mut self, stream: StreamId) -> AllocResult<EventId> {
        self.accounts.record_event(stream)
    }

    fn query_event(&mut self, event: EventId) -> AllocResult<bool> {
        self.accounts.query_event(event)
    }

    fn synchronize_event(&mut self, event: EventId) -> AllocResult<()> {
        self.accounts.synchronize_event(event)
    }

    fn release_event(&mut self, event: EventId) -> AllocResult<()> {
        self.accounts.release_event(event)
    }

    fn synchronize_stream(&mut self, stream: StreamId) -> AllocResult<()> {
        self.accounts.synchronize_stream(stream)
    }
}

impl Drop for HostDevice {
    /// Memory the allocator still held (an allocator dropped without `release_all`).
    fn drop(&mut self) {
        for (p, layout) in self.segments.drain().chain(self.reservations.drain()) {
            // SAFETY: allocated by this device with this layout.
            unsafe { dealloc(p as *mut u8, layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{AllocConfig, CachingAllocator};

    #[test]
    fn blocks_are_writable_host_memory_under_pytorchs_policy() {
        let a = CachingAllocator::new(HostDevice::new(1 << 30), AllocConfig::default()).unwrap();
        let h = a.malloc(1000, 0).unwrap();
        assert_eq!(h.size, 1024);
        assert_eq!(h.ptr % 512, 0);
        // SAFETY: the block is 1024 bytes of host memory.
        let bytes = unsafe { std::slice::from_raw_parts_mut(h.ptr as *mut u8, 1024) };
        bytes.fill(7);
        let g = a.malloc(1000, 0).unwrap();
        assert_eq!(g.ptr, h.ptr + 1024, "split from the same 2 MiB segment");
        a.free(h).unwrap();
        a.free(g).unwrap();
        let s = a.stats();
        assert_eq!(s.reserved_bytes[0].current, 2 << 20);
        assert_eq!(s.allocated_bytes[0].peak, 2048);
        a.empty_cache().unwrap();
        assert_eq!(a.stats().reserved_bytes[0].current, 0);
        a.with(|x| assert_eq!(x.device().used(), 0));
    }

    #[test]
    fn expandable_segments_and_out_of_memory() {
        let cfg = AllocConfig::parse("expandable_segments:True").unwrap();
        let a = CachingAllocator::new(HostDevice::new(64 << 20), cfg).unwrap();
        let h = a.malloc(30 << 20, 0).unwrap();
        // SAFETY: 30 MiB of the reservation, mapped.
        unsafe { std::slice::from_raw_parts_mut(h.ptr as *mut u8, 30 << 20) }.fill(1);
        let e = a.malloc(40 << 20, 0).unwrap_err();
        assert!(matches!(e, AllocError::OutOfMemory(_)), "{e}");
        a.free(h).unwrap();
        a.with(|x| x.release_all()).unwrap();
        a.with(|x| assert_eq!(x.device().used(), 0));
    }
}
