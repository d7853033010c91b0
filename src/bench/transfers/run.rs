//! Timing the transfers on one GPU. Per case: verify once (the destination poisoned with
//! [`POISON`], one copy, every byte compared with the random source, and the byte after
//! the range checked untouched), warm up, then sample under the suite's rule: CUDA events
//! around each pinned or device-to-device copy (a 64 MiB memset queued before the start
//! event keeps it off an idle stream), the host clock around each pageable copy and a
//! stream synchronize (the driver stages pageable memory on the calling thread); no
//! sample is discarded for a low SM clock (copy engines do not need the SMs). Then the
//! energy window, as for the layout suite.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUresult};

use super::{Direction, HostMemory, Transfer, is_d2d};
use crate::backend::cuda::error::Call;
use crate::backend::cuda::{CudaError, DeviceBuffer, Gpu, PinnedHost};
use crate::bench::error::BenchError;
use crate::bench::gpu_bench::Bench;
use crate::bench::output::Progress;
use crate::bench::record::Record;
use crate::bench::telemetry::{WindowStats, summarize};
use crate::bench::timing::{Samples, sample_until};
use crate::bench::{Measured, POISON, Suite, record_of};
use crate::rng::element_data;

/// The seed of the transfers' source data.
const DATA_SEED: u64 = 0x7472_616e_7366_6572;

/// Buffers of one GPU's transfer run, each as large as the largest case.
struct Buffers {
    /// Random source data, never zero or [`POISON`] in any 8-byte word.
    reference: Vec<u8>,
    pinned: PinnedHost,
    pageable: Vec<u8>,
    /// Holds `reference` (the source of device-to-host and device-to-device copies).
    dev_src: DeviceBuffer,
    /// The destination of host-to-device copies.
    dev_dst: DeviceBuffer,
}

/// The GPU that device-to-device copies go to, and how.
struct Next {
    gpu: Arc<Gpu>,
    dst: DeviceBuffer,
    peer_access: bool,
}

/// Whether `src` may access `dst`'s memory directly; if so, access is enabled.
fn enable_peer(src: &Gpu, dst: &Gpu) -> Result<bool, CudaError> {
    let mut can = 0;
    // SAFETY: plain out-parameter; both device handles are live.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, src.ctx.cu_device(), dst.ctx.cu_device()) }
        .result()
        .call("cuDeviceCanAccessPeer")?;
    if can == 0 {
        return Ok(false);
    }
    src.bind()?;
    // SAFETY: the source context is current; the peer context is live.
    match unsafe { sys::cuCtxEnablePeerAccess(dst.ctx.cu_ctx(), 0) } {
        CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(true),
        e => e.result().call("cuCtxEnablePeerAccess").map(|_| true),
    }
}

/// A device-to-device case without a second GPU (the run skips those; a typed error all
/// the same).
fn no_next(t: &Transfer) -> BenchError {
    BenchError::Case {
        case: t.case.clone(),
        message: "a device-to-device copy needs a second GPU".into(),
    }
}

/// Whether `got` holds the first `n` bytes of `want` and, after them (when `got` is
/// longer), the untouched poison.
fn copied_exactly(got: &[u8], want: &[u8], n: usize) -> bool {
    got.len() >= n && got[..n] == want[..n] && got.get(n).is_none_or(|x| *x == POISON)
}

/// How many runs the energy window queues before waiting: about a quarter of the window.
fn energy_batch(ms: Option<f64>, window_s: f64) -> u32 {
    match ms {
        Some(ms) if ms > 0.0 => ((window_s * 1e3 / ms / 4.0) as u32).clamp(1, 64),
        _ => 1,
    }
}

