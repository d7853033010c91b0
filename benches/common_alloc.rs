// Shared by the view benchmark and the view allocation test: a global allocator that counts
// allocations, so "view creation does not touch the heap" is measured, not assumed.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;

pub struct Counting;

thread_local! {
    // Per thread, so tests running in parallel do not count each other's allocations.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Heap allocations made while running `f`.
#[allow(dead_code)]
pub fn allocations_during(f: impl FnOnce()) -> usize {
    let before = allocations();
    f();
    allocations() - before
}

/// A chain of view operations on a tensor of rank `rank` (2..=8): the work a view costs.
#[allow(dead_code)]
pub fn view_chain(x: &stridekit::Tensor) -> stridekit::Tensor {
    let r = x.ndim() as i64;
    let t = x.transpose(0, r - 1).unwrap();
    let p = t.movedim(&[0], &[r - 1]).unwrap();
    let n = p.narrow(0, 0, 1).unwrap();
    let s = n.squeeze(None).unwrap();
    let u = s.unsqueeze(0).unwrap();
    let e = u.expand(u.sizes()).unwrap();
    let d = x.diagonal(0, 0, 1).unwrap();
    let f = x.view(&[-1]).unwrap();
    let w = f.unfold(0, 2, 1).unwrap();
    let _ = (s, e, d, w);
    x.select(0, 0).unwrap()
}
