//! The modules `torch.nn`, `torch.nn.functional`, `torch.cuda` and `io` (bound by
//! `import ... as ...`), their attributes, and the layers `torch.nn.Linear` and
//! `torch.nn.Dropout` (parameters that require grad, `.to()`).

use super::ctx::Ctx;
use super::objects::{Layer, Object};
use super::value::{Value, type_error};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::storage::Device;
use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};

/// The module a dotted name imports, if explain has it.
pub fn module(name: &str) -> Option<Value> {
    Some(match name {
        "torch" => Value::Torch,
        "torch.nn" => object(Object::Module("torch.nn")),
        "torch.nn.functional" => object(Object::Module("torch.nn.functional")),
        "torch.cuda" => object(Object::Module("torch.cuda")),
        "io" => object(Object::Module("io")),
        _ => return None,
    })
}

pub fn object(o: Object) -> Value {
    Value::Object(std::rc::Rc::new(o))
}

/// `torch.NAME` for the submodules.
pub fn torch_attribute(name: &str) -> Option<Value> {
    match name {
        "nn" | "cuda" => module(&format!("torch.{name}")),
        _ => None,
    }
}

/// `obj.NAME` (not called).
pub fn attribute(o: &Object, name: &str) -> Result<Value> {
    match (o, name) {
        (Object::Module("torch.nn"), "functional") => {
            Ok(module("torch.nn.functional").expect("known"))
        }
        (Object::Layer(l), "training") => Ok(Value::Bool(l.training.get())),
        (Object::Layer(l), "p") if l.kind == "Dropout" => Ok(Value::Float(l.p)),
        (Object::Layer(l), _) => l
            .params
            .borrow()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone().map_or(Value::None, Value::Tensor))
            .ok_or_else(|| no_attribute(o, name)),
        _ => Err(no_attribute(o, name)),
    }
}

fn no_attribute(o: &Object, name: &str) -> TensorError {
    match o {
        Object::Module(m) => type_error(format!("module '{m}' has no attribute '{name}'")),
        _ => type_error(format!(
            "'{}' object has no attribute '{name}'",
            o.type_name()
        )),
    }
}

/// `nn.Linear(in_features, out_features, bias=True, device=None, dtype=None)`: weight and
/// bias drawn from U(-1/sqrt(in), 1/sqrt(in)) (PyTorch's bound; the values come from
/// stridekit's generator, with the `random_values` warning), both leaves that require grad.
pub fn linear_layer(cx: &Ctx, args: super::args::Args) -> Result<Value> {
    let b = args.bind(&["in_features", "out_features", "bias", "device", "dtype"])?;
    let (fan_in, fan_out) = (b.int("in_features")?, b.int("out_features")?);
    for v in [fan_in, fan_out] {
        if v < 0 {
            return Err(TensorError::new(
                ErrorKind::InvalidShape,
                format!(
                    "Trying to create tensor with negative dimension {v}: [{fan_out}, {fan_in}]"
                ),
            ));
        }
    }
    let with_bias = match b.opt("bias") {
        Some(v) => v.as_bool("bias")?,
        None => true,
    };
    let dtype = match b.opt("dtype") {
        None | Some(Value::None) => DType::F32,
        Some(v) => v.as_dtype("dtype")?,
    };
    let device = match b.opt("device") {
        None | Some(Value::None) => cx.device,
        Some(v) => v.as_device("device")?,
    };
    if !dtype.is_floating() {
        return Err(TensorError::new(
            ErrorKind::Other,
            "Only Tensors of floating point and complex dtype can require gradients",
        ));
    }
    (cx.warn)(
        "random_values",
        "nn.Linear: the initial weight and bias come from stridekit's generator (SplitMix64, reseeded by torch.manual_seed), not PyTorch's; shape, dtype and strides are PyTorch's".into(),
    );
    let bound = if fan_in > 0 {
        1.0 / (fan_in as f64).sqrt()
    } else {
        0.0
    };
    let draw = |sizes: &[i64]| -> Result<Tensor> {
        let u = Tensor::random(
            sizes,
            DType::F64,
            crate::tensor::Random::Uniform,
            &mut cx.rng.borrow_mut(),
        )?;
        let values: Vec<crate::Scalar> = u
            .values()?
            .iter()
            .map(|v| crate::Scalar::Float((2.0 * v.to_f64() - 1.0) * bound))
            .collect();
        let t = Tensor::from_values(sizes, &values, Some(dtype))?.placed_on(device)?;
        cx.grad.set_leaf_requires_grad(&t, true);
        Ok(t)
    };
    let weight = draw(&[fan_out, fan_in])?;
    let bias = if with_bias {
        Some(draw(&[fan_out])?)
    } else {
        None
    };
    Ok(object(Object::Layer(Layer {
        kind: "Linear",
        params: RefCell::new(vec![("weight", Some(weight)), ("bias", bias)]),
        training: Cell::new(true),
        repr: format!(
            "Linear(in_features={fan_in}, out_features={fan_out}, bias={})",
            if with_bias { "True" } else { "False" }
        ),
        p: 0.0,
        normalized: Vec::new(),
        eps: 0.0,
    })))
}

