//! Parser tests: every construct of the `explain` subset, spans, and every error message.
//! The helpers are here; the tests are grouped by topic in tests/explain_parse/.

#[path = "explain_parse/errors.rs"]
mod errors;
#[path = "explain_parse/expressions.rs"]
mod expressions;
#[path = "explain_parse/limits.rs"]
mod limits;
#[path = "explain_parse/statement_errors.rs"]
mod statement_errors;
#[path = "explain_parse/statements.rs"]
mod statements;

use stridekit::explain::ast::{Expr, Program, Span, StmtKind};
use stridekit::explain::parse::{ParseError, parse};

fn ok(src: &str) -> Program {
    parse(src).unwrap_or_else(|e| panic!("{src:?} failed to parse: {e}"))
}

fn err(src: &str) -> ParseError {
    match parse(src) {
        Ok(p) => panic!("{src:?} parsed, but should not: {p:?}"),
        Err(e) => e,
    }
}

/// Asserts the error's position and message.
fn assert_err(src: &str, line: usize, col: usize, message: &str) {
    let e = err(src);
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (line, col, message),
        "for {src:?}"
    );
}

/// The single expression statement in `src`.
fn expr(src: &str) -> Expr {
    let mut p = ok(src);
    assert_eq!(p.stmts.len(), 1, "{src:?}");
    match p.stmts.remove(0).kind {
        StmtKind::Expr(e) => e,
        other => panic!("{src:?} is not an expression statement: {other:?}"),
    }
}

/// Parses an expression and prints it back.
fn round(src: &str) -> String {
    expr(src).to_string()
}

fn sp(line: usize, col: usize) -> Span {
    Span::new(line, col)
}
