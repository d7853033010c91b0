//! The realigning copy on the device (part of tests/gpu_kernels.rs): every case of
//! tests/emulation/realign_cases.rs (runs of 1 to 385 words, offsets at every residue mod 8
//! words, gathers, scatters and strided copies) through the tensor API, in both index
//! widths, byte for byte against the CPU backend.

use super::*;

#[test]
fn realigned_runs_match_the_cpu_backend() {
    let Some(_gpu) = gpu("realigned_runs_match_the_cpu_backend") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0025);
    let cases = realign_cases::realign_cases(&mut rng)
        .into_iter()
        .map(|c| (c.what, c.dtype, c.bytes, c.src, c.dst));
    cases_match_the_cpu_backend(cases, &["realign"], &[4, 8]);
}
