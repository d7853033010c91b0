//! Ops that copy into a new storage: `repeat`, `tile`, `torch.cat`, `torch.stack`, `flip`,
//! `roll`, each with PyTorch's result layout and checks. Every one is a set of strided
//! copies planned by the copy plan (a view of the result receives a view of the input).

use super::Tensor;
use crate::dtype::{PromotionOperand, result_type};
use crate::error::{ErrorKind, Result, err};
use crate::layout::contiguity::{strides_for_copy, suggest_memory_format};
use crate::layout::{Dims, Layout, MemoryFormat, fmt_dims, wrap_dim};
use crate::storage::Device;

impl Tensor {
    /// `x.repeat(*sizes)`: a contiguous tensor of the input tiled `sizes[i]` times along each
    /// dimension (leading sizes add dimensions).
    pub fn repeat(&self, repeats: &[i64]) -> Result<Tensor> {
        if repeats.len() < self.ndim() {
            return err(
                ErrorKind::InvalidShape,
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
            );
        }
        if let Some(&r) = repeats.iter().find(|&&r| r < 0) {
            return err(
                ErrorKind::InvalidShape,
                format!(
                    "Trying to create tensor with negative dimension {r}: {}",
                    fmt_dims(repeats)
                ),
            );
        }
        let lead = repeats.len() - self.ndim();
        let mut padded: Dims = Dims::from_elem(1, lead);
        padded.extend_from_slice(self.sizes());
        let mut pad_strides: Dims = Dims::from_elem(0, lead);
        pad_strides.extend_from_slice(self.strides());
        let shape: Dims = padded
            .iter()
            .zip(repeats)
            .map(|(s, r)| s.saturating_mul(*r))
            .collect();
        let out = Tensor::zeroed_on(
            Tensor::checked_sizes("repeat", &shape, self.dtype)?,
            self.dtype,
            self.device(),
        )?;
        // The result as (repeat, size) pairs, and the input broadcast over the repeats.
        let out_strides = out.strides().to_vec();
        let (mut sizes, mut dst, mut src) = (Dims::new(), Dims::new(), Dims::new());
        for i in 0..shape.len() {
            sizes.extend([repeats[i], padded[i]]);
            dst.extend([padded[i] * out_strides[i], out_strides[i]]);
            src.extend([0, pad_strides[i]]);
        }
        let target = Tensor::fresh(
            out.storage.clone(),
            Layout::new(&sizes, &dst, 0)?,
            self.dtype,
        );
        let source = Tensor::fresh(
            self.storage.clone(),
            Layout::new(&sizes, &src, self.storage_offset())?,
            self.dtype,
        );
        target.copy_values_from(&source)?;
        Ok(out)
    }

    /// `x.tile(dims)`: `repeat` with `dims` padded by leading 1s to the tensor's rank.
    pub fn tile(&self, dims: &[i64]) -> Result<Tensor> {
        let mut reps: Dims = Dims::from_elem(1, self.ndim().saturating_sub(dims.len()));
        reps.extend_from_slice(dims);
        self.repeat(&reps)
    }

