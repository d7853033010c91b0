//! The C ABI's copies against the Rust API: `stridekit_copy` over raw buffers gives the
//! bytes `Tensor::copy_` gives for random views, destinations and dtypes; overlap follows
//! the Rust API's rules; a plan's run makes no heap allocation; on a GPU (skipped without
//! one, failing under STRIDEKIT_REQUIRE_GPU=1) the same copies run on device memory, on
//! the default stream and on an external stream.

mod common;
#[path = "../benches/common_alloc.rs"]
mod common_alloc;

use std::ffi::{CStr, c_void};
use std::ptr::null_mut;

use common::{
    POISON, Rng, random_base, random_bytes, random_destination, random_view, storage_len,
};
use common_alloc::{Counting, allocations_during};
use stridekit::backend::cuda::{self, DeviceBuffer, Gpu};
use stridekit::ffi::capi::*;
use stridekit::ffi::dlpack::{DLDevice, DLTensor, kDLCPU, kDLCUDA};
use stridekit::ffi::error::{STRIDEKIT_ERR_TENSOR, STRIDEKIT_OK};
use stridekit::ffi::view::dtype_to_dlpack;
use stridekit::{DType, Layout, Storage, Tensor};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A DLTensor for `layout` over a storage starting at `data` (the layout's offset becomes
/// the byte offset). `shape`/`strides` must outlive it.
fn dl(
    data: *mut u8,
    layout: &Layout,
    dtype: DType,
    dims: &mut (Vec<i64>, Vec<i64>),
    device_type: i32,
) -> DLTensor {
    dims.0 = layout.sizes().to_vec();
    dims.1 = layout.strides().to_vec();
    DLTensor {
        data: data as *mut c_void,
        device: DLDevice {
            device_type,
            device_id: 0,
        },
        ndim: layout.ndim() as i32,
        dtype: dtype_to_dlpack(dtype),
        shape: dims.0.as_mut_ptr(),
        strides: dims.1.as_mut_ptr(),
        byte_offset: (layout.offset() as usize * dtype.itemsize()) as u64,
    }
}

fn last_error() -> String {
    // SAFETY: never NULL, NUL-terminated.
    unsafe { CStr::from_ptr(stridekit_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// One random case: source bytes and view, destination layout, dtypes; what the Rust API
/// writes into a poisoned destination storage.
struct Case {
    src_bytes: Vec<u8>,
    src: Tensor,
    dst_layout: Layout,
    dst_dtype: DType,
    want: Vec<u8>,
}

fn case(rng: &mut Rng) -> Case {
    let (st, dt) = (rng.dtype(), rng.dtype());
    let base = random_base(rng);
    let len = storage_len(&base) + rng.range(0, 3) as usize;
    let src_bytes = random_bytes(rng, len, st, dt);
    let storage = Storage::from_bytes(src_bytes.clone());
    let src = random_view(rng, &storage, base, st);
    let dst_layout = random_destination(rng, src.sizes());
    let dst_storage = Storage::from_bytes(vec![POISON; storage_len(&dst_layout) * dt.itemsize()]);
    let dst = Tensor::from_storage(dst_storage.clone(), dst_layout.clone(), dt).unwrap();
    dst.copy_(&src).unwrap();
    Case {
        src_bytes,
        src,
        dst_layout,
        dst_dtype: dt,
        want: dst_storage.to_host().unwrap(),
    }
}

#[test]
fn stridekit_copy_gives_the_rust_apis_bytes() {
    let mut rng = Rng::new(12);
    for seed in 0..400 {
        let mut c = case(&mut rng);
        let mut out = vec![POISON; c.want.len()];
        let (mut dd, mut sd) = Default::default();
        let dst = dl(
            out.as_mut_ptr(),
            &c.dst_layout,
            c.dst_dtype,
            &mut dd,
            kDLCPU,
        );
        let src = dl(
            c.src_bytes.as_mut_ptr(),
            c.src.layout(),
            c.src.dtype(),
            &mut sd,
            kDLCPU,
        );
        // SAFETY: both tensors lie inside their buffers.
        let rc = unsafe { stridekit_copy(&dst, &src, null_mut()) };
        assert_eq!(rc, STRIDEKIT_OK, "case {seed}: {}", last_error());
        assert_eq!(
            out, c.want,
            "case {seed}: {:?} -> {:?}",
            c.src, c.dst_layout
        );
    }
}

#[test]
fn overlap_follows_the_rust_api() {
    // x = arange(16, int32); the even elements from the odd ones: disjoint elements in
    // intersecting byte ranges, staged.
    let mut x: Vec<u8> = (0..16i32).flat_map(|v| v.to_ne_bytes()).collect();
    let p = x.as_mut_ptr();
    let even = Layout::new(&[8], &[2], 0).unwrap();
    let odd = Layout::new(&[8], &[2], 1).unwrap();
    let (mut a, mut b) = Default::default();
    let dst = dl(p, &even, DType::I32, &mut a, kDLCPU);
    let src = dl(p, &odd, DType::I32, &mut b, kDLCPU);
    // SAFETY: both views lie inside x.
    assert_eq!(
        unsafe { stridekit_copy(&dst, &src, null_mut()) },
        STRIDEKIT_OK
    );
    let v: Vec<i32> = x
        .chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(v, [1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15]);
    // Shifted by one element: partial overlap, refused with PyTorch's message.
    let head = Layout::new(&[8], &[1], 0).unwrap();
    let shifted = Layout::new(&[8], &[1], 1).unwrap();
    let dst = dl(p, &head, DType::I32, &mut a, kDLCPU);
    let src = dl(p, &shifted, DType::I32, &mut b, kDLCPU);
    // SAFETY: as above.
    assert_eq!(
        unsafe { stridekit_copy(&dst, &src, null_mut()) },
        STRIDEKIT_ERR_TENSOR
    );
    assert!(last_error().starts_with("unsupported operation: some elements of the input tensor"));
    // The same view as both: nothing to do; as float32 from int32: converted in place.
    let dst = dl(p, &head, DType::I32, &mut a, kDLCPU);
    // SAFETY: as above.
    assert_eq!(
        unsafe { stridekit_copy(&dst, &dst, null_mut()) },
        STRIDEKIT_OK
    );
    let as_float = dl(p, &head, DType::F32, &mut b, kDLCPU);
    // SAFETY: as above.
    assert_eq!(
        unsafe { stridekit_copy(&as_float, &dst, null_mut()) },
        STRIDEKIT_OK
    );
    let f: Vec<f32> = x[..32]
        .chunks(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(f, [1.0, 1.0, 3.0, 3.0, 5.0, 5.0, 7.0, 7.0]);
}

/// Plans of the planning test in tests/gpu_launch_alloc.rs' spirit: transpose,
/// channels_last with C = 3, a strided slice, a broadcast, a converting copy, and a copy
/// of 2 Mi elements (split across threads).
fn plan_cases() -> Vec<(Layout, DType, Layout, DType)> {
    let x = Layout::contiguous(&[64, 96]);
    let t = Layout::new(&[96, 64], &[1, 96], 0).unwrap();
    let nchw = Layout::contiguous(&[2, 3, 16, 16]);
    let nhwc = Layout::new(&[2, 3, 16, 16], &[768, 1, 48, 3], 0).unwrap();
    let big_t = Layout::new(&[2048, 1024], &[1, 2048], 0).unwrap();
    vec![
        (Layout::contiguous(&[96, 64]), DType::F32, t, DType::F32),
        (nhwc, DType::F16, nchw, DType::F16),
        (
            Layout::contiguous(&[32, 48]),
            DType::F32,
            Layout::new(&[32, 48], &[192, 2], 0).unwrap(),
            DType::F32,
        ),
        (
            x.clone(),
            DType::F32,
            Layout::new(&[64, 96], &[0, 1], 0).unwrap(),
            DType::F32,
        ),
        (
            x,
            DType::BF16,
            Layout::new(&[64, 96], &[0, 1], 0).unwrap(),
            DType::F32,
        ),
        (
            Layout::contiguous(&[2048, 1024]),
            DType::I32,
            big_t,
            DType::I32,
        ),
    ]
}

#[test]
fn running_a_plan_makes_no_heap_allocation() {
    for (dl_, dt, sl, st) in plan_cases() {
        let mut dst = vec![0u8; storage_len(&dl_) * dt.itemsize()];
        let mut src = vec![1u8; storage_len(&sl) * st.itemsize()];
        let (mut a, mut b) = Default::default();
        let d = dl(null_mut(), &dl_, dt, &mut a, kDLCPU);
        let s = dl(null_mut(), &sl, st, &mut b, kDLCPU);
        let mut plan = null_mut();
        // SAFETY: valid DLTensors, a writable out-pointer.
        assert_eq!(
            unsafe { stridekit_plan_new(&d, &s, &mut plan) },
            STRIDEKIT_OK
        );
        let (dp, sp) = (
            dst.as_mut_ptr() as *mut c_void,
            src.as_mut_ptr() as *const c_void,
        );
        // SAFETY: the buffers hold the planned tensors.
        let run = || {
            assert_eq!(
                unsafe { stridekit_plan_run(plan, dp, sp, null_mut()) },
                STRIDEKIT_OK
            )
        };
        run(); // a first run may start the thread pool
        let n = allocations_during(|| {
            for _ in 0..20 {
                run();
            }
        });
        assert_eq!(
            n, 0,
            "{:?} <- {:?}: {n} heap allocations in 20 runs",
            dl_, sl
        );
        // SAFETY: made above, freed once.
        assert_eq!(stridekit_plan_free(plan), 0);
    }
}

#[test]
fn cuda_paths_without_a_gpu_fail_cleanly() {
    if cuda::driver_available() {
        return;
    }
    let l = Layout::contiguous(&[3, 4]);
    let (mut a, mut b) = Default::default();
    let d = dl(8 as *mut u8, &l, DType::F32, &mut a, kDLCUDA);
    let s = dl(64 as *mut u8, &l, DType::F32, &mut b, kDLCUDA);
    // SAFETY: the call fails before any pointer is used.
    let rc = unsafe { stridekit_copy(&d, &s, null_mut()) };
    assert_eq!(rc, stridekit::ffi::error::STRIDEKIT_ERR_DEVICE);
    assert!(
        last_error().starts_with("no CUDA driver"),
        "{}",
        last_error()
    );
    assert!(stridekit_torch_malloc(1024, 0, null_mut()).is_null());
    assert!(last_error().contains("libcuda"), "{}", last_error());
    assert!(stridekit_torch_stats_json(0).is_null());
}

/// cuda:0, or None after saying why the test is skipped (a failure under
/// STRIDEKIT_REQUIRE_GPU=1).
fn gpu(test: &str) -> Option<std::sync::Arc<Gpu>> {
    let why = match cuda::device_count() {
        Ok(n) if n > 0 => match Gpu::shared(0) {
            Ok(g) => return Some(g),
            Err(e) => e.to_string(),
        },
        Ok(_) => "no device".to_string(),
        Err(e) => e.to_string(),
    };
    if std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1") {
        panic!("{test}: STRIDEKIT_REQUIRE_GPU=1 but {why}");
    }
    eprintln!("{test}: skipped: {why}");
    None
}

#[test]
fn gpu_copies_give_the_rust_apis_bytes_on_any_stream() {
    let Some(gpu) = gpu("gpu_copies_give_the_rust_apis_bytes_on_any_stream") else {
        return;
    };
    let external = gpu.ctx.new_stream().unwrap();
    let mut rng = Rng::new(13);
    for seed in 0..200 {
        let c = case(&mut rng);
        let src = DeviceBuffer::from_host(&gpu, &c.src_bytes).unwrap();
        let dst = DeviceBuffer::from_host(&gpu, &vec![POISON; c.want.len()]).unwrap();
        let (mut dd, mut sd) = Default::default();
        let d = dl(
            dst.ptr() as *mut u8,
            &c.dst_layout,
            c.dst_dtype,
            &mut dd,
            kDLCUDA,
        );
        let s = dl(
            src.ptr() as *mut u8,
            c.src.layout(),
            c.src.dtype(),
            &mut sd,
            kDLCUDA,
        );
        let stream = if seed % 2 == 0 {
            null_mut()
        } else {
            external.cu_stream() as *mut c_void
        };
        // SAFETY: both tensors lie inside their device buffers; the stream is live.
        let rc = unsafe { stridekit_copy(&d, &s, stream) };
        assert_eq!(rc, STRIDEKIT_OK, "case {seed}: {}", last_error());
        external.synchronize().unwrap();
        // SAFETY: the legacy default stream.
        unsafe { cudarc::driver::result::stream::synchronize(null_mut()) }.unwrap();
        assert_eq!(
            dst.to_host().unwrap(),
            c.want,
            "case {seed}: {:?} -> {:?}",
            c.src,
            c.dst_layout
        );
    }
}

#[test]
fn gpu_plan_runs_make_no_heap_allocation() {
    let Some(gpu) = gpu("gpu_plan_runs_make_no_heap_allocation") else {
        return;
    };
    for (dl_, dt, sl, st) in plan_cases() {
        let dst = DeviceBuffer::alloc(&gpu, storage_len(&dl_) * dt.itemsize()).unwrap();
        let src = DeviceBuffer::alloc(&gpu, storage_len(&sl) * st.itemsize()).unwrap();
        let (mut a, mut b) = Default::default();
        let d = dl(null_mut(), &dl_, dt, &mut a, kDLCUDA);
        let s = dl(null_mut(), &sl, st, &mut b, kDLCUDA);
        let mut plan = null_mut();
        // SAFETY: valid DLTensors.
        assert_eq!(
            unsafe { stridekit_plan_new(&d, &s, &mut plan) },
            STRIDEKIT_OK
        );
        let (dp, sp) = (dst.ptr() as *mut c_void, src.ptr() as *const c_void);
        // SAFETY: the device buffers hold the planned tensors.
        let run = || {
            assert_eq!(
                unsafe { stridekit_plan_run(plan, dp, sp, null_mut()) },
                STRIDEKIT_OK
            )
        };
        run();
        let n = allocations_during(|| {
            for _ in 0..100 {
                run();
            }
        });
        // SAFETY: the legacy default stream.
        unsafe { cudarc::driver::result::stream::synchronize(null_mut()) }.unwrap();
        assert_eq!(n, 0, "{dl_:?}: {n} heap allocations in 100 runs");
        // SAFETY: made above.
        assert_eq!(stridekit_plan_free(plan), 0);
    }
}

#[test]
fn gpu_row_gather_matches_the_cpu_and_reports_bad_indices() {
    let Some(gpu) = gpu("gpu_row_gather_matches_the_cpu_and_reports_bad_indices") else {
        return;
    };
    let (rows, row_len, n) = (1000usize, 96usize, 257usize);
    let src: Vec<u8> = (0..rows * row_len)
        .flat_map(|v| (v as f32).to_ne_bytes())
        .collect();
    let mut rng = Rng::new(14);
    for index64 in [false, true] {
        let idx: Vec<i64> = (0..n).map(|_| rng.below(rows as u64) as i64).collect();
        let ib: Vec<u8> = if index64 {
            idx.iter().flat_map(|i| i.to_ne_bytes()).collect()
        } else {
            idx.iter().flat_map(|&i| (i as i32).to_ne_bytes()).collect()
        };
        let it = if index64 { DType::I64 } else { DType::I32 };
        let (sl, dl_, il) = (
            Layout::contiguous(&[rows as i64, row_len as i64]),
            Layout::contiguous(&[n as i64, row_len as i64]),
            Layout::contiguous(&[n as i64]),
        );
        let (sbuf, ibuf) = (
            DeviceBuffer::from_host(&gpu, &src).unwrap(),
            DeviceBuffer::from_host(&gpu, &ib).unwrap(),
        );
        let dbuf = DeviceBuffer::from_host(&gpu, &vec![POISON; n * row_len * 4]).unwrap();
        let (mut a, mut b, mut c) = Default::default();
        let d = dl(dbuf.ptr() as *mut u8, &dl_, DType::F32, &mut a, kDLCUDA);
        let s = dl(sbuf.ptr() as *mut u8, &sl, DType::F32, &mut b, kDLCUDA);
        let i = dl(ibuf.ptr() as *mut u8, &il, it, &mut c, kDLCUDA);
        // SAFETY: the three tensors lie inside their device buffers.
        assert_eq!(
            unsafe { stridekit_row_gather(&d, &s, &i, null_mut()) },
            STRIDEKIT_OK,
            "{}",
            last_error()
        );
        let want: Vec<u8> = idx
            .iter()
            .flat_map(|&r| src[r as usize * row_len * 4..(r as usize + 1) * row_len * 4].to_vec())
            .collect();
        assert_eq!(dbuf.to_host().unwrap(), want, "index64 {index64}");
        // One index past the end: refused with PyTorch's message.
        let mut bad = ib.clone();
        let w = it.itemsize();
        bad[..w].copy_from_slice(&(rows as i64).to_ne_bytes()[..w]);
        ibuf.upload(0, &bad).unwrap();
        // SAFETY: as above.
        assert_eq!(
            unsafe { stridekit_row_gather(&d, &s, &i, null_mut()) },
            STRIDEKIT_ERR_TENSOR
        );
        assert_eq!(last_error(), "index out of range in self");
    }
}

#[test]
fn gpu_row_gather_of_empty_rows_reads_only_the_index() {
    let Some(gpu) = gpu("gpu_row_gather_of_empty_rows_reads_only_the_index") else {
        return;
    };
    // torch.index_select(src, 0, index) with src of shape (5, 0): dst and src have no bytes
    // (NULL data), the index is on the device and still bounds-checked (-5 <= i < 5).
    let (sl, dl_, il) = (
        Layout::contiguous(&[5, 0]),
        Layout::contiguous(&[3, 0]),
        Layout::contiguous(&[3]),
    );
    for (values, ok) in [
        ([0i64, 4, -5], true),
        ([1, 5, 0], false),
        ([-6, 0, 0], false),
    ] {
        let ib: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let ibuf = DeviceBuffer::from_host(&gpu, &ib).unwrap();
        let (mut a, mut b, mut c) = Default::default();
        let d = dl(null_mut(), &dl_, DType::F32, &mut a, kDLCUDA);
        let s = dl(null_mut(), &sl, DType::F32, &mut b, kDLCUDA);
        let i = dl(ibuf.ptr() as *mut u8, &il, DType::I64, &mut c, kDLCUDA);
        // SAFETY: the index lies inside its device buffer; dst and src hold no element.
        let rc = unsafe { stridekit_row_gather(&d, &s, &i, null_mut()) };
        if ok {
            assert_eq!(rc, STRIDEKIT_OK, "{values:?}: {}", last_error());
        } else {
            assert_eq!(rc, STRIDEKIT_ERR_TENSOR, "{values:?}");
            assert!(last_error().contains("out of range for tensor of size [5, 0]"));
        }
    }
}

#[test]
fn gpu_overlapping_ranges_are_staged_or_refused() {
    let Some(gpu) = gpu("gpu_overlapping_ranges_are_staged_or_refused") else {
        return;
    };
    let x: Vec<u8> = (0..16i32).flat_map(|v| v.to_ne_bytes()).collect();
    let buf = DeviceBuffer::from_host(&gpu, &x).unwrap();
    let p = buf.ptr() as *mut u8;
    let (mut a, mut b) = Default::default();
    let even = dl(
        p,
        &Layout::new(&[8], &[2], 0).unwrap(),
        DType::I32,
        &mut a,
        kDLCUDA,
    );
    let odd = dl(
        p,
        &Layout::new(&[8], &[2], 1).unwrap(),
        DType::I32,
        &mut b,
        kDLCUDA,
    );
    // SAFETY: both views lie inside the buffer.
    assert_eq!(
        unsafe { stridekit_copy(&even, &odd, null_mut()) },
        STRIDEKIT_OK,
        "{}",
        last_error()
    );
    let v: Vec<i32> = buf
        .to_host()
        .unwrap()
        .chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(v, [1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15]);
    let head = dl(
        p,
        &Layout::new(&[8], &[1], 0).unwrap(),
        DType::I32,
        &mut a,
        kDLCUDA,
    );
    let shifted = dl(
        p,
        &Layout::new(&[8], &[1], 1).unwrap(),
        DType::I32,
        &mut b,
        kDLCUDA,
    );
    // SAFETY: as above.
    assert_eq!(
        unsafe { stridekit_copy(&head, &shifted, null_mut()) },
        STRIDEKIT_ERR_TENSOR
    );
}
