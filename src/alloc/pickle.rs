//! A small reader and writer for Python pickles (protocols 0 to 5), enough for PyTorch
//! memory snapshots (`torch.cuda.memory._dump_snapshot()`): dicts, lists, tuples, strings,
//! integers, floats, booleans, None. Class instances (GLOBAL/REDUCE/BUILD) are read as
//! opaque values and never executed.
//!
//! The memo keeps copies: a mutable container referenced twice in one pickle is read as two
//! copies of its state at memo time. Snapshots only share strings, so this does not matter
//! for them.

use std::collections::HashMap;

/// A decoded pickle value.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<PyValue>),
    Tuple(Vec<PyValue>),
    Dict(Vec<(PyValue, PyValue)>),
    /// An object the reader does not construct (a class instance, a set, a global).
    Opaque(String),
}

impl PyValue {
    /// The value for string key `key` of a dict.
    pub fn get(&self, key: &str) -> Option<&PyValue> {
        match self {
            PyValue::Dict(items) => items
                .iter()
                .find(|(k, _)| matches!(k, PyValue::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn as_int(&self) -> Option<i128> {
        match self {
            PyValue::Int(i) => Some(*i),
            PyValue::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_list(&self) -> Option<&[PyValue]> {
        match self {
            PyValue::List(v) | PyValue::Tuple(v) => Some(v),
            _ => None,
        }
    }
}

/// A pickle that cannot be read, with the byte offset of the problem.
#[derive(Debug, Clone, PartialEq)]
pub struct PickleError {
    pub offset: usize,
    pub message: String,
}

enum Item {
    Mark,
    V(PyValue),
}

struct Reader<'a> {
    d: &'a [u8],
    p: usize,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, m: impl Into<String>) -> Result<T, PickleError> {
        Err(PickleError {
            offset: self.p,
            message: m.into(),
        })
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], PickleError> {
        if self.p.checked_add(n).is_none_or(|e| e > self.d.len()) {
            return self.err("unexpected end of pickle");
        }
        let s = &self.d[self.p..self.p + n];
        self.p += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, PickleError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, PickleError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, PickleError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn line(&mut self) -> Result<&'a [u8], PickleError> {
        let start = self.p;
        while self.p < self.d.len() && self.d[self.p] != b'\n' {
            self.p += 1;
        }
        if self.p >= self.d.len() {
            return self.err("unterminated text argument");
        }
        let s = &self.d[start..self.p];
        self.p += 1;
        Ok(s)
    }
    fn len_usize(&mut self, n: u64) -> Result<usize, PickleError> {
        usize::try_from(n).or_else(|_| self.err("length too large"))
    }
}

fn le_signed(b: &[u8]) -> Option<i128> {
    if b.len() > 16 {
        return None;
    }
    if b.is_empty() {
        return Some(0);
    }
    let mut v: i128 = 0;
    for (k, &x) in b.iter().enumerate() {
        v |= (x as i128) << (8 * k);
    }
    if b.len() < 16 && b[b.len() - 1] & 0x80 != 0 {
        v -= 1i128 << (8 * b.len());
    }
    Some(v)
}

/// Decode a pickle.
pub fn from_slice(data: &[u8]) -> Result<PyValue, PickleError> {
    let mut r = Reader { d: data, p: 0 };
    let mut stack: Vec<Item> = Vec::new();
    let mut memo: HashMap<u64, PyValue> = HashMap::new();
    macro_rules! pop {
        () => {
            match stack.pop() {
                Some(Item::V(v)) => v,
                _ => return r.err("stack underflow"),
            }
        };
    }
    macro_rules! pop_mark {
        () => {{
            let mut items = Vec::new();
            loop {
                match stack.pop() {
                    Some(Item::V(v)) => items.push(v),
                    Some(Item::Mark) => break,
                    None => return r.err("missing mark"),
                }
            }
            items.reverse();
            items
        }};
    }
    macro_rules! top_mut {
        () => {
            match stack.last_mut() {
                Some(Item::V(v)) => v,
                _ => return r.err("stack underflow"),
            }
        };
    }
    macro_rules! top {
        () => {
            match stack.last() {
                Some(Item::V(v)) => v.clone(),
                _ => return r.err("stack underflow"),
            }
        };
    }
    loop {
        let op = r.u8()?;
        match op {
            0x80 => {
                r.u8()?;
            }
            0x95 => {
                r.u64()?;
            }
            b'.' => {
                return match stack.pop() {
                    Some(Item::V(v)) => Ok(v),
                    _ => r.err("empty stack at STOP"),
                };
            }
            b'(' => stack.push(Item::Mark),
            b'}' => stack.push(Item::V(PyValue::Dict(Vec::new()))),
            b']' => stack.push(Item::V(PyValue::List(Vec::new()))),
            b')' => stack.push(Item::V(PyValue::Tuple(Vec::new()))),
            b'N' => stack.push(Item::V(PyValue::None)),
            0x88 => stack.push(Item::V(PyValue::Bool(true))),
            0x89 => stack.push(Item::V(PyValue::Bool(false))),
            b'J' => {
                let v = r.u32()? as i32;
                stack.push(Item::V(PyValue::Int(v as i128)));
            }
            b'K' => {
                let v = r.u8()?;
                stack.push(Item::V(PyValue::Int(v as i128)));
            }
            b'M' => {
                let b = r.take(2)?;
                stack.push(Item::V(PyValue::Int(
                    u16::from_le_bytes([b[0], b[1]]) as i128
                )));
            }
            0x8a | 0x8b => {
                let n = if op == 0x8a {
                    r.u8()? as u64
                } else {
                    r.u32()? as u64
                };
                let n = r.len_usize(n)?;
                let b = r.take(n)?;
                match le_signed(b) {
                    Some(v) => stack.push(Item::V(PyValue::Int(v))),
                    None => return r.err("integer too large"),
                }
            }
            b'I' | b'L' => {
                let l = r.line()?;
                let s = String::from_utf8_lossy(l);
                let s = s.trim_end_matches('L');
                let v = match s {
                    "00" => PyValue::Bool(false),
                    "01" => PyValue::Bool(true),
                    _ => match s.parse::<i128>() {
                        Ok(v) => PyValue::Int(v),
                        Err(_) => return r.err(format!("bad integer '{s}'")),
                    },
                };
                stack.push(Item::V(v));
            }
            b'G' => {
                let b = r.take(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                stack.push(Item::V(PyValue::Float(f64::from_be_bytes(a))));
            }
            b'F' => {
                let l = r.line()?;
                let s = String::from_utf8_lossy(l).to_string();
                match s.trim().parse::<f64>() {
                    Ok(v) => stack.push(Item::V(PyValue::Float(v))),
                    Err(_) => return r.err(format!("bad float '{s}'")),
                }
            }
            b'X' | 0x8c | 0x8d => {
                let n = match op {
                    b'X' => r.u32()? as u64,
                    0x8c => r.u8()? as u64,
                    _ => r.u64()?,
                };
                let n = r.len_usize(n)?;
                let b = r.take(n)?;
                match std::str::from_utf8(b) {
                    Ok(s) => stack.push(Item::V(PyValue::Str(s.to_string()))),
                    Err(_) => return r.err("string is not UTF-8"),
                }
            }
            b'V' => {
                let l = r.line()?;
                stack.push(Item::V(PyValue::Str(
                    String::from_utf8_lossy(l).to_string(),
                )));
            }
            b'S' => {
                let l = r.line()?;
                let s = String::from_utf8_lossy(l);
                let s = s.trim().trim_matches(|c| c == '\'' || c == '"');
                stack.push(Item::V(PyValue::Str(s.to_string())));
            }
            b'T' | b'U' | b'B' | b'C' | 0x8e | 0x96 => {
                let n = match op {
                    b'T' | b'B' => r.u32()? as u64,
                    b'U' | b'C' => r.u8()? as u64,
                    _ => r.u64()?,
                };
                let n = r.len_usize(n)?;
                let b = r.take(n)?.to_vec();
                let v = if op == b'T' || op == b'U' {
                    PyValue::Str(String::from_utf8_lossy(&b).to_string())
                } else {
                    PyValue::Bytes(b)
                };
                stack.push(Item::V(v));
            }
            b'a' => {
                let v = pop!();
                match top_mut!() {
                    PyValue::List(l) => l.push(v),
                    _ => return r.err("APPEND to a non-list"),
                }
            }
            b'e' => {
                let items = pop_mark!();
                match top_mut!() {
                    PyValue::List(l) => l.extend(items),
                    PyValue::Opaque(_) => {}
                    _ => return r.err("APPENDS to a non-list"),
                }
            }
            b's' => {
                let v = pop!();
                let k = pop!();
                match top_mut!() {
                    PyValue::Dict(d) => d.push((k, v)),
                    PyValue::Opaque(_) => {}
                    _ => return r.err("SETITEM on a non-dict"),
                }
            }
            b'u' => {
                let items = pop_mark!();
                if items.len() % 2 != 0 {
                    return r.err("SETITEMS with an odd number of items");
                }
                let mut it = items.into_iter();
                let mut pairs = Vec::new();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((k, v));
                }
                match top_mut!() {
                    PyValue::Dict(d) => d.extend(pairs),
                    PyValue::Opaque(_) => {}
                    _ => return r.err("SETITEMS on a non-dict"),
                }
            }
            b't' => {
                let items = pop_mark!();
                stack.push(Item::V(PyValue::Tuple(items)));
            }
            b'l' => {
                let items = pop_mark!();
                stack.push(Item::V(PyValue::List(items)));
            }
            b'd' => {
                let items = pop_mark!();
                if items.len() % 2 != 0 {
                    return r.err("DICT with an odd number of items");
                }
                let mut it = items.into_iter();
                let mut pairs = Vec::new();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((k, v));
                }
                stack.push(Item::V(PyValue::Dict(pairs)));
            }
            0x85..=0x87 => {
                let n = (op - 0x84) as usize;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(pop!());
                }
                items.reverse();
                stack.push(Item::V(PyValue::Tuple(items)));
            }
            0x8f => stack.push(Item::V(PyValue::Opaque("set".into()))),
            0x90 => {
                let _ = pop_mark!();
            }
            0x91 => {
                let _ = pop_mark!();
                stack.push(Item::V(PyValue::Opaque("frozenset".into())));
            }
            0x94 => {
                let v = top!();
                let k = memo.len() as u64;
                memo.insert(k, v);
            }
            b'q' | b'r' | b'p' => {
                let k = match op {
                    b'q' => r.u8()? as u64,
                    b'r' => r.u32()? as u64,
                    _ => {
                        let l = r.line()?;
                        match String::from_utf8_lossy(l).trim().parse::<u64>() {
                            Ok(k) => k,
                            Err(_) => return r.err("bad PUT index"),
                        }
                    }
                };
                let v = top!();
                memo.insert(k, v);
            }
            b'h' | b'j' | b'g' => {
                let k = match op {
                    b'h' => r.u8()? as u64,
                    b'j' => r.u32()? as u64,
                    _ => {
                        let l = r.line()?;
                        match String::from_utf8_lossy(l).trim().parse::<u64>() {
                            Ok(k) => k,
                            Err(_) => return r.err("bad GET index"),
                        }
                    }
                };
                match memo.get(&k) {
                    Some(v) => stack.push(Item::V(v.clone())),
                    None => return r.err(format!("memo key {k} not found")),
                }
            }
            b'0' => {
                stack.pop();
            }
            b'1' => {
                let _ = pop_mark!();
            }
            b'2' => {
                let v = top!();
                stack.push(Item::V(v));
            }
            b'c' => {
                let m = String::from_utf8_lossy(r.line()?).to_string();
                let n = String::from_utf8_lossy(r.line()?).to_string();
                stack.push(Item::V(PyValue::Opaque(format!("{m}.{n}"))));
            }
            0x93 => {
                let n = pop!();
                let m = pop!();
                stack.push(Item::V(PyValue::Opaque(format!(
                    "{}.{}",
                    m.as_str().unwrap_or("?"),
                    n.as_str().unwrap_or("?")
                ))));
            }
            b'R' | 0x81 => {
                let _args = pop!();
                let f = pop!();
                let name = match f {
                    PyValue::Opaque(s) => s,
                    _ => "object".into(),
                };
                stack.push(Item::V(PyValue::Opaque(name)));
            }
            0x92 => {
                let _kw = pop!();
                let _args = pop!();
                let _cls = pop!();
                stack.push(Item::V(PyValue::Opaque("object".into())));
            }
            b'b' => {
                let _state = pop!();
            }
            _ => return r.err(format!("unsupported pickle opcode 0x{op:02x}")),
        }
    }
}

/// Encode a value as a protocol-2 pickle (dicts, lists, tuples, strings, ints, floats,
/// booleans, None, bytes).
pub fn to_vec(v: &PyValue) -> Vec<u8> {
    let mut out = vec![0x80, 2];
    write(v, &mut out);
    out.push(b'.');
    out
}

fn write(v: &PyValue, out: &mut Vec<u8>) {
    match v {
        PyValue::None | PyValue::Opaque(_) => out.push(b'N'),
        PyValue::Bool(b) => out.push(if *b { 0x88 } else { 0x89 }),
        PyValue::Int(i) => {
            if (0..256).contains(i) {
                out.push(b'K');
                out.push(*i as u8);
            } else if (i32::MIN as i128..=i32::MAX as i128).contains(i) {
                out.push(b'J');
                out.extend_from_slice(&(*i as i32).to_le_bytes());
            } else {
                let bytes = i.to_le_bytes();
                let mut n = 16;
                while n > 1 {
                    let top = bytes[n - 1];
                    let below_sign = bytes[n - 2] & 0x80;
                    if (top == 0 && below_sign == 0) || (top == 0xff && below_sign != 0) {
                        n -= 1;
                    } else {
                        break;
                    }
                }
                out.push(0x8a);
                out.push(n as u8);
                out.extend_from_slice(&bytes[..n]);
            }
        }
        PyValue::Float(f) => {
            out.push(b'G');
            out.extend_from_slice(&f.to_be_bytes());
        }
        PyValue::Str(s) => {
            out.push(b'X');
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        PyValue::Bytes(b) => {
            out.push(b'T');
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        PyValue::List(items) => {
            out.push(b']');
            for chunk in items.chunks(1000) {
                out.push(b'(');
                for it in chunk {
                    write(it, out);
                }
                out.push(b'e');
            }
        }
        PyValue::Tuple(items) => {
            out.push(b'(');
            for it in items {
                write(it, out);
            }
            out.push(b't');
        }
        PyValue::Dict(items) => {
            out.push(b'}');
            for chunk in items.chunks(1000) {
                out.push(b'(');
                for (k, v) in chunk {
                    write(k, out);
                    write(v, out);
                }
                out.push(b'u');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let v = PyValue::Dict(vec![
            (PyValue::Str("a".into()), PyValue::Int(140410330546176)),
            (PyValue::Str("b".into()), PyValue::Int(-5)),
            (
                PyValue::Str("c".into()),
                PyValue::List(vec![
                    PyValue::None,
                    PyValue::Float(1.5),
                    PyValue::Bool(true),
                ]),
            ),
            (PyValue::Str("d".into()), PyValue::Int(-(1i128 << 70))),
        ]);
        assert_eq!(from_slice(&to_vec(&v)).unwrap(), v);
    }

    #[test]
    fn truncated_is_error() {
        let v = PyValue::List(vec![PyValue::Str("hello".into())]);
        let b = to_vec(&v);
        assert!(from_slice(&b[..b.len() - 3]).is_err());
        assert!(from_slice(&[0x80, 4, 0xff]).is_err());
    }
}
