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
use stridekit::plan::{CopyPlan, RowGatherShape};

const GIB: usize = 1 << 30;

struct Case {
    name: String,
    work: Work,
}

/// What a case runs: a copy plan, or a row gather (of half the source's rows, in a
/// scattered order; its share compares rates of the bytes it writes).
enum Work {
    /// A copy plan and the bytes it writes.
    Plan(CopyPlan, usize),
    Gather(RowGatherShape, Vec<i64>),
}

impl Work {
    fn run(&self, into: &mut [u8], src: &[u8], par: Parallelism) {
        match self {
            Work::Plan(p, _) => cpu::copy_with(black_box(p), into, src, par),
            Work::Gather(shape, index) => {
                let n = self.bytes();
                cpu::row_gather_with(shape, DType::F32, &mut into[..n], src, index, par)
                    .expect("the bench's indices are in range")
            }
        }
    }

    /// The bytes the case writes.
    fn bytes(&self) -> usize {
        match self {
            Work::Plan(_, bytes) => *bytes,
            Work::Gather(shape, _) => (shape.num_rows * shape.row_len * 4) as usize,
        }
    }
}

/// Rows of 256 f32 (1 KiB): half of 1 GiB's rows gathered in a scattered order (row
/// `r * 40503 + 17` modulo the 2^20 rows: an odd multiplier, so no row twice), the shape of
/// scripts/bench_cpu_vs_torch.py's gather_rows case (which draws its indices at random).
fn gather_case() -> Case {
    let (row, rows) = (256i64, (GIB / 4 / 256) as i64);
    let shape = RowGatherShape {
        num_rows: rows / 2,
        row_len: row,
        src_rows: rows,
        src_row_stride: row,
        dst_row_stride: row,
        src_offset: 0,
        dst_offset: 0,
    };
    let index = (0..rows / 2).map(|r| (r * 40503 + 17) % rows).collect();
    Case {
        name: format!("gather_rows_f32_{rows}x{row}"),
        work: Work::Gather(shape, index),
    }
}

