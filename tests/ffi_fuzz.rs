//! Random hostile DLTensor metadata through `stridekit_copy`, `stridekit_plan_new` /
//! `stridekit_plan_run` and `stridekit_row_gather`: shapes, strides, byte offsets, dtypes,
//! devices and ndim drawn with a bias to the integer limits. For every case: no crash or
//! abort, no caught panic (`STRIDEKIT_ERR_INTERNAL`: the debug build's overflow checks
//! would show there), a bounded time per call, and, whenever a call is accepted over real
//! memory, the bytes of a reference (element by element from a snapshot of the source;
//! every byte outside the destination's elements unchanged).
//!
//! The harness only hands stridekit real memory when the metadata, taken at face value,
//! lies inside the arena (or wraps the address space, which must be refused before any
//! access); other cases are planned with no data or run with NULL data, which must be
//! refused.
//!
//! A quarter of the cases try the allocator and the handles instead
//! (`ffi_fuzz/alloc_case.rs`): allocators made from hostile device and conf strings, random
//! malloc/free/record_stream/empty_cache/stats sequences with sizes near the limits and
//! bad addresses, and made-up handle values given to every function taking one.
//!
//! `STRIDEKIT_FUZZ_CASES` (default 3000) and `STRIDEKIT_FUZZ_SEED` set the run;
//! `scripts/fuzz-ffi` runs a million cases and prints the counts.

use std::collections::BTreeMap;
use std::ffi::{CStr, c_void};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use stridekit::DType;
use stridekit::ffi::capi::*;
use stridekit::ffi::dlpack::{DLDataType, DLDevice, DLTensor, kDLCPU, kDLCUDAHost};
use stridekit::ffi::error::{STRIDEKIT_ERR_INTERNAL, STRIDEKIT_OK};
use stridekit::ffi::view::dtype_to_dlpack;

#[path = "ffi_fuzz/alloc_case.rs"]
mod alloc_case;

const ARENA: usize = 4096;
/// A call taking longer than this is a hang (the bounded work is microseconds).
const HANG: Duration = Duration::from_secs(5);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// Mostly small, sometimes at or near the limits.
    fn hostile_i64(&mut self, small: i64) -> i64 {
        match self.below(100) {
            0..=74 => self.below(small as u64 + 1) as i64,
            75..=79 => 1i64 << self.below(63),
            80..=81 => i64::MAX - self.below(3) as i64,
            82 => i64::MIN,
            83..=85 => -(self.below(3) as i64) - 1,
            86..=87 => (1i64 << 31) - 1 + self.below(3) as i64,
            88..=89 => i64::MAX / (2 + self.below(5) as i64),
            90..=91 => (1i64 << 40) + self.below(3) as i64,
            _ => self.next() as i64,
        }
    }
    fn hostile_u64(&mut self, small: u64) -> u64 {
        match self.below(100) {
            0..=74 => self.below(small + 1),
            75..=79 => u64::MAX - self.below(4096),
            80..=84 => 1u64 << self.below(64),
            85..=89 => (1u64 << 63) + self.below(3),
            _ => self.next(),
        }
    }
}

const DTYPES: [DType; 6] = [
    DType::U8,
    DType::I16,
    DType::F32,
    DType::F64,
    DType::I64,
    DType::BF16,
];

/// One side's metadata, owning the arrays the DLTensor points to.
#[derive(Debug, Clone)]
struct Meta {
    ndim: i32,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    null_shape: bool,
    dtype: DLDataType,
    device_type: i32,
    byte_offset: u64,
}

impl Meta {
    fn random(r: &mut Rng) -> Meta {
        let ndim: i32 = match r.below(100) {
            0..=89 => r.below(5) as i32,
            90..=93 => r.below(9) as i32,
            94 => -1 - r.below(3) as i32,
            95 => 65 + r.below(3) as i32,
            96 => 64,
            97 => i32::MAX,
            98 => i32::MIN,
            _ => r.below(70) as i32,
        };
        let n = ndim.clamp(0, 64) as usize;
        let shape = (0..n).map(|_| r.hostile_i64(5)).collect();
        let strides = if r.chance(25) {
            None
        } else {
            Some((0..n).map(|_| r.hostile_i64(12)).collect())
        };
        let dtype = if r.chance(95) {
            dtype_to_dlpack(DTYPES[r.below(DTYPES.len() as u64) as usize])
        } else {
            DLDataType {
                code: r.below(10) as u8,
                bits: [0u8, 1, 8, 16, 32, 64, 128, 255][r.below(8) as usize],
                lanes: [0u16, 1, 2, 4, u16::MAX][r.below(5) as usize],
            }
        };
        let device_type = match r.below(100) {
            0..=84 => kDLCPU,
            85..=92 => kDLCUDAHost,
            93..=95 => 2,
            _ => r.next() as i32,
        };
        Meta {
            ndim,
            shape,
            strides,
            null_shape: n > 0 && r.chance(2),
            dtype,
            device_type,
            byte_offset: r.hostile_u64(256),
        }
    }

