//! Property tests of the caching allocator on random traces, and unit tests of the
//! out-of-memory sequence and cross-stream reuse.

use proptest::prelude::*;
use stridekit::alloc::{
    AllocConfig, AllocError, BlockHandle, CachingAllocator, DeviceStats, SimulatedDevice,
};

#[derive(Debug, Clone)]
enum Action {
    Alloc { size: u64, stream: u64 },
    Free { pick: usize },
    RecordStream { pick: usize, stream: u64 },
    EmptyCache,
}

fn size_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        1u64..4096,
        4096u64..(1 << 20),
        (1u64 << 20)..(10 << 20),
        (10u64 << 20)..(200 << 20),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        6 => (size_strategy(), 0u64..3).prop_map(|(size, stream)| Action::Alloc { size, stream }),
        5 => any::<usize>().prop_map(|pick| Action::Free { pick }),
        1 => (any::<usize>(), 0u64..3).prop_map(|(pick, stream)| Action::RecordStream { pick, stream }),
        1 => Just(Action::EmptyCache),
    ]
}

fn config() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(""),
        Just("max_split_size_mb:64"),
        Just("roundup_power2_divisions:4"),
        Just("roundup_power2_divisions:[1:2,16:4,>:8]"),
        Just("expandable_segments:True"),
        Just("garbage_collection_threshold:0.5,per_process_memory_fraction:0.8"),
        Just("policy:stridekit"),
        Just("policy:stridekit,max_split_size_mb:64"),
    ]
}

fn check_stats(s: &DeviceStats, live: &[(BlockHandle, u64)], resets: bool) {
    for (name, arr) in s.arrays() {
        let (all, small, large) = (arr[0], arr[1], arr[2]);
        assert_eq!(all.current, small.current + large.current, "{name} current");
        assert_eq!(
            all.allocated,
            small.allocated + large.allocated,
            "{name} allocated"
        );
        assert_eq!(all.freed, small.freed + large.freed, "{name} freed");
        for st in arr {
            assert!(st.current >= 0, "{name} negative");
            assert!(st.peak >= st.current, "{name} peak below current");
            if !resets {
                assert_eq!(
                    st.current,
                    st.allocated - st.freed,
                    "{name} current != allocated - freed"
                );
            }
        }
    }
    let a = s.allocated_bytes[0].current;
    assert!(a <= s.reserved_bytes[0].current, "allocated > reserved");
    assert!(s.active_bytes[0].current >= a);
    let live_bytes: u64 = live.iter().map(|(h, _)| h.size).sum();
    let live_req: u64 = live.iter().map(|(_, r)| *r).sum();
    assert_eq!(a as u64, live_bytes);
    assert_eq!(s.allocation[0].current as usize, live.len());
    // requested bytes also count blocks whose free waits for events; never fewer than live
    assert!(s.requested_bytes[0].current as u64 >= live_req);
}

