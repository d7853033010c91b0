//! The arithmetic of element-wise ops on one element, in the op's computation dtype, as
//! PyTorch's CPU kernels compute it: integers wrap (computed in 64 bits, narrowed when
//! stored), float16/bfloat16/float32 compute in float32 and float64 in float64, bool ops are
//! logical. Pure: no tensors, no allocation.

use crate::dtype::{Category, DType};
use crate::error::{ErrorKind, Result, TensorError, err};
use crate::scalar::Scalar;

/// An element-wise operation. Binary ops take `[a, b]`, unary ones `[a]`, `Where` takes
/// `[condition, a, b]`, `Clamp` takes `[a, min?, max?]` as its flags say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ElementOp {
    /// `a + alpha * b`
    Add(Scalar),
    /// `a - alpha * b`
    Sub(Scalar),
    Mul,
    /// True division (inputs are already floating).
    Div,
    FloorDiv,
    Remainder,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    Neg,
    Abs,
    Sqrt,
    Exp,
    Square,
    /// `~a`: bitwise not, logical not for bool.
    Invert,
    Where,
    Clamp {
        min: bool,
        max: bool,
    },
    /// `div(rounding_mode='trunc')`: the quotient rounded toward zero.
    TruncDiv,
    /// `torch.maximum` / `torch.minimum` (NaN propagating).
    Maximum,
    Minimum,
    /// `logical_and/or/xor/not`: bool results from the operands' truth values.
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    LogicalNot,
}

impl ElementOp {
    /// One of every op, in declaration order (add/sub with alpha 1, clamp with both bounds),
    /// for tests and tables that must cover them all.
    pub const EVERY: [ElementOp; 31] = {
        use ElementOp::*;
        let one = Scalar::Int(1);
        [
            Add(one),
            Sub(one),
            Mul,
            Div,
            FloorDiv,
            Remainder,
            Pow,
            Eq,
            Ne,
            Lt,
            Le,
            Gt,
            Ge,
            BitAnd,
            BitOr,
            BitXor,
            Neg,
            Abs,
            Sqrt,
            Exp,
            Square,
            Invert,
            Where,
            Clamp {
                min: true,
                max: true,
            },
            TruncDiv,
            Maximum,
            Minimum,
            LogicalAnd,
            LogicalOr,
            LogicalXor,
            LogicalNot,
        ]
    };

    /// The number of inputs the op takes (clamp: with both bounds).
    pub fn arity(self) -> usize {
        use ElementOp::*;
        match self {
            Neg | Abs | Sqrt | Exp | Square | Invert | LogicalNot => 1,
            Where => 3,
            Clamp { min, max } => 1 + min as usize + max as usize,
            _ => 2,
        }
    }

