"""stridekit.set_num_threads / get_num_threads, and host copies large enough to split over
threads giving torch's bytes on 1, 2 and 3 threads (transpose, converting transpose,
NCHW->NHWC, reversal-free strided slice, expand)."""

import pytest
import torch

import stridekit


@pytest.fixture
def restore_threads():
    yield
    stridekit.set_num_threads(0)


def test_thread_count_is_settable_and_resets(restore_threads):
    stridekit.set_num_threads(3)
    assert stridekit.get_num_threads() == 3
    stridekit.set_num_threads(0)
    assert stridekit.get_num_threads() >= 1


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_large_host_copies_match_torch_on_any_thread_count(threads, restore_threads):
    stridekit.set_num_threads(threads)
    g = torch.Generator().manual_seed(threads)
    x = torch.randn(512, 768, generator=g)
    img = torch.randn(4, 32, 40, 40, generator=g).half()
    cases = [
        (torch.empty(768, 512), x.t()),
        (torch.empty(768, 512, dtype=torch.float16), x.t()),
        (torch.empty(768, 512, dtype=torch.bfloat16), x.t()),
        (torch.empty(4, 40, 40, 32, dtype=torch.float16), img.permute(0, 2, 3, 1)),
        (torch.empty(256, 384), x[::2, ::2]),
        (torch.empty(300, 768), x[:1].expand(300, 768)),
    ]
    for dst, src in cases:
        want = torch.empty_like(dst).copy_(src)
        stridekit.copy_(dst, src)
        assert torch.equal(dst.view(torch.uint8), want.view(torch.uint8))


def test_cpu_capability_follows_the_cap_and_copies_alike():
    """STRIDEKIT_CPU_CAPABILITY caps the vector level (read once per process, so each cap
    runs in a child process); every level gives torch's bytes."""
    import os
    import subprocess
    import sys

    assert stridekit.cpu_capability() in ("avx512", "avx2", "default")
    prog = (
        "import torch, stridekit\n"
        "x = torch.randn(300, 700).half()\n"
        "d = torch.empty(700, 300, dtype=torch.float32)\n"
        "stridekit.copy_(d, x.t())\n"
        "assert torch.equal(d, x.t().float())\n"
        "print(stridekit.cpu_capability())\n"
    )
    levels = ["default", "avx2", "avx512"]
    for cap in levels:
        env = dict(os.environ, STRIDEKIT_CPU_CAPABILITY=cap)
        out = subprocess.run(
            [sys.executable, "-c", prog], env=env, capture_output=True, text=True, check=True
        )
        got = out.stdout.strip()
        assert got in levels and levels.index(got) <= levels.index(cap), (cap, got)
    env = dict(os.environ, STRIDEKIT_CPU_CAPABILITY="sse9")
    out = subprocess.run(
        [sys.executable, "-c", prog], env=env, capture_output=True, text=True, check=True
    )
    assert "STRIDEKIT_CPU_CAPABILITY" in out.stderr and "ignored" in out.stderr
