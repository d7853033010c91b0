//! Parser tests: every construct of the `explain` subset, spans, and every error message.

use stridekit::explain::ast::{
    BinOp, Expr, ExprKind, IndexItem, Program, Span, Stmt, StmtKind, UnaryOp,
};
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
fn error_display() {
    let e = err("f(1 2)");
    assert_eq!(
        e.to_string(),
        "line 1, column 5: expected ',' or ')' but found number '2'"
    );
    assert_eq!(
        err("(1 2)").to_string(),
        "line 1, column 4: expected ',' or ')' but found number '2'"
    );
}

#[test]
fn unterminated_and_mismatched_brackets() {
    assert_err("x = f(1, 2", 1, 6, "'(' was never closed");
    assert_err("x = [1,\n2,\ny = 3\n", 1, 5, "'[' was never closed");
    assert_err("x = f(g(1)\ny = 2", 1, 6, "'(' was never closed");
    assert_err("x = {", 1, 5, "'{' was never closed");
    assert_err(
        "x = f(1]",
        1,
        8,
        "closing ']' does not match opening '(' at line 1, column 6",
    );
    assert_err("x = 1)", 1, 6, "unmatched ')'");
    // An earlier problem wins over a later unclosed bracket.
    assert_err("if x\ny = (", 1, 5, "expected ':' but found end of line");
}

#[test]
fn unexpected_tokens() {
    assert_err(
        "x = 1 +",
        1,
        8,
        "expected an expression but found end of line",
    );
    assert_err("x = ", 1, 5, "expected an expression but found end of line");
    assert_err("x y", 1, 3, "expected end of statement but found name 'y'");
    assert_err(
        "x = 1 2",
        1,
        7,
        "expected end of statement but found number '2'",
    );
    assert_err(
        "x = (1, 2 3)",
        1,
        11,
        "expected ',' or ')' but found number '3'",
    );
    assert_err(
        "x = [1 2]",
        1,
        8,
        "expected ',' or ']' but found number '2'",
    );
    assert_err("x[1 2]", 1, 5, "expected ',' or ']' but found number '2'");
    assert_err("x[]", 1, 3, "expected an index inside '[]'");
    assert_err("x[1,,]", 1, 5, "expected an index but found ','");
    assert_err(
        "x.1",
        1,
        2,
        "expected end of statement but found number '.1'",
    );
    assert_err("x = y\nx.(", 2, 3, "'(' was never closed");
    assert_err(
        "x.(1)",
        1,
        3,
        "expected an attribute name after '.' but found '('",
    );
    assert_err(
        "x.for",
        1,
        3,
        "expected an attribute name after '.' but found keyword 'for'",
    );
    assert_err(
        "x.class",
        1,
        3,
        "expected an attribute name after '.' but found keyword 'class'",
    );
    assert_err(";", 1, 1, "expected an expression but found ';'");
    assert_err("x = ;", 1, 5, "expected an expression but found ';'");
    assert_err(
        "x = 'a' 1",
        1,
        9,
        "expected end of statement but found number '1'",
    );
    // `@` is matmul, at `*`'s precedence
    assert_eq!(
        parse("x = a @ b * c").unwrap().stmts[0].source,
        "x = a @ b * c"
    );
    assert_err("x = a << b", 1, 7, "operator '<<' is not supported");
    assert_err(
        "x = a is",
        1,
        9,
        "expected an expression but found end of line",
    );
    assert_err("x = *y", 1, 5, "starred expressions (*x) are not supported");
    assert_err(
        "f(*args)",
        1,
        3,
        "argument unpacking (*args, **kwargs) is not supported",
    );
    assert_err(
        "f(**kw)",
        1,
        3,
        "argument unpacking (*args, **kwargs) is not supported",
    );
    assert_err(
        "x = import",
        1,
        5,
        "expected an expression but found keyword 'import'",
    );
    assert_err(
        "x = lambda a, a: 1",
        1,
        15,
        "duplicate argument 'a' in function definition",
    );
}

#[test]
fn call_argument_errors() {
    assert_err(
        "f(a=1, 2)",
        1,
        8,
        "positional argument follows keyword argument",
    );
    assert_err("f(x, k=1, k=2)", 1, 11, "keyword argument 'k' repeated");
    assert_err("f(1 2)", 1, 5, "expected ',' or ')' but found number '2'");
    assert_err("f(a.b=1)", 1, 6, "expected ',' or ')' but found '='");
}

