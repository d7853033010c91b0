//! Result records and the run header, their JSON and CSV forms, and baseline files (the
//! same JSON form, from another run or from `scripts/compare_torch.py`) joined by case.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::cases::MEMCPY_CASE;
use super::error::BenchError;
use super::health::{HEALTH_FIELDS, Health};
use super::place::{Place, Suite};
use super::telemetry::WindowStats;

/// One case on one device. The field order is the CSV column order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub case: String,
    pub dtype: String,
    pub shape: Vec<i64>,
    pub op: String,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub ms_median: Option<f64>,
    pub ms_min: Option<f64>,
    pub ms_max: Option<f64>,
    pub samples: usize,
    pub gbps: Option<f64>,
    pub pct_of_memcpy: Option<f64>,
    pub pct_of_peak: Option<f64>,
    /// power_w_mean ... throttle_reasons
    #[serde(flatten)]
    pub telemetry: WindowStats,
    pub verified: bool,
    /// host, gpu_index, gpu_uuid, slurm_job_id, slurm_task_id
    #[serde(flatten)]
    pub place: Place,
    pub discarded_low_clock: usize,
    /// `git describe --always --dirty` of the build (see [`crate::BUILD`]); empty in
    /// files from before it was recorded.
    #[serde(default)]
    pub build: String,
    /// "layout" or "transfers" (absent in files from before the transfers suite: layout).
    #[serde(default)]
    pub suite: Suite,
    /// ecc_corrected_before ... health_note: the GPU's counters before and after the run
    #[serde(flatten)]
    pub health: Health,
}

/// The field names, in order (the CSV header).
pub const FIELDS: [&str; 50] = concat_fields(BASE_FIELDS, HEALTH_FIELDS);

const fn concat_fields<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N);
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// The fields before the health counters.
const BASE_FIELDS: [&str; 31] = [
    "case",
    "dtype",
    "shape",
    "op",
    "bytes_read",
    "bytes_written",
    "ms_median",
    "ms_min",
    "ms_max",
    "samples",
    "gbps",
    "pct_of_memcpy",
    "pct_of_peak",
    "power_w_mean",
    "power_w_max",
    "energy_j",
    "j_per_gb",
    "sm_mhz_mean",
    "mem_mhz_mean",
    "temp_c_max",
    "throttle_reasons",
    "verified",
    "host",
    "device_name",
    "gpu_index",
    "gpu_uuid",
    "slurm_job_id",
    "slurm_task_id",
    "discarded_low_clock",
    "build",
    "suite",
];

/// What a GPU is: name, UUID, maximum clocks, bus width, theoretical peak.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuFacts {
    pub gpu_name: Option<String>,
    pub gpu_uuid: Option<String>,
    pub sm_mhz_max: Option<u32>,
    pub mem_mhz_max: Option<u32>,
    pub bus_width_bits: Option<u32>,
    /// 2 x memory clock x bus width / 8, in GB/s.
    pub peak_gbps: Option<f64>,
}

/// One GPU of the run (absent for the CPU backend).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub gpu_index: usize,
    #[serde(flatten)]
    pub facts: GpuFacts,
    pub l2_bytes: Option<u64>,
    /// "available", or why NVML telemetry is not.
    pub telemetry: String,
}

