//! The packed tile's geometry (permute.cu sk_tilep_*, cuTT's Packed idea): whole small
//! dimensions on both sides of a transpose, so that a block reads one contiguous run of the
//! source per tile row and writes one contiguous run of the destination per tile column,
//! each in warp requests aligned to 32-byte sectors. choose.rs decides when it replaces the
//! scalar tile.

use super::divisor;
use super::params::{SK_MAX_RANK, SkTile};

const MAX_RANK: usize = SK_MAX_RANK as usize;

/// What planning needs to know of the device: the most shared memory one block may use,
/// by opt-in (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, queried where the
/// device is opened; a launch past 48 KB sets the kernel's
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first). Only the packed tile uses more
/// than 48 KB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceLimits {
    pub max_shared_per_block: u32,
}

impl DeviceLimits {
    /// What every device allows without opt-in: 48 KB.
    pub const PORTABLE: DeviceLimits = DeviceLimits {
        max_shared_per_block: 48 * 1024,
    };
    /// An H200 (sm_90): 227 KB by opt-in. `stridekit model` and the CPU-side plan tests
    /// plan for it.
    pub const H200: DeviceLimits = DeviceLimits {
        max_shared_per_block: 232_448,
    };
}

/// Registers per thread of sk_tilep_w1/w2/w4/w8 (the larger of the two index widths;
/// src/bench/model/sm90_resources.tsv, which the model's tests check this against): the
/// plan's estimate of how many packed blocks an SM holds.
pub const TILEP_REGISTERS: [u32; 4] = [46, 46, 48, 48];

/// Per-SM limits of sm_90 the estimate uses (src/bench/model/occupancy.rs has the model's).
const SM_SHARED: u64 = 228 * 1024;
const SM_SHARED_RESERVED: u64 = 1024;
const SM_THREADS: u64 = 2048;
const SM_REGISTERS: u64 = 65536;
const SMS: u64 = 132;
/// Bytes in flight per SM the copy rate needs (Little's law; the model's target).
const FLIGHT_PER_SM: f64 = 20.0 * 1024.0;

/// The plan's estimate of the bytes a full SM of packed blocks has in flight: resident
/// blocks (from shared memory, registers, threads and the batch, as `stridekit model`
/// counts them) x `threads` x `ept` loads of `width` bytes.
fn packed_flight(shared: i64, batch: i64, (width, ept, threads): (usize, u32, u32)) -> f64 {
    let regs = TILEP_REGISTERS[width.trailing_zeros().min(3) as usize] as u64;
    let threads = threads.max(32) as u64;
    let per_warp = (regs * 32).div_ceil(256) * 256;
    let (shared, batch) = (shared.max(0) as u64, batch.max(1) as u64);
    let blocks = [
        SM_SHARED / (shared.div_ceil(128) * 128 + SM_SHARED_RESERVED),
        SM_THREADS / threads,
        SM_REGISTERS / per_warp / threads.div_ceil(32),
        batch.div_ceil(SMS),
    ]
    .into_iter()
    .min()
    .unwrap_or(1)
    .max(1);
    (blocks * threads * ept as u64 * width as u64) as f64
}

/// The plan's estimate of the bytes in flight per SM of packed blocks whose tile has
/// `runs` source runs of `len` elements: [`packed_flight`] scaled to the busy warps (one
/// run per warp), to the share of a batch of `ept` loads a warp's runs fill (32 lanes per
/// request) and to the lanes those requests use (a run shorter than a warp, or ending
/// inside its last request, leaves lanes idle).
pub(super) fn busy_flight(
    (shared, batch): (i64, i64),
    (runs, len): (i64, i64),
    (width, ept, threads): (usize, u32, u32),
) -> f64 {
    let warps = (threads / 32).max(1) as i64;
    let (runs, len) = (runs.max(1), len.max(1));
    let busy = runs.min(warps) as f64 / warps as f64;
    let per_run = chunks_of(len, 32);
    let requests = chunks_of(runs, warps).saturating_mul(per_run) as f64;
    let fill = (requests / ept.max(1) as f64).min(1.0);
    let lanes = len as f64 / (32.0 * per_run as f64);
    packed_flight(shared, batch, (width, ept, threads)) * busy * fill * lanes
}

