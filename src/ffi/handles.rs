//! Validated handles for the C ABI: a plan or allocator given to C is an opaque number
//! registered here, never the address of the Rust object, so that a handle freed twice,
//! used after destroy, of the wrong kind, or made up by the caller is found in no registry
//! and refused with a message instead of being dereferenced. Numbers come from one
//! process-wide counter and are never reused, so a stale handle cannot reach an object
//! made later. Strings returned to C are real addresses (C reads them); they are
//! registered until `stridekit_string_free`.
//!
//! A call holds an `Arc` of the object while it runs: a concurrent free removes the
//! handle at once (later calls are refused) and the object is dropped when the last
//! running call returns.

use std::collections::{HashMap, HashSet};
use std::ffi::{CString, c_char};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};

use parking_lot::{Mutex, RwLock};

use super::error::{FfiError, FfiResult};

/// The counter every handle number is drawn from (shared by all kinds).
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The high bits of every handle: a value no real host pointer has on the platforms
/// stridekit runs on (a non-canonical x86-64 / aarch64 address), so a handle that C
/// dereferences by mistake faults at once instead of reading something.
const TAG: u64 = 0x5d1e_0000_0000_0000;

/// The objects of one kind given to C, by handle number.
pub struct Registry<T> {
    kind: &'static str,
    live: LazyLock<RwLock<HashMap<u64, Arc<T>>>>,
}

impl<T> Registry<T> {
    /// An empty registry; `kind` names the handles in messages ("plan", "allocator").
    pub const fn new(kind: &'static str) -> Registry<T> {
        Registry {
            kind,
            live: LazyLock::new(|| RwLock::new(HashMap::new())),
        }
    }

    /// Registers `v` and returns its handle (never 0, never reused).
    pub fn insert(&self, v: T) -> u64 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let h = TAG | ((n & 0x0000_0fff_ffff_ffff) << 4);
        self.live.write().insert(h, Arc::new(v));
        h
    }

    fn unknown(&self, h: u64) -> FfiError {
        FfiError::invalid(format!(
            "{} handle {h:#x} is not a live {} (freed already, destroyed, or not made by \
             stridekit)",
            self.kind, self.kind
        ))
    }

    /// The object of handle `h`, kept alive for the caller.
    pub fn get(&self, h: u64) -> FfiResult<Arc<T>> {
        if h == 0 {
            return Err(FfiError::invalid(format!("{} is NULL", self.kind)));
        }
        self.live
            .read()
            .get(&h)
            .cloned()
            .ok_or_else(|| self.unknown(h))
    }

    /// Unregisters handle `h`: later calls with it are refused. The object is dropped
    /// once no running call holds it.
    pub fn remove(&self, h: u64) -> FfiResult<Arc<T>> {
        self.live.write().remove(&h).ok_or_else(|| self.unknown(h))
    }

    /// How many handles of this kind are live.
    pub fn len(&self) -> usize {
        self.live.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The strings handed to C and not freed yet, by address.
static STRINGS: LazyLock<Mutex<HashSet<usize>>> = LazyLock::new(Default::default);

/// `s` as a C string owned by the caller until `stridekit_string_free`; an interior NUL
/// cuts it there (JSON and messages have none).
pub fn give_string(s: String) -> *mut c_char {
    let text = s.split('\0').next().unwrap_or_default();
    let p = CString::new(text).unwrap_or_default().into_raw();
    STRINGS.lock().insert(p as usize);
    p
}

/// Frees a string from [`give_string`]; anything else (freed already, or never given)
/// is refused and left alone.
pub(crate) fn free_string(p: *mut c_char) -> FfiResult<()> {
    if !STRINGS.lock().remove(&(p as usize)) {
        return Err(FfiError::invalid(format!(
            "string {p:?} was not returned by stridekit, or was freed already"
        )));
    }
    // SAFETY: registered by give_string (made by CString::into_raw) and unregistered just
    // now, so freed once.
    drop(unsafe { CString::from_raw(p) });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_checked_and_never_reused() {
        let r: Registry<String> = Registry::new("plan");
        let a = r.insert("a".into());
        let b = r.insert("b".into());
        assert_ne!(a, b);
        assert_eq!(*r.get(a).unwrap(), "a");
        let held = r.get(b).unwrap();
        r.remove(b).unwrap();
        assert_eq!(*held, "b", "a running call keeps its object");
        let e = r.remove(b).unwrap_err();
        assert!(e.message.contains("is not a live plan"), "{e}");
        assert!(r.get(b).is_err());
        assert!(r.get(0).unwrap_err().message.contains("plan is NULL"));
        assert!(r.get(a + 16).is_err());
        let c = r.insert("c".into());
        assert!(c != a && c != b);
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn strings_free_once() {
        let p = give_string("{}".into());
        free_string(p).unwrap();
        assert!(free_string(p).is_err());
        let mut own = *b"x\0";
        assert!(free_string(own.as_mut_ptr() as *mut c_char).is_err());
    }
}
