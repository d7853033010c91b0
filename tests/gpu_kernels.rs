//! The CUDA backend against the CPU backend, on a real GPU.
//!
//! Every test opens cuda:0 first; on a machine without a GPU (or without a driver) it
//! prints that it was skipped and why, and passes. On a GPU, each test compares whole
//! storages byte for byte: destinations are poisoned first, so a kernel that writes too
//! little, too much or in the wrong place fails. `scripts/gpu-check` runs these binaries
//! (and compute-sanitizer over them) on the GPU machine.

use std::collections::BTreeSet;

#[path = "emulation/across.rs"]
mod across;
mod common;
#[path = "gpu/narrow.rs"]
mod narrow;
#[path = "emulation/narrow_cases.rs"]
mod narrow_cases;
#[path = "gpu/realign.rs"]
mod realign;
#[path = "emulation/realign_cases.rs"]
mod realign_cases;
#[path = "emulation/row_cases.rs"]
mod row_cases;
#[path = "gpu/rows.rs"]
mod rows;
use common::{
    FLOAT_PAIRS, POISON, Rng, assert_ran, convert_variants, gpu, large_packed_cases,
    out_of_range_gather, packed_cases, random_base, random_bytes, random_destination,
    random_gather, random_view, storage_len, transpose_cases, widths,
};

use stridekit::backend::cuda::params::SkTile;
use stridekit::backend::cuda::{
    DeviceBuffer, DeviceLimits, Gpu, GpuPlan, LaunchParams, RowGatherPlan,
};
use stridekit::plan::CopyPlan;
use stridekit::{DType, Device, Layout, MemoryFormat, Scalar, Storage, Tensor};
const CUDA0: Device = Device::Cuda(0);

/// The same bytes on the host and on cuda:0.
fn twin(bytes: Vec<u8>) -> (Storage, Storage) {
    let dev = Storage::on_device(CUDA0, bytes.clone()).expect("upload");
    (Storage::from_bytes(bytes), dev)
}

/// The kernel a copy launches (for coverage), from the same plan the tensor code builds.
fn kernel_name(dst: &Tensor, src: &Tensor, dptr: u64, sptr: u64) -> &'static str {
    let plan = CopyPlan::copy(dst.layout(), dst.dtype(), src.layout(), src.dtype());
    // Planned for the device, as the tensor code plans (its opt-in shared memory).
    let limits = Gpu::shared(0).unwrap().limits();
    match GpuPlan::for_device(&plan, limits).unwrap() {
        GpuPlan::Empty => "empty",
        GpuPlan::Memcpy { .. } => "memcpy",
        p => p.launch_for(dptr, sptr).unwrap().kernel.name(),
    }
}

/// Runs `dst.copy_(src)` on both backends (the source over twin storages) and compares the
/// whole destination storages, poisoned first. Returns the kernel the GPU ran.
fn compare(
    (src_h, src_d): &(Storage, Storage),
    src_layout: &Layout,
    st: DType,
    dst_layout: &Layout,
    dt: DType,
    case: &str,
) -> &'static str {
    let (dst_hs, dst_ds) = twin(vec![POISON; storage_len(dst_layout) * dt.itemsize()]);
    let dst_h = Tensor::from_storage(dst_hs, dst_layout.clone(), dt).unwrap();
    let dst_d = Tensor::from_storage(dst_ds, dst_layout.clone(), dt).unwrap();
    let src_h = Tensor::from_storage(src_h.clone(), src_layout.clone(), st).unwrap();
    let src_d = Tensor::from_storage(src_d.clone(), src_layout.clone(), st).unwrap();
    let what = format!(
        "{case}: {st} {:?}/{:?}+{} -> {dt} {:?}/{:?}+{}",
        src_h.sizes(),
        src_h.strides(),
        src_h.storage_offset(),
        dst_h.sizes(),
        dst_h.strides(),
        dst_h.storage_offset()
    );
    dst_h.copy_(&src_h).expect(&what);
    dst_d.copy_(&src_d).expect(&what);
    let ptr = |t: &Tensor| t.storage().cuda().unwrap().ptr();
    let kernel = kernel_name(&dst_d, &src_d, ptr(&dst_d), ptr(&src_d));
    let want = dst_h.storage().to_host().unwrap();
    let got = dst_d.storage().to_host().unwrap();
    if want != got {
        let first = want.iter().zip(&got).position(|(a, b)| a != b).unwrap();
        panic!(
            "{what} ({kernel}): GPU differs from CPU at byte {first} (want {:#04x}, got {:#04x})",
            want[first], got[first]
        );
    }
    kernel
}

