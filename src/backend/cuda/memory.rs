//! Device memory: [`DeviceBuffer`] is a range of device bytes, either owned (cuMemAlloc,
//! freed on drop) or borrowed from the caller (an external pointer an inference server
//! owns). Transfers run on the GPU's stream and wait for it, so they are ordered with the
//! kernels launched there.

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;

use super::context::Gpu;
use super::error::{Call, CudaError};

/// Device bytes on one GPU.
pub struct DeviceBuffer {
    gpu: Arc<Gpu>,
    ptr: CUdeviceptr,
    nbytes: usize,
    owned: bool,
}

impl DeviceBuffer {
    /// Allocates `nbytes` bytes (cuMemAlloc). A zero-byte buffer holds no allocation.
    pub fn alloc(gpu: &Arc<Gpu>, nbytes: usize) -> Result<DeviceBuffer, CudaError> {
        let ptr = if nbytes == 0 {
            0
        } else {
            gpu.bind()?;
            // SAFETY: the context is current on this thread.
            unsafe { result::malloc_sync(nbytes) }.call("cuMemAlloc")?
        };
        Ok(DeviceBuffer {
            gpu: gpu.clone(),
            ptr,
            nbytes,
            owned: true,
        })
    }

    /// Allocates `nbytes` bytes and fills them with `bytes` (which it must hold exactly).
    pub fn from_host(gpu: &Arc<Gpu>, bytes: &[u8]) -> Result<DeviceBuffer, CudaError> {
        let b = DeviceBuffer::alloc(gpu, bytes.len())?;
        b.upload(0, bytes)?;
        Ok(b)
    }

    /// Wraps memory the caller owns; it is never freed here.
    ///
    /// # Safety
    /// `ptr` must address `nbytes` bytes of device memory usable from `gpu`'s context for
    /// as long as this buffer (and any storage made from it) lives.
    pub unsafe fn external(gpu: &Arc<Gpu>, ptr: CUdeviceptr, nbytes: usize) -> DeviceBuffer {
        DeviceBuffer {
            gpu: gpu.clone(),
            ptr,
            nbytes,
            owned: false,
        }
    }

    pub fn ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    pub fn nbytes(&self) -> usize {
        self.nbytes
    }

    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Whether the memory belongs to this buffer (false for wrapped external pointers).
    pub fn is_owned(&self) -> bool {
        self.owned
    }

    fn check_range(&self, offset: usize, len: usize, call: &'static str) -> Result<(), CudaError> {
        if offset.checked_add(len).is_none_or(|end| end > self.nbytes) {
            return Err(CudaError::TooLarge(format!(
                "{call}: bytes {offset}..{} outside a {}-byte device buffer",
                offset.saturating_add(len),
                self.nbytes
            )));
        }
        Ok(())
    }

    /// Copies `bytes` to `offset` and waits for the copy.
    pub fn upload(&self, offset: usize, bytes: &[u8]) -> Result<(), CudaError> {
        self.check_range(offset, bytes.len(), "cuMemcpyHtoDAsync")?;
        if bytes.is_empty() {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: the range lies inside this allocation; the copy is waited for before
        // `bytes` can go away.
        unsafe {
            result::memcpy_htod_async(self.ptr + offset as u64, bytes, self.gpu.stream.cu_stream())
        }
        .call("cuMemcpyHtoDAsync")?;
        self.gpu.synchronize()
    }

    /// Copies `out.len()` bytes from `offset` into `out`, after every earlier launch on the
    /// GPU's stream.
    pub fn download(&self, offset: usize, out: &mut [u8]) -> Result<(), CudaError> {
        self.check_range(offset, out.len(), "cuMemcpyDtoHAsync")?;
        if out.is_empty() {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: as in `upload`.
        unsafe {
            result::memcpy_dtoh_async(out, self.ptr + offset as u64, self.gpu.stream.cu_stream())
        }
        .call("cuMemcpyDtoHAsync")?;
        self.gpu.synchronize()
    }

    /// The whole buffer as host bytes.
    pub fn to_host(&self) -> Result<Vec<u8>, CudaError> {
        let mut v = vec![0; self.nbytes];
        self.download(0, &mut v)?;
        Ok(v)
    }

    /// Sets every byte to `byte` and waits.
    pub fn memset(&self, byte: u8) -> Result<(), CudaError> {
        if self.nbytes == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: the whole allocation.
        unsafe {
            result::memset_d8_async(self.ptr, byte, self.nbytes, self.gpu.stream.cu_stream())
        }
        .call("cuMemsetD8Async")?;
        self.gpu.synchronize()
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if self.owned && self.ptr != 0 && self.gpu.bind().is_ok() {
            // Work queued on the stream may still use the memory: wait first. A failure
            // here cannot be reported from drop; the memory is then left to the context.
            if self.gpu.synchronize().is_ok() {
                // SAFETY: the pointer came from cuMemAlloc and nothing uses it any more.
                let _ = unsafe { result::free_sync(self.ptr) };
            }
        }
    }
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("device", &self.gpu.ordinal())
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("nbytes", &self.nbytes)
            .field("owned", &self.owned)
            .finish()
    }
}

/// Page-locked host memory (cuMemHostAlloc, portable to every context), freed on drop:
/// the host side of DMA transfers that run at the link's full rate.
pub struct PinnedHost {
    gpu: Arc<Gpu>,
    ptr: *mut u8,
    nbytes: usize,
}

// SAFETY: the allocation is plain host memory owned by this value; access goes through
// &self / &mut self.
unsafe impl Send for PinnedHost {}
unsafe impl Sync for PinnedHost {}

impl PinnedHost {
    /// Allocates `nbytes` (at least 1) page-locked bytes, zeroed.
    pub fn alloc(gpu: &Arc<Gpu>, nbytes: usize) -> Result<PinnedHost, CudaError> {
        gpu.bind()?;
        let n = nbytes.max(1);
        // SAFETY: the context is current; PORTABLE pins the memory for every context.
        let ptr = unsafe { result::malloc_host(n, cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE) }
            .call("cuMemHostAlloc")? as *mut u8;
        // SAFETY: `n` bytes were just allocated at `ptr`.
        unsafe { std::ptr::write_bytes(ptr, 0, n) };
        Ok(PinnedHost {
            gpu: gpu.clone(),
            ptr,
            nbytes,
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `nbytes` initialised bytes owned by this value.
        unsafe { std::slice::from_raw_parts(self.ptr, self.nbytes) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.nbytes) }
    }
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        // Copies queued on the stream may still read or write it: wait first.
        if self.gpu.bind().is_ok() && self.gpu.synchronize().is_ok() {
            // SAFETY: the pointer came from cuMemHostAlloc and nothing uses it any more.
            let _ = unsafe { result::free_host(self.ptr as *mut std::ffi::c_void) };
        }
    }
}
