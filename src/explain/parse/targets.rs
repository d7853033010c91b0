//! Assignment targets: which expressions can be assigned to, and the receiver a message
//! suggests.

use super::super::parse_error::ParseError;
use crate::explain::ast::{Expr, ExprKind};

/// The receiver to suggest for an in-place method, e.g. `x` or `x[0]`.
pub(super) fn target_text(target: &Expr) -> String {
    match &target.kind {
        ExprKind::Name(_) | ExprKind::Subscript { .. } | ExprKind::Attr { .. } => {
            target.to_string()
        }
        _ => "x".to_string(),
    }
}

pub(super) fn check_target(target: &Expr) -> Result<(), ParseError> {
    let what = match &target.kind {
        ExprKind::Name(_) | ExprKind::Subscript { .. } => return Ok(()),
        ExprKind::Tuple(items) | ExprKind::List(items) if !items.is_empty() => {
            return items.iter().try_for_each(check_target);
        }
        ExprKind::Tuple(_) | ExprKind::List(_) => "an empty tuple or list".to_string(),
        ExprKind::Attr { name, .. } => format!("attribute '{name}'"),
        ExprKind::Call { .. } => "a function call".to_string(),
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::NoneLit
        | ExprKind::Ellipsis
        | ExprKind::Str(_) => "a literal".to_string(),
        ExprKind::Unary { .. }
        | ExprKind::Binary { .. }
        | ExprKind::Compare { .. }
        | ExprKind::BoolOp { .. }
        | ExprKind::Lambda { .. }
        | ExprKind::IfExp { .. } => "an expression".to_string(),
        ExprKind::Dict(_) => "a dict literal".to_string(),
        ExprKind::Comp { .. } => "a comprehension".to_string(),
    };
    Err(ParseError::new(
        target.span,
        format!(
            "cannot assign to {what}; only a name, a subscript (x[...]) or a tuple of them can be assigned to"
        ),
    ))
}
