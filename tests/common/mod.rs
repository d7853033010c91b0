//! Shared by the kernel tests (tests/gpu_kernels.rs on a GPU, tests/kernel_emulation.rs
//! on the host): a seeded generator, random data, random views and random destination
//! layouts.

#![allow(dead_code)]

pub mod ew;

use std::collections::BTreeSet;

use stridekit::bench::rng::SplitMix64;
use stridekit::layout::contiguity::strides_for_copy;
use stridekit::{DType, Layout, MemoryFormat, Scalar, Storage, Tensor};

/// The byte every destination is filled with before a copy (the bench's).
pub use stridekit::bench::POISON;

/// cuda:0, or None after printing why `test` is skipped. With STRIDEKIT_REQUIRE_GPU=1
/// (scripts/gpu-check all) a missing GPU fails the test instead.
pub fn gpu(test: &str) -> Option<std::sync::Arc<stridekit::backend::cuda::Gpu>> {
    use stridekit::backend::cuda::{Gpu, device_count};
    let why = match device_count() {
        Ok(0) => "the CUDA driver sees no device".to_string(),
        Ok(_) => match Gpu::shared(0) {
            Ok(g) => return Some(g),
            Err(e) => format!("cuda:0 cannot be opened: {e}"),
        },
        Err(e) => e.to_string(),
    };
    if std::env::var_os("STRIDEKIT_REQUIRE_GPU").is_some_and(|v| v == "1") {
        panic!("{test}: STRIDEKIT_REQUIRE_GPU=1 but {why}");
    }
    eprintln!("{test}: skipped: {why}");
    None
}

/// Asserts that every kernel `sk_{family}_{middle}_{suffix}` ran (is in `used`).
pub fn assert_ran(used: &BTreeSet<&str>, families: &[&str], middles: &[String], suffixes: &[&str]) {
    for family in families {
        for middle in middles {
            for suffix in suffixes {
                let name = format!("sk_{family}_{middle}_{suffix}");
                assert!(used.contains(name.as_str()), "{name} never ran");
            }
        }
    }
}

/// Kernel-name widths: `w1`, `w2`, ...
pub fn widths(ws: &[usize]) -> Vec<String> {
    ws.iter().map(|w| format!("w{w}")).collect()
}

/// The converting-kernel variants (`any`, `f32_f16`, ...), from `skip` on.
pub fn convert_variants(skip: usize) -> Vec<String> {
    stridekit::backend::cuda::kernels::CONVERT_VARIANTS[skip..]
        .iter()
        .map(|v| v.to_string())
        .collect()
}

/// The float pairs whose converting transposes take the converting tile.
pub const FLOAT_PAIRS: [(DType, DType); 6] = [
    (DType::F32, DType::F16),
    (DType::F16, DType::F32),
    (DType::F32, DType::BF16),
    (DType::BF16, DType::F32),
    (DType::F64, DType::F32),
    (DType::F32, DType::F64),
];

/// The crate's seeded splitmix64, with the helpers these tests use: a failure names a
/// reproducible case.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64(seed))
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.below(n.max(1))
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    pub fn unit(&mut self) -> f64 {
        self.0.unit()
    }
    /// One of the ten dtypes.
    pub fn dtype(&mut self) -> DType {
        DType::ALL[self.below(DType::ALL.len() as u64) as usize]
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
}

/// Source values every backend converts the same way: for integral or bool destinations,
/// non-negative values (eighths for float sources, so truncation is exercised); for float
/// destinations from float sources, full-precision values (rounding is exercised).
pub fn value(rng: &mut Rng, src: DType, dst: DType) -> Scalar {
    match (src.is_floating(), dst.is_floating()) {
        (true, true) => Scalar::Float((rng.unit() - 0.5) * 2000.0),
        (true, false) => Scalar::Float(rng.range(0, 799) as f64 / 8.0),
        (false, _) if src == DType::Bool => Scalar::Bool(rng.below(2) == 1),
        (false, _) if dst.is_floating() && src != DType::U8 => Scalar::Int(rng.range(-100, 100)),
        (false, _) => Scalar::Int(rng.range(0, 100)),
    }
}

pub fn random_bytes(rng: &mut Rng, n: usize, src: DType, dst: DType) -> Vec<u8> {
    let sz = src.itemsize();
    let mut b = vec![0; n * sz];
    for i in 0..n {
        value(rng, src, dst).write(src, &mut b[i * sz..(i + 1) * sz]);
    }
    b
}

