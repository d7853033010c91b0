//! [`CudaDevice`]: the caching allocator's device on a real GPU, through cudarc's driver
//! API (cuMemAlloc/cuMemFree for segments; cuMemAddressReserve, cuMemCreate, cuMemMap and
//! cuMemSetAccess for expandable segments; events for cross-stream reuse).
//!
//! Before any driver call it checks that libcuda is present (cudarc panics otherwise) and
//! returns [`AllocError::NoCudaDriver`] when it is not. Every failing driver call becomes
//! [`AllocError::Device`] naming the call, except out-of-memory, which the allocator handles.

use std::collections::HashMap;

use cudarc::driver::result;
use cudarc::driver::sys;

use super::device::{DeviceCalls, DeviceError, EventId, RawDevice, StreamId};
use super::error::{AllocError, AllocResult};

/// A CUDA device (its primary context) as a [`RawDevice`].
pub struct CudaDevice {
    ordinal: i32,
    ctx: sys::CUcontext,
    handles: HashMap<u64, sys::CUmemGenericAllocationHandle>,
    /// Unmapped chunks whose physical memory is kept for [`RawDevice::map_spare`].
    spare: Vec<(sys::CUmemGenericAllocationHandle, u64)>,
    events: HashMap<EventId, sys::CUevent>,
    event_pool: Vec<sys::CUevent>,
    next_event: EventId,
    /// Every segment address cuMemAlloc returned, in order.
    pub handed_out: Vec<u64>,
    /// The memory calls that succeeded, counted as [`super::SimulatedDevice`] counts them.
    pub calls: DeviceCalls,
}

// SAFETY: the raw context and event handles are only used through the driver API, which is
// thread-safe; the allocator serialises access to the device behind its lock.
unsafe impl Send for CudaDevice {}

fn derr(call: &'static str, e: result::DriverError) -> AllocError {
    AllocError::Device {
        call,
        message: format!("{e:?}"),
    }
}

fn check(call: &'static str, r: sys::CUresult) -> Result<(), DeviceError> {
    match r {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => Err(DeviceError::OutOfMemory),
        other => Err(DeviceError::Other(derr(call, result::DriverError(other)))),
    }
}

fn check_plain(call: &'static str, r: sys::CUresult) -> AllocResult<()> {
    r.result().map_err(|e| derr(call, e))
}

impl CudaDevice {
    /// Open device `ordinal` and make its primary context current on this thread.
    pub fn new(ordinal: i32) -> AllocResult<CudaDevice> {
        // SAFETY: only checks whether the library can be loaded.
        if !unsafe { sys::is_culib_present() } {
            return Err(AllocError::NoCudaDriver);
        }
        result::init().map_err(|e| derr("cuInit", e))?;
        let dev = result::device::get(ordinal).map_err(|e| derr("cuDeviceGet", e))?;
        // SAFETY: dev is a valid device from cuDeviceGet.
        let ctx = unsafe { result::primary_ctx::retain(dev) }
            .map_err(|e| derr("cuDevicePrimaryCtxRetain", e))?;
        // SAFETY: ctx was just retained.
        unsafe { result::ctx::set_current(ctx) }.map_err(|e| derr("cuCtxSetCurrent", e))?;
        Ok(CudaDevice {
            ordinal,
            ctx,
            handles: HashMap::new(),
            spare: Vec::new(),
            events: HashMap::new(),
            event_pool: Vec::new(),
            next_event: 1,
            handed_out: Vec::new(),
            calls: DeviceCalls::default(),
        })
    }

    /// cuMemUnmap one page; returns its handle, which still holds the physical memory.
    fn unmap_only(
        &mut self,
        ptr: u64,
        size: u64,
    ) -> AllocResult<sys::CUmemGenericAllocationHandle> {
        self.bind()?;
        let h = self
            .handles
            .remove(&ptr)
            .ok_or_else(|| AllocError::Device {
                call: "cuMemUnmap",
                message: format!("{ptr:#x} is not a mapped page"),
            })?;
        // SAFETY: the page was mapped by `map_page` with handle h.
        check_plain("cuMemUnmap", unsafe { sys::cuMemUnmap(ptr, size as usize) })?;
        self.calls.page_unmaps += 1;
        Ok(h)
    }

