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
    let mut used = BTreeSet::new();
    for c in narrow_cases::narrow_cases(&mut rng) {
        let storages = twin(c.bytes);
        used.insert(compare(
            &storages, &c.src, c.dtype, &c.dst, c.dtype, &c.what,
        ));
        let what = format!("{} (64-bit)", c.what);
        used.insert(compare_64bit(
            &storages, &c.src, c.dtype, &c.dst, c.dtype, &what,
        ));
    }
    eprintln!("kernels used: {used:?}");
    assert_ran(
        &used,
        &["tilen", "tilem"],
        &widths(&[4, 8]),
        &["i32", "i64"],
    );
}
