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
