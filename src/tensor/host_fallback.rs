//! Work that a GPU tensor's op still does on the host, because stridekit has no GPU kernel
//! for it yet (reductions, advanced indexing, `index_put_`, `max/min(dim)`, order-dependent
//! overlapping writes): the operands are downloaded, the CPU backend computes, the result is
//! uploaded. Each such op notes what it did, per thread, so that `explain --device cuda` can
//! say which statement needed what ([`recording`]). Element-wise arithmetic, comparisons,
//! `where`, `clamp`, copies, conversions and row gathers run on the GPU and note nothing.

use std::cell::RefCell;

use crate::storage::Device;

thread_local! {
    static NOTES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f`; returns its result and what it ran on the host for GPU tensors (each
/// distinct note once, in order).
pub fn recording<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    NOTES.with(|n| n.borrow_mut().clear());
    let r = f();
    (r, NOTES.with(|n| std::mem::take(&mut *n.borrow_mut())))
}

/// Notes that `what` ran on the host for a tensor on `device` (nothing for host tensors
/// and a simulated device, whose bytes are on the host anyway).
pub(crate) fn note(device: Device, what: impl FnOnce() -> String) {
    if !super::device::runs_kernels(device) {
        return;
    }
    let what = what();
    NOTES.with(|n| {
        let mut n = n.borrow_mut();
        if !n.contains(&what) {
            n.push(what);
        }
    });
}
