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
    Assign {
        target: Expr,
        value: Expr,
    },
    /// `del a, b`: the names and where each one is.
    Del(Vec<(String, Span)>),
    /// A bare expression, e.g. `x.add_(1)`.
    Expr(Expr),
    /// `assert test` or `assert test, message`.
    Assert {
        test: Expr,
        message: Option<Expr>,
    },
    /// `if test: body` with its `elif` branches in order, then `else`.
    If {
        branches: Vec<(Expr, Vec<Stmt>)>,
        orelse: Vec<Stmt>,
    },
    /// `for target in iter: body` (`else:` runs when the loop was not broken).
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `while test: body` (`else:` runs when the loop was not broken).
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `def name(params): body`.
    Def(std::rc::Rc<FunctionDef>),
    /// `return` or `return value`.
    Return(Option<Expr>),
    Break,
    Continue,
    Pass,
    /// `raise` (re-raise the exception being handled) or `raise value`.
    Raise(Option<Expr>),
    /// `with context: body` (`torch.no_grad()` / `torch.enable_grad()`).
    With {
        context: Expr,
        body: Vec<Stmt>,
    },
    /// `try: body` with its `except` handlers, `else:` and `finally:`.
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
    },
}

/// A function defined with `def`.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    pub name: String,
    /// Positional parameters in order; those with a default come last.
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

/// One parameter of a `def`: its name and default value.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub default: Option<Expr>,
}

/// `except [types [as name]]: body`.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    /// The exception class (a name) or a tuple of them; None catches everything.
    pub types: Option<Expr>,
    pub name: Option<String>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// One `for target in iter if cond ...` clause of a comprehension.
#[derive(Debug, Clone, PartialEq)]
pub struct CompFor {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

/// What a comprehension builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompKind {
    /// `[elt for ...]`
    List,
    /// `(elt for ...)`, evaluated when it is made (see the README).
    Generator,
    /// `{key: value for ...}` (`value` is the comprehension's `value`).
    Dict,
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
    /// `{k: v, ...}`
    Dict(Vec<(Expr, Expr)>),
    /// `[elt for ...]`, `(elt for ...)`, `{elt: value for ...}`.
    Comp {
        kind: CompKind,
        elt: Box<Expr>,
        value: Option<Box<Expr>>,
        generators: Vec<CompFor>,
    },
    /// `body if test else orelse`
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
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

    /// The ATen op the operator calls on tensors (autograd names its node after it).
    pub fn aten_name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::FloorDiv => "floor_divide",
            BinOp::Mod => "remainder",
            BinOp::Pow => "pow",
            BinOp::BitAnd => "bitwise_and",
            BinOp::BitOr => "bitwise_or",
            BinOp::BitXor => "bitwise_xor",
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
        ExprKind::Lambda { .. } | ExprKind::IfExp { .. } => PREC_LAMBDA,
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
                // A generator expression as the only argument keeps its own parentheses.
                if let ([arg], true) = (args.as_slice(), kwargs.is_empty())
                    && matches!(
                        arg.kind,
                        ExprKind::Comp {
                            kind: CompKind::Generator,
                            ..
                        }
                    )
                {
                    return write!(f, "{arg}");
                }
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
            ExprKind::Dict(items) => {
                f.write_str("{")?;
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            ExprKind::Comp {
                kind,
                elt,
                value,
                generators,
            } => {
                let (open, close) = match kind {
                    CompKind::List => ("[", "]"),
                    CompKind::Generator => ("(", ")"),
                    CompKind::Dict => ("{", "}"),
                };
                f.write_str(open)?;
                write_wrapped(f, elt, prec(elt) == PREC_LAMBDA)?;
                if let Some(v) = value {
                    f.write_str(": ")?;
                    write_wrapped(f, v, prec(v) == PREC_LAMBDA)?;
                }
                for g in generators {
                    write!(f, " for {} in ", Targets(&g.target))?;
                    write_wrapped(f, &g.iter, prec(&g.iter) == PREC_LAMBDA)?;
                    for c in &g.ifs {
                        f.write_str(" if ")?;
                        write_wrapped(f, c, prec(c) == PREC_LAMBDA)?;
                    }
                }
                f.write_str(close)
            }
            ExprKind::IfExp { test, body, orelse } => {
                write_wrapped(f, body, prec(body) == PREC_LAMBDA)?;
                f.write_str(" if ")?;
                write_wrapped(f, test, prec(test) == PREC_LAMBDA)?;
                f.write_str(" else ")?;
                write!(f, "{orelse}")
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
            StmtKind::Return(Some(v)) => write!(f, "return {}", Targets(v)),
            StmtKind::Return(None) => f.write_str("return"),
            StmtKind::Raise(Some(v)) => write!(f, "raise {v}"),
            StmtKind::Raise(None) => f.write_str("raise"),
            StmtKind::Break => f.write_str("break"),
            StmtKind::Continue => f.write_str("continue"),
            StmtKind::Pass => f.write_str("pass"),
            _ => write_block_stmt(f, self, 0),
        }
    }
}

