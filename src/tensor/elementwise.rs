//! Element-wise ops between tensors and Python numbers: PyTorch's broadcasting, type
//! promotion (`torch.result_type`) and result layout (TensorIterator's), run by ONE strided
//! path for every op and dtype:
//!
//! 1. the result is allocated dense, with the strides [`output_strides`] gives it (an
//!    in-place op writes a dense temporary in self's stride order);
//! 2. every tensor operand is brought into that same layout, converted to the op's
//!    computation dtype, by the copy plan ([`CopyPlan`](crate::plan::CopyPlan), broadcast
//!    dimensions as stride 0), so all operands and the result address their elements at the
//!    same storage positions;
//! 3. one flat loop applies [`arith::apply`] element by element, reading every operand
//!    and writing the result at the same position.
//!
//! That is the CPU backend. On a GPU ([`super::elementwise_gpu`]) the same op is one launch
//! of the strided element-wise kernel family over the operands' own layouts (folded with the
//! copy plan's folding), writing the result (or an in-place op's self) directly; only the
//! order-dependent overlapping writes ([`super::sequential`]) still run on the host.

use super::Tensor;
use super::arith::{self, ElementOp};
use super::elementwise_gpu;
pub use super::operand::Operand;
use super::sequential::Order;
use crate::dtype::{DType, can_cast, result_type};
use crate::error::{ErrorKind, Result, TensorError, err};
use crate::layout::broadcast::{Operand as LayoutOperand, broadcast_shapes, broadcast_strides};
use crate::layout::{Dims, Layout, MemoryFormat, contiguity};
use crate::scalar::Scalar;
use crate::storage::Device;

/// The computation dtype of `op` over `inputs` (PyTorch's promoted type; float32 for true
/// division, `sqrt` and `exp` of integers), and the dtype of its result (bool for
/// comparisons), with PyTorch's refusals of a `where` condition that is not bool.
pub fn op_dtypes(op: ElementOp, inputs: &[Operand]) -> Result<(DType, DType)> {
    let promoted = match op {
        ElementOp::Where => {
            match &inputs[0] {
                Operand::Tensor(c) if c.dtype() == DType::Bool => {}
                Operand::Tensor(c) => {
                    return err(
                        ErrorKind::DtypeUnsupported,
                        format!(
                            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                            c.dtype().scalar_type_name()
                        ),
                    );
                }
                Operand::Number(_) => {
                    return err(
                        ErrorKind::Other,
                        "where(): argument 'condition' must be Tensor",
                    );
                }
            }
            &inputs[1..]
        }
        _ => inputs,
    };
    let common = result_type(&promoted.iter().map(Operand::promotion).collect::<Vec<_>>());
    // PyTorch's sub_check, on the operands' own dtypes (a Python bool is a bool operand too);
    // two bool operands compute in bool and get `ElementOp::check`'s message instead.
    let is_bool = |o: &Operand| match o {
        Operand::Tensor(t) => t.dtype() == DType::Bool,
        Operand::Number(s) => s.category() == crate::dtype::Category::Bool,
    };
    if matches!(op, ElementOp::Sub(_)) && common != DType::Bool && promoted.iter().any(is_bool) {
        return err(
            ErrorKind::DtypeUnsupported,
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        );
    }
    let compute = match op {
        ElementOp::Div | ElementOp::Sqrt | ElementOp::Exp if !common.is_floating() => DType::F32,
        _ => common,
    };
    let out = if op.is_comparison() {
        DType::Bool
    } else {
        compute
    };
    Ok((compute, out))
}

/// PyTorch's checks of `alpha` in `add`/`sub` against the computation dtype.
fn check_alpha(op: ElementOp, compute: DType) -> Result<ElementOp> {
    let (ElementOp::Add(alpha) | ElementOp::Sub(alpha)) = op else {
        return Ok(op);
    };
    if alpha.category() == crate::dtype::Category::Bool && compute != DType::Bool {
        return err(
            ErrorKind::DtypeUnsupported,
            "Boolean alpha only supported for Boolean results.",
        );
    }
    if !compute.is_floating() && alpha.category() == crate::dtype::Category::Floating {
        return err(
            ErrorKind::DtypeUnsupported,
            "For integral input tensors, argument alpha must not be a floating point number.",
        );
    }
    let alpha = super::checked_fill_value(alpha, compute)?;
    Ok(match op {
        ElementOp::Add(_) => ElementOp::Add(alpha),
        _ => ElementOp::Sub(alpha),
    })
}