#[test]
fn indentation_errors() {
    let msg = "IndentationError: unexpected indent";
    assert_err("  x = 1", 1, 3, msg);
    assert_err("x = 1\n\ty = 2", 2, 2, msg);
    assert_err("x = 1\n    y = 2\nz = (", 2, 5, msg);
    assert_err("for i in x:\n    a = 1\n        b = 2\n", 3, 9, msg);
    // A dedent to a column no enclosing block has.
    assert_err(
        "for i in x:\n    a = 1\n  b = 2\n",
        3,
        3,
        "IndentationError: unindent does not match any outer indentation level",
    );
    // A block that never starts, or ends with the input.
    assert_err(
        "for i in x:\ny = 1\n",
        2,
        1,
        "IndentationError: expected an indented block after 'for' statement on line 1",
    );
    assert_err(
        "def f(a):\n",
        2,
        1,
        "IndentationError: expected an indented block after function definition on line 1",
    );
    assert_err(
        "if x:\n    # only a comment\n",
        3,
        1,
        "IndentationError: expected an indented block after 'if' statement on line 1",
    );
    assert_err(
        "for i in x:",
        1,
        12,
        "IndentationError: expected an indented block after 'for' statement on line 1",
    );
    // Tabs whose meaning depends on the tab size.
    assert_err(
        "if x:\n\ta = 1\n        b = 2\n",
        3,
        9,
        "TabError: inconsistent use of tabs and spaces in indentation",
    );
    // Blank lines, comments and bracketed continuation lines do not count as indentation.
    let p = ok("for i in x:\n\n    # c\n    a = [1,\n  2]\n    b = \\\n 3\nc = 4\n");
    assert_eq!(p.stmts.len(), 2);
    assert_eq!(p.stmts[0].children().len(), 2);
    // Deep nesting is a typed error, not a stack overflow.
    let mut deep = String::new();
    for level in 0..200 {
        deep.push_str(&" ".repeat(level));
        deep.push_str("if x:\n");
    }
    deep.push_str(&" ".repeat(200));
    deep.push_str("pass\n");
    assert!(err(&deep).message.contains("too deeply nested"));
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
fn block_statement_errors() {
    assert_err("break", 1, 1, "'break' outside loop");
    assert_err(
        "def f():\n    for i in x:\n        pass\n    continue\n",
        4,
        5,
        "'continue' outside loop",
    );
    assert_err("return 1", 1, 1, "'return' outside function");
    assert_err(
        "try:\n    x = 1\ny = 2\n",
        3,
        1,
        "expected 'except' or 'finally' block but found name 'y'",
    );
    assert_err(
        "try:\n    x = 1\nexcept:\n    pass\nexcept E:\n    pass\n",
        3,
        1,
        "default 'except:' must be last",
    );
    assert_err(
        "else:\n    x = 1\n",
        1,
        1,
        "invalid syntax: 'else' without a matching statement before it",
    );
    assert_err(
        "try:\n    x\nexcept A, B:\n    pass\n",
        3,
        9,
        "multiple exception types must be parenthesized",
    );
    assert_err(
        "def f(a=1, b):\n    pass\n",
        1,
        12,
        "parameter without a default follows parameter with a default",
    );
    assert_err(
        "def f(*a):\n    pass\n",
        1,
        7,
        "*args, **kwargs and keyword-only parameters are not supported",
    );
    assert_err(
        "x = {1, 2}",
        1,
        7,
        "set literals and set comprehensions are not supported; a '{...}' must be a dict",
    );
    assert_err(
        "f(x for x in y, 1)",
        1,
        15,
        "generator expression must be parenthesized",
    );
    assert_err(
        "x = a if b",
        1,
        11,
        "expected 'else' after 'if' expression but found end of line",
    );
    assert_err(
        "raise E from F",
        1,
        9,
        "'raise ... from ...' is not supported",
    );
}

#[test]
fn number_errors() {
    assert_err(
        "x = 9223372036854775808",
        1,
        5,
        "integer literal '9223372036854775808' is too large (the largest is 9223372036854775807)",
    );
    assert_err(
        "y = 1\nx = [0, 0xFFFFFFFFFFFFFFFFF]",
        2,
        9,
        "integer literal '0xFFFFFFFFFFFFFFFFF' is too large (the largest is 9223372036854775807)",
    );
    assert_err(
        "x = 0777",
        1,
        5,
        "invalid number '0777': leading zeros in decimal integers are not permitted (use 0o for octal)",
    );
    assert_err("x = 12abc", 1, 5, "invalid number '12abc'");
    assert_err("x = 1__0", 1, 5, "invalid number '1__0'");
    assert_err("x = 1_", 1, 5, "invalid number '1_'");
    assert_err("x = 1e", 1, 5, "invalid number '1e'");
    assert_err("x = 0x", 1, 5, "invalid number '0x'");
    assert_err("x = 0b2", 1, 5, "invalid number '0b2'");
    assert_err("x = 1.foo", 1, 5, "invalid number '1.foo'");
    assert_err("x = 2j", 1, 5, "complex number '2j' is not supported");
}

#[test]
fn string_errors() {
    assert_err("x = 'abc", 1, 5, "unterminated string literal");
    assert_err("x = \"abc\ny = 1", 1, 5, "unterminated string literal");
    assert_err("x = 'abc\\", 1, 5, "unterminated string literal");
    assert_err(
        "x = '''a'''",
        1,
        5,
        "triple-quoted strings are not supported",
    );
    assert_err(
        "x = f'a'",
        1,
        5,
        "string prefix 'f' is not supported; use a plain '...' string",
    );
    assert_err("x = '\\x4'", 1, 6, "truncated \\x escape in string literal");
}

#[test]
fn character_errors() {
    assert_err("x = $", 1, 5, "invalid character '$'");
    assert_err(
        "x = 1 ! 2",
        1,
        7,
        "invalid character '!' (Python's 'not' is spelled 'not')",
    );
    assert_err("x = 1 → 2", 1, 7, "invalid character '→' (U+2192)");
    assert_err(
        "x = \\ 1",
        1,
        5,
        "unexpected character after line continuation character '\\'",
    );
    assert_err(
        "x = \\",
        1,
        5,
        "unexpected end of input after line continuation character '\\'",
    );
}

#[test]
fn unsupported_statements() {
    for kw in ["class", "global", "nonlocal"] {
        let src = format!("{kw} x");
        assert_err(
            &src,
            1,
            1,
            &format!(
                "'{kw}' statements are not supported; a program is made of assignments, 'del', 'assert', expression statements, 'if', 'for', 'while', 'with', 'def', 'try', 'raise', 'pass', 'break', 'continue' and 'return'"
            ),
        );
    }
    assert_err(
        "from torch import zeros",
        1,
        1,
        "'from ... import' is not supported; use 'import torch'",
    );
    // `import M as NAME` binds the module (issue 21: `import torch.nn as nn`)
    assert_eq!(
        parse("import torch.nn as nn").unwrap().stmts[0].kind,
        StmtKind::ImportAs("torch.nn".into(), "nn".into())
    );
    assert_err(
        "import torch, numpy",
        1,
        13,
        "only one module per 'import' is supported",
    );
    assert_err(
        "import",
        1,
        7,
        "expected a module name after 'import' but found end of line",
    );
    assert_err("x: int = 1", 1, 2, "type annotations are not supported");
    assert_err(
        "x = y = 1",
        1,
        7,
        "chained assignment (a = b = c) is not supported",
    );
}

#[test]
fn augmented_assignment() {
    assert_err(
        "x += 1",
        1,
        3,
        "augmented assignment is not supported; use x.add_(...)",
    );
    assert_err(
        "x -= 1",
        1,
        3,
        "augmented assignment is not supported; use x.sub_(...)",
    );
    assert_err(
        "y *= 2",
        1,
        3,
        "augmented assignment is not supported; use y.mul_(...)",
    );
    assert_err(
        "y /= 2",
        1,
        3,
        "augmented assignment is not supported; use y.div_(...)",
    );
    assert_err(
        "x[0] += 1",
        1,
        6,
        "augmented assignment is not supported; use x[0].add_(...)",
    );
    assert_err(
        "x **= 2",
        1,
        3,
        "augmented assignment is not supported; use x.pow_(...)",
    );
    assert_err(
        "x @= y",
        1,
        3,
        "augmented assignment is not supported; use x = x @ ...",
    );
}

#[test]
fn del_errors() {
    assert_err(
        "del",
        1,
        4,
        "expected a name after 'del' but found end of line",
    );
    assert_err(
        "del x[0]",
        1,
        6,
        "'del' only supports plain names, e.g. 'del x, y'",
    );
    assert_err(
        "del x.y",
        1,
        6,
        "'del' only supports plain names, e.g. 'del x, y'",
    );
    assert_err(
        "del x y",
        1,
        7,
        "expected ',' or end of statement but found name 'y'",
    );
    assert_err(
        "del 1",
        1,
        5,
        "expected a name after 'del' but found number '1'",
    );
}

#[test]
fn assignment_target_errors() {
    let tail = "; only a name, a subscript (x[...]) or a tuple of them can be assigned to";
    assert_err(
        "x.data = 1",
        1,
        1,
        &format!("cannot assign to attribute 'data'{tail}"),
    );
    assert_err(
        "f() = 1",
        1,
        1,
        &format!("cannot assign to a function call{tail}"),
    );
    assert_err(
        "a, b.c = 1, 2",
        1,
        4,
        &format!("cannot assign to attribute 'c'{tail}"),
    );
    assert_err(
        "() = 1",
        1,
        1,
        &format!("cannot assign to an empty tuple or list{tail}"),
    );
    assert_err("1 = x", 1, 1, &format!("cannot assign to a literal{tail}"));
    assert_err(
        "None = x",
        1,
        1,
        &format!("cannot assign to a literal{tail}"),
    );
    assert_err(
        "a + b = x",
        1,
        1,
        &format!("cannot assign to an expression{tail}"),
    );
    assert_err(
        "-a = x",
        1,
        1,
        &format!("cannot assign to an expression{tail}"),
    );
}

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

#[test]
fn statement_display_round_trips() {
    let src = "import torch\nx = torch.arange(12).view(3, 4)\nx[:, ::2] = x[:, 1::2] * -1.5\ny = x.t().contiguous()\ny.add_(1, alpha=2)\ndel x\n";
    let p = ok(src);
    assert_eq!(p.to_string(), src);
    let stmts: Vec<&Stmt> = p.stmts.iter().collect();
    assert_eq!(stmts[2].source, "x[:, ::2] = x[:, 1::2] * -1.5");
}