/// Whether [`busy_flight`] reaches the bytes in flight per SM the copy rate needs.
pub(super) fn enough_flight(
    shared_batch: (i64, i64),
    runs_len: (i64, i64),
    launch: (usize, u32, u32),
) -> bool {
    busy_flight(shared_batch, runs_len, launch) >= FLIGHT_PER_SM
}

/// Shared memory every device gives a block without opt-in.
const PORTABLE_SHARED: i64 = 48 * 1024;

/// Elements per row of the packed tile of `nb` runs of `run` elements (sk_tilep_pitch in
/// tile.cuh): for single elements an odd number of 4-byte words up to 4-byte elements, an
/// odd number of 8-byte ones, so a warp reading a column hits 32 banks; for runs of more
/// than one element (a gather's kept innermost run) the row's `nb * run` elements padded
/// to a pitch congruent to `run` modulo the 128 bytes of the 32 banks, so a warp reading
/// 32 consecutive elements of a column's runs hits consecutive bank slots.
pub const fn tile_packed_pitch(nb: i64, run: i64, width: usize) -> i64 {
    let w = width as i64;
    if run > 1 {
        return nb * run + ((run - nb * run) & (128 / w - 1));
    }
    if w >= 8 {
        return nb | 1;
    }
    ((((nb * w + 3) / 4) | 1) * 4) / w
}

/// Bytes a source run of the packed tile should reach when its rows follow each other
/// (an aligned run of 1 KB uses ~97% of its sectors).
const RUN_BYTES: i64 = 1024;

/// Rows of a packed tile one source run takes. When the A group's innermost dimension
/// (the last A entry of `p`'s batch arrays, n0 rows) has source stride n_b, its rows follow
/// each other in the source, so a warp's aligned requests may run across them; with the
/// pitch n_b they follow each other in the tile too (no bank conflict where a request
/// crosses a row). A run then takes k rows, k the smallest divisor of n0 whose run reaches
/// [`RUN_BYTES`] (n0 when none does), but no more than leave every one of `warps` warps a
/// run (the largest divisor that does). Otherwise 1. [`packed_tile`] passes it to the
/// kernel as `tiles_b`, and the run's `tiles_b * n_b` elements as `src_stride_a`.
fn source_rows(p: &SkTile, (width, run): (usize, i64), warps: i64) -> i64 {
    let Ok(inner) = usize::try_from(p.batch_rank + p.tile_a - 1) else {
        return 1;
    };
    if p.tile_a < 1 || inner >= MAX_RANK {
        return 1;
    }
    let (n0, na, nb) = (p.batch_sizes[inner], p.n_a, p.n_b);
    let row = nb.saturating_mul(run);
    if p.batch_src_strides[inner] != row || tile_packed_pitch(nb, run, width) != row || n0 < 2 {
        return 1;
    }
    let row = row.saturating_mul(width as i64).max(1);
    let divides = |k: &i64| n0 % k == 0;
    let long = (1..=n0)
        .filter(divides)
        .find(|k| k.saturating_mul(row) >= RUN_BYTES)
        .unwrap_or(n0);
    let busy = (1..=n0.min(na / warps.max(1)))
        .rev()
        .find(divides)
        .unwrap_or(1);
    long.min(busy)
}

/// Expected share of the sectors a warp's requests use along runs of `len` elements: one
/// sector more than the run per `chunk` elements (a request of 32 lanes that starts
/// anywhere in a sector, or one aligned run).
pub(super) fn run_efficiency(len: i64, chunk: i64, width: usize) -> f64 {
    let bytes = (len.min(chunk) * width as i64) as f64;
    bytes / (bytes + 32.0)
}

/// Expected share of the sectors used along a dimension of `n` elements cut in chunks of
/// `c` (the last one ragged when `c` does not divide `n`): one partial sector per chunk's
/// run, the ragged chunk's included. [`run_efficiency`] of `c` where `c` divides `n`.
fn chunked_efficiency(n: i64, c: i64, width: usize) -> f64 {
    let bytes = (n * width as i64) as f64;
    bytes / (bytes + 32.0 * chunks_of(n, c) as f64)
}

/// How many chunks of `c` elements (at least 1) a dimension of `n >= 0` elements is cut
/// into, the last one ragged when `c` does not divide `n` (no overflow near `i64::MAX`).
fn chunks_of(n: i64, c: i64) -> i64 {
    let c = c.max(1);
    n / c + i64::from(n % c != 0)
}

