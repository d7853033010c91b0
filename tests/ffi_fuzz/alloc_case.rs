//! The fuzz classes of the allocator and the handles: an allocator made from hostile
//! device and conf strings, then a random sequence of malloc (sizes near the limits),
//! free (live blocks, interior and made-up addresses, blocks freed already),
//! record_stream, empty_cache and stats on it; and made-up handle values given to every
//! function taking a plan, an allocator or a string.
//!
//! Checked: every status is one the call may return (never a caught panic), a block is
//! never handed out while another live block overlaps it (each block's first and last
//! bytes hold a tag that must be intact when it is freed), a refused free changes
//! nothing, the statistics count exactly the live blocks, a balanced sequence ends with
//! nothing allocated, and a destroyed allocator or a made-up handle is refused.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr::null_mut;

use stridekit::ffi::capi::*;
use stridekit::ffi::error::{
    STRIDEKIT_ERR_DEVICE, STRIDEKIT_ERR_INVALID_ARGUMENT, STRIDEKIT_ERR_OUT_OF_MEMORY, STRIDEKIT_OK,
};

use super::{Rng, Tally};

const DEVICES: [&str; 13] = [
    "sim:64MiB",
    "sim:64MiB",
    "sim:1GiB",
    "sim",
    "sim:0",
    "sim:1",
    "sim:256TiB",
    "sim:300TiB",
    "sim:99999999999999999999999",
    "sim:-1",
    "cuda:-1",
    "cuda:99999999999",
    "",
];

const CONFS: [&str; 16] = [
    "",
    "",
    "roundup_power2_divisions:4",
    "roundup_power2_divisions:[256:8,512:2,>:1]",
    "roundup_power2_divisions:[>:16]",
    "expandable_segments:True",
    "max_split_size_mb:20",
    "max_split_size_mb:18446744073709551615",
    "max_split_size_mb:-1",
    "roundup_power2_divisions:3",
    "roundup_power2_divisions:[:4]",
    "garbage_collection_threshold:0.5,max_split_size_mb:40",
    "garbage_collection_threshold:2.0",
    "garbage_collection_threshold:nan",
    "pinned_use_cuda_host_register:True,,,:",
    "policy:stridekit",
];

/// A string from the tables, or one of random bytes (not UTF-8, or not a setting).
fn hostile_string(r: &mut Rng, table: &[&str]) -> CString {
    if r.chance(90) {
        return CString::new(table[r.below(table.len() as u64) as usize]).unwrap();
    }
    let bytes: Vec<u8> = (0..r.below(24))
        .map(|_| (r.next() % 255 + 1) as u8)
        .collect();
    CString::new(bytes).unwrap()
}

fn hostile_size(r: &mut Rng) -> usize {
    match r.below(100) {
        0..=59 => r.below(5000) as usize,
        60..=74 => [
            512usize,
            1 << 20,
            (1 << 20) + 1,
            2 << 20,
            10 << 20,
            20 << 20,
        ][r.below(6) as usize],
        75..=84 => usize::MAX - r.below(1 << 20) as usize,
        85..=89 => 1usize << r.below(64),
        90..=94 => (1usize << 63) + r.below(3) as usize,
        _ => r.next() as usize,
    }
}

fn stats(tally: &mut Tally, a: *mut StridekitAllocator) -> serde_json::Value {
    let mut s = null_mut();
    let rc = tally.call("stats_json", || {
        s = stridekit_allocator_stats_json(a);
        if s.is_null() { 1 } else { STRIDEKIT_OK }
    });
    assert_eq!(rc, STRIDEKIT_OK, "stats_json of a live allocator failed");
    // SAFETY: a NUL-terminated string from stridekit, freed once below.
    let v = serde_json::from_str(&unsafe { CStr::from_ptr(s) }.to_string_lossy()).unwrap();
    assert_eq!(stridekit_string_free(s), STRIDEKIT_OK);
    assert_eq!(
        stridekit_string_free(s),
        STRIDEKIT_ERR_INVALID_ARGUMENT,
        "a string freed twice"
    );
    v
}

fn stat(v: &serde_json::Value, key: &str) -> i64 {
    v[key].as_i64().unwrap_or_else(|| panic!("no {key} in {v}"))
}

