//! Acceptance: a file of per-model rules (TOML or JSON) and the PASS/FAIL verdict of each
//! GPU with every broken rule. A rule whose figure was not measured fails the card (an
//! acceptance bar that cannot be checked is not met).
//!
//! ```toml
//! [models."NVIDIA H200"]
//! min_memcpy_gbps = 3900
//! min_memcpy_pct_of_peak = 80
//! max_j_per_gb = 0.2
//! fail_throttle_reasons = ["hw_slowdown", "hw_thermal_slowdown"]
//! counters_must_not_move = ["ecc_uncorrected", "retired_pages"]
//! require_full_pcie_link = true
//! [[models."NVIDIA H200".cases]]
//! pattern = "^transpose2d_"
//! min_pct_of_memcpy = 50
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::ReportError;
use super::fleet::{Fleet, GpuRow};
use crate::bench::cases::CasePattern;
use crate::bench::telemetry::throttle_names;

/// A counter that must not move during the run (or a state that must stay clear).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    EccCorrected,
    EccUncorrected,
    RetiredPages,
    PcieReplay,
    PowerViolation,
    ThermalViolation,
    /// row_remap_pending must be false.
    RowRemapPending,
    /// row_remap_failure must be false.
    RowRemapFailure,
}

/// A minimum % of memcpy for the cases a pattern matches (as `bench --cases`: a
/// substring, or a regular expression matched anywhere in the name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseRule {
    pub pattern: String,
    pub min_pct_of_memcpy: f64,
}

/// The rules of one GPU model. Every rule is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRules {
    pub min_memcpy_gbps: Option<f64>,
    pub min_memcpy_pct_of_peak: Option<f64>,
    pub min_h2d_gbps: Option<f64>,
    pub min_d2h_gbps: Option<f64>,
    pub max_j_per_gb: Option<f64>,
    #[serde(default)]
    pub cases: Vec<CaseRule>,
    /// NVML throttle reason names (`sw_power_cap`, `hw_slowdown`, ...) that fail a card
    /// when seen in any record.
    #[serde(default)]
    pub fail_throttle_reasons: Vec<String>,
    #[serde(default)]
    pub counters_must_not_move: Vec<Counter>,
    /// The PCIe link must run at its maximum generation and width.
    #[serde(default)]
    pub require_full_pcie_link: bool,
    /// Every case's output must match its reference (default true).
    #[serde(default = "yes")]
    pub require_verified: bool,
}

fn yes() -> bool {
    true
}

/// An acceptance file: where its figures came from, and rules per GPU model name
/// (the records' `device_name`: `NVIDIA H200`, as NVML and CUDA name it; `CPU: ` and the
/// processor's name for the CPU backend).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Acceptance {
    #[serde(default)]
    pub source: Option<String>,
    pub models: BTreeMap<String, ModelRules>,
}

/// One GPU's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub host: String,
    pub gpu_index: Option<usize>,
    pub gpu_uuid: Option<String>,
    pub model: String,
    pub pass: bool,
    /// Every broken rule, in words (empty when it passes).
    pub reasons: Vec<String>,
}

fn bad(file: &str, message: String) -> ReportError {
    ReportError::Accept {
        file: file.to_string(),
        message,
    }
}

/// A TOML error on one line: `line L, column C: message`.
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim_end().replace('\n', "; ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => msg,
    }
}

/// Parses an acceptance file's text: JSON when the name ends in `.json` (or the text
/// starts with `{`), TOML otherwise. Unknown fields, unknown throttle reasons and
/// patterns that are no regular expression and no substring of a case are errors.
pub fn parse(file: &str, text: &str) -> Result<Acceptance, ReportError> {
    let json = file.ends_with(".json") || text.trim_start().starts_with('{');
    let acc: Acceptance = if json {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            bad(file, format!("field {path}: {}", e.into_inner()))
        })?
    } else {
        toml::from_str(text).map_err(|e| bad(file, toml_message(text, &e)))?
    };
    let known = throttle_names(u64::MAX);
    for (model, rules) in &acc.models {
        for (k, t) in rules.fail_throttle_reasons.iter().enumerate() {
            if !known.contains(t) {
                return Err(bad(
                    file,
                    format!(
                        "field models.\"{model}\".fail_throttle_reasons[{k}]: unknown throttle reason '{t}' (NVML's are {})",
                        known.join(", ")
                    ),
                ));
            }
        }
        for (k, c) in rules.cases.iter().enumerate() {
            if c.pattern.is_empty() {
                return Err(bad(
                    file,
                    format!("field models.\"{model}\".cases[{k}].pattern: empty"),
                ));
            }
        }
    }
    Ok(acc)
}

