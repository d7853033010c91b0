//! Expressions: literals, attributes and calls, continuation lines, subscripts and slices,
//! tuples and lists, operators and their precedence.

use super::{expr, ok, round, sp};
use stridekit::explain::ast::{BinOp, ExprKind, IndexItem, StmtKind, UnaryOp};

#[test]
fn literals() {
    assert_eq!(expr("42").kind, ExprKind::Int(42));
    assert_eq!(expr("1_000_000").kind, ExprKind::Int(1_000_000));
    assert_eq!(expr("0x1F").kind, ExprKind::Int(31));
    assert_eq!(expr("0o17").kind, ExprKind::Int(15));
    assert_eq!(expr("0b101").kind, ExprKind::Int(5));
    assert_eq!(expr("0").kind, ExprKind::Int(0));
    assert_eq!(expr("00").kind, ExprKind::Int(0));
    assert_eq!(expr("9223372036854775807").kind, ExprKind::Int(i64::MAX));
    assert_eq!(expr("1.5").kind, ExprKind::Float(1.5));
    assert_eq!(expr("1.").kind, ExprKind::Float(1.0));
    assert_eq!(expr(".5").kind, ExprKind::Float(0.5));
    assert_eq!(expr("1e-3").kind, ExprKind::Float(1e-3));
    assert_eq!(expr("1.5e3").kind, ExprKind::Float(1500.0));
    assert_eq!(expr("2E+2").kind, ExprKind::Float(200.0));
    assert_eq!(expr("1_0.2_5").kind, ExprKind::Float(10.25));
    assert_eq!(expr("True").kind, ExprKind::Bool(true));
    assert_eq!(expr("False").kind, ExprKind::Bool(false));
    assert_eq!(expr("None").kind, ExprKind::NoneLit);
    assert_eq!(expr("...").kind, ExprKind::Ellipsis);
    assert_eq!(expr("'a b'").kind, ExprKind::Str("a b".into()));
    assert_eq!(expr("\"it's\"").kind, ExprKind::Str("it's".into()));
    assert_eq!(expr(r"'a\tb\\'").kind, ExprKind::Str("a\tb\\".into()));
    assert_eq!(expr("'a' \"b\"").kind, ExprKind::Str("ab".into()));
    assert_eq!(expr("x_1").kind, ExprKind::Name("x_1".into()));
    assert_eq!(expr("données").kind, ExprKind::Name("données".into()));
}

#[test]
fn attributes_calls_and_keywords() {
    let e = expr("torch.zeros(2, 3, dtype=torch.float16)");
    let ExprKind::Call { func, args, kwargs } = e.kind else {
        panic!("not a call")
    };
    assert_eq!(func.to_string(), "torch.zeros");
    assert!(matches!(&func.kind, ExprKind::Attr { name, .. } if name == "zeros"));
    assert_eq!(args.len(), 2);
    assert_eq!(kwargs.len(), 1);
    assert_eq!(kwargs[0].0, "dtype");
    assert_eq!(kwargs[0].1.to_string(), "torch.float16");
    assert_eq!(round("f()"), "f()");
    assert_eq!(round("f(a,)"), "f(a)");
    assert_eq!(round("f(k=1,)"), "f(k=1)");
    assert_eq!(round("x.add_(1)"), "x.add_(1)");
    assert_eq!(
        round("x.t().contiguous().view(-1)"),
        "x.t().contiguous().view(-1)"
    );
    assert_eq!(round("f(a)(b)[0].c"), "f(a)(b)[0].c");
}

#[test]
fn multi_line_calls() {
    let p = ok("y = torch.empty(\n    2,   # rows\n    3,\n)\nz = y\n");
    assert_eq!(p.stmts.len(), 2);
    assert_eq!(p.stmts[0].to_string(), "y = torch.empty(2, 3)");
    assert_eq!(
        p.stmts[0].source,
        "y = torch.empty(\n    2,   # rows\n    3,\n)"
    );
    assert_eq!(p.stmts[1].span, sp(5, 1));
}

#[test]
fn backslash_continuation() {
    let p = ok("x = 1 + \\\n    2\ny = x\n");
    assert_eq!(p.stmts.len(), 2);
    assert_eq!(p.stmts[0].to_string(), "x = 1 + 2");
    assert_eq!(p.stmts[1].span, sp(3, 1));
}

fn items(src: &str) -> (Vec<IndexItem>, bool) {
    match expr(src).kind {
        ExprKind::Subscript { items, tuple, .. } => (items, tuple),
        other => panic!("{src:?} is not a subscript: {other:?}"),
    }
}

