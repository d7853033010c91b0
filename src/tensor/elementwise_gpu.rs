//! The CUDA side of element-wise ops: the output (a new result, or an in-place op's self)
//! and every tensor operand stay on the GPU, and ONE launch of the strided element-wise
//! kernel family (cuda/elementwise.cu) per at most eight folded dimensions computes the op
//! over their own layouts: no staging copies, no host round trip. Python numbers and 0-d
//! CPU tensors go to the kernel by value, as PyTorch passes CPU scalars to its CUDA
//! kernels.

use super::Tensor;
use super::arith::{ElementOp, zero_division};
use super::operand::Operand;
use crate::backend::cuda::choose::MAX_RANK;
use crate::backend::cuda::elementwise::{EwInput, EwSpec, ew_launch};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::layout::broadcast::broadcast_strides;
use crate::plan::ElementwisePlan;
use crate::storage::Device;

/// Whether an op over tensors on `device` runs on a GPU (a real CUDA device; a simulated
/// one keeps its bytes on the host).
pub(super) fn runs_on_gpu(device: Device) -> bool {
    super::device::runs_kernels(device)
}

/// The CPU backend refuses an integer division or remainder by zero element by element
/// ("ZeroDivisionError"); the kernels cannot raise, so the divisor (input 1, as converted
/// to the computation dtype) is checked here first, over the values the op reads.
pub(super) fn check_divisor(
    op: ElementOp,
    compute: DType,
    inputs: &[Operand],
    numel: i64,
) -> Result<()> {
    let divides = matches!(
        op,
        ElementOp::FloorDiv | ElementOp::TruncDiv | ElementOp::Remainder
    );
    if !divides || compute.is_floating() || numel == 0 {
        return Ok(());
    }
    let zero = match &inputs[1] {
        Operand::Number(s) => !s.cast(compute).to_bool(),
        Operand::Tensor(t) => t.values()?.iter().any(|v| !v.cast(compute).to_bool()),
    };
    if zero {
        return Err(zero_division());
    }
    Ok(())
}

impl Tensor {
    /// Computes `op(inputs)` into this GPU tensor's elements (its own layout; the inputs
    /// broadcast to its shape), in `compute`, with one kernel launch per at most eight
    /// folded dimensions. The caller has made PyTorch's checks (shapes, dtypes, overlap,
    /// divisors); inputs 0-d on the CPU join as numbers.
    pub(super) fn elementwise_on_gpu_into(
        &self,
        op: ElementOp,
        inputs: &[Operand],
        compute: DType,
    ) -> Result<()> {
        let dst = self
            .storage
            .cuda()
            .expect("the output of a GPU element-wise op is on the GPU");
        let shape = self.sizes();
        let mut kernel_inputs = Vec::with_capacity(inputs.len());
        let mut layouts: Vec<Option<Layout>> = Vec::with_capacity(inputs.len());
        let mut ptrs = [0u64; 3];
        for (k, input) in inputs.iter().enumerate() {
            match input {
                Operand::Number(s) => {
                    kernel_inputs.push(EwInput::Number(*s));
                    layouts.push(None);
                }
                Operand::Tensor(t) => match t.storage.cuda() {
                    None => {
                        // A 0-d CPU tensor (common_device admits no other host tensor).
                        kernel_inputs.push(EwInput::Number(t.values()?[0]));
                        layouts.push(None);
                    }
                    Some(b) => {
                        ptrs[k] = b.ptr();
                        kernel_inputs.push(EwInput::Tensor(t.dtype));
                        let strides = broadcast_strides(t.sizes(), t.strides(), shape);
                        layouts.push(Some(Layout::new(shape, &strides, t.storage_offset())?));
                    }
                },
            }
        }
        let refs: Vec<Option<&Layout>> = layouts.iter().map(Option::as_ref).collect();
        let plan = ElementwisePlan::new(&self.layout, &refs);
        let spec = EwSpec {
            op,
            compute,
            out: self.dtype,
            inputs: &kernel_inputs,
        };
        let gpu = dst.gpu();
        for sub in plan.split_outer(MAX_RANK) {
            if let Some(launch) = ew_launch(&sub, &spec, false)? {
                // SAFETY: every tensor's layout was checked against its storage when it was
                // made, and a sub-plan addresses a subset of those elements.
                unsafe { gpu.elementwise(&launch, dst.ptr(), ptrs) }?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::Scalar;
    use crate::simulated_cuda::{SimulatedCuda, with_device};

    #[test]
    fn only_a_real_cuda_device_takes_the_kernels() {
        assert!(!runs_on_gpu(Device::Cpu));
        assert!(runs_on_gpu(Device::Cuda(0)));
        // A simulated device keeps its bytes on the host: the CPU loop serves it.
        let sim = SimulatedCuda::new(Default::default()).unwrap();
        with_device(sim, || assert!(!runs_on_gpu(Device::Cuda(0))));
    }

    #[test]
    fn integer_division_by_zero_is_refused_before_a_launch() {
        let ints = |v: &[i64]| {
            let vals: Vec<Scalar> = v.iter().map(|&i| Scalar::Int(i)).collect();
            Operand::Tensor(
                Tensor::from_values(&[v.len() as i64], &vals, Some(DType::I16)).unwrap(),
            )
        };
        let a = ints(&[7, 8, 9]);
        let check = |op, compute, b: Operand, n| check_divisor(op, compute, &[a.clone(), b], n);
        let zero_error = |r: Result<()>| r.unwrap_err().message == "ZeroDivisionError";
        assert!(zero_error(check(
            ElementOp::FloorDiv,
            DType::I16,
            ints(&[1, 0, 2]),
            3
        )));
        assert!(zero_error(check(
            ElementOp::Remainder,
            DType::I64,
            Operand::Number(Scalar::Int(0)),
            3
        )));
        // A divisor that becomes 0 in the computation dtype (256 as int8).
        assert!(zero_error(check(
            ElementOp::TruncDiv,
            DType::I8,
            ints(&[1, 256, 2]),
            3
        )));
        assert!(check(ElementOp::FloorDiv, DType::I16, ints(&[1, 3, 2]), 3).is_ok());
        // Floats divide by zero (inf/nan), other ops never divide, empty results read nothing.
        assert!(check(ElementOp::FloorDiv, DType::F32, ints(&[0, 0, 0]), 3).is_ok());
        assert!(check(ElementOp::Mul, DType::I16, ints(&[0, 0, 0]), 3).is_ok());
        assert!(check(ElementOp::Remainder, DType::I16, ints(&[0, 0, 0]), 0).is_ok());
    }

    #[test]
    fn host_tensors_note_no_host_fallback() {
        let x = Tensor::zeros(&[2, 3], DType::F32).unwrap();
        let (r, notes) = super::super::host_fallback::recording(|| {
            x.reduce(super::super::Reduction::Sum, None, false, None)
        });
        assert!(r.is_ok());
        assert!(notes.is_empty(), "{notes:?}");
    }
}
