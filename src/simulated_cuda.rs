//! A simulated CUDA device for storages: `explain --device sim`. Tensors on it report
//! `cuda:0`, their bytes live on the host (every CPU kernel runs on them), and each storage
//! takes one block of ONE caching allocator (PyTorch's policy, [`crate::alloc::policy`],
//! over a [`SimulatedDevice`] of [`SIM_CAPACITY`] bytes; settings from STRIDEKIT_ALLOC_CONF)
//! when it is created and returns it when its last tensor is dropped, as PyTorch's CUDA
//! storages do. So the allocator's statistics after each statement are the ones
//! `torch.cuda.memory_stats()` gives for the same program on a GPU.
//!
//! The device is installed for the duration of a closure, per thread ([`with_device`]):
//! while it is, every storage made for `cuda:0` is a simulated one. Temporaries that only
//! stridekit makes (operands staged for a host kernel, say) are made on the host and never
//! touch the allocator.

use std::cell::RefCell;
use std::sync::Arc;

use crate::alloc::{
    AllocConfig, AllocResult, BlockHandle, CachingAllocator, DeviceStats, SimulatedDevice,
};
use crate::error::{ErrorKind, Result, TensorError};
use crate::storage::{Device, Storage};

/// The simulated device's memory (80 GiB, an A100's or H100's).
pub const SIM_CAPACITY: u64 = 80 << 30;

/// One simulated CUDA device (cuda:0) and its caching allocator.
pub struct SimulatedCuda {
    allocator: CachingAllocator<SimulatedDevice>,
}

impl SimulatedCuda {
    /// A fresh device (nothing reserved) under `cfg`.
    pub fn new(cfg: AllocConfig) -> AllocResult<Arc<SimulatedCuda>> {
        Ok(Arc::new(SimulatedCuda {
            allocator: CachingAllocator::new(SimulatedDevice::new(SIM_CAPACITY), cfg)?,
        }))
    }

    /// The allocator's statistics (`torch.cuda.memory_stats()`'s figures).
    pub fn stats(&self) -> DeviceStats {
        self.allocator.stats()
    }

    /// A block of `nbytes` (none for zero bytes: PyTorch allocates nothing for them).
    fn block(self: &Arc<Self>, nbytes: usize) -> Result<Option<SimulatedBlock>> {
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
            device: self.clone(),
            handle,
        }))
    }
}

/// A storage's block in the simulated device's allocator, returned to its cache on drop.
pub struct SimulatedBlock {
    device: Arc<SimulatedCuda>,
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
        let _ = self.device.allocator.free(self.handle);
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<SimulatedCuda>>> = const { RefCell::new(None) };
}

/// Runs `f` with `device` as this thread's cuda:0.
pub fn with_device<R>(device: Arc<SimulatedCuda>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<SimulatedCuda>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.borrow_mut().replace(device)));
    f()
}

/// Whether storages for `device` are simulated on this thread.
pub fn is_simulated(device: Device) -> bool {
    matches!(device, Device::Cuda(_)) && CURRENT.with(|c| c.borrow().is_some())
}

/// Where a multi-step op puts the intermediate tensors PyTorch does not allocate: on the
/// host for a simulated device (outside its account), else on `device` itself.
pub fn staging_device(device: Device) -> Device {
    if is_simulated(device) {
        Device::Cpu
    } else {
        device
    }
}

/// A simulated storage for `device` holding `bytes`, or None when `device` is not
/// simulated on this thread. Only cuda:0 exists.
pub(crate) fn storage(device: Device, bytes: Vec<u8>) -> Option<Result<Storage>> {
    let Device::Cuda(n) = device else {
        return None;
    };
    let sim = CURRENT.with(|c| c.borrow().clone())?;
    Some(if n != 0 {
        Err(TensorError::new(
            ErrorKind::Device,
            format!(
                "CUDA error: invalid device ordinal (cuda:{n}: the simulated machine has one device, cuda:0)"
            ),
        ))
    } else {
        sim.block(bytes.len())
            .map(|block| Storage::simulated(device, bytes, block))
    })
}

/// A zero-filled simulated storage of `nbytes` (see [`storage`]).
pub(crate) fn zeroed(device: Device, nbytes: usize) -> Option<Result<Storage>> {
    if !is_simulated(device) {
        return None;
    }
    Some(
        crate::storage::zeroed_bytes(nbytes)
            .map_err(TensorError::from)
            .and_then(|bytes| storage(device, bytes).unwrap_or_else(|| unreachable!("simulated"))),
    )
}
