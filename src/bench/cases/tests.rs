use super::*;
use crate::bench::error::BenchError;
use crate::layout::{Layout, view};

fn find<'a>(s: &'a [Case], name: &str) -> &'a Case {
    s.iter().find(|c| c.case == name).unwrap()
}

/// (case, read_bytes, write_bytes) from the anchors (bench/anchors/torch_h200_anchor.json, "anchor run 1").
const ANCHOR_BYTES: [(&str, u64, u64); 22] = [
    ("memcpy_f32_1GiB", 1073741824, 1073741824),
    ("transpose2d_f32_16384x16384", 1073741824, 1073741824),
    ("transpose2d_f16_16384x16384", 536870912, 536870912),
    ("transpose2d_i8_32768x32768", 1073741824, 1073741824),
    ("transpose2d_f64_8192x16384", 1073741824, 1073741824),
    ("transpose2d_f32_7x33554432", 939524096, 939524096),
    ("heads_0213_f16_32x2048x32x128", 536870912, 536870912),
    ("heads_0213_f16_64x1024x32x64", 268435456, 268435456),
    ("perm3d_201_f32_1024x1024x256", 1073741824, 1073741824),
    ("perm3d_102_f32_256x1024x1024", 1073741824, 1073741824),
    ("perm4d_3210_f32_64x64x64x64", 67108864, 67108864),
    ("perm6d_503142_f32_24^6", 764411904, 764411904),
    ("nchw2nhwc_f32_256x3x224x224", 154140672, 154140672),
    ("nchw2nhwc_f16_64x64x224x224", 411041792, 411041792),
    ("nchw2nhwc_f16_256x256x56x56", 411041792, 411041792),
    ("nhwc2nchw_f32_256x3x224x224", 154140672, 154140672),
    ("nhwc2nchw_f16_64x64x224x224", 411041792, 411041792),
    ("slice_step2_f32_16384x16384", 268435456, 268435456),
    ("narrow_cols_f32_16384x16384", 1073610752, 1073610752),
    ("expand_rows_f32_16384", 65536, 1073741824),
    ("unfold_windows_i32_1025s512", 536870912, 1074782200),
    ("index_select_rows_f16_4Mx128", 536870912, 536870912),
];

#[test]
fn anchor_cases_have_the_anchor_names_and_bytes() {
    let s = suite(false, DEFAULT_SEED);
    for (name, read, write) in ANCHOR_BYTES {
        let w = find(&s, name).work().unwrap();
        // The last 2^27 - (262141 * 512 + 1025) = 511 int32 elements of the unfold
        // input are in no window: PyTorch's figure counts the whole input, ours the
        // elements read.
        let read = if name.starts_with("unfold") {
            read - 511 * 4
        } else {
            read
        };
        assert_eq!((w.bytes_read, w.bytes_written), (read, write), "{name}");
    }
    assert_eq!(s.len(), ANCHOR_BYTES.len() + 24);
}

#[test]
fn anchor_shapes_and_ops() {
    let s = suite(false, DEFAULT_SEED);
    let t = find(&s, "transpose2d_f64_8192x16384");
    assert_eq!(t.shape, vec![8192, 16384]);
    assert_eq!(t.work().unwrap().output_shape, vec![16384, 8192]);
    assert_eq!(t.expression(), "x.permute(1, 0).contiguous()");
    let sl = find(&s, "slice_step2_f32_16384x16384");
    assert_eq!(sl.expression(), "x[::2, ::2].contiguous()");
    assert_eq!(sl.work().unwrap().output_shape, vec![8192, 8192]);
    let n = find(&s, "narrow_cols_f32_16384x16384");
    assert_eq!(n.expression(), "x[:, 1:-1].contiguous()");
    let e = find(&s, "expand_rows_f32_16384");
    assert_eq!(e.shape, vec![1, 16384]);
    assert_eq!(e.expression(), "x.expand(16384, -1).contiguous()");
    let u = find(&s, "unfold_windows_i32_1025s512");
    assert_eq!(u.work().unwrap().output_shape, vec![262142, 1025]);
    let cl = find(&s, "nchw2nhwc_f32_256x3x224x224");
    assert_eq!(
        cl.expression(),
        "x.contiguous(memory_format=torch.channels_last)"
    );
    let WorkKind::Copy { out, .. } = cl.work().unwrap().kind else {
        panic!()
    };
    assert_eq!(out.strides(), &[150528, 1, 672, 3]);
    let g = find(&s, "index_select_rows_f16_4Mx128").work().unwrap();
    let WorkKind::Gather { shape, index } = g.kind else {
        panic!()
    };
    assert_eq!((shape.num_rows, shape.src_rows), (1 << 21, 1 << 22));
    let mut sorted = index.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 1 << 21, "gathered rows are distinct");
}

