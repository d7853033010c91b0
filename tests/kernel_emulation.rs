//! The layout kernels' own source, run on the host: cuda/gather_scatter.cu, permute.cu and
//! index.cu are compiled as C++ (a few lines of shims stand in for CUDA's keywords and
//! built-in variables) and every launch the planner decides is executed block by block,
//! thread by thread, then compared byte for byte with the CPU backend. This checks the
//! kernels' index arithmetic (offsets, tiles, batches, 16-byte lanes, 32- and 64-bit
//! variants, row gathers) and the converting kernels' casting rules on any machine with a
//! C++ compiler; tests/gpu_kernels.rs runs the same kernels on a GPU. Only the four
//! f16/bf16 conversions, PTX instructions on a GPU, are replaced here (by software with the
//! same round-to-nearest-even).
//!
//! Element-wise blocks run SK_BLOCK = 32 threads one after the other (they never
//! synchronise); row-gather blocks run their 32 lanes in lockstep (coroutines meeting at
//! each __shfl_sync); tile blocks run as one thread (their loops stride by blockDim.x, and
//! one thread makes __syncthreads a no-op).

#[path = "emulation/across.rs"]
mod across;
mod common;
#[path = "emulation/harness.rs"]
mod harness;
#[path = "emulation/narrow_test.rs"]
mod narrow_test;
#[path = "emulation/realign_cases.rs"]
mod realign_cases;
#[path = "emulation/row_cases.rs"]
mod row_cases;

use std::collections::BTreeSet;

use common::ew::{EwArg, EwCase, all_cases};
use common::{
    FLOAT_PAIRS, POISON, Rng, assert_ran, convert_variants, large_packed_cases,
    out_of_range_gather, packed_cases, random_base, random_bytes, random_destination,
    random_gather, random_view, storage_len, transpose_cases, widths,
};
use stridekit::backend::cpu;
use stridekit::backend::cuda::divisor;
use stridekit::backend::cuda::elementwise::ew_launch;
use stridekit::backend::cuda::params::{
    SkEw32, SkEw64, SkRowGather, SkStrided32, SkStrided64, SkTile,
};
use stridekit::backend::cuda::{DeviceLimits, GpuLaunch, GpuPlan, LaunchParams, RowGatherPlan};
use stridekit::plan::CopyPlan;
use stridekit::{DType, Layout, Storage};

use harness::{Job, harness, kernel_named, run_jobs, run_jobs_flagged, struct_bytes};

/// The launch as decided, and the same launch through the other index width's kernel
/// (every 32-bit launch's values fit in 64 bits, so both must give the same bytes).
fn both_index_widths(l: &GpuLaunch) -> Vec<(&'static str, Vec<u8>)> {
    let name = l.kernel.name();
    let other = |from: &str, to: &str| kernel_named(&name.replace(from, to));
    match l.params {
        LaunchParams::Strided32(p) => {
            let mut q = SkStrided64 {
                numel: p.numel as i64,
                rank: p.rank,
                dst_offset: p.dst_offset as i64,
                src_offset: p.src_offset as i64,
                dst_dtype: p.dst_dtype,
                src_dtype: p.src_dtype,
                ..Default::default()
            };
            for k in 0..q.sizes.len() {
                q.sizes[k] = p.sizes[k] as i64;
                q.dst_strides[k] = p.dst_strides[k] as i64;
                q.src_strides[k] = p.src_strides[k] as i64;
            }
            q.size_divs = divisor::divs64(&q.sizes);
            vec![
                (name, struct_bytes::<SkStrided32>(&p)),
                (other("_i32", "_i64"), struct_bytes::<SkStrided64>(&q)),
            ]
        }
        LaunchParams::Strided64(p) => vec![(name, struct_bytes::<SkStrided64>(&p))],
        LaunchParams::Tile(p) => {
            let bytes = struct_bytes::<SkTile>(&p);
            // The stacked 16-byte tile (sk_tilevs_*, 32-bit only): the 64-bit 16-byte tile,
            // one batch index per item on the same threads, is its twin.
            let twin = if name.starts_with("sk_tilevs_") {
                kernel_named(
                    &name
                        .replace("sk_tilevs_", "sk_tilev_")
                        .replace("_i32", "_i64"),
                )
            } else if name.ends_with("_i32") {
                other("_i32", "_i64")
            } else {
                other("_i64", "_i32")
            };
            // A packed tile with a ragged last chunk is planned for 32-bit indices only
            // (permute.cu sk_tilep_ragged): the 64-bit kernel would ignore it.
            let ragged = name.starts_with("sk_tilep_") && (p.src_dtype > 0 || p.dst_dtype > 0);
            if ragged {
                return vec![(name, bytes)];
            }
            vec![(name, bytes.clone()), (twin, bytes)]
        }
        LaunchParams::Rows(p) => vec![(name, struct_bytes::<SkRowGather>(&p))],
        LaunchParams::Ew32(p) => vec![(name, struct_bytes::<SkEw32>(&p))],
        LaunchParams::Ew64(p) => vec![(name, struct_bytes::<SkEw64>(&p))],
    }
}

