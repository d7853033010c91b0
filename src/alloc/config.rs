//! Allocator settings in `PYTORCH_CUDA_ALLOC_CONF` syntax (`key:value,key:value`), also read
//! from the `STRIDEKIT_ALLOC_CONF` environment variable.
//!
//! Keys: `max_split_size_mb`, `max_non_split_rounding_mb`, `roundup_power2_divisions`
//! (one value, or the list form `[256:1,512:2,>:8]` keyed by MiB powers of two),
//! `garbage_collection_threshold` (in (0, 1); takes effect with a memory fraction),
//! `per_process_memory_fraction` (in (0, 1]), `expandable_segments`,
//! `release_lock_on_cudamalloc`, `backend` (`native` only), `policy` (`pytorch` or
//! `stridekit`), policy:stridekit's own parameters (the `stridekit_*` keys, whose values
//! [`super::stridekit_params`] checks and sets: [`StridekitParams`]), and the pinned-memory
//! keys PyTorch accepts (`pinned_use_cuda_host_register`, `pinned_num_register_threads`,
//! `pinned_use_background_threads`, `pinned_reserve_segment_size_mb`,
//! `graph_capture_record_stream_reuse`), which do not affect device memory and are kept
//! only for the record.

use super::error::{AllocError, AllocResult};
use super::sizes::K_LARGE_BUFFER;
pub use super::stridekit_params::StridekitParams;

const MB: u64 = 1 << 20;
/// Number of power-of-two intervals for `roundup_power2_divisions` (1 MiB .. 64 GiB).
pub const ROUNDUP_INTERVALS: usize = 16;

/// The parsed settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AllocConfig {
    /// Blocks of this size or more are never split (u64::MAX: no limit).
    pub max_split_size: u64,
    /// How far above the request an oversize cached block may be and still be used.
    pub max_non_split_rounding_size: u64,
    /// Divisions per power-of-two interval, indexed by log2(size) - 20 (clamped to 0..16).
    pub roundup_power2_divisions: [u64; ROUNDUP_INTERVALS],
    /// Fraction of the allowed memory above which cached blocks are reclaimed (0: off).
    pub garbage_collection_threshold: f64,
    /// Fraction of device memory the allocator may hold (None: no limit).
    pub per_process_memory_fraction: Option<f64>,
    /// Grow one segment per pool and stream with mapped pages instead of cudaMalloc.
    pub expandable_segments: bool,
    /// Release the allocator lock around cudaMalloc.
    pub release_lock_on_cudamalloc: bool,
    /// Whose policy serves allocations (`policy:stridekit`, a key PyTorch does not have;
    /// PyTorch's by default).
    pub policy: Policy,
    /// policy:stridekit's own parameters (unused by PyTorch's policy).
    pub stridekit: StridekitParams,
    /// The settings string this was parsed from (empty for defaults).
    pub source: String,
}

impl Default for AllocConfig {
    fn default() -> Self {
        AllocConfig {
            max_split_size: u64::MAX,
            max_non_split_rounding_size: K_LARGE_BUFFER,
            roundup_power2_divisions: [0; ROUNDUP_INTERVALS],
            garbage_collection_threshold: 0.0,
            per_process_memory_fraction: None,
            expandable_segments: false,
            release_lock_on_cudamalloc: false,
            policy: Policy::PyTorch,
            stridekit: StridekitParams::default(),
            source: String::new(),
        }
    }
}

/// The allocation policy a setting selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// PyTorch 2.11's caching allocator, reproduced exactly.
    #[default]
    PyTorch,
    /// stridekit's page-stitching policy (`stitch.rs`).
    Stridekit,
}

fn lex(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = String::new();
    for c in s.chars() {
        match c {
            ',' | ':' | '[' | ']' => {
                if !buf.is_empty() {
                    out.push(std::mem::take(&mut buf));
                }
                out.push(c.to_string());
            }
            ' ' | '\t' | '\n' => {}
            _ => buf.push(c),
        }
    }
    if !buf.is_empty() {
        out.push(buf);
    }
    out
}

