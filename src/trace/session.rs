//! One traced run: the storages the program creates and frees (replayed into PyTorch's
//! caching allocator as cuda:0 would see them, with `sim`), the accounting after every
//! step, the warnings, and the report, which is `explain`'s ([`crate::explain::Report`]):
//! the same types, the same accounting, the same text.

use std::collections::{HashMap, HashSet};

use super::meta::{TensorMeta, TraceError};
use crate::accounting::{Accounting, account};
use crate::alloc::{AllocConfig, BlockHandle, CachingAllocator, SimulatedDevice};
use crate::explain::allocator::Account;
use crate::explain::eval::Warning;
use crate::explain::steps::{Step, Steps};
use crate::simulated_cuda::SIM_CAPACITY;

/// When the tracer warns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// `retained_storage`: a live storage of at least this many bytes ...
    pub retained_min_bytes: u64,
    /// ... of which at least this fraction is addressed by no live tensor.
    pub retained_fraction: f64,
    /// `saves_whole_storage`: `torch.save` writes at least this many bytes that the saved
    /// tensor does not address.
    pub save_min_extra_bytes: u64,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            retained_min_bytes: 1 << 20,
            retained_fraction: 0.5,
            save_min_extra_bytes: 1,
        }
    }
}

impl Thresholds {
    pub fn check(&self) -> Result<(), TraceError> {
        if !(self.retained_fraction > 0.0 && self.retained_fraction <= 1.0) {
            return Err(TraceError::BadThreshold {
                name: "retained_fraction",
                message: format!("{} is not in (0, 1]", self.retained_fraction),
            });
        }
        Ok(())
    }
}

/// One allocator request, in the order the program made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Alloc { slot: u32, bytes: u64 },
    Free { slot: u32 },
}

/// A live storage: its request slot, size and (with `sim`) block.
#[derive(Debug)]
struct Live {
    slot: u32,
    nbytes: u64,
    block: Option<BlockHandle>,
}

/// A traced run in progress.
pub struct Session {
    allocator: Option<CachingAllocator<SimulatedDevice>>,
    live: HashMap<u64, Live>,
    requests: Vec<Request>,
    slots: u32,
    /// The measured steps and the peak, kept by explain's own step log.
    pub(super) log: Steps,
    pub(super) warnings: Vec<Warning>,
    warned_retained: HashSet<u64>,
    pub(super) thresholds: Thresholds,
    /// An allocation the simulated device refused (out of memory): the run goes on, the
    /// figures stop being a prediction and the report says so.
    pub(super) alloc_failure: Option<String>,
}

impl Session {
    /// A run on the CPU (no allocator) or, with `sim`, on a simulated cuda:0 whose caching
    /// allocator runs under `alloc_conf` (PYTORCH_CUDA_ALLOC_CONF syntax; None: stridekit's
    /// STRIDEKIT_ALLOC_CONF, else PYTORCH_CUDA_ALLOC_CONF, as `explain --device sim`).
    pub fn new(
        sim: bool,
        alloc_conf: Option<&str>,
        thresholds: Thresholds,
    ) -> Result<Session, TraceError> {
        thresholds.check()?;
        let allocator = if sim {
            let cfg = match alloc_conf {
                Some(s) => AllocConfig::parse(s)?,
                None => AllocConfig::from_env()?,
            };
            Some(CachingAllocator::new(
                SimulatedDevice::new(SIM_CAPACITY),
                cfg,
            )?)
        } else {
            None
        };
        Ok(Session {
            allocator,
            live: HashMap::new(),
            requests: Vec::new(),
            slots: 0,
            log: Steps::default(),
            warnings: Vec::new(),
            warned_retained: HashSet::new(),
            thresholds,
            alloc_failure: None,
        })
    }

    /// Whether the session replays into a simulated allocator.
    pub fn simulated(&self) -> bool {
        self.allocator.is_some()
    }