/// A random contiguous base: rank 1 to 6, sizes up to 7 (sometimes 0), offset 0 to 5.
pub fn random_base(rng: &mut Rng) -> Layout {
    let rank = rng.range(1, 6) as usize;
    let mut sizes: Vec<i64> = (0..rank).map(|_| rng.range(1, 7)).collect();
    if rng.below(25) == 0 {
        sizes[rng.below(rank as u64) as usize] = 0;
    }
    Layout::new(
        &sizes,
        Layout::contiguous(&sizes).strides(),
        rng.range(0, 5),
    )
    .unwrap()
}

/// A random view of `base` over `storage`: permutes, narrows, steps, unsqueezes and
/// expands. Ranks 1 to 8; size-0, size-1 and stride-0 dimensions all occur.
pub fn random_view(rng: &mut Rng, storage: &Storage, base: Layout, dtype: DType) -> Tensor {
    let mut t = Tensor::from_storage(storage.clone(), base, dtype).unwrap();
    for _ in 0..rng.below(5) {
        let r = t.ndim() as i64;
        let d = rng.range(0, (r - 1).max(0));
        t = match rng.below(6) {
            0 => {
                let mut p: Vec<i64> = (0..r).collect();
                rng.shuffle(&mut p);
                t.permute(&p).unwrap()
            }
            1 if r > 0 && t.sizes()[d as usize] > 0 => {
                let n = t.sizes()[d as usize];
                let start = rng.range(0, n - 1);
                t.narrow(d, start, rng.range(1, n - start)).unwrap()
            }
            2 if r > 0 => {
                // A step: every k-th element along d.
                let k = rng.range(2, 3);
                let mut s = t.sizes().to_vec();
                let mut st = t.strides().to_vec();
                s[d as usize] = (s[d as usize] + k - 1) / k;
                st[d as usize] *= k;
                t.as_strided(&s, &st, None).unwrap()
            }
            3 if r < 8 => t.unsqueeze(rng.range(0, r)).unwrap(),
            4 => match t.sizes().iter().position(|&s| s == 1) {
                Some(i) => {
                    let mut s = t.sizes().to_vec();
                    s[i] = rng.range(2, 4);
                    t.expand(&s).unwrap()
                }
                None if r < 8 => t.unsqueeze(0).unwrap(),
                None => t,
            },
            _ if r >= 2 => t.transpose(d, rng.range(0, r - 1)).unwrap(),
            _ => t,
        };
    }
    t
}

/// A destination layout for `sizes`: contiguous, channels_last (4-d/5-d), a permuted
/// contiguous block, or a view with gaps (a narrowed block or every other element: the
/// scatter and strided kernels), each at a small (misaligning) offset.
pub fn random_destination(rng: &mut Rng, sizes: &[i64]) -> Layout {
    let offset = rng.range(0, 3);
    let contiguous = |s: &[i64]| Layout::contiguous(s).strides().to_vec();
    let strides: Vec<i64> = match rng.below(5) {
        0 => contiguous(sizes),
        1 if sizes.len() == 4 || sizes.len() == 5 => {
            let f = if sizes.len() == 4 {
                MemoryFormat::ChannelsLast
            } else {
                MemoryFormat::ChannelsLast3d
            };
            strides_for_copy(sizes, &contiguous(sizes), f)
                .unwrap()
                .to_vec()
        }
        2 => {
            // A narrowed view of a block padded along every dimension.
            let padded: Vec<i64> = sizes.iter().map(|&n| n + rng.range(0, 2)).collect();
            contiguous(&padded)
        }
        3 => contiguous(sizes).iter().map(|s| s * 2).collect(),
        _ => {
            // A contiguous block of the permuted shape, viewed back in `sizes` order.
            let mut p: Vec<usize> = (0..sizes.len()).collect();
            rng.shuffle(&mut p);
            let permuted: Vec<i64> = p.iter().map(|&i| sizes[i]).collect();
            let cs = contiguous(&permuted);
            let mut st = vec![0; sizes.len()];
            for (k, &i) in p.iter().enumerate() {
                st[i] = cs[k];
            }
            st
        }
    };
    Layout::new(sizes, &strides, offset).unwrap()
}

