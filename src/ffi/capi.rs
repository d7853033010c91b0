//! The exported C functions (`include/stridekit.h`). Every function that can fail returns
//! `STRIDEKIT_OK` (0) or a nonzero `STRIDEKIT_ERR_*` status, with the message in
//! [`stridekit_last_error`]; functions returning a pointer return NULL on failure. No
//! panic unwinds into the caller.
//!
//! Streams are `cudaStream_t`/`CUstream` values passed as `void*`; NULL is the legacy
//! default stream. On the CPU they are ignored and every call has finished on return.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::Arc;

use super::allocator::Allocator;
use super::copy::{CopyOp, RowGatherOp};
use super::dlpack::DLTensor;
use super::error::{FfiError, FfiResult, last_error_ptr, ptr_or_null, status_of};
use super::handles::{Registry, free_string, give_string};
use super::torch;
use super::view::RawView;

/// A planned copy (`stridekit_plan_new`): reusable with new pointers, from any thread.
/// The pointer C holds is a validated handle, not this object's address.
pub struct StridekitPlan {
    op: CopyOp,
}

/// A caching allocator (`stridekit_allocator_new`); the pointer C holds is a validated
/// handle, not this object's address.
pub struct StridekitAllocator {
    inner: Allocator,
}

/// The plans given to C.
pub static PLANS: Registry<StridekitPlan> = Registry::new("plan");
/// The allocators given to C.
pub static ALLOCATORS: Registry<StridekitAllocator> = Registry::new("allocator");

/// # Safety
/// `t` is NULL or points to a valid DLTensor.
unsafe fn view_of(t: *const DLTensor, what: &str) -> FfiResult<(RawView, *mut c_void)> {
    // SAFETY: the caller's contract.
    let t = unsafe { t.as_ref() }.ok_or_else(|| FfiError::invalid(format!("{what} is NULL")))?;
    // SAFETY: a valid DLTensor's shape and strides hold ndim values.
    Ok((unsafe { RawView::from_dlpack(t, what) }?, t.data))
}

/// # Safety
/// `s` is NULL or a NUL-terminated string.
unsafe fn str_arg<'a>(s: *const c_char, what: &str) -> FfiResult<Option<&'a str>> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract.
    let c = unsafe { CStr::from_ptr(s) };
    c.to_str()
        .map(Some)
        .map_err(|_| FfiError::invalid(format!("{what} is not UTF-8")))
}

fn c_string(s: String) -> *mut c_char {
    give_string(s)
}

/// The message of this thread's last failing call ("" if none failed). Valid until the
/// next failing call on this thread; never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_last_error() -> *const c_char {
    last_error_ptr()
}

/// stridekit's version and build, e.g. "v0.1.0 (built without STRIDEKIT_BUILD)".
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_version() -> *const c_char {
    static VERSION: std::sync::OnceLock<CString> = std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| CString::new(crate::BUILD).unwrap_or_default())
        .as_ptr()
}

/// `dst.copy_(src)`: any strided layouts, `src` broadcastable to `dst`'s shape, any
/// dtypes (converted as PyTorch does), both on the CPU or both on one CUDA device, through
/// the same copy plan and kernels as the Rust API. On a GPU the copy is enqueued on
/// `stream` (NULL: legacy default stream) and not waited for.
///
/// # Safety
/// `dst` and `src` point to valid DLTensors whose memory stays valid (and, for a GPU copy,
/// until the stream has run it); `stream` is NULL or a stream of the tensors' device.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stridekit_copy(
    dst: *const DLTensor,
    src: *const DLTensor,
    stream: *mut c_void,
) -> c_int {
    status_of(|| {
        // SAFETY: the caller's contract.
        let ((dv, dp), (sv, sp)) = unsafe { (view_of(dst, "dst")?, view_of(src, "src")?) };
        let op = CopyOp::new(dv, sv)?;
        // SAFETY: the caller's contract.
        unsafe { op.run(dp, sp, stream) }
    })
}

/// Plans `dst.copy_(src)` once for tensors of these shapes, strides, byte offsets, dtypes
/// and device (their `data` pointers are not read): every check of `stridekit_copy` and
/// the kernel choice happen here. On success `*out` holds the plan; free it with
/// `stridekit_plan_free`.
///
/// # Safety
/// `dst` and `src` point to valid DLTensors; `out` to writable memory for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stridekit_plan_new(
    dst: *const DLTensor,
    src: *const DLTensor,
    out: *mut *mut StridekitPlan,
) -> c_int {
    status_of(|| {
        if out.is_null() {
            return Err(FfiError::invalid("out is NULL"));
        }
        // SAFETY: the caller's contract.
        let ((dv, _), (sv, _)) = unsafe { (view_of(dst, "dst")?, view_of(src, "src")?) };
        let plan = PLANS.insert(StridekitPlan {
            op: CopyOp::new(dv, sv)?,
        });
        // SAFETY: `out` is writable (checked non-NULL above).
        unsafe { *out = plan as *mut StridekitPlan };
        Ok(())
    })
}

