//! PyTorch operator schemas (`name.overload(Tensor(a) self, int dim=0, *, ...) -> Tensor(a)`),
//! parsed into typed signatures ([`parse`]) and used to bind an `explain` call's arguments
//! ([`bind`]): parameter order, defaults, keyword-only parameters, overloads, and which
//! outputs alias which inputs (the `(a)` / `(a!)` annotations).

mod bind;
mod parse;
mod types;

pub use bind::{Surface, bind, bind_overloads};
pub use parse::parse;
pub use types::{Alias, Base, Default, Param, Return, Schema, Type};
