//! How a request is rounded to a block size, and a block size to a segment size
//! (PyTorch's `round_size` and `get_allocation_size`).

use super::config::AllocConfig;
use super::sizes::{
    K_LARGE_BUFFER, K_MIN_BLOCK_SIZE, K_MIN_LARGE_ALLOC, K_ROUND_LARGE, K_SMALL_BUFFER,
    K_SMALL_SIZE,
};

/// Round a request to its block size under `cfg` (PyTorch's `round_size`).
#[inline]
pub fn round_size(cfg: &AllocConfig, size: u64) -> u64 {
    if size < K_MIN_BLOCK_SIZE {
        return K_MIN_BLOCK_SIZE;
    }
    let div = cfg.roundup_divisions(size);
    if div > 1 && size > K_MIN_BLOCK_SIZE * div {
        roundup_power2_next_division(size, div)
    } else {
        // Saturates near u64::MAX (malloc refuses any size from MAX_BLOCK_SIZE up as out of
        // memory) instead of wrapping to a small block.
        size.div_ceil(K_MIN_BLOCK_SIZE)
            .saturating_mul(K_MIN_BLOCK_SIZE)
    }
}

/// Round `size` up to the next of `divisions` equal steps between two powers of two.
#[inline]
pub fn roundup_power2_next_division(size: u64, divisions: u64) -> u64 {
    if size.is_power_of_two() {
        return size;
    }
    let floor = 1u64 << (63 - size.leading_zeros());
    let step = floor >> (63 - divisions.leading_zeros());
    if step == 0 {
        return floor.checked_shl(1).filter(|&f| f != 0).unwrap_or(u64::MAX);
    }
    let rounded_floor = size & !(step - 1);
    if rounded_floor == size {
        size
    } else {
        // Saturates instead of wrapping past u64::MAX (see round_size).
        rounded_floor.saturating_add(step)
    }
}

/// The segment size obtained for a block of `size` bytes (PyTorch's `get_allocation_size`).
#[inline]
pub fn allocation_size(size: u64) -> u64 {
    if size <= K_SMALL_SIZE {
        K_SMALL_BUFFER
    } else if size < K_MIN_LARGE_ALLOC {
        K_LARGE_BUFFER
    } else {
        K_ROUND_LARGE * size.div_ceil(K_ROUND_LARGE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_size_default() {
        let c = AllocConfig::default();
        assert_eq!(round_size(&c, 0), 512);
        assert_eq!(round_size(&c, 1), 512);
        assert_eq!(round_size(&c, 512), 512);
        assert_eq!(round_size(&c, 513), 1024);
        assert_eq!(round_size(&c, 1200), 1536);
        assert_eq!(round_size(&c, (1 << 20) + 1), (1 << 20) + 512);
    }

    #[test]
    fn round_size_divisions() {
        let c = AllocConfig::parse("roundup_power2_divisions:4").unwrap();
        // 1200 <= 512 * 4: plain 512 rounding
        assert_eq!(round_size(&c, 1200), 1536);
        assert_eq!(round_size(&c, 2049), 2560);
        assert_eq!(round_size(&c, (1 << 20) + 1), (1 << 20) + (1 << 18));
        assert_eq!(round_size(&c, 1 << 20), 1 << 20);
        assert_eq!(round_size(&c, 3 << 29), 3 << 29);
        assert_eq!(round_size(&c, (5 << 28) + 7), 6 << 28);
        assert_eq!(roundup_power2_next_division(1200, 4), 1280);
        let c = AllocConfig::parse("roundup_power2_divisions:[256:1,512:2,>:8]").unwrap();
        assert_eq!(round_size(&c, (300 << 20) + 1), (300 << 20) + 512);
        assert_eq!(round_size(&c, (600 << 20) + 1), 640 << 20);
        assert_eq!(round_size(&c, (1100 << 20) + 1), 1152 << 20);
    }

    #[test]
    fn allocation_sizes() {
        assert_eq!(allocation_size(512), K_SMALL_BUFFER);
        assert_eq!(allocation_size(1 << 20), K_SMALL_BUFFER);
        assert_eq!(allocation_size((1 << 20) + 512), K_LARGE_BUFFER);
        assert_eq!(allocation_size((10 << 20) - 512), K_LARGE_BUFFER);
        assert_eq!(allocation_size(10 << 20), 10 << 20);
        assert_eq!(allocation_size((10 << 20) + 1), 12 << 20);
    }
}