/// A packed tile: its arguments (SkTile read as permute.cu's sk_tilep describes), shared
/// bytes, and the expected sector efficiency of its reads and of its writes.
#[derive(Debug, Clone, Copy)]
pub(super) struct PackedTile {
    pub params: SkTile,
    pub shared: i64,
    pub efficiency: (f64, f64),
}

/// How a packed tile is sized: the device's shared memory per block, the loads per thread
/// per step and threads per block of the launch, and the fewest batch blocks it may leave.
#[derive(Debug, Clone, Copy)]
pub(super) struct PackedBudget {
    pub max_shared: i64,
    pub ept: u32,
    pub threads: u32,
    pub min_blocks: i64,
    /// Whether a split start may leave a ragged last chunk (the 32-bit index kernels read
    /// it; permute.cu sk_tilep_ragged).
    pub ragged: bool,
}

/// A packed tile's groups: A is ga[..la] (product na), B gb[..lb] (nb), innermost first.
/// A group's outermost dimension may be split (cuTT's PackedSplit): the group takes `part`
/// of its size, a divisor, and the batch walks the size / part chunks.
#[derive(Debug, Clone, Copy)]
struct Groups {
    ga: [usize; MAX_RANK],
    gb: [usize; MAX_RANK],
    la: usize,
    lb: usize,
    na: i64,
    nb: i64,
    used: [bool; MAX_RANK],
    part: [i64; MAX_RANK],
    splits: usize,
}

impl Groups {
    /// Batch indices: the dimensions no group takes, and each split dimension's chunks (a
    /// ragged last chunk included).
    fn batch(&self, sizes: &[i64], r: usize) -> i64 {
        (0..r).fold(1i64, |acc, k| {
            let n = if self.used[k] {
                chunks_of(sizes[k], self.part[k])
            } else {
                sizes[k]
            };
            acc.saturating_mul(n)
        })
    }

    /// The size of the ragged last chunk of the group's dimension `k` (0: none).
    fn ragged(&self, sizes: &[i64], k: usize) -> i64 {
        if self.used[k] && self.part[k] > 0 {
            sizes[k] % self.part[k]
        } else {
            0
        }
    }
}