/// The device every tensor operand must share (0-d CPU tensors may join any device).
fn common_device(inputs: &[Operand]) -> Result<Device> {
    let mut device = None;
    for t in inputs.iter().filter_map(Operand::tensor) {
        if t.ndim() == 0 && t.device() == Device::Cpu {
            continue;
        }
        match device {
            None => device = Some(t.device()),
            Some(d) if d != t.device() => {
                return err(
                    ErrorKind::Device,
                    format!(
                        "Expected all tensors to be on the same device, but found at least two devices, {d} and {}!",
                        t.device()
                    ),
                );
            }
            _ => {}
        }
    }
    Ok(device.unwrap_or(Device::Cpu))
}

impl Tensor {
    /// An in-place op's output is never broadcast: PyTorch's "output with shape [3] doesn't
    /// match the broadcast shape [2, 3]".
    pub(super) fn check_not_broadcast(&self, shape: &[i64]) -> Result<()> {
        crate::layout::broadcast::check_output_shape(self.sizes(), shape)
    }

    /// `torch.result_type` of the operands.
    pub fn result_dtype(inputs: &[Operand]) -> DType {
        result_type(&inputs.iter().map(Operand::promotion).collect::<Vec<_>>())
    }

    /// `op(inputs...)` as a new tensor: broadcast shape, promoted dtype (bool for
    /// comparisons, float32 for true division, `sqrt` and `exp` of integers), and
    /// TensorIterator's strides.
    pub fn elementwise(op: ElementOp, inputs: &[Operand]) -> Result<Tensor> {
        let (compute, out) = op_dtypes(op, inputs)?;
        Tensor::elementwise_as(op, inputs, compute, out)
    }

    /// [`Tensor::elementwise`] with the computation and result dtypes given (for ops that
    /// promote over operands they do not read, such as `x ** 2` computed as a square).
    pub fn elementwise_as(
        op: ElementOp,
        inputs: &[Operand],
        compute: DType,
        out: DType,
    ) -> Result<Tensor> {
        let (op, device, layout) = prepared(op, inputs, compute)?;
        if elementwise_gpu::runs_on_gpu(device) {
            elementwise_gpu::check_divisor(op, compute, inputs, layout.numel())?;
            let result = Tensor::zeroed_on(layout, out, device)?;
            result.elementwise_on_gpu_into(op, inputs, compute)?;
            return Ok(result);
        }
        run_dense(op, inputs, compute, out, layout)?.to_device(device)
    }

    /// [`Tensor::elementwise_as`]'s result on the host (for ops that use it as an
    /// intermediate: it is never allocated on the device).
    fn elementwise_on_host(
        op: ElementOp,
        inputs: &[Operand],
        compute: DType,
        out: DType,
    ) -> Result<Tensor> {
        let (op, _, layout) = prepared(op, inputs, compute)?;
        run_dense(op, inputs, compute, out, layout)
    }

    /// `self.op_(others...)` in place: `self` is the first operand and the output. Self is
    /// never broadcast, the promoted type must be castable to self's dtype (comparisons
    /// write 0/1 in self's dtype), and self may not overlap itself or partially overlap an
    /// operand. Bumps the version once.
    pub fn elementwise_(&self, op: ElementOp, others: &[Operand]) -> Result<()> {
        let mut inputs = vec![Operand::Tensor(self.clone())];
        inputs.extend_from_slice(others);
        // TensorIterator's order: overlaps, shapes, then types.
        let mut order = self.internal_overlap_order("in-place op", true)?;
        for t in others.iter().filter_map(Operand::tensor) {
            if self.partial_overlap_order(t, "in-place op")? == Order::Sequential {
                order = Order::Sequential;
            }
        }
        let shapes: Vec<&[i64]> = inputs
            .iter()
            .filter_map(Operand::tensor)
            .map(|t| t.sizes())
            .collect();
        self.check_not_broadcast(&broadcast_shapes(&shapes)?)?;
        let (compute, result) = op_dtypes(op, &inputs)?;
        if !op.is_comparison() && !can_cast(result, self.dtype) {
            return err(
                ErrorKind::DtypeUnsupported,
                format!(
                    "result type {} can't be cast to the desired output type {}",
                    result.scalar_type_name(),
                    self.dtype.scalar_type_name()
                ),
            );
        }
        let op = check_alpha(op, compute)?;
        op.check(compute)?;
        common_device(&inputs)?;
        if order == Order::Sequential {
            self.apply_sequential(op, &inputs, compute)?;
            self.storage.bump_version();
            return Ok(());
        }
        if elementwise_gpu::runs_on_gpu(self.device()) {
            // Straight into self: each element is read and written at its own position.
            elementwise_gpu::check_divisor(op, compute, &inputs, self.numel())?;
            self.elementwise_on_gpu_into(op, &inputs, compute)?;
            self.storage.bump_version();
            return Ok(());
        }
        let strides =
            contiguity::strides_for_copy(self.sizes(), self.strides(), MemoryFormat::Preserve)?;
        let layout = Layout::from_parts(Dims::from_slice(self.sizes()), strides, 0);
        let values = run_dense(op, &inputs, compute, self.dtype, layout)?;
        self.copy_values_from(&values)?;
        self.storage.bump_version();
        Ok(())
    }
}

