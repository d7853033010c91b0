//! Warps in lockstep: the accesses of a block's threads grouped by warp and memory
//! instruction, then counted as the memory system sees them. The n-th time a lane executes
//! an instruction (its site) is one request together with the other lanes' n-th time: the
//! kernels' loops and guards only ever drop lanes at the end, so this is what a warp
//! executing in lockstep issues.
//!
//! Per global request: the distinct 32-byte sectors and 128-byte lines touched against the
//! distinct bytes used. Per shared-memory request: the wavefronts its 4-byte words need on
//! 32 banks (8-byte accesses in two half-warp phases, 16-byte in four), against the fewest
//! its size allows; the difference is its bank conflicts.

use std::collections::{BTreeMap, BTreeSet};

use super::program::{Access, Buffer, Program};

/// Counts over some requests (loads or stores of one role).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Global {
    pub requests: u64,
    pub sectors: u64,
    pub lines: u64,
    pub bytes: u64,
}

impl Global {
    fn add(&mut self, o: &Global) {
        self.requests += o.requests;
        self.sectors += o.sectors;
        self.lines += o.lines;
        self.bytes += o.bytes;
    }

    /// Bytes used per byte of the sectors touched (1.0 when nothing was requested).
    pub fn efficiency(&self) -> f64 {
        if self.sectors == 0 {
            1.0
        } else {
            self.bytes as f64 / (self.sectors * 32) as f64
        }
    }
}

/// Shared-memory requests: wavefronts taken and the fewest possible.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shared {
    pub requests: u64,
    pub wavefronts: u64,
    pub ideal: u64,
}

impl Shared {
    pub fn conflicts(&self) -> u64 {
        self.wavefronts - self.ideal
    }
}

/// Everything counted over some blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub loads: Global,
    pub stores: Global,
    /// The row gather's index loads, kept apart from the data.
    pub index_loads: Global,
    pub shared_loads: Shared,
    pub shared_stores: Shared,
    /// Distinct sectors and bytes over runs of consecutive blocks (what reaches DRAM when
    /// L2 merges the sectors neighbouring blocks share), loads and stores.
    pub merged_loads: Global,
    pub merged_stores: Global,
    /// Over every warp: the bytes its longest stretch of global loads asks for before a
    /// store or a dependent load has to wait for them, summed, and the warps counted.
    pub flight_bytes: u64,
    pub warps: u64,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.loads.add(&o.loads);
        self.stores.add(&o.stores);
        self.index_loads.add(&o.index_loads);
        for (a, b) in [
            (&mut self.shared_loads, &o.shared_loads),
            (&mut self.shared_stores, &o.shared_stores),
        ] {
            a.requests += b.requests;
            a.wavefronts += b.wavefronts;
            a.ideal += b.ideal;
        }
        self.merged_loads.add(&o.merged_loads);
        self.merged_stores.add(&o.merged_stores);
        self.flight_bytes += o.flight_bytes;
        self.warps += o.warps;
    }

    /// Mean bytes a warp has in flight.
    pub fn flight_per_warp(&self) -> f64 {
        if self.warps == 0 {
            0.0
        } else {
            self.flight_bytes as f64 / self.warps as f64
        }
    }
}

/// Distinct bytes of some (start, len) ranges.
fn distinct_bytes(mut ranges: Vec<(u64, u64)>) -> u64 {
    ranges.sort_unstable();
    let (mut total, mut end) = (0u64, 0u64);
    for (s, l) in ranges {
        let e = s + l;
        if e > end {
            total += e - s.max(end);
            end = e;
        }
    }
    total
}

fn global_request(lanes: &[&Access]) -> Global {
    let mut sectors = BTreeSet::new();
    let mut lines = BTreeSet::new();
    for a in lanes {
        let last = a.byte + a.bytes as u64 - 1;
        for s in a.byte / 32..=last / 32 {
            sectors.insert((a.buffer, s));
        }
        for l in a.byte / 128..=last / 128 {
            lines.insert((a.buffer, l));
        }
    }
    Global {
        requests: 1,
        sectors: sectors.len() as u64,
        lines: lines.len() as u64,
        bytes: distinct_bytes(lanes.iter().map(|a| (a.byte, a.bytes as u64)).collect()),
    }
}

