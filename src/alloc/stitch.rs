//! stridekit's own policy (`policy:stridekit` in the settings string): expandable
//! segments built of variable-size physical chunks that move to where memory is needed.
//!
//! PyTorch's expandable segments map new 20 MiB pages at the end of a segment whenever no
//! free mapped block fits a request, and unmap free pages only when the device runs out;
//! free pages stranded between live blocks stay mapped, so reserved memory is the
//! high-water mark of the segment's extent, not of what is live. Here:
//!
//! - Physical model: a segment is one reserved virtual range (`cuMemAddressReserve`) into
//!   which chunks are mapped; a chunk is one `cuMemCreate` handle of any multiple of
//!   CUDA's 2 MiB granularity ([`GRANULE`]), mapped whole at one place
//!   (`cuMemMap` + `cuMemSetAccess`). A chunk can move (`cuMemUnmap` keeping the handle,
//!   then `cuMemMap` + `cuMemSetAccess` elsewhere) or be released (`cuMemUnmap` +
//!   `cuMemRelease`) only whole, so the free part of a chunk that also holds a live block
//!   is stranded while that block lives.
//! - A request that no free mapped block fits goes where it creates the fewest bytes once
//!   the idle chunks (whole chunks inside free blocks) have been moved there, then where
//!   it moves the fewest chunks, then where it maps the fewest bytes: a free block
//!   followed by unmapped address space, a hole left by earlier moves, or the end of the
//!   segment.
//! - Each unmapped stretch it lands on is filled with idle chunks moved from elsewhere:
//!   the smallest that covers the rest alone, else the largest that fit, up to
//!   `stridekit_max_moves` (16); only the rest is created, as chunks of exactly the bytes needed
//!   (2 MiB granular) but at least [`LARGE_MIN_CHUNK`] and at most [`LARGE_MAX_CHUNK`]
//!   each in the large pool (2 MiB in the small pool), so a growth of N MiB costs about
//!   N/20 creates and as many maps instead of PyTorch's N/20 pages, and its last chunk is
//!   no larger than what is needed.
//! - Chunk size trades the targets: chunks of any size (one create and one map per
//!   growth) need a fifth of PyTorch's device calls, but the free tails of big chunks
//!   strand memory (requested/reserved 0.87 on the random trace); capped at 16 MiB they
//!   strand less but need 2.5 times PyTorch's calls there; 18 to 20 MiB meets both.
//! - `max_split_size` does not apply to blocks of expandable segments (under PyTorch it
//!   only makes them grow, pytorch/pytorch#123548).
//! - A partly used chunk's free tail is not lent to a request through a second mapping
//!   of the chunk (GMLake's aliasing): tried in session 9, it missed more targets
//!   (docs/alloc_design_studies.md, "Session 9: aliasing partly used chunks").
//!
//! Device calls: a moved chunk costs one unmap and one map, a new chunk one create and one
//! map; the simulated device counts them ([`super::device::DeviceCalls`]). On a GPU the
//! same calls go through cudarc's driver API ([`super::CudaDevice`]: `map_page` creates,
//! `map_spare` maps a kept handle, `unmap_page_keep` unmaps keeping it); that path
//! compiles but has not run on a GPU yet.

use super::block::{NIL, PoolKind, fkey, key_rank};
use super::chunks::max_chunk;
use super::device::{RawDevice, StreamId};
use super::error::{AllocError, AllocResult};
use super::pair_cover;
use super::scratch::{Gap, Idle};
use super::state::DeviceCachingAllocator;

pub use super::chunks::{LARGE_MAX_CHUNK, LARGE_MIN_CHUNK};
pub use super::sizes::GRANULE;

/// What a placement costs: (bytes to create, lifetime mismatch of its first side, chunks
/// moved, bytes mapped); the mismatch is 0 unless `stridekit_share_mode` bit 1 is on
/// ([`super::life_share`]).
type Cost = (u64, u32, usize, u64);

impl<D: RawDevice> DeviceCachingAllocator<D> {
    /// The gaps a request of `size` bytes starting at free block `c` maps, walking the
    /// free blocks after it as the mapping will, into `gaps`; false (and `gaps` empty)
    /// when they do not reach `size`.
    fn gaps(&self, c: u32, size: u64, gaps: &mut Vec<Gap>) -> bool {
        gaps.clear();
        let (mut bytes, mut i) = (0u64, c);
        while bytes < size && self.allocatable(i) {
            let b = &self.blocks[i as usize];
            let take = b.size.min(size - bytes);
            if !b.mapped {
                gaps.push(Gap {
                    need: take.div_ceil(GRANULE) * GRANULE,
                    room: b.size,
                });
            }
            bytes += take;
            i = b.next;
        }
        if bytes < size {
            gaps.clear();
        }
        bytes >= size
    }

