//! The deterministic order for writes whose operands overlap where PyTorch does not check
//! (see [`super::overlap_policy`]): element by element, the dimensions in TensorIterator's
//! order (sorted by the written tensor's and the operands' strides: row-major for an ordinary
//! window view), every operand element read from the storage as it is at that moment, as
//! PyTorch's serial CPU loop does. Runs on the
//! host (a GPU storage is downloaded, written and uploaded back).

use super::Tensor;
use super::arith::{self, ElementOp};
use super::operand::Operand;
use crate::backend::cuda::storage::Bytes;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Dims;
use crate::layout::Layout;
use crate::layout::broadcast::{Operand as LayoutOperand, broadcast_strides, iteration_order};
use crate::scalar::Scalar;

/// Every index of `sizes`, the dimensions in `order` varying slowest first (the last fastest).
fn indices_in_order(sizes: &[i64], order: &[usize]) -> Vec<Dims> {
    let n: i64 = sizes.iter().product();
    let mut out = Vec::with_capacity(n.max(0) as usize);
    if n <= 0 {
        return out;
    }
    let mut idx = Dims::from_elem(0, sizes.len());
    loop {
        out.push(idx.clone());
        let mut k = order.len();
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            let d = order[k];
            idx[d] += 1;
            if idx[d] < sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// How a write must run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Any order gives the same result: the planned (possibly parallel, staged) path.
    Free,
    /// Row-major, element by element, reading each operand when it is needed.
    Sequential,
}

/// Where an operand of a sequential write reads from.
enum Source {
    /// The written storage itself, at this layout (over the written tensor's shape).
    Own(Layout, DType),
    /// Another storage's bytes (a host copy), at this layout.
    Other(Vec<u8>, Layout, DType),
    Number(Scalar),
}

impl Tensor {
    /// Runs `f(storage bytes)` on this tensor's storage: in place on the host, or on a host
    /// copy of a GPU storage that is uploaded back.
    fn with_host_bytes(&self, f: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<()> {
        super::host_fallback::note(self.device(), || {
            "an order-dependent overlapping write (element by element)".into()
        });
        match self.storage.bytes() {
            Bytes::Host(b) => f(&mut b.write()),
            Bytes::Cuda(b) => {
                let mut host = b.to_host()?;
                f(&mut host)?;
                b.upload(0, &host)?;
                Ok(())
            }
        }
    }

    fn sources(&self, inputs: &[Operand]) -> Result<Vec<Source>> {
        inputs
            .iter()
            .map(|i| match i {
                Operand::Number(s) => Ok(Source::Number(*s)),
                Operand::Tensor(t) => {
                    let strides = broadcast_strides(t.sizes(), t.strides(), self.sizes());
                    let l = Layout::new(self.sizes(), &strides, t.storage_offset())?;
                    Ok(if t.shares_storage(self) {
                        Source::Own(l, t.dtype)
                    } else {
                        Source::Other(t.storage.to_host()?, l, t.dtype)
                    })
                }
            })
            .collect()
    }

    /// `self[i] = op(inputs[i]...)` for every index i of self in row-major order, operands
    /// converted to `compute`, the result to self's dtype.
    pub(super) fn apply_sequential(
        &self,
        op: ElementOp,
        inputs: &[Operand],
        compute: DType,
    ) -> Result<()> {
        let sources = self.sources(inputs)?;
        let (dt, sz) = (self.dtype, self.itemsize());
        // TensorIterator's order over self (the output) and the operands, outermost first.
        let mut operands = vec![LayoutOperand {
            sizes: self.sizes(),
            strides: self.strides(),
        }];
        operands.extend(inputs.iter().filter_map(|i| match i {
            Operand::Tensor(t) => Some(LayoutOperand {
                sizes: t.sizes(),
                strides: t.strides(),
            }),
            Operand::Number(_) => None,
        }));
        let order: Vec<usize> = iteration_order(self.sizes(), &operands)
            .iter()
            .rev()
            .map(|&d| d as usize)
            .collect();
        self.with_host_bytes(|bytes| {
            let mut args = vec![Scalar::Int(0); sources.len()];
            for idx in indices_in_order(self.sizes(), &order) {
                for (a, s) in args.iter_mut().zip(&sources) {
                    let v = match s {
                        Source::Number(n) => *n,
                        Source::Own(l, d) => {
                            let at = l.element_at(&idx) as usize * d.itemsize();
                            Scalar::read(*d, &bytes[at..at + d.itemsize()])
                        }
                        Source::Other(b, l, d) => {
                            let at = l.element_at(&idx) as usize * d.itemsize();
                            Scalar::read(*d, &b[at..at + d.itemsize()])
                        }
                    };
                    *a = v.cast(compute);
                }
                let mut r = arith::apply(op, compute, &args)?;
                if !op.is_comparison() {
                    r = r.cast(compute);
                }
                let at = self.layout.element_at(&idx) as usize * sz;
                r.write(dt, &mut bytes[at..at + sz]);
            }
            Ok(())
        })
    }

    /// `self.copy_(src)` (src already broadcast to self's shape) in row-major order.
    pub(super) fn copy_sequential(&self, src: &Tensor) -> Result<()> {
        // A copy is `where(true, src, _)`: the identity on its one operand.
        let compute = src.dtype;
        self.apply_sequential(
            ElementOp::Where,
            &[
                Operand::Number(Scalar::Bool(true)),
                Operand::Tensor(src.clone()),
                Operand::Number(Scalar::Int(0)),
            ],
            compute,
        )
    }
}
