//! `stridekit model`: a memory-efficiency model of the layout kernels, computed on the CPU,
//! for every case of the bench suite and a random-permutation suite. Every figure is
//! **predicted**, none is measured:
//!
//! - [`program`]: each thread's global and shared accesses, mirroring the kernel sources
//!   (tests/kernel_emulation.rs checks the counts against the sources compiled as C++);
//! - [`warp`]: warps in lockstep: sectors and lines per request, bank conflicts, bytes in
//!   flight per warp;
//! - [`occupancy`]: resident warps per SM from the sm_90 image (registers, shared memory);
//! - [`issue`]: the warp instructions a launch executes (counted from the sm_90 SASS) and
//!   the rate they allow;
//! - [`report`]: the table, JSON, and the comparison with a measured bench run.
//!
//! The bound: DRAM bytes are the distinct sectors over runs of consecutive blocks (what L2
//! merges), so a case moving R + W useful bytes costs R / e_load + W / e_store; the rate is
//! cut further when the bytes in flight per SM are below [`occupancy::NEEDED_FLIGHT_PER_SM`]
//! (Little's law), times the share of the time the row gather's loads are in flight
//! ([`rows_duty`]: only a warp's first chunk waits for an index load), and allowed
//! above the memcpy line for one-directional copies ([`issue::direction_allowance`]). That
//! is the memory bound. The issue bound is the time the launch's warp instructions take at
//! [`issue::ISSUE_IPC`] per SM; the prediction joins both ([`issue::blend`]). The memcpy
//! case is the 100% line. Calibrated against the first H200 run (bench/model-notes.md).

pub mod cli;
pub mod error;
pub mod issue;
pub mod occupancy;
pub mod program;
pub mod report;
pub mod suite;
pub mod warp;

use serde::Serialize;

pub use error::ModelError;

use crate::backend::cuda::kernels::{Family, KernelId};
use crate::backend::cuda::{DeviceLimits, GpuLaunch, GpuPlan, LaunchParams, RowGatherPlan};
use crate::backend::cuda::{divisor, realign};
use crate::bench::cases::{Case, WorkKind};
use occupancy::{NEEDED_FLIGHT_PER_SM, occupancy, resources};
use program::Program;
use warp::{Counts, count_run};

/// Blocks sampled: this many runs of [`RUN`] consecutive blocks, spread evenly over the grid
/// (every block when the grid is smaller).
pub const RUNS: u64 = 8;
pub const RUN: u64 = 4;
/// Grid-stride (and batch) iterations walked per sampled block.
pub const MAX_STEPS: u64 = 2;

/// The thresholds the issue sets: sector efficiency, bank conflicts, bytes in flight.
pub const MIN_SECTOR_EFFICIENCY: f64 = 0.95;

