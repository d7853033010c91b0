"""What a hostile or careless DLPack producer hands the Python module: capsules of other
major versions (whose other fields must not be read), malformed and wrapping metadata, and
random metadata; every one raises a Python exception (never a PanicException), and the
producer's deleter runs exactly once whatever happens. The capsules are built with ctypes,
as a C producer would build them, with a destructor that (like every producer's) calls the
deleter only when no consumer took the capsule."""

import ctypes
import random

import pytest
import torch

import stridekit
from conftest import DLDataType, DLDevice, DLTensor, c_int64_p


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", DELETER),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]

DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

FLOAT32 = (2, 32, 1)


class Producer:
    """A host tensor exported through a hand-made `dltensor_versioned` capsule."""

    def __init__(self, shape, strides=None, *, major=1, minor=0, dtype=FLOAT32, nbytes=256,
                 byte_offset=0, null_data=False, null_shape=False, ndim=None, device=(1, 0)):
        self.buf = (ctypes.c_uint8 * nbytes)(*[(i * 7) % 251 for i in range(nbytes)])
        n = len(shape) if ndim is None else ndim
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
        self.deleted = 0
        self._deleter = DELETER(self._on_delete)
        self._destructor = DESTRUCTOR(self._on_destroy)
        self.m = DLManagedTensorVersioned()
        self.m.version = DLPackVersion(major, minor)
        self.m.deleter = self._deleter
        t = self.m.dl_tensor
        t.data = None if null_data else ctypes.addressof(self.buf)
        t.device = DLDevice(*device)
        t.ndim = n
        t.dtype = DLDataType(*dtype)
        t.shape = ctypes.cast(None, c_int64_p) if null_shape else ctypes.cast(self.shape, c_int64_p)
        t.strides = (ctypes.cast(self.strides, c_int64_p) if self.strides is not None
                     else ctypes.cast(None, c_int64_p))
        t.byte_offset = byte_offset

    def _on_delete(self, _m):
        self.deleted += 1

    def _on_destroy(self, cap):
        if _api.PyCapsule_IsValid(cap, b"dltensor_versioned"):
            p = _api.PyCapsule_GetPointer(cap, b"dltensor_versioned")
            self._deleter(ctypes.cast(p, ctypes.POINTER(DLManagedTensorVersioned)))

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None, max_version=None, copy=None):
        return _api.PyCapsule_New(ctypes.addressof(self.m), b"dltensor_versioned", self._destructor)


def copy_from(producer, dst=None):
    dst = torch.zeros(4) if dst is None else dst
    return stridekit.copy_(dst, producer)


@pytest.mark.parametrize("major", [0, 2, 3, 0xFFFFFFFF])
def test_the_version_is_checked_before_any_other_field(major):
    # Every other field is garbage a 1.x reader would trip over: the version must be
    # refused first, as BufferError naming it.
    p = Producer([4], ndim=12345, null_shape=True, null_data=True, major=major, minor=7,
                 dtype=(99, 3, 0), device=(-5, -5))
    with pytest.raises(BufferError, match=rf"DLPack {major}\.7 is not supported"):
        copy_from(p)
    assert p.deleted == 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(shape=[4], ndim=65), "ndim 65 is outside"),
        (dict(shape=[4], ndim=-1), "ndim -1 is outside"),
        (dict(shape=[4], null_shape=True), "shape is NULL with ndim 1"),
        (dict(shape=[-4]), r"shape\[0\] = -4 is negative"),
        (dict(shape=[4], strides=[-1]), r"strides\[0\] = -1 is negative"),
        (dict(shape=[2, 2 ** 40], strides=[2 ** 62, 1]), "spans more bytes"),
        (dict(shape=[0, 2 ** 40, 2 ** 40]), "more elements than an int64"),
        (dict(shape=[4], byte_offset=2 ** 64 - 8), "overflows the address space|past the end"),
        (dict(shape=[4], null_data=True, byte_offset=4096), "data is NULL with byte_offset 4096"),
        (dict(shape=[4], dtype=(2, 32, 4)), "4 lanes"),
        (dict(shape=[4], dtype=(77, 8, 1)), "code 77"),
    ],
)
def test_malformed_metadata_is_a_stridekit_error_and_the_deleter_runs_once(kwargs, message):
    p = Producer(**kwargs)
    with pytest.raises(stridekit.StridekitError, match=message):
        copy_from(p)
    assert p.deleted == 1