    /// Whether the op yields bool whatever it computes in.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            ElementOp::Eq
                | ElementOp::Ne
                | ElementOp::Lt
                | ElementOp::Le
                | ElementOp::Gt
                | ElementOp::Ge
                | ElementOp::LogicalAnd
                | ElementOp::LogicalOr
                | ElementOp::LogicalXor
                | ElementOp::LogicalNot
        )
    }

    /// PyTorch's kernel name, for "not implemented for" messages.
    fn kernel_name(self) -> &'static str {
        match self {
            ElementOp::Add(_) => "add_cpu",
            ElementOp::Sub(_) => "sub_cpu",
            ElementOp::Mul => "mul_cpu",
            ElementOp::Div => "div_true_cpu",
            ElementOp::FloorDiv => "div_floor_cpu",
            ElementOp::Remainder => "remainder_cpu",
            ElementOp::Pow => "pow",
            ElementOp::Eq | ElementOp::Ne | ElementOp::Lt => "comparison_cpu",
            ElementOp::Le | ElementOp::Gt | ElementOp::Ge => "comparison_cpu",
            ElementOp::BitAnd => "bitwise_and_cpu",
            ElementOp::BitOr => "bitwise_or_cpu",
            ElementOp::BitXor => "bitwise_xor_cpu",
            ElementOp::Neg => "neg_cpu",
            ElementOp::Abs => "abs_cpu",
            ElementOp::Sqrt => "sqrt_vml_cpu",
            ElementOp::Exp => "exp_vml_cpu",
            ElementOp::Square => "pow",
            ElementOp::Invert => "bitwise_not_cpu",
            ElementOp::Where => "where_cpu",
            ElementOp::Clamp { .. } => "clamp_cpu",
            ElementOp::TruncDiv => "div_trunc_cpu",
            ElementOp::Maximum => "maximum_cpu",
            ElementOp::Minimum => "minimum_cpu",
            ElementOp::LogicalAnd | ElementOp::LogicalOr => "logical_cpu",
            ElementOp::LogicalXor | ElementOp::LogicalNot => "logical_cpu",
        }
    }

    /// PyTorch's refusals that depend only on the computation dtype, checked before any
    /// element is computed.
    pub fn check(self, compute: DType) -> Result<()> {
        let not_implemented = || {
            err(
                ErrorKind::DtypeUnsupported,
                format!(
                    "\"{}\" not implemented for '{}'",
                    self.kernel_name(),
                    compute.scalar_type_name()
                ),
            )
        };
        match (self, compute.category()) {
            (ElementOp::Sub(_), Category::Bool) => err(
                ErrorKind::DtypeUnsupported,
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
            ),
            (ElementOp::Neg, Category::Bool) => err(
                ErrorKind::DtypeUnsupported,
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
            ),
            (
                ElementOp::FloorDiv
                | ElementOp::TruncDiv
                | ElementOp::Remainder
                | ElementOp::Abs
                | ElementOp::Pow
                | ElementOp::Clamp { .. },
                Category::Bool,
            ) => not_implemented(),
            (
                ElementOp::BitAnd | ElementOp::BitOr | ElementOp::BitXor | ElementOp::Invert,
                Category::Floating,
            ) => not_implemented(),
            _ => Ok(()),
        }
    }
}

/// "ZeroDivisionError": PyTorch's message for an integer division or remainder by zero.
pub fn zero_division() -> TensorError {
    TensorError::new(ErrorKind::Other, "ZeroDivisionError")
}

/// The floating ops in one precision (`f32` or `f64`), as ATen's scalar kernels write them.
macro_rules! floating {
    ($t:ty, $op:expr, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        match $op {
            ElementOp::Add(alpha) => a + (alpha.to_f64() as $t) * b,
            ElementOp::Sub(alpha) => a - (alpha.to_f64() as $t) * b,
            ElementOp::Mul => a * b,
            ElementOp::Div => a / b,
            ElementOp::FloorDiv => {
                if b == 0.0 {
                    a / b
                } else {
                    let m = a % b;
                    let mut div = (a - m) / b;
                    if m != 0.0 && (b < 0.0) != (m < 0.0) {
                        div -= 1.0;
                    }
                    if div != 0.0 {
                        let f = div.floor();
                        if div - f > 0.5 { f + 1.0 } else { f }
                    } else {
                        (0.0 as $t).copysign(a / b)
                    }
                }
            }
            ElementOp::Remainder => {
                let m = a % b;
                if m != 0.0 && (b < 0.0) != (m < 0.0) {
                    m + b
                } else {
                    m
                }
            }
            ElementOp::TruncDiv => (a / b).trunc(),
            ElementOp::Pow => a.powf(b),
            ElementOp::Neg => -a,
            ElementOp::Abs => a.abs(),
            ElementOp::Sqrt => a.sqrt(),
            ElementOp::Exp => a.exp(),
            ElementOp::Square => a * a,
            op => unreachable!("refused by ElementOp::check: {op:?} on floats"),
        }
    }};
}

