//! Launching planned kernels on a stream. Arguments go by value: the argument struct is
//! copied by cuLaunchKernel from the plan, so a launch allocates nothing on the host and
//! copies nothing to the device besides the kernel parameters.

use std::ffi::c_void;

use cudarc::driver::result;
use cudarc::driver::sys::{CUdeviceptr, CUstream};

use super::choose::{GpuLaunch, GpuPlan, LaunchParams};
use super::error::{Call, CudaError};
use super::module::Kernels;
use super::rows::RowGatherPlan;

fn params_ptr(p: &mut LaunchParams) -> *mut c_void {
    match p {
        LaunchParams::Strided32(x) => x as *mut _ as *mut c_void,
        LaunchParams::Strided64(x) => x as *mut _ as *mut c_void,
        LaunchParams::Tile(x) => x as *mut _ as *mut c_void,
        LaunchParams::Rows(x) => x as *mut _ as *mut c_void,
        LaunchParams::Ew32(x) => x as *mut _ as *mut c_void,
        LaunchParams::Ew64(x) => x as *mut _ as *mut c_void,
    }
}

unsafe fn launch(
    kernels: &Kernels,
    l: &GpuLaunch,
    args: &mut [*mut c_void],
    stream: CUstream,
) -> Result<(), CudaError> {
    let f = kernels.function_for_shared(l.kernel, l.shared_bytes)?;
    // SAFETY: the caller guarantees the pointers address the plan's elements on this
    // context; `args` matches the kernel's signature (pointers, then the params struct).
    unsafe { result::launch_kernel(f, l.grid, l.block, l.shared_bytes, stream, args) }
        .call("cuLaunchKernel")
}

/// Runs `plan` with destination base `dst` and source base `src` (device pointers to the
/// storages the plan's offsets address) on `stream`, asynchronously.
///
/// # Safety
/// `dst` and `src` must be valid device allocations of the current context covering every
/// element the plan addresses, and `stream` a stream of that context (or null).
pub unsafe fn launch_plan(
    kernels: &Kernels,
    plan: &GpuPlan,
    dst: CUdeviceptr,
    src: CUdeviceptr,
    stream: CUstream,
) -> Result<(), CudaError> {
    match plan {
        GpuPlan::Empty => Ok(()),
        GpuPlan::Memcpy {
            dst_byte_offset,
            src_byte_offset,
            bytes,
        } => unsafe {
            result::memcpy_dtod_async(
                dst + dst_byte_offset,
                src + src_byte_offset,
                *bytes as usize,
                stream,
            )
        }
        .call("cuMemcpyDtoDAsync"),
        GpuPlan::Kernel { .. } => {
            let l = plan.launch_for(dst, src).expect("kernel plan");
            let (mut d, mut s, mut p) = (dst, src, l.params);
            let mut args = [
                &mut d as *mut CUdeviceptr as *mut c_void,
                &mut s as *mut CUdeviceptr as *mut c_void,
                params_ptr(&mut p),
            ];
            unsafe { launch(kernels, l, &mut args, stream) }
        }
    }
}

/// Runs a row gather. `index` points at `num_rows` int32 or int64 indices (as planned);
/// `error_flag` (0: none) at a device int32 that an out-of-range index sets to 1.
///
/// # Safety
/// As [`launch_plan`]; `index` and `error_flag` must be device pointers of the context.
pub unsafe fn launch_row_gather(
    kernels: &Kernels,
    plan: &RowGatherPlan,
    dst: CUdeviceptr,
    src: CUdeviceptr,
    index: CUdeviceptr,
    error_flag: CUdeviceptr,
    stream: CUstream,
) -> Result<(), CudaError> {
    let l = plan.launch_for(dst, src);
    let (mut d, mut s, mut i, mut p) = (dst, src, index, l.params);
    if let LaunchParams::Rows(r) = &mut p {
        r.error_flag = error_flag;
    }
    let mut args = [
        &mut d as *mut CUdeviceptr as *mut c_void,
        &mut s as *mut CUdeviceptr as *mut c_void,
        &mut i as *mut CUdeviceptr as *mut c_void,
        params_ptr(&mut p),
    ];
    unsafe { launch(kernels, l, &mut args, stream) }
}

/// Runs an element-wise launch: `out` is the output's base pointer, `inputs[k]` input k's
/// (ignored for numbers and past the op's arity; 0 there).
///
/// # Safety
/// As [`launch_plan`]: every pointer a tensor operand uses must cover the elements the
/// launch's offsets and strides address, on this context.
pub unsafe fn launch_elementwise(
    kernels: &Kernels,
    l: &GpuLaunch,
    out: CUdeviceptr,
    inputs: [CUdeviceptr; 3],
    stream: CUstream,
) -> Result<(), CudaError> {
    let (mut o, mut ins, mut p) = (out, inputs, l.params);
    let [i0, i1, i2] = &mut ins;
    let mut args = [
        &mut o as *mut CUdeviceptr as *mut c_void,
        i0 as *mut CUdeviceptr as *mut c_void,
        i1 as *mut CUdeviceptr as *mut c_void,
        i2 as *mut CUdeviceptr as *mut c_void,
        params_ptr(&mut p),
    ];
    unsafe { launch(kernels, l, &mut args, stream) }
}