/// Group A takes whole dimensions contiguous in the destination from `a` (destination
/// stride 1), group B whole dimensions contiguous in the source from `b` (source stride 1),
/// growing the shorter run first while the n_a x n_b tile fits in 48 KB; the other
/// dimensions are the batch. Where the device allows more (`budget.max_shared`), the same
/// growth up to that limit passes through larger tiles: the last of them past 48 KB that
/// keeps [`FLIGHT_PER_SM`] in flight (by [`packed_flight`]) and at least
/// `budget.min_blocks` batch indices replaces the 48 KB tile when neither side's runs
/// promise less of each sector and both together (harmonic mean) more. When neither group
/// can take its next dimension whole, the shorter one takes the largest divisor of its
/// size that fits (PackedSplit; see [`grow`]); a split tile within 48 KB that leaves fewer
/// than `budget.min_blocks` batch indices gives way to the tile before the split. `dims`
/// are (sizes, destination strides, source strides), innermost last. When the two
/// dimensions `a` and `b` do not fit whole, each group starts from a chunk of its
/// dimension ([`split_start`]: a divisor, or a whole number of sectors with a ragged last
/// chunk, which the kernel reads from `src_dtype` (A) and `dst_dtype` (B); the pair whose
/// worse side promises most among those that keep [`FLIGHT_PER_SM`] in flight and
/// `budget.min_blocks` batch indices) and grows no further; None when no pair does. The
/// expected efficiency of a side is 1 where every run starts on a sector boundary and is
/// whole sectors long. With `run` > 1 (a gather keeping an innermost run of `run`
/// elements, contiguous on both sides), `dims` leave that run out and the tile's elements
/// are runs: A starts at the destination dimension of stride `run`, B at the source's, and
/// the kernel reads the run from `dst_stride_b` (permute.cu).
pub(super) fn packed_tile(
    (sizes, dst, src): (&[i64], &[i64], &[i64]),
    (dst_offset, src_offset): (i64, i64),
    (a, b): (usize, usize),
    (width, run): (usize, i64),
    budget: PackedBudget,
) -> Option<PackedTile> {
    let r = sizes.len().min(MAX_RANK);
    if a >= r || b >= r || dst.len() < r || src.len() < r {
        return None;
    }
    let w = width as i64;
    let run = run.max(1);
    let mut total = 1i64;
    for &n in &sizes[..r] {
        total = total.checked_mul(n)?;
    }
    let shared_of = |na: i64, nb: i64| {
        let row = nb.checked_mul(run)?;
        na.checked_mul(tile_packed_pitch(row / run, run, width))
            .and_then(|x| x.checked_mul(w))
    };
    let promise = |g: &Groups| {
        let (na, nb) = (g.na.saturating_mul(run), g.nb.saturating_mul(run));
        (run_efficiency(nb, nb, width), run_efficiency(na, na, width))
    };
    // Neither side promises less, and both together (harmonic mean) more.
    let better = |l: &Groups, p: &Groups| {
        let ((lr, lw), (pr, pw)) = (promise(l), promise(p));
        lr >= pr && lw >= pw && 1.0 / lr + 1.0 / lw < 1.0 / pr + 1.0 / pw
    };
    // How a split first tile (dimensions a and b too large to take whole) is rated: the
    // worse side's promise; zero (not taken) when it leaves fewer than
    // `budget.min_blocks` batch indices or keeps less than FLIGHT_PER_SM in flight by
    // [`busy_flight`] (one source row per run).
    let (sa, sb) = (sizes[a], sizes[b]);
    let score =
        |ca: i64, cb: i64| {
            let len = cb.saturating_mul(run);
            let eff = chunked_efficiency(sb.saturating_mul(run), len, width).min(
                chunked_efficiency(sa.saturating_mul(run), ca.saturating_mul(run), width),
            );
            let batch = (total / sa.saturating_mul(sb).max(1))
                .saturating_mul(chunks_of(sa, ca))
                .saturating_mul(chunks_of(sb, cb));
            // A ragged chunk's batch index must fit the kernel's 32-bit chunk arithmetic.
            if (sa % ca != 0 || sb % cb != 0) && batch > i32::MAX as i64 {
                return 0.0;
            }
            if batch < budget.min_blocks {
                return 0.0;
            }
            let shared = shared_of(ca, cb).unwrap_or(i64::MAX);
            let launch = (width, budget.ept, budget.threads);
            if !enough_flight((shared, batch), (ca, len), launch) {
                return 0.0;
            }
            eff
        };
    let portable_max = budget.max_shared.min(PORTABLE_SHARED);
    // Tile elements (runs of `run`) per sector: a ragged chunk's length is a multiple.
    let bytes = (w * run).max(1);
    let sec_elems = 32
        / (1..=32)
            .rev()
            .find(|d| 32 % d == 0 && bytes % d == 0)
            .unwrap_or(1);
    // Ragged chunks for transposes only (the kernel reads a ragged B chunk's run as its
    // size: lr = 1).
    let sec_elems = if budget.ragged && run == 1 {
        sec_elems
    } else {
        0
    };
    // Within 48 KB: the last tile of the growth, but not a split one that leaves fewer
    // than `budget.min_blocks` batch indices (the last before the split then).
    let mut unsplit_or_enough: Option<Groups> = None;
    let portable = grow(
        (sizes, dst, src),
        (a, b),
        (r, portable_max / w / run, sec_elems),
        |na, nb| shared_of(na, nb).is_some_and(|x| x <= portable_max),
        score,
        |g| {
            if g.splits == 0 || g.batch(sizes, r) >= budget.min_blocks {
                unsplit_or_enough = Some(*g);
            }
        },
    );
    let portable = unsplit_or_enough.or(portable);
    let mut large: Option<Groups> = None;
    if budget.max_shared > PORTABLE_SHARED {
        let fits = |na: i64, nb: i64| shared_of(na, nb).is_some_and(|x| x <= budget.max_shared);
        grow(
            (sizes, dst, src),
            (a, b),
            (r, budget.max_shared / w / run, sec_elems),
            fits,
            score,
            |g| {
                let shared = shared_of(g.na, g.nb).unwrap_or(i64::MAX);
                let batch = g.batch(sizes, r);
                let flight = packed_flight(shared, batch, (width, budget.ept, budget.threads));
                if shared > PORTABLE_SHARED && batch >= budget.min_blocks && flight >= FLIGHT_PER_SM
                {
                    large = Some(*g);
                }
            },
        );
    }
    let g = match (portable, large) {
        (Some(p), Some(l)) if better(&l, &p) => l,
        (None, Some(l)) => l,
        (p, _) => p?,
    };
    let Groups {
        ga,
        gb,
        la,
        lb,
        na,
        nb,
        used,
        part,
        splits,
    } = g;
    let batch_rank = r + splits - la - lb;
    if r + splits > MAX_RANK {
        return None;
    }
    let mut p = SkTile {
        dst_offset,
        src_offset,
        n_a: na,
        n_b: nb,
        tile_a: la as i32,
        tile_b: lb as i32,
        tiles_b: 1,
        dst_stride_b: run,
        batch_rank: batch_rank as i32,
        ..Default::default()
    };
    // The batch: the dimensions no group takes, and the chunks of the split ones (a chunk
    // index steps `part` elements of its dimension), in dimension order, but the chunk
    // indices of ragged dimensions (a last chunk shorter than `part`: the groups of
    // [`split_start`], one dimension each) innermost, B's then A's, as permute.cu reads
    // them; then the groups.
    let (rag_a, rag_b) = (g.ragged(sizes, ga[0]), g.ragged(sizes, gb[0]));
    if (rag_a > 0 && la != 1) || (rag_b > 0 && lb != 1) {
        return None;
    }
    let ragged_last = |k: usize| match (rag_b > 0 && k == gb[0], rag_a > 0 && k == ga[0]) {
        (true, _) => 1,
        (_, true) => 2,
        _ => 0,
    };
    let mut batch = 1i64;
    let mut n = 0;
    for pass in 0..3 {
        for k in (0..r).filter(|&k| ragged_last(k) == pass) {
            if !used[k] || part[k] < sizes[k] {
                let q = if used[k] { part[k] } else { 1 };
                let chunks = chunks_of(sizes[k], q);
                p.batch_sizes[n] = chunks;
                p.batch_dst_strides[n] = dst[k].checked_mul(q)?;
                p.batch_src_strides[n] = src[k].checked_mul(q)?;
                batch = batch.checked_mul(chunks)?;
                n += 1;
            }
        }
    }
    if (rag_a > 0 || rag_b > 0) && batch > i32::MAX as i64 {
        return None;
    }
    p.src_dtype = i32::try_from(rag_a).ok()?;
    p.dst_dtype = i32::try_from(rag_b).ok()?;
    for &k in ga[..la].iter().rev().chain(gb[..lb].iter().rev()) {
        p.batch_sizes[n] = part[k];
        p.batch_dst_strides[n] = dst[k];
        p.batch_src_strides[n] = src[k];
        n += 1;
    }
    p.batch = batch;
    // One row per source run with a ragged chunk (a run of rows could pass its end).
    let rows = if rag_a > 0 || rag_b > 0 {
        1
    } else {
        source_rows(&p, (width, run), (budget.threads / 32).max(1) as i64)
    };
    let len = nb.checked_mul(run)?.checked_mul(rows)?;
    let column = na.checked_mul(run)?;
    p.tiles_b = i32::try_from(rows).ok()?;
    p.src_stride_a = len;
    // Runs whose every start is on a sector boundary (the offset and the strides that
    // place them multiples of a sector, whole sectors long) use whole sectors.
    let sec = 32 / w;
    let (br, ta, tb) = (p.batch_rank as usize, la, lb);
    let on_sectors =
        |offset: i64, strides: bool, n: i64| n % sec == 0 && offset % sec == 0 && strides;
    let multiples = |x: &i64| x % sec == 0;
    let src_starts = &p.batch_src_strides[..br + ta];
    let mut dst_starts = p.batch_dst_strides[..br]
        .iter()
        .chain(&p.batch_dst_strides[br + ta..br + ta + tb]);
    // A ragged chunk: its runs count too (in the share of the whole dimension).
    let (load_n, store_n) = (
        if rag_b > 0 { sizes[gb[0]] * run } else { len },
        if rag_a > 0 {
            sizes[ga[0]] * run
        } else {
            column
        },
    );
    let load = if on_sectors(src_offset, src_starts.iter().all(multiples), len)
        && (rag_b * run) % sec == 0
    {
        1.0
    } else {
        chunked_efficiency(load_n, len, width)
    };
    let store =
        if on_sectors(dst_offset, dst_starts.all(multiples), column) && (rag_a * run) % sec == 0 {
            1.0
        } else {
            chunked_efficiency(store_n, column, width)
        };
    divisor::tile_divisors(&mut p, 1);
    Some(PackedTile {
        params: p,
        shared: shared_of(na, nb)?,
        efficiency: (load, store),
    })
}

