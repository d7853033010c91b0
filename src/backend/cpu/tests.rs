//! Unit tests of the CPU backend's paths against [`reference::copy`]. The random-layout
//! property test is tests/cpu_fast_paths.rs.

use super::*;
use crate::layout::{Layout, view};

fn counting(n: usize) -> Vec<u8> {
    (0..n as u32).flat_map(|v| v.to_le_bytes()).collect()
}

/// Every thread count and a grain small enough to split these sizes.
fn settings() -> impl Iterator<Item = Parallelism> {
    [1, 2, 3].into_iter().map(|threads| Parallelism {
        threads,
        grain_bytes: 256,
    })
}

fn check(dst: &Layout, dt: DType, src: &Layout, st: DType, input: &[u8]) {
    check_placed(dst, dt, src, st, input, None);
}

/// [`check`], the destination a buffer of its own (`lead` None) or starting `lead` bytes
/// after a 64-byte line (the non-temporal paths take only aligned lines).
fn check_placed(
    dst: &Layout,
    dt: DType,
    src: &Layout,
    st: DType,
    input: &[u8],
    lead: Option<usize>,
) {
    let plan = CopyPlan::copy(dst, dt, src, st);
    let len = view::required_storage_bytes(dst, dt.itemsize()) as usize;
    let mut want = vec![0xA5; len];
    reference::copy(&plan, &mut want, input);
    for par in settings() {
        let mut buf = vec![0xA5u8; len + lead.map_or(0, |l| 64 + l)];
        let at = lead.map_or(0, |l| buf.as_ptr().align_offset(64) + l);
        let got = &mut buf[at..at + len];
        copy_with(&plan, got, input, par);
        assert_eq!(
            got,
            &want[..],
            "{dst:?} <- {src:?} ({st:?} -> {dt:?}), lead {lead:?}, {par:?}"
        );
    }
}

#[test]
fn transposes_of_every_width_are_tiled_and_match_the_reference() {
    let base = Layout::contiguous(&[130, 75]);
    let t = view::t(&base).unwrap();
    let input = counting(130 * 75 * 4);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        let out = Layout::contiguous(t.sizes());
        let w = ByteWalk::new(&CopyPlan::copy(&out, dt, &t, dt), usize::MAX, usize::MAX);
        let tiling = Tiling::of(&w.unwrap()).expect("a transpose is tiled");
        assert_eq!((tiling.a, tiling.b), (0, 1));
        check(&out, dt, &t, dt, &input);
        // Into a gapped destination, and converting.
        check(
            &Layout::new(&[75, 130], &[131, 1], 3).unwrap(),
            dt,
            &t,
            dt,
            &input,
        );
        check(&out, DType::F16, &t, DType::F32, &input);
    }
}

#[test]
fn transposes_with_power_of_two_source_steps_are_staged_and_match_the_reference() {
    // Source rows 1 KiB or 2 KiB apart (the staged tiles of segment.rs), with partial
    // tiles, reversed, into a gapped destination and converting.
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        for bytes in [1024i64, 2048] {
            let cols = bytes / dt.itemsize() as i64;
            let input = counting((67 * cols) as usize * 2);
            let t = view::t(&Layout::contiguous(&[67, cols])).unwrap();
            let out = Layout::contiguous(t.sizes());
            check(&out, dt, &t, dt, &input);
            let rev = Layout::new(t.sizes(), &[1, -cols], 66 * cols).unwrap();
            check(&out, dt, &rev, dt, &input);
            let gapped = Layout::new(t.sizes(), &[70, 1], 5).unwrap();
            check(&gapped, dt, &t, dt, &input);
            check(&out, DType::F16, &t, DType::F32, &input);
        }
    }
}

