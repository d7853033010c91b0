//! [`FreeList`]: a pool's free blocks ordered by their packed (stream rank, size, address)
//! key ([`super::block::fkey`]), as PyTorch's `std::set<Block*, BlockComparator>`.
//!
//! It is the structure every request and every free touches, so it is laid out for that:
//! the keys in one sorted vector and the block indices in another beside it (a lookup's
//! binary search reads only keys, and an insert or a removal moves 20 bytes an entry,
//! not the 32 of a `(u128, u32)` pair), allocating only when it grows past the most
//! entries it has held. A block that changes size stays in the list: [`FreeList::move_at`]
//! gives the entry its new key and moves only the entries between its old place and its
//! new one (a split's remainder, a merge's survivor), where a removal and an insert
//! would each move the whole tail.

/// The free blocks of one pool: packed keys and block indices, in key order.
#[derive(Debug, Clone, Default)]
pub struct FreeList {
    keys: Vec<u128>,
    vals: Vec<u32>,
    /// Reused by [`FreeList::rekey`] to sort keys and values together.
    sort_buf: Vec<(u128, u32)>,
}

impl FreeList {
    /// An empty list.
    pub fn new() -> Self {
        FreeList::default()
    }

    /// The number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The index of the first entry whose key is at least `k`.
    #[inline]
    pub fn lower_bound(&self, k: u128) -> usize {
        self.keys.partition_point(|&x| x < k)
    }

    /// The entry at position `pos` (in key order).
    #[inline]
    pub fn at(&self, pos: usize) -> Option<(u128, u32)> {
        Some((*self.keys.get(pos)?, self.vals[pos]))
    }

    #[inline]
    fn position(&self, k: u128) -> Option<usize> {
        self.keys.binary_search(&k).ok()
    }

    /// Insert `v` at `k`; returns the value it replaces.
    #[inline]
    pub fn insert(&mut self, k: u128, v: u32) -> Option<u32> {
        match self.keys.binary_search(&k) {
            Ok(i) => Some(std::mem::replace(&mut self.vals[i], v)),
            Err(i) => {
                self.keys.insert(i, k);
                self.vals.insert(i, v);
                None
            }
        }
    }

    /// Remove the entry at `k`; returns its value.
    #[inline]
    pub fn remove(&mut self, k: u128) -> Option<u32> {
        let i = self.position(k)?;
        Some(self.remove_at(i).1)
    }

    /// Remove the entry at position `pos`.
    #[inline]
    pub fn remove_at(&mut self, pos: usize) -> (u128, u32) {
        (self.keys.remove(pos), self.vals.remove(pos))
    }

    /// Give the entry at position `pos` the key `k` and value `v`, moving it to where `k`
    /// sorts (`k` must not be the key of another entry).
    #[inline]
    pub fn move_at(&mut self, pos: usize, k: u128, v: u32) {
        let old = self.keys[pos];
        let dest = if k < old {
            let j = self.keys[..pos].partition_point(|&x| x < k);
            self.keys.copy_within(j..pos, j + 1);
            self.vals.copy_within(j..pos, j + 1);
            j
        } else {
            let j = pos + 1 + self.keys[pos + 1..].partition_point(|&x| x < k);
            self.keys.copy_within(pos + 1..j, pos);
            self.vals.copy_within(pos + 1..j, pos);
            j - 1
        };
        self.keys[dest] = k;
        self.vals[dest] = v;
        debug_assert!(dest == 0 || self.keys[dest - 1] < k);
        debug_assert!(dest + 1 == self.keys.len() || k < self.keys[dest + 1]);
    }

    /// Replace the entry at key `old` by (`k`, `v`), or insert it when there is none.
    #[inline]
    pub fn replace(&mut self, old: u128, k: u128, v: u32) {
        match self.position(old) {
            Some(pos) => self.move_at(pos, k, v),
            None => {
                self.insert(k, v);
            }
        }
    }

    /// The entries whose key is at least `k`, in key order, with their positions.
    #[inline]
    pub fn from(&self, k: u128) -> From<'_> {
        From {
            list: self,
            pos: self.lower_bound(k),
        }
    }

    /// The entries whose key is below `k`, in key order.
    #[inline]
    pub fn below(&self, k: u128) -> impl DoubleEndedIterator<Item = (u128, u32)> + '_ {
        let b = self.lower_bound(k);
        self.keys[..b]
            .iter()
            .copied()
            .zip(self.vals[..b].iter().copied())
    }

    /// The values, in key order.
    #[inline]
    pub fn values(&self) -> impl DoubleEndedIterator<Item = u32> + '_ {
        self.vals.iter().copied()
    }

    /// Remove every entry (keeping the storage).
    pub fn clear(&mut self) {
        self.keys.clear();
        self.vals.clear();
    }

    /// Give every entry the key `f` computes from its value and sort again (the keys
    /// must stay distinct); allocates only the first time the list is this long.
    pub fn rekey(&mut self, mut f: impl FnMut(u32) -> u128) {
        self.sort_buf.clear();
        self.sort_buf.extend(self.vals.iter().map(|&v| (f(v), v)));
        self.sort_buf.sort_unstable_by_key(|e| e.0);
        debug_assert!(self.sort_buf.windows(2).all(|w| w[0].0 < w[1].0));
        for (n, &(k, v)) in self.sort_buf.iter().enumerate() {
            self.keys[n] = k;
            self.vals[n] = v;
        }
    }
}

