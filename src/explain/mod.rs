//! `stridekit explain`: runs programs written in a small subset of PyTorch's Python
//! syntax. This module holds the front end: [`lexer`] turns source text into tokens,
//! [`parse`] turns tokens into the syntax tree defined in [`ast`].

pub mod ast;
pub mod lexer;
pub mod parse;
