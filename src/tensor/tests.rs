use super::*;
use crate::dtype::DType;
use crate::error::ErrorKind;
use crate::layout::MemoryFormat;
use crate::layout::index::IndexItem;
use crate::scalar::Scalar;

fn arange_f32(n: i64) -> Tensor {
    Tensor::arange(
        Scalar::Int(0),
        Scalar::Int(n),
        Scalar::Int(1),
        Some(DType::F32),
    )
    .unwrap()
}

fn floats(t: &Tensor) -> Vec<f64> {
    t.values().unwrap().iter().map(|v| v.to_f64()).collect()
}

#[test]
fn tv209_copy_and_views() {
    let base = arange_f32(12).view(&[4, 3]).unwrap();
    let t = base.transpose(0, 1).unwrap();
    assert_eq!(t.strides(), &[1, 3]);
    assert!(t.shares_storage(&base));
    assert_eq!(floats(&t)[..4], [0.0, 3.0, 6.0, 9.0]);
    let c = t.contiguous(MemoryFormat::Contiguous).unwrap();
    assert!(!c.shares_storage(&base));
    assert_eq!(c.strides(), &[4, 1]);
    assert_eq!(
        floats(&c),
        vec![0., 3., 6., 9., 1., 4., 7., 10., 2., 5., 8., 11.]
    );
    // Already contiguous: the very same tensor.
    let same = base.contiguous(MemoryFormat::Contiguous).unwrap();
    assert!(same.shares_storage(&base) && same.layout() == base.layout());
    assert_eq!(t.view(&[12]).unwrap_err().kind, ErrorKind::ViewIncompatible);
}

#[test]
fn writes_through_views_and_versions() {
    let x = Tensor::zeros(&[2, 3], DType::F32).unwrap();
    let v = x.select(0, 0).unwrap();
    assert_eq!(x.version(), 0);
    v.add_(Scalar::Int(1), Scalar::Int(1)).unwrap();
    assert_eq!((x.version(), v.version()), (1, 1));
    assert_eq!(floats(&x), vec![1., 1., 1., 0., 0., 0.]);
    x.mul_(Scalar::Int(2)).unwrap();
    assert_eq!(x.version(), 2);
    let d = x.detach();
    d.zero_().unwrap();
    assert_eq!(x.version(), 3);
    assert_eq!(floats(&x), vec![0.; 6]);
}

#[test]
fn expand_refuses_add_but_allows_fill() {
    let e = Tensor::zeros(&[1, 1000], DType::F32)
        .unwrap()
        .expand(&[1000, 1000])
        .unwrap();
    assert_eq!(e.strides(), &[0, 1]);
    assert_eq!(e.storage().nbytes(), 4000);
    let r = e.add_(Scalar::Int(1), Scalar::Int(1)).unwrap_err();
    assert_eq!(r.kind, ErrorKind::InternalOverlap);
    assert_eq!(e.version(), 0);
    e.fill_(Scalar::Int(2)).unwrap();
    assert_eq!(e.version(), 1);
}

#[test]
fn unfold_overlap_is_refused_exactly() {
    let a = arange_f32(10);
    let w = a.as_strided(&[4, 4], &[2, 1], None).unwrap();
    assert_eq!(
        w.mul_(Scalar::Int(2)).unwrap_err().kind,
        ErrorKind::InternalOverlap
    );
    assert_eq!(floats(&a), (0..10).map(|i| i as f64).collect::<Vec<_>>());
}

#[test]
fn copy_broadcasts_and_converts() {
    let dst = Tensor::zeros(&[2, 3], DType::F64).unwrap();
    let src = Tensor::from_values(
        &[3],
        &[Scalar::Int(1), Scalar::Int(2), Scalar::Int(3)],
        Some(DType::I32),
    )
    .unwrap();
    dst.copy_(&src).unwrap();
    assert_eq!(floats(&dst), vec![1., 2., 3., 1., 2., 3.]);
    let z = arange_f32(10);
    let e = z
        .index(&[IndexItem::Slice {
            start: Some(1),
            stop: None,
            step: None,
        }])
        .unwrap()
        .copy_(
            &z.index(&[IndexItem::Slice {
                start: None,
                stop: Some(-1),
                step: None,
            }])
            .unwrap(),
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::PartialOverlap);
}

#[test]
fn reshape_view_or_copy() {
    let x = arange_f32(6).view(&[2, 3]).unwrap();
    let r = x.reshape(&[-1]).unwrap();
    assert!(r.shares_storage(&x));
    let rt = x.t().unwrap().reshape(&[-1]).unwrap();
    assert!(!rt.shares_storage(&x));
    assert_eq!(floats(&rt), vec![0., 3., 1., 4., 2., 5.]);
}

