//! CPU-only tests of the CUDA backend: kernel choice, parameter packing, and the paths
//! taken on a machine without libcuda. GPU runs are in the GPU test binaries.

use super::choose::{GpuPlan, LaunchParams, dtype_code};
use super::params::{SK_MAX_RANK, SkDType, SkRowGather, SkStrided32, SkStrided64, SkTile};
use super::rows::RowGatherPlan;
use super::*;
use crate::dtype::DType;
use crate::layout::{Layout, view};
use crate::plan::CopyPlan;
use crate::plan::RowGatherShape;

fn plan(dst: &Layout, dt: DType, src: &Layout, st: DType) -> GpuPlan {
    GpuPlan::new(&CopyPlan::copy(dst, dt, src, st)).unwrap()
}

fn kernel(p: &GpuPlan, aligned: bool) -> &'static str {
    let ptr = if aligned { 0x1000 } else { 0x1002 };
    p.launch_for(ptr, ptr).unwrap().kernel.name()
}

#[test]
fn struct_layout_matches_the_header() {
    // bindgen also emits compile-time offset checks in params.rs; these pin the sizes the
    // kernels were compiled with.
    assert_eq!(std::mem::size_of::<SkStrided32>(), 216);
    assert_eq!(std::mem::size_of::<SkStrided64>(), 424);
    assert_eq!(std::mem::size_of::<SkTile>(), 624);
    assert_eq!(std::mem::size_of::<SkRowGather>(), 64);
    assert_eq!(std::mem::align_of::<SkStrided64>(), 8);
    assert_eq!(SK_MAX_RANK as usize, choose::MAX_RANK);
}

#[test]
fn dtype_codes_match_the_header() {
    let codes = [
        (DType::Bool, SkDType::SK_BOOL),
        (DType::U8, SkDType::SK_U8),
        (DType::I8, SkDType::SK_I8),
        (DType::I16, SkDType::SK_I16),
        (DType::I32, SkDType::SK_I32),
        (DType::I64, SkDType::SK_I64),
        (DType::F16, SkDType::SK_F16),
        (DType::BF16, SkDType::SK_BF16),
        (DType::F32, SkDType::SK_F32),
        (DType::F64, SkDType::SK_F64),
    ];
    for (d, c) in codes {
        assert_eq!(dtype_code(d), c as i32, "{d}");
    }
}

#[test]
fn contiguous_copy_is_a_memcpy_and_empty_is_nothing() {
    let l = Layout::contiguous(&[4, 5]);
    match plan(&l, DType::F32, &l, DType::F32) {
        GpuPlan::Memcpy { bytes, .. } => assert_eq!(bytes, 80),
        other => panic!("{other:?}"),
    }
    let e = Layout::contiguous(&[4, 0]);
    assert!(matches!(
        plan(&e, DType::F32, &e, DType::F32),
        GpuPlan::Empty
    ));
}

#[test]
fn transpose_uses_the_tile_kernel() {
    let base = Layout::contiguous(&[64, 96]);
    let t = view::transpose(&base, 0, 1).unwrap();
    let out = Layout::contiguous(&[96, 64]);
    let p = plan(&out, DType::F32, &t, DType::F32);
    // Aligned pointers: 16-byte accesses; otherwise the element-wise tile.
    assert_eq!(kernel(&p, true), "sk_tilev_w4_i32");
    assert_eq!(kernel(&p, false), "sk_tile_w4_i32");
    for aligned in [0x1000, 0x1004] {
        let l = p.launch_for(aligned, aligned).unwrap();
        let LaunchParams::Tile(tp) = l.params else {
            panic!()
        };
        assert_eq!((tp.tile_a, tp.tile_b), (32, 32));
        assert_eq!((tp.n_a, tp.n_b), (64, 96));
        assert_eq!(l.grid, (2 * 3, 1, 1));
        assert_eq!(l.shared_bytes, 32 * 33 * 4);
    }
}

