//! Storage accounting for a set of live tensors: which storages exist, what each tensor
//! addresses, what is shared, and what a small view keeps alive.
//!
//! Three totals answer different questions: logical bytes (the sum of numel x itemsize, which
//! counts shared storage once per tensor), unique storage bytes (each distinct storage once)
//! and addressed bytes (the part of those storages some live tensor can still reach).

use crate::layout::Layout;
use crate::layout::overlap::{element_runs, merge_runs};
use crate::tensor::Tensor;
use serde::Serialize;

/// What the accounting needs to know of a tensor: which storage it is on (an identity and
/// the storage's size) and which of its bytes it addresses. stridekit's own tensors are
/// accounted through it, and so are the metadata of tensors another library made (the live
/// tracer's PyTorch tensors), so that both get the same totals from the same code.
pub trait Accountable {
    /// Identity of the storage: equal for tensors on the same storage, distinct otherwise.
    fn storage_key(&self) -> u64;
    fn storage_nbytes(&self) -> u64;
    fn layout(&self) -> &Layout;
    fn itemsize(&self) -> usize;
    /// numel x itemsize.
    fn logical_bytes(&self) -> u64 {
        (self.layout().numel() as u64).saturating_mul(self.itemsize() as u64)
    }
}

impl Accountable for Tensor {
    fn storage_key(&self) -> u64 {
        self.storage().id()
    }
    fn storage_nbytes(&self) -> u64 {
        self.storage().nbytes() as u64
    }
    fn layout(&self) -> &Layout {
        Tensor::layout(self)
    }
    fn itemsize(&self) -> usize {
        Tensor::itemsize(self)
    }
    fn logical_bytes(&self) -> u64 {
        Tensor::logical_bytes(self)
    }
}

/// One distinct storage among the live tensors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StorageUse {
    /// Report-local id: storages are numbered 0, 1, ... in order of first appearance.
    pub id: usize,
    pub nbytes: u64,
    /// Names of the live tensors on this storage, in the order given.
    pub tensors: Vec<String>,
    /// Bytes some live tensor addresses (each byte once).
    pub addressed_bytes: u64,
    /// Bytes kept alive by the storage that no live tensor addresses.
    pub retained_unaddressed_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Totals {
    pub logical_bytes: u64,
    pub unique_storage_bytes: u64,
    pub addressed_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Accounting {
    pub storages: Vec<StorageUse>,
    pub totals: Totals,
}

impl Accounting {
    /// The report id of the storage a named tensor lives on.
    pub fn storage_of(&self, name: &str) -> Option<usize> {
        self.storages
            .iter()
            .find(|s| s.tensors.iter().any(|t| t == name))
            .map(|s| s.id)
    }
}

/// Accounts for `tensors` (name, tensor), in order.
pub fn account<'a, T: Accountable + 'a>(
    tensors: impl IntoIterator<Item = (&'a str, &'a T)>,
) -> Accounting {
    struct Group<'a, T> {
        nbytes: u64,
        names: Vec<String>,
        members: Vec<&'a T>,
    }
    let mut groups: Vec<Group<'a, T>> = Vec::new();
    // Storage key -> index into `groups`: linear in the number of tensors.
    let mut index: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    let mut logical = 0u64;
    for (name, t) in tensors {
        logical = logical.saturating_add(t.logical_bytes());
        let sid = t.storage_key();
        let g = match index.get(&sid) {
            Some(&i) => &mut groups[i],
            None => {
                index.insert(sid, groups.len());
                groups.push(Group {
                    nbytes: t.storage_nbytes(),
                    names: Vec::new(),
                    members: Vec::new(),
                });
                groups.last_mut().unwrap()
            }
        };
        g.names.push(name.to_string());
        g.members.push(t);
    }
    let storages: Vec<StorageUse> = groups
        .into_iter()
        .enumerate()
        .map(|(id, g)| {
            let addressed = addressed_bytes(&g.members);
            StorageUse {
                id,
                nbytes: g.nbytes,
                tensors: g.names,
                addressed_bytes: addressed,
                retained_unaddressed_bytes: g.nbytes.saturating_sub(addressed),
            }
        })
        .collect();
    let totals = Totals {
        logical_bytes: logical,
        unique_storage_bytes: storages.iter().map(|s| s.nbytes).sum(),
        addressed_bytes: storages.iter().map(|s| s.addressed_bytes).sum(),
    };
    Accounting { storages, totals }
}

/// Size of the union of the byte ranges every element of `tensors` occupies.
pub fn addressed_bytes<T: Accountable>(tensors: &[&T]) -> u64 {
    let mut runs: Vec<(i64, i64)> = tensors
        .iter()
        .flat_map(|t| {
            let sz = t.itemsize() as i64;
            element_runs(t.layout())
                .into_iter()
                .map(move |(s, e)| (s * sz, e * sz))
        })
        .collect();
    runs.sort_unstable();
    merge_runs(runs).iter().map(|(s, e)| (e - s) as u64).sum()
}

/// What materialising `t` as a new contiguous tensor would add: numel x itemsize bytes.
pub fn copy_adds_bytes(t: &Tensor) -> u64 {
    t.logical_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, MemoryFormat, Scalar};

    fn base() -> Tensor {
        Tensor::arange(
            Scalar::Int(0),
            Scalar::Int(12),
            Scalar::Int(1),
            Some(DType::F32),
        )
        .unwrap()
        .view(&[4, 3])
        .unwrap()
    }

    #[test]
    fn tv209_48_96_144() {
        let x = base();
        let t = x.t().unwrap();
        let a = account([("x", &x), ("t", &t)]);
        assert_eq!(a.totals.unique_storage_bytes, 48);
        assert_eq!(a.totals.logical_bytes, 96);
        let c = t.contiguous(MemoryFormat::Contiguous).unwrap();
        assert_eq!(copy_adds_bytes(&t), 48);
        let a = account([("x", &x), ("t", &t), ("c", &c)]);
        assert_eq!(a.totals.unique_storage_bytes, 96);
        assert_eq!(a.totals.logical_bytes, 144);
        assert_eq!(a.storages.len(), 2);
        assert_eq!(a.storages[0].tensors, vec!["x", "t"]);
        assert_eq!(a.storage_of("c"), Some(1));
    }

    #[test]
    fn row_view_retains_the_whole_storage() {
        let r = base().select(0, 1).unwrap();
        assert_eq!(r.storage_offset(), 3);
        assert_eq!(r.storage_offset() as usize * r.itemsize(), 12);
        let a = account([("r", &r)]);
        assert_eq!(a.storages[0].nbytes, 48);
        assert_eq!(a.storages[0].addressed_bytes, 12);
        assert_eq!(a.storages[0].retained_unaddressed_bytes, 36);
        assert_eq!(a.totals.logical_bytes, 12);
    }

    #[test]
    fn expand_and_unfold() {
        let z = Tensor::zeros(&[1, 1000], DType::F32).unwrap();
        let e = z.expand(&[1000, 1000]).unwrap();
        let a = account([("e", &e)]);
        assert_eq!(
            (a.totals.logical_bytes, a.totals.unique_storage_bytes),
            (4_000_000, 4000)
        );
        let x = Tensor::arange(
            Scalar::Int(0),
            Scalar::Int(10),
            Scalar::Int(1),
            Some(DType::F32),
        )
        .unwrap();
        let u = x.unfold(0, 4, 2).unwrap();
        assert_eq!(u.numel(), 16);
        let a = account([("u", &u)]);
        assert_eq!(a.totals.logical_bytes, 64);
        assert_eq!(a.storages[0].addressed_bytes, 40);
    }
}
