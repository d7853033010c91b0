//! `stridekit bench ...`: options, and the run from case list to written reports.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::cases::{self, Case, DEFAULT_SEED, WorkKind};
use super::error::BenchError;
use super::output::{self, Progress};
use super::placeholders::{self, PathValues};
use super::record::{self, DeviceInfo, Header, Record, Report};
use super::run_gpu::{self, FlushMode, GpuOptions, GpuRun, GpuWork};
use super::sink::Sink;
use super::telemetry::open_nvml;
use super::timing::SamplingRule;
use super::transfers::{self, Transfer};
use super::{Place, Suite, plot, run_cpu};

/// Options of `stridekit bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// GPU ordinal (`0`, `cuda:1`), `all` (every GPU, each in its own thread, at the same
    /// time) or `cpu` (the CPU backend, no telemetry).
    #[arg(long, default_value = "0")]
    pub device: String,
    /// Scale every case down about 256 times (rank, permutation and dtype kept) for a smoke run.
    #[arg(long)]
    pub quick: bool,
    /// Run only the cases whose name contains PATTERN or matches it as a regular
    /// expression (memcpy_f32_1GiB, the 100% line, always runs).
    #[arg(long, value_name = "PATTERN")]
    pub cases: Option<String>,
    /// List the cases instead of running them (with --json: the case spec that
    /// scripts/compare_torch.py reads).
    #[arg(long)]
    pub list: bool,
    /// Write the results (or with --list, the case spec) as JSON to FILE; no FILE or `-`:
    /// standard output (the table then goes to standard error).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,
    /// Write the results as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Append each record to FILE as one JSON line the moment its case is measured (with
    /// its rates), so a run that is killed keeps every case that finished.
    #[arg(long, value_name = "FILE.jsonl")]
    pub records: Option<PathBuf>,
    /// Start no case that would end after SECONDS from the start of the run, judged by the
    /// longest case so far on its device; the cases left out are listed in the header's
    /// `cases_not_run` and on standard error.
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<f64>,
    /// Draw % of memcpy per case as an SVG bar chart, beside every baseline.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// A results file to compare with (same JSON form, e.g. from scripts/compare_torch.py);
    /// repeatable.
    #[arg(long, value_name = "FILE")]
    pub baseline: Vec<PathBuf>,
    /// Stop sampling a case after this many seconds [default: 5, with --quick 1].
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Sample each case at least this long (so telemetry covers it).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.25)]
    pub min_time: f64,
    /// Kept samples needed before the noise rule may stop sampling.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub min_samples: usize,
    /// Stop when the relative standard deviation of the samples is at most this.
    #[arg(long, value_name = "PERCENT", default_value_t = 0.5)]
    pub max_rsd: f64,
    /// Untimed runs before sampling.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub warmup: usize,
    /// NVML sampling interval.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    pub telemetry_interval: u64,
    /// Length of each case's power and energy window: the case runs back to back (no
    /// flush, no per-run wait) this long after its timed samples.
    #[arg(long, value_name = "S", default_value_t = 0.5)]
    pub energy_window: f64,
    /// Flush L2 (write 2x its size) before each sample: auto = when the working set is
    /// under 4x L2.
    #[arg(long, value_enum, default_value = "auto")]
    pub l2_flush: FlushMode,
    /// Which suite runs: layout copies, host-device and device-device transfers (a GPU
    /// only), or both.
    #[arg(long, value_enum, default_value = "layout")]
    pub suite: SuiteChoice,
    /// Seed of the random-permutation suite.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// No progress line on standard error.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Which backend and devices run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceChoice {
    Cpu,
    All,
    Gpu(usize),
}