/// The plan's grid, and for the scalar, 16-byte and converting tiles (which walk several
/// tiles and batch indices per block: tile.cuh sk_tile_walk) two smaller ones, so that
/// blocks walk several tiles and batch chunks (and a single block all of them).
fn grids(l: &GpuLaunch) -> Vec<(u32, u32)> {
    let (gx, gy) = (l.grid.0, l.grid.1);
    let name = l.kernel.name();
    // Every tile but the packed one (sk_tile_, sk_tilev(s)_, sk_tilecvt_, sk_tilen_, sk_tilem_).
    if name.starts_with("sk_tile") && !name.starts_with("sk_tilep_") {
        vec![(gx, gy), (gx.div_ceil(3), gy.div_ceil(2)), (1, 1)]
    } else if name.starts_with("sk_realign_") {
        // Warps that walk several runs (one warp: all of them).
        vec![(gx, gy), (gx.div_ceil(3), gy), (1, 1)]
    } else {
        vec![(gx, gy)]
    }
}

/// Jobs for one copy: every launch the plan holds (element-width and 16-byte words), each
/// through both index widths.
fn copy_jobs(
    (src, st): (&Layout, DType),
    src_bytes: &[u8],
    (dst, dt): (&Layout, DType),
    what: &str,
) -> Vec<Job> {
    let plan = CopyPlan::copy(dst, dt, src, st);
    let dst_bytes = vec![POISON; storage_len(dst) * dt.itemsize()];
    let mut want = dst_bytes.clone();
    cpu::copy(&plan, &mut want, src_bytes);
    // Planned for an H200 (227 KB of shared memory per block by opt-in: the packed tile's
    // large sizes; the harness's shared array is that large).
    let launches = match GpuPlan::for_device(&plan, DeviceLimits::H200).unwrap() {
        GpuPlan::Kernel { narrow, wide } => {
            let mut v = vec![narrow];
            v.extend(wide.map(|(w, _)| w));
            v
        }
        // Memcpy and empty plans launch no kernel.
        _ => Vec::new(),
    };
    let mut jobs = Vec::new();
    for l in launches {
        for ((kernel, params), grid) in both_index_widths(&l)
            .into_iter()
            .flat_map(|k| grids(&l).into_iter().map(move |g| (k.clone(), g)))
        {
            jobs.push(Job {
                kernel,
                grid,
                params,
                dst: dst_bytes.clone(),
                src: src_bytes.to_vec(),
                index: Vec::new(),
                extra: Vec::new(),
                want: want.clone(),
                what: format!("{what}: {st} {src:?} -> {dt} {dst:?}"),
            });
        }
    }
    jobs
}

#[test]
fn random_copies_run_the_kernels_source_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 1);
    let mut jobs = Vec::new();
    for case in 0..1500 {
        let dt = rng.dtype();
        let base = random_base(&mut rng);
        let len = storage_len(&base) + rng.range(0, 3) as usize;
        let bytes = random_bytes(&mut rng, len, dt, dt);
        let host = Storage::from_bytes(bytes.clone());
        let src = random_view(&mut rng, &host, base, dt);
        let dst = random_destination(&mut rng, src.sizes());
        let what = format!("case {case}");
        jobs.extend(copy_jobs((src.layout(), dt), &bytes, (&dst, dt), &what));
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!("{} launches emulated; kernels: {used:?}", jobs.len());
    let families = ["strided", "gather", "scatter"];
    assert_ran(
        &used,
        &families,
        &widths(&[1, 2, 4, 8, 16]),
        &["i32", "i64"],
    );
}