    /// Where a request of `size` bytes lands in the pool's expandable segments: of the
    /// places with enough free address space, the one that maps the fewest new bytes
    /// (then the lowest address); returns (first block, extent to keep clear) and leaves
    /// the gaps it maps in `scratch.best_gaps`.
    fn placement(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        size: u64,
    ) -> AllocResult<(u32, (u64, u64))> {
        let mut s = std::mem::take(&mut self.scratch);
        self.idle_chunks(stream, pool, None, &mut s.idle);
        s.best_gaps.clear();
        let mut best: Option<(Cost, u32)> = None;
        let tie = self.cfg.stridekit.tie_break;
        let (high_first, last_wins) = (tie & 1 != 0, tie & 2 != 0);
        let cap = self.share_slack_cap();
        let unmapped = match pool {
            PoolKind::Small => &self.small,
            PoolKind::Large => &self.large,
        }
        .unmapped
        .from(&(stream, 0));
        for &(_, u) in unmapped.iter().take_while(|((st, _), _)| *st == stream) {
            let prev = self.blocks[u as usize].prev;
            let c = if self.allocatable(prev) { prev } else { u };
            if self.gaps(c, size, &mut s.gaps) {
                let mut score = placement_cost(
                    &s.idle,
                    &s.gaps,
                    (
                        self.cfg.stridekit.max_moves,
                        cap,
                        self.cfg.stridekit.pair_cover,
                    ),
                    high_first,
                    (&mut s.trial, &mut s.chosen),
                );
                score.1 = self.growth_mismatch(c);
                if best.is_none_or(|(m, _)| score < m || (last_wins && score == m)) {
                    best = Some((score, c));
                    std::mem::swap(&mut s.best_gaps, &mut s.gaps);
                }
            }
        }
        let c = match best {
            Some((_, c)) => Ok(c),
            None => self
                .find_expandable_block(stream, pool, size)
                .inspect(|&c| {
                    self.gaps(c, size, &mut s.best_gaps);
                }),
        };
        self.scratch = s;
        let c = c?;
        let b = &self.blocks[c as usize];
        Ok((c, (b.ptr.saturating_sub(GRANULE), b.ptr + size + GRANULE)))
    }

    /// The whole chunks of free mapped blocks of the pool's expandable segments on
    /// `stream` that may move, into `idle` by address: not overlapping `keep` (the extent
    /// a request is about to use), and not in the neighbours of the request's first block
    /// `c` or of the unmapped block after it (so that neither is merged away).
    fn idle_chunks(
        &self,
        stream: StreamId,
        pool: PoolKind,
        exclude: Option<((u64, u64), u32)>,
        idle: &mut Vec<Idle>,
    ) {
        idle.clear();
        let (keep, c) = exclude.unwrap_or(((0, 0), NIL));
        let u = match c {
            NIL => NIL,
            c if self.blocks[c as usize].mapped => self.blocks[c as usize].next,
            c => c,
        };
        let near = |i: u32| {
            let b = &self.blocks[i as usize];
            c != NIL && (i == c || i == u || [c, u].contains(&b.prev) || [c, u].contains(&b.next))
        };
        // Physical memory is not tied to a pool: the other pool's idle chunks may move
        // here too, those no larger than the chunks this pool creates.
        let most = max_chunk(&self.cfg.stridekit, pool);
        // Only free blocks of `stream` of at least one granule can hold a whole chunk:
        // in each pool's free list (by stream rank, size, address) they form one range.
        let Ok(rank) = self.streams.binary_search(&stream) else {
            return;
        };
        let rank = rank as u16;
        let candidates = [&self.small, &self.large].into_iter().flat_map(|p| {
            p.blocks
                .from(fkey(rank, GRANULE, 0))
                .take_while(move |&(_, k, _)| key_rank(k) == rank)
        });
        for (_, _, i) in candidates {
            let b = &self.blocks[i as usize];
            if b.seg == NIL || b.stream != stream || !self.allocatable(i) {
                continue;
            }
            if (b.ptr < keep.1 && b.ptr + b.size > keep.0) || near(i) {
                continue;
            }
            let seg = &self.segs[b.seg as usize];
            idle.extend(
                seg.whole_chunks(b.ptr, b.ptr + b.size)
                    .filter(|&(_, size)| b.pool == pool || size <= most)
                    .map(|(ptr, size)| Idle { ptr, size }),
            );
        }
        idle.sort_unstable_by_key(|k| k.ptr);
    }