/// Parses `--device`.
pub fn parse_device(s: &str) -> Result<DeviceChoice, BenchError> {
    let t = s.trim().to_ascii_lowercase();
    match t.as_str() {
        "cpu" => Ok(DeviceChoice::Cpu),
        "all" => Ok(DeviceChoice::All),
        _ => t
            .strip_prefix("cuda:")
            .unwrap_or(&t)
            .parse()
            .map(DeviceChoice::Gpu)
            .map_err(|_| {
                BenchError::Usage(format!(
                    "--device '{s}': expected a GPU ordinal (0, cuda:1), 'all' or 'cpu'"
                ))
            }),
    }
}

fn seconds(name: &str, v: f64) -> Result<Duration, BenchError> {
    if v.is_finite() && v >= 0.0 {
        Ok(Duration::from_secs_f64(v))
    } else {
        Err(BenchError::Usage(format!(
            "--{name} {v}: expected a number of seconds >= 0"
        )))
    }
}

/// The sampling rule from the options.
pub fn sampling_rule(a: &BenchArgs) -> Result<SamplingRule, BenchError> {
    if !(a.max_rsd.is_finite() && a.max_rsd >= 0.0) {
        return Err(BenchError::Usage(format!(
            "--max-rsd {}: expected a percentage >= 0",
            a.max_rsd
        )));
    }
    Ok(SamplingRule {
        warmup: a.warmup,
        min_samples: a.min_samples,
        max_rsd: a.max_rsd / 100.0,
        min_time: seconds("min-time", a.min_time)?,
        time_limit: seconds(
            "time-limit",
            a.time_limit.unwrap_or(if a.quick { 1.0 } else { 5.0 }),
        )?,
        ..SamplingRule::default()
    })
}

/// One case of the spec `--list --json` writes: the recipe, its PyTorch expression, the
/// view it makes over the input storage, and the bytes it moves.
#[derive(Serialize)]
struct SpecCase<'a> {
    #[serde(flatten)]
    case: &'a Case,
    op: String,
    out_shape: Vec<i64>,
    view: Option<SpecView>,
    bytes_read: u64,
    bytes_written: u64,
}

#[derive(Serialize)]
struct SpecView {
    sizes: Vec<i64>,
    strides: Vec<i64>,
    offset: i64,
}

#[derive(Serialize)]
struct Spec<'a> {
    suite: &'static str,
    stridekit_version: &'static str,
    quick: bool,
    seed: u64,
    memcpy_case: &'static str,
    cases: Vec<SpecCase<'a>>,
    /// With `--suite transfers` or `all`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    transfers: &'a [Transfer],
}

/// The case spec as JSON.
pub fn spec_json(
    cases: &[Case],
    transfers: &[Transfer],
    quick: bool,
    seed: u64,
) -> Result<String, BenchError> {
    let mut out = Vec::with_capacity(cases.len());
    for c in cases {
        let w = c.work()?;
        let view = match &w.kind {
            WorkKind::Copy { view, .. } => Some(SpecView {
                sizes: view.sizes().to_vec(),
                strides: view.strides().to_vec(),
                offset: view.offset(),
            }),
            WorkKind::Gather { .. } => None,
        };
        out.push(SpecCase {
            case: c,
            op: c.expression(),
            out_shape: w.output_shape,
            view,
            bytes_read: w.bytes_read,
            bytes_written: w.bytes_written,
        });
    }
    let spec = Spec {
        suite: "stridekit bench",
        stridekit_version: env!("CARGO_PKG_VERSION"),
        quick,
        seed,
        memcpy_case: cases::MEMCPY_CASE,
        cases: out,
        transfers,
    };
    Ok(serde_json::to_string_pretty(&spec).expect("plain data always encodes") + "\n")
}

/// Writes a file, making its directory first (`results/{slurm_job}/...`).
fn write_file(path: &Path, text: &str) -> Result<(), BenchError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| BenchError::io(path, e))
}

/// Writes to a file, or standard output for `-`.
fn emit(path: &Path, text: &str) -> Result<(), BenchError> {
    if path.as_os_str() == "-" {
        // A closed pipe is not worth a failure.
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
        Ok(())
    } else {
        write_file(path, text)
    }
}

fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if a.is_empty()
                || a.contains(|c: char| c.is_whitespace() || "'\"$`\\|&;<>()*?[]^".contains(c))
            {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn sampling_text(rule: &SamplingRule, flush: FlushMode, gpu: bool) -> String {
    let timer = if gpu {
        "CUDA events around each sample"
    } else {
        "std::time::Instant around each run of the CPU backend"
    };
    let mut s = format!(
        "{timer}; {} warm-ups; samples until the relative standard deviation is <= {}% (at least {} samples and {} s) or {} s; median, min and max of the kept samples",
        rule.warmup,
        rule.max_rsd * 100.0,
        rule.min_samples,
        rule.min_time.as_secs_f64(),
        rule.time_limit.as_secs_f64()
    );
    if gpu {
        let f = match flush {
            FlushMode::Auto => "when bytes read + written < 4x L2",
            FlushMode::Always => "always",
            FlushMode::Never => "never",
        };
        s.push_str(&format!(
            "; samples taken while the SM clock (NVML) was under {}% of its maximum are discarded and counted; L2 flush (cuMemsetD8Async of 2x L2) before each sample: {f}; otherwise a 64 MiB memset keeps the stream busy so the start event does not wait for the launch; power and energy from a separate window of back-to-back runs",
            rule.min_clock_fraction * 100.0
        ));
    }
    s
}

/// Which suites `--suite` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SuiteChoice {
    /// The layout-copy suite.
    Layout,
    /// Host-device and device-device transfers.
    Transfers,
    /// Both, layout first.
    All,
}

impl SuiteChoice {
    pub fn name(self) -> &'static str {
        match self {
            SuiteChoice::Layout => "layout",
            SuiteChoice::Transfers => "transfers",
            SuiteChoice::All => "all",
        }
    }

    pub fn layout(self) -> bool {
        self != SuiteChoice::Transfers
    }

    pub fn transfers(self) -> bool {
        self != SuiteChoice::Layout
    }
}

/// Expands the placeholders of `--json`, `--csv`, `--plot` and `--records` (`-` stays
/// standard output).
fn expand_outputs(a: &mut BenchArgs, values: &PathValues) -> Result<(), BenchError> {
    for p in [&mut a.json, &mut a.csv, &mut a.plot, &mut a.records]
        .into_iter()
        .flatten()
    {
        if let Some(t) = p.to_str() {
            *p = PathBuf::from(placeholders::expand(t, values).map_err(BenchError::Usage)?);
        }
    }
    Ok(())
}

