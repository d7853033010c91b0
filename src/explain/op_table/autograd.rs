//! The autograd methods of a tensor: `requires_grad_` and `retain_grad` (aten's schemas) and
//! `backward` (Python-level: `torch/_tensor.py`'s signature in schema grammar).

use super::entry::{Entry, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"requires_grad_(Tensor(a!) self, bool requires_grad=True) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"retain_grad(Tensor(a!) self) -> ()"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"backward(Tensor self, Any? gradient=None, bool? retain_graph=None, bool create_graph=False, Any? inputs=None) -> ()"#,
        ],
    },
];
