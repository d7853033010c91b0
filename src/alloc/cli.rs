//! `stridekit alloc ...`: replay allocation traces through the caching allocator.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::config::AllocConfig;
use super::cuda_device::CudaDevice;
use super::error::{AllocError, AllocResult};
use super::policy::DeviceCachingAllocator;
use super::replay::{self, H200_CAPACITY, ReplayOptions, ReplayReport};
use super::report;
use super::trace::{self, Trace};
use super::{grid, snapshot, tune, tune_pick, tune_report, why};

/// Where a replay runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceKind {
    /// The simulated device (no GPU needed).
    Sim,
    /// The real GPU 0, through the CUDA driver.
    Cuda,
}

/// When `--snapshot` takes the allocator's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SnapshotAt {
    /// After the last event.
    End,
    /// After the event at which reserved bytes first reach their peak.
    Peak,
}

/// Allocator subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum AllocCommand {
    /// Replay allocation traces (anchors CSV, snapshot CSV or pickle, RMM log CSV) and
    /// report peak allocated and reserved bytes per setting.
    Replay {
        /// Trace files (gzip allowed).
        #[arg(required = true)]
        traces: Vec<PathBuf>,
        /// Allocator settings in PYTORCH_CUDA_ALLOC_CONF syntax; repeat the flag, or
        /// separate several settings with ';', to compare them side by side ("default" for
        /// PyTorch's defaults). Commas inside one setting combine keys, as in PyTorch.
        #[arg(long = "conf")]
        conf: Vec<String>,
        /// Print the full statistics, with PyTorch's key names, as JSON.
        #[arg(long)]
        json: bool,
        /// Write an SVG plot of reserved and allocated bytes over the trace.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// Replay on the simulated device or on the real GPU.
        #[arg(long, value_enum, default_value = "sim")]
        device: DeviceKind,
        /// Simulated device capacity in bytes (suffixes K, M, G, KiB, MiB, GiB allowed).
        #[arg(long)]
        capacity: Option<String>,
        /// Write the segment addresses the device handed out, one per line.
        #[arg(long, value_name = "FILE")]
        record_addresses: Option<PathBuf>,
        /// Hand out these segment addresses (one per line, as --record-addresses writes
        /// them) on the simulated device instead of the trace's own.
        #[arg(long, value_name = "FILE")]
        addresses: Option<PathBuf>,
        /// Use made-up addresses even when the trace records the original ones.
        #[arg(long)]
        ignore_recorded_addresses: bool,
        /// Explain reserved minus allocated bytes at the peak of reserved bytes (and at the
        /// first out-of-memory): inactive split blocks, free cached segments, page
        /// rounding, pending frees, and the largest contributors (simulated device).
        #[arg(long)]
        why: bool,
        /// Write the allocator's state and history as a PyTorch memory snapshot pickle
        /// (what torch.cuda.memory._dump_snapshot() writes; read by
        /// python -m torch.cuda._memory_viz and pytorch.org/memory_viz). Several
        /// (trace, setting) pairs write FILE-1.pickle, FILE-2.pickle, ...
        #[arg(long, value_name = "FILE.pickle")]
        snapshot: Option<PathBuf>,
        /// When the snapshot is taken: at the end of the trace, or at the peak of reserved
        /// bytes.
        #[arg(long, value_enum, default_value = "end")]
        snapshot_at: SnapshotAt,
    },
    /// Replay a grid of settings over traces (one replay per core) and rank them per
    /// trace by peak reserved bytes; prints the winning PYTORCH_CUDA_ALLOC_CONF.
    Tune {
        /// Trace files (gzip allowed).
        #[arg(required = true)]
        traces: Vec<PathBuf>,
        /// Simulated device capacity in bytes (suffixes as for replay; default: an H200's
        /// 143771 MiB). Settings that run out of memory under it are marked and rank last.
        #[arg(long)]
        capacity: Option<String>,
        /// A grid file: one setting per line, '#' comments (default: the built-in grid of
        /// 432 PyTorch settings plus 18 settings of policy:stridekit's own parameters, its
        /// defaults first; the table ends with the policy:stridekit parameters that do best
        /// over all the traces given, and why).
        #[arg(long, value_name = "FILE")]
        grid: Option<PathBuf>,
        /// Settings shown per trace (the default and stridekit rows are always shown).
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// One JSON object per (trace, setting) instead of the table.
        #[arg(long)]
        json: bool,
        /// Write a bar chart (default, best PyTorch setting, stridekit policy) as SVG.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
    },
}

