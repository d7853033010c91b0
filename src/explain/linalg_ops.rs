//! Matrix products: `@` / `torch.matmul` (every broadcasting case, decomposed as PyTorch
//! 2.11's `_matmul_impl` does: dot, mv, mm, a folded mm/mv, or an expanded bmm, with the
//! views, copies and nodes each step records), `mm`, `bmm`, `mv`, `dot`, `addmm` and
//! `torch.nn.functional.linear`. Results are contiguous, computed on the host from the
//! operands' values (floating types accumulate in f64 and round once, integers wrap).

use super::autograd::State;
use super::autograd::custom::{Backward, saved, wants};
use super::autograd::node::{Input, Saved};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::layout::Layout;
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use std::rc::Rc;

fn shape_error(message: String) -> TensorError {
    TensorError::new(ErrorKind::InvalidShape, message)
}

/// C++'s name of a dtype's element type, as PyTorch's dtype-mismatch messages print it.
pub(super) fn cpp_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "unsigned char",
        DType::I8 => "signed char",
        DType::I16 => "short int",
        DType::I32 => "int",
        DType::I64 => "long int",
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 => "float",
        DType::F64 => "double",
    }
}

fn not_for_bool(kernel: &str, d: DType) -> Result<()> {
    if d == DType::Bool {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            format!("\"{kernel}\" not implemented for 'Bool'"),
        ));
    }
    Ok(())
}

fn same_device(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.device() != b.device() {
        return Err(TensorError::new(
            ErrorKind::Device,
            format!(
                "Expected all tensors to be on the same device, but found at least two devices, {} and {}!",
                b.device(),
                a.device()
            ),
        ));
    }
    Ok(())
}

/// `batch` products of `[n, k]` and `[k, m]` matrices (row-major logical values of `a` and
/// `b`, `a` of `batch * n * k` values), as a contiguous tensor of `shape`.
fn gemm(a: &Tensor, b: &Tensor, dims: [i64; 4], shape: &[i64]) -> Result<Tensor> {
    let [batch, n, k, m] = dims.map(|d| d.max(0) as usize);
    let (av, bv) = (a.values()?, b.values()?);
    let dtype = a.dtype();
    let total = batch
        .checked_mul(n)
        .and_then(|x| x.checked_mul(m))
        .ok_or_else(|| TensorError::new(ErrorKind::LimitExceeded, "matmul: result too large"))?;
    let mut out = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| TensorError::new(ErrorKind::OutOfMemory, "matmul: the result's values"))?;
    for p in 0..batch {
        let (ab, bb) = (p * n * k, p * k * m);
        for i in 0..n {
            for j in 0..m {
                let cell = (0..k).map(|q| (av[ab + i * k + q], bv[bb + q * m + j]));
                out.push(if dtype.is_floating() {
                    Scalar::Float(cell.map(|(x, y)| x.to_f64() * y.to_f64()).sum())
                } else {
                    Scalar::Int(cell.fold(0i64, |acc, (x, y)| {
                        acc.wrapping_add(x.to_int().wrapping_mul(y.to_int()))
                    }))
                });
            }
        }
    }
    Tensor::from_values(shape, &out, Some(dtype))?.placed_on(a.device())
}

/// `a @ b` of two matrices, no checks and no graph (backward formulas use it).
pub(super) fn mm_plain(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (n, k, m) = (a.sizes()[0], a.sizes()[1], b.sizes()[1]);
    gemm(a, b, [1, n, k, m], &[n, m])
}

fn bmm_plain(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (s, t) = (a.sizes(), b.sizes());
    gemm(a, b, [s[0], s[1], s[2], t[2]], &[s[0], s[1], t[2]])
}

fn mv_plain(a: &Tensor, v: &Tensor) -> Result<Tensor> {
    let (n, k) = (a.sizes()[0], a.sizes()[1]);
    gemm(a, v, [1, n, k, 1], &[n])
}

fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    use crate::tensor::arith::ElementOp;
    use crate::tensor::elementwise::Operand;
    Tensor::elementwise(
        ElementOp::Mul,
        &[Operand::Tensor(a.clone()), Operand::Tensor(b.clone())],
    )
}

