//! policy:stridekit's own parameters ([`StridekitParams`]) and their settings keys
//! (`stridekit_min_chunk_mb`, `stridekit_max_chunk_mb`, `stridekit_max_moves`, and the
//! design-study keys `stridekit_tie_break`, `stridekit_long_life`, `stridekit_life_mode`,
//! `stridekit_share_life`, `stridekit_share_mode`, `stridekit_share_window_mb`,
//! `stridekit_pair_cover_mb`, `stridekit_slack_decay`): what each key may hold and what it sets. The settings string
//! itself is read by [`super::config`], which hands every `stridekit_*` key's integer value
//! to [`StridekitParams::set`].

use super::error::{AllocError, AllocResult};

const MB: u64 = 1 << 20;

/// The settings keys of policy:stridekit's parameters (each takes a non-negative integer).
pub const KEYS: [&str; 12] = [
    "stridekit_min_chunk_mb",
    "stridekit_max_chunk_mb",
    "stridekit_max_moves",
    "stridekit_tie_break",
    "stridekit_long_life",
    "stridekit_life_mode",
    "stridekit_share_life",
    "stridekit_share_mode",
    "stridekit_share_window_mb",
    "stridekit_pair_cover_mb",
    "stridekit_slack_decay",
    "stridekit_growth_align_mb",
];

/// policy:stridekit's own parameters: how large the physical chunks of its large pool are
/// when it must create memory, and how many idle chunks it moves into one gap. The
/// defaults are the values that did best over the tuning half of the corpus
/// (tests/data/alloc/corpus/README.md; `alloc tune` searches them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridekitParams {
    /// The least a large-pool segment grows by when it must create memory (bytes, a
    /// multiple of 2 MiB): smaller requests share chunks, as they share PyTorch's pages.
    pub min_chunk: u64,
    /// The largest chunk the large pool creates (bytes, a multiple of 2 MiB). A chunk
    /// moves or is released only whole, so larger chunks cost fewer device calls but
    /// strand more memory next to live blocks.
    pub max_chunk: u64,
    /// Most idle chunks moved into one gap; past it the rest of the gap is created.
    pub max_moves: usize,
    /// Tie-breaks that decide nothing of substance (`stridekit_tie_break`, a bit set; 0,
    /// the default, is the policy as designed): bit 0, among equally large idle chunks the
    /// highest address moves first; bit 1, among equally costly placements of a growth the
    /// last one found (the highest address) wins. The design study replays each trace
    /// under several of them to see how much of a figure is the luck of one replay.
    pub tie_break: u8,
    /// Lifetime-aware placement (`stridekit_long_life`, [`super::lifetime`]): a request is
    /// predicted long-lived when the lifetimes (in requests) of freed blocks of its size
    /// class average at least this many; 0 (the default) turns it off.
    pub long_life: u32,
    /// What a predicted long-lived request does differently (`stridekit_life_mode`, a bit
    /// set, read only with `long_life`): bit 0, it prefers a fitting free block that pins
    /// no idle chunk; bit 1, its growth creates exactly the granules it needs (no least
    /// growth); bit 2, a growth of a predicted short-lived request does instead.
    pub life_mode: u8,
    /// Lifetime-matched sharing of chunks (`stridekit_share_life`, [`super::life_share`]):
    /// a request, or a live block, is predicted long-lived at this many requests; 0 (the
    /// default) turns it off.
    pub share_life: u32,
    /// What lifetime-matched sharing decides (`stridekit_share_mode`, a bit set, read only
    /// with `share_life`): bit 0, which free block a request takes; bit 1, where a growth
    /// lands; bit 2, which idle chunks a long-lived growth moves and how much it creates.
    pub share_mode: u8,
    /// How far sharing may stray from best fit and exact growth (bytes, a multiple of 2
    /// MiB; `stridekit_share_window_mb`).
    pub share_window: u64,
    /// Pair covers (`stridekit_pair_cover_mb`, [`super::pair_cover`]; bytes, 0 = off, the
    /// default): a covering idle chunk gives way to a pair of idle chunks that leaves at
    /// least this many bytes less free.
    pub pair_cover: u64,
    /// Slack feedback (`stridekit_slack_decay`, [`super::slack_feedback`]; 0 = off, the
    /// default): the most times the large pool's least growth is halved while the slack of
    /// its growths goes unused.
    pub slack_decay: u8,
    /// Aligned growth (`stridekit_growth_align_mb`, `chunks::chunk_plan`; bytes,
    /// a multiple of 2 MiB, 0 = off, the default): a large-pool growth never takes the
    /// pool's reserved bytes past the next multiple of this more than the request needs
    /// (20 MiB: PyTorch's expandable page grid).
    pub growth_align: u64,
}

impl StridekitParams {
    /// The defaults.
    pub const DEFAULT: StridekitParams = StridekitParams {
        min_chunk: 18 * MB,
        max_chunk: 20 * MB,
        max_moves: 16,
        tie_break: 0,
        long_life: 0,
        life_mode: LIFE_MODE_DEFAULT,
        share_life: 0,
        share_mode: SHARE_MODE_DEFAULT,
        share_window: 4 * MB,
        pair_cover: 0,
        slack_decay: 0,
        growth_align: 0,
    };

