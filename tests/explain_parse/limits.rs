//! The nesting limit: deep but reasonable nesting parses, deeper is a typed error, and the
//! parser fits a small stack.

use super::{err, ok};
use stridekit::explain::parse::parse;

#[test]
fn nesting_limit() {
    // Deep but reasonable nesting works ...
    let src = format!("x = {}1{}", "(".repeat(63), ")".repeat(63));
    assert_eq!(ok(&src).stmts.len(), 1);
    let src = format!("x = {}1", "-".repeat(63));
    assert_eq!(ok(&src).stmts.len(), 1);
    let src = format!("x = {}1{}", "f([x[-(".repeat(12), ")]])".repeat(12));
    assert_eq!(ok(&src).stmts.len(), 1);
    let e = err(&format!("x = {}1{}", "(".repeat(65), ")".repeat(65)));
    assert_eq!(
        e.to_string(),
        "line 1, column 69: expression is too deeply nested (more than 64 levels)"
    );
    // ... absurd nesting is an error rather than a stack overflow.
    let e = err(&format!("x = {}1{}", "(".repeat(5000), ")".repeat(5000)));
    assert!(e.message.contains("too deeply nested"), "{e}");
    let e = err(&format!("x = {}1", "-".repeat(100_000)));
    assert!(e.message.contains("too deeply nested"), "{e}");
    let e = err(&format!("x = 1{}", " + 1".repeat(100_000)));
    assert!(e.message.contains("too deeply nested"), "{e}");
    let e = err(&format!("x = y{}", ".a".repeat(100_000)));
    assert!(e.message.contains("too deeply nested"), "{e}");
    let e = err(&format!("x = y{}", "[0]".repeat(100_000)));
    assert!(e.message.contains("too deeply nested"), "{e}");
    let e = err(&format!("x = {}", "[".repeat(100_000)));
    assert!(
        e.message.contains("too deeply nested") || e.message.contains("never closed"),
        "{e}"
    );
}

#[test]
fn nesting_limit_fits_a_small_stack() {
    // The deepest accepted programs must parse, print and drop within 1.5 MiB of
    // stack even in a debug build (threads get 2 MiB by default).
    let handle = std::thread::Builder::new()
        .stack_size(3 << 19)
        .spawn(|| {
            let depth = stridekit::explain::parse::MAX_DEPTH;
            let src = format!("x = {}1{}", "(".repeat(depth), ")".repeat(depth));
            let p = parse(&src).map(|p| p.to_string());
            let src = format!(
                "x = {}1{}",
                "y[f(".repeat(depth / 2),
                ")]".repeat(depth / 2)
            );
            let q = parse(&src).map(|p| p.to_string());
            (p.is_ok(), q.is_ok())
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), (true, true));
}