/// The realigning copy (tests/emulation/realign_cases.rs): every run length, offset
/// residue, word and index width, on the plan's grid, a third of it and one block.
#[test]
fn realigned_runs_match_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 25);
    let mut jobs = Vec::new();
    for c in realign_cases::realign_cases(&mut rng) {
        let js = copy_jobs((&c.src, c.dtype), &c.bytes, (&c.dst, c.dtype), &c.what);
        // The copy kernels' launches of 4- and 8-byte words also through the realigning
        // kernel (same parameters; it grid-strides over the runs): runs shorter than the
        // plan takes. Runs of one element fold away (no contiguous innermost dimension).
        let run = c.src.sizes().last().copied().unwrap_or(0);
        let direct: Vec<Job> = js
            .iter()
            .filter(|_| run > 1)
            .filter_map(|j| {
                let (family, rest) = j.kernel.strip_prefix("sk_")?.split_once("_w")?;
                let direct = ["gather", "scatter", "strided"].contains(&family)
                    && (rest.starts_with("4_") || rest.starts_with("8_"));
                direct.then(|| Job {
                    kernel: kernel_named(&format!("sk_realign_w{rest}")),
                    what: format!("{} (direct)", j.what),
                    ..j.clone()
                })
            })
            .collect();
        jobs.extend(js);
        jobs.extend(direct);
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!("{} launches emulated; kernels: {used:?}", jobs.len());
    assert_ran(&used, &["realign"], &widths(&[4, 8]), &["i32", "i64"]);
}

#[test]
fn transposes_run_both_tile_kernels_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 2);
    let mut jobs = Vec::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        for c in transpose_cases(&mut rng, dt, dt) {
            jobs.extend(copy_jobs((&c.src, dt), &c.bytes, (&c.dst, dt), &c.what));
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!("{} launches emulated; kernels: {used:?}", jobs.len());
    assert_ran(
        &used,
        &["tile", "tilev"],
        &widths(&[1, 2, 4, 8]),
        &["i32", "i64"],
    );
}

