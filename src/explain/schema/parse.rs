//! The schema grammar of PyTorch's native_functions.yaml, as far as explain's ops use it:
//! `[aten::]name[.overload](params) -> returns`, params `TYPE NAME[=DEFAULT]` separated by
//! commas with an optional `*` (what follows is keyword only), types `Base[(alias)][[N]][?]`.

use super::types::{Alias, Base, Default, Param, Return, Schema, Type};

/// Parses one schema string; the error says what is wrong and where.
pub fn parse(text: &'static str) -> Result<Schema, String> {
    let at = |what: &str| format!("schema `{text}`: {what}");
    let fail = |what: &str| Err(at(what));
    let text_body = text.strip_prefix("aten::").unwrap_or(text);
    let Some(open) = text_body.find('(') else {
        return fail("no parameter list");
    };
    let Some(arrow) = text_body.rfind("->") else {
        return fail("no `->` before the returns");
    };
    let head = &text_body[..open];
    let (name, overload) = head.split_once('.').unwrap_or((head, ""));
    if !is_ident(name) || !(overload.is_empty() || is_ident(overload)) {
        return fail("bad name");
    }
    let params_text = text_body[open + 1..arrow].trim_end();
    let Some(params_text) = params_text.strip_suffix(')') else {
        return fail("parameter list not closed");
    };
    let mut params = Vec::new();
    let mut kwarg_only = false;
    for piece in split_top(params_text) {
        if piece == "*" {
            if kwarg_only {
                return fail("two `*` markers");
            }
            kwarg_only = true;
            continue;
        }
        let param = parse_param(piece, kwarg_only).map_err(|e| at(&e))?;
        if params.iter().any(|p: &Param| p.name == param.name) {
            return fail(&format!("parameter `{}` twice", param.name));
        }
        params.push(param);
    }
    let rets = text_body[arrow + 2..].trim();
    let rets_inner = match rets.strip_prefix('(') {
        Some(r) => match r.strip_suffix(')') {
            Some(inner) => inner,
            None => return fail("returns not closed"),
        },
        None => rets,
    };
    let mut returns = Vec::new();
    for piece in split_top(rets_inner) {
        let (ty_text, name) = match split_type_name(piece) {
            Some((t, n)) => (t, Some(n)),
            None => (piece, None),
        };
        let (ty, alias) = parse_type(ty_text).map_err(|e| at(&e))?;
        returns.push(Return { name, ty, alias });
    }
    Ok(Schema {
        name,
        overload,
        params,
        returns,
    })
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Splits at commas outside brackets and parentheses, trimmed; none for an empty text.
fn split_top(text: &'static str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

/// `TYPE NAME` split at the last space outside brackets; None when there is no name.
fn split_type_name(piece: &'static str) -> Option<(&'static str, &'static str)> {
    let mut depth = 0i32;
    let mut at = None;
    for (i, c) in piece.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ' ' if depth == 0 => at = Some(i),
            _ => {}
        }
    }
    let i = at?;
    Some((piece[..i].trim(), piece[i + 1..].trim()))
}

fn parse_param(piece: &'static str, kwarg_only: bool) -> Result<Param, String> {
    let (decl, default) = match piece.split_once('=') {
        Some((d, v)) => (d.trim(), Some(v.trim())),
        None => (piece, None),
    };
    let (ty_text, name) =
        split_type_name(decl).ok_or_else(|| format!("parameter `{piece}` has no name"))?;
    if !is_ident(name) {
        return Err(format!("bad parameter name `{name}`"));
    }
    let (ty, alias) = parse_type(ty_text)?;
    let default = default.map(|d| parse_default(d, ty)).transpose()?;
    Ok(Param {
        name,
        ty,
        alias,
        default,
        kwarg_only,
    })
}

fn parse_type(text: &'static str) -> Result<(Type, Option<Alias>), String> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let base = match &text[..end] {
        "Tensor" => Base::Tensor,
        "int" | "SymInt" => Base::Int,
        "float" => Base::Float,
        "bool" => Base::Bool,
        "str" => Base::Str,
        "Scalar" => Base::Scalar,
        "ScalarType" => Base::ScalarType,
        "Layout" => Base::Layout,
        "Device" => Base::Device,
        "MemoryFormat" => Base::MemoryFormat,
        "Generator" => Base::Generator,
        "" => return Err(format!("type `{text}` has no name")),
        _ => Base::Other,
    };
    let mut rest = &text[end..];
    let mut alias = None;
    if let Some(r) = rest.strip_prefix('(') {
        let close = r
            .find(')')
            .ok_or_else(|| format!("alias in `{text}` not closed"))?;
        let inner = &r[..close];
        let (sets, write) = match inner.strip_suffix('!') {
            Some(s) => (s, true),
            None => (inner, false),
        };
        let sets: Vec<&'static str> = sets.split('|').map(str::trim).collect();
        if sets.iter().any(|s| !is_ident(s)) {
            return Err(format!("bad alias annotation in `{text}`"));
        }
        alias = Some(Alias { sets, write });
        rest = &r[close + 1..];
    }
    let mut ty = Type {
        base,
        list: None,
        optional: false,
        elem_optional: false,
    };
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('?') {
            if ty.list.is_some() {
                ty.optional = true;
            } else {
                ty.elem_optional = true;
            }
            rest = r;
        } else if let Some(r) = rest.strip_prefix('[') {
            let close = r
                .find(']')
                .ok_or_else(|| format!("list in `{text}` not closed"))?;
            let n = &r[..close];
            let len = if n.is_empty() {
                None
            } else {
                Some(
                    n.parse()
                        .map_err(|_| format!("bad list length in `{text}`"))?,
                )
            };
            if ty.list.is_some() {
                return Err(format!("nested list in `{text}`"));
            }
            ty.list = Some(len);
            rest = &r[close + 1..];
        } else {
            return Err(format!("unexpected `{rest}` in type `{text}`"));
        }
    }
    // `T?` without a list: the value itself is optional.
    if ty.list.is_none() && ty.elem_optional {
        ty.optional = true;
        ty.elem_optional = false;
    }
    Ok((ty, alias))
}

