//! Shared storage: bytes on a device, an identity, and the version counter every view of it
//! shares.

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a storage's bytes live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
    Cuda(usize),
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A reference-counted block of bytes. Cloning shares it; [`Storage::id`] tells storages
/// apart, and [`Storage::version`] is the counter PyTorch bumps on every in-place write
/// through any view.
#[derive(Clone)]
pub struct Storage {
    inner: Arc<Inner>,
}

struct Inner {
    id: u64,
    device: Device,
    version: AtomicU64,
    bytes: RwLock<Vec<u8>>,
}

impl Storage {
    /// A zero-filled host storage of `nbytes` bytes.
    pub fn zeroed(nbytes: usize) -> Storage {
        Storage::from_bytes(vec![0; nbytes])
    }

    /// A host storage holding `bytes`.
    pub fn from_bytes(bytes: Vec<u8>) -> Storage {
        Storage {
            inner: Arc::new(Inner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                device: Device::Cpu,
                version: AtomicU64::new(0),
                bytes: RwLock::new(bytes),
            }),
        }
    }

    /// Process-unique identity; equal ids mean the same storage.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    pub fn device(&self) -> Device {
        self.inner.device
    }

    pub fn nbytes(&self) -> usize {
        self.inner.bytes.read().len()
    }

    pub fn is_same(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The shared version counter's value.
    pub fn version(&self) -> u64 {
        self.inner.version.load(Ordering::Acquire)
    }

    /// Records one in-place write (PyTorch's `bump_version`).
    pub fn bump_version(&self) {
        self.inner.version.fetch_add(1, Ordering::AcqRel);
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Vec<u8>> {
        self.inner.bytes.read()
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, Vec<u8>> {
        self.inner.bytes.write()
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("id", &self.id())
            .field("device", &self.device())
            .field("nbytes", &self.nbytes())
            .field("version", &self.version())
            .finish()
    }
}