/// A target list as a `for` clause writes it: a tuple without parentheses.
struct Targets<'a>(&'a Expr);

impl fmt::Display for Targets<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.kind {
            ExprKind::Tuple(items) if !items.is_empty() => {
                write_list(f, items)?;
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                Ok(())
            }
            _ => write!(f, "{}", self.0),
        }
    }
}

fn write_body(f: &mut fmt::Formatter<'_>, body: &[Stmt], indent: usize) -> fmt::Result {
    for stmt in body {
        write_block_stmt(f, stmt, indent + 1)?;
    }
    Ok(())
}

/// Writes `stmt` at `indent` levels (four spaces each), blocks on the following lines; every
/// line but a simple statement's ends with a newline.
fn write_block_stmt(f: &mut fmt::Formatter<'_>, stmt: &Stmt, indent: usize) -> fmt::Result {
    let pad = "    ".repeat(indent);
    match &stmt.kind {
        StmtKind::If { branches, orelse } => {
            for (i, (test, body)) in branches.iter().enumerate() {
                let word = if i == 0 { "if" } else { "elif" };
                writeln!(f, "{pad}{word} {test}:")?;
                write_body(f, body, indent)?;
            }
            write_else(f, orelse, indent)
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => {
            writeln!(f, "{pad}for {} in {}:", Targets(target), Targets(iter))?;
            write_body(f, body, indent)?;
            write_else(f, orelse, indent)
        }
        StmtKind::While { test, body, orelse } => {
            writeln!(f, "{pad}while {test}:")?;
            write_body(f, body, indent)?;
            write_else(f, orelse, indent)
        }
        StmtKind::With { context, body } => {
            writeln!(f, "{pad}with {context}:")?;
            write_body(f, body, indent)
        }
        StmtKind::Def(def) => {
            write!(f, "{pad}def {}(", def.name)?;
            for (i, p) in def.params.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(&p.name)?;
                if let Some(d) = &p.default {
                    write!(f, "={d}")?;
                }
            }
            writeln!(f, "):")?;
            write_body(f, &def.body, indent)
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            writeln!(f, "{pad}try:")?;
            write_body(f, body, indent)?;
            for h in handlers {
                write!(f, "{pad}except")?;
                if let Some(t) = &h.types {
                    write!(f, " {t}")?;
                }
                if let Some(n) = &h.name {
                    write!(f, " as {n}")?;
                }
                writeln!(f, ":")?;
                write_body(f, &h.body, indent)?;
            }
            write_else(f, orelse, indent)?;
            if !finalbody.is_empty() {
                writeln!(f, "{pad}finally:")?;
                write_body(f, finalbody, indent)?;
            }
            Ok(())
        }
        _ => writeln!(f, "{pad}{stmt}"),
    }
}

fn write_else(f: &mut fmt::Formatter<'_>, orelse: &[Stmt], indent: usize) -> fmt::Result {
    if orelse.is_empty() {
        return Ok(());
    }
    writeln!(f, "{}else:", "    ".repeat(indent))?;
    write_body(f, orelse, indent)
}

impl StmtKind {
    /// Whether the statement holds a block (and so prints on several lines).
    pub fn is_compound(&self) -> bool {
        matches!(
            self,
            StmtKind::If { .. }
                | StmtKind::For { .. }
                | StmtKind::While { .. }
                | StmtKind::With { .. }
                | StmtKind::Def(_)
                | StmtKind::Try { .. }
        )
    }
}

impl Stmt {
    /// The statements of this statement's blocks, in source order (empty for a simple one).
    pub fn children(&self) -> Vec<&Stmt> {
        match &self.kind {
            StmtKind::If { branches, orelse } => branches
                .iter()
                .flat_map(|(_, b)| b.iter())
                .chain(orelse)
                .collect(),
            StmtKind::For { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                body.iter().chain(orelse).collect()
            }
            StmtKind::Def(def) => def.body.iter().collect(),
            StmtKind::With { body, .. } => body.iter().collect(),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => body
                .iter()
                .chain(handlers.iter().flat_map(|h| h.body.iter()))
                .chain(orelse)
                .chain(finalbody)
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Program {
    /// The source text of every statement at any depth, by line (the first statement that
    /// starts on a line), for reports that name a statement by its line.
    pub fn line_sources(&self) -> std::collections::BTreeMap<usize, String> {
        fn walk(stmts: &[&Stmt], out: &mut std::collections::BTreeMap<usize, String>) {
            for s in stmts {
                out.entry(s.span.line).or_insert_with(|| s.source.clone());
                walk(&s.children(), out);
            }
        }
        let mut out = std::collections::BTreeMap::new();
        walk(&self.stmts.iter().collect::<Vec<_>>(), &mut out);
        out
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for stmt in &self.stmts {
            if stmt.kind.is_compound() {
                write!(f, "{stmt}")?;
            } else {
                writeln!(f, "{stmt}")?;
            }
        }
        Ok(())
    }
}
