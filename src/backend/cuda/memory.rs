//! Device memory: [`DeviceBuffer`] is a range of device bytes, either owned (a block of the
//! device's caching allocator, [`Gpu::allocator`], returned to its cache on drop) or
//! borrowed from the caller (an external pointer an inference server owns, never touched
//! by the allocator). Owned blocks are ordered on the GPU's stream: a block freed there is
//! reused only by later work on that stream, so dropping needs no wait; a buffer used on
//! another stream is recorded on it ([`DeviceBuffer::record_stream`]) and not reused
//! before that stream's work at its free has finished. Transfers run on the GPU's stream
//! and wait for it, so they are ordered with the kernels launched there.

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::{CUdeviceptr, CUstream};

use super::context::Gpu;
use super::error::{Call, CudaError};
use crate::alloc::BlockHandle;

/// Device bytes on one GPU.
pub struct DeviceBuffer {
    gpu: Arc<Gpu>,
    ptr: CUdeviceptr,
    nbytes: usize,
    /// The caching allocator's block (None: external memory, or zero bytes).
    block: Option<BlockHandle>,
    owned: bool,
}

impl DeviceBuffer {
    /// Allocates `nbytes` bytes from the device's caching allocator, for use on the GPU's
    /// stream (out of memory: PyTorch's message). A zero-byte buffer holds no allocation.
    pub fn alloc(gpu: &Arc<Gpu>, nbytes: usize) -> Result<DeviceBuffer, CudaError> {
        let block = if nbytes == 0 {
            None
        } else {
            Some(gpu.allocator.malloc(nbytes as u64, gpu.stream_id())?)
        };
        Ok(DeviceBuffer {
            gpu: gpu.clone(),
            ptr: block.map_or(0, |b| b.ptr),
            nbytes,
            block,
            owned: true,
        })
    }

    /// Records that work on `stream` uses this buffer: when it is dropped, its block is
    /// not reused before the work queued on `stream` by then has finished (PyTorch's
    /// `record_stream`). No effect on external memory.
    pub fn record_stream(&self, stream: CUstream) -> Result<(), CudaError> {
        if let Some(b) = self.block
            && stream as u64 != self.gpu.stream_id()
        {
            self.gpu.allocator.record_stream(b, stream as u64)?;
        }
        Ok(())
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
            block: None,
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
    /// Returns an owned block to the cache: stream-ordered, so no wait (work queued on
    /// the GPU's stream still runs before any reuse there; other streams were recorded).
    /// A failure cannot be reported from drop; the block then stays allocated.
    fn drop(&mut self) {
        if let Some(b) = self.block.take() {
            let _ = self.gpu.allocator.free(b);
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
