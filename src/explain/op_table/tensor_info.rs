//! Metadata methods: `size`, `stride`, `dim`, `numel`, `data_ptr`, `item`, ...

use super::entry::{Entry, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"is_floating_point(Tensor self) -> bool"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"item(Tensor self) -> Scalar"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"is_contiguous(Tensor self) -> bool"#,
            r#"is_contiguous.memory_format(Tensor self, MemoryFormat memory_format) -> bool"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"dim(Tensor self) -> int"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"numel(Tensor self) -> int"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"storage_offset(Tensor self) -> int"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"element_size(Tensor self) -> int"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"nelement(Tensor self) -> int"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"untyped_storage(Tensor(a) self) -> Storage(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"storage(Tensor(a) self) -> Storage(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"data_ptr(Tensor self) -> int"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"tolist(Tensor self) -> Any"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"size(Tensor self, int? dim=None) -> Any"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"stride(Tensor self, int? dim=None) -> Any"#],
    },
];
