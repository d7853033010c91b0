//! Python exception classes for `try`/`except` and `raise`.
//!
//! An error of stridekit's own (an [`ErrorKind`] and PyTorch's message) is caught by the
//! `except` clause of the class PyTorch 2.11 raises for it: [`class_of`] maps the kind to
//! that class, with the exceptions PyTorch makes inside a kind (checked against torch 2.11:
//! `scripts/torch_golden.py` records which class each golden error was, and the golden
//! programs catch every error kind with `except IndexError / ValueError / TypeError /
//! RuntimeError` and print which clause ran). The README lists the mapping.

use crate::error::{ErrorKind, TensorError};

/// The class of a `limit_exceeded` error: no `except` clause catches it either (Python would
/// have gone on running).
pub const LIMIT: &str = "stridekit.LimitExceeded";

/// The classes a program can name, each with its base class (Python's hierarchy, the part
/// PyTorch and the subset raise).
const CLASSES: &[(&str, &str)] = &[
    ("BaseException", ""),
    ("Exception", "BaseException"),
    ("ArithmeticError", "Exception"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("AssertionError", "Exception"),
    ("AttributeError", "Exception"),
    ("LookupError", "Exception"),
    ("IndexError", "LookupError"),
    ("KeyError", "LookupError"),
    ("NameError", "Exception"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("StopIteration", "Exception"),
];

/// The class of an `unsupported` error: no `except` clause catches it, because PyTorch would
/// not have raised anything there (the program uses a feature stridekit does not model).
pub const UNSUPPORTED: &str = "stridekit.Unsupported";

/// The class named `name`, if the subset knows it.
pub fn lookup(name: &str) -> Option<&'static str> {
    CLASSES.iter().find(|(c, _)| *c == name).map(|(c, _)| *c)
}

/// Whether an exception of class `class` is caught by `except handler`.
pub fn is_subclass(class: &str, handler: &str) -> bool {
    if class == UNSUPPORTED || class == LIMIT {
        return false;
    }
    let mut c = class;
    loop {
        if c == handler {
            return true;
        }
        match CLASSES.iter().find(|(name, _)| *name == c) {
            Some((_, base)) if !base.is_empty() => c = base,
            _ => return false,
        }
    }
}

/// The error kind a program's own `raise CLASS(message)` stops the program with.
pub fn kind_of_class(class: &str) -> ErrorKind {
    match class {
        "AssertionError" => ErrorKind::AssertionFailed,
        _ => ErrorKind::Other,
    }
}

/// The Python class PyTorch 2.11 raises for `e` (see the module documentation).
pub fn class_of(e: &TensorError) -> &'static str {
    let m = e.message.as_str();
    let has = |needle: &str| m.contains(needle);
    match e.kind {
        ErrorKind::AssertionFailed => "AssertionError",
        ErrorKind::Unsupported => UNSUPPORTED,
        ErrorKind::LimitExceeded => LIMIT,
        ErrorKind::ParseError => "SyntaxError",
        ErrorKind::InvalidShape if has("expected sequence of length") => "ValueError",
        ErrorKind::DimOutOfRange if has("Dimension out of range") => "IndexError",
        ErrorKind::IndexOutOfRange if has("exceeds dimension size") => "RuntimeError",
        ErrorKind::IndexOutOfRange if has("Expected reduction dim") => "IndexError",
        ErrorKind::IndexOutOfRange => "IndexError",
        ErrorKind::BadStep if has("step must be greater than zero") || has("slice step") => {
            "ValueError"
        }
        ErrorKind::DtypeUnsupported if has("not implemented for") => "NotImplementedError",
        ErrorKind::Other => class_of_other(m),
        _ => "RuntimeError",
    }
}

/// Errors of kind `other`: Python's own errors by their message, else PyTorch's RuntimeError.
fn class_of_other(m: &str) -> &'static str {
    let has = |needle: &str| m.contains(needle);
    if m.starts_with("name '") && m.ends_with("' is not defined") {
        "NameError"
    } else if has("has no attribute") {
        "AttributeError"
    } else if has("division or modulo by zero") || has("division by zero") {
        "ZeroDivisionError"
    } else if has("maximum recursion depth exceeded") {
        "RecursionError"
    } else if has("cannot convert float infinity") {
        "OverflowError"
    } else if has("index out of range") {
        "IndexError"
    } else if m.starts_with("KeyError: ") {
        "KeyError"
    } else if has("invalid literal for int()")
        || has("could not convert string to float")
        || has("cannot convert float NaN")
        || has("only one element tensors can be converted")
        || has("values to unpack")
        || has("arg is an empty sequence")
        || has("must not be zero")
        || has("dropout probability has to be")
    {
        "ValueError"
    } else if has("approximate argument must be") {
        "RuntimeError"
    } else if has(" must be ")
        || has("object is not")
        || has("not supported between instances")
        || has("argument")
        || has("unhashable type")
        || has("bad operand type")
        || has("unsupported operand")
        || has("cannot unpack non-iterable")
        || has("is not iterable")
        || has("iteration over a 0-d tensor")
        || has("len()")
    {
        "TypeError"
    } else {
        "RuntimeError"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchy() {
        assert!(is_subclass("NotImplementedError", "RuntimeError"));
        assert!(is_subclass("IndexError", "LookupError"));
        assert!(is_subclass("IndexError", "Exception"));
        assert!(!is_subclass("IndexError", "RuntimeError"));
        assert!(!is_subclass(UNSUPPORTED, "BaseException"));
    }

    #[test]
    fn pytorch_classes() {
        let e = |k, m: &str| class_of(&TensorError::new(k, m));
        assert_eq!(
            e(
                ErrorKind::DimOutOfRange,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
            ),
            "IndexError"
        );
        assert_eq!(
            e(
                ErrorKind::DimOutOfRange,
                "t() expects a tensor with <= 2 dimensions, but self is 3D"
            ),
            "RuntimeError"
        );
        assert_eq!(
            e(ErrorKind::BadStep, "step must be greater than zero"),
            "ValueError"
        );
        assert_eq!(
            e(ErrorKind::BadStep, "step must be nonzero"),
            "RuntimeError"
        );
        assert_eq!(e(ErrorKind::Other, "name 'q' is not defined"), "NameError");
        assert_eq!(
            e(ErrorKind::ViewIncompatible, "view size ..."),
            "RuntimeError"
        );
    }
}

/// An exception in flight: its Python class, its error, and where the statement that raised
/// it starts.
#[derive(Debug, Clone)]
pub struct Exc {
    pub class: &'static str,
    pub error: TensorError,
    pub at: super::ast::Span,
    /// What the exception keeps alive until it is gone (the end of the `except` body that
    /// caught it, unless the program keeps it): the locals of the Python frames its
    /// traceback holds (`Tensor.backward`'s receiver and `gradient`, the root gradient
    /// `torch.autograd.backward` made), and through `__context__` what the exception being
    /// handled when it was raised holds.
    pub held: Vec<super::value::Value>,
}
