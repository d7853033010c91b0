//! The syntax tree of an `explain` program.
//!
//! Every node carries the [`Span`] where it starts in the source. [`Expr`], [`Stmt`] and
//! [`Program`] print back as Python that parses to the same tree (up to spans), using
//! the fewest parentheses that keep the meaning.

use std::fmt;

/// A position in the source: 1-based line and 1-based column, counted in characters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub line: usize,
    pub col: usize,
}

impl Span {
    pub fn new(line: usize, col: usize) -> Span {
        Span { line, col }
    }
}

/// A whole program: its statements in source order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    pub stmts: Vec<Stmt>,
}

/// One statement. Several may share a line when separated by `;`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    /// Where the statement's first token starts.
    pub span: Span,
    /// The statement's source text, trimmed (may span lines inside brackets).
    pub source: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `import torch` (the dotted module name); the evaluator treats it as a no-op.
    Import(String),
    /// `target = value`; `target` is an [`ExprKind::Name`], an [`ExprKind::Subscript`], or a
    /// tuple or list of targets (unpacking).
    Assign { target: Expr, value: Expr },
    /// `del a, b`: the names and where each one is.
    Del(Vec<(String, Span)>),
    /// A bare expression, e.g. `x.add_(1)`.
    Expr(Expr),
    /// `assert test` or `assert test, message`.
    Assert { test: Expr, message: Option<Expr> },
}

/// An expression and where it starts (for binary operators, attributes, calls and
/// subscripts that is where their left-most operand starts, as in Python's `ast`).
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A non-negative integer literal (`-1` is `Unary { Neg, Int(1) }`).
    Int(i64),
    Float(f64),
    Bool(bool),
    NoneLit,
    /// `...`
    Ellipsis,
    Str(String),
    Name(String),
    /// `base.name`
    Attr {
        base: Box<Expr>,
        name: String,
    },
    /// `func(args..., name=value...)`: positional arguments always come first.
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
    /// `base[items]`. `tuple` is true when the index is a tuple: more than one item,
    /// or a trailing comma (`x[0,]`).
    Subscript {
        base: Box<Expr>,
        items: Vec<IndexItem>,
        tuple: bool,
    },
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `first op1 e1 op2 e2 ...`: a comparison, chained as in Python (`a == b == c` is
    /// `a == b and b == c`, with `b` evaluated once).
    Compare {
        first: Box<Expr>,
        rest: Vec<(CmpOp, Expr)>,
    },
    /// `a and b and ...` / `a or b or ...` (two or more values, Python's short circuit).
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `lambda a, b: body` (positional parameters only).
    Lambda {
        params: Vec<String>,
        body: Box<Expr>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

impl BoolOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BoolOp::And => "and",
            BoolOp::Or => "or",
        }
    }
}

/// One comma-separated part of a subscript.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexItem {
    Expr(Expr),
    /// `start:stop:step`, every part optional.
    Slice {
        start: Option<Expr>,
        stop: Option<Expr>,
        step: Option<Expr>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `~x`
    Invert,
    /// `not x`
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Invert => "~",
            UnaryOp::Not => "not ",
        }
    }
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}

// Binding strength of printed expressions, weakest first (Python's table).
const PREC_LAMBDA: u8 = 0;
const PREC_OR: u8 = 1;
const PREC_AND: u8 = 2;
const PREC_NOT: u8 = 3;
const PREC_CMP: u8 = 4;
const PREC_BITOR: u8 = 5;
const PREC_BITXOR: u8 = 6;
const PREC_BITAND: u8 = 7;
const PREC_SUM: u8 = 8;
const PREC_TERM: u8 = 9;
const PREC_UNARY: u8 = 10;
const PREC_POWER: u8 = 11;
const PREC_PRIMARY: u8 = 12;

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => match op {
            BinOp::BitOr => PREC_BITOR,
            BinOp::BitXor => PREC_BITXOR,
            BinOp::BitAnd => PREC_BITAND,
            BinOp::Add | BinOp::Sub => PREC_SUM,
            BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => PREC_TERM,
            BinOp::Pow => PREC_POWER,
        },
        ExprKind::Compare { .. } => PREC_CMP,
        ExprKind::Lambda { .. } => PREC_LAMBDA,
        ExprKind::BoolOp {
            op: BoolOp::And, ..
        } => PREC_AND,
        ExprKind::BoolOp { op: BoolOp::Or, .. } => PREC_OR,
        ExprKind::Unary {
            op: UnaryOp::Not, ..
        } => PREC_NOT,
        ExprKind::Unary { .. } => PREC_UNARY,
        ExprKind::Int(v) if *v < 0 => PREC_UNARY,
        ExprKind::Float(v) if v.is_sign_negative() && !v.is_nan() => PREC_UNARY,
        _ => PREC_PRIMARY,
    }
}