/// `compare` through the 64-bit index kernels: the plan is forced to them and launched on
/// the twin storages directly. Returns the kernel run.
fn compare_64bit(
    (src_h, src_d): &(Storage, Storage),
    src_layout: &Layout,
    st: DType,
    dst_layout: &Layout,
    dt: DType,
    case: &str,
) -> &'static str {
    let gpu = Gpu::shared(0).unwrap();
    let plan = CopyPlan::copy(dst_layout, dt, src_layout, st);
    let g = GpuPlan::with_64bit_indices_for(&plan, gpu.limits()).unwrap();
    let mut want = vec![POISON; storage_len(dst_layout) * dt.itemsize()];
    stridekit::backend::cpu::copy(&plan, &mut want, &src_h.to_host().unwrap());
    let dst = DeviceBuffer::from_host(&gpu, &vec![POISON; want.len()]).unwrap();
    let src = src_d.cuda().unwrap();
    // SAFETY: both buffers hold every element the plan addresses.
    unsafe { gpu.copy(&g, dst.ptr(), src.ptr()) }.unwrap();
    let kernel = match g.launch_for(dst.ptr(), src.ptr()) {
        Some(l) => l.kernel.name(),
        None => "memcpy or empty",
    };
    assert_eq!(
        dst.to_host().unwrap(),
        want,
        "{case} ({kernel}): 64-bit kernels differ"
    );
    kernel
}

/// Runs each case (what, dtype, source bytes, source and destination layouts) through
/// `compare` and `compare_64bit`, and checks that the kernels of `families` ran for every
/// word width of `ws` in both index widths (tests/gpu/narrow.rs, tests/gpu/realign.rs).
fn cases_match_the_cpu_backend(
    cases: impl IntoIterator<Item = (String, DType, Vec<u8>, Layout, Layout)>,
    families: &[&str],
    ws: &[usize],
) {
    let mut used = BTreeSet::new();
    for (what, dt, bytes, src, dst) in cases {
        let storages = twin(bytes);
        used.insert(compare(&storages, &src, dt, &dst, dt, &what));
        let what = format!("{what} (64-bit)");
        used.insert(compare_64bit(&storages, &src, dt, &dst, dt, &what));
    }
    eprintln!("kernels used: {used:?}");
    assert_ran(&used, families, &widths(ws), &["i32", "i64"]);
}

/// One random copy: a random view of random data into a random destination layout.
fn check_copy(rng: &mut Rng, case: usize, st: DType, dt: DType, used: &mut BTreeSet<&str>) {
    let base = random_base(rng);
    let src_len = storage_len(&base) + rng.range(0, 3) as usize;
    let storages = twin(random_bytes(rng, src_len, st, dt));
    let src = random_view(rng, &storages.0, base, st);
    let dst = random_destination(rng, src.sizes());
    used.insert(compare(
        &storages,
        src.layout(),
        st,
        &dst,
        dt,
        &format!("case {case}"),
    ));
}

#[test]
fn pure_copies_match_the_cpu_backend() {
    let Some(_gpu) = gpu("pure_copies_match_the_cpu_backend") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0001);
    let mut used = BTreeSet::new();
    for case in 0..3000 {
        let dt = rng.dtype();
        check_copy(&mut rng, case, dt, dt, &mut used);
    }
    eprintln!("kernels used: {used:?}");
    let families = ["strided", "gather", "scatter", "tile"];
    assert_ran(&used, &families, &widths(&[1, 2, 4, 8]), &["i32"]);
    assert!(used.contains("sk_gather_w16_i32") && used.contains("memcpy"));
}

#[test]
fn converting_copies_match_the_cpu_backend() {
    let Some(_gpu) = gpu("converting_copies_match_the_cpu_backend") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0002);
    let mut used = BTreeSet::new();
    let mut case = 0;
    for &st in &DType::ALL {
        for &dt in &DType::ALL {
            if st == dt {
                continue;
            }
            for _ in 0..12 {
                check_copy(&mut rng, case, st, dt, &mut used);
                case += 1;
            }
        }
    }
    // Converting transposes: the converting tile for the float pairs.
    for (st, dt) in FLOAT_PAIRS {
        for c in transpose_cases(&mut rng, st, dt) {
            let storages = twin(c.bytes);
            used.insert(compare(&storages, &c.src, st, &c.dst, dt, &c.what));
        }
    }
    eprintln!("kernels used: {used:?}");
    assert_ran(&used, &["tilecvt"], &convert_variants(1), &["i32"]);
    assert_ran(&used, &["convert"], &convert_variants(0), &["i32"]);
}

