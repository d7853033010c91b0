//! Reductions: `sum`, `mean`, `prod`, `amax`, `amin`, `any`, `all`, `max`, `min`.

use super::entry::{Entry, FUNCTION, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"sum(Tensor self, *, ScalarType? dtype=None) -> Tensor"#,
            r#"sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"mean(Tensor self, *, ScalarType? dtype=None) -> Tensor"#,
            r#"mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"prod(Tensor self, *, ScalarType? dtype=None) -> Tensor"#,
            r#"prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"any(Tensor self) -> Tensor"#,
            r#"any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor"#,
            r#"any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"all(Tensor self) -> Tensor"#,
            r#"all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor"#,
            r#"all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"max(Tensor self) -> Tensor"#,
            r#"max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"#,
            r#"max.other(Tensor self, Tensor other) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"min(Tensor self) -> Tensor"#,
            r#"min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"#,
            r#"min.other(Tensor self, Tensor other) -> Tensor"#,
        ],
    },
];
