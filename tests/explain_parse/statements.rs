//! Statements: simple statements, separators and comments, odd inputs, spans, blocks, and
//! statements printed back.

use super::{expr, ok, sp};
use stridekit::explain::ast::{ExprKind, IndexItem, Span, Stmt, StmtKind};

#[test]
fn statements() {
    let p = ok("import torch\nx = torch.ones(4)\nx[0] = 5\ny = x[1:]\ny.copy_(x[:3])\ndel x, y\n");
    let kinds: Vec<&StmtKind> = p.stmts.iter().map(|s| &s.kind).collect();
    assert_eq!(kinds[0], &StmtKind::Import("torch".into()));
    assert!(
        matches!(kinds[1], StmtKind::Assign { target, .. } if target.kind == ExprKind::Name("x".into()))
    );
    assert!(
        matches!(kinds[2], StmtKind::Assign { target, .. } if matches!(target.kind, ExprKind::Subscript { .. }))
    );
    assert!(matches!(kinds[4], StmtKind::Expr(e) if matches!(e.kind, ExprKind::Call { .. })));
    assert_eq!(
        kinds[5],
        &StmtKind::Del(vec![("x".into(), sp(6, 5)), ("y".into(), sp(6, 8))])
    );
    assert_eq!(
        ok("del x,").stmts[0].kind,
        StmtKind::Del(vec![("x".into(), sp(1, 5))])
    );
    assert_eq!(
        ok("import torch.nn").stmts[0].kind,
        StmtKind::Import("torch.nn".into())
    );
    // Subscript targets may have any base.
    assert!(ok("x.data[0] = 1\nf(x)[1:] = 2\nx[0][1] = 3").stmts.len() == 3);
    assert_eq!(
        p.to_string(),
        "import torch\nx = torch.ones(4)\nx[0] = 5\ny = x[1:]\ny.copy_(x[:3])\ndel x, y\n"
    );
}

#[test]
fn semicolons_comments_and_blank_lines() {
    let p = ok("# header\n\nx = 1; y = 2;  # trailing\n   \n\t# indented comment\nz = 3 ;\n");
    let src: Vec<&str> = p.stmts.iter().map(|s| s.source.as_str()).collect();
    assert_eq!(src, vec!["x = 1", "y = 2", "z = 3"]);
    let spans: Vec<Span> = p.stmts.iter().map(|s| s.span).collect();
    assert_eq!(spans, vec![sp(3, 1), sp(3, 8), sp(6, 1)]);
}

#[test]
fn empty_and_odd_inputs() {
    assert!(ok("").stmts.is_empty());
    assert!(ok("\n\n").stmts.is_empty());
    assert!(ok("# only a comment").stmts.is_empty());
    assert!(ok("\r").stmts.is_empty());
    assert!(ok("   \n\t\n").stmts.is_empty());
    assert_eq!(ok("\u{feff}x = 1").stmts.len(), 1);
    // \r\n and lone \r both end lines.
    let p = ok("x = 1\r\ny = 2\rz = 3");
    let lines: Vec<usize> = p.stmts.iter().map(|s| s.span.line).collect();
    assert_eq!(lines, vec![1, 2, 3]);
}

#[test]
fn spans() {
    let p = ok("x = 1\n\ny = torch.zeros(2)[0] + -x\n");
    assert_eq!(p.stmts[1].span, sp(3, 1));
    let StmtKind::Assign { target, value } = &p.stmts[1].kind else {
        panic!()
    };
    assert_eq!(target.span, sp(3, 1));
    // A binary expression starts where its left operand starts, as in Python's ast.
    assert_eq!(value.span, sp(3, 5));
    let ExprKind::Binary { lhs, rhs, .. } = &value.kind else {
        panic!()
    };
    assert_eq!(lhs.span, sp(3, 5));
    assert_eq!(rhs.span, sp(3, 25));
    let ExprKind::Unary { operand, .. } = &rhs.kind else {
        panic!()
    };
    assert_eq!(operand.span, sp(3, 26));
    let ExprKind::Subscript { base, items, .. } = &lhs.kind else {
        panic!()
    };
    assert_eq!(base.span, sp(3, 5));
    let IndexItem::Expr(index) = &items[0] else {
        panic!()
    };
    assert_eq!(index.span, sp(3, 20));
    let ExprKind::Call { args, .. } = &base.kind else {
        panic!()
    };
    assert_eq!(args[0].span, sp(3, 17));

    // Columns count characters, tabs count one.
    let e = expr("f(\t'é', ü)");
    let ExprKind::Call { args, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(args[0].span, sp(1, 4));
    assert_eq!(args[1].span, sp(1, 9));

    // Tuples and lists start at their bracket; parentheses around one expression vanish.
    assert_eq!(expr("  (1, 2)".trim_start()).span, sp(1, 1));
    assert_eq!(expr("((a))").span, sp(1, 3));
    assert_eq!(expr("[1]").span, sp(1, 1));
}

#[test]
fn blocks_parse_and_print_back() {
    let src = "def f(t, k=1):\n    if k > 1:\n        return t[k:]\n    elif k:\n        pass\n    else:\n        raise ValueError('k')\n    return t\nfor i, s in zip(a, b):\n    if i:\n        continue\n    break\nelse:\n    y = {'a': 1, 'b': [v for v in (1, 2) if v]}\nwhile n:\n    n = n - 1\ntry:\n    x = f(1)\nexcept (IndexError, ValueError) as e:\n    print(str(e))\nexcept RuntimeError:\n    raise\nelse:\n    z = sum(i * s for i, s in zip(a, b))\nfinally:\n    w = 1 if x else 2\n";
    let p = ok(src);
    assert_eq!(p.stmts.len(), 4);
    assert_eq!(p.to_string(), src);
    assert_eq!(ok(&p.to_string()).to_string(), src);
    // A compound statement's source is its header; the one-line form parses too.
    assert_eq!(p.stmts[1].source, "for i, s in zip(a, b):");
    let one = ok("if x: y = 1; z = 2\nelse: w = 3\n");
    assert_eq!(one.stmts.len(), 1);
    assert_eq!(one.stmts[0].children().len(), 3);
}

#[test]
fn statement_display_round_trips() {
    let src = "import torch\nx = torch.arange(12).view(3, 4)\nx[:, ::2] = x[:, 1::2] * -1.5\ny = x.t().contiguous()\ny.add_(1, alpha=2)\ndel x\n";
    let p = ok(src);
    assert_eq!(p.to_string(), src);
    let stmts: Vec<&Stmt> = p.stmts.iter().collect();
    assert_eq!(stmts[2].source, "x[:, ::2] = x[:, 1::2] * -1.5");
}
