//! The op table: every tensor op `explain` knows, declared once with its PyTorch schema
//! strings (from native_functions.yaml as torch 2.11 prints them; for `torch.nn.functional`
//! and a few Python-level methods, Python's signature in the same grammar) and the Python
//! surfaces that reach it. Argument binding, defaults, keywords and overloads come from
//! these schemas ([`bind`]); so do which ops return views and which write in place
//! ([`is_view`], [`is_in_place`]); the supported-op list of docs/explain.md is made from it
//! ([`markdown`]).

mod autograd;
mod copy;
mod creation;
mod elementwise;
mod entry;
mod in_place;
mod linalg;
mod nn;
mod reduction;
mod tensor_info;
mod view;

use super::args::{Args, Bound};
use super::schema::{self, Schema, Surface};
use super::value::type_error;
use crate::error::Result;
use entry::{Entry, FUNCTION, FUNCTIONAL, METHOD};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The table's families, in the order the docs list them.
const FAMILIES: [(&str, &[Entry]); 10] = [
    ("creation", creation::ENTRIES),
    ("view", view::ENTRIES),
    ("copy", copy::ENTRIES),
    ("elementwise", elementwise::ENTRIES),
    ("in_place", in_place::ENTRIES),
    ("reduction", reduction::ENTRIES),
    ("linalg", linalg::ENTRIES),
    ("nn", nn::ENTRIES),
    ("tensor_info", tensor_info::ENTRIES),
    ("autograd", autograd::ENTRIES),
];

/// An entry with its schemas parsed.
pub struct Op {
    pub family: &'static str,
    /// The schema's op name (`transpose`).
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub surfaces: Vec<Surface>,
    pub schemas: Vec<Schema>,
    pub texts: &'static [&'static str],
}

struct Table {
    ops: Vec<Op>,
    by_name: HashMap<(Surface, &'static str), usize>,
}

fn surfaces(bits: u8) -> Vec<Surface> {
    [
        (FUNCTION, Surface::Function),
        (METHOD, Surface::Method),
        (FUNCTIONAL, Surface::Functional),
    ]
    .into_iter()
    .filter(|(b, _)| bits & b != 0)
    .map(|(_, s)| s)
    .collect()
}

/// Builds the table; an entry whose schemas do not parse, disagree on the op's name, or
/// repeat a (surface, name) pair is an error.
fn build() -> std::result::Result<Table, String> {
    let mut ops = Vec::new();
    let mut by_name = HashMap::new();
    for (family, entries) in FAMILIES {
        for e in entries {
            let schemas = e
                .schemas
                .iter()
                .map(|s| schema::parse(s))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let name = schemas
                .first()
                .map(|s| s.name)
                .ok_or_else(|| format!("an entry of {family} has no schema"))?;
            if let Some(other) = schemas.iter().find(|s| s.name != name) {
                return Err(format!(
                    "{name}: overload {} names another op",
                    other.full_name()
                ));
            }
            let op = Op {
                family,
                name,
                aliases: e.aliases,
                surfaces: surfaces(e.surfaces),
                schemas,
                texts: e.schemas,
            };
            for s in &op.surfaces {
                for n in std::iter::once(&name).chain(e.aliases) {
                    if by_name.insert((*s, *n), ops.len()).is_some() {
                        return Err(format!("{n} on {s:?} twice"));
                    }
                }
            }
            ops.push(op);
        }
    }
    Ok(Table { ops, by_name })
}

fn table() -> Result<&'static Table> {
    static TABLE: OnceLock<std::result::Result<Table, String>> = OnceLock::new();
    TABLE
        .get_or_init(build)
        .as_ref()
        .map_err(|e| crate::error::TensorError::new(crate::error::ErrorKind::Other, e.clone()))
}

/// Every op of the table, by family in [`FAMILIES`] order.
pub fn ops() -> Result<&'static [Op]> {
    Ok(&table()?.ops)
}

/// The op `name` reaches on `surface`.
pub fn lookup(surface: Surface, name: &str) -> Result<Option<&'static Op>> {
    let t = table()?;
    Ok(t.by_name.get(&(surface, name)).map(|&i| &t.ops[i]))
}