/// Transposes and permutes whose sizes, strides and offsets allow 16-byte words on both
/// sides (the vector tile), next to ones that do not (the element-wise tile), for every
/// element width, with batch dimensions and partial edge tiles.
#[test]
fn transposes_with_sixteen_byte_words() {
    let Some(_gpu) = gpu("transposes_with_sixteen_byte_words") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0005);
    let mut used = BTreeSet::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        for c in transpose_cases(&mut rng, dt, dt) {
            let storages = twin(c.bytes);
            used.insert(compare(&storages, &c.src, dt, &c.dst, dt, &c.what));
        }
    }
    eprintln!("kernels used: {used:?}");
    assert_ran(&used, &["tile", "tilev"], &widths(&[1, 2, 4, 8]), &["i32"]);
}

/// Every kernel that uses shared memory (the element-wise tile, the 16-byte tile and the
/// converting tile) in both index widths, on transposes only: the one test that
/// `scripts/gpu-check` runs under compute-sanitizer's racecheck, so it must stay small.
#[test]
fn shared_memory_tiles_in_both_index_widths() {
    let Some(_gpu) = gpu("shared_memory_tiles_in_both_index_widths") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0008);
    let mut used = BTreeSet::new();
    let pairs = [DType::I8, DType::F16, DType::F32, DType::F64]
        .map(|d| (d, d))
        .into_iter()
        .chain(FLOAT_PAIRS);
    for (st, dt) in pairs {
        for c in transpose_cases(&mut rng, st, dt) {
            let storages = twin(c.bytes);
            used.insert(compare(&storages, &c.src, st, &c.dst, dt, &c.what));
            used.insert(compare_64bit(&storages, &c.src, st, &c.dst, dt, &c.what));
        }
    }
    eprintln!("kernels used: {used:?}");
    assert_ran(
        &used,
        &["tile", "tilev"],
        &widths(&[1, 2, 4, 8]),
        &["i32", "i64"],
    );
    assert_ran(&used, &["tilecvt"], &convert_variants(1), &["i32", "i64"]);
}