/// The run header. The GPU fields repeat `devices[0]` when one GPU ran, and are null for
/// the CPU backend or several GPUs (see `devices`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    #[serde(flatten)]
    pub gpu: GpuFacts,
    pub driver: Option<String>,
    pub stridekit_version: String,
    /// `git describe --always --dirty` of the build (see [`crate::BUILD`]); empty in
    /// files from before it was recorded.
    #[serde(default)]
    pub build: String,
    pub kernel_image: String,
    /// "cuda" or "cpu".
    pub backend: String,
    pub host: String,
    pub command_line: String,
    /// UTC, RFC 3339.
    pub timestamp: String,
    pub quick: bool,
    pub seed: u64,
    /// `--suite`: "layout", "transfers" or "all" (absent before the transfers suite).
    #[serde(default = "layout_suite")]
    pub suite: String,
    /// The sampling rule in words.
    pub sampling: String,
    /// How outputs were verified.
    pub verification: String,
    pub devices: Vec<DeviceInfo>,
    /// Cases of the suite that did not run on every device because `--budget` ran out.
    #[serde(default)]
    pub cases_not_run: Vec<String>,
    /// The CPU backend's threads and vector level (`STRIDEKIT_NUM_THREADS`,
    /// `STRIDEKIT_CPU_CAPABILITY`): it runs every CPU case and verifies every GPU case.
    /// Absent in files from before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_threads: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_capability: Option<String>,
}

fn layout_suite() -> String {
    "layout".into()
}

/// A whole result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub header: Header,
    pub records: Vec<Record>,
}

impl Record {
    /// The bytes its `gbps` counts: read + written for a layout copy (DRAM traffic), the
    /// bytes copied for a transfer (what crossed the boundary, one direction).
    pub fn bytes_moved(&self) -> u64 {
        match self.suite {
            Suite::Layout => self.bytes_read + self.bytes_written,
            Suite::Transfers => self.bytes_written,
        }
    }
}

/// Bytes moved per second, in GB/s (None without a positive time).
pub fn gbps(bytes: u64, ms: Option<f64>) -> Option<f64> {
    ms.filter(|ms| *ms > 0.0)
        .map(|ms| bytes as f64 / (ms * 1e-3) / 1e9)
}

/// Fills `gbps`, `pct_of_memcpy` (against the memcpy record of the same device) and
/// `pct_of_peak`.
/// Transfer records keep their GB/s (bytes across the boundary) and get no DRAM rates.
pub fn derive_rates(records: &mut [Record], peak_gbps: impl Fn(Option<usize>) -> Option<f64>) {
    let memcpy: BTreeMap<Option<usize>, f64> = records
        .iter()
        .filter(|r| r.case == MEMCPY_CASE)
        .filter_map(|r| record_gbps(r).map(|g| (r.place.gpu_index, g)))
        .collect();
    for r in records.iter_mut() {
        let m = memcpy.get(&r.place.gpu_index).copied();
        fill_rates(r, m, peak_gbps(r.place.gpu_index));
    }
}

/// A record's GB/s: the bytes it moves ([`Record::bytes_moved`]) over its median time.
/// Of the memcpy record, this is its device's 100% line.
pub fn record_gbps(r: &Record) -> Option<f64> {
    gbps(r.bytes_moved(), r.ms_median)
}

/// One record's `gbps`, `pct_of_memcpy` (given its device's memcpy GB/s) and
/// `pct_of_peak`. A transfer record gets its GB/s (the bytes copied, one direction) and no
/// DRAM rates.
pub fn fill_rates(r: &mut Record, memcpy_gbps: Option<f64>, peak_gbps: Option<f64>) {
    r.gbps = record_gbps(r);
    if r.suite == Suite::Transfers {
        (r.pct_of_peak, r.pct_of_memcpy) = (None, None);
        return;
    }
    r.pct_of_peak = r.gbps.zip(peak_gbps).map(|(g, p)| 100.0 * g / p);
    // exactly 100 for the memcpy line itself
    r.pct_of_memcpy = r.gbps.zip(memcpy_gbps).map(|(g, m)| g / m * 100.0);
}

/// The report as pretty JSON.
pub fn to_json(report: &Report) -> String {
    serde_json::to_string_pretty(report).expect("plain data always encodes") + "\n"
}