/// Python's message for a name no op answers to.
fn no_attribute(surface: Surface, name: &str) -> crate::error::TensorError {
    type_error(match surface {
        Surface::Function => format!("module 'torch' has no attribute '{name}'"),
        Surface::Method => format!("'Tensor' object has no attribute '{name}'"),
        Surface::Functional => {
            format!("module 'torch.nn.functional' has no attribute '{name}'")
        }
    })
}

/// Binds a call of `name` on `surface` to the op's overloads (the first that fits wins).
pub fn bind(surface: Surface, name: &str, args: Args) -> Result<Bound> {
    let op = lookup(surface, name)?.ok_or_else(|| no_attribute(surface, name))?;
    schema::bind_overloads(&op.schemas, surface, args)
}

/// Whether `x.NAME(...)` returns a view of `x` (its schemas say `Tensor(a) self -> Tensor(a)`).
pub fn is_view(name: &str) -> bool {
    matches!(lookup(Surface::Method, name), Ok(Some(op)) if op.schemas.iter().all(Schema::is_view))
}

/// Whether `x.NAME(...)` writes `x` in place (`Tensor(a!) self -> Tensor(a!)`).
pub fn is_in_place(name: &str) -> bool {
    matches!(lookup(Surface::Method, name), Ok(Some(op)) if op.schemas.iter().all(Schema::is_in_place))
}

/// How many ops the table holds.
pub fn len() -> Result<usize> {
    Ok(ops()?.len())
}

/// The supported-op list of docs/explain.md: one line per op with its Python names and
/// schemas, by family.
pub fn markdown() -> Result<String> {
    let mut out = format!(
        "The op table holds {} ops ({} schemas).\n",
        len()?,
        ops()?.iter().map(|o| o.schemas.len()).sum::<usize>()
    );
    for (family, _) in FAMILIES {
        out.push_str(&format!("\n#### {family}\n\n"));
        for op in ops()?.iter().filter(|o| o.family == family) {
            let mut names = Vec::new();
            for s in &op.surfaces {
                for n in std::iter::once(&op.name).chain(op.aliases) {
                    names.push(match s {
                        Surface::Function => format!("`torch.{n}`"),
                        Surface::Method => format!("`Tensor.{n}`"),
                        Surface::Functional => format!("`F.{n}`"),
                    });
                }
            }
            let schemas: Vec<String> = op.texts.iter().map(|t| format!("`{t}`")).collect();
            out.push_str(&format!("- {}: {}\n", names.join(", "), schemas.join("; ")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_builds_and_flags_come_from_schemas() {
        let t = build().unwrap();
        assert!(t.ops.len() > 150, "{}", t.ops.len());
        for v in [
            "view",
            "transpose",
            "t",
            "narrow",
            "select",
            "diagonal",
            "as_strided",
        ] {
            assert!(is_view(v), "{v}");
        }
        for n in ["add", "clone", "contiguous_", "sum", "repeat"] {
            assert!(!is_view(n), "{n}");
        }
        for n in [
            "add_",
            "copy_",
            "zero_",
            "fill_",
            "index_put_",
            "masked_fill_",
            "clip_",
        ] {
            assert!(is_in_place(n), "{n}");
        }
        for n in ["add", "index_put", "view"] {
            assert!(!is_in_place(n), "{n}");
        }
        // Every in-place method's name ends in `_`, every `_` method of the table is in place.
        for op in &t.ops {
            let in_place = op.schemas.iter().any(Schema::is_in_place);
            assert_eq!(in_place, op.name.ends_with('_'), "{}", op.name);
        }
    }

    #[test]
    fn unknown_names_get_pythons_message() {
        let a = |n: &str| Args {
            name: n.into(),
            positional: vec![],
            kwargs: vec![],
        };
        let e = bind(Surface::Method, "maximum_", a("maximum_"))
            .err()
            .unwrap();
        assert!(
            e.to_string()
                .contains("'Tensor' object has no attribute 'maximum_'")
        );
        let e = bind(Surface::Function, "view", a("view")).err().unwrap();
        assert!(
            e.to_string()
                .contains("module 'torch' has no attribute 'view'")
        );
        assert!(bind(Surface::Method, "subtract", a("subtract")).is_ok());
    }
}
