//! How Python and PyTorch print values: `str()` for `print(...)`, `repr()` inside tuples,
//! floats as Python's shortest round-trip repr, and tensors as PyTorch's `tensor(...)` text
//! (default print options: precision 4, line width 80, summarised above 1000 elements).

use super::value::Value;
use crate::dtype::DType;
use crate::scalar::Scalar;
use crate::storage::Device;
use crate::tensor::Tensor;

/// Python's `repr(float)`: the shortest digits that read back, in fixed notation when the
/// decimal exponent is in -4..16, else scientific (`1e+16`, `1.5e-05`).
pub fn float_repr(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{a}.{b}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

/// Python's `format(v, '.{precision}e')`: `1.0000e+08`.
fn float_sci(v: f64, precision: usize) -> String {
    if !v.is_finite() {
        return float_repr(v);
    }
    let s = format!("{v:.precision$e}");
    let (m, e) = s.split_once('e').expect("{:e} has an exponent");
    let e: i32 = e.parse().expect("integer exponent");
    let esign = if e < 0 { '-' } else { '+' };
    format!("{m}e{esign}{:02}", e.abs())
}

/// Python's `str(v)` (what `print` writes).
pub fn str_of(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Device(d) => d.to_string(),
        Value::Tensor(t) => tensor_repr(t),
        Value::Exception(e) => e.error.message.clone(),
        other => repr_of(other),
    }
}

