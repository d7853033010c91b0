//! Slack feedback for policy:stridekit (`stridekit_slack_decay`, off by default; a design
//! studied for issue 22, docs/alloc_design_studies.md, "Session 16").
//!
//! A growth of the large pool creates at least the least growth (`stridekit_min_chunk_mb`,
//! 18 MiB), so that later small requests share the slack past the request instead of
//! growing again. Whether they do is seen at the next growth: if no block handed out since
//! overlapped the last growth's slack (and the new growth does not start where it ended),
//! the slack was not shared before more memory was needed, and the least growth is halved,
//! at most `stridekit_slack_decay` times; a slack that was shared doubles it again, up to
//! the setting. Traces whose small requests fill the slack keep the least growth (and its
//! few device calls); traces of large requests, whose slack sits free at the peak
//! (session 10's res/best misses), grow by less.
//!
//! This is the state and the rule; the allocator calls it from `seg_map`
//! ([`super::expandable`]) at each large-pool growth and from `malloc` for each block it
//! hands out.

use super::sizes::GRANULE;

/// The last large-pool growth's slack and the least growth's halvings now in force.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SlackFeedback {
    /// The slack of the last growth, `[lo, hi)`; empty when it had none or was judged.
    lo: u64,
    hi: u64,
    /// A block handed out since that growth overlapped the slack.
    used: bool,
    /// How many times the least growth is halved now.
    level: u8,
}

impl SlackFeedback {
    /// A growth mapping from `ptr` is about to be planned: judge the last growth's slack
    /// (at most `most` halvings) and return the least growth to use instead of
    /// `min_chunk` (a multiple of the granule, at least one granule).
    pub(crate) fn least_growth(&mut self, ptr: u64, min_chunk: u64, most: u8) -> u64 {
        if self.hi > self.lo {
            if self.used || ptr == self.hi {
                self.level = self.level.saturating_sub(1);
            } else {
                self.level = (self.level + 1).min(most);
            }
            (self.lo, self.hi) = (0, 0);
        }
        self.level = self.level.min(most);
        let halved = min_chunk >> self.level;
        (halved.div_ceil(GRANULE) * GRANULE).clamp(GRANULE, min_chunk.max(GRANULE))
    }

    /// A growth mapped memory up to `end` for a request whose part in it ends at
    /// `used_end`: its slack is `[used_end, end)`.
    pub(crate) fn grew(&mut self, used_end: u64, end: u64) {
        if end > used_end {
            (self.lo, self.hi, self.used) = (used_end, end, false);
        }
    }

    /// A block `[ptr, ptr + size)` was handed out.
    #[inline]
    pub(crate) fn on_alloc(&mut self, ptr: u64, size: u64) {
        if ptr < self.hi && ptr + size > self.lo {
            self.used = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn unused_slack_halves_the_least_growth_and_used_slack_restores_it() {
        let mut f = SlackFeedback::default();
        // No growth judged yet: the least growth as set.
        assert_eq!(f.least_growth(0, 18 * MIB, 2), 18 * MIB);
        f.grew(4 * MIB, 18 * MIB);
        // A block elsewhere does not count; the next growth, elsewhere, halves.
        f.on_alloc(100 * MIB, 2 * MIB);
        assert_eq!(f.least_growth(200 * MIB, 18 * MIB, 2), 10 * MIB);
        // A second growth whose slack nobody uses: halved twice, not more (most 2).
        f.grew(210 * MIB, 216 * MIB);
        assert_eq!(f.least_growth(300 * MIB, 18 * MIB, 2), 6 * MIB);
        f.grew(302 * MIB, 306 * MIB);
        assert_eq!(f.least_growth(400 * MIB, 18 * MIB, 2), 6 * MIB);
        // A block overlapping the slack: one halving fewer.
        f.grew(402 * MIB, 406 * MIB);
        f.on_alloc(405 * MIB, 4 * MIB);
        assert_eq!(f.least_growth(500 * MIB, 18 * MIB, 2), 10 * MIB);
        // A growth starting where the slack ended extends the block holding it: used.
        f.grew(501 * MIB, 510 * MIB);
        assert_eq!(f.least_growth(510 * MIB, 18 * MIB, 2), 18 * MIB);
        // A judged slack is not judged again by a second gap of the same request.
        assert_eq!(f.least_growth(600 * MIB, 18 * MIB, 2), 18 * MIB);
    }

    #[test]
    fn a_growth_without_slack_is_not_judged() {
        let mut f = SlackFeedback::default();
        f.grew(4 * MIB, 4 * MIB);
        assert_eq!(f.least_growth(8 * MIB, 18 * MIB, 4), 18 * MIB);
        // Four halvings of 18 MiB round up to one granule; never below it.
        for _ in 0..6 {
            f.grew(1, 2 * MIB);
            f.least_growth(64 * MIB, 18 * MIB, 4);
        }
        assert_eq!(f.least_growth(64 * MIB, 18 * MIB, 4), GRANULE);
        // A smaller setting caps the level already reached.
        assert_eq!(f.least_growth(64 * MIB, 18 * MIB, 1), 10 * MIB);
    }
}
