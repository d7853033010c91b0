//! Pure aggregation of bench runs into a fleet: one row per GPU (figures, throttle
//! reasons, health-counter deltas), GPUs grouped by model, stridekit version and suite
//! (different versions or suites are reported, never mixed into one median), the median
//! of every figure per group, and flags: outliers by the median absolute deviation, health
//! counters that moved, a PCIe link below its maximum, clock slowdowns, failed
//! verification, and a GPU whose version or suite differs from the rest of its model.

use std::collections::BTreeMap;

use serde::Serialize;

use super::input::Run;
use crate::bench::health::{Health, delta};
use crate::bench::{MEMCPY_CASE, Record, Suite};

/// Throttle reasons that mean the clocks were held down (gpu_idle, sync_boost and the
/// clock settings are not flagged).
pub const SLOWDOWN_REASONS: [&str; 5] = [
    "sw_power_cap",
    "hw_slowdown",
    "hw_power_brake_slowdown",
    "sw_thermal_slowdown",
    "hw_thermal_slowdown",
];

/// What a flag is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagKind {
    /// A figure far from its group's median (MAD rule).
    Outlier,
    /// A health counter moved, a row remap failed or is pending, or the PCIe link runs
    /// below its maximum.
    Health,
    /// Clock slowdown reasons seen during the run.
    Throttle,
    /// A case whose output differed from its reference.
    Verification,
    /// The GPU ran another stridekit version or suite than the rest of its model.
    Mixed,
}

/// One problem found on a GPU, in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flag {
    pub kind: FlagKind,
    pub reason: String,
}

/// One GPU over every run that measured it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuRow {
    pub host: String,
    pub gpu_index: Option<usize>,
    pub gpu_uuid: Option<String>,
    /// The device model: `NVIDIA H200`, `CPU: ` and the processor's name for the CPU
    /// backend (`cpu` in files from before records named their device).
    pub model: String,
    pub stridekit_version: String,
    /// The suites its figures come from, e.g. `layout, seed 42, 46 cases; transfers, 50
    /// cases` (`quick` added).
    pub suite: String,
    /// The files it appears in; its figures come from the latest run of each suite.
    pub files: Vec<String>,
    pub memcpy_gbps: Option<f64>,
    pub memcpy_pct_of_peak: Option<f64>,
    /// Median and lowest % of memcpy over the layout cases other than memcpy.
    pub pct_of_memcpy_median: Option<f64>,
    pub pct_of_memcpy_worst: Option<f64>,
    pub worst_case: Option<String>,
    /// Mean over the layout cases of each case's mean power.
    pub power_w_mean: Option<f64>,
    /// Median over the layout cases of each case's joules per GB.
    pub j_per_gb: Option<f64>,
    pub sm_mhz_mean: Option<f64>,
    pub mem_mhz_mean: Option<f64>,
    /// Best host-to-device and device-to-host GB/s over the pinned transfer cases.
    pub h2d_gbps: Option<f64>,
    pub d2h_gbps: Option<f64>,
    /// Every NVML throttle reason seen in any record.
    pub throttle_reasons: Vec<String>,
    /// Counter deltas (after - before), summed over the GPU's runs.
    pub ecc_corrected_delta: Option<u64>,
    pub ecc_uncorrected_delta: Option<u64>,
    pub retired_pages_delta: Option<u64>,
    pub pcie_replay_delta: Option<u64>,
    pub power_violation_ms_delta: Option<f64>,
    pub thermal_violation_ms_delta: Option<f64>,
    /// State from the latest run.
    pub row_remap_pending: Option<bool>,
    pub row_remap_failure: Option<bool>,
    pub pcie_link_gen: Option<u32>,
    pub pcie_link_gen_max: Option<u32>,
    pub pcie_link_width: Option<u32>,
    pub pcie_link_width_max: Option<u32>,
    /// Why health counters are missing (the latest run's note).
    pub health_note: Option<String>,
    /// Cases whose output differed from the reference.
    pub unverified: Vec<String>,
    /// % of memcpy per layout case (what acceptance patterns check).
    pub case_pct_of_memcpy: BTreeMap<String, Option<f64>>,
    pub flags: Vec<Flag>,
}

