//! A GPU: context, stream and loaded kernels. libcuda is loaded at run time, and its
//! presence is checked before the first cudarc call (cudarc panics without it).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use cudarc::driver::result;
use cudarc::driver::sys::{CUdeviceptr, CUevent_flags, CUevent_wait_flags, CUstream};
use cudarc::driver::{CudaContext, CudaStream};

use super::choose::{DeviceLimits, GpuLaunch, GpuPlan};
use super::error::{Call, CudaError};
use super::launch::{launch_elementwise, launch_plan, launch_row_gather};
use super::module::Kernels;
use super::rows::RowGatherPlan;
use crate::alloc::{AllocConfig, CachingAllocator, CudaDevice, DeviceStats, StreamId};

/// Whether libcuda can be loaded (false on a machine without an NVIDIA driver).
pub fn driver_available() -> bool {
    // SAFETY: only tries to dlopen the library; no driver call is made.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// The oldest driver API the kernels (built by CUDA 13.0) and cudarc's CUDA 13 bindings
/// load on; an older driver would fail in the middle of a run (cudarc panics on a missing
/// symbol), so it is refused up front.
pub const MIN_DRIVER_VERSION: i32 = 13000;

/// The driver's CUDA version (e.g. 13000 for 13.0), or [`CudaError::NoDriver`].
pub fn driver_version() -> Result<i32, CudaError> {
    if !driver_available() {
        return Err(CudaError::NoDriver);
    }
    let mut v = 0;
    // SAFETY: a plain out-parameter; cuDriverGetVersion needs no cuInit.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) }
        .result()
        .call("cuDriverGetVersion")?;
    Ok(v)
}

/// The number of CUDA devices, or [`CudaError::NoDriver`].
pub fn device_count() -> Result<usize, CudaError> {
    if !driver_available() {
        return Err(CudaError::NoDriver);
    }
    Ok(CudaContext::device_count().call("cuDeviceGetCount")? as usize)
}

/// One device with its own stream, the kernels loaded, and the caching allocator every
/// stridekit-owned storage on it comes from.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub kernels: Kernels,
    /// PyTorch's caching-allocator policy over this device (settings from
    /// STRIDEKIT_ALLOC_CONF, else PYTORCH_CUDA_ALLOC_CONF); blocks are ordered on `stream`.
    pub allocator: CachingAllocator<CudaDevice>,
}

/// The process-wide [`Gpu`] of each device opened through [`Gpu::shared`].
static SHARED: OnceLock<Mutex<HashMap<usize, Arc<Gpu>>>> = OnceLock::new();

impl Gpu {
    /// The process-wide handle of device `ordinal` (cuda:N), opened on first use: every
    /// tensor on cuda:N shares its context, stream and loaded kernels.
    pub fn shared(ordinal: usize) -> Result<Arc<Gpu>, CudaError> {
        let mut map = SHARED.get_or_init(Default::default).lock();
        if let Some(g) = map.get(&ordinal) {
            return Ok(g.clone());
        }
        let g = Arc::new(Gpu::new(ordinal)?);
        map.insert(ordinal, g.clone());
        Ok(g)
    }

