"""Several Python threads on one module at once, as an inference server's request threads
use it: stridekit.copy_ and stridekit.contiguous on shared read-only sources, one C plan run
by every thread, and one caching allocator (the C ABI over "sim", whose blocks are host
memory) served to all of them, while another thread changes the CPU thread count. Every
call releases the GIL (py.detach, ctypes), so the native code really runs concurrently.
Checked: every result byte-exact against torch, no exception or crash, no block handed to
two threads at once (each thread fills its blocks with its own pattern and finds it intact
before freeing), and the allocator's statistics balanced at the end."""

import ctypes
import random
import threading

import numpy as np
import torch

import stridekit
from conftest import c_abi, dl_numpy, stats_json

THREADS = 8
ROUNDS = 60


def _sources():
    g = torch.Generator().manual_seed(20)
    x = torch.randn(96, 80, generator=g)
    img = torch.randn(2, 3, 16, 16, generator=g).half()
    big = torch.randn(256, 160, generator=g)  # 160 KiB: split over the CPU pool
    return [
        (lambda: torch.empty(80, 96), x.t()),
        (lambda: torch.empty(80, 96, dtype=torch.bfloat16), x.t()),
        (lambda: torch.empty(2, 16, 16, 3, dtype=torch.float16), img.permute(0, 2, 3, 1)),
        (lambda: torch.empty(48, 40, dtype=torch.float64), x[::2, ::2]),
        (lambda: torch.empty(30, 80), x[:1].expand(30, 80)),
        (lambda: torch.empty(160, 256), big.t()),
    ]


