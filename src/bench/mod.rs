//! `stridekit bench`: the layout-copy suite on a GPU (or the CPU backend), timed with CUDA
//! events under a noise-based stopping rule, verified against the CPU backend, with NVML
//! power/energy/clock telemetry, written as a table, JSON, CSV and an SVG plot.
//!
//! - [`cases`]: the suite (anchor cases, memcpy line, random permutations), pure.
//! - [`timing`]: the sampling rule and the low-clock discard, pure.
//! - [`telemetry`]: the NVML sampler and per-window summaries.
//! - [`record`], [`output`], [`plot`]: results, baselines, table, SVG.
//! - [`run_cpu`], [`run_gpu`]: execution; [`cli`]: the command.

pub mod cases;
pub mod cli;
pub mod error;
pub mod output;
pub mod plot;
pub mod record;
pub mod rng;
pub mod run_cpu;
pub mod run_gpu;
pub mod telemetry;
pub mod timing;

pub use cases::{Case, MEMCPY_CASE, suite};
pub use error::BenchError;
pub use record::{Header, Record, Report};

use cases::Work;
use telemetry::WindowStats;
use timing::Samples;

/// Byte pattern every output is filled with before the run that is verified.
pub const POISON: u8 = 0xA5;

/// Where records were measured: host, device, batch-job ids.
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub host: String,
    pub gpu_index: Option<usize>,
    pub gpu_uuid: Option<String>,
    pub slurm_job_id: Option<String>,
    pub slurm_task_id: Option<String>,
}

/// A record from a case's measurements; rates relative to memcpy and peak are filled in by
/// [`record::derive_rates`] once every case has run.
pub fn make_record(
    case: &Case,
    work: &Work,
    samples: &Samples,
    t: WindowStats,
    verified: bool,
    place: &Place,
) -> Record {
    let s = samples.summary();
    let ms = s.map(|s| s.median);
    Record {
        case: case.case.clone(),
        dtype: case.dtype.to_string(),
        shape: case.shape.clone(),
        op: case.expression(),
        bytes_read: work.bytes_read,
        bytes_written: work.bytes_written,
        ms_median: ms,
        ms_min: s.map(|s| s.min),
        ms_max: s.map(|s| s.max),
        samples: s.map_or(0, |s| s.count),
        gbps: ms
            .filter(|m| *m > 0.0)
            .map(|m| (work.bytes_read + work.bytes_written) as f64 / (m * 1e-3) / 1e9),
        pct_of_memcpy: None,
        pct_of_peak: None,
        power_w_mean: t.power_w_mean,
        power_w_max: t.power_w_max,
        energy_j: t.energy_j,
        j_per_gb: t.j_per_gb,
        sm_mhz_mean: t.sm_mhz_mean,
        mem_mhz_mean: t.mem_mhz_mean,
        temp_c_max: t.temp_c_max,
        throttle_reasons: t.throttle_reasons,
        verified,
        host: place.host.clone(),
        gpu_index: place.gpu_index,
        gpu_uuid: place.gpu_uuid.clone(),
        slurm_job_id: place.slurm_job_id.clone(),
        slurm_task_id: place.slurm_task_id.clone(),
        discarded_low_clock: samples.discarded_low_clock,
    }
}
