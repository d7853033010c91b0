//! Property tests: the parser never panics, and printing a tree gives Python that
//! parses back to the same tree.

use proptest::prelude::*;
use stridekit::explain::ast::{
    BinOp, BoolOp, CmpOp, Expr, ExprKind, IndexItem, Span, StmtKind, UnaryOp,
};
use stridekit::explain::parse::parse;

const SOUP: &[&str] = &[
    "while",
    "def",
    "try:",
    "except",
    "finally:",
    "else:",
    "elif",
    "return",
    "break",
    "continue",
    "pass",
    "raise",
    "in",
    "as",
    "\n    ",
    "\n        ",
    "\n  ",
    "\n\t",
    "x",
    "y",
    "torch",
    "zeros",
    "import",
    "del",
    "for",
    "if",
    "lambda",
    "not",
    "True",
    "None",
    "0",
    "1",
    "007",
    "1.5",
    ".5",
    "1.",
    "1e3",
    "1e",
    "1_0",
    "9223372036854775807",
    "9223372036854775808",
    "0x1f",
    "2j",
    "'s'",
    "\"t\"",
    "'",
    "\"",
    "'''",
    "f'",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ";",
    ".",
    "...",
    "=",
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "+=",
    "==",
    "~",
    "@",
    "!",
    "$",
    "\\",
    "#c",
    "\n",
    "\r",
    "\r\n",
    "\t",
    "  ",
    "é",
    "\u{feff}",
    "\0",
    "\\\n",
];

/// Asserts that parsing does not panic, and that a program that parses prints as one that
/// parses to the same text again.
fn check(src: &str) {
    if let Ok(program) = parse(src) {
        let printed = program.to_string();
        let reparsed = parse(&printed)
            .unwrap_or_else(|e| panic!("{src:?} printed as {printed:?}, which fails: {e}"));
        assert_eq!(reparsed.to_string(), printed, "for {src:?}");
    }
}

fn leaf() -> impl Strategy<Value = ExprKind> {
    prop_oneof![
        (0i64..1000).prop_map(ExprKind::Int),
        Just(ExprKind::Int(i64::MAX)),
        prop::sample::select(vec![0.5, 1.0, 1e-3, 2.5e10, 1e300, 0.0]).prop_map(ExprKind::Float),
        any::<bool>().prop_map(ExprKind::Bool),
        Just(ExprKind::NoneLit),
        Just(ExprKind::Ellipsis),
        "[a-z'\"\\\\\n\t\u{1}é]{0,4}".prop_map(ExprKind::Str),
        prop::sample::select(vec!["x", "y", "torch", "_t1"])
            .prop_map(|n| ExprKind::Name(n.to_string())),
    ]
}

fn mk(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}

fn expr_tree() -> impl Strategy<Value = Expr> {
    leaf().prop_map(mk).prop_recursive(5, 48, 4, |inner| {
        let op = prop::sample::select(vec![
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::FloorDiv,
            BinOp::Mod,
            BinOp::Pow,
            BinOp::BitAnd,
            BinOp::BitOr,
            BinOp::BitXor,
        ]);
        let cmp = prop::sample::select(vec![
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
            CmpOp::Is,
            CmpOp::IsNot,
            CmpOp::In,
            CmpOp::NotIn,
        ]);
        let opt = prop::option::of(inner.clone());
        let item = prop_oneof![
            inner.clone().prop_map(IndexItem::Expr),
            (opt.clone(), opt.clone(), opt).prop_map(|(start, stop, step)| IndexItem::Slice {
                start,
                stop,
                step
            }),
        ];
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["t", "view", "shape"])
            )
                .prop_map(|(base, name)| mk(ExprKind::Attr {
                    base: Box::new(base),
                    name: name.to_string()
                })),
            (
                inner.clone(),
                prop::collection::vec(inner.clone(), 0..3),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(func, args, kw)| {
                    let names = ["dim", "keepdim", "out"];
                    let kwargs = kw
                        .into_iter()
                        .enumerate()
                        .map(|(i, e)| (names[i].to_string(), e))
                        .collect();
                    mk(ExprKind::Call {
                        func: Box::new(func),
                        args,
                        kwargs,
                    })
                }),
            (
                inner.clone(),
                prop::collection::vec(item, 1..4),
                any::<bool>()
            )
                .prop_map(|(base, items, comma)| {
                    let tuple = comma || items.len() > 1;
                    mk(ExprKind::Subscript {
                        base: Box::new(base),
                        items,
                        tuple,
                    })
                }),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| mk(ExprKind::Tuple(v))),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| mk(ExprKind::List(v))),
            (
                prop::sample::select(vec![
                    UnaryOp::Neg,
                    UnaryOp::Pos,
                    UnaryOp::Invert,
                    UnaryOp::Not
                ]),
                inner.clone()
            )
                .prop_map(|(op, operand)| mk(ExprKind::Unary {
                    op,
                    operand: Box::new(operand)
                })),
            (
                inner.clone(),
                prop::collection::vec((cmp, inner.clone()), 1..3)
            )
                .prop_map(|(first, rest)| mk(ExprKind::Compare {
                    first: Box::new(first),
                    rest
                })),
            (any::<bool>(), prop::collection::vec(inner.clone(), 2..4)).prop_map(
                |(and, values)| mk(ExprKind::BoolOp {
                    op: if and { BoolOp::And } else { BoolOp::Or },
                    values
                })
            ),
            (
                prop::sample::select(vec![vec![], vec!["t"], vec!["a", "b"]]),
                inner.clone()
            )
                .prop_map(|(params, body)| mk(ExprKind::Lambda {
                    params: params.into_iter().map(String::from).collect(),
                    body: Box::new(body)
                })),
            (op, inner.clone(), inner).prop_map(|(op, lhs, rhs)| mk(ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs)
            })),
        ]
    })
}