/// Parse a byte count such as `80000000000`, `80G`, `141GiB` or `1.5GiB`, exactly: the
/// digits are read as integers (no rounding through floating point), a fraction must come
/// to a whole number of bytes, and a count past `u64::MAX` is refused rather than clamped.
/// Decimal units are powers of 1000 (`K`/`KB` .. `E`/`EB`), binary ones of 1024 (`KiB` ..
/// `EiB`); case does not matter.
pub fn parse_bytes(s: &str) -> AllocResult<u64> {
    let bad = |why: &str| AllocError::Usage(format!("--capacity: '{s}' {why}"));
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let (exp, base): (u32, u128) = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => (0, 1000),
        "k" | "kb" => (1, 1000),
        "m" | "mb" => (2, 1000),
        "g" | "gb" => (3, 1000),
        "t" | "tb" => (4, 1000),
        "p" | "pb" => (5, 1000),
        "e" | "eb" => (6, 1000),
        "kib" => (1, 1024),
        "mib" => (2, 1024),
        "gib" => (3, 1024),
        "tib" => (4, 1024),
        "pib" => (5, 1024),
        "eib" => (6, 1024),
        _ => return Err(bad("has an unknown unit")),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if (int.is_empty() && frac.is_empty()) || frac.contains('.') {
        return Err(bad("is not a byte count"));
    }
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    // 20 digits hold any u64; more integer digits cannot fit, and more fraction digits
    // than 20 cannot come to a whole byte count of a unit of at most 2^60 bytes.
    if int.len() > 20 || frac.len() > 20 {
        return Err(bad("is out of range"));
    }
    let digits = |d: &str| -> u128 { d.bytes().fold(0, |n, b| n * 10 + u128::from(b - b'0')) };
    let scale = 10u128.pow(frac.len() as u32);
    let unit_bytes = base.pow(exp);
    // Up to 10^40 times a unit of up to 2^60 can pass u128: every step is checked.
    let value = digits(int)
        .checked_mul(scale)
        .and_then(|n| n.checked_add(digits(frac)))
        .and_then(|n| n.checked_mul(unit_bytes))
        .ok_or_else(|| bad("is out of range"))?;
    if value % scale != 0 {
        return Err(bad("is not a whole number of bytes"));
    }
    u64::try_from(value / scale).map_err(|_| bad("is out of range"))
}

fn split_confs(conf: &[String]) -> AllocResult<Vec<AllocConfig>> {
    let mut out = Vec::new();
    for c in conf {
        for part in c.split([';', '|']) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            out.push(AllocConfig::parse(part)?);
        }
    }
    if out.is_empty() {
        out.push(AllocConfig::from_env()?);
    }
    Ok(out)
}

fn read_addresses(p: &Path) -> AllocResult<Vec<u64>> {
    let text = std::fs::read_to_string(p).map_err(|e| AllocError::io(p.display(), e))?;
    let mut v = Vec::new();
    for (k, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let parsed = match l.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => l.parse().ok(),
        };
        v.push(parsed.ok_or_else(|| AllocError::Trace {
            file: p.display().to_string(),
            line: k + 1,
            field: Some("address".into()),
            message: format!("'{l}' is not an address"),
        })?);
    }
    Ok(v)
}

fn replay_cuda(t: &Trace, cfg: &AllocConfig, opts: &ReplayOptions) -> AllocResult<ReplayReport> {
    let dev = CudaDevice::new(0)?;
    let mut a = DeviceCachingAllocator::new(dev, cfg.clone())?;
    let mut r = replay::replay_on(&mut a, t, opts)?;
    r.segment_addresses = a.device().handed_out.clone();
    // Return everything the replay still holds.
    a.release_all()?;
    Ok(r)
}

