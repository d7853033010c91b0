//! A simulated CUDA device for storages: `explain --device sim`. Tensors on it report
//! `cuda:0`, their bytes live on the host (every CPU kernel runs on them), and each storage
//! takes one block of ONE caching allocator (PyTorch's policy, [`crate::alloc::policy`],
//! over a [`SimulatedDevice`] of [`SIM_CAPACITY`] bytes; settings from STRIDEKIT_ALLOC_CONF)
//! when it is created and returns it when its last tensor is dropped, as PyTorch's CUDA
//! storages do. So the allocator's statistics after each statement are the ones
//! `torch.cuda.memory_stats()` gives for the same program on a GPU.
//!
//! The device is installed for the duration of a closure, per thread ([`with_device`],
//! through [`crate::tensor::device`]): while it is, every storage made for `cuda:0` is a
//! simulated one. Temporaries that only
//! stridekit makes (operands staged for a host kernel, say) are made on the host and never
//! touch the allocator.

use std::any::Any;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::alloc::{
    AllocConfig, AllocResult, BlockHandle, CachingAllocator, DeviceStats, SimulatedDevice,
};
use crate::error::{ErrorKind, Result, TensorError};
use crate::storage::{Device, DeviceMemory, Storage, zeroed_bytes};
pub use crate::tensor::device::staging_device;
use crate::tensor::device::{CudaDevice, with_cuda_device};

/// The simulated device's memory (80 GiB, an A100's or H100's).
pub const SIM_CAPACITY: u64 = 80 << 30;

/// One simulated CUDA device (cuda:0) and its caching allocator.
pub struct SimulatedCuda {
    allocator: Arc<CachingAllocator<SimulatedDevice>>,
}

impl SimulatedCuda {
    /// A fresh device (nothing reserved) under `cfg`.
    pub fn new(cfg: AllocConfig) -> AllocResult<Arc<SimulatedCuda>> {
        Ok(Arc::new(SimulatedCuda {
            allocator: Arc::new(CachingAllocator::new(
                SimulatedDevice::new(SIM_CAPACITY),
                cfg,
            )?),
        }))
    }

    /// The allocator's statistics (`torch.cuda.memory_stats()`'s figures).
    pub fn stats(&self) -> DeviceStats {
        self.allocator.stats()
    }

    /// A block of `nbytes` (none for zero bytes: PyTorch allocates nothing for them).
    fn block(&self, nbytes: usize) -> Result<Option<SimulatedBlock>> {
        if nbytes == 0 {
            return Ok(None);
        }
        let handle = self.allocator.malloc(nbytes as u64, 0).map_err(|e| {
            let kind = match e {
                crate::alloc::AllocError::OutOfMemory(_) => ErrorKind::OutOfMemory,
                _ => ErrorKind::Device,
            };
            TensorError::new(kind, e.to_string())
        })?;
        Ok(Some(SimulatedBlock {
            allocator: self.allocator.clone(),
            handle,
        }))
    }
}

/// A storage's block in the simulated device's allocator, returned to its cache on drop.
pub struct SimulatedBlock {
    allocator: Arc<CachingAllocator<SimulatedDevice>>,
    handle: BlockHandle,
}

impl SimulatedBlock {
    /// The block's (simulated) device address.
    pub fn ptr(&self) -> u64 {
        self.handle.ptr
    }
}

impl Drop for SimulatedBlock {
    fn drop(&mut self) {
        // A block this allocator handed out and nobody freed: the free cannot fail.
        let _ = self.allocator.free(self.handle);
    }
}

/// A simulated storage's memory: the bytes on the host, the block in the allocator.
struct SimulatedMemory {
    bytes: RwLock<Vec<u8>>,
    nbytes: usize,
    /// None for zero bytes.
    block: Option<SimulatedBlock>,
}

impl DeviceMemory for SimulatedMemory {
    fn device(&self) -> Device {
        Device::Cuda(0)
    }

    fn nbytes(&self) -> usize {
        self.nbytes
    }

    fn ptr(&self) -> u64 {
        self.block.as_ref().map_or(0, SimulatedBlock::ptr)
    }

    fn host(&self) -> Option<&RwLock<Vec<u8>>> {
        Some(&self.bytes)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl CudaDevice for SimulatedCuda {
    /// Only cuda:0 exists.
    fn storage(&self, device: Device, bytes: Vec<u8>) -> Result<Storage> {
        if let Device::Cuda(n) = device
            && n != 0
        {
            return Err(TensorError::new(
                ErrorKind::Device,
                format!(
                    "CUDA error: invalid device ordinal (cuda:{n}: the simulated machine has one device, cuda:0)"
                ),
            ));
        }
        let nbytes = bytes.len();
        let block = self.block(nbytes)?;
        Ok(Storage::from_memory(Box::new(SimulatedMemory {
            bytes: RwLock::new(bytes),
            nbytes,
            block,
        })))
    }

    fn zeroed(&self, device: Device, nbytes: usize) -> Result<Storage> {
        self.storage(device, zeroed_bytes(nbytes)?)
    }

    /// Intermediates PyTorch does not allocate stay on the host, outside the account.
    fn staging(&self, _device: Device) -> Device {
        Device::Cpu
    }

    fn runs_kernels(&self) -> bool {
        false
    }
}

/// Runs `f` with `device` as this thread's cuda:0.
pub fn with_device<R>(device: Arc<SimulatedCuda>, f: impl FnOnce() -> R) -> R {
    with_cuda_device(device, f)
}
