"""The C ABI from Python (ctypes over the extension module's own file, which exports it),
the Python snippets of docs/embedding.md, and the CUDA paths (skipped without a GPU; failing under
STRIDEKIT_REQUIRE_GPU=1): copies with CUDA tensors on the default and on an external
stream, contiguous() on CUDA, and the pluggable allocator's fail-clean behaviour."""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

import stridekit
from conftest import c_abi, dl_numpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
EMBEDDING = ROOT / "docs" / "embedding.md"


def test_the_c_abi_through_ctypes():
    so, keep = c_abi(), []
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.zeros((3, 4), dtype=np.float16)
    assert so.stridekit_copy(dl_numpy(y, keep), dl_numpy(x.T, keep), None) == 0
    np.testing.assert_array_equal(y, x.T.astype(np.float16))
    bad = np.zeros((3, 5), dtype=np.float32)
    assert so.stridekit_copy(dl_numpy(bad, keep), dl_numpy(x.T, keep), None) == 2  # STRIDEKIT_ERR_TENSOR
    assert b"must match the size of tensor b" in so.stridekit_last_error()


def test_pluggable_allocator_fails_cleanly_without_a_gpu():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: scripts/torch_pluggable_check.py covers it")
    so = c_abi()
    assert so.stridekit_torch_malloc(1024, 0, None) is None
    assert b"libcuda" in so.stridekit_last_error()
    assert stridekit.torch_stats(0) is None
    with pytest.raises(stridekit.StridekitError, match="CUDA"):
        stridekit.explain("x = torch.zeros(2)", device="cuda")


def test_pluggable_check_script_says_when_there_is_no_gpu():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: gpu-check runs the script itself")
    script = ROOT / "scripts" / "torch_pluggable_check.py"
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "no GPU" in p.stderr


def test_torch_loads_the_pluggable_allocator():
    # torch dlopens the module's file and resolves both functions (no CUDA call yet).
    alloc = stridekit.torch_allocator()
    assert isinstance(alloc, torch.cuda.memory.CUDAPluggableAllocator)
    assert alloc.allocator() is not None


def _run_snippets(blocks, where):
    """Runs documentation blocks: those using torch.cuda in a fresh interpreter each (one
    installs stridekit's allocator, which PyTorch allows once per process and only before
    its first CUDA allocation; in this process it would also serve every later CUDA test),
    skipped without a GPU; the others here."""
    for code in blocks:
        if "torch.cuda" not in code:
            exec(compile(code, where, "exec"), {})
        elif torch.cuda.is_available():
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            assert p.returncode == 0, f"{where}: the block failed in a fresh process:\n{code}\n{p.stdout}{p.stderr[-3000:]}"


def test_embedding_page_python_snippets_run():
    # docs/embedding.md holds what was the README's "Use from C, Python and PyTorch" section.
    text = EMBEDDING.read_text()
    section = text[text.index("## Python\n") :]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 2, "docs/embedding.md: the Python and pluggable-allocator blocks"
    _run_snippets(blocks, "docs/embedding.md")


def test_readme_python_snippets_run():
    # The README's "Embed it" examples (tv209.py's block is checked by tests/docs.rs).
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Embed it") :]
    section = section[: section.index("\n## ", 10)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 2, "README.md: the Embed it section's Python blocks"
    _run_snippets(blocks, "README.md")


def test_cuda_copies_on_default_and_external_streams(cuda):
    x = torch.randn(256, 192, device=cuda)
    y = torch.empty(192, 256, device=cuda)
    p = y.data_ptr()
    stridekit.copy_(y, x.t())
    torch.cuda.synchronize()
    assert y.data_ptr() == p and torch.equal(y, x.t())
    s = torch.cuda.Stream()
    nchw = torch.randn(4, 3, 32, 32, device=cuda)
    nhwc = torch.empty(4, 3, 32, 32, device=cuda, dtype=torch.float16).contiguous(memory_format=torch.channels_last)
    with torch.cuda.stream(s):
        stridekit.copy_(nhwc, nchw, stream=s)
    s.synchronize()
    assert torch.equal(nhwc, nchw.half())
    # Every layout pair of the CPU test, on the GPU, on torch's current stream.
    from test_copy import DST, SRC

    for sk in SRC:
        for dk in DST:
            src = SRC[sk](torch.float32, cuda)
            base, dst = DST[dk](torch.float32, cuda)
            want_base, want = DST[dk](torch.float32, cuda)
            want.copy_(src)
            stridekit.copy_(dst, src, stream=torch.cuda.current_stream())
            torch.cuda.synchronize()
            assert torch.equal(base, want_base), (sk, dk)


def test_cuda_contiguous_shares_memory_with_torch(cuda):
    x = torch.randn(64, 32, device=cuda)
    a = stridekit.contiguous(x.t())
    assert a.device == "cuda:0" and a.__dlpack_device__() == (2, 0)
    t = torch.from_dlpack(a)
    assert t.device == x.device and torch.equal(t, x.t().contiguous())
    t.add_(1)
    assert torch.equal(torch.from_dlpack(a), x.t() + 1)
    with pytest.raises(stridekit.StridekitError, match="one device"):
        stridekit.copy_(torch.empty(3), torch.empty(3, device=cuda))
