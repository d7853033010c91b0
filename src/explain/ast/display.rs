//! Programs print back as Python source (the text report's statements, error messages).

use super::*;

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => match op {
            BinOp::BitOr => PREC_BITOR,
            BinOp::BitXor => PREC_BITXOR,
            BinOp::BitAnd => PREC_BITAND,
            BinOp::Add | BinOp::Sub => PREC_SUM,
            BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::MatMul => PREC_TERM,
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
            StmtKind::ImportAs(module, alias) => write!(f, "import {module} as {alias}"),
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