struct Tokens<'a> {
    t: &'a [String],
}

impl Tokens<'_> {
    fn get(&self, i: usize) -> Option<&str> {
        self.t.get(i).map(|s| s.as_str())
    }
    fn expect(&self, i: usize, c: &str, key: &str) -> AllocResult<()> {
        match self.get(i) {
            Some(x) if x == c => Ok(()),
            Some(x) => Err(AllocError::config(
                key,
                format!("expected '{c}', found '{x}'"),
            )),
            None => Err(AllocError::config(
                key,
                format!("expected '{c}' at end of settings"),
            )),
        }
    }
    fn value(&self, i: usize, key: &str) -> AllocResult<&str> {
        match self.get(i) {
            Some(x) if ![",", ":", "[", "]"].contains(&x) => Ok(x),
            _ => Err(AllocError::config(key, "missing value")),
        }
    }
    fn uint(&self, i: usize, key: &str) -> AllocResult<u64> {
        let v = self.value(i, key)?;
        v.parse::<u64>()
            .map_err(|_| AllocError::config(key, format!("'{v}' is not a non-negative integer")))
    }
    fn boolean(&self, i: usize, key: &str) -> AllocResult<bool> {
        match self.value(i, key)? {
            "True" | "true" => Ok(true),
            "False" | "false" => Ok(false),
            v => Err(AllocError::config(
                key,
                format!("expected True or False, found '{v}'"),
            )),
        }
    }
    fn float(&self, i: usize, key: &str) -> AllocResult<f64> {
        let v = self.value(i, key)?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| AllocError::config(key, format!("'{v}' is not a number")))
    }
}

