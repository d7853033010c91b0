//! Layers: tiles of one shape stacked along a third dimension, moved in one call (the
//! packed tiles of [`super::walk`]).

/// `n` tiles of one shape stacked along a third dimension: layer `l` lies at `l * dl`
/// destination and `l * sl` source bytes from the first ([`super::walk`]'s packed tiles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Layers {
    pub n: usize,
    pub dl: isize,
    pub sl: isize,
}

impl Layers {
    /// One layer: a plain tile.
    pub const ONE: Layers = Layers { n: 1, dl: 0, sl: 0 };
}
