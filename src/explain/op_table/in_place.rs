//! Element-wise methods in place (`Tensor(a!) self -> Tensor(a!)`).

use super::entry::{Entry, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"#,
            r#"add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["subtract_"],
        schemas: &[
            r#"sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"#,
            r#"sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["multiply_"],
        schemas: &[r#"mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["divide_", "true_divide_"],
        schemas: &[
            r#"div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#,
            r#"div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)"#,
        ],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"eq_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["not_equal_"],
        schemas: &[r#"ne_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["less_"],
        schemas: &[r#"lt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["less_equal_"],
        schemas: &[r#"le_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["greater_"],
        schemas: &[r#"gt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["greater_equal_"],
        schemas: &[r#"ge_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_and_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_or_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_xor_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"logical_and_(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"logical_or_(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"logical_xor_(Tensor(a!) self, Tensor other) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["absolute_"],
        schemas: &[r#"abs_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["negative_"],
        schemas: &[r#"neg_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"sqrt_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"exp_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_not_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"logical_not_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"square_(Tensor(a!) self) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &["clip_"],
        schemas: &[r#"clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[
            r#"masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)"#,
        ],
    },
];