    fn dl(&mut self, data: *mut u8) -> DLTensor {
        DLTensor {
            data: data as *mut c_void,
            device: DLDevice {
                device_type: self.device_type,
                device_id: 0,
            },
            ndim: self.ndim,
            dtype: self.dtype,
            shape: if self.null_shape {
                null_mut()
            } else {
                self.shape.as_mut_ptr()
            },
            strides: self.strides.as_mut().map_or(null_mut(), |s| s.as_mut_ptr()),
            byte_offset: self.byte_offset,
        }
    }

    fn itemsize(&self) -> Option<usize> {
        let t = self.dtype;
        (t.lanes == 1 && matches!(t.bits, 8 | 16 | 32 | 64)).then_some(t.bits as usize / 8)
    }

    fn strides_or_contiguous(&self) -> Vec<i128> {
        match &self.strides {
            Some(s) if self.ndim > 0 => s.iter().map(|&v| v as i128).collect(),
            _ => {
                let mut st = vec![1i128; self.shape.len()];
                for d in (0..self.shape.len().saturating_sub(1)).rev() {
                    st[d] = st[d + 1].saturating_mul(self.shape[d + 1].max(1) as i128);
                }
                st
            }
        }
    }

    /// The bytes `[byte_offset, byte_offset + extent)` this side addresses, taken at face
    /// value in i128 (None when the metadata is malformed before any address).
    fn face_range(&self) -> Option<(i128, i128)> {
        if !(0..=64).contains(&self.ndim) || self.null_shape {
            return None;
        }
        let item = self.itemsize()? as i128;
        if self.shape.iter().any(|&s| s < 0) {
            return None;
        }
        let st = self.strides_or_contiguous();
        if st.iter().any(|&s| s < 0) {
            return None;
        }
        let off = self.byte_offset as i128;
        if self.shape.contains(&0) {
            return Some((off, off));
        }
        let span: i128 = self.shape.iter().zip(&st).fold(1i128, |acc, (&n, &s)| {
            acc.saturating_add((n as i128 - 1).saturating_mul(s))
        });
        Some((off, off.saturating_add(span.saturating_mul(item))))
    }

    /// Whether the tensor has no element (a zero size).
    fn empty(&self) -> bool {
        self.shape.contains(&0)
    }
}

/// Where the harness lets the call touch memory.
enum Access {
    /// Inside the arena: run over it and compare with the reference.
    Real,
    /// data + byte_offset + extent wraps the address space: run over the arena pointer,
    /// which must be refused before any access.
    MustRefuse,
    /// Outside the arena: no data pointer may be handed over.
    NoData,
}

fn access(m: &Meta, base: u64) -> Access {
    match m.face_range() {
        Some((lo, hi)) if hi <= ARENA as i128 && lo <= hi => Access::Real,
        Some((_, hi)) if (base as i128).saturating_add(hi) > u64::MAX as i128 => Access::MustRefuse,
        None if base as i128 + m.byte_offset as i128 > u64::MAX as i128 => Access::MustRefuse,
        _ => Access::NoData,
    }
}

