//! Where data moves: every copy, fill and in-place update of a tensor runs here, on the
//! backend its storage lives on. The plan is the same [`CopyPlan`] for both backends; the
//! CPU backend runs it over host bytes, the CUDA backend turns it into one kernel launch
//! (or a memcpy) on the GPU's stream.
//!
//! Copies between devices are staged: the source is made contiguous on its own device,
//! its bytes cross over, and the destination's device runs the remaining (possibly
//! converting, possibly strided) copy. Arithmetic on a GPU tensor runs the element-wise
//! kernel family (see [`super::elementwise_gpu`]).

use std::sync::Arc;

use cudarc::driver::sys::CUstream;

use super::Tensor;
use crate::backend::cpu;
use crate::backend::cuda::storage::Bytes;
use crate::backend::cuda::{DeviceBuffer, Gpu, GpuPlan};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, err};
use crate::layout::overlap::{Overlap, overlap_status};
use crate::layout::{Layout, MemoryFormat, view};
use crate::plan::{CopyPlan, RowGatherShape};
use crate::scalar::Scalar;
use crate::storage::{Device, Storage};

impl Tensor {
    /// The device the tensor's storage lives on.
    pub fn device(&self) -> Device {
        self.storage.device()
    }

    /// A fresh, zero-filled tensor on `device` with exactly the storage `layout` needs.
    pub(crate) fn zeroed_on(layout: Layout, dtype: DType, device: Device) -> Result<Tensor> {
        if device == Device::Cpu {
            return Tensor::uninitialized(layout, dtype);
        }
        let nbytes = view::required_storage_bytes(&layout, dtype.itemsize()) as usize;
        Ok(Tensor::fresh(
            super::device::zeroed_storage(device, nbytes)?,
            layout,
            dtype,
        ))
    }

    /// `x.data_ptr()`: the storage's address plus offset x itemsize (0 for an empty storage).
    pub fn data_ptr(&self) -> u64 {
        match self.storage.data_ptr() {
            0 => 0,
            p => p + self.storage_offset() as u64 * self.itemsize() as u64,
        }
    }

    /// Every element in logical (row-major) order (downloaded from a GPU).
    pub fn values(&self) -> Result<Vec<Scalar>> {
        Ok(match self.storage.read() {
            Some(bytes) => cpu::read_values(&self.layout, self.dtype, &bytes),
            None => cpu::read_values(&self.layout, self.dtype, &self.storage.to_host()?),
        })
    }

