//! Element-wise functions and methods, out of place.

use super::entry::{Entry, FUNCTION, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"#,
            r#"add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["subtract"],
        schemas: &[
            r#"sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"#,
            r#"sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["multiply"],
        schemas: &[r#"mul.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["divide", "true_divide"],
        schemas: &[
            r#"div.Tensor(Tensor self, Tensor other) -> Tensor"#,
            r#"div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"floor_divide(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"remainder.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"eq.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["not_equal"],
        schemas: &[r#"ne.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["less"],
        schemas: &[r#"lt.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["less_equal"],
        schemas: &[r#"le.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["greater"],
        schemas: &[r#"gt.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["greater_equal"],
        schemas: &[r#"ge.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"maximum(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"minimum(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"logical_and(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"logical_or(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"logical_xor(Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["absolute"],
        schemas: &[r#"abs(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["negative"],
        schemas: &[r#"neg(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"sqrt(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"exp(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"bitwise_not(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"logical_not(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"square(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"where.self(Tensor condition, Tensor self, Tensor other) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &["clip"],
        schemas: &[r#"clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[
            r#"allclose(Tensor self, Tensor other, float rtol=1.0000000000000001e-05, float atol=1e-08, bool equal_nan=False) -> bool"#,
        ],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"equal(Tensor self, Tensor other) -> bool"#],
    },
    Entry {
        surfaces: METHOD,
        aliases: &[],
        schemas: &[r#"masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor"#],
    },
];