/// The model of one case. Every figure is a prediction.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModelRecord {
    pub case: String,
    /// Always true: nothing here was measured.
    pub predicted: bool,
    pub dtype: String,
    pub shape: Vec<i64>,
    /// The kernel the plan picks (base pointers 256-byte aligned), or `memcpy`.
    pub kernel: String,
    pub grid: (u32, u32),
    pub shared_bytes: u32,
    /// Global loads / stores: bytes used per byte of the 32-byte sectors each request
    /// touches (as a profiler's sectors-per-request counts them).
    pub load_sector_efficiency: f64,
    pub store_sector_efficiency: f64,
    pub load_sectors_per_request: f64,
    pub store_sectors_per_request: f64,
    pub load_lines_per_request: f64,
    pub store_lines_per_request: f64,
    /// The same over runs of consecutive blocks (sectors they share counted once): the
    /// DRAM traffic the bound uses.
    pub load_dram_efficiency: f64,
    pub store_dram_efficiency: f64,
    /// Extra shared-memory wavefronts per shared request (0: no bank conflicts).
    pub bank_conflicts_per_request: f64,
    pub shared_requests: u64,
    pub registers: u32,
    /// Longest run of global loads before a store in the sm_90 SASS.
    pub sass_loads_before_store: u32,
    pub warps_per_sm: u64,
    pub occupancy: f64,
    pub occupancy_limit: String,
    pub flight_bytes_per_warp: f64,
    pub flight_bytes_per_sm: f64,
    /// The share of a warp's time its loads are in flight: 1, or for the row gather
    /// [`rows_duty`] (the measured build's: 0.5, an index round trip before every batch).
    pub flight_duty: f64,
    /// The memory bound in % of memcpy: sectors, flight (times its duty), and the
    /// one-direction allowance.
    pub memory_bound_pct: f64,
    /// Warp instructions per byte read + written (counted from the sm_90 SASS; null for a
    /// kernel not counted) and the issue bound they imply in % of memcpy.
    pub warp_instructions_per_byte: Option<f64>,
    pub issue_bound_pct: Option<f64>,
    /// The prediction in % of the 1 GiB memcpy's rate: the memory and issue bounds joined.
    pub predicted_pct_of_memcpy: f64,
    /// Which of the issue's targets the case misses (empty: none).
    pub misses: Vec<String>,
}

/// Blocks to walk: runs of consecutive linear block indices.
fn sample_runs(blocks: u64) -> Vec<(u64, u64)> {
    if blocks <= RUNS * RUN {
        return vec![(0, blocks)];
    }
    (0..RUNS)
        .map(|k| (k * (blocks - RUN) / (RUNS - 1), RUN))
        .collect()
}

/// Counts over the sampled blocks of a launch.
pub fn count_launch(launch: &GpuLaunch, index: &[i64]) -> Result<Counts, ModelError> {
    count_launch_of(launch, index, issue::KernelBuild::Current)
}

/// The same for the kernels of `build` (the measured build's row gather walks its rows
/// four at a time: [`Program::measured_rows`]).
pub fn count_launch_of(
    launch: &GpuLaunch,
    index: &[i64],
    build: issue::KernelBuild,
) -> Result<Counts, ModelError> {
    let mut p = Program::new(launch, index, MAX_STEPS)?.sampled();
    if build == issue::KernelBuild::MeasuredH200 {
        p = p.measured_rows();
    }
    let mut c = Counts::default();
    for (first, run) in sample_runs(p.blocks()) {
        c.add(&count_run(&p, first, run));
    }
    Ok(c)
}

/// The launch a case runs (base pointers from cudaMalloc: aligned for the wide kernels),
/// with the gather's indices; None for a memcpy or an empty copy.
fn case_launch(case: &Case) -> Result<(Option<GpuLaunch>, Vec<i64>, u64, u64), ModelError> {
    let work = case.work()?;
    let (r, w) = (work.bytes_read, work.bytes_written);
    let bad = |e: crate::backend::cuda::CudaError| ModelError::Input {
        what: case.case.clone(),
        message: e.to_string(),
    };
    Ok(match work.kind {
        WorkKind::Copy { plan, .. } => {
            match GpuPlan::for_device(&plan, DeviceLimits::H200).map_err(bad)? {
                p @ GpuPlan::Kernel { .. } => (p.launch_for(0, 0).copied(), Vec::new(), r, w),
                _ => (None, Vec::new(), r, w),
            }
        }
        WorkKind::Gather { shape, index } => {
            let p = RowGatherPlan::new(case.dtype, shape, true);
            (Some(*p.launch_for(0, 0)), index, r, w)
        }
    })
}

