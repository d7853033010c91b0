//! One GPU's benchmark context ([`Bench`], shared by the layout suite of
//! [`super::run_gpu`] and the transfers suite of [`super::transfers`]): the device, its
//! flush buffer and clocks, the telemetry recorder, and the per-case upload, check,
//! warm-up and sampling. Below both suites' runners.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::CudaEvent;
use cudarc::driver::result;
use cudarc::driver::sys::{CUevent_flags, CUuuid};

use super::cases::{Case, Work, WorkKind};
use super::error::BenchError;
use super::health::{Health, Snapshot};
use super::output::Progress;
use super::record::{DeviceInfo, Record};
use super::run_cpu::{self, HostBuffers};
use super::telemetry::{Gauge, Recorder, summarize};
use super::timing::{SamplingRule, clock_ok, sample_until};
use super::transfers::Transfer;
use super::{POISON, Place, make_record};
use crate::backend::cuda::error::Call;
use crate::backend::cuda::{
    CudaError, DeviceBuffer, Gpu, GpuPlan, PinnedHost, RowGatherPlan, device_count,
    driver_available,
};

/// When to flush L2 between samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FlushMode {
    /// When the case's working set (bytes read + written) is under 4x the L2 size.
    Auto,
    Always,
    Never,
}

/// Whether a case with this working set gets an L2 flush before each sample.
pub fn needs_flush(mode: FlushMode, working_set: u64, l2_bytes: u64) -> bool {
    match mode {
        FlushMode::Always => true,
        FlushMode::Never => false,
        FlushMode::Auto => working_set < 4 * l2_bytes,
    }
}

/// Options of a GPU run.
#[derive(Debug, Clone)]
pub struct GpuOptions {
    pub rule: SamplingRule,
    pub telemetry_interval: Duration,
    pub flush: FlushMode,
    /// How long each case runs back to back for its power and energy figures.
    pub energy_window: Duration,
}

/// Bytes set before a sample that does not flush L2: enough GPU work (~15 us on an H200)
/// that the start event is not recorded on an idle stream, where it would also time the
/// host's launch of the kernel. Cases that skip the flush move over 4x L2, so evicting
/// this much of L2 does not change them.
pub(super) const QUEUE_FILLER_BYTES: usize = 64 << 20;

/// Back-to-back runs queued before the energy window waits for the GPU to catch up.
pub(super) const ENERGY_BATCH: u32 = 64;

/// One GPU's results.
pub struct GpuRun {
    pub info: DeviceInfo,
    pub driver: Option<String>,
    pub records: Vec<Record>,
}

/// The ordinals `--device all` runs on; a clear error without a driver or a GPU.
pub fn all_devices() -> Result<Vec<usize>, BenchError> {
    let n = device_count().map_err(no_gpu)?;
    if n == 0 {
        return Err(BenchError::NoGpu(
            "the CUDA driver reports no device; run with --device cpu to benchmark the CPU backend"
                .into(),
        ));
    }
    Ok((0..n).collect())
}

pub(super) fn no_gpu(e: CudaError) -> BenchError {
    BenchError::NoGpu(format!(
        "{e}; run with --device cpu to benchmark the CPU backend"
    ))
}

/// Fails early, with one clear line, when there is no CUDA driver at all.
pub fn check_driver() -> Result<(), BenchError> {
    if driver_available() {
        Ok(())
    } else {
        Err(no_gpu(CudaError::NoDriver))
    }
}

/// NVML's form of a CUDA device UUID: `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
pub fn uuid_string(u: &CUuuid) -> String {
    let h: String = u
        .bytes
        .iter()
        .map(|b| format!("{:02x}", *b as u8))
        .collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Device memory and launch plan of one case.
pub(super) enum DeviceWork {
    Copy(GpuPlan),
    Gather {
        plan: RowGatherPlan,
        index: DeviceBuffer,
        flag: DeviceBuffer,
    },
}

/// One GPU's benchmark context, shared by the layout and the transfers suite.
pub(crate) struct Bench<'a> {
    pub(crate) gpu: Arc<Gpu>,
    pub(crate) ordinal: usize,
    pub(crate) gauge: Option<&'a Gauge<'a>>,
    pub(crate) recorder: &'a Recorder,
    pub(crate) opts: &'a GpuOptions,
    pub(super) max_sm_mhz: Option<u32>,
    pub(super) l2_bytes: u64,
    pub(super) flush: DeviceBuffer,
    pub(crate) place: Place,
    /// The health fields a record carries until the run ends (the counters before it; the
    /// ones after are read when every case has run): what `--records` streams.
    pub(crate) health_pending: Health,
}