/// The tree with every span reset, for comparing trees parsed from different text.
fn strip(e: &Expr) -> Expr {
    let b = |e: &Expr| Box::new(strip(e));
    let o = |e: &Option<Expr>| e.as_ref().map(strip);
    let kind = match &e.kind {
        ExprKind::Attr { base, name } => ExprKind::Attr {
            base: b(base),
            name: name.clone(),
        },
        ExprKind::Call { func, args, kwargs } => ExprKind::Call {
            func: b(func),
            args: args.iter().map(strip).collect(),
            kwargs: kwargs.iter().map(|(k, v)| (k.clone(), strip(v))).collect(),
        },
        ExprKind::Subscript { base, items, tuple } => ExprKind::Subscript {
            base: b(base),
            items: items
                .iter()
                .map(|item| match item {
                    IndexItem::Expr(e) => IndexItem::Expr(strip(e)),
                    IndexItem::Slice { start, stop, step } => IndexItem::Slice {
                        start: o(start),
                        stop: o(stop),
                        step: o(step),
                    },
                })
                .collect(),
            tuple: *tuple,
        },
        ExprKind::Tuple(v) => ExprKind::Tuple(v.iter().map(strip).collect()),
        ExprKind::List(v) => ExprKind::List(v.iter().map(strip).collect()),
        ExprKind::Unary { op, operand } => ExprKind::Unary {
            op: *op,
            operand: b(operand),
        },
        ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
            op: *op,
            lhs: b(lhs),
            rhs: b(rhs),
        },
        ExprKind::Compare { first, rest } => ExprKind::Compare {
            first: b(first),
            rest: rest.iter().map(|(op, e)| (*op, strip(e))).collect(),
        },
        ExprKind::BoolOp { op, values } => ExprKind::BoolOp {
            op: *op,
            values: values.iter().map(strip).collect(),
        },
        ExprKind::Lambda { params, body } => ExprKind::Lambda {
            params: params.clone(),
            body: b(body),
        },
        other => other.clone(),
    };
    mk(kind)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_on_arbitrary_strings(src in any::<String>()) {
        check(&src);
    }

    #[test]
    fn never_panics_on_ascii_text(src in "[ -~\t\n\r]{0,120}") {
        check(&src);
    }

    #[test]
    fn never_panics_on_token_soup(
        parts in prop::collection::vec(
            (prop::sample::select(SOUP), prop::sample::select(&[" ", "", "", "\n"][..])),
            0..40,
        )
    ) {
        let src: String = parts.iter().flat_map(|(tok, sep)| [*tok, *sep]).collect();
        check(&src);
    }

    #[test]
    fn printed_expressions_parse_back(e in expr_tree()) {
        let src = format!("y = {e}");
        let program = parse(&src).map_err(|err| TestCaseError::fail(format!("{src:?}: {err}")))?;
        prop_assert_eq!(program.stmts.len(), 1);
        let StmtKind::Assign { value, .. } = &program.stmts[0].kind else {
            return Err(TestCaseError::fail(format!("{src:?} is not an assignment")));
        };
        prop_assert_eq!(strip(value), e, "{}", src);
    }
}