/// `p` itself when there is one output, else `STEM-k.EXT` beside it.
fn numbered(p: &Path, n: usize, k: usize, ext: &str) -> PathBuf {
    if n == 1 {
        return p.to_path_buf();
    }
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    p.with_file_name(format!("{stem}-{k}.{ext}"))
}

/// Replay again with the history recorded, up to `stop` (the end when None), and write
/// the state and history as a snapshot pickle; returns the state's totals (current
/// reserved, allocated and requested bytes, history entries).
fn write_snapshot(
    t: &Trace,
    cfg: &AllocConfig,
    opts: &ReplayOptions,
    stop: Option<usize>,
    file: &Path,
) -> AllocResult<serde_json::Value> {
    let o = ReplayOptions {
        stop_after: stop,
        timeline: false,
        record_history: true,
        ..opts.clone()
    };
    let (a, _) = replay::replay_simulated_state(t, cfg, &o)?;
    let bytes = snapshot::to_pickle(&snapshot::from_allocator(&a))?;
    std::fs::write(file, bytes).map_err(|e| AllocError::io(file.display(), e))?;
    let s = a.stats();
    Ok(serde_json::json!({
        "reserved_bytes": s.reserved_bytes[0].current,
        "allocated_bytes": s.allocated_bytes[0].current,
        "requested_bytes": s.requested_bytes[0].current,
        "entries": a.history().len(),
    }))
}

/// `--why`'s breakdowns of one replay.
struct Explained {
    peak: why::Waste,
    peak_event: usize,
    oom: Option<why::Waste>,
    oom_event: Option<usize>,
}

/// Replay again up to the peak of reserved bytes (and up to the first out-of-memory) and
/// break the state down.
fn explain(
    t: &Trace,
    cfg: &AllocConfig,
    opts: &ReplayOptions,
    r: &ReplayReport,
) -> AllocResult<Explained> {
    let at = |k: usize| -> AllocResult<why::Waste> {
        let o = ReplayOptions {
            stop_after: Some(k),
            timeline: false,
            ..opts.clone()
        };
        let (a, _) = replay::replay_simulated_state(t, cfg, &o)?;
        Ok(why::waste(&a, 5))
    };
    Ok(Explained {
        peak: at(r.peak_reserved_at)?,
        peak_event: r.peak_reserved_at,
        oom: r.first_oom_at.map(at).transpose()?,
        oom_event: r.first_oom_at,
    })
}

fn mib(v: i64) -> String {
    format!("{:.1}", v as f64 / 1048576.0)
}

/// The largest simulated device `--capacity` accepts: 256 TiB, far above any GPU, and low
/// enough that the allocator's reservations (capacity plus an eighth, in pages) cannot
/// overflow an address (the C ABI's allocator has the same bound).
const MAX_CAPACITY: u64 = 1 << 48;

fn capacity_or_h200(capacity: Option<&str>) -> AllocResult<u64> {
    match capacity {
        Some(c) => {
            let bytes = parse_bytes(c)?;
            if bytes > MAX_CAPACITY {
                return Err(AllocError::Usage(format!(
                    "--capacity: '{c}' is over the simulated device's limit of \
                     {MAX_CAPACITY} bytes (256 TiB)"
                )));
            }
            Ok(bytes)
        }
        None => Ok(H200_CAPACITY),
    }
}

fn run_tune(
    out: &mut impl Write,
    paths: &[PathBuf],
    capacity: Option<&str>,
    grid_file: Option<&Path>,
    top: usize,
    json: bool,
    plot: Option<&Path>,
) -> AllocResult<()> {
    let capacity = capacity_or_h200(capacity)?;
    let settings = match grid_file {
        Some(p) => grid::read_grid(p)?,
        None => {
            let mut g = grid::default_grid();
            g.extend(grid::stridekit_grid());
            g
        }
    };
    let traces: Vec<Trace> = paths
        .iter()
        .map(|p| trace::read_trace(p))
        .collect::<AllocResult<_>>()?;
    let opts = tune::TuneOptions {
        capacity,
        progress: !json,
    };
    let studies = tune::run(&traces, &settings, &opts)?;
    if let Some(p) = plot {
        std::fs::write(p, tune_report::svg(&studies))
            .map_err(|e| AllocError::io(p.display(), e))?;
    }
    if json {
        let s = serde_json::to_string_pretty(&tune_report::json_records(&studies))
            .map_err(|e| AllocError::Usage(e.to_string()))?;
        writeln!(out, "{s}")?;
    } else {
        write!(out, "{}", tune_report::table(&studies, top, capacity))?;
        if let Some(p) = tune_pick::pick(&studies) {
            writeln!(out, "{}", p.explain())?;
        }
    }
    Ok(())
}

