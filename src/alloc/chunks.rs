//! How stridekit's policy sizes the physical chunks it maps into an expandable segment:
//! spare chunks (unmapped from elsewhere, physical memory kept) first, then new chunks of
//! the bytes needed, between the pool's least growth and its largest chunk.

use super::block::PoolKind;
use super::sizes::{GRANULE, K_SMALL_BUFFER};

/// The least a large-pool segment grows by when it must create memory (PyTorch's page is
/// 20 MiB): requests below it share chunks, as they share PyTorch's pages.
pub const LARGE_MIN_CHUNK: u64 = 18 << 20;
/// The largest chunk the large pool creates (PyTorch's large page). A chunk moves or is
/// released only as a whole, so the free part of one that also holds a live block is
/// stranded while that block lives: larger chunks cost fewer calls but strand more.
pub const LARGE_MAX_CHUNK: u64 = 20 << 20;
/// The largest chunk `pool` creates.
pub(crate) fn max_chunk(pool: PoolKind) -> u64 {
    match pool {
        PoolKind::Small => K_SMALL_BUFFER,
        PoolKind::Large => LARGE_MAX_CHUNK,
    }
}

/// The chunks to map at the start of an unmapped block of `room` bytes so that
/// `size` bytes are mapped: the spare chunks taken for this request that fit, in
/// order, then one new chunk for the rest (at least the pool's least growth, as far
/// as the room allows). (size, whether it is a spare) each.
pub(crate) fn chunk_plan(
    spare_chunks: &mut Vec<u64>,
    ptr: u64,
    size: u64,
    room: u64,
    pool: PoolKind,
) -> Vec<(u64, bool)> {
    debug_assert_eq!(ptr % GRANULE, 0);
    let need = size.div_ceil(GRANULE) * GRANULE;
    let mut plan = Vec::new();
    let mut at = 0u64;
    let mut k = 0;
    while at < need && k < spare_chunks.len() {
        let s = spare_chunks[k];
        if at + s <= room {
            plan.push((s, true));
            at += s;
            spare_chunks.remove(k);
        } else {
            k += 1;
        }
    }
    if at < need {
        let least = match pool {
            PoolKind::Small => K_SMALL_BUFFER,
            PoolKind::Large => LARGE_MIN_CHUNK,
        };
        let mut rest = (need - at).max(least).min(room - at);
        let most = max_chunk(pool);
        while rest > 0 {
            let c = rest.min(most);
            plan.push((c, false));
            rest -= c;
        }
    }
    plan
}
