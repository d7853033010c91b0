//! The device under the caching allocator: a [`RawDevice`] hands out whole segments
//! (cudaMalloc-like), maps and unmaps pages inside reserved address ranges (for expandable
//! segments), and records and queries stream events. [`SimulatedDevice`] does all of this
//! in host memory accounting only, with a capacity in bytes.

use std::collections::{BTreeMap, VecDeque};

use super::error::{AllocError, AllocResult};
use super::sorted::SortedMap;

/// A stream handle as the device knows it (a `CUstream` value; 0 is the default stream).
pub type StreamId = u64;
/// An event handle issued by a device.
pub type EventId = u64;

/// Why a device call failed: out of memory (the allocator may free cached blocks and
/// retry) or anything else (an error the allocator passes on).
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceError {
    OutOfMemory,
    Other(AllocError),
}

impl From<AllocError> for DeviceError {
    fn from(e: AllocError) -> Self {
        DeviceError::Other(e)
    }
}

/// Raw device memory operations, as the caching allocator needs them.
pub trait RawDevice {
    /// Obtain a segment of `size` bytes (cudaMalloc).
    fn malloc(&mut self, size: u64) -> Result<u64, DeviceError>;
    /// Return a segment obtained with [`RawDevice::malloc`] (cudaFree).
    fn free(&mut self, ptr: u64, size: u64) -> AllocResult<()>;
    /// Reserve `size` bytes of address space aligned to `align` (cuMemAddressReserve). A
    /// device may align to a power-of-two divisor of `align` only (CUDA accepts no other);
    /// every page the allocator maps is a multiple of the 2 MiB granularity either way.
    fn reserve(&mut self, size: u64, align: u64) -> AllocResult<u64>;
    /// Release a reservation made with [`RawDevice::reserve`] (cuMemAddressFree).
    fn release_reservation(&mut self, ptr: u64, size: u64) -> AllocResult<()>;
    /// Create one physical chunk of `size` bytes and map it at `[ptr, ptr+size)` inside a
    /// reservation, accessible (cuMemCreate + cuMemMap + cuMemSetAccess). Under PyTorch's
    /// policy every chunk is one page of the segment's page size; under stridekit's a
    /// chunk is any multiple of the 2 MiB granularity.
    fn map_page(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError>;
    /// Map a spare chunk of `size` bytes (one kept by [`RawDevice::unmap_page_keep`]) at
    /// `[ptr, ptr+size)`, accessible (cuMemMap + cuMemSetAccess, no cuMemCreate).
    fn map_spare(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError>;
    /// Unmap and release one chunk mapped with [`RawDevice::map_page`] (cuMemUnmap +
    /// cuMemRelease).
    fn unmap_page(&mut self, ptr: u64, size: u64) -> AllocResult<()>;
    /// Unmap one chunk but keep its physical memory as a spare chunk, which
    /// [`RawDevice::map_spare`] maps again elsewhere (cuMemUnmap, keeping the handle).
    fn unmap_page_keep(&mut self, ptr: u64, size: u64) -> AllocResult<()>;
    /// Release every spare chunk (cuMemRelease).
    fn release_spare_pages(&mut self) -> AllocResult<()>;
    /// (free, total) device memory in bytes (cudaMemGetInfo).
    fn mem_info(&mut self) -> AllocResult<(u64, u64)>;
    /// Record an event on `stream` (cudaEventRecord).
    fn record_event(&mut self, stream: StreamId) -> AllocResult<EventId>;
    /// Whether the work before `event` has completed (cudaEventQuery).
    fn query_event(&mut self, event: EventId) -> AllocResult<bool>;
    /// Wait for `event` (cudaEventSynchronize).
    fn synchronize_event(&mut self, event: EventId) -> AllocResult<()>;
    /// Return an event to the device's pool.
    fn release_event(&mut self, event: EventId) -> AllocResult<()>;
    /// Wait for all work on `stream` (before unmapping pages it may still use).
    fn synchronize_stream(&mut self, stream: StreamId) -> AllocResult<()>;
}

const SIM_BASE: u64 = 0x7f00_0000_0000;
const SIM_ALIGN: u64 = 2 << 20;

/// A device that only keeps accounts: a capacity in bytes, 2 MiB-aligned addresses that
/// never overlap, and stream events that complete when asked (immediately by default).
///
/// Given a recorded list of segment addresses ([`SimulatedDevice::with_recorded`]) it
/// hands them out in order, so that a replay sees the addresses the original run saw.
#[derive(Debug, Clone)]
pub struct SimulatedDevice {
    capacity: u64,
    used: u64,
    next_addr: u64,
    free_ranges: BTreeMap<u64, u64>,
    recorded: VecDeque<u64>,
    recorded_reservations: VecDeque<u64>,
    live: SortedMap<u64, u64>,
    mapped: SortedMap<u64, u64>,
    next_event: EventId,
    pending: BTreeMap<EventId, bool>,
    events_complete_immediately: bool,
    /// Every segment address handed out by `malloc`, in order.
    pub handed_out: Vec<u64>,
    /// Every reservation base handed out by `reserve`, in order.
    pub reservations_handed_out: Vec<u64>,
    /// How many times each device call was made.
    pub calls: DeviceCalls,
    /// Sizes of the spare chunks (unmapped, physical memory kept).
    spare: Vec<u64>,
}

/// Counts of the device calls a simulated device served (what a tuning study compares:
/// each is a driver call, some synchronising, on a real GPU).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCalls {
    /// Segment allocations (`cudaMalloc`).
    pub segment_allocs: u64,
    /// Segment frees (`cudaFree`).
    pub segment_frees: u64,
    /// Physical pages (PyTorch) or chunks (stridekit) created (`cuMemCreate`).
    pub page_creates: u64,
    /// Pages or chunks mapped into a virtual range (`cuMemMap` + `cuMemSetAccess`).
    pub page_maps: u64,
    /// Pages or chunks unmapped (`cuMemUnmap`).
    pub page_unmaps: u64,
    /// Physical pages or chunks released (`cuMemRelease`).
    pub page_releases: u64,
    /// Virtual address ranges reserved (`cuMemAddressReserve`).
    pub reservations: u64,
}

impl DeviceCalls {
    /// The calls that obtain memory: segment allocations, page creations and page maps.
    pub fn obtaining(&self) -> u64 {
        self.segment_allocs + self.page_creates + self.page_maps
    }
}

impl SimulatedDevice {
    /// A simulated device of `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        SimulatedDevice {
            capacity,
            used: 0,
            next_addr: SIM_BASE,
            free_ranges: BTreeMap::new(),
            recorded: VecDeque::new(),
            recorded_reservations: VecDeque::new(),
            live: SortedMap::new(),
            mapped: SortedMap::new(),
            next_event: 1,
            pending: BTreeMap::new(),
            events_complete_immediately: true,
            handed_out: Vec::new(),
            reservations_handed_out: Vec::new(),
            calls: DeviceCalls::default(),
            spare: Vec::new(),
        }
    }

    /// A simulated device that first hands out `segments` (cudaMalloc results) and
    /// `reservations` (address-space reservations) in the order given.
    pub fn with_recorded(capacity: u64, segments: Vec<u64>, reservations: Vec<u64>) -> Self {
        let mut d = SimulatedDevice::new(capacity);
        let top = segments
            .iter()
            .chain(reservations.iter())
            .copied()
            .max()
            .unwrap_or(0);
        // Fallback addresses start well above anything recorded (reservations span up to
        // 1.125 x capacity), so they cannot collide.
        let above = top
            .saturating_add(capacity.saturating_mul(2))
            .saturating_add(SIM_ALIGN);
        d.next_addr = d.next_addr.max(above.div_ceil(SIM_ALIGN) * SIM_ALIGN);
        d.recorded = segments.into();
        d.recorded_reservations = reservations.into();
        d
    }

    /// Whether events complete at their first query (default) or only when
    /// [`SimulatedDevice::complete_all_events`] is called.
    pub fn set_events_complete_immediately(&mut self, yes: bool) {
        self.events_complete_immediately = yes;
    }

    /// Mark every outstanding event complete.
    pub fn complete_all_events(&mut self) {
        for v in self.pending.values_mut() {
            *v = true;
        }
    }

    /// Bytes obtained from this device and not yet returned.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// The capacity in bytes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    fn fresh_range(&mut self, size: u64) -> u64 {
        let need = size.div_ceil(SIM_ALIGN).max(1) * SIM_ALIGN;
        // First fit among previously freed ranges.
        let found = self
            .free_ranges
            .iter()
            .find(|&(_, &len)| len >= need)
            .map(|(&a, &l)| (a, l));
        if let Some((a, l)) = found {
            self.free_ranges.remove(&a);
            if l > need {
                self.free_ranges.insert(a + need, l - need);
            }
            return a;
        }
        let a = self.next_addr;
        self.next_addr = self.next_addr.saturating_add(need);
        a
    }

    fn insert_mapping(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError> {
        let overlaps = |(p, s): (u64, u64)| p < ptr + size && ptr < p + s;
        let before = self.mapped.last_at_or_below(&ptr);
        let after = self.mapped.range(&ptr, &(ptr + size)).first().copied();
        if before.is_some_and(overlaps) || after.is_some_and(overlaps) {
            return Err(DeviceError::Other(AllocError::Device {
                call: "cuMemMap",
                message: format!(
                    "simulated device: {ptr:#x} ({size} bytes) overlaps a mapped chunk"
                ),
            }));
        }
        self.mapped.insert(ptr, size);
        Ok(())
    }

    fn return_range(&mut self, ptr: u64, size: u64) {
        if ptr < SIM_BASE {
            return;
        }
        let need = size.div_ceil(SIM_ALIGN).max(1) * SIM_ALIGN;
        self.free_ranges.insert(ptr, need);
    }
}

