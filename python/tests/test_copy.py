"""stridekit.copy_ against torch's copy_: every pair of layouts of the bench suite's kinds
(contiguous, channels_last, head permute, full transpose, strided slice, narrow, and as
sources only expand and unfold), dtype conversions, numpy on either side, in place and
zero-copy, with the gaps of strided destinations untouched."""

import itertools
import pathlib

import numpy as np
import pytest
import torch

import stridekit

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

SHAPE = (2, 3, 4, 5)


def _src_kinds():
    """name -> function(dtype) giving a view of SHAPE (values in a fixed, exact range)."""

    def vals(shape, dtype, device):
        n = int(np.prod(shape))
        base = (torch.arange(n, dtype=torch.float64) * 0.75 - 3).remainder(97)
        return base.view(shape).to(dtype).to(device)

    cl = torch.channels_last
    return {
        "contiguous": lambda dt, dev="cpu": vals(SHAPE, dt, dev),
        "channels_last": lambda dt, dev="cpu": vals(SHAPE, dt, dev).contiguous(memory_format=cl),
        "head_permute": lambda dt, dev="cpu": vals((2, 4, 3, 5), dt, dev).permute(0, 2, 1, 3),
        "transpose": lambda dt, dev="cpu": vals((5, 4, 3, 2), dt, dev).permute(3, 2, 1, 0),
        "strided_slice": lambda dt, dev="cpu": vals((2, 3, 8, 5), dt, dev)[:, :, ::2, :],
        "narrow": lambda dt, dev="cpu": vals((2, 3, 4, 9), dt, dev).narrow(3, 2, 5),
        "expand": lambda dt, dev="cpu": vals((2, 1, 4, 5), dt, dev).expand(SHAPE),
        "unfold": lambda dt, dev="cpu": vals((2, 3, 8), dt, dev).unfold(2, 5, 1),
    }


def _dst_kinds():
    """name -> function(dtype) giving (base, view): a poisoned base and a writable view of
    SHAPE into it (expand and unfold address elements twice: not destinations)."""
    poison = -7

    def mk(shape, f):
        def make(dt, dev="cpu"):
            b = torch.full(shape, poison, dtype=dt, device=dev)
            return b, f(b)

        return make

    return {
        "contiguous": mk(SHAPE, lambda b: b),
        "channels_last": mk((2, 4, 5, 3), lambda b: b.permute(0, 3, 1, 2)),
        "head_permute": mk((2, 4, 3, 5), lambda b: b.permute(0, 2, 1, 3)),
        "transpose": mk((5, 4, 3, 2), lambda b: b.permute(3, 2, 1, 0)),
        "strided_slice": mk((2, 3, 8, 5), lambda b: b[:, :, ::2, :]),
        "narrow": mk((2, 3, 4, 9), lambda b: b.narrow(3, 2, 5)),
    }


SRC = _src_kinds()
DST = _dst_kinds()


def test_the_layouts_are_what_they_say():
    assert SRC["channels_last"](torch.float32).is_contiguous(memory_format=torch.channels_last)
    assert DST["channels_last"](torch.float32)[1].is_contiguous(memory_format=torch.channels_last)
    assert SRC["expand"](torch.float32).stride()[1] == 0
    assert SRC["unfold"](torch.float32).stride() == (24, 8, 1, 1)
    for make in DST.values():
        assert make(torch.float32)[1].shape == SHAPE


@pytest.mark.parametrize("src_kind,dst_kind", list(itertools.product(SRC, DST)))
def test_every_pair_of_layouts(src_kind, dst_kind):
    src = SRC[src_kind](torch.float32)
    base, dst = DST[dst_kind](torch.float32)
    want_base, want = DST[dst_kind](torch.float32)
    want.copy_(src)
    ptr = dst.data_ptr()
    out = stridekit.copy_(dst, src)
    assert out is dst
    assert dst.data_ptr() == ptr
    assert torch.equal(dst, src)
    assert torch.equal(base, want_base), "the destination's gaps changed"


DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]


@pytest.mark.parametrize("src_dt,dst_dt", list(itertools.product(DTYPES, DTYPES)))
def test_dtype_conversions_match_torch(src_dt, dst_dt):
    src = SRC["transpose"](src_dt)
    base, dst = DST["channels_last"](dst_dt)
    want_base, want = DST["channels_last"](dst_dt)
    want.copy_(src)
    stridekit.copy_(dst, src)
    assert torch.equal(base, want_base)


def test_numpy_on_either_side_and_broadcasting():
    x = torch.arange(12, dtype=torch.float32).view(4, 3)
    n = np.zeros((3, 4), dtype=np.float64)
    stridekit.copy_(n, x.t())
    np.testing.assert_array_equal(n, x.t().numpy())
    # A strided numpy view as destination: the gaps stay.
    big = np.full((3, 8), -1, dtype=np.int32)
    stridekit.copy_(big[:, ::2], torch.tensor([1, 2, 3, 4], dtype=torch.int32))
    np.testing.assert_array_equal(big[:, ::2], np.tile([1, 2, 3, 4], (3, 1)))
    assert (big[:, 1::2] == -1).all()
    # numpy source (a transposed view) into torch.
    y = torch.empty(3, 4)
    stridekit.copy_(y, np.arange(12, dtype=np.float32).reshape(4, 3).T)
    assert torch.equal(y, x.t())


