//! Occupancy on an H200 (sm_90) from the compiled image: registers per thread from ptxas'
//! report and the longest run of global loads before a store from the SASS, per kernel
//! (sm90_resources.tsv, written by scripts/model-resources from the fatbin build.rs
//! compiles), with the launch's block size and shared memory.

use super::error::ModelError;

/// The per-SM limits of compute capability 9.0 (CUDA programming guide, table of technical
/// specifications per compute capability).
pub const MAX_THREADS_PER_SM: u64 = 2048;
pub const MAX_BLOCKS_PER_SM: u64 = 32;
pub const REGISTERS_PER_SM: u64 = 65536;
/// Registers are allocated per warp in units of 256.
pub const REGISTER_UNIT: u64 = 256;
/// Shared memory per SM usable by blocks, and what the runtime reserves per block.
pub const SHARED_PER_SM: u64 = 228 * 1024;
pub const SHARED_RESERVED_PER_BLOCK: u64 = 1024;
/// SMs of an H200 SXM.
pub const SMS: u64 = 132;
/// Bytes in flight per SM that the copy rate needs, by Little's law: about 4.1 TB/s times
/// about 650 ns of loaded DRAM latency over 132 SMs is about 20 KB.
pub const NEEDED_FLIGHT_PER_SM: f64 = 20.0 * 1024.0;

/// One kernel's line of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resources {
    pub kernel: String,
    pub registers: u32,
    pub stack_bytes: u32,
    /// The most global loads (LDG) the SASS issues one after another before a store.
    pub loads_before_store: u32,
}

/// The table built into the binary.
pub const SM90_TABLE: &str = include_str!("sm90_resources.tsv");

/// Parses the table: `#` comments, then one tab-separated line per kernel.
pub fn parse_table(text: &str) -> Result<Vec<Resources>, ModelError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| -> Result<u32, ModelError> {
            f.get(i)
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| ModelError::Table(format!("line {}: {line:?}", n + 1)))
        };
        out.push(Resources {
            kernel: f[0].to_string(),
            registers: num(1)?,
            stack_bytes: num(2)?,
            loads_before_store: num(3)?,
        });
    }
    Ok(out)
}

/// A kernel's resources from the built-in table.
pub fn resources(kernel: &str) -> Result<Resources, ModelError> {
    parse_table(SM90_TABLE)?
        .into_iter()
        .find(|r| r.kernel == kernel)
        .ok_or_else(|| ModelError::Table(format!("no sm_90 resources for {kernel}")))
}

/// The row gather the H200 run of 2026-12-04 measured (bb865aa's sk_rows_*, before change
/// 24 of bench/model-notes.md): its line of that build's table (60 registers for 16-byte
/// words, 48 for 8, 40 otherwise; no stack; 4 loads before a store).
pub fn measured_rows_resources(kernel: &str) -> Resources {
    let registers = if kernel.starts_with("sk_rows_w16_") {
        60
    } else if kernel.starts_with("sk_rows_w8_") {
        48
    } else {
        40
    };
    Resources {
        kernel: kernel.to_string(),
        registers,
        stack_bytes: 0,
        loads_before_store: 4,
    }
}

/// Resident blocks and warps per SM of a launch, and what limits them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupancy {
    pub blocks_per_sm: u64,
    pub warps_per_sm: u64,
    pub limit: &'static str,
}

impl Occupancy {
    /// Fraction of the 64 warp slots.
    pub fn fraction(&self) -> f64 {
        self.warps_per_sm as f64 / (MAX_THREADS_PER_SM / 32) as f64
    }
}

/// Occupancy of `threads`-thread blocks using `registers` per thread and `shared` bytes,
/// for a grid of `blocks` blocks spread over [`SMS`] SMs.
pub fn occupancy(threads: u64, registers: u32, shared: u64, blocks: u64) -> Occupancy {
    let warps_per_block = threads.div_ceil(32).max(1);
    let per_warp = (registers as u64 * 32).div_ceil(REGISTER_UNIT) * REGISTER_UNIT;
    let by_regs = REGISTERS_PER_SM
        .checked_div(per_warp)
        .map_or(u64::MAX, |w| w / warps_per_block);
    let by_shared = SHARED_PER_SM / (shared.div_ceil(128) * 128 + SHARED_RESERVED_PER_BLOCK);
    let by_threads = MAX_THREADS_PER_SM / (warps_per_block * 32);
    let by_grid = blocks.div_ceil(SMS).max(1);
    let limits = [
        (by_threads, "threads"),
        (MAX_BLOCKS_PER_SM, "blocks"),
        (by_regs, "registers"),
        (by_shared, "shared memory"),
        (by_grid, "grid size"),
    ];
    let (b, limit) = limits
        .into_iter()
        .min_by_key(|(n, _)| *n)
        .unwrap_or((1, "threads"));
    Occupancy {
        blocks_per_sm: b,
        warps_per_sm: b * warps_per_block,
        limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_limits() {
        // 256 threads, 32 registers, 4 KB: 8 blocks (threads); 64 warps.
        let o = occupancy(256, 32, 4224, 1 << 20);
        assert_eq!(
            (o.blocks_per_sm, o.warps_per_sm, o.limit),
            (8, 64, "threads")
        );
        // 48 registers: 48 * 32 = 1536 per warp, 42 warps, 5 blocks of 8.
        let o = occupancy(256, 48, 0, 1 << 20);
        assert_eq!((o.blocks_per_sm, o.limit), (5, "registers"));
        // 40 KB of shared memory: 5 blocks.
        assert_eq!(occupancy(256, 16, 40 * 1024, 1 << 20).blocks_per_sm, 5);
        // A grid of 132 blocks: one per SM.
        assert_eq!(occupancy(256, 16, 0, 132).limit, "grid size");
    }

    #[test]
    fn the_table_parses_and_names_every_layout_kernel() {
        let t = parse_table(SM90_TABLE).unwrap();
        for name in crate::backend::cuda::kernels::KERNEL_NAMES {
            if [
                "sk_strided",
                "sk_gather",
                "sk_scatter",
                "sk_tile",
                "sk_rows",
                "sk_realign",
            ]
            .iter()
            .any(|p| name.starts_with(p))
            {
                let r = t.iter().find(|r| r.kernel == *name);
                assert!(r.is_some_and(|r| r.registers > 0), "{name}");
            }
        }
        assert!(parse_table("sk_x\t1\tno\t2\n").is_err());
    }

    #[test]
    fn the_plans_packed_tile_registers_are_the_tables() {
        // choose.rs sizes packed tiles past 48 KB by their occupancy: its register counts
        // must be the compiled kernels' (the larger of the two index widths).
        let t = parse_table(SM90_TABLE).unwrap();
        for (k, w) in [1, 2, 4, 8].into_iter().enumerate() {
            let regs = ["i32", "i64"]
                .iter()
                .filter_map(|i| {
                    let name = format!("sk_tilep_w{w}_{i}");
                    t.iter().find(|r| r.kernel == name).map(|r| r.registers)
                })
                .max();
            assert_eq!(
                regs,
                Some(crate::backend::cuda::choose::TILEP_REGISTERS[k]),
                "w{w}"
            );
        }
    }
}