/// The tag written at both ends of a block handed out at `p`.
fn tag(p: usize) -> u8 {
    ((p >> 9) as u8) | 1
}

/// An allocator from hostile strings, and random calls on it.
pub fn alloc_case(r: &mut Rng, tally: &mut Tally) {
    let device = hostile_string(r, &DEVICES);
    let conf = hostile_string(r, &CONFS);
    let mut a = null_mut();
    // SAFETY: NUL-terminated strings and a writable out-pointer.
    let rc = tally.call("allocator_new", || unsafe {
        stridekit_allocator_new(device.as_ptr(), conf.as_ptr(), &mut a)
    });
    assert!(
        [
            STRIDEKIT_OK,
            STRIDEKIT_ERR_INVALID_ARGUMENT,
            STRIDEKIT_ERR_DEVICE
        ]
        .contains(&rc),
        "allocator_new({device:?}, {conf:?}): rc {rc}"
    );
    if rc != STRIDEKIT_OK {
        return;
    }
    // Live blocks: address -> size.
    let mut live: BTreeMap<usize, usize> = BTreeMap::new();
    let mut freed: Vec<usize> = Vec::new();
    for _ in 0..r.below(40) {
        match r.below(100) {
            0..=44 => {
                let size = hostile_size(r);
                let mut p = null_mut();
                // SAFETY: a live handle and a writable out-pointer.
                let rc = tally.call("allocator_malloc", || unsafe {
                    stridekit_allocator_malloc(a, size, r.next() as usize as *mut c_void, &mut p)
                });
                // A device call that fails (a simulated device too large for the host's
                // address space to reserve) is a device error naming it, as in PyTorch.
                let device_call =
                    rc == STRIDEKIT_ERR_DEVICE && super::last_error().contains("device call");
                assert!(
                    rc == STRIDEKIT_OK || rc == STRIDEKIT_ERR_OUT_OF_MEMORY || device_call,
                    "malloc({size}) on {device:?} under {conf:?}: rc {rc}: {}",
                    super::last_error()
                );
                if rc != STRIDEKIT_OK || size == 0 {
                    continue;
                }
                let p = p as usize;
                assert!(p != 0, "malloc({size}) gave NULL");
                let end = p
                    .checked_add(size)
                    .expect("a block wraps the address space");
                if let Some((&q, &n)) = live.range(..end).next_back() {
                    assert!(q + n <= p, "block {p:#x}+{size} overlaps live {q:#x}+{n}");
                }
                // SAFETY: the block's first and last bytes are host memory ("sim").
                unsafe {
                    *(p as *mut u8) = tag(p);
                    *((end - 1) as *mut u8) = tag(p);
                }
                live.insert(p, size);
            }
            45..=69 if !live.is_empty() => {
                let k = r.below(live.len() as u64) as usize;
                let (&p, &size) = live.iter().nth(k).unwrap();
                // SAFETY: as above (the block is still ours).
                let ends = unsafe { (*(p as *const u8), *((p + size - 1) as *const u8)) };
                assert_eq!(ends, (tag(p), tag(p)), "block {p:#x} written by another");
                let rc = tally.call("allocator_free", || {
                    stridekit_allocator_free(a, p as *mut c_void)
                });
                assert_eq!(rc, STRIDEKIT_OK, "free of a live block");
                live.remove(&p);
                freed.push(p);
            }
            70..=84 => {
                // A free that must be refused: freed already, interior, or made up.
                let p = match r.below(3) {
                    0 if !freed.is_empty() => freed[r.below(freed.len() as u64) as usize],
                    1 if !live.is_empty() => live.keys().next().unwrap() + 1 + r.below(64) as usize,
                    _ => r.next() as usize | 1,
                };
                if live.contains_key(&p) || p == 0 {
                    continue; // handed out again since: a real free
                }
                let before = stats(tally, a);
                let rc = tally.call("allocator_free(bad)", || {
                    stridekit_allocator_free(a, p as *mut c_void)
                });
                assert_eq!(
                    rc, STRIDEKIT_ERR_INVALID_ARGUMENT,
                    "free of {p:#x} accepted"
                );
                assert_eq!(
                    stats(tally, a),
                    before,
                    "a refused free changed the statistics"
                );
            }
            85..=89 => {
                let p = match live.keys().next() {
                    Some(&p) if r.chance(70) => p,
                    _ => r.next() as usize | 1,
                };
                let rc = tally.call("allocator_record_stream", || {
                    stridekit_allocator_record_stream(
                        a,
                        p as *mut c_void,
                        r.next() as usize as *mut c_void,
                    )
                });
                let want = if live.contains_key(&p) {
                    STRIDEKIT_OK
                } else {
                    STRIDEKIT_ERR_INVALID_ARGUMENT
                };
                assert_eq!(rc, want, "record_stream of {p:#x}");
            }
            90..=94 => {
                let rc = tally.call("allocator_empty_cache", || {
                    stridekit_allocator_empty_cache(a)
                });
                assert_eq!(rc, STRIDEKIT_OK);
            }
            _ => {
                let s = stats(tally, a);
                assert_eq!(stat(&s, "allocation.all.current"), live.len() as i64);
                // (requested_bytes, like active_bytes, keeps a block freed with stream
                // uses until its events are processed, as in PyTorch.)
                let requested: i64 = live.values().map(|&n| n as i64).sum();
                assert!(stat(&s, "allocated_bytes.all.current") >= requested);
                assert!(stat(&s, "requested_bytes.all.current") >= requested);
            }
        }
    }
    for &p in live.keys() {
        assert_eq!(stridekit_allocator_free(a, p as *mut c_void), STRIDEKIT_OK);
    }
    let s = stats(tally, a);
    assert_eq!(stat(&s, "allocation.all.current"), 0);
    assert_eq!(stat(&s, "allocated_bytes.all.current"), 0);
    assert_eq!(
        stat(&s, "allocation.all.allocated"),
        stat(&s, "allocation.all.freed")
    );
    assert_eq!(stridekit_allocator_destroy(a), STRIDEKIT_OK);
    // Destroyed: every call on it is refused.
    let mut p = null_mut();
    // SAFETY: a writable out-pointer; the handle is checked.
    let rc = unsafe { stridekit_allocator_malloc(a, 64, null_mut(), &mut p) };
    assert_eq!(rc, STRIDEKIT_ERR_INVALID_ARGUMENT);
    assert_eq!(
        stridekit_allocator_destroy(a),
        STRIDEKIT_ERR_INVALID_ARGUMENT
    );
}

