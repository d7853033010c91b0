//! What a careless or hostile C caller tries, one class at a time: metadata whose address
//! arithmetic wraps, destinations whose overlap test would be unbounded, allocator sizes
//! near SIZE_MAX, handles freed twice or made up, row gathers into overlapping rows or of
//! empty rows. Every case must come back as a status and a message, never as a crash,
//! an abort or a wrapped address. (Metadata only: no case needs a bad data pointer.)

use std::ffi::{CStr, c_char, c_void};
use std::ptr::null_mut;

use stridekit::DType;
use stridekit::ffi::capi::*;
use stridekit::ffi::dlpack::{DLDevice, DLTensor, kDLCPU};
use stridekit::ffi::error::{
    STRIDEKIT_ERR_INVALID_ARGUMENT, STRIDEKIT_ERR_OUT_OF_MEMORY, STRIDEKIT_ERR_TENSOR, STRIDEKIT_OK,
};
use stridekit::ffi::view::dtype_to_dlpack;

fn last_error() -> String {
    // SAFETY: never NULL, NUL-terminated.
    unsafe { CStr::from_ptr(stridekit_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// A host DLTensor over `data` (shape and strides borrowed from the caller).
fn dl(data: *mut u8, shape: &mut [i64], strides: Option<&mut [i64]>, dtype: DType) -> DLTensor {
    DLTensor {
        data: data as *mut c_void,
        device: DLDevice {
            device_type: kDLCPU,
            device_id: 0,
        },
        ndim: shape.len() as i32,
        dtype: dtype_to_dlpack(dtype),
        shape: shape.as_mut_ptr(),
        strides: strides.map_or(null_mut(), |s| s.as_mut_ptr()),
        byte_offset: 0,
    }
}

fn copy(dst: &DLTensor, src: &DLTensor) -> (i32, String) {
    // SAFETY: valid DLTensors; their data is either refused or inside the buffers.
    let rc = unsafe { stridekit_copy(dst, src, null_mut()) };
    (rc, if rc == 0 { String::new() } else { last_error() })
}

#[test]
fn data_plus_byte_offset_never_wraps() {
    let mut buf = vec![7u8; 64];
    let mut out = vec![0u8; 64];
    let (mut s1, mut s2) = ([4i64], [4i64]);
    let src = dl(buf.as_mut_ptr(), &mut s1, None, DType::F32);
    let base = out.as_mut_ptr() as u64;
    // byte_offsets that wrap data + byte_offset to just before the buffer, to 0, to
    // somewhere low, and ones whose extent runs past the end of the address space.
    for off in [
        u64::MAX - base + 1 - 16,
        u64::MAX - base + 1,
        u64::MAX - base + 1 + 64,
        u64::MAX - base - 4,
        u64::MAX,
        1 << 63,
    ] {
        let mut dst = dl(out.as_mut_ptr(), &mut s2, None, DType::F32);
        dst.byte_offset = off;
        let (rc, msg) = copy(&dst, &src);
        assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT, "byte_offset {off:#x}");
        assert!(msg.starts_with("dst: data"), "{msg}");
        assert!(
            msg.contains("byte_offset") || msg.contains("address space"),
            "{msg}"
        );
        // The source side is checked the same way.
        let mut dst = dl(out.as_mut_ptr(), &mut s2, None, DType::F32);
        dst.byte_offset = 0;
        let mut bad_src = src;
        bad_src.byte_offset = off;
        let (rc, msg) = copy(&dst, &bad_src);
        assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT, "{msg}");
        assert!(msg.starts_with("src: data"), "{msg}");
    }
    assert!(out.iter().all(|&b| b == 0), "nothing is written");
}

#[test]
fn null_data_with_a_byte_offset_is_refused_by_name() {
    let mut out = vec![0u8; 64];
    let mut buf = vec![1u8; 64];
    let (mut s1, mut s2) = ([4i64], [4i64]);
    let src = dl(buf.as_mut_ptr(), &mut s1, None, DType::F32);
    // The offset alone would be a valid address: still refused (NULL is not a base).
    let mut dst = dl(null_mut(), &mut s2, None, DType::F32);
    dst.byte_offset = out.as_mut_ptr() as u64;
    let (rc, msg) = copy(&dst, &src);
    assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT);
    assert_eq!(
        msg,
        format!("dst: data is NULL with byte_offset {}", dst.byte_offset)
    );
    assert!(out.iter().all(|&b| b == 0));
    // An empty tensor reads no data: NULL with any offset is fine there.
    let (mut e1, mut e2) = ([0i64, 3], [0i64, 3]);
    let mut dst = dl(null_mut(), &mut e1, None, DType::F32);
    dst.byte_offset = 12;
    let src = dl(null_mut(), &mut e2, None, DType::F32);
    assert_eq!(copy(&dst, &src).0, STRIDEKIT_OK);
}