    /// Opens device `ordinal` (cuda:N): primary context, a new stream, the kernels.
    pub fn new(ordinal: usize) -> Result<Gpu, CudaError> {
        if !driver_available() {
            return Err(CudaError::NoDriver);
        }
        let version = driver_version()?;
        if version < MIN_DRIVER_VERSION {
            return Err(CudaError::DriverTooOld { version });
        }
        let count = device_count()?;
        if ordinal >= count {
            return Err(CudaError::NoSuchDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).call("cuDevicePrimaryCtxRetain")?;
        let stream = ctx.new_stream().call("cuStreamCreate")?;
        let limits = Kernels::query_limits(&ctx)?;
        let kernels = Kernels::load(&ctx, limits)?;
        let allocator =
            CachingAllocator::new(CudaDevice::new(ordinal as i32)?, AllocConfig::from_env()?)?;
        Ok(Gpu {
            ctx,
            stream,
            kernels,
            allocator,
        })
    }

    /// What plans for this device may use ([`GpuPlan::for_device`]): its opt-in shared
    /// memory per block, queried when it was opened.
    pub fn limits(&self) -> DeviceLimits {
        self.kernels.limits()
    }

    /// Runs a planned copy on this GPU's stream (asynchronously).
    ///
    /// # Safety
    /// As [`launch_plan`]: `dst` and `src` must cover every element the plan addresses.
    pub unsafe fn copy(
        &self,
        plan: &GpuPlan,
        dst: CUdeviceptr,
        src: CUdeviceptr,
    ) -> Result<(), CudaError> {
        self.bind()?;
        unsafe { launch_plan(&self.kernels, plan, dst, src, self.stream.cu_stream()) }
    }

    /// Runs a planned copy on an external stream (one the caller owns).
    ///
    /// # Safety
    /// As [`launch_plan`]; `stream` must belong to this GPU's context.
    pub unsafe fn copy_on(
        &self,
        plan: &GpuPlan,
        dst: CUdeviceptr,
        src: CUdeviceptr,
        stream: CUstream,
    ) -> Result<(), CudaError> {
        self.bind()?;
        unsafe { launch_plan(&self.kernels, plan, dst, src, stream) }
    }

    /// Runs a planned row gather on this GPU's stream (asynchronously). `index` holds the
    /// plan's int32 or int64 indices; `error_flag` (0: none) a device int32 that an
    /// out-of-range index sets to 1.
    ///
    /// # Safety
    /// As [`launch_row_gather`]: every pointer is a device allocation of this context
    /// covering what the plan addresses.
    pub unsafe fn row_gather(
        &self,
        plan: &RowGatherPlan,
        dst: CUdeviceptr,
        src: CUdeviceptr,
        index: CUdeviceptr,
        error_flag: CUdeviceptr,
    ) -> Result<(), CudaError> {
        self.bind()?;
        let stream = self.stream.cu_stream();
        unsafe { launch_row_gather(&self.kernels, plan, dst, src, index, error_flag, stream) }
    }

    /// Runs an element-wise launch on this GPU's stream (asynchronously).
    ///
    /// # Safety
    /// As [`launch_elementwise`]: every pointer a tensor operand uses is a device
    /// allocation of this context covering what the launch addresses.
    pub unsafe fn elementwise(
        &self,
        launch: &GpuLaunch,
        out: CUdeviceptr,
        inputs: [CUdeviceptr; 3],
    ) -> Result<(), CudaError> {
        self.bind()?;
        let stream = self.stream.cu_stream();
        unsafe { launch_elementwise(&self.kernels, launch, out, inputs, stream) }
    }

    /// The device's name, e.g. "NVIDIA H200".
    pub fn name(&self) -> String {
        self.ctx
            .name()
            .unwrap_or_else(|e| format!("(cuDeviceGetName failed: {e})"))
    }

    /// The device ordinal N of cuda:N.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// Makes this GPU's context current on the calling thread (raw driver calls need it).
    pub fn bind(&self) -> Result<(), CudaError> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")
    }

    /// Makes `stream` wait for everything queued on this GPU's stream so far.
    ///
    /// # Safety
    /// `stream` must be a live stream of this GPU's context.
    pub unsafe fn stream_waits_for_own(&self, stream: CUstream) -> Result<(), CudaError> {
        let ev = self
            .stream
            .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .call("cuEventRecord")?;
        // SAFETY: both handles are live; the event may be destroyed once waited on.
        unsafe {
            result::stream::wait_event(
                stream,
                ev.cu_event(),
                CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .call("cuStreamWaitEvent")
    }

    /// Makes this GPU's stream wait for everything queued on `stream` so far.
    ///
    /// # Safety
    /// `stream` must be a live stream of this GPU's context.
    pub unsafe fn own_waits_for_stream(&self, stream: CUstream) -> Result<(), CudaError> {
        let ev = self
            .ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .call("cuEventCreate")?;
        // SAFETY: the event and `stream` belong to this context.
        unsafe { result::event::record(ev.cu_event(), stream) }.call("cuEventRecord")?;
        self.stream.wait(&ev).call("cuStreamWaitEvent")
    }

    /// Waits for this GPU's stream.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.stream.synchronize().call("cuStreamSynchronize")
    }

    /// The stream id the caching allocator orders this GPU's blocks on.
    pub fn stream_id(&self) -> StreamId {
        self.stream.cu_stream() as StreamId
    }

    /// The caching allocator's statistics (`torch.cuda.memory_stats()`'s figures).
    pub fn memory_stats(&self) -> DeviceStats {
        self.allocator.stats()
    }

    /// Releases the cached segments that hold no storage (`torch.cuda.empty_cache()`).
    pub fn empty_cache(&self) -> Result<(), CudaError> {
        Ok(self.allocator.empty_cache()?)
    }
}

impl Drop for Gpu {
    /// Work still queued may use the module and memory: wait for it before the stream,
    /// module and context handles go.
    fn drop(&mut self) {
        let _ = self.synchronize();
        // Every buffer holds an Arc of its Gpu, so none is left: return the cache.
        let _ = self.allocator.with(|a| a.release_all());
    }
}