/// `nn.Dropout(p=0.5, inplace=False)`.
pub fn dropout_layer(args: super::args::Args) -> Result<Value> {
    let b = args.bind(&["p", "inplace"])?;
    let p = match b.opt("p") {
        Some(v) => v.as_scalar("p")?.to_f64(),
        None => 0.5,
    };
    if !(0.0..=1.0).contains(&p) {
        return Err(TensorError::new(
            ErrorKind::Other,
            format!("dropout probability has to be between 0 and 1, but got {p}"),
        ));
    }
    Ok(object(Object::Layer(Layer {
        kind: "Dropout",
        params: RefCell::new(Vec::new()),
        training: Cell::new(true),
        repr: format!(
            "Dropout(p={}, inplace=False)",
            super::pyfmt::repr_of(&Value::Float(p))
        ),
        p,
        normalized: Vec::new(),
        eps: 0.0,
    })))
}

/// `nn.LayerNorm(normalized_shape, eps=1e-05, elementwise_affine=True, bias=True,
/// device=None, dtype=None)`: weight ones and bias zeros of `normalized_shape` (PyTorch's
/// reset_parameters), leaves that require grad; without `elementwise_affine` neither.
pub fn layer_norm_layer(cx: &Ctx, args: super::args::Args) -> Result<Value> {
    let b = args.bind(&[
        "normalized_shape",
        "eps",
        "elementwise_affine",
        "bias",
        "device",
        "dtype",
    ])?;
    let shape = b.int_list("normalized_shape")?.to_vec();
    let eps = b
        .opt("eps")
        .map_or(Ok(1e-05), |v| v.as_scalar("eps").map(|s| s.to_f64()))?;
    let flag = |p: &str| b.opt(p).map_or(Ok(true), |v| v.as_bool(p));
    let (affine, with_bias) = (flag("elementwise_affine")?, flag("bias")?);
    let dtype = b
        .opt("dtype")
        .map_or(Ok(DType::F32), |v| v.as_dtype("dtype"))?;
    let device = b
        .opt("device")
        .map_or(Ok(cx.device), |v| v.as_device("device"))?;
    let param = |fill: i64| -> Result<Tensor> {
        let t = Tensor::full(&shape, crate::Scalar::Int(fill), Some(dtype))?.placed_on(device)?;
        cx.grad.set_leaf_requires_grad(&t, true);
        Ok(t)
    };
    let weight = affine.then(|| param(1)).transpose()?;
    let bias = (affine && with_bias).then(|| param(0)).transpose()?;
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    let tuple = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    Ok(object(Object::Layer(Layer {
        kind: "LayerNorm",
        params: RefCell::new(vec![("weight", weight), ("bias", bias)]),
        training: Cell::new(true),
        repr: format!(
            "LayerNorm({tuple}, eps={}, elementwise_affine={})",
            super::pyfmt::repr_of(&Value::Float(eps)),
            if affine { "True" } else { "False" }
        ),
        p: 0.0,
        normalized: shape,
        eps,
    })))
}

/// `layer.to(device)` / `.cuda()` / `.cpu()`: every parameter moved (PyTorch keeps the
/// parameter objects and swaps their data; here each moved parameter is a new leaf that
/// requires grad, the old one unreachable).
pub fn move_layer(cx: &Ctx, l: &Layer, device: Device) -> Result<()> {
    let mut params = l.params.borrow_mut();
    for (_, slot) in params.iter_mut() {
        if let Some(t) = slot
            && t.device() != device
        {
            let moved = t.to_device(device)?;
            cx.grad.set_leaf_requires_grad(&moved, true);
            *slot = Some(moved);
        }
    }
    Ok(())
}