#[test]
fn shapes_whose_products_overflow_are_typed_errors() {
    let mut buf = vec![0u8; 64];
    // The product of the non-zero sizes overflows although a zero makes numel 0: their
    // row-major strides would overflow too.
    for shape in [
        vec![0i64, 1 << 40, 1 << 40],
        vec![1 << 40, 1 << 40, 0],
        vec![i64::MAX, 2],
        vec![3, i64::MAX / 2],
    ] {
        let (mut d, mut s) = (shape.clone(), shape.clone());
        let dst = dl(buf.as_mut_ptr(), &mut d, None, DType::U8);
        let src = dl(buf.as_mut_ptr(), &mut s, None, DType::U8);
        let (rc, msg) = copy(&dst, &src);
        assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT, "{shape:?}");
        assert!(msg.contains("more elements than an int64 counts"), "{msg}");
    }
    // Spans (stride x (size - 1)) and bytes (elements x itemsize) that overflow.
    for (shape, strides, dtype) in [
        (vec![2i64], vec![i64::MAX], DType::U8),
        (vec![3i64, 2], vec![i64::MAX / 2, 1], DType::U8),
        (vec![1i64 << 61], vec![1], DType::F64),
        (vec![2i64, 2], vec![1 << 62, 1 << 62], DType::I16),
    ] {
        let (mut d, mut st) = (shape.clone(), strides.clone());
        let dst = dl(buf.as_mut_ptr(), &mut d, Some(&mut st), dtype);
        let (mut s, mut ss) = (shape.clone(), strides.clone());
        let src = dl(buf.as_mut_ptr(), &mut s, Some(&mut ss), dtype);
        let (rc, msg) = copy(&dst, &src);
        assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT, "{shape:?} {strides:?}");
        assert!(msg.contains("spans more bytes"), "{msg}");
    }
}

#[test]
fn the_overlap_test_is_bounded_by_the_metadata() {
    // Interleaved strides over a span of ~3.3e12 elements: decided from the strides
    // (no element repeats), so the plan is made without touching any data.
    for n in [1i64 << 28, 1 << 40] {
        let (mut d, mut ds) = ([3, n], [2, 3]);
        let dst = dl(null_mut(), &mut d, Some(&mut ds), DType::U8);
        let (mut s, mut ss) = ([1i64], [1i64]);
        let src = dl(null_mut(), &mut s, Some(&mut ss), DType::U8);
        let mut plan = null_mut();
        // SAFETY: valid DLTensors and out-pointer.
        let rc = unsafe { stridekit_plan_new(&dst, &src, &mut plan) };
        assert_eq!(rc, STRIDEKIT_OK, "{}", last_error());
        // SAFETY: a plan run with NULL pointers is refused before any access.
        let rc = unsafe { stridekit_plan_run(plan, null_mut(), null_mut(), null_mut()) };
        assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT);
        assert_eq!(last_error(), "dst: data is NULL");
        assert_eq!(stridekit_plan_free(plan), STRIDEKIT_OK);
    }
    // Interleaved strides that do repeat an element (i*3 = j*2 within the sizes).
    let (mut d, mut ds) = ([4i64, 1 << 40], [2i64, 3]);
    let dst = dl(null_mut(), &mut d, Some(&mut ds), DType::U8);
    let (mut s, mut ss) = ([1i64], [1i64]);
    let src = dl(null_mut(), &mut s, Some(&mut ss), DType::U8);
    let (rc, msg) = copy(&dst, &src);
    assert_eq!(rc, STRIDEKIT_ERR_TENSOR);
    assert!(
        msg.starts_with("unsupported operation: more than one element"),
        "{msg}"
    );
    // Three interleaved dimensions over 5e9 addresses: beyond the exact search's work
    // cap, refused with a message saying so (never a 600 MB bitmap).
    let (mut d, mut ds) = ([2i64, 2, 1 << 30], [2i64, 3, 5]);
    let dst = dl(null_mut(), &mut d, Some(&mut ds), DType::U8);
    let (rc, msg) = copy(&dst, &src);
    assert_eq!(rc, STRIDEKIT_ERR_TENSOR);
    assert!(msg.contains("work limit"), "{msg}");
}

