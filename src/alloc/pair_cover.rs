//! Pair covers for policy:stridekit (`stridekit_pair_cover_mb`, off by default; a design
//! studied for issue 22, docs/alloc_design_studies.md, "Session 15").
//!
//! A gap is filled with the smallest idle chunk that covers it alone; a 20 MiB chunk
//! covering a 13 to 15 MiB rest leaves the 5 to 7 MiB free next to a live block that
//! session 10 found at the peaks. With pair covers, when that chunk would leave at least
//! `stridekit_pair_cover_mb` more free bytes than the best pair of idle chunks that covers
//! the gap together, the pair moves instead (one move more, nothing created either way).

use super::scratch::Idle;

/// The two idle chunks (indices into `idle`, of those below `need`) that together cover
/// `need` bytes within `room` with the fewest bytes, with their total; among equal totals
/// the pair whose smaller chunk comes first by `at`.
pub(crate) fn best_pair(
    idle: &[Idle],
    need: u64,
    room: u64,
    at: impl Fn(&Idle) -> u64,
) -> Option<(usize, usize, u64)> {
    let mut c: Vec<(u64, u64, usize)> = idle
        .iter()
        .enumerate()
        .filter(|(_, k)| k.size < need && k.size < room)
        .map(|(j, k)| (k.size, at(k), j))
        .collect();
    c.sort_unstable();
    let mut best: Option<(usize, usize, u64)> = None;
    for (x, &(a, _, ja)) in c.iter().enumerate() {
        // The smallest partner of at least need - a bytes, other than this chunk.
        let from = c.partition_point(|&(s, _, _)| s < need - a);
        let y = if from == x { from + 1 } else { from };
        let Some(&(b, _, jb)) = c.get(y) else {
            continue;
        };
        if a + b <= room && best.is_none_or(|(_, _, t)| a + b < t) {
            best = Some((ja, jb, a + b));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn idle(sizes: &[u64]) -> Vec<Idle> {
        sizes
            .iter()
            .enumerate()
            .map(|(j, &s)| Idle {
                ptr: j as u64 * 64 * MIB,
                size: s * MIB,
            })
            .collect()
    }

    #[test]
    fn the_pair_with_the_fewest_bytes_wins() {
        let k = idle(&[20, 12, 2, 4, 10]);
        let (a, b, t) = best_pair(&k, 14 * MIB, 64 * MIB, |k| k.ptr).unwrap();
        assert_eq!(t, 14 * MIB);
        assert_eq!([k[a].size, k[b].size], [2 * MIB, 12 * MIB]);
        assert_eq!(best_pair(&k, 14 * MIB, 13 * MIB, |k| k.ptr), None);
        assert_eq!(best_pair(&idle(&[12]), 14 * MIB, 64 * MIB, |k| k.ptr), None);
        let (a, b, t) = best_pair(&idle(&[8, 8]), 14 * MIB, 64 * MIB, |k| k.ptr).unwrap();
        assert_eq!((a.min(b), a.max(b), t), (0, 1, 16 * MIB));
    }
}