/// A made-up value where a handle goes: refused by every function (none is live here).
pub fn handle_case(r: &mut Rng, tally: &mut Tally) {
    let h = match r.below(4) {
        0 => r.next(),
        // Shaped like stridekit's handles (tag in the high bits, number shifted by 4).
        1 => 0x5d1e_0000_0000_0000 | ((r.next() & 0xfff_ffff) << 4),
        2 => r.hostile_u64(1 << 20),
        _ => r.next() | 1,
    };
    if h == 0 {
        return;
    }
    let (plan, alloc) = (
        h as usize as *mut StridekitPlan,
        h as usize as *mut StridekitAllocator,
    );
    let mut p = null_mut();
    let refused = [
        // SAFETY: the handle is checked before anything is read; the data pointers are
        // never reached.
        tally.call("plan_run(bad)", || unsafe {
            stridekit_plan_run(plan, null_mut(), null_mut(), null_mut())
        }),
        tally.call("plan_free(bad)", || stridekit_plan_free(plan)),
        // SAFETY: as above; `p` is writable.
        tally.call("malloc(bad)", || unsafe {
            stridekit_allocator_malloc(alloc, 64, null_mut(), &mut p)
        }),
        tally.call("free(bad)", || stridekit_allocator_free(alloc, null_mut())),
        tally.call("empty_cache(bad)", || {
            stridekit_allocator_empty_cache(alloc)
        }),
        tally.call("destroy(bad)", || stridekit_allocator_destroy(alloc)),
        tally.call("string_free(bad)", || {
            stridekit_string_free(h as usize as *mut c_char)
        }),
        tally.call("stats_json(bad)", || {
            if stridekit_allocator_stats_json(alloc).is_null() {
                1
            } else {
                0
            }
        }),
    ];
    assert!(
        refused
            .iter()
            .all(|&rc| rc == STRIDEKIT_ERR_INVALID_ARGUMENT),
        "a made-up handle {h:#x} was accepted: {refused:?}"
    );
    assert!(p.is_null());
}
