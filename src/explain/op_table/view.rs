//! Views: the result shares its input's storage (`Tensor(a) self -> Tensor(a)`).

use super::entry::{Entry, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"view(Tensor(a) self, SymInt[] size) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"permute(Tensor(a) self, int[] dims) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"t(Tensor(a) self) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"expand_as(Tensor(a) self, Tensor other) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"unsqueeze(Tensor(a) self, int dim) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"squeeze(Tensor(a) self) -> Tensor(a)"#,
            r#"squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)"#,
            r#"squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)"#,
            r#"movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)"#,
            r#"moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"detach(Tensor(a) self) -> Tensor(a)"#],
    },
];