pub fn storage_len(layout: &Layout) -> usize {
    stridekit::layout::view::required_storage_bytes(layout, 1) as usize
}

/// A copy to check: random source bytes, the source view over them, a destination layout.
pub struct CopyCase {
    pub what: String,
    pub bytes: Vec<u8>,
    pub src: Layout,
    pub dst: Layout,
}

/// Transposes that move the innermost dimension outward (last <-> first, and a rotation)
/// over shapes with batch dimensions, tiny dimensions and partial edge tiles, at element
/// offsets 0, 1 and 16: sizes and offsets that allow 16-byte words (the vector tile) next
/// to ones that do not (the element-wise tile), into contiguous outputs. The source holds
/// `st` values suited to a copy into `dt` (see [`value`]).
pub fn transpose_cases(rng: &mut Rng, st: DType, dt: DType) -> Vec<CopyCase> {
    // The last two: small tiles of 16-byte words with a batch of 15 (24 x 24 for 4-byte
    // elements, 12 x 14 for 8-byte ones), which the 16-byte tile stacks two batch indices of
    // (the chunk's odd last index alone: choose.rs tile_vec_stack).
    let shapes: [&[i64]; 9] = [
        &[64, 64],
        &[96, 160],
        &[200, 48],
        &[3, 80, 112],
        &[2, 16, 8, 48],
        &[8, 600],
        &[2, 3, 20, 30],
        &[24, 5, 3, 24],
        &[14, 3, 5, 12],
    ];
    let mut cases = Vec::new();
    for (i, &sizes) in shapes.iter().enumerate() {
        for offset in [0, 1, 16] {
            let base = Layout::new(sizes, Layout::contiguous(sizes).strides(), offset).unwrap();
            let bytes = random_bytes(rng, storage_len(&base), st, dt);
            let r = sizes.len() as i64;
            let mut swap: Vec<i64> = (0..r).collect();
            swap.swap(0, r as usize - 1);
            let rot: Vec<i64> = (0..r).map(|k| (k + 1) % r).collect();
            for perm in [swap, rot] {
                let src = stridekit::layout::view::permute(&base, &perm).unwrap();
                cases.push(CopyCase {
                    what: format!("shape {i} offset {offset} perm {perm:?}"),
                    bytes: bytes.clone(),
                    dst: Layout::contiguous(src.sizes()),
                    src,
                });
            }
        }
    }
    cases
}

/// Random permutations of ranks 3 to 7 over small dimensions (2 to 13, about 65000
/// elements or fewer), at offsets 0, 1 or 5: the transposes the packed tile takes whole
/// dimensions of on both sides (and some the scalar tile keeps).
pub fn packed_cases(rng: &mut Rng, dt: DType, count: usize) -> Vec<CopyCase> {
    let mut cases = Vec::new();
    for i in 0..count {
        let rank = rng.range(3, 7) as usize;
        let mut sizes: Vec<i64> = Vec::new();
        for _ in 0..rank {
            let cap = (65536 / sizes.iter().product::<i64>().max(1)).clamp(2, 13);
            sizes.push(rng.range(2, cap));
        }
        let offset = [0, 1, 5][rng.below(3) as usize];
        let base = Layout::new(&sizes, Layout::contiguous(&sizes).strides(), offset).unwrap();
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        for k in (1..rank).rev() {
            perm.swap(k, rng.below(k as u64 + 1) as usize);
        }
        let src = stridekit::layout::view::permute(&base, &perm).unwrap();
        cases.push(CopyCase {
            what: format!("packed {i}: {sizes:?} offset {offset} perm {perm:?}"),
            bytes: random_bytes(rng, storage_len(&base), dt, dt),
            dst: Layout::contiguous(src.sizes()),
            src,
        });
    }
    cases
}

