//! A caching device allocator that reproduces PyTorch 2.11's CUDA caching allocator policy
//! (see [`policy`]), with PyTorch's statistics, a snapshot, a memory summary, and trace
//! replay on a simulated device ([`replay`]).
//!
//! ```
//! use stridekit::alloc::{AllocConfig, CachingAllocator, SimulatedDevice};
//! let a = CachingAllocator::new(SimulatedDevice::new(1 << 30), AllocConfig::default()).unwrap();
//! let h = a.malloc(1000, 0).unwrap();
//! assert_eq!(h.size, 1024);
//! a.free(h).unwrap();
//! let s = a.stats();
//! assert_eq!(s.reserved_bytes[0].current, 2 << 20);
//! assert_eq!(s.allocated_bytes[0].current, 0);
//! ```

pub mod block;
pub mod chunks;
pub mod cli;
pub mod config;
pub mod cuda_device;
pub mod device;
pub mod error;
pub mod expandable;
pub mod free_list;
pub mod grid;
pub mod host_device;
pub(crate) mod life_place;
pub(crate) mod life_share;
pub(crate) mod lifetime;
pub mod locked;
pub(crate) mod pair_cover;
pub mod policy;
pub mod replay;
pub mod report;
pub mod rounding;
pub(crate) mod scratch;
pub mod sizes;
pub(crate) mod slack_feedback;
pub mod snapshot;
pub mod sorted;
pub mod state;
pub mod stats;
pub mod stitch;
pub mod stridekit_params;
pub mod targets;
pub mod trace;
pub mod tune;
pub mod tune_pick;
pub mod tune_report;
pub mod why;

pub use config::AllocConfig;
pub use cuda_device::CudaDevice;
pub use device::{DeviceError, RawDevice, SimulatedDevice, StreamId};
pub use error::{AllocError, AllocResult, OutOfMemory};
pub use host_device::HostDevice;
pub use locked::CachingAllocator;
pub use policy::{BlockHandle, DeviceCachingAllocator, round_size};
pub use stats::{DeviceStats, Stat};
pub use trace::{Trace, read_trace as read_trace_file};