impl GpuRow {
    /// `host:N`, `host:cpu`: how the GPU is named in reasons and plots.
    pub fn label(&self) -> String {
        match self.gpu_index {
            Some(i) => format!("{}:{i}", self.host),
            None => format!("{}:cpu", self.host),
        }
    }
}

/// Which way a figure is bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    Low,
    High,
}

/// A per-GPU figure the outlier rule looks at.
pub struct Figure {
    pub name: &'static str,
    pub bad: Bad,
    pub get: fn(&GpuRow) -> Option<f64>,
}

/// The figures checked for outliers, in report order.
pub const FIGURES: [Figure; 8] = [
    Figure {
        name: "memcpy_gbps",
        bad: Bad::Low,
        get: |r| r.memcpy_gbps,
    },
    Figure {
        name: "pct_of_memcpy_median",
        bad: Bad::Low,
        get: |r| r.pct_of_memcpy_median,
    },
    Figure {
        name: "pct_of_memcpy_worst",
        bad: Bad::Low,
        get: |r| r.pct_of_memcpy_worst,
    },
    Figure {
        name: "power_w_mean",
        bad: Bad::High,
        get: |r| r.power_w_mean,
    },
    Figure {
        name: "j_per_gb",
        bad: Bad::High,
        get: |r| r.j_per_gb,
    },
    Figure {
        name: "sm_mhz_mean",
        bad: Bad::Low,
        get: |r| r.sm_mhz_mean,
    },
    Figure {
        name: "h2d_gbps",
        bad: Bad::Low,
        get: |r| r.h2d_gbps,
    },
    Figure {
        name: "d2h_gbps",
        bad: Bad::Low,
        get: |r| r.d2h_gbps,
    },
];

/// The spread used by the outlier rule is never below this fraction of the median, so a
/// fleet of nearly identical figures (clocks pinned at their maximum) does not flag noise.
pub const MIN_RELATIVE_SPREAD: f64 = 0.005;

/// One figure of a group: median and robust spread (1.4826 x MAD, floored).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Band {
    pub median: f64,
    /// 1.4826 x the median absolute deviation (a standard deviation for normal data),
    /// at least [`MIN_RELATIVE_SPREAD`] x |median|.
    pub sigma: f64,
    /// GPUs with the figure.
    pub count: usize,
}

/// GPUs of one model that ran the same stridekit version and suite.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub model: String,
    pub stridekit_version: String,
    pub suite: String,
    pub gpus: usize,
    /// Whether this is the model's largest group (the others are flagged `mixed`).
    pub majority: bool,
    /// Whether the outlier rule applied (at least `min_gpus` GPUs).
    pub outlier_rule: bool,
    /// Per figure name.
    pub bands: BTreeMap<&'static str, Band>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fleet {
    pub mad_k: f64,
    pub min_gpus: usize,
    pub files: usize,
    pub gpus: Vec<GpuRow>,
    pub groups: Vec<Group>,
    /// Versions and suites mixed within a model, groups too small for the outlier rule.
    pub notes: Vec<String>,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The median and robust spread of `values`.
pub fn band(values: &[f64]) -> Option<Band> {
    let m = median(values.to_vec())?;
    let mad = median(values.iter().map(|x| (x - m).abs()).collect())?;
    Some(Band {
        median: m,
        sigma: (1.4826 * mad).max(MIN_RELATIVE_SPREAD * m.abs()),
        count: values.len(),
    })
}

/// The record's `device_name` ("NVIDIA H200", "CPU: " and the processor), else the
/// header's name of its GPU (files from before `device_name`).
fn model_of(run: &Run, r: &Record) -> String {
    let h = &run.report.header;
    r.place
        .device_name
        .clone()
        .or_else(|| {
            h.devices
                .iter()
                .find(|d| Some(d.gpu_index) == r.place.gpu_index)
                .and_then(|d| d.facts.gpu_name.clone())
        })
        .or_else(|| h.gpu.gpu_name.clone())
        .unwrap_or_else(|| {
            if r.place.gpu_index.is_none() {
                "cpu".into()
            } else {
                "unknown GPU".into()
            }
        })
}