/// Run an allocator subcommand, printing to stdout through one lock. A reader that
/// closes the pipe early (`stridekit alloc ... | head`) ends the command cleanly.
pub fn run(cmd: AllocCommand) -> AllocResult<()> {
    let mut out = std::io::stdout().lock();
    match run_to(&mut out, cmd).and_then(|()| Ok(out.flush()?)) {
        Err(AllocError::OutputClosed) => Ok(()),
        r => r,
    }
}

/// Run an allocator subcommand, writing its output to `out`.
pub fn run_to(out: &mut impl Write, cmd: AllocCommand) -> AllocResult<()> {
    match cmd {
        AllocCommand::Tune {
            traces,
            capacity,
            grid,
            top,
            json,
            plot,
        } => run_tune(
            out,
            &traces,
            capacity.as_deref(),
            grid.as_deref(),
            top,
            json,
            plot.as_deref(),
        ),
        AllocCommand::Replay {
            traces,
            conf,
            json,
            plot,
            device,
            capacity,
            record_addresses,
            addresses,
            ignore_recorded_addresses,
            why,
            snapshot,
            snapshot_at,
        } => {
            if (why || snapshot.is_some()) && device != DeviceKind::Sim {
                return Err(AllocError::Usage(
                    "--why and --snapshot need the simulated device (--device sim)".into(),
                ));
            }
            let pairs = traces.len() * split_confs(&conf)?.len();
            let cfgs = split_confs(&conf)?;
            let capacity = capacity_or_h200(capacity.as_deref())?;
            let given = match &addresses {
                Some(p) => Some(read_addresses(p)?),
                None => None,
            };
            let mut reports: Vec<ReplayReport> = Vec::new();
            let mut whys: Vec<Explained> = Vec::new();
            let mut snaps: Vec<serde_json::Value> = Vec::new();
            for path in &traces {
                let mut t = trace::read_trace(path)?;
                if let Some(a) = &given {
                    t.segment_addrs = a.clone();
                }
                for cfg in &cfgs {
                    let opts = ReplayOptions {
                        capacity,
                        use_recorded_addresses: !ignore_recorded_addresses,
                        reset_after_warmup: true,
                        timeline: plot.is_some(),
                        stop_after: None,
                        record_history: false,
                    };
                    let r = match device {
                        DeviceKind::Sim => replay::replay_simulated(&t, cfg, &opts)?,
                        DeviceKind::Cuda => replay_cuda(&t, cfg, &opts)?,
                    };
                    if why {
                        whys.push(explain(&t, cfg, &opts, &r)?);
                    }
                    if let Some(p) = &snapshot {
                        let file = numbered(p, pairs, reports.len() + 1, "pickle");
                        let stop = match snapshot_at {
                            SnapshotAt::End => None,
                            SnapshotAt::Peak => Some(r.peak_reserved_at),
                        };
                        let mut totals = write_snapshot(&t, cfg, &opts, stop, &file)?;
                        totals["file"] = file.display().to_string().into();
                        totals["at"] = format!("{snapshot_at:?}").to_lowercase().into();
                        snaps.push(totals);
                    }
                    reports.push(r);
                }
            }
            if let Some(p) = &plot {
                let n = reports.len();
                for (k, r) in reports.iter().enumerate() {
                    let file = numbered(p, n, k + 1, "svg");
                    let title = format!("{} | {} (reserved vs allocated bytes)", r.trace, r.config);
                    let svg = report::svg_plot(&title, &replay::downsample(&r.timeline, 3000));
                    std::fs::write(&file, svg).map_err(|e| AllocError::io(file.display(), e))?;
                }
            }
            if let Some(p) = &record_addresses {
                let mut s = String::new();
                for r in &reports {
                    s.push_str(&format!("# {} | {}\n", r.trace, r.config));
                    for a in &r.segment_addresses {
                        s.push_str(&format!("{a}\n"));
                    }
                }
                std::fs::write(p, s).map_err(|e| AllocError::io(p.display(), e))?;
            }
            if json {
                let arr: Vec<serde_json::Value> = reports
                    .iter()
                    .enumerate()
                    .map(|(k, r)| {
                        let mut v = serde_json::json!({
                            "trace": r.trace,
                            "config": r.config,
                            "events": r.events,
                            "events_per_second": r.events_per_second(),
                            "failed_allocs": r.failed_allocs,
                            "device_calls": r.device_calls,
                            "stats": r.stats.to_json(),
                        });
                        if let Some(t) = snaps.get(k) {
                            v["snapshot"] = t.clone();
                        }
                        if let Some(w) = whys.get(k) {
                            v["why"] = serde_json::json!({
                                "peak": w.peak,
                                "peak_event": w.peak_event,
                                "oom": w.oom,
                                "oom_event": w.oom_event,
                            });
                        }
                        v
                    })
                    .collect();
                let s = serde_json::to_string_pretty(&arr)
                    .map_err(|e| AllocError::Usage(e.to_string()))?;
                writeln!(out, "{s}")?;
                return Ok(());
            }
            print_table(out, &reports)?;
            for (r, w) in reports.iter().zip(&whys) {
                writeln!(out, "{} | {}", r.trace, r.config)?;
                write!(
                    out,
                    "{}",
                    why::table(
                        &w.peak,
                        &format!(
                            "at the peak of reserved bytes (after event {})",
                            w.peak_event
                        )
                    )
                )?;
                if let (Some(o), Some(e)) = (&w.oom, w.oom_event) {
                    write!(
                        out,
                        "{}",
                        why::table(o, &format!("at the first out-of-memory (event {e})"))
                    )?;
                }
                writeln!(out)?;
            }
            Ok(())
        }
    }
}

