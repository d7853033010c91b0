//! Where a call reaches the matrix, layer and serialization ops (`linalg_ops`, `nn_ops`,
//! `serialize`, `modules`): `torch.NAME`, `Tensor.NAME`, `torch.nn.functional.NAME`, the
//! `torch.nn` layers and their methods, with PyTorch's parameter names. Each op records its
//! own autograd nodes (through the program's [`State`]).

use super::args::{Args, Bound};
use super::autograd::State;
use super::ctx::Ctx;
use super::linalg_ops as la;
use super::nn_ops as nn;
use super::objects::{Layer, Object};
use super::op_table::bind;
use super::schema::Surface;
use super::value::{Value, type_error};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use std::rc::Rc;

fn some(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !matches!(v, Value::None))
}

fn tensor_arg(b: &Bound, p: &str) -> Result<Tensor> {
    Ok(b.req(p)?.as_tensor(p)?.clone())
}

fn scalar_or(b: &Bound, p: &str, default: i64) -> Result<Scalar> {
    some(b.opt(p)).map_or(Ok(Scalar::Int(default)), |v| v.as_scalar(p))
}

fn flag(b: &Bound, p: &str, default: bool) -> Result<bool> {
    some(b.opt(p)).map_or(Ok(default), super::pyops::truthy)
}

fn dtype_opt(b: &Bound) -> Result<Option<crate::dtype::DType>> {
    some(b.opt("dtype"))
        .map(|v| v.as_dtype("dtype"))
        .transpose()
}

/// The ops of this module a `Tensor` method or a `torch.*` function can name.
const OPS: &[&str] = &[
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "addmm",
    "relu",
    "softmax",
    "log_softmax",
];

/// `x.NAME(args)`, when NAME is one of this module's ops.
pub fn tensor_method(cx: &Ctx, x: &Tensor, name: &str, args: Args) -> Option<Result<Value>> {
    if matches!(name, "tile" | "repeat") {
        // the copy itself is copy_ops'; its node is this module's
        return cx.grad.needs(x).then(|| {
            let r = super::copy_ops::tensor_method(x, name, args)?;
            if let Value::Tensor(t) = &r {
                nn::record_repeat(cx.grad, x, t);
            }
            Ok(r)
        });
    }
    if !OPS.contains(&name) {
        return None;
    }
    let mut args = args;
    args.positional.insert(0, Value::Tensor(x.clone()));
    Some(op(cx.grad, name, args))
}

/// `torch.NAME(args)`, when NAME is one of this module's functions.
pub fn torch_function(cx: &Ctx, name: &str, args: Args) -> Option<Result<Value>> {
    Some(match name {
        "save" => args
            .bind(&["obj", "f"])
            .and_then(|b| super::serialize::save(cx, b.req("obj")?, b.req("f")?)),
        "load" => args
            .bind(&["f", "map_location", "weights_only"])
            .and_then(|b| super::serialize::load(b.req("f")?)),
        "device" => args.bind(&["type", "index"]).and_then(|b| {
            let d = b.req("type")?.as_device("type")?;
            match (d, some(b.opt("index"))) {
                (crate::storage::Device::Cuda(_), Some(i)) => {
                    Ok(Value::Device(crate::storage::Device::Cuda(
                        usize::try_from(i.as_int("index")?)
                            .map_err(|_| type_error("Device index must not be negative"))?,
                    )))
                }
                _ => Ok(Value::Device(d)),
            }
        }),
        "tile" => match args.positional.first() {
            Some(Value::Tensor(x)) if cx.grad.needs(x) => {
                let x = x.clone();
                let r = super::copy_ops::torch_function(name, args);
                if let Ok(Value::Tensor(t)) = &r {
                    nn::record_repeat(cx.grad, &x, t);
                }
                r
            }
            _ => return None,
        },
        "layer_norm" => bind(Surface::Function, name, args).and_then(|b| layer_norm(cx.grad, b)),
        _ if OPS.contains(&name) => op(cx.grad, name, args),
        _ => return None,
    })
}

/// One op of [`OPS`], its first argument the input.
fn op(g: &State, name: &str, args: Args) -> Result<Value> {
    let t = |r: Result<Tensor>| r.map(Value::Tensor);
    match name {
        "matmul" | "mm" | "bmm" | "mv" | "dot" => {
            let second = match name {
                "mm" | "bmm" => "mat2",
                "mv" => "vec",
                "dot" => "tensor",
                _ => "other",
            };
            let b = bind(Surface::Function, name, args)?;
            let (x, y) = (tensor_arg(&b, "input")?, tensor_arg(&b, second)?);
            t(match name {
                "matmul" => la::matmul(g, &x, &y),
                "mm" => la::mm(g, &x, &y),
                "bmm" => la::bmm(g, &x, &y),
                "mv" => la::mv(g, &x, &y),
                _ => la::dot(g, &x, &y),
            })
        }
        "addmm" => {
            let b = bind(Surface::Function, name, args)?;
            t(la::addmm(
                g,
                &tensor_arg(&b, "input")?,
                &tensor_arg(&b, "mat1")?,
                &tensor_arg(&b, "mat2")?,
                scalar_or(&b, "beta", 1)?,
                scalar_or(&b, "alpha", 1)?,
            ))
        }
        "relu" => {
            let b = bind(Surface::Function, name, args)?;
            t(nn::relu(g, &tensor_arg(&b, "input")?))
        }
        _ => {
            // softmax / log_softmax
            let b = bind(Surface::Function, name, args)?;
            let x = tensor_arg(&b, "input")?;
            t(nn::softmax(
                g,
                &x,
                b.int("dim")?,
                dtype_opt(&b)?,
                name == "log_softmax",
            ))
        }
    }
}