fn scaled(t: Tensor, k: Scalar) -> Result<Tensor> {
    use crate::tensor::arith::ElementOp;
    use crate::tensor::elementwise::Operand;
    if k.to_f64() == 1.0 {
        return Ok(t);
    }
    Tensor::elementwise(ElementOp::Mul, &[Operand::Tensor(t), Operand::Number(k)])
}

/// `mm`'s backward (MmBackward0: `mat2` saved for `self`'s gradient, `self` for `mat2`'s),
/// and `addmm`'s (AddmmBackward0: the same, scaled by `alpha`; `input` gets `beta * grad`).
#[derive(Debug)]
struct MmBack {
    /// `addmm`: (beta, alpha), the input being the first of three.
    addmm: Option<(Scalar, Scalar)>,
}

impl Backward for MmBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let first = usize::from(self.addmm.is_some());
        let alpha = self.addmm.map_or(Scalar::Int(1), |(_, a)| a);
        let mut out = vec![None; inputs.len()];
        if let Some((beta, _)) = self.addmm
            && wants(inputs, 0)
        {
            let g = scaled(grad.clone(), beta)?;
            out[0] = Some(super::autograd::formula::sum_to(g, &inputs[0].sizes)?);
        }
        // PyTorch's mm_mat1_backward / mm_mat2_backward: a column-major operand gets its
        // gradient column-major (the transposed product, transposed back)
        if wants(inputs, first) {
            let mat2 = saved(s, "mat2")?;
            let g = if column_major(&inputs[first]) {
                mm_plain(mat2, &grad.t()?)?.t()?
            } else {
                mm_plain(grad, &mat2.t()?)?
            };
            out[first] = Some(scaled(g, alpha)?);
        }
        if wants(inputs, first + 1) {
            let role = if self.addmm.is_some() { "mat1" } else { "self" };
            let mat1 = saved(s, role)?;
            let g = if column_major(&inputs[first + 1]) {
                mm_plain(&grad.t()?, mat1)?.t()?
            } else {
                mm_plain(&mat1.t()?, grad)?
            };
            out[first + 1] = Some(scaled(g, alpha)?);
        }
        Ok(out)
    }
}

/// A matrix operand laid out column-major (strides `[1, rows]`), as mm's backward tests it.
fn column_major(input: &Input) -> bool {
    let (s, st) = (input.layout.sizes(), input.layout.strides());
    st.len() == 2 && st[0] == 1 && st[1] == s[0]
}

#[derive(Debug)]
struct BmmBack;

impl Backward for BmmBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let mut out = vec![None; 2];
        if wants(inputs, 0) {
            out[0] = Some(bmm_plain(grad, &saved(s, "mat2")?.transpose(1, 2)?)?);
        }
        if wants(inputs, 1) {
            out[1] = Some(bmm_plain(&saved(s, "self")?.transpose(1, 2)?, grad)?);
        }
        Ok(out)
    }
}

#[derive(Debug)]
struct MvBack;

impl Backward for MvBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let mut out = vec![None; 2];
        if wants(inputs, 0) {
            // grad.ger(vec): the outer product
            let v = saved(s, "vec")?;
            let col = grad.reshape(&[grad.numel(), 1])?;
            out[0] = Some(mm_plain(&col, &v.reshape(&[1, v.numel()])?)?);
        }
        if wants(inputs, 1) {
            out[1] = Some(mv_plain(&saved(s, "self")?.t()?, grad)?);
        }
        Ok(out)
    }
}

#[derive(Debug)]
struct DotBack;

impl Backward for DotBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], s: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        let mut out = vec![None; 2];
        if wants(inputs, 0) {
            out[0] = Some(mul(grad, saved(s, "tensor")?)?);
        }
        if wants(inputs, 1) {
            out[1] = Some(mul(grad, saved(s, "self")?)?);
        }
        Ok(out)
    }
}

