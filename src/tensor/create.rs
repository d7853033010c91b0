//! Constructors: `torch.zeros/ones/full/empty/arange/tensor` with PyTorch's dtype inference
//! and checks.

use super::Tensor;
use super::convert::{checked_fill_value, literal_value};
use crate::dtype::{Category, DType};
use crate::error::{ErrorKind, Result, err};
use crate::layout::{Layout, check_sizes_nonnegative, fmt_dims, view};
use crate::scalar::Scalar;
use crate::storage::Storage;

impl Tensor {
    /// A fresh, zero-filled tensor with exactly the storage `layout` needs, or PyTorch's
    /// out-of-memory error when the host cannot provide it.
    pub(crate) fn uninitialized(layout: Layout, dtype: DType) -> Result<Tensor> {
        let nbytes = view::required_storage_bytes(&layout, dtype.itemsize()) as usize;
        Ok(Tensor::fresh(Storage::zeroed(nbytes)?, layout, dtype))
    }

    /// A new contiguous layout for a constructor, with PyTorch's checks: sizes must be
    /// non-negative and numel x itemsize must not overflow.
    pub(super) fn checked_sizes(op: &str, sizes: &[i64], dtype: DType) -> Result<Layout> {
        if op == "zeros" && sizes.iter().any(|&s| s < 0) {
            return err(
                ErrorKind::InvalidShape,
                "zeros: Dimension size must be non-negative.",
            );
        }
        check_sizes_nonnegative(sizes)?;
        let nbytes = sizes
            .iter()
            .try_fold(dtype.itemsize() as i64, |acc, &s| acc.checked_mul(s));
        let strides_fit = sizes
            .iter()
            .try_fold(1i64, |acc, &s| acc.checked_mul(s.max(1)))
            .is_some();
        if nbytes.is_none() || !strides_fit {
            return err(
                ErrorKind::InvalidShape,
                format!(
                    "Storage size calculation overflowed with sizes={}",
                    fmt_dims(sizes)
                ),
            );
        }
        Ok(Layout::contiguous(sizes))
    }

    /// `torch.empty(sizes)`. stridekit zero-fills it; PyTorch leaves it uninitialised.
    pub fn empty(sizes: &[i64], dtype: DType) -> Result<Tensor> {
        Tensor::uninitialized(Self::checked_sizes("empty", sizes, dtype)?, dtype)
    }

    pub fn zeros(sizes: &[i64], dtype: DType) -> Result<Tensor> {
        Tensor::uninitialized(Self::checked_sizes("zeros", sizes, dtype)?, dtype)
    }

    pub fn ones(sizes: &[i64], dtype: DType) -> Result<Tensor> {
        let t = Tensor::uninitialized(Self::checked_sizes("ones", sizes, dtype)?, dtype)?;
        t.fill_raw(Scalar::Int(1))?;
        Ok(t)
    }

    /// `torch.full(sizes, value, dtype=...)`; without a dtype, bool -> bool, int -> int64,
    /// float -> float32.
    pub fn full(sizes: &[i64], value: Scalar, dtype: Option<DType>) -> Result<Tensor> {
        let dtype = dtype.unwrap_or(match value.category() {
            Category::Bool => DType::Bool,
            Category::Integral => DType::I64,
            Category::Floating => DType::F32,
        });
        let layout = Self::checked_sizes("full", sizes, dtype)?;
        let v = checked_fill_value(value, dtype)?;
        let t = Tensor::uninitialized(layout, dtype)?;
        t.fill_raw(v)?;
        Ok(t)
    }

    /// `torch.tensor(data, dtype=...)` from flat values and a shape; without a dtype, all
    /// bools -> bool, any float -> float32, else int64.
    pub fn from_values(sizes: &[i64], values: &[Scalar], dtype: Option<DType>) -> Result<Tensor> {
        let dtype = dtype.unwrap_or_else(|| match values.iter().map(|v| v.category()).max() {
            Some(Category::Bool) => DType::Bool,
            Some(Category::Integral) => DType::I64,
            _ => DType::F32,
        });
        let layout = Self::checked_sizes("tensor", sizes, dtype)?;
        if layout.numel() != values.len() as i64 {
            return err(
                ErrorKind::InvalidShape,
                format!(
                    "shape {} does not hold {} values",
                    fmt_dims(sizes),
                    values.len()
                ),
            );
        }
        let t = Tensor::uninitialized(layout, dtype)?;
        {
            let mut bytes = t.storage.write().expect("new tensors are on the host");
            let sz = dtype.itemsize();
            for (i, v) in values.iter().enumerate() {
                literal_value(*v, dtype)?.write(dtype, &mut bytes[i * sz..(i + 1) * sz]);
            }
        }
        Ok(t)
    }

