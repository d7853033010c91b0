//! The realigning copy's accesses (gather_scatter.cu sk_realign_body): a warp per run,
//! runs grid-strided over the warps; per run a carry load (when the source's phase is not
//! below the destination's), then batches of [`REALIGN_UNROLL`] 32-word chunks, their
//! loads at 32-word-aligned source addresses before their stores at 32-word-aligned
//! destination addresses. Lanes before a run's start or past its end skip theirs, so each
//! access carries the warp-uniform step that issues it. Bases are 256-byte aligned (the
//! model's cudaMalloc), so a run's phase is its element offset mod 32.

use super::{Access, Buffer, Linear, Program, access};
use crate::backend::cuda::choose::BLOCK;
use crate::backend::cuda::realign::REALIGN_UNROLL;

/// One access: site, store, byte offset and the step that issues it.
pub(super) type Put<'a> = &'a mut dyn FnMut(u8, bool, u64, u32);

/// Walks thread `t` of block `bx` over a launch of `grid_x` blocks of `width`-byte words:
/// `runs` runs of `run` words, `offsets(linear)` the element offsets (destination, source)
/// of a logical index, at most `max_steps` runs.
pub(super) fn walk(
    (width, grid_x, max_steps): (usize, u32, u64),
    (bx, t): (u64, u64),
    (run, runs): (i64, i64),
    offsets: &dyn Fn(u64) -> (u64, u64),
    put: Put,
) {
    let w = width as i64;
    let warps = (BLOCK / 32) as i64;
    let lane = t as i64 % 32;
    let nwarps = grid_x as i64 * warps;
    let mut r = bx as i64 * warps + t as i64 / 32;
    let mut issue = 0u32;
    for _ in 0..max_steps {
        if r >= runs {
            break;
        }
        let (d0, s0) = offsets((r * run) as u64);
        let (d0, s0) = (d0 as i64, s0 as i64);
        let (ps, pd) = (s0 % 32, d0 % 32);
        let hi = (ps >= pd) as i64;
        let chunks = (run + pd + 31) / 32;
        let src_at = |j: i64| (0..run).contains(&j).then_some(((s0 + j) * w) as u64);
        if let Some(at) = src_at(lane - ps).filter(|_| hi == 1) {
            put(0, false, at, issue);
        }
        issue += 1;
        for k0 in (0..chunks).step_by(REALIGN_UNROLL as usize) {
            for u in 0..REALIGN_UNROLL {
                let j = (k0 + u + hi) * 32 + lane - ps;
                if let Some(at) = src_at(j).filter(|_| k0 + u < chunks) {
                    put(1, false, at, issue + u as u32);
                }
            }
            for u in 0..REALIGN_UNROLL {
                let j = (k0 + u) * 32 + lane - pd;
                if k0 + u < chunks && (0..run).contains(&j) {
                    let at = ((d0 + j) * w) as u64;
                    put(2, true, at, issue + (REALIGN_UNROLL + u) as u32);
                }
            }
            issue += 2 * REALIGN_UNROLL as u32;
        }
        r += nwarps;
    }
}

impl Program<'_> {
    /// sk_realign_body: [`walk`] over the launch's runs.
    pub(super) fn realign(&self, bx: u64, t: u64, p: &Linear, out: &mut Vec<Access>) {
        let run = p.sizes[p.rank.max(1) - 1].max(1);
        let (w, geo) = (self.width as u64, (self.width, self.grid.0, self.max_steps));
        let mut put = |site, store, byte, issue| {
            let buffer = if store { Buffer::Dst } else { Buffer::Src };
            let mut a = access(site, buffer, store, byte, w);
            a.issue = Some(issue);
            out.push(a);
        };
        let runs = (p.numel as i64 / run, &|l| p.offsets(l));
        walk(geo, (bx, t), (run, runs.0), runs.1, &mut put);
    }
}
