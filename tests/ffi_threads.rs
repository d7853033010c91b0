//! The C ABI's allocator and plans under threads: 8 threads on one allocator handle
//! (malloc, free, record_stream, empty_cache, stats) see no spurious error, never two live
//! blocks at one address, and exact statistics at the end; plans run on many threads
//! while another frees them are either run whole or refused.

use std::collections::HashSet;
use std::ffi::{CStr, c_void};
use std::ptr::null_mut;
use std::sync::Mutex;

use stridekit::ffi::capi::*;
use stridekit::ffi::error::{STRIDEKIT_ERR_INVALID_ARGUMENT, STRIDEKIT_OK};

const THREADS: usize = 8;
const ROUNDS: usize = 4000;

fn last_error() -> String {
    // SAFETY: never NULL, NUL-terminated.
    unsafe { CStr::from_ptr(stridekit_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// A handle shared between threads (the C ABI is thread-safe; raw pointers are not Send).
#[derive(Clone, Copy)]
struct Shared(usize);

fn stats(a: *mut StridekitAllocator) -> serde_json::Value {
    let s = stridekit_allocator_stats_json(a);
    assert!(!s.is_null(), "{}", last_error());
    // SAFETY: a NUL-terminated string from stridekit.
    let v = serde_json::from_str(&unsafe { CStr::from_ptr(s) }.to_string_lossy()).unwrap();
    assert_eq!(stridekit_string_free(s), STRIDEKIT_OK);
    v
}

fn stress(conf: &str) {
    let mut a = null_mut();
    let c = std::ffi::CString::new(conf).unwrap();
    // SAFETY: NUL-terminated strings and a writable out-pointer.
    let rc = unsafe { stridekit_allocator_new(c"sim:8GiB".as_ptr(), c.as_ptr(), &mut a) };
    assert_eq!(rc, STRIDEKIT_OK, "{}", last_error());
    let shared = Shared(a as usize);
    let live: Mutex<HashSet<usize>> = Mutex::new(HashSet::new());
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let live = &live;
            s.spawn(move || {
                let a = shared.0 as *mut StridekitAllocator;
                let mut mine: Vec<usize> = Vec::new();
                let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ (t as u64);
                for r in 0..ROUNDS {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let stream = (x >> 60) as usize; // a few streams, 0 the default
                    if mine.len() < 16 && (x & 3 != 0 || mine.is_empty()) {
                        let size =
                            [1usize, 512, 4000, 1 << 20, 3 << 20, 25 << 20][(x >> 8) as usize % 6];
                        let mut p = null_mut();
                        // SAFETY: a live allocator and a writable out-pointer.
                        let rc = unsafe {
                            stridekit_allocator_malloc(a, size, stream as *mut c_void, &mut p)
                        };
                        assert_eq!(rc, STRIDEKIT_OK, "malloc: {}", last_error());
                        assert!(
                            live.lock().unwrap().insert(p as usize),
                            "{p:?} handed out while still allocated"
                        );
                        mine.push(p as usize);
                    } else {
                        let p = mine.swap_remove((x >> 16) as usize % mine.len());
                        if x & 16 != 0 {
                            let rc = stridekit_allocator_record_stream(
                                a,
                                p as *mut c_void,
                                7 as *mut c_void,
                            );
                            assert_eq!(rc, STRIDEKIT_OK, "record_stream: {}", last_error());
                        }
                        // Unregistered before the free: once freed, another thread may
                        // get the address.
                        assert!(live.lock().unwrap().remove(&p));
                        let rc = stridekit_allocator_free(a, p as *mut c_void);
                        assert_eq!(rc, STRIDEKIT_OK, "free: {}", last_error());
                    }
                    if r % 512 == 0 {
                        assert_eq!(stridekit_allocator_empty_cache(a), STRIDEKIT_OK);
                        let s = stats(a);
                        assert!(s["allocated_bytes.all.current"].as_u64().is_some());
                    }
                }
                for p in mine {
                    assert!(live.lock().unwrap().remove(&p));
                    assert_eq!(stridekit_allocator_free(a, p as *mut c_void), STRIDEKIT_OK);
                }
            });
        }
    });
    // A malloc processes the events of blocks freed with stream uses (they stay active
    // until then, as in PyTorch).
    let mut p = null_mut();
    // SAFETY: a live allocator and a writable out-pointer.
    assert_eq!(
        unsafe { stridekit_allocator_malloc(a, 8, null_mut(), &mut p) },
        0
    );
    assert_eq!(stridekit_allocator_free(a, p), STRIDEKIT_OK);
    let s = stats(a);
    assert_eq!(s["allocated_bytes.all.current"], 0, "{conf}: {s}");
    assert_eq!(s["active_bytes.all.current"], 0, "{conf}");
    assert_eq!(
        s["allocation.all.allocated"], s["allocation.all.freed"],
        "{conf}"
    );
    assert_eq!(stridekit_allocator_empty_cache(a), STRIDEKIT_OK);
    assert_eq!(stridekit_allocator_destroy(a), STRIDEKIT_OK);
}

#[test]
fn eight_threads_on_one_allocator_keep_exact_statistics() {
    stress("default");
}

#[test]
fn eight_threads_with_expandable_segments_and_stridekits_policy() {
    stress("expandable_segments:True");
    stress("policy:stridekit");
}

