//! Replay a [`Trace`] through the caching allocator, on the simulated device (exact when
//! the trace records its segment addresses) or any other [`RawDevice`].
//!
//! What a replay does with a snapshot's entries:
//! - `alloc` allocates the recorded requested size on the recorded stream; `free_requested`
//!   frees the allocation live at that address (frees of unknown addresses, left by a
//!   snapshot's ring buffer, are skipped and counted in [`Trace::skipped_frees`]);
//! - `segment_alloc` / `segment_map` addresses are handed out by the simulated device in
//!   order (reservations for expandable segments are derived from the `segment_map`
//!   addresses); the replay's own policy decides when to ask for them;
//! - `segment_free` / `segment_unmap` of memory the replay still holds as cache is taken as
//!   an explicit `empty_cache()` of the original program; under `policy:stridekit`, except
//!   when new memory is mapped before the next allocation or free (the policy moving its
//!   chunks, which the replay's policy does itself);
//! - `free_completed` is not replayed: a free whose completion the original run deferred
//!   (record_stream on another stream) is replayed as an immediate free, since snapshots do
//!   not record the other streams' uses;
//! - a leading 4-byte allocation and its free (the recording process's warm-up, after which
//!   it reset its peaks) is followed by a peak reset, so the figures compare with the
//!   recorded `memory_stats()`.
//!
//! Multi-device pickles: the first device with entries is replayed.

use std::time::Instant;

use super::config::AllocConfig;
use super::device::{DeviceCalls, RawDevice, SimulatedDevice};
use super::error::{AllocError, AllocResult};
use super::policy::{BlockHandle, DeviceCachingAllocator};
use super::sizes::K_LARGE_BUFFER;
use super::stats::DeviceStats;
use super::trace::{Op, Trace};

/// The H200's memory as CUDA reports it (143771 MiB): the default simulated capacity.
pub const H200_CAPACITY: u64 = 143_771 * (1 << 20);

/// How to replay.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// Simulated device capacity in bytes.
    pub capacity: u64,
    /// Hand out the trace's recorded segment addresses (when it has any).
    pub use_recorded_addresses: bool,
    /// Reset peak statistics after the trace's warm-up (as the recording process did).
    pub reset_after_warmup: bool,
    /// Keep (event, allocated, reserved) after every event, for a plot.
    pub timeline: bool,
    /// Stop after this event (0-based), leaving the allocator in that state.
    pub stop_after: Option<usize>,
    /// Record the allocator's history (for a snapshot's `device_traces`).
    pub record_history: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            capacity: H200_CAPACITY,
            use_recorded_addresses: true,
            reset_after_warmup: true,
            timeline: false,
            stop_after: None,
            record_history: false,
        }
    }
}

/// What a replay produced.
#[derive(Debug, Clone)]
pub struct ReplayReport {
    pub trace: String,
    pub config: String,
    pub stats: DeviceStats,
    /// Ops replayed.
    pub events: usize,
    pub seconds: f64,
    /// Allocations that failed with out-of-memory (the replay continues without them).
    pub failed_allocs: usize,
    /// (event index, allocated bytes, reserved bytes), when asked for.
    pub timeline: Vec<(u64, u64, u64)>,
    /// Segment addresses the device handed out, in order.
    pub segment_addresses: Vec<u64>,
    /// The device calls the replay made (simulated device only; zero elsewhere).
    pub device_calls: DeviceCalls,
    /// The event after which reserved bytes first reached their peak.
    pub peak_reserved_at: usize,
    /// The event of the first allocation that failed with out-of-memory.
    pub first_oom_at: Option<usize>,
}

impl ReplayReport {
    pub fn events_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.events as f64 / self.seconds
        } else {
            f64::INFINITY
        }
    }
    pub fn peak_allocated(&self) -> i64 {
        self.stats.allocated_bytes[0].peak
    }
    pub fn peak_reserved(&self) -> i64 {
        self.stats.reserved_bytes[0].peak
    }

    /// One record of `stridekit alloc replay --json`: trace, config, events,
    /// events_per_second, failed_allocs and the statistics under PyTorch's keys.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "trace": self.trace,
            "config": self.config,
            "events": self.events,
            "events_per_second": self.events_per_second(),
            "failed_allocs": self.failed_allocs,
            "stats": self.stats.to_json(),
        })
    }
}

/// The address-space reservations the original run made, derived from its `segment_map`
/// entries: a mapping outside every earlier reservation starts a new one.
pub fn reservations_from_maps(maps: &[(u64, u64)], capacity: u64) -> Vec<u64> {
    let span = (capacity + capacity / 8).div_ceil(K_LARGE_BUFFER) * K_LARGE_BUFFER;
    let mut bases: Vec<u64> = Vec::new();
    for &(addr, _) in maps {
        if !bases
            .iter()
            .any(|&b| addr >= b && addr < b.saturating_add(span))
        {
            bases.push(addr);
        }
    }
    bases
}

