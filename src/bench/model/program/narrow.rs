//! The narrow tile's accesses (permute.cu sk_tilen_body, change 26 of bench/model-notes.md):
//! the whole A dimension (n_a odd, rows shorter than a sector) by tile_b source columns per
//! item; threads on the 16-byte words of a full tile's source rows (an edge tile's extra
//! words idle), [`FILL`] words loaded before their elements are stored into the tile in
//! destination order (element f = b * n_a + a at slot f ^ ((f / R) & (V - 1)), R = 128 /
//! width), then threads on the 16-byte words of the item's contiguous destination run, V
//! shared loads each. Accesses carry the warp-uniform step that issues them.
//!
//! Its mirror (sk_tilem_body, change 27) is the same program with the sides swapped: the
//! short rows (n_b elements) are the destination's, so threads first take the words of the
//! item's contiguous source run ([`FILL`] loaded before their V elements are stored at the
//! same slots, in source order: element g = a * n_b + b), then the words of a full tile's
//! destination rows (V shared loads, one 16-byte store each).

use super::{Buffer, Program, Shape, access};
use crate::backend::cuda::choose::BLOCK;
use crate::backend::cuda::params::SkTile;

/// Words a thread loads before it stores them into the tile (SK FILL in sk_tilen_body).
pub const FILL: i64 = 4;

impl Program<'_> {
    pub(super) fn tile_narrow(
        &self,
        bx: u64,
        by: u64,
        t: u64,
        p: &SkTile,
        out: &mut Vec<super::Access>,
    ) {
        let w = self.width as i64;
        let v = 16 / w;
        let r = 128 / w;
        let nt = BLOCK as i64;
        // The short rows (the source's for the narrow tile, the destination's for the
        // mirror): n_short elements each, `full` words in a full tile's row, `stride`
        // elements apart in global memory.
        let source = self.shape == Shape::TileNarrow;
        let (ns, full, stride) = if source {
            (p.tile_a as i64, p.div_b.d as i64, p.src_stride_a)
        } else {
            (p.tile_b as i64, p.div_a.d as i64, p.dst_stride_b)
        };
        let mut step = 0i64;
        let mut put = |site: u8, buf: Buffer, store: bool, at: i64, bytes: i64, issue: i64| {
            let mut a = access(site, buf, store, (at * w) as u64, bytes as u64);
            a.issue = Some(issue as u32);
            out.push(a);
        };
        let slot = |f: i64| f ^ ((f / r) & (v - 1));
        self.tile_batches(bx, by, p, |s, d, na, nb, _| {
            let nlv = if source { nb } else { na } / v;
            let (row_words, run_words) = (ns * full, ns * nlv);
            // Thread word e of the short rows' side (`rows`) or of the contiguous run: its
            // element offset from the item's corner and the tile elements of its V
            // elements (f, f + df, ...), or None for an idle word.
            let word = |rows: bool, e: i64| {
                if !rows {
                    return (e < run_words).then_some((e * v, e * v, 1));
                }
                let (row, wv) = (e / full, e % full);
                let f = wv * v * ns + row;
                (e < row_words && wv < nlv).then_some((row * stride + wv * v, f, ns))
            };
            let base = step;
            let (loads, stores) = if source {
                (row_words, run_words)
            } else {
                (run_words, row_words)
            };
            let fills = (loads + FILL * nt - 1) / (FILL * nt);
            let rounds = (stores + nt - 1) / nt;
            let mut e0 = t as i64;
            while e0 < loads {
                for k in 0..FILL {
                    if let Some((at, _, _)) = word(source, e0 + k * nt) {
                        put(0, Buffer::Src, false, s + at, 16, step + k);
                    }
                }
                for k in 0..FILL {
                    if let Some((_, f, df)) = word(source, e0 + k * nt) {
                        for j in 0..v {
                            let at = slot(f + j * df);
                            put(1, Buffer::Shared, true, at, w, step + FILL + k * v + j);
                        }
                    }
                }
                step += FILL + FILL * v;
                e0 += FILL * nt;
            }
            step = base + fills * (FILL + FILL * v);
            let mut e = t as i64;
            while e < stores {
                if let Some((at, f, df)) = word(!source, e) {
                    for j in 0..v {
                        put(2, Buffer::Shared, false, slot(f + j * df), w, step + j);
                    }
                    put(3, Buffer::Dst, true, d + at, 16, step + v);
                }
                step += v + 1;
                e += nt;
            }
            step = base + fills * (FILL + FILL * v) + rounds * (v + 1);
        });
    }
}