    /// `x.to(device)`: the same tensor when it is already there, else a copy with the
    /// strides PyTorch gives it (kept for non-overlapping, dense tensors).
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        if device == self.device() {
            return Ok(self.clone());
        }
        self.copy_to_new(self.dtype, MemoryFormat::Preserve, device)
    }

    /// A constructor's result (made on the host) placed on `device` with exactly its
    /// layout, gaps included (`empty_strided`): `to_device` would make it dense.
    pub fn placed_on(&self, device: Device) -> Result<Tensor> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let out = Tensor::zeroed_on(self.layout.clone(), self.dtype, device)?;
        out.copy_values_from(self)?;
        Ok(out)
    }

    /// A tensor over device memory the caller owns (an inference server's buffers): the
    /// layout is checked against `nbytes` and the pointer's alignment against the dtype;
    /// the memory is never freed by stridekit. Work stridekit queues on its own stream is
    /// not ordered with the caller's streams: use [`Tensor::copy_on_stream`] to work on
    /// theirs. Two wraps of overlapping memory are different storages to the overlap
    /// checks.
    ///
    /// # Safety
    /// As [`DeviceBuffer::external`]: `ptr` must address `nbytes` bytes on device
    /// `ordinal` for as long as the tensor and its views live.
    pub unsafe fn from_device_ptr(
        ordinal: usize,
        ptr: u64,
        nbytes: usize,
        layout: Layout,
        dtype: DType,
    ) -> Result<Tensor> {
        if !ptr.is_multiple_of(dtype.itemsize() as u64) {
            // A misaligned access would fault and poison the (shared) primary context.
            return err(
                ErrorKind::Device,
                format!(
                    "from_device_ptr: pointer {ptr:#x} is not aligned to {} bytes ({dtype} elements)",
                    dtype.itemsize()
                ),
            );
        }
        let gpu = Gpu::shared(ordinal)?;
        // SAFETY: forwarded to the caller.
        let buf = unsafe { DeviceBuffer::external(&gpu, ptr, nbytes) };
        Tensor::from_storage(Storage::from_device_buffer(buf), layout, dtype)
    }

    /// Copies `src` (same shape) into this tensor. For fresh tensors: no checks, no bump.
    pub(crate) fn copy_values_from(&self, src: &Tensor) -> Result<()> {
        // Host bytes on both sides (a simulated device's included) copy directly.
        let same_memory = match (self.storage.bytes(), src.storage.bytes()) {
            (Bytes::Host(_), Bytes::Host(_)) => true,
            (Bytes::Cuda(_), Bytes::Cuda(_)) => self.device() == src.device(),
            _ => false,
        };
        if !same_memory {
            return self.copy_across_devices(src);
        }
        let plan = CopyPlan::copy(&self.layout, self.dtype, &src.layout, src.dtype);
        match (self.storage.bytes(), src.storage.bytes()) {
            (Bytes::Host(dst), Bytes::Host(s)) => {
                if self.shares_storage(src) {
                    // Disjoint views of one storage: read a snapshot, then write.
                    let snapshot = s.read().clone();
                    cpu::copy(&plan, &mut dst.write(), &snapshot);
                } else if self.storage.id() < src.storage.id() {
                    let mut d = dst.write();
                    cpu::copy(&plan, &mut d, &s.read());
                } else {
                    let s = s.read();
                    cpu::copy(&plan, &mut dst.write(), &s);
                }
                Ok(())
            }
            (Bytes::Cuda(dst), Bytes::Cuda(s)) => {
                if self.shares_storage(src)
                    && overlap_status(&self.layout, &src.layout) != Overlap::No
                {
                    // As the CPU's snapshot: read everything before writing anything.
                    let staged = src.clone_as(MemoryFormat::Contiguous)?;
                    return self.copy_values_from(&staged);
                }
                // SAFETY: the plan's offsets lie inside both storages (the layouts were
                // checked against them when the tensors were made).
                unsafe { run_on_gpu(dst.gpu(), &plan, dst.ptr(), s.ptr(), None) }
            }
            _ => unreachable!("same device, same kind of bytes"),
        }
    }

    /// A copy between devices: contiguous on the source's device, the bytes across, then
    /// the rest of the copy on the destination's device.
    fn copy_across_devices(&self, src: &Tensor) -> Result<()> {
        if let (Some(dst), Bytes::Host(_)) = (self.storage.cuda(), src.storage.bytes())
            && self.is_contiguous()
        {
            return self.upload_into_contiguous(dst, src);
        }
        let packed = if src.is_contiguous() {
            src.clone()
        } else {
            src.clone_as(MemoryFormat::Contiguous)?
        };
        let itemsize = packed.itemsize();
        let start = packed.storage_offset() as usize * itemsize;
        let len = packed.numel() as usize * itemsize;
        let mut bytes = vec![0; len];
        match packed.storage.bytes() {
            Bytes::Host(b) => bytes.copy_from_slice(&b.read()[start..start + len]),
            Bytes::Cuda(b) => b.download(start, &mut bytes)?,
        }
        let moved = Tensor::fresh(
            Storage::on_device(self.device(), bytes)?,
            Layout::contiguous(packed.sizes()),
            packed.dtype,
        );
        self.copy_values_from(&moved)
    }

    /// A host tensor's values into this contiguous device tensor as PyTorch copies them:
    /// converted on the host, one memcpy, no device temporary (none in the allocator's
    /// account).
    fn upload_into_contiguous(&self, dst: &DeviceBuffer, src: &Tensor) -> Result<()> {
        let host = if src.is_contiguous() && src.dtype == self.dtype {
            src.clone()
        } else {
            src.copy_to_new(self.dtype, MemoryFormat::Contiguous, Device::Cpu)?
        };
        let itemsize = self.itemsize();
        let start = host.storage_offset() as usize * itemsize;
        let len = host.numel() as usize * itemsize;
        let bytes = host.storage.read().expect("a host tensor");
        Ok(dst.upload(
            self.storage_offset() as usize * itemsize,
            &bytes[start..start + len],
        )?)
    }

    /// Writes `value` (already converted) into every element, without checks or a version
    /// bump. On a GPU, a broadcast copy from a one-element source (every stride 0).
    pub(crate) fn fill_raw(&self, value: Scalar) -> Result<()> {
        let plan = CopyPlan::elementwise(&self.layout, self.dtype);
        match self.storage.bytes() {
            Bytes::Host(b) => cpu::fill(&plan, &mut b.write(), value),
            Bytes::Cuda(b) => {
                let mut one = vec![0; self.itemsize()];
                value.write(self.dtype, &mut one);
                let src = DeviceBuffer::from_host(b.gpu(), &one)?;
                // SAFETY: the plan addresses only element 0 of the source (strides 0).
                unsafe { run_on_gpu(b.gpu(), &plan, b.ptr(), src.ptr(), None) }?;
                // `src` is freed after the stream has finished with it (drop waits).
            }
        }
        Ok(())
    }

    /// `torch.index_select(self, dim, index)`: the slices `index` names along `dim`, as a
    /// new contiguous tensor, with PyTorch's checks and messages. `index` is a 0-d or 1-d
    /// int32 or int64 tensor on any device. Along dim 0 this is one row gather (embedding
    /// lookups); another dim is moved to the front, gathered, and moved back.
    pub fn index_select(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        let dim = crate::layout::wrap_dim(dim, self.ndim())?;
        if index.ndim() > 1 {
            return err(
                ErrorKind::IndexOutOfRange,
                "index_select(): Index is supposed to be a vector",
            );
        }
        if !matches!(index.dtype, DType::I32 | DType::I64) {
            return err(
                ErrorKind::DtypeUnsupported,
                "index_select(): Expected dtype int32 or int64 for index",
            );
        }
        if self.ndim() == 0 {
            if index.numel() != 1 {
                return err(
                    ErrorKind::Other,
                    format!(
                        "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                        index.numel()
                    ),
                );
            }
            return self.view(&[1])?.index_select(0, index)?.view(&[]);
        }
        // Intermediates PyTorch does not allocate stay outside a simulated device's account.
        let staging = super::device::staging_device(self.device());
        if dim != 0 {
            let d = dim as i64;
            let picked = self
                .to_device(staging)?
                .movedim(&[d], &[0])?
                .index_select(0, index)?;
            // Always a fresh contiguous tensor, as PyTorch's (a copy, not contiguous(): a
            // size-1 dimension would keep its moved stride).
            return picked.movedim(&[0], &[d])?.copy_to_new(
                self.dtype,
                MemoryFormat::Contiguous,
                self.device(),
            );
        }
        if self.sizes()[0] == 0 && index.numel() > 0 {
            return err(
                ErrorKind::Other,
                "index_select(): self indexing axis dim should be positive",
            );
        }
        if self.sizes()[0] > 0 && !self.select(0, 0)?.is_contiguous() {
            // The kernels copy whole rows: pack them first.
            return self
                .copy_to_new(self.dtype, MemoryFormat::Contiguous, staging)?
                .index_select(0, index)?
                .to_device(self.device());
        }
        let row_len: i64 = self.sizes()[1..].iter().product();
        let idx: Vec<i64> = index.values()?.iter().map(|v| v.to_int()).collect();
        let mut sizes = self.sizes().to_vec();
        sizes[0] = idx.len() as i64;
        let out = Tensor::zeroed_on(Layout::contiguous(&sizes), self.dtype, self.device())?;
        let shape = RowGatherShape {
            num_rows: idx.len() as i64,
            row_len,
            src_rows: self.sizes()[0],
            src_row_stride: self.strides()[0],
            dst_row_stride: row_len,
            src_offset: self.storage_offset(),
            dst_offset: 0,
        };
        let bad = match (out.storage.bytes(), self.storage.bytes()) {
            (Bytes::Host(d), Bytes::Host(s)) => {
                cpu::row_gather(&shape, self.dtype, &mut d.write(), &s.read(), &idx).err()
            }
            (Bytes::Cuda(d), Bytes::Cuda(s)) => gpu_row_gather(&shape, self.dtype, d, s, &idx)?,
            _ => unreachable!("same device"),
        };
        if bad.is_some() {
            // PyTorch's message names neither the index nor its position.
            return err(ErrorKind::IndexOutOfRange, "index out of range in self");
        }
        Ok(out)
    }

    /// `dst.copy_(src)` on a stream the caller owns, for tensors on one GPU: PyTorch's
    /// checks, then the planned kernel, enqueued without waiting (the caller synchronises).
    /// The copy is ordered after the work stridekit queued on its own stream, and
    /// stridekit's later work (frees included) after the copy.
    ///
    /// # Safety
    /// `stream` must be a live stream of the tensors' device context; wrapped external
    /// memory must outlive the work enqueued on it (stridekit-owned storages are recorded
    /// on `stream`, so their blocks are not reused before it has run the copy).
    pub unsafe fn copy_on_stream(&self, src: &Tensor, stream: CUstream) -> Result<()> {
        let (Bytes::Cuda(d), Bytes::Cuda(s)) = (self.storage.bytes(), src.storage.bytes()) else {
            return err(
                ErrorKind::Device,
                "copy_on_stream: both tensors must be on the same CUDA device",
            );
        };
        if self.device() != src.device() {
            return err(
                ErrorKind::Device,
                format!(
                    "copy_on_stream: tensors on {} and {}",
                    self.device(),
                    src.device()
                ),
            );
        }
        if let Some((src_b, order)) = self.checked_copy_source(src)? {
            if order == super::sequential::Order::Sequential {
                return err(ErrorKind::PartialOverlap, crate::error::PARTIAL_OVERLAP_MSG);
            }
            let plan = CopyPlan::copy(&self.layout, self.dtype, &src_b.layout, src_b.dtype);
            let gpu = d.gpu();
            // SAFETY: `stream` is a live stream of this context (the caller's contract).
            unsafe {
                // After everything stridekit queued (the source may still be being
                // written on its stream) ...
                gpu.stream_waits_for_own(stream)?;
                // SAFETY: as `copy_values_from`; the stream is the caller's.
                run_on_gpu(gpu, &plan, d.ptr(), s.ptr(), Some(stream))?;
                // ... and before anything stridekit queues next; the caching allocator
                // does not reuse either block before the caller's stream has run it.
                gpu.own_waits_for_stream(stream)?;
                d.record_stream(stream)?;
                s.record_stream(stream)?;
            }
        }
        self.storage.bump_version();
        Ok(())
    }
}