/// Random permutations of small dimensions run the packed tile (and the scalar one where
/// it is kept), every width and both index widths, byte for byte.
#[test]
fn random_permutations_run_the_packed_tile_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 7);
    let mut jobs = Vec::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        for c in packed_cases(&mut rng, dt, 150) {
            jobs.extend(copy_jobs((&c.src, dt), &c.bytes, (&c.dst, dt), &c.what));
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!("{} launches emulated; kernels: {used:?}", jobs.len());
    assert_ran(&used, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32", "i64"]);
}

/// The packed-tile launch (`sk_tilep_*`) the plan picks for an H200 to copy `src` into
/// `dst`, if it picks one: the kernel's name, its dynamic shared memory, its tile
/// parameters and the plan's rank.
fn packed_launch(
    src: &Layout,
    dst: &Layout,
    dt: DType,
) -> Option<(&'static str, u32, SkTile, usize)> {
    let plan = CopyPlan::copy(dst, dt, src, dt);
    let Ok(GpuPlan::Kernel { narrow, .. }) = GpuPlan::for_device(&plan, DeviceLimits::H200) else {
        return None;
    };
    let LaunchParams::Tile(p) = narrow.params else {
        return None;
    };
    let name = narrow.kernel.name();
    name.starts_with("sk_tilep_")
        .then_some((name, narrow.shared_bytes, p, plan.sizes.len()))
}

/// Packed tiles past 48 KB of shared memory (planned for an H200's 227 KB) and packed tiles
/// with a split dimension (cuTT's PackedSplit: a group takes a divisor of its outermost
/// dimension, the batch walks the chunks): of the cases of [`large_packed_cases`], the first
/// of each kind per width (none past 48 KB for 1-byte elements, whose tiles cannot keep
/// 20 KB in flight per SM there), both index widths, byte for byte.
#[test]
fn large_and_split_packed_tiles_match_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 9);
    let mut jobs = Vec::new();
    let (mut large, mut split) = (BTreeSet::new(), BTreeSet::new());
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let (mut took_large, mut took_split) = (false, false);
        for c in large_packed_cases(&mut rng, dt, 30) {
            let Some((name, shared_bytes, p, rank)) = packed_launch(&c.src, &c.dst, dt) else {
                continue;
            };
            let is_large = shared_bytes > 48 * 1024;
            let is_split = (p.batch_rank + p.tile_a + p.tile_b) as usize > rank;
            if (is_large && !took_large) || (is_split && !took_split) {
                if is_large {
                    (took_large, _) = (true, large.insert(name));
                }
                if is_split {
                    (took_split, _) = (true, split.insert(name));
                }
                jobs.extend(copy_jobs((&c.src, dt), &c.bytes, (&c.dst, dt), &c.what));
            }
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!(
        "{} launches emulated; past 48 KB: {large:?}; split: {split:?}; kernels: {used:?}",
        jobs.len()
    );
    assert_ran(&large, &["tilep"], &widths(&[4, 8]), &["i32"]);
    assert_ran(&split, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32"]);
}

/// Packed tiles whose source runs cross rows (the A group's innermost dimension follows
/// the B group in the source and the pitch is n_b: `tiles_b` rows per run, `src_stride_a`
/// elements): of the cases of [`packed_cases`], [`large_packed_cases`] and
/// [`across::rows_across_cases`], the first three per width whose plan (for an H200) runs more than one row per source run, both index
/// widths, byte for byte.
#[test]
fn packed_tiles_with_runs_across_rows_match_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 11);
    let mut jobs = Vec::new();
    let mut across = BTreeSet::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let mut took = 0;
        let mut cases = packed_cases(&mut rng, dt, 150);
        cases.extend(large_packed_cases(&mut rng, dt, 30));
        cases.extend(across::rows_across_cases(&mut rng, dt));
        for c in cases {
            let Some((name, _, p, _)) = packed_launch(&c.src, &c.dst, dt) else {
                continue;
            };
            if p.tiles_b > 1 && took < 3 {
                let row = p.n_b * p.dst_stride_b.max(1);
                assert_eq!(p.src_stride_a, row * p.tiles_b as i64, "{}", c.what);
                took += 1;
                across.insert(name);
                jobs.extend(copy_jobs((&c.src, dt), &c.bytes, (&c.dst, dt), &c.what));
            }
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!(
        "{} launches emulated; runs across rows: {across:?}; kernels: {used:?}",
        jobs.len()
    );
    assert_ran(&across, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32"]);
    assert_ran(&used, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32", "i64"]);
}

/// Gathers that keep a short innermost run, through the packed tile of runs (`dst_stride_b`
/// = the run's elements > 1): of [`across::run_cases`], the first three per width whose
/// plan (for an H200) takes it, both index widths, byte for byte.
#[test]
fn packed_tiles_of_kept_runs_match_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 13);
    let mut jobs = Vec::new();
    let mut runs = BTreeSet::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let mut took = 0;
        for c in across::run_cases(&mut rng, dt, 40) {
            let Some((name, _, p, _)) = packed_launch(&c.src, &c.dst, dt) else {
                continue;
            };
            if p.dst_stride_b > 1 && took < 3 {
                took += 1;
                runs.insert(name);
                jobs.extend(copy_jobs((&c.src, dt), &c.bytes, (&c.dst, dt), &c.what));
            }
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!(
        "{} launches emulated; packed tiles of runs: {runs:?}; kernels: {used:?}",
        jobs.len()
    );
    assert_ran(&runs, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32"]);
    assert_ran(&used, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32", "i64"]);
}

/// Packed tiles whose first two dimensions are too large to take whole, so each group
/// starts from a divisor of its dimension (packed.rs `split_start`; transposes and gathers
/// of kept runs): of [`across::split_start_cases`], the first two transposes and the first
/// two gathers per width whose plan (for an H200) starts so, both index widths, byte for
/// byte. None of 1 byte: their tiles
/// never keep 20 KB in flight per SM, which the split start requires.
#[test]
fn packed_tiles_of_split_first_dimensions_match_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 15);
    let mut jobs = Vec::new();
    let mut split = BTreeSet::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let mut took = [0; 2];
        for c in across::split_start_cases(&mut rng, dt) {
            let Some((name, _, p, rank)) = packed_launch(&c.src, &c.dst, dt) else {
                continue;
            };
            let runs = usize::from(p.dst_stride_b > 1);
            let started_split =
                p.tile_a == 1 && p.tile_b == 1 && p.batch_rank as usize + 2 > rank - runs;
            if started_split && took[runs] < 2 {
                took[runs] += 1;
                split.insert(name);
                eprintln!("{name}: {} (n_a {}, n_b {})", c.what, p.n_a, p.n_b);
                jobs.extend(copy_jobs((&c.src, dt), &c.bytes, (&c.dst, dt), &c.what));
            }
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!(
        "{} launches emulated; split first dimensions: {split:?}; kernels: {used:?}",
        jobs.len()
    );
    // Since the split start may take a ragged last chunk (32-bit indices only, so those
    // plans have no 64-bit twin), 64-bit runs are only those of divisor chunks here
    // (large_and_split_packed_tiles_match_the_cpu_backend runs both widths).
    assert_ran(&split, &["tilep"], &widths(&[2, 4, 8]), &["i32"]);
    assert_ran(&used, &["tilep"], &widths(&[2, 4, 8]), &["i32"]);
}

/// Packed tiles whose split start has a ragged last chunk on one side or both (packed.rs
/// `split_start`; permute.cu masks the last chunk's rows and columns): of
/// [`across::ragged_start_cases`] (prime dimensions), the first three plans per width that
/// have one, both index widths (the 64-bit plans without the ragged chunk), byte for byte.
#[test]
fn packed_tiles_with_ragged_last_chunks_match_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 16);
    let mut jobs = Vec::new();
    let mut ragged = BTreeSet::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let mut took = 0;
        for c in across::ragged_start_cases(&mut rng, dt) {
            let Some((name, _, p, _)) = packed_launch(&c.src, &c.dst, dt) else {
                continue;
            };
            if (p.src_dtype > 0 || p.dst_dtype > 0) && took < 3 {
                took += 1;
                ragged.insert(name);
                eprintln!(
                    "{name}: {} (n_a {}, n_b {}, last chunks {} / {})",
                    c.what, p.n_a, p.n_b, p.src_dtype, p.dst_dtype
                );
                jobs.extend(copy_jobs((&c.src, dt), &c.bytes, (&c.dst, dt), &c.what));
            }
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!(
        "{} launches emulated; ragged last chunks: {ragged:?}; kernels: {used:?}",
        jobs.len()
    );
    // 32-bit indices only: the 64-bit plans (run as well) take no ragged chunk.
    assert_ran(&ragged, &["tilep"], &widths(&[2, 4, 8]), &["i32"]);
    assert_ran(&used, &["tilep"], &widths(&[2, 4, 8]), &["i32"]);
}

#[test]
fn converting_copies_run_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 4);
    let mut jobs = Vec::new();
    for &st in &DType::ALL {
        for &dt in &DType::ALL {
            if st == dt {
                continue;
            }
            for case in 0..10 {
                let base = random_base(&mut rng);
                let len = storage_len(&base) + rng.range(0, 3) as usize;
                let bytes = random_bytes(&mut rng, len, st, dt);
                let host = Storage::from_bytes(bytes.clone());
                let src = random_view(&mut rng, &host, base, st);
                let dst = random_destination(&mut rng, src.sizes());
                let what = format!("case {case}");
                jobs.extend(copy_jobs((src.layout(), st), &bytes, (&dst, dt), &what));
            }
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    assert_ran(&used, &["convert"], &convert_variants(0), &["i32", "i64"]);
}

/// Converting transposes between the specialised float pairs take the converting tile
/// (both index widths); other pairs the element-wise kernel.
#[test]
fn converting_transposes_run_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 5);
    // The tile's float pairs, and two pairs that transpose element-wise.
    let others = [(DType::I32, DType::F16), (DType::F32, DType::U8)];
    let mut jobs = Vec::new();
    for (st, dt) in FLOAT_PAIRS.into_iter().chain(others) {
        for c in transpose_cases(&mut rng, st, dt) {
            jobs.extend(copy_jobs((&c.src, st), &c.bytes, (&c.dst, dt), &c.what));
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    assert_ran(&used, &["tilecvt"], &convert_variants(1), &["i32", "i64"]);
    assert!(used.contains("sk_convert_any_i32"));
}

/// Values at the edges of the casting rules: f16/bf16 rounding ties, overflow to
/// infinity, subnormals, integer wrap-around and truncation, bool from floats.
#[test]
fn conversion_edges_run_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let floats: [f64; 26] = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        2.5,
        0.1,
        65504.0,
        65519.0,
        65520.0,
        -1e6,
        1e-8,
        6e-8,
        3e-5,
        1.0009765625,
        1.00048828125,
        1.000732421875,
        3.390625,
        255.9,
        256.0,
        -128.5,
        127.9,
        2147483520.0,
        1e20,
        1.0078125,
        1.00390625,
        33.3,
    ];
    let mut jobs = Vec::new();
    for &st in &[DType::F64, DType::F32, DType::F16, DType::BF16] {
        for &dt in &DType::ALL {
            if st == dt {
                continue;
            }
            let mut bytes = vec![0; floats.len() * st.itemsize()];
            for (i, &f) in floats.iter().enumerate() {
                // Float -> unsigned/small int of a value out of range is undefined in C and
                // differs between x86 and GPUs; c10 has the same hole. Keep to defined ones.
                let v = if !dt.is_floating() && dt != DType::Bool && !(0.0..128.0).contains(&f) {
                    f.abs() % 100.0
                } else {
                    f
                };
                stridekit::Scalar::Float(v).write(st, &mut bytes[i * st.itemsize()..]);
            }
            let l = Layout::contiguous(&[floats.len() as i64]);
            // A strided destination, so the plan is a kernel and not a memcpy.
            let dst = Layout::new(&[floats.len() as i64], &[2], 1).unwrap();
            jobs.extend(copy_jobs((&l, st), &bytes, (&dst, dt), "edges"));
        }
    }
    let ints: [i64; 8] = [0, 1, -1, 127, -128, 255, 32767, -2147483648];
    for &st in &[DType::I64, DType::I32] {
        for &dt in &DType::ALL {
            if st == dt {
                continue;
            }
            let mut bytes = vec![0; ints.len() * st.itemsize()];
            for (i, &v) in ints.iter().enumerate() {
                stridekit::Scalar::Int(v).write(st, &mut bytes[i * st.itemsize()..]);
            }
            let l = Layout::contiguous(&[ints.len() as i64]);
            let dst = Layout::new(&[ints.len() as i64], &[3], 2).unwrap();
            jobs.extend(copy_jobs((&l, st), &bytes, (&dst, dt), "integer edges"));
        }
    }
    run_jobs(&exe, &jobs).unwrap();
}

