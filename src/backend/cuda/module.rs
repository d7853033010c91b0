//! Loading the kernels into a context: the embedded fatbin (cuModuleLoadData), or, in a
//! binary built without nvcc, the embedded sources compiled by NVRTC for the device.

use std::sync::{Arc, OnceLock};

use cudarc::driver::result;
use cudarc::driver::sys::{CUdevice_attribute, CUfunction, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};

use super::choose::DeviceLimits;
use super::error::{Call, CudaError};
use super::kernels::{FATBIN, KERNEL_COUNT, KernelId, NVRTC_SOURCE};

/// The loaded kernel module; functions are looked up once, on first use.
pub struct Kernels {
    module: Arc<CudaModule>,
    image: String,
    functions: [OnceLock<CudaFunction>; KERNEL_COUNT],
    limits: DeviceLimits,
    /// Set once a function may use the device's opt-in shared memory.
    opted_in: [OnceLock<()>; KERNEL_COUNT],
}

/// Dynamic shared memory a launch may use without opting in.
const STATIC_SHARED_LIMIT: u32 = 48 * 1024;

/// NVRTC's virtual architecture for a compute capability (PTX, JIT-compiled by the
/// driver), or None below sm_80.
pub fn nvrtc_arch(major: i32, minor: i32) -> Option<&'static str> {
    Some(match (major, minor) {
        (8, 0) => "compute_80",
        (8, 6) => "compute_86",
        (8, 7) => "compute_87",
        (8, 9) => "compute_89",
        (9, 0) => "compute_90",
        (10, 0) => "compute_100",
        (12, 0) => "compute_120",
        (m, _) if m >= 8 => "compute_80",
        _ => return None,
    })
}

/// Whether libnvrtc can be loaded.
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the library; no NVRTC call is made.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Compiles the embedded kernel sources to PTX for `arch` (no GPU needed).
pub fn compile_nvrtc(arch: &'static str) -> Result<Ptx, CudaError> {
    if !nvrtc_available() {
        return Err(CudaError::NoNvrtc);
    }
    let opts = CompileOptions {
        arch: Some(arch),
        options: vec!["--std=c++17".into()],
        name: Some("stridekit_kernels.cu".into()),
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(NVRTC_SOURCE, opts).map_err(|e| {
        let log = match e {
            CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
            other => format!("{other:?}"),
        };
        CudaError::Nvrtc { arch, log }
    })
}

impl Kernels {
    /// The device's limits for planning: the most shared memory a block may use by opt-in
    /// (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).
    pub fn query_limits(ctx: &Arc<CudaContext>) -> Result<DeviceLimits, CudaError> {
        let optin = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .call("cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)")?;
        Ok(DeviceLimits {
            max_shared_per_block: u32::try_from(optin).unwrap_or(0).max(STATIC_SHARED_LIMIT),
        })
    }

    /// Loads the fatbin, or compiles the sources with NVRTC when there is none; `limits`
    /// are the device's ([`Kernels::query_limits`]).
    pub fn load(ctx: &Arc<CudaContext>, limits: DeviceLimits) -> Result<Kernels, CudaError> {
        let (major, minor) = ctx
            .compute_capability()
            .call("cuDeviceGetAttribute(COMPUTE_CAPABILITY)")?;
        let arch = nvrtc_arch(major, minor).ok_or(CudaError::UnsupportedArch { major, minor })?;
        let (ptx, image) = match FATBIN {
            Some(bytes) => (
                Ptx::from_binary(bytes.to_vec()),
                super::kernels::kernel_image().to_string(),
            ),
            None => (
                compile_nvrtc(arch)?,
                format!("NVRTC PTX for {arch}, compiled at load"),
            ),
        };
        let module = ctx.load_module(ptx).call("cuModuleLoadData")?;
        Ok(Kernels {
            module,
            image,
            functions: std::array::from_fn(|_| OnceLock::new()),
            limits,
            opted_in: std::array::from_fn(|_| OnceLock::new()),
        })
    }

    /// The device limits the kernels were loaded with.
    pub fn limits(&self) -> DeviceLimits {
        self.limits
    }

    /// The kernel's handle for a launch of `shared` bytes of dynamic shared memory: past
    /// 48 KB the function is first allowed the device's opt-in limit
    /// (cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES), once per function, not per launch);
    /// past that limit, [`CudaError::TooLarge`].
    pub fn function_for_shared(&self, id: KernelId, shared: u32) -> Result<CUfunction, CudaError> {
        let f = self.function(id)?;
        if shared <= STATIC_SHARED_LIMIT {
            return Ok(f);
        }
        let limit = self.limits.max_shared_per_block;
        if shared > limit {
            return Err(CudaError::TooLarge(format!(
                "{} needs {shared} bytes of shared memory; this device allows {limit} per block",
                id.name()
            )));
        }
        let cell = &self.opted_in[id.0 as usize];
        if cell.get().is_none() {
            let attr = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            // SAFETY: `f` is a live function of this module; the value is the device's own
            // opt-in limit (below i32::MAX: checked by the conversion).
            let value = i32::try_from(limit).map_err(|_| {
                CudaError::TooLarge(format!("shared memory limit {limit} past i32"))
            })?;
            unsafe { result::function::set_function_attribute(f, attr, value) }
                .call("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")?;
            let _ = cell.set(());
        }
        Ok(f)
    }

    /// What was loaded: the fatbin (and the toolkit that built it), or NVRTC's PTX.
    pub fn image(&self) -> &str {
        &self.image
    }

    /// The kernel's handle (cuModuleGetFunction on first use only).
    pub fn function(&self, id: KernelId) -> Result<CUfunction, CudaError> {
        let cell = &self.functions[id.0 as usize];
        if let Some(f) = cell.get() {
            return Ok(f.cu_function());
        }
        let f = self
            .module
            .load_function(id.name())
            .call("cuModuleGetFunction")?;
        Ok(cell.get_or_init(|| f).cu_function())
    }
}