/// `torch.nn.functional.NAME(args)`.
pub fn functional(cx: &Ctx, name: &str, args: Args) -> Result<Value> {
    let g = &cx.grad;
    let t = |r: Result<Tensor>| r.map(Value::Tensor);
    match name {
        "linear" => {
            let b = bind(Surface::Functional, name, args)?;
            let bias = some(b.opt("bias"))
                .map(|v| v.as_tensor("bias"))
                .transpose()?;
            t(linear(
                cx,
                &tensor_arg(&b, "input")?,
                &tensor_arg(&b, "weight")?,
                bias,
            ))
        }
        "relu" => {
            let b = bind(Surface::Functional, name, args)?;
            no_inplace(&b, "relu")?;
            t(nn::relu(g, &tensor_arg(&b, "input")?))
        }
        "gelu" => {
            let b = bind(Surface::Functional, name, args)?;
            let approximate = match some(b.opt("approximate")) {
                None => "none".to_string(),
                Some(Value::Str(s)) => s.clone(),
                Some(other) => {
                    return Err(type_error(format!(
                        "gelu(): argument 'approximate' must be str, not {}",
                        other.type_name()
                    )));
                }
            };
            t(nn::gelu(g, &tensor_arg(&b, "input")?, &approximate))
        }
        "silu" => {
            let b = bind(Surface::Functional, name, args)?;
            no_inplace(&b, "silu")?;
            t(nn::silu(g, &tensor_arg(&b, "input")?))
        }
        "softmax" | "log_softmax" => {
            let b = bind(Surface::Functional, name, args)?;
            let x = tensor_arg(&b, "input")?;
            let dim = match some(b.opt("dim")) {
                Some(v) => v.as_int("dim")?,
                None => {
                    let d = if matches!(x.ndim(), 0 | 1 | 3) { 0 } else { 1 };
                    (cx.warn)(
                        "implicit_dim",
                        format!(
                            "Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument."
                        ),
                    );
                    d
                }
            };
            t(nn::softmax(
                g,
                &x,
                dim,
                dtype_opt(&b)?,
                name == "log_softmax",
            ))
        }
        "dropout" => {
            let b = bind(Surface::Functional, name, args)?;
            no_inplace(&b, "dropout")?;
            let p = scalar_or(&b, "p", 0)?.to_f64();
            let p = if b.opt("p").is_none() { 0.5 } else { p };
            t(nn::dropout(
                &tensor_arg(&b, "input")?,
                p,
                flag(&b, "training", true)?,
            ))
        }
        "pad" => {
            let b = bind(Surface::Functional, name, args)?;
            let mode = match some(b.opt("mode")) {
                None => "constant".to_string(),
                Some(v) => super::pyfmt::str_of(v),
            };
            let value = some(b.opt("value"))
                .map(|v| v.as_scalar("value"))
                .transpose()?;
            t(nn::pad(
                g,
                &tensor_arg(&b, "input")?,
                &b.int_list("pad")?,
                &mode,
                value,
            ))
        }
        "layer_norm" => layer_norm(g, bind(Surface::Functional, name, args)?),
        _ => Err(type_error(format!(
            "module 'torch.nn.functional' has no attribute '{name}'"
        ))),
    }
}

/// `F.layer_norm` / `torch.layer_norm`, bound.
fn layer_norm(g: &State, b: Bound) -> Result<Value> {
    let weight = some(b.opt("weight"))
        .map(|v| v.as_tensor("weight"))
        .transpose()?;
    let bias = some(b.opt("bias"))
        .map(|v| v.as_tensor("bias"))
        .transpose()?;
    let eps = scalar_or(&b, "eps", 0)?.to_f64();
    super::norm_ops::layer_norm(
        g,
        &tensor_arg(&b, "input")?,
        &b.int_list("normalized_shape")?,
        weight,
        bias,
        eps,
    )
    .map(Value::Tensor)
}

fn no_inplace(b: &Bound, name: &str) -> Result<()> {
    if flag(b, "inplace", false)? {
        return Err(crate::error::TensorError::new(
            crate::error::ErrorKind::Unsupported,
            format!("stridekit explain has no in-place {name} (inplace=True)"),
        ));
    }
    Ok(())
}

