//! What an in-place write or a copy does when its operands overlap in a way PyTorch's checks
//! do not catch (an `unfold` or `as_strided` window view, interleaved views of one storage).
//!
//! PyTorch refuses only the cases it can prove (a stride-0 dimension of size > 1; two dense
//! views whose byte ranges intersect); stridekit refuses those with PyTorch's messages too.
//! For the rest PyTorch runs its kernel and the result depends on its iteration order.
//! stridekit either refuses them as well ([`Policy::Refuse`], the library's default and
//! `explain --strict-overlap`) or runs them in a documented deterministic order
//! ([`Policy::Sequential`]: element by element, dimensions in TensorIterator's order, each
//! element read from the storage as it is at that moment, as PyTorch's serial CPU loop does;
//! this gives PyTorch's result for the seeds' `as_strided` window `w.mul_(2)`, see
//! [`super::sequential`]) and notes it, so the caller can warn.
//!
//! The policy is per thread, set for the duration of a closure by [`with_policy`].

use std::cell::{Cell, RefCell};

/// How order-dependent overlaps are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Refuse,
    Sequential,
}

thread_local! {
    static POLICY: Cell<Policy> = const { Cell::new(Policy::Refuse) };
    static NOTES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` under `policy`; returns its result and the notes of every order-dependent overlap
/// it ran.
pub fn with_policy<R>(policy: Policy, f: impl FnOnce() -> R) -> (R, Vec<String>) {
    let old = POLICY.with(|p| p.replace(policy));
    NOTES.with(|n| n.borrow_mut().clear());
    let r = f();
    POLICY.with(|p| p.set(old));
    (r, NOTES.with(|n| std::mem::take(&mut *n.borrow_mut())))
}

pub(crate) fn current() -> Policy {
    POLICY.with(|p| p.get())
}

pub(crate) fn note(message: impl Into<String>) {
    NOTES.with(|n| n.borrow_mut().push(message.into()));
}
