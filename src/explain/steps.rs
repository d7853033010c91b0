//! Accounting over time: the byte totals after every statement that ran, and the statement
//! where the distinct live storages peaked.
//!
//! Each [`Step`] is measured by the same [`account`] as the final report, over the names
//! bound to tensors at that point. A step is a struct of its own so that later measurements
//! (an allocator's view of the same moment, say) become fields beside the totals.

use super::eval::Env;
use crate::accounting::{StorageUse, Totals, account};
use serde::Serialize;

/// The live tensors after one statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// 0-based index of the statement that just ran.
    pub statement: usize,
    #[serde(flatten)]
    pub totals: Totals,
    /// Names bound to tensors.
    pub live_tensors: usize,
    /// Distinct storages under those names.
    pub live_storages: usize,
    /// The caching allocator's figures at that moment (`--device sim` or `cuda`); None on
    /// the CPU.
    pub allocator: Option<super::allocator::Account>,
}

/// The statement after which the unique storage bytes were highest (the first such one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Peak {
    pub statement: usize,
    pub unique_storage_bytes: u64,
    /// The storages alive there (for the text report).
    #[serde(skip)]
    pub storages: Vec<StorageUse>,
}

/// Collects the steps while a program runs.
#[derive(Debug, Clone, Default)]
pub struct Steps {
    pub steps: Vec<Step>,
    pub peak: Option<Peak>,
}

impl Steps {
    /// Measures the namespace after statement `statement`, with the allocator's figures.
    pub fn record(
        &mut self,
        statement: usize,
        env: &Env,
        allocator: Option<super::allocator::Account>,
    ) {
        let acc = account(env.tensors());
        let step = Step {
            statement,
            totals: acc.totals,
            live_tensors: env.tensors().count(),
            live_storages: acc.storages.len(),
            allocator,
        };
        let bytes = step.totals.unique_storage_bytes;
        if self
            .peak
            .as_ref()
            .is_none_or(|p| bytes > p.unique_storage_bytes)
        {
            self.peak = Some(Peak {
                statement,
                unique_storage_bytes: bytes,
                storages: acc.storages,
            });
        }
        self.steps.push(step);
    }
}