/// The launch the build the H200 run measured (bb865aa) made for `l`: the 16-byte tile took
/// one batch index per item (no sk_tilevs_*) on threads mapped to the tile's words (no
/// [`tile_vec_lanes`](crate::backend::cuda::choose::tile_vec_lanes) padding): change 23 of
/// bench/model-notes.md. The row gather's grid was one warp per 4 rows (change 24); the
/// realigning copy was the sk_copy_body launch its plan makes without it (change 25), the
/// narrow tile the scalar tile (change 26). Every
/// other launch as it is.
fn as_measured(l: &GpuLaunch) -> GpuLaunch {
    let name = l.kernel.name();
    if name.starts_with("sk_realign_") {
        // The measured build had no realigning copy: its sk_copy_body launch (change 25).
        return as_copy(l);
    }
    if let (LaunchParams::Tile(p), true, Some((width, idx64))) = (
        l.params,
        name.starts_with("sk_tilen_") || name.starts_with("sk_tilem_"),
        program::width_of(name),
    ) {
        // Nor a narrow tile or its mirror: the scalar tile of the same transpose (change 26).
        let (q, shared, grid) = crate::backend::cuda::narrow::scalar_tile(&p, width);
        let kernel = KernelId::copy(Family::Tile, width, idx64);
        let params = LaunchParams::Tile(q);
        return GpuLaunch {
            kernel,
            grid,
            shared_bytes: shared,
            params,
            ..*l
        };
    }
    if let LaunchParams::Rows(p) = l.params {
        let per_block = (l.block.0 / 32) as i64 * program::MEASURED_ROWS_PER_WARP;
        let blocks = ((p.num_rows + per_block - 1) / per_block).clamp(1, 1 << 20);
        return GpuLaunch {
            grid: (blocks as u32, 1, 1),
            ..*l
        };
    }
    let (LaunchParams::Tile(mut p), true, Some((width, _))) = (
        l.params,
        name.starts_with("sk_tilev"),
        program::width_of(name),
    ) else {
        return *l;
    };
    let mut out = *l;
    if name.starts_with("sk_tilevs_") {
        out.kernel = KernelId::copy(Family::TileVec, width, false);
        out.shared_bytes /= 2;
    }
    divisor::tile_divisors(&mut p, (16 / width.max(1)) as i64);
    out.params = LaunchParams::Tile(p);
    out
}

/// The sk_copy_body launch the plan makes for a realigning copy's launch `l` without the
/// realigning kernel (same parameters; its family, kernel and grid).
fn as_copy(l: &GpuLaunch) -> GpuLaunch {
    use crate::backend::cuda::choose::{BLOCK, copy_ept};
    let (rank, numel, idx64) = match l.params {
        LaunchParams::Strided32(p) => (p.rank, p.numel as i64, false),
        LaunchParams::Strided64(p) => (p.rank, p.numel, true),
        _ => return *l,
    };
    let (rank, mut sizes, mut dst, mut src) = (rank.clamp(0, 8) as usize, [0; 8], [0; 8], [0; 8]);
    for k in 0..rank {
        (sizes[k], dst[k], src[k]) = match l.params {
            LaunchParams::Strided32(p) => (
                p.sizes[k] as i64,
                p.dst_strides[k] as i64,
                p.src_strides[k] as i64,
            ),
            LaunchParams::Strided64(p) => (p.sizes[k], p.dst_strides[k], p.src_strides[k]),
            _ => unreachable!(),
        };
    }
    let Some((width, _)) = program::width_of(l.kernel.name()) else {
        return *l;
    };
    let family = realign::copy_family(&sizes[..rank], &dst[..rank], &src[..rank]);
    let per_block = BLOCK as i64 * copy_ept(width, idx64) as i64;
    GpuLaunch {
        kernel: KernelId::copy(family, width, idx64),
        grid: (
            ((numel + per_block - 1) / per_block).clamp(1, 1 << 20) as u32,
            1,
            1,
        ),
        ..*l
    }
}

/// The model of one case (the current kernels' instruction counts).
pub fn model_case(case: &Case) -> Result<ModelRecord, ModelError> {
    model_case_of(case, issue::KernelBuild::Current)
}

