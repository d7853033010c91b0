import ctypes
import json
import os

import pytest

try:
    import torch
except ImportError:  # pragma: no cover - the test environment pins torch
    torch = None


def cuda_available() -> bool:
    return torch is not None and torch.cuda.is_available()


# What the predicted CUDA figures depend on besides the program: the allocator's settings
# (read by the tracer and explain under sim) and PyTorch's cuBLAS workspace settings (read by
# cuda_rules.BlasWorkspaces). The tests state figures for the defaults, so a machine that
# sets any of these (a GPU host often sets PYTORCH_CUDA_ALLOC_CONF) must not change them;
# the variables are unset for every test and the processes it starts.
PREDICTION_SETTINGS = ("STRIDEKIT_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "CUBLAS_WORKSPACE_CONFIG",
                       "CUBLASLT_WORKSPACE_SIZE", "TORCH_CUBLASLT_UNIFIED_WORKSPACE", "DISABLE_ADDMM_CUDA_LT")


@pytest.fixture(autouse=True)
def _default_prediction_settings(monkeypatch):
    for k in PREDICTION_SETTINGS:
        monkeypatch.delenv(k, raising=False)


@pytest.fixture
def cuda():
    """Skips without a GPU; fails instead under STRIDEKIT_REQUIRE_GPU=1 (gpu-check)."""
    if not cuda_available():
        if os.environ.get("STRIDEKIT_REQUIRE_GPU") == "1":
            pytest.fail("STRIDEKIT_REQUIRE_GPU=1 but torch sees no CUDA device")
        pytest.skip("no CUDA device")
    return torch.device("cuda:0")


# The C ABI through ctypes, shared by the tests that call it (test_c_abi_and_cuda.py,
# test_hostile.py, test_thread_stress.py): the DLPack structs as include/stridekit.h declares
# them and the extension module's own file, which exports the C functions.
c_int64_p = ctypes.POINTER(ctypes.c_int64)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", c_int64_p),
        ("strides", c_int64_p),
        ("byte_offset", ctypes.c_uint64),
    ]


_DL = ctypes.POINTER(DLTensor)
_VP = ctypes.c_void_p
_OUT = ctypes.POINTER(ctypes.c_void_p)
# name: (restype, argtypes) of every C function the tests call.
_SIGNATURES = {
    "stridekit_last_error": (ctypes.c_char_p, []),
    "stridekit_copy": (ctypes.c_int, [_DL, _DL, _VP]),
    "stridekit_plan_new": (ctypes.c_int, [_DL, _DL, _OUT]),
    "stridekit_plan_run": (ctypes.c_int, [_VP, _VP, _VP, _VP]),
    "stridekit_plan_free": (ctypes.c_int, [_VP]),
    "stridekit_row_gather": (ctypes.c_int, [_DL, _DL, _DL, _VP]),
    "stridekit_allocator_new": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, _OUT]),
    "stridekit_allocator_malloc": (ctypes.c_int, [_VP, ctypes.c_size_t, _VP, _OUT]),
    "stridekit_allocator_free": (ctypes.c_int, [_VP, _VP]),
    "stridekit_allocator_record_stream": (ctypes.c_int, [_VP, _VP, _VP]),
    "stridekit_allocator_empty_cache": (ctypes.c_int, [_VP]),
    "stridekit_allocator_stats_json": (_VP, [_VP]),
    "stridekit_allocator_destroy": (ctypes.c_int, [_VP]),
    "stridekit_string_free": (ctypes.c_int, [_VP]),
    "stridekit_torch_malloc": (_VP, [ctypes.c_ssize_t, ctypes.c_int, _VP]),
    "stridekit_torch_free": (None, [_VP, ctypes.c_ssize_t, ctypes.c_int, _VP]),
}


def c_abi():
    """The C ABI of the loaded extension module, every function typed as in stridekit.h."""
    import stridekit

    so = ctypes.CDLL(stridekit.library_path())
    for name, (res, args) in _SIGNATURES.items():
        f = getattr(so, name)
        f.restype, f.argtypes = res, args
    return so


def stats_json(so, allocator) -> dict:
    """stridekit_allocator_stats_json as a dict (the string freed once)."""
    p = so.stridekit_allocator_stats_json(allocator)
    assert p, so.stridekit_last_error()
    try:
        return json.loads(ctypes.string_at(p).decode())
    finally:
        assert so.stridekit_string_free(p) == 0


def dl_numpy(a, keep: list) -> DLTensor:
    """A host DLTensor of numpy array `a` (its shape and strides kept alive in `keep`)."""
    shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
    strides = (ctypes.c_int64 * max(a.ndim, 1))(*(s // a.itemsize for s in a.strides))
    keep += [shape, strides]
    code = {"f": 2, "i": 0, "u": 1, "b": 6}[a.dtype.kind]
    return DLTensor(a.ctypes.data, DLDevice(1, 0), a.ndim, DLDataType(code, a.itemsize * 8, 1),
                    ctypes.cast(shape, c_int64_p), ctypes.cast(strides, c_int64_p), 0)
