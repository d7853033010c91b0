//! The narrow tile's accesses (permute.cu sk_tilen_body, change 26 of bench/model-notes.md):
//! the whole A dimension (n_a odd, rows shorter than a sector) by tile_b source columns per
//! item; threads on the 16-byte words of a full tile's source rows (an edge tile's extra
//! words idle), [`FILL`] words loaded before their elements are stored into the tile in
//! destination order (element f = b * n_a + a at slot f ^ ((f / R) & (V - 1)), R = 128 /
//! width), then threads on the 16-byte words of the item's contiguous destination run, V
//! shared loads each. Accesses carry the warp-uniform step that issues them.

use super::{Buffer, Program, access};
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
        let na = p.tile_a as i64;
        let fbv = p.div_b.d as i64;
        let words = na * fbv;
        let mut step = 0i64;
        let mut put = |site: u8, buf: Buffer, store: bool, at: i64, bytes: i64, issue: i64| {
            let mut a = access(site, buf, store, (at * w) as u64, bytes as u64);
            a.issue = Some(issue as u32);
            out.push(a);
        };
        let slot = |f: i64| f ^ ((f / r) & (v - 1));
        self.tile_batches(bx, by, p, |s, d, _, nb, _| {
            let nbv = nb / v;
            let base = step;
            let fills = (words + FILL * nt - 1) / (FILL * nt);
            let stores = (na * nbv + nt - 1) / nt;
            let word = |e: i64| {
                let (a, bv) = (e / fbv, e % fbv);
                (e < words && bv < nbv).then_some((a, bv))
            };
            let mut e0 = t as i64;
            while e0 < words {
                for k in 0..FILL {
                    if let Some((a, bv)) = word(e0 + k * nt) {
                        put(
                            0,
                            Buffer::Src,
                            false,
                            s + a * p.src_stride_a + bv * v,
                            16,
                            step + k,
                        );
                    }
                }
                for k in 0..FILL {
                    if let Some((a, bv)) = word(e0 + k * nt) {
                        for j in 0..v {
                            let f = (bv * v + j) * na + a;
                            put(1, Buffer::Shared, true, slot(f), w, step + FILL + k * v + j);
                        }
                    }
                }
                step += FILL + FILL * v;
                e0 += FILL * nt;
            }
            step = base + fills * (FILL + FILL * v);
            let mut e = t as i64;
            while e < na * nbv {
                let f0 = e * v;
                for j in 0..v {
                    put(2, Buffer::Shared, false, slot(f0 + j), w, step + j);
                }
                put(3, Buffer::Dst, true, d + f0, 16, step + v);
                step += v + 1;
                e += nt;
            }
            step = base + fills * (FILL + FILL * v) + stores * (v + 1);
        });
    }
}

impl Program<'_> {
    /// sk_tilem_body (the mirror): threads on the 16-byte words of the item's contiguous
    /// source run ([`FILL`] loaded before their V elements are stored at the narrow tile's
    /// slots, in source order: element g = a * n_b + b), then on the words of a full
    /// tile's destination rows (V shared loads, one 16-byte store each).
    pub(super) fn tile_mirror(
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
        let nb = p.tile_b as i64;
        let fav = p.div_a.d as i64;
        let mut step = 0i64;
        let mut put = |site: u8, buf: Buffer, store: bool, at: i64, bytes: i64, issue: i64| {
            let mut a = access(site, buf, store, (at * w) as u64, bytes as u64);
            a.issue = Some(issue as u32);
            out.push(a);
        };
        let slot = |g: i64| g ^ ((g / r) & (v - 1));
        self.tile_batches(bx, by, p, |s, d, na, _, _| {
            let nav = na / v;
            let words = nav * nb;
            let base = step;
            let fills = (words + FILL * nt - 1) / (FILL * nt);
            let stores = (nb * fav + nt - 1) / nt;
            let mut e0 = t as i64;
            while e0 < words {
                for k in (0..FILL).filter(|k| e0 + k * nt < words) {
                    put(0, Buffer::Src, false, s + (e0 + k * nt) * v, 16, step + k);
                }
                for k in (0..FILL).filter(|k| e0 + k * nt < words) {
                    let g0 = (e0 + k * nt) * v;
                    for j in 0..v {
                        let at = g0 + (j ^ ((g0 / r) & (v - 1)));
                        put(1, Buffer::Shared, true, at, w, step + FILL + k * v + j);
                    }
                }
                step += FILL + FILL * v;
                e0 += FILL * nt;
            }
            step = base + fills * (FILL + FILL * v);
            let mut e = t as i64;
            while e < nb * fav {
                let (b, q) = (e / fav, e % fav);
                if q < nav {
                    for j in 0..v {
                        put(
                            2,
                            Buffer::Shared,
                            false,
                            slot((q * v + j) * nb + b),
                            w,
                            step + j,
                        );
                    }
                    let at = d + b * p.dst_stride_b + q * v;
                    put(3, Buffer::Dst, true, at, 16, step + v);
                }
                step += v + 1;
                e += nt;
            }
            step = base + fills * (FILL + FILL * v) + stores * (v + 1);
        });
    }
}
