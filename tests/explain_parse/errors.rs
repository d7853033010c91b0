//! Syntax errors and their messages: how an error prints, brackets, unexpected tokens, call
//! arguments, indentation, numbers, strings and characters.

use super::{assert_err, err, ok};
use stridekit::explain::parse::parse;

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
