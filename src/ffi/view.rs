//! A DLTensor as stridekit sees it: a device, a dtype and a [`Layout`] at offset 0 from
//! the tensor's first element (`data + byte_offset`), plus the bytes that layout spans.
//! Pure metadata: reading a `DLTensor` copies its shape and strides, never its data.

use crate::dtype::DType;
use crate::layout::{Layout, view};
use crate::storage::Device;

use super::dlpack::{
    DLDataType, DLDevice, DLTensor, kDLBfloat, kDLBool, kDLCPU, kDLCUDA, kDLCUDAHost,
    kDLCUDAManaged, kDLFloat, kDLInt, kDLUInt,
};
use super::error::{FfiError, FfiResult};

/// Most dimensions a DLTensor may have here (a sanity bound on `ndim` from C).
pub const STRIDEKIT_MAX_NDIM: i32 = 64;

/// The metadata of one side of a copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawView {
    pub device: Device,
    pub dtype: DType,
    /// Sizes and strides in elements, offset 0 (the first element).
    pub layout: Layout,
    /// `byte_offset` of the DLTensor: the first element is at `data + byte_offset`.
    pub byte_offset: u64,
    /// Bytes from the first element to the end of the last one the layout addresses.
    pub extent: usize,
}

/// The stridekit dtype of a DLPack element type (scalars only: `lanes` must be 1).
pub fn dtype_from_dlpack(t: DLDataType) -> FfiResult<DType> {
    if t.lanes != 1 {
        return Err(FfiError::invalid(format!(
            "DLTensor dtype has {} lanes: stridekit copies scalar elements only (lanes = 1)",
            t.lanes
        )));
    }
    Ok(match (t.code, t.bits) {
        (c, 8) if c == kDLBool => DType::Bool,
        (c, 8) if c == kDLUInt => DType::U8,
        (c, 8) if c == kDLInt => DType::I8,
        (c, 16) if c == kDLInt => DType::I16,
        (c, 32) if c == kDLInt => DType::I32,
        (c, 64) if c == kDLInt => DType::I64,
        (c, 16) if c == kDLFloat => DType::F16,
        (c, 16) if c == kDLBfloat => DType::BF16,
        (c, 32) if c == kDLFloat => DType::F32,
        (c, 64) if c == kDLFloat => DType::F64,
        (code, bits) => {
            return Err(FfiError::invalid(format!(
                "DLTensor dtype (code {code}, {bits} bits) is not one stridekit supports \
                 (bool, uint8, int8/16/32/64, float16, bfloat16, float32, float64)"
            )));
        }
    })
}

/// The DLPack element type of a stridekit dtype.
pub fn dtype_to_dlpack(d: DType) -> DLDataType {
    let code = match d {
        DType::Bool => kDLBool,
        DType::U8 => kDLUInt,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => kDLInt,
        DType::BF16 => kDLBfloat,
        DType::F16 | DType::F32 | DType::F64 => kDLFloat,
    };
    DLDataType {
        code,
        bits: (d.itemsize() * 8) as u8,
        lanes: 1,
    }
}

/// Where a DLPack device's memory is reached from: host memory (CPU, CUDA pinned host) or
/// a CUDA device (device and managed memory).
pub fn device_from_dlpack(d: DLDevice) -> FfiResult<Device> {
    match d.device_type {
        t if t == kDLCPU || t == kDLCUDAHost => Ok(Device::Cpu),
        t if t == kDLCUDA || t == kDLCUDAManaged => {
            if d.device_id < 0 {
                return Err(FfiError::invalid(format!(
                    "DLTensor device_id {} is negative",
                    d.device_id
                )));
            }
            Ok(Device::Cuda(d.device_id as usize))
        }
        other => Err(FfiError::invalid(format!(
            "DLTensor device type {other} is not supported (kDLCPU = 1, kDLCUDA = 2, \
             kDLCUDAHost = 3, kDLCUDAManaged = 13)"
        ))),
    }
}

/// The DLPack device of a stridekit device.
pub fn device_to_dlpack(d: Device) -> DLDevice {
    match d {
        Device::Cpu => DLDevice {
            device_type: kDLCPU,
            device_id: 0,
        },
        Device::Cuda(n) => DLDevice {
            device_type: kDLCUDA,
            device_id: n as i32,
        },
    }
}

