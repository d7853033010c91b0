//! The CPU backend's layout-changing copies at 1 GiB, each beside a memcpy of the same
//! bytes in the same run: the share of the memcpy rate issue 23 asks of transposes and
//! permutes (at least 60%). Rounds interleave the memcpy and the case (the order
//! alternating), each side's median is kept, and the share is the ratio of the medians,
//! so a load that changes slowly moves both sides alike. Not criterion: one 1 GiB copy
//! takes a fraction of a second, and the comparison that matters is within one round.
//!
//! Each row also gives both sides' CPU time (all threads, from /proc) and the share by it.
//!
//! `cargo bench --bench cpu_1gib [-- [--threads 1,2] [--rounds N] [NAME-SUBSTRING...]]`
//! (about 3 GiB resident: source, destination and the memcpy's destination).

use std::hint::black_box;
use std::time::Instant;

use stridekit::DType;
use stridekit::backend::cpu::{self, GRAIN_BYTES, Parallelism};
use stridekit::layout::{Layout, view};
use stridekit::plan::CopyPlan;

const GIB: usize = 1 << 30;

struct Case {
    name: String,
    plan: CopyPlan,
}

fn cases() -> Vec<Case> {
    let perm = |sizes: &[i64], p: &[i64]| view::permute(&Layout::contiguous(sizes), p).unwrap();
    let into_contiguous = |name: String, src: Layout, dt: DType| Case {
        plan: CopyPlan::copy(&Layout::contiguous(src.sizes()), dt, &src, dt),
        name,
    };
    let mut v = Vec::new();
    for (dt, r, c) in [
        (DType::U8, 32768, 32768),
        (DType::F16, 16384, 32768),
        (DType::F32, 16384, 16384),
        (DType::F64, 8192, 16384),
    ] {
        let src = view::t(&Layout::contiguous(&[r, c])).unwrap();
        v.push(into_contiguous(
            format!("transpose2d_{dt:?}_{r}x{c}"),
            src,
            dt,
        ));
    }
    let f32 = DType::F32;
    let p3 = perm(&[1024, 1024, 256], &[2, 0, 1]);
    v.push(into_contiguous(
        "perm3d_201_f32_1024x1024x256".into(),
        p3,
        f32,
    ));
    let p4 = perm(&[128; 4], &[3, 2, 1, 0]);
    v.push(into_contiguous("perm4d_3210_f32_128^4".into(), p4, f32));
    let p6 = perm(&[32, 32, 16, 32, 16, 32], &[5, 0, 3, 1, 4, 2]);
    v.push(into_contiguous(
        "perm6d_503142_f32_32x32x16x32x16x32".into(),
        p6,
        f32,
    ));
    for dt in [DType::F16, f32] {
        let n = (GIB / dt.itemsize() / (64 * 128 * 128)) as i64;
        let nchw = Layout::contiguous(&[n, 64, 128, 128]);
        let nhwc = perm(&[n, 128, 128, 64], &[0, 3, 1, 2]);
        let name = |dir: &str| format!("{dir}_{dt:?}_{n}x64x128x128");
        v.push(Case {
            name: name("nchw2nhwc"),
            plan: CopyPlan::copy(&nhwc, dt, &nchw, dt),
        });
        v.push(Case {
            name: name("nhwc2nchw"),
            plan: CopyPlan::copy(&nchw, dt, &nhwc, dt),
        });
    }
    v
}

/// Nanoseconds this process's threads have spent on a CPU (Linux: the first field of each
/// task's schedstat), or `None` where that is not readable. On a shared machine a copy's
/// wall time includes the time its threads waited for a core; its CPU time does not, so
/// the share by CPU time is the steadier figure under load (memory contention still
/// counts in both).
fn cpu_ns() -> Option<u64> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut threads = vec![1, 2];
    let mut rounds = 5;
    let mut only = Vec::new();
    // `cargo test --all-targets` runs bench targets without `--bench`: 3 GiB of copies in
    // an unoptimised build would take minutes, so the test run only checks that it starts.
    if !std::env::args().any(|a| a == "--bench") {
        println!("cpu_1gib: run it with `cargo bench --bench cpu_1gib`");
        return;
    }
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => {
                let v = args.next().expect("--threads takes a list, e.g. 1,2");
                threads = v
                    .split(',')
                    .map(|t| t.parse().expect("a thread count"))
                    .collect();
            }
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|r| r.parse().ok())
                    .expect("--rounds N")
            }
            "--bench" => {}
            s => only.push(s.to_string()),
        }
    }
    let memcpy = CopyPlan::copy(
        &Layout::contiguous(&[GIB as i64]),
        DType::U8,
        &Layout::contiguous(&[GIB as i64]),
        DType::U8,
    );
    let src: Vec<u8> = (0..GIB).map(|i| (i * 7 + (i >> 12)) as u8).collect();
    let mut dst = vec![0u8; GIB];
    let mut out = vec![0u8; GIB];
    println!(
        "| case | threads | memcpy ms | case ms | share of memcpy rate | memcpy CPU ms | case CPU ms | share by CPU time |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for case in cases() {
        if !only.is_empty() && !only.iter().any(|o| case.name.contains(o.as_str())) {
            continue;
        }
        for &t in &threads {
            let par = Parallelism {
                threads: t,
                grain_bytes: GRAIN_BYTES,
            };
            let (mut m, mut c) = (Vec::new(), Vec::new());
            let (mut mc, mut cc) = (Vec::new(), Vec::new());
            for r in 0..rounds {
                let time = |plan: &CopyPlan, into: &mut [u8], cpu: &mut Vec<f64>| {
                    let (t0, c0) = (Instant::now(), cpu_ns());
                    cpu::copy_with(black_box(plan), into, &src, par);
                    let wall = t0.elapsed().as_secs_f64() * 1e3;
                    if let (Some(c0), Some(c1)) = (c0, cpu_ns()) {
                        cpu.push((c1 - c0) as f64 / 1e6);
                    }
                    wall
                };
                if r % 2 == 0 {
                    m.push(time(&memcpy, &mut out, &mut mc));
                    c.push(time(&case.plan, &mut dst, &mut cc));
                } else {
                    c.push(time(&case.plan, &mut dst, &mut cc));
                    m.push(time(&memcpy, &mut out, &mut mc));
                }
            }
            let (m, c) = (median(m), median(c));
            let by_cpu = if mc.len() == rounds && cc.len() == rounds {
                let (mc, cc) = (median(mc), median(cc));
                format!("{mc:.1} | {cc:.1} | {:.0}%", 100.0 * mc / cc)
            } else {
                "n/a | n/a | n/a".to_string()
            };
            println!(
                "| {} | {t} | {m:.1} | {c:.1} | {:.0}% | {by_cpu} |",
                case.name,
                100.0 * m / c
            );
        }
    }
}
