//! Advanced indexing: `x[[0, 2]]`, `x[idx]`, `x[mask]`, `x[:, [0, 2]]`, `x[[0, 1], [1, 2]]`
//! read (a new storage) and written (`x[mask] = v`, `index_put_` without accumulate), with
//! PyTorch's result shape (the broadcast index shape replaces the indexed dimensions where
//! they are adjacent, else goes first) and its result strides (TensorIterator over the
//! restrided source and the index tensors, as ATen's `index` builds it).

use super::Tensor;
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError, err};
use crate::layout::broadcast::{Operand, broadcast_shapes, broadcast_strides, output_strides};
use crate::layout::index::IndexItem;
use crate::layout::{Dims, Layout, fmt_dims};
use crate::scalar::Scalar;
use crate::storage::Device;

/// One entry of an index tuple: basic, or a tensor of indices or a mask.
#[derive(Debug, Clone)]
pub enum AdvancedItem {
    Basic(IndexItem),
    Tensor(Tensor),
}

/// A source view and, for each of its dimensions, the int64 index values (already broadcast
/// to the index shape) when that dimension is indexed.
struct Plan {
    view: Tensor,
    /// Indexed dimensions of `view`, in order, with their broadcast index values.
    indexed: Vec<(usize, Vec<i64>)>,
    /// The broadcast shape of the index tensors.
    index_shape: Dims,
    /// The index tensors' layouts over `index_shape` (for the result's strides).
    index_layouts: Vec<Layout>,
    /// Where the index dimensions go in the result.
    before: usize,
    /// The first index value out of range, when one is: `indexed` is then incomplete. A CUDA
    /// read checks the values on the device after its output exists; everything else refuses
    /// the index first.
    out_of_range: Option<TensorError>,
}

fn index_values(t: &Tensor) -> Result<Vec<i64>> {
    Ok(t.to_device(Device::Cpu)?
        .values()?
        .iter()
        .map(|v| v.to_int())
        .collect())
}

impl Tensor {
    /// Whether an index tuple needs advanced indexing.
    pub fn is_advanced(items: &[AdvancedItem]) -> bool {
        items.iter().any(|i| matches!(i, AdvancedItem::Tensor(_)))
    }