/// The packed tile (`sk_tilep_*`, whole small dimensions on both sides, sector-aligned
/// runs): random permutations of ranks 3-7 that the plan sends to it, in every width and
/// both index widths, as tests/kernel_emulation.rs runs them on the host; then tiles past
/// 48 KB of shared memory (the device's opt-in limit: cuFuncSetAttribute on first launch)
/// or with a split dimension (PackedSplit), two per width where the plan makes one. A few cases per width, so
/// compute-sanitizer's racecheck over it stays short.
#[test]
fn packed_tiles_match_the_cpu_backend() {
    let Some(gpu) = gpu("packed_tiles_match_the_cpu_backend") else {
        return;
    };
    let limits = gpu.limits();
    let mut rng = Rng::new(0x5EED_0009);
    let mut used = BTreeSet::new();
    // Aligned stand-in pointers (as cudaMalloc's): the plan's choice on them, and its
    // shared memory.
    // Whether a group's outermost dimension is split (PackedSplit) too.
    let packed_shared = |c: &common::CopyCase, dt: DType| {
        let plan = CopyPlan::copy(&c.dst, dt, &c.src, dt);
        match GpuPlan::for_device(&plan, limits).unwrap() {
            GpuPlan::Empty | GpuPlan::Memcpy { .. } => None,
            p => {
                let l = p.launch_for(1 << 20, 1 << 21).unwrap();
                let LaunchParams::Tile(t) = l.params else {
                    return None;
                };
                let split = (t.batch_rank + t.tile_a + t.tile_b) as usize > plan.sizes.len();
                let packed = l.kernel.name().starts_with("sk_tilep_");
                packed.then_some((l.shared_bytes, split))
            }
        }
    };
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let cases = packed_cases(&mut rng, dt, 400);
        for c in cases
            .into_iter()
            .filter(|c| packed_shared(c, dt).is_some())
            .take(6)
        {
            let storages = twin(c.bytes);
            used.insert(compare(&storages, &c.src, dt, &c.dst, dt, &c.what));
            used.insert(compare_64bit(&storages, &c.src, dt, &c.dst, dt, &c.what));
        }
    }
    eprintln!("kernels used: {used:?}");
    assert_ran(&used, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32", "i64"]);
    let mut large = BTreeSet::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let cases = large_packed_cases(&mut rng, dt, 60);
        let past_48k_or_split = |c: &common::CopyCase| {
            packed_shared(c, dt).is_some_and(|(s, split)| s > 48 * 1024 || split)
        };
        for c in cases.into_iter().filter(past_48k_or_split).take(2) {
            let storages = twin(c.bytes);
            large.insert(compare(&storages, &c.src, dt, &c.dst, dt, &c.what));
            large.insert(compare_64bit(&storages, &c.src, dt, &c.dst, dt, &c.what));
        }
    }
    eprintln!("packed tiles past 48 KB or split: {large:?}");
    // Every width (splits within 48 KB come on any device; on an H200 some 4- and 8-byte
    // cases are tiles past 48 KB), both index widths.
    assert_ran(&large, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32", "i64"]);
    // Source runs across rows (more than one row per run: SkTile's tiles_b), two per width.
    let across = packed_cases_run(&mut rng, limits, across::rows_across_cases, |t| {
        t.tiles_b > 1
    });
    eprintln!("packed tiles with runs across rows: {across:?}");
    assert_ran(&across, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32", "i64"]);
    // Gathers keeping a short innermost run (the packed tile of runs: SkTile's
    // dst_stride_b > 1), two per width.
    let runs = packed_cases_run(
        &mut rng,
        limits,
        |rng, dt| across::run_cases(rng, dt, 40),
        |t| t.dst_stride_b > 1,
    );
    eprintln!("packed tiles of kept runs: {runs:?}");
    assert_ran(&runs, &["tilep"], &widths(&[1, 2, 4, 8]), &["i32", "i64"]);
    // Groups that start from a divisor of each of two dimensions too large to take whole
    // (packed.rs split_start; a group of one dimension, split), two per width (none of 1
    // byte: those never keep 20 KB in flight).
    let split = packed_cases_run(&mut rng, limits, across::split_start_cases, |t| {
        t.tile_a == 1 && t.tile_b == 1
    });
    eprintln!("packed tiles of split first dimensions: {split:?}");
    // The split start may take a ragged last chunk, which only the 32-bit kernels take, so
    // not every such plan has a packed 64-bit twin (on the H200, 2026-12-04, the 2-byte
    // cases' 64-bit runs took sk_tile_w2_i64); every 64-bit run above was still compared
    // byte for byte, and the packed 64-bit kernels of splits ran in `large`. As in
    // tests/kernel_emulation.rs.
    assert_ran(&split, &["tilep"], &widths(&[2, 4, 8]), &["i32"]);
}

/// Runs, with both index widths, the first two cases per width of `cases` whose plan takes
/// the packed tile with parameters `wanted`; the kernels that ran.
fn packed_cases_run(
    rng: &mut Rng,
    limits: DeviceLimits,
    cases: impl Fn(&mut Rng, DType) -> Vec<common::CopyCase>,
    wanted: impl Fn(&SkTile) -> bool,
) -> BTreeSet<&'static str> {
    let mut ran = BTreeSet::new();
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        let takes = |c: &common::CopyCase| {
            let plan = CopyPlan::copy(&c.dst, dt, &c.src, dt);
            let Ok(p @ GpuPlan::Kernel { .. }) = GpuPlan::for_device(&plan, limits) else {
                return false;
            };
            let l = p.launch_for(1 << 20, 1 << 21).unwrap();
            let packed = l.kernel.name().starts_with("sk_tilep_");
            packed && matches!(l.params, LaunchParams::Tile(t) if wanted(&t))
        };
        for c in cases(rng, dt).into_iter().filter(takes).take(2) {
            let storages = twin(c.bytes);
            ran.insert(compare(&storages, &c.src, dt, &c.dst, dt, &c.what));
            ran.insert(compare_64bit(&storages, &c.src, dt, &c.dst, dt, &c.what));
        }
    }
    ran
}

