//! Running cases on the CPU backend: the executor both backends are checked against, a
//! naive element-by-element reference for checking the CPU backend itself, and the CPU
//! benchmark loop (std::time::Instant around each run; no telemetry).

use std::time::Instant;

use super::cases::{Case, Work, WorkKind};
use super::error::BenchError;
use super::health::Health;
use super::output::Progress;
use super::record::Record;
use super::telemetry::WindowStats;
use super::timing::{SamplingRule, sample_until};
use super::{POISON, Place, make_record};
use crate::backend::cpu;
use crate::rng::element_data;

/// Why a CPU record has no health counters.
pub const CPU_HEALTH_NOTE: &str = "the CPU backend has no GPU health counters";

/// Host buffers of one case: random non-zero input, output poisoned with [`POISON`].
pub struct HostBuffers {
    pub src: Vec<u8>,
    pub dst: Vec<u8>,
}

impl HostBuffers {
    pub fn new(case: &Case, work: &Work) -> HostBuffers {
        let w = case.dtype.itemsize();
        HostBuffers {
            src: element_data(work.src_elems, w, data_seed(&case.case), POISON),
            dst: vec![POISON; work.dst_elems * w],
        }
    }
}

/// The input data's seed: a hash of the case name (FNV-1a), so every case differs.
fn data_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Runs the case's work on the CPU backend (`cpu::copy` of the plan, or `cpu::row_gather`).
pub fn execute(case: &Case, work: &Work, dst: &mut [u8], src: &[u8]) -> Result<(), BenchError> {
    match &work.kind {
        WorkKind::Copy { plan, .. } => {
            cpu::copy(plan, dst, src);
            Ok(())
        }
        WorkKind::Gather { shape, index } => cpu::row_gather(shape, case.dtype, dst, src, index)
            .map_err(|at| BenchError::Case {
                case: case.case.clone(),
                message: format!("row index {} at position {at} is out of range", index[at]),
            }),
    }
}

/// The expected output bytes, element by element from the logical indices (no plan, no
/// folding): what the CPU backend is checked against.
pub fn naive_reference(case: &Case, work: &Work, src: &[u8]) -> Vec<u8> {
    let w = case.dtype.itemsize();
    let mut out = vec![POISON; work.dst_elems * w];
    let mut put = |d: i64, s: i64| {
        let (d, s) = (d as usize * w, s as usize * w);
        out[d..d + w].copy_from_slice(&src[s..s + w]);
    };
    match &work.kind {
        WorkKind::Copy { view, out: o, .. } => {
            for idx in view.indices() {
                put(o.element_at(&idx), view.element_at(&idx));
            }
        }
        WorkKind::Gather { shape, index } => {
            for (r, &i) in index.iter().enumerate() {
                for c in 0..shape.row_len {
                    put(
                        shape.dst_offset + r as i64 * shape.dst_row_stride + c,
                        shape.src_offset + i * shape.src_row_stride + c,
                    );
                }
            }
        }
    }
    out
}

/// Benchmarks every case on the CPU backend; each output is checked against the naive
/// reference once before timing.
pub fn run(
    cases: &[Case],
    rule: &SamplingRule,
    place: &Place,
    progress: &Progress,
) -> Result<Vec<Record>, BenchError> {
    let mut records = Vec::with_capacity(cases.len());
    for (k, case) in cases.iter().enumerate() {
        if !progress.may_start() {
            break;
        }
        progress.step(k, &case.case, "verifying");
        let work = case.work()?;
        let mut b = HostBuffers::new(case, &work);
        execute(case, &work, &mut b.dst, &b.src)?;
        let verified = b.dst == naive_reference(case, &work, &b.src);
        progress.step(k, &case.case, "timing");
        for _ in 0..rule.warmup {
            execute(case, &work, &mut b.dst, &b.src)?;
        }
        let samples = sample_until(rule, || {
            let t = Instant::now();
            execute(case, &work, &mut b.dst, &b.src)?;
            Ok::<_, BenchError>((t.elapsed().as_secs_f64() * 1e3, true))
        })?;
        let mut r = make_record(
            case,
            &work,
            &samples,
            WindowStats::default(),
            verified,
            place,
        );
        r.health = Health::unavailable(CPU_HEALTH_NOTE);
        progress.finished(k, &r)?;
        records.push(r);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::cases::{DEFAULT_SEED, suite};

    /// The CPU backend matches the naive reference on every quick case small enough for a
    /// debug-build unit test, and a wrong plan is caught.
    #[test]
    fn cpu_backend_matches_naive_reference() {
        let mut checked = 0;
        for case in suite(true, DEFAULT_SEED) {
            let work = case.work().unwrap();
            if work.bytes_written > 2_200_000 {
                continue;
            }
            let mut b = HostBuffers::new(&case, &work);
            execute(&case, &work, &mut b.dst, &b.src).unwrap();
            assert_eq!(
                b.dst,
                naive_reference(&case, &work, &b.src),
                "{}",
                case.case
            );
            checked += 1;
        }
        assert!(checked >= 10, "{checked}");
    }

    #[test]
    fn a_missed_write_is_caught() {
        let case = suite(true, DEFAULT_SEED)
            .into_iter()
            .find(|c| c.case == "transpose2d_i8_32768x32768")
            .unwrap();
        let work = case.work().unwrap();
        let mut b = HostBuffers::new(&case, &work);
        execute(&case, &work, &mut b.dst, &b.src).unwrap();
        b.dst[12345] = POISON;
        assert_ne!(b.dst, naive_reference(&case, &work, &b.src));
    }
}