/// Writes `e`, parenthesised when `paren` holds.
fn write_wrapped(f: &mut fmt::Formatter<'_>, e: &Expr, paren: bool) -> fmt::Result {
    if paren {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

fn write_float(f: &mut fmt::Formatter<'_>, v: f64) -> fmt::Result {
    if v.is_nan() {
        f.write_str("float('nan')")
    } else if v.is_infinite() {
        f.write_str(if v > 0.0 {
            "float('inf')"
        } else {
            "-float('inf')"
        })
    } else {
        // Debug always keeps a '.' or an exponent, so Python reads it back as a float.
        write!(f, "{v:?}")
    }
}

/// Writes a Python string literal that reads back as `s`.
pub(crate) fn write_str_literal(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    f.write_char('\'')?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '\'' => f.write_str("\\'")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(f, "\\x{:02x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('\'')
}

fn write_list(f: &mut fmt::Formatter<'_>, items: &[Expr]) -> fmt::Result {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{e}")?;
    }
    Ok(())
}

impl fmt::Display for IndexItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexItem::Expr(e) => write!(f, "{e}"),
            IndexItem::Slice { start, stop, step } => {
                if let Some(e) = start {
                    write!(f, "{e}")?;
                }
                f.write_str(":")?;
                if let Some(e) = stop {
                    write!(f, "{e}")?;
                }
                if let Some(e) = step {
                    write!(f, ":{e}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Int(v) => write!(f, "{v}"),
            ExprKind::Float(v) => write_float(f, *v),
            ExprKind::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            ExprKind::NoneLit => f.write_str("None"),
            ExprKind::Ellipsis => f.write_str("..."),
            ExprKind::Str(s) => write_str_literal(f, s),
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Attr { base, name } => {
                // `1.real` would lex as a float, so integer literals need parentheses.
                let paren = prec(base) < PREC_PRIMARY || matches!(base.kind, ExprKind::Int(_));
                write_wrapped(f, base, paren)?;
                write!(f, ".{name}")
            }
            ExprKind::Call { func, args, kwargs } => {
                write_wrapped(f, func, prec(func) < PREC_PRIMARY)?;
                f.write_str("(")?;
                write_list(f, args)?;
                for (i, (name, value)) in kwargs.iter().enumerate() {
                    if i > 0 || !args.is_empty() {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name}={value}")?;
                }
                f.write_str(")")
            }
            ExprKind::Subscript { base, items, tuple } => {
                write_wrapped(f, base, prec(base) < PREC_PRIMARY)?;
                f.write_str("[")?;
                if items.is_empty() {
                    f.write_str("()")?;
                }
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                if *tuple && items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str("]")
            }
            ExprKind::Tuple(items) => {
                f.write_str("(")?;
                write_list(f, items)?;
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            ExprKind::List(items) => {
                f.write_str("[")?;
                write_list(f, items)?;
                f.write_str("]")
            }
            ExprKind::Unary { op, operand } => {
                f.write_str(op.symbol())?;
                write_wrapped(f, operand, prec(operand) < prec(self))
            }
            ExprKind::Compare { first, rest } => {
                write_wrapped(f, first, prec(first) <= PREC_CMP)?;
                for (op, e) in rest {
                    write!(f, " {} ", op.symbol())?;
                    write_wrapped(f, e, prec(e) <= PREC_CMP)?;
                }
                Ok(())
            }
            ExprKind::Lambda { params, body } => {
                f.write_str("lambda")?;
                if !params.is_empty() {
                    write!(f, " {}", params.join(", "))?;
                }
                write!(f, ": {body}")
            }
            ExprKind::BoolOp { op, values } => {
                let p = prec(self);
                for (i, e) in values.iter().enumerate() {
                    if i > 0 {
                        write!(f, " {} ", op.symbol())?;
                    }
                    write_wrapped(f, e, prec(e) <= p)?;
                }
                Ok(())
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let p = prec(self);
                let (lhs_paren, rhs_paren) = if *op == BinOp::Pow {
                    // Right-associative, and the exponent may be a unary expression.
                    (prec(lhs) <= PREC_POWER, prec(rhs) < PREC_UNARY)
                } else {
                    (prec(lhs) < p, prec(rhs) <= p)
                };
                write_wrapped(f, lhs, lhs_paren)?;
                write!(f, " {} ", op.symbol())?;
                write_wrapped(f, rhs, rhs_paren)
            }
        }
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            StmtKind::Import(module) => write!(f, "import {module}"),
            StmtKind::Assign { target, value } => write!(f, "{target} = {value}"),
            StmtKind::Del(names) => {
                f.write_str("del ")?;
                for (i, (name, _)) in names.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(name)?;
                }
                Ok(())
            }
            StmtKind::Expr(e) => write!(f, "{e}"),
            StmtKind::Assert { test, message } => {
                write!(f, "assert {test}")?;
                match message {
                    Some(m) => write!(f, ", {m}"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for stmt in &self.stmts {
            writeln!(f, "{stmt}")?;
        }
        Ok(())
    }
}
