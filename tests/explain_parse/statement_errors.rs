//! Statements the subset refuses, with their messages: misplaced block statements,
//! unsupported statements, augmented assignment, `del` and assignment targets.

use super::assert_err;
use stridekit::explain::ast::StmtKind;
use stridekit::explain::parse::parse;

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
