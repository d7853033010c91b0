//! The kernel table and the kernel image this binary carries.
//!
//! build.rs compiles cuda/*.cu (headers inlined into one translation unit) into one fatbin
//! when nvcc is found, and always embeds that translation unit for NVRTC.

/// The fatbin: SASS for sm_80, sm_90, sm_100 and PTX for compute_80.
#[cfg(stridekit_fatbin)]
pub const FATBIN: Option<&[u8]> = Some(include_bytes!(concat!(
    env!("OUT_DIR"),
    "/stridekit.fatbin"
)));
/// No fatbin: built without nvcc.
#[cfg(not(stridekit_fatbin))]
pub const FATBIN: Option<&[u8]> = None;

/// cuda/*.cu with cuda/include inlined: what NVRTC compiles when there is no fatbin.
pub const NVRTC_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/stridekit_kernels.cu"));

/// Which kernel image the binary carries, e.g.
/// "fatbin sm_80,sm_90,sm_100+compute_80 (nvcc 13.0.88)" or "NVRTC sources (...)".
pub fn kernel_image() -> &'static str {
    env!("STRIDEKIT_KERNEL_IMAGE")
}

/// Element widths the pure-copy kernels are instantiated for, in bytes.
pub const WIDTHS: [usize; 5] = [1, 2, 4, 8, 16];

/// Kernel families. Pure copies come in one kernel per element width and index width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Both sides strided (broadcast sources have stride 0).
    Strided,
    /// Destination contiguous (gather).
    Gather,
    /// Source contiguous (scatter into a view).
    Scatter,
    /// Shared-memory tiled transpose.
    Tile,
    /// The tiled transpose with 16-byte accesses on both sides (widths 1 to 8).
    TileVec,
    /// The packed tile: whole small dimensions on both sides, one long run each way
    /// (widths 1 to 8).
    TilePacked,
}

/// Converting-copy kernels: the generic one and compiled specialisations.
pub const CONVERT_VARIANTS: [&str; 7] = [
    "any", "f32_f16", "f16_f32", "f32_bf16", "bf16_f32", "f64_f32", "f32_f64",
];

/// Index into [`KERNEL_NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelId(pub u16);

macro_rules! widths {
    ($p:literal, $a:literal, $b:literal) => {
        [
            concat!($p, "_w1_", $a),
            concat!($p, "_w1_", $b),
            concat!($p, "_w2_", $a),
            concat!($p, "_w2_", $b),
            concat!($p, "_w4_", $a),
            concat!($p, "_w4_", $b),
            concat!($p, "_w8_", $a),
            concat!($p, "_w8_", $b),
            concat!($p, "_w16_", $a),
            concat!($p, "_w16_", $b),
        ]
    };
}