impl RawDevice for SimulatedDevice {
    fn malloc(&mut self, size: u64) -> Result<u64, DeviceError> {
        if self.used.saturating_add(size) > self.capacity {
            return Err(DeviceError::OutOfMemory);
        }
        let ptr = match self.recorded.pop_front() {
            Some(p) => p,
            None => self.fresh_range(size),
        };
        self.used += size;
        self.live.insert(ptr, size);
        self.handed_out.push(ptr);
        self.calls.segment_allocs += 1;
        Ok(ptr)
    }

    fn free(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        match self.live.remove(&ptr) {
            Some(s) if s == size => {
                self.used -= size;
                self.return_range(ptr, size);
                self.calls.segment_frees += 1;
                Ok(())
            }
            _ => Err(AllocError::Device {
                call: "cudaFree",
                message: format!("simulated device: {ptr:#x} ({size} bytes) is not a live segment"),
            }),
        }
    }

    fn reserve(&mut self, size: u64, align: u64) -> AllocResult<u64> {
        let ptr = match self.recorded_reservations.pop_front() {
            Some(p) => p,
            None => {
                let align = align.max(SIM_ALIGN);
                let a = self.next_addr.div_ceil(align) * align;
                self.next_addr =
                    a.saturating_add(size.div_ceil(SIM_ALIGN).saturating_mul(SIM_ALIGN));
                a
            }
        };
        self.reservations_handed_out.push(ptr);
        self.calls.reservations += 1;
        Ok(ptr)
    }

