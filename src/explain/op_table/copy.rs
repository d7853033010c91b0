//! Copies, conversions and writes: `contiguous`, `clone`, `to`, `repeat`, `cat`, `copy_`, `index_put_`, ...

use super::entry::{Entry, FUNCTION, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"index_select(Tensor self, int dim, Tensor index) -> Tensor"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"zero_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"repeat(Tensor self, SymInt[] repeats) -> Tensor"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"tile(Tensor self, SymInt[] dims) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"flip(Tensor self, int[] dims) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[r#"cat(Tensor[] tensors, int dim=0) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[r#"concat(Tensor[] tensors, int dim=0) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[r#"concatenate(Tensor[] tensors, int dim=0) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[r#"stack(Tensor[] tensors, int dim=0) -> Tensor"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"to.device(Tensor(a) self, Device? device=None, ScalarType? dtype=None, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None) -> Tensor(a)"#,
            r#"to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"cuda(Tensor(a) self, Device? device=None, bool non_blocking=False) -> Tensor(a)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"cpu(Tensor(a) self) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"float(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"double(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"half(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"bfloat16(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"int(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"long(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"short(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"char(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"byte(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"bool(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)"#],
    },
];