/// The backward of an op that only re-labels its input's elements (`_unsafe_view`, an
/// in-place `squeeze_`): the gradient reshaped to the input's sizes.
#[derive(Debug)]
pub(super) struct ReshapeBack;

impl Backward for ReshapeBack {
    fn apply(&self, grad: &Tensor, inputs: &[Input], _: &[Saved]) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(grad.reshape(&inputs[0].sizes)?)])
    }
}

/// Saves `t` as `role` when `when` (the other operand needs a gradient).
fn save_if(g: &State, when: bool, role: &'static str, t: &Tensor, out: &mut Vec<Saved>) {
    if when {
        out.push(g.save_input(role, t));
    }
}

fn matrix_check(t: &Tensor, what: &str) -> Result<()> {
    if t.ndim() != 2 {
        return Err(shape_error(format!("{what} must be a matrix")));
    }
    Ok(())
}

/// bmm's and mv's check: "expected scalar type Float but found Double".
fn scalar_type_check(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            format!(
                "expected scalar type {} but found {}",
                a.dtype().scalar_type_name(),
                b.dtype().scalar_type_name()
            ),
        ));
    }
    Ok(())
}

fn dtype_check(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            format!(
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                cpp_name(a.dtype()),
                cpp_name(b.dtype())
            ),
        ));
    }
    Ok(())
}

/// `torch.mm(a, b)`.
pub fn mm(g: &State, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    matrix_check(a, "self")?;
    matrix_check(b, "mat2")?;
    same_device(a, b)?;
    if a.sizes()[1] != b.sizes()[0] {
        return Err(shape_error(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            a.sizes()[0],
            a.sizes()[1],
            b.sizes()[0],
            b.sizes()[1]
        )));
    }
    dtype_check(a, b)?;
    not_for_bool("addmm_impl_cpu_", a.dtype())?;
    let r = mm_plain(a, b)?;
    let mut s = Vec::new();
    save_if(g, g.needs(b), "self", a, &mut s);
    save_if(g, g.needs(a), "mat2", b, &mut s);
    g.record_op(
        "MmBackward0",
        Rc::new(MmBack { addmm: None }),
        &[a, b],
        s,
        &r,
    );
    Ok(r)
}

/// `torch.bmm(a, b)`.
pub fn bmm(g: &State, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.ndim() != 3 {
        return Err(shape_error("batch1 must be a 3D tensor".into()));
    }
    if b.ndim() != 3 {
        return Err(shape_error("batch2 must be a 3D tensor".into()));
    }
    same_device(a, b)?;
    let (s, t) = (a.sizes(), b.sizes());
    if t[0] != s[0] || t[1] != s[2] {
        return Err(shape_error(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            s[0], s[2], t[0], t[1]
        )));
    }
    scalar_type_check(a, b)?;
    not_for_bool("bmm", a.dtype())?;
    let r = bmm_plain(a, b)?;
    let mut sv = Vec::new();
    save_if(g, g.needs(b), "self", a, &mut sv);
    save_if(g, g.needs(a), "mat2", b, &mut sv);
    g.record_op("BmmBackward0", Rc::new(BmmBack), &[a, b], sv, &r);
    Ok(r)
}

/// `torch.mv(a, v)`.
pub fn mv(g: &State, a: &Tensor, v: &Tensor) -> Result<Tensor> {
    if a.ndim() != 2 || v.ndim() != 1 {
        return Err(shape_error(format!(
            "vector + matrix @ vector expected, got 1, {}, {}",
            a.ndim(),
            v.ndim()
        )));
    }
    same_device(a, v)?;
    if a.sizes()[1] != v.sizes()[0] {
        return Err(shape_error(format!(
            "size mismatch, got input ({}), mat ({}x{}), vec ({})",
            a.sizes()[0],
            a.sizes()[0],
            a.sizes()[1],
            v.sizes()[0]
        )));
    }
    scalar_type_check(a, v)?;
    not_for_bool("addmv_impl_cpu", a.dtype())?;
    let r = mv_plain(a, v)?;
    let mut s = Vec::new();
    save_if(g, g.needs(v), "self", a, &mut s);
    save_if(g, g.needs(a), "vec", v, &mut s);
    g.record_op("MvBackward0", Rc::new(MvBack), &[a, v], s, &r);
    Ok(r)
}