const STRIDED: [&str; 10] = widths!("sk_strided", "i32", "i64");
const GATHER: [&str; 10] = widths!("sk_gather", "i32", "i64");
const SCATTER: [&str; 10] = widths!("sk_scatter", "i32", "i64");
/// No 16-byte tile: no dtype is 16 bytes wide, and rows are widened only when the
/// innermost dimension is the same on both sides, which is never a transpose.
const TILE: [&str; 8] = [
    "sk_tile_w1_i32",
    "sk_tile_w1_i64",
    "sk_tile_w2_i32",
    "sk_tile_w2_i64",
    "sk_tile_w4_i32",
    "sk_tile_w4_i64",
    "sk_tile_w8_i32",
    "sk_tile_w8_i64",
];
const ROWS: [&str; 10] = widths!("sk_rows", "idx32", "idx64");
const TILEV: [&str; 8] = [
    "sk_tilev_w1_i32",
    "sk_tilev_w1_i64",
    "sk_tilev_w2_i32",
    "sk_tilev_w2_i64",
    "sk_tilev_w4_i32",
    "sk_tilev_w4_i64",
    "sk_tilev_w8_i32",
    "sk_tilev_w8_i64",
];
/// The 16-byte tile that stages two batch indices per item (small tiles of 4- and 8-byte
/// elements, 32-bit indices: tile_layout.rs tile_vec_stack), a kernel of its own so that
/// sk_tilev_* keep their code.
const TILEVS: [&str; 2] = ["sk_tilevs_w4_i32", "sk_tilevs_w8_i32"];
/// The realigning copy (gather_scatter.cu sk_realign_*): runs contiguous on both sides
/// whose starts differ from the 32-word grid, for 4- and 8-byte words.
const REALIGN: [&str; 4] = [
    "sk_realign_w4_i32",
    "sk_realign_w4_i64",
    "sk_realign_w8_i32",
    "sk_realign_w8_i64",
];
/// The narrow transpose (permute.cu sk_tilen_*): destination rows shorter than a sector,
/// adjacent, 16-byte words on both sides, for 4- and 8-byte elements; its mirror
/// (sk_tilem_*: source rows shorter than a sector).
const TILEN: [&str; 8] = [
    "sk_tilen_w4_i32",
    "sk_tilen_w4_i64",
    "sk_tilen_w8_i32",
    "sk_tilen_w8_i64",
    "sk_tilem_w4_i32",
    "sk_tilem_w4_i64",
    "sk_tilem_w8_i32",
    "sk_tilem_w8_i64",
];
/// Converting copies between the specialised float pairs that are also transposes (the
/// converting tile), in [`CONVERT_VARIANTS`] order from 1.
const TILECVT: [&str; 12] = [
    "sk_tilecvt_f32_f16_i32",
    "sk_tilecvt_f32_f16_i64",
    "sk_tilecvt_f16_f32_i32",
    "sk_tilecvt_f16_f32_i64",
    "sk_tilecvt_f32_bf16_i32",
    "sk_tilecvt_f32_bf16_i64",
    "sk_tilecvt_bf16_f32_i32",
    "sk_tilecvt_bf16_f32_i64",
    "sk_tilecvt_f64_f32_i32",
    "sk_tilecvt_f64_f32_i64",
    "sk_tilecvt_f32_f64_i32",
    "sk_tilecvt_f32_f64_i64",
];
const CONVERT: [&str; 14] = [
    "sk_convert_any_i32",
    "sk_convert_any_i64",
    "sk_convert_f32_f16_i32",
    "sk_convert_f32_f16_i64",
    "sk_convert_f16_f32_i32",
    "sk_convert_f16_f32_i64",
    "sk_convert_f32_bf16_i32",
    "sk_convert_f32_bf16_i64",
    "sk_convert_bf16_f32_i32",
    "sk_convert_bf16_f32_i64",
    "sk_convert_f64_f32_i32",
    "sk_convert_f64_f32_i64",
    "sk_convert_f32_f64_i32",
    "sk_convert_f32_f64_i64",
];

/// The packed tile (permute.cu sk_tilep_*).
const TILEP: [&str; 8] = [
    "sk_tilep_w1_i32",
    "sk_tilep_w1_i64",
    "sk_tilep_w2_i32",
    "sk_tilep_w2_i64",
    "sk_tilep_w4_i32",
    "sk_tilep_w4_i64",
    "sk_tilep_w8_i32",
    "sk_tilep_w8_i64",
];

/// The element-wise family: one kernel per computation class
/// ([`super::elementwise::EW_CLASSES`]) and index width.
const EW: [&str; 8] = [
    "sk_ew_bool_i32",
    "sk_ew_bool_i64",
    "sk_ew_int_i32",
    "sk_ew_int_i64",
    "sk_ew_f32_i32",
    "sk_ew_f32_i64",
    "sk_ew_f64_i32",
    "sk_ew_f64_i64",
];

/// Number of kernels in the module.
pub const KERNEL_COUNT: usize = 112;

/// Every kernel's name, indexed by [`KernelId`].
pub const KERNEL_NAMES: [&str; KERNEL_COUNT] = {
    let mut all = [""; KERNEL_COUNT];
    let groups: [&[&str]; 13] = [
        &STRIDED, &GATHER, &SCATTER, &TILE, &ROWS, &CONVERT, &TILEV, &TILECVT, &EW, &TILEP,
        &TILEVS, &REALIGN, &TILEN,
    ];
    let mut n = 0;
    let mut g = 0;
    while g < groups.len() {
        let mut i = 0;
        while i < groups[g].len() {
            all[n] = groups[g][i];
            n += 1;
            i += 1;
        }
        g += 1;
    }
    assert!(n == KERNEL_COUNT);
    all
};

