//! Running the suite on one GPU: per case, upload random non-zero input, poison the output
//! with [`POISON`](super::POISON), run once and compare every byte with the CPU backend running the same
//! plan on the same input; then warm up and sample with CUDA events (an L2 flush before
//! each sample when the working set is small), discarding samples taken at a low SM clock,
//! while a sampler thread records NVML telemetry for the case's window.

use cudarc::driver::sys::CUdevice_attribute;
use nvml_wrapper::Nvml;

use super::Place;
use super::error::BenchError;
use super::health::{Health, Snapshot};
use super::output::Progress;
use super::record::{GpuFacts, Record};
use super::telemetry::{Gauge, Recorder, peak_gbps};
use crate::backend::cuda::error::Call;
use crate::backend::cuda::{CudaError, DeviceBuffer, Gpu};

use super::gpu_bench::{Bench, StopOnDrop, busy_link_snapshot, no_gpu};
pub use super::gpu_bench::{
    FlushMode, GpuOptions, GpuRun, GpuWork, all_devices, check_driver, needs_flush, uuid_string,
};
use super::record::DeviceInfo;

/// Runs `work` on cuda:`ordinal`, with the health counters read before and after it.
/// `nvml` is the run's one NVML handle, or why there is none.
pub fn run(
    ordinal: usize,
    work: GpuWork,
    opts: &GpuOptions,
    nvml: Result<&Nvml, &str>,
    mut place: Place,
    progress: &Progress,
) -> Result<GpuRun, BenchError> {
    let err = |e| BenchError::Cuda {
        device: ordinal,
        source: e,
    };
    let gpu = Gpu::shared(ordinal).map_err(|e| match e {
        CudaError::NoDriver => no_gpu(e),
        e => err(e),
    })?;
    gpu.bind().map_err(err)?;
    let uuid = gpu.ctx.uuid().call("cuDeviceGetUuid").map_err(err)?;
    let uuid = uuid_string(&uuid);
    let name = gpu.ctx.name().call("cuDeviceGetName").map_err(err)?;
    let attr = |a| {
        gpu.ctx
            .attribute(a)
            .call("cuDeviceGetAttribute")
            .map_err(err)
    };
    let l2_bytes = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64;
    let gauge = nvml
        .map_err(str::to_string)
        .and_then(|n| Gauge::by_uuid(n, &uuid));
    let nvml_info = match (&gauge, nvml) {
        (Ok(g), Ok(n)) => Some(g.info(n)),
        _ => None,
    };
    // Clocks and bus width from NVML, else from the CUDA attributes (kHz, bits).
    let mem_mhz = match nvml_info.as_ref().and_then(|i| i.max_mem_mhz) {
        Some(m) => Some(m),
        None => {
            Some((attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? / 1000) as u32)
        }
    };
    let bus = match nvml_info.as_ref().and_then(|i| i.bus_width_bits) {
        Some(b) => Some(b),
        None => Some(attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)? as u32),
    };
    let max_sm_mhz = nvml_info.as_ref().and_then(|i| i.max_sm_mhz);
    let info = DeviceInfo {
        gpu_index: ordinal,
        facts: GpuFacts {
            gpu_name: Some(name.clone()),
            gpu_uuid: Some(uuid.clone()),
            sm_mhz_max: max_sm_mhz,
            mem_mhz_max: mem_mhz,
            bus_width_bits: bus,
            peak_gbps: mem_mhz.zip(bus).map(|(m, b)| peak_gbps(m, b)),
        },
        l2_bytes: Some(l2_bytes),
        telemetry: match &gauge {
            Ok(_) => "available".into(),
            Err(why) => format!("unavailable: {why}"),
        },
    };
    progress.set_peak(info.facts.peak_gbps);
    if let Err(why) = &gauge {
        progress.note(&format!("telemetry unavailable: {why}"));
    }
    place.device_name = Some(name);
    place.gpu_index = Some(ordinal);
    place.gpu_uuid = Some(uuid);
    let recorder = Recorder::default();
    let flush = DeviceBuffer::alloc(&gpu, 2 * l2_bytes as usize).map_err(err)?;
    let health_before = match &gauge {
        Ok(g) => g.health(),
        Err(why) => Snapshot::unreadable(why),
    };
    let mut records = std::thread::scope(|s| {
        if let Ok(g) = &gauge {
            let rec = &recorder;
            s.spawn(move || rec.run(g, opts.telemetry_interval));
        }
        let bench = Bench {
            gpu: gpu.clone(),
            ordinal,
            gauge: gauge.as_ref().ok(),
            recorder: &recorder,
            opts,
            max_sm_mhz,
            l2_bytes,
            flush,
            place,
            health_pending: Health::of(
                &health_before,
                &Snapshot::unreadable("read when the GPU's run ends (in the final report)"),
            ),
        };
        // Stops the sampler however the cases end (an error or a panic included).
        let _stop = StopOnDrop(&recorder);
        match work {
            GpuWork::Layout(cases) => cases
                .iter()
                .enumerate()
                .take_while(|_| progress.may_start())
                .map(|(k, c)| bench.case(k, c, progress))
                .collect::<Result<Vec<Record>, BenchError>>(),
            GpuWork::Transfers { cases, next } => {
                super::transfers::run::run(&bench, cases, next, progress)
            }
        }
    })?;
    let health_after = match &gauge {
        Ok(g) => busy_link_snapshot(&gpu, g),
        Err(why) => Snapshot::unreadable(why),
    };
    let health = Health::of(&health_before, &health_after);
    for r in &mut records {
        r.health = health.clone();
    }
    Ok(GpuRun {
        info,
        driver: nvml_info.and_then(|i| i.driver),
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::driver_available;
    use cudarc::driver::sys::CUuuid;

    #[test]
    fn flush_rule() {
        let l2 = 50 << 20;
        assert!(needs_flush(FlushMode::Auto, 100 << 20, l2));
        assert!(!needs_flush(FlushMode::Auto, 2 << 30, l2));
        assert!(needs_flush(FlushMode::Always, 2 << 30, l2));
        assert!(!needs_flush(FlushMode::Never, 1, l2));
    }

    #[test]
    fn uuid_in_nvml_form() {
        let mut u = CUuuid { bytes: [0; 16] };
        for (k, b) in u.bytes.iter_mut().enumerate() {
            *b = (k as u8 * 17) as std::ffi::c_char;
        }
        assert_eq!(uuid_string(&u), "GPU-00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn no_driver_is_one_clear_error() {
        if driver_available() {
            return; // a GPU machine: the device tests cover the run itself
        }
        let e = check_driver().unwrap_err().to_string();
        assert!(
            e.contains("no CUDA driver") && e.contains("--device cpu"),
            "{e}"
        );
        assert!(all_devices().is_err());
    }
}
