//! `stridekit explain`: runs a program written in a subset of PyTorch's Python on the CPU
//! backend and reports every tensor, every storage and what each copy added.

pub mod allocator;
pub mod args;
mod arith_ops;
pub mod ast;
mod attrs;
pub mod autograd;
mod builtins;
mod copy_ops;
mod ctx;
mod dense;
mod env;
pub mod eval;
mod exceptions;
mod exec;
mod indexing;
mod layer_calls;
pub mod lexer;
mod linalg_ops;
mod max_min;
mod modules;
mod nn_ops;
mod norm_ops;
mod objects;
pub mod op_table;
mod operators;
pub mod ops;
pub mod parse;
mod parse_error;
mod pycalls;
pub mod pyfmt;
pub mod pyops;
pub mod report;
pub mod schema;
mod serialize;
mod sim_temporaries;
pub mod steps;
pub mod value;

pub use allocator::Target;
pub use report::Report;

use crate::error::ErrorKind;
use crate::storage::Device;

/// Parses and runs `source`; a parse error becomes the report's error (kind `parse_error`,
/// statement 0, message with line and column) and nothing runs.
pub fn run(source: &str) -> Report {
    run_on(source, Device::Cpu)
}

/// [`run`] with every tensor on `device`: the report is the same as the CPU backend's
/// (values are read back from the device), with the GPU allocator's account.
pub fn run_on(source: &str, device: Device) -> Report {
    run_with(source, device, false)
}

/// [`run_on`] for any [`Target`] (`sim` included); with `strict_overlap`, writes whose
/// operands overlap where PyTorch does not check are refused (`internal_overlap` /
/// `partial_overlap`) instead of run in row-major order with an `order_dependent_overlap`
/// warning. On `sim` and a GPU the report carries the caching allocator's figures after
/// every statement and at the end (`allocator`); a bad STRIDEKIT_ALLOC_CONF is the report's
/// error (statement 0) and nothing runs.
pub fn run_with(source: &str, target: impl Into<Target>, strict_overlap: bool) -> Report {
    let target = target.into();
    let failed = |kind, message: String, at: ast::Span| {
        Report::build(
            &eval::Env::default(),
            Some(eval::StatementError {
                statement: 0,
                at,
                error: crate::TensorError::new(kind, message),
            }),
            steps::Steps::default(),
            &ast::Program::default(),
            &allocator::Allocator::None,
        )
    };
    let alloc = match allocator::Allocator::for_target(target) {
        Ok(a) => a,
        Err(e) => {
            return failed(
                ErrorKind::Device,
                format!("--device {target}: {e}"),
                ast::Span::default(),
            );
        }
    };
    match parse::parse(source) {
        Ok(program) => alloc.run(|| {
            let mut steps = steps::Steps::default();
            let (env, error) = exec::run_observed(
                &program,
                target.device(),
                strict_overlap,
                &mut |line, env| steps.record(line, env, alloc.account()),
            );
            Report::build(&env, error, steps, &program, &alloc)
        }),
        Err(e) => failed(ErrorKind::ParseError, e.to_string(), e.span()),
    }
}

/// [`run`], as the JSON `stridekit explain --json` prints.
pub fn run_to_json(source: &str) -> serde_json::Value {
    run(source).to_json()
}
