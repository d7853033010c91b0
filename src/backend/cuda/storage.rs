//! GPU memory as a storage's bytes: [`DeviceBuffer`] is the CUDA device's
//! [`DeviceMemory`], and the storage methods that hand a backend its own kind of memory
//! back ([`Storage::cuda`], [`Storage::bytes`]) live here, above the storage layer.

use std::any::Any;

use parking_lot::RwLock;

use super::memory::DeviceBuffer;
use crate::error::Result;
use crate::storage::{Device, DeviceMemory, Storage};

impl DeviceMemory for DeviceBuffer {
    fn device(&self) -> Device {
        Device::Cuda(self.gpu().ordinal())
    }

    fn nbytes(&self) -> usize {
        DeviceBuffer::nbytes(self)
    }

    fn ptr(&self) -> u64 {
        DeviceBuffer::ptr(self)
    }

    fn host(&self) -> Option<&RwLock<Vec<u8>>> {
        None
    }

    fn to_host(&self) -> Result<Vec<u8>> {
        Ok(DeviceBuffer::to_host(self)?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A storage's bytes as a backend sees them: host-addressable, or on a GPU.
pub enum Bytes<'a> {
    Host(&'a RwLock<Vec<u8>>),
    Cuda(&'a DeviceBuffer),
}

impl Storage {
    /// A storage over device memory: owned by the buffer, or wrapped from the caller's
    /// pointer (see [`DeviceBuffer::external`]).
    pub fn from_device_buffer(buffer: DeviceBuffer) -> Storage {
        Storage::from_memory(Box::new(buffer))
    }

    /// The GPU memory; None for bytes the CPU addresses.
    pub fn cuda(&self) -> Option<&DeviceBuffer> {
        self.memory().as_any().downcast_ref::<DeviceBuffer>()
    }

    /// The bytes, wherever they live.
    pub fn bytes(&self) -> Bytes<'_> {
        match (self.memory().host(), self.cuda()) {
            (Some(host), _) => Bytes::Host(host),
            (None, Some(gpu)) => Bytes::Cuda(gpu),
            (None, None) => unreachable!("a storage's memory is host-addressable or a GPU's"),
        }
    }
}
