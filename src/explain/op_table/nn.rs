//! Activations and `torch.nn.functional` (whose signatures are Python's, in schema grammar).

use super::entry::{Entry, FUNCTION, FUNCTIONAL, METHOD};

pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"relu(Tensor self) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTION | METHOD,
        aliases: &[],
        schemas: &[r#"log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[r#"linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[r#"relu(Tensor input, bool inplace=False) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[r#"gelu(Tensor input, *, str approximate="none") -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[r#"silu(Tensor input, bool inplace=False) -> Tensor"#],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[
            r#"softmax(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[
            r#"log_softmax(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[
            r#"dropout(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[
            r#"pad(Tensor input, int[] pad, str mode="constant", float? value=None) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTION,
        aliases: &[],
        schemas: &[
            r#"layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor"#,
        ],
    },
    Entry {
        surfaces: FUNCTIONAL,
        aliases: &[],
        schemas: &[
            r#"layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor"#,
        ],
    },
];
