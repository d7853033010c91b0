//! [`FreeList`]: a pool's free blocks ordered by their packed (stream rank, size, address)
//! key ([`super::block::fkey`]), as PyTorch's `std::set<Block*, BlockComparator>`.
//!
//! It is the structure every request and every free touches, so it is laid out for that:
//! one sorted vector of 24-byte entries (the key's two words and the block index), so that
//! an insert, a removal or a move shifts the entries after it with one `memmove`, and a
//! search halves only down to a few entries and counts the rest ([`lower_bound_in`]: a
//! free list holds tens of entries, where a mispredicted branch per halving step costs
//! more than the reads). It allocates only when it grows past the most entries it has
//! held. A block that changes size stays in the list:
//! [`FreeList::move_at`] gives the entry its new key and moves only the entries between
//! its old place and its new one (a split's remainder, a merge's survivor), where a
//! removal and an insert would each move the whole tail.

/// One entry: the key's high word (stream rank, size), its low word (address), the
/// block index. Kept at 24 bytes (a `u128` field would align it to 32).
#[derive(Debug, Clone, Copy)]
struct Entry {
    hi: u64,
    lo: u64,
    val: u32,
}

impl Entry {
    #[inline]
    fn new(k: u128, val: u32) -> Entry {
        Entry {
            hi: (k >> 64) as u64,
            lo: k as u64,
            val,
        }
    }
    #[inline]
    fn key(&self) -> u128 {
        (self.hi as u128) << 64 | self.lo as u128
    }
}

/// Windows of at most this many entries are searched by counting.
const COUNT_BELOW: usize = 8;

/// The first index of `e` whose key is at least `k`. Halving, with its branch on each
/// comparison, only narrows the window to [`COUNT_BELOW`] entries; the rest is a count of
/// the window's smaller keys, which has no data-dependent branch. A halving step's branch
/// mispredicts about every other time (LLVM compiles its select on a two-word key to a
/// branch even with `select_unpredictable`), so the last steps cost more than a count;
/// 8 measured faster than 4, 16 or 64 on the LLM-serving trace (session 21).
#[inline]
fn lower_bound_in(e: &[Entry], k: u128) -> usize {
    let mut base = 0usize;
    let mut size = e.len();
    while size > COUNT_BELOW {
        let half = size / 2;
        if e[base + half].key() < k {
            base += half;
        }
        size -= half;
    }
    base + e[base..base + size]
        .iter()
        .map(|x| usize::from(x.key() < k))
        .sum::<usize>()
}

/// The free blocks of one pool: (packed key, block index) entries, in key order.
#[derive(Debug, Clone, Default)]
pub struct FreeList {
    entries: Vec<Entry>,
}

impl FreeList {
    /// An empty list.
    pub fn new() -> Self {
        FreeList::default()
    }

    /// The number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The index of the first entry whose key is at least `k`.
    #[inline]
    pub fn lower_bound(&self, k: u128) -> usize {
        lower_bound_in(&self.entries, k)
    }

    /// The entry at position `pos` (in key order).
    #[inline]
    pub fn at(&self, pos: usize) -> Option<(u128, u32)> {
        self.entries.get(pos).map(|e| (e.key(), e.val))
    }

    /// The position of the entry at `k`, or where it would go.
    #[inline]
    fn search(&self, k: u128) -> Result<usize, usize> {
        let i = self.lower_bound(k);
        match self.entries.get(i) {
            Some(e) if e.key() == k => Ok(i),
            _ => Err(i),
        }
    }

    /// Insert `v` at `k`; returns the value it replaces.
    #[inline]
    pub fn insert(&mut self, k: u128, v: u32) -> Option<u32> {
        match self.search(k) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].val, v)),
            Err(i) => {
                self.entries.insert(i, Entry::new(k, v));
                None
            }
        }
    }

    /// Remove the entry at `k`; returns its value.
    #[inline]
    pub fn remove(&mut self, k: u128) -> Option<u32> {
        let i = self.search(k).ok()?;
        Some(self.remove_at(i).1)
    }

    /// Remove the entry at position `pos`.
    #[inline]
    pub fn remove_at(&mut self, pos: usize) -> (u128, u32) {
        let e = self.entries.remove(pos);
        (e.key(), e.val)
    }

    /// Give the entry at position `pos` the key `k` and value `v`, moving it to where `k`
    /// sorts (`k` must not be the key of another entry).
    #[inline]
    pub fn move_at(&mut self, pos: usize, k: u128, v: u32) {
        let e = &mut self.entries;
        let dest = if k < e[pos].key() {
            let j = lower_bound_in(&e[..pos], k);
            e.copy_within(j..pos, j + 1);
            j
        } else {
            let j = pos + 1 + lower_bound_in(&e[pos + 1..], k);
            e.copy_within(pos + 1..j, pos);
            j - 1
        };
        e[dest] = Entry::new(k, v);
        debug_assert!(dest == 0 || e[dest - 1].key() < k);
        debug_assert!(dest + 1 == e.len() || k < e[dest + 1].key());
    }

    /// Replace the entry at key `old` by (`k`, `v`), or insert it when there is none.
    #[inline]
    pub fn replace(&mut self, old: u128, k: u128, v: u32) {
        match self.search(old) {
            Ok(pos) => self.move_at(pos, k, v),
            Err(_) => {
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
        self.entries[..self.lower_bound(k)]
            .iter()
            .map(|e| (e.key(), e.val))
    }

    /// The values, in key order.
    #[inline]
    pub fn values(&self) -> impl DoubleEndedIterator<Item = u32> + '_ {
        self.entries.iter().map(|e| e.val)
    }

    /// Remove every entry (keeping the storage).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Give every entry the key `f` computes from its value and sort again (the keys
    /// must stay distinct); allocates nothing.
    pub fn rekey(&mut self, mut f: impl FnMut(u32) -> u128) {
        for e in self.entries.iter_mut() {
            *e = Entry::new(f(e.val), e.val);
        }
        self.entries.sort_unstable_by_key(Entry::key);
        debug_assert!(self.entries.windows(2).all(|w| w[0].key() < w[1].key()));
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
        let e = self.list.entries.get(p)?;
        self.pos = p + 1;
        Some((p, e.key(), e.val))
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

    /// The search (halving, then a count) agrees with `partition_point` on lists of every
    /// length around the count's window, for keys that share their high word or not.
    #[test]
    fn lower_bound_agrees_with_partition_point() {
        for n in 0..70u64 {
            let mut m = FreeList::new();
            let keys: Vec<u128> = (0..n)
                .map(|i| (((i / 3) as u128) << 64) | ((i % 3) as u128 * 7))
                .collect();
            for (v, &k) in keys.iter().enumerate() {
                m.insert(k, v as u32);
            }
            for q in 0..(n / 3 + 2) as u128 {
                for lo in 0..16u128 {
                    let k = q << 64 | lo;
                    assert_eq!(
                        m.lower_bound(k),
                        keys.partition_point(|&x| x < k),
                        "{n} {k:x}"
                    );
                }
            }
        }
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
