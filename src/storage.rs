//! Shared storage: bytes on a device, an identity, and the version counter every view of it
//! shares. The bytes are a [`DeviceMemory`]: host memory here, a GPU's or the simulated
//! device's where those live (the CUDA backend, [`crate::simulated_cuda`]); which memory a
//! tensor on a device gets is chosen above this layer ([`crate::tensor::device`]).

use std::any::Any;

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{ErrorKind, Result, TensorError};

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

impl std::str::FromStr for Device {
    type Err = String;

    /// `cpu`, `cuda` (device 0) or `cuda:N`.
    fn from_str(s: &str) -> Result<Device, String> {
        match s {
            "cpu" => Ok(Device::Cpu),
            "cuda" => Ok(Device::Cuda(0)),
            _ => s
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(Device::Cuda)
                .ok_or_else(|| format!("unknown device '{s}': expected cpu, cuda or cuda:N")),
        }
    }
}

/// A host allocation that failed, with the message PyTorch 2.11's `DefaultCPUAllocator`
/// gives for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
)]
pub struct HostOutOfMemory {
    pub nbytes: usize,
}

/// `nbytes` zero bytes, or an error when the allocator refuses.
pub fn zeroed_bytes(nbytes: usize) -> Result<Vec<u8>, HostOutOfMemory> {
    if nbytes == 0 {
        return Ok(Vec::new());
    }
    let oom = HostOutOfMemory { nbytes };
    let layout = std::alloc::Layout::array::<u8>(nbytes).map_err(|_| oom.clone())?;
    // SAFETY: `layout` has a non-zero size (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(oom);
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `nbytes` u8s
    // (the layout `Vec<u8>` frees with for capacity `nbytes`), and every byte is
    // initialised (zeroed).
    Ok(unsafe { Vec::from_raw_parts(ptr, nbytes, nbytes) })
}

impl From<HostOutOfMemory> for TensorError {
    fn from(e: HostOutOfMemory) -> Self {
        TensorError::new(ErrorKind::OutOfMemory, e.to_string())
    }
}

/// Memory on one device that a [`Storage`] holds its bytes in. The host
/// ([`HostMemory`]), a CUDA GPU (the backend's `DeviceBuffer`) and the simulated CUDA
/// device ([`crate::simulated_cuda`]) implement it; a storage knows no more of its device
/// than this.
pub trait DeviceMemory: Any + Send + Sync {
    /// The device the bytes live on.
    fn device(&self) -> Device;

    /// How many bytes.
    fn nbytes(&self) -> usize;

    /// The address of the first byte on its device (the host's, a GPU's, or a simulated
    /// device's), stable while the memory lives; called only for a non-empty memory.
    fn ptr(&self) -> u64;

    /// The bytes where the CPU can address them (host memory, or a simulated device's
    /// host-side bytes); None for memory only its device reaches.
    fn host(&self) -> Option<&RwLock<Vec<u8>>>;

    /// A host copy of every byte (downloaded from a device the CPU cannot address).
    fn to_host(&self) -> Result<Vec<u8>> {
        match self.host() {
            Some(b) => Ok(b.read().clone()),
            None => Err(TensorError::new(
                ErrorKind::Device,
                format!("the bytes on {} have no host copy", self.device()),
            )),
        }
    }

    /// The memory as `Any`, for a backend to recover its own type.
    fn as_any(&self) -> &dyn Any;
}

/// Bytes in host memory.
pub struct HostMemory(RwLock<Vec<u8>>);

impl HostMemory {
    pub fn new(bytes: Vec<u8>) -> HostMemory {
        HostMemory(RwLock::new(bytes))
    }
}

impl DeviceMemory for HostMemory {
    fn device(&self) -> Device {
        Device::Cpu
    }

    fn nbytes(&self) -> usize {
        self.0.read().len()
    }

    fn ptr(&self) -> u64 {
        self.0.read().as_ptr() as u64
    }

    fn host(&self) -> Option<&RwLock<Vec<u8>>> {
        Some(&self.0)
    }

