//! The model report as a table and JSON, and beside a measured bench run (the prediction
//! error per case, for calibration when a GPU is lent).

use serde::Serialize;

use super::ModelRecord;
use crate::bench::record::Report;

/// The JSON document: every record and the summary say `predicted`.
#[derive(Debug, Serialize)]
pub struct ModelReport {
    pub predicted: bool,
    pub note: &'static str,
    pub summary: Summary,
    pub records: Vec<ModelRecord>,
    /// With --measured: predicted against measured % of memcpy per case.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calibration: Vec<Calibration>,
}

pub const NOTE: &str = "predicted by stridekit model on the CPU (sector counts of the kernels' \
    accesses, sm_90 occupancy, Little's law); no figure here was measured on a GPU";

/// How many cases meet each target.
#[derive(Debug, Serialize, PartialEq)]
pub struct Summary {
    pub cases: usize,
    pub meeting_all_targets: usize,
    pub random_cases: usize,
    pub random_meeting_all_targets: usize,
}

pub fn summary(records: &[ModelRecord]) -> Summary {
    let random = |r: &&ModelRecord| r.case.starts_with("model_r") || r.case.starts_with("rand_r");
    Summary {
        cases: records.len(),
        meeting_all_targets: records.iter().filter(|r| r.misses.is_empty()).count(),
        random_cases: records.iter().filter(random).count(),
        random_meeting_all_targets: records
            .iter()
            .filter(random)
            .filter(|r| r.misses.is_empty())
            .count(),
    }
}

/// One case's prediction beside its measurement.
#[derive(Debug, Serialize, PartialEq)]
pub struct Calibration {
    pub case: String,
    pub predicted_pct_of_memcpy: f64,
    pub measured_pct_of_memcpy: f64,
    /// predicted - measured, in percentage points.
    pub error_points: f64,
}

/// Joins the records with a bench report's measured `pct_of_memcpy` by case name.
pub fn calibrate(records: &[ModelRecord], measured: &Report) -> Vec<Calibration> {
    records
        .iter()
        .filter_map(|r| {
            let m = measured
                .records
                .iter()
                .find(|m| m.case == r.case)?
                .pct_of_memcpy?;
            Some(Calibration {
                case: r.case.clone(),
                predicted_pct_of_memcpy: r.predicted_pct_of_memcpy,
                measured_pct_of_memcpy: m,
                error_points: r.predicted_pct_of_memcpy - m,
            })
        })
        .collect()
}

/// The table: one line per case.
pub fn table(records: &[ModelRecord], calibration: &[Calibration]) -> String {
    let mut out = format!(
        "PREDICTED (a model computed on the CPU; nothing here was measured)\n{:<44} {:<20} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5} {:>7} {:>9}  misses\n",
        "case", "kernel", "ld%", "st%", "ldDRAM", "stDRAM", "bank", "occ", "KB/SM", "pred%cpy"
    );
    for r in records {
        out.push_str(&format!(
            "{:<44} {:<20} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>6.2} {:>5.2} {:>7.1} {:>9.1}  {}\n",
            r.case,
            r.kernel,
            100.0 * r.load_sector_efficiency,
            100.0 * r.store_sector_efficiency,
            100.0 * r.load_dram_efficiency,
            100.0 * r.store_dram_efficiency,
            r.bank_conflicts_per_request,
            r.occupancy,
            r.flight_bytes_per_sm / 1024.0,
            r.predicted_pct_of_memcpy,
            r.misses.join("; ")
        ));
    }
    let s = summary(records);
    out.push_str(&format!(
        "{} of {} cases meet every target ({} of {} random permutations)\n",
        s.meeting_all_targets, s.cases, s.random_meeting_all_targets, s.random_cases
    ));
    if !calibration.is_empty() {
        out.push_str(&format!(
            "\n{:<44} {:>10} {:>10} {:>10}\n",
            "case", "predicted", "measured", "error pp"
        ));
        for c in calibration {
            out.push_str(&format!(
                "{:<44} {:>10.1} {:>10.1} {:>+10.1}\n",
                c.case, c.predicted_pct_of_memcpy, c.measured_pct_of_memcpy, c.error_points
            ));
        }
        let n = calibration.len() as f64;
        let mae = calibration
            .iter()
            .map(|c| c.error_points.abs())
            .sum::<f64>()
            / n;
        out.push_str(&format!(
            "{} cases compared; mean absolute error {mae:.1} points\n",
            calibration.len()
        ));
    }
    out
}