def _run_threads(work):
    """Runs work(t) on THREADS threads started together; re-raises the first failure."""
    start = threading.Barrier(THREADS)
    errors = []

    def body(t):
        try:
            start.wait()
            work(t)
        except BaseException as e:  # noqa: BLE001 - reported on the main thread
            errors.append((t, e))

    threads = [threading.Thread(target=body, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        t, e = errors[0]
        raise AssertionError(f"thread {t} of {THREADS} failed ({len(errors)} failures)") from e


def test_threads_share_copies_plans_and_one_allocator():
    so = c_abi()
    cases = _sources()
    wants = [make().copy_(src) for make, src in cases]

    # One plan for every thread: a float32 (64, 48) transpose into float16.
    keep = []
    plan_src = np.arange(48 * 64, dtype=np.float32).reshape(48, 64)
    plan_want = plan_src.T.astype(np.float16)
    plan = ctypes.c_void_p()
    d0 = dl_numpy(np.zeros((64, 48), dtype=np.float16), keep)
    s0 = dl_numpy(plan_src.T, keep)
    assert so.stridekit_plan_new(d0, s0, ctypes.byref(plan)) == 0, so.stridekit_last_error()

    alloc = ctypes.c_void_p()
    assert so.stridekit_allocator_new(b"sim:1GiB", b"", ctypes.byref(alloc)) == 0
    live, live_lock = set(), threading.Lock()
    calls = [0] * THREADS

    def work(t):
        r = random.Random(t)
        mine = []  # (address, size, pattern byte)
        for i in range(ROUNDS):
            k = r.randrange(len(cases))
            make, src = cases[k]
            if r.random() < 0.5:
                dst = make()
                stridekit.copy_(dst, src)
                assert torch.equal(dst.view(torch.uint8), wants[k].view(torch.uint8)), k
            else:
                a = torch.from_dlpack(stridekit.contiguous(src))
                assert a.is_contiguous() and torch.equal(a, src), k
            out = np.zeros((64, 48), dtype=np.float16)
            rc = so.stridekit_plan_run(plan, out.ctypes.data, plan_src.ctypes.data, None)
            assert rc == 0, so.stridekit_last_error()
            np.testing.assert_array_equal(out, plan_want)
            # Allocator: grow to a few live blocks, then free them, checking each first.
            if len(mine) < 6 and (r.random() < 0.6 or not mine):
                size = r.choice([1, 512, 4000, 1 << 20, 3 << 20])
                p = ctypes.c_void_p()
                rc = so.stridekit_allocator_malloc(alloc, size, None, ctypes.byref(p))
                assert rc == 0, so.stridekit_last_error()
                with live_lock:
                    assert p.value not in live, f"address {p.value:#x} handed out twice"
                    live.add(p.value)
                pattern = (t * 31 + i) % 251 + 1
                ctypes.memset(p.value, pattern, size)
                mine.append((p.value, size, pattern))
            else:
                addr, size, pattern = mine.pop(r.randrange(len(mine)))
                got = ctypes.string_at(addr, size)
                assert got == bytes([pattern]) * size, f"block {addr:#x} written by another thread"
                with live_lock:
                    live.remove(addr)
                assert so.stridekit_allocator_free(alloc, addr) == 0, so.stridekit_last_error()
            if i % 20 == 0:
                s = stats_json(so, alloc)
                assert s["allocated_bytes.all.current"] >= 0
                assert so.stridekit_allocator_empty_cache(alloc) == 0
            calls[t] += 1
        for addr, size, pattern in mine:
            assert ctypes.string_at(addr, size) == bytes([pattern]) * size
            with live_lock:
                live.remove(addr)
            assert so.stridekit_allocator_free(alloc, addr) == 0, so.stridekit_last_error()

    def change_thread_counts():
        for n in [1, 2, 3, 1, 2]:
            stridekit.set_num_threads(n)

    toggler = threading.Thread(target=change_thread_counts)
    toggler.start()
    try:
        _run_threads(work)
    finally:
        toggler.join()
        stridekit.set_num_threads(0)

    assert calls == [ROUNDS] * THREADS and not live
    s = stats_json(so, alloc)
    assert s["allocated_bytes.all.current"] == 0
    assert s["active_bytes.all.current"] == 0
    assert s["allocation.all.current"] == 0
    assert s["allocation.all.allocated"] == s["allocation.all.freed"] > 0
    assert so.stridekit_allocator_empty_cache(alloc) == 0
    assert stats_json(so, alloc)["reserved_bytes.all.current"] == 0
    assert so.stridekit_allocator_destroy(alloc) == 0
    assert so.stridekit_plan_free(plan) == 0
    # Both handles are gone: a second release is refused, not undefined behaviour.
    assert so.stridekit_plan_free(plan) == 1 and so.stridekit_allocator_destroy(alloc) == 1


def test_a_plan_freed_while_threads_run_it_is_run_whole_or_refused():
    so = c_abi()
    keep = []
    src = np.arange(256 * 192, dtype=np.float32).reshape(192, 256)
    want = src.T.copy()
    plan = ctypes.c_void_p()
    d0 = dl_numpy(np.zeros((256, 192), dtype=np.float32), keep)
    assert so.stridekit_plan_new(d0, dl_numpy(src.T, keep), ctypes.byref(plan)) == 0
    freed = threading.Event()
    outcomes = [[0, 0] for _ in range(THREADS)]

    def work(t):
        if t == 0:
            for _ in range(5):
                out = np.zeros((256, 192), dtype=np.float32)
                assert so.stridekit_plan_run(plan, out.ctypes.data, src.ctypes.data, None) == 0
            assert so.stridekit_plan_free(plan) == 0
            freed.set()
            return
        while True:
            done = freed.is_set()
            out = np.zeros((256, 192), dtype=np.float32)
            rc = so.stridekit_plan_run(plan, out.ctypes.data, src.ctypes.data, None)
            if rc == 0:
                np.testing.assert_array_equal(out, want)
                outcomes[t][0] += 1
            else:
                assert rc == 1 and b"is not a live plan" in so.stridekit_last_error()
                assert not out.any(), "a refused run wrote"
                outcomes[t][1] += 1
                return
            assert not done, "a run after the free succeeded"

    _run_threads(work)
    assert all(refused == 1 for _, refused in outcomes[1:])
