"""The DLPack capsules stridekit exports and consumes: every deleter runs exactly once,
nothing leaks, and memory stays valid as long as a consumer holds it."""

import gc
import resource
import sys

import numpy as np
import torch

import stridekit


def counts():
    gc.collect()
    return stridekit._export_counts()


def test_a_consumed_export_is_deleted_once_when_the_consumer_lets_go():
    e0, d0 = counts()
    a = stridekit.contiguous(torch.arange(12.0).view(4, 3).t())
    t = torch.from_dlpack(a)
    assert counts() == (e0 + 1, d0)
    del a  # torch's tensor keeps the storage alive
    assert t[1].tolist() == [1.0, 4.0, 7.0, 10.0]
    del t
    assert counts() == (e0 + 1, d0 + 1)


def test_an_unconsumed_capsule_is_deleted_by_its_destructor():
    a = stridekit.contiguous(torch.ones(3))
    e0, d0 = counts()
    for kwargs in ({"max_version": (1, 0)}, {}):
        cap = a.__dlpack__(**kwargs)
        del cap
    assert counts() == (e0 + 2, d0 + 2)


def test_legacy_and_versioned_capsules_and_numpy():
    a = stridekit.contiguous(torch.arange(6, dtype=torch.int16))
    e0, d0 = counts()
    legacy = torch.utils.dlpack.from_dlpack(a.__dlpack__())
    versioned = torch.from_dlpack(a)
    n = np.from_dlpack(a)
    assert legacy.tolist() == versioned.tolist() == n.tolist() == list(range(6))
    del legacy, versioned, n
    assert counts() == (e0 + 3, d0 + 3)
    # copy=True exports a copy (and says so): writes do not reach the array.
    c = torch.from_dlpack(a.__dlpack__(max_version=(1, 0), copy=True))
    c[0] = 99
    assert torch.from_dlpack(a)[0] == 0


def test_no_leak_over_many_exports():
    gc.collect()
    e0, d0 = counts()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(300):
        t = torch.from_dlpack(stridekit.contiguous(torch.empty(1 << 20)))  # 4 MiB each
        del t
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    e1, d1 = counts()
    assert e1 - e0 == 300 and d1 - d0 == 300
    assert (after - before) < 200 * 1024, f"max RSS grew by {after - before} KiB"


def test_imports_release_their_producer_once():
    # numpy's export holds a reference to the array until its deleter runs.
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.zeros((4, 3), dtype=np.float32)
    rx, ry = sys.getrefcount(x), sys.getrefcount(y)
    for _ in range(50):
        stridekit.copy_(y, x.T)
        stridekit.contiguous(x.T)
    assert (sys.getrefcount(x), sys.getrefcount(y)) == (rx, ry)
    # A failing import (bad layout) releases it too.
    for _ in range(10):
        try:
            stridekit.copy_(y, x[::-1])
        except (stridekit.StridekitError, BufferError):
            pass
    assert sys.getrefcount(x) == rx