impl AllocConfig {
    /// Parse a settings string; an empty string gives the defaults.
    pub fn parse(s: &str) -> AllocResult<AllocConfig> {
        let mut cfg = AllocConfig {
            source: s.trim().to_string(),
            ..AllocConfig::default()
        };
        if s.trim() == "default" {
            return Ok(cfg);
        }
        let toks = lex(s);
        let t = Tokens { t: &toks };
        let mut i = 0;
        while i < toks.len() {
            let key = toks[i].as_str();
            match key {
                "max_split_size_mb" | "max_non_split_rounding_mb" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    let v = t.uint(i, key)?;
                    let min = K_LARGE_BUFFER / MB;
                    if v < min {
                        return Err(AllocError::config(
                            key,
                            format!("{v} is too small, must be >= {min}"),
                        ));
                    }
                    let bytes = v.min(u64::MAX / MB) * MB;
                    if key == "max_split_size_mb" {
                        cfg.max_split_size = bytes;
                    } else {
                        cfg.max_non_split_rounding_size = bytes;
                    }
                }
                "garbage_collection_threshold" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    let v = t.float(i, key)?;
                    if !(v > 0.0 && v < 1.0) {
                        return Err(AllocError::config(key, format!("{v} is not in (0.0, 1.0)")));
                    }
                    cfg.garbage_collection_threshold = v;
                }
                "per_process_memory_fraction" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    let v = t.float(i, key)?;
                    if !(v > 0.0 && v <= 1.0) {
                        return Err(AllocError::config(key, format!("{v} is not in (0.0, 1.0]")));
                    }
                    cfg.per_process_memory_fraction = Some(v);
                }
                "roundup_power2_divisions" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    i = parse_roundup(&t, i, &mut cfg.roundup_power2_divisions)?;
                }
                "expandable_segments" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    cfg.expandable_segments = t.boolean(i, key)?;
                }
                "policy" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    cfg.policy = match t.value(i, key)? {
                        "stridekit" => Policy::Stridekit,
                        "pytorch" => Policy::PyTorch,
                        v => {
                            return Err(AllocError::config(
                                key,
                                format!("'{v}' is not a policy (stridekit or pytorch)"),
                            ));
                        }
                    };
                }
                key if StridekitParams::is_key(key) => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    cfg.stridekit.set(key, t.uint(i, key)?)?;
                }
                "release_lock_on_cudamalloc" | "release_lock_on_hipmalloc" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    cfg.release_lock_on_cudamalloc = t.boolean(i, key)?;
                }
                "backend" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    match t.value(i, key)? {
                        "native" => {}
                        v => {
                            return Err(AllocError::config(
                                key,
                                format!(
                                    "'{v}' is not supported; only the native caching allocator is reproduced"
                                ),
                            ));
                        }
                    }
                }
                "pinned_use_cuda_host_register"
                | "pinned_use_hip_host_register"
                | "pinned_use_background_threads"
                | "graph_capture_record_stream_reuse" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    t.boolean(i, key)?;
                }
                "pinned_num_register_threads" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    let v = t.uint(i, key)?;
                    if !v.is_power_of_two() {
                        return Err(AllocError::config(key, format!("{v} is not a power of 2")));
                    }
                }
                "pinned_reserve_segment_size_mb" => {
                    t.expect(i + 1, ":", key)?;
                    i += 2;
                    if t.uint(i, key)? == 0 {
                        return Err(AllocError::config(key, "must be greater than 0"));
                    }
                }
                other => {
                    return Err(AllocError::config(other, "unrecognized allocator setting"));
                }
            }
            if i + 1 < toks.len() {
                t.expect(i + 1, ",", key)?;
                i += 1;
            }
            i += 1;
        }
        cfg.stridekit.check()?;
        if cfg.policy == Policy::Stridekit {
            // stridekit's policy always grows expandable segments (and stitches their free
            // pages), whatever expandable_segments says.
            cfg.expandable_segments = true;
        }
        Ok(cfg)
    }

    /// Settings from `STRIDEKIT_ALLOC_CONF` (or, if unset, `PYTORCH_CUDA_ALLOC_CONF`);
    /// defaults when neither is set.
    pub fn from_env() -> AllocResult<AllocConfig> {
        for var in ["STRIDEKIT_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"] {
            if let Ok(v) = std::env::var(var) {
                return AllocConfig::parse(&v);
            }
        }
        Ok(AllocConfig::default())
    }

    /// The number of divisions that applies to a request of `size` bytes.
    #[inline]
    pub fn roundup_divisions(&self, size: u64) -> u64 {
        let log = 63 - (size.max(1)).leading_zeros() as i64;
        let idx = (log - 20).clamp(0, ROUNDUP_INTERVALS as i64 - 1) as usize;
        self.roundup_power2_divisions[idx]
    }

    /// Whether these are PyTorch's default settings (whatever the string said).
    pub fn is_default(&self) -> bool {
        *self
            == AllocConfig {
                source: self.source.clone(),
                ..AllocConfig::default()
            }
    }

    /// Whether the setting selects stridekit's own policy.
    pub fn is_stridekit(&self) -> bool {
        self.policy == Policy::Stridekit
    }

    /// A short label: the source string, or "default".
    pub fn label(&self) -> String {
        if self.source.is_empty() {
            "default".to_string()
        } else {
            self.source.clone()
        }
    }
}

