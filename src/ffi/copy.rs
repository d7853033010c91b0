//! Copies between caller-owned memory described by DLTensors: the checks of PyTorch's
//! `copy_` (broadcasting, internal and partial overlap), one [`CopyPlan`] built once, and
//! the same backends the Rust API runs it on: [`cpu::copy`] over host bytes, or the
//! [`GpuPlan`] launches (the CUDA kernels, or a memcpy) on the caller's stream.
//!
//! [`CopyOp::new`] does all the checking and planning; [`CopyOp::run`] only checks the
//! pointers and launches, with no host allocation, unless the two byte ranges intersect
//! (then the exact overlap check and a staged copy, as the Rust API's, allocate).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::CUstream;

use crate::backend::cpu;
use crate::backend::cuda::choose::MAX_RANK;
use crate::backend::cuda::error::Call;
use crate::backend::cuda::{DeviceBuffer, Gpu, GpuPlan, RowGatherPlan, launch_row_gather};
use crate::dtype::DType;
use crate::error::{ErrorKind, INTERNAL_OVERLAP_MSG, PARTIAL_OVERLAP_MSG};
use crate::layout::overlap::{InternalOverlap, Overlap, internal_overlap, overlap_status_bounded};
use crate::layout::{Layout, view};
use crate::plan::{CopyPlan, PlanKind, RowGatherShape};
use crate::storage::Device;

use super::error::{FfiError, FfiResult};
use super::view::RawView;

/// What a CUDA copy launches: the device and one [`GpuPlan`] per sub-plan of at most
/// [`MAX_RANK`] dimensions.
struct GpuCopy {
    gpu: Arc<Gpu>,
    launches: Vec<GpuPlan>,
}

/// A planned copy `dst[i] = src[i]` between two strided views of caller-owned memory on
/// one device, reusable with any pointers that hold tensors of the same metadata.
pub struct CopyOp {
    dst: RawView,
    src: RawView,
    /// The source's layout broadcast to the destination's shape.
    src_layout: Layout,
    plan: CopyPlan,
    gpu: Option<GpuCopy>,
}

/// The CUDA handle of `device` (None on the CPU).
fn gpu_of(device: Device) -> FfiResult<Option<Arc<Gpu>>> {
    match device {
        Device::Cpu => Ok(None),
        Device::Cuda(n) => Ok(Some(Gpu::shared(n)?)),
    }
}

fn same_device(dst: &RawView, src: &RawView, what: &str) -> FfiResult<()> {
    if dst.device != src.device {
        return Err(FfiError::tensor(
            ErrorKind::Device,
            format!(
                "{what}: dst is on {} and src on {}: stridekit copies within one device \
                 (move the data with the caller's cudaMemcpy first)",
                dst.device, src.device
            ),
        ));
    }
    Ok(())
}

/// The address of a non-empty operand's first element: `data` not NULL, `data +
/// byte_offset` and the end of the extent not wrapping, and element-aligned on a GPU (a
/// misaligned access would fault and poison the context).
fn check_ptr(view: &RawView, data: *const c_void, what: &str) -> FfiResult<u64> {
    let base = view.base(data, what)?;
    if data.is_null() {
        return Err(FfiError::invalid(format!("{what}: data is NULL")));
    }
    if view.device != Device::Cpu && !base.is_multiple_of(view.dtype.itemsize() as u64) {
        return Err(FfiError::invalid(format!(
            "{what}: data + byte_offset = {base:#x} is not aligned to {} bytes ({} elements)",
            view.dtype.itemsize(),
            view.dtype
        )));
    }
    Ok(base)
}

fn ranges_intersect(a: u64, a_len: usize, b: u64, b_len: usize) -> bool {
    a_len > 0
        && b_len > 0
        && a < b.saturating_add(b_len as u64)
        && b < a.saturating_add(a_len as u64)
}