/// The 64-bit index kernels on small tensors (forced), so every one of them runs here and
/// under compute-sanitizer, not only in the one test over 2^31 elements.
#[test]
fn sixty_four_bit_kernels_match_the_cpu_backend() {
    let Some(_gpu) = gpu("sixty_four_bit_kernels_match_the_cpu_backend") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0006);
    let mut used = BTreeSet::new();
    for case in 0..600 {
        let st = rng.dtype();
        let dt = if rng.below(3) == 0 { rng.dtype() } else { st };
        let base = random_base(&mut rng);
        let len = storage_len(&base) + rng.range(0, 3) as usize;
        let storages = twin(random_bytes(&mut rng, len, st, dt));
        let src = random_view(&mut rng, &storages.0, base, st);
        let dst = random_destination(&mut rng, src.sizes());
        let what = format!("case {case}");
        used.insert(compare_64bit(&storages, src.layout(), st, &dst, dt, &what));
    }
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64] {
        for c in transpose_cases(&mut rng, dt, dt) {
            let storages = twin(c.bytes);
            used.insert(compare_64bit(&storages, &c.src, dt, &c.dst, dt, &c.what));
        }
    }
    eprintln!("kernels used: {used:?}");
    let families = ["gather", "scatter", "strided", "tile", "tilev"];
    assert_ran(&used, &families, &widths(&[1, 2, 4, 8]), &["i64"]);
}

/// Misaligned base pointers (a wrapped external pointer one element past an aligned one)
/// must take the element-width launch, not the widened one.
#[test]
fn misaligned_external_pointers_fall_back_to_narrow_words() {
    let Some(gpu) = gpu("misaligned_external_pointers_fall_back_to_narrow_words") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0003);
    // Rows of 32 elements 48 apart: not a memcpy, but widenable to 16-byte words when the
    // base pointers allow it.
    let rows = Layout::new(&[64, 32], &[48, 1], 0).unwrap();
    let out = Layout::contiguous(&[64, 32]);
    for dt in [DType::U8, DType::F16, DType::F32] {
        let sz = dt.itemsize();
        let n = 64 * 48 + 1;
        let bytes = random_bytes(&mut rng, n, dt, dt);
        let src_buf = DeviceBuffer::from_host(&gpu, &bytes).unwrap();
        let dst_buf = DeviceBuffer::alloc(&gpu, n * sz).unwrap();
        let plan = GpuPlan::new(&CopyPlan::copy(&out, dt, &rows, dt)).unwrap();
        let GpuPlan::Kernel {
            wide: Some((wide, align)),
            narrow,
        } = plan
        else {
            panic!("{dt}: expected a widenable plan, got {plan:?}");
        };
        let (aligned, off) = (src_buf.ptr(), src_buf.ptr() + sz as u64);
        assert_eq!(
            plan.launch_for(aligned, dst_buf.ptr()).unwrap().kernel,
            wide.kernel
        );
        assert_eq!(
            plan.launch_for(off, dst_buf.ptr() + sz as u64)
                .unwrap()
                .kernel,
            narrow.kernel
        );
        assert!(align > sz as u32);
        // Both base pointers one element past an aligned one: the element-width launch.
        for shift in [0, 1] {
            dst_buf.memset(POISON).unwrap();
            let at = (shift * sz) as u64;
            // SAFETY: both wrap the tail of live buffers, which outlive the tensors.
            let (src, dst) = unsafe {
                (
                    Tensor::from_device_ptr(
                        0,
                        src_buf.ptr() + at,
                        (n - shift) * sz,
                        rows.clone(),
                        dt,
                    )
                    .unwrap(),
                    Tensor::from_device_ptr(
                        0,
                        dst_buf.ptr() + at,
                        (n - shift) * sz,
                        out.clone(),
                        dt,
                    )
                    .unwrap(),
                )
            };
            dst.copy_(&src).unwrap();
            let host = Tensor::from_storage(
                Storage::from_bytes(bytes[shift * sz..].to_vec()),
                rows.clone(),
                dt,
            )
            .unwrap();
            assert_eq!(
                dst.values().unwrap(),
                host.values().unwrap(),
                "{dt} shift {shift}"
            );
            let mut head = vec![0; at as usize];
            dst_buf.download(0, &mut head).unwrap();
            assert!(
                head.iter().all(|&b| b == POISON),
                "{dt}: wrote before the start"
            );
        }
        // A pointer that is not even element-aligned is refused, not faulted on.
        if sz > 1 {
            // SAFETY: refused before any use.
            let e = unsafe { Tensor::from_device_ptr(0, src_buf.ptr() + 1, 64, out.clone(), dt) }
                .unwrap_err();
            assert_eq!(e.kind, stridekit::ErrorKind::Device);
        }
    }
}