impl Tensor {
    /// `self.masked_fill_(mask, value)`: `value` (checked against self's dtype) wherever the
    /// bool `mask`, broadcast to self, is true. Bumps the version once.
    pub fn masked_fill_(&self, mask: &Tensor, value: Scalar) -> Result<()> {
        // PyTorch only warns about masked_fill_ into an expanded tensor.
        if self.internal_overlap_order("masked_fill_", false)? == Order::Sequential {
            let filled = self.masked_values(mask, value)?;
            self.copy_sequential(&filled)?;
            self.storage.bump_version();
            return Ok(());
        }
        if elementwise_gpu::runs_on_gpu(self.device()) {
            // where(mask, value, self) straight into self, as PyTorch's kernel.
            let value = self.checked_mask(mask, value)?;
            common_device(&[Operand::Tensor(self.clone()), Operand::Tensor(mask.clone())])?;
            self.elementwise_on_gpu_into(
                ElementOp::Where,
                &self.masked_operands(mask, value),
                self.dtype,
            )?;
            self.storage.bump_version();
            return Ok(());
        }
        let filled = self.masked_values(mask, value)?;
        self.copy_(&filled)
    }

    /// `self.masked_fill(mask, value)`: a contiguous clone with the values filled (ATen's
    /// `self.clone(at::MemoryFormat::Contiguous)` then `masked_fill_`, whatever self's layout).
    pub fn masked_fill(&self, mask: &Tensor, value: Scalar) -> Result<Tensor> {
        if elementwise_gpu::runs_on_gpu(self.device()) {
            let value = self.checked_mask(mask, value)?;
            common_device(&[Operand::Tensor(self.clone()), Operand::Tensor(mask.clone())])?;
            let out = self.clone_as(MemoryFormat::Contiguous)?;
            let operands = self.masked_operands(mask, value);
            out.elementwise_on_gpu_into(ElementOp::Where, &operands, self.dtype)?;
            return Ok(out);
        }
        let filled = self.masked_values(mask, value)?;
        let out = self.clone_as(MemoryFormat::Contiguous)?;
        out.copy_values_from(&filled)?;
        Ok(out)
    }

    /// PyTorch's checks of `masked_fill`'s mask (bool, broadcastable to self, self never
    /// broadcast) and value (castable to self's dtype); the value as self's dtype holds it.
    fn checked_mask(&self, mask: &Tensor, value: Scalar) -> Result<Scalar> {
        if mask.dtype() != DType::Bool {
            return err(
                ErrorKind::DtypeUnsupported,
                format!(
                    "masked_fill_ only supports boolean masks, but got mask with dtype {}",
                    mask.dtype().scalar_type_name().to_lowercase()
                ),
            );
        }
        self.check_not_broadcast(&broadcast_shapes(&[self.sizes(), mask.sizes()])?)?;
        super::checked_fill_value(value, self.dtype)
    }

    /// `where(mask, value, self)`'s operands.
    fn masked_operands(&self, mask: &Tensor, value: Scalar) -> [Operand; 3] {
        [
            Operand::Tensor(mask.clone()),
            Operand::Number(value),
            Operand::Tensor(self.clone()),
        ]
    }

    /// The values of `self` with `value` where `mask` holds, after PyTorch's checks, as a
    /// host tensor.
    fn masked_values(&self, mask: &Tensor, value: Scalar) -> Result<Tensor> {
        let value = self.checked_mask(mask, value)?;
        // An intermediate: on the host (PyTorch's masked_fill allocates none).
        Tensor::elementwise_on_host(
            ElementOp::Where,
            &self.masked_operands(mask, value),
            self.dtype,
            self.dtype,
        )
    }
}