fn check_no_overlap(live: &[(BlockHandle, u64)]) {
    let mut v: Vec<(u64, u64)> = live.iter().map(|(h, _)| (h.ptr, h.size)).collect();
    v.sort();
    for w in v.windows(2) {
        assert!(
            w[0].0 + w[0].1 <= w[1].0,
            "live blocks overlap: {:?} {:?}",
            w[0],
            w[1]
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_traces_keep_invariants(
        conf in config(),
        capacity_mib in prop_oneof![Just(256u64), Just(1024), Just(64 * 1024)],
        actions in proptest::collection::vec(action(), 1..300),
    ) {
        let cfg = AllocConfig::parse(conf).unwrap();
        let a = CachingAllocator::new(SimulatedDevice::new(capacity_mib << 20), cfg).unwrap();
        let mut live: Vec<(BlockHandle, u64)> = Vec::new();
        for act in actions {
            match act {
                Action::Alloc { size, stream } => {
                    let before = a.stats();
                    match a.malloc(size, stream) {
                        Ok(h) => {
                            assert!(h.size >= size);
                            live.push((h, size));
                        }
                        Err(AllocError::OutOfMemory(o)) => {
                            let after = a.stats();
                            assert_eq!(o.requested, size);
                            assert_eq!(o.capacity, capacity_mib << 20);
                            assert_eq!(after.num_ooms, before.num_ooms + 1);
                            // the last attempt after freeing all cached blocks is a retry
                            assert_eq!(after.num_alloc_retries, before.num_alloc_retries + 1);
                            assert_eq!(after.num_sync_all_streams, before.num_sync_all_streams + 1);
                            assert!(o.to_string().contains("out of memory"));
                        }
                        Err(e) => panic!("unexpected error {e}"),
                    }
                }
                Action::Free { pick } => {
                    if !live.is_empty() {
                        let (h, _) = live.swap_remove(pick % live.len());
                        a.free(h).unwrap();
                        assert!(matches!(a.free(h), Err(AllocError::InvalidPointer(_))));
                    }
                }
                Action::RecordStream { pick, stream } => {
                    if !live.is_empty() {
                        let (h, _) = live[pick % live.len()];
                        a.record_stream(h, stream).unwrap();
                    }
                }
                Action::EmptyCache => a.empty_cache().unwrap(),
            }
            check_no_overlap(&live);
            check_stats(&a.stats(), &live, false);
        }
        for (h, _) in live.drain(..) {
            a.free(h).unwrap();
        }
        a.empty_cache().unwrap();
        let s = a.stats();
        check_stats(&s, &[], false);
        prop_assert_eq!(s.allocated_bytes[0].current, 0);
        prop_assert_eq!(s.requested_bytes[0].current, 0);
        prop_assert_eq!(s.reserved_bytes[0].current, 0, "empty_cache releases everything once nothing is live");
        prop_assert_eq!(a.with(|x| x.device().used()), 0);
    }
}

#[test]
fn oom_frees_cached_blocks_then_retries() {
    let a = CachingAllocator::new(SimulatedDevice::new(100 << 20), AllocConfig::default()).unwrap();
    let h = a.malloc(60 << 20, 0).unwrap();
    a.free(h).unwrap();
    // 60 MiB stay cached; 70 MiB more do not fit until the cache is released.
    let h2 = a.malloc(70 << 20, 0).unwrap();
    let s = a.stats();
    assert_eq!(s.num_alloc_retries, 1);
    assert_eq!(s.num_device_free, 1);
    assert_eq!(s.num_device_alloc, 2);
    assert_eq!(s.num_ooms, 0);
    assert_eq!(s.reserved_bytes[0].current, 70 << 20);
    // Now nothing can be freed: a typed error with PyTorch's figures.
    let e = a.malloc(50 << 20, 0).unwrap_err();
    let AllocError::OutOfMemory(o) = &e else {
        panic!("{e}")
    };
    assert_eq!(o.tried, 50 << 20);
    assert_eq!(o.capacity, 100 << 20);
    assert_eq!(o.device_free, 30 << 20);
    assert_eq!(o.allocated, 70 << 20);
    assert_eq!(o.reserved, 70 << 20);
    let msg = e.to_string();
    assert!(msg.contains("Tried to allocate 50.00 MiB"), "{msg}");
    assert!(
        msg.contains("total capacity of 100.00 MiB of which 30.00 MiB is free"),
        "{msg}"
    );
    assert!(msg.contains("70.00 MiB is allocated"), "{msg}");
    assert!(msg.contains("0 bytes is reserved but unallocated"), "{msg}");
    let s = a.stats();
    assert_eq!(s.num_ooms, 1);
    assert_eq!(s.num_alloc_retries, 2);
    a.free(h2).unwrap();
}

#[test]
fn oversize_blocks_released_first_under_max_split_size() {
    let cfg = AllocConfig::parse("max_split_size_mb:32").unwrap();
    let a = CachingAllocator::new(SimulatedDevice::new(120 << 20), cfg).unwrap();
    let x = a.malloc(40 << 20, 0).unwrap();
    let y = a.malloc(40 << 20, 0).unwrap();
    a.free(x).unwrap();
    a.free(y).unwrap();
    // 60 MiB cannot reuse a 40 MiB block; freeing cached oversize blocks, largest first,
    // until 60 MiB are released makes room without a full release (no retry counted).
    let z = a.malloc(60 << 20, 0).unwrap();
    let s = a.stats();
    assert_eq!(s.num_alloc_retries, 0);
    assert_eq!(s.num_device_free, 2);
    assert_eq!(s.oversize_segments.current, 1);
    a.free(z).unwrap();
    // When the oversize blocks cannot add up to the request, PyTorch still frees them,
    // reports failure, and goes on to release everything and retry.
    let w = a.malloc(100 << 20, 0).unwrap();
    let s = a.stats();
    assert_eq!(s.num_alloc_retries, 1);
    assert_eq!(s.num_device_free, 3);
    a.free(w).unwrap();
}

#[test]
fn record_stream_delays_reuse_until_events_complete() {
    let a = CachingAllocator::new(SimulatedDevice::new(1 << 30), AllocConfig::default()).unwrap();
    a.with(|x| x.device_mut().set_events_complete_immediately(false));
    let h = a.malloc(12 << 20, 1).unwrap();
    a.record_stream(h, 2).unwrap();
    a.free(h).unwrap();
    let s = a.stats();
    assert_eq!(s.allocated_bytes[0].current, 0);
    assert_eq!(
        s.active_bytes[0].current, h.size as i64,
        "still active until the event completes"
    );
    // Not reusable yet: a new segment is needed.
    let h2 = a.malloc(12 << 20, 1).unwrap();
    assert_ne!(h2.ptr, h.ptr);
    assert_eq!(a.stats().num_device_alloc, 2);
    a.free(h2).unwrap();
    a.with(|x| x.device_mut().complete_all_events());
    let h3 = a.malloc(12 << 20, 1).unwrap();
    assert_eq!(h3.ptr, h.ptr, "reused once the event completed");
    assert_eq!(a.stats().active_bytes[0].current, h3.size as i64);
    // Blocks never cross streams.
    let h4 = a.malloc(12 << 20, 2).unwrap();
    assert_eq!(a.stats().num_device_alloc, 3);
    a.free(h3).unwrap();
    a.free(h4).unwrap();
}

#[test]
fn expandable_segment_grows_and_empty_cache_unmaps() {
    let cfg = AllocConfig::parse("expandable_segments:True").unwrap();
    let a = CachingAllocator::new(SimulatedDevice::new(1 << 30), cfg).unwrap();
    let x = a.malloc(30 << 20, 0).unwrap();
    let y = a.malloc(30 << 20, 0).unwrap();
    assert_eq!(y.ptr, x.ptr + x.size, "one growing segment");
    let s = a.stats();
    assert_eq!(s.reserved_bytes[0].current, 60 << 20);
    assert_eq!(s.segment[0].current, 0);
    a.free(x).unwrap();
    a.free(y).unwrap();
    a.empty_cache().unwrap();
    let s = a.stats();
    assert_eq!(s.reserved_bytes[0].current, 0);
    assert_eq!(s.num_device_free, 1);
    assert_eq!(a.with(|d| d.device().used()), 0);
}

#[test]
fn snapshot_and_summary() {
    let a = CachingAllocator::new(SimulatedDevice::new(1 << 30), AllocConfig::default()).unwrap();
    let h = a.malloc(1000, 0).unwrap();
    let _g = a.malloc(3 << 20, 0).unwrap();
    let snap = a.snapshot();
    let segs = snap["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 2);
    let small = segs.iter().find(|s| s["segment_type"] == "small").unwrap();
    assert_eq!(small["total_size"], 2 << 20);
    assert_eq!(small["blocks"][0]["state"], "active_allocated");
    assert_eq!(small["blocks"][0]["requested_size"], 1000);
    assert_eq!(small["blocks"][1]["state"], "inactive");
    assert_eq!(
        snap["stats"]["allocated_bytes.all.current"],
        1024 + (3 << 20)
    );
    let t = a.memory_summary();
    assert!(t.contains("Allocated memory"));
    assert!(t.contains("GPU reserved memory"));
    a.free(h).unwrap();
    a.reset_peak_stats();
    a.reset_accumulated_stats();
    let s = a.stats();
    assert_eq!(s.allocated_bytes[0].peak, s.allocated_bytes[0].current);
    assert_eq!(s.allocated_bytes[0].allocated, 0);
}