pub(crate) fn csv_field(v: &serde_json::Value) -> String {
    let s = match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| match x {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(if a.iter().all(|x| x.is_number()) {
                "x"
            } else {
                ";"
            }),
        other => other.to_string(),
    };
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// One header line ([`FIELDS`]) and one line per record. Shapes are written `AxB`,
/// throttle reasons `a;b`, nulls as empty fields.
pub fn to_csv(records: &[Record]) -> String {
    let mut out = FIELDS.join(",") + "\n";
    for r in records {
        let v = serde_json::to_value(r).expect("plain data always encodes");
        let line: Vec<String> = FIELDS.iter().map(|f| csv_field(&v[*f])).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// A baseline record: only what a comparison needs; `variant` labels records of one file
/// that ran differently (e.g. "torch eager", "torch.compile").
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BaselineRecord {
    pub case: String,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub ms_median: Option<f64>,
    #[serde(default)]
    pub gbps: Option<f64>,
    #[serde(default)]
    pub pct_of_memcpy: Option<f64>,
    /// The device model it ran on (stridekit records and compare_torch.py's have it; older
    /// files name it only in the header's `gpu_name`).
    #[serde(default)]
    pub device_name: Option<String>,
}

#[derive(Deserialize)]
struct BaselineFile {
    #[serde(default)]
    header: serde_json::Value,
    records: Vec<BaselineRecord>,
}

/// One compared series: a label, the device model it ran on, and its records by case.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    pub label: String,
    /// None when the file does not say.
    pub device: Option<String>,
    pub by_case: BTreeMap<String, BaselineRecord>,
}

impl Baseline {
    /// Whether a record ran on the same device model as this series: only then does a
    /// ratio of the two mean anything (a CPU's % of its own memcpy against a GPU's does
    /// not). An unknown model on either side is not the same.
    pub fn same_device(&self, r: &Record) -> bool {
        self.device.is_some() && self.device == r.place.device_name
    }

    /// The label with the device model, for a series from another device.
    pub fn label_on_device(&self) -> String {
        match &self.device {
            Some(d) => format!("{} on {d}", self.label),
            None => format!("{} on an unknown device", self.label),
        }
    }
}

/// The records of a baseline file: the JSON report form, or JSON lines of records (what
/// `--records` streams, e.g. from a run that was killed).
fn parse_baseline(text: &str) -> Result<BaselineFile, String> {
    let report_err = match serde_json::from_str::<BaselineFile>(text) {
        Ok(f) => return Ok(f),
        Err(e) => e,
    };
    let mut records = Vec::new();
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<BaselineRecord>(line) {
            Ok(r) => records.push(r),
            // A last line without its newline, cut when the run writing it was killed.
            Err(_) if !line.ends_with('\n') && !records.is_empty() => break,
            // Not JSON lines either: the report form's error is the one to show, unless
            // the first line already parsed as a record.
            Err(e) if !records.is_empty() => {
                return Err(format!("line {}: not a bench record: {e}", n + 1));
            }
            Err(_) => {
                return Err(format!(
                    "not a stridekit bench JSON file ({{\"header\": ..., \"records\": [...]}}) nor JSON lines of records: {report_err}"
                ));
            }
        }
    }
    if records.is_empty() {
        return Err(format!("no records: {report_err}"));
    }
    Ok(BaselineFile {
        header: serde_json::Value::Null,
        records,
    })
}

/// Reads a baseline file: `{"header": {...}, "records": [...]}` with `case` in every record
/// and `pct_of_memcpy` or `gbps` in at least one. Each distinct `variant` becomes one series
/// labelled by it; records without one are labelled by the header's `label`, else the
/// file name (an earlier stridekit run: `--baseline h200_monday.json` shows as
/// `h200_monday`).
pub fn read_baseline(path: &Path) -> Result<Vec<Baseline>, BenchError> {
    let file = path.display().to_string();
    let bad = |message: String| BenchError::Baseline {
        file: file.clone(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let parsed = parse_baseline(&text).map_err(bad)?;
    let header_device = ["device_name", "gpu_name"]
        .iter()
        .find_map(|k| parsed.header.get(*k).and_then(|v| v.as_str()))
        .map(str::to_string);
    let default_label = parsed
        .header
        .get("label")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| file.clone())
        });
    if !parsed
        .records
        .iter()
        .any(|r| r.pct_of_memcpy.is_some() || r.gbps.is_some())
    {
        return Err(bad(
            "no record has a pct_of_memcpy or gbps figure to compare with".into(),
        ));
    }
    let mut series: Vec<Baseline> = Vec::new();
    // Records without a figure (a case whose samples were all discarded, or that failed)
    // join no ratio.
    for r in parsed
        .records
        .into_iter()
        .filter(|r| r.pct_of_memcpy.is_some() || r.gbps.is_some())
    {
        let label = r.variant.clone().unwrap_or_else(|| default_label.clone());
        let device = r.device_name.clone().or_else(|| header_device.clone());
        let pos = match series.iter().position(|s| s.label == label) {
            Some(p) => p,
            None => {
                series.push(Baseline {
                    label,
                    device: device.clone(),
                    by_case: BTreeMap::new(),
                });
                series.len() - 1
            }
        };
        let s = &mut series[pos];
        if s.device != device {
            return Err(bad(format!(
                "series '{}' mixes devices {} and {}: give one device model's records per file",
                s.label,
                s.device.as_deref().unwrap_or("(unknown)"),
                device.as_deref().unwrap_or("(unknown)")
            )));
        }
        s.by_case.insert(r.case.clone(), r);
    }
    Ok(series)
}

