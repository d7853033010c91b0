//! Constructors: `torch.zeros`, `torch.arange`, ..., `x.new_full`, `torch.tensor`.

use super::entry::{Entry, FUNCTION, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"rand.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"randn.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"randint.generator(SymInt high, SymInt[] size, *, Generator? generator, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
            r#"randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[r#"tensor(Any data, *, ScalarType? dtype=None, Device? device=None) -> Tensor"#],
    },
];
