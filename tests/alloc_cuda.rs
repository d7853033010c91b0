//! The CUDA device. Without libcuda (as on the development machine) it must fail with a
//! typed error instead of panicking; with a GPU it replays a shared trace, and a simulated
//! replay fed the addresses CUDA returned gives identical statistics.

use stridekit::alloc::replay::{ReplayOptions, replay_on, replay_simulated};
use stridekit::alloc::{
    AllocConfig, AllocError, CudaDevice, DeviceCachingAllocator, read_trace_file,
};

/// cuda:0, or None (after checking the error is typed) where no GPU is usable; under
/// STRIDEKIT_REQUIRE_GPU=1 (scripts/gpu-check) no GPU is a failure.
fn gpu_or_skip(test: &str) -> Option<CudaDevice> {
    let required = std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1");
    match CudaDevice::new(0) {
        Err(e) if required => panic!("STRIDEKIT_REQUIRE_GPU=1 but cuda:0 is unusable: {e}"),
        Err(AllocError::NoCudaDriver) => {
            eprintln!("{test}: skipped the GPU replay: no CUDA driver");
            None
        }
        Err(AllocError::Device { call, message }) => {
            // A driver without a usable GPU: the failing call is named.
            assert!(!call.is_empty(), "{message}");
            None
        }
        Err(e) => panic!("unexpected error {e}"),
        Ok(d) => Some(d),
    }
}

/// The build's checkout, or the working directory's (binaries copied by gpu-check).
fn training_trace() -> std::path::PathBuf {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/alloc/trace_training.csv");
    if path.exists() {
        path
    } else {
        "tests/data/alloc/trace_training.csv".into()
    }
}

#[test]
fn cuda_device_or_typed_error() {
    let Some(dev) = gpu_or_skip("cuda_device_or_typed_error") else {
        return;
    };
    let mut t = read_trace_file(&training_trace()).unwrap();
    let cfg = AllocConfig::default();
    let opts = ReplayOptions::default();
    let mut a = DeviceCachingAllocator::new(dev, cfg.clone()).unwrap();
    let gpu = replay_on(&mut a, &t, &opts).unwrap();
    t.segment_addrs = a.device().handed_out.clone();
    a.release_all().unwrap();
    assert_eq!(a.stats().reserved_bytes[0].current, 0);
    let sim = replay_simulated(&t, &cfg, &opts).unwrap();
    assert_eq!(gpu.stats, sim.stats);
}

/// policy:stridekit through the CUDA virtual-memory calls (cuMemCreate / cuMemMap /
/// cuMemSetAccess of variable-size chunks, moved chunks unmapped with their handle kept
/// and mapped again), and PyTorch's expandable segments (20 MiB pages in the large pool,
/// whose reservation once failed on an H200 for asking a 20 MiB alignment): the same
/// statistics and the same device calls as on the simulated device, and everything
/// returned at the end.
#[test]
fn virtual_memory_policies_on_the_gpu_match_the_simulation() {
    let Some(dev) = gpu_or_skip("virtual_memory_policies_on_the_gpu_match_the_simulation") else {
        return;
    };
    let settings = ["policy:stridekit", "expandable_segments:True"];
    for (trace, setting) in ["trace_training.csv", "trace_random.csv"]
        .into_iter()
        .flat_map(|t| settings.map(|s| (t, s)))
    {
        let path = training_trace().with_file_name(trace);
        let t = read_trace_file(&path).unwrap();
        let cfg = AllocConfig::parse(setting).unwrap();
        let opts = ReplayOptions::default();
        let mut a = DeviceCachingAllocator::new(CudaDevice::new(0).unwrap(), cfg.clone()).unwrap();
        let gpu = replay_on(&mut a, &t, &opts).unwrap();
        let gpu_calls = a.device().calls;
        a.release_all().unwrap();
        assert_eq!(a.stats().reserved_bytes[0].current, 0, "{trace} {setting}");
        let sim = replay_simulated(&t, &cfg, &opts).unwrap();
        assert_eq!(gpu.stats, sim.stats, "{trace} {setting}");
        assert_eq!(gpu_calls, sim.device_calls, "{trace} {setting}");
    }
    drop(dev);
}