/// Runs a plan on tensors at `dst_data` and `src_data` (the planned byte offsets are
/// added). Makes no host allocation (unless the two byte ranges intersect: then the
/// overlap is checked exactly and the source staged, as `stridekit_copy` does).
///
/// A plan handle that is NULL, freed or not from `stridekit_plan_new` is refused
/// (`STRIDEKIT_ERR_INVALID_ARGUMENT`).
///
/// # Safety
/// The pointers hold tensors of the planned metadata, as for `stridekit_copy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stridekit_plan_run(
    plan: *const StridekitPlan,
    dst_data: *mut c_void,
    src_data: *const c_void,
    stream: *mut c_void,
) -> c_int {
    status_of(|| {
        let plan = PLANS.get(plan as u64)?;
        // SAFETY: the caller's contract.
        unsafe { plan.op.run(dst_data, src_data, stream) }
    })
}

/// Frees a plan (NULL is a no-op). A plan freed already, or a pointer that is not a plan,
/// is refused with `STRIDEKIT_ERR_INVALID_ARGUMENT` and nothing is freed. A run of the
/// plan in progress on another thread finishes first.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_plan_free(plan: *mut StridekitPlan) -> c_int {
    status_of(|| {
        if !plan.is_null() {
            drop(PLANS.remove(plan as u64)?);
        }
        Ok(())
    })
}

/// The row gather `dst[r, ...] = src[index[r], ...]` (`torch.index_select(src, 0, index)`,
/// an embedding lookup): `index` a contiguous 1-d int32 or int64 tensor of n entries, `dst`
/// of shape (n, ...) and `src`'s dtype, rows contiguous in both, all on one device. An
/// index outside the source's rows fails with PyTorch's message; on a GPU the call waits
/// for `stream` to read the kernel's out-of-range flag.
///
/// # Safety
/// As `stridekit_copy`, for the three tensors.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stridekit_row_gather(
    dst: *const DLTensor,
    src: *const DLTensor,
    index: *const DLTensor,
    stream: *mut c_void,
) -> c_int {
    status_of(|| {
        // SAFETY: the caller's contract.
        let ((dv, dp), (sv, sp), (iv, ip)) = unsafe {
            (
                view_of(dst, "dst")?,
                view_of(src, "src")?,
                view_of(index, "index")?,
            )
        };
        let op = RowGatherOp::new(dv, sv, iv)?;
        // SAFETY: the caller's contract.
        unsafe { op.run(dp, sp, ip, stream) }
    })
}

/// A caching allocator with PyTorch's policy and statistics. `device`: "cuda", "cuda:N",
/// or "sim" / "sim:BYTES" (a simulated CUDA device whose blocks are host memory, usable as
/// kDLCPU tensors, for machines without a GPU; default 4 GiB). `conf`: settings in
/// PYTORCH_CUDA_ALLOC_CONF syntax ("expandable_segments:True,max_split_size_mb:256"), or
/// NULL for STRIDEKIT_ALLOC_CONF (else PYTORCH_CUDA_ALLOC_CONF, else the defaults).
///
/// # Safety
/// `device` is a NUL-terminated string; `conf` one or NULL; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stridekit_allocator_new(
    device: *const c_char,
    conf: *const c_char,
    out: *mut *mut StridekitAllocator,
) -> c_int {
    status_of(|| {
        if out.is_null() {
            return Err(FfiError::invalid("out is NULL"));
        }
        // SAFETY: the caller's contract.
        let device = unsafe { str_arg(device, "device") }?
            .ok_or_else(|| FfiError::invalid("device is NULL"))?;
        // SAFETY: the caller's contract.
        let conf = unsafe { str_arg(conf, "conf") }?;
        let inner = Allocator::new(device.parse()?, conf)?;
        let h = ALLOCATORS.insert(StridekitAllocator { inner });
        // SAFETY: checked non-NULL.
        unsafe { *out = h as *mut StridekitAllocator };
        Ok(())
    })
}

/// The allocator of a handle, held for the call.
fn allocator(a: *const StridekitAllocator) -> FfiResult<Arc<StridekitAllocator>> {
    ALLOCATORS.get(a as u64)
}

/// Allocates `size` bytes for use on `stream` into `*out` (NULL for 0 bytes). Out of
/// memory is `STRIDEKIT_ERR_OUT_OF_MEMORY` with PyTorch's message.
///
/// # Safety
/// `out` is writable (the handle `a` is checked).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stridekit_allocator_malloc(
    a: *const StridekitAllocator,
    size: usize,
    stream: *mut c_void,
    out: *mut *mut c_void,
) -> c_int {
    status_of(|| {
        if out.is_null() {
            return Err(FfiError::invalid("out is NULL"));
        }
        let p = allocator(a)?.inner.malloc(size as u64, stream as u64)?;
        // SAFETY: checked non-NULL.
        unsafe { *out = p as *mut c_void };
        Ok(())
    })
}