/// A GPU's identity across files: its UUID, else host and index.
fn gpu_key(r: &Record) -> String {
    match (&r.place.gpu_uuid, r.place.gpu_index) {
        (Some(u), _) => u.clone(),
        (None, Some(i)) => format!("{}:{i}", r.place.host),
        (None, None) => format!("{}:cpu", r.place.host),
    }
}

/// What a GPU's figures come from: the layout run's seed, size and case count, and the
/// transfers run's case count (`layout, seed 42, 46 cases; transfers, 50 cases`), so runs
/// of the same suites compare whether they ran together (`--suite all`) or apart.
fn suite_signature(layout: Option<&Part>, transfers: Option<&Part>) -> String {
    let quick = |p: &Part| {
        if p.run.report.header.quick {
            ", quick"
        } else {
            ""
        }
    };
    let mut parts = Vec::new();
    if let Some(p) = layout {
        parts.push(format!(
            "layout, seed {}, {} cases{}",
            p.run.report.header.seed,
            p.of(Suite::Layout).count(),
            quick(p)
        ));
    }
    if let Some(p) = transfers {
        parts.push(format!(
            "transfers, {} cases{}",
            p.of(Suite::Transfers).count(),
            quick(p)
        ));
    }
    parts.join("; ")
}

/// One GPU's records in one run.
struct Part<'a> {
    run: &'a Run,
    records: Vec<&'a Record>,
}

impl Part<'_> {
    fn of(&self, suite: Suite) -> impl Iterator<Item = &Record> {
        self.records
            .iter()
            .copied()
            .filter(move |r| r.suite == suite)
    }

    fn health(&self) -> &Health {
        &self.records[0].health
    }
}

fn sum<T: std::ops::Add<Output = T>>(v: impl Iterator<Item = Option<T>>) -> Option<T> {
    v.flatten().reduce(|a, b| a + b)
}

