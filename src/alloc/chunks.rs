//! How stridekit's policy sizes the physical chunks it maps into an expandable segment:
//! spare chunks (unmapped from elsewhere, physical memory kept) first, then new chunks of
//! the bytes needed, between the pool's least growth and its largest chunk.

use super::block::PoolKind;
use super::config::StridekitParams;
use super::sizes::{GRANULE, K_SMALL_BUFFER};

/// The default least growth of a large-pool segment ([`StridekitParams::min_chunk`]).
pub const LARGE_MIN_CHUNK: u64 = StridekitParams::DEFAULT.min_chunk;
/// The default largest chunk of the large pool ([`StridekitParams::max_chunk`]).
pub const LARGE_MAX_CHUNK: u64 = StridekitParams::DEFAULT.max_chunk;

/// The largest chunk `pool` creates.
pub(crate) fn max_chunk(k: &StridekitParams, pool: PoolKind) -> u64 {
    match pool {
        PoolKind::Small => K_SMALL_BUFFER,
        PoolKind::Large => k.max_chunk,
    }
}

/// The chunks to map at `ptr`, the start of an unmapped block of `room` bytes, so that
/// `size` bytes are mapped (`place` = (ptr, size, room)): the spare chunks taken for this
/// request that fit, in order, then one new chunk for the rest (at least the pool's least
/// growth, as far as the room allows, and at most `slack_cap` bytes past what is needed).
/// Appended to `plan` as (size, whether it is a spare).
pub(crate) fn chunk_plan(
    params: &StridekitParams,
    spare_chunks: &mut Vec<u64>,
    place: (u64, u64, u64),
    pool: PoolKind,
    slack_cap: u64,
    plan: &mut Vec<(u64, bool)>,
) {
    let (ptr, size, room) = place;
    debug_assert_eq!(ptr % GRANULE, 0);
    let need = size.div_ceil(GRANULE) * GRANULE;
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
            PoolKind::Large => params.min_chunk,
        };
        let least = least.min((need - at).saturating_add(slack_cap));
        let mut rest = (need - at).max(least).min(room - at);
        let most = max_chunk(params, pool);
        while rest > 0 {
            let c = rest.min(most);
            plan.push((c, false));
            rest -= c;
        }
    }
}