/// A copy on the caller's stream whose source is still being written on stridekit's
/// stream (an unsynchronised `.contiguous()` of a large tensor): ordered after it.
#[test]
fn copy_on_stream_waits_for_stridekits_own_work() {
    let Some(gpu) = gpu("copy_on_stream_waits_for_stridekits_own_work") else {
        return;
    };
    let stream = gpu.ctx.new_stream().unwrap();
    let n: i64 = 1 << 24;
    let x = Tensor::arange(
        Scalar::Int(0),
        Scalar::Int(n),
        Scalar::Int(1),
        Some(DType::I32),
    )
    .unwrap()
    .view(&[4096, 4096])
    .unwrap()
    .to_device(CUDA0)
    .unwrap();
    let out = Tensor::zeros(&[4096, 4096], DType::I32)
        .unwrap()
        .to_device(CUDA0)
        .unwrap();
    for _ in 0..3 {
        // Queued on stridekit's stream, not waited for ...
        let c = x.t().unwrap().contiguous(MemoryFormat::Contiguous).unwrap();
        // ... and read on the caller's stream.
        // SAFETY: the stream belongs to cuda:0's context and is synchronised below; `c`
        // lives until then.
        unsafe { out.copy_on_stream(&c, stream.cu_stream()) }.unwrap();
        stream.synchronize().unwrap();
        let got = out.values().unwrap();
        for (k, v) in got.iter().enumerate().step_by(4099) {
            let (i, j) = (k / 4096, k % 4096);
            assert_eq!(v.to_int(), (j * 4096 + i) as i64, "out[{i}, {j}]");
        }
        drop(c);
    }
}

#[test]
fn copy_on_an_external_stream() {
    let Some(gpu) = gpu("copy_on_an_external_stream") else {
        return;
    };
    let stream = gpu.ctx.new_stream().unwrap();
    let x = Tensor::arange(Scalar::Int(0), Scalar::Int(4096), Scalar::Int(1), None)
        .unwrap()
        .view(&[64, 64])
        .unwrap();
    let xd = x.to_device(CUDA0).unwrap();
    let out = Tensor::zeros(&[64, 64], DType::I64)
        .unwrap()
        .to_device(CUDA0)
        .unwrap();
    // SAFETY: the stream belongs to cuda:0's context and is synchronised below.
    unsafe { out.copy_on_stream(&xd.t().unwrap(), stream.cu_stream()) }.unwrap();
    stream.synchronize().unwrap();
    assert_eq!(
        out.values().unwrap(),
        x.t()
            .unwrap()
            .contiguous(MemoryFormat::Contiguous)
            .unwrap()
            .values()
            .unwrap()
    );
    assert_eq!(out.version(), 1);
}

