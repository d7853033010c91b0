//! Accounting over time: the byte totals after every step, and the step where the distinct
//! live storages peaked.
//!
//! A step is one simple statement of the program's own code (an assignment, an expression,
//! `del`, `assert`, `pass`, `import`, and `def`) that ran to completion: at the top level or
//! inside an `if`, `for`, `while` or `try` block, once per time it ran (a loop body's
//! statements once per iteration). A block's header (`for ...:`, `if ...:`) is not a step of
//! its own; `break`, `continue`, `return` and `raise` end no step. Statements inside a
//! function's body are not steps: the tensors of a function's locals are not names of the
//! program, and the call belongs to the step of the statement that made it. Each step names
//! its top-level statement (`statement`, 0-based) and the line of the simple statement
//! (`line`, 1-based).
//!
//! The JSON stays bounded in long loops: a line gives at most [`PER_LINE`] entries (its
//! first runs); later runs of it are measured all the same (the peak is over every run) but
//! only counted, in `steps_omitted`.
//!
//! Each [`Step`] is measured by the same [`account`] as the final report, over the names
//! bound to tensors at that point. A step is a struct of its own so that later measurements
//! (an allocator's view of the same moment, say) become fields beside the totals.

use super::eval::Env;
use crate::accounting::{StorageUse, Totals, account};
use serde::Serialize;

/// The most entries one source line gives in `steps`.
pub const PER_LINE: usize = 100;

/// The live tensors after one step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// 0-based index of the top-level statement that the step belongs to.
    pub statement: usize,
    /// 1-based line of the simple statement that just ran.
    pub line: usize,
    #[serde(flatten)]
    pub totals: Totals,
    /// Names bound to tensors.
    pub live_tensors: usize,
    /// Distinct storages under those names.
    pub live_storages: usize,
    /// The caching allocator's figures at that moment (`--device sim` or `cuda`); None on
    /// the CPU.
    pub allocator: Option<super::allocator::Account>,
    /// What the autograd graph keeps alive at that moment; absent when it saves nothing
    /// (and in the live tracer's steps, which measure the graph only at the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autograd: Option<super::autograd::usage::StepAutograd>,
}

/// The step after which the unique storage bytes were highest (the first such one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Peak {
    pub statement: usize,
    pub line: usize,
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
    /// Steps measured but not listed (past [`PER_LINE`] on their line).
    pub omitted: u64,
    /// Entries listed per line.
    per_line: std::collections::HashMap<usize, usize>,
    /// The last account and the layouts it was made from: a step whose live tensors have the
    /// same names, storages and layouts (a loop of in-place writes, `pass`, prints) reuses
    /// it instead of enumerating addressed bytes again.
    last: Option<(Vec<LayoutKey>, crate::accounting::Accounting)>,
}

/// What an account depends on for one live name.
type LayoutKey = (String, u64, usize, Vec<i64>, Vec<i64>, i64, usize);

fn layout_key(name: &str, t: &crate::tensor::Tensor) -> LayoutKey {
    (
        name.to_string(),
        t.storage().id(),
        t.storage().nbytes(),
        t.sizes().to_vec(),
        t.strides().to_vec(),
        t.storage_offset(),
        t.itemsize(),
    )
}

impl Steps {
    /// Measures the namespace after the step on `line` of the statement running, with the
    /// allocator's figures.
    pub fn record(&mut self, line: usize, env: &Env, allocator: Option<super::allocator::Account>) {
        let tensors = env.tensors();
        let key: Vec<LayoutKey> = tensors.iter().map(|(n, t)| layout_key(n, t)).collect();
        let acc = match &self.last {
            Some((k, acc)) if *k == key => acc.clone(),
            _ => {
                let acc = account(tensors.iter().map(|(n, t)| (n.as_str(), t)));
                self.last = Some((key, acc.clone()));
                acc
            }
        };
        let statement = env.statement.get();
        let step = Step {
            statement,
            line,
            totals: acc.totals,
            live_tensors: tensors.len(),
            live_storages: acc.storages.len(),
            allocator,
            autograd: env.grad.usage(&tensors, &|_| None).step_figures(),
        };
        self.push(step, acc.storages);
    }

    /// Takes one measured step (with the storages alive there): the peak is over every
    /// step, the list keeps at most [`PER_LINE`] per line and counts the rest. The live
    /// tracer's steps go through here too.
    pub fn push(&mut self, step: Step, storages: Vec<StorageUse>) {
        let bytes = step.totals.unique_storage_bytes;
        if self
            .peak
            .as_ref()
            .is_none_or(|p| bytes > p.unique_storage_bytes)
        {
            self.peak = Some(Peak {
                statement: step.statement,
                line: step.line,
                unique_storage_bytes: bytes,
                storages,
            });
        }
        let listed = self.per_line.entry(step.line).or_default();
        if *listed < PER_LINE {
            *listed += 1;
            self.steps.push(step);
        } else {
            self.omitted += 1;
        }
    }
}