/// The walk of [`FreeList::from`]: (position, key, block index) in key order (a plain
/// index walk, which stays cheap in the tests' lightly optimised builds).
pub struct From<'a> {
    list: &'a FreeList,
    pos: usize,
}

impl Iterator for From<'_> {
    type Item = (usize, u128, u32);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let p = self.pos;
        let k = *self.list.keys.get(p)?;
        self.pos = p + 1;
        Some((p, k, self.list.vals[p]))
    }
}

#[cfg(test)]
mod tests {
    use super::FreeList;
    use std::collections::BTreeMap;

    fn entries(m: &FreeList) -> Vec<(u128, u32)> {
        m.from(0).map(|(_, k, v)| (k, v)).collect()
    }

    /// A deterministic stream of operations, as BTreeMap answers them.
    #[test]
    fn agrees_with_a_btreemap_on_every_operation() {
        let mut m = FreeList::new();
        let mut b: BTreeMap<u128, u32> = BTreeMap::new();
        let mut x = 0x1234_5678u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for step in 0..30_000u32 {
            let r = next();
            let k = (r % 512) as u128;
            match (r >> 32) % 6 {
                0 | 1 => assert_eq!(m.insert(k, step), b.insert(k, step)),
                2 => assert_eq!(m.remove(k), b.remove(&k)),
                3 => {
                    // Move an existing entry to a key no other entry has.
                    let nk = ((r >> 40) % 512) as u128;
                    if b.contains_key(&k) && (nk == k || !b.contains_key(&nk)) {
                        b.remove(&k);
                        b.insert(nk, step);
                        m.replace(k, nk, step);
                    } else if !b.contains_key(&k) && !b.contains_key(&nk) {
                        b.insert(nk, step);
                        m.replace(k, nk, step);
                    }
                }
                4 => {
                    if !b.is_empty() {
                        let pos = (r >> 40) as usize % b.len();
                        let want = b.iter().nth(pos).map(|(&k, &v)| (k, v));
                        assert_eq!(m.at(pos), want);
                        let (k, _) = want.unwrap();
                        assert_eq!(m.remove_at(pos), (k, b.remove(&k).unwrap()));
                    }
                }
                _ => {
                    let want: Vec<(u128, u32)> = b.range(k..).map(|(&a, &v)| (a, v)).collect();
                    let got: Vec<(u128, u32)> = m.from(k).map(|(_, a, v)| (a, v)).collect();
                    assert_eq!(got, want);
                    if let Some((p, _, _)) = m.from(k).next() {
                        assert_eq!(p, m.lower_bound(k));
                    }
                    let want: Vec<(u128, u32)> = b.range(..k).map(|(&a, &v)| (a, v)).collect();
                    assert_eq!(m.below(k).collect::<Vec<_>>(), want);
                }
            }
            assert_eq!(m.len(), b.len());
        }
        assert!(m.values().eq(b.values().copied()));
        assert_eq!(m.at(m.len()), None);
    }

    /// An entry moved to a smaller or larger key lands where that key sorts, and the
    /// entries between shift by one.
    #[test]
    fn move_at_shifts_only_the_entries_between() {
        let mut m = FreeList::new();
        for k in [10u128, 20, 30, 40, 50] {
            m.insert(k, k as u32);
        }
        m.move_at(3, 15, 99);
        assert_eq!(
            entries(&m),
            [(10, 10), (15, 99), (20, 20), (30, 30), (50, 50)]
        );
        m.move_at(0, 45, 7);
        assert_eq!(
            entries(&m),
            [(15, 99), (20, 20), (30, 30), (45, 7), (50, 50)]
        );
        m.move_at(4, 60, 8);
        assert_eq!(
            entries(&m),
            [(15, 99), (20, 20), (30, 30), (45, 7), (60, 8)]
        );
        m.move_at(2, 30, 9);
        assert_eq!(m.at(2), Some((30, 9)));
        m.replace(1000, 1, 1);
        assert_eq!(m.at(0), Some((1, 1)));
    }

    /// Re-keying sorts by the new keys; clearing keeps nothing.
    #[test]
    fn rekey_sorts_by_the_new_keys() {
        let mut m = FreeList::new();
        for v in 0..10u32 {
            m.insert(v as u128, v);
        }
        m.rekey(|v| 100 - v as u128);
        assert_eq!(
            m.values().collect::<Vec<_>>(),
            (0..10).rev().collect::<Vec<_>>()
        );
        assert_eq!(m.at(0), Some((91, 9)));
        m.clear();
        assert!(m.is_empty());
    }
}
