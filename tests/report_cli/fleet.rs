//! The synthetic fleet: three nodes of H200s with planted problems, the records and headers
//! of its files, and the check that tests/data/fleet/ holds exactly what it makes.

use std::collections::BTreeMap;

use stridekit::bench::health::Health;
use stridekit::bench::record::{DeviceInfo, GpuFacts, Header, Record, Report, to_json};
use stridekit::bench::rng::SplitMix64;
use stridekit::bench::telemetry::WindowStats;
use stridekit::bench::{MEMCPY_CASE, Place, Suite};

use super::data;

/// The stridekit version most of the synthetic fleet ran.
const FLEET_VERSION: &str = "0.1.0";

/// The H200's theoretical DRAM bandwidth (NVML: 2 x 3201 MHz x 6016 bits / 8).
const PEAK_GBPS: f64 = 4814.304;

/// What is wrong with one synthetic GPU.
#[derive(Clone, Copy, Default)]
pub(super) struct Plant {
    /// Every layout figure's bandwidth scaled by this (1: healthy).
    slow: Option<f64>,
    power_throttled: bool,
    /// Uncorrected ECC errors that appear during the run.
    ecc_uncorrected: u64,
    /// PCIe link width (16 when healthy).
    half_link: bool,
    /// The stridekit version it ran, when not the fleet's.
    version: Option<&'static str>,
}

/// The planted problems by GPU (`host:index`).
pub(super) fn plants() -> BTreeMap<&'static str, Plant> {
    BTreeMap::from([
        (
            "node01:2",
            Plant {
                slow: Some(0.85),
                ..Plant::default()
            },
        ),
        (
            "node02:1",
            Plant {
                power_throttled: true,
                ..Plant::default()
            },
        ),
        (
            "node02:3",
            Plant {
                ecc_uncorrected: 2,
                ..Plant::default()
            },
        ),
        (
            "node03:0",
            Plant {
                half_link: true,
                ..Plant::default()
            },
        ),
        (
            "node03:3",
            Plant {
                version: Some("0.0.9"),
                ..Plant::default()
            },
        ),
    ])
}

/// (case, suite, % of memcpy for layout cases or GB/s for transfers, bytes moved per run).
const CASES: [(&str, Suite, f64, u64); 7] = [
    (MEMCPY_CASE, Suite::Layout, 100.0, 1 << 31),
    ("transpose2d_f32_16384x16384", Suite::Layout, 74.0, 1 << 31),
    (
        "heads_0213_f16_32x2048x32x128",
        Suite::Layout,
        79.0,
        1 << 30,
    ),
    (
        "nchw2nhwc_f32_256x3x224x224",
        Suite::Layout,
        61.0,
        308281344,
    ),
    ("index_select_rows_f16_4Mx128", Suite::Layout, 46.0, 1 << 30),
    ("h2d_pinned_1GiB", Suite::Transfers, 55.3, 1 << 30),
    ("d2h_pinned_1GiB", Suite::Transfers, 55.8, 1 << 30),
];

fn node_number(host: &str) -> u32 {
    host.trim_start_matches("node").parse().unwrap()
}

fn uuid(host: &str, gpu: usize) -> String {
    let n = node_number(host);
    format!("GPU-{n:08x}-0000-4000-8000-{gpu:012x}")
}