/// Python's `repr(v)`.
pub fn repr_of(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float_repr(*f),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::None => "None".into(),
        Value::Ellipsis => "Ellipsis".into(),
        Value::Str(s) => {
            let mut out = String::new();
            let _ = super::ast::display::write_str_literal(&mut out, s);
            out
        }
        Value::Tuple(items) if items.len() == 1 => format!("({},)", repr_of(&items[0])),
        Value::Tuple(items) => format!("({})", join(items)),
        Value::NamedTuple(_, items) => {
            let fields: Vec<String> = super::max_min::FIELDS
                .iter()
                .zip(items)
                .map(|(f, v)| format!("{f}={}", repr_of(v)))
                .collect();
            format!("{}(\n{})", v.type_name(), fields.join(",\n"))
        }
        Value::List(items) => format!("[{}]", join(items)),
        Value::Size(dims) => {
            let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
            format!("torch.Size([{}])", parts.join(", "))
        }
        Value::DType(d) => format!("torch.{}", d.torch_name()),
        Value::MemoryFormat(m) => format!("torch.{}", m.torch_name()),
        Value::Device(Device::Cpu) => "device(type='cpu')".into(),
        Value::Device(Device::Cuda(n)) => format!("device(type='cuda', index={n})"),
        Value::Storage(s) => format!(
            "[torch.storage.UntypedStorage(device={}) of size {}]",
            s.device(),
            s.nbytes()
        ),
        Value::TypedStorage(s, d) => format!(
            "[torch.storage.TypedStorage(dtype=torch.{}, device={}) of size {}]",
            d.torch_name(),
            s.device(),
            s.nbytes() / d.itemsize()
        ),
        Value::Tensor(t) => tensor_repr(t),
        Value::Torch => "<module 'torch'>".into(),
        Value::Testing => "<module 'torch.testing'>".into(),
        Value::GradFn(n) => format!(
            "<{} object at {:#x}>",
            n.name,
            std::rc::Rc::as_ptr(n) as usize
        ),
        Value::Class(c) => format!("<class '{c}'>"),
        Value::GradMode(on) => format!(
            "<torch.autograd.grad_mode.{} object>",
            if *on { "enable_grad" } else { "no_grad" }
        ),
        Value::Object(o) => o.repr(),
        Value::Lambda(_) => "<function <lambda>>".into(),
        Value::Function(f) => format!("<function {}>", f.def.name),
        Value::Dict(d) => {
            let parts: Vec<String> = d
                .borrow()
                .iter()
                .map(|(k, v)| format!("{}: {}", repr_of(k), repr_of(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Iter(it) => format!("<{} object>", it.kind),
        Value::Range(start, stop, 1) => format!("range({start}, {stop})"),
        Value::Range(start, stop, step) => format!("range({start}, {stop}, {step})"),
        Value::Generator(_) => "<torch._C.Generator object>".into(),
        Value::ExceptionClass(c) => format!("<class '{c}'>"),
        Value::Exception(e) => format!(
            "{}({})",
            e.class,
            repr_of(&Value::Str(e.error.message.clone()))
        ),
    }
}

fn join(items: &[Value]) -> String {
    items.iter().map(repr_of).collect::<Vec<_>>().join(", ")
}

const LINE_WIDTH: usize = 80;
const PRECISION: usize = 4;
const THRESHOLD: i64 = 1000;
const EDGE_ITEMS: i64 = 3;

/// How PyTorch's `_Formatter` writes every element of one tensor.
struct Formatter {
    floating: bool,
    int_mode: bool,
    sci_mode: bool,
    width: usize,
}

impl Formatter {
    fn new(dtype: DType, values: &[Scalar]) -> Formatter {
        let mut f = Formatter {
            floating: dtype.is_floating(),
            int_mode: true,
            sci_mode: false,
            width: 1,
        };
        if !f.floating {
            f.width = values
                .iter()
                .map(|v| v.to_string().len())
                .max()
                .unwrap_or(1);
            return f;
        }
        let finite: Vec<f64> = values
            .iter()
            .map(|v| v.to_f64())
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        if finite.is_empty() {
            return f;
        }
        let abs: Vec<f64> = finite.iter().map(|v| v.abs()).collect();
        let min = abs.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = abs.iter().cloned().fold(0.0, f64::max);
        f.int_mode = finite.iter().all(|v| v.ceil() == *v);
        let strs: Vec<String> = if f.int_mode {
            if max / min > 1000.0 || max > 1e8 {
                f.sci_mode = true;
                finite.iter().map(|v| float_sci(*v, PRECISION)).collect()
            } else {
                finite.iter().map(|v| format!("{v:.0}.")).collect()
            }
        } else if max / min > 1000.0 || max > 1e8 || min < 1e-4 {
            f.sci_mode = true;
            finite.iter().map(|v| float_sci(*v, PRECISION)).collect()
        } else {
            finite.iter().map(|v| format!("{v:.PRECISION$}")).collect()
        };
        f.width = strs.iter().map(|s| s.len()).max().unwrap_or(1);
        f
    }

    fn format(&self, v: Scalar) -> String {
        let s = if !self.floating {
            v.to_string()
        } else {
            let x = v.to_f64();
            if !x.is_finite() {
                float_repr(x)
            } else if self.sci_mode {
                float_sci(x, PRECISION)
            } else if self.int_mode {
                format!("{x:.0}.")
            } else {
                format!("{x:.PRECISION$}")
            }
        };
        format!("{s:>width$}", width = self.width)
    }
}

/// The elements shown: all, or the first and last three along every long dimension.
fn shown_values(sizes: &[i64], values: &[Scalar], summarize: bool) -> Vec<Scalar> {
    if !summarize || sizes.is_empty() {
        return values.to_vec();
    }
    let inner: i64 = sizes[1..].iter().product();
    let rows: Vec<i64> = if sizes[0] > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS)
            .chain(sizes[0] - EDGE_ITEMS..sizes[0])
            .collect()
    } else {
        (0..sizes[0]).collect()
    };
    rows.iter()
        .flat_map(|&r| {
            let part = &values[(r * inner) as usize..((r + 1) * inner) as usize];
            shown_values(&sizes[1..], part, summarize)
        })
        .collect()
}

fn tensor_body(
    sizes: &[i64],
    values: &[Scalar],
    indent: usize,
    summarize: bool,
    f: &Formatter,
) -> String {
    match sizes.len() {
        0 => f.format(values[0]).trim_start().to_string(),
        1 => {
            let n = sizes[0];
            let mut data: Vec<String> = Vec::new();
            if summarize && n > 2 * EDGE_ITEMS {
                data.extend(values[..EDGE_ITEMS as usize].iter().map(|v| f.format(*v)));
                data.push(" ...".into());
                data.extend(
                    values[(n - EDGE_ITEMS) as usize..]
                        .iter()
                        .map(|v| f.format(*v)),
                );
            } else {
                data.extend(values.iter().map(|v| f.format(*v)));
            }
            let per_line = ((LINE_WIDTH.saturating_sub(indent)) / (f.width + 2)).max(1);
            let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
            format!(
                "[{}]",
                lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
            )
        }
        dim => {
            let inner: i64 = sizes[1..].iter().product();
            let slice = |r: i64| {
                let part = &values[(r * inner) as usize..((r + 1) * inner) as usize];
                tensor_body(&sizes[1..], part, indent + 1, summarize, f)
            };
            let mut parts: Vec<String> = Vec::new();
            if summarize && sizes[0] > 2 * EDGE_ITEMS {
                parts.extend((0..EDGE_ITEMS).map(slice));
                parts.push("...".into());
                parts.extend((sizes[0] - EDGE_ITEMS..sizes[0]).map(slice));
            } else {
                parts.extend((0..sizes[0]).map(slice));
            }
            let sep = format!(",{}{}", "\n".repeat(dim - 1), " ".repeat(indent + 1));
            format!("[{}]", parts.join(&sep))
        }
    }
}

/// PyTorch's `repr(tensor)` with the default print options.
pub fn tensor_repr(t: &Tensor) -> String {
    let values = match t.values() {
        Ok(v) => v,
        Err(e) => return format!("<tensor: {}>", e.message),
    };
    let prefix = "tensor(";
    let indent = prefix.len();
    let mut suffixes = Vec::new();
    if t.device() != Device::Cpu {
        suffixes.push(format!("device='{}'", t.device()));
    }
    let body = if t.numel() == 0 {
        if t.ndim() != 1 {
            let dims: Vec<Value> = t.sizes().iter().map(|&s| Value::Int(s)).collect();
            suffixes.push(format!("size={}", repr_of(&Value::Tuple(dims))));
        }
        if t.dtype() != DType::F32 {
            suffixes.push(format!("dtype=torch.{}", t.dtype().torch_name()));
        }
        "[]".to_string()
    } else {
        let summarize = t.numel() > THRESHOLD;
        let shown = shown_values(t.sizes(), &values, summarize);
        let f = Formatter::new(t.dtype(), &shown);
        if !matches!(t.dtype(), DType::F32 | DType::I64 | DType::Bool) {
            suffixes.push(format!("dtype=torch.{}", t.dtype().torch_name()));
        }
        tensor_body(t.sizes(), &values, indent, summarize, &f)
    };
    let mut out = format!("{prefix}{body}");
    let mut last = out.len() - out.rfind('\n').map_or(0, |i| i + 1) + 1;
    for s in suffixes {
        if last + s.len() + 2 > LINE_WIDTH {
            out.push_str(&format!(",\n{}{s}", " ".repeat(indent)));
            last = indent + s.len();
        } else {
            out.push_str(&format!(", {s}"));
            last += s.len() + 2;
        }
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        for (v, s) in [
            (1.5, "1.5"),
            (1e16, "1e+16"),
            (1e-5, "1e-05"),
            (0.1 + 0.2, "0.30000000000000004"),
            (123456789.0, "123456789.0"),
            (-0.0001, "-0.0001"),
            (2.5e-7, "2.5e-07"),
            (1.0, "1.0"),
        ] {
            assert_eq!(float_repr(v), s);
        }
        assert_eq!(float_sci(1e8, 4), "1.0000e+08");
    }

    #[test]
    fn tensors_print_as_pytorch() {
        let t = Tensor::arange(
            Scalar::Int(0),
            Scalar::Int(6),
            Scalar::Int(1),
            Some(DType::F32),
        )
        .unwrap()
        .view(&[2, 3])
        .unwrap();
        assert_eq!(
            tensor_repr(&t),
            "tensor([[0., 1., 2.],\n        [3., 4., 5.]])"
        );
        let h = t.to(Some(DType::F16), None, false).unwrap();
        assert_eq!(
            tensor_repr(&h),
            "tensor([[0., 1., 2.],\n        [3., 4., 5.]], dtype=torch.float16)"
        );
        let i = Tensor::zeros(&[0, 3], DType::I64).unwrap();
        assert_eq!(
            tensor_repr(&i),
            "tensor([], size=(0, 3), dtype=torch.int64)"
        );
    }
}
