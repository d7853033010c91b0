//! The report's forms: a text table (or the same as Markdown), CSV of the GPU rows, and
//! JSON of everything. Pure: each returns the text.

use serde::Serialize;

use super::accept::Verdict;
use super::fleet::{Fleet, GpuRow, Group};
use crate::bench::record::csv_field;

/// The acceptance part of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcceptanceReport {
    pub file: String,
    pub source: Option<String>,
    /// True when every GPU passes.
    pub pass: bool,
    pub verdicts: Vec<Verdict>,
}

/// What `--json` writes.
#[derive(Serialize)]
pub struct JsonReport<'a> {
    #[serde(flatten)]
    pub fleet: &'a Fleet,
    pub acceptance: Option<&'a AcceptanceReport>,
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

fn opt_u(v: Option<u64>) -> String {
    v.map_or("-".into(), |x| x.to_string())
}

fn link(r: &GpuRow) -> String {
    let part = |v: Option<u32>| v.map_or("?".into(), |x| x.to_string());
    if r.pcie_link_gen.is_none() && r.pcie_link_width.is_none() {
        return "-".into();
    }
    format!(
        "g{}x{}/g{}x{}",
        part(r.pcie_link_gen),
        part(r.pcie_link_width),
        part(r.pcie_link_gen_max),
        part(r.pcie_link_width_max)
    )
}

fn short_uuid(u: &Option<String>) -> String {
    u.as_deref()
        .map_or("-".into(), |u| u.chars().take(12).collect())
}

/// A table: a header row, rows, and which columns are right-aligned numbers.
struct Table {
    head: Vec<String>,
    rows: Vec<Vec<String>>,
    numeric: Vec<bool>,
}

impl Table {
    fn new(cols: &[(&str, bool)]) -> Table {
        Table {
            head: cols.iter().map(|c| c.0.to_string()).collect(),
            rows: Vec::new(),
            numeric: cols.iter().map(|c| c.1).collect(),
        }
    }

    fn text(&self) -> String {
        let width: Vec<usize> = (0..self.head.len())
            .map(|c| {
                std::iter::once(&self.head)
                    .chain(&self.rows)
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |row: &Vec<String>| {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    if self.numeric[c] {
                        format!("{s:>w$}", w = width[c])
                    } else {
                        format!("{s:<w$}", w = width[c])
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string() + "\n"
        };
        let mut out = line(&self.head);
        out.push_str(&"-".repeat(width.iter().sum::<usize>() + 2 * (width.len() - 1)));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }

    fn markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut out = format!(
            "| {} |\n|{}|\n",
            self.head
                .iter()
                .map(|h| cell(h))
                .collect::<Vec<_>>()
                .join(" | "),
            self.numeric
                .iter()
                .map(|n| if *n { "---:" } else { "---" })
                .collect::<Vec<_>>()
                .join("|")
        );
        for r in &self.rows {
            out.push_str(&format!(
                "| {} |\n",
                r.iter().map(|s| cell(s)).collect::<Vec<_>>().join(" | ")
            ));
        }
        out
    }
}

fn verdict_of<'a>(acc: Option<&'a AcceptanceReport>, r: &GpuRow) -> Option<&'a Verdict> {
    acc?.verdicts
        .iter()
        .find(|v| v.host == r.host && v.gpu_index == r.gpu_index && v.gpu_uuid == r.gpu_uuid)
}

