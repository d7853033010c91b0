//! Element types, with PyTorch's names and sizes.

use crate::error::{ErrorKind, Result, TensorError};
use serde::Serialize;

/// The element types stridekit stores. 16-bit floats use the `half` crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

/// Serialised under PyTorch's name (`"float32"`, `"bfloat16"`, ...), as reports and
/// benchmark files print it and `getattr(torch, name)` reads it back.
impl Serialize for DType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.torch_name())
    }
}

/// How values of a dtype behave in arithmetic and promotion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Integral,
    Floating,
}

impl DType {
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// Bytes per element.
    pub const fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// PyTorch's name (`torch.float32` prints as `float32`).
    pub const fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// The name PyTorch's C++ side uses in messages (`Float`, `Long`, ...).
    pub const fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::U8 => "Byte",
            DType::I8 => "Char",
            DType::I16 => "Short",
            DType::I32 => "Int",
            DType::I64 => "Long",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::F32 => "Float",
            DType::F64 => "Double",
        }
    }

    pub const fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => Category::Integral,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Floating,
        }
    }

    pub const fn is_floating(self) -> bool {
        matches!(self.category(), Category::Floating)
    }

    /// Parses an attribute name of the `torch` module: `float32`, `float`, `half`, `long`, ...
    pub fn from_torch_attr(name: &str) -> Option<DType> {
        Some(match name {
            "bool" => DType::Bool,
            "uint8" => DType::U8,
            "int8" => DType::I8,
            "int16" | "short" => DType::I16,
            "int32" | "int" => DType::I32,
            "int64" | "long" => DType::I64,
            "float16" | "half" => DType::F16,
            "bfloat16" => DType::BF16,
            "float32" | "float" => DType::F32,
            "float64" | "double" => DType::F64,
            _ => return None,
        })
    }

    /// Like [`DType::from_torch_attr`], with a typed error naming the unknown dtype.
    pub fn parse(name: &str) -> Result<DType> {
        DType::from_torch_attr(name).ok_or_else(|| {
            TensorError::new(
                ErrorKind::DtypeUnsupported,
                format!("unsupported dtype torch.{name}"),
            )
        })
    }
}

/// One operand of an op, as `torch.result_type` weighs it: a tensor with dimensions, a 0-d
/// tensor, or a Python number (a "wrapped number").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromotionOperand {
    Dimensioned(DType),
    ZeroDim(DType),
    Number(Category),
}

/// `torch.promote_types(a, b)` for the dtypes stridekit has.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a.category(), b.category()) {
        (Category::Bool, _) => b,
        (_, Category::Bool) => a,
        (Category::Integral, Category::Integral) => match (a, b) {
            (U8, I8) | (I8, U8) => I16,
            (U8, x) | (x, U8) => x,
            _ if a.itemsize() >= b.itemsize() => a,
            _ => b,
        },
        (Category::Floating, Category::Integral) => a,
        (Category::Integral, Category::Floating) => b,
        (Category::Floating, Category::Floating) => match (a, b) {
            (F16, BF16) | (BF16, F16) => F32,
            _ if a.itemsize() >= b.itemsize() => a,
            _ => b,
        },
    }
}

/// `torch.result_type` over `operands`: the highest category wins, and within it tensors
/// with dimensions outrank 0-d tensors, which outrank Python numbers (an int number is
/// int64, a float number the default float32, a bool bool). For example int8 tensor + 1000
/// stays int8, int64 tensor + 2.5 is float32, float16 tensor + float64 0-d tensor is float16.
pub fn result_type(operands: &[PromotionOperand]) -> DType {
    fn promote(acc: Option<DType>, d: DType) -> Option<DType> {
        Some(acc.map_or(d, |a| promote_types(a, d)))
    }
    fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
        match (higher, lower) {
            (Some(h), _) if h.is_floating() => Some(h),
            (Some(h), Some(l)) if h == DType::Bool || l.is_floating() => Some(promote_types(h, l)),
            (None, l) => l,
            (h, _) => h,
        }
    }
    let (mut dim, mut zero, mut number) = (None, None, None);
    for op in operands {
        match *op {
            PromotionOperand::Dimensioned(d) => dim = promote(dim, d),
            PromotionOperand::ZeroDim(d) => zero = promote(zero, d),
            PromotionOperand::Number(c) => {
                let d = match c {
                    Category::Bool => DType::Bool,
                    Category::Integral => DType::I64,
                    Category::Floating => DType::F32,
                };
                number = promote(number, d);
            }
        }
    }
    combine(dim, combine(zero, number)).unwrap_or(DType::F32)
}

/// `torch.can_cast(from, to)`: whether an in-place op may write a `from` result into a `to`
/// tensor (no float into an integer, nothing but bool into bool).
pub fn can_cast(from: DType, to: DType) -> bool {
    !(from.is_floating() && !to.is_floating() || from != DType::Bool && to == DType::Bool)
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.torch_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_torch_attr(d.torch_name()), Some(d));
        }
        assert_eq!(DType::parse("half").unwrap(), DType::F16);
        assert_eq!(
            DType::parse("complex64").unwrap_err().kind,
            ErrorKind::DtypeUnsupported
        );
    }

    #[test]
    fn promotion_follows_torch_result_type() {
        use PromotionOperand::*;
        assert_eq!(promote_types(DType::U8, DType::I8), DType::I16);
        assert_eq!(promote_types(DType::F16, DType::BF16), DType::F32);
        assert_eq!(promote_types(DType::I64, DType::F16), DType::F16);
        assert_eq!(
            result_type(&[Dimensioned(DType::I8), Number(Category::Integral)]),
            DType::I8
        );
        assert_eq!(
            result_type(&[Dimensioned(DType::I64), Number(Category::Floating)]),
            DType::F32
        );
        assert_eq!(
            result_type(&[Dimensioned(DType::Bool), Number(Category::Integral)]),
            DType::I64
        );
        assert_eq!(
            result_type(&[Dimensioned(DType::F16), ZeroDim(DType::F64)]),
            DType::F16
        );
        assert_eq!(
            result_type(&[Dimensioned(DType::I8), ZeroDim(DType::F64)]),
            DType::F64
        );
        assert_eq!(
            result_type(&[Dimensioned(DType::I8), ZeroDim(DType::I64)]),
            DType::I8
        );
        assert!(!can_cast(DType::F32, DType::I64));
        assert!(!can_cast(DType::I64, DType::Bool));
        assert!(can_cast(DType::I64, DType::F16));
    }

    #[test]
    fn itemsizes() {
        assert_eq!(DType::F32.itemsize(), 4);
        assert_eq!(DType::BF16.itemsize(), 2);
        assert_eq!(DType::Bool.itemsize(), 1);
        assert_eq!(DType::F64.itemsize(), 8);
    }
}