    /// cuMemMap handle `h` (a chunk of `size` bytes) at `ptr` and make it accessible
    /// (cuMemSetAccess); on failure nothing stays mapped and `h` is still the caller's.
    fn map_handle(
        &mut self,
        ptr: u64,
        size: u64,
        h: sys::CUmemGenericAllocationHandle,
    ) -> Result<(), DeviceError> {
        // SAFETY: ptr lies in a reserved range with `size` bytes unmapped; h is a chunk of
        // `size` bytes that is not mapped anywhere.
        check("cuMemMap", unsafe {
            sys::cuMemMap(ptr, size as usize, 0, h, 0)
        })?;
        // SAFETY: plain-data struct.
        let mut desc: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        desc.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        desc.location.id = self.ordinal;
        desc.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        // SAFETY: the range was just mapped.
        if let Err(e) = check("cuMemSetAccess", unsafe {
            sys::cuMemSetAccess(ptr, size as usize, &desc, 1)
        }) {
            // SAFETY: undo the mapping made above.
            unsafe { sys::cuMemUnmap(ptr, size as usize) };
            return Err(e);
        }
        self.handles.insert(ptr, h);
        self.calls.page_maps += 1;
        Ok(())
    }

    fn bind(&self) -> AllocResult<()> {
        // SAFETY: ctx is the primary context retained in `new`.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(|e| derr("cuCtxSetCurrent", e))
    }

    fn event(&self, e: EventId, call: &'static str) -> AllocResult<sys::CUevent> {
        self.events
            .get(&e)
            .copied()
            .ok_or_else(|| AllocError::Device {
                call,
                message: format!("unknown event {e}"),
            })
    }
}

/// The alignment cuMemAddressReserve is given for a requested `align`: its largest power-of-two
/// divisor (the driver answers CUDA_ERROR_INVALID_VALUE to any other alignment, which is
/// what PyTorch's 20 MiB expandable-segment pages asked for on the H200, 2026-12-04). A
/// range aligned to that divisor still starts on every page boundary the allocator maps at
/// (pages are multiples of the 2 MiB granularity). 0 stays 0 (the driver's default).
pub(crate) fn reserve_alignment(align: u64) -> usize {
    if align == 0 {
        0
    } else {
        1usize << align.trailing_zeros()
    }
}

impl RawDevice for CudaDevice {
    fn malloc(&mut self, size: u64) -> Result<u64, DeviceError> {
        self.bind()?;
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: p is a valid out-pointer.
        check("cuMemAlloc", unsafe {
            sys::cuMemAlloc_v2(&mut p, size as usize)
        })?;
        self.handed_out.push(p);
        self.calls.segment_allocs += 1;
        Ok(p)
    }

    fn free(&mut self, ptr: u64, _size: u64) -> AllocResult<()> {
        self.bind()?;
        // SAFETY: ptr came from cuMemAlloc and holds no live allocation.
        unsafe { result::free_sync(ptr) }.map_err(|e| derr("cuMemFree", e))?;
        self.calls.segment_frees += 1;
        Ok(())
    }

    fn reserve(&mut self, size: u64, align: u64) -> AllocResult<u64> {
        self.bind()?;
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: p is a valid out-pointer.
        check_plain("cuMemAddressReserve", unsafe {
            sys::cuMemAddressReserve(&mut p, size as usize, reserve_alignment(align), 0, 0)
        })?;
        self.calls.reservations += 1;
        Ok(p)
    }

    fn release_reservation(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        self.bind()?;
        // SAFETY: the range was reserved by `reserve` and has no mapped pages left.
        check_plain("cuMemAddressFree", unsafe {
            sys::cuMemAddressFree(ptr, size as usize)
        })
    }