    /// `torch.cat(tensors, dim)`: the promoted dtype, in the memory format every input
    /// suggests (else contiguous); 1-d empty tensors are skipped, as PyTorch's legacy rule.
    pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        if tensors.is_empty() {
            return err(
                ErrorKind::Other,
                "torch.cat(): expected a non-empty list of Tensors",
            );
        }
        let used: Vec<&Tensor> = tensors
            .iter()
            .filter(|t| !(t.ndim() == 1 && t.numel() == 0))
            .collect();
        let Some(first) = used.first() else {
            return tensors[0].clone_as(MemoryFormat::Contiguous);
        };
        if let Some(i) = tensors.iter().position(|t| t.ndim() == 0) {
            return err(
                ErrorKind::DimOutOfRange,
                format!("zero-dimensional tensor (at position {i}) cannot be concatenated"),
            );
        }
        let d = wrap_dim(dim, first.ndim())?;
        for (i, t) in used.iter().enumerate() {
            if t.ndim() != first.ndim() {
                return err(
                    ErrorKind::InvalidShape,
                    format!(
                        "Tensors must have same number of dimensions: got {} and {}",
                        first.ndim(),
                        t.ndim()
                    ),
                );
            }
            for k in (0..t.ndim()).filter(|&k| k != d) {
                if t.sizes()[k] != first.sizes()[k] {
                    return err(
                        ErrorKind::InvalidShape,
                        format!(
                            "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                            first.sizes()[k],
                            t.sizes()[k]
                        ),
                    );
                }
            }
        }
        let dtype = result_type(
            &used
                .iter()
                .map(|t| PromotionOperand::Dimensioned(t.dtype))
                .collect::<Vec<_>>(),
        );
        let format = suggest_memory_format(first.sizes(), first.strides());
        let format = if used
            .iter()
            .all(|t| suggest_memory_format(t.sizes(), t.strides()) == format)
        {
            format
        } else {
            MemoryFormat::Contiguous
        };
        let mut shape = Dims::from_slice(first.sizes());
        shape[d] = used.iter().map(|t| t.sizes()[d]).sum();
        // On the inputs' device: each part is a (possibly converting) copy there.
        let layout = Layout::with_format(&shape, format)?;
        let out = Tensor::zeroed_on(layout, dtype, first.device())?;
        let mut at = 0;
        for t in &used {
            let n = t.sizes()[d];
            out.narrow(d as i64, at, n)?.copy_values_from(t)?;
            at += n;
        }
        Ok(out)
    }

    /// `torch.stack(tensors, dim)`: equal shapes, each unsqueezed at `dim`, then `cat`.
    pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        let Some(first) = tensors.first() else {
            return err(ErrorKind::Other, "stack expects a non-empty TensorList");
        };
        for (i, t) in tensors.iter().enumerate() {
            if t.sizes() != first.sizes() {
                return err(
                    ErrorKind::InvalidShape,
                    format!(
                        "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                        fmt_dims(first.sizes()),
                        fmt_dims(t.sizes())
                    ),
                );
            }
        }
        let d = wrap_dim(dim, first.ndim() + 1)? as i64;
        let parts = tensors
            .iter()
            .map(|t| t.unsqueeze(d))
            .collect::<Result<Vec<_>>>()?;
        Tensor::cat(&parts, d)
    }

    /// `x.flip(dims)`: a copy in x's layout (preserve format) with the given dimensions
    /// reversed.
    pub fn flip(&self, dims: &[i64]) -> Result<Tensor> {
        let mut flipped = Dims::new();
        for &d in dims {
            let w = wrap_dim(d, self.ndim())?;
            if flipped.contains(&(w as i64)) {
                return err(
                    ErrorKind::BadPermutation,
                    format!("dim {w} appears multiple times in the list of dims"),
                );
            }
            flipped.push(w as i64);
        }
        if self.ndim() == 0 {
            return self.clone_as(MemoryFormat::Preserve);
        }
        let strides = strides_for_copy(self.sizes(), self.strides(), MemoryFormat::Preserve)?;
        let out = Tensor::zeroed_on(
            Layout::new(self.sizes(), &strides, 0)?,
            self.dtype,
            self.device(),
        )?;
        // The source read backwards along the flipped dimensions.
        let mut src_strides = Dims::from_slice(self.strides());
        let mut offset = self.storage_offset();
        for &d in &flipped {
            let d = d as usize;
            if self.sizes()[d] > 0 {
                offset += (self.sizes()[d] - 1) * self.strides()[d];
            }
            src_strides[d] = -self.strides()[d];
        }
        let source = Tensor::fresh(
            self.storage.clone(),
            Layout::from_parts(Dims::from_slice(self.sizes()), src_strides, offset),
            self.dtype,
        );
        out.copy_values_from(&source)?;
        Ok(out)
    }

    /// `x.roll(shifts, dims)`: a copy with elements shifted (wrapping around), one dim after
    /// the other: on the CPU laid out as `cat` lays out its two pieces, on a GPU contiguous;
    /// without dims, the flattened tensor is rolled and viewed back; an empty tensor is
    /// cloned in its own layout (as ATen).
    pub fn roll(&self, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        if self.numel() == 0 {
            return self.clone_as(MemoryFormat::Preserve);
        }
        if dims.is_empty() {
            if shifts.len() != 1 {
                return err(
                    ErrorKind::Other,
                    format!(
                        "shifts and dimensions must align. shifts: {}, dims:{}",
                        shifts.len(),
                        dims.len()
                    ),
                );
            }
            // As ATen: the flattened tensor (a view where it can be, no copy) rolled.
            return self.flatten(0, -1)?.roll(shifts, &[0])?.view(self.sizes());
        }
        if shifts.len() != dims.len() {
            return err(
                ErrorKind::Other,
                format!(
                    "shifts and dimensions must align. shifts: {}, dims:{}",
                    shifts.len(),
                    dims.len()
                ),
            );
        }
        let mut cur = self.clone();
        for (&s, &d) in shifts.iter().zip(dims) {
            if self.ndim() == 0 {
                return err(
                    ErrorKind::Other,
                    format!("Dimension specified as {d} but tensor has no dimensions"),
                );
            }
            let w = wrap_dim(d, self.ndim())?;
            let n = cur.sizes()[w];
            if self.device() == Device::Cpu {
                // roll_cpu: cat(narrow(start, n - start), narrow(0, start)), start = (n - k) % n,
                // so the result takes cat's memory format (channels_last when both pieces
                // suggest it); roll_cuda's output is contiguous (below)
                let start = (n - s.rem_euclid(n)) % n;
                cur = Tensor::cat(
                    &[
                        cur.narrow(w as i64, start, n - start)?,
                        cur.narrow(w as i64, 0, start)?,
                    ],
                    w as i64,
                )?;
                continue;
            }
            let out =
                Tensor::zeroed_on(Layout::contiguous(cur.sizes()), self.dtype, self.device())?;
            if n > 0 {
                let k = s.rem_euclid(n);
                // out[k:] = cur[:n-k]; out[:k] = cur[n-k:]
                out.narrow(w as i64, k, n - k)?
                    .copy_values_from(&cur.narrow(w as i64, 0, n - k)?)?;
                out.narrow(w as i64, 0, k)?
                    .copy_values_from(&cur.narrow(w as i64, n - k, k)?)?;
            }
            cur = out;
        }
        Ok(cur)
    }
}