/// `F.linear`, its in-place bias add recorded as `add_` is.
fn linear(cx: &Ctx, x: &Tensor, w: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    la::linear(cx.grad, x, w, bias, |out, b| {
        let args = Args {
            name: "add_".into(),
            positional: vec![Value::Tensor(b.clone())],
            kwargs: Vec::new(),
        };
        cx.grad
            .method(out, "add_", args, |a| {
                super::arith_ops::tensor_method(out, "add_", a)
            })
            .map(|_| ())
    })
}

/// `module.NAME(args)` for the modules (`nn.Linear(...)`, `torch.cuda.is_available()`,
/// `F.relu(...)`, `io.BytesIO()`).
pub fn module_call(cx: &Ctx, module: &str, name: &str, args: Args) -> Result<Value> {
    match (module, name) {
        ("torch.nn.functional", _) => functional(cx, name, args),
        ("torch.nn", "Linear") => super::modules::linear_layer(cx, args),
        ("torch.nn", "Dropout") => super::modules::dropout_layer(args),
        ("torch.nn", "LayerNorm") => super::modules::layer_norm_layer(cx, args),
        ("torch.cuda", "is_available") => {
            args.bind(&[])?;
            Ok(Value::Bool(matches!(
                cx.device,
                crate::storage::Device::Cuda(_)
            )))
        }
        ("io", "BytesIO") => {
            args.bind(&[])?;
            Ok(super::modules::object(Object::Buffer(Default::default())))
        }
        _ => Err(type_error(format!(
            "module '{module}' has no attribute '{name}'"
        ))),
    }
}

/// `obj.NAME(args)` for an object of [`Object`].
pub fn object_method(cx: &Ctx, o: &Rc<Object>, name: &str, args: Args) -> Result<Value> {
    match &**o {
        Object::Module(m) => module_call(cx, m, name, args),
        Object::Buffer(b) => super::serialize::method(b, name, args),
        Object::Layer(l) => layer_method(cx, o, l, name, args),
    }
}

fn layer_method(cx: &Ctx, o: &Rc<Object>, l: &Layer, name: &str, args: Args) -> Result<Value> {
    let me = || Ok(Value::Object(o.clone()));
    match name {
        "eval" | "train" => {
            let b = args.bind(&["mode"])?;
            l.training.set(name == "train" && flag(&b, "mode", true)?);
            me()
        }
        "to" | "cuda" | "cpu" => {
            let device = match name {
                "cpu" => crate::storage::Device::Cpu,
                "cuda" => crate::storage::Device::Cuda(0),
                _ => {
                    let b = args.bind(&["device", "dtype", "non_blocking"])?;
                    match some(b.opt("device")) {
                        Some(v) => v.as_device("device")?,
                        None => return me(),
                    }
                }
            };
            super::modules::move_layer(cx, l, device)?;
            me()
        }
        "parameters" => {
            args.bind(&["recurse"])?;
            let items = l
                .params
                .borrow()
                .iter()
                .filter_map(|(_, t)| t.clone().map(Value::Tensor))
                .collect();
            Ok(Value::iter("generator", items))
        }
        "named_parameters" => {
            args.bind(&["prefix", "recurse"])?;
            let items = l
                .params
                .borrow()
                .iter()
                .filter_map(|(n, t)| {
                    t.clone()
                        .map(|t| Value::Tuple(vec![Value::Str(n.to_string()), Value::Tensor(t)]))
                })
                .collect();
            Ok(Value::iter("generator", items))
        }
        "forward" => call_layer(cx, l, args),
        _ => Err(type_error(format!(
            "'{}' object has no attribute '{name}'",
            l.kind
        ))),
    }
}

/// A layer's `weight` and `bias` parameters (None where it has none).
fn weight_and_bias(l: &Layer) -> (Option<Tensor>, Option<Tensor>) {
    let params = l.params.borrow();
    let param = |n: &str| {
        params
            .iter()
            .find(|(p, _)| *p == n)
            .and_then(|(_, t)| t.clone())
    };
    (param("weight"), param("bias"))
}

/// `layer(x)`.
pub fn call_layer(cx: &Ctx, l: &Layer, args: Args) -> Result<Value> {
    let b = args.bind(&["input"])?;
    let x = tensor_arg(&b, "input")?;
    match l.kind {
        "Linear" => {
            let (weight, bias) = weight_and_bias(l);
            let weight = weight.ok_or_else(|| type_error("'Linear' object has no weight"))?;
            linear(cx, &x, &weight, bias.as_ref()).map(Value::Tensor)
        }
        "LayerNorm" => {
            let (weight, bias) = weight_and_bias(l);
            super::norm_ops::layer_norm(
                cx.grad,
                &x,
                &l.normalized,
                weight.as_ref(),
                bias.as_ref(),
                l.eps,
            )
            .map(Value::Tensor)
        }
        _ => nn::dropout(&x, l.p, l.training.get()).map(Value::Tensor),
    }
}
