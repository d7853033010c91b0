//! The row gather on the device (part of tests/gpu_kernels.rs): random gathers, every path
//! of index.cu's sk_rows_body (tests/emulation/row_cases.rs) with the error flag, and the
//! tensor API's index_select.

use super::*;

/// Runs `plan` on the device over poisoned destination bytes: the destination and the flag.
fn gather_on(
    gpu: &std::sync::Arc<Gpu>,
    plan: &RowGatherPlan,
    src: &[u8],
    ix: &[u8],
    n: usize,
) -> (Vec<u8>, Vec<u8>) {
    let (src, index) = (
        DeviceBuffer::from_host(gpu, src).unwrap(),
        DeviceBuffer::from_host(gpu, ix).unwrap(),
    );
    let flag = DeviceBuffer::from_host(gpu, &[0; 4]).unwrap();
    let dst = DeviceBuffer::from_host(gpu, &vec![POISON; n]).unwrap();
    // SAFETY: the buffers match the plan's shape.
    unsafe { gpu.row_gather(plan, dst.ptr(), src.ptr(), index.ptr(), flag.ptr()) }.unwrap();
    (dst.to_host().unwrap(), flag.to_host().unwrap())
}

#[test]
fn row_gather_matches_the_cpu_backend() {
    let Some(gpu) = gpu("row_gather_matches_the_cpu_backend") else {
        return;
    };
    let mut rng = Rng::new(0x5EED_0004);
    for case in 0..200 {
        let c = random_gather(&mut rng, 300, 500);
        let (dt, shape, dst_len) = (c.dtype, c.shape, c.want.len());
        let (_, src_d) = twin(c.src.clone());
        for index64 in [false, true] {
            let ib = c.index_bytes(index64);
            let index = DeviceBuffer::from_host(&gpu, &ib).unwrap();
            let flag = DeviceBuffer::from_host(&gpu, &[0; 4]).unwrap();
            let dst = DeviceBuffer::from_host(&gpu, &vec![POISON; dst_len]).unwrap();
            let plan = RowGatherPlan::new(dt, shape, index64);
            let src = src_d.cuda().unwrap();
            // SAFETY: shapes and buffers match the plan.
            unsafe { gpu.row_gather(&plan, dst.ptr(), src.ptr(), index.ptr(), flag.ptr()) }
                .unwrap();
            assert_eq!(
                dst.to_host().unwrap(),
                c.want,
                "case {case} {dt} idx64={index64}"
            );
            assert_eq!(flag.to_host().unwrap(), vec![0; 4]);
        }
    }
    // Out of range (negative too) on the device: the kernel sets the flag, skips those rows
    // and writes the others.
    let c = out_of_range_gather();
    let plan = RowGatherPlan::new(c.dtype, c.shape, true);
    let (dst, flag) = gather_on(&gpu, &plan, &c.src, &c.index_bytes(true), c.want.len());
    assert_eq!((dst, flag), (c.want, 1i32.to_le_bytes().to_vec()));
    // Every path of the row gather (tests/emulation/row_cases.rs: rows of 1 to 70 words, 1
    // to 5000 rows, bad indices among good ones; the plan's grid and one block), the index
    // width alternating by case (~1000 launches: memcheck-kernels runs this test too).
    let mut used = BTreeSet::new();
    for (n, c) in row_cases::row_cases(&mut rng, &[1, 33, 1100, 5000])
        .iter()
        .enumerate()
    {
        let index64 = n % 2 == 1;
        for l in c.launches(index64) {
            let plan = RowGatherPlan {
                narrow: l,
                wide: None,
            };
            let (dst, flag) = gather_on(&gpu, &plan, &c.src, &c.index_bytes(index64), c.want.len());
            let what = format!("{} {} grid {:?}", c.what, l.kernel.name(), l.grid);
            assert_eq!(dst, c.want, "{what}");
            assert_eq!(flag, (c.flag as i32).to_le_bytes(), "{what}");
            used.insert(l.kernel.name());
        }
    }
    let suffixes = ["idx32", "idx64"];
    assert_ran(&used, &["rows"], &widths(&[1, 2, 4, 8, 16]), &suffixes);
    // The tensor API reports an out-of-range index as a typed error.
    let x = Tensor::ones(&[4, 8], DType::F32)
        .unwrap()
        .to_device(CUDA0)
        .unwrap();
    let bad = Tensor::from_values(&[2], &[Scalar::Int(1), Scalar::Int(4)], None).unwrap();
    let e = x.index_select(0, &bad).unwrap_err();
    assert_eq!(e.kind, stridekit::ErrorKind::IndexOutOfRange);
    let good = Tensor::from_values(
        &[3],
        &[Scalar::Int(3), Scalar::Int(0), Scalar::Int(3)],
        None,
    )
    .unwrap();
    let x = Tensor::arange(
        Scalar::Int(0),
        Scalar::Int(32),
        Scalar::Int(1),
        Some(DType::F16),
    )
    .unwrap()
    .view(&[4, 8])
    .unwrap();
    let got = x.to_device(CUDA0).unwrap().index_select(0, &good).unwrap();
    assert_eq!(got.device(), CUDA0);
    assert_eq!(
        got.values().unwrap(),
        x.index_select(0, &good).unwrap().values().unwrap()
    );
}
