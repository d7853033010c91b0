//! [`SortedMap`]: an ordered map kept as one sorted vector, the allocator's free lists,
//! unmapped ranges and mapped chunks. It allocates only when it grows past the most
//! entries it has held: removing never frees, so a replay in steady state (the same
//! number of free blocks coming and going) allocates nothing, where a `BTreeMap`
//! allocates and frees a node whenever one splits or merges. Lookups are binary searches
//! and ordered walks are slice walks over contiguous memory (the policies' scans of the
//! free lists); an insert or a removal moves the entries after it, which for the free
//! lists' sizes (tens to a few thousand entries) costs less than a tree's pointer chasing.

/// An ordered map from `K` to `V` in one sorted vector of (key, value) pairs.
#[derive(Debug, Clone)]
pub struct SortedMap<K, V> {
    items: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { items: Vec::new() }
    }
}

impl<K: Ord + Copy, V: Copy> SortedMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        SortedMap::default()
    }

    /// The number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    #[inline]
    fn search(&self, k: &K) -> Result<usize, usize> {
        self.items.binary_search_by(|(x, _)| x.cmp(k))
    }

    /// The index of the first entry whose key is at least `k`.
    #[inline]
    fn lower_bound(&self, k: &K) -> usize {
        self.items.partition_point(|(x, _)| x < k)
    }

    /// Insert `v` at `k`; returns the value it replaces.
    #[inline]
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.search(&k) {
            Ok(i) => Some(std::mem::replace(&mut self.items[i].1, v)),
            Err(i) => {
                self.items.insert(i, (k, v));
                None
            }
        }
    }

    /// Remove the entry at `k`; returns its value.
    #[inline]
    pub fn remove(&mut self, k: &K) -> Option<V> {
        match self.search(k) {
            Ok(i) => Some(self.items.remove(i).1),
            Err(_) => None,
        }
    }

    /// The value at `k`.
    #[inline]
    pub fn get(&self, k: &K) -> Option<V> {
        self.search(k).ok().map(|i| self.items[i].1)
    }

    /// Every entry, in key order.
    #[inline]
    pub fn entries(&self) -> &[(K, V)] {
        &self.items
    }

    /// The entries whose key is at least `k`, in key order.
    #[inline]
    pub fn from(&self, k: &K) -> &[(K, V)] {
        &self.items[self.lower_bound(k)..]
    }

    /// The entries whose key is below `k`, in key order.
    #[inline]
    pub fn below(&self, k: &K) -> &[(K, V)] {
        &self.items[..self.lower_bound(k)]
    }

    /// The entries whose key is in `[lo, hi)`, in key order (empty when `hi <= lo`).
    #[inline]
    pub fn range(&self, lo: &K, hi: &K) -> &[(K, V)] {
        let a = self.lower_bound(lo);
        let b = self.lower_bound(hi).max(a);
        &self.items[a..b]
    }

    /// The last entry whose key is at most `k`.
    #[inline]
    pub fn last_at_or_below(&self, k: &K) -> Option<(K, V)> {
        let n = self.items.partition_point(|(x, _)| x <= k);
        n.checked_sub(1).map(|i| self.items[i])
    }

    /// The values, in key order.
    #[inline]
    pub fn values(&self) -> impl DoubleEndedIterator<Item = V> + '_ {
        self.items.iter().map(|&(_, v)| v)
    }

    /// Remove every entry (keeping the storage).
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// Give every entry the key `f` computes from its value and sort again (the keys
    /// must stay distinct); allocates nothing.
    pub fn rekey(&mut self, mut f: impl FnMut(V) -> K) {
        for e in self.items.iter_mut() {
            e.0 = f(e.1);
        }
        self.items.sort_unstable_by_key(|e| e.0);
        debug_assert!(self.items.windows(2).all(|w| w[0].0 < w[1].0));
    }
}

#[cfg(test)]
mod tests {
    use super::SortedMap;
    use std::collections::BTreeMap;

    /// A deterministic stream of operations, as BTreeMap answers them.
    #[test]
    fn agrees_with_a_btreemap_on_every_operation() {
        let mut m: SortedMap<u32, u32> = SortedMap::new();
        let mut b: BTreeMap<u32, u32> = BTreeMap::new();
        let mut x = 0x1234_5678u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for step in 0..20_000u32 {
            let r = next();
            let k = (r % 512) as u32;
            match (r >> 32) % 4 {
                0 | 1 => assert_eq!(m.insert(k, step), b.insert(k, step)),
                2 => assert_eq!(m.remove(&k), b.remove(&k)),
                _ => {
                    let hi = k + (r >> 40) as u32 % 64;
                    let want: Vec<(u32, u32)> = b.range(k..hi).map(|(&a, &v)| (a, v)).collect();
                    assert_eq!(m.range(&k, &hi), &want[..]);
                    let want: Vec<(u32, u32)> = b.range(k..).map(|(&a, &v)| (a, v)).collect();
                    assert_eq!(m.from(&k), &want[..]);
                    let want: Vec<(u32, u32)> = b.range(..k).map(|(&a, &v)| (a, v)).collect();
                    assert_eq!(m.below(&k), &want[..]);
                    let want = b.range(..=k).next_back().map(|(&a, &v)| (a, v));
                    assert_eq!(m.last_at_or_below(&k), want);
                    assert_eq!(m.get(&k), b.get(&k).copied());
                }
            }
            assert_eq!(m.len(), b.len());
        }
        assert!(m.values().eq(b.values().copied()));
        assert_eq!(m.range(&10, &5), &[]);
    }

    /// Re-keying sorts by the new keys; clearing keeps nothing.
    #[test]
    fn rekey_sorts_by_the_new_keys() {
        let mut m: SortedMap<u32, u32> = SortedMap::new();
        for v in 0..10 {
            m.insert(v, v);
        }
        m.rekey(|v| 100 - v);
        assert_eq!(
            m.values().collect::<Vec<_>>(),
            (0..10).rev().collect::<Vec<_>>()
        );
        assert_eq!(m.entries()[0], (91, 9));
        m.clear();
        assert!(m.is_empty());
    }
}