fn parse_roundup(
    t: &Tokens<'_>,
    mut i: usize,
    div: &mut [u64; ROUNDUP_INTERVALS],
) -> AllocResult<usize> {
    let key = "roundup_power2_divisions";
    match t.get(i) {
        Some("[") => {
            let mut first = true;
            let mut last_index = 0usize;
            loop {
                i += 1;
                match t.get(i) {
                    Some("]") => break,
                    None => return Err(AllocError::config(key, "missing ']'")),
                    _ => {}
                }
                let interval = t.value(i, key)?.to_string();
                t.expect(i + 1, ":", key)?;
                i += 2;
                let d = t.uint(i, key)?;
                if d != 0 && !d.is_power_of_two() {
                    return Err(AllocError::config(
                        key,
                        format!("divisions {d} must be a power of 2 (or 0 to disable rounding)"),
                    ));
                }
                if interval == ">" {
                    for v in div.iter_mut().skip(last_index) {
                        *v = d;
                    }
                } else {
                    let mb: u64 = interval.parse().map_err(|_| {
                        AllocError::config(key, format!("interval '{interval}' is not an integer"))
                    })?;
                    if !mb.is_power_of_two() {
                        return Err(AllocError::config(
                            key,
                            format!("interval {mb} must be a power of 2 (MiB)"),
                        ));
                    }
                    let index = (63 - mb.leading_zeros() as usize).min(ROUNDUP_INTERVALS - 1);
                    if first {
                        for v in div.iter_mut().take(index) {
                            *v = d;
                        }
                        first = false;
                    }
                    div[index] = d;
                    last_index = index;
                }
                match t.get(i + 1) {
                    Some("]") => {}
                    _ => {
                        t.expect(i + 1, ",", key)?;
                        i += 1;
                    }
                }
            }
            Ok(i)
        }
        _ => {
            let d = t.uint(i, key)?;
            if !d.is_power_of_two() {
                return Err(AllocError::config(
                    key,
                    format!("divisions {d} must be a power of 2"),
                ));
            }
            *div = [d; ROUNDUP_INTERVALS];
            Ok(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let c = AllocConfig::parse("").unwrap();
        assert_eq!(c.max_split_size, u64::MAX);
        assert!(!c.expandable_segments);
        assert_eq!(c.roundup_divisions(1 << 30), 0);
    }

    #[test]
    fn keys() {
        let c = AllocConfig::parse(
            "max_split_size_mb:128, expandable_segments:True,garbage_collection_threshold:0.6,release_lock_on_cudamalloc:True",
        )
        .unwrap();
        assert_eq!(c.max_split_size, 128 << 20);
        assert!(c.expandable_segments);
        assert!(c.release_lock_on_cudamalloc);
        assert_eq!(c.garbage_collection_threshold, 0.6);
    }

    #[test]
    fn roundup_list_form() {
        let c = AllocConfig::parse("roundup_power2_divisions:[256:1,512:2,>:8]").unwrap();
        // intervals below 256 MiB take the first value
        assert_eq!(c.roundup_divisions(1 << 20), 1);
        assert_eq!(c.roundup_divisions(100 << 20), 1);
        assert_eq!(c.roundup_divisions(256 << 20), 1);
        // PyTorch's parser fills '>' from the last listed interval on, inclusive, so the
        // 512 MiB interval takes 8 too (reproduced as the source does it).
        assert_eq!(c.roundup_divisions(512 << 20), 8);
        assert_eq!(c.roundup_divisions(1 << 30), 8);
        assert_eq!(c.roundup_divisions(1 << 40), 8);
        let c = AllocConfig::parse("roundup_power2_divisions:[64:8,256:4]").unwrap();
        assert_eq!(c.roundup_divisions(1 << 20), 8);
        assert_eq!(c.roundup_divisions(64 << 20), 8);
        assert_eq!(c.roundup_divisions(128 << 20), 0);
        assert_eq!(c.roundup_divisions(256 << 20), 4);
        assert_eq!(c.roundup_divisions(1 << 30), 0);
        let c = AllocConfig::parse("roundup_power2_divisions:4").unwrap();
        assert_eq!(c.roundup_power2_divisions, [4; 16]);
    }

    #[test]
    fn stridekit_parameters() {
        let d = AllocConfig::parse("policy:stridekit").unwrap();
        assert_eq!(d.stridekit, StridekitParams::DEFAULT);
        assert_eq!(
            d.stridekit.settings(),
            "stridekit_min_chunk_mb:18,stridekit_max_chunk_mb:20,stridekit_max_moves:16"
        );
        let c = AllocConfig::parse(
            "policy:stridekit,stridekit_min_chunk_mb:14,stridekit_max_chunk_mb:32,stridekit_max_moves:8",
        )
        .unwrap();
        assert_eq!(
            c.stridekit,
            StridekitParams {
                min_chunk: 14 << 20,
                max_chunk: 32 << 20,
                max_moves: 8,
                ..StridekitParams::DEFAULT
            }
        );
        assert_eq!(
            AllocConfig::parse(&c.stridekit.settings())
                .unwrap()
                .stridekit,
            c.stridekit
        );
        let e = AllocConfig::parse(
            "policy:stridekit,stridekit_tie_break:3,stridekit_long_life:500,stridekit_life_mode:4,\
             stridekit_share_life:70,stridekit_share_mode:5,stridekit_share_window_mb:6,\
             stridekit_pair_cover_mb:4",
        )
        .unwrap();
        let k = e.stridekit;
        assert_eq!(
            (
                k.tie_break,
                k.long_life,
                k.life_mode,
                k.share_life,
                k.share_mode
            ),
            (3, 500, 4, 70, 5)
        );
        assert_eq!((k.share_window, k.pair_cover), (6 * MB, 4 * MB));
        assert_eq!(
            AllocConfig::parse(&e.stridekit.settings())
                .unwrap()
                .stridekit,
            e.stridekit
        );
        for (bad, key) in [
            ("stridekit_min_chunk_mb:3", "stridekit_min_chunk_mb"),
            ("stridekit_max_chunk_mb:0", "stridekit_max_chunk_mb"),
            (
                "stridekit_max_chunk_mb:18446744073709551614",
                "stridekit_max_chunk_mb",
            ),
            ("stridekit_max_moves:257", "stridekit_max_moves"),
            ("stridekit_max_moves:-1", "stridekit_max_moves"),
            ("stridekit_tie_break:4", "stridekit_tie_break"),
            ("stridekit_tie_break:x", "stridekit_tie_break"),
            ("stridekit_life_mode:8", "stridekit_life_mode"),
            ("stridekit_long_life:1073741825", "stridekit_long_life"),
            ("stridekit_long_life:-3", "stridekit_long_life"),
            ("stridekit_share_life:1073741825", "stridekit_share_life"),
            ("stridekit_share_mode:8", "stridekit_share_mode"),
            ("stridekit_share_window_mb:3", "stridekit_share_window_mb"),
            ("stridekit_pair_cover_mb:5", "stridekit_pair_cover_mb"),
            (
                "stridekit_min_chunk_mb:24,stridekit_max_chunk_mb:20",
                "stridekit_min_chunk_mb",
            ),
        ] {
            let e = AllocConfig::parse(bad).unwrap_err();
            assert!(
                matches!(&e, AllocError::Config { key: k, .. } if k == key),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn errors_name_the_key() {
        let e = AllocConfig::parse("max_split_size_mb:10").unwrap_err();
        assert!(
            matches!(&e, AllocError::Config { key, .. } if key == "max_split_size_mb"),
            "{e}"
        );
        let e = AllocConfig::parse("bogus:1").unwrap_err();
        assert!(matches!(&e, AllocError::Config { key, .. } if key == "bogus"));
        let e = AllocConfig::parse("expandable_segments:yes").unwrap_err();
        assert!(matches!(&e, AllocError::Config { key, .. } if key == "expandable_segments"));
        let e = AllocConfig::parse("roundup_power2_divisions:3").unwrap_err();
        assert!(matches!(&e, AllocError::Config { key, .. } if key == "roundup_power2_divisions"));
        let e = AllocConfig::parse("roundup_power2_divisions:[256:1,300:2]").unwrap_err();
        assert!(e.to_string().contains("power of 2"));
        let e = AllocConfig::parse("garbage_collection_threshold:1.5").unwrap_err();
        assert!(
            matches!(&e, AllocError::Config { key, .. } if key == "garbage_collection_threshold")
        );
        let e = AllocConfig::parse("max_split_size_mb").unwrap_err();
        assert!(matches!(&e, AllocError::Config { key, .. } if key == "max_split_size_mb"));
        let e = AllocConfig::parse("max_split_size_mb:abc").unwrap_err();
        assert!(e.to_string().contains("abc"));
        let e = AllocConfig::parse("expandable_segments:True max_split_size_mb:128").unwrap_err();
        assert!(matches!(e, AllocError::Config { .. }));
        let e = AllocConfig::parse("backend:cudaMallocAsync").unwrap_err();
        assert!(matches!(&e, AllocError::Config { key, .. } if key == "backend"));
    }
}