/// (wavefronts, fewest) of one shared request; `lanes` are in lane order.
fn shared_request(lanes: &[(usize, &Access)]) -> (u64, u64) {
    let width = lanes.iter().map(|(_, a)| a.bytes).max().unwrap_or(4);
    let phases = (width as usize / 4).clamp(1, 4);
    let per_phase = 32 / phases;
    let (mut waves, mut ideal) = (0u64, 0u64);
    for ph in 0..phases {
        let mut words = BTreeSet::new();
        for (lane, a) in lanes {
            if lane / per_phase == ph {
                let last = a.byte + a.bytes as u64 - 1;
                words.extend(a.byte / 4..=last / 4);
            }
        }
        if words.is_empty() {
            continue;
        }
        let mut per_bank = [0u64; 32];
        for w in &words {
            per_bank[(w % 32) as usize] += 1;
        }
        waves += per_bank.iter().copied().max().unwrap_or(0);
        ideal += (words.len() as u64).div_ceil(32);
    }
    (waves, ideal)
}

/// Counts the warps of blocks `first..first + run` (linear block indices, x fastest),
/// `per_lane` holding scratch space.
pub fn count_run(p: &Program, first: u64, run: u64) -> Counts {
    let mut c = Counts::default();
    let mut merged: [Vec<(Buffer, u64, u32)>; 2] = [Vec::new(), Vec::new()];
    let mut lanes: Vec<Vec<Access>> = vec![Vec::new(); 32];
    let gx = p.grid.0 as u64;
    let threads = crate::backend::cuda::choose::BLOCK as u64;
    for b in first..(first + run).min(p.blocks()) {
        let (bx, by) = (b % gx, b / gx);
        for w in 0..threads / 32 {
            for (l, v) in lanes.iter_mut().enumerate() {
                v.clear();
                p.thread(bx, by, w * 32 + l as u64, v);
            }
            count_warp(&lanes, &mut c, &mut merged);
            c.warps += 1;
        }
    }
    for (k, m) in merged.iter().enumerate() {
        let mut sectors = BTreeSet::new();
        for &(buf, byte, n) in m {
            let last = byte + n as u64 - 1;
            sectors.extend((byte / 32..=last / 32).map(|s| (buf, s)));
        }
        let mut bytes = 0;
        for buf in [Buffer::Dst, Buffer::Src] {
            bytes += distinct_bytes(
                m.iter()
                    .filter(|a| a.0 == buf)
                    .map(|a| (a.1, a.2 as u64))
                    .collect(),
            );
        }
        let g = Global {
            requests: 0,
            sectors: sectors.len() as u64,
            lines: 0,
            bytes,
        };
        if k == 0 {
            c.merged_loads.add(&g);
        } else {
            c.merged_stores.add(&g);
        }
    }
    c
}