/// `stridekit bench`.
pub fn run(mut a: BenchArgs) -> Result<(), BenchError> {
    let device = parse_device(&a.device)?;
    if device == DeviceChoice::Cpu && a.suite.transfers() {
        return Err(BenchError::Usage(format!(
            "--suite {} needs a GPU: the transfers suite times host-device and device-device copies, which the CPU backend does not have (use --suite layout with --device cpu)",
            a.suite.name()
        )));
    }
    let rule = sampling_rule(&a)?;
    let host = record::host_name();
    let (slurm_job_id, slurm_task_id) = record::slurm_ids(|k| std::env::var(k).ok());
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let gpu = match device {
        DeviceChoice::Cpu => "cpu".to_string(),
        DeviceChoice::All => "all".to_string(),
        DeviceChoice::Gpu(n) => n.to_string(),
    };
    expand_outputs(
        &mut a,
        &PathValues {
            host: host.clone(),
            gpu,
            slurm_job: slurm_job_id.clone().unwrap_or_else(|| "none".into()),
            slurm_proc: slurm_task_id.clone().unwrap_or_else(|| "none".into()),
            date: placeholders::compact_utc(started),
        },
    )?;
    let (cases, transfer_cases) = select_cases(&a)?;
    if a.list {
        match &a.json {
            Some(p) => emit(p, &spec_json(&cases, &transfer_cases, a.quick, a.seed)?)?,
            None => {
                if !cases.is_empty() {
                    print!("{}", output::case_list(&cases)?);
                }
                if !transfer_cases.is_empty() {
                    print!("{}", output::transfer_list(&transfer_cases));
                }
            }
        }
        return Ok(());
    }
    // Read the baselines first: a bad file should not wait for the whole suite.
    let baselines = record::read_baselines(&a.baseline)?;
    let budget = a.budget.map(|b| seconds("budget", b)).transpose()?;
    // The records file's directory, as write_file makes the others'.
    if let Some(dir) = a
        .records
        .as_deref()
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))?;
    }
    let sink = Sink::new(a.records.as_deref(), budget)?;
    let place = Place {
        host: host.clone(),
        slurm_job_id,
        slurm_task_id,
        ..Place::default()
    };
    let DevicesRun {
        mut records,
        devices,
        driver,
    } = match device {
        DeviceChoice::Cpu => {
            let progress = Progress::new("cpu", cases.len(), true, a.quiet).with_sink(&sink);
            let place = Place {
                device_name: Some(super::cpu_device_name()),
                ..place
            };
            let r = run_cpu::run(&cases, &rule, &place, &progress);
            progress.close();
            DevicesRun {
                records: r?,
                devices: vec![],
                driver: None,
            }
        }
        DeviceChoice::Gpu(n) => run_gpus(&[n], &cases, &transfer_cases, &rule, &a, &place, &sink)?,
        DeviceChoice::All => {
            run_gpu::check_driver()?;
            let all = run_gpu::all_devices()?;
            run_gpus(&all, &cases, &transfer_cases, &rule, &a, &place, &sink)?
        }
    };
    let gpus = devices.len().max(1);
    let selected: Vec<&str> = cases
        .iter()
        .map(|c| c.case.as_str())
        .chain(
            transfer_cases
                .iter()
                .filter(|t| gpus > 1 || !transfers::is_d2d(t))
                .map(|t| t.case.as_str()),
        )
        .collect();
    let cases_not_run = not_run(&selected, &records, gpus);
    if !cases_not_run.is_empty() && !a.quiet {
        eprintln!(
            "stridekit bench: the --budget of {} s left {} case(s) not run: {}",
            a.budget.unwrap_or_default(),
            cases_not_run.len(),
            cases_not_run.join(", ")
        );
    }
    let peaks: Vec<(usize, Option<f64>)> = devices
        .iter()
        .map(|d| (d.gpu_index, d.facts.peak_gbps))
        .collect();
    record::derive_rates(&mut records, |g| {
        peaks
            .iter()
            .find(|(i, _)| Some(*i) == g)
            .and_then(|(_, p)| *p)
    });
    let gpu = device != DeviceChoice::Cpu;
    let header = Header {
        gpu: match &devices[..] {
            [one] => one.facts.clone(),
            _ => Default::default(),
        },
        driver,
        stridekit_version: env!("CARGO_PKG_VERSION").into(),
        build: crate::BUILD.into(),
        kernel_image: crate::backend::cuda::kernel_image().into(),
        backend: if gpu { "cuda" } else { "cpu" }.into(),
        host,
        command_line: command_line(),
        timestamp: record::rfc3339_utc(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(started, |d| d.as_secs()),
        ),
        quick: a.quick,
        seed: a.seed,
        suite: a.suite.name().into(),
        sampling: sampling_text(&rule, a.l2_flush, gpu),
        verification: if gpu {
            "before timing, each case's output (poisoned with 0xA5 bytes) is compared byte for byte with the CPU backend running the same CopyPlan (or row gather) on the same random input, downloaded from the GPU; input elements are never zero or 0xA5"
        } else {
            "before timing, the CPU backend's output (poisoned with 0xA5 bytes) is compared byte for byte with a naive element-by-element reference over the logical indices; input elements are never zero or 0xA5"
        }
        .into(),
        devices,
        cases_not_run,
        cpu_threads: Some(crate::backend::cpu::num_threads()),
        cpu_capability: Some(crate::backend::cpu::capability().name().into()),
    };
    write_outputs(&a, Report { header, records }, &baselines)
}

