//! The CUDA device. Without libcuda (as on the development machine) it must fail with a
//! typed error instead of panicking; with a GPU it replays a shared trace, and a simulated
//! replay fed the addresses CUDA returned gives identical statistics.

use stridekit::alloc::replay::{ReplayOptions, replay_on, replay_simulated};
use stridekit::alloc::{
    AllocConfig, AllocError, CudaDevice, DeviceCachingAllocator, read_trace_file,
};

#[test]
fn cuda_device_or_typed_error() {
    // scripts/gpu-check sets STRIDEKIT_REQUIRE_GPU=1: there, no GPU is a failure.
    let required = std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1");
    let dev = match CudaDevice::new(0) {
        Err(e) if required => panic!("STRIDEKIT_REQUIRE_GPU=1 but cuda:0 is unusable: {e}"),
        Err(AllocError::NoCudaDriver) => {
            eprintln!("cuda_device_or_typed_error: skipped the GPU replay: no CUDA driver");
            return;
        }
        Err(AllocError::Device { call, message }) => {
            // A driver without a usable GPU: the failing call is named.
            assert!(!call.is_empty(), "{message}");
            return;
        }
        Err(e) => panic!("unexpected error {e}"),
        Ok(d) => d,
    };
    // The build's checkout, or the working directory's (binaries copied by gpu-check).
    let mut path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/alloc/trace_training.csv");
    if !path.exists() {
        path = "tests/data/alloc/trace_training.csv".into();
    }
    let mut t = read_trace_file(&path).unwrap();
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