/// Runs `plan` on `gpu` (on its own stream, or on `stream`): one launch, or, for plans of
/// more dimensions than the kernels hold, one launch per index of the outer dimensions.
///
/// # Safety
/// `dst` and `src` must be device pointers of `gpu` covering every element the plan
/// addresses; `stream`, when given, a live stream of its context.
unsafe fn run_on_gpu(
    gpu: &Gpu,
    plan: &CopyPlan,
    dst: u64,
    src: u64,
    stream: Option<CUstream>,
) -> Result<()> {
    for sub in plan.split_outer(crate::backend::cuda::choose::MAX_RANK) {
        let g = GpuPlan::for_device(&sub, gpu.limits())?;
        // SAFETY: forwarded to the caller; a sub-plan addresses a subset of the plan.
        match stream {
            None => unsafe { gpu.copy(&g, dst, src) }?,
            Some(st) => unsafe { gpu.copy_on(&g, dst, src, st) }?,
        }
    }
    Ok(())
}

/// The GPU side of [`Tensor::index_select`]: indices uploaded as int64, an error flag the
/// kernel sets on an out-of-range index. Returns the first bad position, if any.
fn gpu_row_gather(
    shape: &RowGatherShape,
    dtype: DType,
    dst: &DeviceBuffer,
    src: &DeviceBuffer,
    idx: &[i64],
) -> Result<Option<usize>> {
    if let Some(pos) = shape.first_out_of_range(idx) {
        return Ok(Some(pos));
    }
    let gpu: &Arc<Gpu> = dst.gpu();
    let index_bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_le_bytes()).collect();
    let index = DeviceBuffer::from_host(gpu, &index_bytes)?;
    let flag = DeviceBuffer::from_host(gpu, &[0u8; 4])?;
    let plan = crate::backend::cuda::RowGatherPlan::new(dtype, *shape, true);
    // SAFETY: the shape addresses rows inside both storages; index and flag are device
    // buffers of the right sizes.
    unsafe { gpu.row_gather(&plan, dst.ptr(), src.ptr(), index.ptr(), flag.ptr()) }?;
    let mut f = [0u8; 4];
    flag.download(0, &mut f)?;
    if f != [0; 4] {
        // The indices were checked above: a set flag means the kernel disagrees.
        return Err(crate::backend::cuda::CudaError::IndexOutOfRange.into());
    }
    Ok(None)
}