fn print_table(out: &mut impl Write, reports: &[ReplayReport]) -> AllocResult<()> {
    let mut traces: Vec<&str> = Vec::new();
    for r in reports {
        if !traces.contains(&r.trace.as_str()) {
            traces.push(&r.trace);
        }
    }
    for t in traces {
        let rs: Vec<&ReplayReport> = reports.iter().filter(|r| r.trace == t).collect();
        writeln!(out, "trace {t} ({} events)", rs[0].events)?;
        let w = rs.iter().map(|r| r.config.len()).max().unwrap_or(8).max(14);
        let mut head = format!("{:<26}", "");
        for r in &rs {
            head.push_str(&format!(" {:>w$}", r.config));
        }
        writeln!(out, "{head}")?;
        type Row = (&'static str, fn(&ReplayReport) -> String);
        let rows: [Row; 9] = [
            ("peak allocated MiB", |r| mib(r.peak_allocated())),
            ("peak reserved MiB", |r| mib(r.peak_reserved())),
            ("allocated / reserved", |r| {
                format!(
                    "{:.3}",
                    r.peak_allocated() as f64 / r.peak_reserved().max(1) as f64
                )
            }),
            ("peak inactive_split MiB", |r| {
                mib(r.stats.inactive_split_bytes[0].peak)
            }),
            ("device mallocs", |r| r.stats.num_device_alloc.to_string()),
            ("device frees", |r| r.stats.num_device_free.to_string()),
            ("alloc retries", |r| r.stats.num_alloc_retries.to_string()),
            ("OOMs", |r| r.stats.num_ooms.to_string()),
            ("events/s", |r| format!("{:.3e}", r.events_per_second())),
        ];
        for (name, f) in rows {
            let mut line = format!("{name:<26}");
            for r in &rs {
                line.push_str(&format!(" {:>w$}", f(r)));
            }
            writeln!(out, "{line}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}
