//! The CUDA backend: handwritten kernels (cuda/*.cu) launched through cudarc.
//!
//! - [`params`]: the kernel argument structs, mirrored from cuda/include/params.h by bindgen.
//! - [`kernels`]: the kernel table and which image this binary carries (fatbin or NVRTC).
//! - [`choose`]: kernel choice and launch geometry from a [`crate::plan::CopyPlan`], made
//!   once; needs no GPU. [`elementwise`]: the same for the element-wise family, from a
//!   [`crate::plan::ElementwisePlan`].
//! - [`context`], [`module`], [`launch`]: driver calls (libcuda is loaded at run time and
//!   checked before the first cudarc call).

pub mod choose;
pub mod context;
pub mod divisor;
pub mod elementwise;
pub mod error;
pub mod kernels;
pub mod launch;
pub mod memory;
pub mod module;
pub mod narrow;
mod packed;
#[rustfmt::skip]
#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]
pub mod params;
pub mod realign;
pub mod rows;
pub mod storage;
mod tile_layout;

pub use crate::plan::RowGatherShape;
pub use choose::{DeviceLimits, GpuLaunch, GpuPlan, LaunchParams};
pub use context::{Gpu, device_count, driver_available};
pub use elementwise::{EwInput, EwSpec};
pub use error::CudaError;
pub use kernels::kernel_image;
pub use launch::{launch_elementwise, launch_plan, launch_row_gather};
pub use memory::{DeviceBuffer, PinnedHost};
pub use rows::RowGatherPlan;
pub use storage::Bytes;

#[cfg(test)]
mod tests;