/// Applies `op` to `args` (already converted to `compute`); the result is in `compute`
/// (bool for comparisons).
pub fn apply(op: ElementOp, compute: DType, args: &[Scalar]) -> Result<Scalar> {
    let truth = |k: usize| args[k].to_bool();
    match op {
        ElementOp::LogicalNot => return Ok(Scalar::Bool(!truth(0))),
        ElementOp::LogicalAnd => return Ok(Scalar::Bool(truth(0) && truth(1))),
        ElementOp::LogicalOr => return Ok(Scalar::Bool(truth(0) || truth(1))),
        ElementOp::LogicalXor => return Ok(Scalar::Bool(truth(0) != truth(1))),
        ElementOp::Maximum | ElementOp::Minimum => {
            let (a, b) = (args[0], args[1]);
            if compute.is_floating() && (a.to_f64().is_nan() || b.to_f64().is_nan()) {
                return Ok(Scalar::Float(f64::NAN));
            }
            let a_first = if compute.is_floating() {
                a.to_f64() >= b.to_f64()
            } else {
                a.to_int() >= b.to_int()
            };
            let max = if a_first { a } else { b };
            let min = if a_first { b } else { a };
            return Ok(if op == ElementOp::Maximum { max } else { min });
        }
        _ => {}
    }
    if op.is_comparison() {
        return Ok(Scalar::Bool(compare(op, compute, args[0], args[1])));
    }
    match op {
        ElementOp::Where => return Ok(if args[0].to_bool() { args[1] } else { args[2] }),
        ElementOp::Clamp { min, max } => return Ok(clamp(compute, args, min, max)),
        _ => {}
    }
    Ok(match compute.category() {
        Category::Bool => {
            let a = args[0].to_bool();
            let b = args.get(1).is_some_and(|b| b.to_bool());
            Scalar::Bool(match op {
                ElementOp::Add(alpha) => a || (alpha.to_bool() && b),
                ElementOp::Mul | ElementOp::BitAnd => a && b,
                ElementOp::BitOr => a || b,
                ElementOp::BitXor => a != b,
                ElementOp::Invert => !a,
                ElementOp::Square => a,
                _ => unreachable!("refused by ElementOp::check: {op:?} on bool"),
            })
        }
        Category::Integral => Scalar::Int(integral(op, args)?),
        Category::Floating if compute == DType::F64 => {
            let (a, b) = (args[0].to_f64(), args.get(1).map_or(0.0, |b| b.to_f64()));
            Scalar::Float(floating!(f64, op, a, b))
        }
        Category::Floating => {
            let (a, b) = (args[0].to_f32(), args.get(1).map_or(0.0, |b| b.to_f32()));
            Scalar::Float(floating!(f32, op, a, b) as f64)
        }
    })
}

fn integral(op: ElementOp, args: &[Scalar]) -> Result<i64> {
    let a = args[0].to_int();
    let b = args.get(1).map_or(0, |b| b.to_int());
    Ok(match op {
        ElementOp::Add(alpha) => a.wrapping_add(alpha.to_int().wrapping_mul(b)),
        ElementOp::Sub(alpha) => a.wrapping_sub(alpha.to_int().wrapping_mul(b)),
        ElementOp::Mul => a.wrapping_mul(b),
        ElementOp::FloorDiv => {
            if b == 0 {
                return Err(zero_division());
            }
            let q = a.wrapping_div(b);
            if (a < 0) != (b < 0) && q.wrapping_mul(b) != a {
                q - 1
            } else {
                q
            }
        }
        ElementOp::TruncDiv => {
            if b == 0 {
                return Err(zero_division());
            }
            a.wrapping_div(b)
        }
        ElementOp::Remainder => {
            if b == 0 {
                return Err(zero_division());
            }
            let r = a.wrapping_rem(b);
            if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            }
        }
        ElementOp::Pow => int_pow(a, b),
        ElementOp::BitAnd => a & b,
        ElementOp::BitOr => a | b,
        ElementOp::BitXor => a ^ b,
        ElementOp::Invert => !a,
        ElementOp::Neg => a.wrapping_neg(),
        ElementOp::Abs => a.wrapping_abs(),
        ElementOp::Square => a.wrapping_mul(a),
        _ => unreachable!("{op:?} computes in a floating dtype"),
    })
}

/// Integer powers as PyTorch's `powi`: wrapping, and a negative exponent gives 0 except for
/// bases 1 and -1.
fn int_pow(base: i64, exp: i64) -> i64 {
    if exp < 0 {
        return match base {
            1 => 1,
            -1 if exp % 2 == 0 => 1,
            -1 => -1,
            _ => 0,
        };
    }
    let (mut result, mut b, mut e) = (1i64, base, exp);
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    result
}

