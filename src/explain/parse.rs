//! Recursive-descent parser from tokens to [`Program`].
//!
//! Operator precedence follows Python, loosest first: `or`, `and`, `not`, comparisons
//! (`== != < <= > >= is is-not in not-in`, chained), `|`, `^`, `&`, `+ -`, then
//! `* / // %`, then unary `+ - ~`, then `**` (right-associative, and its right operand may
//! be unary, so `-2**-1` is `-(2**(-1))`), then attribute access, calls and subscripts.

use super::ast::{
    BinOp, BoolOp, CmpOp, CompFor, CompKind, Expr, ExprKind, FunctionDef, Handler, IndexItem,
    Param, Program, Span, Stmt, StmtKind, UnaryOp,
};
use super::lexer::{self, Token, TokenKind, is_keyword};

mod expr;
mod targets;
use targets::{check_target, target_text};

pub use super::parse_error::ParseError;

/// Parses a whole program.
///
/// ```
/// use stridekit::explain::parse::parse;
/// let program = parse("import torch\nx = torch.zeros(2, 3)[:, 1:]\n").unwrap();
/// assert_eq!(program.stmts.len(), 2);
/// assert_eq!(program.stmts[1].to_string(), "x = torch.zeros(2, 3)[:, 1:]");
/// let err = parse("x += 1").unwrap_err();
/// assert_eq!(err.to_string(), "line 1, column 3: augmented assignment is not supported; use x.add_(...)");
/// ```
pub fn parse(source: &str) -> Result<Program, ParseError> {
    let (tokens, lex_error) = lexer::tokenize_partial(source);
    let parsed = Parser::new(source, tokens).program();
    match (parsed, lex_error) {
        (parsed, None) => parsed,
        // The parser saw the tokens before the lexical error: report whichever problem
        // comes first (an unclosed bracket is reported at the bracket, so it wins over
        // the confusion it causes later on).
        (Err(e), Some(lex)) if e.span() < lex.span() => Err(e),
        (_, Some(lex)) => Err(lex),
    }
}

/// Deepest nesting of brackets, unary operators, `**` and operator chains. Keeps the
/// recursion (and the recursive drop of the tree) far from the stack's limit: an
/// unoptimised build uses about 13 KiB of stack per level, an optimised one a tenth.
pub const MAX_DEPTH: usize = 64;

/// Statement keywords outside the subset.
const UNSUPPORTED_STATEMENTS: &[&str] = &["class", "global", "nonlocal", "async", "yield", "await"];

/// Positional and keyword arguments of a call.
type CallArgs = (Vec<Expr>, Vec<(String, Expr)>);

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    /// Byte offset where the last consumed token ends.
    prev_end: usize,
    depth: usize,
    /// Loops around the statement being parsed (inside the innermost function).
    loops: usize,
    /// Function definitions around the statement being parsed.
    functions: usize,
}

fn describe(tok: &Token, src: &str) -> String {
    match &tok.kind {
        TokenKind::Name(n) if is_keyword(n) => format!("keyword '{n}'"),
        TokenKind::Name(n) => format!("name '{n}'"),
        TokenKind::Int(_) | TokenKind::Float(_) => {
            format!("number '{}'", src.get(tok.start..tok.end).unwrap_or("?"))
        }
        TokenKind::Str(_) => "a string".to_string(),
        TokenKind::LParen => "'('".to_string(),
        TokenKind::RParen => "')'".to_string(),
        TokenKind::LBracket => "'['".to_string(),
        TokenKind::RBracket => "']'".to_string(),
        TokenKind::LBrace => "'{'".to_string(),
        TokenKind::RBrace => "'}'".to_string(),
        TokenKind::Comma => "','".to_string(),
        TokenKind::Colon => "':'".to_string(),
        TokenKind::Semi => "';'".to_string(),
        TokenKind::Dot => "'.'".to_string(),
        TokenKind::Ellipsis => "'...'".to_string(),
        TokenKind::Assign => "'='".to_string(),
        TokenKind::Plus => "'+'".to_string(),
        TokenKind::Minus => "'-'".to_string(),
        TokenKind::Star => "'*'".to_string(),
        TokenKind::Slash => "'/'".to_string(),
        TokenKind::DoubleSlash => "'//'".to_string(),
        TokenKind::Percent => "'%'".to_string(),
        TokenKind::DoubleStar => "'**'".to_string(),
        TokenKind::AugAssign(op) | TokenKind::Other(op) => format!("'{op}'"),
        TokenKind::Newline => "end of line".to_string(),
        TokenKind::Indent => "an indented block".to_string(),
        TokenKind::Dedent => "the end of a block".to_string(),
        TokenKind::Eof => "end of input".to_string(),
    }
}