    /// Unmap idle chunks (keeping their physical memory) to be mapped again in the gaps
    /// the placement left in `scratch.best_gaps`; leaves their sizes in `spare_chunks` in
    /// the order the gaps take them.
    fn take_idle_chunks(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        keep: (u64, u64),
        c: u32,
    ) -> AllocResult<()> {
        let mut s = std::mem::take(&mut self.scratch);
        self.idle_chunks(stream, pool, Some((keep, c)), &mut s.idle);
        s.chosen.clear();
        let cap = self.share_slack_cap();
        for g in &s.best_gaps {
            choose_chunks(
                &mut s.idle,
                (g.need, g.room),
                (
                    self.cfg.stridekit.max_moves,
                    cap,
                    self.cfg.stridekit.pair_cover,
                ),
                self.cfg.stridekit.tie_break & 1 != 0,
                &mut s.chosen,
            );
        }
        let r = self.unmap_chosen(&s.chosen);
        if r.is_ok() {
            self.spare_chunks.clear();
            self.spare_chunks.extend(s.chosen.iter().map(|k| k.size));
        }
        self.scratch = s;
        r
    }

    /// Unmap each of `chosen`, keeping its physical memory.
    fn unmap_chosen(&mut self, chosen: &[Idle]) -> AllocResult<()> {
        for k in chosen {
            let i = self.mapped_block_at(k.ptr)?;
            self.unmap_block_chunks(i, (k.ptr, k.ptr + k.size), true)?;
        }
        Ok(())
    }

    /// Every free block of both pools (physical chunks move between pools).
    fn free_blocks_of_both_pools(&self) -> impl Iterator<Item = u32> + '_ {
        self.small.blocks.values().chain(self.large.blocks.values())
    }

    /// The free mapped block holding address `ptr` (the start of an idle chunk chosen
    /// before other chunks were unmapped, which splits and merges blocks).
    fn mapped_block_at(&self, ptr: u64) -> AllocResult<u32> {
        self.free_blocks_of_both_pools()
            .find(|&i| {
                let b = &self.blocks[i as usize];
                b.mapped && b.ptr <= ptr && ptr < b.ptr + b.size
            })
            .ok_or_else(|| AllocError::Internal(format!("no free mapped block holds {ptr:#x}")))
    }

    /// Allocate `size` bytes from the pool's expandable segment, mapping idle chunks moved
    /// from elsewhere before creating a new one.
    pub(crate) fn try_allocate_stitched_block(
        &mut self,
        stream: StreamId,
        pool: PoolKind,
        size: u64,
    ) -> AllocResult<Option<u32>> {
        let (c, keep) = self.placement(stream, pool, size)?;
        if !self.scratch.best_gaps.is_empty() {
            self.take_idle_chunks(stream, pool, keep, c)?;
        }
        let found = self.allocate_expandable_at(c, size);
        // Chunks taken but not mapped again (the request failed) go back to the device.
        self.spare_chunks.clear();
        self.dev.release_spare_pages()?;
        found
    }
}

/// What landing on `gaps` costs with `idle` chunks to move (`limits`: the most moves
/// per gap and the most free bytes a covering chunk may leave): (bytes to create, 0,
/// chunks moved, bytes mapped), compared in that order. `work` holds a copy of `idle` the
/// trial takes chunks from and the chunks it takes for one gap.
fn placement_cost(
    idle: &[Idle],
    gaps: &[Gap],
    limits: (usize, u64, u64),
    high_first: bool,
    work: (&mut Vec<Idle>, &mut Vec<Idle>),
) -> Cost {
    let (trial, chosen) = work;
    trial.clear();
    trial.extend_from_slice(idle);
    let (mut created, mut moved, mut mapped) = (0, 0, 0);
    for g in gaps {
        chosen.clear();
        choose_chunks(trial, (g.need, g.room), limits, high_first, chosen);
        let covered: u64 = chosen.iter().map(|k| k.size).sum();
        created += g.need.saturating_sub(covered);
        moved += chosen.len();
        mapped += g.need;
    }
    (created, 0, moved, mapped)
}

