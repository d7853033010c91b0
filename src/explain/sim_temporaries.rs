//! What PyTorch's CUDA build allocates on the device for the length of one op, beyond its
//! output, so that `explain --device sim` (and a GPU run) accounts it as the caching
//! allocator sees it: wrapped Python numbers, `roll`'s contiguous copy and intermediates,
//! the temporaries of `torch.testing.assert_close`'s `isclose`. Read from ATen's CUDA
//! sources and torch/testing/_comparison.py (PyTorch 2.11); the tracer's CPU run of the
//! same programs gives the same figures (python/tests/data/trace_sim_divergences.txt). On the
//! CPU nothing here allocates anything (no device allocator to account).

use crate::DType;
use crate::error::Result;
use crate::layout::{Layout, MemoryFormat};
use crate::scalar::Scalar;
use crate::storage::Device;
use crate::tensor::Tensor;
use crate::tensor::elementwise::Operand;

/// A 0-dim tensor holding `value` on `device`, of `dtype` (else the dtype
/// `wrapped_scalar_tensor` gives a Python number: int64, float64 or bool); the caller keeps
/// it until the op's output exists. None on the CPU.
pub(super) fn device_scalar(
    device: Device,
    value: Scalar,
    dtype: Option<DType>,
) -> Result<Option<Tensor>> {
    if device == Device::Cpu {
        return Ok(None);
    }
    let dtype = dtype.unwrap_or(match value {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => DType::F64,
    });
    let t = Tensor::from_values(&[], &[value], Some(dtype))?;
    t.to_device(device).map(Some)
}

/// `torch.where(condition, input, other)`'s temporaries on the device: each Python number
/// becomes a 0-dim tensor of the result dtype (`at::scalar_tensor`, the `where.Scalar*`
/// overloads), which then cast a tensor of another dtype to it (`.to`), all alive until the
/// output exists; two tensors go to `where.self` as they are (its iterator casts while it
/// reads). None on the CPU.
pub(super) fn where_operands(inputs: &[Operand]) -> Result<Vec<Tensor>> {
    let values = inputs.get(1..).unwrap_or(&[]);
    let Some(device) = inputs.iter().find_map(|i| match i {
        Operand::Tensor(t) => Some(t.device()),
        Operand::Number(_) => None,
    }) else {
        return Ok(Vec::new());
    };
    if device == Device::Cpu {
        return Ok(Vec::new());
    }
    let dtype = Tensor::result_dtype(values);
    let mut out = Vec::new();
    for v in values.iter().rev() {
        if let Operand::Number(n) = v {
            out.extend(device_scalar(device, *n, Some(dtype))?);
        }
    }
    let numbers = !out.is_empty();
    for v in values {
        if let Operand::Tensor(t) = v
            && numbers
            && t.dtype() != dtype
        {
            out.push(Tensor::zeroed_on(
                Layout::contiguous(t.sizes()),
                dtype,
                device,
            )?);
        }
    }
    Ok(out)
}

/// `x.roll(shifts, dims)` composed as ATen's CUDA build does it: `roll_cuda` rolls one dim
/// of a contiguous tensor (a non-contiguous input is copied contiguous first, the copy freed
/// after the output); `roll_common` rolls the first dim, then the rest of the rolled
/// tensor, each intermediate alive until the final output exists (then freed, innermost
/// first); without dims the contiguous tensor is flattened, rolled and viewed back. On the
/// CPU, for empty tensors and for arguments the roll refuses: [`Tensor::roll`] itself.
pub(super) fn roll(x: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
    let nd = x.ndim() as i64;
    let dims_ok = dims.iter().all(|&d| d >= -nd && d < nd);
    let aligned = if dims.is_empty() {
        shifts.len() == 1
    } else {
        shifts.len() == dims.len()
    };
    if x.device() == Device::Cpu || x.numel() == 0 || nd == 0 || !aligned || !dims_ok {
        return x.roll(shifts, dims);
    }
    if dims.is_empty() {
        let flat = x.contiguous(MemoryFormat::Contiguous)?;
        let rolled = roll_one(&flat.view(&[x.numel()])?, shifts[0], 0)?;
        return rolled.view(x.sizes());
    }
    let mut kept: Vec<Tensor> = Vec::new();
    let mut cur = roll_one(x, shifts[0], dims[0])?;
    for (&s, &d) in shifts.iter().zip(dims).skip(1) {
        let next = roll_one(&cur, s, d)?;
        kept.push(std::mem::replace(&mut cur, next));
    }
    while kept.pop().is_some() {}
    Ok(cur)
}

