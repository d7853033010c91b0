//! Which node an op records, what it saves (PyTorch's derivatives.yaml: `mul` saves the
//! other operand for each input that needs a gradient, `exp` and `sqrt` their result,
//! `pow` its input, views and sums nothing), and the inputs' edges.

use super::State;
use super::formula::Formula;
use super::node::{Edge, Input, Node, Saved};
use crate::dtype::DType;
use crate::error::{ErrorKind, Result, TensorError};
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use std::rc::Rc;

/// An operand of an op: a tensor or a Python number.
#[derive(Debug, Clone)]
pub enum Arg {
    Tensor(Tensor),
    Number(Scalar),
    /// Anything else (a dim list, a dtype): not an operand.
    Other,
}

/// What a call looked like: `this` (self, or a torch function's first tensor), the other
/// operand, and the options the formulas read.
#[derive(Debug, Clone)]
pub struct Call {
    pub this: Tensor,
    pub other: Option<Arg>,
    pub alpha: Scalar,
    /// `dim` of a reduction (None: all).
    pub dims: Option<Vec<i64>>,
    pub keepdim: bool,
}

/// The message for an op explain cannot differentiate (kind `unsupported`: no `except`
/// catches it, PyTorch would have run it).
pub fn no_derivative(what: &str) -> TensorError {
    TensorError::new(
        ErrorKind::Unsupported,
        format!(
            "stridekit explain has no derivative for {what} (autograd covers add, sub, mul, div, neg, exp, sqrt, square, pow with a number exponent, sum, mean, clone/contiguous/to, reshape, the view ops, matmul and its family, linear, relu, gelu, silu, softmax, log_softmax, pad, tile and repeat)"
        ),
    )
}

/// A Python number as the 0-dim tensor PyTorch saves for it (int64, float64 or bool).
fn wrapped(n: Scalar) -> Result<Tensor> {
    let dtype = match n {
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => DType::F64,
        Scalar::Bool(_) => DType::Bool,
    };
    Tensor::full(&[], n, Some(dtype))
}

pub(super) fn input(state: &State, t: &Tensor, view_out: Option<&Tensor>) -> Input {
    Input {
        sizes: t.sizes().to_vec(),
        dtype: t.dtype(),
        layout: t.layout().clone(),
        view_out: view_out.map(|o| o.layout().clone()),
        edge: state.edge(t),
    }
}

pub(super) fn saved_input(state: &State, role: &'static str, t: &Tensor) -> Saved {
    Saved {
        role,
        tensor: t.clone(),
        version: t.version(),
        is_output: false,
        meta: state.meta(t),
        wrapped_number: false,
    }
}

fn saved_arg(state: &State, role: &'static str, a: &Arg) -> Result<Option<Saved>> {
    Ok(match a {
        Arg::Tensor(t) => Some(saved_input(state, role, t)),
        Arg::Number(n) => Some(Saved {
            role,
            tensor: wrapped(*n)?,
            version: 0,
            is_output: false,
            meta: None,
            wrapped_number: true,
        }),
        Arg::Other => None,
    })
}

/// The node name and formula of a view op (the result shares the input's storage).
fn view_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "view" | "view_as" | "reshape" | "reshape_as" | "flatten" | "ravel" => "ViewBackward0",
        "transpose" | "swapaxes" | "swapdims" | "mT" => "TransposeBackward0",
        "t" => "TBackward0",
        "T" | "permute" | "movedim" | "moveaxis" => "PermuteBackward0",
        "expand" | "expand_as" => "ExpandBackward0",
        "unsqueeze" => "UnsqueezeBackward0",
        "squeeze" => "SqueezeBackward0",
        "narrow" | "getitem_slice" => "SliceBackward0",
        "select" | "getitem_select" => "SelectBackward0",
        "getitem_unsqueeze" => "UnsqueezeBackward0",
        "getitem_alias" => "AliasBackward0",
        "diagonal" => "DiagonalBackward0",
        "unfold" => "UnfoldBackward0",
        "as_strided" => "AsStridedBackward0",
        _ => return None,
    })
}

