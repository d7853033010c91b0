//! Host cost of the caching allocator: one malloc+free pair, and trace replay throughput
//! (events per second) on the simulated device: PyTorch's recorded histories of the
//! llm_serving run under their own settings, and the llm_serving trace itself under
//! PyTorch's default, expandable_segments:True and policy:stridekit (issue 22's targets:
//! 10 M events/s for PyTorch's policy, 5 M for policy:stridekit).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use stridekit::alloc::replay::{ReplayOptions, replay_on, simulated_device_for};
use stridekit::alloc::trace::parse_trace_bytes;
use stridekit::alloc::{AllocConfig, CachingAllocator, DeviceCachingAllocator, SimulatedDevice};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/alloc")
        .join(name)
}

fn malloc_free(c: &mut Criterion) {
    let a = CachingAllocator::new(SimulatedDevice::new(1 << 36), AllocConfig::default()).unwrap();
    // Warm the cache so the pair is served from cached blocks.
    let keep: Vec<_> = (0..64)
        .map(|k| a.malloc(1000 + k * 4096, 0).unwrap())
        .collect();
    let mut g = c.benchmark_group("alloc");
    g.bench_function("malloc_free_pair_small_locked", |b| {
        b.iter(|| {
            let h = a.malloc(black_box(4096), 0).unwrap();
            a.free(h).unwrap();
        })
    });
    g.bench_function("malloc_free_pair_large_locked", |b| {
        b.iter(|| {
            let h = a.malloc(black_box(8 << 20), 0).unwrap();
            a.free(h).unwrap();
        })
    });
    g.finish();
    for h in keep {
        a.free(h).unwrap();
    }
}

fn replay(c: &mut Criterion) {
    let mut g = c.benchmark_group("alloc_replay");
    for setting in ["default", "expandable_segments:True"] {
        let f = format!("trace_llm_serving__{}.csv.gz", setting.replace(':', "-"));
        let t = parse_trace_bytes(&f, &std::fs::read(data(&f)).unwrap()).unwrap();
        let cfg = AllocConfig::parse(setting).unwrap();
        let opts = ReplayOptions::default();
        g.throughput(Throughput::Elements(t.ops.len() as u64));
        g.bench_function(format!("llm_serving_{setting}"), |b| {
            b.iter_batched(
                || {
                    DeviceCachingAllocator::new(simulated_device_for(&t, &opts), cfg.clone())
                        .unwrap()
                },
                |mut a| {
                    let r = replay_on(&mut a, &t, &opts).unwrap();
                    black_box(r.stats.reserved_bytes[0].peak);
                    a
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    let f = "trace_llm_serving.csv";
    let t = parse_trace_bytes(f, &std::fs::read(data(f)).unwrap()).unwrap();
    let opts = ReplayOptions::default();
    g.throughput(Throughput::Elements(t.ops.len() as u64));
    for setting in ["default", "expandable_segments:True", "policy:stridekit"] {
        let cfg = AllocConfig::parse(setting).unwrap();
        g.bench_function(format!("llm_serving_trace_{setting}"), |b| {
            b.iter_batched(
                || {
                    DeviceCachingAllocator::new(simulated_device_for(&t, &opts), cfg.clone())
                        .unwrap()
                },
                |mut a| {
                    let r = replay_on(&mut a, &t, &opts).unwrap();
                    black_box(r.stats.reserved_bytes[0].peak);
                    a
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, malloc_free, replay);
criterion_main!(benches);