    fn map_page(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError> {
        self.bind()?;
        // SAFETY: plain-data struct; zero is a valid starting value for every field.
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = self.ordinal;
        let mut h: sys::CUmemGenericAllocationHandle = 0;
        // SAFETY: valid out-pointer and property struct.
        check("cuMemCreate", unsafe {
            sys::cuMemCreate(&mut h, size as usize, &prop, 0)
        })?;
        self.calls.page_creates += 1;
        self.map_handle(ptr, size, h).inspect_err(|_| {
            // SAFETY: h is unmapped and ours.
            unsafe { sys::cuMemRelease(h) };
        })
    }

    fn map_spare(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError> {
        self.bind()?;
        let Some(k) = self.spare.iter().position(|&(_, s)| s == size) else {
            return Err(DeviceError::Other(AllocError::Device {
                call: "cuMemMap",
                message: format!("no spare chunk of {size} bytes"),
            }));
        };
        let h = self.spare[k].0;
        self.map_handle(ptr, size, h)?;
        self.spare.swap_remove(k);
        Ok(())
    }

    fn unmap_page(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        let h = self.unmap_only(ptr, size)?;
        // SAFETY: h was unmapped above and is ours.
        check_plain("cuMemRelease", unsafe { sys::cuMemRelease(h) })?;
        self.calls.page_releases += 1;
        Ok(())
    }

    fn unmap_page_keep(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        let h = self.unmap_only(ptr, size)?;
        self.spare.push((h, size));
        Ok(())
    }

    fn release_spare_pages(&mut self) -> AllocResult<()> {
        for (h, _) in std::mem::take(&mut self.spare) {
            // SAFETY: spare handles are unmapped and ours.
            check_plain("cuMemRelease", unsafe { sys::cuMemRelease(h) })?;
            self.calls.page_releases += 1;
        }
        Ok(())
    }

    fn mem_info(&mut self) -> AllocResult<(u64, u64)> {
        self.bind()?;
        let (f, t) = result::mem_get_info().map_err(|e| derr("cuMemGetInfo", e))?;
        Ok((f as u64, t as u64))
    }

    fn record_event(&mut self, stream: StreamId) -> AllocResult<EventId> {
        self.bind()?;
        let ev = match self.event_pool.pop() {
            Some(e) => e,
            None => result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(|e| derr("cuEventCreate", e))?,
        };
        // SAFETY: ev is a live event; stream is a stream handle the caller owns.
        unsafe { result::event::record(ev, stream as sys::CUstream) }
            .map_err(|e| derr("cuEventRecord", e))?;
        let id = self.next_event;
        self.next_event += 1;
        self.events.insert(id, ev);
        Ok(id)
    }

    fn query_event(&mut self, event: EventId) -> AllocResult<bool> {
        let ev = self.event(event, "cuEventQuery")?;
        // SAFETY: ev is a live event.
        match unsafe { sys::cuEventQuery(ev) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            other => Err(derr("cuEventQuery", result::DriverError(other))),
        }
    }

    fn synchronize_event(&mut self, event: EventId) -> AllocResult<()> {
        let ev = self.event(event, "cuEventSynchronize")?;
        // SAFETY: ev is a live event.
        unsafe { result::event::synchronize(ev) }.map_err(|e| derr("cuEventSynchronize", e))
    }

    fn release_event(&mut self, event: EventId) -> AllocResult<()> {
        if let Some(ev) = self.events.remove(&event) {
            self.event_pool.push(ev);
        }
        Ok(())
    }

    fn synchronize_stream(&mut self, stream: StreamId) -> AllocResult<()> {
        self.bind()?;
        // SAFETY: stream is a stream handle the caller owns (0: the legacy default stream).
        unsafe { result::stream::synchronize(stream as sys::CUstream) }
            .map_err(|e| derr("cuStreamSynchronize", e))
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        for (_, ev) in self.events.drain() {
            self.event_pool.push(ev);
        }
        for (h, _) in self.spare.drain(..) {
            // SAFETY: spare handles are unmapped and owned by this device.
            let _ = unsafe { sys::cuMemRelease(h) };
        }
        for ev in self.event_pool.drain(..) {
            // SAFETY: events created by this device and no longer used.
            let _ = unsafe { result::event::destroy(ev) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reserve_alignment;

    const MIB: u64 = 1 << 20;

    #[test]
    fn reservations_ask_for_a_power_of_two_alignment() {
        // PyTorch's large-pool page (20 MiB) and small-pool page (2 MiB), stridekit's 2 MiB
        // granule, and the driver's default.
        assert_eq!(reserve_alignment(20 * MIB), 4 << 20);
        assert_eq!(reserve_alignment(2 * MIB), 2 << 20);
        assert_eq!(reserve_alignment(0), 0);
        for align in [MIB, 3 * MIB, 20 * MIB, 6 * MIB, u64::MAX] {
            let a = reserve_alignment(align) as u64;
            assert!(a.is_power_of_two() && align % a == 0, "{align}: {a}");
        }
    }
}