def test_an_accepted_import_is_released_once():
    p = Producer([4], [2])
    out = copy_from(p)
    want = torch.frombuffer(bytearray(p.buf), dtype=torch.float32).as_strided([4], [2])
    assert torch.equal(out, want)
    assert p.deleted == 1


def test_a_panic_is_a_stridekit_error_not_a_panic_exception():
    with pytest.raises(stridekit.StridekitError, match="caught at the Python boundary.*boom"):
        stridekit._stridekit._panic_for_test("boom")
    try:
        stridekit._stridekit._panic_for_test("x")
    except Exception:  # a BaseException (pyo3's PanicException) would pass through here
        pass


def _hostile_int(r, small):
    roll = r.random()
    if roll < 0.75:
        return r.randint(0, small)
    return r.choice([-1, -2, 2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1, -(2 ** 63), 2 ** 63 // 3])


def test_random_hostile_metadata_raises_cleanly_and_accepted_copies_are_exact():
    r = random.Random(18)
    nbytes = 256
    accepted = 0
    for _ in range(600):
        ndim = r.choice([0, 1, 1, 2, 2, 3, 4, -1, 65])
        dims = max(0, min(ndim, 64))
        shape = [_hostile_int(r, 4) for _ in range(dims)]
        strides = None if r.random() < 0.3 else [_hostile_int(r, 9) for _ in range(dims)]
        offset = r.choice([0, 4, 8, 12, 3, 2 ** 64 - 4, 2 ** 63, r.randint(0, 64)])
        # Metadata at face value inside the buffer: real data; otherwise NULL data (which
        # must be refused unless the tensor is empty).
        face = None
        if 0 <= ndim <= 64 and all(s >= 0 for s in shape) and (strides is None or all(s >= 0 for s in strides)):
            st = strides
            if st is None:
                st, acc = [], 1
                for n in reversed(shape):
                    st.insert(0, acc)
                    acc *= max(n, 1)
            span = 0 if 0 in shape else (1 + sum((n - 1) * s for n, s in zip(shape, st))) * 4
            face = (st, offset + span)
        inside = face is not None and face[1] <= nbytes and offset % 4 == 0
        p = Producer(shape or [1], strides, ndim=ndim, byte_offset=offset, nbytes=nbytes,
                     null_data=not inside)
        if ndim == 0:
            shape = []
        dst_shape = shape if inside and all(0 <= n <= 64 for n in shape) else [3]
        dst = torch.zeros(dst_shape) if inside else torch.zeros(3)
        try:
            stridekit.copy_(dst, p)
        except (stridekit.StridekitError, BufferError):
            pass
        else:
            if inside:
                st, _ = face
                src = torch.frombuffer(bytearray(p.buf), dtype=torch.float32)
                want = src.as_strided(shape, st, offset // 4) if shape or ndim == 0 else src[:1]
                assert torch.equal(dst, want.reshape(dst.shape)), (shape, strides, offset)
                accepted += 1
            else:
                assert 0 in shape, (shape, strides, offset)
        assert p.deleted == 1, (shape, strides, offset)
    assert accepted > 50


def _face_strides(shape, strides):
    """The strides a DLTensor means (NULL: row-major), for the reference."""
    if strides is not None:
        return list(strides)
    st, acc = [], 1
    for n in reversed(shape):
        st.insert(0, acc)
        acc *= max(n, 1)
    return st


def test_contiguous_of_a_broadcast_too_large_to_hold_is_an_error_not_a_wrapped_size():
    # Four bytes of source (stride 0) whose dense copy needs 2^63 bytes: the output's size
    # must not wrap (a wrapped size is a too-small buffer the copy would then overrun).
    p = Producer([2 ** 61], [0])
    with pytest.raises(stridekit.StridekitError, match="overflowed") as e:
        stridekit.contiguous(p)
    assert "internal error" not in str(e.value)
    assert p.deleted == 1
    p = Producer([2 ** 20, 2 ** 30], [0, 0])
    with pytest.raises((MemoryError, stridekit.StridekitError)):
        stridekit.contiguous(p)
    assert p.deleted == 1


def test_random_hostile_sources_of_contiguous_are_exact_or_refused():
    r = random.Random(1818)
    accepted = 0
    for _ in range(300):
        ndim = r.choice([0, 1, 2, 2, 3, 4])
        shape = [_hostile_int(r, 4) for _ in range(ndim)]
        strides = None if r.random() < 0.3 else [_hostile_int(r, 9) for _ in range(ndim)]
        offset = r.choice([0, 4, 8, 2, 2 ** 64 - 4, r.randint(0, 16) * 4])
        fmt = r.choice([None, "contiguous", "preserve", "channels_last"])
        sane = all(s >= 0 for s in shape) and (strides is None or all(s >= 0 for s in strides))
        st = _face_strides(shape, strides) if sane else None
        inside = sane and offset % 4 == 0 and (
            0 in shape or offset + (1 + sum((n - 1) * s for n, s in zip(shape, st))) * 4 <= 256)
        p = Producer(shape or [1], strides, ndim=ndim, byte_offset=offset, null_data=not inside)
        try:
            a = stridekit.contiguous(p, memory_format=fmt)
        except (stridekit.StridekitError, BufferError, ValueError, MemoryError):
            pass
        else:
            assert inside or 0 in shape, (shape, strides, offset)
            if inside and 0 not in shape:
                src = torch.frombuffer(bytearray(p.buf), dtype=torch.float32)
                want = src.as_strided(shape, st, offset // 4)
                got = torch.from_dlpack(a)
                assert list(got.shape) == shape and torch.equal(got, want), (shape, strides)
                accepted += 1
        assert p.deleted == 1, (shape, strides, offset)
    assert accepted > 30


def test_random_hostile_destinations_are_written_exactly_or_refused():
    # The producer is the destination: a writable import whose metadata is the attack.
    r = random.Random(1819)
    accepted = refused_overlap = 0
    for _ in range(400):
        ndim = r.choice([1, 1, 2, 2, 3])
        shape = [_hostile_int(r, 4) for _ in range(ndim)]
        strides = None if r.random() < 0.2 else [_hostile_int(r, 6) for _ in range(ndim)]
        offset = r.choice([0, 4, 12, 2, 2 ** 64 - 4, r.randint(0, 8) * 4])
        sane = all(s >= 0 for s in shape) and (strides is None or all(s >= 0 for s in strides))
        st = _face_strides(shape, strides) if sane else None
        inside = sane and offset % 4 == 0 and all(n <= 64 for n in shape) and (
            0 in shape or offset + (1 + sum((n - 1) * s for n, s in zip(shape, st))) * 4 <= 256)
        p = Producer(shape or [1], strides, ndim=ndim, byte_offset=offset, null_data=not inside)
        src = torch.arange(1, 1 + (r.randint(1, 4) if not inside else 1), dtype=torch.float32)
        if inside:
            src = torch.randn(shape, generator=torch.Generator().manual_seed(len(shape)))
        before = bytes(p.buf)
        try:
            stridekit.copy_(p, src)
        except (stridekit.StridekitError, BufferError) as e:
            assert bytes(p.buf) == before, "a refused copy wrote"
            refused_overlap += "single memory location" in str(e)
        else:
            assert inside or 0 in shape, (shape, strides, offset)
            want = torch.frombuffer(bytearray(before), dtype=torch.float32)
            if 0 not in shape:
                want.as_strided(shape, st, offset // 4).copy_(src)
            assert bytes(p.buf) == want.numpy().tobytes(), (shape, strides, offset)
            accepted += 1
        assert p.deleted == 1, (shape, strides, offset)
    assert accepted > 30 and refused_overlap > 5


@pytest.mark.parametrize("stream", [-1, 2 ** 80, "x", object(), 1.5])
def test_hostile_stream_arguments_raise_ordinary_exceptions(stream):
    with pytest.raises(Exception) as e:  # never a BaseException such as PanicException
        stridekit.copy_(torch.zeros(3), torch.ones(3), stream=stream)
    assert not isinstance(e.value, stridekit.StridekitError) or "internal" not in str(e.value)
    with pytest.raises(Exception):
        stridekit.contiguous(torch.ones(3), stream=stream)


def test_hostile_thread_counts_are_refused():
    with pytest.raises(ValueError, match="at most 1024"):
        stridekit.set_num_threads(10 ** 6)
    with pytest.raises(OverflowError):
        stridekit.set_num_threads(-1)
    with pytest.raises(OverflowError):
        stridekit.set_num_threads(2 ** 70)
    assert stridekit.get_num_threads() >= 1


def test_hostile_dlpack_export_requests_raise_ordinary_exceptions():
    a = stridekit.contiguous(torch.arange(6.0).view(2, 3).t())
    with pytest.raises(OverflowError):
        a.__dlpack__(max_version=(2 ** 40, 0))
    with pytest.raises(BufferError, match="own device"):
        a.__dlpack__(dl_device=(2, 7))
    with pytest.raises(TypeError):
        a.__dlpack__(max_version="1.0")
    # A CPU array ignores the stream; a future major version gets the newest it knows.
    assert torch.equal(torch.from_dlpack(a), torch.arange(6.0).view(2, 3).t())
    cap = a.__dlpack__(max_version=(7, 3), stream=2 ** 62)
    assert '"dltensor_versioned"' in repr(cap)
    del cap
    exported, deleted = stridekit._stridekit._export_counts()
    assert exported == deleted


class _Odd:
    """A producer that misbehaves in `how`."""

    def __init__(self, how):
        self.how = how

    def __dlpack_device__(self):
        return "cpu" if self.how == "device" else (1, 0)

    def __dlpack__(self, stream=None, max_version=None, copy=None):
        if self.how == "raises":
            raise RuntimeError("producer failed")
        if self.how == "not a capsule":
            return 42
        if self.how == "used capsule":
            cap = torch.ones(3).__dlpack__()
            torch.from_dlpack(cap)  # consumed: renamed to used_dltensor
            return cap
        return torch.ones(3).__dlpack__()


@pytest.mark.parametrize("how", ["raises", "not a capsule", "used capsule", "device"])
def test_misbehaving_producers_raise_ordinary_exceptions(how):
    for call in (lambda: stridekit.copy_(torch.zeros(3), _Odd(how)),
                 lambda: stridekit.copy_(_Odd(how), torch.zeros(3)),
                 lambda: stridekit.contiguous(_Odd(how))):
        with pytest.raises(Exception) as e:
            call()
        assert "internal error" not in str(e.value)


@pytest.mark.parametrize("program", [
    "x = torch.arange(10).as_strided((2**62,), (2**62,))",
    "x = torch.zeros(3).expand(2**62, 3).contiguous()",
    "x = torch.zeros(2**62)",
])
def test_explain_reports_sizes_that_overflow_as_errors_not_panics(program):
    report = stridekit.explain(program)
    assert report["error"] is not None, report
    assert "internal error" not in report["error"]["message"]
