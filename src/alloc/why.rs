//! Why memory is wasted: reserved minus allocated bytes of an allocator's state, split by
//! cause, with the largest contributors.
//!
//! Every free (or pending) byte of a segment falls in exactly one part:
//! - `inactive_split`: free blocks of a cudaMalloc'd segment that also holds an active
//!   block: they cannot be released while that block lives (PyTorch's
//!   `inactive_split_bytes`);
//! - `free_cached_segments`: segments that hold no active block, and whole free pages
//!   (chunks) of expandable segments: `empty_cache()` would return them;
//! - `page_rounding`: free bytes of expandable segments inside pages (chunks) that also
//!   hold an active block (PyTorch's pages are 2 MiB in the small pool, 20 MiB in the
//!   large one; stridekit's chunks any multiple of 2 MiB);
//! - `pending_free`: freed blocks waiting for events of the other streams that used them.
//!
//! Besides reserved minus allocated, `request_rounding` is allocated minus requested: what
//! rounding requests up to block sizes (and handing out unsplit blocks) adds.

use serde::Serialize;

use super::block::{Block, NIL, PoolKind};
use super::device::RawDevice;
use super::state::DeviceCachingAllocator;

/// A segment that strands free bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentWaste {
    pub address: u64,
    pub size: u64,
    pub is_expandable: bool,
    pub pool: &'static str,
    /// Bytes of active blocks.
    pub active: u64,
    /// Free bytes (any part).
    pub free: u64,
    /// The largest free block.
    pub largest_free_block: u64,
    /// Active blocks in the segment.
    pub active_blocks: usize,
}

/// Free bytes of partly used segments attributed to the requested size of the live
/// allocations that pin them (a segment's stranded bytes shared equally by its live
/// blocks).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeWaste {
    pub requested_size: u64,
    /// Live allocations of that size that pin a partly used segment.
    pub allocations: usize,
    /// Stranded bytes attributed to them.
    pub stranded: u64,
}

/// Reserved minus allocated bytes of one pool on one stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlaceWaste {
    pub pool: &'static str,
    pub stream: u64,
    pub reserved: u64,
    /// Bytes of active (and pending) blocks.
    pub active: u64,
    /// Free bytes in idle chunks and free cached segments (what `empty_cache()` returns).
    pub idle: u64,
    /// Free bytes in chunks (or cudaMalloc'd segments) that also hold an active block.
    pub in_partly_used: u64,
    /// Those chunks (or segments).
    pub partly_used_chunks: usize,
}

/// Chunks (cudaMalloc'd segments under PyTorch's policy) of one size that hold an active
/// block and free bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChunkWaste {
    pub chunk_size: u64,
    pub chunks: usize,
    /// Their free bytes.
    pub free: u64,
}

/// The breakdown of one state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waste {
    pub reserved: u64,
    pub allocated: u64,
    pub requested: u64,
    pub inactive_split: u64,
    pub free_cached_segments: u64,
    pub page_rounding: u64,
    pub pending_free: u64,
    /// allocated - requested (not part of reserved - allocated).
    pub request_rounding: u64,
    /// The segments with the most free bytes, most first.
    pub top_segments: Vec<SegmentWaste>,
    /// The requested sizes whose allocations strand the most bytes, most first.
    pub top_sizes: Vec<SizeWaste>,
    /// Per pool and stream, by (pool, stream).
    pub places: Vec<PlaceWaste>,
    /// Partly used chunks by size, largest size first.
    pub partly_used_chunks: Vec<ChunkWaste>,
}

impl Waste {
    /// reserved - allocated.
    pub fn gap(&self) -> u64 {
        self.reserved.saturating_sub(self.allocated)
    }
    /// Bytes of the gap attributed to a part.
    pub fn attributed(&self) -> u64 {
        self.inactive_split + self.free_cached_segments + self.page_rounding + self.pending_free
    }
}

