//! The shape of one op table entry.

/// `torch.NAME(...)`.
pub(super) const FUNCTION: u8 = 1;
/// `x.NAME(...)`.
pub(super) const METHOD: u8 = 2;
/// `torch.nn.functional.NAME(...)`.
pub(super) const FUNCTIONAL: u8 = 4;

/// One op: its overloads in the order PyTorch's parser tries them, the surfaces that reach
/// it, and other Python names bound the same way (`subtract` for `sub`).
pub(super) struct Entry {
    pub(super) surfaces: u8,
    pub(super) aliases: &'static [&'static str],
    pub(super) schemas: &'static [&'static str],
}
