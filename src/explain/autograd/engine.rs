//! `backward()`: runs the graph from one tensor to its leaves, accumulating `.grad` on the
//! leaves (and on non-leaves that called `retain_grad()`), checking every saved tensor's
//! version, and freeing what the nodes saved unless `retain_graph=True`.

use super::node::{Edge, MetaRef, Node};
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::MemoryFormat;
use crate::tensor::Tensor;
use crate::tensor::arith::ElementOp;
use crate::tensor::elementwise::Operand;
use std::collections::HashMap;
use std::rc::Rc;

fn key(n: &Rc<Node>) -> *const Node {
    Rc::as_ptr(n)
}

fn add(a: Tensor, b: &Tensor) -> Result<Tensor> {
    Tensor::elementwise(
        ElementOp::Add(crate::scalar::Scalar::Int(1)),
        &[Operand::Tensor(a), Operand::Tensor(b.clone())],
    )
}

/// Adds `g` to a leaf's `.grad` (PyTorch's AccumulateGrad): an in-place add after the first
/// time; the first time `g` itself (detached: no new block) when it is stealable, else a
/// new tensor laid out like the leaf. Stealable: `g` obeys the layout contract and holds
/// the only handle of its storage (PyTorch asks that nothing else references the tensor;
/// a caller that keeps the gradient, as Python's `backward(gradient=g)` does, passes a
/// second handle).
pub fn accumulate(meta: &MetaRef, leaf: &Tensor, g: Tensor) -> Result<()> {
    let mut m = meta.borrow_mut();
    match &m.grad {
        Some(old) => old.elementwise_(
            ElementOp::Add(crate::scalar::Scalar::Int(1)),
            &[Operand::Tensor(g)],
        )?,
        None => {
            // PyTorch's layout contract: strides like the leaf's when it is dense, else
            // contiguous; a new tensor at version 0 (AccumulateGrad steals or clones), on the
            // leaf's device
            if g.storage().handle_count() == 1 && obeys_layout_contract(&g, leaf) {
                m.grad = Some(g.detach());
                return Ok(());
            }
            let (sizes, strides) = (leaf.sizes(), leaf.strides());
            let strides = if crate::layout::contiguity::is_non_overlapping_and_dense(sizes, strides)
            {
                strides.to_vec()
            } else {
                crate::layout::contiguity::contiguous_strides(sizes).to_vec()
            };
            let values: Vec<f64> = g.values()?.iter().map(|v| v.to_f64()).collect();
            let fresh =
                crate::explain::dense::laid_out(sizes, &strides, &values, leaf.dtype(), leaf)?;
            m.grad = Some(fresh);
        }
    }
    Ok(())
}

/// A gradient arriving in a node's input buffer that already holds `old` (PyTorch's
/// InputBuffer::accumulate with grad mode off): added into `old` in place when the buffer
/// holds the only handle of its storage and it is non-overlapping and dense
/// (`can_accumulate_inplace`), else summed into a new tensor.
fn buffer_add(old: Tensor, g: Tensor) -> Result<Tensor> {
    use crate::layout::contiguity::is_non_overlapping_and_dense;
    if old.storage().handle_count() == 1 && is_non_overlapping_and_dense(old.sizes(), old.strides())
    {
        old.elementwise_(
            ElementOp::Add(crate::scalar::Scalar::Int(1)),
            &[Operand::Tensor(g)],
        )?;
        return Ok(old);
    }
    add(old, &g)
}

fn buffer_insert<K: std::hash::Hash + Eq>(
    buffer: &mut HashMap<K, Tensor>,
    k: K,
    g: Tensor,
) -> Result<()> {
    let summed = match buffer.remove(&k) {
        Some(old) => buffer_add(old, g)?,
        None => g,
    };
    buffer.insert(k, summed);
    Ok(())
}

/// The ready node PyTorch's ready queue hands out next: the one made last.
fn pop_latest(ready: &mut Vec<Rc<Node>>) -> Option<Rc<Node>> {
    let (i, _) = ready.iter().enumerate().max_by_key(|(_, n)| n.seq)?;
    Some(ready.swap_remove(i))
}

/// PyTorch's gradient layout contract: for a dense leaf, the gradient's strides equal the
/// leaf's in every dim of size other than 1 (and no size-1 dim of stride 0); else the
/// gradient is contiguous. (A gradient that is a view of an expanded one never obeys it.)
fn obeys_layout_contract(g: &Tensor, leaf: &Tensor) -> bool {
    use crate::layout::contiguity::is_non_overlapping_and_dense;
    if !is_non_overlapping_and_dense(g.sizes(), g.strides()) || g.sizes() != leaf.sizes() {
        return false;
    }
    if !is_non_overlapping_and_dense(leaf.sizes(), leaf.strides()) {
        return g.is_contiguous();
    }
    g.sizes()
        .iter()
        .zip(g.strides().iter().zip(leaf.strides()))
        .all(|(&n, (&gs, &ls))| if n != 1 { gs == ls } else { gs != 0 })
}