/// The model of one case with the instruction counts of the kernels of `build`
/// (tests/model_calibration.rs: the kernels the H200 run measured).
pub fn model_case_of(case: &Case, build: issue::KernelBuild) -> Result<ModelRecord, ModelError> {
    let (launch, index, read, written) = case_launch(case)?;
    let launch = match build {
        issue::KernelBuild::MeasuredH200 => launch.map(|l| as_measured(&l)),
        issue::KernelBuild::Current => launch,
    };
    let mut rec = ModelRecord {
        case: case.case.clone(),
        predicted: true,
        dtype: case.dtype.to_string(),
        shape: case.shape.clone(),
        kernel: "memcpy".into(),
        grid: (0, 0),
        shared_bytes: 0,
        load_sector_efficiency: 1.0,
        store_sector_efficiency: 1.0,
        load_sectors_per_request: 0.0,
        store_sectors_per_request: 0.0,
        load_lines_per_request: 0.0,
        store_lines_per_request: 0.0,
        load_dram_efficiency: 1.0,
        store_dram_efficiency: 1.0,
        bank_conflicts_per_request: 0.0,
        shared_requests: 0,
        registers: 0,
        sass_loads_before_store: 0,
        warps_per_sm: 0,
        occupancy: 0.0,
        occupancy_limit: String::new(),
        flight_bytes_per_warp: 0.0,
        flight_bytes_per_sm: 0.0,
        flight_duty: 1.0,
        memory_bound_pct: 100.0,
        warp_instructions_per_byte: None,
        issue_bound_pct: None,
        predicted_pct_of_memcpy: 100.0,
        misses: Vec::new(),
    };
    let Some(l) = launch else {
        return Ok(rec);
    };
    let c = count_launch_of(&l, &index, build)?;
    let mut res = resources(l.kernel.name())?;
    let rows = match l.params {
        LaunchParams::Rows(p) => Some(p),
        _ => None,
    };
    if let (Some(_), issue::KernelBuild::MeasuredH200) = (rows, build) {
        res = occupancy::measured_rows_resources(l.kernel.name());
    }
    let blocks = l.grid.0 as u64 * l.grid.1 as u64;
    let occ = occupancy(
        l.block.0 as u64,
        res.registers,
        l.shared_bytes as u64,
        blocks,
    );
    let per_req = |g: &warp::Global, n: u64| {
        if g.requests == 0 {
            0.0
        } else {
            n as f64 / g.requests as f64
        }
    };
    rec.kernel = l.kernel.name().to_string();
    rec.grid = (l.grid.0, l.grid.1);
    rec.shared_bytes = l.shared_bytes;
    rec.load_sector_efficiency = c.loads.efficiency();
    rec.store_sector_efficiency = c.stores.efficiency();
    rec.load_sectors_per_request = per_req(&c.loads, c.loads.sectors);
    rec.store_sectors_per_request = per_req(&c.stores, c.stores.sectors);
    rec.load_lines_per_request = per_req(&c.loads, c.loads.lines);
    rec.store_lines_per_request = per_req(&c.stores, c.stores.lines);
    rec.load_dram_efficiency = c.merged_loads.efficiency();
    rec.store_dram_efficiency = c.merged_stores.efficiency();
    let shared_req = c.shared_loads.requests + c.shared_stores.requests;
    rec.shared_requests = shared_req;
    rec.bank_conflicts_per_request = if shared_req == 0 {
        0.0
    } else {
        (c.shared_loads.conflicts() + c.shared_stores.conflicts()) as f64 / shared_req as f64
    };
    rec.registers = res.registers;
    rec.sass_loads_before_store = res.loads_before_store;
    rec.warps_per_sm = occ.warps_per_sm;
    rec.occupancy = occ.fraction();
    rec.occupancy_limit = occ.limit.to_string();
    rec.flight_bytes_per_warp = c.flight_per_warp();
    rec.flight_bytes_per_sm = c.flight_per_warp() * occ.warps_per_sm as f64;
    let (r, w) = (read as f64, written as f64);
    let traffic = r / rec.load_dram_efficiency.max(1e-9) + w / rec.store_dram_efficiency.max(1e-9);
    if let Some(p) = rows {
        rec.flight_duty = match build {
            issue::KernelBuild::MeasuredH200 => 0.5,
            issue::KernelBuild::Current => rows_duty(&p, l.grid.0, l.block.0),
        };
    }
    let flight = (rec.flight_bytes_per_sm * rec.flight_duty / NEEDED_FLIGHT_PER_SM).min(1.0);
    rec.memory_bound_pct = if traffic > 0.0 {
        100.0 * (r + w) / traffic * flight * issue::direction_allowance(r, w)
    } else {
        100.0
    };
    if let Some(n) = issue::warp_instructions_of(&l, build).filter(|_| r + w > 0.0) {
        rec.warp_instructions_per_byte = Some(n / (r + w));
        rec.issue_bound_pct = Some(issue::issue_bound_pct(n, r + w));
    }
    rec.predicted_pct_of_memcpy = issue::blend(rec.memory_bound_pct, rec.issue_bound_pct);
    rec.misses = misses(&rec);
    Ok(rec)
}