impl Bench<'_> {
    pub(crate) fn err(&self) -> impl Fn(CudaError) -> BenchError {
        let d = self.ordinal;
        move |e| BenchError::Cuda {
            device: d,
            source: e,
        }
    }

    /// Queues the case's work on the GPU's stream.
    fn launch(
        &self,
        w: &DeviceWork,
        dst: &DeviceBuffer,
        src: &DeviceBuffer,
    ) -> Result<(), CudaError> {
        // SAFETY: `dst` and `src` hold every element the case addresses (sized from its
        // layouts); the index and flag buffers hold the planned rows and one int32.
        unsafe {
            match w {
                DeviceWork::Copy(p) => self.gpu.copy(p, dst.ptr(), src.ptr()),
                DeviceWork::Gather { plan, index, flag } => {
                    self.gpu
                        .row_gather(plan, dst.ptr(), src.ptr(), index.ptr(), flag.ptr())
                }
            }
        }
    }

    /// Queues a memset of [`QUEUE_FILLER_BYTES`] (about 15 us of GPU work) so that a start
    /// event recorded next is not recorded on an idle stream, where it would also time the
    /// host's submission of the work after it.
    pub(crate) fn queue_filler(&self, byte: u8) -> Result<(), BenchError> {
        let n = QUEUE_FILLER_BYTES.min(self.flush.nbytes());
        if n == 0 {
            return Ok(());
        }
        // SAFETY: a prefix of the flush allocation, on this GPU's stream.
        unsafe { result::memset_d8_async(self.flush.ptr(), byte, n, self.gpu.stream.cu_stream()) }
            .call("cuMemsetD8Async")
            .map_err(self.err())
    }

    pub(crate) fn event(&self) -> Result<CudaEvent, BenchError> {
        // Timing events need CU_EVENT_DEFAULT (cudarc's default disables timing).
        self.gpu
            .ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .call("cuEventCreate")
            .map_err(self.err())
    }

    pub(super) fn case(
        &self,
        k: usize,
        case: &Case,
        progress: &Progress,
    ) -> Result<Record, BenchError> {
        let err = self.err();
        progress.step(k, &case.case, "verifying");
        let work: Work = case.work()?;
        let host = HostBuffers::new(case, &work);
        let src = DeviceBuffer::from_host(&self.gpu, &host.src).map_err(&err)?;
        let dst = DeviceBuffer::alloc(&self.gpu, host.dst.len()).map_err(&err)?;
        let dw = match &work.kind {
            WorkKind::Copy { plan, .. } => {
                DeviceWork::Copy(GpuPlan::for_device(plan, self.gpu.limits()).map_err(&err)?)
            }
            WorkKind::Gather { shape, index } => {
                let bytes: Vec<u8> = index.iter().flat_map(|i| i.to_le_bytes()).collect();
                let flag = DeviceBuffer::alloc(&self.gpu, 4).map_err(&err)?;
                flag.memset(0).map_err(&err)?;
                DeviceWork::Gather {
                    plan: RowGatherPlan::new(case.dtype, *shape, true),
                    index: DeviceBuffer::from_host(&self.gpu, &bytes).map_err(&err)?,
                    flag,
                }
            }
        };
        // Verify: poisoned output, one run, every byte against the CPU backend.
        dst.memset(POISON).map_err(&err)?;
        self.launch(&dw, &dst, &src).map_err(&err)?;
        let got = dst.to_host().map_err(&err)?;
        let mut want = host.dst;
        run_cpu::execute(case, &work, &mut want, &host.src)?;
        let mut verified = got == want;
        if let DeviceWork::Gather { flag, .. } = &dw {
            verified &= flag.to_host().map_err(&err)? == [0; 4];
        }
        drop((got, want, host.src));

        progress.step(k, &case.case, "timing");
        for _ in 0..self.opts.rule.warmup {
            self.launch(&dw, &dst, &src).map_err(&err)?;
        }
        self.gpu.synchronize().map_err(&err)?;
        let flush = needs_flush(
            self.opts.flush,
            work.bytes_read + work.bytes_written,
            self.l2_bytes,
        );
        let (start, end) = (self.event()?, self.event()?);
        let stream = &self.gpu.stream;
        let mut round = 0u8;
        // The flush, or a smaller fill when the case needs none (and `never` asks for none).
        let before = match (flush, self.opts.flush) {
            (true, _) => self.flush.nbytes(),
            (false, FlushMode::Never) => 0,
            (false, _) => QUEUE_FILLER_BYTES.min(self.flush.nbytes()),
        };
        let samples = sample_until(&self.opts.rule, || {
            if before > 0 {
                round = round.wrapping_add(1);
                // SAFETY: a prefix of the flush allocation, on this GPU's stream.
                unsafe {
                    result::memset_d8_async(self.flush.ptr(), round, before, stream.cu_stream())
                }
                .call("cuMemsetD8Async")
                .map_err(&err)?;
            }
            start.record(stream).call("cuEventRecord").map_err(&err)?;
            self.launch(&dw, &dst, &src).map_err(&err)?;
            end.record(stream).call("cuEventRecord").map_err(&err)?;
            let ms = start
                .elapsed_ms(&end)
                .call("cuEventElapsedTime")
                .map_err(&err)?;
            let sm = self.gauge.and_then(|g| g.sm_mhz());
            Ok::<_, BenchError>((
                ms as f64,
                clock_ok(sm, self.max_sm_mhz, self.opts.rule.min_clock_fraction),
            ))
        })?;
        let telemetry = match self.gauge {
            Some(g) => self.energy_window(g, &dw, &dst, &src, &work)?,
            None => summarize(&[], None, 0),
        };
        let mut r = make_record(case, &work, &samples, telemetry, verified, &self.place);
        r.health = self.health_pending.clone();
        progress.finished(k, &r)?;
        Ok(r)
    }

    /// Power and energy of the case alone: it runs back to back (no flush, no wait per
    /// run) for the energy window while the sampler records; energy is the difference of
    /// NVML's counter over the window, divided by the bytes of the runs it held.
    fn energy_window(
        &self,
        g: &Gauge,
        dw: &DeviceWork,
        dst: &DeviceBuffer,
        src: &DeviceBuffer,
        work: &Work,
    ) -> Result<super::telemetry::WindowStats, BenchError> {
        let err = self.err();
        self.energy_window_of(
            g,
            work.bytes_read + work.bytes_written,
            ENERGY_BATCH,
            || self.launch(dw, dst, src).map_err(&err),
        )
    }

    /// The energy window of any work: `run` queues one run of `bytes` moved; `batch` runs
    /// are queued before each wait for the GPU.
    pub(crate) fn energy_window_of(
        &self,
        g: &Gauge,
        bytes: u64,
        batch: u32,
        mut run: impl FnMut() -> Result<(), BenchError>,
    ) -> Result<super::telemetry::WindowStats, BenchError> {
        let err = self.err();
        self.gpu.synchronize().map_err(&err)?;
        let e0 = g.energy_mj();
        let t0 = Instant::now();
        self.recorder.push(g.read());
        let mut runs = 0u64;
        loop {
            for _ in 0..batch.max(1) {
                run()?;
            }
            runs += batch.max(1) as u64;
            self.gpu.synchronize().map_err(&err)?;
            if t0.elapsed() >= self.opts.energy_window {
                break;
            }
        }
        self.recorder.push(g.read());
        let t1 = Instant::now();
        let energy_j = e0
            .zip(g.energy_mj())
            .map(|(a, b)| b.saturating_sub(a) as f64 / 1000.0);
        Ok(summarize(
            &self.recorder.window(t0, t1),
            energy_j,
            bytes * runs,
        ))
    }
}