/// The in-place tensor method that does what an augmented assignment would.
fn in_place_method(op: &str) -> Option<&'static str> {
    Some(match op {
        "+=" => "add_",
        "-=" => "sub_",
        "*=" => "mul_",
        "/=" => "div_",
        "//=" => "floor_divide_",
        "%=" => "remainder_",
        "**=" => "pow_",
        _ => return None,
    })
}

/// Tokens that cannot start an expression and so end an optional one.
fn ends_expr(kind: &TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Newline
            | TokenKind::Eof
            | TokenKind::Semi
            | TokenKind::Assign
            | TokenKind::AugAssign(_)
            | TokenKind::RParen
            | TokenKind::RBracket
            | TokenKind::RBrace
            | TokenKind::Colon
            | TokenKind::Comma
    )
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, tokens: Vec<Token>) -> Parser<'a> {
        Parser {
            src,
            tokens,
            pos: 0,
            prev_end: 0,
            depth: 0,
            loops: 0,
            functions: 0,
        }
    }

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Token {
        // The lexer always ends the tokens with Eof, which is never consumed.
        let i = (self.pos + n).min(self.tokens.len().saturating_sub(1));
        &self.tokens[i]
    }

    fn kind(&self) -> &TokenKind {
        &self.peek().kind
    }

    fn at(&self, kind: &TokenKind) -> bool {
        self.kind() == kind
    }

    fn at_name(&self, name: &str) -> bool {
        matches!(self.kind(), TokenKind::Name(n) if n == name)
    }

    fn bump(&mut self) -> Token {
        let tok = self.peek().clone();
        if tok.kind != TokenKind::Eof {
            self.pos += 1;
            if tok.kind != TokenKind::Newline {
                self.prev_end = tok.end;
            }
        }
        tok
    }

    /// "expected X but found Y", or a clearer message when Y is a known unsupported thing.
    fn unexpected(&self, expected: &str) -> ParseError {
        let tok = self.peek();
        let message = match &tok.kind {
            TokenKind::Other(op) => format!("operator '{op}' is not supported"),
            _ => format!("expected {expected} but found {}", describe(tok, self.src)),
        };
        ParseError::new(tok.span, message)
    }

    fn expect(&mut self, kind: TokenKind, expected: &str) -> Result<Token, ParseError> {
        if self.at(&kind) {
            Ok(self.bump())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(
                self.peek().span,
                format!("expression is too deeply nested (more than {MAX_DEPTH} levels)"),
            ));
        }
        Ok(())
    }

    fn program(&mut self) -> Result<Program, ParseError> {
        let mut stmts = Vec::new();
        loop {
            match self.kind() {
                TokenKind::Eof => break,
                TokenKind::Newline | TokenKind::Dedent => {
                    self.bump();
                }
                TokenKind::Indent => return Err(self.unexpected_indent()),
                _ => self.statement_into(&mut stmts)?,
            }
        }
        Ok(Program { stmts })
    }

    fn unexpected_indent(&self) -> ParseError {
        ParseError::new(self.peek().span, "IndentationError: unexpected indent")
    }

    /// One compound statement, or one logical line of simple statements (`;`-separated).
    fn statement_into(&mut self, out: &mut Vec<Stmt>) -> Result<(), ParseError> {
        let first = self.peek().clone();
        let keyword = match &first.kind {
            TokenKind::Name(n) => n.clone(),
            _ => String::new(),
        };
        let kind = match keyword.as_str() {
            "if" => self.if_stmt(&first)?,
            "for" => self.for_stmt(&first)?,
            "while" => self.while_stmt(&first)?,
            "with" => self.with_stmt(&first)?,
            "def" => self.def_stmt(&first)?,
            "try" => self.try_stmt(&first)?,
            "elif" | "else" | "except" | "finally" => {
                return Err(ParseError::new(
                    first.span,
                    format!("invalid syntax: '{keyword}' without a matching statement before it"),
                ));
            }
            _ => return self.simple_line(out),
        };
        out.push(kind);
        Ok(())
    }

    /// Simple statements up to the end of the logical line.
    fn simple_line(&mut self, out: &mut Vec<Stmt>) -> Result<(), ParseError> {
        loop {
            out.push(self.statement()?);
            if !self.at(&TokenKind::Semi) {
                break;
            }
            self.bump();
            if matches!(self.kind(), TokenKind::Newline | TokenKind::Eof) {
                break;
            }
        }
        match self.kind() {
            TokenKind::Newline => {
                self.bump();
                Ok(())
            }
            TokenKind::Eof | TokenKind::Dedent => Ok(()),
            _ => Err(self.unexpected("end of statement")),
        }
    }

    /// The source text from `first` to the last consumed token, trimmed.
    fn source_from(&self, first: &Token) -> String {
        self.src
            .get(first.start..self.prev_end.max(first.start))
            .unwrap_or("")
            .trim()
            .to_string()
    }

    /// `:` then the block: simple statements on the same line, or an indented block.
    /// Returns the header's source (up to and including the colon) and the block.
    fn block(&mut self, first: &Token, what: &str) -> Result<(String, Vec<Stmt>), ParseError> {
        self.expect(TokenKind::Colon, "':'")?;
        let header = self.source_from(first);
        let mut body = Vec::new();
        if !self.at(&TokenKind::Newline) {
            if matches!(self.kind(), TokenKind::Eof | TokenKind::Dedent) {
                return Err(self.unexpected("a statement after ':'"));
            }
            self.simple_line(&mut body)?;
            return Ok((header, body));
        }
        self.bump();
        if !self.at(&TokenKind::Indent) {
            return Err(ParseError::new(
                self.peek().span,
                format!(
                    "IndentationError: expected an indented block after {what} on line {}",
                    first.span.line
                ),
            ));
        }
        self.enter()?;
        self.bump();
        loop {
            match self.kind() {
                TokenKind::Dedent => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => break,
                TokenKind::Newline => {
                    self.bump();
                }
                TokenKind::Indent => return Err(self.unexpected_indent()),
                _ => self.statement_into(&mut body)?,
            }
        }
        self.depth -= 1;
        Ok((header, body))
    }

    /// An optional `else:` block after a loop, an `if` or a `try`.
    fn else_block(&mut self) -> Result<Vec<Stmt>, ParseError> {
        if !self.at_name("else") {
            return Ok(Vec::new());
        }
        let tok = self.bump();
        Ok(self.block(&tok, "'else' statement")?.1)
    }

    fn compound(first: &Token, header: String, kind: StmtKind) -> Stmt {
        Stmt {
            kind,
            span: first.span,
            source: header,
        }
    }

    fn if_stmt(&mut self, first: &Token) -> Result<Stmt, ParseError> {
        self.bump();
        let test = self.expr()?;
        let (header, body) = self.block(first, "'if' statement")?;
        let mut branches = vec![(test, body)];
        while self.at_name("elif") {
            let tok = self.bump();
            let test = self.expr()?;
            branches.push((test, self.block(&tok, "'elif' statement")?.1));
        }
        let orelse = self.else_block()?;
        Ok(Self::compound(
            first,
            header,
            StmtKind::If { branches, orelse },
        ))
    }

    fn for_stmt(&mut self, first: &Token) -> Result<Stmt, ParseError> {
        self.bump();
        let target = self.target_list()?;
        if !self.at_name("in") {
            return Err(self.unexpected("'in'"));
        }
        self.bump();
        let iter = self.expr_list()?;
        let (header, body, orelse) = self.loop_blocks(first, "'for' statement")?;
        Ok(Self::compound(
            first,
            header,
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            },
        ))
    }

    /// `with context:` and its block (one context, no `as`).
    fn with_stmt(&mut self, first: &Token) -> Result<Stmt, ParseError> {
        self.bump();
        let context = self.expr()?;
        if !self.at(&TokenKind::Colon) {
            return Err(self.unexpected("':' (one context and no 'as' after 'with')"));
        }
        let (header, body) = self.block(first, "'with' statement")?;
        Ok(Self::compound(
            first,
            header,
            StmtKind::With { context, body },
        ))
    }

    fn while_stmt(&mut self, first: &Token) -> Result<Stmt, ParseError> {
        self.bump();
        let test = self.expr()?;
        let (header, body, orelse) = self.loop_blocks(first, "'while' statement")?;
        Ok(Self::compound(
            first,
            header,
            StmtKind::While { test, body, orelse },
        ))
    }

    /// A loop's body (where `break` and `continue` may appear) and its `else:` block.
    fn loop_blocks(
        &mut self,
        first: &Token,
        what: &str,
    ) -> Result<(String, Vec<Stmt>, Vec<Stmt>), ParseError> {
        self.loops += 1;
        let block = self.block(first, what);
        self.loops -= 1;
        let (header, body) = block?;
        Ok((header, body, self.else_block()?))
    }

    fn def_stmt(&mut self, first: &Token) -> Result<Stmt, ParseError> {
        self.bump();
        let (name, _) = self.name("a function name after 'def'")?;
        self.expect(TokenKind::LParen, "'('")?;
        let mut params: Vec<Param> = Vec::new();
        while !self.at(&TokenKind::RParen) {
            if matches!(self.kind(), TokenKind::Star | TokenKind::DoubleStar) {
                return Err(ParseError::new(
                    self.peek().span,
                    "*args, **kwargs and keyword-only parameters are not supported",
                ));
            }
            let (pname, span) = self.name("a parameter name or ')'")?;
            if params.iter().any(|p| p.name == pname) {
                return Err(ParseError::new(
                    span,
                    format!("duplicate argument '{pname}' in function definition"),
                ));
            }
            let default = if self.at(&TokenKind::Assign) {
                self.bump();
                Some(self.expr()?)
            } else {
                if params.iter().any(|p| p.default.is_some()) {
                    return Err(ParseError::new(
                        span,
                        "parameter without a default follows parameter with a default",
                    ));
                }
                None
            };
            params.push(Param {
                name: pname,
                default,
            });
            if self.at(&TokenKind::Comma) {
                self.bump();
            } else if !self.at(&TokenKind::RParen) {
                return Err(self.unexpected("',' or ')'"));
            }
        }
        self.bump(); // ')'
        if matches!(self.kind(), TokenKind::Other("->")) {
            return Err(ParseError::new(
                self.peek().span,
                "return annotations are not supported",
            ));
        }
        let (loops, functions) = (self.loops, self.functions);
        self.loops = 0;
        self.functions += 1;
        let block = self.block(first, "function definition");
        self.loops = loops;
        self.functions = functions;
        let (header, body) = block?;
        Ok(Self::compound(
            first,
            header,
            StmtKind::Def(std::rc::Rc::new(FunctionDef { name, params, body })),
        ))
    }

    fn try_stmt(&mut self, first: &Token) -> Result<Stmt, ParseError> {
        self.bump();
        let (header, body) = self.block(first, "'try' statement")?;
        let mut handlers = Vec::new();
        while self.at_name("except") {
            if let Some(bare) = handlers.iter().find(|h: &&Handler| h.types.is_none()) {
                return Err(ParseError::new(bare.span, "default 'except:' must be last"));
            }
            let tok = self.bump();
            let mut types = None;
            let mut name = None;
            if !self.at(&TokenKind::Colon) {
                let t = self.expr()?;
                if self.at(&TokenKind::Comma) {
                    return Err(ParseError::new(
                        self.peek().span,
                        "multiple exception types must be parenthesized",
                    ));
                }
                types = Some(t);
                if self.at_name("as") {
                    self.bump();
                    name = Some(self.name("a name after 'as'")?.0);
                }
            }
            let (_, hbody) = self.block(&tok, "'except' statement")?;
            handlers.push(Handler {
                types,
                name,
                body: hbody,
                span: tok.span,
            });
        }
        let orelse = if handlers.is_empty() {
            Vec::new()
        } else {
            self.else_block()?
        };
        let finalbody = if self.at_name("finally") {
            let tok = self.bump();
            self.block(&tok, "'finally' statement")?.1
        } else {
            Vec::new()
        };
        if handlers.is_empty() && finalbody.is_empty() {
            return Err(self.unexpected("'except' or 'finally' block"));
        }
        Ok(Self::compound(
            first,
            header,
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            },
        ))
    }

    /// The targets of a `for` (a name, a subscript, or several of them, unpacked).
    fn target_list(&mut self) -> Result<Expr, ParseError> {
        let first = self.bit_or()?;
        let target = if self.at(&TokenKind::Comma) {
            let span = first.span;
            let mut items = vec![first];
            while self.at(&TokenKind::Comma) {
                self.bump();
                if self.at_name("in") {
                    break;
                }
                items.push(self.bit_or()?);
            }
            Expr::new(ExprKind::Tuple(items), span)
        } else {
            first
        };
        check_target(&target)?;
        Ok(target)
    }

    fn statement(&mut self) -> Result<Stmt, ParseError> {
        let first = self.peek().clone();
        let kind = match &first.kind {
            TokenKind::Name(n) if n == "import" => self.import()?,
            TokenKind::Name(n) if n == "from" => {
                return Err(ParseError::new(
                    first.span,
                    "'from ... import' is not supported; use 'import torch'",
                ));
            }
            TokenKind::Name(n) if n == "del" => self.del()?,
            TokenKind::Name(n) if n == "assert" => {
                self.bump();
                let test = self.expr()?;
                let message = if self.at(&TokenKind::Comma) {
                    self.bump();
                    Some(self.expr()?)
                } else {
                    None
                };
                StmtKind::Assert { test, message }
            }
            TokenKind::Name(n) if n == "pass" => {
                self.bump();
                StmtKind::Pass
            }
            TokenKind::Name(n) if n == "break" || n == "continue" => {
                let n = n.clone();
                self.bump();
                if self.loops == 0 {
                    return Err(ParseError::new(first.span, format!("'{n}' outside loop")));
                }
                if n == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                }
            }
            TokenKind::Name(n) if n == "return" => {
                self.bump();
                if self.functions == 0 {
                    return Err(ParseError::new(first.span, "'return' outside function"));
                }
                if ends_expr(self.kind()) {
                    StmtKind::Return(None)
                } else {
                    StmtKind::Return(Some(self.expr_list()?))
                }
            }
            TokenKind::Name(n) if n == "raise" => {
                self.bump();
                let value = if ends_expr(self.kind()) {
                    None
                } else {
                    Some(self.expr()?)
                };
                if self.at_name("from") {
                    return Err(ParseError::new(
                        self.peek().span,
                        "'raise ... from ...' is not supported",
                    ));
                }
                StmtKind::Raise(value)
            }
            TokenKind::Name(n) if UNSUPPORTED_STATEMENTS.contains(&n.as_str()) => {
                return Err(ParseError::new(
                    first.span,
                    format!(
                        "'{n}' statements are not supported; a program is made of assignments, \
                         'del', 'assert', expression statements, 'if', 'for', 'while', 'with', \
                         'def', 'try', 'raise', 'pass', 'break', 'continue' and 'return'"
                    ),
                ));
            }
            _ => self.assign_or_expr()?,
        };
        let source = self.source_from(&first);
        Ok(Stmt {
            kind,
            span: first.span,
            source,
        })
    }

    fn import(&mut self) -> Result<StmtKind, ParseError> {
        self.bump();
        let mut module = self.name("a module name after 'import'")?.0;
        while self.at(&TokenKind::Dot) {
            self.bump();
            module.push('.');
            module.push_str(&self.name("a module name after '.'")?.0);
        }
        if self.at_name("as") {
            self.bump();
            let alias = self.name("a name after 'as'")?.0;
            return Ok(StmtKind::ImportAs(module, alias));
        }
        if self.at(&TokenKind::Comma) {
            return Err(ParseError::new(
                self.peek().span,
                "only one module per 'import' is supported",
            ));
        }
        Ok(StmtKind::Import(module))
    }

    /// A name that is not a keyword.
    fn name(&mut self, expected: &str) -> Result<(String, Span), ParseError> {
        match self.kind() {
            TokenKind::Name(n) if !is_keyword(n) => {
                let n = n.clone();
                let tok = self.bump();
                Ok((n, tok.span))
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    fn del(&mut self) -> Result<StmtKind, ParseError> {
        self.bump();
        let mut names = vec![self.name("a name after 'del'")?];
        loop {
            match self.kind() {
                TokenKind::Comma => {
                    self.bump();
                    if matches!(
                        self.kind(),
                        TokenKind::Newline | TokenKind::Eof | TokenKind::Semi
                    ) {
                        break;
                    }
                    names.push(self.name("a name")?);
                }
                TokenKind::Newline | TokenKind::Eof | TokenKind::Semi => break,
                TokenKind::LBracket | TokenKind::Dot | TokenKind::LParen => {
                    return Err(ParseError::new(
                        self.peek().span,
                        "'del' only supports plain names, e.g. 'del x, y'",
                    ));
                }
                _ => return Err(self.unexpected("',' or end of statement")),
            }
        }
        Ok(StmtKind::Del(names))
    }

    fn assign_or_expr(&mut self) -> Result<StmtKind, ParseError> {
        let lhs = self.expr_list()?;
        match self.kind().clone() {
            TokenKind::Assign => {
                check_target(&lhs)?;
                self.bump();
                let value = self.expr_list()?;
                if self.at(&TokenKind::Assign) {
                    return Err(ParseError::new(
                        self.peek().span,
                        "chained assignment (a = b = c) is not supported",
                    ));
                }
                Ok(StmtKind::Assign { target: lhs, value })
            }
            TokenKind::AugAssign(op) => {
                let message = match in_place_method(op) {
                    Some(method) => format!(
                        "augmented assignment is not supported; use {}.{method}(...)",
                        target_text(&lhs)
                    ),
                    None => {
                        let bare = op.trim_end_matches('=');
                        format!("augmented assignment is not supported; use x = x {bare} ...")
                    }
                };
                Err(ParseError::new(self.peek().span, message))
            }
            TokenKind::Colon => Err(ParseError::new(
                self.peek().span,
                "type annotations are not supported",
            )),
            _ => Ok(StmtKind::Expr(lhs)),
        }
    }
}