/// `torch.dot(a, b)`.
pub fn dot(g: &State, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(shape_error(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            a.ndim(),
            b.ndim()
        )));
    }
    same_device(a, b)?;
    if a.dtype() != b.dtype() {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            format!(
                "dot : expected both vectors to have same dtype, but found {} and {}",
                a.dtype().scalar_type_name(),
                b.dtype().scalar_type_name()
            ),
        ));
    }
    if a.numel() != b.numel() {
        return Err(shape_error(format!(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
            a.numel(),
            b.numel(),
            a.numel(),
            b.numel()
        )));
    }
    not_for_bool("dot", a.dtype())?;
    let r = gemm(a, b, [1, 1, a.numel(), 1], &[])?;
    let mut s = Vec::new();
    save_if(g, g.needs(b), "self", a, &mut s);
    save_if(g, g.needs(a), "tensor", b, &mut s);
    g.record_op("DotBackward0", Rc::new(DotBack), &[a, b], s, &r);
    Ok(r)
}

/// `torch.addmm(input, mat1, mat2, beta=, alpha=)`: `beta * input + alpha * (mat1 @ mat2)`,
/// `input` broadcast to the product's shape.
pub fn addmm(
    g: &State,
    input: &Tensor,
    m1: &Tensor,
    m2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    matrix_check(m1, "mat1")?;
    matrix_check(m2, "mat2")?;
    same_device(m1, m2)?;
    same_device(input, m1)?;
    let (n, k, m) = (m1.sizes()[0], m1.sizes()[1], m2.sizes()[1]);
    if k != m2.sizes()[0] {
        return Err(shape_error(format!(
            "mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {}x{m})",
            m2.sizes()[0]
        )));
    }
    let expanded = input.expand(&[n, m])?;
    dtype_check(m1, m2)?;
    if input.dtype() != m1.dtype() {
        return Err(TensorError::new(
            ErrorKind::DtypeUnsupported,
            format!(
                "self and mat2 must have the same dtype, but got {} and {}",
                input.dtype().scalar_type_name(),
                m1.dtype().scalar_type_name()
            ),
        ));
    }
    not_for_bool("addmm_impl_cpu_", m1.dtype())?;
    let prod = mm_plain(m1, m2)?.values()?;
    let base = expanded.values()?;
    let floating = m1.dtype().is_floating();
    let values: Vec<Scalar> = prod
        .iter()
        .zip(&base)
        .map(|(p, c)| {
            if floating {
                let mut v = alpha.to_f64() * p.to_f64();
                if beta.to_f64() != 0.0 {
                    v += beta.to_f64() * c.to_f64();
                }
                Scalar::Float(v)
            } else {
                let mut v = alpha.to_int().wrapping_mul(p.to_int());
                if beta.to_int() != 0 {
                    v = v.wrapping_add(beta.to_int().wrapping_mul(c.to_int()));
                }
                Scalar::Int(v)
            }
        })
        .collect();
    let r = Tensor::from_values(&[n, m], &values, Some(m1.dtype()))?.placed_on(m1.device())?;
    let mut s = Vec::new();
    save_if(g, g.needs(m2), "mat1", m1, &mut s);
    save_if(g, g.needs(m1), "mat2", m2, &mut s);
    let back = MmBack {
        addmm: Some((beta, alpha)),
    };
    g.record_op("AddmmBackward0", Rc::new(back), &[input, m1, m2], s, &r);
    Ok(r)
}

/// A view step of a composite op, recorded as the op of that name would record it.
fn step(
    g: &State,
    name: &str,
    t: &Tensor,
    f: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    let r = f(t)?;
    g.record_view(name, t, &r)?;
    Ok(r)
}