/// PyTorch's checks of an out-of-place op, in its order (alpha, the computation dtype,
/// devices, shapes): the op with its alpha converted, the device and the result's layout.
fn prepared(
    op: ElementOp,
    inputs: &[Operand],
    compute: DType,
) -> Result<(ElementOp, Device, Layout)> {
    let op = check_alpha(op, compute)?;
    op.check(compute)?;
    let device = common_device(inputs)?;
    Ok((op, device, result_layout(op, inputs)?))
}

/// The result's layout: the broadcast shape with TensorIterator's strides over the
/// operands (a Python number is a 0-d operand, except for clamp, whose bounds are kernel
/// arguments).
fn result_layout(op: ElementOp, inputs: &[Operand]) -> Result<Layout> {
    let shapes: Vec<&[i64]> = inputs
        .iter()
        .filter_map(Operand::tensor)
        .map(|t| t.sizes())
        .collect();
    let shape = broadcast_shapes(&shapes)?;
    let layout_inputs: Vec<LayoutOperand<'_>> = inputs
        .iter()
        .filter(|i| i.tensor().is_some() || !matches!(op, ElementOp::Clamp { .. }))
        .map(|i| match i {
            Operand::Tensor(t) => LayoutOperand {
                sizes: t.sizes(),
                strides: t.strides(),
            },
            Operand::Number(_) => LayoutOperand {
                sizes: &[],
                strides: &[],
            },
        })
        .collect();
    let strides = crate::layout::broadcast::output_strides(&shape, &layout_inputs);
    Ok(Layout::from_parts(shape, strides, 0))
}

/// Runs `op` into a new host tensor of `layout` (dense) and dtype `out`: every tensor
/// operand is copied into the same layout in `compute`, then one flat loop.
fn run_dense(
    op: ElementOp,
    inputs: &[Operand],
    compute: DType,
    out: DType,
    layout: Layout,
) -> Result<Tensor> {
    let shape = layout.sizes().to_vec();
    let staged: Vec<Option<Tensor>> = inputs
        .iter()
        .map(|input| {
            let Operand::Tensor(t) = input else {
                return Ok(None);
            };
            let host = t.to_device(Device::Cpu)?;
            let strides = broadcast_strides(host.sizes(), host.strides(), &shape);
            let source = Tensor::fresh(
                host.storage.clone(),
                Layout::from_parts(Dims::from_slice(&shape), strides, host.storage_offset()),
                host.dtype,
            );
            let stage = Tensor::uninitialized(layout.clone(), compute)?;
            stage.copy_values_from(&source)?;
            Ok(Some(stage))
        })
        .collect::<Result<_>>()?;
    let numbers: Vec<Option<Scalar>> = inputs
        .iter()
        .map(|i| match i {
            Operand::Number(s) => Some(s.cast(compute)),
            Operand::Tensor(_) => None,
        })
        .collect();
    let result = Tensor::uninitialized(layout, out)?;
    let n = result.numel().max(0) as usize;
    {
        let reads: Vec<Option<_>> = staged
            .iter()
            .map(|s| {
                s.as_ref()
                    .map(|t| t.storage.read().expect("staged on the host"))
            })
            .collect();
        let mut bytes = result
            .storage
            .write()
            .expect("results are made on the host");
        let (csz, osz) = (compute.itemsize(), out.itemsize());
        let mut args: Vec<Scalar> = vec![Scalar::Int(0); inputs.len()];
        for i in 0..n {
            for (k, arg) in args.iter_mut().enumerate() {
                *arg = match (&reads[k], numbers[k]) {
                    (Some(b), _) => Scalar::read(compute, &b[i * csz..(i + 1) * csz]),
                    (None, Some(s)) => s,
                    (None, None) => unreachable!("an operand is a tensor or a number"),
                };
            }
            let mut v = arith::apply(op, compute, &args)?;
            if !op.is_comparison() && compute != out {
                v = v.cast(compute);
            }
            v.write(out, &mut bytes[i * osz..(i + 1) * osz]);
        }
    }
    Ok(result)
}

/// Tensor-level errors the interpreter reports before running an op.
pub fn negative_int_power() -> TensorError {
    TensorError::new(
        ErrorKind::Other,
        "Integers to negative integer powers are not allowed.",
    )
}
