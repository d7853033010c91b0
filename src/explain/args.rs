//! Binding call arguments to an op's parameters, PyTorch-style: positional, then keyword by
//! PyTorch's parameter names; size-like parameters accept varargs or one sequence.

use super::value::{Value, type_error};
use crate::error::Result;
use crate::layout::Dims;

/// The arguments of one call.
pub struct Args {
    pub name: String,
    pub positional: Vec<Value>,
    pub kwargs: Vec<(String, Value)>,
}

/// Parameters after binding: one slot per declared name.
pub struct Bound {
    name: String,
    slots: Vec<(&'static str, Option<Value>)>,
}

impl Args {
    /// Binds to `params` in order. Extra positionals, unknown or repeated keywords are
    /// errors naming the call.
    pub fn bind(self, params: &[&'static str]) -> Result<Bound> {
        if self.positional.len() > params.len() {
            return Err(type_error(format!(
                "{}() takes {} positional argument(s) but {} were given",
                self.name,
                params.len(),
                self.positional.len()
            )));
        }
        let mut slots: Vec<(&'static str, Option<Value>)> =
            params.iter().map(|p| (*p, None)).collect();
        for (slot, v) in slots.iter_mut().zip(self.positional) {
            slot.1 = Some(v);
        }
        for (k, v) in self.kwargs {
            match slots.iter_mut().find(|(p, _)| *p == k) {
                Some((_, slot @ None)) => *slot = Some(v),
                Some(_) => {
                    return Err(type_error(format!(
                        "{}() got multiple values for argument '{k}'",
                        self.name
                    )));
                }
                None => {
                    return Err(type_error(format!(
                        "{}() got an unexpected keyword argument '{k}'",
                        self.name
                    )));
                }
            }
        }
        Ok(Bound {
            name: self.name,
            slots,
        })
    }

    /// For `view(*shape)`-like calls: several ints, or one tuple/list, or the keyword `kw`;
    /// other keywords bind to `rest`.
    pub fn int_varargs(mut self, kw: &'static str, rest: &[&'static str]) -> Result<(Dims, Bound)> {
        let name = self.name.clone();
        let sizes = if let Some(i) = self.kwargs.iter().position(|(k, _)| k == kw) {
            if !self.positional.is_empty() {
                return Err(type_error(format!(
                    "{name}() got multiple values for argument '{kw}'"
                )));
            }
            self.kwargs.remove(i).1.as_int_list(kw)?
        } else {
            let many = std::mem::take(&mut self.positional);
            match many.as_slice() {
                [one @ (Value::Tuple(_) | Value::List(_) | Value::Size(_))] => {
                    one.as_int_list(kw)?
                }
                _ => many
                    .iter()
                    .map(|v| v.as_int(kw))
                    .collect::<Result<Dims>>()?,
            }
        };
        Ok((sizes, self.bind(rest)?))
    }
}

impl Bound {
    /// Parameters bound elsewhere (by a schema): one slot per name, in order.
    pub(super) fn from_slots(name: String, slots: Vec<(&'static str, Option<Value>)>) -> Self {
        Bound { name, slots }
    }

    fn slot(&self, param: &str) -> Option<&Value> {
        self.slots
            .iter()
            .find(|(p, _)| *p == param)
            .and_then(|(_, v)| v.as_ref())
            .filter(|v| !matches!(v, Value::None))
    }

    /// A value that may be absent or `None`.
    pub fn opt(&self, param: &str) -> Option<&Value> {
        self.slot(param)
    }

    /// A required value.
    pub fn req(&self, param: &str) -> Result<&Value> {
        self.slot(param).ok_or_else(|| {
            type_error(format!(
                "{}() missing required argument '{param}'",
                self.name
            ))
        })
    }

    pub fn int(&self, param: &str) -> Result<i64> {
        self.req(param)?.as_int(param)
    }

    /// A required tuple or list of ints (or a single int).
    pub fn int_list(&self, param: &str) -> Result<Dims> {
        self.req(param)?.as_int_list(param)
    }

    pub fn int_or(&self, param: &str, default: i64) -> Result<i64> {
        self.opt(param).map_or(Ok(default), |v| v.as_int(param))
    }
}
