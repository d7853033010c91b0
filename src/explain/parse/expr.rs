//! The expression half of the parser: Python's precedence levels from `or` down to atoms,
//! calls, subscripts, comprehensions, lambdas and displays.

use super::*;

impl Parser<'_> {
    /// One expression, or several separated by commas (a tuple without parentheses).
    pub(super) fn expr_list(&mut self) -> Result<Expr, ParseError> {
        let first = self.expr()?;
        if !self.at(&TokenKind::Comma) {
            return Ok(first);
        }
        let span = first.span;
        let mut items = vec![first];
        while self.at(&TokenKind::Comma) {
            self.bump();
            if ends_expr(self.kind()) {
                break;
            }
            items.push(self.expr()?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), span))
    }

    pub(super) fn expr(&mut self) -> Result<Expr, ParseError> {
        // Every way back into `expr` goes through a bracket, unary operator, `**` or a
        // conditional expression, which count towards MAX_DEPTH.
        let body = self.or_test()?;
        if !self.at_name("if") {
            return Ok(body);
        }
        self.enter()?;
        self.bump();
        let test = self.or_test()?;
        if !self.at_name("else") {
            return Err(self.unexpected("'else' after 'if' expression"));
        }
        self.bump();
        let orelse = self.expr()?;
        self.depth -= 1;
        let span = body.span;
        Ok(Expr::new(
            ExprKind::IfExp {
                test: Box::new(test),
                body: Box::new(body),
                orelse: Box::new(orelse),
            },
            span,
        ))
    }

    /// The `for ... in ... [if ...]` clauses after a comprehension's element.
    pub(super) fn comp_clauses(&mut self) -> Result<Vec<CompFor>, ParseError> {
        let mut generators = Vec::new();
        while self.at_name("for") {
            self.bump();
            let target = self.target_list()?;
            if !self.at_name("in") {
                return Err(self.unexpected("'in'"));
            }
            self.bump();
            let iter = self.or_test()?;
            let mut ifs = Vec::new();
            while self.at_name("if") {
                self.bump();
                ifs.push(self.or_test()?);
            }
            generators.push(CompFor { target, iter, ifs });
        }
        Ok(generators)
    }

    pub(super) fn comprehension(
        &mut self,
        kind: CompKind,
        elt: Expr,
        value: Option<Expr>,
        span: Span,
    ) -> Result<Expr, ParseError> {
        let generators = self.comp_clauses()?;
        Ok(Expr::new(
            ExprKind::Comp {
                kind,
                elt: Box::new(elt),
                value: value.map(Box::new),
                generators,
            },
            span,
        ))
    }

    pub(super) fn or_test(&mut self) -> Result<Expr, ParseError> {
        self.bool_chain(BoolOp::Or, Self::and_test)
    }

    pub(super) fn and_test(&mut self) -> Result<Expr, ParseError> {
        self.bool_chain(BoolOp::And, Self::not_test)
    }

    /// `next (op next)*` as one [`ExprKind::BoolOp`], as Python's `ast` groups it.
    pub(super) fn bool_chain(
        &mut self,
        op: BoolOp,
        next: fn(&mut Self) -> Result<Expr, ParseError>,
    ) -> Result<Expr, ParseError> {
        let first = next(self)?;
        if !self.at_name(op.symbol()) {
            return Ok(first);
        }
        let span = first.span;
        let depth = self.depth;
        let mut values = vec![first];
        while self.at_name(op.symbol()) {
            self.enter()?;
            self.bump();
            values.push(next(self)?);
        }
        self.depth = depth;
        Ok(Expr::new(ExprKind::BoolOp { op, values }, span))
    }

    pub(super) fn not_test(&mut self) -> Result<Expr, ParseError> {
        if !self.at_name("not") {
            return self.comparison();
        }
        self.enter()?;
        let tok = self.bump();
        let operand = self.not_test()?;
        self.depth -= 1;
        Ok(Expr::new(
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand: Box::new(operand),
            },
            tok.span,
        ))
    }

    /// The comparison operator at the current token, and how many tokens it spans.
    pub(super) fn comparison_op(&self) -> Option<(CmpOp, usize)> {
        Some(match self.kind() {
            TokenKind::Other("==") => (CmpOp::Eq, 1),
            TokenKind::Other("!=") => (CmpOp::Ne, 1),
            TokenKind::Other("<") => (CmpOp::Lt, 1),
            TokenKind::Other("<=") => (CmpOp::Le, 1),
            TokenKind::Other(">") => (CmpOp::Gt, 1),
            TokenKind::Other(">=") => (CmpOp::Ge, 1),
            TokenKind::Name(n) if n == "in" => (CmpOp::In, 1),
            TokenKind::Name(n) if n == "is" => match &self.peek_at(1).kind {
                TokenKind::Name(m) if m == "not" => (CmpOp::IsNot, 2),
                _ => (CmpOp::Is, 1),
            },
            TokenKind::Name(n) if n == "not" => match &self.peek_at(1).kind {
                TokenKind::Name(m) if m == "in" => (CmpOp::NotIn, 2),
                _ => return None,
            },
            _ => return None,
        })
    }

    pub(super) fn comparison(&mut self) -> Result<Expr, ParseError> {
        let first = self.bit_or()?;
        if self.comparison_op().is_none() {
            return Ok(first);
        }
        let span = first.span;
        let depth = self.depth;
        let mut rest = Vec::new();
        while let Some((op, tokens)) = self.comparison_op() {
            self.enter()?;
            for _ in 0..tokens {
                self.bump();
            }
            rest.push((op, self.bit_or()?));
        }
        self.depth = depth;
        Ok(Expr::new(
            ExprKind::Compare {
                first: Box::new(first),
                rest,
            },
            span,
        ))
    }

    pub(super) fn bit_or(&mut self) -> Result<Expr, ParseError> {
        self.chain(Self::bit_xor, |k| {
            matches!(k, TokenKind::Other("|")).then_some(BinOp::BitOr)
        })
    }

    pub(super) fn bit_xor(&mut self) -> Result<Expr, ParseError> {
        self.chain(Self::bit_and, |k| {
            matches!(k, TokenKind::Other("^")).then_some(BinOp::BitXor)
        })
    }

    pub(super) fn bit_and(&mut self) -> Result<Expr, ParseError> {
        self.chain(Self::sum, |k| {
            matches!(k, TokenKind::Other("&")).then_some(BinOp::BitAnd)
        })
    }

    /// Left-associative chain of `next` joined by the operators `op_of` accepts.
    pub(super) fn chain(
        &mut self,
        next: fn(&mut Self) -> Result<Expr, ParseError>,
        op_of: fn(&TokenKind) -> Option<BinOp>,
    ) -> Result<Expr, ParseError> {
        let mut lhs = next(self)?;
        let depth = self.depth;
        while let Some(op) = op_of(self.kind()) {
            self.enter()?;
            self.bump();
            let rhs = next(self)?;
            let span = lhs.span;
            lhs = Expr::new(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            );
        }
        self.depth = depth;
        Ok(lhs)
    }

    pub(super) fn sum(&mut self) -> Result<Expr, ParseError> {
        self.chain(Self::term, |k| match k {
            TokenKind::Plus => Some(BinOp::Add),
            TokenKind::Minus => Some(BinOp::Sub),
            _ => None,
        })
    }

    pub(super) fn term(&mut self) -> Result<Expr, ParseError> {
        self.chain(Self::factor, |k| match k {
            TokenKind::Star => Some(BinOp::Mul),
            TokenKind::Slash => Some(BinOp::Div),
            TokenKind::DoubleSlash => Some(BinOp::FloorDiv),
            TokenKind::Percent => Some(BinOp::Mod),
            TokenKind::Other("@") => Some(BinOp::MatMul),
            _ => None,
        })
    }

    pub(super) fn factor(&mut self) -> Result<Expr, ParseError> {
        let op = match self.kind() {
            TokenKind::Minus => UnaryOp::Neg,
            TokenKind::Plus => UnaryOp::Pos,
            TokenKind::Other("~") => UnaryOp::Invert,
            _ => return self.power(),
        };
        self.enter()?;
        let tok = self.bump();
        let operand = self.factor()?;
        self.depth -= 1;
        Ok(Expr::new(
            ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
            tok.span,
        ))
    }

    pub(super) fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.primary()?;
        if !self.at(&TokenKind::DoubleStar) {
            return Ok(base);
        }
        self.enter()?;
        self.bump();
        let exponent = self.factor()?;
        self.depth -= 1;
        let span = base.span;
        Ok(Expr::new(
            ExprKind::Binary {
                op: BinOp::Pow,
                lhs: Box::new(base),
                rhs: Box::new(exponent),
            },
            span,
        ))
    }

    pub(super) fn primary(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.atom()?;
        let depth = self.depth;
        loop {
            let span = e.span;
            let kind = match self.kind() {
                TokenKind::Dot => {
                    self.enter()?;
                    self.bump();
                    let (name, _) = self.name("an attribute name after '.'")?;
                    ExprKind::Attr {
                        base: Box::new(e),
                        name,
                    }
                }
                TokenKind::LParen => {
                    self.enter()?;
                    let (args, kwargs) = self.call_args()?;
                    ExprKind::Call {
                        func: Box::new(e),
                        args,
                        kwargs,
                    }
                }
                TokenKind::LBracket => {
                    self.enter()?;
                    let (items, tuple) = self.subscript()?;
                    ExprKind::Subscript {
                        base: Box::new(e),
                        items,
                        tuple,
                    }
                }
                _ => break,
            };
            e = Expr::new(kind, span);
        }
        self.depth = depth;
        Ok(e)
    }

    pub(super) fn call_args(&mut self) -> Result<CallArgs, ParseError> {
        self.bump(); // '('
        let mut args = Vec::new();
        let mut kwargs: Vec<(String, Expr)> = Vec::new();
        while !self.at(&TokenKind::RParen) {
            if matches!(self.kind(), TokenKind::Star | TokenKind::DoubleStar) {
                return Err(ParseError::new(
                    self.peek().span,
                    "argument unpacking (*args, **kwargs) is not supported",
                ));
            }
            let keyword = match (&self.kind(), &self.peek_at(1).kind) {
                (TokenKind::Name(n), TokenKind::Assign) if !is_keyword(n) => Some(n.clone()),
                _ => None,
            };
            if let Some(name) = keyword {
                let tok = self.bump();
                if kwargs.iter().any(|(k, _)| *k == name) {
                    return Err(ParseError::new(
                        tok.span,
                        format!("keyword argument '{name}' repeated"),
                    ));
                }
                self.bump(); // '='
                kwargs.push((name, self.expr()?));
            } else {
                if !kwargs.is_empty() {
                    return Err(ParseError::new(
                        self.peek().span,
                        "positional argument follows keyword argument",
                    ));
                }
                let arg = self.expr()?;
                if self.at_name("for") {
                    if !args.is_empty() {
                        return Err(self.unexpected("',' or ')'"));
                    }
                    let span = arg.span;
                    args.push(self.comprehension(CompKind::Generator, arg, None, span)?);
                    if !self.at(&TokenKind::RParen) {
                        return Err(ParseError::new(
                            self.peek().span,
                            "generator expression must be parenthesized",
                        ));
                    }
                    continue;
                }
                args.push(arg);
            }
            if self.at(&TokenKind::Comma) {
                self.bump();
            } else if !self.at(&TokenKind::RParen) {
                return Err(self.unexpected("',' or ')'"));
            }
        }
        self.bump(); // ')'
        Ok((args, kwargs))
    }

    pub(super) fn subscript(&mut self) -> Result<(Vec<IndexItem>, bool), ParseError> {
        self.bump(); // '['
        if self.at(&TokenKind::RBracket) {
            return Err(ParseError::new(
                self.peek().span,
                "expected an index inside '[]'",
            ));
        }
        let mut items = Vec::new();
        let mut trailing_comma = false;
        loop {
            items.push(self.index_item()?);
            match self.kind() {
                TokenKind::Comma => {
                    self.bump();
                    if self.at(&TokenKind::RBracket) {
                        trailing_comma = true;
                        break;
                    }
                }
                TokenKind::RBracket => break,
                _ => return Err(self.unexpected("',' or ']'")),
            }
        }
        self.bump(); // ']'
        let tuple = trailing_comma || items.len() > 1;
        Ok((items, tuple))
    }

    pub(super) fn optional_expr(&mut self) -> Result<Option<Expr>, ParseError> {
        if ends_expr(self.kind()) {
            Ok(None)
        } else {
            self.expr().map(Some)
        }
    }

    pub(super) fn index_item(&mut self) -> Result<IndexItem, ParseError> {
        let start = self.optional_expr()?;
        if !self.at(&TokenKind::Colon) {
            return match start {
                Some(e) => Ok(IndexItem::Expr(e)),
                None => Err(self.unexpected("an index")),
            };
        }
        self.bump();
        let stop = self.optional_expr()?;
        let step = if self.at(&TokenKind::Colon) {
            self.bump();
            self.optional_expr()?
        } else {
            None
        };
        Ok(IndexItem::Slice { start, stop, step })
    }

    pub(super) fn atom(&mut self) -> Result<Expr, ParseError> {
        let tok = self.peek().clone();
        let kind = match &tok.kind {
            TokenKind::Name(n) => match n.as_str() {
                "True" => ExprKind::Bool(true),
                "False" => ExprKind::Bool(false),
                "None" => ExprKind::NoneLit,
                "lambda" => return self.lambda(),
                n if is_keyword(n) => return Err(self.unexpected("an expression")),
                n => ExprKind::Name(n.to_string()),
            },
            TokenKind::Int(v) => ExprKind::Int(*v),
            TokenKind::Float(v) => ExprKind::Float(*v),
            TokenKind::Str(s) => {
                // Adjacent string literals concatenate, as in Python.
                let mut s = s.clone();
                self.bump();
                while let TokenKind::Str(more) = self.kind() {
                    s.push_str(more);
                    self.bump();
                }
                return Ok(Expr::new(ExprKind::Str(s), tok.span));
            }
            TokenKind::Ellipsis => ExprKind::Ellipsis,
            TokenKind::LParen => return self.paren(),
            TokenKind::LBracket => return self.list(),
            TokenKind::LBrace => return self.dict(),
            TokenKind::Star => {
                return Err(ParseError::new(
                    tok.span,
                    "starred expressions (*x) are not supported",
                ));
            }
            _ => return Err(self.unexpected("an expression")),
        };
        self.bump();
        Ok(Expr::new(kind, tok.span))
    }

    /// `lambda a, b: body`.
    pub(super) fn lambda(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let tok = self.bump();
        let mut params = Vec::new();
        while !self.at(&TokenKind::Colon) {
            let (name, span) = self.name("a parameter name or ':'")?;
            if params.contains(&name) {
                return Err(ParseError::new(
                    span,
                    format!("duplicate argument '{name}' in function definition"),
                ));
            }
            params.push(name);
            if self.at(&TokenKind::Comma) {
                self.bump();
            } else if !self.at(&TokenKind::Colon) {
                return Err(self.unexpected("',' or ':'"));
            }
        }
        self.bump(); // ':'
        let body = self.expr()?;
        self.depth -= 1;
        Ok(Expr::new(
            ExprKind::Lambda {
                params,
                body: Box::new(body),
            },
            tok.span,
        ))
    }

    /// `()`, `(e)`, `(e,)`, `(a, b, ...)`.
    pub(super) fn paren(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let open = self.bump();
        if self.at(&TokenKind::RParen) {
            self.bump();
            self.depth -= 1;
            return Ok(Expr::new(ExprKind::Tuple(Vec::new()), open.span));
        }
        let first = self.expr()?;
        if self.at_name("for") {
            let e = self.comprehension(CompKind::Generator, first, None, open.span)?;
            self.expect(TokenKind::RParen, "')'")?;
            self.depth -= 1;
            return Ok(e);
        }
        if self.at(&TokenKind::RParen) {
            self.bump();
            self.depth -= 1;
            return Ok(first);
        }
        let mut items = vec![first];
        while self.at(&TokenKind::Comma) {
            self.bump();
            if self.at(&TokenKind::RParen) {
                break;
            }
            items.push(self.expr()?);
        }
        self.expect(TokenKind::RParen, "',' or ')'")?;
        self.depth -= 1;
        Ok(Expr::new(ExprKind::Tuple(items), open.span))
    }

    /// `{k: v, ...}` or `{k: v for ...}`; set literals are not in the subset.
    pub(super) fn dict(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let open = self.bump();
        let mut items = Vec::new();
        while !self.at(&TokenKind::RBrace) {
            let key = self.expr()?;
            if !self.at(&TokenKind::Colon) {
                return Err(ParseError::new(
                    self.peek().span,
                    "set literals and set comprehensions are not supported; a '{...}' must be a dict",
                ));
            }
            self.bump();
            let value = self.expr()?;
            if items.is_empty() && self.at_name("for") {
                let e = self.comprehension(CompKind::Dict, key, Some(value), open.span)?;
                self.expect(TokenKind::RBrace, "'}'")?;
                self.depth -= 1;
                return Ok(e);
            }
            items.push((key, value));
            if self.at(&TokenKind::Comma) {
                self.bump();
            } else if !self.at(&TokenKind::RBrace) {
                return Err(self.unexpected("',' or '}'"));
            }
        }
        self.bump();
        self.depth -= 1;
        Ok(Expr::new(ExprKind::Dict(items), open.span))
    }

    /// `[a, b, ...]`
    pub(super) fn list(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let open = self.bump();
        let mut items = Vec::new();
        while !self.at(&TokenKind::RBracket) {
            let item = self.expr()?;
            if items.is_empty() && self.at_name("for") {
                let e = self.comprehension(CompKind::List, item, None, open.span)?;
                self.expect(TokenKind::RBracket, "']'")?;
                self.depth -= 1;
                return Ok(e);
            }
            items.push(item);
            if self.at(&TokenKind::Comma) {
                self.bump();
            } else if !self.at(&TokenKind::RBracket) {
                return Err(self.unexpected("',' or ']'"));
            }
        }
        self.bump();
        self.depth -= 1;
        Ok(Expr::new(ExprKind::List(items), open.span))
    }
}