#[test]
fn channels_last_copy() {
    let x = arange_f32(120).view(&[2, 3, 4, 5]).unwrap();
    let cl = x.to(None, Some(MemoryFormat::ChannelsLast), false).unwrap();
    assert_eq!(cl.strides(), &[60, 1, 15, 3]);
    assert!(!cl.is_contiguous() && cl.is_channels_last());
    assert_eq!(cl.values().unwrap(), x.values().unwrap());
}

#[test]
fn setitem_transposed_write_through() {
    let x = Tensor::from_values(
        &[2, 3],
        &(0..6).map(Scalar::Int).collect::<Vec<_>>(),
        Some(DType::F32),
    )
    .unwrap();
    x.numpy_t()
        .setitem(
            &[IndexItem::Int(0), IndexItem::Int(1)],
            &SetValue::Scalar(Scalar::Int(30)),
        )
        .unwrap();
    assert_eq!(floats(&x), vec![0., 1., 2., 30., 4., 5.]);
    assert_eq!(x.version(), 1);
}

#[test]
fn index_select_gathers_rows_on_the_host() {
    let x = arange_f32(12).view(&[4, 3]).unwrap();
    let idx = Tensor::from_values(
        &[3],
        &[Scalar::Int(3), Scalar::Int(0), Scalar::Int(3)],
        Some(DType::I32),
    )
    .unwrap();
    let y = x.index_select(0, &idx).unwrap();
    assert_eq!(y.sizes(), &[3, 3]);
    assert!(y.is_contiguous() && !y.shares_storage(&x));
    assert_eq!(floats(&y), [9., 10., 11., 0., 1., 2., 9., 10., 11.]);
    // Rows that are not contiguous are packed first: same values as the reference.
    let xt = x.t().unwrap();
    let idx2 = Tensor::from_values(&[2], &[Scalar::Int(2), Scalar::Int(1)], None).unwrap();
    assert_eq!(
        floats(&xt.index_select(0, &idx2).unwrap()),
        [2., 5., 8., 11., 1., 4., 7., 10.]
    );
    // An empty index gives zero rows.
    let none = Tensor::from_values(&[0], &[], Some(DType::I64)).unwrap();
    assert_eq!(x.index_select(0, &none).unwrap().sizes(), &[0, 3]);
}

#[test]
fn index_select_refusals_are_typed() {
    let x = arange_f32(6).view(&[2, 3]).unwrap();
    let ix = |v: i64| Tensor::from_values(&[1], &[Scalar::Int(v)], None).unwrap();
    let e = x.index_select(0, &ix(2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IndexOutOfRange);
    assert_eq!(e.message, "index out of range in self");
    assert_eq!(
        x.index_select(0, &ix(-1)).unwrap_err().kind,
        ErrorKind::IndexOutOfRange
    );
    assert_eq!(
        x.index_select(0, &arange_f32(1)).unwrap_err().kind,
        ErrorKind::DtypeUnsupported
    );
    assert_eq!(
        x.index_select(2, &ix(0)).unwrap_err().kind,
        ErrorKind::DimOutOfRange
    );
    // Along another dim: moved to the front, gathered, moved back, contiguous (with
    // PyTorch's strides, size-1 dimensions included).
    let y = x.index_select(1, &ix(2)).unwrap();
    assert_eq!((y.sizes(), y.strides()), (&[2, 1][..], &[1, 1][..]));
    assert_eq!(floats(&y), [2., 5.]);
}

#[test]
fn to_device_on_the_same_device_aliases() {
    let x = arange_f32(6);
    let y = x.to_device(crate::storage::Device::Cpu).unwrap();
    assert!(y.shares_storage(&x));
    assert_eq!(x.device(), crate::storage::Device::Cpu);
    assert_eq!(
        "cuda:3".parse::<crate::storage::Device>(),
        Ok(crate::storage::Device::Cuda(3))
    );
    assert_eq!("cuda".parse(), Ok(crate::storage::Device::Cuda(0)));
    assert!("cuda:x".parse::<crate::storage::Device>().is_err());
    // Without a GPU, asking for one is a typed device error, never a panic.
    if !crate::backend::cuda::driver_available() {
        let e = x.to_device(crate::storage::Device::Cuda(0)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Device);
        assert!(e.message.contains("no CUDA driver"), "{}", e.message);
    }
}