/// `stridekit explain --device cuda` must report exactly what the CPU backend reports:
/// every golden program (fills, setitem, copies, conversions, errors) on both.
#[test]
fn explain_reports_are_identical_on_the_gpu() {
    let Some(_gpu) = gpu("explain_reports_are_identical_on_the_gpu") else {
        return;
    };
    // The build's checkout, or (test binaries copied to the GPU machine by
    // scripts/gpu-check) the working directory's.
    let built = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    let dir = if std::path::Path::new(built).is_dir() {
        built
    } else {
        "tests/golden"
    };
    let mut n = 0;
    let started = std::time::Instant::now();
    for file in ["seeds.jsonl", "random.jsonl"] {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            let program = case["program"].as_str().unwrap();
            let mut cpu = stridekit::explain::run_on(program, Device::Cpu).to_json();
            let mut gpu = stridekit::explain::run_on(program, CUDA0).to_json();
            // The GPU's report adds its allocator's account (null on the CPU).
            assert!(gpu["allocator"].is_object(), "{}", case["name"]);
            for r in [&mut cpu, &mut gpu] {
                r.as_object_mut().unwrap().remove("allocator");
                for s in r["steps"].as_array_mut().unwrap() {
                    s.as_object_mut().unwrap().remove("allocator");
                }
                // Only the GPU run says which statements fell back to the host.
                r["warnings"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|w| w["kind"] != "host_fallback");
            }
            // What a program prints names the device as PyTorch does (`tensor(...,
            // device='cuda:0')`, `cuda:0`); the rest of the text is the CPU's.
            if let Some(text) = gpu["output"].as_str() {
                gpu["output"] = text
                    .replace(", device='cuda:0'", "")
                    .replace("cuda:0", "cpu")
                    .into();
            }
            assert_eq!(gpu, cpu, "{}: {program}", case["name"]);
            n += 1;
            if n % 200 == 0 {
                // Progress, so that a run stopped by gpu-check's time cap says how far it got.
                eprintln!(
                    "{n} programs identical after {:.1} s",
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    eprintln!(
        "{n} programs: identical reports on cpu and cuda:0 ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}

/// More dimensions than the kernels hold (rank 10 after folding): launched per index of
/// the outer dimensions, same result as the CPU.
#[test]
fn rank_ten_copies_run_as_several_launches() {
    let Some(_gpu) = gpu("rank_ten_copies_run_as_several_launches") else {
        return;
    };
    let sizes = [2, 3, 2, 2, 3, 2, 2, 2, 3, 2];
    let n: i64 = sizes.iter().product();
    let x = Tensor::arange(
        Scalar::Int(0),
        Scalar::Int(n),
        Scalar::Int(1),
        Some(DType::I16),
    )
    .unwrap()
    .view(&sizes)
    .unwrap();
    let rev: Vec<i64> = (0..10).rev().collect();
    let want = x
        .permute(&rev)
        .unwrap()
        .contiguous(MemoryFormat::Contiguous)
        .unwrap();
    let got = x
        .to_device(CUDA0)
        .unwrap()
        .permute(&rev)
        .unwrap()
        .contiguous(MemoryFormat::Contiguous)
        .unwrap();
    assert_eq!(got.values().unwrap(), want.values().unwrap());
}

/// Over 2^31 elements (int8): the 64-bit index kernels (tiled transpose and strided
/// gather), checked element by element against the index formula.
#[test]
fn tensors_over_two_to_the_31_elements() {
    let Some(gpu) = gpu("tensors_over_two_to_the_31_elements") else {
        return;
    };
    let (rows, cols): (i64, i64) = (65_600, 32_768); // 2_149_580_800 elements > 2^31
    let n = (rows * cols) as usize;
    let byte = |i: usize| (i.wrapping_mul(0x9E37_79B9) >> 13) as u8;
    let host: Vec<u8> = (0..n).map(byte).collect();
    let src = DeviceBuffer::from_host(&gpu, &host).unwrap();
    drop(host);
    let out = DeviceBuffer::alloc(&gpu, n).unwrap();
    out.memset(POISON).unwrap();
    // SAFETY: both buffers hold n bytes and outlive the tensors.
    let (x, y) = unsafe {
        (
            Tensor::from_device_ptr(
                0,
                src.ptr(),
                n,
                Layout::contiguous(&[rows, cols]),
                DType::I8,
            )
            .unwrap(),
            Tensor::from_device_ptr(
                0,
                out.ptr(),
                n,
                Layout::contiguous(&[cols, rows]),
                DType::I8,
            )
            .unwrap(),
        )
    };
    let xt = x.t().unwrap();
    let name = kernel_name(&y, &xt, out.ptr(), src.ptr());
    assert!(name.ends_with("_i64"), "{name}");
    y.copy_(&xt).unwrap();
    let got = out.to_host().unwrap();
    for j in 0..cols as usize {
        for i in 0..rows as usize {
            let (g, w) = (got[j * rows as usize + i], byte(i * cols as usize + j));
            assert_eq!(g, w, "transpose: out[{j}, {i}]");
        }
    }
    drop(got);
    // Every other column (a strided gather of 2^30 + elements from a 2^31 + source).
    let half = unsafe {
        Tensor::from_device_ptr(
            0,
            out.ptr(),
            n / 2,
            Layout::contiguous(&[rows, cols / 2]),
            DType::I8,
        )
        .unwrap()
    };
    let cols2 = x
        .as_strided(&[rows, cols / 2], &[cols, 2], Some(1))
        .unwrap();
    let name = kernel_name(&half, &cols2, out.ptr(), src.ptr());
    assert!(name.ends_with("_i64"), "{name}");
    half.copy_(&cols2).unwrap();
    let mut got = vec![0; n / 2];
    out.download(0, &mut got).unwrap();
    for i in 0..rows as usize {
        for j in 0..cols as usize / 2 {
            let w = byte(i * cols as usize + 2 * j + 1);
            assert_eq!(got[i * cols as usize / 2 + j], w, "gather: out[{i}, {j}]");
        }
    }
}