#[test]
fn dst_vs_src_overlap_past_the_work_cap_is_staged() {
    // dst: the even bytes of a 4 MiB buffer, src: the odd ones (2^21 runs each, past the
    // cap on listing runs): undecided, so the source is read whole first (staged),
    // which is right whatever the answer; a broadcast source over the same bytes is
    // one run (stride-0 dimensions add none) and decided at once.
    let n = 1i64 << 21;
    let mut buf: Vec<u8> = (0..2 * n).map(|i| (i % 251) as u8).collect();
    let want: Vec<u8> = (0..2 * n as usize)
        .map(|i| if i % 2 == 0 { buf[i + 1] } else { buf[i] })
        .collect();
    let p = buf.as_mut_ptr();
    let (mut d, mut ds) = ([n], [2i64]);
    let dst = dl(p, &mut d, Some(&mut ds), DType::U8);
    let (mut s, mut ss) = ([n], [2i64]);
    let mut src = dl(p, &mut s, Some(&mut ss), DType::U8);
    src.byte_offset = 1;
    let (rc, msg) = copy(&dst, &src);
    assert_eq!(rc, STRIDEKIT_OK, "{msg}");
    assert!(buf == want, "interleaved views share no element");
    // A broadcast source inside the destination's range: one element read, every even
    // byte written.
    let (mut s, mut ss) = ([n], [0i64]);
    let mut src = dl(p, &mut s, Some(&mut ss), DType::U8);
    src.byte_offset = 7;
    let v = buf[7];
    let (rc, msg) = copy(&dst, &src);
    assert_eq!(rc, STRIDEKIT_OK, "{msg}");
    assert!(buf.iter().step_by(2).all(|&b| b == v));
    // Within the cap, a source sharing some of the destination's elements is refused.
    let (mut d, mut ds) = ([8i64], [2i64]);
    let dst = dl(p, &mut d, Some(&mut ds), DType::U8);
    let (mut s, mut ss) = ([8i64], [1i64]);
    let src = dl(p, &mut s, Some(&mut ss), DType::U8);
    let (rc, msg) = copy(&dst, &src);
    assert_eq!(rc, STRIDEKIT_ERR_TENSOR, "{msg}");
}

#[test]
fn allocator_sizes_near_size_max_never_wrap() {
    for conf in [
        "default",
        "roundup_power2_divisions:2",
        "roundup_power2_divisions:4",
        "roundup_power2_divisions:8",
        "roundup_power2_divisions:16",
        "roundup_power2_divisions:[256:1,512:2,>:8]",
        "expandable_segments:True",
        "policy:stridekit",
    ] {
        let mut a = null_mut();
        let c = std::ffi::CString::new(conf).unwrap();
        // SAFETY: NUL-terminated strings and a writable out-pointer.
        let rc = unsafe { stridekit_allocator_new(c"sim:1GiB".as_ptr(), c.as_ptr(), &mut a) };
        assert_eq!(rc, STRIDEKIT_OK, "{conf}: {}", last_error());
        for size in [
            usize::MAX,
            usize::MAX - 1,
            usize::MAX - 511,
            usize::MAX / 2 + 2,
            1usize << 63,
            (1usize << 63) + 1,
            1 << 48,
            (1 << 48) - 1,
            (1 << 40) + 1,
        ] {
            let mut p = null_mut();
            // SAFETY: a live allocator and a writable out-pointer.
            let rc = unsafe { stridekit_allocator_malloc(a, size, null_mut(), &mut p) };
            assert_eq!(rc, STRIDEKIT_ERR_OUT_OF_MEMORY, "{conf}: size {size:#x}");
            assert!(p.is_null());
        }
        let (mut p, mut q) = (null_mut(), null_mut());
        // SAFETY: as above.
        unsafe {
            assert_eq!(stridekit_allocator_malloc(a, 1000, null_mut(), &mut p), 0);
            assert_eq!(stridekit_allocator_malloc(a, 1000, null_mut(), &mut q), 0);
        }
        assert_ne!(p, q, "{conf}: one address handed out twice");
        assert_eq!(stridekit_allocator_free(a, p), 0);
        assert_eq!(stridekit_allocator_free(a, q), 0);
        assert_eq!(stridekit_allocator_destroy(a), 0);
    }
}

