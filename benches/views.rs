//! View creation cost by rank, and proof that it does not touch the heap for rank <= 8.
//!
//! Run with `cargo bench --bench views`. Before timing, the bench counts heap allocations
//! made by a chain of ten view operations at every rank and refuses to run if any happened.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use stridekit::{DType, Tensor};

#[path = "common_alloc.rs"]
mod common_alloc;
use common_alloc::{Counting, allocations_during, view_chain};

#[global_allocator]
static GLOBAL: Counting = Counting;

fn tensor_of_rank(rank: usize) -> Tensor {
    Tensor::zeros(&vec![2; rank], DType::F32).unwrap()
}

fn views(c: &mut Criterion) {
    let mut group = c.benchmark_group("view_chain_10_ops");
    for rank in 2..=8 {
        let x = tensor_of_rank(rank);
        let n = allocations_during(|| {
            black_box(view_chain(&x));
        });
        assert_eq!(n, 0, "rank {rank}: view creation made {n} heap allocations");
        println!("rank {rank}: 10 view ops, {n} heap allocations");
        group.bench_with_input(BenchmarkId::from_parameter(rank), &x, |b, x| {
            b.iter(|| black_box(view_chain(black_box(x))))
        });
    }
    group.finish();
}

criterion_group!(benches, views);
criterion_main!(benches);