/// The chunks (ca of `na`, cb of `nb`) of a packed tile's first two dimensions when they
/// do not fit whole: of the pairs that `fits`, the one `score` rates highest (ties: the
/// larger tile). A chunk is a divisor of its dimension or, with `sec` > 0, a multiple of
/// `sec` elements (a sector) shorter than it, whose last chunk is ragged (permute.cu masks
/// it). None when no pair that fits scores above zero. `fits` grows with either chunk.
fn split_start(
    (na, nb): (i64, i64),
    sec: i64,
    fits: impl Fn(i64, i64) -> bool,
    score: impl Fn(i64, i64) -> f64,
) -> Option<(i64, i64)> {
    let chunk = move |n: i64, c: &i64| n % c == 0 || (sec > 0 && c % sec == 0);
    let mut best: Option<(f64, i64, (i64, i64))> = None;
    for ca in (1..=na).filter(|c| chunk(na, c)) {
        if !fits(ca, 1) {
            break;
        }
        for cb in (1..=nb).filter(|c| chunk(nb, c)) {
            if !fits(ca, cb) {
                break;
            }
            let s = score(ca, cb);
            if s <= 0.0 {
                continue;
            }
            if best.is_none_or(|(bs, be, _)| s > bs || (s == bs && ca * cb > be)) {
                best = Some((s, ca * cb, (ca, cb)));
            }
        }
    }
    best.map(|b| b.2)
}