    /// `torch.arange(start, end, step, dtype=...)`; without a dtype, any float argument
    /// gives float32, else int64.
    pub fn arange(
        start: Scalar,
        end: Scalar,
        step: Scalar,
        dtype: Option<DType>,
    ) -> Result<Tensor> {
        let any_float = [start, end, step]
            .iter()
            .any(|s| s.category() == Category::Floating);
        let dtype = dtype.unwrap_or(if any_float { DType::F32 } else { DType::I64 });
        let integral = dtype.category() != Category::Floating;
        // Bounds and step as the kernel's accumulate type sees them.
        let acc = |s: Scalar| -> f64 {
            if integral {
                s.cast(DType::I64).to_f64()
            } else {
                s.to_f64()
            }
        };
        let (xs, xe, xstep) = (acc(start), acc(end), acc(step));
        if xstep == 0.0 {
            return err(ErrorKind::BadStep, "step must be nonzero");
        }
        if !xs.is_finite() || !xe.is_finite() {
            return err(
                ErrorKind::BadStep,
                format!("unsupported range: {} -> {}", start, end),
            );
        }
        if !((xstep > 0.0 && xe >= xs) || (xstep < 0.0 && xe <= xs)) {
            return err(
                ErrorKind::BadStep,
                "upper bound and lower bound inconsistent with step sign",
            );
        }
        let len = if dtype == DType::I64 {
            let (s, e, st) = (xs as i64, xe as i64, xstep as i64);
            ((e - s + st - st.signum()) / st) as f64
        } else {
            ((end.to_f64() - start.to_f64()) / step.to_f64()).ceil()
        };
        if !(len >= 0.0 && len <= i64::MAX as f64) {
            return err(ErrorKind::InvalidShape, "invalid size, possible overflow?");
        }
        if dtype == DType::Bool {
            return err(
                ErrorKind::DtypeUnsupported,
                "\"arange_cpu\" not implemented for 'Bool'",
            );
        }
        let n = len as i64;
        let t = Tensor::uninitialized(Self::checked_sizes("arange", &[n], dtype)?, dtype)?;
        {
            let mut bytes = t.storage.write().expect("new tensors are on the host");
            let sz = dtype.itemsize();
            for i in 0..n {
                let v = match dtype {
                    d if d.category() == Category::Integral => {
                        Scalar::Int((xs as i64).wrapping_add((xstep as i64).wrapping_mul(i)))
                    }
                    DType::F16 | DType::BF16 | DType::F32 => {
                        Scalar::Float(arange_value(dtype, xs, xstep, i, n))
                    }
                    _ => Scalar::Float(xs + xstep * i as f64),
                };
                let at = i as usize * sz;
                v.write(dtype, &mut bytes[at..at + sz]);
            }
        }
        Ok(t)
    }
}

/// Element `i` of an `n`-element float16/bfloat16/float32 `arange`, as PyTorch 2.11's CPU
/// kernel computes it: in its accumulate type (float for the 16-bit types, double for
/// float32), by 32-byte vectors (16 or 8 elements) over every whole pair of vectors, where
/// each vector's first value `start + step * block` is rounded to the dtype and the others
/// are that rounded value plus `k * step`; the elements after the last pair one by one as
/// `start + step * i`. (At large magnitudes the two differ by an ulp of the dtype.)
fn arange_value(dtype: DType, start: f64, step: f64, i: i64, n: i64) -> f64 {
    let round = |v: f64| Scalar::Float(v).cast(dtype).to_f64();
    let lanes = (32 / dtype.itemsize()) as i64;
    let vectorised = i < n / (2 * lanes) * (2 * lanes);
    if dtype == DType::F32 {
        if !vectorised {
            return round(start + step * i as f64);
        }
        let block = i / lanes * lanes;
        let base = round(start + step * block as f64);
        return round(base + (i - block) as f64 * step);
    }
    let (start, step) = (start as f32, step as f32);
    if !vectorised {
        return round((start + step * i as f32) as f64);
    }
    let block = i / lanes * lanes;
    let base = round((start + step * block as f32) as f64) as f32;
    round((base + (i - block) as f32 * step) as f64)
}

/// The element values a random constructor draws, from stridekit's own generator
/// (SplitMix64): shapes, dtypes and layouts are PyTorch's, the values are not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Random {
    /// `torch.rand`: uniform in [0, 1).
    Uniform,
    /// `torch.randn`: standard normal (Box-Muller).
    Normal,
    /// `torch.randint(low, high)`: integers in [low, high).
    Int { low: i64, high: i64 },
}

impl Tensor {
    /// A new tensor of `sizes` and `strides` (dense or not) on the host, zero-filled, with
    /// exactly the storage those strides reach (`torch.empty_strided`).
    pub fn empty_strided(sizes: &[i64], strides: &[i64], dtype: DType) -> Result<Tensor> {
        Self::checked_sizes("empty_strided", sizes, dtype)?;
        let layout = Layout::new(sizes, strides, 0)?;
        if strides.iter().any(|&s| s < 0) {
            return err(
                ErrorKind::Other,
                format!(
                    "as_strided: Negative strides are not supported at the moment, got strides: {}",
                    fmt_dims(strides)
                ),
            );
        }
        Tensor::uninitialized(layout, dtype)
    }