#[test]
fn subscripts_and_slices() {
    let (it, tuple) = items("x[:]");
    assert!(!tuple);
    assert!(matches!(
        &it[..],
        [IndexItem::Slice {
            start: None,
            stop: None,
            step: None
        }]
    ));
    let (it, _) = items("x[::2]");
    assert!(matches!(
        &it[..],
        [IndexItem::Slice { start: None, stop: None, step: Some(s) }] if s.kind == ExprKind::Int(2)
    ));
    let (it, _) = items("x[1:]");
    assert!(matches!(
        &it[..],
        [IndexItem::Slice { start: Some(s), stop: None, step: None }] if s.kind == ExprKind::Int(1)
    ));
    let (it, tuple) = items("x[..., 0]");
    assert!(tuple);
    assert!(matches!(
        &it[..],
        [IndexItem::Expr(a), IndexItem::Expr(b)]
            if a.kind == ExprKind::Ellipsis && b.kind == ExprKind::Int(0)
    ));
    let (it, tuple) = items("x[None]");
    assert!(!tuple);
    assert!(matches!(&it[..], [IndexItem::Expr(a)] if a.kind == ExprKind::NoneLit));
    let (it, tuple) = items("x[0,]");
    assert!(tuple);
    assert_eq!(it.len(), 1);
    let (it, tuple) = items("x[:, None, 1:-1:2]");
    assert!(tuple);
    assert_eq!(it.len(), 3);
    let IndexItem::Slice {
        start: Some(start),
        stop: Some(stop),
        step: Some(step),
    } = &it[2]
    else {
        panic!("not a full slice")
    };
    assert_eq!(start.kind, ExprKind::Int(1));
    assert_eq!(stop.to_string(), "-1");
    assert_eq!(step.kind, ExprKind::Int(2));

    for src in [
        "x[:]",
        "x[::2]",
        "x[1:]",
        "x[:3]",
        "x[1:2]",
        "x[::]",
        "x[..., 0]",
        "x[None]",
        "x[0,]",
        "x[:, None, 1:-1:2]",
        "x[(1, 2)]",
        "x[i + 1:n * 2]",
        "x[0][1]",
    ] {
        let printed = round(src);
        let expected = if src == "x[::]" { "x[:]" } else { src };
        assert_eq!(printed, expected, "for {src:?}");
    }
}

#[test]
fn tuples_and_lists() {
    assert_eq!(expr("()").kind, ExprKind::Tuple(vec![]));
    assert!(matches!(expr("(a,)").kind, ExprKind::Tuple(v) if v.len() == 1));
    assert!(matches!(expr("(a, b)").kind, ExprKind::Tuple(v) if v.len() == 2));
    assert!(matches!(expr("(a, b,)").kind, ExprKind::Tuple(v) if v.len() == 2));
    assert_eq!(expr("(a)").kind, ExprKind::Name("a".into()));
    assert!(matches!(expr("[]").kind, ExprKind::List(v) if v.is_empty()));
    let e = expr("torch.tensor([[1, 2], [3, 4]])");
    assert_eq!(e.to_string(), "torch.tensor([[1, 2], [3, 4]])");
    let ExprKind::Call { args, .. } = e.kind else {
        panic!()
    };
    let ExprKind::List(rows) = &args[0].kind else {
        panic!()
    };
    assert!(matches!(&rows[1].kind, ExprKind::List(v) if v[0].kind == ExprKind::Int(3)));
    assert_eq!(round("[1, 2,]"), "[1, 2]");
    assert_eq!(round("((1,), ())"), "((1,), ())");
    // A bare tuple at statement level, as Python allows.
    let p = ok("x = 1, 2");
    let StmtKind::Assign { value, .. } = &p.stmts[0].kind else {
        panic!()
    };
    assert!(matches!(&value.kind, ExprKind::Tuple(v) if v.len() == 2));
    assert_eq!(p.stmts[0].to_string(), "x = (1, 2)");
}

#[test]
fn operators_and_precedence() {
    let e = expr("1 + 2 * 3");
    let ExprKind::Binary { op, lhs, rhs } = e.kind else {
        panic!()
    };
    assert_eq!(op, BinOp::Add);
    assert_eq!(lhs.kind, ExprKind::Int(1));
    assert!(matches!(rhs.kind, ExprKind::Binary { op: BinOp::Mul, .. }));

    // -2**2 is -(2**2).
    let e = expr("-2**2");
    let ExprKind::Unary { op, operand } = e.kind else {
        panic!()
    };
    assert_eq!(op, UnaryOp::Neg);
    assert!(matches!(
        operand.kind,
        ExprKind::Binary { op: BinOp::Pow, .. }
    ));

    // ** is right-associative.
    let ExprKind::Binary { op, rhs, .. } = expr("2 ** 3 ** 2").kind else {
        panic!()
    };
    assert_eq!(op, BinOp::Pow);
    assert!(matches!(rhs.kind, ExprKind::Binary { op: BinOp::Pow, .. }));

    // - is left-associative.
    let ExprKind::Binary { lhs, .. } = expr("a - b - c").kind else {
        panic!()
    };
    assert!(matches!(lhs.kind, ExprKind::Binary { op: BinOp::Sub, .. }));

    for (src, printed) in [
        ("a+b*c", "a + b * c"),
        ("(a+b)*c", "(a + b) * c"),
        ("a-(b-c)", "a - (b - c)"),
        ("(a-b)-c", "a - b - c"),
        ("a/(b*c)", "a / (b * c)"),
        ("a//b%c", "a // b % c"),
        ("-2**2", "-2 ** 2"),
        ("(-2)**2", "(-2) ** 2"),
        ("2**-1", "2 ** -1"),
        ("(2**3)**2", "(2 ** 3) ** 2"),
        ("2**3**2", "2 ** 3 ** 2"),
        ("+-x", "+-x"),
        ("-(a+b)", "-(a + b)"),
        ("(a+b).sum()", "(a + b).sum()"),
        ("(-x)[0]", "(-x)[0]"),
        ("(1).real", "(1).real"),
        ("1.5.real", "1.5.real"),
        ("x.size(0) * 2 // 3", "x.size(0) * 2 // 3"),
    ] {
        assert_eq!(round(src), printed, "for {src:?}");
    }
}
