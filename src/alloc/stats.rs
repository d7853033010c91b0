//! Allocator statistics with PyTorch's names and meaning (`torch.cuda.memory_stats()`).

use serde_json::{Map, Value};

/// One counter: its current value, its peak since the last peak reset, and the totals
/// added and removed since the last accumulated reset (`current == allocated - freed`
/// when no reset happened).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat {
    pub current: i64,
    pub peak: i64,
    pub allocated: i64,
    pub freed: i64,
}

impl Stat {
    #[inline]
    pub fn increase(&mut self, amount: u64) {
        self.current += amount as i64;
        if self.current > self.peak {
            self.peak = self.current;
        }
        self.allocated += amount as i64;
    }
    #[inline]
    pub fn decrease(&mut self, amount: u64) {
        self.current -= amount as i64;
        self.freed += amount as i64;
    }
    pub fn reset_accumulated(&mut self) {
        self.allocated = 0;
        self.freed = 0;
    }
    pub fn reset_peak(&mut self) {
        self.peak = self.current;
    }
}

/// Index into a [`StatArray`]: all pools, the small pool, the large pool.
pub const AGGREGATE: usize = 0;
pub const SMALL_POOL: usize = 1;
pub const LARGE_POOL: usize = 2;
/// PyTorch's names for the three entries of a [`StatArray`].
pub const POOL_NAMES: [&str; 3] = ["all", "small_pool", "large_pool"];

/// A counter per pool: index with [`AGGREGATE`], [`SMALL_POOL`], [`LARGE_POOL`].
pub type StatArray = [Stat; 3];

#[inline]
pub(crate) fn inc(a: &mut StatArray, pool: usize, amount: u64) {
    a[AGGREGATE].increase(amount);
    a[pool].increase(amount);
}
#[inline]
pub(crate) fn dec(a: &mut StatArray, pool: usize, amount: u64) {
    a[AGGREGATE].decrease(amount);
    a[pool].decrease(amount);
}

/// All statistics of one device's caching allocator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceStats {
    /// Live allocations handed to callers.
    pub allocation: StatArray,
    /// Segments obtained with cudaMalloc.
    pub segment: StatArray,
    /// Active blocks (allocated, or freed with stream uses still pending).
    pub active: StatArray,
    /// Free blocks inside partly used segments (cannot be released).
    pub inactive_split: StatArray,
    pub allocated_bytes: StatArray,
    pub reserved_bytes: StatArray,
    pub active_bytes: StatArray,
    pub inactive_split_bytes: StatArray,
    /// Bytes callers asked for (before rounding).
    pub requested_bytes: StatArray,
    pub num_alloc_retries: i64,
    pub num_ooms: i64,
    pub num_sync_all_streams: i64,
    pub num_device_alloc: i64,
    pub num_device_free: i64,
    pub oversize_allocations: Stat,
    pub oversize_segments: Stat,
    /// The max_split_size setting (-1 when unlimited, as PyTorch prints SIZE_MAX).
    pub max_split_size: i64,
}

impl DeviceStats {
    fn arrays_mut(&mut self) -> [&mut StatArray; 9] {
        [
            &mut self.allocation,
            &mut self.segment,
            &mut self.active,
            &mut self.inactive_split,
            &mut self.allocated_bytes,
            &mut self.reserved_bytes,
            &mut self.active_bytes,
            &mut self.inactive_split_bytes,
            &mut self.requested_bytes,
        ]
    }

    /// The nine per-pool counters with their PyTorch names.
    pub fn arrays(&self) -> [(&'static str, &StatArray); 9] {
        [
            ("allocation", &self.allocation),
            ("segment", &self.segment),
            ("active", &self.active),
            ("inactive_split", &self.inactive_split),
            ("allocated_bytes", &self.allocated_bytes),
            ("reserved_bytes", &self.reserved_bytes),
            ("active_bytes", &self.active_bytes),
            ("inactive_split_bytes", &self.inactive_split_bytes),
            ("requested_bytes", &self.requested_bytes),
        ]
    }

    /// Peaks back to the current values.
    pub fn reset_peak(&mut self) {
        for a in self.arrays_mut() {
            for s in a.iter_mut() {
                s.reset_peak();
            }
        }
        self.oversize_allocations.reset_peak();
        self.oversize_segments.reset_peak();
    }

    /// Accumulated totals and event counters back to zero.
    pub fn reset_accumulated(&mut self) {
        for a in self.arrays_mut() {
            for s in a.iter_mut() {
                s.reset_accumulated();
            }
        }
        self.num_alloc_retries = 0;
        self.num_ooms = 0;
        self.num_sync_all_streams = 0;
        self.num_device_alloc = 0;
        self.num_device_free = 0;
        self.oversize_allocations.reset_accumulated();
        self.oversize_segments.reset_accumulated();
    }

    /// Flat key/value pairs named as `torch.cuda.memory_stats()` names them, e.g.
    /// `allocated_bytes.all.peak`.
    pub fn to_flat(&self) -> Vec<(String, i64)> {
        let mut out = Vec::with_capacity(128);
        for (name, arr) in self.arrays() {
            for (p, s) in POOL_NAMES.iter().zip(arr.iter()) {
                out.push((format!("{name}.{p}.current"), s.current));
                out.push((format!("{name}.{p}.peak"), s.peak));
                out.push((format!("{name}.{p}.allocated"), s.allocated));
                out.push((format!("{name}.{p}.freed"), s.freed));
            }
        }
        for (name, s) in [
            ("oversize_allocations", &self.oversize_allocations),
            ("oversize_segments", &self.oversize_segments),
        ] {
            out.push((format!("{name}.current"), s.current));
            out.push((format!("{name}.peak"), s.peak));
            out.push((format!("{name}.allocated"), s.allocated));
            out.push((format!("{name}.freed"), s.freed));
        }
        out.push(("num_alloc_retries".into(), self.num_alloc_retries));
        out.push(("num_ooms".into(), self.num_ooms));
        out.push(("num_sync_all_streams".into(), self.num_sync_all_streams));
        out.push(("num_device_alloc".into(), self.num_device_alloc));
        out.push(("num_device_free".into(), self.num_device_free));
        out.push(("max_split_size".into(), self.max_split_size));
        out
    }

    /// The value of one PyTorch key, e.g. `reserved_bytes.all.peak`.
    pub fn get(&self, key: &str) -> Option<i64> {
        self.to_flat()
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The flat statistics as a JSON object (keys sorted).
    pub fn to_json(&self) -> Value {
        let mut pairs = self.to_flat();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut m = Map::new();
        for (k, v) in pairs {
            m.insert(k, Value::from(v));
        }
        Value::Object(m)
    }
}