/// Reads an acceptance file.
pub fn read(path: &Path) -> Result<Acceptance, ReportError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| bad(&file, e.to_string()))?;
    parse(&file, &text)
}

fn min_rule(reasons: &mut Vec<String>, what: &str, got: Option<f64>, min: Option<f64>) {
    if let Some(min) = min {
        match got {
            None => reasons.push(format!("{what} not measured (minimum {min})")),
            Some(x) if x < min => reasons.push(format!("{what} {x:.1} below the minimum {min}")),
            _ => {}
        }
    }
}

fn counter_moved(r: &GpuRow, c: Counter) -> Result<Option<String>, String> {
    let moved_u = |name: &str, d: Option<u64>| match d {
        None => Err(format!("{name} not read, so it cannot be checked")),
        Some(0) => Ok(None),
        Some(n) => Ok(Some(format!("{name} moved by {n}"))),
    };
    let moved_f = |name: &str, d: Option<f64>| match d {
        None => Err(format!("{name} not read, so it cannot be checked")),
        Some(x) if x <= 0.0 => Ok(None),
        Some(x) => Ok(Some(format!("{name} grew by {x:.0} ms"))),
    };
    let state = |name: &str, s: Option<bool>| match s {
        None => Err(format!("{name} not read, so it cannot be checked")),
        Some(false) => Ok(None),
        Some(true) => Ok(Some(format!("{name} is set"))),
    };
    match c {
        Counter::EccCorrected => moved_u("corrected ECC count", r.ecc_corrected_delta),
        Counter::EccUncorrected => moved_u("uncorrected ECC count", r.ecc_uncorrected_delta),
        Counter::RetiredPages => moved_u("retired pages", r.retired_pages_delta),
        Counter::PcieReplay => moved_u("PCIe replay counter", r.pcie_replay_delta),
        Counter::PowerViolation => moved_f("power violation time", r.power_violation_ms_delta),
        Counter::ThermalViolation => {
            moved_f("thermal violation time", r.thermal_violation_ms_delta)
        }
        Counter::RowRemapPending => state("row_remap_pending", r.row_remap_pending),
        Counter::RowRemapFailure => state("row_remap_failure", r.row_remap_failure),
    }
}

/// Every broken rule of one GPU.
pub fn check(r: &GpuRow, rules: &ModelRules) -> Vec<String> {
    let mut reasons = Vec::new();
    min_rule(
        &mut reasons,
        "memcpy GB/s",
        r.memcpy_gbps,
        rules.min_memcpy_gbps,
    );
    min_rule(
        &mut reasons,
        "memcpy % of theoretical peak",
        r.memcpy_pct_of_peak,
        rules.min_memcpy_pct_of_peak,
    );
    min_rule(
        &mut reasons,
        "host-to-device GB/s",
        r.h2d_gbps,
        rules.min_h2d_gbps,
    );
    min_rule(
        &mut reasons,
        "device-to-host GB/s",
        r.d2h_gbps,
        rules.min_d2h_gbps,
    );
    if let Some(max) = rules.max_j_per_gb {
        match r.j_per_gb {
            None => reasons.push(format!("J/GB not measured (maximum {max})")),
            Some(x) if x > max => reasons.push(format!("J/GB {x:.3} above the maximum {max}")),
            _ => {}
        }
    }
    for c in &rules.cases {
        let p = CasePattern::new(&c.pattern);
        let hits: Vec<(&String, &Option<f64>)> = r
            .case_pct_of_memcpy
            .iter()
            .filter(|(name, _)| p.matches(name))
            .collect();
        if hits.is_empty() {
            reasons.push(format!("no case matching '{}' was run", c.pattern));
        }
        for (name, pct) in hits {
            match pct {
                None => reasons.push(format!("{name}: % of memcpy not measured")),
                Some(x) if *x < c.min_pct_of_memcpy => reasons.push(format!(
                    "{name} at {x:.1}% of memcpy, below the minimum {}% ('{}')",
                    c.min_pct_of_memcpy, c.pattern
                )),
                _ => {}
            }
        }
    }
    let seen: Vec<&str> = rules
        .fail_throttle_reasons
        .iter()
        .map(String::as_str)
        .filter(|t| r.throttle_reasons.iter().any(|s| s == t))
        .collect();
    if !seen.is_empty() {
        reasons.push(format!("throttled: {}", seen.join(", ")));
    }
    for c in &rules.counters_must_not_move {
        match counter_moved(r, *c) {
            Ok(None) => {}
            Ok(Some(why)) | Err(why) => reasons.push(why),
        }
    }
    if rules.require_full_pcie_link {
        match (
            r.pcie_link_gen,
            r.pcie_link_gen_max,
            r.pcie_link_width,
            r.pcie_link_width_max,
        ) {
            (Some(g), Some(gm), Some(w), Some(wm)) => {
                if g < gm {
                    reasons.push(format!("PCIe link at gen {g}, below its maximum gen {gm}"));
                }
                if w < wm {
                    reasons.push(format!("PCIe link at x{w}, below its maximum x{wm}"));
                }
            }
            _ => reasons.push("PCIe link not read, so it cannot be checked".into()),
        }
    }
    if rules.require_verified && !r.unverified.is_empty() {
        reasons.push(format!("verification failed: {}", r.unverified.join(", ")));
    }
    reasons
}

