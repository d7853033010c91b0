//! The [`Tensor`] object: shared storage + layout + dtype + identity, its metadata, and the
//! view operations (which delegate to the pure rules of [`crate::layout`]).

use crate::dtype::DType;
use crate::error::Result;
use crate::layout::{self, Layout, MemoryFormat, index::IndexItem, view};
use crate::storage::Storage;

/// A dense strided tensor. Cloning a `Tensor` makes another handle to the same tensor (same
/// storage, same layout, same [`Tensor::id`]); views share the storage and its version
/// counter, and remember the tensor they were made from ([`Tensor::base`]).
#[derive(Clone, Debug)]
pub struct Tensor {
    // The fields are the tensor module's (its files build and take apart tensors).
    pub(super) storage: Storage,
    pub(super) layout: Layout,
    pub(super) dtype: DType,
    /// Object identity (Python's `is`): every op that returns a new tensor object gets a new id.
    pub(super) id: u64,
    /// PyTorch's `_base`: the id of the root tensor a view was made from (never itself a
    /// view); its layout is recorded in the storage ([`Storage::register_root`]).
    pub(super) base: Option<u64>,
}

static NEXT_TENSOR_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(super) fn next_tensor_id() -> u64 {
    NEXT_TENSOR_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Tensor {
    /// A new tensor object over `storage` that is not a view.
    pub(crate) fn fresh(storage: Storage, layout: Layout, dtype: DType) -> Tensor {
        Tensor {
            storage,
            layout,
            dtype,
            id: next_tensor_id(),
            base: None,
        }
    }

    /// Identity of the tensor object: equal for handles of one tensor (Python's `is`),
    /// different for every view, copy or result.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// PyTorch's `x._base`: the root tensor when this tensor is a view, else None (the same
    /// object each time: equal [`Tensor::id`]).
    pub fn base(&self) -> Option<Tensor> {
        let r = self.storage.root(self.base?)?;
        Some(Tensor {
            storage: self.storage.clone(),
            layout: r.layout,
            dtype: r.dtype,
            id: r.id,
            base: None,
        })
    }

    /// A tensor over an existing storage. The layout must fit inside it.
    pub fn from_storage(storage: Storage, layout: Layout, dtype: DType) -> Result<Tensor> {
        let l = view::as_strided(
            layout.sizes(),
            layout.strides(),
            layout.offset(),
            dtype.itemsize(),
            storage.nbytes(),
        )?;
        Ok(Tensor::fresh(storage, l, dtype))
    }

    /// A view of this tensor: a new object on the same storage whose `_base` is the root.
    pub(super) fn with_layout(&self, layout: Layout) -> Tensor {
        let root = match self.base {
            Some(id) => id,
            None => {
                self.storage.register_root(crate::storage::Root {
                    id: self.id,
                    layout: self.layout.clone(),
                    dtype: self.dtype,
                });
                self.id
            }
        };
        Tensor {
            base: Some(root),
            ..self.alias(layout)
        }
    }

    /// A new tensor object on the same storage that is not a view (`detach`, a reshaped copy).
    pub(super) fn alias(&self, layout: Layout) -> Tensor {
        Tensor::fresh(self.storage.clone(), layout, self.dtype)
    }

    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn sizes(&self) -> &[i64] {
        self.layout.sizes()
    }

    pub fn strides(&self) -> &[i64] {
        self.layout.strides()
    }

    pub fn storage_offset(&self) -> i64 {
        self.layout.offset()
    }

    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    pub fn numel(&self) -> i64 {
        self.layout.numel()
    }

    pub fn itemsize(&self) -> usize {
        self.dtype.itemsize()
    }

    /// numel x itemsize: the bytes this tensor describes, shared or not.
    pub fn logical_bytes(&self) -> u64 {
        self.numel() as u64 * self.itemsize() as u64
    }

    /// The version counter shared with every view of the same storage.
    pub fn version(&self) -> u64 {
        self.storage.version()
    }

    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    pub fn is_contiguous_as(&self, format: MemoryFormat) -> bool {
        self.layout.is_contiguous_as(format)
    }

    /// Channels-last contiguity for the tensor's rank: `channels_last` for 4-d,
    /// `channels_last_3d` for 5-d, false otherwise.
    pub fn is_channels_last(&self) -> bool {
        match self.ndim() {
            4 => self.is_contiguous_as(MemoryFormat::ChannelsLast),
            5 => self.is_contiguous_as(MemoryFormat::ChannelsLast3d),
            _ => false,
        }
    }

    /// Whether two tensors share a storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        self.storage.is_same(&other.storage)
    }

    // ---- views: metadata only, same storage ----

    pub fn view(&self, shape: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(view::view(&self.layout, shape)?))
    }

    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(view::permute(&self.layout, dims)?))
    }

    pub fn transpose(&self, dim0: i64, dim1: i64) -> Result<Tensor> {
        Ok(self.with_layout(view::transpose(&self.layout, dim0, dim1)?))
    }

    pub fn t(&self) -> Result<Tensor> {
        Ok(self.with_layout(view::t(&self.layout)?))
    }

    /// `x.T`.
    pub fn numpy_t(&self) -> Tensor {
        self.with_layout(view::numpy_t(&self.layout))
    }

    /// `x.mT`; a 0-d tensor is returned as it is (PyTorch warns and does the same).
    pub fn mt(&self) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Ok(self.with_layout(self.layout.clone()));
        }
        Ok(self.with_layout(view::mt(&self.layout)?))
    }

    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        let mut l = view::expand(&self.layout, sizes, self.dtype.scalar_type_name())?;
        if self.ndim() == 0 {
            // A 0-d source expands with stride 0 everywhere, even for size-1 targets.
            let zeros = vec![0; l.ndim()];
            l = Layout::new(l.sizes(), &zeros, l.offset())?;
        }
        Ok(self.with_layout(l))
    }

    pub fn expand_as(&self, other: &Tensor) -> Result<Tensor> {
        self.expand(other.sizes())
    }

    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        Ok(self.with_layout(view::narrow(&self.layout, dim, start, length)?))
    }

    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        Ok(self.with_layout(view::select(&self.layout, dim, index)?))
    }

    /// Python basic indexing: `x[items]`.
    pub fn index(&self, items: &[IndexItem]) -> Result<Tensor> {
        Ok(self.with_layout(layout::index::apply(&self.layout, items)?))
    }

    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        Ok(self.with_layout(view::unsqueeze(&self.layout, dim)?))
    }

    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Tensor> {
        Ok(self.with_layout(view::squeeze(&self.layout, dims)?))
    }

    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        Ok(self.with_layout(view::diagonal(&self.layout, offset, dim1, dim2)?))
    }

    pub fn unfold(&self, dim: i64, size: i64, step: i64) -> Result<Tensor> {
        Ok(self.with_layout(view::unfold(&self.layout, dim, size, step)?))
    }

    /// `x.as_strided(size, stride, storage_offset)`; `None` keeps the current offset.
    pub fn as_strided(
        &self,
        sizes: &[i64],
        strides: &[i64],
        offset: Option<i64>,
    ) -> Result<Tensor> {
        let l = view::as_strided(
            sizes,
            strides,
            offset.unwrap_or(self.storage_offset()),
            self.itemsize(),
            self.storage.nbytes(),
        )?;
        Ok(self.with_layout(l))
    }

    pub fn movedim(&self, source: &[i64], destination: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(view::movedim(&self.layout, source, destination)?))
    }

    /// Same storage, same layout, same version counter; no autograd history to cut here.
    pub fn detach(&self) -> Tensor {
        self.alias(self.layout.clone())
    }

    // ---- view or copy ----

    /// A view when the strides allow it, else a contiguous copy.
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        match view::reshape_view(&self.layout, shape)? {
            Ok(l) => Ok(self.with_layout(l)),
            Err(sizes) => {
                let copy = self.clone_as(MemoryFormat::Contiguous)?;
                Ok(copy.alias(Layout::contiguous(&sizes)))
            }
        }
    }

    /// `x.flatten(start_dim, end_dim)`: the tensor itself, a view, or a copy, as PyTorch.
    pub fn flatten(&self, start_dim: i64, end_dim: i64) -> Result<Tensor> {
        match view::flatten(&self.layout, start_dim, end_dim)? {
            view::Flatten::Same => Ok(self.clone()),
            view::Flatten::Reshape(shape) => self.reshape(&shape),
        }
    }

    /// `x.contiguous(memory_format)`: the very same tensor when already satisfied, else a copy.
    pub fn contiguous(&self, format: MemoryFormat) -> Result<Tensor> {
        if self.is_contiguous_as(format) {
            return Ok(self.clone());
        }
        if format == MemoryFormat::Preserve {
            return Err(crate::error::TensorError::new(
                crate::error::ErrorKind::Other,
                "preserve memory format is unsupported by the contiguous operator",
            ));
        }
        self.clone_as(format)
    }

    /// `x.clone(memory_format=...)`: always a new storage.
    pub fn clone_as(&self, format: MemoryFormat) -> Result<Tensor> {
        self.copy_to_new(self.dtype, format, self.device())
    }

    /// `x.to(dtype=..., memory_format=..., copy=...)`: the same tensor when nothing changes
    /// (PyTorch's `to_will_alias`), else a converting copy.
    pub fn to(
        &self,
        dtype: Option<DType>,
        format: Option<MemoryFormat>,
        copy: bool,
    ) -> Result<Tensor> {
        let dtype = dtype.unwrap_or(self.dtype);
        let format = format.unwrap_or(MemoryFormat::Preserve);
        let suggested = layout::contiguity::suggest_memory_format(self.sizes(), self.strides());
        if dtype == self.dtype && !copy && (format == MemoryFormat::Preserve || suggested == format)
        {
            return Ok(self.clone());
        }
        self.copy_to_new(dtype, format, self.device())
    }

    /// `x.to(device, dtype=..., memory_format=..., copy=...)`: [`Tensor::to`] when `device`
    /// is the tensor's own, else one converting copy onto `device` (PyTorch's `_to_copy`:
    /// nothing is allocated on the source's device).
    pub fn to_on(
        &self,
        device: crate::storage::Device,
        dtype: Option<DType>,
        format: Option<MemoryFormat>,
        copy: bool,
    ) -> Result<Tensor> {
        if device == self.device() {
            return self.to(dtype, format, copy);
        }
        self.copy_to_new(
            dtype.unwrap_or(self.dtype),
            format.unwrap_or(MemoryFormat::Preserve),
            device,
        )
    }

    /// A new tensor of `dtype` on `device` with the strides a copy in `format` gets,
    /// holding this tensor's values.
    pub(super) fn copy_to_new(
        &self,
        dtype: DType,
        format: MemoryFormat,
        device: crate::storage::Device,
    ) -> Result<Tensor> {
        let strides = layout::contiguity::strides_for_copy(self.sizes(), self.strides(), format)?;
        let out_layout = Layout::new(self.sizes(), &strides, 0)?;
        let out = Tensor::zeroed_on(out_layout, dtype, device)?;
        out.copy_values_from(self)?;
        Ok(out)
    }
}