/// Reads every baseline file; a label met twice gets the file name appended.
pub fn read_baselines(paths: &[std::path::PathBuf]) -> Result<Vec<Baseline>, BenchError> {
    let mut all: Vec<Baseline> = Vec::new();
    for p in paths {
        for mut b in read_baseline(p)? {
            if all.iter().any(|x| x.label == b.label) {
                b.label = format!("{} ({})", b.label, p.display());
            }
            all.push(b);
        }
    }
    Ok(all)
}

/// How stridekit compares with a baseline on one case: the ratio of the fractions of
/// each run's own memcpy reached (so runs on different days compare fairly), or of GB/s
/// when either side lacks that fraction. Above 1: stridekit is ahead.
pub fn ratio(ours: &Record, theirs: &BaselineRecord) -> Option<f64> {
    match (ours.pct_of_memcpy, theirs.pct_of_memcpy) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => ours
            .gbps
            .zip(theirs.gbps)
            .filter(|(_, b)| *b > 0.0)
            .map(|(a, b)| a / b),
    }
}

/// The host name (from the kernel, else $HOSTNAME).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// SLURM job and task ids from the environment (SLURM_PROCID, else SLURM_ARRAY_TASK_ID).
pub fn slurm_ids(env: impl Fn(&str) -> Option<String>) -> (Option<String>, Option<String>) {
    (
        env("SLURM_JOB_ID"),
        env("SLURM_PROCID").or_else(|| env("SLURM_ARRAY_TASK_ID")),
    )
}

