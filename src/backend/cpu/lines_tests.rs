//! The whole-line tiles ([`super::lines`]) against a plain transpose, corner by corner.

use super::layers::Layers;
use super::lines::*;

#[test]
fn block_at_follows_the_walks_loops() {
    for (l, g, per_band, bands, layers) in [
        (64, GROUP, 3, 6, 2),
        (64, GROUP, 1, 4, 1),
        (64, GROUP, 2, 3, 3),
        (16, 1, 5, 7, 2),
        (16, GROUP, 17, 7, 2),
        (8, GROUP, 16, 4, 1),
    ] {
        let mut n = 0;
        for layer in 0..layers {
            for b0 in (0..bands).step_by(g) {
                for i in 0..per_band {
                    for q in 0..g.min(bands - b0) {
                        let want = (layer, (b0 + q) * l, i * l);
                        assert_eq!(block_at(n, l, g, per_band, bands), want, "block {n}");
                        n += 1;
                    }
                }
            }
        }
    }
}

/// `tile` on a corner of every width against a plain transpose: bands in whole groups
/// and a shorter last group (bytes), blocks along `a` and a partial one, two layers,
/// the destination 0 or 2 lines past its buffer's start plus an element skew; and one
/// layer whose destination rows are an element off the line grid (the realigned lines:
/// first, middle and last bands or groups). Each with bands of 3 blocks along `a` and of
/// more than [`GROUP_FROM_BLOCKS`] (4- and 8-byte blocks in groups), the realigned ones
/// with source rows off and on the line grid (groups only on it).
#[test]
fn whole_line_corners_match_a_plain_transpose() {
    for width in [1usize, 2, 4, 8] {
        if !available(width) {
            continue;
        }
        let lanes = LINE / width;
        // `off`: destination rows an element off the line grid (realign.rs, from
        // column 0; one layer; more rows along `a` than one piece of REALIGN_ROWS).
        let cases = [
            (0usize, false, 3),
            (1, false, 3),
            (0, false, 17),
            (1, false, 17),
        ];
        let realigned = [(0, true, 0), (1, true, 0), (0, true, 64), (1, true, 64)];
        for (skew, off, pad) in cases.into_iter().chain(realigned) {
            let blocks_a = if off { REALIGN_ROWS / lanes + 1 } else { pad };
            let (na, nb) = (blocks_a * lanes + 5, 9 * lanes + 7);
            // Source: element (i, j) of layer l at i*width + j*sb + l*sl; realigned
            // rows with `pad` 64 have source rows on the line grid.
            let sb = if off && pad == LINE {
                (na * width).next_multiple_of(LINE) as isize
            } else {
                (na * width + 24) as isize
            };
            let sl = sb * nb as isize + 8;
            let data: Vec<u8> = (0..sl as usize * 2 + LINE)
                .map(|v| (v * 7 + v / 253) as u8)
                .collect();
            let src = &data[data.as_ptr().align_offset(LINE)..];
            // Destination: element (i, j) of layer l at i*da + j*width + l*dl, from a
            // start `skew` elements before a line, so that column `skew` starts one.
            let n = if off { 1 } else { 2 };
            let da = (nb * width).next_multiple_of(LINE) as isize
                + 2 * LINE as isize
                + if off { width as isize } else { 0 };
            let dl = da * na as isize;
            let mut buf = vec![0u8; dl as usize * n + 2 * LINE];
            let base = buf.as_ptr().align_offset(LINE) + LINE - skew * width;
            let layers = Layers { n, dl, sl };
            let corner = Corner {
                na,
                nb,
                da,
                sb,
                layers,
            };
            // SAFETY: every element of the corner is inside `src` and `buf` (the
            // extents above); nothing else writes `buf`.
            let (fa, j0, j1) = unsafe {
                let moved = tile(width, buf.as_mut_ptr().add(base), src.as_ptr(), corner);
                super::contiguous::store_fence();
                moved
            };
            let first = if off { 0 } else { skew };
            assert_eq!((fa, j0), (blocks_a * lanes, first), "width {width}");
            assert_eq!(j1 - j0, (nb - first) / lanes * lanes);
            for l in 0..n {
                for i in 0..na {
                    for j in 0..nb {
                        let at = base + (l as isize * dl + i as isize * da) as usize + j * width;
                        let from = (l as isize * sl + j as isize * sb) as usize + i * width;
                        let moved = i < fa && (j0..j1).contains(&j);
                        let want = if moved {
                            &src[from..from + width]
                        } else {
                            &[0u8; 8][..width]
                        };
                        assert_eq!(
                            &buf[at..at + width],
                            want,
                            "width {width} skew {skew} off {off} ({l}, {i}, {j})"
                        );
                    }
                }
            }
        }
    }
}
