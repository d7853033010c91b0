//! DLPack 1.x, declared by stridekit to the DLPack ABI (the layout of `dlpack.h` 1.0/1.1:
//! field order, widths and the enum values below). cbindgen copies these declarations into
//! `include/stridekit.h`, so a C caller needs no other header; do not include `dlpack.h`
//! in the same translation unit (the definitions would clash, though they are identical
//! in layout).
//!
//! Device and type codes are plain integers (`DLDeviceType`, `DLDataTypeCode`): a value
//! that stridekit does not know, coming from C, is an error to report, not undefined
//! behaviour as an unknown Rust enum discriminant would be.

use std::ffi::c_void;

/// The DLPack ABI version stridekit implements (`DLPACK_MAJOR_VERSION`).
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// The DLPack minor version of the structs declared here (`DLPACK_MINOR_VERSION`).
pub const DLPACK_MINOR_VERSION: u32 = 0;

/// `DLDeviceType`: where a tensor's memory lives.
pub type DLDeviceType = i32;
/// Host memory.
#[allow(non_upper_case_globals)]
pub const kDLCPU: DLDeviceType = 1;
/// CUDA device memory.
#[allow(non_upper_case_globals)]
pub const kDLCUDA: DLDeviceType = 2;
/// Pinned host memory allocated by CUDA (host-accessible).
#[allow(non_upper_case_globals)]
pub const kDLCUDAHost: DLDeviceType = 3;
/// CUDA managed memory (accessible from host and device).
#[allow(non_upper_case_globals)]
pub const kDLCUDAManaged: DLDeviceType = 13;

/// `DLDataTypeCode`: the kind of an element type.
pub type DLDataTypeCode = u8;
/// Signed integer.
#[allow(non_upper_case_globals)]
pub const kDLInt: DLDataTypeCode = 0;
/// Unsigned integer.
#[allow(non_upper_case_globals)]
pub const kDLUInt: DLDataTypeCode = 1;
/// IEEE floating point.
#[allow(non_upper_case_globals)]
pub const kDLFloat: DLDataTypeCode = 2;
/// bfloat16.
#[allow(non_upper_case_globals)]
pub const kDLBfloat: DLDataTypeCode = 4;
/// Boolean (one byte per element).
#[allow(non_upper_case_globals)]
pub const kDLBool: DLDataTypeCode = 6;

/// Bit 0 of `DLManagedTensorVersioned::flags`: the tensor must not be written.
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1;
/// Bit 1 of `DLManagedTensorVersioned::flags`: the producer made a copy.
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// `DLDevice`: a device type and its ordinal.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDevice {
    pub device_type: DLDeviceType,
    pub device_id: i32,
}

/// `DLDataType`: element type code, bits per lane, lanes (1 for scalars).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDataType {
    pub code: DLDataTypeCode,
    pub bits: u8,
    pub lanes: u16,
}

/// `DLTensor`: a strided view of memory. `shape` and `strides` hold `ndim` entries;
/// strides are in elements, NULL meaning compact row-major; the first element is at
/// `data + byte_offset`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub byte_offset: u64,
}

/// `DLManagedTensor` (the pre-1.0 capsule content, `"dltensor"`).
#[repr(C)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned` (DLPack 1.x, `"dltensor_versioned"`).
#[repr(C)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The offsets and sizes `dlpack.h` gives these structs on a 64-bit platform.
    #[test]
    fn layout_matches_the_dlpack_abi() {
        assert_eq!(size_of::<DLDevice>(), 8);
        assert_eq!(size_of::<DLDataType>(), 4);
        assert_eq!(offset_of!(DLTensor, device), 8);
        assert_eq!(offset_of!(DLTensor, ndim), 16);
        assert_eq!(offset_of!(DLTensor, dtype), 20);
        assert_eq!(offset_of!(DLTensor, shape), 24);
        assert_eq!(offset_of!(DLTensor, strides), 32);
        assert_eq!(offset_of!(DLTensor, byte_offset), 40);
        assert_eq!(size_of::<DLTensor>(), 48);
        assert_eq!(offset_of!(DLManagedTensor, manager_ctx), 48);
        assert_eq!(size_of::<DLManagedTensor>(), 64);
        assert_eq!(offset_of!(DLManagedTensorVersioned, manager_ctx), 8);
        assert_eq!(offset_of!(DLManagedTensorVersioned, flags), 24);
        assert_eq!(offset_of!(DLManagedTensorVersioned, dl_tensor), 32);
        assert_eq!(size_of::<DLManagedTensorVersioned>(), 80);
    }
}
