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

/// Adds `g` to a leaf's `.grad` (a new tensor laid out like the leaf the first time, an
/// in-place add after that, as PyTorch's AccumulateGrad).
pub fn accumulate(meta: &MetaRef, leaf: &Tensor, g: &Tensor) -> Result<()> {
    let mut m = meta.borrow_mut();
    match &m.grad {
        Some(old) => old.elementwise_(
            ElementOp::Add(crate::scalar::Scalar::Int(1)),
            &[Operand::Tensor(g.clone())],
        )?,
        None => {
            // PyTorch's layout contract: strides like the leaf's when it is dense, else
            // contiguous; a new tensor at version 0 (AccumulateGrad steals or clones), on the
            // leaf's device
            if obeys_layout_contract(g, leaf) {
                // AccumulateGrad steals a gradient laid out as the leaf is
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
    grads.insert(key(root), grad);
    let mut ready = vec![root.clone()];
    while let Some(node) = ready.pop() {
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
        for (input, ig) in node.inputs.iter().zip(input_grads) {
            match (&input.edge, ig) {
                (Some(Edge::Leaf(meta, leaf)), ig) => {
                    let k = leaf_key(meta);
                    if let Some(ig) = ig {
                        let summed = match leaf_grads.remove(&k) {
                            Some(old) => add(old, &ig)?,
                            None => ig,
                        };
                        leaf_grads.insert(k, summed);
                    }
                    let left = pending_leaves.entry(k).or_insert(1);
                    *left = left.saturating_sub(1);
                    if *left == 0
                        && let Some(g) = leaf_grads.remove(&k)
                    {
                        accumulate(meta, leaf, &g)?;
                    }
                }
                (Some(Edge::Node(next)), ig) => {
                    let k = key(next);
                    if let Some(ig) = ig {
                        let summed = match grads.remove(&k) {
                            Some(old) => add(old, &ig)?,
                            None => ig,
                        };
                        grads.insert(k, summed);
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
