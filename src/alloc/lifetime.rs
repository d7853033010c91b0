//! Lifetime-aware placement for policy:stridekit (`stridekit_long_life`, off by default; a
//! design studied for issue 22, docs/alloc_design_studies.md, "Session 12").
//!
//! An online predictor: the lifetime of a block, in requests (mallocs) between its
//! allocation and its free, is averaged per size class of the rounded request (a power of
//! two split in four), as an exponentially weighted mean (weight 1/4 for the newest
//! lifetime). A request is predicted long-lived when its class's mean is at least
//! `stridekit_long_life` requests, or when no block of its class has been freed yet.
//!
//! What a predicted long-lived request does differently (`stridekit_life_mode`):
//!
//! - bit 0: of the free mapped blocks that fit it, it takes the smallest one that pins no
//!   idle chunk (a chunk wholly inside the free block that the request would touch), when
//!   best fit would pin one: a block that will live long then sits in a chunk that already
//!   holds a live block, and the idle chunks stay whole and movable;
//! - bit 1: a growth it makes creates exactly the granules it needs (no least growth), so
//!   no slack chunk is pinned for as long as it lives;
//! - bit 2: a growth of a predicted short-lived request creates exactly instead.
//!
//! This module is the predictor; [`super::life_place`] is where the allocator asks it, and
//! [`super::life_share`] is a second design built on it (`stridekit_share_life`).

/// Size classes: 64 powers of two, four classes each.
const CLASSES: usize = 64 * 4;

/// The predictor's state and the current request's prediction.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lifetimes {
    /// Requests so far.
    clock: u64,
    /// Mean lifetime per size class (requests); negative: nothing observed yet. Empty
    /// until the predictor is first used, so that an allocator with it off allocates
    /// nothing for it.
    mean: Vec<f64>,
    /// The clock at each live block's allocation, by block index.
    born: Vec<u64>,
    /// The current request is predicted long-lived.
    pub long: bool,
    /// The current request's growth creates exactly what it needs.
    pub exact_growth: bool,
    /// Each live block's prediction at its allocation (`stridekit_share_life`), by index.
    long_at: Vec<bool>,
    /// The current request is predicted long-lived at `stridekit_share_life`.
    pub share_long: bool,
}

/// The size class of a rounded request of `size` bytes.
fn class(size: u64) -> usize {
    let log = 63 - size.max(1).leading_zeros() as usize;
    let quarter = if log >= 2 {
        ((size >> (log - 2)) & 3) as usize
    } else {
        0
    };
    log * 4 + quarter
}

impl Lifetimes {
    /// Predict the request of `size` bytes (a tick of the clock).
    #[cfg(test)]
    pub(crate) fn predict(&mut self, size: u64, threshold: u32) -> bool {
        self.tick();
        self.class_long(size, threshold)
    }

    /// A request arrives (the clock's tick).
    pub(crate) fn tick(&mut self) {
        self.clock += 1;
        self.mean.resize(CLASSES, -1.0);
    }

    /// Whether a request of `size` bytes is predicted long-lived at `threshold` (after
    /// [`Self::tick`]).
    pub(crate) fn class_long(&self, size: u64, threshold: u32) -> bool {
        let m = self.mean[class(size)];
        m < 0.0 || m >= threshold as f64
    }

    pub(crate) fn born_at(&mut self, i: u32) {
        let i = i as usize;
        if self.born.len() <= i {
            self.born.resize(i + 1, 0);
        }
        self.born[i] = self.clock;
    }

    /// Block `i`, just allocated, was predicted long-lived (`long`) at the sharing
    /// threshold.
    pub(crate) fn mark(&mut self, i: u32, long: bool) {
        let i = i as usize;
        if self.long_at.len() <= i {
            self.long_at.resize(i + 1, false);
        }
        self.long_at[i] = long;
    }

    /// Whether live block `i` counts as long-lived at `threshold`: predicted so at its
    /// allocation, or it has lived that long already.
    pub(crate) fn live_long(&self, i: u32, threshold: u32) -> bool {
        let i = i as usize;
        let predicted = self.long_at.get(i).copied().unwrap_or(true);
        let age = self
            .born
            .get(i)
            .map_or(u64::MAX, |&b| self.clock.saturating_sub(b));
        predicted || age >= threshold as u64
    }

    pub(crate) fn died(&mut self, i: u32, size: u64) {
        let Some(&b) = self.born.get(i as usize) else {
            return;
        };
        let life = self.clock.saturating_sub(b) as f64;
        self.mean.resize(CLASSES, -1.0);
        let m = &mut self.mean[class(size)];
        *m = if *m < 0.0 {
            life
        } else {
            *m + (life - *m) / 4.0
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_split_powers_of_two_in_four() {
        assert_eq!(class(1 << 20), 80);
        assert_eq!(class((1 << 20) + (1 << 18)), 81);
        assert_eq!(class((2 << 20) - 1), 83);
        assert_eq!(class(2 << 20), 84);
        assert!(class(u64::MAX) < CLASSES);
    }

    #[test]
    fn the_mean_follows_observed_lifetimes() {
        let mut l = Lifetimes::default();
        assert!(l.predict(4096, 10), "unseen classes count as long-lived");
        l.born_at(3);
        for _ in 0..4 {
            l.predict(1 << 20, 10);
        }
        l.died(3, 4096);
        assert!(!l.predict(4096, 10), "lived 4 requests, below 10");
        assert!(l.predict(4096, 4));
    }

    #[test]
    fn live_blocks_count_as_long_once_they_have_lived_long() {
        let mut l = Lifetimes::default();
        l.tick();
        l.born_at(0);
        l.mark(0, false);
        assert!(!l.live_long(0, 3));
        for _ in 0..3 {
            l.tick();
        }
        assert!(l.live_long(0, 3));
        l.born_at(1);
        l.mark(1, true);
        assert!(l.live_long(1, 3));
    }
}