/// Seconds since the Unix epoch as RFC 3339 UTC (`2026-11-29T20:05:00Z`).
pub fn rfc3339_utc(secs: u64) -> String {
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The device model of the test records and baselines.
    pub(crate) const TEST_DEVICE: &str = "Test GPU";

    /// A one-case baseline series for tests (on [`TEST_DEVICE`]).
    pub(crate) fn baseline(label: &str, case: &str, pct_of_memcpy: f64) -> Baseline {
        let r = BaselineRecord {
            case: case.into(),
            variant: None,
            ms_median: None,
            gbps: None,
            pct_of_memcpy: Some(pct_of_memcpy),
            device_name: None,
        };
        Baseline {
            label: label.into(),
            device: Some(TEST_DEVICE.into()),
            by_case: BTreeMap::from([(case.to_string(), r)]),
        }
    }

    /// A record for tests: 1 GB moved, the given median, no telemetry.
    pub(crate) fn record(case: &str, ms: Option<f64>, gpu: Option<usize>) -> Record {
        Record {
            case: case.into(),
            dtype: "float32".into(),
            shape: vec![4, 8],
            op: "x.permute(1, 0).contiguous()".into(),
            bytes_read: 500_000_000,
            bytes_written: 500_000_000,
            ms_median: ms,
            ms_min: ms,
            ms_max: ms,
            samples: 10,
            gbps: None,
            pct_of_memcpy: None,
            pct_of_peak: None,
            telemetry: WindowStats {
                throttle_reasons: Some(vec!["gpu_idle".into(), "sw_power_cap".into()]),
                ..WindowStats::default()
            },
            verified: true,
            place: Place {
                host: "h".into(),
                device_name: Some(TEST_DEVICE.into()),
                gpu_index: gpu,
                ..Place::default()
            },
            discarded_low_clock: 0,
            build: "test".into(),
            suite: Suite::Layout,
            health: Health::default(),
        }
    }

    #[test]
    fn rates_against_each_devices_memcpy() {
        let mut v = vec![
            record(MEMCPY_CASE, Some(0.5), Some(0)),
            record("t", Some(1.0), Some(0)),
            record(MEMCPY_CASE, Some(0.25), Some(1)),
            record("t", Some(1.0), Some(1)),
            record("none", None, Some(1)),
        ];
        derive_rates(&mut v, |g| (g == Some(0)).then_some(4000.0));
        assert_eq!(v[0].gbps, Some(2000.0));
        assert_eq!(v[0].pct_of_memcpy, Some(100.0));
        assert_eq!(v[1].pct_of_memcpy, Some(50.0));
        assert_eq!(v[1].pct_of_peak, Some(25.0));
        assert_eq!(v[3].pct_of_memcpy, Some(25.0));
        assert_eq!(v[3].pct_of_peak, None);
        assert_eq!((v[4].gbps, v[4].pct_of_memcpy), (None, None));
    }

    #[test]
    fn transfer_records_count_one_direction_and_get_no_dram_rates() {
        let mut t = record("h2d_pinned_1GiB", Some(20.0), Some(0));
        t.suite = Suite::Transfers;
        let mut v = vec![record(MEMCPY_CASE, Some(0.5), Some(0)), t];
        derive_rates(&mut v, |_| Some(4000.0));
        assert_eq!(v[1].bytes_moved(), 500_000_000);
        assert_eq!(
            v[1].gbps,
            Some(25.0),
            "the bytes copied, one direction, in 20 ms"
        );
        assert_eq!((v[1].pct_of_memcpy, v[1].pct_of_peak), (None, None));
        assert_eq!(v[0].bytes_moved(), 1_000_000_000);
        assert_eq!(v[0].pct_of_memcpy, Some(100.0));
    }

    #[test]
    fn csv_quotes_and_joins() {
        let mut r = record("t", Some(1.0), None);
        r.op = "x.permute(0, 2, 1, 3).contiguous()".into();
        let csv = to_csv(&[r]);
        let mut lines = csv.lines();
        assert_eq!(lines.next().unwrap(), FIELDS.join(","));
        let row = lines.next().unwrap();
        assert!(row.starts_with("t,float32,4x8,\"x.permute(0, 2, 1, 3).contiguous()\",500000000,"));
        assert!(
            row.contains(",gpu_idle;sw_power_cap,true,h,Test GPU,,,,,0,test"),
            "{row}"
        );
    }

    #[test]
    fn fields_match_the_record() {
        let v = serde_json::to_value(record("t", None, None)).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want = FIELDS.to_vec();
        want.sort();
        let mut got = keys.clone();
        got.sort();
        assert_eq!(got, want);
    }

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("stridekit-bench-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn baseline_variants_labels_and_ratio_join() {
        let p = write(
            "torch.json",
            r#"{"header": {"label": "torch"}, "records": [
                {"case": "memcpy_f32_1GiB", "variant": "torch eager", "pct_of_memcpy": 100.0, "gbps": 4000},
                {"case": "t", "variant": "torch eager", "pct_of_memcpy": 25.0, "gbps": 1000},
                {"case": "t", "variant": "torch.compile", "pct_of_memcpy": 80.0},
                {"case": "u", "gbps": 500.0},
                {"case": "v", "gbps": null, "pct_of_memcpy": null}
            ]}"#,
        );
        let b = read_baselines(&[p.clone(), p.clone()]).unwrap();
        let labels: Vec<&str> = b.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(&labels[..3], ["torch eager", "torch.compile", "torch"]);
        assert!(labels[3].starts_with("torch eager ("), "{labels:?}");
        let mut ours = record("t", Some(1.0), Some(0));
        ours.pct_of_memcpy = Some(50.0);
        ours.gbps = Some(2000.0);
        assert_eq!(ratio(&ours, &b[0].by_case["t"]), Some(2.0));
        assert_eq!(ratio(&ours, &b[1].by_case["t"]), Some(0.625));
        let mut u = record("u", Some(1.0), Some(0));
        u.gbps = Some(1000.0);
        assert_eq!(
            ratio(&u, &b[2].by_case["u"]),
            Some(2.0),
            "falls back to GB/s"
        );
        assert!(!b[1].by_case.contains_key("u"));
        let _ = std::fs::remove_file(p);
    }

    #[test]
    fn baseline_devices_from_records_or_header_and_json_lines() {
        // A stream of records (`--records`), one device per record.
        let lines = [
            r#"{"case": "memcpy_f32_1GiB", "gbps": 100.0, "pct_of_memcpy": 100.0, "device_name": "CPU: X"}"#,
            r#"{"case": "t", "gbps": 5.0, "pct_of_memcpy": 5.0, "device_name": "CPU: X"}"#,
        ];
        let p = write("stream.jsonl", &(lines.join("\n") + "\n"));
        let b = read_baseline(&p).unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(
            b[0].label,
            format!("stridekit-bench-{}-stream", std::process::id())
        );
        assert_eq!(b[0].device.as_deref(), Some("CPU: X"));
        assert_eq!(b[0].by_case.len(), 2);
        let mut ours = record("t", Some(1.0), None);
        assert!(!b[0].same_device(&ours));
        ours.place.device_name = Some("CPU: X".into());
        assert!(b[0].same_device(&ours));
        // A bad line after good ones names the line; a last line cut by a kill is dropped.
        let p2 = write("bad.jsonl", &format!("{}\n{{\"nope\": 1}}\n", lines[0]));
        let e = read_baseline(&p2).unwrap_err().to_string();
        assert!(e.contains("line 2: not a bench record"), "{e}");
        let cut = write(
            "cut.jsonl",
            &format!("{}\n{{\"case\": \"t\", \"gb", lines[0]),
        );
        assert_eq!(read_baseline(&cut).unwrap()[0].by_case.len(), 1);
        let _ = std::fs::remove_file(cut);
        // The header's gpu_name names the device of records that do not.
        let p3 = write(
            "anchors.json",
            r#"{"header": {"gpu_name": "NVIDIA H200"}, "records": [{"case": "t", "gbps": 1.0}]}"#,
        );
        assert_eq!(
            read_baseline(&p3).unwrap()[0].device.as_deref(),
            Some("NVIDIA H200")
        );
        // One series on two device models is refused with one line.
        let p4 = write(
            "mixed.jsonl",
            &format!(
                "{}\n{}\n",
                lines[0],
                lines[1].replace("CPU: X", "NVIDIA H200")
            ),
        );
        let e = read_baseline(&p4).unwrap_err().to_string();
        assert!(e.contains("mixes devices CPU: X and NVIDIA H200"), "{e}");
        assert_eq!(e.lines().count(), 1);
        for p in [p, p2, p3, p4] {
            let _ = std::fs::remove_file(p);
        }
    }

    #[test]
    fn reads_compare_torch_output() {
        // One record as scripts/compare_torch.py writes it (every field, plus variant and,
        // for a failed variant, error), and a failed one without figures.
        let p = write(
            "compare_torch.json",
            r#"{"header": {"gpu_name": "NVIDIA H200", "backend": "torch", "label": "torch",
                "torch_version": "2.11.0+cu130", "telemetry": "available"},
              "records": [
                {"case": "memcpy_f32_1GiB", "dtype": "float32", "shape": [268435456],
                 "op": "x.clone()", "bytes_read": 1073741824, "bytes_written": 1073741824,
                 "ms_median": 0.518, "ms_min": 0.513, "ms_max": 0.546, "samples": 40,
                 "gbps": 4145.6, "pct_of_memcpy": 100.0, "pct_of_peak": 86.1,
                 "power_w_mean": 420.5, "power_w_max": 510.0, "energy_j": 8.4,
                 "j_per_gb": 0.1, "sm_mhz_mean": 1980.0, "mem_mhz_mean": 3201.0,
                 "temp_c_max": 51, "throttle_reasons": ["gpu_idle"], "verified": true,
                 "host": "h", "gpu_index": 0, "gpu_uuid": "GPU-1", "slurm_job_id": null,
                 "slurm_task_id": null, "discarded_low_clock": 0, "variant": "torch eager"},
                {"case": "memcpy_f32_1GiB", "dtype": "float32", "shape": [268435456],
                 "op": "x.clone()", "bytes_read": 1073741824, "bytes_written": 1073741824,
                 "ms_median": null, "ms_min": null, "ms_max": null, "samples": 0,
                 "gbps": null, "pct_of_memcpy": null, "verified": false,
                 "variant": "torch.compile", "error": "compile failed"}
              ]}"#,
        );
        let b = read_baseline(&p).unwrap();
        assert_eq!(b.len(), 1, "the failed variant has no figure to compare");
        assert_eq!(b[0].label, "torch eager");
        assert_eq!(b[0].by_case["memcpy_f32_1GiB"].pct_of_memcpy, Some(100.0));
        let _ = std::fs::remove_file(p);
    }

    #[test]
    fn bad_baselines_name_the_file_and_the_problem() {
        let missing = std::path::Path::new("/nonexistent/base.json");
        let e = read_baseline(missing).unwrap_err().to_string();
        assert!(e.starts_with("baseline /nonexistent/base.json: "), "{e}");
        let p = write("bad.json", r#"[{"case": "x"}]"#);
        let e = read_baseline(&p).unwrap_err().to_string();
        assert!(e.contains("not a stridekit bench JSON file"), "{e}");
        let p2 = write(
            "nofig.json",
            r#"{"records": [{"case": "x", "gbps": null}]}"#,
        );
        let e = read_baseline(&p2).unwrap_err().to_string();
        assert!(e.ends_with("no record has a pct_of_memcpy or gbps figure to compare with"));
        let p3 = write("nocase.json", r#"{"records": [{"gbps": 1.0}]}"#);
        let e = read_baseline(&p3).unwrap_err().to_string();
        assert!(e.contains("missing field `case`"), "{e}");
        for p in [p, p2, p3] {
            let _ = std::fs::remove_file(p);
        }
    }

    #[test]
    fn slurm_and_time() {
        let env = |k: &str| match k {
            "SLURM_JOB_ID" => Some("77".to_string()),
            "SLURM_ARRAY_TASK_ID" => Some("3".to_string()),
            _ => None,
        };
        assert_eq!(slurm_ids(env), (Some("77".into()), Some("3".into())));
        assert_eq!(slurm_ids(|_| None), (None, None));
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_796_000_000), "2026-11-30T00:53:20Z");
        assert_eq!(rfc3339_utc(951_782_400 + 3661), "2000-02-29T01:01:01Z");
    }
}