    /// `torch.empty_like(x, dtype=..., memory_format=...)` (zero-filled here): the strides
    /// a copy in `format` gets (preserve_format keeps a dense layout, as `clone`).
    pub fn empty_like(&self, dtype: DType, format: crate::layout::MemoryFormat) -> Result<Tensor> {
        let strides =
            crate::layout::contiguity::strides_for_copy(self.sizes(), self.strides(), format)?;
        Tensor::uninitialized(Layout::new(self.sizes(), &strides, 0)?, dtype)
    }

    /// `torch.full_like(x, value, ...)`: [`Tensor::empty_like`] filled with `value` (checked
    /// against the dtype).
    pub fn full_like(
        &self,
        value: Scalar,
        dtype: DType,
        format: crate::layout::MemoryFormat,
    ) -> Result<Tensor> {
        let v = checked_fill_value(value, dtype)?;
        let t = self.empty_like(dtype, format)?;
        t.fill_raw(v)?;
        Ok(t)
    }

    /// `torch.linspace(start, end, steps, dtype=...)` as ATen's CPU kernel computes it: the
    /// first half counts up from `start`, the second half down from `end`, in the dtype
    /// (float64 steps for integer dtypes).
    pub fn linspace(start: Scalar, end: Scalar, steps: i64, dtype: DType) -> Result<Tensor> {
        if steps < 0 {
            return err(
                ErrorKind::InvalidShape,
                "number of steps must be non-negative",
            );
        }
        let t = Tensor::uninitialized(Self::checked_sizes("linspace", &[steps], dtype)?, dtype)?;
        let (s, e) = (start.cast(dtype), end.cast(dtype));
        let halfway = steps / 2;
        let value = |i: i64| -> Scalar {
            if steps == 1 {
                return s;
            }
            match dtype {
                DType::F64 => {
                    let step = (e.to_f64() - s.to_f64()) / (steps - 1) as f64;
                    Scalar::Float(if i < halfway {
                        s.to_f64() + step * i as f64
                    } else {
                        e.to_f64() - step * (steps - i - 1) as f64
                    })
                }
                d if d.is_floating() => {
                    let (s, e) = (s.to_f32(), e.to_f32());
                    let step = (e - s) / (steps - 1) as f32;
                    Scalar::Float(if i < halfway {
                        s + step * i as f32
                    } else {
                        e - step * (steps - i - 1) as f32
                    } as f64)
                }
                _ => {
                    let step = (e.to_f64() - s.to_f64()) / (steps - 1) as f64;
                    Scalar::Float(if i < halfway {
                        s.to_f64() + step * i as f64
                    } else {
                        e.to_f64() - step * (steps - i - 1) as f64
                    })
                }
            }
        };
        t.write_each(value)?;
        Ok(t)
    }

    /// `torch.eye(n, m, dtype=...)`.
    pub fn eye(n: i64, m: i64, dtype: DType) -> Result<Tensor> {
        if n < 0 {
            return err(
                ErrorKind::InvalidShape,
                format!("n must be greater or equal to 0, got {n}"),
            );
        }
        if m < 0 {
            return err(
                ErrorKind::InvalidShape,
                format!("m must be greater or equal to 0, got {m}"),
            );
        }
        let t = Tensor::uninitialized(Self::checked_sizes("eye", &[n, m], dtype)?, dtype)?;
        t.write_each(|i| Scalar::Int((i / m.max(1) == i % m.max(1)) as i64))?;
        Ok(t)
    }

    /// `torch.rand/randn/randint(..., size)` from `rng` (see [`Random`]).
    pub fn random(
        sizes: &[i64],
        dtype: DType,
        kind: Random,
        rng: &mut crate::rng::SplitMix64,
    ) -> Result<Tensor> {
        if let Random::Int { low, high } = kind
            && low >= high
        {
            return err(
                ErrorKind::Other,
                format!(
                    "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
                ),
            );
        }
        if !matches!(kind, Random::Int { .. }) && !dtype.is_floating() {
            let op = if kind == Random::Normal {
                "normal_kernel_cpu"
            } else {
                "check_uniform_bounds"
            };
            return err(
                ErrorKind::DtypeUnsupported,
                format!(
                    "\"{op}\" not implemented for '{}'",
                    dtype.scalar_type_name()
                ),
            );
        }
        let t = Tensor::uninitialized(Self::checked_sizes("random", sizes, dtype)?, dtype)?;
        t.write_each(|_| match kind {
            Random::Uniform => Scalar::Float(rng.unit()),
            Random::Normal => {
                let (u1, u2) = (1.0 - rng.unit(), rng.unit());
                Scalar::Float((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos())
            }
            Random::Int { low, high } => Scalar::Int(low + rng.below((high - low) as u64) as i64),
        })?;
        Ok(t)
    }

    /// Writes `f(i)` (converted to the dtype) into element `i` of a fresh contiguous tensor.
    fn write_each(&self, mut f: impl FnMut(i64) -> Scalar) -> Result<()> {
        let mut bytes = self.storage.write().expect("new tensors are on the host");
        let sz = self.dtype.itemsize();
        for i in 0..self.numel() {
            let at = i as usize * sz;
            f(i).write(self.dtype, &mut bytes[at..at + sz]);
        }
        Ok(())
    }
}