/// The simulated device a replay of `trace` should use under `opts`.
pub fn simulated_device_for(trace: &Trace, opts: &ReplayOptions) -> SimulatedDevice {
    if opts.use_recorded_addresses {
        SimulatedDevice::with_recorded(
            opts.capacity,
            trace.segment_addrs.clone(),
            reservations_from_maps(&trace.segment_maps, opts.capacity),
        )
    } else {
        SimulatedDevice::new(opts.capacity)
    }
}

/// Replay `trace` under `cfg` on a simulated device.
pub fn replay_simulated(
    trace: &Trace,
    cfg: &AllocConfig,
    opts: &ReplayOptions,
) -> AllocResult<ReplayReport> {
    replay_simulated_state(trace, cfg, opts).map(|(_, r)| r)
}

/// Replay `trace` under `cfg` on a simulated device and keep the allocator, in its state
/// after the last event replayed (see [`ReplayOptions::stop_after`]).
pub fn replay_simulated_state(
    trace: &Trace,
    cfg: &AllocConfig,
    opts: &ReplayOptions,
) -> AllocResult<(DeviceCachingAllocator<SimulatedDevice>, ReplayReport)> {
    let dev = simulated_device_for(trace, opts);
    let mut a = DeviceCachingAllocator::new(dev, cfg.clone())?;
    a.record_history(opts.record_history);
    let mut r = replay_on(&mut a, trace, opts)?;
    r.segment_addresses = std::mem::take(&mut a.device_mut().handed_out);
    r.device_calls = a.device().calls;
    Ok((a, r))
}

/// Whether the allocator still holds device memory at `addr` (a segment start or a
/// mapped range of an expandable segment).
fn holds<D: RawDevice>(a: &DeviceCachingAllocator<D>, addr: u64) -> bool {
    a.blocks.iter().any(|b| {
        b.in_use && b.mapped && !b.allocated && addr >= b.ptr && addr < b.ptr + b.size.max(1)
    })
}

/// Replay `trace` through an existing allocator.
pub fn replay_on<D: RawDevice>(
    a: &mut DeviceCachingAllocator<D>,
    trace: &Trace,
    opts: &ReplayOptions,
) -> AllocResult<ReplayReport> {
    let mut slots: Vec<Option<BlockHandle>> = vec![None; trace.slots as usize];
    let mut failed = 0usize;
    let mut first_oom_at = None;
    let mut peak = (a.stats().reserved_bytes[0].current, 0usize);
    let mut timeline = Vec::new();
    if opts.timeline {
        timeline.reserve(trace.ops.len());
    }
    let start = Instant::now();
    for (k, op) in trace.ops.iter().enumerate() {
        match *op {
            Op::Alloc { slot, size, stream } => match a.malloc(size, stream) {
                Ok(h) => slots[slot as usize] = Some(h),
                Err(AllocError::OutOfMemory(_)) => {
                    failed += 1;
                    first_oom_at.get_or_insert(k);
                }
                Err(e) => return Err(e),
            },
            Op::Free { slot } => {
                if let Some(h) = slots[slot as usize].take() {
                    a.free(h)?;
                }
            }
            Op::SegmentRelease { addr, remapped } => {
                // Under stridekit's policy, memory unmapped and mapped again before the
                // next allocation is the policy moving chunks, which the replay's own
                // policy decides.
                if !(remapped && a.config().is_stridekit()) && holds(a, addr) {
                    a.empty_cache()?;
                }
            }
        }
        let reserved = a.stats().reserved_bytes[0].current;
        if reserved > peak.0 {
            peak = (reserved, k);
        }
        if opts.reset_after_warmup && trace.warmup_ops > 0 && k + 1 == trace.warmup_ops {
            a.reset_peak_stats();
            peak = (reserved, k);
        }
        if opts.timeline {
            let s = a.stats();
            timeline.push((
                k as u64,
                s.allocated_bytes[0].current as u64,
                s.reserved_bytes[0].current as u64,
            ));
        }
        if opts.stop_after == Some(k) {
            break;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(ReplayReport {
        trace: trace.name.clone(),
        config: a.config().label(),
        stats: a.stats().clone(),
        events: opts
            .stop_after
            .map_or(trace.ops.len(), |s| (s + 1).min(trace.ops.len())),
        seconds,
        failed_allocs: failed,
        timeline,
        segment_addresses: Vec::new(),
        device_calls: DeviceCalls::default(),
        peak_reserved_at: peak.1,
        first_oom_at,
    })
}

/// Reduce a timeline to at most `n` points, keeping each bucket's maxima.
pub fn downsample(t: &[(u64, u64, u64)], n: usize) -> Vec<(u64, u64, u64)> {
    if t.len() <= n || n == 0 {
        return t.to_vec();
    }
    let per = t.len().div_ceil(n);
    t.chunks(per)
        .map(|c| {
            let last = c[c.len() - 1].0;
            let al = c.iter().map(|p| p.1).max().unwrap_or(0);
            let re = c.iter().map(|p| p.2).max().unwrap_or(0);
            (last, al, re)
        })
        .collect()
}