#[test]
fn vector_tiles_need_multiples_of_sixteen_bytes() {
    let tp = |p: &GpuPlan| match p.launch_for(0, 0).unwrap().params {
        LaunchParams::Tile(tp) => tp,
        other => panic!("{other:?}"),
    };
    // int8 32768 x 32768 scaled down: 64 x 64 tiles of 16-byte words.
    let x = Layout::contiguous(&[256, 512]);
    let p = plan(
        &Layout::contiguous(&[512, 256]),
        DType::I8,
        &view::t(&x).unwrap(),
        DType::I8,
    );
    assert_eq!(kernel(&p, true), "sk_tilev_w1_i32");
    assert_eq!((tp(&p).tile_a, tp(&p).tile_b), (64, 64));
    // A tiny dimension that is a multiple of V: taken whole, with a long run of the other.
    let x = Layout::contiguous(&[4, 4096]);
    let p = plan(
        &Layout::contiguous(&[4096, 4]),
        DType::F32,
        &view::t(&x).unwrap(),
        DType::F32,
    );
    assert_eq!(kernel(&p, true), "sk_tilev_w4_i32");
    assert_eq!((tp(&p).n_a, tp(&p).tile_a, tp(&p).tile_b), (4, 4, 256));
    // Sizes, offsets or strides that are not multiples of V: the element-wise tile only.
    let x = Layout::contiguous(&[64, 90]);
    let p = plan(
        &Layout::contiguous(&[90, 64]),
        DType::F16,
        &view::t(&x).unwrap(),
        DType::F16,
    );
    assert_eq!(kernel(&p, true), "sk_tile_w2_i32");
    let off = Layout::new(&[64, 96], &[1, 64], 4).unwrap();
    let p = plan(&Layout::contiguous(&[64, 96]), DType::F16, &off, DType::F16);
    assert_eq!(kernel(&p, true), "sk_tile_w2_i32");
    let off = Layout::new(&[64, 96], &[1, 64], 8).unwrap();
    let p = plan(&Layout::contiguous(&[64, 96]), DType::F16, &off, DType::F16);
    assert_eq!(kernel(&p, true), "sk_tilev_w2_i32");
}

#[test]
fn channels_last_with_three_channels_uses_a_long_thin_tile() {
    // contiguous NCHW -> channels_last NHWC, C = 3: the innermost destination dim has size 3.
    let src = Layout::contiguous(&[2, 3, 40, 50]);
    let dst = Layout::with_format(&[2, 3, 40, 50], crate::MemoryFormat::ChannelsLast).unwrap();
    let p = plan(&dst, DType::U8, &src, DType::U8);
    let l = *p.launch_for(0, 0).unwrap();
    assert_eq!(l.kernel.name(), "sk_tile_w1_i32");
    let LaunchParams::Tile(tp) = l.params else {
        panic!()
    };
    assert_eq!((tp.n_a, tp.n_b), (3, 2000));
    assert_eq!(tp.tile_a, 3);
    assert!(tp.tile_b >= 600, "{}", tp.tile_b);
    assert_eq!(tp.batch, 2);
    assert_eq!(l.grid.1, 2);
    // and back: channels_last -> contiguous has a tiny source-innermost dimension.
    let p = plan(&src, DType::F16, &dst, DType::F16);
    let LaunchParams::Tile(tp) = p.launch_for(0, 0).unwrap().params else {
        panic!()
    };
    assert_eq!((tp.n_a, tp.n_b, tp.tile_b), (2000, 3, 3));
    assert!(tp.tile_a >= 600);
}

#[test]
fn contiguous_rows_are_widened_to_16_bytes_when_aligned() {
    // A narrow slice of a wider matrix: rows of 8 contiguous f32 (32 bytes).
    let base = Layout::contiguous(&[10, 16]);
    let s = view::slice(&base, 1, Some(4), Some(12), 1).unwrap();
    let out = Layout::contiguous(&[10, 8]);
    let p = plan(&out, DType::F32, &s, DType::F32);
    assert_eq!(kernel(&p, true), "sk_gather_w16_i32");
    assert_eq!(kernel(&p, false), "sk_gather_w4_i32");
    let GpuPlan::Kernel {
        wide: Some((w, align)),
        ..
    } = p
    else {
        panic!()
    };
    assert_eq!(align, 16);
    let LaunchParams::Strided32(sp) = w.params else {
        panic!()
    };
    assert_eq!(&sp.sizes[..2], &[10, 2]);
    assert_eq!(&sp.src_strides[..2], &[4, 1]);
    assert_eq!(sp.src_offset, 1);
}

