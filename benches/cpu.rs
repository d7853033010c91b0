//! The CPU backend's copies at in-cache sizes (about 4 MiB per operand): the fast paths on
//! 1 and 2 threads beside the element-by-element reference walk (`cpu::reference::copy`),
//! over memcpy, 2-d transposes of every width, 3-d/4-d/6-d permutes, NCHW<->NHWC (2 and 4
//! bytes), a step-2 slice, broadcast copies, converting copies f32<->f16/bf16 (one of them
//! transposing) and a row gather. Throughput is the destination's bytes. The comparison
//! with PyTorch on the same tensors is scripts/bench_cpu_vs_torch.py; its table is in
//! docs/cpu.md.
//!
//! Run with `cargo bench --bench cpu` (`-- transpose` for a subset).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use stridekit::DType;
use stridekit::backend::cpu::{self, GRAIN_BYTES, Parallelism};
use stridekit::layout::{Layout, view};
use stridekit::plan::{CopyPlan, RowGatherShape};

const MIB: i64 = 1 << 20;

struct Case {
    name: String,
    plan: CopyPlan,
    src_bytes: usize,
    dst_bytes: usize,
}

fn case(name: &str, dst: Layout, dt: DType, src: Layout, st: DType, src_elems: i64) -> Case {
    Case {
        name: name.to_string(),
        plan: CopyPlan::copy(&dst, dt, &src, st),
        src_bytes: src_elems as usize * st.itemsize(),
        dst_bytes: dst.numel() as usize * dt.itemsize(),
    }
}

/// A contiguous destination for `src`'s shape.
fn into_contiguous(name: &str, src: Layout, dt: DType, st: DType, src_elems: i64) -> Case {
    case(
        name,
        Layout::contiguous(src.sizes()),
        dt,
        src,
        st,
        src_elems,
    )
}

fn cases() -> Vec<Case> {
    let f32 = DType::F32;
    let mut v = Vec::new();
    let n = MIB;
    v.push(into_contiguous(
        "memcpy_f32_1M",
        Layout::contiguous(&[n]),
        f32,
        f32,
        n,
    ));
    for (dt, r, c) in [
        (DType::U8, 2048, 2048),
        (DType::F16, 1024, 2048),
        (f32, 1024, 1024),
        (DType::F64, 512, 1024),
    ] {
        let src = view::t(&Layout::contiguous(&[r, c])).unwrap();
        v.push(into_contiguous(
            &format!("transpose2d_{dt:?}_{r}x{c}"),
            src,
            dt,
            dt,
            r * c,
        ));
    }
    let perm = |sizes: &[i64], p: &[i64]| view::permute(&Layout::contiguous(sizes), p).unwrap();
    v.push(into_contiguous(
        "perm3d_201_f32_64x128x128",
        perm(&[64, 128, 128], &[2, 0, 1]),
        f32,
        f32,
        n,
    ));
    v.push(into_contiguous(
        "perm4d_3210_f32_32^4",
        perm(&[32; 4], &[3, 2, 1, 0]),
        f32,
        f32,
        n,
    ));
    let p6 = perm(&[8, 8, 8, 8, 8, 32], &[5, 0, 3, 1, 4, 2]);
    v.push(into_contiguous("perm6d_503142_f32_8^5x32", p6, f32, f32, n));
    for dt in [DType::F16, f32] {
        let nchw = Layout::contiguous(&[32, 32, 28, 28]);
        let nhwc = perm(&[32, 28, 28, 32], &[0, 3, 1, 2]); // channels_last strides of NCHW
        let el = 32 * 32 * 28 * 28;
        v.push(case(
            &format!("nchw2nhwc_{dt:?}_32x32x28x28"),
            nhwc.clone(),
            dt,
            nchw.clone(),
            dt,
            el,
        ));
        v.push(case(
            &format!("nhwc2nchw_{dt:?}_32x32x28x28"),
            nchw,
            dt,
            nhwc,
            dt,
            el,
        ));
    }
    let step = view::slice(&Layout::contiguous(&[1024, 1024]), 1, None, None, 2).unwrap();
    v.push(into_contiguous(
        "slice_step2_f32_1024x1024",
        step,
        f32,
        f32,
        n,
    ));
    let rows = view::expand(&Layout::contiguous(&[1, 1024]), &[1024, 1024], "float").unwrap();
    v.push(into_contiguous(
        "expand_rows_f32_1024x1024",
        rows,
        f32,
        f32,
        1024,
    ));
    let cols = view::expand(&Layout::contiguous(&[1024, 1]), &[1024, 1024], "float").unwrap();
    v.push(into_contiguous(
        "expand_cols_f32_1024x1024",
        cols,
        f32,
        f32,
        1024,
    ));
    for lo in [DType::F16, DType::BF16] {
        let l = Layout::contiguous(&[n]);
        v.push(into_contiguous(
            &format!("convert_f32_to_{lo:?}_1M"),
            l.clone(),
            lo,
            f32,
            n,
        ));
        v.push(into_contiguous(
            &format!("convert_{lo:?}_to_f32_1M"),
            l,
            f32,
            lo,
            n,
        ));
    }
    let t = view::t(&Layout::contiguous(&[1024, 1024])).unwrap();
    v.push(into_contiguous(
        "convert_transpose_f32_to_F16_1024x1024",
        t,
        DType::F16,
        f32,
        n,
    ));
    v
}

fn settings(threads: usize) -> Parallelism {
    Parallelism {
        threads,
        grain_bytes: GRAIN_BYTES,
    }
}

fn copies(c: &mut Criterion) {
    for case in cases() {
        let src = vec![0x3Cu8; case.src_bytes];
        let mut dst = vec![0u8; case.dst_bytes];
        let mut g = c.benchmark_group(&case.name);
        g.throughput(Throughput::Bytes(case.dst_bytes as u64));
        for threads in [1, 2] {
            g.bench_function(BenchmarkId::new("stridekit", format!("{threads}t")), |b| {
                b.iter(|| cpu::copy_with(black_box(&case.plan), &mut dst, &src, settings(threads)))
            });
        }
        g.bench_function("reference", |b| {
            b.iter(|| cpu::reference::copy(black_box(&case.plan), &mut dst, &src))
        });
        g.finish();
    }
}

fn gathers(c: &mut Criterion) {
    // 4096 of 8192 rows of 256 f32, in a scattered order.
    let shape = RowGatherShape {
        num_rows: 4096,
        row_len: 256,
        src_rows: 8192,
        src_row_stride: 256,
        dst_row_stride: 256,
        src_offset: 0,
        dst_offset: 0,
    };
    let index: Vec<i64> = (0..4096).map(|r| (r * 4099) % 8192).collect();
    let src = vec![0x3Cu8; 8192 * 256 * 4];
    let mut dst = vec![0u8; 4096 * 256 * 4];
    let mut g = c.benchmark_group("gather_rows_f32_8192x256");
    g.throughput(Throughput::Bytes(dst.len() as u64));
    for threads in [1, 2] {
        g.bench_function(BenchmarkId::new("stridekit", format!("{threads}t")), |b| {
            b.iter(|| {
                cpu::row_gather_with(
                    &shape,
                    DType::F32,
                    &mut dst,
                    &src,
                    black_box(&index),
                    settings(threads),
                )
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = copies, gathers
}
criterion_main!(benches);