/// The records of one synthetic GPU: figures shaped after an H200 (memcpy about 4166 GB/s,
/// about 420 W) with +-1% seeded noise per figure, and the GPU's planted problem.
fn gpu_records(host: &str, gpu: usize, p: Plant, rng: &mut SplitMix64) -> Vec<Record> {
    let version = p.version.unwrap_or(FLEET_VERSION);
    let mut noise = || 1.0 + 0.02 * (rng.unit() - 0.5);
    let memcpy =
        4166.0 * noise() * p.slow.unwrap_or(1.0) * if p.power_throttled { 0.97 } else { 1.0 };
    let sm = if p.power_throttled {
        1650.0
    } else {
        1980.0 * (1.0 + 0.002 * (noise() - 1.0))
    };
    let watts = if p.power_throttled {
        400.0
    } else {
        420.0 * noise()
    };
    let health = Health {
        ecc_corrected_before: Some(0),
        ecc_corrected_after: Some(0),
        ecc_uncorrected_before: Some(0),
        ecc_uncorrected_after: Some(p.ecc_uncorrected),
        retired_pages_before: None,
        retired_pages_after: None,
        row_remap_pending: Some(false),
        row_remap_failure: Some(false),
        pcie_replay_before: Some(0),
        pcie_replay_after: Some(0),
        pcie_link_gen: Some(5),
        pcie_link_gen_max: Some(5),
        pcie_link_width: Some(if p.half_link { 8 } else { 16 }),
        pcie_link_width_max: Some(16),
        power_violation_ms_before: Some(0.0),
        power_violation_ms_after: Some(if p.power_throttled { 1850.0 } else { 0.0 }),
        thermal_violation_ms_before: Some(0.0),
        thermal_violation_ms_after: Some(0.0),
        health_note: Some(
            "retired_pages_before, retired_pages_after: not supported by this GPU or driver".into(),
        ),
    };
    CASES
        .iter()
        .map(|&(case, suite, figure, bytes)| {
            let gbps = match suite {
                Suite::Layout => memcpy * figure / 100.0 * noise(),
                Suite::Transfers => figure * noise() * if p.half_link { 0.5 } else { 1.0 },
            };
            let ms = bytes as f64 / gbps / 1e6;
            let w = watts * noise();
            Record {
                case: case.into(),
                dtype: "float32".into(),
                shape: vec![(bytes / 8) as i64],
                op: "synthetic".into(),
                bytes_read: if suite == Suite::Layout {
                    bytes / 2
                } else {
                    bytes
                },
                bytes_written: if suite == Suite::Layout {
                    bytes / 2
                } else {
                    bytes
                },
                ms_median: Some(ms),
                ms_min: Some(ms * 0.99),
                ms_max: Some(ms * 1.01),
                samples: 20,
                gbps: Some(gbps),
                pct_of_memcpy: (suite == Suite::Layout).then(|| 100.0 * gbps / memcpy),
                pct_of_peak: (suite == Suite::Layout).then(|| 100.0 * gbps / PEAK_GBPS),
                telemetry: WindowStats {
                    power_w_mean: Some(w),
                    power_w_max: Some(w * 1.05),
                    energy_j: Some(w * 0.5),
                    j_per_gb: Some(w / gbps),
                    sm_mhz_mean: Some(sm),
                    mem_mhz_mean: Some(3201.0),
                    temp_c_max: Some(47),
                    throttle_reasons: Some(if p.power_throttled {
                        vec!["sw_power_cap".into()]
                    } else {
                        vec![]
                    }),
                },
                verified: true,
                place: Place {
                    host: host.into(),
                    device_name: Some("NVIDIA H200".into()),
                    gpu_index: Some(gpu),
                    gpu_uuid: Some(uuid(host, gpu)),
                    slurm_job_id: Some("9001".into()),
                    slurm_task_id: Some((node_number(host) - 1).to_string()),
                },
                discarded_low_clock: 0,
                build: format!("v{version}"),
                suite,
                health: health.clone(),
            }
        })
        .collect()
}

fn header(host: &str, gpus: &[usize], version: &str) -> Header {
    Header {
        gpu: GpuFacts::default(),
        driver: Some("580.159.04".into()),
        stridekit_version: version.into(),
        build: format!("v{version}"),
        kernel_image: "fatbin sm_80,sm_90,sm_100+compute_80 (nvcc 13.0.88)".into(),
        backend: "cuda".into(),
        host: host.into(),
        command_line: "stridekit bench --suite all --device all --json bench-{host}.json".into(),
        timestamp: "2026-12-01T06:00:00Z".into(),
        quick: false,
        seed: 42,
        suite: "all".into(),
        sampling: "synthetic: made by tests/report_cli.rs".into(),
        verification: "synthetic".into(),
        devices: gpus
            .iter()
            .map(|&g| DeviceInfo {
                gpu_index: g,
                facts: GpuFacts {
                    gpu_name: Some("NVIDIA H200".into()),
                    gpu_uuid: Some(uuid(host, g)),
                    sm_mhz_max: Some(1980),
                    mem_mhz_max: Some(3201),
                    bus_width_bits: Some(6016),
                    peak_gbps: Some(PEAK_GBPS),
                },
                l2_bytes: Some(52428800),
                telemetry: "available".into(),
            })
            .collect(),
        cases_not_run: vec![],
        cpu_threads: None,
        cpu_capability: None,
    }
}

/// The synthetic fleet: three nodes of four H200s, one file per node, except node03's
/// GPU 3, which ran an older stridekit on its own.
fn fleet_files() -> Vec<(String, String)> {
    let plants = plants();
    let mut rng = SplitMix64(2026);
    let mut files = Vec::new();
    for host in ["node01", "node02", "node03"] {
        let mut by_version: BTreeMap<&str, (Vec<usize>, Vec<Record>)> = BTreeMap::new();
        for gpu in 0..4 {
            let p = plants
                .get(format!("{host}:{gpu}").as_str())
                .copied()
                .unwrap_or_default();
            let v = by_version
                .entry(p.version.unwrap_or(FLEET_VERSION))
                .or_default();
            v.0.push(gpu);
            v.1.extend(gpu_records(host, gpu, p, &mut rng));
        }
        for (version, (gpus, records)) in by_version {
            let name = if version == FLEET_VERSION {
                format!("bench-{host}.json")
            } else {
                format!("bench-{host}-gpu{}-v{version}.json", gpus[0])
            };
            let report = Report {
                header: header(host, &gpus, version),
                records,
            };
            files.push((name, to_json(&report)));
        }
    }
    files
}

/// The committed fixtures are exactly what [`fleet_files`] makes
/// (STRIDEKIT_REGENERATE=1 rewrites them).
#[test]
fn fleet_fixtures_are_current() {
    for (name, text) in fleet_files() {
        let path = data().join(&name);
        if std::env::var_os("STRIDEKIT_REGENERATE").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("{}: {e} (STRIDEKIT_REGENERATE=1 writes it)", path.display())
        });
        assert!(
            committed == text,
            "{name} differs from the generator (STRIDEKIT_REGENERATE=1)"
        );
    }
}