/// The growth of [`packed_tile`] while `fits(na, nb)`: whole dimensions, shorter run first;
/// when neither group's next dimension fits whole, the largest divisor of its size that
/// fits (the group's last step; `max_elems` bounds the divisors tried). `visit` sees every
/// tile it passes through (the first included); returns the last, None when the first does
/// not fit.
fn grow(
    (sizes, dst, src): (&[i64], &[i64], &[i64]),
    (a, b): (usize, usize),
    (r, max_elems, sec): (usize, i64, i64),
    fits: impl Fn(i64, i64) -> bool,
    score: impl Fn(i64, i64) -> f64,
    mut visit: impl FnMut(&Groups),
) -> Option<Groups> {
    let mut g = Groups {
        ga: [a; MAX_RANK],
        gb: [b; MAX_RANK],
        la: 1,
        lb: 1,
        na: sizes[a],
        nb: sizes[b],
        used: [false; MAX_RANK],
        part: [0; MAX_RANK],
        splits: 0,
    };
    (g.used[a], g.used[b]) = (true, true);
    (g.part[a], g.part[b]) = (sizes[a], sizes[b]);
    if !fits(g.na, g.nb) {
        // Two dimensions too large to take whole: a chunk of each, a divisor or, with
        // `sec`, whole sectors and a ragged last chunk (the pair `score` rates highest
        // among those that fit; the groups then stop, as after a split).
        let (ca, cb) = split_start((sizes[a], sizes[b]), sec, &fits, &score)?;
        let splits = usize::from(ca < sizes[a]) + usize::from(cb < sizes[b]);
        if r + splits > MAX_RANK {
            return None;
        }
        (g.part[a], g.part[b], g.na, g.nb, g.splits) = (ca, cb, ca, cb, splits);
    }
    visit(&g);
    // The dimension that continues a group's run (none past a split one).
    let next = |grp: &[usize], strides: &[i64], g: &Groups| {
        let k = *grp.last()?;
        if g.part[k] < sizes[k] {
            return None;
        }
        let want = strides[k].checked_mul(sizes[k])?;
        (0..r).find(|&j| !g.used[j] && strides[j] == want)
    };
    // The largest proper divisor of dimension j's size that keeps the tile within `fits`
    // when the group's product `n` takes it (`other` the other group's), while a split
    // dimension still fits in the kernels' arrays.
    let split = |j: usize, n: i64, other: i64, a_side: bool, g: &Groups| {
        if r + g.splits >= MAX_RANK {
            return None;
        }
        // No tile holds more elements than `max_elems`: larger divisors cannot fit.
        let size = sizes[j];
        let cap = (max_elems / n.max(1) / other.max(1)).min(size - 1);
        (2..=cap).rev().filter(|c| size % c == 0).find_map(|c| {
            let m = n.checked_mul(c)?;
            let ok = if a_side {
                fits(m, other)
            } else {
                fits(other, m)
            };
            ok.then_some((j, c))
        })
    };
    loop {
        let (ja, jb) = (next(&g.ga[..g.la], dst, &g), next(&g.gb[..g.lb], src, &g));
        let whole_a = ja
            .and_then(|j| Some((j, sizes[j], g.na.checked_mul(sizes[j])?)))
            .filter(|&(_, _, n)| fits(n, g.nb));
        let whole_b = jb
            .and_then(|j| Some((j, sizes[j], g.nb.checked_mul(sizes[j])?)))
            .filter(|&(_, _, n)| fits(g.na, n));
        // Whole dimensions first; a split (the group's last step) only when neither fits.
        let (grow_a, grow_b) = if whole_a.is_some() || whole_b.is_some() {
            (whole_a, whole_b)
        } else {
            let sa = ja.and_then(|j| split(j, g.na, g.nb, true, &g));
            let sb = jb.and_then(|j| split(j, g.nb, g.na, false, &g));
            (
                sa.map(|(j, c)| (j, c, g.na * c)),
                sb.map(|(j, c)| (j, c, g.nb * c)),
            )
        };
        let take = |g: &mut Groups, j: usize, c: i64| {
            g.used[j] = true;
            g.part[j] = c;
            if c < sizes[j] {
                g.splits += 1;
            }
        };
        match (grow_a, grow_b) {
            (Some((j, c, n)), other) if g.na <= g.nb || other.is_none() => {
                take(&mut g, j, c);
                g.na = n;
                g.ga[g.la] = j;
                g.la += 1;
            }
            (_, Some((j, c, n))) => {
                take(&mut g, j, c);
                g.nb = n;
                g.gb[g.lb] = j;
                g.lb += 1;
            }
            _ => return Some(g),
        }
        visit(&g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_take_whole_dimensions_on_both_sides() {
        // Source (4, 5, 6, 7) contiguous, permuted by (0, 2, 3, 1): sizes (4, 6, 7, 5),
        // source strides (210, 7, 1, 42), destination contiguous. A starts at dim 3 (5),
        // B at dim 2 (7) and grows through dim 1 (6, source stride 7); A cannot grow (its
        // next destination dimension is B's dim 2). Dim 0 is the batch.
        let sizes = [4, 6, 7, 5];
        let dst = [210, 35, 5, 1];
        let src = [210, 7, 1, 42];
        let budget = |max_shared| PackedBudget {
            max_shared,
            ept: 4,
            threads: 256,
            min_blocks: 1,
            ragged: false,
        };
        let t = packed_tile(
            (&sizes, &dst, &src),
            (0, 0),
            (3, 2),
            (4, 1),
            budget(48 * 1024),
        )
        .unwrap();
        assert_eq!((t.params.n_a, t.params.n_b), (5, 42));
        assert_eq!(
            (t.params.batch_rank, t.params.tile_a, t.params.tile_b),
            (1, 1, 2)
        );
        assert_eq!(t.params.batch, 4);
        assert_eq!(&t.params.batch_sizes[..4], &[4, 5, 6, 7]);
        assert_eq!(t.shared, 5 * 43 * 4);
        // Nothing fits: None.
        assert!(packed_tile((&sizes, &dst, &src), (0, 0), (3, 2), (4, 1), budget(16)).is_none());
        // Past 48 KB: (135, 30, 10, 194) f32 reversed. 135 x 194 needs 105300 bytes (no
        // tile within 48 KB); on an H200 two such blocks per SM keep 24 KB in flight
        // (12 loads of 4 bytes per thread) over 300 batch indices: taken, and it cannot
        // grow (the next dimensions make it too large).
        let sizes = [194, 10, 30, 135];
        let (dst, src) = ([40500, 4050, 135, 1], [1, 194, 1940, 58200]);
        let h200 = PackedBudget {
            max_shared: 232_448,
            ept: 12,
            threads: 256,
            min_blocks: 264,
            ragged: false,
        };
        let dims = (&sizes[..], &dst[..], &src[..]);
        let t = packed_tile(dims, (0, 0), (3, 0), (4, 1), h200).unwrap();
        assert_eq!((t.params.n_a, t.params.n_b, t.shared), (135, 194, 105_300));
        assert_eq!((t.params.batch, t.params.batch_rank), (300, 2));
        // Within 48 KB, or too few batch indices for the large tile: a tile of a divisor
        // of each of the two dimensions (split_start) within 48 KB instead.
        let few = PackedBudget {
            min_blocks: 301,
            ..h200
        };
        let portable = PackedBudget {
            max_shared: 48 * 1024,
            ..h200
        };
        for b in [portable, few] {
            let t = packed_tile(dims, (0, 0), (3, 0), (4, 1), b).unwrap();
            let q = t.params;
            assert!(t.shared <= 48 * 1024 && (q.n_a, q.n_b) != (135, 194));
            assert!(135 % q.n_a == 0 && 194 % q.n_b == 0 && q.batch >= b.min_blocks);
            assert_eq!(
                (q.tile_a, q.tile_b, q.batch * q.n_a * q.n_b),
                (1, 1, 135 * 58200)
            );
        }
        // No pair of divisors keeps 20 KB in flight with 4 loads per thread (rows of 97
        // elements leave a quarter of their requests' lanes idle), nor with one: none.
        let shallow = PackedBudget { ept: 4, ..h200 };
        assert!(packed_tile(dims, (0, 0), (3, 0), (4, 1), shallow).is_none());
        let single = PackedBudget { ept: 1, ..h200 };
        assert!(packed_tile(dims, (0, 0), (3, 0), (4, 1), single).is_none());
        // A split (PackedSplit): sizes (20, 64, 64), A = dim 2 (destination stride 1), B =
        // dim 1 (source stride 1); A's next destination dimension, dim 0 (20), does not fit
        // whole (1280 x 65 x 4 bytes), its divisor 2 does (128 x 65 x 4 = 33280; 4 would
        // not): the batch walks its 10 chunks of 2.
        let sizes = [20, 64, 64];
        let (dst, src) = ([64, 1280, 1], [4096, 1, 64]);
        let dims = (&sizes[..], &dst[..], &src[..]);
        let t = packed_tile(dims, (0, 0), (2, 1), (4, 1), budget(48 * 1024)).unwrap();
        let q = t.params;
        assert_eq!((q.n_a, q.n_b, t.shared), (128, 64, 33_280));
        assert_eq!((q.batch, q.batch_rank, q.tile_a, q.tile_b), (10, 1, 2, 1));
        assert_eq!(&q.batch_sizes[..4], &[10, 2, 64, 64]);
        assert_eq!(&q.batch_dst_strides[..4], &[128, 64, 1, 1280]);
        assert_eq!(&q.batch_src_strides[..4], &[8192, 4096, 64, 1]);
        // A split leaving fewer batch indices than wanted is not taken.
        let few = PackedBudget {
            min_blocks: 11,
            ..budget(48 * 1024)
        };
        let t = packed_tile(dims, (0, 0), (2, 1), (4, 1), few).unwrap();
        assert_eq!((t.params.n_a, t.params.batch), (64, 20));
        // Source runs across rows: (3, 240, 9) f64 permuted by (0, 2, 1). A (240, source
        // stride 9 = n_b) has its rows one after another in the source, and the pitch is 9:
        // a run takes 15 rows (the smallest divisor of 240 reaching 1 KB: 15 x 72 bytes),
        // which leaves 16 runs for the 8 warps. With 10-element f32 rows the pitch is 11:
        // one row per run.
        let sizes = [3, 9, 240];
        let (dst, src) = ([2160, 240, 1], [2160, 1, 9]);
        let t = packed_tile(
            (&sizes, &dst, &src),
            (0, 0),
            (2, 1),
            (8, 1),
            budget(48 * 1024),
        )
        .unwrap();
        let q = t.params;
        assert_eq!((q.n_a, q.n_b, q.tiles_b, q.src_stride_a), (240, 9, 15, 135));
        assert_eq!(t.efficiency.0, run_efficiency(135, 135, 8));
        let sizes = [3, 10, 240];
        let (dst, src) = ([2400, 240, 1], [2400, 1, 10]);
        let t = packed_tile(
            (&sizes, &dst, &src),
            (0, 0),
            (2, 1),
            (4, 1),
            budget(48 * 1024),
        )
        .unwrap();
        let q = t.params;
        assert_eq!((q.n_a, q.n_b, q.tiles_b, q.src_stride_a), (240, 10, 1, 10));
        assert_eq!(tile_packed_pitch(42, 1, 4), 43);
        assert_eq!(tile_packed_pitch(42, 1, 2), 42);
        assert_eq!(tile_packed_pitch(40, 1, 2), 42);
        assert_eq!(tile_packed_pitch(8, 1, 1), 12);
        assert_eq!(tile_packed_pitch(8, 1, 8), 9);
    }
}
