//! What the autograd graph keeps alive: the report's `autograd` section, one schema for
//! `explain` and the live tracer (`stridekit trace`, issue 20): `saved_tensors` (each tensor
//! the graph behind the live names saved, named by the node and slot that saved it as
//! PyTorch names them, `ExpBackward0._saved_result`), `saved_storage_bytes` (the bytes of
//! their distinct storages) and `graph_only_storage_bytes` (those of them no live name is
//! on). A step carries the same figures as counts ([`StepAutograd`]).

use super::State;
use super::node::Node;
use crate::tensor::Tensor;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A tensor the autograd graph saved for backward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedReport {
    /// The node and slot that saved it (`MulBackward0._saved_other`).
    pub grad_fn: String,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub storage_offset: i64,
    pub itemsize: usize,
    /// numel x itemsize.
    pub bytes: u64,
    pub storage_nbytes: u64,
    /// The report's storage id when a named tensor is on the same storage; None for a
    /// storage only the graph keeps.
    pub storage: Option<usize>,
}

/// The report's `autograd` section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Autograd {
    pub saved_tensors: Vec<SavedReport>,
    /// Distinct storages saved for backward by the graph of the live tensors, each once.
    pub saved_storage_bytes: u64,
    /// Those of them no named tensor reaches.
    pub graph_only_storage_bytes: u64,
}

/// The graph's figures after one step (the report's section as counts).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StepAutograd {
    /// How many tensors the graph behind the live names saved.
    pub saved_tensor_count: usize,
    pub saved_storage_bytes: u64,
    pub graph_only_storage_bytes: u64,
}

impl Autograd {
    /// The step figures of this section; None when the graph saved nothing (a step then
    /// has no `autograd` entry).
    pub fn step_figures(&self) -> Option<StepAutograd> {
        if self.saved_tensors.is_empty() {
            return None;
        }
        Some(StepAutograd {
            saved_tensor_count: self.saved_tensors.len(),
            saved_storage_bytes: self.saved_storage_bytes,
            graph_only_storage_bytes: self.graph_only_storage_bytes,
        })
    }
}

impl State {
    /// The graph's account for the tensors bound to `live` names; `storage_id` gives the
    /// report's id of a live name's storage (None: the graph's figures only).
    ///
    /// Saved tensors are those of the nodes reachable from the live tensors' `grad_fn`
    /// (each saved slot once per node; a backward without `retain_graph` frees them). One
    /// written in place after it was saved is left out: it can no longer be unpacked, and
    /// PyTorch shows it to no one (its `_saved_*` attribute raises the version error).
    pub fn usage(
        &self,
        live: &[(String, Tensor)],
        storage_id: &dyn Fn(&str) -> Option<usize>,
    ) -> Autograd {
        let mut named: HashMap<u64, Option<usize>> = HashMap::new();
        for (name, t) in live {
            named
                .entry(t.storage().id())
                .or_insert_with(|| storage_id(name));
        }
        let mut todo: Vec<Rc<Node>> = live.iter().filter_map(|(_, t)| self.grad_fn(t)).collect();
        let mut seen: HashSet<*const Node> = HashSet::new();
        let mut storages: HashSet<u64> = HashSet::new();
        let mut out = Autograd::default();
        while let Some(n) = todo.pop() {
            if !seen.insert(Rc::as_ptr(&n)) {
                continue;
            }
            for s in n.saved.borrow().iter() {
                if !s.wrapped_number && s.tensor.version() != s.version {
                    continue;
                }
                let t = &s.tensor;
                let st = t.storage();
                let nbytes = st.nbytes() as u64;
                let on_name = named.get(&st.id());
                if storages.insert(st.id()) {
                    out.saved_storage_bytes = out.saved_storage_bytes.saturating_add(nbytes);
                    if on_name.is_none() {
                        out.graph_only_storage_bytes =
                            out.graph_only_storage_bytes.saturating_add(nbytes);
                    }
                }
                out.saved_tensors.push(SavedReport {
                    grad_fn: format!("{}._saved_{}", n.name, s.role),
                    shape: t.sizes().to_vec(),
                    strides: t.strides().to_vec(),
                    storage_offset: t.storage_offset(),
                    itemsize: t.itemsize(),
                    bytes: (t.numel().max(0) as u64).saturating_mul(t.itemsize() as u64),
                    storage_nbytes: nbytes,
                    storage: on_name.copied().flatten(),
                });
            }
            todo.extend(n.next_nodes().cloned());
        }
        out
    }
}