    fn release_reservation(&mut self, _ptr: u64, _size: u64) -> AllocResult<()> {
        Ok(())
    }

    fn map_page(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError> {
        if self.used.saturating_add(size) > self.capacity {
            return Err(DeviceError::OutOfMemory);
        }
        self.insert_mapping(ptr, size)?;
        self.used += size;
        self.calls.page_creates += 1;
        self.calls.page_maps += 1;
        Ok(())
    }

    fn map_spare(&mut self, ptr: u64, size: u64) -> Result<(), DeviceError> {
        let Some(k) = self.spare.iter().position(|&s| s == size) else {
            return Err(DeviceError::Other(AllocError::Device {
                call: "cuMemMap",
                message: format!("simulated device: no spare chunk of {size} bytes"),
            }));
        };
        self.insert_mapping(ptr, size)?;
        self.spare.swap_remove(k);
        self.calls.page_maps += 1;
        Ok(())
    }

    fn unmap_page_keep(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        match self.mapped.remove(&ptr) {
            Some(s) if s == size => {
                self.spare.push(size);
                self.calls.page_unmaps += 1;
                Ok(())
            }
            _ => Err(AllocError::Device {
                call: "cuMemUnmap",
                message: format!("simulated device: page {ptr:#x} is not mapped"),
            }),
        }
    }

    fn release_spare_pages(&mut self) -> AllocResult<()> {
        for s in self.spare.drain(..) {
            self.used -= s;
            self.calls.page_releases += 1;
        }
        Ok(())
    }

    fn unmap_page(&mut self, ptr: u64, size: u64) -> AllocResult<()> {
        match self.mapped.remove(&ptr) {
            Some(s) if s == size => {
                self.used -= size;
                self.calls.page_unmaps += 1;
                self.calls.page_releases += 1;
                Ok(())
            }
            _ => Err(AllocError::Device {
                call: "cuMemUnmap",
                message: format!("simulated device: page {ptr:#x} is not mapped"),
            }),
        }
    }

    fn mem_info(&mut self) -> AllocResult<(u64, u64)> {
        Ok((self.capacity - self.used.min(self.capacity), self.capacity))
    }

    fn record_event(&mut self, _stream: StreamId) -> AllocResult<EventId> {
        let e = self.next_event;
        self.next_event += 1;
        self.pending.insert(e, false);
        Ok(e)
    }

    fn query_event(&mut self, event: EventId) -> AllocResult<bool> {
        match self.pending.get(&event) {
            Some(&done) => Ok(done || self.events_complete_immediately),
            None => Err(AllocError::Device {
                call: "cudaEventQuery",
                message: format!("simulated device: unknown event {event}"),
            }),
        }
    }

    fn synchronize_event(&mut self, event: EventId) -> AllocResult<()> {
        match self.pending.get_mut(&event) {
            Some(done) => {
                *done = true;
                Ok(())
            }
            None => Err(AllocError::Device {
                call: "cudaEventSynchronize",
                message: format!("simulated device: unknown event {event}"),
            }),
        }
    }

    fn release_event(&mut self, event: EventId) -> AllocResult<()> {
        self.pending.remove(&event);
        Ok(())
    }

    fn synchronize_stream(&mut self, _stream: StreamId) -> AllocResult<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// A created chunk is counted once as a create and once as a map; a kept chunk maps
    /// again without a create, only at its own size, and chunks never overlap.
    #[test]
    fn chunks_are_created_kept_and_mapped_again() {
        let mut d = SimulatedDevice::new(64 * MIB);
        let base = d.reserve(256 * MIB, 2 * MIB).unwrap();
        d.map_page(base, 20 * MIB).unwrap();
        assert!(matches!(
            d.map_page(base + 18 * MIB, 4 * MIB),
            Err(DeviceError::Other(_))
        ));
        d.unmap_page_keep(base, 20 * MIB).unwrap();
        assert_eq!(d.used(), 20 * MIB);
        assert!(matches!(
            d.map_spare(base + 40 * MIB, 18 * MIB),
            Err(DeviceError::Other(_))
        ));
        d.map_spare(base + 40 * MIB, 20 * MIB).unwrap();
        assert_eq!(d.calls.page_creates, 1);
        assert_eq!(d.calls.page_maps, 2);
        assert_eq!(d.calls.page_unmaps, 1);
        // A new chunk is created even with a spare of its size around.
        d.unmap_page_keep(base + 40 * MIB, 20 * MIB).unwrap();
        d.map_page(base, 20 * MIB).unwrap();
        assert_eq!(d.calls.page_creates, 2);
        assert_eq!(d.used(), 40 * MIB);
        assert_eq!(
            d.map_page(base + 20 * MIB, 40 * MIB),
            Err(DeviceError::OutOfMemory)
        );
        d.release_spare_pages().unwrap();
        assert_eq!(d.used(), 20 * MIB);
        assert_eq!(d.calls.page_releases, 1);
    }
}