/// `at::_unsafe_view(t, shape)` of a fresh result: the same storage under `shape`, not a
/// view (UnsafeViewBackward0).
fn unsafe_view(g: &State, t: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let r = Tensor::from_storage(t.storage().clone(), Layout::contiguous(shape), t.dtype())?;
    g.record_op(
        "UnsafeViewBackward0",
        Rc::new(ReshapeBack),
        &[t],
        vec![],
        &r,
    );
    Ok(r)
}

/// `t.squeeze_(dim)` of a fresh result (SqueezeBackward4).
fn squeeze_in_place(g: &State, t: &Tensor, dim: i64) -> Result<Tensor> {
    let layout = t.squeeze(Some(&[dim]))?.layout().clone();
    let r = Tensor::from_storage(t.storage().clone(), layout, t.dtype())?;
    // an in-place op: the version moves (a metadata change counts, as in PyTorch)
    r.storage().bump_version();
    g.record_op("SqueezeBackward4", Rc::new(ReshapeBack), &[t], vec![], &r);
    Ok(r)
}

/// PyTorch's `should_fold`: multiply by folding the larger operand's batch into its rows
/// (mm/mv instead of bmm) when that copies nothing, or when the smaller operand requires
/// grad (its gradient would otherwise be a large expanded one).
fn should_fold(g: &State, a: &Tensor, b: &Tensor) -> Result<bool> {
    let a_larger = a.ndim() >= b.ndim();
    let t1 = if a_larger { a.clone() } else { b.mt()? };
    let small = if a_larger { b } else { a };
    if !(t1.ndim() >= 3 && small.ndim() <= 2) {
        return Ok(false);
    }
    if g.requires_grad(small) {
        return Ok(true);
    }
    if a.ndim() == 2 {
        return Ok(false);
    }
    if t1.numel() == 0 {
        return Ok(true);
    }
    let (s, st) = (t1.sizes(), t1.strides());
    Ok((0..t1.ndim() - 2).all(|i| st[i] == st[i + 1].saturating_mul(s[i + 1])))
}