/// The breakdown of `a`'s current state, with the `top` largest contributors.
pub fn waste<D: RawDevice>(a: &DeviceCachingAllocator<D>, top: usize) -> Waste {
    let st = a.stats();
    let mut w = Waste {
        reserved: st.reserved_bytes[0].current.max(0) as u64,
        allocated: st.allocated_bytes[0].current.max(0) as u64,
        requested: 0,
        inactive_split: 0,
        free_cached_segments: 0,
        page_rounding: 0,
        pending_free: 0,
        request_rounding: 0,
        top_segments: Vec::new(),
        top_sizes: Vec::new(),
        places: Vec::new(),
        partly_used_chunks: Vec::new(),
    };
    let mut sizes: Vec<(u64, usize, u64)> = Vec::new();
    for head in a.segment_heads() {
        let h = &a.blocks[head as usize];
        let expandable = h.seg != NIL;
        let whole = |ptr: u64, size: u64| -> u64 {
            a.segs[h.seg as usize]
                .whole_chunks(ptr, ptr + size)
                .map(|(_, s)| s)
                .sum()
        };
        let mut seg = SegmentWaste {
            address: h.ptr,
            size: 0,
            is_expandable: expandable,
            pool: pool_name(h.pool),
            active: 0,
            free: 0,
            largest_free_block: 0,
            active_blocks: 0,
        };
        let mut live_requested: Vec<u64> = Vec::new();
        let mut free_blocks: Vec<(u64, u64)> = Vec::new();
        let mut i = head;
        while i != NIL && a.blocks[i as usize].mapped {
            let b = &a.blocks[i as usize];
            seg.size += b.size;
            if b.allocated {
                seg.active += b.size;
                seg.active_blocks += 1;
                w.requested += b.requested;
                live_requested.push(b.requested);
            } else if b.event_count > 0 || !b.stream_uses.is_empty() {
                seg.active += b.size;
                seg.active_blocks += 1;
                w.pending_free += b.size;
            } else {
                seg.free += b.size;
                seg.largest_free_block = seg.largest_free_block.max(b.size);
                free_blocks.push((b.ptr, b.size));
            }
            i = b.next;
        }
        let mut idle = 0;
        if expandable {
            for &(ptr, size) in &free_blocks {
                idle += whole(ptr, size);
            }
            // Free bytes per mapped chunk of this run of blocks (the free blocks are in
            // address order): a chunk with some but not all of its bytes free is partly used.
            let es = &a.segs[h.seg as usize];
            let mut fb = 0;
            for &(cp, cs) in es.chunks.range(&h.ptr, &(h.ptr + seg.size)) {
                let ce = cp + cs;
                while fb < free_blocks.len() && free_blocks[fb].0 + free_blocks[fb].1 <= cp {
                    fb += 1;
                }
                let mut free = 0;
                let mut k = fb;
                while k < free_blocks.len() && free_blocks[k].0 < ce {
                    let (p, z) = free_blocks[k];
                    free += (p + z).min(ce) - p.max(cp);
                    k += 1;
                }
                if free > 0 && free < cs {
                    add_chunk(&mut w.partly_used_chunks, cs, free);
                    add_place(&mut w.places, h, 0, 0, 0, free, 1);
                }
            }
        } else if seg.active_blocks > 0 && seg.free > 0 {
            add_chunk(&mut w.partly_used_chunks, seg.size, seg.free);
            add_place(&mut w.places, h, 0, 0, 0, seg.free, 1);
        }
        if expandable {
            w.free_cached_segments += idle;
            w.page_rounding += seg.free - idle;
        } else if seg.active_blocks == 0 {
            idle = seg.free;
            w.free_cached_segments += seg.free;
        } else {
            w.inactive_split += seg.free;
        }
        add_place(&mut w.places, h, seg.size, seg.active, idle, 0, 0);
        // What the live blocks of a partly used segment strand: its free bytes that are not
        // releasable (all of them in a cudaMalloc'd segment, the page remainders in an
        // expandable one).
        let stranded = if expandable {
            free_blocks.iter().map(|&(p, s)| s - whole(p, s)).sum()
        } else if seg.active_blocks > 0 {
            seg.free
        } else {
            0
        };
        if stranded > 0 && !live_requested.is_empty() {
            let share = stranded / live_requested.len() as u64;
            let rest = stranded % live_requested.len() as u64;
            for (k, &r) in live_requested.iter().enumerate() {
                let add = share + u64::from((k as u64) < rest);
                match sizes.iter_mut().find(|e| e.0 == r) {
                    Some(e) => {
                        e.1 += 1;
                        e.2 += add;
                    }
                    None => sizes.push((r, 1, add)),
                }
            }
        }
        if seg.free > 0 {
            w.top_segments.push(seg);
        }
    }
    w.request_rounding = w.allocated.saturating_sub(w.requested);
    w.places.sort_by_key(|p| (p.pool, p.stream));
    w.partly_used_chunks
        .sort_by_key(|c| std::cmp::Reverse(c.chunk_size));
    w.top_segments
        .sort_by_key(|s| (std::cmp::Reverse(s.free), s.address));
    w.top_segments.truncate(top);
    sizes.sort_by_key(|e| (std::cmp::Reverse(e.2), e.0));
    w.top_sizes = sizes
        .into_iter()
        .take(top)
        .map(|(requested_size, allocations, stranded)| SizeWaste {
            requested_size,
            allocations,
            stranded,
        })
        .collect();
    w
}