/// How `dst` at `d` and `src` at `s` (byte ranges intersecting) share elements: the
/// views placed in one storage starting at the lower address; None when the bounded test
/// cannot tell.
fn raw_overlap(
    dst: &Layout,
    dst_dtype: DType,
    d: u64,
    src: &Layout,
    src_dtype: DType,
    s: u64,
) -> FfiResult<Option<Overlap>> {
    let size = dst_dtype.itemsize() as u64;
    if src_dtype.itemsize() as u64 != size || !d.abs_diff(s).is_multiple_of(size) {
        // Elements of different widths or misaligned to each other in one range: no copy
        // order makes that well defined.
        return Err(FfiError::tensor(
            ErrorKind::PartialOverlap,
            PARTIAL_OVERLAP_MSG,
        ));
    }
    let lo = d.min(s);
    // The ranges intersect, so the distance is below one extent (an i64).
    let at = |l: &Layout, p: u64| Layout::new(l.sizes(), l.strides(), ((p - lo) / size) as i64);
    Ok(overlap_status_bounded(&at(dst, d)?, &at(src, s)?))
}

/// Refuses a destination that addresses an element twice, or one whose layout the bounded
/// test cannot decide (PyTorch's check gives up on such layouts and lets them through;
/// stridekit does not write through a layout it cannot prove safe).
fn check_no_internal_overlap(dst: &Layout, what: &str) -> FfiResult<()> {
    match internal_overlap(dst) {
        InternalOverlap::No => Ok(()),
        InternalOverlap::Yes => Err(FfiError::tensor(
            ErrorKind::InternalOverlap,
            INTERNAL_OVERLAP_MSG,
        )),
        InternalOverlap::TooHard => Err(FfiError::tensor(
            ErrorKind::InternalOverlap,
            format!(
                "{what}: cannot decide within stridekit's work limit whether dst (shape {:?}, \
                 strides {:?}) writes an element twice; write into a dense tensor (or one \
                 whose strides each step past the smaller ones) and copy from there",
                dst.sizes(),
                dst.strides()
            ),
        )),
    }
}

impl CopyOp {
    /// Checks and plans `dst.copy_(src)`: same device, `src` broadcastable to `dst`'s
    /// shape, `dst` addressing no element twice; any dtypes (converted as c10 does).
    pub fn new(dst: RawView, src: RawView) -> FfiResult<CopyOp> {
        same_device(&dst, &src, "copy")?;
        check_no_internal_overlap(&dst.layout, "copy")?;
        let src_layout = view::broadcast_for_copy(
            dst.layout.sizes(),
            &src.layout,
            src.dtype.scalar_type_name(),
        )?;
        let plan = CopyPlan::copy(&dst.layout, dst.dtype, &src_layout, src.dtype);
        let gpu = match gpu_of(dst.device)? {
            None => None,
            Some(gpu) => Some(GpuCopy {
                launches: plan
                    .split_outer(MAX_RANK)
                    .map(|p| GpuPlan::for_device(&p, gpu.limits()))
                    .collect::<Result<_, _>>()?,
                gpu,
            }),
        };
        Ok(CopyOp {
            dst,
            src,
            src_layout,
            plan,
            gpu,
        })
    }

    /// The plan both backends run.
    pub fn plan(&self) -> &CopyPlan {
        &self.plan
    }

    /// Where the destination lives.
    pub fn device(&self) -> Device {
        self.dst.device
    }

    /// Runs the copy for tensors whose `data` pointers are `dst` and `src` (the planned
    /// byte offsets are added). On the CPU it is done on return; on a GPU it is enqueued
    /// on `stream` (NULL: the legacy default stream) and not waited for.
    ///
    /// # Safety
    /// `dst` and `src` must hold tensors of the planned metadata on the planned device
    /// (every byte of their extents valid, `dst`'s writable); `stream`, a stream of that
    /// device's primary context, or NULL. On the CPU, nothing else may access the
    /// destination during the call.
    pub unsafe fn run(
        &self,
        dst: *mut c_void,
        src: *const c_void,
        stream: *mut c_void,
    ) -> FfiResult<()> {
        if self.plan.kind == PlanKind::Empty {
            return Ok(());
        }
        let d = check_ptr(&self.dst, dst, "dst")?;
        let s = check_ptr(&self.src, src, "src")?;
        if ranges_intersect(d, self.dst.extent, s, self.src.extent) {
            return match raw_overlap(
                &self.dst.layout,
                self.dst.dtype,
                d,
                &self.src_layout,
                self.src.dtype,
                s,
            )? {
                Some(Overlap::Full) if self.dst.dtype == self.src.dtype => Ok(()), // same data
                Some(Overlap::Partial) => Err(FfiError::tensor(
                    ErrorKind::PartialOverlap,
                    PARTIAL_OVERLAP_MSG,
                )),
                // Undecided within the work cap, or no shared element: reading the source
                // whole first is right either way.
                // SAFETY: forwarded.
                _ => unsafe { self.run_staged(d, s, stream as CUstream) },
            };
        }
        // SAFETY: forwarded; the ranges are disjoint.
        unsafe { self.run_disjoint(d, s, stream as CUstream) }
    }