/// The verdict of every GPU; a GPU whose model has no rules fails.
pub fn judge(acc: &Acceptance, fleet: &Fleet) -> Vec<Verdict> {
    fleet
        .gpus
        .iter()
        .map(|r| {
            let reasons = match acc.models.get(&r.model) {
                Some(rules) => check(r, rules),
                None => vec![format!(
                    "the acceptance file has no rules for model '{}'",
                    r.model
                )],
            };
            Verdict {
                host: r.host.clone(),
                gpu_index: r.gpu_index,
                gpu_uuid: r.gpu_uuid.clone(),
                model: r.model.clone(),
                pass: reasons.is_empty(),
                reasons,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::input;

    /// node02 of the synthetic fleet (tests/data/fleet): GPU 1 power-throttled, GPU 3 with
    /// two new uncorrected ECC errors, retired pages unreadable on all.
    fn node02() -> Fleet {
        let text = include_str!("../../tests/data/fleet/bench-node02.json");
        let run = input::parse("bench-node02.json", text).unwrap();
        super::super::fleet::fleet(&[run], 3.5, 5)
    }

    fn rules(toml: &str) -> ModelRules {
        let text = format!("[models.\"NVIDIA H200\"]\n{toml}");
        parse("a.toml", &text)
            .unwrap()
            .models
            .remove("NVIDIA H200")
            .unwrap()
    }

    #[test]
    fn a_rule_that_cannot_be_checked_fails_the_card() {
        let f = node02();
        let r = rules("counters_must_not_move = [\"retired_pages\", \"ecc_uncorrected\"]");
        assert_eq!(
            check(&f.gpus[0], &r),
            ["retired pages not read, so it cannot be checked"]
        );
        assert_eq!(
            check(&f.gpus[3], &r),
            [
                "retired pages not read, so it cannot be checked",
                "uncorrected ECC count moved by 2"
            ]
        );
        let r = rules(
            "[[models.\"NVIDIA H200\".cases]]\npattern = \"no_such_case\"\nmin_pct_of_memcpy = 1",
        );
        assert_eq!(
            check(&f.gpus[0], &r),
            ["no case matching 'no_such_case' was run"]
        );
    }

    #[test]
    fn cases_energy_throttle_and_power_violation() {
        let f = node02();
        let r = rules(
            "max_j_per_gb = 0.1\nfail_throttle_reasons = [\"sw_power_cap\"]\ncounters_must_not_move = [\"power_violation\"]\n[[models.\"NVIDIA H200\".cases]]\npattern = \"heads|index_select\"\nmin_pct_of_memcpy = 50",
        );
        let got = check(&f.gpus[1], &r);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(got[0].starts_with("J/GB 0.1") && got[0].ends_with("above the maximum 0.1"));
        assert!(
            got[1].starts_with("index_select_rows_f16_4Mx128 at 4"),
            "{got:?}"
        );
        assert!(got[1].ends_with("below the minimum 50% ('heads|index_select')"));
        assert_eq!(got[2], "throttled: sw_power_cap");
        assert_eq!(got[3], "power violation time grew by 1850 ms");
        assert_eq!(
            check(&f.gpus[0], &rules("min_memcpy_gbps = 100")),
            Vec::<String>::new()
        );
    }
}