impl RawView {
    /// The metadata of `t` (its `data` pointer is not read). `what` names the argument in
    /// messages ("dst", "src").
    ///
    /// # Safety
    /// `t.shape` must point to `t.ndim` values, and `t.strides` to `t.ndim` values or be NULL.
    pub unsafe fn from_dlpack(t: &DLTensor, what: &str) -> FfiResult<RawView> {
        if !(0..=STRIDEKIT_MAX_NDIM).contains(&t.ndim) {
            return Err(FfiError::invalid(format!(
                "{what}: ndim {} is outside 0..={STRIDEKIT_MAX_NDIM}",
                t.ndim
            )));
        }
        let n = t.ndim as usize;
        if n > 0 && t.shape.is_null() {
            return Err(FfiError::invalid(format!(
                "{what}: shape is NULL with ndim {n}"
            )));
        }
        // SAFETY: the caller's contract: shape (and strides when not NULL) hold ndim values.
        let sizes: &[i64] = if n == 0 {
            &[]
        } else {
            unsafe { std::slice::from_raw_parts(t.shape, n) }
        };
        if let Some(k) = sizes.iter().position(|&s| s < 0) {
            return Err(FfiError::invalid(format!(
                "{what}: shape[{k}] = {} is negative",
                sizes[k]
            )));
        }
        // The product of the non-zero sizes bounds every partial product of sizes (in any
        // order) and every row-major stride, an empty tensor's included.
        if sizes
            .iter()
            .filter(|&&s| s != 0)
            .try_fold(1i64, |acc, &s| acc.checked_mul(s))
            .is_none()
        {
            return Err(FfiError::invalid(format!(
                "{what}: shape {sizes:?} has more elements than an int64 counts \
                 (the product of its non-zero sizes overflows)"
            )));
        }
        let layout = if t.strides.is_null() || n == 0 {
            Layout::contiguous(sizes)
        } else {
            // SAFETY: as above.
            let strides = unsafe { std::slice::from_raw_parts(t.strides, n) };
            if let Some(k) = strides.iter().position(|&s| s < 0) {
                return Err(FfiError::invalid(format!(
                    "{what}: strides[{k}] = {} is negative: stridekit, like PyTorch, supports \
                     non-negative strides only",
                    strides[k]
                )));
            }
            Layout::new(sizes, strides, 0)?
        };
        let dtype = dtype_from_dlpack(t.dtype).map_err(|e| FfiError {
            message: format!("{what}: {}", e.message),
            ..e
        })?;
        let device = device_from_dlpack(t.device).map_err(|e| FfiError {
            message: format!("{what}: {}", e.message),
            ..e
        })?;
        let extent = span_bytes(&layout, dtype.itemsize()).ok_or_else(|| {
            FfiError::invalid(format!(
                "{what}: shape {:?} with strides {:?} spans more bytes than an address holds",
                layout.sizes(),
                layout.strides()
            ))
        })?;
        Ok(RawView {
            device,
            dtype,
            layout,
            byte_offset: t.byte_offset,
            extent,
        })
    }

    /// The address of the first element for a tensor whose `data` is `data`: checked, so
    /// that neither `data + byte_offset` nor the end of the extent wraps around the address
    /// space, and NULL data with a non-zero `byte_offset` is refused (not an address).
    pub fn base(&self, data: *const std::ffi::c_void, what: &str) -> FfiResult<u64> {
        let data = data as u64;
        if data == 0 && self.byte_offset != 0 {
            return Err(FfiError::invalid(format!(
                "{what}: data is NULL with byte_offset {}",
                self.byte_offset
            )));
        }
        let base = data.checked_add(self.byte_offset).ok_or_else(|| {
            FfiError::invalid(format!(
                "{what}: data {data:#x} + byte_offset {} overflows the address space",
                self.byte_offset
            ))
        })?;
        base.checked_add(self.extent as u64)
            .filter(|end| *end <= isize::MAX as u64 || self.device != Device::Cpu)
            .ok_or_else(|| {
                FfiError::invalid(format!(
                    "{what}: data + byte_offset = {base:#x} with an extent of {} bytes runs \
                     past the end of the address space",
                    self.extent
                ))
            })?;
        Ok(base)
    }
}