    /// A storage of `nbytes` came to life (`key`: the caller's identity for it).
    pub fn storage_created(&mut self, key: u64, nbytes: u64) -> Result<(), TraceError> {
        if self.live.contains_key(&key) {
            return Err(TraceError::StorageTwice(key));
        }
        let slot = self.slots;
        self.slots = self.slots.saturating_add(1);
        self.requests.push(Request::Alloc {
            slot,
            bytes: nbytes,
        });
        let mut block = None;
        if let Some(a) = &self.allocator
            && nbytes > 0
        {
            match a.malloc(nbytes, 0) {
                Ok(h) => block = Some(h),
                Err(e) => {
                    self.alloc_failure
                        .get_or_insert_with(|| format!("{nbytes} bytes: {e}"));
                }
            }
        }
        self.live.insert(
            key,
            Live {
                slot,
                nbytes,
                block,
            },
        );
        Ok(())
    }

    /// The storage `key` was freed; an unknown key (a storage made before the trace
    /// began) is ignored, as a CUDA allocator never handed it out in this run.
    pub fn storage_freed(&mut self, key: u64) -> Result<(), TraceError> {
        let Some(l) = self.live.remove(&key) else {
            return Ok(());
        };
        self.requests.push(Request::Free { slot: l.slot });
        if let (Some(a), Some(h)) = (&self.allocator, l.block) {
            a.free(h)?;
        }
        Ok(())
    }

    /// Bytes of the storages alive now (the sum of their sizes).
    pub fn live_storage_bytes(&self) -> u64 {
        self.live.values().map(|l| l.nbytes).sum()
    }

    /// The allocator's figures now (None on the CPU).
    pub fn allocator_account(&self) -> Option<Account> {
        self.allocator.as_ref().map(|a| Account::of(&a.stats()))
    }

    /// The requests so far as stridekit's anchors CSV (`a,ID,BYTES` / `f,ID,0`), which
    /// `stridekit alloc replay` and `alloc tune` read.
    pub fn trace_csv(&self, header: &[String]) -> String {
        let mut s = String::new();
        for h in header {
            for line in h.lines() {
                s.push_str("# ");
                s.push_str(line);
                s.push('\n');
            }
        }
        for r in &self.requests {
            match r {
                Request::Alloc { slot, bytes } => s.push_str(&format!("a,{slot},{bytes}\n")),
                Request::Free { slot } => s.push_str(&format!("f,{slot},0\n")),
            }
        }
        s
    }

    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    /// Measures the named tensors after the step on `line` of top-level statement
    /// `statement`, as `explain` measures its namespace, and warns about retained storages.
    pub fn step(&mut self, statement: usize, line: usize, tensors: &[TensorMeta]) {
        let acc = account(tensors.iter().map(|t| (t.name.as_str(), t)));
        self.warn_retained(statement, line, tensors, &acc);
        let step = Step {
            statement,
            line,
            totals: acc.totals,
            live_tensors: tensors.len(),
            live_storages: acc.storages.len(),
            allocator: self.allocator_account(),
            autograd: None,
        };
        self.log.push(step, acc.storages);
    }

    /// `retained_storage`, once per storage: at least `retained_min_bytes` of which at
    /// least `retained_fraction` no named tensor addresses.
    fn warn_retained(
        &mut self,
        statement: usize,
        line: usize,
        tensors: &[TensorMeta],
        acc: &Accounting,
    ) {
        let th = self.thresholds;
        // Storage keys in order of first appearance: the accounting's ids.
        let mut keys = Vec::with_capacity(acc.storages.len());
        let mut seen = HashSet::new();
        for t in tensors {
            if seen.insert(t.storage) {
                keys.push(t.storage);
            }
        }
        for (st, &key) in acc.storages.iter().zip(&keys) {
            let retained = st.retained_unaddressed_bytes;
            if st.nbytes < th.retained_min_bytes
                || (retained as f64) < th.retained_fraction * st.nbytes as f64
                || self.warned_retained.contains(&key)
            {
                continue;
            }
            self.warned_retained.insert(key);
            let names = st.tensors.join(", ");
            let first = &st.tensors[0];
            self.warnings.push(Warning {
                statement,
                line,
                kind: "retained_storage",
                message: format!(
                    "a storage of {} bytes is kept alive by {names}, which address only {} of its bytes: {retained} bytes are retained that no live tensor addresses; to keep only what is addressed, copy it (`{first} = {first}.clone()`) so that the storage can be freed",
                    st.nbytes, st.addressed_bytes
                ),
            });
        }
    }