#[test]
fn broadcast_source_and_strided_destination() {
    // expand a row into a matrix: source stride 0, destination contiguous -> gather.
    let row = Layout::contiguous(&[1, 7]);
    let e = view::expand(&row, &[5, 7], "torch.LongTensor").unwrap();
    let out = Layout::contiguous(&[5, 7]);
    assert_eq!(
        kernel(&plan(&out, DType::I64, &e, DType::I64), false),
        "sk_gather_w8_i32"
    );
    // copy_ of a contiguous source into a column slice of a matrix: scatter.
    let m = Layout::contiguous(&[6, 9]);
    let col = view::select(&m, 1, 2).unwrap();
    let src = Layout::contiguous(&[6]);
    assert_eq!(
        kernel(&plan(&col, DType::I16, &src, DType::I16), true),
        "sk_scatter_w2_i32"
    );
}

#[test]
fn converting_copies_pick_a_convert_kernel_with_dtype_codes() {
    let base = Layout::contiguous(&[8, 8]);
    let t = view::transpose(&base, 0, 1).unwrap();
    let out = Layout::contiguous(&[8, 8]);
    let p = plan(&out, DType::F16, &t, DType::F32);
    assert_eq!(kernel(&p, true), "sk_tilecvt_f32_f16_i32");
    let p = plan(&out, DType::I8, &t, DType::F64);
    let l = p.launch_for(0, 0).unwrap();
    assert_eq!(l.kernel.name(), "sk_convert_any_i32");
    let LaunchParams::Strided32(sp) = l.params else {
        panic!()
    };
    assert_eq!((sp.dst_dtype, sp.src_dtype), (2, 9));
    // Same layout, different dtype: a converting copy over one folded dimension.
    let p = plan(&out, DType::BF16, &out, DType::F32);
    assert_eq!(kernel(&p, true), "sk_convert_f32_bf16_i32");
}

#[test]
fn large_tensors_take_the_64_bit_path() {
    // 2^31 + 2 int8 elements: over 2^31, so 64-bit indexing, with 64-bit params intact.
    let n: i64 = (1 << 31) + 2;
    let src = Layout::new(&[n / 2, 2], &[1, n / 2], 0).unwrap();
    let out = Layout::contiguous(&[n / 2, 2]);
    let p = plan(&out, DType::I8, &src, DType::I8);
    let l = p.launch_for(0, 0).unwrap();
    assert!(l.kernel.name().ends_with("_i64"), "{}", l.kernel.name());
    // A plain strided copy with a far offset also needs 64-bit offsets.
    let big = Layout::new(&[4, 4], &[8, 1], 3_000_000_000).unwrap();
    let out = Layout::contiguous(&[4, 4]);
    let p = plan(&out, DType::U8, &big, DType::U8);
    let l = p.launch_for(0, 1).unwrap();
    assert_eq!(l.kernel.name(), "sk_gather_w1_i64");
    let LaunchParams::Strided64(sp) = l.params else {
        panic!()
    };
    assert_eq!(sp.src_offset, 3_000_000_000);
    assert_eq!(sp.numel, 16);
}

#[test]
fn plans_are_reusable_values() {
    // A plan is plain data (Copy): launching it again allocates nothing.
    let base = Layout::contiguous(&[3, 4, 5]);
    let v = view::permute(&base, &[2, 0, 1]).unwrap();
    let out = Layout::contiguous(&[5, 3, 4]);
    let p = plan(&out, DType::F64, &v, DType::F64);
    let q = p;
    assert_eq!(kernel(&p, true), kernel(&q, true));
}