    /// # Safety
    /// As [`CopyOp::run`], with the byte ranges at `d` and `s` disjoint.
    unsafe fn run_disjoint(&self, d: u64, s: u64, stream: CUstream) -> FfiResult<()> {
        match &self.gpu {
            None => {
                // SAFETY: the caller's contract: the extents are valid host memory, and
                // disjoint, so the two slices do not alias.
                let (dst, src) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(d as *mut u8, self.dst.extent),
                        std::slice::from_raw_parts(s as *const u8, self.src.extent),
                    )
                };
                cpu::copy(&self.plan, dst, src);
            }
            Some(g) => {
                for launch in &g.launches {
                    // SAFETY: the extents cover every element the plans address.
                    unsafe { g.gpu.copy_on(launch, d, s, stream) }?;
                }
            }
        }
        Ok(())
    }

    /// The copy when source and destination share bytes but no element is written before
    /// it is read elsewhere: as the Rust API does, the source is read whole first.
    ///
    /// # Safety
    /// As [`CopyOp::run`].
    unsafe fn run_staged(&self, d: u64, s: u64, stream: CUstream) -> FfiResult<()> {
        let n = self.src.extent;
        match &self.gpu {
            None => {
                // SAFETY: the source extent is valid host memory; the copy ends before
                // the destination slice is made.
                let snapshot = unsafe { std::slice::from_raw_parts(s as *const u8, n) }.to_vec();
                // SAFETY: the destination extent is valid, writable host memory.
                let dst = unsafe { std::slice::from_raw_parts_mut(d as *mut u8, self.dst.extent) };
                cpu::copy(&self.plan, dst, &snapshot);
            }
            Some(g) => {
                let tmp = DeviceBuffer::alloc(&g.gpu, n)?;
                // The block is ordered on stridekit's stream (its last user may still be
                // running there): the caller's stream waits for that first.
                // SAFETY: `stream` is the caller's live stream (or the default stream).
                unsafe { g.gpu.stream_waits_for_own(stream) }?;
                g.gpu.bind()?;
                // SAFETY: both ranges are device memory of this context, n bytes long.
                unsafe { result::memcpy_dtod_async(tmp.ptr(), s, n, stream) }
                    .call("cuMemcpyDtoDAsync")?;
                // SAFETY: the plans address the staged copy as they would the source.
                unsafe { self.run_disjoint(d, tmp.ptr(), stream) }?;
                // The staging buffer is freed below: wait for the caller's stream first.
                // SAFETY: `stream` is the caller's live stream (or the default stream).
                unsafe { result::stream::synchronize(stream) }.call("cuStreamSynchronize")?;
            }
        }
        Ok(())
    }
}

/// A planned row gather `dst[r, ...] = src[index[r], ...]` (`index_select` along dim 0,
/// an embedding lookup) between caller-owned tensors on one device.
pub struct RowGatherOp {
    dst: RawView,
    src: RawView,
    index: RawView,
    shape: RowGatherShape,
    gpu: Option<(Arc<Gpu>, RowGatherPlan)>,
}

/// Whether every row (the dimensions after the first) is one contiguous run.
fn rows_contiguous(l: &Layout) -> bool {
    l.ndim() <= 1
        || view::select(l, 0, 0)
            .map(|r| r.is_contiguous())
            .unwrap_or(true)
}