/// The share of a warp's time the row gather (index.cu, current build) has its rows' loads
/// in flight: each warp step of [`ROWS_UNROLL`](crate::backend::cuda::rows::ROWS_UNROLL)
/// rows' loads is one round trip to DRAM (its stores wait for them), and only the warp's
/// first chunk waits a round trip for its indices first (each later chunk's were loaded a
/// chunk ahead, during at least one round trip of rows). So `trips / (trips + 1)` for the
/// round trips of the warp's rows: its chunks x the batches of a chunk x the steps along a
/// row. The measured build's kernel waited an index round trip before each batch (0.5).
pub fn rows_duty(p: &crate::backend::cuda::params::SkRowGather, grid: u32, block: u32) -> f64 {
    use crate::backend::cuda::rows::{ROWS_CHUNK, ROWS_UNROLL, row_lanes};
    let warps = (grid as i64 * (block / 32) as i64).max(1);
    let chunks = (p.num_rows + ROWS_CHUNK - 1) / ROWS_CHUNK;
    let per_warp = (chunks as f64 / warps as f64).max(1.0);
    let lanes = row_lanes(p.row_len);
    let batches = (lanes + ROWS_UNROLL - 1) / ROWS_UNROLL;
    let along = ((p.row_len + lanes - 1) / lanes).max(1);
    let trips = per_warp * (batches * along) as f64;
    trips / (trips + 1.0)
}

/// The issue's targets a record misses.
pub fn misses(r: &ModelRecord) -> Vec<String> {
    let mut m = Vec::new();
    if r.kernel == "memcpy" {
        return m;
    }
    if r.load_sector_efficiency < MIN_SECTOR_EFFICIENCY {
        m.push(format!(
            "load sectors {:.1}%",
            100.0 * r.load_sector_efficiency
        ));
    }
    if r.store_sector_efficiency < MIN_SECTOR_EFFICIENCY {
        m.push(format!(
            "store sectors {:.1}%",
            100.0 * r.store_sector_efficiency
        ));
    }
    if r.bank_conflicts_per_request > 0.0 {
        m.push(format!(
            "bank conflicts {:.2}/request",
            r.bank_conflicts_per_request
        ));
    }
    if r.flight_bytes_per_sm < NEEDED_FLIGHT_PER_SM {
        m.push(format!(
            "in flight {:.1} KB/SM",
            r.flight_bytes_per_sm / 1024.0
        ));
    }
    m
}

/// The bench suite (anchors, memcpy line, its random permutations) and the model's random
/// suite of `random` cases.
pub fn model_cases(quick: bool, seed: u64, random: usize) -> Vec<Case> {
    let mut v = crate::bench::cases::suite(quick, seed);
    v.extend(suite::random_suite(random, seed));
    v
}