#[test]
fn row_gather_widens_rows() {
    let shape = RowGatherShape {
        num_rows: 100,
        row_len: 64,
        src_rows: 1000,
        src_row_stride: 64,
        dst_row_stride: 64,
        src_offset: 0,
        dst_offset: 0,
    };
    let p = RowGatherPlan::new(DType::F16, shape, true);
    assert_eq!(p.launch_for(0, 0).kernel.name(), "sk_rows_w16_idx64");
    assert_eq!(p.launch_for(2, 0).kernel.name(), "sk_rows_w2_idx64");
    let LaunchParams::Rows(r) = p.launch_for(0, 0).params else {
        panic!()
    };
    assert_eq!(r.row_len, 8);
    // A warp per chunk of 32 rows, 8 per block, at most 2112 blocks: 100 rows (4 chunks)
    // in one block, 10^5 rows (3125 chunks) in 391, 2^21 rows (65536 chunks) in 2112.
    assert_eq!(p.narrow.grid.0, 1);
    for (rows, blocks) in [(100_000, 391), (1 << 21, 2112)] {
        let s = RowGatherShape {
            num_rows: rows,
            ..shape
        };
        assert_eq!(
            RowGatherPlan::new(DType::F16, s, true).narrow.grid.0,
            blocks
        );
    }
    // Lanes per row (index.cu): the power of two at least the row's words, at most 32.
    let lanes = [1, 2, 3, 4, 5, 16, 17, 32, 33, 70].map(super::rows::row_lanes);
    assert_eq!(lanes, [1, 2, 4, 4, 8, 16, 32, 32, 32, 32]);
    let odd = RowGatherShape {
        row_len: 3,
        src_row_stride: 3,
        dst_row_stride: 3,
        ..shape
    };
    assert!(RowGatherPlan::new(DType::F32, odd, false).wide.is_none());
}

#[test]
fn rank_over_eight_is_an_error() {
    // Nine dimensions that cannot fold: the source is the full reversal of the destination.
    let sizes = [2i64; 9];
    let strides: Vec<i64> = (0..9).map(|k| 1i64 << k).collect();
    let src = Layout::new(&sizes, &strides, 0).unwrap();
    let out = Layout::contiguous(&sizes);
    let cp = CopyPlan::copy(&out, DType::F32, &src, DType::F32);
    assert_eq!(cp.sizes.len(), 9);
    assert!(matches!(GpuPlan::new(&cp), Err(CudaError::RankTooLarge(9))));
}

#[test]
fn no_driver_is_an_error_not_a_panic() {
    if driver_available() {
        println!("skipped: libcuda is present on this machine");
        return;
    }
    let e = Gpu::new(0).err().expect("no GPU here");
    assert!(matches!(e, CudaError::NoDriver));
    assert!(e.to_string().starts_with("no CUDA driver"), "{e}");
    assert!(matches!(device_count(), Err(CudaError::NoDriver)));
}

#[test]
fn nvrtc_compiles_the_embedded_sources_when_available() {
    if !module::nvrtc_available() {
        println!("skipped: libnvrtc not found");
        return;
    }
    for arch in ["compute_80", "compute_90"] {
        let ptx = module::compile_nvrtc(arch).unwrap_or_else(|e| panic!("{e}"));
        let src = ptx.to_src();
        for name in kernels::KERNEL_NAMES {
            assert!(src.contains(&format!(".entry {name}(")), "{arch}: {name}");
        }
    }
}

#[test]
fn nvrtc_arch_table() {
    assert_eq!(module::nvrtc_arch(9, 0), Some("compute_90"));
    assert_eq!(module::nvrtc_arch(8, 9), Some("compute_89"));
    assert_eq!(module::nvrtc_arch(11, 0), Some("compute_80"));
    assert_eq!(module::nvrtc_arch(7, 5), None);
}

#[test]
fn sixty_four_bit_indices_can_be_forced_for_small_tensors() {
    let x = Layout::contiguous(&[64, 96]);
    let t = view::transpose(&x, 0, 1).unwrap();
    let out = Layout::contiguous(&[96, 64]);
    let forced = |dt: DType, st: DType| {
        GpuPlan::with_64bit_indices(&CopyPlan::copy(&out, dt, &t, st)).unwrap()
    };
    let p = forced(DType::F32, DType::F32);
    assert_eq!(kernel(&p, true), "sk_tilev_w4_i64");
    assert_eq!(kernel(&p, false), "sk_tile_w4_i64");
    assert_eq!(
        kernel(&forced(DType::F16, DType::F32), true),
        "sk_tilecvt_f32_f16_i64"
    );
    assert_eq!(
        kernel(&forced(DType::I8, DType::F32), true),
        "sk_convert_any_i64"
    );
    let slice = Layout::new(&[32, 48], &[192, 2], 0).unwrap();
    let p = GpuPlan::with_64bit_indices(&CopyPlan::copy(
        &Layout::contiguous(&[32, 48]),
        DType::I8,
        &slice,
        DType::I8,
    ))
    .unwrap();
    assert_eq!(kernel(&p, true), "sk_gather_w1_i64");
    assert!(matches!(
        p.launch_for(0, 0).unwrap().params,
        LaunchParams::Strided64(_)
    ));
    // Unforced, the same plans take the 32-bit kernels.
    assert_eq!(
        kernel(&plan(&out, DType::F32, &t, DType::F32), false),
        "sk_tile_w4_i32"
    );
}

