//! GPU health counters read before and after a run and stamped on every record: volatile
//! ECC counts, retired pages, row-remap state, the PCIe replay counter, the PCIe link
//! (current against maximum) and the power and thermal violation times.
//!
//! Pure: a [`Snapshot`] holds each reading or why NVML could not give it; [`Health::of`]
//! turns the readings before and after the run into the flat record fields and a note
//! naming every null field and its reason. [`nvml`] takes the snapshots.

pub mod nvml;

use serde::{Deserialize, Serialize};

/// One reading: the value, or why it could not be read.
pub type Read<T> = Result<T, String>;

/// Row-remapping state (Ampere and newer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRemap {
    pub pending: bool,
    pub failure: bool,
}

/// Every health reading of one GPU at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub ecc_corrected: Read<u64>,
    pub ecc_uncorrected: Read<u64>,
    pub retired_pages: Read<u64>,
    pub row_remap: Read<RowRemap>,
    pub pcie_replay: Read<u64>,
    pub pcie_link_gen: Read<u32>,
    pub pcie_link_gen_max: Read<u32>,
    pub pcie_link_width: Read<u32>,
    pub pcie_link_width_max: Read<u32>,
    pub power_violation_ms: Read<f64>,
    pub thermal_violation_ms: Read<f64>,
}

impl Snapshot {
    /// A snapshot in which nothing could be read, for the same reason.
    pub fn unreadable(why: &str) -> Snapshot {
        fn no<T>(why: &str) -> Read<T> {
            Err(why.to_string())
        }
        Snapshot {
            ecc_corrected: no(why),
            ecc_uncorrected: no(why),
            retired_pages: no(why),
            row_remap: no(why),
            pcie_replay: no(why),
            pcie_link_gen: no(why),
            pcie_link_gen_max: no(why),
            pcie_link_width: no(why),
            pcie_link_width_max: no(why),
            power_violation_ms: no(why),
            thermal_violation_ms: no(why),
        }
    }
}

/// The health fields of a record (flat, so scripts can rely on them); each is null when
/// the GPU, the driver or the backend cannot give it, and `health_note` then says why.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Health {
    pub ecc_corrected_before: Option<u64>,
    pub ecc_corrected_after: Option<u64>,
    pub ecc_uncorrected_before: Option<u64>,
    pub ecc_uncorrected_after: Option<u64>,
    pub retired_pages_before: Option<u64>,
    pub retired_pages_after: Option<u64>,
    pub row_remap_pending: Option<bool>,
    pub row_remap_failure: Option<bool>,
    pub pcie_replay_before: Option<u64>,
    pub pcie_replay_after: Option<u64>,
    pub pcie_link_gen: Option<u32>,
    pub pcie_link_gen_max: Option<u32>,
    pub pcie_link_width: Option<u32>,
    pub pcie_link_width_max: Option<u32>,
    pub power_violation_ms_before: Option<f64>,
    pub power_violation_ms_after: Option<f64>,
    pub thermal_violation_ms_before: Option<f64>,
    pub thermal_violation_ms_after: Option<f64>,
    /// Which fields are null and why; null when every counter was read.
    pub health_note: Option<String>,
}

/// The record field names of [`Health`], in order.
pub const HEALTH_FIELDS: [&str; 19] = [
    "ecc_corrected_before",
    "ecc_corrected_after",
    "ecc_uncorrected_before",
    "ecc_uncorrected_after",
    "retired_pages_before",
    "retired_pages_after",
    "row_remap_pending",
    "row_remap_failure",
    "pcie_replay_before",
    "pcie_replay_after",
    "pcie_link_gen",
    "pcie_link_gen_max",
    "pcie_link_width",
    "pcie_link_width_max",
    "power_violation_ms_before",
    "power_violation_ms_after",
    "thermal_violation_ms_before",
    "thermal_violation_ms_after",
    "health_note",
];

