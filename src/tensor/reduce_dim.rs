//! `max(dim)` / `min(dim)`: the values and the indices of the extreme element along one
//! dimension, as PyTorch's CPU kernel gives them: the first index among ties, NaN
//! propagating (the first NaN wins), bools compared as 0/1; values in the input's dtype,
//! indices int64, both contiguous (keepdim keeps the reduced dimension with size 1). A 0-d
//! input reduces over its one element (dim 0 or -1); an empty reduced dimension is
//! PyTorch's IndexError. On a GPU the values are computed on the host (noted for
//! `explain --device cuda`) and both results made on the input's device.

use super::Tensor;
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, err};
use crate::layout::wrap_dim;
use crate::scalar::Scalar;
use crate::storage::Device;

/// Whether `v` replaces `best` as the running maximum (or minimum).
fn replaces(v: Scalar, best: Scalar, floating: bool, max: bool) -> bool {
    if floating {
        let (v, b) = (v.to_f64(), best.to_f64());
        if b.is_nan() {
            return false;
        }
        v.is_nan() || if max { v > b } else { v < b }
    } else {
        let (v, b) = (v.to_int(), best.to_int());
        if max { v > b } else { v < b }
    }
}

impl Tensor {
    /// `self.max(dim, keepdim)` (`max == true`) or `self.min(dim, keepdim)`: (values,
    /// indices).
    pub fn max_min_dim(&self, dim: i64, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
        let name = if max { "max" } else { "min" };
        let d = wrap_dim(dim, self.ndim())?;
        let sizes = self.sizes();
        if self.ndim() > 0 && sizes[d] == 0 {
            return err(
                ErrorKind::IndexOutOfRange,
                format!("{name}(): Expected reduction dim {d} to have non-zero size."),
            );
        }
        super::host_fallback::note(self.device(), || format!("`{name}(dim)` (a reduction)"));
        let values = self.to_device(Device::Cpu)?.values()?;
        let (outer, n, inner): (i64, i64, i64) = if self.ndim() == 0 {
            (1, 1, 1)
        } else {
            (
                sizes[..d].iter().product(),
                sizes[d],
                sizes[d + 1..].iter().product(),
            )
        };
        let floating = self.dtype().is_floating();
        let mut best = Vec::with_capacity((outer * inner).max(0) as usize);
        let mut index = Vec::with_capacity(best.capacity());
        for o in 0..outer {
            for i in 0..inner {
                let at = |k: i64| values[((o * n + k) * inner + i) as usize];
                let (mut b, mut bi) = (at(0), 0);
                for k in 1..n {
                    if replaces(at(k), b, floating, max) {
                        (b, bi) = (at(k), k);
                    }
                }
                best.push(b);
                index.push(Scalar::Int(bi));
            }
        }
        let mut shape: Vec<i64> = sizes.to_vec();
        if self.ndim() > 0 {
            if keepdim {
                shape[d] = 1;
            } else {
                shape.remove(d);
            }
        }
        let device = self.device();
        let values = Tensor::from_values(&shape, &best, Some(self.dtype()))?.to_device(device)?;
        let indices = Tensor::from_values(&shape, &index, Some(DType::I64))?.to_device(device)?;
        Ok((values, indices))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(sizes: &[i64], v: &[f64]) -> Tensor {
        let vals: Vec<Scalar> = v.iter().map(|&x| Scalar::Float(x)).collect();
        Tensor::from_values(sizes, &vals, Some(DType::F32)).unwrap()
    }

    fn ints(t: &Tensor) -> Vec<i64> {
        t.values().unwrap().iter().map(|v| v.to_int()).collect()
    }

    #[test]
    fn first_index_among_ties_and_nan_propagates() {
        let x = t(&[2, 3], &[1.0, 3.0, 3.0, f64::NAN, 2.0, 5.0]);
        let (v, i) = x.max_min_dim(1, false, true).unwrap();
        assert_eq!(ints(&i), vec![1, 0]);
        let v = v.values().unwrap();
        assert_eq!(v[0].to_f64(), 3.0);
        assert!(v[1].to_f64().is_nan());
        let (_, i) = x.max_min_dim(0, false, false).unwrap();
        assert_eq!(ints(&i), vec![1, 1, 0]);
        // [1, nan, nan].min: the first NaN.
        let y = t(&[3], &[1.0, f64::NAN, f64::NAN]);
        assert_eq!(ints(&y.max_min_dim(0, false, false).unwrap().1), vec![1]);
    }

    #[test]
    fn shapes_keepdim_zero_d_and_errors() {
        let x = t(&[2, 3, 4], &[0.0; 24]);
        let (v, i) = x.max_min_dim(-2, true, true).unwrap();
        assert_eq!((v.sizes(), v.strides()), (&[2, 1, 4][..], &[4, 4, 1][..]));
        assert_eq!(i.dtype(), DType::I64);
        let s = t(&[], &[5.0]);
        let (v, i) = s.max_min_dim(-1, false, true).unwrap();
        assert_eq!((v.ndim(), ints(&i)), (0, vec![0]));
        assert!(s.max_min_dim(1, false, true).is_err());
        let e = Tensor::zeros(&[0, 3], DType::F32).unwrap();
        assert_eq!(
            e.max_min_dim(0, false, true).unwrap_err().message,
            "max(): Expected reduction dim 0 to have non-zero size."
        );
        let (v, _) = e.max_min_dim(1, false, false).unwrap();
        assert_eq!(v.sizes(), &[0]);
    }
}
