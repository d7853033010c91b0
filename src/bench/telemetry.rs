//! NVML telemetry: a sampler thread reads power, SM and memory clocks, temperature and
//! clock-throttle reasons at a fixed interval; each case's window is summarised (mean and
//! max power, energy from the total-energy counter's difference, joules per GB moved, mean
//! clocks, max temperature, the throttle reasons seen).
//!
//! One [`Nvml`] lives for the whole run (a [`Device`] borrows it). Without libnvidia-ml,
//! `Nvml::init` returns an error (no panic): the suite then runs without telemetry.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::{Device, Nvml};
use parking_lot::Mutex;

/// One reading; a field is None when NVML could not read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub at: Instant,
    pub power_w: Option<f64>,
    pub sm_mhz: Option<u32>,
    pub mem_mhz: Option<u32>,
    pub temp_c: Option<u32>,
    /// NVML's clock-throttle (clocks-event) reason bits.
    pub throttle: Option<u64>,
}

/// One GPU as NVML sees it.
pub struct Gauge<'n> {
    dev: Device<'n>,
}

/// Static facts NVML reports about a GPU; None where it cannot tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GaugeInfo {
    pub driver: Option<String>,
    pub max_sm_mhz: Option<u32>,
    pub max_mem_mhz: Option<u32>,
    pub bus_width_bits: Option<u32>,
}

/// Loads libnvidia-ml; the error says why telemetry is unavailable.
pub fn open_nvml() -> Result<Nvml, String> {
    Nvml::init().map_err(|e| format!("NVML unavailable ({e})"))
}

impl<'n> Gauge<'n> {
    /// The NVML device with this UUID (`GPU-xxxxxxxx-...`, as CUDA reports it), so the
    /// telemetry follows the CUDA ordinal even under CUDA_VISIBLE_DEVICES.
    pub fn by_uuid(nvml: &'n Nvml, uuid: &str) -> Result<Gauge<'n>, String> {
        nvml.device_by_uuid(uuid)
            .map(|dev| Gauge { dev })
            .map_err(|e| format!("NVML has no device {uuid} ({e})"))
    }

    pub fn info(&self, nvml: &Nvml) -> GaugeInfo {
        GaugeInfo {
            driver: nvml.sys_driver_version().ok(),
            max_sm_mhz: self.dev.max_clock_info(Clock::SM).ok(),
            max_mem_mhz: self.dev.max_clock_info(Clock::Memory).ok(),
            bus_width_bits: self.dev.memory_bus_width().ok(),
        }
    }

    /// The health counters now (ECC, retired pages, row remapping, PCIe, violations).
    pub fn health(&self) -> super::health::Snapshot {
        super::health::nvml::snapshot(&self.dev)
    }

    pub fn sm_mhz(&self) -> Option<u32> {
        self.dev.clock_info(Clock::SM).ok()
    }

    /// Energy since the driver loaded, in millijoules.
    pub fn energy_mj(&self) -> Option<u64> {
        self.dev.total_energy_consumption().ok()
    }

    pub fn read(&self) -> Reading {
        Reading {
            at: Instant::now(),
            power_w: self.dev.power_usage().ok().map(|mw| mw as f64 / 1000.0),
            sm_mhz: self.sm_mhz(),
            mem_mhz: self.dev.clock_info(Clock::Memory).ok(),
            temp_c: self.dev.temperature(TemperatureSensor::Gpu).ok(),
            throttle: self.dev.current_throttle_reasons().ok().map(|r| r.bits()),
        }
    }
}

/// Readings shared between the sampler thread and the benchmark thread.
#[derive(Default)]
pub struct Recorder {
    readings: Mutex<Vec<Reading>>,
    stop: AtomicBool,
}

impl Recorder {
    pub fn push(&self, r: Reading) {
        self.readings.lock().push(r);
    }