/// The cases that some device did not run (a budget stopped it), in suite order.
fn not_run(cases: &[&str], records: &[Record], devices: usize) -> Vec<String> {
    cases
        .iter()
        .filter(|c| records.iter().filter(|r| r.case == **c).count() < devices)
        .map(|c| c.to_string())
        .collect()
}

/// Every GPU's records, the GPUs, and the driver version.
struct DevicesRun {
    records: Vec<Record>,
    devices: Vec<DeviceInfo>,
    driver: Option<String>,
}

/// The layout and transfer cases `--suite` and `--cases` select. With `--suite all` a
/// pattern may match cases of either suite.
fn select_cases(a: &BenchArgs) -> Result<(Vec<Case>, Vec<Transfer>), BenchError> {
    let pattern = a.cases.as_deref();
    let transfers = if a.suite.transfers() {
        transfers::filter(
            transfers::suite(a.quick),
            pattern,
            a.suite == SuiteChoice::Transfers,
        )?
    } else {
        vec![]
    };
    let layout = if a.suite.layout() {
        match cases::filter(cases::suite(a.quick, a.seed), pattern) {
            Ok(c) => c,
            Err(_) if !transfers.is_empty() => vec![],
            Err(e) => return Err(e),
        }
    } else {
        vec![]
    };
    Ok((layout, transfers))
}

/// Runs the layout cases on every listed GPU, each in its own thread, then the transfer
/// cases one GPU at a time (so each figure is its own link's, not a share of a common
/// one), sharing one NVML handle.
fn run_gpus(
    ordinals: &[usize],
    cases: &[Case],
    transfer_cases: &[Transfer],
    rule: &SamplingRule,
    a: &BenchArgs,
    place: &Place,
    sink: &Sink,
) -> Result<DevicesRun, BenchError> {
    run_gpu::check_driver()?;
    let opts = GpuOptions {
        rule: *rule,
        telemetry_interval: Duration::from_millis(a.telemetry_interval.max(1)),
        flush: a.l2_flush,
        energy_window: Duration::from_secs_f64(a.energy_window.clamp(0.0, 60.0)),
    };
    let nvml = open_nvml();
    let nvml_ref = nvml.as_ref().map_err(|e| e.as_str());
    let mut runs: Vec<Result<GpuRun, BenchError>> = Vec::new();
    if !cases.is_empty() {
        runs = std::thread::scope(|s| {
            let handles: Vec<_> = ordinals
                .iter()
                .map(|&n| {
                    let opts = &opts;
                    let place = place.clone();
                    s.spawn(move || {
                        let progress = Progress::new(
                            &format!("cuda:{n}"),
                            cases.len(),
                            ordinals.len() == 1,
                            a.quiet,
                        )
                        .with_sink(sink);
                        let work = GpuWork::Layout(cases);
                        let r = run_gpu::run(n, work, opts, nvml_ref, place, &progress);
                        progress.close();
                        r
                    })
                })
                .collect();
            handles
                .into_iter()
                .zip(ordinals)
                .map(|(h, n)| {
                    h.join()
                        .unwrap_or_else(|_| Err(BenchError::Thread(format!("cuda:{n}"))))
                })
                .collect()
        });
    }
    if !transfer_cases.is_empty() {
        for (k, &n) in ordinals.iter().enumerate() {
            let next = (ordinals.len() > 1).then(|| ordinals[(k + 1) % ordinals.len()]);
            let work = GpuWork::Transfers {
                cases: transfer_cases,
                next,
            };
            let progress =
                Progress::new(&format!("cuda:{n}"), work.len(), true, a.quiet).with_sink(sink);
            runs.push(run_gpu::run(
                n,
                work,
                &opts,
                nvml_ref,
                place.clone(),
                &progress,
            ));
            progress.close();
        }
    }
    let mut records = Vec::new();
    let mut devices: Vec<DeviceInfo> = Vec::new();
    let mut driver = None;
    for r in runs {
        let r = r?;
        records.extend(r.records);
        if !devices.iter().any(|d| d.gpu_index == r.info.gpu_index) {
            devices.push(r.info);
        }
        driver = driver.or(r.driver);
    }
    Ok(DevicesRun {
        records,
        devices,
        driver,
    })
}

