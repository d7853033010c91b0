//! The settings a tuning study replays: the default grid of PyTorch settings, and grid
//! files.
//!
//! Grid file format (UTF-8 text, one setting per line):
//!
//! ```text
//! # comments start with '#'; blank lines are skipped
//! default
//! expandable_segments:True
//! max_split_size_mb:256,roundup_power2_divisions:4
//! ```
//!
//! Each line is one `PYTORCH_CUDA_ALLOC_CONF` string (`default` or an empty setting for
//! PyTorch's defaults; `policy:stridekit` selects stridekit's own policy). A line that does
//! not parse is an error naming the file and the line; a setting listed twice is replayed
//! once.

use std::path::Path;

use super::config::AllocConfig;
use super::error::{AllocError, AllocResult};

/// `max_split_size_mb` values of the default grid (`None`: unset).
pub const MAX_SPLIT_MB: [Option<u64>; 6] =
    [None, Some(64), Some(128), Some(256), Some(512), Some(1024)];
/// `roundup_power2_divisions` values of the default grid (`None`: unset).
pub const ROUNDUP: [Option<&str>; 6] = [
    None,
    Some("2"),
    Some("4"),
    Some("8"),
    Some("16"),
    Some("[256:1,512:2,1024:4,>:8]"),
];
/// `garbage_collection_threshold` values of the default grid; a threshold only acts with
/// a memory fraction, so each comes with `per_process_memory_fraction:1.0`.
pub const GC_THRESHOLD: [Option<&str>; 3] = [None, Some("0.6"), Some("0.8")];
/// `max_non_split_rounding_mb` values of the default grid.
pub const NON_SPLIT_ROUNDING_MB: [Option<u64>; 2] = [None, Some(64)];

/// The setting that selects stridekit's own policy (one more row of the default study).
pub const STRIDEKIT_SETTING: &str = "policy:stridekit";

/// The default grid: expandable_segments off/on x [`MAX_SPLIT_MB`] x [`ROUNDUP`] x
/// [`GC_THRESHOLD`] x [`NON_SPLIT_ROUNDING_MB`] (432 settings, the first one PyTorch's
/// defaults), as settings strings.
pub fn default_grid() -> Vec<String> {
    let mut out = Vec::new();
    for expandable in [false, true] {
        for mss in MAX_SPLIT_MB {
            for rd in ROUNDUP {
                for gc in GC_THRESHOLD {
                    for mnsr in NON_SPLIT_ROUNDING_MB {
                        let mut keys: Vec<String> = Vec::new();
                        if expandable {
                            keys.push("expandable_segments:True".into());
                        }
                        if let Some(m) = mss {
                            keys.push(format!("max_split_size_mb:{m}"));
                        }
                        if let Some(r) = rd {
                            keys.push(format!("roundup_power2_divisions:{r}"));
                        }
                        if let Some(g) = gc {
                            keys.push(format!("garbage_collection_threshold:{g}"));
                            keys.push("per_process_memory_fraction:1.0".into());
                        }
                        if let Some(m) = mnsr {
                            keys.push(format!("max_non_split_rounding_mb:{m}"));
                        }
                        out.push(if keys.is_empty() {
                            "default".to_string()
                        } else {
                            keys.join(",")
                        });
                    }
                }
            }
        }
    }
    out
}

/// `stridekit_min_chunk_mb` values `alloc tune` searches.
pub const STRIDEKIT_MIN_CHUNK_MB: [u64; 3] = [14, 18, 20];
/// `stridekit_max_chunk_mb` values `alloc tune` searches.
pub const STRIDEKIT_MAX_CHUNK_MB: [u64; 3] = [20, 24, 32];
/// `stridekit_max_moves` values `alloc tune` searches.
pub const STRIDEKIT_MAX_MOVES: [u64; 2] = [8, 16];

/// policy:stridekit's parameter grid: [`STRIDEKIT_SETTING`] (its defaults) first, then
/// every other combination of [`STRIDEKIT_MIN_CHUNK_MB`] x [`STRIDEKIT_MAX_CHUNK_MB`] x
/// [`STRIDEKIT_MAX_MOVES`] (least growth no larger than the largest chunk), as settings.
pub fn stridekit_grid() -> Vec<String> {
    let defaults = AllocConfig::default().stridekit;
    let mut out = vec![STRIDEKIT_SETTING.to_string()];
    for min in STRIDEKIT_MIN_CHUNK_MB {
        for max in STRIDEKIT_MAX_CHUNK_MB {
            for moves in STRIDEKIT_MAX_MOVES {
                if min > max
                    || (min << 20 == defaults.min_chunk
                        && max << 20 == defaults.max_chunk
                        && moves as usize == defaults.max_moves)
                {
                    continue;
                }
                out.push(format!(
                    "{STRIDEKIT_SETTING},stridekit_min_chunk_mb:{min},stridekit_max_chunk_mb:{max},stridekit_max_moves:{moves}"
                ));
            }
        }
    }
    out
}

/// Parse a grid file's text (see the module documentation); `file` names it in errors.
pub fn parse_grid(text: &str, file: &str) -> AllocResult<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        AllocConfig::parse(line).map_err(|e| AllocError::Trace {
            file: file.to_string(),
            line: k + 1,
            field: Some("setting".into()),
            message: e.to_string(),
        })?;
        if !out.iter().any(|s| s == line) {
            out.push(line.to_string());
        }
    }
    if out.is_empty() {
        return Err(AllocError::Trace {
            file: file.to_string(),
            line: 0,
            field: None,
            message: "the grid file lists no setting".into(),
        });
    }
    Ok(out)
}

/// Read a grid file.
pub fn read_grid(path: &Path) -> AllocResult<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| AllocError::io(path.display(), e))?;
    parse_grid(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_grid_is_the_product_and_parses() {
        let g = default_grid();
        assert_eq!(g.len(), 2 * 6 * 6 * 3 * 2);
        assert_eq!(g[0], "default");
        let mut seen = std::collections::HashSet::new();
        for s in &g {
            AllocConfig::parse(s).unwrap();
            assert!(seen.insert(s.clone()), "{s} twice");
        }
        assert!(g.contains(&"expandable_segments:True,max_split_size_mb:128".to_string()));
    }

    #[test]
    fn stridekit_grid_starts_with_the_defaults_and_parses() {
        let g = stridekit_grid();
        assert_eq!(g[0], STRIDEKIT_SETTING);
        assert_eq!(g.len(), 3 * 3 * 2);
        let mut seen = std::collections::HashSet::new();
        for s in &g {
            let c = AllocConfig::parse(s).unwrap();
            assert!(c.is_stridekit(), "{s}");
            assert!(
                seen.insert(c.stridekit.settings()),
                "{s}: the same parameters twice"
            );
        }
    }

    #[test]
    fn grid_files_skip_comments_and_name_bad_lines() {
        let g = parse_grid(
            "# c\n\ndefault\nexpandable_segments:True\ndefault\n",
            "g.txt",
        )
        .unwrap();
        assert_eq!(g, ["default", "expandable_segments:True"]);
        let e = parse_grid("default\nmax_split_size_mb:1\n", "g.txt").unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("g.txt") && m.contains('2') && m.contains("max_split_size_mb"),
            "{m}"
        );
        assert!(parse_grid("# nothing\n", "g.txt").is_err());
    }
}