    /// `saves_whole_storage` for `torch.save` of `t` (at `line`), when the storage it
    /// writes is larger than what `t` addresses by at least `save_min_extra_bytes`.
    pub fn saved_to_file(&mut self, statement: usize, line: usize, t: &TensorMeta) {
        let addressed = crate::accounting::addressed_bytes(&[t]);
        let extra = t.storage_nbytes.saturating_sub(addressed);
        if extra == 0 || extra < self.thresholds.save_min_extra_bytes {
            return;
        }
        self.warnings.push(Warning {
            statement,
            line,
            kind: "saves_whole_storage",
            message: format!(
                "torch.save of '{}' writes its whole storage, {} bytes, of which it addresses {addressed} bytes; save `{}.clone()` to write only those",
                t.name, t.storage_nbytes, t.name
            ),
        });
    }

    /// A warning the caller found (a thread the tracer cannot see, say).
    pub fn warn(&mut self, statement: usize, line: usize, kind: &'static str, message: String) {
        self.warnings.push(Warning {
            statement,
            line,
            kind,
            message,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(
        name: &str,
        key: u64,
        nbytes: u64,
        sizes: &[i64],
        strides: &[i64],
        off: i64,
    ) -> TensorMeta {
        TensorMeta::new(name, key, nbytes, sizes, strides, off, 4).unwrap()
    }

    #[test]
    fn sim_replays_storages_into_the_caching_allocator() {
        let mut s =
            Session::new(true, Some("max_split_size_mb:64"), Thresholds::default()).unwrap();
        s.storage_created(1, 4000).unwrap();
        let a = s.allocator_account().unwrap();
        assert_eq!((a.allocated, a.reserved), (4096, 2 << 20));
        s.storage_created(2, 3 << 20).unwrap();
        s.storage_freed(1).unwrap();
        let a = s.allocator_account().unwrap();
        assert_eq!(a.allocated, 3 << 20);
        assert_eq!(a.reserved, (2 << 20) + (20 << 20));
        assert!(s.storage_created(2, 1).is_err());
        s.storage_freed(99).unwrap();
        assert_eq!(
            s.trace_csv(&["t".into()]),
            "# t\na,0,4000\na,1,3145728\nf,0,0\n"
        );
        assert!(Session::new(true, Some("nonsense:1"), Thresholds::default()).is_err());
        assert!(
            Session::new(
                false,
                None,
                Thresholds {
                    retained_fraction: 0.0,
                    ..Default::default()
                }
            )
            .is_err()
        );
    }

    #[test]
    fn steps_peak_and_retained_warning() {
        let mut s = Session::new(false, None, Thresholds::default()).unwrap();
        let big = meta("x", 1, 4 << 20, &[1 << 20], &[1], 0);
        let slice = meta("y", 1, 4 << 20, &[10], &[1], 0);
        s.step(0, 1, std::slice::from_ref(&big));
        s.step(1, 2, &[big.clone(), slice.clone()]);
        assert!(s.warnings.is_empty());
        s.step(2, 3, std::slice::from_ref(&slice));
        s.step(3, 4, std::slice::from_ref(&slice));
        assert_eq!(s.warnings.len(), 1, "once per storage");
        let w = &s.warnings[0];
        assert_eq!((w.kind, w.line), ("retained_storage", 3));
        assert!(w.message.contains("kept alive by y"), "{}", w.message);
        assert!(w.message.contains("y = y.clone()"), "{}", w.message);
        assert!(
            w.message.contains("4194264 bytes are retained"),
            "{}",
            w.message
        );
        assert_eq!(s.log.peak.as_ref().unwrap().line, 1);
        assert_eq!(s.log.steps.len(), 4);
        s.saved_to_file(4, 5, &slice);
        assert_eq!(s.warnings[1].kind, "saves_whole_storage");
        assert!(
            s.warnings[1]
                .message
                .contains("4194304 bytes, of which it addresses 40 bytes")
        );
        s.saved_to_file(4, 5, &big);
        assert_eq!(s.warnings.len(), 2, "a tensor addressing its whole storage");
    }
}