#[test]
fn random_suite_is_seeded_and_about_2_to_the_28() {
    let a = random_permutations(false, DEFAULT_SEED);
    assert_eq!(a, random_permutations(false, DEFAULT_SEED));
    assert_ne!(a, random_permutations(false, 7));
    assert_eq!(a.len(), 24);
    for (k, c) in a.iter().enumerate() {
        let rank = 2 + k / 4;
        assert_eq!(c.shape.len(), rank);
        let n: i64 = c.shape.iter().product();
        assert!(
            (n as f64).log2() > 27.0 && (n as f64).log2() < 29.0,
            "{}",
            c.case
        );
        assert!(c.case.starts_with(&format!("rand_r{rank}_{}_", k % 4)));
        let Op::Copy { steps, .. } = &c.op else {
            panic!()
        };
        let Step::Permute { dims } = &steps[0] else {
            panic!()
        };
        let p: String = dims.iter().map(|d| d.to_string()).collect();
        assert!(c.case.ends_with(&format!("_{}_p{p}", dims_x(&c.shape))));
        let w = c.work().unwrap();
        assert_eq!(w.bytes_read, n as u64 * 4);
        assert_eq!(w.bytes_written, n as u64 * 4);
    }
}

#[test]
fn quick_scales_by_256_and_keeps_rank_dtype_and_small_dims() {
    let full = suite(false, DEFAULT_SEED);
    let quick = suite(true, DEFAULT_SEED);
    assert_eq!(full.len(), quick.len());
    for (f, q) in full.iter().zip(&quick) {
        assert_eq!(
            (&f.case, f.dtype, f.shape.len()),
            (&q.case, q.dtype, q.shape.len())
        );
        if let (Op::Copy { steps: a, .. }, Op::Copy { steps: b, .. }) = (&f.op, &q.op)
            && let (Some(Step::Permute { dims: a }), Some(Step::Permute { dims: b })) =
                (a.first(), b.first())
        {
            assert_eq!(a, b);
        }
        let (wf, wq) = (f.work().unwrap(), q.work().unwrap());
        let ratio = wf.bytes_written as f64 / wq.bytes_written as f64;
        assert!(ratio > 150.0 && ratio < 400.0, "{}: {ratio}", f.case);
    }
    assert_eq!(find(&quick, "nchw2nhwc_f32_256x3x224x224").shape[1], 3);
    assert_eq!(find(&quick, "transpose2d_f32_7x33554432").shape[0], 7);
    assert_eq!(scale_down(&[16384, 16384], 256), vec![1024, 1024]);
    assert_eq!(scale_down(&[24; 6], 256), vec![6, 6, 12, 12, 12, 12]);
    assert_eq!(scale_down(&[3, 5], 256), vec![3, 5]);
}

#[test]
fn unique_elements_of_views() {
    let x = Layout::contiguous(&[4, 6]);
    assert_eq!(
        unique_elements(&view::slice(&x, 1, Some(0), None, 2).unwrap()),
        12
    );
    let e = view::expand(&Layout::contiguous(&[1, 6]), &[5, 6], "Float").unwrap();
    assert_eq!(unique_elements(&e), 6);
    let u = view::unfold(&Layout::contiguous(&[10]), 0, 4, 3).unwrap(); // 0..4, 3..7, 6..10
    assert_eq!(unique_elements(&u), 10);
    let u = view::unfold(&Layout::contiguous(&[10]), 0, 2, 4).unwrap(); // 0..2, 4..6, 8..10
    assert_eq!(unique_elements(&u), 6);
}

#[test]
fn filter_by_substring_or_regex_keeps_memcpy() {
    let s = suite(true, DEFAULT_SEED);
    let f = filter(s.clone(), Some("nchw2nhwc")).unwrap();
    assert_eq!(f.len(), 4);
    assert_eq!(f[0].case, MEMCPY_CASE);
    let f = filter(s.clone(), Some("^perm[34]d")).unwrap();
    assert_eq!(f.len(), 4);
    let f = filter(s.clone(), Some("perm6d_503142_f32_24^6")).unwrap();
    assert_eq!(
        f.len(),
        2,
        "a name with regex characters matches as a substring"
    );
    assert!(matches!(
        filter(s.clone(), Some("nothing_like_this")),
        Err(BenchError::Usage(_))
    ));
    assert!(matches!(
        filter(s.clone(), Some("(")),
        Err(BenchError::Usage(_))
    ));
    assert_eq!(filter(s, Some("memcpy")).unwrap().len(), 1);
}