impl RowGatherOp {
    /// Checks and plans the gather: `src` of shape (rows, ...), `index` a 1-d int32 or
    /// int64 tensor of n entries, stride 1, `dst` of shape (n, ...), all on one device,
    /// `dst` and `src` of one dtype with contiguous rows.
    pub fn new(dst: RawView, src: RawView, index: RawView) -> FfiResult<RowGatherOp> {
        same_device(&dst, &src, "row_gather")?;
        same_device(&dst, &index, "row_gather (index)")?;
        if index.layout.ndim() != 1 {
            return Err(FfiError::tensor(
                ErrorKind::IndexOutOfRange,
                "index_select(): Index is supposed to be a vector",
            ));
        }
        if !matches!(index.dtype, DType::I32 | DType::I64) {
            return Err(FfiError::tensor(
                ErrorKind::DtypeUnsupported,
                "index_select(): Expected dtype int32 or int64 for index",
            ));
        }
        if index.layout.sizes()[0] > 1 && index.layout.strides()[0] != 1 {
            return Err(FfiError::invalid(
                "row_gather: index must have stride 1 (a contiguous vector)",
            ));
        }
        if dst.dtype != src.dtype {
            return Err(FfiError::invalid(format!(
                "row_gather: dst is {} and src {}: the gather does not convert",
                dst.dtype, src.dtype
            )));
        }
        let n = index.layout.sizes()[0];
        let (ds, ss) = (dst.layout.sizes(), src.layout.sizes());
        if ss.is_empty() || ds.len() != ss.len() || ds[0] != n || ds[1..] != ss[1..] {
            return Err(FfiError::tensor(
                ErrorKind::InvalidShape,
                format!(
                    "row_gather: dst has shape {ds:?}, expected [{n}] followed by src's \
                     shape {ss:?} after its first dimension"
                ),
            ));
        }
        check_no_internal_overlap(&dst.layout, "row_gather")?;
        if !rows_contiguous(&dst.layout) || !rows_contiguous(&src.layout) {
            return Err(FfiError::invalid(
                "row_gather: every row (the dimensions after the first) must be contiguous \
                 in dst and src; copy the source to such a layout first",
            ));
        }
        let shape = RowGatherShape {
            num_rows: n,
            row_len: ss[1..].iter().product(),
            src_rows: ss[0],
            src_row_stride: src.layout.strides()[0],
            dst_row_stride: dst.layout.strides()[0],
            src_offset: 0,
            dst_offset: 0,
        };
        let gpu = gpu_of(dst.device)?.map(|g| {
            (
                g,
                RowGatherPlan::new(src.dtype, shape, index.dtype == DType::I64),
            )
        });
        Ok(RowGatherOp {
            dst,
            src,
            index,
            shape,
            gpu,
        })
    }

    /// Runs the gather. An index outside `0..rows` is an error (PyTorch's message) and,
    /// on the CPU, nothing is written. On a GPU the gather runs on `stream` and the call
    /// waits for it, to read the kernel's out-of-range flag.
    ///
    /// # Safety
    /// As [`CopyOp::run`], for the three tensors.
    pub unsafe fn run(
        &self,
        dst: *mut c_void,
        src: *const c_void,
        index: *const c_void,
        stream: *mut c_void,
    ) -> FfiResult<()> {
        if self.shape.num_rows == 0 {
            return Ok(());
        }
        if self.shape.row_len == 0 {
            // SAFETY: forwarded (only the index is read).
            return unsafe { self.check_empty_rows(index, stream) };
        }
        let d = check_ptr(&self.dst, dst, "dst")?;
        let s = check_ptr(&self.src, src, "src")?;
        let i = check_ptr(&self.index, index, "index")?;
        if ranges_intersect(d, self.dst.extent, s, self.src.extent)
            || ranges_intersect(d, self.dst.extent, i, self.index.extent)
        {
            return Err(FfiError::tensor(
                ErrorKind::PartialOverlap,
                PARTIAL_OVERLAP_MSG,
            ));
        }
        let out_of_range =
            || FfiError::tensor(ErrorKind::IndexOutOfRange, "index out of range in self");
        match &self.gpu {
            None => {
                // SAFETY: the caller's contract; dst is disjoint from src and index.
                let (dst, src, idx) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(d as *mut u8, self.dst.extent),
                        std::slice::from_raw_parts(s as *const u8, self.src.extent),
                        std::slice::from_raw_parts(i as *const u8, self.index.extent),
                    )
                };
                let idx: Vec<i64> = match self.index.dtype {
                    DType::I32 => idx
                        .chunks_exact(4)
                        .map(|c| i32::from_ne_bytes(c.try_into().unwrap()) as i64)
                        .collect(),
                    _ => idx
                        .chunks_exact(8)
                        .map(|c| i64::from_ne_bytes(c.try_into().unwrap()))
                        .collect(),
                };
                cpu::row_gather(&self.shape, self.src.dtype, dst, src, &idx)
                    .map_err(|_| out_of_range())
            }
            Some((gpu, plan)) => {
                let flag = DeviceBuffer::from_host(gpu, &[0u8; 4])?;
                gpu.bind()?;
                let stream = stream as CUstream;
                // SAFETY: the caller's contract; `flag` is a device int32 of this context.
                unsafe { launch_row_gather(&gpu.kernels, plan, d, s, i, flag.ptr(), stream) }?;
                // SAFETY: the caller's live stream (or the default stream).
                unsafe { result::stream::synchronize(stream) }.call("cuStreamSynchronize")?;
                let mut f = [0u8; 4];
                flag.download(0, &mut f)?;
                if f != [0; 4] {
                    return Err(out_of_range());
                }
                Ok(())
            }
        }
    }
}