#[test]
fn a_stale_handle_never_frees_a_later_block() {
    use stridekit::alloc::{AllocConfig, CachingAllocator, HostDevice};
    let a = CachingAllocator::new(HostDevice::new(1 << 30), AllocConfig::default()).unwrap();
    let h1 = a.malloc(4096, 0).unwrap();
    a.free(h1).unwrap();
    let h2 = a.malloc(4096, 0).unwrap();
    assert_eq!(h1.ptr, h2.ptr, "the cached block is handed out again");
    assert!(a.free(h1).is_err(), "a stale handle freed the new block");
    assert_eq!(a.stats().allocated_bytes[0].current, 4096);
    a.free(h2).unwrap();
    assert!(a.free(h2).is_err(), "double free");
}

#[test]
fn handles_freed_twice_destroyed_or_made_up_are_refused() {
    let mut buf = vec![0u8; 16];
    let (mut s1, mut s2) = ([4i64], [4i64]);
    let dst = dl(buf.as_mut_ptr(), &mut s1, None, DType::F32);
    let mut src_buf = vec![1u8; 16];
    let src = dl(src_buf.as_mut_ptr(), &mut s2, None, DType::F32);
    let mut plan = null_mut();
    // SAFETY: valid DLTensors and out-pointer.
    assert_eq!(unsafe { stridekit_plan_new(&dst, &src, &mut plan) }, 0);
    assert_eq!(stridekit_plan_free(plan), STRIDEKIT_OK);
    assert_eq!(stridekit_plan_free(plan), STRIDEKIT_ERR_INVALID_ARGUMENT);
    assert!(
        last_error().contains("is not a live plan"),
        "{}",
        last_error()
    );
    // SAFETY: the plan handle is checked before anything is read.
    let rc = unsafe { stridekit_plan_run(plan, dst.data, src.data, null_mut()) };
    assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT);
    assert!(buf.iter().all(|&b| b == 0), "a freed plan ran");
    // A pointer to something that is not a plan (here a DLTensor).
    let foreign = &dst as *const DLTensor as *mut StridekitPlan;
    // SAFETY: as above.
    let rc = unsafe { stridekit_plan_run(foreign, dst.data, src.data, null_mut()) };
    assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT);
    assert_eq!(stridekit_plan_free(foreign), STRIDEKIT_ERR_INVALID_ARGUMENT);

    let mut a = null_mut();
    // SAFETY: NUL-terminated string and writable out-pointer.
    assert_eq!(
        unsafe { stridekit_allocator_new(c"sim".as_ptr(), null_mut(), &mut a) },
        0
    );
    let stats = stridekit_allocator_stats_json(a);
    assert!(!stats.is_null());
    assert_eq!(stridekit_string_free(stats), STRIDEKIT_OK);
    assert_eq!(stridekit_string_free(stats), STRIDEKIT_ERR_INVALID_ARGUMENT);
    let mut own = *b"not ours\0";
    assert_eq!(
        stridekit_string_free(own.as_mut_ptr() as *mut c_char),
        STRIDEKIT_ERR_INVALID_ARGUMENT
    );
    assert!(last_error().contains("was not returned by stridekit"));
    assert_eq!(stridekit_allocator_destroy(a), STRIDEKIT_OK);
    let mut p = null_mut();
    // SAFETY: the allocator handle is checked before use.
    let rc = unsafe { stridekit_allocator_malloc(a, 64, null_mut(), &mut p) };
    assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT);
    assert!(
        last_error().contains("is not a live allocator"),
        "{}",
        last_error()
    );
    assert_eq!(
        stridekit_allocator_free(a, p),
        STRIDEKIT_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        stridekit_allocator_empty_cache(a),
        STRIDEKIT_ERR_INVALID_ARGUMENT
    );
    assert!(stridekit_allocator_stats_json(a).is_null());
    assert_eq!(
        stridekit_allocator_destroy(a),
        STRIDEKIT_ERR_INVALID_ARGUMENT
    );
    // A plan handle is not an allocator handle, and the other way round.
    assert_eq!(unsafe { stridekit_plan_new(&dst, &src, &mut plan) }, 0);
    assert_eq!(
        stridekit_allocator_destroy(plan as *mut StridekitAllocator),
        STRIDEKIT_ERR_INVALID_ARGUMENT
    );
    assert_eq!(stridekit_plan_free(plan), STRIDEKIT_OK);
}

