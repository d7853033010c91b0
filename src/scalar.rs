//! Element values and PyTorch's conversions between dtypes.
//!
//! One value type, [`Scalar`], carries every element through reads, writes and casts, so no
//! code path is written once per dtype. Casts follow c10 on x86-64: float to integer
//! truncates toward zero (out-of-range values land where the hardware conversion puts them),
//! integer narrowing wraps, anything to bool tests for non-zero, and conversions to 16-bit
//! floats round through float32, as c10's `Half(float)` and `BFloat16(float)` do.

use crate::dtype::{Category, DType};
use half::{bf16, f16};

/// One element value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn category(self) -> Category {
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) => Category::Integral,
            Scalar::Float(_) => Category::Floating,
        }
    }

    /// Reads one element of `dtype` from little-endian bytes.
    pub fn read(dtype: DType, b: &[u8]) -> Scalar {
        match dtype {
            DType::Bool => Scalar::Bool(b[0] != 0),
            DType::U8 => Scalar::Int(b[0] as i64),
            DType::I8 => Scalar::Int(b[0] as i8 as i64),
            DType::I16 => Scalar::Int(i16::from_le_bytes([b[0], b[1]]) as i64),
            DType::I32 => Scalar::Int(i32::from_le_bytes(b[..4].try_into().unwrap()) as i64),
            DType::I64 => Scalar::Int(i64::from_le_bytes(b[..8].try_into().unwrap())),
            DType::F16 => Scalar::Float(f16::from_le_bytes([b[0], b[1]]).to_f64()),
            DType::BF16 => Scalar::Float(bf16::from_le_bytes([b[0], b[1]]).to_f64()),
            DType::F32 => Scalar::Float(f32::from_le_bytes(b[..4].try_into().unwrap()) as f64),
            DType::F64 => Scalar::Float(f64::from_le_bytes(b[..8].try_into().unwrap())),
        }
    }

    /// Writes the value converted to `dtype` into `out` (exactly `dtype.itemsize()` bytes).
    pub fn write(self, dtype: DType, out: &mut [u8]) {
        match dtype {
            DType::Bool => out[0] = self.to_bool() as u8,
            DType::U8 => out[0] = self.to_int_via_i64() as u8,
            DType::I8 => out[0] = self.to_int_via_i32() as i8 as u8,
            DType::I16 => out[..2].copy_from_slice(&(self.to_int_via_i32() as i16).to_le_bytes()),
            DType::I32 => out[..4].copy_from_slice(&self.to_int_via_i32().to_le_bytes()),
            DType::I64 => out[..8].copy_from_slice(&self.to_int_via_i64().to_le_bytes()),
            DType::F16 => out[..2].copy_from_slice(&f16::from_f32(self.to_f32()).to_le_bytes()),
            DType::BF16 => out[..2].copy_from_slice(&bf16::from_f32(self.to_f32()).to_le_bytes()),
            DType::F32 => out[..4].copy_from_slice(&self.to_f32().to_le_bytes()),
            DType::F64 => out[..8].copy_from_slice(&self.to_f64().to_le_bytes()),
        }
    }

    /// The value as `dtype` would store it.
    pub fn cast(self, dtype: DType) -> Scalar {
        let mut buf = [0u8; 8];
        self.write(dtype, &mut buf);
        Scalar::read(dtype, &buf)
    }

    pub fn to_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// Rounds once to float32 (an integer converts directly, not through float64).
    pub fn to_f32(self) -> f32 {
        match self {
            Scalar::Bool(b) => b as u8 as f32,
            Scalar::Int(i) => i as f32,
            Scalar::Float(f) => f as f32,
        }
    }

    /// Integer value for integer arithmetic (bools as 0/1).
    pub fn to_int(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    /// Integer value as a 64-bit conversion gives it (cvttsd2si: NaN and out-of-range
    /// values become i64::MIN).
    fn to_int_via_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => {
                const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
                if f.is_nan() || !(-LIMIT..LIMIT).contains(&f) {
                    i64::MIN
                } else {
                    f as i64
                }
            }
        }
    }

    /// Integer value as a 32-bit conversion gives it, for 32-bit and narrower integer types.
    fn to_int_via_i32(self) -> i32 {
        match self {
            Scalar::Float(f) => {
                if f.is_nan()
                    || !(-2_147_483_649.0..2_147_483_648.0).contains(&f)
                    || f == -2_147_483_649.0
                {
                    i32::MIN
                } else {
                    f as i32
                }
            }
            other => other.to_int_via_i64() as i32,
        }
    }

    /// The value as it appears in a JSON report: numbers, booleans as 0/1, and non-finite
    /// floats as the strings "nan", "inf", "-inf".
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Scalar::Bool(b) => serde_json::Value::from(b as u8),
            Scalar::Int(i) => serde_json::Value::from(i),
            Scalar::Float(f) if f.is_nan() => "nan".into(),
            Scalar::Float(f) if f.is_infinite() => (if f > 0.0 { "inf" } else { "-inf" }).into(),
            Scalar::Float(f) => serde_json::Value::from(f),
        }
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 => {
                write!(f, "{x:.1}")
            }
            Scalar::Float(x) => write!(f, "{x}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_follow_c10() {
        assert_eq!(Scalar::Float(2.7).cast(DType::I64), Scalar::Int(2));
        assert_eq!(Scalar::Float(-2.7).cast(DType::I32), Scalar::Int(-2));
        assert_eq!(Scalar::Int(300).cast(DType::U8), Scalar::Int(44));
        assert_eq!(Scalar::Int(-1).cast(DType::U8), Scalar::Int(255));
        assert_eq!(Scalar::Int(128).cast(DType::I8), Scalar::Int(-128));
        assert_eq!(Scalar::Float(0.5).cast(DType::Bool), Scalar::Bool(true));
        assert_eq!(
            Scalar::Float(f64::NAN).cast(DType::Bool),
            Scalar::Bool(true)
        );
        assert_eq!(
            Scalar::Float(0.1).cast(DType::F32),
            Scalar::Float(0.1f32 as f64)
        );
        assert_eq!(
            Scalar::Float(65520.0).cast(DType::F16),
            Scalar::Float(f64::INFINITY)
        );
        assert_eq!(
            Scalar::Float(1.0 / 3.0).cast(DType::BF16),
            Scalar::Float(0.333984375)
        );
        assert_eq!(Scalar::Bool(true).cast(DType::F64), Scalar::Float(1.0));
    }

    #[test]
    fn round_trip_bytes() {
        for d in DType::ALL {
            let v = Scalar::Int(5).cast(d);
            let mut buf = [0u8; 8];
            v.write(d, &mut buf);
            assert_eq!(Scalar::read(d, &buf), v, "{d}");
        }
    }
}
