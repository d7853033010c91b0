//! What the autograd graph keeps alive (the report's `autograd` section, per step too; the
//! live tracer reports the same fields): the tensors the graph behind the live names saved,
//! the bytes of their distinct storages, and the bytes of those no live name reaches.

use super::State;
use super::node::Node;
use crate::tensor::Tensor;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Saved tensors of the nodes reachable from the live tensors' `grad_fn` (a node's
    /// saved slots each count; a backward without `retain_graph` frees them; one written in
    /// place after it was saved is left out: it can no longer be unpacked).
    pub saved_tensors: usize,
    /// Bytes of the distinct storages those saved tensors are on.
    pub saved_storage_bytes: u64,
    /// The part of `saved_storage_bytes` on storages no live name is on: memory only the
    /// graph keeps alive.
    pub graph_only_storage_bytes: u64,
}

impl State {
    /// The graph's account for the tensors bound to `live` names.
    pub fn usage(&self, live: &[(String, Tensor)]) -> Usage {
        let named: HashSet<u64> = live.iter().map(|(_, t)| t.storage().id()).collect();
        let mut todo: Vec<Rc<Node>> = live.iter().filter_map(|(_, t)| self.grad_fn(t)).collect();
        let mut seen: HashSet<*const Node> = HashSet::new();
        let mut storages: HashMap<u64, u64> = HashMap::new();
        let mut usage = Usage::default();
        while let Some(n) = todo.pop() {
            if !seen.insert(Rc::as_ptr(&n)) {
                continue;
            }
            // A saved tensor written in place since can never be unpacked again (backward
            // raises the version error instead); PyTorch shows it to no one, so it is not
            // counted here either.
            for s in n.saved.borrow().iter() {
                if !s.wrapped_number && s.tensor.version() != s.version {
                    continue;
                }
                usage.saved_tensors += 1;
                let st = s.tensor.storage();
                storages.insert(st.id(), st.nbytes() as u64);
            }
            todo.extend(n.next_nodes().cloned());
        }
        for (id, bytes) in storages {
            usage.saved_storage_bytes += bytes;
            if !named.contains(&id) {
                usage.graph_only_storage_bytes += bytes;
            }
        }
        usage
    }
}