/// The row of one GPU from its parts (sorted oldest first).
fn gpu_row(parts: &[Part]) -> GpuRow {
    let latest = parts.last().expect("a GPU has at least one part");
    let layout_part = parts
        .iter()
        .rev()
        .find(|p| p.of(Suite::Layout).next().is_some());
    let transfer_part = parts
        .iter()
        .rev()
        .find(|p| p.of(Suite::Transfers).next().is_some());
    let source = layout_part.unwrap_or(latest);
    let layout: Vec<&Record> = layout_part.map_or(vec![], |p| p.of(Suite::Layout).collect());
    let transfers: Vec<&Record> =
        transfer_part.map_or(vec![], |p| p.of(Suite::Transfers).collect());
    let first = latest.records[0];
    let memcpy = layout.iter().find(|r| r.case == MEMCPY_CASE);
    let cases: Vec<(&Record, f64)> = layout
        .iter()
        .filter(|r| r.case != MEMCPY_CASE)
        .filter_map(|r| r.pct_of_memcpy.map(|p| (*r, p)))
        .collect();
    let worst = cases.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let tele = |f: fn(&Record) -> Option<f64>| -> Vec<f64> {
        layout.iter().filter_map(|r| f(r)).collect()
    };
    let best_transfer = |prefix: &str| {
        transfers
            .iter()
            .filter(|r| r.case.starts_with(prefix))
            .filter_map(|r| r.gbps)
            .reduce(f64::max)
    };
    let mut throttle: Vec<String> = parts
        .iter()
        .flat_map(|p| p.records.iter())
        .flat_map(|r| r.telemetry.throttle_reasons.iter().flatten().cloned())
        .collect();
    throttle.sort();
    throttle.dedup();
    let h = latest.health();
    let deltas = |f: fn(&Health) -> Option<u64>, g: fn(&Health) -> Option<u64>| {
        sum(parts.iter().map(|p| delta(f(p.health()), g(p.health()))))
    };
    let fdeltas = |f: fn(&Health) -> Option<f64>, g: fn(&Health) -> Option<f64>| {
        sum(parts.iter().map(|p| delta(f(p.health()), g(p.health()))))
    };
    let mut files: Vec<String> = parts.iter().map(|p| p.run.file.clone()).collect();
    files.dedup();
    GpuRow {
        host: first.place.host.clone(),
        gpu_index: first.place.gpu_index,
        gpu_uuid: first.place.gpu_uuid.clone(),
        model: model_of(latest.run, first),
        stridekit_version: source.run.report.header.stridekit_version.clone(),
        suite: suite_signature(layout_part, transfer_part),
        files,
        memcpy_gbps: memcpy.and_then(|r| r.gbps),
        memcpy_pct_of_peak: memcpy.and_then(|r| r.pct_of_peak),
        pct_of_memcpy_median: median(cases.iter().map(|c| c.1).collect()),
        pct_of_memcpy_worst: worst.map(|c| c.1),
        worst_case: worst.map(|c| c.0.case.clone()),
        power_w_mean: mean(&tele(|r| r.telemetry.power_w_mean)),
        j_per_gb: median(tele(|r| r.telemetry.j_per_gb)),
        sm_mhz_mean: mean(&tele(|r| r.telemetry.sm_mhz_mean)),
        mem_mhz_mean: mean(&tele(|r| r.telemetry.mem_mhz_mean)),
        h2d_gbps: best_transfer("h2d_pinned"),
        d2h_gbps: best_transfer("d2h_pinned"),
        throttle_reasons: throttle,
        ecc_corrected_delta: deltas(|h| h.ecc_corrected_before, |h| h.ecc_corrected_after),
        ecc_uncorrected_delta: deltas(|h| h.ecc_uncorrected_before, |h| h.ecc_uncorrected_after),
        retired_pages_delta: deltas(|h| h.retired_pages_before, |h| h.retired_pages_after),
        pcie_replay_delta: deltas(|h| h.pcie_replay_before, |h| h.pcie_replay_after),
        power_violation_ms_delta: fdeltas(
            |h| h.power_violation_ms_before,
            |h| h.power_violation_ms_after,
        ),
        thermal_violation_ms_delta: fdeltas(
            |h| h.thermal_violation_ms_before,
            |h| h.thermal_violation_ms_after,
        ),
        row_remap_pending: h.row_remap_pending,
        row_remap_failure: h.row_remap_failure,
        pcie_link_gen: h.pcie_link_gen,
        pcie_link_gen_max: h.pcie_link_gen_max,
        pcie_link_width: h.pcie_link_width,
        pcie_link_width_max: h.pcie_link_width_max,
        health_note: h.health_note.clone(),
        unverified: parts
            .iter()
            .flat_map(|p| p.records.iter())
            .filter(|r| !r.verified)
            .map(|r| r.case.clone())
            .collect(),
        case_pct_of_memcpy: layout
            .iter()
            .map(|r| (r.case.clone(), r.pct_of_memcpy))
            .collect(),
        flags: Vec::new(),
    }
}

/// One row per GPU, in host and index order. A GPU in several files keeps the latest
/// run's figures of each suite (by header timestamp, then file order) and sums its
/// counter deltas over all of them.
pub fn gpu_rows(runs: &[Run]) -> Vec<GpuRow> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|&a, &b| {
        runs[a]
            .report
            .header
            .timestamp
            .cmp(&runs[b].report.header.timestamp)
            .then(a.cmp(&b))
    });
    let mut by_gpu: BTreeMap<String, Vec<Part>> = BTreeMap::new();
    for &k in &order {
        let run = &runs[k];
        let mut per: BTreeMap<String, Vec<&Record>> = BTreeMap::new();
        for r in &run.report.records {
            per.entry(gpu_key(r)).or_default().push(r);
        }
        for (key, records) in per {
            by_gpu.entry(key).or_default().push(Part { run, records });
        }
    }
    let mut rows: Vec<GpuRow> = by_gpu.values().map(|p| gpu_row(p)).collect();
    rows.sort_by(|a, b| {
        (&a.host, a.gpu_index, &a.gpu_uuid).cmp(&(&b.host, b.gpu_index, &b.gpu_uuid))
    });
    rows
}

