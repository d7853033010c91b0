//! Pure layout metadata: sizes, strides and a storage offset, all in elements.
//!
//! Nothing here touches element data or allocates for rank <= 8: dimension lists are
//! [`Dims`], a small vector kept inline. The files stack in one direction: [`dims`] (dimension
//! lists and their checks) at the bottom; [`order`] (TensorIterator's dimension order);
//! [`contiguity`] (contiguity and memory formats); [`strided`] ([`Layout`] itself) and
//! [`broadcast`]; then [`view`] (view rules), [`overlap`] (exact overlap questions) and
//! [`index`] (Python-style indexing). This file only names them.

pub mod broadcast;
pub mod contiguity;
pub mod dims;
pub mod index;
pub mod order;
pub mod overlap;
pub mod strided;
pub mod view;

pub use contiguity::MemoryFormat;
pub use dims::{Dims, check_sizes_nonnegative, fmt_dims, wrap_dim};
pub use strided::{IndexIter, Layout};