#[test]
fn row_gathers_run_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 3);
    let mut jobs = Vec::new();
    for case in 0..300 {
        let c = random_gather(&mut rng, 60, 80);
        let (dt, shape) = (c.dtype, c.shape);
        for index64 in [false, true] {
            let index = c.index_bytes(index64);
            let plan = RowGatherPlan::new(dt, shape, index64);
            for l in [Some(plan.narrow), plan.wide.map(|(w, _)| w)]
                .into_iter()
                .flatten()
            {
                jobs.push(Job {
                    kernel: l.kernel.name(),
                    grid: (l.grid.0, l.grid.1),
                    params: struct_bytes(&match l.params {
                        LaunchParams::Rows(p) => p,
                        other => panic!("{other:?}"),
                    }),
                    dst: vec![POISON; c.want.len()],
                    src: c.src.clone(),
                    index: index.clone(),
                    extra: Vec::new(),
                    want: c.want.clone(),
                    what: format!("case {case}: {dt} {shape:?}"),
                });
            }
        }
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    assert_ran(
        &used,
        &["rows"],
        &widths(&[1, 2, 4, 8, 16]),
        &["idx32", "idx64"],
    );
}

/// Every path of sk_rows_body (tests/emulation/row_cases.rs): rows of 1 to 70 words packed
/// several per warp step or walked by the whole warp, 1 to 1100 rows (partial chunks,
/// several chunks per warp with the next indices loaded ahead), bad indices among good
/// ones (their rows untouched, the flag set), every word width, both index widths.
#[test]
fn row_gathers_of_every_row_length_and_count_run_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 9);
    let (mut jobs, mut flags) = (Vec::new(), Vec::new());
    for c in row_cases::row_cases(&mut rng, &[1, 31, 33, 100, 1100]) {
        for index64 in [false, true] {
            for l in c.launches(index64) {
                jobs.push(Job {
                    kernel: l.kernel.name(),
                    grid: (l.grid.0, l.grid.1),
                    params: struct_bytes(&row_cases::params_of(&l)),
                    dst: vec![POISON; c.want.len()],
                    src: c.src.clone(),
                    index: c.index_bytes(index64),
                    extra: Vec::new(),
                    want: c.want.clone(),
                    what: format!("{} grid {:?}", c.what, l.grid),
                });
                flags.push(c.flag);
            }
        }
    }
    let used = run_jobs_flagged(&exe, &jobs, &flags).unwrap();
    eprintln!("{} row gathers emulated", jobs.len());
    assert!(flags.iter().any(|f| *f) && flags.iter().any(|f| !*f));
    assert_ran(
        &used,
        &["rows"],
        &widths(&[1, 2, 4, 8, 16]),
        &["idx32", "idx64"],
    );
}

