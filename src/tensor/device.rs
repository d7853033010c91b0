//! Which memory a tensor on a device gets. The host's for `cpu`; for `cuda:N`, the
//! [`CudaDevice`] in charge on this thread: a real GPU ([`Gpus`]) unless another one was
//! installed for the duration of a closure ([`with_cuda_device`]; the simulated CUDA device
//! of `explain --device sim` is one, see [`crate::simulated_cuda`]). Nothing below this
//! layer knows which CUDA devices exist: a [`Storage`] only holds a [`crate::storage::DeviceMemory`].

use std::cell::RefCell;
use std::sync::Arc;

use crate::backend::cuda::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::storage::{Device, Storage};

/// What backs the storages of tensors on `cuda:N`.
pub trait CudaDevice: Send + Sync {
    /// A storage on `device` holding `bytes`.
    fn storage(&self, device: Device, bytes: Vec<u8>) -> Result<Storage>;

    /// A zero-filled storage of `nbytes` on `device`.
    fn zeroed(&self, device: Device, nbytes: usize) -> Result<Storage>;

    /// Where a multi-step op puts the intermediate tensors PyTorch does not allocate (on
    /// `device` itself unless the device says otherwise).
    fn staging(&self, device: Device) -> Device {
        device
    }

    /// Whether the CUDA kernels run on its storages (false for memory the host holds).
    fn runs_kernels(&self) -> bool;
}

/// The machine's GPUs, through the CUDA backend.
pub struct Gpus;

impl CudaDevice for Gpus {
    fn storage(&self, device: Device, bytes: Vec<u8>) -> Result<Storage> {
        let gpu = Gpu::shared(ordinal(device))?;
        Ok(Storage::from_device_buffer(DeviceBuffer::from_host(
            &gpu, &bytes,
        )?))
    }

    fn zeroed(&self, device: Device, nbytes: usize) -> Result<Storage> {
        let buf = DeviceBuffer::alloc(&Gpu::shared(ordinal(device))?, nbytes)?;
        buf.memset(0)?;
        Ok(Storage::from_device_buffer(buf))
    }

    fn runs_kernels(&self) -> bool {
        true
    }
}

/// The ordinal of a CUDA device (0 for the host, which no caller passes).
fn ordinal(device: Device) -> usize {
    match device {
        Device::Cuda(n) => n,
        Device::Cpu => 0,
    }
}

thread_local! {
    static INSTALLED: RefCell<Option<Arc<dyn CudaDevice>>> = const { RefCell::new(None) };
}

/// Runs `f` with `device` backing this thread's CUDA tensors (restored afterwards, also
/// when `f` unwinds).
pub fn with_cuda_device<R>(device: Arc<dyn CudaDevice>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<dyn CudaDevice>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            INSTALLED.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(INSTALLED.with(|c| c.borrow_mut().replace(device)));
    f()
}

/// Calls `f` with the CUDA device in charge on this thread.
fn with_current<R>(f: impl FnOnce(&dyn CudaDevice) -> R) -> R {
    match INSTALLED.with(|c| c.borrow().clone()) {
        Some(installed) => f(installed.as_ref()),
        None => f(&Gpus),
    }
}

/// A zero-filled storage of `nbytes` on `device`.
pub(crate) fn zeroed_storage(device: Device, nbytes: usize) -> Result<Storage> {
    match device {
        Device::Cpu => Ok(Storage::zeroed(nbytes)?),
        Device::Cuda(_) => with_current(|d| d.zeroed(device, nbytes)),
    }
}

/// Where a multi-step op puts the intermediate tensors PyTorch does not allocate: on the
/// host for a device that keeps them out of its account (the simulated one), else on
/// `device` itself.
pub fn staging_device(device: Device) -> Device {
    match device {
        Device::Cpu => Device::Cpu,
        Device::Cuda(_) => with_current(|d| d.staging(device)),
    }
}

/// Whether an op over tensors on `device` runs the CUDA kernels (a real GPU; a simulated
/// device keeps its bytes on the host).
pub fn runs_kernels(device: Device) -> bool {
    matches!(device, Device::Cuda(_)) && with_current(|d| d.runs_kernels())
}

impl Storage {
    /// A storage on `device` holding `bytes` (uploaded for a GPU; a block of the installed
    /// device's allocator for a simulated one).
    pub fn on_device(device: Device, bytes: Vec<u8>) -> Result<Storage> {
        match device {
            Device::Cpu => Ok(Storage::from_bytes(bytes)),
            Device::Cuda(_) => with_current(|d| d.storage(device, bytes)),
        }
    }
}