    fn advanced_plan(&self, items: &[AdvancedItem]) -> Result<Plan> {
        // Basic indexing with every tensor index replaced by full slices (a k-d mask covers k
        // dimensions), remembering where each tensor index lands.
        let full = IndexItem::Slice {
            start: None,
            stop: None,
            step: None,
        };
        let specified: usize = items
            .iter()
            .map(|i| match i {
                AdvancedItem::Basic(IndexItem::Int(_) | IndexItem::Slice { .. }) => 1,
                AdvancedItem::Basic(_) => 0,
                AdvancedItem::Tensor(t) if matches!(t.dtype(), DType::Bool | DType::U8) => {
                    t.ndim().max(1)
                }
                AdvancedItem::Tensor(_) => 1,
            })
            .sum();
        let mut basic = Vec::new();
        let mut tensors: Vec<(usize, Tensor)> = Vec::new();
        let mut out_dim = 0;
        for item in items {
            match item {
                AdvancedItem::Basic(b) => {
                    match b {
                        IndexItem::Int(_) => {}
                        IndexItem::Slice { .. } | IndexItem::NewAxis => out_dim += 1,
                        IndexItem::Ellipsis => out_dim += self.ndim().saturating_sub(specified),
                    }
                    basic.push(*b);
                }
                AdvancedItem::Tensor(t) => {
                    if !matches!(t.dtype(), DType::I64 | DType::I32 | DType::Bool | DType::U8) {
                        return err(
                            ErrorKind::IndexOutOfRange,
                            "tensors used as indices must be long, int, byte or bool tensors",
                        );
                    }
                    if t.ndim() == 0 && matches!(t.dtype(), DType::Bool | DType::U8) {
                        // A 0-d mask is a new axis indexed by [0] (true) or [] (false).
                        let keep: Vec<Scalar> = if t.values()?[0].to_bool() {
                            vec![Scalar::Int(0)]
                        } else {
                            Vec::new()
                        };
                        let n = keep.len() as i64;
                        tensors
                            .push((out_dim, Tensor::from_values(&[n], &keep, Some(DType::I64))?));
                        basic.push(IndexItem::NewAxis);
                        out_dim += 1;
                        continue;
                    }
                    let dims = if matches!(t.dtype(), DType::Bool | DType::U8) {
                        t.ndim()
                    } else {
                        1
                    };
                    tensors.push((out_dim, t.clone()));
                    basic.extend(std::iter::repeat_n(full, dims));
                    out_dim += dims;
                }
            }
        }
        let view = self.index(&basic)?;
        // Masks become one long index per dimension (their nonzero positions).
        let mut longs: Vec<(usize, Tensor)> = Vec::new();
        for (dim, t) in tensors {
            if matches!(t.dtype(), DType::Bool | DType::U8) {
                for k in 0..t.ndim() {
                    let (want, got) = (view.sizes()[dim + k], t.sizes()[k]);
                    if want != got {
                        return err(
                            ErrorKind::IndexOutOfRange,
                            format!(
                                "The shape of the mask {} at index {k} does not match the shape of the indexed tensor {} at index {}",
                                fmt_dims(t.sizes()),
                                fmt_dims(view.sizes()),
                                dim + k
                            ),
                        );
                    }
                }
                let flags = t.to_device(Device::Cpu)?.values()?;
                let positions: Vec<Vec<i64>> = Layout::contiguous(t.sizes())
                    .indices()
                    .zip(&flags)
                    .filter(|(_, f)| f.to_bool())
                    .map(|(idx, _)| idx.to_vec())
                    .collect();
                for k in 0..t.ndim() {
                    let vals: Vec<Scalar> = positions.iter().map(|p| Scalar::Int(p[k])).collect();
                    longs.push((
                        dim + k,
                        Tensor::from_values(&[vals.len() as i64], &vals, Some(DType::I64))?,
                    ));
                }
            } else {
                longs.push((dim, t));
            }
        }
        let shapes: Vec<&[i64]> = longs.iter().map(|(_, t)| t.sizes()).collect();
        let index_shape = broadcast_shapes(&shapes).map_err(|_| {
            let list: Vec<String> = shapes.iter().map(|s| fmt_dims(s)).collect();
            TensorError::new(
                ErrorKind::IndexOutOfRange,
                format!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    list.join(", ")
                ),
            )
        })?;
        let dims: Vec<usize> = longs.iter().map(|(d, _)| *d).collect();
        let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
        let mut view = view;
        let mut indexed_dims = dims.clone();
        if !adjacent {
            // ATen's transposeToFront: the indexed dimensions first, the rest in order.
            let mut order: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            order.extend((0..view.ndim() as i64).filter(|d| !dims.contains(&(*d as usize))));
            view = view.permute(&order)?;
            indexed_dims = (0..dims.len()).collect();
        }
        let before = indexed_dims.first().copied().unwrap_or(0);
        let mut indexed = Vec::new();
        let mut index_layouts = Vec::new();
        let mut out_of_range = None;
        for ((_, t), &d) in longs.iter().zip(&indexed_dims) {
            let strides = broadcast_strides(t.sizes(), t.strides(), &index_shape);
            let layout = Layout::new(&index_shape, &strides, t.storage_offset())?;
            let b = Tensor::fresh(t.storage().clone(), layout.clone(), t.dtype());
            let size = view.sizes()[d];
            let mut vals = index_values(&b)?;
            for v in vals.iter_mut() {
                if *v < -size || *v >= size {
                    if out_of_range.is_none() {
                        out_of_range = Some(TensorError::new(
                            ErrorKind::IndexOutOfRange,
                            format!(
                                "index {v} is out of bounds for dimension {d} with size {size}"
                            ),
                        ));
                    }
                    break;
                }
                if *v < 0 {
                    *v += size;
                }
            }
            indexed.push((d, vals));
            index_layouts.push(layout);
        }
        Ok(Plan {
            view,
            indexed,
            index_shape,
            index_layouts,
            before,
            out_of_range,
        })
    }

    /// `self[items]` with at least one tensor (or list) index: a new tensor.
    pub fn index_advanced(&self, items: &[AdvancedItem]) -> Result<Tensor> {
        super::host_fallback::note(self.device(), || {
            "advanced indexing (a gather by index tensors or masks)".into()
        });
        let plan = self.advanced_plan(items)?;
        let v = &plan.view;
        let k = plan.indexed.len();
        let b = plan.index_shape.len();
        let first = plan.before;
        let mut shape: Dims = Dims::from_slice(&v.sizes()[..first]);
        shape.extend_from_slice(&plan.index_shape);
        shape.extend_from_slice(&v.sizes()[first + k..]);
        // The restrided source (stride 0 over the index dimensions) and the index tensors
        // reshaped to the result's rank, in ATen's operand order.
        let mut src_strides: Dims = Dims::from_slice(&v.strides()[..first]);
        src_strides.extend(std::iter::repeat_n(0, b));
        src_strides.extend_from_slice(&v.strides()[first + k..]);
        let after = shape.len() - first - b;
        let index_ops: Vec<(Dims, Dims)> = plan
            .index_layouts
            .iter()
            .map(|l| {
                let mut sizes = Dims::from_elem(1, first);
                sizes.extend_from_slice(l.sizes());
                sizes.extend(std::iter::repeat_n(1, after));
                let mut strides = Dims::from_elem(0, first);
                strides.extend_from_slice(l.strides());
                strides.extend(std::iter::repeat_n(0, after));
                (sizes, strides)
            })
            .collect();
        let mut ops = vec![Operand {
            sizes: &shape,
            strides: &src_strides,
        }];
        ops.extend(index_ops.iter().map(|(s, t)| Operand {
            sizes: s,
            strides: t,
        }));
        let strides = output_strides(&shape, &ops);
        if let Some(e) = plan.out_of_range {
            // CUDA's index kernel allocates the output, then asserts on the device
            if self.device() != Device::Cpu {
                Tensor::uninitialized(Layout::new(&shape, &strides, 0)?, self.dtype())?
                    .to_device(self.device())?;
            }
            return Err(e);
        }
        let out = Tensor::uninitialized(Layout::new(&shape, &strides, 0)?, self.dtype())?;
        let host = v.to_device(Device::Cpu)?;
        {
            let src = host.storage().read().expect("host");
            let mut dst = out.storage().write().expect("host");
            let sz = self.itemsize();
            let idx_layout = Layout::contiguous(&plan.index_shape);
            for pos in out.layout().indices() {
                let bpos = &pos[first..first + b];
                let flat = if b == 0 {
                    0
                } else {
                    idx_layout.element_at(bpos)
                } as usize;
                let mut at = host.storage_offset();
                for (d, &p) in pos[..first].iter().enumerate() {
                    at += p * host.strides()[d];
                }
                for (d, vals) in &plan.indexed {
                    at += vals[flat] * host.strides()[*d];
                }
                for (j, &p) in pos[first + b..].iter().enumerate() {
                    at += p * host.strides()[first + k + j];
                }
                let o = out.layout().element_at(&pos) as usize * sz;
                let s = at as usize * sz;
                dst[o..o + sz].copy_from_slice(&src[s..s + sz]);
            }
        }
        out.to_device(self.device())
    }

    /// `self[items] = values` / `self.index_put_(indices, values)` without accumulate:
    /// `values` (converted to self's dtype) broadcast to the indexing result. Duplicate
    /// indices keep the last write, in row-major order of the result. Bumps the version once.
    pub fn index_put_(&self, items: &[AdvancedItem], values: &Tensor) -> Result<()> {
        self.index_put_with(items, values, false)
    }

    /// `self.index_put_(indices, values, accumulate)`: with `accumulate`, every value is
    /// added to its element (duplicates accumulate, in row-major order of the indexing
    /// result, in self's dtype as PyTorch's CPU kernel adds: integers wrap, float16 rounds
    /// after each addition, bools or). `values` must have self's dtype.
    pub fn index_put_with(
        &self,
        items: &[AdvancedItem],
        values: &Tensor,
        accumulate: bool,
    ) -> Result<()> {
        self.index_write(items, values, accumulate)?;
        self.storage().bump_version();
        Ok(())
    }

    /// `self.index_put(indices, values, accumulate)`: the same write into a clone (self's
    /// layout), a new tensor at version 0.
    pub fn index_put(
        &self,
        items: &[AdvancedItem],
        values: &Tensor,
        accumulate: bool,
    ) -> Result<Tensor> {
        let out = self.clone_as(crate::layout::MemoryFormat::Preserve)?;
        out.index_write(items, values, accumulate)?;
        Ok(out)
    }

    /// [`Tensor::index_put_with`]'s checks and writes, without the version bump.
    fn index_write(&self, items: &[AdvancedItem], values: &Tensor, accumulate: bool) -> Result<()> {
        super::host_fallback::note(self.device(), || {
            "an advanced-index write (`index_put_`, `x[index] = v`)".into()
        });
        if values.dtype() != self.dtype() {
            return err(
                ErrorKind::DtypeUnsupported,
                format!(
                    "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
                    self.dtype().scalar_type_name(),
                    values.dtype().scalar_type_name()
                ),
            );
        }
        // PyTorch only warns about index_put_ into an expanded tensor; the writes below are
        // row-major, so an overlap is run in the documented order (or refused when strict).
        self.internal_overlap_order("index_put_", false)?;
        let mut plan = self.advanced_plan(items)?;
        if let Some(e) = plan.out_of_range.take() {
            return Err(e);
        }
        let v = &plan.view;
        let k = plan.indexed.len();
        let first = plan.before;
        let mut shape: Dims = Dims::from_slice(&v.sizes()[..first]);
        shape.extend_from_slice(&plan.index_shape);
        shape.extend_from_slice(&v.sizes()[first + k..]);
        if broadcast_shapes(&[&shape, values.sizes()])
            .map_or(true, |s| s.as_slice() != shape.as_slice())
        {
            return err(
                ErrorKind::ExpandInvalid,
                format!(
                    "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
                    fmt_dims(values.sizes()),
                    fmt_dims(&shape)
                ),
            );
        }
        let vals = {
            let strides = broadcast_strides(values.sizes(), values.strides(), &shape);
            let b = Tensor::fresh(
                values.storage().clone(),
                Layout::new(&shape, &strides, values.storage_offset())?,
                values.dtype(),
            );
            b.to_device(Device::Cpu)?.values()?
        };
        let b = plan.index_shape.len();
        let idx_layout = Layout::contiguous(&plan.index_shape);
        let sz = self.itemsize();
        let add = super::arith::ElementOp::Add(Scalar::Int(1));
        let write = |bytes: &mut [u8]| {
            for (n, pos) in Layout::contiguous(&shape).indices().enumerate() {
                let flat = if b == 0 {
                    0
                } else {
                    idx_layout.element_at(&pos[first..first + b])
                } as usize;
                let mut at = v.storage_offset();
                for (d, &p) in pos[..first].iter().enumerate() {
                    at += p * v.strides()[d];
                }
                for (d, ix) in &plan.indexed {
                    at += ix[flat] * v.strides()[*d];
                }
                for (j, &p) in pos[first + b..].iter().enumerate() {
                    at += p * v.strides()[first + k + j];
                }
                let o = at as usize * sz;
                let v = if accumulate {
                    let old = Scalar::read(self.dtype(), &bytes[o..o + sz]);
                    super::arith::apply(add, self.dtype(), &[old, vals[n]])
                        .expect("an addition cannot fail")
                } else {
                    vals[n]
                };
                v.write(self.dtype(), &mut bytes[o..o + sz]);
            }
        };
        match self.storage().write() {
            Some(mut bytes) => write(&mut bytes),
            None => {
                // A GPU storage: written on a host copy and uploaded back.
                let mut host = self.storage().to_host()?;
                write(&mut host);
                self.storage()
                    .cuda()
                    .expect("a storage is on the host or a GPU")
                    .upload(0, &host)?;
            }
        }
        Ok(())
    }
}