#[test]
fn plans_freed_while_other_threads_run_them() {
    use stridekit::DType;
    use stridekit::ffi::dlpack::{DLDevice, DLTensor, kDLCPU};
    use stridekit::ffi::view::dtype_to_dlpack;
    let mut shape = [64i64];
    let t = DLTensor {
        data: null_mut(),
        device: DLDevice {
            device_type: kDLCPU,
            device_id: 0,
        },
        ndim: 1,
        dtype: dtype_to_dlpack(DType::F32),
        shape: shape.as_mut_ptr(),
        strides: null_mut(),
        byte_offset: 0,
    };
    for _ in 0..50 {
        let mut plan = null_mut();
        // SAFETY: valid DLTensors and a writable out-pointer.
        assert_eq!(
            unsafe { stridekit_plan_new(&t, &t, &mut plan) },
            STRIDEKIT_OK
        );
        let shared = Shared(plan as usize);
        std::thread::scope(|s| {
            for k in 0..THREADS {
                s.spawn(move || {
                    let plan = shared.0 as *mut StridekitPlan;
                    let src: Vec<f32> = (0..64).map(|i| i as f32).collect();
                    let mut dst = vec![0f32; 64];
                    for _ in 0..200 {
                        // SAFETY: both buffers hold 64 float32.
                        let rc = unsafe {
                            stridekit_plan_run(
                                plan,
                                dst.as_mut_ptr() as *mut c_void,
                                src.as_ptr() as *const c_void,
                                null_mut(),
                            )
                        };
                        if rc == STRIDEKIT_OK {
                            assert_eq!(dst, src);
                        } else {
                            assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT);
                            assert!(last_error().contains("is not a live plan"));
                            break;
                        }
                    }
                    if k == 0 {
                        let rc = stridekit_plan_free(plan);
                        assert_eq!(rc, STRIDEKIT_OK);
                    }
                });
            }
        });
        assert_eq!(stridekit_plan_free(plan), STRIDEKIT_ERR_INVALID_ARGUMENT);
    }
}

/// Whether a GPU is present; without one the test is skipped (a failure under
/// STRIDEKIT_REQUIRE_GPU=1, as gpu-check runs it).
fn have_gpu(test: &str) -> bool {
    let why = match stridekit::backend::cuda::device_count() {
        Ok(n) if n > 0 => return true,
        Ok(_) => "no device".to_string(),
        Err(e) => e.to_string(),
    };
    if std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1") {
        panic!("{test}: STRIDEKIT_REQUIRE_GPU=1 but {why}");
    }
    eprintln!("{test}: skipped: {why}");
    false
}

/// PyTorch's pluggable-allocator entry points (`stridekit_torch_malloc`/`_free`, one
/// allocator per device shared by every thread, as torch calls them from its threads) on
/// cuda:0 from 8 threads: no spurious failure, never two live blocks overlapping, and the
/// device's statistics balanced at the end. Needs a GPU (scripts/gpu-check's
/// ffi-threads-gpu step); skipped here.
#[test]
fn gpu_pluggable_allocator_from_eight_threads() {
    if !have_gpu("gpu_pluggable_allocator_from_eight_threads") {
        return;
    }
    let live: Mutex<std::collections::BTreeMap<usize, usize>> = Mutex::default();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let live = &live;
            s.spawn(move || {
                let mut mine: Vec<(usize, usize)> = Vec::new();
                let mut x = 0x2545_f491_4f6c_dd1du64 ^ (t as u64 + 1);
                for _ in 0..2000 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if mine.len() < 12 && (x & 3 != 0 || mine.is_empty()) {
                        let size =
                            [1usize, 512, 4000, 1 << 20, 3 << 20, 25 << 20][(x >> 8) as usize % 6];
                        let stream = ((x >> 60) % 3) as usize; // default, legacy, per-thread
                        let p = stridekit_torch_malloc(size as isize, 0, stream as *mut c_void);
                        assert!(!p.is_null(), "torch_malloc({size}): {}", last_error());
                        let p = p as usize;
                        let mut l = live.lock().unwrap();
                        if let Some((&q, &n)) = l.range(..p + size).next_back() {
                            assert!(q + n <= p, "{p:#x}+{size} overlaps live {q:#x}+{n}");
                        }
                        l.insert(p, size);
                        mine.push((p, size));
                    } else {
                        let (p, size) = mine.swap_remove((x >> 16) as usize % mine.len());
                        // Unregistered first: once freed, another thread may get it.
                        live.lock().unwrap().remove(&p);
                        stridekit_torch_free(p as *mut c_void, size as isize, 0, null_mut());
                    }
                }
                for (p, size) in mine {
                    live.lock().unwrap().remove(&p);
                    stridekit_torch_free(p as *mut c_void, size as isize, 0, null_mut());
                }
            });
        }
    });
    let s = stridekit_torch_stats_json(0);
    assert!(!s.is_null(), "{}", last_error());
    // SAFETY: a NUL-terminated string from stridekit.
    let v: serde_json::Value =
        serde_json::from_str(&unsafe { CStr::from_ptr(s) }.to_string_lossy()).unwrap();
    assert_eq!(stridekit_string_free(s), STRIDEKIT_OK);
    assert_eq!(v["allocated_bytes.all.current"], 0, "{v}");
    assert_eq!(
        v["allocation.all.allocated"], v["allocation.all.freed"],
        "{v}"
    );
    assert_eq!(stridekit_torch_empty_cache(0), STRIDEKIT_OK);
}
