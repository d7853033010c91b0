//! The allocator's account of a run: where `explain` runs its tensors ([`Target`]), and the
//! caching allocator's figures after each statement and at the end ([`Account`]), with
//! `torch.cuda.memory_stats()`'s key names. None on the CPU.

use std::sync::Arc;

use serde::Serialize;

use crate::alloc::{AllocConfig, DeviceStats};
use crate::backend::cuda::Gpu;
use crate::simulated_cuda::SimulatedCuda;
use crate::storage::Device;

/// Where `explain` runs a program: the CPU, a GPU, or a simulated CUDA device (`sim`: the
/// tensors are `cuda:0` ones, their bytes on the host, their blocks in a caching allocator).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Device(Device),
    Sim,
}

impl Target {
    /// The device the program's tensors are made on.
    pub fn device(self) -> Device {
        match self {
            Target::Device(d) => d,
            Target::Sim => Device::Cuda(0),
        }
    }
}

impl From<Device> for Target {
    fn from(d: Device) -> Target {
        Target::Device(d)
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Device(d) => d.fmt(f),
            Target::Sim => f.write_str("sim"),
        }
    }
}

impl std::str::FromStr for Target {
    type Err = String;

    /// `cpu`, `cuda`, `cuda:N` or `sim`.
    fn from_str(s: &str) -> Result<Target, String> {
        if s == "sim" {
            return Ok(Target::Sim);
        }
        s.parse::<Device>()
            .map(Target::Device)
            .map_err(|_| format!("unknown device '{s}': expected cpu, cuda, cuda:N or sim"))
    }
}

/// The caching allocator's figures at one moment, named as `torch.cuda.memory_stats()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Account {
    #[serde(rename = "allocated_bytes.all.current")]
    pub allocated: i64,
    #[serde(rename = "reserved_bytes.all.current")]
    pub reserved: i64,
    #[serde(rename = "active_bytes.all.current")]
    pub active: i64,
    #[serde(rename = "inactive_split_bytes.all.current")]
    pub inactive_split: i64,
    #[serde(rename = "segment.all.current")]
    pub segments: i64,
    #[serde(rename = "allocated_bytes.all.peak")]
    pub allocated_peak: i64,
    #[serde(rename = "reserved_bytes.all.peak")]
    pub reserved_peak: i64,
}

impl Account {
    pub fn of(s: &DeviceStats) -> Account {
        const ALL: usize = crate::alloc::stats::AGGREGATE;
        Account {
            allocated: s.allocated_bytes[ALL].current,
            reserved: s.reserved_bytes[ALL].current,
            active: s.active_bytes[ALL].current,
            inactive_split: s.inactive_split_bytes[ALL].current,
            segments: s.segment[ALL].current,
            allocated_peak: s.allocated_bytes[ALL].peak,
            reserved_peak: s.reserved_bytes[ALL].peak,
        }
    }
}

/// Whose figures a run reports.
#[derive(Clone, Default)]
pub enum Allocator {
    /// The CPU: no caching allocator.
    #[default]
    None,
    Simulated(Arc<SimulatedCuda>),
    Gpu(Arc<Gpu>),
}

/// A bad STRIDEKIT_ALLOC_CONF, or a failing GPU allocator call.
pub type SetupError = crate::alloc::AllocError;

impl Allocator {
    /// The allocator a run on `target` reports. `sim`: a fresh simulated device under
    /// STRIDEKIT_ALLOC_CONF (else PYTORCH_CUDA_ALLOC_CONF). A GPU: its process-wide
    /// allocator, its unused cached segments released and its peaks reset first (as
    /// `torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()`); no account when the
    /// GPU cannot be opened (the run then stops at its first CUDA tensor).
    pub fn for_target(target: Target) -> Result<Allocator, SetupError> {
        Ok(match target {
            Target::Device(Device::Cpu) => Allocator::None,
            Target::Sim => Allocator::Simulated(SimulatedCuda::new(AllocConfig::from_env()?)?),
            Target::Device(Device::Cuda(n)) => match Gpu::shared(n) {
                Ok(gpu) => {
                    gpu.allocator.empty_cache()?;
                    gpu.allocator.reset_peak_stats();
                    Allocator::Gpu(gpu)
                }
                Err(_) => Allocator::None,
            },
        })
    }

    /// The figures now; None on the CPU.
    pub fn account(&self) -> Option<Account> {
        match self {
            Allocator::None => None,
            Allocator::Simulated(s) => Some(Account::of(&s.stats())),
            Allocator::Gpu(g) => Some(Account::of(&g.memory_stats())),
        }
    }

    /// Runs `f` with the simulated device installed (when this is one).
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        match self {
            Allocator::Simulated(s) => crate::simulated_cuda::with_device(s.clone(), f),
            _ => f(),
        }
    }

    /// A line naming the allocator, for the text report.
    pub fn describe(&self) -> &'static str {
        match self {
            Allocator::None => "none (cpu)",
            Allocator::Simulated(_) => {
                "simulated cuda:0 (host bytes, PyTorch's caching allocator policy)"
            }
            Allocator::Gpu(_) => "the GPU's caching allocator",
        }
    }
}
