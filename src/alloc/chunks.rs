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

/// The large pool's least growth for `rest` bytes still to create when the pool holds
/// `pool_reserved` bytes: `min_chunk`, and with aligned growth
/// ([`StridekitParams::growth_align`]) at most the distance to the first multiple of the
/// alignment at or past `pool_reserved + rest` (never less than `rest`: the caller takes the
/// larger). Saturating: the sum is bounded by the device's capacity in practice.
fn aligned_least(params: &StridekitParams, pool_reserved: u64, rest: u64) -> u64 {
    let a = params.growth_align;
    if a == 0 {
        return params.min_chunk;
    }
    let want = pool_reserved.saturating_add(rest);
    let boundary = want.div_ceil(a).saturating_mul(a);
    params.min_chunk.min(boundary - pool_reserved)
}

/// The chunks to map at `ptr`, the start of an unmapped block of `room` bytes, so that
/// `size` bytes are mapped (`place` = (ptr, size, room)): the spare chunks taken for this
/// request that fit, in order, then one new chunk for the rest (at least the pool's least
/// growth, as far as the room allows, and at most `slack_cap` bytes past what is needed;
/// `pool_reserved`, the pool's reserved bytes, matters only with aligned growth).
/// Appended to `plan` as (size, whether it is a spare).
pub(crate) fn chunk_plan(
    params: &StridekitParams,
    spare_chunks: &mut Vec<u64>,
    place: (u64, u64, u64),
    pool: PoolKind,
    slack_cap: u64,
    pool_reserved: u64,
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
            PoolKind::Large => aligned_least(params, pool_reserved, need - at),
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

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    fn created(align_mb: u64, pool_reserved_mb: u64, need_mb: u64) -> Vec<u64> {
        let mut params = StridekitParams::DEFAULT;
        params.growth_align = align_mb * MB;
        let mut plan = Vec::new();
        let place = (0, need_mb * MB, 1 << 40);
        chunk_plan(
            &params,
            &mut Vec::new(),
            place,
            PoolKind::Large,
            u64::MAX,
            pool_reserved_mb * MB,
            &mut plan,
        );
        plan.iter()
            .map(|&(len, spare)| {
                assert!(!spare);
                len / MB
            })
            .collect()
    }

    /// Off: the least growth whatever the pool holds. On: a growth stops at the next
    /// multiple of the alignment the request does not need to pass, and never creates less
    /// than the request or more than the least growth for a small one.
    #[test]
    fn aligned_growth_stops_at_the_page_grid() {
        assert_eq!(created(0, 36, 2), [18]);
        assert_eq!(created(20, 36, 2), [4]);
        assert_eq!(created(20, 38, 2), [2]);
        assert_eq!(created(20, 40, 2), [18]);
        assert_eq!(created(20, 0, 2), [18]);
        // A request larger than the least growth is created exactly.
        assert_eq!(created(20, 36, 30), [20, 10]);
        assert_eq!(created(20, 36, 4), [4]);
        assert_eq!(created(10, 36, 2), [4]);
        // Huge figures saturate instead of wrapping.
        assert_eq!(
            aligned_least(
                &StridekitParams {
                    growth_align: 20 * MB,
                    ..StridekitParams::DEFAULT
                },
                u64::MAX - MB,
                2 * MB
            ),
            MB
        );
    }
}