fn cases() -> Vec<Case> {
    let perm = |sizes: &[i64], p: &[i64]| view::permute(&Layout::contiguous(sizes), p).unwrap();
    let plan = |dst: &Layout, src: &Layout, dt: DType| {
        let bytes = dst.sizes().iter().product::<i64>() as usize * dt.itemsize();
        Work::Plan(CopyPlan::copy(dst, dt, src, dt), bytes)
    };
    let into_contiguous = |name: String, src: Layout, dt: DType| Case {
        work: plan(&Layout::contiguous(src.sizes()), &src, dt),
        name,
    };
    let mut v = Vec::new();
    for (dt, r, c) in [
        (DType::U8, 32768, 32768),
        (DType::F16, 16384, 32768),
        (DType::F32, 16384, 16384),
        (DType::F64, 8192, 16384),
        // Rows off the 64-byte line grid (just under 1 GiB): both sides' rows; only the
        // source's (16384 x 16380: destination rows 64 KiB apart); only the destination's.
        (DType::U8, 32764, 32772),
        (DType::F16, 16380, 32776),
        (DType::F32, 16380, 16388),
        (DType::F32, 16384, 16380),
        (DType::F32, 16380, 16384),
        // Row lengths far from a power of two: both sides' rows off the grid, then (u8) only
        // the source's, only the destination's.
        (DType::U8, 30011, 35777),
        (DType::F16, 21011, 25551),
        (DType::F32, 15013, 17863),
        (DType::U8, 32768, 30011),
        (DType::U8, 30011, 32768),
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
    let p4 = perm(&[126, 130, 132, 124], &[3, 2, 1, 0]);
    v.push(into_contiguous(
        "perm4d_3210_f32_126x130x132x124".into(),
        p4,
        f32,
    ));
    let p6 = perm(&[32, 32, 16, 32, 16, 32], &[5, 0, 3, 1, 4, 2]);
    v.push(into_contiguous(
        "perm6d_503142_f32_32x32x16x32x16x32".into(),
        p6,
        f32,
    ));
    // NCHW <-> NHWC: 64 channels (2 and 4 bytes), and image batches of 3 channels (an
    // inference server's NHWC <-> NCHW on the host); 223 x 223 images are not whole lines
    // (596748 bytes of f32), so each image starts 12 bytes on from the last.
    for (dt, c, hw) in [
        (DType::F16, 64, 128),
        (f32, 64, 128),
        (DType::U8, 3, 224),
        (f32, 3, 224),
        (f32, 3, 223),
    ] {
        let n = (GIB / dt.itemsize() / (c * hw * hw) as usize) as i64;
        let nchw = Layout::contiguous(&[n, c, hw, hw]);
        let nhwc = perm(&[n, hw, hw, c], &[0, 3, 1, 2]);
        let name = |dir: &str| format!("{dir}_{dt:?}_{n}x{c}x{hw}x{hw}");
        v.push(Case {
            name: name("nchw2nhwc"),
            work: plan(&nhwc, &nchw, dt),
        });
        v.push(Case {
            name: name("nhwc2nchw"),
            work: plan(&nchw, &nhwc, dt),
        });
    }
    v.push(gather_case());
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

/// A zeroed buffer one line longer than 1 GiB, for [`on_a_line`].
fn lined() -> Vec<u8> {
    vec![0u8; GIB + 64]
}

/// The 1 GiB of `buf` that starts on a 64-byte line.
fn on_a_line(buf: &mut [u8]) -> &mut [u8] {
    let at = buf.as_ptr().align_offset(64);
    &mut buf[at..at + GIB]
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
    let memcpy = Work::Plan(
        CopyPlan::copy(
            &Layout::contiguous(&[GIB as i64]),
            DType::U8,
            &Layout::contiguous(&[GIB as i64]),
            DType::U8,
        ),
        GIB,
    );
    // Each buffer starts on a 64-byte line, as a tensor of PyTorch's CPU allocator does (a
    // `Vec` of 1 GiB starts 16 bytes past a page: every streamed run would begin and end
    // mid-line).
    let (mut src_buf, mut dst_buf, mut out_buf) = (lined(), lined(), lined());
    let (src, dst, out) = (
        on_a_line(&mut src_buf),
        on_a_line(&mut dst_buf),
        on_a_line(&mut out_buf),
    );
    for (i, b) in src.iter_mut().enumerate() {
        *b = (i * 7 + (i >> 12)) as u8;
    }
    let (src, dst, out): (&[u8], &mut [u8], &mut [u8]) = (src, dst, out);
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
                let time = |work: &Work, into: &mut [u8], cpu: &mut Vec<f64>| {
                    let c0 = cpu_ns();
                    let t0 = Instant::now();
                    work.run(into, src, par);
                    let wall = t0.elapsed().as_secs_f64() * 1e3;
                    if let (Some(c0), Some(c1)) = (c0, cpu_ns()) {
                        cpu.push((c1 - c0) as f64 / 1e6);
                    }
                    wall
                };
                if r % 2 == 0 {
                    m.push(time(&memcpy, out, &mut mc));
                    c.push(time(&case.work, dst, &mut cc));
                } else {
                    c.push(time(&case.work, dst, &mut cc));
                    m.push(time(&memcpy, out, &mut mc));
                }
            }
            let (m, c) = (median(m), median(c));
            // The memcpy moves 1 GiB; a case that writes less is compared by rate.
            let part = case.work.bytes() as f64 / GIB as f64;
            let by_cpu = if mc.len() == rounds && cc.len() == rounds {
                let (mc, cc) = (median(mc), median(cc));
                format!("{mc:.1} | {cc:.1} | {:.0}%", 100.0 * mc * part / cc)
            } else {
                "n/a | n/a | n/a".to_string()
            };
            println!(
                "| {} | {t} | {m:.1} | {c:.1} | {:.0}% | {by_cpu} |",
                case.name,
                100.0 * m * part / c
            );
        }
    }
}