/// Returns a block to the cache (reused once the work of every stream it was recorded on
/// has finished). NULL is a no-op; an address this allocator did not give is an error.
///
/// An allocator handle that is NULL, destroyed or not one is refused.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_allocator_free(
    a: *const StridekitAllocator,
    ptr: *mut c_void,
) -> c_int {
    status_of(|| allocator(a)?.inner.free(ptr as u64))
}

/// Records that the block at `ptr` is used on `stream` as well (`Tensor.record_stream`).
///
/// An allocator handle that is NULL, destroyed or not one is refused.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_allocator_record_stream(
    a: *const StridekitAllocator,
    ptr: *mut c_void,
    stream: *mut c_void,
) -> c_int {
    status_of(|| allocator(a)?.inner.record_stream(ptr as u64, stream as u64))
}

/// Releases every cached segment holding no allocation (`torch.cuda.empty_cache()`).
///
/// An allocator handle that is NULL, destroyed or not one is refused.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_allocator_empty_cache(a: *const StridekitAllocator) -> c_int {
    status_of(|| allocator(a)?.inner.empty_cache())
}

/// The statistics as a JSON object with `torch.cuda.memory_stats()`'s keys
/// (`"allocated_bytes.all.current"`, `"reserved_bytes.all.peak"`, ...). Free the string
/// with `stridekit_string_free`; NULL on failure.
///
/// An allocator handle that is NULL, destroyed or not one is refused.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_allocator_stats_json(a: *const StridekitAllocator) -> *mut c_char {
    ptr_or_null(|| Ok(c_string(allocator(a)?.inner.stats_json())))
}

/// Destroys an allocator: all its memory goes back to the device, blocks not freed
/// included (once the calls running on other threads return). NULL is a no-op; an
/// allocator destroyed already, or a pointer that is not one, is refused with
/// `STRIDEKIT_ERR_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_allocator_destroy(a: *mut StridekitAllocator) -> c_int {
    status_of(|| {
        if !a.is_null() {
            drop(ALLOCATORS.remove(a as u64)?);
        }
        Ok(())
    })
}

/// Frees a string returned by stridekit (NULL is a no-op). A string freed already, or one
/// stridekit did not return, is refused with `STRIDEKIT_ERR_INVALID_ARGUMENT` and left
/// alone.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_string_free(s: *mut c_char) -> c_int {
    status_of(|| {
        if !s.is_null() {
            free_string(s)?;
        }
        Ok(())
    })
}

/// PyTorch's pluggable allocator `alloc`: `size` bytes on CUDA device `device` for
/// `stream`, from that device's stridekit caching allocator (settings from
/// STRIDEKIT_ALLOC_CONF). NULL on failure, with the message in `stridekit_last_error`
/// (PyTorch then reports out of memory).
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_torch_malloc(
    size: isize,
    device: c_int,
    stream: *mut c_void,
) -> *mut c_void {
    ptr_or_null(|| {
        let size = u64::try_from(size)
            .map_err(|_| FfiError::invalid(format!("size {size} is negative")))?;
        let p = torch::pool(device)?.malloc(size, stream as u64)?;
        if p == 0 && size > 0 {
            return Err(FfiError::invalid("allocator returned address 0"));
        }
        Ok(p as *mut c_void)
    })
}

/// PyTorch's pluggable allocator `free`. Failures (an unknown pointer) are recorded in
/// `stridekit_last_error`; PyTorch's signature has no way to return them.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_torch_free(
    ptr: *mut c_void,
    size: isize,
    device: c_int,
    stream: *mut c_void,
) {
    let _ = (size, stream);
    status_of(|| match torch::existing_pool(device) {
        Some(a) => a.free(ptr as u64),
        None => Err(FfiError::invalid(format!(
            "stridekit_torch_free: no allocation was made on device {device}"
        ))),
    });
}

/// The statistics of device `device`'s pluggable allocator, as
/// `stridekit_allocator_stats_json`; NULL (with a message) when it has made no allocation.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_torch_stats_json(device: c_int) -> *mut c_char {
    ptr_or_null(|| match torch::existing_pool(device) {
        Some(a) => Ok(c_string(a.stats_json())),
        None => Err(FfiError::invalid(format!(
            "no stridekit allocator for device {device}: nothing was allocated there yet"
        ))),
    })
}

/// Releases the cached, unused segments of device `device`'s pluggable allocator.
#[unsafe(no_mangle)]
pub extern "C" fn stridekit_torch_empty_cache(device: c_int) -> c_int {
    status_of(|| match torch::existing_pool(device) {
        Some(a) => a.empty_cache(),
        None => Ok(()),
    })
}