fn width_index(width: usize) -> u16 {
    match width {
        1 => 0,
        2 => 1,
        4 => 2,
        8 => 3,
        16 => 4,
        _ => panic!("no kernel for element width {width}"),
    }
}

impl KernelId {
    /// A pure-copy kernel of `family` for `width`-byte words.
    pub fn copy(family: Family, width: usize, idx64: bool) -> KernelId {
        let base = match family {
            Family::Strided => 0,
            Family::Gather => 10,
            Family::Scatter => 20,
            Family::Tile | Family::TileVec | Family::TilePacked => {
                assert!(width < 16, "no tile kernel for {width}-byte elements");
                match family {
                    Family::Tile => 30,
                    Family::TileVec => 62,
                    _ => 90,
                }
            }
        };
        KernelId(base + width_index(width) * 2 + idx64 as u16)
    }

    /// The 16-byte tile stacking two batch indices, for 4- or 8-byte words (32-bit indices).
    pub fn tile_stacked(width: usize) -> KernelId {
        assert!(
            width == 4 || width == 8,
            "no stacked tile for {width}-byte elements"
        );
        KernelId(98 + (width == 8) as u16)
    }

    /// The realigning copy for 4- or 8-byte words.
    pub fn realign(width: usize, idx64: bool) -> KernelId {
        assert!(
            width == 4 || width == 8,
            "no realigning copy for {width}-byte words"
        );
        KernelId(100 + (width == 8) as u16 * 2 + idx64 as u16)
    }

    /// The narrow transpose for 4- or 8-byte elements.
    pub fn tile_narrow(width: usize, idx64: bool) -> KernelId {
        assert!(
            width == 4 || width == 8,
            "no narrow transpose for {width}-byte elements"
        );
        KernelId(104 + (width == 8) as u16 * 2 + idx64 as u16)
    }

    /// The narrow tile's mirror for 4- or 8-byte elements.
    pub fn tile_mirror(width: usize, idx64: bool) -> KernelId {
        KernelId(Self::tile_narrow(width, idx64).0 + 4)
    }

    /// A row-gather kernel for `width`-byte words and int32/int64 indices.
    pub fn rows(width: usize, index64: bool) -> KernelId {
        KernelId(38 + width_index(width) * 2 + index64 as u16)
    }

    /// The converting tile of a specialised pair (`variant` indexes [`CONVERT_VARIANTS`],
    /// from 1; the generic 0 has none).
    pub fn convert_tile(variant: usize, idx64: bool) -> KernelId {
        assert!((1..CONVERT_VARIANTS.len()).contains(&variant));
        KernelId(70 + (variant as u16 - 1) * 2 + idx64 as u16)
    }

    /// A converting-copy kernel (`variant` indexes [`CONVERT_VARIANTS`]).
    pub fn convert(variant: usize, idx64: bool) -> KernelId {
        assert!(variant < CONVERT_VARIANTS.len());
        KernelId(48 + variant as u16 * 2 + idx64 as u16)
    }

    /// The element-wise kernel of computation class `class` (an index into
    /// [`super::elementwise::EW_CLASSES`]).
    pub fn elementwise(class: usize, idx64: bool) -> KernelId {
        assert!(class < EW.len() / 2);
        KernelId(82 + class as u16 * 2 + idx64 as u16)
    }