fn pool_name(p: PoolKind) -> &'static str {
    if p == PoolKind::Small {
        "small"
    } else {
        "large"
    }
}

/// Add to the figures of `h`'s pool and stream.
fn add_place(
    places: &mut Vec<PlaceWaste>,
    h: &Block,
    reserved: u64,
    active: u64,
    idle: u64,
    in_partly_used: u64,
    chunks: usize,
) {
    let pool = pool_name(h.pool);
    let i = match places
        .iter()
        .position(|p| p.pool == pool && p.stream == h.stream)
    {
        Some(i) => i,
        None => {
            places.push(PlaceWaste {
                pool,
                stream: h.stream,
                reserved: 0,
                active: 0,
                idle: 0,
                in_partly_used: 0,
                partly_used_chunks: 0,
            });
            places.len() - 1
        }
    };
    let p = &mut places[i];
    p.reserved += reserved;
    p.active += active;
    p.idle += idle;
    p.in_partly_used += in_partly_used;
    p.partly_used_chunks += chunks;
}

fn add_chunk(chunks: &mut Vec<ChunkWaste>, size: u64, free: u64) {
    match chunks.iter_mut().find(|c| c.chunk_size == size) {
        Some(c) => {
            c.chunks += 1;
            c.free += free;
        }
        None => chunks.push(ChunkWaste {
            chunk_size: size,
            chunks: 1,
            free,
        }),
    }
}

const MIB: f64 = 1048576.0;

/// The breakdown as a table; `when` says which state it is ("at the peak of reserved bytes").
pub fn table(w: &Waste, when: &str) -> String {
    let gap = w.gap();
    let pct = |v: u64| 100.0 * v as f64 / gap.max(1) as f64;
    let mut s = format!(
        "why: {when}: reserved {:.1} MiB, allocated {:.1} MiB, reserved - allocated {:.1} MiB\n",
        w.reserved as f64 / MIB,
        w.allocated as f64 / MIB,
        gap as f64 / MIB
    );
    for (name, v) in [
        ("inactive split blocks", w.inactive_split),
        ("free cached segments/pages", w.free_cached_segments),
        ("page rounding (expandable)", w.page_rounding),
        ("pending frees (events)", w.pending_free),
    ] {
        s.push_str(&format!(
            "  {name:<28} {:>10.1} MiB {:>6.1}%\n",
            v as f64 / MIB,
            pct(v)
        ));
    }
    s.push_str(&format!(
        "  {:<28} {:>10.1} MiB {:>6.1}%\n",
        "attributed",
        w.attributed() as f64 / MIB,
        pct(w.attributed())
    ));
    s.push_str(&format!(
        "  besides: allocated - requested (request rounding) {:.1} MiB\n",
        w.request_rounding as f64 / MIB
    ));
    s.push_str("  per pool and stream: reserved, active, idle chunks/segments, free in partly used chunks (chunks):\n");
    for p in &w.places {
        s.push_str(&format!(
            "    {:<5} stream {:<6} {:>10.1} {:>10.1} {:>10.1} {:>10.1} MiB ({})\n",
            p.pool,
            p.stream,
            p.reserved as f64 / MIB,
            p.active as f64 / MIB,
            p.idle as f64 / MIB,
            p.in_partly_used as f64 / MIB,
            p.partly_used_chunks
        ));
    }
    if !w.partly_used_chunks.is_empty() {
        s.push_str("  partly used chunks by size: size x count, free:\n");
        for c in &w.partly_used_chunks {
            s.push_str(&format!(
                "    {:>8.1} MiB x{:<5} free {:>9.1} MiB\n",
                c.chunk_size as f64 / MIB,
                c.chunks,
                c.free as f64 / MIB
            ));
        }
    }
    if !w.top_segments.is_empty() {
        s.push_str("  segments with the most free bytes:\n");
        for g in &w.top_segments {
            s.push_str(&format!(
                "    {:#x} {:>9.1} MiB {:<5}{} free {:>9.1} MiB (largest block {:.1} MiB), {} active block(s)\n",
                g.address,
                g.size as f64 / MIB,
                g.pool,
                if g.is_expandable { " expandable" } else { "" },
                g.free as f64 / MIB,
                g.largest_free_block as f64 / MIB,
                g.active_blocks
            ));
        }
    }
    if !w.top_sizes.is_empty() {
        s.push_str("  allocation sizes whose splits strand the most:\n");
        for z in &w.top_sizes {
            s.push_str(&format!(
                "    {:>12} bytes x{:<4} strand {:>9.1} MiB\n",
                z.requested_size,
                z.allocations,
                z.stranded as f64 / MIB
            ));
        }
    }
    s
}
