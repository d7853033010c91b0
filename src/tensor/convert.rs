//! Checked conversions of Python numbers into a dtype, as PyTorch performs them for
//! `fill_`, `x[i] = v`, `torch.full` and `torch.tensor(..., dtype=...)`.

use crate::dtype::{Category, DType};
use crate::error::{ErrorKind, Result, TensorError};
use crate::scalar::Scalar;

/// The largest finite value of a float dtype.
fn max_finite(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 65504.0,
        DType::BF16 => 3.3895313892515355e38,
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

fn int_range(dtype: DType) -> (i64, i64) {
    match dtype {
        DType::U8 => (0, 255),
        DType::I8 => (-128, 127),
        DType::I16 => (-32768, 32767),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

/// c10's name for a dtype's C++ type, as `checked_convert` prints it.
fn cpp_type_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "bool",
        DType::U8 => "uint8_t",
        DType::I8 => "int8_t",
        DType::I16 => "int16_t",
        DType::I32 => "int",
        DType::I64 => "int64_t",
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 => "float",
        DType::F64 => "double",
    }
}

fn overflow(name: &str) -> TensorError {
    TensorError::new(
        ErrorKind::Other,
        format!("value cannot be converted to type {name} without overflow"),
    )
}

/// The value `fill_(v)`, `x[i] = v` or `torch.full(..., v, dtype=...)` stores, or PyTorch's
/// overflow error. Unsigned 8-bit accepts integers down to -255 (they wrap), as c10 does.
pub fn checked_fill_value(value: Scalar, dtype: DType) -> Result<Scalar> {
    let fits = match (dtype.category(), value) {
        (Category::Bool, _) | (_, Scalar::Bool(_)) => true,
        (Category::Integral, Scalar::Int(i)) => {
            let (lo, hi) = int_range(dtype);
            if dtype == DType::U8 {
                (-255..=255).contains(&i)
            } else {
                (lo..=hi).contains(&i)
            }
        }
        (Category::Integral, Scalar::Float(f)) => {
            let (lo, hi) = int_range(dtype);
            f.is_finite() && f >= lo as f64 && f <= hi as f64
        }
        (Category::Floating, v) => {
            let f = v.to_f64();
            !f.is_finite() || f.abs() <= max_finite(dtype)
        }
    };
    if !fits {
        return Err(overflow(cpp_type_name(dtype)));
    }
    Ok(value.cast(dtype))
}

/// The value an element of `torch.tensor(data, dtype=...)` stores: integers must fit the
/// integer dtype (floats are truncated first); floats may overflow to infinity.
pub fn literal_value(value: Scalar, dtype: DType) -> Result<Scalar> {
    if dtype.category() == Category::Integral {
        let whole = match value {
            Scalar::Float(f) if f.is_finite() => Some(f.trunc()),
            Scalar::Float(_) => None,
            other => Some(other.to_f64()),
        };
        let (lo, hi) = int_range(dtype);
        let ok = match (value, whole) {
            // Like c10's checked conversion, uint8 takes -255..=-1 (they wrap).
            (Scalar::Int(i), _) if dtype == DType::U8 => (-255..=255).contains(&i),
            (Scalar::Int(i), _) => (lo..=hi).contains(&i),
            (_, Some(w)) => w >= lo as f64 && w <= hi as f64,
            _ => false,
        };
        if !ok {
            return Err(overflow(dtype.torch_name()));
        }
    }
    Ok(value.cast(dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_checks() {
        assert_eq!(
            checked_fill_value(Scalar::Float(2.7), DType::I64).unwrap(),
            Scalar::Int(2)
        );
        assert_eq!(
            checked_fill_value(Scalar::Int(-1), DType::U8).unwrap(),
            Scalar::Int(255)
        );
        assert_eq!(
            checked_fill_value(Scalar::Int(300), DType::U8)
                .unwrap_err()
                .message,
            "value cannot be converted to type uint8_t without overflow"
        );
        assert!(checked_fill_value(Scalar::Float(-0.5), DType::U8).is_err());
        assert!(checked_fill_value(Scalar::Float(65519.0), DType::F16).is_err());
        assert!(checked_fill_value(Scalar::Float(f64::INFINITY), DType::F16).is_ok());
        assert_eq!(
            checked_fill_value(Scalar::Int(7), DType::Bool).unwrap(),
            Scalar::Bool(true)
        );
        assert!(literal_value(Scalar::Float(1e10), DType::I32).is_err());
        assert_eq!(
            literal_value(Scalar::Float(-2.7), DType::I32).unwrap(),
            Scalar::Int(-2)
        );
        assert_eq!(
            literal_value(Scalar::Float(70000.0), DType::F16).unwrap(),
            Scalar::Float(f64::INFINITY)
        );
    }
}