#[test]
fn row_gather_refuses_overlapping_rows_and_takes_empty_ones() {
    let mut src_buf: Vec<u8> = (0..48).collect();
    let mut out = vec![0u8; 48];
    let mut idx: Vec<i64> = vec![2, 0, 1];
    let (mut ss, mut sd) = ([3i64, 4], [3i64, 4]);
    let src = dl(src_buf.as_mut_ptr(), &mut ss, None, DType::F32);
    let (mut is, mut ist) = ([3i64], [1i64]);
    let index = dl(
        idx.as_mut_ptr() as *mut u8,
        &mut is,
        Some(&mut ist),
        DType::I64,
    );
    // Rows of dst on top of each other (dim-0 stride 0): refused like copy.
    let mut dstr = [0i64, 1];
    let dst = dl(out.as_mut_ptr(), &mut sd, Some(&mut dstr), DType::F32);
    // SAFETY: valid DLTensors over live buffers.
    let rc = unsafe { stridekit_row_gather(&dst, &src, &index, null_mut()) };
    assert_eq!(rc, STRIDEKIT_ERR_TENSOR);
    assert!(last_error().starts_with("unsupported operation: more than one element"));
    // Rows overlapping by half (stride 2 for rows of 4).
    let mut dstr = [2i64, 1];
    let dst = dl(out.as_mut_ptr(), &mut sd, Some(&mut dstr), DType::F32);
    // SAFETY: as above.
    let rc = unsafe { stridekit_row_gather(&dst, &src, &index, null_mut()) };
    assert_eq!(rc, STRIDEKIT_ERR_TENSOR);
    assert!(out.iter().all(|&b| b == 0));

    // Empty rows (shape (rows, 0)) with NULL data: only the index is read and checked,
    // as torch.index_select does for an empty source.
    let (mut es, mut ed) = ([5i64, 0], [3i64, 0]);
    let src = dl(null_mut(), &mut es, None, DType::F32);
    let dst = dl(null_mut(), &mut ed, None, DType::F32);
    for (values, ok) in [
        ([4i64, 0, -5], true),
        ([1, 5, 0], false),
        ([-6, 0, 0], false),
    ] {
        idx.copy_from_slice(&values);
        // SAFETY: the index is live; dst and src are empty.
        let rc = unsafe { stridekit_row_gather(&dst, &src, &index, null_mut()) };
        if ok {
            assert_eq!(rc, STRIDEKIT_OK, "{values:?}: {}", last_error());
        } else {
            assert_eq!(rc, STRIDEKIT_ERR_TENSOR, "{values:?}");
            assert!(last_error().contains("out of range for tensor of size [5, 0]"));
        }
    }
    let (mut zs, mut zd) = ([0i64, 0], [3i64, 0]);
    let src = dl(null_mut(), &mut zs, None, DType::F32);
    let dst = dl(null_mut(), &mut zd, None, DType::F32);
    // SAFETY: as above.
    let rc = unsafe { stridekit_row_gather(&dst, &src, &index, null_mut()) };
    assert_eq!(rc, STRIDEKIT_ERR_TENSOR);
    assert!(last_error().contains("self indexing axis dim should be positive"));
}

#[test]
fn layouts_whose_sizes_overflow_saturate_instead_of_wrapping() {
    // The Rust API's (and explain's) size arithmetic: what the C ABI refuses at its border
    // can still be built inside (as_strided, expand); it must not wrap or panic.
    use stridekit::Layout;
    use stridekit::layout::view::{as_strided, required_storage_bytes};
    let wide = Layout::new(&[1 << 62, 3], &[0, 1], 0).unwrap();
    assert_eq!(wide.numel(), i64::MAX);
    assert_eq!(
        Layout::new(&[1 << 62, 4, 0], &[0, 0, 1], 0)
            .unwrap()
            .numel(),
        0
    );
    assert_eq!(
        required_storage_bytes(&Layout::contiguous(&[1 << 62, 3]), 4),
        i64::MAX
    );
    let far = Layout::new(&[1 << 62], &[1 << 62], 0).unwrap();
    assert_eq!(required_storage_bytes(&far, 4), i64::MAX);
    let e = as_strided(&[1 << 62], &[1 << 62], 0, 4, 40).unwrap_err();
    assert!(
        e.to_string()
            .contains("Storage size calculation overflowed"),
        "{e}"
    );
    let e = as_strided(&[2], &[1], i64::MAX - 1, 4, 40).unwrap_err();
    assert!(e.to_string().contains("overflowed"), "{e}");
    // Within range nothing changes.
    assert_eq!(
        required_storage_bytes(&Layout::new(&[3, 4], &[1, 3], 2).unwrap(), 4),
        56
    );
}