/// The health counters read while host-to-device copies keep the PCIe link busy (an idle
/// link may drop to a lower generation to save power, which would read as a degraded
/// link); without the memory for that, a plain reading.
pub(super) fn busy_link_snapshot(gpu: &Arc<Gpu>, g: &Gauge) -> Snapshot {
    const BYTES: usize = 256 << 20;
    let copies = || -> Result<Snapshot, CudaError> {
        let host = PinnedHost::alloc(gpu, BYTES)?;
        let dev = DeviceBuffer::alloc(gpu, BYTES)?;
        gpu.bind()?;
        for _ in 0..4 {
            // SAFETY: both ranges are BYTES long; the copies finish before `host` and
            // `dev` are dropped (both wait for the stream).
            unsafe {
                result::memcpy_htod_async(dev.ptr(), host.as_slice(), gpu.stream.cu_stream())
            }
            .call("cuMemcpyHtoDAsync")?;
        }
        std::thread::sleep(Duration::from_millis(5));
        let s = g.health();
        gpu.synchronize()?;
        Ok(s)
    };
    copies().unwrap_or_else(|_| g.health())
}

pub(super) struct StopOnDrop<'a>(pub(super) &'a Recorder);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// What one GPU runs.
#[derive(Clone, Copy)]
pub enum GpuWork<'a> {
    /// The layout-copy cases.
    Layout(&'a [Case]),
    /// The transfer cases; `next` is the GPU that device-to-device copies go to (none when
    /// only one GPU runs: those cases are then skipped).
    Transfers {
        cases: &'a [Transfer],
        next: Option<usize>,
    },
}

impl GpuWork<'_> {
    /// The cases that will run (device-to-device ones only with a next GPU).
    pub fn len(&self) -> usize {
        match self {
            GpuWork::Layout(c) => c.len(),
            GpuWork::Transfers { cases, next } => cases
                .iter()
                .filter(|t| next.is_some() || !super::transfers::is_d2d(t))
                .count(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
