//! Matrix products: `matmul`, `mm`, `bmm`, `mv`, `dot`, `addmm`.

use super::entry::{Entry, FUNCTION, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"matmul(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"mm(Tensor self, Tensor mat2) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"bmm(Tensor self, Tensor mat2) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"mv(Tensor self, Tensor vec) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"dot(Tensor self, Tensor tensor) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"#,
        ],
    },
];