impl Bench<'_> {
    /// Queues (or, for pageable memory, performs) one copy of `t`'s first `n` bytes.
    fn transfer(
        &self,
        t: &Transfer,
        b: &mut Buffers,
        next: Option<&Next>,
        n: usize,
    ) -> Result<(), BenchError> {
        let err = self.err();
        let stream = self.gpu.stream.cu_stream();
        self.gpu.bind().map_err(&err)?;
        // SAFETY: every range is `n` bytes inside buffers of at least that size, and each
        // copy is waited for (synchronize) before the buffers are touched or dropped.
        unsafe {
            match t.direction {
                Direction::HostToDevice { host } => {
                    let src = match host {
                        HostMemory::Pinned => &b.pinned.as_slice()[..n],
                        HostMemory::Pageable => &b.pageable[..n],
                    };
                    result::memcpy_htod_async(b.dev_dst.ptr(), src, stream)
                        .call("cuMemcpyHtoDAsync")
                        .map_err(&err)
                }
                Direction::DeviceToHost { host } => {
                    let dst = match host {
                        HostMemory::Pinned => &mut b.pinned.as_mut_slice()[..n],
                        HostMemory::Pageable => &mut b.pageable[..n],
                    };
                    result::memcpy_dtoh_async(dst, b.dev_src.ptr(), stream)
                        .call("cuMemcpyDtoHAsync")
                        .map_err(&err)
                }
                Direction::DeviceToNextDevice => match next {
                    Some(next) => result::memcpy_peer_async(
                        next.gpu.ctx.cu_ctx(),
                        next.dst.ptr(),
                        self.gpu.ctx.cu_ctx(),
                        b.dev_src.ptr(),
                        n,
                        stream,
                    )
                    .call("cuMemcpyPeerAsync")
                    .map_err(&err),
                    None => Err(no_next(t)),
                },
            }
        }
    }

    /// Poisons the destination, copies once, compares every byte with the source and the
    /// byte after the range with the poison.
    fn verify_transfer(
        &self,
        t: &Transfer,
        b: &mut Buffers,
        next: Option<&Next>,
        n: usize,
    ) -> Result<bool, BenchError> {
        let err = self.err();
        let end = (n + 1).min(b.reference.len());
        match t.direction {
            Direction::HostToDevice { .. } => {
                b.dev_dst.memset(POISON).map_err(&err)?;
                self.transfer(t, b, next, n)?;
                self.gpu.synchronize().map_err(&err)?;
                let mut got = vec![0; end];
                b.dev_dst.download(0, &mut got).map_err(&err)?;
                Ok(copied_exactly(&got, &b.reference, n))
            }
            Direction::DeviceToHost { host } => {
                match host {
                    HostMemory::Pinned => b.pinned.as_mut_slice()[..end].fill(POISON),
                    HostMemory::Pageable => b.pageable[..end].fill(POISON),
                }
                self.transfer(t, b, next, n)?;
                self.gpu.synchronize().map_err(&err)?;
                let got = match host {
                    HostMemory::Pinned => &b.pinned.as_slice()[..end],
                    HostMemory::Pageable => &b.pageable[..end],
                };
                Ok(copied_exactly(got, &b.reference, n))
            }
            Direction::DeviceToNextDevice => {
                let nx = next.ok_or_else(|| no_next(t))?;
                nx.dst.memset(POISON).map_err(&err)?;
                self.transfer(t, b, next, n)?;
                self.gpu.synchronize().map_err(&err)?;
                let mut got = vec![0; end.min(nx.dst.nbytes())];
                nx.dst.download(0, &mut got).map_err(&err)?;
                Ok(copied_exactly(&got, &b.reference, n))
            }
        }
    }

    fn transfer_case(
        &self,
        t: &Transfer,
        b: &mut Buffers,
        next: Option<&Next>,
        k: usize,
        progress: &Progress,
    ) -> Result<Record, BenchError> {
        let err = self.err();
        let n = t.bytes as usize;
        progress.step(k, &t.case, "verifying");
        let verified = self.verify_transfer(t, b, next, n)?;
        if let Direction::DeviceToHost { .. } = t.direction {
            // The check poisoned the host buffers, which are the next cases' sources.
            let end = (n + 1).min(b.reference.len());
            b.pinned.as_mut_slice()[..end].copy_from_slice(&b.reference[..end]);
            b.pageable[..end].copy_from_slice(&b.reference[..end]);
        }
        progress.step(k, &t.case, "timing");
        for _ in 0..self.opts.rule.warmup {
            self.transfer(t, b, next, n)?;
        }
        self.gpu.synchronize().map_err(&err)?;
        let pageable = matches!(
            t.direction,
            Direction::HostToDevice {
                host: HostMemory::Pageable
            } | Direction::DeviceToHost {
                host: HostMemory::Pageable
            }
        );
        let (start, end) = (self.event()?, self.event()?);
        let stream = &self.gpu.stream;
        let samples: Samples = sample_until(&self.opts.rule, || {
            let ms = if pageable {
                let t0 = Instant::now();
                self.transfer(t, b, next, n)?;
                self.gpu.synchronize().map_err(&err)?;
                t0.elapsed().as_secs_f64() * 1e3
            } else {
                self.queue_filler(POISON)?;
                start.record(stream).call("cuEventRecord").map_err(&err)?;
                self.transfer(t, b, next, n)?;
                end.record(stream).call("cuEventRecord").map_err(&err)?;
                start
                    .elapsed_ms(&end)
                    .call("cuEventElapsedTime")
                    .map_err(&err)? as f64
            };
            Ok::<_, BenchError>((ms, true))
        })?;
        let summary = samples.summary();
        let telemetry: WindowStats = match self.gauge {
            Some(g) => {
                let batch = energy_batch(
                    summary.map(|s| s.median),
                    self.opts.energy_window.as_secs_f64(),
                );
                self.energy_window_of(g, t.bytes, batch, || self.transfer(t, b, next, n))?
            }
            None => summarize(&[], None, 0),
        };
        let op = match (t.direction, next) {
            (Direction::DeviceToNextDevice, Some(nx)) => format!(
                "cuMemcpyPeerAsync cuda:{} -> cuda:{}, {}",
                self.ordinal,
                nx.gpu.ordinal(),
                if nx.peer_access {
                    "peer access"
                } else {
                    "no peer access: staged through the host by the driver"
                }
            ),
            _ => t.expression(),
        };
        let m = Measured {
            case: t.case.clone(),
            dtype: "uint8".into(),
            shape: vec![t.bytes as i64],
            op,
            bytes_read: t.bytes,
            bytes_written: t.bytes,
            suite: Suite::Transfers,
        };
        let r = record_of(m, &samples, telemetry, verified, &self.place);
        let mut r = r;
        r.health = self.health_pending.clone();
        progress.finished(k, &r)?;
        Ok(r)
    }
}

