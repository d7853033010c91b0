//! Which of policy:stridekit's parameter settings does best over all the traces of a study
//! (`alloc tune` prints the pick and why; the defaults are the pick over the tuning half of
//! the corpus).
//!
//! Rule, over every trace of the study, for each policy:stridekit setting of the grid:
//! fewest targets missed ([`super::targets`]: three per trace, all three when it runs out of
//! memory), then the lowest geometric mean of peak reserved over the best PyTorch
//! setting's, then the lowest geometric mean of device calls over expandable_segments',
//! then the grid order (so the defaults, listed first, win ties).

use super::config::{AllocConfig, StridekitParams};
use super::targets::Figures;
use super::tune::TraceStudy;

/// One policy:stridekit setting scored over every trace of a study.
#[derive(Debug, Clone)]
pub struct StridekitScore {
    pub setting: String,
    pub params: StridekitParams,
    /// Targets missed over all traces.
    pub misses: usize,
    /// Geometric means over the traces: peak reserved / best PyTorch setting's, device
    /// calls / expandable_segments:True's.
    pub reserved_over_best: f64,
    pub calls_over_expandable: f64,
    pub grid_index: usize,
}

/// The pick and how every candidate scored, best first.
#[derive(Debug, Clone)]
pub struct StridekitPick {
    pub traces: usize,
    pub ranked: Vec<StridekitScore>,
}

impl StridekitPick {
    /// The winner.
    pub fn best(&self) -> &StridekitScore {
        &self.ranked[0]
    }

    /// The defaults' score, when the grid had them.
    pub fn defaults(&self) -> Option<&StridekitScore> {
        self.ranked
            .iter()
            .find(|s| s.params == StridekitParams::DEFAULT)
    }

    /// Why the winner won, in one paragraph.
    pub fn explain(&self) -> String {
        let b = self.best();
        let total = 3 * self.traces;
        let mut s = format!(
            "policy:stridekit parameters: picked {} ({}) over {} trace{} of {} candidates: it misses {} of {} targets, peak reserved {:.4}x the best PyTorch setting's and device calls {:.3}x expandable_segments' (geometric means)",
            b.params.settings(),
            if b.params == StridekitParams::DEFAULT {
                "the defaults"
            } else {
                "not the defaults"
            },
            self.traces,
            if self.traces == 1 { "" } else { "s" },
            self.ranked.len(),
            b.misses,
            total,
            b.reserved_over_best,
            b.calls_over_expandable
        );
        if let Some(r) = self.ranked.get(1) {
            s.push_str(&format!(
                "; runner-up {}: {} missed, {:.4}x, {:.3}x",
                r.params.settings(),
                r.misses,
                r.reserved_over_best,
                r.calls_over_expandable
            ));
        }
        if let Some(d) = self.defaults()
            && d.params != b.params
        {
            s.push_str(&format!(
                "; the defaults: {} missed, {:.4}x, {:.3}x",
                d.misses, d.reserved_over_best, d.calls_over_expandable
            ));
        }
        s.push_str(
            " (rule: fewest targets missed, then reserved, then device calls, then grid order)",
        );
        s
    }
}

/// Score every policy:stridekit setting of the studies (the same grid for every trace);
/// None when the grid has no policy:stridekit setting or the studies cannot be measured
/// (no PyTorch or no expandable_segments:True row).
pub fn pick(studies: &[TraceStudy]) -> Option<StridekitPick> {
    let first = studies.first()?;
    let mut candidates: Vec<(usize, String)> = first
        .rows
        .iter()
        .filter(|r| r.stridekit)
        .map(|r| (r.grid_index, r.setting.clone()))
        .collect();
    candidates.sort();
    if candidates.is_empty() {
        return None;
    }
    let mut ranked = Vec::with_capacity(candidates.len());
    for (grid_index, setting) in candidates {
        let params = AllocConfig::parse(&setting).ok()?.stridekit;
        let (mut misses, mut log_res, mut log_calls) = (0usize, 0f64, 0f64);
        for st in studies {
            let row = st.rows.iter().find(|r| r.grid_index == grid_index)?;
            let f = Figures::of(st, row).ok()?;
            misses += f.misses().len();
            log_res += f.value(super::targets::Target::ReservedOverBest).ln();
            log_calls += f.value(super::targets::Target::CallsOverExpandable).ln();
        }
        let n = studies.len() as f64;
        ranked.push(StridekitScore {
            setting,
            params,
            misses,
            reserved_over_best: (log_res / n).exp(),
            calls_over_expandable: (log_calls / n).exp(),
            grid_index,
        });
    }
    ranked.sort_by(|a, b| {
        a.misses
            .cmp(&b.misses)
            .then(a.reserved_over_best.total_cmp(&b.reserved_over_best))
            .then(a.calls_over_expandable.total_cmp(&b.calls_over_expandable))
            .then(a.grid_index.cmp(&b.grid_index))
    });
    Some(StridekitPick {
        traces: studies.len(),
        ranked,
    })
}