#[test]
fn converting_transposes_convert_inside_the_tile() {
    // NCHW f32 -> NHWC f16 (C = 3): the converting tile, dtype codes in the arguments,
    // shared memory sized for the destination's 2-byte elements.
    let src = Layout::contiguous(&[2, 3, 40, 50]);
    let dst = Layout::with_format(&[2, 3, 40, 50], crate::MemoryFormat::ChannelsLast).unwrap();
    let p = plan(&dst, DType::F16, &src, DType::F32);
    let l = *p.launch_for(0, 0).unwrap();
    assert_eq!(l.kernel.name(), "sk_tilecvt_f32_f16_i32");
    let LaunchParams::Tile(tp) = l.params else {
        panic!()
    };
    assert_eq!(
        (tp.dst_dtype, tp.src_dtype),
        (dtype_code(DType::F16), dtype_code(DType::F32))
    );
    assert_eq!(
        l.shared_bytes as i64,
        tp.tile_a as i64 * super::choose::tile_pitch(tp.tile_a as i64, tp.tile_b as i64, 2) * 2
    );
    // Other pairs transpose element-wise; same-layout conversions stay element-wise.
    let p = plan(&dst, DType::I8, &src, DType::F32);
    assert_eq!(kernel(&p, true), "sk_convert_any_i32");
    let p = plan(&src, DType::F16, &src, DType::F32);
    assert_eq!(kernel(&p, true), "sk_convert_f32_f16_i32");
}

#[test]
fn packed_tiles_replace_16_byte_tiles_whose_rows_start_off_sectors() {
    // A 5944 x 11290 f64 transpose: the 16-byte tile's source rows (stride 11290, two
    // elements off a 32-byte sector every other row) use ~94% of their sectors, the packed
    // tile's sector-aligned requests ~99%: no wide launch, the packed tile either way.
    let transpose = |sizes: &[i64], dt: DType| {
        let t = view::permute(&Layout::contiguous(sizes), &[1, 0]).unwrap();
        let cp = CopyPlan::copy(&Layout::contiguous(t.sizes()), dt, &t, dt);
        GpuPlan::for_device(&cp, DeviceLimits::H200).unwrap()
    };
    let p = transpose(&[5944, 11290], DType::F64);
    assert_eq!(kernel(&p, true), "sk_tilep_w8_i32");
    assert_eq!(kernel(&p, false), "sk_tilep_w8_i32");
    // A 4096 x 4096 f32 transpose: every row on a sector boundary, the 16-byte tile kept.
    let p = transpose(&[4096, 4096], DType::F32);
    assert_eq!(kernel(&p, true), "sk_tilev_w4_i32");
}

/// The tile grid (choose.rs tile_grid, change 19): at most TILE_BLOCKS blocks (tiles x batch
/// when fewer), grid.x never above the tiles, and every block row's batch chunk (the
/// kernel's ceil(batch / grid.y)) non-empty.
#[test]
fn tile_grids_are_bounded_and_leave_no_block_row_empty() {
    use super::choose::{TILE_BLOCKS, tile_grid};
    for tiles in [1i64, 2, 3, 4, 75, 784, 2111, 2112, 2113, 262_144] {
        for batch in [1i64, 2, 5, 64, 256, 4096, 331_776, 70_000_000] {
            let (gx, gy, gz) = tile_grid(tiles, batch);
            let blocks = gx as i64 * gy as i64;
            assert_eq!(gz, 1);
            assert!(gx as i64 <= tiles && gy as i64 <= batch.min(65535));
            assert!(blocks <= TILE_BLOCKS);
            let chunk = (batch + gy as i64 - 1) / gy as i64;
            assert!(
                (gy as i64 - 1) * chunk < batch,
                "{tiles} x {batch}: {gx} x {gy}"
            );
            if tiles * batch <= TILE_BLOCKS {
                assert_eq!(blocks, tiles * batch);
            }
        }
    }
}
