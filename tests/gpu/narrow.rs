//! The narrow tile and its mirror on the device (part of tests/gpu_kernels.rs): every case of
//! tests/emulation/narrow_cases.rs (destination rows of 3, 5, 7 f32 and 3 f64, short and
//! long sources, padded rows and batches, offsets on and off the 16-byte grid) through the
//! tensor API, in both index widths, byte for byte against the CPU backend.

use super::*;

#[test]
fn narrow_transposes_match_the_cpu_backend() {
    let Some(_gpu) = gpu("narrow_transposes_match_the_cpu_backend") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0026);
    let cases = narrow_cases::narrow_cases(&mut rng)
        .into_iter()
        .map(|c| (c.what, c.dtype, c.bytes, c.src, c.dst));
    cases_match_the_cpu_backend(cases, &["tilen", "tilem"], &[4, 8]);
}
