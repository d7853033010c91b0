//! `stridekit bench`: the layout-copy suite on a GPU (or the CPU backend), timed with CUDA
//! events under a noise-based stopping rule, verified against the CPU backend, with NVML
//! power/energy/clock telemetry, written as a table, JSON, CSV and an SVG plot.
//!
//! - [`cases`]: the suite (anchor cases, memcpy line, random permutations), pure.
//! - [`timing`]: the sampling rule and the low-clock discard, pure.
//! - [`telemetry`]: the NVML sampler and per-window summaries.
//! - [`record`], [`output`], [`plot`]: results, baselines, table, SVG.
//! - [`health`]: GPU health counters before and after a run (pure), read by `health::nvml`.
//! - [`transfers`]: the host-device and device-device transfers suite and its GPU run.
//! - [`placeholders`]: `{host}`, `{gpu}`, `{slurm_job}`, ... in output paths.
//! - [`run_cpu`], [`run_gpu`]: execution; [`cli`]: the command.
//! - [`model`]: `stridekit model`, the predicted memory efficiency of every case's kernel.

pub mod cases;
pub mod cli;
pub mod error;
pub mod gpu_bench;
pub mod health;
pub mod model;
pub mod output;
pub mod place;
pub mod placeholders;
pub mod plot;
pub mod record;
pub mod run_cpu;
pub mod run_gpu;
pub mod sink;
pub mod telemetry;
pub mod timing;
pub mod transfers;

/// The seeded random numbers moved below the tensor layer (`crate::rng`); the old path stays.
pub use crate::rng;
pub use cases::{Case, MEMCPY_CASE, suite};
pub use error::BenchError;
pub use place::{Place, Suite};
pub use record::{Header, Record, Report};

use cases::Work;
use health::Health;
use telemetry::WindowStats;
use timing::Samples;

/// Byte pattern every output is filled with before the run that is verified.
pub const POISON: u8 = 0xA5;

/// What a record measured: its name, data and bytes.
pub struct Measured {
    pub case: String,
    pub dtype: String,
    pub shape: Vec<i64>,
    pub op: String,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub suite: Suite,
}

/// A record from a case's measurements: `gbps` from the median ([`Record::bytes_moved`]);
/// a layout record's rates relative to memcpy and peak are filled in by
/// [`record::derive_rates`] once every case has run; the health fields by the run.
pub fn record_of(
    m: Measured,
    samples: &Samples,
    t: WindowStats,
    verified: bool,
    place: &Place,
) -> Record {
    let s = samples.summary();
    let ms = s.map(|s| s.median);
    let mut r = Record {
        case: m.case,
        dtype: m.dtype,
        shape: m.shape,
        op: m.op,
        bytes_read: m.bytes_read,
        bytes_written: m.bytes_written,
        ms_median: ms,
        ms_min: s.map(|s| s.min),
        ms_max: s.map(|s| s.max),
        samples: s.map_or(0, |s| s.count),
        gbps: None,
        pct_of_memcpy: None,
        pct_of_peak: None,
        telemetry: t,
        verified,
        place: place.clone(),
        discarded_low_clock: samples.discarded_low_clock,
        build: crate::BUILD.to_string(),
        suite: m.suite,
        health: Health::default(),
    };
    r.gbps = record::gbps(r.bytes_moved(), ms);
    r
}

/// A layout case's record (see [`record_of`]).
pub fn make_record(
    case: &Case,
    work: &Work,
    samples: &Samples,
    t: WindowStats,
    verified: bool,
    place: &Place,
) -> Record {
    let m = Measured {
        case: case.case.clone(),
        dtype: case.dtype.to_string(),
        shape: case.shape.clone(),
        op: case.expression(),
        bytes_read: work.bytes_read,
        bytes_written: work.bytes_written,
        suite: Suite::Layout,
    };
    record_of(m, samples, t, verified, place)
}

/// The CPU backend's device name: "CPU: " and the first `model name` of /proc/cpuinfo.
pub fn cpu_device_name() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!("CPU: {model}")
}
