//! The syntax tree of an `explain` program.
//!
//! Every node carries the [`Span`] where it starts in the source. [`Expr`], [`Stmt`] and
//! [`Program`] print back as Python that parses to the same tree (up to spans), using
//! the fewest parentheses that keep the meaning.

use std::fmt;

pub(crate) mod display;

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
    /// `import torch.nn.functional as F`: the module bound to the alias.
    ImportAs(String, String),
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
    /// `@`
    MatMul,
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
            BinOp::MatMul => "@",
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
            BinOp::MatMul => "matmul",
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