fn count_warp(lanes: &[Vec<Access>], c: &mut Counts, merged: &mut [Vec<(Buffer, u64, u32)>; 2]) {
    // (site, occurrence) -> the lanes' accesses, and the order requests issue in.
    let mut groups: BTreeMap<(u8, u32), Vec<(usize, &Access)>> = BTreeMap::new();
    let mut order: Vec<(usize, (u8, u32))> = Vec::new();
    for (lane, acc) in lanes.iter().enumerate() {
        let mut seen = [0u32; 8];
        for (i, a) in acc.iter().enumerate() {
            let occ = seen[a.site as usize % 8];
            seen[a.site as usize % 8] += 1;
            let (occ, at) = match a.issue {
                Some(n) => (n, n as usize),
                None => (occ, i),
            };
            let g = groups.entry((a.site, occ)).or_default();
            if g.is_empty() {
                order.push((at, (a.site, occ)));
            }
            g.push((lane, a));
        }
    }
    // Program order of the requests: by the first lane's position, then site.
    order.sort_unstable();
    let (mut run, mut longest) = (0u64, 0u64);
    for (_, key) in &order {
        let g = &groups[key];
        let a0 = g[0].1;
        if a0.buffer == Buffer::Shared {
            let (waves, ideal) = shared_request(g);
            let s = if a0.store {
                &mut c.shared_stores
            } else {
                &mut c.shared_loads
            };
            s.requests += 1;
            s.wavefronts += waves;
            s.ideal += ideal;
            if a0.store {
                longest = longest.max(run);
                run = 0;
            }
            continue;
        }
        let refs: Vec<&Access> = g.iter().map(|(_, a)| *a).collect();
        let r = global_request(&refs);
        if a0.store {
            c.stores.add(&r);
            longest = longest.max(run);
            run = 0;
            merged[1].extend(refs.iter().map(|a| (a.buffer, a.byte, a.bytes)));
        } else {
            if a0.after_wait {
                longest = longest.max(run);
                run = 0;
            }
            if a0.buffer == Buffer::Index {
                c.index_loads.add(&r);
            } else {
                c.loads.add(&r);
                merged[0].extend(refs.iter().map(|a| (a.buffer, a.byte, a.bytes)));
            }
            run += r.bytes;
        }
    }
    c.flight_bytes += longest.max(run);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(byte: u64, bytes: u32, buffer: Buffer) -> Access {
        Access {
            site: 0,
            buffer,
            store: false,
            byte,
            bytes,
            after_wait: false,
            issue: None,
        }
    }

    #[test]
    fn sectors_lines_and_bytes_of_one_request() {
        // 32 lanes x 4 bytes from byte 0: 4 sectors, 1 line; from byte 4: 5 sectors, 2 lines.
        for (start, sectors, lines) in [(0, 4, 1), (4, 5, 2)] {
            let v: Vec<Access> = (0..32)
                .map(|l| acc(start + 4 * l, 4, Buffer::Src))
                .collect();
            let r = global_request(&v.iter().collect::<Vec<_>>());
            assert_eq!((r.sectors, r.lines, r.bytes), (sectors, lines, 128));
        }
        // A broadcast: every lane the same 4 bytes.
        let v: Vec<Access> = (0..32).map(|_| acc(64, 4, Buffer::Src)).collect();
        let r = global_request(&v.iter().collect::<Vec<_>>());
        assert_eq!((r.sectors, r.bytes), (1, 4));
        // Stride 2 elements: half of each sector used.
        let v: Vec<Access> = (0..32).map(|l| acc(8 * l, 4, Buffer::Src)).collect();
        assert_eq!(
            global_request(&v.iter().collect::<Vec<_>>()).efficiency(),
            0.5
        );
    }

    #[test]
    fn bank_conflicts_of_one_request() {
        let shared = |stride: u64, bytes: u32| {
            let v: Vec<Access> = (0..32)
                .map(|l| acc(l * stride, bytes, Buffer::Shared))
                .collect();
            let lanes: Vec<(usize, &Access)> = v.iter().enumerate().collect();
            shared_request(&lanes)
        };
        // Consecutive words, a column of a padded 32 x 33 tile: one wavefront.
        assert_eq!(shared(4, 4), (1, 1));
        assert_eq!(shared(33 * 4, 4), (1, 1));
        // A column of an unpadded 32 x 32 tile: all in one bank.
        assert_eq!(shared(32 * 4, 4), (32, 1));
        // Stride 2 words: 2-way.
        assert_eq!(shared(8, 4), (2, 1));
        // 8-byte consecutive: two phases, no conflict; bytes of one word: broadcast.
        assert_eq!(shared(8, 8), (2, 2));
        assert_eq!(shared(1, 1), (1, 1));
    }
}