fn compare(op: ElementOp, compute: DType, a: Scalar, b: Scalar) -> bool {
    let ord = if compute.is_floating() {
        a.to_f64().partial_cmp(&b.to_f64())
    } else {
        Some(a.to_int().cmp(&b.to_int()))
    };
    use std::cmp::Ordering::*;
    match (op, ord) {
        (ElementOp::Ne, None) => true,
        (_, None) => false,
        (ElementOp::Eq, Some(o)) => o == Equal,
        (ElementOp::Ne, Some(o)) => o != Equal,
        (ElementOp::Lt, Some(o)) => o == Less,
        (ElementOp::Le, Some(o)) => o != Greater,
        (ElementOp::Gt, Some(o)) => o == Greater,
        (ElementOp::Ge, Some(o)) => o != Less,
        _ => unreachable!("not a comparison"),
    }
}

/// `min(max(a, lo), hi)`, NaN propagating, as ATen's clamp.
fn clamp(compute: DType, args: &[Scalar], has_min: bool, has_max: bool) -> Scalar {
    let mut rest = args[1..].iter();
    let lo = if has_min { rest.next().copied() } else { None };
    let hi = if has_max { rest.next().copied() } else { None };
    if compute.is_floating() {
        let mut v = args[0].to_f64();
        if v.is_nan() {
            return Scalar::Float(v);
        }
        if let Some(l) = lo.map(|l| l.to_f64()) {
            v = if l.is_nan() || v < l { l } else { v };
        }
        if let Some(h) = hi.map(|h| h.to_f64()) {
            v = if h.is_nan() || h < v { h } else { v };
        }
        Scalar::Float(v)
    } else {
        let mut v = args[0].to_int();
        if let Some(l) = lo {
            v = v.max(l.to_int());
        }
        if let Some(h) = hi {
            v = v.min(h.to_int());
        }
        Scalar::Int(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(op: ElementOp, a: f64, b: f64) -> f64 {
        apply(op, DType::F32, &[Scalar::Float(a), Scalar::Float(b)])
            .unwrap()
            .to_f64()
    }

    fn i(op: ElementOp, a: i64, b: i64) -> Result<i64> {
        apply(op, DType::I64, &[Scalar::Int(a), Scalar::Int(b)]).map(|s| s.to_int())
    }

    #[test]
    fn floor_division_and_remainder_follow_python_signs() {
        assert_eq!(i(ElementOp::FloorDiv, -7, 2).unwrap(), -4);
        assert_eq!(i(ElementOp::Remainder, -7, 2).unwrap(), 1);
        assert_eq!(i(ElementOp::Remainder, 7, -2).unwrap(), -1);
        assert_eq!(
            i(ElementOp::FloorDiv, 1, 0).unwrap_err().message,
            "ZeroDivisionError"
        );
        assert_eq!(f(ElementOp::FloorDiv, -7.0, 2.0), -4.0);
        assert_eq!(f(ElementOp::Remainder, -7.5, 2.0), 0.5);
        assert_eq!(f(ElementOp::FloorDiv, 1.0, 0.0), f64::INFINITY);
        assert!(f(ElementOp::Remainder, -1.0, 0.0).is_nan());
    }

    #[test]
    fn integer_powers_wrap_and_truncate() {
        assert_eq!(i(ElementOp::Pow, 2, 10).unwrap(), 1024);
        assert_eq!(i(ElementOp::Pow, 2, -1).unwrap(), 0);
        assert_eq!(i(ElementOp::Pow, -1, -3).unwrap(), -1);
    }

    #[test]
    fn float32_ops_round_in_float32() {
        assert_eq!(
            f(ElementOp::Add(Scalar::Int(1)), 0.1, 0.2),
            (0.1f32 + 0.2f32) as f64
        );
        assert_eq!(f(ElementOp::Div, 1.0, 3.0), (1.0f32 / 3.0f32) as f64);
        let nan_clamp = apply(
            ElementOp::Clamp {
                min: true,
                max: true,
            },
            DType::F32,
            &[
                Scalar::Float(f64::NAN),
                Scalar::Float(0.0),
                Scalar::Float(1.0),
            ],
        )
        .unwrap();
        assert!(nan_clamp.to_f64().is_nan());
        assert!(ElementOp::Sub(Scalar::Int(1)).check(DType::Bool).is_err());
        assert!(ElementOp::BitAnd.check(DType::F32).is_err());
    }
}
