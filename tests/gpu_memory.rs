//! One memory system: every stridekit-owned GPU storage is a block of its device's caching
//! allocator (PyTorch's policy), returned to the cache when the last tensor of the storage
//! goes; wrapped external pointers stay outside it; a storage used on an external stream
//! is recorded on it. Needs a GPU: skipped without one, failing under
//! STRIDEKIT_REQUIRE_GPU=1. One test function in its own binary, so no other test moves
//! the shared device's figures meanwhile.

use stridekit::backend::cuda::{self, DeviceBuffer, Gpu};
use stridekit::{DType, Device, Layout, MemoryFormat, Scalar, Tensor};

const CUDA0: Device = Device::Cuda(0);

#[test]
fn storages_come_from_the_caching_allocator() {
    let gpu = match cuda::device_count() {
        Ok(n) if n > 0 => Gpu::shared(0).unwrap(),
        other => {
            if std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1") {
                panic!("STRIDEKIT_REQUIRE_GPU=1 but no GPU: {other:?}");
            }
            eprintln!("storages_come_from_the_caching_allocator: skipped: no GPU ({other:?})");
            return;
        }
    };
    let allocated = || gpu.memory_stats().allocated_bytes[0].current;
    let reserved = || gpu.memory_stats().reserved_bytes[0].current;
    gpu.empty_cache().unwrap();
    let (a0, r0) = (allocated(), reserved());

    // TV-209 on the GPU: two 48-byte storages are two 512-byte blocks of one 2 MiB segment.
    let base = Tensor::arange(
        Scalar::Int(0),
        Scalar::Int(12),
        Scalar::Int(1),
        Some(DType::F32),
    )
    .unwrap()
    .view(&[4, 3])
    .unwrap()
    .to_device(CUDA0)
    .unwrap();
    assert_eq!(allocated() - a0, 512);
    let t = base.t().unwrap();
    let c = t.contiguous(MemoryFormat::Contiguous).unwrap();
    assert_eq!(allocated() - a0, 1024);
    assert_eq!(reserved() - r0, 2 << 20);
    let c_ptr = c.storage().cuda().unwrap().ptr();
    assert_eq!(c_ptr, base.storage().cuda().unwrap().ptr() + 512);

    // A view keeps the storage; the last tensor returns its block (not the segment).
    let view = c.view(&[12]).unwrap();
    drop(c);
    assert_eq!(allocated() - a0, 1024);
    drop(view);
    assert_eq!(allocated() - a0, 512);
    assert_eq!(reserved() - r0, 2 << 20);
    // The freed block is reused by the next storage of that size.
    let again = t.contiguous(MemoryFormat::Contiguous).unwrap();
    assert_eq!(again.storage().cuda().unwrap().ptr(), c_ptr);
    assert_eq!(again.values().unwrap(), t.values().unwrap());
    drop(again);

    // External memory stays outside the allocator.
    let ext_mem = DeviceBuffer::alloc(&gpu, 4096).unwrap();
    let before = allocated();
    // SAFETY: 4096 bytes of this device's memory, alive until the end of the test.
    let ext = unsafe {
        Tensor::from_device_ptr(
            0,
            ext_mem.ptr(),
            4096,
            Layout::contiguous(&[1024]),
            DType::F32,
        )
    }
    .unwrap();
    assert_eq!(allocated(), before);
    drop(ext);
    assert_eq!(allocated(), before);
    drop(ext_mem);

    // A storage used on an external stream: recorded, reusable once that stream is done.
    let stream = gpu.ctx.new_stream().unwrap();
    let dst = Tensor::zeros(&[3, 4], DType::F32)
        .unwrap()
        .to_device(CUDA0)
        .unwrap();
    let dst_ptr = dst.storage().cuda().unwrap().ptr();
    // SAFETY: a live stream of this context; both storages are stridekit's.
    unsafe { dst.copy_on_stream(&t, stream.cu_stream()) }.unwrap();
    assert_eq!(dst.values().unwrap(), t.values().unwrap());
    drop(dst);
    stream.synchronize().unwrap();
    let next = Tensor::zeros(&[3, 4], DType::F32)
        .unwrap()
        .to_device(CUDA0)
        .unwrap();
    assert_eq!(
        next.storage().cuda().unwrap().ptr(),
        dst_ptr,
        "reused after the stream ran"
    );
    drop((next, t, base));

    // empty_cache gives the segments back; the statistics carry PyTorch's names.
    assert_eq!(allocated(), a0);
    gpu.empty_cache().unwrap();
    assert_eq!(reserved(), r0);
    let s = gpu.memory_stats();
    assert!(s.get("allocated_bytes.all.peak").unwrap() >= 1024);
}