/// Rank-4 permutations with two long dimensions (about 600 bytes of elements of `dt`,
/// give or take half) and two of 12 to 24 between them, at offsets 0, 1 or 5: the
/// transposes whose packed tile can pass 48 KB of shared memory (the plan takes it where
/// the device allows it; an H200: 227 KB per block). Each case is a few MB.
pub fn large_packed_cases(rng: &mut Rng, dt: DType, count: usize) -> Vec<CopyCase> {
    let run = 608 / dt.itemsize() as i64;
    let mut cases = Vec::new();
    for i in 0..count {
        let long = |rng: &mut Rng| rng.range(run / 2, run + run / 2);
        let sizes = [long(rng), rng.range(12, 24), rng.range(12, 24), long(rng)];
        let offset = [0, 1, 5][rng.below(3) as usize];
        let base = Layout::new(&sizes, Layout::contiguous(&sizes).strides(), offset).unwrap();
        let perm: &[i64] = [[3, 2, 1, 0], [3, 1, 2, 0], [0, 3, 2, 1], [2, 3, 0, 1]]
            [rng.below(4) as usize]
            .as_slice();
        let src = stridekit::layout::view::permute(&base, perm).unwrap();
        cases.push(CopyCase {
            what: format!("large packed {i}: {sizes:?} offset {offset} perm {perm:?}"),
            bytes: random_bytes(rng, storage_len(&base), dt, dt),
            dst: Layout::contiguous(src.sizes()),
            src,
        });
    }
    cases
}

/// A row gather to check: source bytes, indices, the shape, and what the CPU backend writes
/// into a destination of `want.len()` poisoned bytes.
pub struct GatherCase {
    pub dtype: DType,
    pub shape: stridekit::plan::RowGatherShape,
    pub src: Vec<u8>,
    pub idx: Vec<i64>,
    pub want: Vec<u8>,
}

impl GatherCase {
    /// The indices as int64 or int32 little-endian bytes.
    pub fn index_bytes(&self, index64: bool) -> Vec<u8> {
        index_bytes(&self.idx, index64)
    }
}

/// Row-gather indices as int64 or int32 little-endian bytes.
pub fn index_bytes(idx: &[i64], index64: bool) -> Vec<u8> {
    if index64 {
        idx.iter().flat_map(|i| i.to_le_bytes()).collect()
    } else {
        idx.iter().flat_map(|&i| (i as i32).to_le_bytes()).collect()
    }
}

/// A random row gather of up to `max_rows` source rows and `max_num` indices: any dtype,
/// rows of 1 to 40 elements, source offsets 0 to 3, destination rows with or without a gap.
pub fn random_gather(rng: &mut Rng, max_rows: i64, max_num: i64) -> GatherCase {
    let dtype = rng.dtype();
    let (rows, row_len, offset) = (rng.range(1, max_rows), rng.range(1, 40), rng.range(0, 3));
    let src = random_bytes(rng, (offset + rows * row_len) as usize, dtype, dtype);
    let num = rng.range(0, max_num);
    let idx: Vec<i64> = (0..num).map(|_| rng.range(0, rows - 1)).collect();
    let shape = stridekit::plan::RowGatherShape {
        num_rows: num,
        row_len,
        src_rows: rows,
        src_row_stride: row_len,
        dst_row_stride: row_len + rng.range(0, 1),
        src_offset: offset,
        dst_offset: rng.range(0, 2),
    };
    let dst_len = (shape.dst_offset + num * shape.dst_row_stride) as usize * dtype.itemsize();
    let mut want = vec![POISON; dst_len];
    stridekit::backend::cpu::row_gather(&shape, dtype, &mut want, &src, &idx).unwrap();
    GatherCase {
        dtype,
        shape,
        src,
        idx,
        want,
    }
}

/// A u8 row gather of 3 indices into 2 rows of 4, two of them out of range (one negative):
/// only row 1, the in-range one, is written.
pub fn out_of_range_gather() -> GatherCase {
    let shape = stridekit::plan::RowGatherShape {
        num_rows: 3,
        row_len: 4,
        src_rows: 2,
        src_row_stride: 4,
        dst_row_stride: 4,
        src_offset: 0,
        dst_offset: 0,
    };
    let src: Vec<u8> = (0..8).collect();
    let mut want = vec![POISON; 12];
    want[..4].copy_from_slice(&src[4..8]);
    GatherCase {
        dtype: DType::U8,
        shape,
        src,
        idx: vec![1, -1, 2],
        want,
    }
}

/// The stridekit binary under test: the build's, or (test binaries copied to the GPU
/// machine by scripts/gpu-check, where the build's path does not exist) the one beside the
/// test binary.
pub fn stridekit_bin() -> std::path::PathBuf {
    let built = std::path::PathBuf::from(env!("CARGO_BIN_EXE_stridekit"));
    if built.exists() {
        return built;
    }
    std::env::current_exe()
        .expect("the test binary's path")
        .with_file_name("stridekit")
}