#[test]
fn whole_line_tiles_of_every_width_match_the_reference() {
    // The whole-line blocks of lines.rs (where the CPU has them; elsewhere the same cases
    // check the fallback): transposes and a permute with destination rows a page apart,
    // the destination starting at several skews from a line (the blocks start at the first
    // aligned column), partial blocks at both edges; rows not a whole number of lines
    // apart (realign.rs's carried lines where the CPU has VBMI, else square tiles; more
    // bands and pieces: lines.rs's corner test); and a destination row step under a page
    // (no lines).
    walk::LINES_FROM.store(0, std::sync::atomic::Ordering::Relaxed);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        let w = dt.itemsize() as i64;
        let (rows, cols) = (293, 1100 / w + 37);
        let input = counting((rows * cols) as usize * 2);
        let t = view::t(&Layout::contiguous(&[rows, cols])).unwrap();
        let walk = ByteWalk::new(&CopyPlan::copy(&t, dt, &t, dt), usize::MAX, usize::MAX);
        assert!(walk.is_some());
        for pitch in [4096 / w + 64 / w, 4096 / w + 1, 256 / w] {
            for skew in [0, 1, 3, 17] {
                let out = Layout::new(&[cols, rows], &[pitch, 1], skew).unwrap();
                check(&out, dt, &t, dt, &input);
            }
        }
        let p = view::permute(&Layout::contiguous(&[3, rows, 70]), &[2, 0, 1]).unwrap();
        let input = counting((3 * rows * 70) as usize * 2);
        check(
            &Layout::new(&[70, 3, rows], &[3 * 4096 / w, 4096 / w, 1], 5).unwrap(),
            dt,
            &p,
            dt,
            &input,
        );
    }
    walk::LINES_FROM.store(contiguous::STREAM_MIN, std::sync::atomic::Ordering::Relaxed);
}

/// The packing of the copy `src` -> `dst` planned as whole-line tiles, whatever
/// LINES_FROM reads now (another test may have set it back meanwhile).
fn packing(dst: &Layout, src: &Layout, dt: DType) -> Option<walk::Pack> {
    let plan = CopyPlan::copy(dst, dt, src, dt);
    let walk = ByteWalk::new(&plan, usize::MAX, usize::MAX).unwrap();
    let tiling = Tiling {
        lines: true,
        pack: None,
        ..Tiling::of(&walk).unwrap()
    };
    tiling.packed(&walk)
}