    fn as_any(&self) -> &dyn Any {
        self
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
    nbytes: usize,
    version: AtomicU64,
    memory: Box<dyn DeviceMemory>,
    /// The tensors over this storage that views were made from (their `_base`), recorded
    /// when their first view is made; one is kept inline, so that view allocates nothing.
    roots: parking_lot::Mutex<smallvec::SmallVec<[Root; 1]>>,
}

/// A tensor object a view names as its `_base`: its identity and its layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub id: u64,
    pub layout: crate::layout::Layout,
    pub dtype: crate::dtype::DType,
}

impl Storage {
    /// A zero-filled host storage of `nbytes` bytes, or PyTorch's CPU allocator error when
    /// the memory cannot be had (a fallible allocation: never an abort). The pages come
    /// from `alloc_zeroed` (calloc), so a large storage costs nothing until it is touched.
    pub fn zeroed(nbytes: usize) -> Result<Storage, HostOutOfMemory> {
        Ok(Storage::from_bytes(zeroed_bytes(nbytes)?))
    }

    /// A host storage holding `bytes`.
    pub fn from_bytes(bytes: Vec<u8>) -> Storage {
        Storage::from_memory(Box::new(HostMemory::new(bytes)))
    }

    /// A storage over `memory`, on whatever device that memory lives.
    /// (Crate-only: every memory made here is host-addressable or a GPU's `DeviceBuffer`,
    /// which [`crate::backend::cuda`] relies on.)
    pub(crate) fn from_memory(memory: Box<dyn DeviceMemory>) -> Storage {
        Storage {
            inner: Arc::new(Inner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                device: memory.device(),
                nbytes: memory.nbytes(),
                version: AtomicU64::new(0),
                memory,
                roots: parking_lot::Mutex::new(smallvec::SmallVec::new()),
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
        self.inner.nbytes
    }

    /// How many handles share this storage (the tensors and views over it, and anything else
    /// holding a clone): PyTorch's `storage().use_count()`.
    pub fn handle_count(&self) -> usize {
        Arc::strong_count(&self.inner)
    }

    pub fn is_same(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Records `root` as a tensor views of this storage were made from (once per id).
    pub fn register_root(&self, root: Root) {
        let mut roots = self.inner.roots.lock();
        if !roots.iter().any(|r| r.id == root.id) {
            roots.push(root);
        }
    }

    /// The root tensor with this id, if one was registered.
    pub fn root(&self, id: u64) -> Option<Root> {
        self.inner.roots.lock().iter().find(|r| r.id == id).cloned()
    }

    /// The shared version counter's value.
    pub fn version(&self) -> u64 {
        self.inner.version.load(Ordering::Acquire)
    }

    /// Records one in-place write (PyTorch's `bump_version`).
    pub fn bump_version(&self) {
        self.inner.version.fetch_add(1, Ordering::AcqRel);
    }

    /// The address of the first byte (a host pointer, a device pointer, or a simulated
    /// device's address), 0 for an empty storage, as `untyped_storage().data_ptr()`: stable
    /// while the storage lives.
    pub fn data_ptr(&self) -> u64 {
        if self.nbytes() == 0 {
            return 0;
        }
        self.inner.memory.ptr()
    }

    /// The memory the bytes are in.
    pub fn memory(&self) -> &dyn DeviceMemory {
        self.inner.memory.as_ref()
    }

    /// The host bytes, for reading; None for memory the CPU cannot address.
    pub fn read(&self) -> Option<RwLockReadGuard<'_, Vec<u8>>> {
        self.inner.memory.host().map(|b| b.read())
    }

    /// The host bytes, for writing; None for memory the CPU cannot address.
    pub fn write(&self) -> Option<RwLockWriteGuard<'_, Vec<u8>>> {
        self.inner.memory.host().map(|b| b.write())
    }

    /// A host copy of every byte (downloaded from a GPU).
    pub fn to_host(&self) -> Result<Vec<u8>> {
        self.inner.memory.to_host()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_storage_is_fallible() {
        let s = Storage::zeroed(16).unwrap();
        assert_eq!(s.to_host().unwrap(), vec![0; 16]);
        assert_eq!(Storage::zeroed(0).unwrap().nbytes(), 0);
        // More than the address space can hold: refused with PyTorch's message.
        let e = Storage::zeroed(usize::MAX / 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("DefaultCPUAllocator: can't allocate memory")
        );
    }
}