    /// The parameters as settings keys (`stridekit_min_chunk_mb:18,...`; the design-study
    /// keys only when they are not their defaults).
    pub fn settings(&self) -> String {
        let mut s = format!(
            "stridekit_min_chunk_mb:{},stridekit_max_chunk_mb:{},stridekit_max_moves:{}",
            self.min_chunk / MB,
            self.max_chunk / MB,
            self.max_moves
        );
        let d = StridekitParams::DEFAULT;
        if self.tie_break != d.tie_break {
            s.push_str(&format!(",stridekit_tie_break:{}", self.tie_break));
        }
        if self.long_life != d.long_life {
            s.push_str(&format!(",stridekit_long_life:{}", self.long_life));
        }
        if self.life_mode != d.life_mode {
            s.push_str(&format!(",stridekit_life_mode:{}", self.life_mode));
        }
        if self.share_life != d.share_life {
            s.push_str(&format!(",stridekit_share_life:{}", self.share_life));
        }
        if self.share_mode != d.share_mode {
            s.push_str(&format!(",stridekit_share_mode:{}", self.share_mode));
        }
        if self.share_window != d.share_window {
            s.push_str(&format!(
                ",stridekit_share_window_mb:{}",
                self.share_window / MB
            ));
        }
        if self.growth_align != d.growth_align {
            s.push_str(&format!(
                ",stridekit_growth_align_mb:{}",
                self.growth_align / MB
            ));
        }
        if self.pair_cover != d.pair_cover {
            s.push_str(&format!(
                ",stridekit_pair_cover_mb:{}",
                self.pair_cover / MB
            ));
        }
        if self.slack_decay != d.slack_decay {
            s.push_str(&format!(",stridekit_slack_decay:{}", self.slack_decay));
        }
        s
    }
}

impl Default for StridekitParams {
    fn default() -> Self {
        StridekitParams::DEFAULT
    }
}

/// Most idle chunks `stridekit_max_moves` may allow (bounds the work of one request).
pub const MAX_STRIDEKIT_MOVES: u64 = 256;
/// Largest `stridekit_*_chunk_mb` (1 TiB).
pub const MAX_STRIDEKIT_CHUNK_MB: u64 = 1 << 20;
/// The bits `stridekit_tie_break` may set.
pub const TIE_BREAK_MASK: u8 = 0b11;
/// The bits `stridekit_life_mode` may set.
pub const LIFE_MODE_MASK: u8 = 0b111;
/// `stridekit_life_mode`'s default: bits 0 and 1.
pub const LIFE_MODE_DEFAULT: u8 = 0b011;
/// The bits `stridekit_share_mode` may set.
pub const SHARE_MODE_MASK: u8 = 0b111;
/// `stridekit_share_mode`'s default: bits 0 and 1.
pub const SHARE_MODE_DEFAULT: u8 = 0b011;
/// Most halvings `stridekit_slack_decay` may allow (18 MiB halved 4 times is one granule).
pub const MAX_SLACK_DECAY: u64 = 4;
/// Largest `stridekit_long_life` and `stridekit_share_life` (requests).
pub const MAX_LONG_LIFE: u64 = 1 << 30;

impl StridekitParams {
    /// Whether `key` is one of policy:stridekit's settings keys ([`KEYS`]).
    pub fn is_key(key: &str) -> bool {
        KEYS.contains(&key)
    }

    /// Sets the parameter `key` names to `v` (its value in the settings string), or says
    /// why `v` is not a value it may take; a key not in [`KEYS`] is unrecognized.
    pub fn set(&mut self, key: &str, v: u64) -> AllocResult<()> {
        let even_mib = |v: u64| v.is_multiple_of(2) && v <= MAX_STRIDEKIT_CHUNK_MB;
        match key {
            "stridekit_min_chunk_mb" | "stridekit_max_chunk_mb" => {
                if v == 0 || !even_mib(v) {
                    return Err(AllocError::config(
                        key,
                        format!(
                            "{v} is not a positive even number of MiB up to {MAX_STRIDEKIT_CHUNK_MB} (chunks are made of 2 MiB granules)"
                        ),
                    ));
                }
                if key == "stridekit_min_chunk_mb" {
                    self.min_chunk = v * MB;
                } else {
                    self.max_chunk = v * MB;
                }
            }
            "stridekit_max_moves" => {
                self.max_moves = at_most(key, v, MAX_STRIDEKIT_MOVES, "")? as usize;
            }
            "stridekit_tie_break" | "stridekit_life_mode" | "stridekit_share_mode" => {
                let (mask, field) = match key {
                    "stridekit_tie_break" => (TIE_BREAK_MASK, &mut self.tie_break),
                    "stridekit_life_mode" => (LIFE_MODE_MASK, &mut self.life_mode),
                    _ => (SHARE_MODE_MASK, &mut self.share_mode),
                };
                if v > mask as u64 {
                    return Err(AllocError::config(
                        key,
                        format!("{v} is not a set of the bits {mask:#b}"),
                    ));
                }
                *field = v as u8;
            }
            "stridekit_long_life" | "stridekit_share_life" => {
                let v = at_most(key, v, MAX_LONG_LIFE, " requests")?;
                if key == "stridekit_long_life" {
                    self.long_life = v as u32;
                } else {
                    self.share_life = v as u32;
                }
            }
            "stridekit_slack_decay" => {
                self.slack_decay = at_most(key, v, MAX_SLACK_DECAY, " halvings")? as u8;
            }
            "stridekit_share_window_mb"
            | "stridekit_pair_cover_mb"
            | "stridekit_growth_align_mb" => {
                if !even_mib(v) {
                    return Err(AllocError::config(
                        key,
                        format!("{v} is not an even number of MiB up to {MAX_STRIDEKIT_CHUNK_MB}"),
                    ));
                }
                match key {
                    "stridekit_share_window_mb" => self.share_window = v * MB,
                    "stridekit_pair_cover_mb" => self.pair_cover = v * MB,
                    _ => self.growth_align = v * MB,
                }
            }
            other => return Err(AllocError::config(other, "unrecognized allocator setting")),
        }
        Ok(())
    }

