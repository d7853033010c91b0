//! View creation never allocates on the heap for rank <= 8.

#[path = "../benches/common_alloc.rs"]
mod common_alloc;
use common_alloc::{Counting, allocations_during, view_chain};
use stridekit::{DType, Tensor};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn views_do_not_allocate_up_to_rank_8() {
    for rank in 2..=8 {
        let x = Tensor::zeros(&vec![3; rank], DType::F32).unwrap();
        let n = allocations_during(|| {
            std::hint::black_box(view_chain(&x));
        });
        assert_eq!(n, 0, "rank {rank}: {n} heap allocations");
    }
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the test above against a counter that never counts.
    let n = allocations_during(|| {
        std::hint::black_box(Tensor::zeros(&[4], DType::F32).unwrap());
    });
    assert!(n > 0);
}