/// `roll_cuda` on one dim: the contiguous copy of a non-contiguous input, the output, then
/// the copy freed.
fn roll_one(x: &Tensor, shift: i64, dim: i64) -> Result<Tensor> {
    if x.is_contiguous() {
        return x.roll(&[shift], &[dim]);
    }
    let copy = x.contiguous(MemoryFormat::Contiguous)?;
    copy.roll(&[shift], &[dim])
}

/// An op's device temporaries in order: each made with the shape of the op's inputs (or
/// 0-dim) and a dtype, and freed when its Rust owner goes (`free`), as the C++ temporaries
/// and locals of ATen's code go.
struct Schedule {
    device: Device,
    sizes: Vec<i64>,
    temps: Vec<Option<Tensor>>,
}

impl Schedule {
    fn full(&mut self, dtype: DType) -> Result<usize> {
        let t = Tensor::zeroed_on(Layout::contiguous(&self.sizes), dtype, self.device)?;
        self.temps.push(Some(t));
        Ok(self.temps.len() - 1)
    }

    fn scalar(&mut self, dtype: DType) -> Result<usize> {
        let t = Tensor::zeroed_on(Layout::contiguous(&[]), dtype, self.device)?;
        self.temps.push(Some(t));
        Ok(self.temps.len() - 1)
    }

    fn free(&mut self, i: usize) {
        self.temps[i] = None;
    }
}

/// The device temporaries of `torch.testing.assert_close(a, e)` for two tensors of one shape
/// and dtype that pass its attribute checks: `torch.isclose(a, e, rtol, atol)` (ATen's
/// composite: `close = a == e`; unless both tolerances are 0, integers cast to the default
/// dtype (one copy; two for bools), `allowed = atol + (rtol * e).abs()`, `actual = (a -
/// e).abs()`, then `close |= isfinite(actual) & (actual <= allowed)`, `isfinite(t)` being `(t
/// == t) * (t.abs() != inf)`; each C++ temporary freed at the end of its statement, the locals
/// in reverse order at the return), then `torch.all(close)`, as the CPU run of PyTorch 2.11
/// shows them. Not modelled: the operators that build the mismatch message when they are
/// not close.
pub(super) fn assert_close(a: &Tensor, rtol: f64, atol: f64) -> Result<()> {
    if a.device() == Device::Cpu || a.numel() == 0 {
        return Ok(());
    }
    let mut s = Schedule {
        device: a.device(),
        sizes: a.sizes().to_vec(),
        temps: Vec::new(),
    };
    let close = s.full(DType::Bool)?;
    if rtol != 0.0 || atol != 0.0 {
        // Integers are cast to the default dtype once (bools on both sides), for a
        // difference and tolerances computed in floating point.
        let (t, casts) = match a.dtype() {
            d if d.is_floating() => (d, Vec::new()),
            DType::Bool => (DType::F32, vec![s.full(DType::F32)?, s.full(DType::F32)?]),
            _ => (DType::F32, vec![s.full(DType::F32)?]),
        };
        let scaled = s.full(t)?;
        let abs = s.full(t)?;
        let allowed = s.full(t)?;
        s.free(abs);
        s.free(scaled);
        let diff = s.full(t)?;
        let actual = s.full(t)?;
        s.free(diff);
        let abs = s.full(t)?;
        let not_inf = s.full(DType::Bool)?;
        let not_nan = s.full(DType::Bool)?;
        let finite = s.full(DType::Bool)?;
        s.free(not_nan);
        s.free(not_inf);
        s.free(abs);
        let within = s.full(DType::Bool)?;
        s.free(within);
        s.free(finite);
        s.free(actual);
        s.free(allowed);
        for c in casts.into_iter().rev() {
            s.free(c);
        }
    }
    let all = s.scalar(DType::Bool)?;
    s.free(all);
    s.free(close);
    Ok(())
}