/// Runs the transfer cases on `b`'s GPU; device-to-device cases go to cuda:`next` (and
/// are skipped, with a note, without one).
pub(crate) fn run(
    b: &Bench,
    cases: &[Transfer],
    next: Option<usize>,
    progress: &Progress,
) -> Result<Vec<Record>, BenchError> {
    let err = b.err();
    let all = cases.len();
    let cases: Vec<&Transfer> = cases
        .iter()
        .filter(|t| next.is_some() || !is_d2d(t))
        .collect();
    if next.is_none() && cases.len() < all {
        progress
            .note("device-to-device transfers need a second GPU (run with --device all): skipped");
    }
    let max = cases.iter().map(|t| t.bytes as usize).max().unwrap_or(0);
    if max == 0 {
        return Ok(vec![]);
    }
    let reference = element_data(max / 8, 8, DATA_SEED, POISON);
    let mut bufs = Buffers {
        pinned: PinnedHost::alloc(&b.gpu, max).map_err(&err)?,
        pageable: reference.clone(),
        dev_src: DeviceBuffer::from_host(&b.gpu, &reference).map_err(&err)?,
        dev_dst: DeviceBuffer::alloc(&b.gpu, max).map_err(&err)?,
        reference,
    };
    bufs.pinned.as_mut_slice().copy_from_slice(&bufs.reference);
    let next = match next.filter(|_| cases.iter().any(|t| is_d2d(t))) {
        Some(n) => {
            let gpu = Gpu::shared(n).map_err(BenchError::cuda(n))?;
            let peer_access = enable_peer(&b.gpu, &gpu).map_err(&err)?;
            let max_d2d = cases
                .iter()
                .filter(|t| is_d2d(t))
                .map(|t| t.bytes as usize)
                .max()
                .unwrap_or(0);
            let dst = DeviceBuffer::alloc(&gpu, max_d2d).map_err(BenchError::cuda(n))?;
            Some(Next {
                gpu,
                dst,
                peer_access,
            })
        }
        None => None,
    };
    cases
        .iter()
        .enumerate()
        .take_while(|_| progress.may_start())
        .map(|(k, t)| b.transfer_case(t, &mut bufs, next.as_ref(), k, progress))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_checked_with_the_byte_after() {
        let want = [1u8, 2, 3, 4];
        assert!(copied_exactly(&[1, 2, 3, POISON], &want, 3));
        assert!(
            !copied_exactly(&[1, 2, 3, 4], &want, 3),
            "wrote past the range"
        );
        assert!(!copied_exactly(&[1, 9, 3, POISON], &want, 3));
        assert!(copied_exactly(&[1, 2, 3, 4], &want, 4), "the whole buffer");
        assert!(!copied_exactly(&[1, 2], &want, 3), "short");
    }

    #[test]
    fn energy_batches() {
        assert_eq!(energy_batch(Some(20.0), 0.5), 6);
        assert_eq!(energy_batch(Some(0.001), 0.5), 64);
        assert_eq!(energy_batch(Some(1000.0), 0.5), 1);
        assert_eq!(energy_batch(None, 0.5), 1);
    }
}