impl RowGatherOp {
    /// The gather of empty rows (`src` of shape (rows, ..., 0, ...)): nothing is read or
    /// written but the index, which is bounds-checked as `torch.index_select` checks it
    /// for an empty source (`-rows <= i < rows`, and a source of no rows refused);
    /// `dst` and `src` may be NULL.
    ///
    /// # Safety
    /// `index` holds the planned index tensor; `stream` as for [`CopyOp::run`].
    unsafe fn check_empty_rows(&self, index: *const c_void, stream: *mut c_void) -> FfiResult<()> {
        let rows = self.shape.src_rows;
        if rows == 0 {
            return Err(FfiError::tensor(
                ErrorKind::IndexOutOfRange,
                "index_select(): self indexing axis dim should be positive",
            ));
        }
        let i = check_ptr(&self.index, index, "index")?;
        let mut bytes = vec![0u8; self.index.extent];
        match &self.gpu {
            // SAFETY: the caller's contract: the index extent is valid host memory.
            None => bytes.copy_from_slice(unsafe {
                std::slice::from_raw_parts(i as *const u8, self.index.extent)
            }),
            Some((gpu, _)) => {
                gpu.bind()?;
                let stream = stream as CUstream;
                // SAFETY: the index extent is device memory of this context; the stream is
                // the caller's; the copy is waited for before `bytes` is read.
                unsafe { result::memcpy_dtoh_async(&mut bytes, i, stream) }
                    .call("cuMemcpyDtoHAsync")?;
                // SAFETY: as above.
                unsafe { result::stream::synchronize(stream) }.call("cuStreamSynchronize")?;
            }
        }
        let wide = self.index.dtype == DType::I64;
        let values = bytes.chunks_exact(if wide { 8 } else { 4 }).map(|c| {
            if wide {
                i64::from_ne_bytes(c.try_into().unwrap_or_default())
            } else {
                i32::from_ne_bytes(c.try_into().unwrap_or_default()) as i64
            }
        });
        for v in values {
            if v >= rows || v < -rows {
                return Err(FfiError::tensor(
                    ErrorKind::IndexOutOfRange,
                    format!(
                        "index_select(): index {v} out of range for tensor of size {:?} at \
                         dimension 0",
                        self.src.layout.sizes()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Waits for the work queued on `stream` of `device` (NULL: the legacy default stream);
/// nothing to wait for on the CPU.
///
/// # Safety
/// `stream` is NULL or a live stream of `device`'s primary context.
pub unsafe fn wait_for_stream(device: Device, stream: *mut c_void) -> FfiResult<()> {
    if let Some(gpu) = gpu_of(device)? {
        gpu.bind()?;
        // SAFETY: the caller's contract.
        unsafe { result::stream::synchronize(stream as CUstream) }.call("cuStreamSynchronize")?;
    }
    Ok(())
}