/// How many edges of the nodes reachable from `root` point at each node, and at each leaf
/// (by its state's address): a node (or a leaf's accumulator) runs once all have arrived.
fn dependencies(root: &Rc<Node>) -> (HashMap<*const Node, usize>, HashMap<usize, usize>) {
    let mut seen: HashMap<*const Node, usize> = HashMap::new();
    let mut leaves: HashMap<usize, usize> = HashMap::new();
    let mut order = vec![root.clone()];
    seen.insert(key(root), 0);
    let mut i = 0;
    while i < order.len() {
        let n = order[i].clone();
        for input in &n.inputs {
            match &input.edge {
                Some(Edge::Node(next)) => {
                    let count = seen.entry(key(next)).or_insert_with(|| {
                        order.push(next.clone());
                        0
                    });
                    *count += 1;
                }
                Some(Edge::Leaf(meta, _)) => *leaves.entry(leaf_key(meta)).or_default() += 1,
                None => {}
            }
        }
        i += 1;
    }
    (seen, leaves)
}

fn leaf_key(m: &MetaRef) -> usize {
    Rc::as_ptr(m) as usize
}

/// Backward from a tensor made by `root` with output gradient `grad`. `retained` are the
/// non-leaves that called `retain_grad()` with their nodes.
pub fn run(
    root: &Rc<Node>,
    grad: Tensor,
    retain_graph: bool,
    retained: &[(Rc<Node>, MetaRef)],
) -> Result<()> {
    let (mut pending_edges, mut pending_leaves) = dependencies(root);
    let mut leaf_grads: HashMap<usize, Tensor> = HashMap::new();
    let mut grads: HashMap<*const Node, Tensor> = HashMap::new();
    // PyTorch's caller (torch.autograd.backward's grad_tensors, the engine's root inputs)
    // holds the root gradient until backward() returns: its block stays allocated
    // through the whole pass, not only until the first node has used it
    let _root_grad = grad.clone();
    grads.insert(key(root), grad);
    let mut ready = vec![root.clone()];
    while let Some(node) = pop_latest(&mut ready) {
        let input_grads = match grads.remove(&key(&node)) {
            None => vec![None; node.inputs.len()],
            Some(g) => {
                for (n, meta) in retained {
                    if Rc::ptr_eq(n, &node) {
                        let mut m = meta.borrow_mut();
                        m.grad = Some(match m.grad.take() {
                            Some(old) => add(old, &g)?,
                            None => g.clone_as(MemoryFormat::Preserve)?,
                        });
                    }
                }
                let saved = node.unpack()?;
                let v = node.formula.apply(&g, &node.inputs, &saved)?;
                if !retain_graph {
                    node.release();
                }
                v
            }
        };
        // the leaves whose every gradient has arrived: their AccumulateGrad nodes run
        // before any other ready node (PyTorch gives them the largest sequence number),
        // once this node has handed all its outputs on
        let mut leaves_done = Vec::new();
        for (input, ig) in node.inputs.iter().zip(input_grads) {
            match (&input.edge, ig) {
                (Some(Edge::Leaf(meta, leaf)), ig) => {
                    let k = leaf_key(meta);
                    if let Some(ig) = ig {
                        buffer_insert(&mut leaf_grads, k, ig)?;
                    }
                    let left = pending_leaves.entry(k).or_insert(1);
                    *left = left.saturating_sub(1);
                    if *left == 0 {
                        leaves_done.push((meta, leaf, k));
                    }
                }
                (Some(Edge::Node(next)), ig) => {
                    let k = key(next);
                    if let Some(ig) = ig {
                        buffer_insert(&mut grads, k, ig)?;
                    }
                    let left = pending_edges.entry(k).or_insert(1);
                    *left = left.saturating_sub(1);
                    if *left == 0 {
                        ready.push(next.clone());
                    }
                }
                _ => {}
            }
        }
        for (meta, leaf, k) in leaves_done {
            if let Some(g) = leaf_grads.remove(&k) {
                accumulate(meta, leaf, g)?;
            }
        }
    }
    Ok(())
}

/// PyTorch's check of a `gradient=` argument against the output.
pub fn check_gradient(output: &Tensor, grad: &Tensor) -> Result<()> {
    if output.sizes() != grad.sizes() {
        let show = |s: &[i64]| {
            let parts: Vec<String> = s.iter().map(|d| d.to_string()).collect();
            format!("torch.Size([{}])", parts.join(", "))
        };
        return Err(TensorError::new(
            ErrorKind::Other,
            format!(
                "Mismatch in shape: grad_output[0] has a shape of {} and output[0] has a shape of {}.",
                show(grad.sizes()),
                show(output.sizes())
            ),
        ));
    }
    Ok(())
}