fn write_outputs(
    a: &BenchArgs,
    report: Report,
    baselines: &[record::Baseline],
) -> Result<(), BenchError> {
    let table = output::table(&report.records, baselines);
    let json_to_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if json_to_stdout {
        eprint!("{table}");
    } else {
        let _ = std::io::stdout().lock().write_all(table.as_bytes());
    }
    if let Some(p) = &a.json {
        emit(p, &record::to_json(&report))?;
    }
    if let Some(p) = &a.csv {
        write_file(p, &record::to_csv(&report.records))?;
    }
    if let Some(p) = &a.plot {
        let h = &report.header;
        let title = format!(
            "stridekit bench: % of same-run memcpy, {}{}",
            h.gpu.gpu_name.as_deref().unwrap_or(&h.backend),
            if h.quick { " (--quick)" } else { "" }
        );
        // % of memcpy is a layout figure: transfer records have no bar to draw.
        let layout: Vec<Record> = report
            .records
            .iter()
            .filter(|r| r.suite == Suite::Layout)
            .cloned()
            .collect();
        write_file(p, &plot::svg(&title, &layout, baselines))?;
    }
    let failed: Vec<&str> = report
        .records
        .iter()
        .filter(|r| !r.verified)
        .map(|r| r.case.as_str())
        .collect();
    if !failed.is_empty() {
        return Err(BenchError::Verification(failed.join(", ")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_values() {
        assert_eq!(parse_device("cpu").unwrap(), DeviceChoice::Cpu);
        assert_eq!(parse_device("ALL").unwrap(), DeviceChoice::All);
        assert_eq!(parse_device("3").unwrap(), DeviceChoice::Gpu(3));
        assert_eq!(parse_device("cuda:1").unwrap(), DeviceChoice::Gpu(1));
        let e = parse_device("gpu0").unwrap_err().to_string();
        assert_eq!(
            e,
            "--device 'gpu0': expected a GPU ordinal (0, cuda:1), 'all' or 'cpu'"
        );
        assert!(parse_device("-1").is_err());
    }

    #[test]
    fn spec_lists_views_and_bytes() {
        let cases = cases::filter(
            cases::suite(true, DEFAULT_SEED),
            Some("transpose2d_f64|index_select"),
        )
        .unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&spec_json(&cases, &[], true, DEFAULT_SEED).unwrap()).unwrap();
        let c = &v["cases"];
        assert_eq!(c.as_array().unwrap().len(), 3);
        assert_eq!(c[0]["kind"], "clone");
        let t = &c[1];
        assert_eq!(t["case"], "transpose2d_f64_8192x16384");
        assert_eq!(t["kind"], "copy");
        assert_eq!(t["steps"][0]["op"], "permute");
        assert_eq!(t["output"], "contiguous");
        assert_eq!(t["view"]["strides"], serde_json::json!([1, 1024]));
        assert_eq!(t["out_shape"], serde_json::json!([1024, 512]));
        assert_eq!(t["op"], "x.permute(1, 0).contiguous()");
        assert_eq!(c[2]["kind"], "index_select_rows");
        assert_eq!(c[2]["view"], serde_json::Value::Null);
        assert_eq!(c[2]["count"], 8192);
    }
}
