//! PyTorch's pluggable allocator (`torch.cuda.memory.CUDAPluggableAllocator(path,
//! "stridekit_torch_malloc", "stridekit_torch_free")`): one stridekit caching allocator per
//! CUDA device, created on the device's first allocation with the settings of
//! STRIDEKIT_ALLOC_CONF (else PYTORCH_CUDA_ALLOC_CONF, else the defaults).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::allocator::{AllocDevice, Allocator};
use super::error::{FfiError, FfiResult};

static POOLS: OnceLock<Mutex<HashMap<i32, Arc<Allocator>>>> = OnceLock::new();

/// The allocator of CUDA device `device`, made on first use.
pub fn pool(device: i32) -> FfiResult<Arc<Allocator>> {
    if device < 0 {
        return Err(FfiError::invalid(format!("device {device} is negative")));
    }
    let mut map = POOLS.get_or_init(Default::default).lock();
    if let Some(a) = map.get(&device) {
        return Ok(a.clone());
    }
    let a = Arc::new(Allocator::new(AllocDevice::Cuda(device), None)?);
    map.insert(device, a.clone());
    Ok(a)
}

/// The allocator of `device` if one was made (statistics need no GPU call).
pub fn existing_pool(device: i32) -> Option<Arc<Allocator>> {
    POOLS.get()?.lock().get(&device).cloned()
}