/// The bytes a layout at offset 0 spans (0 for an empty one), or None when that does not
/// fit an int64 (checked arithmetic: the same answer in debug and release).
pub fn span_bytes(layout: &Layout, itemsize: usize) -> Option<usize> {
    if layout.sizes().contains(&0) {
        return Some(0);
    }
    let mut span: i64 = 1;
    for (&n, &s) in layout.sizes().iter().zip(layout.strides()) {
        span = span.checked_add((n - 1).checked_mul(s)?)?;
    }
    let bytes = span.checked_mul(itemsize as i64)?;
    debug_assert_eq!(bytes, view::required_storage_bytes(layout, itemsize));
    usize::try_from(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    fn dl(shape: &mut [i64], strides: Option<&mut [i64]>, dtype: DType) -> DLTensor {
        DLTensor {
            data: null_mut(),
            device: device_to_dlpack(Device::Cpu),
            ndim: shape.len() as i32,
            dtype: dtype_to_dlpack(dtype),
            shape: shape.as_mut_ptr(),
            strides: strides.map_or(null_mut(), |s| s.as_mut_ptr()),
            byte_offset: 8,
        }
    }

    #[test]
    fn every_dtype_round_trips_through_dlpack() {
        for d in DType::ALL {
            assert_eq!(dtype_from_dlpack(dtype_to_dlpack(d)).unwrap(), d);
        }
        let e = dtype_from_dlpack(DLDataType {
            code: kDLFloat,
            bits: 32,
            lanes: 4,
        })
        .unwrap_err();
        assert!(e.message.contains("4 lanes"), "{e}");
    }

    #[test]
    fn null_strides_mean_row_major_and_the_extent_is_exact() {
        let mut shape = [3, 4];
        let v = unsafe { RawView::from_dlpack(&dl(&mut shape, None, DType::F32), "x") }.unwrap();
        assert_eq!(v.layout, Layout::contiguous(&[3, 4]));
        assert_eq!(v.extent, 48);
        assert_eq!(v.base(16 as *const _, "x").unwrap(), 24);
        // A transposed view of a (4, 3) tensor: strides (1, 3).
        let mut strides = [1, 3];
        let v =
            unsafe { RawView::from_dlpack(&dl(&mut shape, Some(&mut strides), DType::F16), "x") }
                .unwrap();
        assert_eq!(v.extent, 24);
        // Broadcast (stride 0) and empty tensors.
        let mut strides = [0, 1];
        let v =
            unsafe { RawView::from_dlpack(&dl(&mut shape, Some(&mut strides), DType::I8), "x") }
                .unwrap();
        assert_eq!(v.extent, 4);
        let mut empty = [0, 5];
        let v = unsafe { RawView::from_dlpack(&dl(&mut empty, None, DType::F64), "x") }.unwrap();
        assert_eq!(v.extent, 0);
    }

    #[test]
    fn malformed_tensors_are_refused_with_the_argument_named() {
        let mut shape = [3, -1];
        let e =
            unsafe { RawView::from_dlpack(&dl(&mut shape, None, DType::F32), "src") }.unwrap_err();
        assert_eq!(e.message, "src: shape[1] = -1 is negative");
        let mut shape = [3, 4];
        let mut strides = [4, -1];
        let e =
            unsafe { RawView::from_dlpack(&dl(&mut shape, Some(&mut strides), DType::F32), "dst") }
                .unwrap_err();
        assert!(
            e.message.starts_with("dst: strides[1] = -1 is negative"),
            "{e}"
        );
        let mut t = dl(&mut shape, None, DType::F32);
        t.device.device_type = 7;
        let e = unsafe { RawView::from_dlpack(&t, "dst") }.unwrap_err();
        assert!(e.message.starts_with("dst: DLTensor device type 7"), "{e}");
        let mut t = dl(&mut shape, None, DType::F32);
        t.shape = null_mut();
        let e = unsafe { RawView::from_dlpack(&t, "dst") }.unwrap_err();
        assert_eq!(e.message, "dst: shape is NULL with ndim 2");
        let mut huge = [i64::MAX / 2, 3];
        let e = unsafe { RawView::from_dlpack(&dl(&mut huge, None, DType::F64), "x") }.unwrap_err();
        assert!(e.message.contains("more elements than an int64"), "{e}");
        let mut shape = [1 << 40, 2];
        let mut strides = [1 << 40, 1];
        let e =
            unsafe { RawView::from_dlpack(&dl(&mut shape, Some(&mut strides), DType::F64), "x") }
                .unwrap_err();
        assert!(e.message.contains("spans more bytes"), "{e}");
    }
}