#[derive(Default)]
struct Tally {
    cases: u64,
    calls: u64,
    by_rc: BTreeMap<(&'static str, i32), u64>,
    compared: u64,
    max_call: Duration,
}

impl Tally {
    fn call(&mut self, what: &'static str, f: impl FnOnce() -> i32) -> i32 {
        let t = Instant::now();
        let rc = f();
        let dt = t.elapsed();
        self.calls += 1;
        self.max_call = self.max_call.max(dt);
        assert!(dt < HANG, "{what} took {dt:?}");
        let msg = last_error();
        assert_ne!(rc, STRIDEKIT_ERR_INTERNAL, "{what}: a caught panic: {msg}");
        if rc != STRIDEKIT_OK {
            assert!(!msg.is_empty(), "{what}: rc {rc} without a message");
        }
        *self.by_rc.entry((what, rc)).or_default() += 1;
        rc
    }
}

fn last_error() -> String {
    // SAFETY: never NULL, NUL-terminated.
    unsafe { CStr::from_ptr(stridekit_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Broadcast `src`'s sizes/strides to `dst`'s shape (right-aligned, size-1 dims stride 0).
fn broadcast(dst: &[i64], src: &[i64], st: &[i128]) -> Option<Vec<i128>> {
    if src.len() > dst.len() {
        return None;
    }
    let lead = dst.len() - src.len();
    let mut out = vec![0i128; dst.len()];
    for (k, (&n, &s)) in src.iter().zip(st).enumerate() {
        if n == dst[lead + k] {
            out[lead + k] = if n == 1 { 0 } else { s };
        } else if n != 1 {
            return None;
        }
    }
    Some(out)
}

/// Calls `f` with the byte address (from the arena start) of every logical index.
fn for_each_element(
    sizes: &[i64],
    strides: &[i128],
    base: i128,
    item: i128,
    mut f: impl FnMut(usize, i128),
) {
    let total: i128 = sizes.iter().map(|&n| n as i128).product();
    let mut idx = vec![0i64; sizes.len()];
    for k in 0..total as usize {
        let at = base
            + idx
                .iter()
                .zip(strides)
                .map(|(&i, &s)| i as i128 * s)
                .sum::<i128>()
                * item;
        f(k, at);
        for d in (0..sizes.len()).rev() {
            idx[d] += 1;
            if idx[d] < sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

fn copy_case(r: &mut Rng, tally: &mut Tally, arena: &mut [u8]) {
    let mut dst = Meta::random(r);
    let mut src = if r.chance(30) {
        // Often the same shape, so that more cases get past broadcasting.
        Meta {
            strides: if r.chance(50) {
                None
            } else {
                dst.strides.clone()
            },
            byte_offset: r.hostile_u64(256),
            ..dst.clone()
        }
    } else {
        Meta::random(r)
    };
    if r.chance(50) {
        src.dtype = dst.dtype;
    }
    let base = arena.as_mut_ptr();
    let (ad, as_) = (access(&dst, base as u64), access(&src, base as u64));
    let use_plan = r.chance(50);
    let real = matches!(ad, Access::Real) && matches!(as_, Access::Real);
    let must_refuse = matches!(ad, Access::MustRefuse) || matches!(as_, Access::MustRefuse);
    if !real && !must_refuse {
        // Metadata only: plan it, and run it with NULL data (refused unless empty).
        let (d, s) = (dst.dl(null_mut()), src.dl(null_mut()));
        let mut plan = null_mut();
        // SAFETY: the DLTensors' arrays are live; no data is read.
        let rc = tally.call("plan_new", || unsafe {
            stridekit_plan_new(&d, &s, &mut plan)
        });
        if rc == STRIDEKIT_OK {
            let nonempty = !dst.empty();
            // SAFETY: NULL data is checked before any access.
            let rc = tally.call("plan_run(NULL)", || unsafe {
                stridekit_plan_run(plan, null_mut(), null_mut(), null_mut())
            });
            assert!(
                !nonempty || rc != STRIDEKIT_OK,
                "a non-empty plan ran on NULL: {dst:?}"
            );
            assert_eq!(stridekit_plan_free(plan), STRIDEKIT_OK);
        }
        // SAFETY: as above.
        let rc = tally.call("copy(NULL)", || unsafe {
            stridekit_copy(&d, &s, null_mut())
        });
        assert!(
            dst.empty() || rc != STRIDEKIT_OK,
            "a copy ran on NULL: {dst:?}"
        );
        return;
    }
    for (i, b) in arena.iter_mut().enumerate() {
        *b = (r.next() as u8).wrapping_add(i as u8);
    }
    let before = arena.to_vec();
    let (d, s) = (dst.dl(base), src.dl(base));
    let rc = if use_plan {
        let mut plan = null_mut();
        // SAFETY: live arrays; data not read.
        let rc = tally.call("plan_new", || unsafe {
            stridekit_plan_new(&d, &s, &mut plan)
        });
        if rc != STRIDEKIT_OK {
            rc
        } else {
            // SAFETY: the metadata lies inside the arena, or wraps and is refused.
            let rc = tally.call("plan_run", || unsafe {
                stridekit_plan_run(plan, base as *mut c_void, base as *const c_void, null_mut())
            });
            assert_eq!(stridekit_plan_free(plan), STRIDEKIT_OK);
            rc
        }
    } else {
        // SAFETY: as above.
        tally.call("copy", || unsafe { stridekit_copy(&d, &s, null_mut()) })
    };
    if must_refuse {
        assert!(
            rc != STRIDEKIT_OK || dst.empty() || src.empty(),
            "wrapping metadata accepted: {dst:?} {src:?}"
        );
        assert!(arena == &before[..], "a refused copy wrote");
        return;
    }
    if rc != STRIDEKIT_OK {
        assert!(
            arena == &before[..],
            "a refused copy wrote: {}",
            last_error()
        );
        return;
    }
    // Accepted over real memory: the reference.
    let (item_d, item_s) = (
        dst.itemsize().unwrap() as i128,
        src.itemsize().unwrap() as i128,
    );
    let dst_st = dst.strides_or_contiguous();
    let src_st = broadcast(&dst.shape, &src.shape, &src.strides_or_contiguous())
        .expect("an accepted copy broadcasts");
    let mut want = before.clone();
    let mut written = vec![false; ARENA];
    let mut src_at = Vec::new();
    for_each_element(
        &src.shape_for(&dst),
        &src_st,
        src.byte_offset as i128,
        item_s,
        |_, a| src_at.push(a as usize),
    );
    let same = dst.dtype == src.dtype;
    for_each_element(
        &dst.shape,
        &dst_st,
        dst.byte_offset as i128,
        item_d,
        |k, a| {
            let a = a as usize;
            for b in 0..item_d as usize {
                assert!(!written[a + b], "dst writes a byte twice: {dst:?}");
                written[a + b] = true;
            }
            if same {
                let sa = src_at[k];
                want[a..a + item_d as usize].copy_from_slice(&before[sa..sa + item_s as usize]);
            }
        },
    );
    if same {
        assert!(
            arena == &want[..],
            "bytes differ from the reference: {dst:?} {src:?}"
        );
        tally.compared += 1;
    } else {
        for i in 0..ARENA {
            assert!(
                written[i] || arena[i] == before[i],
                "byte {i} outside dst changed"
            );
        }
    }
}

impl Meta {
    /// The destination's shape (the source is broadcast to it).
    fn shape_for(&self, dst: &Meta) -> Vec<i64> {
        dst.shape.clone()
    }
}

fn gather_case(r: &mut Rng, tally: &mut Tally, arena: &mut [u8]) {
    let rows = r.hostile_i64(6);
    let n = r.hostile_i64(6);
    let row: Vec<i64> = (0..r.below(3)).map(|_| r.hostile_i64(4)).collect();
    let dtype = dtype_to_dlpack(DTYPES[r.below(DTYPES.len() as u64) as usize]);
    let mk = |r: &mut Rng, first: i64| {
        let mut shape = vec![first];
        shape.extend(&row);
        let ndim = shape.len() as i32;
        let strides = if r.chance(60) {
            None
        } else {
            let mut st: Vec<i64> = vec![0; shape.len()];
            let mut acc = 1i64;
            for d in (1..shape.len()).rev() {
                st[d] = acc;
                acc = acc.saturating_mul(shape[d].max(1));
            }
            st[0] = if r.chance(70) { acc } else { r.hostile_i64(12) };
            Some(st)
        };
        Meta {
            ndim,
            shape,
            strides,
            null_shape: false,
            dtype,
            device_type: kDLCPU,
            byte_offset: r.hostile_u64(512),
        }
    };
    let mut src = mk(r, rows);
    let mut dst = mk(r, n);
    let wide = r.chance(50);
    let mut index = Meta {
        ndim: 1,
        shape: vec![n],
        strides: None,
        null_shape: false,
        dtype: dtype_to_dlpack(if wide { DType::I64 } else { DType::I32 }),
        device_type: kDLCPU,
        byte_offset: r.hostile_u64(512),
    };
    let base = arena.as_mut_ptr();
    let sides = [&dst, &src, &index].map(|m| access(m, base as u64));
    if !sides.iter().all(|a| matches!(a, Access::Real)) {
        let (d, s, i) = (dst.dl(null_mut()), src.dl(null_mut()), index.dl(null_mut()));
        // SAFETY: NULL data is checked before any access.
        let rc = tally.call("row_gather(NULL)", || unsafe {
            stridekit_row_gather(&d, &s, &i, null_mut())
        });
        assert!(
            n == 0 || rc != STRIDEKIT_OK,
            "a gather of {n} rows ran on NULL"
        );
        return;
    }
    for b in arena.iter_mut() {
        *b = r.next() as u8;
    }
    // Index values mostly in range.
    let item_i = if wide { 8 } else { 4 };
    let mut values = Vec::new();
    for k in 0..n.max(0) as usize {
        let v = if r.chance(95) && rows > 0 {
            r.below(rows as u64) as i64
        } else {
            [
                -1i64,
                rows,
                rows.saturating_add(1),
                i32::MIN as i64,
                i64::MAX,
            ][r.below(5) as usize]
        };
        let v = if wide { v } else { v as i32 as i64 };
        let at = index.byte_offset as usize + k * item_i;
        if wide {
            arena[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        } else {
            arena[at..at + 4].copy_from_slice(&(v as i32).to_ne_bytes());
        }
        values.push(v);
    }
    let before = arena.to_vec();
    let (d, s, i) = (dst.dl(base), src.dl(base), index.dl(base));
    // SAFETY: all three lie inside the arena.
    let rc = tally.call("row_gather", || unsafe {
        stridekit_row_gather(&d, &s, &i, null_mut())
    });
    if rc != STRIDEKIT_OK {
        assert!(
            arena == &before[..],
            "a refused gather wrote: {}",
            last_error()
        );
        return;
    }
    if n == 0 {
        assert!(arena == &before[..], "a gather of no rows wrote");
        return;
    }
    let row_len: i128 = row.iter().map(|&v| v as i128).product();
    if row_len == 0 {
        assert!(values.iter().all(|&v| v >= -rows && v < rows));
        assert!(arena == &before[..]);
        return;
    }
    assert!(
        values.iter().all(|&v| (0..rows).contains(&v)),
        "out-of-range index accepted"
    );
    let item = (dtype.bits / 8) as usize;
    let (ds0, ss0) = (
        dst.strides_or_contiguous()[0] as usize,
        src.strides_or_contiguous()[0] as usize,
    );
    let mut want = before.clone();
    let len = row_len as usize * item;
    for (k, &v) in values.iter().enumerate() {
        let da = (dst.byte_offset as i128 + (k * ds0 * item) as i128) as usize;
        let sa = src.byte_offset as i128 + v as i128 * ss0 as i128 * item as i128;
        assert!(
            sa >= 0 && sa as usize + len <= ARENA,
            "accepted gather reads outside its source: {src:?} {dst:?} {values:?}"
        );
        let sa = sa as usize;
        want[da..da + len].copy_from_slice(&before[sa..sa + len]);
    }
    assert!(arena == &want[..], "gather differs from the reference");
    tally.compared += 1;
}

#[test]
fn hostile_metadata_never_crashes_and_accepted_calls_are_exact() {
    let cases: u64 = std::env::var("STRIDEKIT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let seed: u64 = std::env::var("STRIDEKIT_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed);
    let mut arena = vec![0u8; ARENA];
    let mut tally = Tally::default();
    let t0 = Instant::now();
    for case in 0..cases {
        let mut r = Rng(seed ^ case.wrapping_mul(0x2545_f491_4f6c_dd1d));
        tally.cases += 1;
        match r.below(100) {
            0..=64 => copy_case(&mut r, &mut tally, &mut arena),
            65..=84 => gather_case(&mut r, &mut tally, &mut arena),
            85..=94 => alloc_case::alloc_case(&mut r, &mut tally),
            _ => alloc_case::handle_case(&mut r, &mut tally),
        }
    }
    let dt = t0.elapsed();
    println!(
        "ffi_fuzz: seed {seed:#x}, {} cases, {} calls in {:.1} s; {} compared byte-exact \
         with the reference; slowest call {:?}; 0 crashes, 0 aborts, 0 hangs",
        tally.cases,
        tally.calls,
        dt.as_secs_f64(),
        tally.compared,
        tally.max_call
    );
    for ((what, rc), n) in &tally.by_rc {
        println!("  {what:<18} rc {rc}: {n}");
    }
    assert!(
        tally.compared > cases / 50,
        "too few accepted cases to mean anything"
    );
}