/// Health, throttle and verification flags of one GPU (no fleet needed).
pub fn own_flags(r: &GpuRow) -> Vec<Flag> {
    let mut f = Vec::new();
    let mut health = |reason: String| {
        f.push(Flag {
            kind: FlagKind::Health,
            reason,
        })
    };
    if let Some(n) = r.ecc_uncorrected_delta.filter(|n| *n > 0) {
        health(format!("uncorrected ECC errors rose by {n} during the run"));
    }
    if let Some(n) = r.retired_pages_delta.filter(|n| *n > 0) {
        health(format!("{n} more retired pages after the run"));
    }
    if r.row_remap_failure == Some(true) {
        health("row remapping failed (the GPU has run out of spare rows)".into());
    }
    if r.row_remap_pending == Some(true) {
        health("a row remap is pending (it takes effect at the next GPU reset)".into());
    }
    if let (Some(g), Some(m)) = (r.pcie_link_gen, r.pcie_link_gen_max)
        && g < m
    {
        health(format!(
            "PCIe link runs at gen {g}, below its maximum gen {m}"
        ));
    }
    if let (Some(w), Some(m)) = (r.pcie_link_width, r.pcie_link_width_max)
        && w < m
    {
        health(format!("PCIe link runs at x{w}, below its maximum x{m}"));
    }
    let slow: Vec<&str> = r
        .throttle_reasons
        .iter()
        .map(String::as_str)
        .filter(|t| SLOWDOWN_REASONS.contains(t))
        .collect();
    if !slow.is_empty() {
        let mut reason = format!("clocks held down: {}", slow.join(", "));
        if let Some(ms) = r.power_violation_ms_delta.filter(|ms| *ms > 0.0) {
            reason.push_str(&format!("; power violation time +{ms:.0} ms"));
        }
        if let Some(ms) = r.thermal_violation_ms_delta.filter(|ms| *ms > 0.0) {
            reason.push_str(&format!("; thermal violation time +{ms:.0} ms"));
        }
        f.push(Flag {
            kind: FlagKind::Throttle,
            reason,
        });
    }
    if !r.unverified.is_empty() {
        f.push(Flag {
            kind: FlagKind::Verification,
            reason: format!(
                "output differed from the reference in {}",
                r.unverified.join(", ")
            ),
        });
    }
    f
}

fn fmt_value(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 1.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

/// The outlier flag of one figure, if `x` lies more than `k` robust sigmas from the
/// group's median on the figure's bad side.
pub fn outlier(fig: &Figure, x: f64, b: &Band, k: f64, model: &str) -> Option<Flag> {
    let z = (x - b.median) / b.sigma;
    let bad = match fig.bad {
        Bad::Low => -z,
        Bad::High => z,
    };
    (bad > k).then(|| {
        let pct = 100.0 * (x - b.median).abs() / b.median.abs().max(f64::MIN_POSITIVE);
        let side = if x < b.median { "below" } else { "above" };
        Flag {
            kind: FlagKind::Outlier,
            reason: format!(
                "{} {} is {pct:.1}% {side} the {model} median {} ({:.1} robust sigmas, limit {k})",
                fig.name,
                fmt_value(x),
                fmt_value(b.median),
                z.abs()
            ),
        }
    })
}

/// Model, stridekit version, suite signature.
type GroupKey = (String, String, String);

/// The fleet: rows, groups with their bands, and every flag. `min_gpus`: the smallest
/// group the outlier rule applies to; `mad_k`: its limit in robust sigmas.
pub fn fleet(runs: &[Run], mad_k: f64, min_gpus: usize) -> Fleet {
    let mut gpus = gpu_rows(runs);
    let mut notes = Vec::new();
    // Groups: (model, version, suite) -> row indices.
    let mut groups: BTreeMap<GroupKey, Vec<usize>> = BTreeMap::new();
    for (i, r) in gpus.iter().enumerate() {
        groups
            .entry((
                r.model.clone(),
                r.stridekit_version.clone(),
                r.suite.clone(),
            ))
            .or_default()
            .push(i);
    }
    let mut out_groups = Vec::new();
    let models: Vec<String> = {
        let mut m: Vec<String> = groups.keys().map(|k| k.0.clone()).collect();
        m.dedup();
        m
    };
    for model in &models {
        let of_model: Vec<(&GroupKey, &Vec<usize>)> =
            groups.iter().filter(|(k, _)| &k.0 == model).collect();
        let majority = of_model
            .iter()
            .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0)))
            .map(|(k, _)| (*k).clone())
            .expect("a model has a group");
        if of_model.len() > 1 {
            let parts: Vec<String> = of_model
                .iter()
                .map(|(k, v)| format!("stridekit {} ({}): {} GPU(s)", k.1, k.2, v.len()))
                .collect();
            notes.push(format!(
                "{model}: runs of different stridekit versions or suites are compared only within their own group: {}",
                parts.join("; ")
            ));
        }
        for (key, idx) in of_model {
            let is_major = *key == majority;
            let rows: Vec<&GpuRow> = idx.iter().map(|&i| &gpus[i]).collect();
            let bands: BTreeMap<&'static str, Band> = FIGURES
                .iter()
                .filter_map(|f| {
                    let v: Vec<f64> = rows.iter().filter_map(|r| (f.get)(r)).collect();
                    band(&v).map(|b| (f.name, b))
                })
                .collect();
            let rule = idx.len() >= min_gpus;
            if !rule {
                notes.push(format!(
                    "{model} (stridekit {}, {}): {} GPU(s), fewer than {min_gpus}: no outlier rule",
                    key.1,
                    key.2,
                    idx.len()
                ));
            }
            for &i in idx {
                let mut flags = own_flags(&gpus[i]);
                if rule {
                    for f in &FIGURES {
                        if let (Some(x), Some(b)) = ((f.get)(&gpus[i]), bands.get(f.name))
                            && b.count >= min_gpus
                            && let Some(flag) = outlier(f, x, b, mad_k, model)
                        {
                            flags.push(flag);
                        }
                    }
                }
                if !is_major {
                    flags.push(Flag {
                        kind: FlagKind::Mixed,
                        reason: format!(
                            "ran stridekit {} ({}); most {model} GPUs ran stridekit {} ({}): not compared with them",
                            key.1, key.2, majority.1, majority.2
                        ),
                    });
                }
                gpus[i].flags = flags;
            }
            out_groups.push(Group {
                model: model.clone(),
                stridekit_version: key.1.clone(),
                suite: key.2.clone(),
                gpus: idx.len(),
                majority: is_major,
                outlier_rule: rule,
                bands,
            });
        }
    }
    Fleet {
        mad_k,
        min_gpus,
        files: runs.len(),
        gpus,
        groups: out_groups,
        notes,
    }
}