fn parse_default(text: &'static str, ty: Type) -> Result<Default, String> {
    let bad = || format!("bad default `{text}`");
    if text == "None" {
        return Ok(Default::None);
    }
    if ty.list.is_some() {
        let inner = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .ok_or_else(bad)?;
        return split_top(inner)
            .into_iter()
            .map(|v| v.parse::<i64>().map_err(|_| bad()))
            .collect::<Result<Vec<_>, _>>()
            .map(Default::IntList);
    }
    Ok(match ty.base {
        Base::Bool => match text {
            "True" => Default::Bool(true),
            "False" => Default::Bool(false),
            _ => return Err(bad()),
        },
        Base::Str => Default::Str(
            text.strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .ok_or_else(bad)?,
        ),
        Base::ScalarType | Base::MemoryFormat | Base::Layout => {
            Default::Enum(text.parse().map_err(|_| bad())?)
        }
        _ => match text.parse::<i64>() {
            Ok(i) => Default::Int(i),
            Err(_) => Default::Float(text.parse().map_err(|_| bad())?),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_aliases_self() {
        let s = parse("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)").unwrap();
        assert_eq!((s.name, s.overload), ("transpose", "int"));
        assert_eq!(s.full_name(), "transpose.int");
        assert_eq!(s.params.len(), 3);
        assert_eq!(s.params[0].name, "self");
        assert_eq!(
            s.params[0].alias,
            Some(Alias {
                sets: vec!["a"],
                write: false
            })
        );
        assert_eq!(s.params[1].ty.base, Base::Int);
        assert!(s.is_view());
        assert!(!s.is_in_place());
    }

    #[test]
    fn in_place_and_keyword_only() {
        let s =
            parse("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
                .unwrap();
        assert!(s.is_in_place());
        assert!(!s.is_view());
        let alpha = &s.params[2];
        assert!(alpha.kwarg_only && !s.params[1].kwarg_only);
        assert_eq!(alpha.default, Some(Default::Int(1)));
        assert_eq!(alpha.ty.base, Base::Scalar);
    }

    #[test]
    fn lists_optionals_and_defaults() {
        let s = parse(
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        )
        .unwrap();
        let dim = s.params[1].ty;
        assert_eq!(dim.list, Some(Some(1)));
        assert!(dim.optional && !dim.elem_optional);
        assert_eq!(s.params[2].default, Some(Default::Bool(false)));
        assert_eq!(s.params[3].default, Some(Default::None));
        let s = parse("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)").unwrap();
        let idx = s.params[1].ty;
        assert!(idx.elem_optional && !idx.optional && idx.list == Some(None));
        let s = parse("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor").unwrap();
        assert_eq!(s.params[1].default, Some(Default::IntList(vec![])));
        let s = parse("allclose(Tensor self, Tensor other, float rtol=1.0000000000000001e-05, float atol=1e-08, bool equal_nan=False) -> bool").unwrap();
        assert_eq!(s.params[2].default, Some(Default::Float(1e-05)));
        let s = parse("gelu(Tensor self, *, str approximate=\"none\") -> Tensor").unwrap();
        assert_eq!(s.params[1].default, Some(Default::Str("none")));
        let s =
            parse("randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4) -> Tensor").unwrap();
        assert_eq!(s.params[2].default, Some(Default::Enum(4)));
        assert_eq!(s.params[1].ty.list, Some(None));
        assert!(!s.is_view());
    }

    #[test]
    fn several_returns_and_aten_prefix() {
        let s = parse("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)").unwrap();
        assert_eq!(s.returns.len(), 2);
        assert_eq!(s.returns[1].name, Some("indices"));
        let s =
            parse("to.prim_Device(Tensor(a) self, Device? device, int? dtype=None) -> Tensor(b|a)")
                .unwrap();
        assert_eq!(s.returns[0].alias.as_ref().unwrap().sets, vec!["b", "a"]);
        assert!(s.is_view());
        let s = parse("t(Tensor(a) self) -> Tensor(a)").unwrap();
        assert_eq!(s.overload, "");
        let s = parse("zero_(Tensor(a!) self) -> Tensor(a!)").unwrap();
        assert!(s.is_in_place());
        let s = parse("numel(Tensor self) -> int").unwrap();
        assert_eq!(s.returns[0].ty.base, Base::Int);
        let s = parse("cat(Tensor[] tensors, int dim=0) -> Tensor").unwrap();
        assert_eq!(s.params[0].ty.list, Some(None));
    }

    #[test]
    fn malformed_schemas_are_errors() {
        for bad in [
            "view",
            "view(Tensor self",
            "view(Tensor self) Tensor",
            "view(Tensor) -> Tensor",
            "view(Tensor self, int self) -> Tensor",
            "view(Tensor self, *, *, int a) -> Tensor",
            "view(Tensor(a self) -> Tensor",
            "view(int[x] a) -> Tensor",
            "view(bool a=Maybe) -> Tensor",
            "view(int[] a=[1,x]) -> Tensor",
            "1view(Tensor self) -> Tensor",
            "view(Tensor[][] a) -> Tensor",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