/// Collects the null fields and their reasons while the fields are filled in.
#[derive(Default)]
struct Notes(Vec<(&'static str, String)>);

impl Notes {
    fn take<T: Clone>(&mut self, field: &'static str, r: &Read<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v.clone()),
            Err(why) => {
                self.0.push((field, why.clone()));
                None
            }
        }
    }

    /// The note: reasons in the order first met, each with the fields it nulled
    /// (`ecc_corrected_before, ecc_corrected_after: ECC is disabled; ...`).
    fn text(self) -> Option<String> {
        let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
        for (field, why) in self.0 {
            match groups.iter_mut().find(|(w, _)| *w == why) {
                Some((_, fields)) => fields.push(field),
                None => groups.push((why, vec![field])),
            }
        }
        (!groups.is_empty()).then(|| {
            groups
                .iter()
                .map(|(why, fields)| format!("{}: {why}", fields.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }
}

/// The higher of two link readings (an idle link may drop its generation or width to save
/// power, so the reading taken while the GPU was busiest is the one to compare).
fn higher(a: &Read<u32>, b: &Read<u32>) -> Read<u32> {
    match (a, b) {
        (Ok(x), Ok(y)) => Ok(*x.max(y)),
        (Ok(x), Err(_)) | (Err(_), Ok(x)) => Ok(*x),
        (Err(_), Err(e)) => Err(e.clone()),
    }
}

impl Health {
    /// Every field null, for one reason (the CPU backend, no NVML).
    pub fn unavailable(why: &str) -> Health {
        let s = Snapshot::unreadable(why);
        Health::of(&s, &s)
    }

    /// The record fields from the readings before and after the run. Row-remap state is
    /// the latest reading (after, else before); the link is the higher of both readings.
    pub fn of(before: &Snapshot, after: &Snapshot) -> Health {
        let mut n = Notes::default();
        let remap = after.row_remap.clone().or(before.row_remap.clone());
        let gen_ = higher(&before.pcie_link_gen, &after.pcie_link_gen);
        let width = higher(&before.pcie_link_width, &after.pcie_link_width);
        let gen_max = higher(&before.pcie_link_gen_max, &after.pcie_link_gen_max);
        let width_max = higher(&before.pcie_link_width_max, &after.pcie_link_width_max);
        Health {
            ecc_corrected_before: n.take("ecc_corrected_before", &before.ecc_corrected),
            ecc_corrected_after: n.take("ecc_corrected_after", &after.ecc_corrected),
            ecc_uncorrected_before: n.take("ecc_uncorrected_before", &before.ecc_uncorrected),
            ecc_uncorrected_after: n.take("ecc_uncorrected_after", &after.ecc_uncorrected),
            retired_pages_before: n.take("retired_pages_before", &before.retired_pages),
            retired_pages_after: n.take("retired_pages_after", &after.retired_pages),
            row_remap_pending: n.take("row_remap_pending", &remap.clone().map(|r| r.pending)),
            row_remap_failure: n.take("row_remap_failure", &remap.map(|r| r.failure)),
            pcie_replay_before: n.take("pcie_replay_before", &before.pcie_replay),
            pcie_replay_after: n.take("pcie_replay_after", &after.pcie_replay),
            pcie_link_gen: n.take("pcie_link_gen", &gen_),
            pcie_link_gen_max: n.take("pcie_link_gen_max", &gen_max),
            pcie_link_width: n.take("pcie_link_width", &width),
            pcie_link_width_max: n.take("pcie_link_width_max", &width_max),
            power_violation_ms_before: n
                .take("power_violation_ms_before", &before.power_violation_ms),
            power_violation_ms_after: n.take("power_violation_ms_after", &after.power_violation_ms),
            thermal_violation_ms_before: n
                .take("thermal_violation_ms_before", &before.thermal_violation_ms),
            thermal_violation_ms_after: n
                .take("thermal_violation_ms_after", &after.thermal_violation_ms),
            health_note: n.text(),
        }
    }
}

/// How far a counter moved over the run (None when either end is unknown). A counter
/// that went down (the driver reloaded between the readings) counts from zero.
pub fn delta<T: Copy + PartialOrd + std::ops::Sub<Output = T>>(
    before: Option<T>,
    after: Option<T>,
) -> Option<T> {
    let (b, a) = (before?, after?);
    Some(if a >= b { a - b } else { a })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn healthy() -> Snapshot {
        Snapshot {
            ecc_corrected: Ok(3),
            ecc_uncorrected: Ok(0),
            retired_pages: Err("not supported by this GPU or driver".into()),
            row_remap: Ok(RowRemap {
                pending: false,
                failure: false,
            }),
            pcie_replay: Ok(7),
            pcie_link_gen: Ok(1),
            pcie_link_gen_max: Ok(5),
            pcie_link_width: Ok(16),
            pcie_link_width_max: Ok(16),
            power_violation_ms: Ok(10.0),
            thermal_violation_ms: Ok(0.0),
        }
    }

    #[test]
    fn fields_from_before_and_after() {
        let before = healthy();
        let mut after = healthy();
        after.ecc_corrected = Ok(5);
        after.pcie_link_gen = Ok(5);
        after.row_remap = Ok(RowRemap {
            pending: true,
            failure: false,
        });
        let h = Health::of(&before, &after);
        assert_eq!(
            (h.ecc_corrected_before, h.ecc_corrected_after),
            (Some(3), Some(5))
        );
        assert_eq!(h.pcie_link_gen, Some(5), "the busier reading");
        assert_eq!(h.row_remap_pending, Some(true), "the latest state");
        assert_eq!(
            (h.retired_pages_before, h.retired_pages_after),
            (None, None)
        );
        assert_eq!(
            h.health_note.as_deref(),
            Some("retired_pages_before, retired_pages_after: not supported by this GPU or driver")
        );
        let v = serde_json::to_value(&h).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want = HEALTH_FIELDS.to_vec();
        keys.sort();
        want.sort();
        assert_eq!(keys, want, "flat names");
    }

    #[test]
    fn note_groups_fields_by_reason() {
        let mut before = healthy();
        before.retired_pages = Ok(0);
        before.ecc_corrected = Err("ECC is disabled".into());
        before.ecc_uncorrected = Err("ECC is disabled".into());
        let mut after = before.clone();
        after.ecc_corrected = Err("ECC is disabled".into());
        after.thermal_violation_ms = Err("GPU is lost".into());
        after.retired_pages = Ok(2);
        let h = Health::of(&before, &after);
        assert_eq!(
            h.health_note.as_deref(),
            Some(
                "ecc_corrected_before, ecc_corrected_after, ecc_uncorrected_before, ecc_uncorrected_after: ECC is disabled; thermal_violation_ms_after: GPU is lost"
            )
        );
        assert_eq!(h.thermal_violation_ms_before, Some(0.0));
        assert_eq!(h.retired_pages_after, Some(2));
        assert_eq!(Health::of(&healthy_all(), &healthy_all()).health_note, None);
    }

    fn healthy_all() -> Snapshot {
        Snapshot {
            retired_pages: Ok(0),
            ..healthy()
        }
    }

    #[test]
    fn unavailable_nulls_everything_with_one_reason() {
        let h = Health::unavailable("CPU backend: no GPU");
        assert_eq!(
            Health {
                health_note: None,
                ..h.clone()
            },
            Health::default()
        );
        let note = h.health_note.unwrap();
        assert!(note.ends_with(": CPU backend: no GPU"), "{note}");
        for f in &HEALTH_FIELDS[..18] {
            assert!(note.contains(f), "{f}");
        }
    }

    #[test]
    fn deltas() {
        assert_eq!(delta(Some(3u64), Some(5)), Some(2));
        assert_eq!(delta(Some(3u64), None), None);
        assert_eq!(delta(None, Some(1u64)), None);
        assert_eq!(
            delta(Some(9u64), Some(4)),
            Some(4),
            "reset between readings"
        );
        assert_eq!(delta(Some(1.5f64), Some(4.0)), Some(2.5));
    }
}
