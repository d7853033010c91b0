//! Tokens with spans.
//!
//! Follows Python's tokenizer where the subset needs it: newlines inside `()`, `[]` and
//! `{}` are joined, `\` at the end of a line continues it, comments run to the end of
//! the line, and indentation follows Python's rules: a deeper indentation at the start of a
//! logical line is an [`TokenKind::Indent`], each level it returns to is a
//! [`TokenKind::Dedent`] (blank and comment-only lines do not count), a dedent to a column that
//! no enclosing block has is an `IndentationError`, and tabs that make the indentation depend
//! on the tab size (CPython compares with tab sizes 8 and 1) are refused. Python
//! operators outside the subset are still recognised (as [`TokenKind::AugAssign`] and
//! [`TokenKind::Other`]) so the parser can say precisely what is not supported.

use super::ast::Span;
use super::parse_error::ParseError;

#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// An identifier or keyword.
    Name(String),
    Int(i64),
    Float(f64),
    Str(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semi,
    Dot,
    /// `...`
    Ellipsis,
    /// `=`
    Assign,
    Plus,
    Minus,
    Star,
    Slash,
    DoubleSlash,
    Percent,
    DoubleStar,
    /// `+=`, `-=`, `**=`, ... (the whole operator).
    AugAssign(&'static str),
    /// Another Python operator: comparisons (`==`, `<`, ...) and bitwise `& | ^ ~`, which the
    /// parser reads, and `@`, `<<`, `:=`, `->`, ..., which the subset does not have.
    Other(&'static str),
    /// The end of a logical line.
    Newline,
    /// A logical line indented deeper than the one before it (the start of a block).
    Indent,
    /// The end of a block: one per indentation level a logical line returns to.
    Dedent,
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// Byte range of the token in the source.
    pub start: usize,
    pub end: usize,
}

/// Python's hard keywords; none of them may be used as a name.
pub const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// Operators, longest first so that the first match is the longest.
const OPERATORS: &[(&str, TokenKind)] = &[
    ("**=", TokenKind::AugAssign("**=")),
    ("//=", TokenKind::AugAssign("//=")),
    (">>=", TokenKind::AugAssign(">>=")),
    ("<<=", TokenKind::AugAssign("<<=")),
    ("**", TokenKind::DoubleStar),
    ("//", TokenKind::DoubleSlash),
    ("+=", TokenKind::AugAssign("+=")),
    ("-=", TokenKind::AugAssign("-=")),
    ("*=", TokenKind::AugAssign("*=")),
    ("/=", TokenKind::AugAssign("/=")),
    ("%=", TokenKind::AugAssign("%=")),
    ("@=", TokenKind::AugAssign("@=")),
    ("&=", TokenKind::AugAssign("&=")),
    ("|=", TokenKind::AugAssign("|=")),
    ("^=", TokenKind::AugAssign("^=")),
    ("==", TokenKind::Other("==")),
    ("!=", TokenKind::Other("!=")),
    ("<=", TokenKind::Other("<=")),
    (">=", TokenKind::Other(">=")),
    ("<<", TokenKind::Other("<<")),
    (">>", TokenKind::Other(">>")),
    ("->", TokenKind::Other("->")),
    (":=", TokenKind::Other(":=")),
    ("+", TokenKind::Plus),
    ("-", TokenKind::Minus),
    ("*", TokenKind::Star),
    ("/", TokenKind::Slash),
    ("%", TokenKind::Percent),
    ("=", TokenKind::Assign),
    (",", TokenKind::Comma),
    (":", TokenKind::Colon),
    (";", TokenKind::Semi),
    ("@", TokenKind::Other("@")),
    ("&", TokenKind::Other("&")),
    ("|", TokenKind::Other("|")),
    ("^", TokenKind::Other("^")),
    ("~", TokenKind::Other("~")),
    ("<", TokenKind::Other("<")),
    (">", TokenKind::Other(">")),
];

/// Tokenizes the whole source; the first lexical error stops it.
pub fn tokenize(source: &str) -> Result<Vec<Token>, ParseError> {
    match tokenize_partial(source) {
        (tokens, None) => Ok(tokens),
        (_, Some(err)) => Err(err),
    }
}

/// Tokenizes up to the first lexical error. The tokens always end with `Newline`
/// (unless empty) and `Eof`; on error, `Eof` sits at the error's position.
///
/// The parser runs over these tokens even when there is an error, so that whichever
/// problem comes first in the source is reported.
pub(crate) fn tokenize_partial(source: &str) -> (Vec<Token>, Option<ParseError>) {
    let mut lexer = Lexer::new(source);
    let err = lexer.run().err();
    let (line, col) = match &err {
        Some(e) => (e.line, e.col),
        None => (lexer.line, lexer.col),
    };
    let at = Span::new(line, col);
    let end = if err.is_some() {
        lexer.tok_start
    } else {
        source.len()
    };
    if lexer
        .tokens
        .last()
        .is_some_and(|t| t.kind != TokenKind::Newline)
    {
        lexer.push_at(TokenKind::Newline, at, end, end);
    }
    for _ in 1..lexer.indents.len() {
        lexer.push_at(TokenKind::Dedent, at, end, end);
    }
    lexer.push_at(TokenKind::Eof, at, end, end);
    (lexer.tokens, err)
}

struct Lexer<'a> {
    src: &'a str,
    chars: Vec<(usize, char)>,
    pos: usize,
    line: usize,
    col: usize,
    tokens: Vec<Token>,
    /// Open brackets: the bracket and where it is.
    brackets: Vec<(char, Span)>,
    at_line_start: bool,
    /// The indentation of the enclosing blocks, innermost last: the column with tabs to
    /// multiples of 8 and with tabs counted as 1 (both must order the same way).
    indents: Vec<(usize, usize)>,
    /// Where the token being lexed starts.
    tok_span: Span,
    tok_start: usize,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

fn is_newline(c: char) -> bool {
    matches!(c, '\n' | '\r')
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

fn err(span: Span, message: impl Into<String>) -> ParseError {
    ParseError::new(span, message)
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Lexer<'a> {
        let mut chars: Vec<(usize, char)> = src.char_indices().collect();
        if chars.first().is_some_and(|&(_, c)| c == '\u{feff}') {
            chars.remove(0);
        }
        let tok_start = chars.first().map_or(src.len(), |&(i, _)| i);
        Lexer {
            src,
            chars,
            pos: 0,
            line: 1,
            col: 1,
            tokens: Vec::new(),
            brackets: Vec::new(),
            at_line_start: true,
            indents: vec![(0, 0)],
            tok_span: Span::new(1, 1),
            tok_start,
        }
    }

    fn peek(&self) -> Option<char> {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).map(|&(_, c)| c)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.pos).map_or(self.src.len(), |&(i, _)| i)
    }

    fn here(&self) -> Span {
        Span::new(self.line, self.col)
    }

    fn advance(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' || (c == '\r' && self.peek() != Some('\n')) {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// Consumes `\n`, `\r\n` or a lone `\r`.
    fn eat_newline(&mut self) {
        if self.advance() == Some('\r') && self.peek() == Some('\n') {
            self.advance();
        }
    }

    fn start_token(&mut self) {
        self.tok_span = self.here();
        self.tok_start = self.offset();
    }

    fn push(&mut self, kind: TokenKind) {
        let end = self.offset();
        self.push_at(kind, self.tok_span, self.tok_start, end);
    }

    fn push_at(&mut self, kind: TokenKind, span: Span, start: usize, end: usize) {
        self.tokens.push(Token {
            kind,
            span,
            start,
            end,
        });
    }

    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|c| !is_newline(c)) {
            self.advance();
        }
    }

    fn run(&mut self) -> Result<(), ParseError> {
        loop {
            self.start_token();
            if self.at_line_start && self.brackets.is_empty() {
                let (mut col, mut alt) = (0usize, 0usize);
                while let Some(c) = self.peek().filter(|&c| is_space(c)) {
                    match c {
                        '\t' => col = (col / 8 + 1) * 8,
                        '\x0c' => col = 0,
                        _ => col += 1,
                    }
                    alt += 1;
                    self.advance();
                }
                self.start_token();
                match self.peek() {
                    None => break,
                    Some(c) if is_newline(c) => {
                        self.eat_newline();
                        continue;
                    }
                    Some('#') => {
                        self.skip_comment();
                        continue;
                    }
                    Some(_) => {
                        self.at_line_start = false;
                        self.indentation(col, alt)?;
                    }
                }
            }
            let Some(c) = self.peek() else { break };
            match c {
                c if is_space(c) => {
                    self.advance();
                }
                c if is_newline(c) => {
                    if self.brackets.is_empty() {
                        self.push(TokenKind::Newline);
                        self.at_line_start = true;
                    }
                    self.eat_newline();
                }
                '#' => self.skip_comment(),
                '\\' => self.continuation()?,
                '0'..='9' => self.number()?,
                '.' if self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) => self.number()?,
                '.' => {
                    if self.peek_at(1) == Some('.') && self.peek_at(2) == Some('.') {
                        self.pos_advance(3);
                        self.push(TokenKind::Ellipsis);
                    } else {
                        self.advance();
                        self.push(TokenKind::Dot);
                    }
                }
                '\'' | '"' => self.string()?,
                c if is_ident_start(c) => self.name()?,
                '(' | '[' | '{' => {
                    self.advance();
                    self.brackets.push((c, self.tok_span));
                    self.push(match c {
                        '(' => TokenKind::LParen,
                        '[' => TokenKind::LBracket,
                        _ => TokenKind::LBrace,
                    });
                }
                ')' | ']' | '}' => {
                    let open = match c {
                        ')' => '(',
                        ']' => '[',
                        _ => '{',
                    };
                    match self.brackets.pop() {
                        None => return Err(err(self.here(), format!("unmatched '{c}'"))),
                        Some((o, span)) if o != open => {
                            return Err(err(
                                self.here(),
                                format!(
                                    "closing '{c}' does not match opening '{o}' at line {}, column {}",
                                    span.line, span.col
                                ),
                            ));
                        }
                        Some(_) => {}
                    }
                    self.advance();
                    self.push(match c {
                        ')' => TokenKind::RParen,
                        ']' => TokenKind::RBracket,
                        _ => TokenKind::RBrace,
                    });
                }
                _ => self.operator(c)?,
            }
        }
        if let Some(&(open, span)) = self.brackets.last() {
            return Err(err(span, format!("'{open}' was never closed")));
        }
        Ok(())
    }

    /// Compares a logical line's indentation with the enclosing blocks' and pushes the
    /// `Indent` or `Dedent`s it means.
    fn indentation(&mut self, col: usize, alt: usize) -> Result<(), ParseError> {
        let here = self.here();
        let inconsistent = || {
            err(
                here,
                "TabError: inconsistent use of tabs and spaces in indentation",
            )
        };
        let &(top, top_alt) = self.indents.last().unwrap_or(&(0, 0));
        if col > top {
            if alt <= top_alt {
                return Err(inconsistent());
            }
            self.indents.push((col, alt));
            self.push(TokenKind::Indent);
            return Ok(());
        }
        while self.indents.last().is_some_and(|&(c, _)| col < c) {
            self.indents.pop();
            self.push(TokenKind::Dedent);
        }
        match self.indents.last() {
            Some(&(c, a)) if c == col && a == alt => Ok(()),
            Some(&(c, _)) if c == col => Err(inconsistent()),
            _ => Err(err(
                self.here(),
                "IndentationError: unindent does not match any outer indentation level",
            )),
        }
    }

    fn pos_advance(&mut self, n: usize) {
        for _ in 0..n {
            self.advance();
        }
    }

    fn continuation(&mut self) -> Result<(), ParseError> {
        self.advance();
        match self.peek() {
            Some(c) if is_newline(c) => {
                self.eat_newline();
                Ok(())
            }
            None => Err(err(
                self.tok_span,
                "unexpected end of input after line continuation character '\\'",
            )),
            Some(_) => Err(err(
                self.tok_span,
                "unexpected character after line continuation character '\\'",
            )),
        }
    }

    fn operator(&mut self, c: char) -> Result<(), ParseError> {
        let rest = &self.src[self.offset()..];
        for (text, kind) in OPERATORS {
            if rest.starts_with(text) {
                self.pos_advance(text.len());
                self.push(kind.clone());
                return Ok(());
            }
        }
        let message = if c == '!' {
            "invalid character '!' (Python's 'not' is spelled 'not')".to_string()
        } else if c == '$' || c == '?' || c == '`' {
            format!("invalid character '{c}'")
        } else {
            format!("invalid character '{c}' (U+{:04X})", c as u32)
        };
        Err(err(self.tok_span, message))
    }

    fn name(&mut self) -> Result<(), ParseError> {
        while self.peek().is_some_and(is_ident_continue) {
            self.advance();
        }
        let text = &self.src[self.tok_start..self.offset()];
        if matches!(self.peek(), Some('\'' | '"')) {
            let lower = text.to_ascii_lowercase();
            if matches!(
                lower.as_str(),
                "r" | "u" | "b" | "f" | "br" | "rb" | "fr" | "rf"
            ) {
                return Err(err(
                    self.tok_span,
                    format!("string prefix '{text}' is not supported; use a plain '...' string"),
                ));
            }
        }
        let text = text.to_string();
        self.push(TokenKind::Name(text));
        Ok(())
    }

    /// Consumes digits (per `is_digit`) with single `_` separators between them.
    fn digits(&mut self, is_digit: fn(char) -> bool) {
        loop {
            match self.peek() {
                Some(c) if is_digit(c) => {
                    self.advance();
                }
                Some('_') if self.peek_at(1).is_some_and(is_digit) => {
                    self.advance();
                    self.advance();
                }
                _ => break,
            }
        }
    }

    fn invalid_number(&mut self, what: &str) -> ParseError {
        while self
            .peek()
            .is_some_and(|c| is_ident_continue(c) || c == '.')
        {
            self.advance();
        }
        let text = &self.src[self.tok_start..self.offset()];
        err(self.tok_span, format!("{what} '{text}'"))
    }

    fn number(&mut self) -> Result<(), ParseError> {
        let radix = match (self.peek(), self.peek_at(1)) {
            (Some('0'), Some('x' | 'X')) => 16,
            (Some('0'), Some('o' | 'O')) => 8,
            (Some('0'), Some('b' | 'B')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.advance();
            self.advance();
            if self.peek() == Some('_') {
                self.advance();
            }
            let digits_start = self.offset();
            self.digits(match radix {
                16 => |c: char| c.is_ascii_hexdigit(),
                8 => |c: char| matches!(c, '0'..='7'),
                _ => |c: char| matches!(c, '0' | '1'),
            });
            let digits: String = self.src[digits_start..self.offset()]
                .chars()
                .filter(|&c| c != '_')
                .collect();
            if digits.is_empty() || self.peek().is_some_and(is_ident_continue) {
                return Err(self.invalid_number("invalid number"));
            }
            let value = i64::from_str_radix(&digits, radix).map_err(|_| self.too_large())?;
            self.push(TokenKind::Int(value));
            return Ok(());
        }

        let is_digit = |c: char| c.is_ascii_digit();
        self.digits(is_digit);
        let mut is_float = false;
        if self.peek() == Some('.') {
            is_float = true;
            self.advance();
            self.digits(is_digit);
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let exponent = match self.peek_at(1) {
                Some(c) if c.is_ascii_digit() => true,
                Some('+' | '-') => self.peek_at(2).is_some_and(is_digit),
                _ => false,
            };
            if exponent {
                is_float = true;
                self.advance();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.advance();
                }
                self.digits(is_digit);
            }
        }
        if matches!(self.peek(), Some('j' | 'J')) {
            self.advance();
            let text = &self.src[self.tok_start..self.offset()];
            return Err(err(
                self.tok_span,
                format!("complex number '{text}' is not supported"),
            ));
        }
        if self.peek().is_some_and(is_ident_continue) {
            return Err(self.invalid_number("invalid number"));
        }
        let text: String = self.src[self.tok_start..self.offset()]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        if is_float {
            let value: f64 = text
                .parse()
                .map_err(|_| err(self.tok_span, format!("invalid number '{text}'")))?;
            self.push(TokenKind::Float(value));
        } else {
            if text.len() > 1 && text.starts_with('0') && text.bytes().any(|b| b != b'0') {
                return Err(err(
                    self.tok_span,
                    format!(
                        "invalid number '{text}': leading zeros in decimal integers are not \
                         permitted (use 0o for octal)"
                    ),
                ));
            }
            let value: i64 = text.parse().map_err(|_| self.too_large())?;
            self.push(TokenKind::Int(value));
        }
        Ok(())
    }

    fn too_large(&self) -> ParseError {
        let text = &self.src[self.tok_start..self.offset()];
        err(
            self.tok_span,
            format!(
                "integer literal '{text}' is too large (the largest is {})",
                i64::MAX
            ),
        )
    }

    fn string(&mut self) -> Result<(), ParseError> {
        let Some(quote) = self.advance() else {
            return Ok(());
        };
        if self.peek() == Some(quote) && self.peek_at(1) == Some(quote) {
            return Err(err(
                self.tok_span,
                "triple-quoted strings are not supported",
            ));
        }
        let unterminated = |span| err(span, "unterminated string literal");
        let mut value = String::new();
        loop {
            match self.peek() {
                None => return Err(unterminated(self.tok_span)),
                Some(c) if is_newline(c) => return Err(unterminated(self.tok_span)),
                Some(c) if c == quote => {
                    self.advance();
                    break;
                }
                Some('\\') => {
                    let escape_span = self.here();
                    self.advance();
                    let Some(c) = self.peek() else {
                        return Err(unterminated(self.tok_span));
                    };
                    if is_newline(c) {
                        self.eat_newline();
                        continue;
                    }
                    self.advance();
                    match c {
                        'n' => value.push('\n'),
                        't' => value.push('\t'),
                        'r' => value.push('\r'),
                        'a' => value.push('\x07'),
                        'b' => value.push('\x08'),
                        'f' => value.push('\x0c'),
                        'v' => value.push('\x0b'),
                        '\\' | '\'' | '"' => value.push(c),
                        '0'..='7' => {
                            let mut code = c.to_digit(8).unwrap_or(0);
                            for _ in 0..2 {
                                match self.peek().and_then(|c| c.to_digit(8)) {
                                    Some(d) => {
                                        code = code * 8 + d;
                                        self.advance();
                                    }
                                    None => break,
                                }
                            }
                            value.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        'x' | 'u' | 'U' => {
                            let n = match c {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let mut code: u32 = 0;
                            for _ in 0..n {
                                match self.peek().and_then(|c| c.to_digit(16)) {
                                    Some(d) => {
                                        code = code.wrapping_mul(16).wrapping_add(d);
                                        self.advance();
                                    }
                                    None => {
                                        return Err(err(
                                            escape_span,
                                            format!("truncated \\{c} escape in string literal"),
                                        ));
                                    }
                                }
                            }
                            match char::from_u32(code) {
                                Some(ch) => value.push(ch),
                                None => {
                                    return Err(err(
                                        escape_span,
                                        format!("invalid \\{c} escape in string literal"),
                                    ));
                                }
                            }
                        }
                        other => {
                            value.push('\\');
                            value.push(other);
                        }
                    }
                }
                Some(c) => {
                    self.advance();
                    value.push(c);
                }
            }
        }
        self.push(TokenKind::Str(value));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        tokenize(src).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn joins_lines_inside_brackets() {
        use TokenKind::*;
        assert_eq!(
            kinds("f(1,\n  2)\nx"),
            vec![
                Name("f".into()),
                LParen,
                Int(1),
                Comma,
                Int(2),
                RParen,
                Newline,
                Name("x".into()),
                Newline,
                Eof
            ]
        );
    }

    #[test]
    fn operators_take_the_longest_match() {
        use TokenKind::*;
        assert_eq!(
            kinds("a**=b//c**d"),
            vec![
                Name("a".into()),
                AugAssign("**="),
                Name("b".into()),
                DoubleSlash,
                Name("c".into()),
                DoubleStar,
                Name("d".into()),
                Newline,
                Eof
            ]
        );
    }

    #[test]
    fn byte_ranges_and_spans() {
        let toks = tokenize("é = 'ü'\n").unwrap();
        assert_eq!(toks[0].span, Span::new(1, 1));
        assert_eq!(toks[1].span, Span::new(1, 3));
        assert_eq!(toks[2].span, Span::new(1, 5));
        assert_eq!(&"é = 'ü'\n"[toks[2].start..toks[2].end], "'ü'");
    }

    #[test]
    fn lone_carriage_returns_end_lines() {
        let toks = tokenize("a\rb\r\nc").unwrap();
        let lines: Vec<usize> = toks.iter().map(|t| t.span.line).collect();
        assert_eq!(lines, vec![1, 1, 2, 2, 3, 3, 3]);
    }

    #[test]
    fn string_escapes() {
        assert_eq!(
            kinds(r#"'a\n\'\x41\101\q'"#)[0],
            TokenKind::Str("a\n'AA\\q".into())
        );
    }
}