/// Makes the node an out-of-place op `name` records for `result`, or says it has none.
pub fn node_for(state: &State, name: &str, call: &Call, result: &Tensor) -> Result<Node> {
    let this = &call.this;
    let mut saved = Vec::new();
    let mut inputs = vec![input(state, this, None)];
    let other_tensor = match &call.other {
        Some(Arg::Tensor(t)) => Some(t.clone()),
        _ => None,
    };
    let (node, formula) = match name {
        "add" | "sub" | "rsub" | "mul" | "div" => {
            if let Some(o) = &other_tensor {
                inputs.push(input(state, o, None));
            }
            let needs_this = state.requires_grad(this);
            let needs_other = other_tensor
                .as_ref()
                .is_some_and(|o| state.requires_grad(o));
            match name {
                "add" => ("AddBackward0", Formula::Add(call.alpha)),
                "sub" => ("SubBackward0", Formula::Sub(call.alpha)),
                "rsub" => ("RsubBackward1", Formula::Rsub(call.alpha)),
                _ => {
                    let other = call.other.clone().unwrap_or(Arg::Other);
                    if needs_this || (name == "div" && needs_other) {
                        saved.extend(saved_arg(state, "other", &other)?);
                    }
                    if needs_other {
                        saved.push(saved_input(state, "self", this));
                    }
                    if name == "mul" {
                        ("MulBackward0", Formula::Mul)
                    } else {
                        ("DivBackward0", Formula::Div)
                    }
                }
            }
        }
        "neg" | "negative" => ("NegBackward0", Formula::Neg),
        "exp" | "sqrt" => {
            saved.push(Saved {
                role: "result",
                tensor: result.clone(),
                version: result.version(),
                is_output: true,
                meta: None,
                wrapped_number: false,
            });
            if name == "exp" {
                ("ExpBackward0", Formula::Exp)
            } else {
                ("SqrtBackward0", Formula::Sqrt)
            }
        }
        "square" | "pow" => {
            let e = match (name, &call.other) {
                ("square", _) => Scalar::Int(2),
                (_, Some(Arg::Number(e))) => *e,
                _ => return Err(no_derivative("pow with a tensor exponent")),
            };
            saved.push(saved_input(state, "self", this));
            ("PowBackward0", Formula::Pow(e))
        }
        "sum" | "mean" => {
            let mean = name == "mean";
            let node = match (mean, call.dims.is_some()) {
                (false, false) => "SumBackward0",
                (false, true) => "SumBackward1",
                (true, false) => "MeanBackward0",
                (true, true) => "MeanBackward1",
            };
            let f = Formula::Reduce {
                dims: call.dims.clone(),
                keepdim: call.keepdim,
                mean,
            };
            (node, f)
        }
        "clone" | "contiguous" => ("CloneBackward0", Formula::Copy),
        "to" | "float" | "double" | "half" | "bfloat16" | "type" | "type_as" => {
            ("ToCopyBackward0", Formula::Copy)
        }
        _ if result.shares_storage(this) => match view_name(name) {
            Some(n) => {
                inputs[0] = input(state, this, Some(result));
                let summed = matches!(n, "ExpandBackward0" | "UnfoldBackward0");
                (n, Formula::View { summed })
            }
            None => return Err(no_derivative(&format!("`{name}`"))),
        },
        "reshape" | "flatten" | "reshape_as" | "ravel" => ("UnsafeViewBackward0", Formula::Copy),
        _ => return Err(no_derivative(&format!("`{name}`"))),
    };
    Ok(Node::new(node, formula, inputs, saved))
}

/// Makes the node an in-place op `name` (`add_`, ...) records for `call.this`, whose edge
/// before the write was `old`.
pub fn inplace_node(state: &State, name: &str, call: &Call, old: Option<Edge>) -> Result<Node> {
    let this = &call.this;
    let base = name.trim_end_matches('_');
    let mut first = input(state, this, None);
    first.edge = old;
    let mut inputs = vec![first];
    let mut saved = Vec::new();
    let (node, formula) = match (base, &call.other) {
        ("add" | "sub", Some(other)) => {
            if let Arg::Tensor(o) = other {
                inputs.push(input(state, o, None));
            }
            if base == "add" {
                ("AddBackward0", Formula::Add(call.alpha))
            } else {
                ("SubBackward0", Formula::Sub(call.alpha))
            }
        }
        ("mul" | "div", Some(other @ Arg::Number(_))) => {
            saved.extend(saved_arg(state, "other", other)?);
            if base == "mul" {
                ("MulBackward0", Formula::Mul)
            } else {
                ("DivBackward0", Formula::Div)
            }
        }
        _ => return Err(no_derivative(&format!("the in-place `{name}`"))),
    };
    Ok(Node::new(node, formula, inputs, saved))
}

/// Records `node` as the maker of `t`.
pub fn attach(state: &State, t: &Tensor, node: Node) {
    state.set_grad_fn(t, Rc::new(node));
}