    pub fn name(self) -> &'static str {
        KERNEL_NAMES[self.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_the_right_kernels() {
        assert_eq!(
            KernelId::copy(Family::Gather, 4, false).name(),
            "sk_gather_w4_i32"
        );
        assert_eq!(
            KernelId::copy(Family::Tile, 8, true).name(),
            "sk_tile_w8_i64"
        );
        assert_eq!(
            KernelId::copy(Family::TileVec, 2, false).name(),
            "sk_tilev_w2_i32"
        );
        assert_eq!(
            KernelId::copy(Family::TileVec, 8, true).name(),
            "sk_tilev_w8_i64"
        );
        assert_eq!(KernelId::tile_stacked(8).name(), "sk_tilevs_w8_i32");
        assert_eq!(KernelId::realign(8, true).name(), "sk_realign_w8_i64");
        assert_eq!(KernelId::realign(4, false).name(), "sk_realign_w4_i32");
        assert_eq!(KernelId::tile_narrow(8, true).name(), "sk_tilen_w8_i64");
        assert_eq!(KernelId::tile_narrow(4, false).name(), "sk_tilen_w4_i32");
        assert_eq!(KernelId::tile_mirror(8, true).name(), "sk_tilem_w8_i64");
        assert_eq!(KernelId::tile_mirror(4, false).name(), "sk_tilem_w4_i32");
        assert_eq!(
            KernelId::copy(Family::TilePacked, 4, true).name(),
            "sk_tilep_w4_i64"
        );
        assert_eq!(KernelId::rows(2, true).name(), "sk_rows_w2_idx64");
        assert_eq!(KernelId::elementwise(0, false).name(), "sk_ew_bool_i32");
        assert_eq!(KernelId::elementwise(3, true).name(), "sk_ew_f64_i64");
        assert_eq!(
            KernelId::convert(3, false).name(),
            "sk_convert_f32_bf16_i32"
        );
        let mut names = KERNEL_NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KERNEL_COUNT);
    }

    #[test]
    fn image_is_described() {
        let image = kernel_image();
        assert!(
            image.starts_with("fatbin sm_80,sm_90,sm_100+compute_80 (nvcc ")
                || image.starts_with("NVRTC sources"),
            "{image}"
        );
        assert_eq!(FATBIN.is_some(), image.starts_with("fatbin"));
        assert!(NVRTC_SOURCE.contains("typedef struct SkStrided32"));
        assert!(!NVRTC_SOURCE.contains("#include \""));
    }

    #[test]
    fn ptxas_report_parser_finds_spills() {
        #[allow(dead_code)]
        mod ptxas {
            include!(concat!(env!("CARGO_MANIFEST_DIR"), "/build/ptxas.rs"));
        }
        let report = "ptxas info    : Compiling entry function 'sk_a' for 'sm_90'\n\
            ptxas info    : Function properties for sk_a\n\
            \x20   0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
            ptxas info    : Used 30 registers, used 0 barriers, 232 bytes cmem[0]\n\
            ptxas info    : Compiling entry function 'sk_b' for 'sm_80'\n\
            ptxas info    : Function properties for sk_b\n\
            \x20   16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
            ptxas info    : Used 255 registers, 380 bytes cmem[0]\n";
        let usage = ptxas::parse(report);
        assert_eq!(usage.len(), 2);
        assert_eq!((usage[0].registers, usage[0].spill_stores), (30, 0));
        let spills = ptxas::spills(&usage);
        assert_eq!(spills.len(), 1);
        assert_eq!(spills[0].function, "sk_b");
        assert_eq!(
            (
                spills[0].spill_stores,
                spills[0].spill_loads,
                spills[0].stack_bytes
            ),
            (8, 4, 16)
        );
        assert_eq!(spills[0].registers, 255);
    }

    /// With a fatbin, ptxas' report lists exactly the kernels of the table, for every
    /// architecture, and none of them spills.
    #[cfg(stridekit_fatbin)]
    #[test]
    fn fatbin_has_every_kernel_and_no_spills() {
        #[allow(dead_code)]
        mod ptxas {
            include!(concat!(env!("CARGO_MANIFEST_DIR"), "/build/ptxas.rs"));
        }
        let report = include_str!(concat!(env!("OUT_DIR"), "/ptxas-report.txt"));
        let usage = ptxas::parse(report);
        for arch in ["sm_80", "sm_90", "sm_100"] {
            let mut got: Vec<&str> = usage
                .iter()
                .filter(|k| k.arch == arch)
                .map(|k| k.function.as_str())
                .collect();
            got.sort_unstable();
            let mut want = KERNEL_NAMES.to_vec();
            want.sort_unstable();
            assert_eq!(got, want, "{arch}");
        }
        assert!(ptxas::spills(&usage).is_empty());
    }
}