fn gpu_table(fleet: &Fleet, acc: Option<&AcceptanceReport>) -> Table {
    let mut cols = vec![
        ("host", false),
        ("gpu", false),
        ("uuid", false),
        ("model", false),
        ("memcpy GB/s", true),
        ("%peak", true),
        ("med %memcpy", true),
        ("worst %memcpy", true),
        ("W mean", true),
        ("J/GB", true),
        ("SM MHz", true),
        ("mem MHz", true),
        ("H2D GB/s", true),
        ("D2H GB/s", true),
        ("throttle", false),
        ("ECC c/u +", true),
        ("replay +", true),
        ("link now/max", false),
        ("flags", false),
    ];
    if acc.is_some() {
        cols.push(("accept", false));
    }
    let mut t = Table::new(&cols);
    for r in &fleet.gpus {
        let throttle: Vec<&str> = r
            .throttle_reasons
            .iter()
            .map(String::as_str)
            .filter(|t| *t != "gpu_idle")
            .collect();
        let mut kinds: Vec<String> = r
            .flags
            .iter()
            .map(|f| {
                serde_json::to_value(f.kind)
                    .expect("an enum")
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        kinds.dedup();
        let mut row = vec![
            r.host.clone(),
            r.gpu_index.map_or("cpu".into(), |i| i.to_string()),
            short_uuid(&r.gpu_uuid),
            r.model.clone(),
            opt(r.memcpy_gbps, 1),
            opt(r.memcpy_pct_of_peak, 1),
            opt(r.pct_of_memcpy_median, 1),
            opt(r.pct_of_memcpy_worst, 1),
            opt(r.power_w_mean, 0),
            opt(r.j_per_gb, 3),
            opt(r.sm_mhz_mean, 0),
            opt(r.mem_mhz_mean, 0),
            opt(r.h2d_gbps, 1),
            opt(r.d2h_gbps, 1),
            if throttle.is_empty() {
                "-".into()
            } else {
                throttle.join(",")
            },
            format!(
                "{}/{}",
                opt_u(r.ecc_corrected_delta),
                opt_u(r.ecc_uncorrected_delta)
            ),
            opt_u(r.pcie_replay_delta),
            link(r),
            if kinds.is_empty() {
                "-".into()
            } else {
                kinds.join(",")
            },
        ];
        if acc.is_some() {
            row.push(match verdict_of(acc, r) {
                Some(v) if v.pass => "PASS".into(),
                Some(_) => "FAIL".into(),
                None => "-".into(),
            });
        }
        t.rows.push(row);
    }
    t
}

fn band_median(g: &Group, name: &str, digits: usize) -> String {
    opt(g.bands.get(name).map(|b| b.median), digits)
}

fn group_table(fleet: &Fleet) -> Table {
    let mut t = Table::new(&[
        ("model", false),
        ("stridekit", false),
        ("suite", false),
        ("GPUs", true),
        ("memcpy GB/s", true),
        ("med %memcpy", true),
        ("worst %memcpy", true),
        ("W mean", true),
        ("J/GB", true),
        ("SM MHz", true),
        ("H2D GB/s", true),
        ("D2H GB/s", true),
        ("outlier rule", false),
    ]);
    for g in &fleet.groups {
        t.rows.push(vec![
            g.model.clone(),
            g.stridekit_version.clone(),
            g.suite.clone(),
            g.gpus.to_string(),
            band_median(g, "memcpy_gbps", 1),
            band_median(g, "pct_of_memcpy_median", 1),
            band_median(g, "pct_of_memcpy_worst", 1),
            band_median(g, "power_w_mean", 0),
            band_median(g, "j_per_gb", 3),
            band_median(g, "sm_mhz_mean", 0),
            band_median(g, "h2d_gbps", 1),
            band_median(g, "d2h_gbps", 1),
            if g.outlier_rule {
                format!("MAD, k = {}", fleet.mad_k)
            } else {
                format!("no (< {} GPUs)", fleet.min_gpus)
            },
        ]);
    }
    t
}

/// Flag, note and acceptance lines (the same in text and Markdown).
fn findings(fleet: &Fleet, acc: Option<&AcceptanceReport>, bullet: &str) -> String {
    let mut out = String::new();
    let flagged: Vec<&GpuRow> = fleet.gpus.iter().filter(|r| !r.flags.is_empty()).collect();
    out.push_str(&format!(
        "\nflags: {} of {} GPU(s)\n",
        flagged.len(),
        fleet.gpus.len()
    ));
    for r in flagged {
        for f in &r.flags {
            let kind = serde_json::to_value(f.kind).expect("an enum");
            out.push_str(&format!(
                "{bullet}{} ({}): {}: {}\n",
                r.label(),
                r.gpu_uuid.as_deref().unwrap_or("no uuid"),
                kind.as_str().unwrap_or(""),
                f.reason
            ));
        }
    }
    if !fleet.notes.is_empty() {
        out.push_str("\nnotes\n");
        for n in &fleet.notes {
            out.push_str(&format!("{bullet}{n}\n"));
        }
    }
    if let Some(a) = acc {
        let passed = a.verdicts.iter().filter(|v| v.pass).count();
        out.push_str(&format!(
            "\nacceptance ({}): {passed} of {} GPU(s) pass\n",
            a.file,
            a.verdicts.len()
        ));
        for v in &a.verdicts {
            let name = match v.gpu_index {
                Some(i) => format!("{}:{i}", v.host),
                None => format!("{}:cpu", v.host),
            };
            if v.pass {
                out.push_str(&format!("{bullet}{name} PASS\n"));
            } else {
                out.push_str(&format!("{bullet}{name} FAIL: {}\n", v.reasons.join("; ")));
            }
        }
    }
    out
}

/// The text report: GPU rows, group medians, flags, notes, acceptance.
pub fn text(fleet: &Fleet, acc: Option<&AcceptanceReport>) -> String {
    format!(
        "{}\nfleet medians\n{}{}",
        gpu_table(fleet, acc).text(),
        group_table(fleet).text(),
        findings(fleet, acc, "  ")
    )
}

/// The same report as Markdown.
pub fn markdown(fleet: &Fleet, acc: Option<&AcceptanceReport>) -> String {
    format!(
        "## GPUs\n\n{}\n## Fleet medians\n\n{}{}",
        gpu_table(fleet, acc).markdown(),
        group_table(fleet).markdown(),
        findings(fleet, acc, "- ")
    )
}

/// The CSV columns (GPU rows).
pub const CSV_FIELDS: [&str; 38] = [
    "host",
    "gpu_index",
    "gpu_uuid",
    "model",
    "stridekit_version",
    "suite",
    "memcpy_gbps",
    "memcpy_pct_of_peak",
    "pct_of_memcpy_median",
    "pct_of_memcpy_worst",
    "worst_case",
    "power_w_mean",
    "j_per_gb",
    "sm_mhz_mean",
    "mem_mhz_mean",
    "h2d_gbps",
    "d2h_gbps",
    "throttle_reasons",
    "ecc_corrected_delta",
    "ecc_uncorrected_delta",
    "retired_pages_delta",
    "pcie_replay_delta",
    "power_violation_ms_delta",
    "thermal_violation_ms_delta",
    "row_remap_pending",
    "row_remap_failure",
    "pcie_link_gen",
    "pcie_link_gen_max",
    "pcie_link_width",
    "pcie_link_width_max",
    "health_note",
    "unverified",
    "files",
    "flag_kinds",
    "flags",
    "accept",
    "accept_reasons",
    "group_majority",
];

/// One line per GPU: [`CSV_FIELDS`]; lists joined by `;` (flag and acceptance reasons by
/// ` | `), nulls empty.
pub fn csv(fleet: &Fleet, acc: Option<&AcceptanceReport>) -> String {
    let mut out = CSV_FIELDS.join(",") + "\n";
    for r in &fleet.gpus {
        let mut v = serde_json::to_value(r).expect("plain data always encodes");
        let mut kinds: Vec<serde_json::Value> = r
            .flags
            .iter()
            .map(|f| serde_json::to_value(f.kind).expect("an enum"))
            .collect();
        kinds.dedup();
        v["flag_kinds"] = serde_json::Value::Array(kinds);
        // Reasons may hold ';' themselves: joined by ' | '.
        let reasons: Vec<&str> = r.flags.iter().map(|f| f.reason.as_str()).collect();
        v["flags"] = reasons.join(" | ").into();
        let verdict = verdict_of(acc, r);
        v["accept"] = verdict.map_or(serde_json::Value::Null, |d| {
            (if d.pass { "PASS" } else { "FAIL" }).into()
        });
        v["accept_reasons"] =
            verdict.map_or(serde_json::Value::Null, |d| d.reasons.join(" | ").into());
        v["group_majority"] = fleet
            .group_of(r)
            .map_or(serde_json::Value::Null, |g| g.majority.into());
        let line: Vec<String> = CSV_FIELDS.iter().map(|f| csv_field(&v[*f])).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// The JSON report.
pub fn json(fleet: &Fleet, acc: Option<&AcceptanceReport>) -> String {
    serde_json::to_string_pretty(&JsonReport {
        fleet,
        acceptance: acc,
    })
    .expect("plain data always encodes")
        + "\n"
}