/// Which idle chunks fill a gap of `need` bytes with `room` bytes of address space
/// (`gap` = (need, room); removed from `idle`, appended to `out`): one chunk that covers
/// it if there is one (the smallest, and leaving at most `slack_cap` free), else the
/// largest that fit, up to `max_moves` (`limits` = (max_moves, slack_cap)), topped up by
/// the smallest that covers the rest; what they leave uncovered is created. Among equally
/// large chunks the lowest address is taken, the highest with `high_first`
/// (`stridekit_tie_break`). With `pair_gain` (`stridekit_pair_cover_mb`, 0: off), a
/// covering chunk that leaves at least that many bytes more free than the best pair of
/// idle chunks covering the rest ([`pair_cover::best_pair`]) gives way to the pair.
fn choose_chunks(
    idle: &mut Vec<Idle>,
    gap: (u64, u64),
    limits: (usize, u64, u64),
    high_first: bool,
    out: &mut Vec<Idle>,
) {
    let (need, room) = gap;
    let (max_moves, slack_cap, pair_gain) = limits;
    // The address as a tie-break key: lower first, or higher first.
    let at = |k: &Idle| if high_first { u64::MAX - k.ptr } else { k.ptr };
    let covering = |idle: &[Idle], need: u64, room: u64| {
        idle.iter()
            .enumerate()
            .filter(|(_, k)| k.size >= need && k.size <= room && k.size - need <= slack_cap)
            .min_by_key(|(_, k)| (k.size, at(k)))
            .map(|(j, _)| j)
    };
    let (mut need, mut room, mut taken) = (need, room, 0);
    while need > 0 && taken < max_moves {
        if let Some(j) = covering(idle, need, room) {
            let slack = idle[j].size - need;
            let pair = (pair_gain > 0 && slack >= pair_gain && taken + 2 <= max_moves)
                .then(|| pair_cover::best_pair(idle, need, room, at))
                .flatten()
                .filter(|&(_, _, total)| total - need + pair_gain <= slack);
            match pair {
                Some((a, b, _)) => {
                    let (hi, lo) = (a.max(b), a.min(b));
                    let k = idle.remove(hi);
                    out.push(idle.remove(lo));
                    out.push(k);
                }
                None => out.push(idle.remove(j)),
            }
            break;
        }
        let Some(j) = idle
            .iter()
            .enumerate()
            .filter(|(_, k)| k.size < need)
            .max_by_key(|(_, k)| (k.size, std::cmp::Reverse(at(k))))
            .map(|(j, _)| j)
        else {
            break;
        };
        let k = idle.remove(j);
        need -= k.size;
        room -= k.size;
        out.push(k);
        taken += 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::alloc::{AllocConfig, DeviceCachingAllocator, SimulatedDevice};

    const MIB: u64 = 1 << 20;

    fn allocator(setting: &str, capacity: u64) -> DeviceCachingAllocator<SimulatedDevice> {
        DeviceCachingAllocator::new(
            SimulatedDevice::new(capacity),
            AllocConfig::parse(setting).unwrap(),
        )
        .unwrap()
    }

    /// A freed block's chunks are moved to the end of the segment instead of new ones.
    #[test]
    fn idle_chunks_move_to_where_a_request_lands() {
        let run = |setting: &str| {
            let mut a = allocator(setting, 16 << 30);
            let x = a.malloc(64 * MIB, 0).unwrap();
            let _y = a.malloc(64 * MIB, 0).unwrap();
            a.free(x).unwrap();
            let z = a.malloc(96 * MIB, 0).unwrap();
            assert!(z.ptr > x.ptr);
            (a.stats().reserved_bytes[0].peak as u64, a.device().calls)
        };
        let (reserved, calls) = run("policy:stridekit");
        // x and y: chunks of 20, 20, 20 and 4 MiB each; then x's 4 chunks (64 MiB) move
        // to the end of the segment and z's other 32 MiB are created as 20 + 12 MiB.
        assert_eq!(reserved, 160 * MIB);
        assert_eq!(calls.page_creates, 10);
        assert_eq!(calls.page_maps, 14);
        assert_eq!(calls.page_unmaps, 4);
        assert_eq!(calls.page_releases, 0);
        let (pytorch, _) = run("expandable_segments:True");
        assert!(pytorch > reserved, "{pytorch} <= {reserved}");
    }

    /// A growth creates the 2 MiB granules it needs, in chunks of at most 20 MiB, where
    /// PyTorch maps whole 20 MiB pages.
    #[test]
    fn growth_creates_only_the_granules_needed() {
        let run = |setting: &str| {
            let mut a = allocator(setting, 16 << 30);
            a.malloc(201 * MIB, 0).unwrap();
            (a.stats().reserved_bytes[0].peak as u64, a.device().calls)
        };
        let (reserved, calls) = run("policy:stridekit");
        assert_eq!(reserved, 202 * MIB);
        assert_eq!(calls.page_creates, 11);
        assert_eq!(calls.page_maps, 11);
        let (pytorch, calls) = run("expandable_segments:True");
        assert_eq!(pytorch, 220 * MIB);
        assert_eq!(calls.page_creates, 11);
    }

    /// A small large-pool request grows the segment by the least chunk, which the next
    /// ones share (as PyTorch's pages are shared).
    #[test]
    fn small_growths_share_a_chunk() {
        let mut a = allocator("policy:stridekit", 16 << 30);
        for _ in 0..3 {
            a.malloc(6 * MIB, 0).unwrap();
        }
        assert_eq!(a.stats().reserved_bytes[0].current as u64, 18 * MIB);
        assert_eq!(a.device().calls.obtaining(), 2);
        a.malloc(6 * MIB, 0).unwrap();
        assert_eq!(a.stats().reserved_bytes[0].current as u64, 36 * MIB);
        assert_eq!(a.device().calls.obtaining(), 4);
    }

    /// An idle chunk of the small pool fills a gap of the large pool (physical memory
    /// is not tied to a pool), so the large pool creates only the rest.
    #[test]
    fn idle_small_pool_chunks_move_into_the_large_pool() {
        let mut a = allocator("policy:stridekit", 16 << 30);
        let s = a.malloc(MIB / 2, 0).unwrap();
        a.free(s).unwrap();
        assert_eq!(a.stats().reserved_bytes[1].current as u64, 2 * MIB);
        a.malloc(20 * MIB, 0).unwrap();
        // The small pool's 2 MiB chunk moved; 18 MiB (the least growth) were created.
        assert_eq!(a.stats().reserved_bytes[0].peak as u64, 20 * MIB);
        assert_eq!(a.stats().reserved_bytes[1].current, 0);
        assert_eq!(a.stats().reserved_bytes[2].current as u64, 20 * MIB);
        let calls = a.device().calls;
        assert_eq!(calls.page_creates, 2);
        assert_eq!(calls.page_maps, 3);
        assert_eq!(calls.page_unmaps, 1);
        assert_eq!(a.device().used(), 20 * MIB);
    }

    /// Slack feedback (`stridekit_slack_decay`, off by default): with it on, mixed
    /// requests take other decisions (the least growth shrinks while slack goes unused),
    /// and the books balance all the same.
    #[test]
    fn slack_feedback_changes_growths_and_keeps_the_books() {
        let run = |setting: &str| {
            let mut a = allocator(setting, 16 << 30);
            let (mut live, mut x) = (Vec::new(), 99u64);
            for step in 0..2000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Mostly large requests (their growths leave no slack), some small ones.
                let size = if step % 4 == 0 {
                    3 * MIB
                } else {
                    (x >> 33) % (60 * MIB) + MIB
                };
                live.push(a.malloc(size, 0).unwrap());
                if live.len() > 40 {
                    let k = (x >> 40) as usize % live.len();
                    a.free(live.swap_remove(k)).unwrap();
                }
            }
            let reserved = a.stats().reserved_bytes[0].current as u64;
            assert_eq!(a.device().used(), reserved, "{setting}");
            let peak = (
                a.stats().reserved_bytes[0].peak,
                a.device().calls.obtaining(),
            );
            for h in live {
                a.free(h).unwrap();
            }
            a.release_all().unwrap();
            assert_eq!(a.device().used(), 0, "{setting}");
            peak
        };
        let off = run("policy:stridekit");
        assert_eq!(off, run("policy:stridekit,stridekit_slack_decay:0"));
        assert_ne!(off, run("policy:stridekit,stridekit_slack_decay:4"));
        assert_eq!(off, run("policy:stridekit,stridekit_growth_align_mb:0"));
        assert_ne!(off, run("policy:stridekit,stridekit_growth_align_mb:20"));
    }

    /// Out of memory under the policy: nothing is left behind as spare chunks.
    #[test]
    fn failed_requests_release_the_chunks_they_took() {
        let mut a = allocator("policy:stridekit", 256 * MIB);
        let x = a.malloc(64 * MIB, 0).unwrap();
        let _y = a.malloc(64 * MIB, 0).unwrap();
        a.free(x).unwrap();
        assert!(a.malloc(300 * MIB, 0).is_err());
        let used = a.device().used();
        assert_eq!(used as i64, a.stats().reserved_bytes[0].current);
    }
}
