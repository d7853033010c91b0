//! The narrow tile and its mirror (permute.cu sk_tilen_*, sk_tilem_*) in
//! tests/kernel_emulation.rs: every case of narrow_cases.rs through the plan's launches
//! (the narrow tiles and the scalar tile they fall back to), both index widths, the plan's
//! grid, a smaller one and one block.

#[path = "narrow_cases.rs"]
mod narrow_cases;

use super::common::{Rng, assert_ran, widths};
use super::harness::{harness, run_jobs};

#[test]
fn narrow_transposes_match_the_cpu_backend() {
    let Some(exe) = harness() else {
        return;
    };
    let mut rng = Rng::new(0xE3u64 << 32 | 26);
    let mut jobs = Vec::new();
    for c in narrow_cases::narrow_cases(&mut rng) {
        let js = super::copy_jobs((&c.src, c.dtype), &c.bytes, (&c.dst, c.dtype), &c.what);
        let taken = js.iter().any(|j| j.kernel.starts_with("sk_tilen_"))
            || js.iter().any(|j| j.kernel.starts_with("sk_tilem_"));
        assert_eq!(taken, c.narrow, "{}", c.what);
        jobs.extend(js);
    }
    let used = run_jobs(&exe, &jobs).unwrap();
    eprintln!("{} launches emulated; kernels: {used:?}", jobs.len());
    assert_ran(
        &used,
        &["tilen", "tilem", "tile"],
        &widths(&[4, 8]),
        &["i32", "i64"],
    );
}
