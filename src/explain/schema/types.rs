//! The typed form of a parsed schema.

/// The element type of a parameter or return, as a schema names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    Tensor,
    /// `int` and `SymInt`.
    Int,
    Float,
    Bool,
    Str,
    Scalar,
    ScalarType,
    Layout,
    Device,
    MemoryFormat,
    Generator,
    /// A type explain has no use for (`Storage`, `Dimname`, ...): accepts any value.
    Other,
}

/// A parameter's or return's type: `Tensor`, `int[1]?`, `Tensor?[]`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Type {
    pub base: Base,
    /// `T[]` (None inside: any length) or `T[N]` (Some(N): a single value is repeated N times).
    pub list: Option<Option<usize>>,
    /// `T?` (or `T[]?`): the whole value may be `None`.
    pub optional: bool,
    /// `T?[]`: each element may be `None`.
    pub elem_optional: bool,
}

/// An alias annotation: `(a)` (the value is or shares storage with alias set `a`) or `(a!)`
/// (it is written in place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    /// The alias sets, `a` or `b|a`.
    pub sets: Vec<&'static str>,
    pub write: bool,
}

/// A parameter's default value, as the schema writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Default {
    None,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'static str),
    IntList(Vec<i64>),
    /// The integer code of a `ScalarType` or `MemoryFormat` (`dtype=4`, `memory_format=0`).
    Enum(i64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: &'static str,
    pub ty: Type,
    pub alias: Option<Alias>,
    pub default: Option<Default>,
    /// After the `*` marker: keyword only.
    pub kwarg_only: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Return {
    pub name: Option<&'static str>,
    pub ty: Type,
    pub alias: Option<Alias>,
}

/// One overload's signature.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub name: &'static str,
    /// `int` in `transpose.int`; empty for the default overload.
    pub overload: &'static str,
    pub params: Vec<Param>,
    pub returns: Vec<Return>,
}

impl Schema {
    /// The input whose alias set the first output names, if it does.
    fn aliased_input(&self, write: bool) -> Option<&Param> {
        let out = self.returns.first()?.alias.as_ref()?;
        if out.write != write {
            return None;
        }
        self.params.iter().find(|p| {
            p.alias
                .as_ref()
                .is_some_and(|a| a.write == write && a.sets.iter().any(|s| out.sets.contains(s)))
        })
    }

    /// Whether the op returns a view of an input (`Tensor(a) self ... -> Tensor(a)`).
    pub fn is_view(&self) -> bool {
        self.aliased_input(false).is_some()
    }

    /// Whether the op writes an input and returns it (`Tensor(a!) self ... -> Tensor(a!)`).
    pub fn is_in_place(&self) -> bool {
        self.aliased_input(true).is_some()
    }

    /// The schema's full name: `transpose.int`, or `view` for a default overload.
    pub fn full_name(&self) -> String {
        if self.overload.is_empty() {
            self.name.to_string()
        } else {
            format!("{}.{}", self.name, self.overload)
        }
    }
}