    /// Checks what no single key can: the least growth is not above the largest chunk.
    pub fn check(&self) -> AllocResult<()> {
        if self.min_chunk > self.max_chunk {
            return Err(AllocError::config(
                "stridekit_min_chunk_mb",
                format!(
                    "{} is above stridekit_max_chunk_mb {}",
                    self.min_chunk / MB,
                    self.max_chunk / MB
                ),
            ));
        }
        Ok(())
    }
}

/// `v`, or the error of `key` when it is more than `most` (`unit` follows the number).
fn at_most(key: &str, v: u64, most: u64, unit: &str) -> AllocResult<u64> {
    if v > most {
        return Err(AllocError::config(
            key,
            format!("{v} is more than {most}{unit}"),
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_sets_its_own_field_and_round_trips() {
        let mut p = StridekitParams::DEFAULT;
        for (key, v) in [
            ("stridekit_min_chunk_mb", 12),
            ("stridekit_max_chunk_mb", 24),
            ("stridekit_max_moves", 256),
            ("stridekit_tie_break", 2),
            ("stridekit_long_life", 77),
            ("stridekit_life_mode", 7),
            ("stridekit_share_life", 9),
            ("stridekit_share_mode", 4),
            ("stridekit_share_window_mb", 0),
            ("stridekit_pair_cover_mb", 10),
            ("stridekit_slack_decay", 3),
            ("stridekit_growth_align_mb", 20),
        ] {
            assert!(StridekitParams::is_key(key));
            p.set(key, v).unwrap();
        }
        let want = StridekitParams {
            min_chunk: 12 * MB,
            max_chunk: 24 * MB,
            max_moves: 256,
            tie_break: 2,
            long_life: 77,
            life_mode: 7,
            share_life: 9,
            share_mode: 4,
            share_window: 0,
            pair_cover: 10 * MB,
            slack_decay: 3,
            growth_align: 20 * MB,
        };
        assert_eq!(p, want);
        assert!(p.check().is_ok());
        // settings() names every key that differs from the defaults, and each is in KEYS.
        let mut q = StridekitParams::DEFAULT;
        for kv in p.settings().split(',') {
            let (k, v) = kv.split_once(':').unwrap();
            q.set(k, v.parse().unwrap()).unwrap();
        }
        assert_eq!(q, p);
    }

    #[test]
    fn bad_values_name_the_key_and_leave_the_field() {
        let mut p = StridekitParams::DEFAULT;
        for (key, v) in [
            ("stridekit_min_chunk_mb", 0),
            ("stridekit_max_chunk_mb", 3),
            ("stridekit_max_chunk_mb", MAX_STRIDEKIT_CHUNK_MB + 2),
            ("stridekit_max_moves", 257),
            ("stridekit_tie_break", 4),
            ("stridekit_life_mode", 8),
            ("stridekit_long_life", MAX_LONG_LIFE + 1),
            ("stridekit_share_mode", 8),
            ("stridekit_share_window_mb", 1),
            ("stridekit_pair_cover_mb", 5),
            ("stridekit_slack_decay", 5),
            ("stridekit_growth_align_mb", 3),
            ("stridekit_bogus", 1),
        ] {
            let e = p.set(key, v).unwrap_err();
            assert!(
                matches!(&e, AllocError::Config { key: k, .. } if k == key),
                "{key}:{v}: {e}"
            );
        }
        assert_eq!(p, StridekitParams::DEFAULT);
        assert!(!StridekitParams::is_key("stridekit_bogus"));
        p.set("stridekit_min_chunk_mb", 22).unwrap();
        assert!(p.check().is_err());
    }
}