impl Fleet {
    /// The group a GPU row belongs to.
    pub fn group_of(&self, r: &GpuRow) -> Option<&Group> {
        self.groups.iter().find(|g| {
            g.model == r.model && g.stridekit_version == r.stridekit_version && g.suite == r.suite
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_is_median_and_scaled_mad_with_a_floor() {
        let b = band(&[10.0, 11.0, 12.0, 13.0, 100.0]).unwrap();
        assert_eq!(b.median, 12.0);
        // |x - 12| = 2, 1, 0, 1, 88: MAD 1.
        assert!((b.sigma - 1.4826).abs() < 1e-12);
        assert_eq!(b.count, 5);
        let flat = band(&[1980.0; 6]).unwrap();
        assert!((flat.sigma - 9.9).abs() < 1e-9, "0.5% of the median");
        assert!(band(&[]).is_none());
    }

    #[test]
    fn outliers_only_on_the_bad_side() {
        let b = Band {
            median: 100.0,
            sigma: 1.0,
            count: 8,
        };
        let low = &FIGURES[0]; // memcpy_gbps: low is bad
        let high = &FIGURES[4]; // j_per_gb: high is bad
        assert_eq!(low.name, "memcpy_gbps");
        assert_eq!(high.name, "j_per_gb");
        let f = outlier(low, 95.0, &b, 3.5, "H200").unwrap();
        assert_eq!(f.kind, FlagKind::Outlier);
        assert_eq!(
            f.reason,
            "memcpy_gbps 95.0 is 5.0% below the H200 median 100 (5.0 robust sigmas, limit 3.5)"
        );
        assert!(
            outlier(low, 105.0, &b, 3.5, "H200").is_none(),
            "faster is no problem"
        );
        assert!(outlier(low, 96.6, &b, 3.5, "H200").is_none(), "3.4 sigmas");
        assert!(outlier(high, 104.0, &b, 3.5, "H200").is_some());
        assert!(outlier(high, 90.0, &b, 3.5, "H200").is_none());
    }
}