def test_done_when_from_the_issue():
    x = torch.randn(64, 48)
    y = torch.empty(48, 64)
    p = y.data_ptr()
    stridekit.copy_(y, x.t())
    assert y.data_ptr() == p and torch.equal(y, x.t())
    assert torch.equal(torch.from_dlpack(stridekit.contiguous(x.t())), x.t().contiguous())


@pytest.mark.parametrize("fmt", ["contiguous", "channels_last", torch.channels_last, "preserve"])
def test_contiguous_formats(fmt):
    x = SRC["transpose"](torch.float32)
    a = stridekit.contiguous(x, memory_format=fmt)
    t = torch.from_dlpack(a)
    torch_fmt = {"contiguous": torch.contiguous_format, "preserve": torch.preserve_format}.get(fmt, fmt)
    if isinstance(torch_fmt, str):
        torch_fmt = getattr(torch, torch_fmt)
    want = x.clone(memory_format=torch_fmt)
    assert t.stride() == want.stride() == a.strides
    assert torch.equal(t, x)
    assert a.shape == SHAPE and a.dtype == "float32" and a.device == "cpu"
    # Shared memory: a write through torch is seen by numpy's view of the same Array.
    t[0, 0, 0, 0] = 123
    assert np.from_dlpack(a)[0, 0, 0, 0] == 123


def test_errors_are_python_exceptions_with_stridekits_message():
    with pytest.raises(RuntimeError) as want:
        torch.empty(3, 4).copy_(torch.empty(4, 5))
    with pytest.raises(stridekit.StridekitError) as got:
        stridekit.copy_(torch.empty(3, 4), torch.empty(4, 5))
    assert str(got.value) == str(want.value)
    assert isinstance(got.value, RuntimeError)
    with pytest.raises(stridekit.StridekitError, match="more than one element of the written-to tensor"):
        stridekit.copy_(torch.empty(1, 4).expand(3, 4), torch.empty(3, 4))
    x = torch.arange(8.0)
    with pytest.raises(stridekit.StridekitError, match="some elements of the input tensor"):
        stridekit.copy_(x[:6], x[2:])
    with pytest.raises(stridekit.StridekitError, match="channels_last"):
        stridekit.contiguous(torch.empty(3, 4), memory_format="channels_last")
    ro = np.zeros(4)
    ro.flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):
        stridekit.copy_(ro, torch.ones(4, dtype=torch.float64))
    with pytest.raises(TypeError, match="does not implement __dlpack__"):
        stridekit.copy_([1, 2], torch.ones(2))
    with pytest.raises(ValueError, match="memory_format"):
        stridekit.contiguous(torch.ones(2), memory_format="diagonal")


def test_overlap_as_torch():
    # Disjoint elements of one buffer (even <- odd): allowed, staged.
    x = torch.arange(16, dtype=torch.int32)
    stridekit.copy_(x[::2], x[1::2])
    assert x.tolist() == [1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15]
    # The same tensor: nothing to do.
    stridekit.copy_(x, x)


def test_explain_and_replay(tmp_path):
    r = stridekit.explain("base = torch.arange(12.).view(4, 3)\nt = base.t()\nc = t.contiguous()\n")
    assert r["totals"] == {"logical_bytes": 144, "unique_storage_bytes": 96, "addressed_bytes": 96}
    assert [t["name"] for t in r["tensors"]] == ["base", "t", "c"] and r["error"] is None
    bad = stridekit.explain("x = torch.zeros(2)\nx.view(3)\n")
    assert bad["error"]["kind"] == "invalid_shape"
    trace = tmp_path / "t.csv"
    trace.write_text("a,1,1000\na,2,48\nf,1,0\nf,2,0\n")
    out = stridekit.replay(str(trace), conf="default;max_split_size_mb:64")
    assert [r["config"] for r in out["runs"]] == ["default", "max_split_size_mb:64"]
    s = out["runs"][0]["stats"]
    assert s["allocated_bytes.all.peak"] == 1024 + 512
    assert s["reserved_bytes.all.peak"] == 2 << 20
    with pytest.raises(stridekit.StridekitError):
        stridekit.replay([str(tmp_path / "missing.csv")])
    with pytest.raises(ValueError):
        stridekit.explain("x = 1", device="tpu")


def test_explain_on_the_simulated_device():
    program = open(EXAMPLES / "tv209.py").read()
    r = stridekit.explain(program, device="sim")
    assert r["error"] is None and r["totals"]["unique_storage_bytes"] == 96
    assert r["allocator"]["allocated_bytes.all.current"] == 1024
    assert r["allocator"]["reserved_bytes.all.current"] == 2 << 20
    assert [s["allocator"]["allocated_bytes.all.current"] for s in r["steps"]] == [512, 512, 1024]
    assert all(s["allocator"]["reserved_bytes.all.current"] == 2 << 20 for s in r["steps"])
    # Each run has its own simulated device: a second run starts from nothing.
    again = stridekit.explain("x = torch.ones(1)\ndel x\n", device="sim")
    assert [s["allocator"]["allocated_bytes.all.current"] for s in again["steps"]] == [512, 0]
    cpu = stridekit.explain(program)
    assert cpu["allocator"] is None and all(s["allocator"] is None for s in cpu["steps"])