#[test]
fn packed_whole_line_tiles_of_every_width_match_the_reference() {
    // A permute of source (p, b, c, a) into destination (a, p, c, b), as the bench's 6-d
    // permute: the tile (a, b) spans both dimensions, and c continues the source's run
    // along a and the destination's along b, so walk.rs packs layers of c into each tile
    // (the last pack shorter); a partial block along a, destination skews of 0 and 3
    // elements (blocks from the first aligned column, the columns before it as runs),
    // a converting copy of one width (packed, its layers moved one by one), and a
    // destination whose layers are not whole lines apart (not packed).
    walk::LINES_FROM.store(0, std::sync::atomic::Ordering::Relaxed);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        let lanes = 64 / dt.itemsize() as i64;
        let (p, b, c, a) = (13, lanes, 5, lanes + 3);
        let src = view::permute(&Layout::contiguous(&[p, b, c, a]), &[3, 0, 2, 1]).unwrap();
        let input = counting((p * b * c * a) as usize * 2);
        for skew in [0, 3] {
            let out = Layout::new(&[a, p, c, b], &[p * c * b, c * b, b, 1], skew).unwrap();
            let pack = packing(&out, &src, dt);
            assert!(
                matches!(pack, Some(k) if k.tc > 1 && k.tc < c as usize),
                "{pack:?}"
            );
            check(&out, dt, &src, dt, &input);
            if dt == DType::F32 {
                check(&out, DType::I32, &src, dt, &input);
            }
        }
        let gapped = Layout::new(&[a, p, c, b], &[p * c * (b + 1), c * (b + 1), b + 1, 1], 0);
        let gapped = gapped.unwrap();
        assert_eq!(packing(&gapped, &src, dt), None);
        check(&gapped, dt, &src, dt, &input);
    }
    walk::LINES_FROM.store(contiguous::STREAM_MIN, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn page_blocked_tile_orders_match_the_reference() {
    // A 4-d reversal whose two middle dimensions each stay inside one side's pages and
    // jump pages on the other: tile_order.rs visits them in blocks, cut at the edges
    // (sizes not multiples of the block).
    walk::LINES_FROM.store(0, std::sync::atomic::Ordering::Relaxed);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        let w = dt.itemsize() as i64;
        // Steps of 4100 bytes jump a page (dim 1 in the destination, dim 2 in the source).
        let (far, sizes) = (4100 / w, [20, 11, 12, 40]);
        let [d, c, b, _] = sizes;
        let src = Layout::new(&sizes, &[1, d, far, b * far], 0).unwrap();
        let out = Layout::new(&sizes, &[c * far, far, 40, 1], 0).unwrap();
        let plan = CopyPlan::copy(&out, dt, &src, dt);
        let walk = ByteWalk::new(&plan, usize::MAX, usize::MAX).unwrap();
        let tiling = Tiling::of(&walk).unwrap();
        let others: shape::Sizes = (1..3).collect();
        assert!(
            tile_order::TileOrder::new(&walk, &others, true).is_blocked(),
            "{walk:?}"
        );
        let n = view::required_storage_bytes(&src, dt.itemsize()) as usize;
        check(&out, dt, &src, dt, &counting(n / 4 + 1));
        assert_eq!((tiling.a, tiling.b), (0, 3));
    }
    walk::LINES_FROM.store(contiguous::STREAM_MIN, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn large_walks_cut_into_enough_whole_line_tiles_for_threads() {
    // A 64 MiB u8 transpose is one tile at the default edges (4 x 16 KiB; 8 x 8 KiB on AMD).
    let t = view::t(&Layout::contiguous(&[8192, 8192])).unwrap();
    let out = Layout::contiguous(t.sizes());
    let plan = CopyPlan::copy(&out, DType::U8, &t, DType::U8);
    let w = ByteWalk::new(&plan, usize::MAX, usize::MAX).unwrap();
    let tiling = Tiling::of(&w).unwrap();
    assert_eq!(tiling.lines, lines::available(1) || staged::available(1));
    if tiling.lines {
        assert!(
            tiling.count(&w) >= 16,
            "{tiling:?}: {} tiles",
            tiling.count(&w)
        );
    }
}

#[test]
fn long_broadcast_runs_of_every_width_match_the_reference() {
    // Columns of stride 0 at least 512 bytes long (the vector fill of contiguous.rs), with
    // tails that are not a whole vector, into dense and offset destinations; a pair of f32
    // widened to one 8-byte element; converting.
    let input = counting(4096);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        for cols in [700, 1029] {
            let cols = cols as i64;
            let src = Layout::new(&[5, cols], &[3, 0], 1).unwrap();
            check(&Layout::contiguous(&[5, cols]), dt, &src, dt, &input);
            let out = Layout::new(&[5, cols], &[cols + 3, 1], 2).unwrap();
            check(&out, dt, &src, dt, &input);
            check(&out, DType::F16, &src, DType::F32, &input);
        }
    }
    let pairs = Layout::new(&[3, 257, 2], &[2, 0, 1], 0).unwrap();
    check(
        &Layout::contiguous(&[3, 257, 2]),
        DType::F32,
        &pairs,
        DType::F32,
        &input,
    );
}

#[test]
fn permutes_reversals_slices_broadcasts_match_the_reference() {
    let input = counting(2 * 4 * 9 * 10 * 11);
    let base = Layout::contiguous(&[4, 9, 10, 11]);
    let nhwc = view::permute(&base, &[0, 2, 3, 1]).unwrap();
    let rev = Layout::new(&[4, 9, 10, 11], &[-990, -110, -11, -1], 3959).unwrap();
    let slice = Layout::new(&[4, 9, 5, 11], &[990, 110, 22, 1], 0).unwrap();
    let step = Layout::new(&[4, 9, 10, 5], &[990, 110, 11, 2], 1).unwrap();
    let expand = Layout::new(&[4, 9, 10, 11], &[0, 11, 0, 1], 0).unwrap();
    for dt in [DType::Bool, DType::I16, DType::BF16, DType::I64] {
        for src in [&nhwc, &rev, &slice, &step, &expand] {
            let out = Layout::contiguous(src.sizes());
            check(&out, dt, src, dt, &input);
            check(&out, DType::F32, src, dt, &input);
        }
    }
}

#[test]
fn a_short_contiguous_innermost_dimension_moves_as_one_wide_element() {
    // [8, 6, 2] f32 with dims 0 and 1 swapped: the innermost pair moves as 8 bytes; four
    // f32 as 16.
    let input = counting(8 * 6 * 4);
    for inner in [2, 4] {
        let base = Layout::contiguous(&[8, 6, inner]);
        let src = view::transpose(&base, 0, 1).unwrap();
        let out = Layout::contiguous(src.sizes());
        let plan = CopyPlan::copy(&out, DType::F32, &src, DType::F32);
        let w = ByteWalk::new(&plan, usize::MAX, usize::MAX).unwrap();
        assert_eq!((w.dw, w.rank()), (4 * inner as usize, 2));
        check(&out, DType::F32, &src, DType::F32, &input);
    }
}

#[test]
fn an_overlapping_destination_keeps_the_reference_write_order() {
    // Destination rows overlap (stride 3 < row length 5): one thread, plan order.
    let dst = Layout::new(&[40, 5], &[3, 1], 0).unwrap();
    let src = view::t(&Layout::contiguous(&[5, 40])).unwrap();
    let plan = CopyPlan::copy(&dst, DType::I32, &src, DType::I32);
    assert!(
        !ByteWalk::new(&plan, usize::MAX, usize::MAX)
            .unwrap()
            .dst_is_disjoint()
    );
    check(&dst, DType::I32, &src, DType::I32, &counting(200));
    check(
        &Layout::new(&[40, 5], &[0, 1], 0).unwrap(),
        DType::I32,
        &src,
        DType::I32,
        &counting(200),
    );
}

#[test]
fn large_copies_split_across_threads_match_the_reference() {
    // 2 Mi elements with the real grain: splits over the pool.
    let src = view::t(&Layout::contiguous(&[1024, 2048])).unwrap();
    let input = counting(1024 * 2048);
    for dst in [
        Layout::contiguous(&[2048, 1024]),
        Layout::new(&[2048, 1024], &[-1024, 1], 2047 * 1024).unwrap(),
    ] {
        let plan = CopyPlan::copy(&dst, DType::I32, &src, DType::I32);
        let len = 2048 * 1024 * 4;
        let (mut par, mut want) = (vec![0xA5; len], vec![0xA5; len]);
        let two = Parallelism {
            threads: 2,
            grain_bytes: GRAIN_BYTES,
        };
        assert_eq!(two.tasks(2048 * 1024 * 4, 2048 * 1024), 2);
        copy_with(&plan, &mut par, &input, two);
        reference::copy(&plan, &mut want, &input);
        assert_eq!(par, want);
    }
}

#[test]
fn fill_writes_every_visited_element() {
    let l = Layout::new(&[3, 4], &[1, 6], 2).unwrap();
    let plan = CopyPlan::elementwise(&l, DType::I16);
    let mut bytes = vec![0u8; 2 * 26];
    fill(&plan, &mut bytes, Scalar::Int(-2));
    let written: Vec<usize> = (0..26).filter(|&i| bytes[2 * i] != 0).collect();
    assert_eq!(written, vec![2, 3, 4, 8, 9, 10, 14, 15, 16, 20, 21, 22]);
    assert!(
        written
            .iter()
            .all(|&i| bytes[2 * i..2 * i + 2] == (-2i16).to_le_bytes())
    );
}

#[test]
#[should_panic(expected = "outside a 16-byte buffer")]
fn a_plan_beyond_the_buffer_is_refused_before_writing() {
    let l = Layout::contiguous(&[5]);
    let plan = CopyPlan::copy(&l, DType::F32, &l, DType::F32);
    copy(&plan, &mut [0u8; 16], &[0u8; 20]);
}

#[test]
fn row_gathers_on_threads_match_a_row_by_row_copy() {
    let shape = crate::plan::RowGatherShape {
        num_rows: 300,
        row_len: 7,
        src_rows: 50,
        src_row_stride: 9,
        dst_row_stride: 8,
        src_offset: 1,
        dst_offset: 2,
    };
    let index: Vec<i64> = (0..300).map(|r| (r * 37) % 50).collect();
    let src = counting(50 * 9 + 1);
    let mut want = vec![0u8; (300 * 8 + 2) * 2];
    for (r, &i) in index.iter().enumerate() {
        let s = ((1 + i * 9) * 2) as usize;
        let d = (2 + r * 8) * 2;
        want[d..d + 14].copy_from_slice(&src[s..s + 14]);
    }
    for par in settings() {
        let mut got = vec![0u8; want.len()];
        row_gather_with(&shape, DType::I16, &mut got, &src, &index, par).unwrap();
        assert_eq!(got, want, "{par:?}");
    }
    let bad: Vec<i64> = (0..300).map(|r| if r == 7 { -1 } else { 0 }).collect();
    let mut untouched = vec![0u8; want.len()];
    assert_eq!(
        row_gather(&shape, DType::I16, &mut untouched, &src, &bad),
        Err(7)
    );
    assert!(untouched.iter().all(|&b| b == 0));
}

#[test]
fn streamed_row_gathers_match_a_row_by_row_copy() {
    // The streamed rows of gather.rs (forced): rows under the vector threshold, of whole
    // lines and of lines and a part, the destination starting on a line and off it, rows
    // packed and padded apart; on every thread setting.
    for (row_len, dst_pad, dt) in [
        (100i64, 0i64, DType::I16),
        (256, 0, DType::F32),
        (300, 3, DType::F32),
        (1041, 7, DType::U8),
        (640, 1, DType::F64),
    ] {
        let w = dt.itemsize();
        let shape = |dst_offset: i64| crate::plan::RowGatherShape {
            num_rows: 40,
            row_len,
            src_rows: 23,
            src_row_stride: row_len,
            dst_row_stride: row_len + dst_pad,
            src_offset: 0,
            dst_offset,
        };
        let index: Vec<i64> = (0..40).map(|r| (r * 11 + 5) % 23).collect();
        let src = counting((23 * row_len) as usize * w / 2 + 1);
        for dst_offset in [0, 1, 5, 64 / w as i64 - 1] {
            let sh = shape(dst_offset);
            let dst_len = ((40 * sh.dst_row_stride + dst_offset) as usize + 8) * w;
            let mut want = vec![0u8; dst_len];
            let run = row_len as usize * w;
            for (r, &i) in index.iter().enumerate() {
                let s = i as usize * run;
                let d = (dst_offset as usize + r * sh.dst_row_stride as usize) * w;
                want[d..d + run].copy_from_slice(&src[s..s + run]);
            }
            for par in settings() {
                let mut got = vec![0u8; dst_len];
                super::gather::gather_rows(&sh, dt, &mut got, &src, &index, par, true).unwrap();
                assert!(got == want, "{row_len} x {dt:?} at {dst_offset}, {par:?}");
            }
        }
    }
}

#[test]
fn prefetching_row_gathers_from_a_large_source_match_a_row_by_row_copy() {
    // A source of STREAM_MIN bytes: gather.rs prefetches the rows ahead (8 of 1 KiB), up
    // to each task's last row; rows from both ends of the source, on every thread setting.
    let (row, rows) = (1024usize, contiguous::STREAM_MIN / 1024);
    assert_eq!(super::gather::prefetch_ahead(row, rows * row), 8);
    assert_eq!(super::gather::prefetch_ahead(row, rows * row - 1), 0);
    let src: Vec<u8> = (0..rows * row).map(|v| (v / 1021 + v) as u8).collect();
    let index: Vec<i64> = (0..200)
        .map(|r| ((r * 7919) % rows as i64) ^ (r & 1))
        .collect();
    let index: Vec<i64> = index
        .iter()
        .map(|&i| if i % 3 == 0 { rows as i64 - 1 - i } else { i })
        .collect();
    let shape = crate::plan::RowGatherShape {
        num_rows: 200,
        row_len: 256,
        src_rows: rows as i64,
        src_row_stride: 256,
        dst_row_stride: 256,
        src_offset: 0,
        dst_offset: 0,
    };
    let mut want = vec![0u8; 200 * row];
    for (r, &i) in index.iter().enumerate() {
        let s = i as usize * row;
        want[r * row..(r + 1) * row].copy_from_slice(&src[s..s + row]);
    }
    for par in settings() {
        let mut got = vec![0u8; want.len()];
        row_gather_with(&shape, DType::F32, &mut got, &src, &index, par).unwrap();
        assert!(got == want, "{par:?}");
    }
}

#[test]
fn vectorised_half_conversions_match_the_reference_on_every_bit_pattern() {
    // Every 16-bit pattern as float16 and bfloat16, to float32; float32 patterns around
    // every float16/bfloat16 rounding boundary, NaNs and infinities, back.
    let sixteen: Vec<u8> = (0..=u16::MAX).flat_map(|v| v.to_le_bytes()).collect();
    let mut wide: Vec<u32> = (0..=u16::MAX as u32)
        .flat_map(|h| {
            [
                h << 16,
                (h << 16) | 0x8000,
                (h << 16) | 0x7FFF,
                (h << 16) | 0x1000,
            ]
        })
        .collect();
    wide.extend((0..1 << 16).map(|i: u32| i.wrapping_mul(0x9E37_79B9)));
    let thirty_two: Vec<u8> = wide.iter().flat_map(|v| v.to_le_bytes()).collect();
    for lo in [DType::F16, DType::BF16] {
        let l = Layout::contiguous(&[1 << 16]);
        check(&l, DType::F32, &l, lo, &sixteen);
        let l = Layout::contiguous(&[wide.len() as i64]);
        check(&l, lo, &l, DType::F32, &thirty_two);
    }
}

#[test]
fn streamed_channels_last_tiles_match_the_reference() {
    // The streamed square tiles of segment.rs (walk.rs's `stream`, forced from 0 bytes):
    // NCHW -> NHWC of every width, channel counts that fill a 16 KiB block with 8 to 4096
    // rows, odd spatial sizes (partial tiles), and destinations off a line (the streamed
    // copy's unaligned head); 16 KiB of channels is too many rows for the block and takes
    // the square tiles. 64 and 128 channels over 117 and 135 pixels take the whole-line
    // blocks at every width where the CPU has them (partial blocks at the edges, and from
    // the first aligned column at the offsets); 3 and 24 channels do not.
    walk::LINES_FROM.store(0, std::sync::atomic::Ordering::Relaxed);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        let w = dt.itemsize() as i64;
        for (n, c, h, wd) in [
            (2, 64, 7, 9),
            (2, 64, 9, 13),
            (1, 128, 5, 27),
            (1, 3, 33, 31),
            (3, 24, 5, 70),
            (1, 2048 / w, 3, 5),
        ] {
            let src = Layout::contiguous(&[n, c, h, wd]);
            let input = counting((n * c * h * wd) as usize * w as usize / 4 + 1);
            for offset in [0, 1, 3] {
                let dst = Layout::new(&[n, c, h, wd], &[h * wd * c, 1, wd * c, c], offset).unwrap();
                check(&dst, dt, &src, dt, &input);
            }
        }
    }
    walk::LINES_FROM.store(contiguous::STREAM_MIN, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn streamed_rows_match_the_reference() {
    // The streamed rows of streamed.rs (forced from 0 bytes) over same-dtype moves of
    // every width and narrowing conversions: contiguous rows (streamed straight), step-2
    // slices, broadcast rows and columns, reversed rows, the destination on a line and off
    // it; rows long enough to stream and too short to.
    walk::LINES_FROM.store(0, std::sync::atomic::Ordering::Relaxed);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        let w = dt.itemsize() as i64;
        for cols in [2000 / w + 3, 9000 / w, 7] {
            let rows = 5;
            let input = counting((rows * cols * 2 + 8) as usize * w as usize / 4 + 1);
            let sources = [
                Layout::contiguous(&[rows, cols]),
                Layout::new(&[rows, cols], &[2 * cols, 2], 1).unwrap(),
                Layout::new(&[rows, cols], &[0, 1], 3).unwrap(),
                Layout::new(&[rows, cols], &[1, 0], 0).unwrap(),
                Layout::new(&[rows, cols], &[cols, -1], cols - 1).unwrap(),
            ];
            for src in &sources {
                for offset in [0, 1, 64 / w - 1] {
                    let dst = Layout::new(&[rows, cols], &[cols, 1], offset).unwrap();
                    check(&dst, dt, src, dt, &input);
                }
            }
        }
    }
    let n = 3000;
    let input = counting(n as usize + 1);
    for lo in [DType::F16, DType::BF16] {
        for offset in [0, 3] {
            let dst = Layout::new(&[n], &[1], offset).unwrap();
            check(&dst, lo, &Layout::contiguous(&[n]), DType::F32, &input);
        }
    }
    walk::LINES_FROM.store(contiguous::STREAM_MIN, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn streamed_widening_conversions_match_the_reference() {
    // The streamed rows of streamed.rs (forced from 0 bytes) over conversions: every
    // float16 and bfloat16 bit pattern to float32 (64 pieces of the buffer), the
    // destination starting on a line and 1, 5 or 15 elements past one (the head converted
    // plainly), and runs too short to stream.
    walk::LINES_FROM.store(0, std::sync::atomic::Ordering::Relaxed);
    let sixteen: Vec<u8> = (0..=u16::MAX).flat_map(|v| v.to_le_bytes()).collect();
    for lo in [DType::F16, DType::BF16] {
        for n in [1 << 16, 3] {
            let src = Layout::contiguous(&[n]);
            for offset in [0, 1, 5, 15] {
                let dst = Layout::new(&[n], &[1], offset).unwrap();
                check(&dst, DType::F32, &src, lo, &sixteen);
            }
        }
    }
    walk::LINES_FROM.store(contiguous::STREAM_MIN, std::sync::atomic::Ordering::Relaxed);
}

/// Moved from src/plan.rs (a plan test that runs the CPU backend would make plan import
/// the backend above it).
#[test]
fn split_outer_runs_the_same_copy() {
    // Rank 10 after folding (every dimension reversed by a permute, so nothing folds).
    let sizes = [2, 3, 2, 2, 3, 2, 2, 2, 3, 2];
    let base = Layout::contiguous(&sizes);
    let rev: Vec<i64> = (0..10).rev().collect();
    let src = view::permute(&base, &rev).unwrap();
    let dst = Layout::new(src.sizes(), Layout::contiguous(src.sizes()).strides(), 5).unwrap();
    let p = CopyPlan::copy(&dst, DType::I16, &src, DType::I16);
    assert_eq!(p.sizes.len(), 10);
    let n = base.numel() as usize;
    let input: Vec<u8> = (0..n as u16).flat_map(|v| v.to_le_bytes()).collect();
    let mut whole = vec![0u8; (n + 5) * 2];
    copy(&p, &mut whole, &input);
    let mut parts = vec![0u8; (n + 5) * 2];
    let subs: Vec<CopyPlan> = p.split_outer(8).collect();
    assert_eq!(subs.len(), 2 * 3);
    for sub in &subs {
        assert_eq!(sub.sizes.len(), 8);
        copy(sub, &mut parts, &input);
    }
    assert_eq!(parts, whole);
    // Within the limit: the plan itself.
    assert_eq!(p.split_outer(10).collect::<Vec<_>>(), vec![p.clone()]);
    let e = CopyPlan::elementwise(&Layout::contiguous(&[0, 2]), DType::I8);
    assert_eq!(e.split_outer(1).count(), 1);
}

#[test]
fn few_channel_pixels_and_planes_match_the_reference() {
    // NHWC <-> NCHW with 1 to 5 channels (channels.rs moves 2-4, in groups of 64 / width
    // pixels: 203 pixels leave a partial group), every width, converting (not channels.rs),
    // a source whose planes are reversed, and planes with gaps between them.
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        for c in 1..=5 {
            let (n, h, w) = (2, 7, 29);
            let nchw = Layout::contiguous(&[n, c, h, w]);
            let nhwc = view::permute(&Layout::contiguous(&[n, h, w, c]), &[0, 3, 1, 2]).unwrap();
            let input = counting((n * c * (h * w + 5)) as usize * 2 + 64);
            check(&nchw, dt, &nhwc, dt, &input);
            check(&nhwc, dt, &nchw, dt, &input);
            check(&nchw, DType::F32, &nhwc, dt, &input);
            let hw = h * w;
            let reversed = Layout::new(&[n, c, h, w], &[c * hw, -hw, w, 1], (c - 1) * hw).unwrap();
            check(&nhwc, dt, &reversed, dt, &input);
            let gapped = Layout::new(&[n, c, h, w], &[c * (hw + 5), hw + 5, w, 1], 3).unwrap();
            check(&gapped, dt, &nhwc, dt, &input);
            check(&nhwc, dt, &gapped, dt, &input);
        }
    }
}

#[test]
fn streamed_pixels_and_planes_match_the_reference() {
    // NHWC <-> NCHW of 2-4 channels in the streamed tiles (forced from 0 bytes), the
    // destination on a line or not: 11100 pixels an image are several tiles of whole plane
    // lines at every width (u8 5440, f64 680), and the images are not whole lines, so the
    // joins' pixels (non-temporal where on a line, with AVX-512) and the splits' planes
    // start on lines in some tiles and not in others.
    walk::LINES_FROM.store(0, std::sync::atomic::Ordering::Relaxed);
    for dt in [DType::U8, DType::I16, DType::F32, DType::F64] {
        for c in 2..=4 {
            let (n, h, w) = (2, 100, 111);
            let nchw = Layout::contiguous(&[n, c, h, w]);
            let nhwc = view::permute(&Layout::contiguous(&[n, h, w, c]), &[0, 3, 1, 2]).unwrap();
            let input = counting((n * c * h * w) as usize * 2 + 16);
            for lead in [0, dt.itemsize(), 12 * dt.itemsize()] {
                check_placed(&nhwc, dt, &nchw, dt, &input, Some(lead));
                check_placed(&nchw, dt, &nhwc, dt, &input, Some(lead));
            }
        }
    }
    walk::LINES_FROM.store(contiguous::STREAM_MIN, std::sync::atomic::Ordering::Relaxed);
}