    /// Samples `gauge` every `interval` until [`Recorder::stop`]; run it in its own thread.
    pub fn run(&self, gauge: &Gauge, interval: Duration) {
        while !self.stop.load(Ordering::Relaxed) {
            self.push(gauge.read());
            std::thread::sleep(interval);
        }
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The readings taken in `[start, end]`; older ones are dropped.
    pub fn window(&self, start: Instant, end: Instant) -> Vec<Reading> {
        let mut all = self.readings.lock();
        all.retain(|r| r.at >= start);
        all.iter().filter(|r| r.at <= end).copied().collect()
    }
}

/// A case window's telemetry; every field is None without NVML (or when NVML could not
/// read that quantity).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WindowStats {
    pub power_w_mean: Option<f64>,
    pub power_w_max: Option<f64>,
    pub energy_j: Option<f64>,
    pub j_per_gb: Option<f64>,
    pub sm_mhz_mean: Option<f64>,
    pub mem_mhz_mean: Option<f64>,
    pub temp_c_max: Option<u32>,
    pub throttle_reasons: Option<Vec<String>>,
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = v.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    (n > 0).then(|| sum / n as f64)
}

/// Summarises a window: `energy_j` is the energy counter's difference over the window,
/// `bytes_moved` the bytes read plus written by every run in it.
pub fn summarize(readings: &[Reading], energy_j: Option<f64>, bytes_moved: u64) -> WindowStats {
    let power = || readings.iter().filter_map(|r| r.power_w);
    let throttle: Option<u64> = readings
        .iter()
        .filter_map(|r| r.throttle)
        .reduce(|a, b| a | b);
    WindowStats {
        power_w_mean: mean(power()),
        power_w_max: power().reduce(f64::max),
        energy_j,
        j_per_gb: energy_j
            .filter(|_| bytes_moved > 0)
            .map(|e| e / (bytes_moved as f64 / 1e9)),
        sm_mhz_mean: mean(readings.iter().filter_map(|r| r.sm_mhz.map(f64::from))),
        mem_mhz_mean: mean(readings.iter().filter_map(|r| r.mem_mhz.map(f64::from))),
        temp_c_max: readings.iter().filter_map(|r| r.temp_c).max(),
        throttle_reasons: throttle.map(throttle_names),
    }
}

/// NVML's names of the reason bits, lower case (`gpu_idle`, `sw_power_cap`, ...).
pub fn throttle_names(bits: u64) -> Vec<String> {
    ThrottleReasons::from_bits_truncate(bits)
        .iter_names()
        .filter(|(_, f)| !f.is_empty())
        .map(|(name, _)| name.to_ascii_lowercase())
        .collect()
}

/// The theoretical DRAM bandwidth: 2 transfers per memory clock over the bus, in GB/s.
pub fn peak_gbps(mem_mhz: u32, bus_width_bits: u32) -> f64 {
    2.0 * mem_mhz as f64 * 1e6 * bus_width_bits as f64 / 8.0 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(at: Instant, w: f64, sm: u32, t: u32, throttle: u64) -> Reading {
        Reading {
            at,
            power_w: Some(w),
            sm_mhz: Some(sm),
            mem_mhz: Some(3201),
            temp_c: Some(t),
            throttle: Some(throttle),
        }
    }

    #[test]
    fn window_summary() {
        let t = Instant::now();
        let sw_power_cap = ThrottleReasons::SW_POWER_CAP.bits();
        let idle = ThrottleReasons::GPU_IDLE.bits();
        let r = [
            reading(t, 300.0, 1980, 40, 0),
            reading(t, 500.0, 1900, 45, sw_power_cap),
            reading(t, 400.0, 1980, 42, idle),
        ];
        let s = summarize(&r, Some(8.0), 4_000_000_000);
        assert_eq!(s.power_w_mean, Some(400.0));
        assert_eq!(s.power_w_max, Some(500.0));
        assert_eq!(s.energy_j, Some(8.0));
        assert_eq!(s.j_per_gb, Some(2.0));
        assert!((s.sm_mhz_mean.unwrap() - 1953.333).abs() < 0.01);
        assert_eq!(s.mem_mhz_mean, Some(3201.0));
        assert_eq!(s.temp_c_max, Some(45));
        assert_eq!(
            s.throttle_reasons,
            Some(vec!["gpu_idle".to_string(), "sw_power_cap".to_string()])
        );
        let none = summarize(&[], None, 100);
        assert_eq!(none, WindowStats::default());
        assert_eq!(
            summarize(&r[..1], None, 1).throttle_reasons,
            Some(vec![]),
            "read, and nothing throttled"
        );
    }

    #[test]
    fn recorder_windows_drop_older_readings() {
        let rec = Recorder::default();
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_millis(10);
        let t2 = t0 + Duration::from_millis(20);
        for t in [t0, t1, t2] {
            rec.push(reading(t, 1.0, 1, 1, 0));
        }
        assert_eq!(rec.window(t1, t1).len(), 1);
        assert_eq!(
            rec.window(t0, t2).len(),
            2,
            "t0 was dropped by the first window"
        );
    }

    #[test]
    fn h200_peak() {
        // The H200 test machine (NVML): 2 x 3201 MHz x 6016 bits / 8 = 4814.3 GB/s ("4815").
        assert!((peak_gbps(3201, 6016) - 4814.304).abs() < 1e-9);
    }

    #[test]
    fn without_nvml_the_error_names_it() {
        // On a machine with NVML this opens it; without, the message says what is missing.
        if let Err(e) = open_nvml() {
            assert!(e.starts_with("NVML unavailable"), "{e}");
        }
    }
}
