//! The parser's (and the lexer's) error type, below both so that neither imports the other
//! for it.

use super::ast::Span;

/// A syntax error, or a construct outside the supported subset, at a 1-based position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(span: Span, message: impl Into<String>) -> ParseError {
        ParseError {
            line: span.line,
            col: span.col,
            message: message.into(),
        }
    }

    pub fn span(&self) -> Span {
        Span::new(self.line, self.col)
    }
}