/// An out-of-range index (negative ones too) sets the flag and leaves its row untouched.
#[test]
fn row_gather_flags_out_of_range_indices() {
    let Some(exe) = harness() else {
        return;
    };
    let c = out_of_range_gather();
    let plan = RowGatherPlan::new(c.dtype, c.shape, true);
    let LaunchParams::Rows(p) = plan.narrow.params else {
        panic!()
    };
    let job = Job {
        kernel: plan.narrow.kernel.name(),
        grid: (plan.narrow.grid.0, 1),
        params: struct_bytes(&p),
        dst: vec![POISON; c.want.len()],
        index: c.index_bytes(true),
        extra: Vec::new(),
        src: c.src,
        want: c.want,
        what: "out of range".into(),
    };
    // The rows in range are written (and compared); the flag reports the others.
    let err = run_jobs(&exe, std::slice::from_ref(&job)).expect_err("the flag must be set");
    assert!(err.contains("error flag set"), "{err}");
}

/// Jobs for one element-wise case: the planned launch through the 32-bit index kernel (when
/// it fits) and the 64-bit one.
fn ew_jobs(c: &EwCase) -> Vec<Job> {
    let kinputs = c.kernel_inputs();
    let spec = c.spec(&kinputs);
    let plan = c.plan();
    let bytes = |k: usize| match c.inputs.get(k) {
        Some(EwArg::Tensor { bytes, .. }) => bytes.clone(),
        _ => Vec::new(),
    };
    let mut jobs = Vec::new();
    for sub in plan.split_outer(8) {
        for force64 in [false, true] {
            let Some(l) = ew_launch(&sub, &spec, force64).unwrap() else {
                continue;
            };
            let params = match l.params {
                LaunchParams::Ew32(p) => struct_bytes(&p),
                LaunchParams::Ew64(p) => struct_bytes(&p),
                other => panic!("{other:?}"),
            };
            jobs.push(Job {
                kernel: l.kernel.name(),
                grid: (l.grid.0, l.grid.1),
                params,
                dst: c.out_init.clone(),
                src: bytes(0),
                index: bytes(1),
                extra: bytes(2),
                want: c.want.clone(),
                what: c.what.clone(),
            });
        }
    }
    jobs
}

/// Every element-wise op x dtype (and mixed promotions) x layout (contiguous, channels_last,
/// permuted, broadcast, flipped with negative strides, gapped slices at offsets, Python
/// numbers and 0-d tensors, in place into a gapped view) through cuda/elementwise.cu, both
/// index widths, byte for byte against the CPU backend.
#[test]
fn elementwise_ops_run_the_kernels_source_like_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 6);
    let cases = all_cases(&mut rng);
    let mut jobs = Vec::new();
    for c in &cases {
        jobs.extend(ew_jobs(c));
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!(
        "{} element-wise cases, {} launches emulated",
        cases.len(),
        jobs.len()
    );
    assert_ran(
        &used,
        &["ew"],
        &["bool", "int", "f32", "f64"].map(String::from),
        &["i32", "i64"],
    );
    // Every op ran, in every computation class it accepts.
    for (op, _) in common::ew::ops() {
        let name = format!("{op:?}");
        let n = cases
            .iter()
            .filter(|c| format!("{:?}", c.op) == name)
            .count();
        assert!(n >= 30, "{name}: only {n} cases");
    }
}