/// `a @ b` / `torch.matmul(a, b)`.
pub fn matmul(g: &State, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (da, db) = (a.ndim(), b.ndim());
    if da == 0 || db == 0 {
        return Err(shape_error(format!(
            "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )));
    }
    match (da, db) {
        (1, 1) => return dot(g, a, b),
        (2, 1) => return mv(g, a, b),
        (1, 2) => {
            let row = step(g, "unsqueeze", a, |t| t.unsqueeze(0))?;
            let r = mm(g, &row, b)?;
            return squeeze_in_place(g, &r, 0);
        }
        (2, 2) => return mm(g, a, b),
        _ => {}
    }
    if should_fold(g, a, b)? {
        return folded(g, a, b);
    }
    batched(g, a, b)
}

/// The larger operand folded into a matrix: one mm (or mv).
fn folded(g: &State, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let transpose = b.ndim() > a.ndim();
    let t1 = if transpose {
        step(g, "mT", b, |t| t.mt())?
    } else {
        a.clone()
    };
    let t2 = match (transpose, a.ndim()) {
        (false, _) => b.clone(),
        (true, 2) => step(g, "t", a, |t| t.t())?,
        (true, _) => a.clone(),
    };
    let s1 = t1.sizes().to_vec();
    let (last, lead) = s1.split_last().expect("at least 3 dims");
    let mut out_shape = lead.to_vec();
    let rows = lead.iter().product::<i64>();
    let t1_folded = step(g, "reshape", &t1, |t| t.reshape(&[rows, *last]))?;
    if t2.ndim() == 2 {
        out_shape.push(t2.sizes()[1]);
        let o = unsafe_view(g, &mm(g, &t1_folded, &t2)?, &out_shape)?;
        if !transpose {
            return Ok(o);
        }
        let ot = step(g, "mT", &o, |t| t.mt())?;
        return step(g, "contiguous", &ot, |t| {
            t.contiguous(crate::layout::MemoryFormat::Contiguous)
        });
    }
    unsafe_view(g, &mv(g, &t1_folded, &t2)?, &out_shape)
}

/// Both operands expanded to the broadcast batch and multiplied by one bmm.
fn batched(g: &State, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (da, db) = (a.ndim(), b.ndim());
    let (sa, sb) = (a.sizes().to_vec(), b.sizes().to_vec());
    let n = if da > 1 { sa[da - 2] } else { 1 };
    let m1 = sa[da - 1];
    let batch1 = &sa[..da.saturating_sub(2)];
    let m2 = if db > 1 { sb[db - 2] } else { sb[0] };
    let p = if db > 1 { sb[db - 1] } else { 1 };
    let batch2 = &sb[..db.saturating_sub(2)];
    if da == 3 && db == 3 && batch1[0] != batch2[0] {
        if batch1[0] == 1 && g.requires_grad(a) {
            let s = step(g, "squeeze", a, |t| t.squeeze(Some(&[0])))?;
            return matmul(g, &s, b);
        }
        if batch2[0] == 1 && g.requires_grad(b) {
            let s = step(g, "squeeze", b, |t| t.squeeze(Some(&[0])))?;
            return matmul(g, a, &s);
        }
    }
    let batch = crate::layout::broadcast::broadcast_shapes(&[batch1, batch2])?.to_vec();
    let count = batch.iter().product::<i64>();
    let a_size = [batch.as_slice(), &[n, m1]].concat();
    let a_exp = step(g, "expand", a, |t| t.expand(&a_size))?;
    let a3 = step(g, "reshape", &a_exp, |t| t.reshape(&[count, n, m1]))?;
    let vector = db == 1;
    let b_size = if vector {
        [batch.as_slice(), &[m2]].concat()
    } else {
        [batch.as_slice(), &[m2, p]].concat()
    };
    let b_exp = step(g, "expand", b, |t| t.expand(&b_size))?;
    let b3 = if vector {
        let flat = step(g, "reshape", &b_exp, |t| t.reshape(&[count, m2]))?;
        step(g, "unsqueeze", &flat, |t| t.unsqueeze(2))?
    } else {
        step(g, "reshape", &b_exp, |t| t.reshape(&[count, m2, p]))?
    };
    let mut out_shape = batch.clone();
    if da > 1 {
        out_shape.push(n);
    }
    if db > 1 {
        out_shape.push(p);
    }
    let mut r = bmm(g, &a3, &b3)?;
    if vector {
        r = step(g, "squeeze", &r, |t| t.squeeze(Some(&[-1])))?;
    }
    unsafe_view(g, &r, &out_shape)
}

/// `torch.nn.functional.linear(input, weight, bias=None)`, decomposed as PyTorch's
/// `linear`: addmm for a 2-D input with a bias, the input flattened to 2-D for addmm when it
/// is contiguous (3-D, or with a 1-D bias), else matmul by `weight.t()` then `add_(bias)`.
pub fn linear(
    g: &State,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    add_in_place: impl FnOnce(&Tensor, &Tensor) -> Result<()>,
) -> Result<Tensor> {
    if input.ndim() == 0 {
        return Err(shape_error(format!(
            "both arguments to linear need to be at least 1D, but they are 0D and {}D",
            weight.ndim()
        )));
    }
    let wt = || step(g, "t", weight, |t| t.t());
    if let Some(b) = bias {
        if input.ndim() == 2 {
            return addmm(g, b, input, &wt()?, Scalar::Int(1), Scalar::Int(1));
        }
        if input.is_contiguous() && (input.ndim() == 3 || b.ndim() == 1) {
            let sizes = input.sizes().to_vec();
            let (last, lead) = sizes.split_last().expect("at least 1 dim");
            let rows = lead.iter().product::<i64>();
            let flat = step(g, "reshape", input, |t| t.reshape(&[rows, *last]))?;
            let r = addmm(g, b, &flat, &wt()?, Scalar::Int(1), Scalar::Int(1))?;
            let shape = [lead, &[r.sizes()[1]]].concat();
            return step(g, "view", &r, |t| t.view(&shape));
        }
    }
    let out = matmul(g, input, &wt()?)?;
    if let Some(b) = bias {
        add_in_place(&out, b)?;
    }
    Ok(out)
}
