#!/usr/bin/env python3
"""stridekit's CPU copies beside PyTorch's, in one process, on the same tensors.

Every case builds its source and destination once as torch tensors; then, for each thread
count, rounds alternate ``dst.copy_(src)`` (torch, after ``torch.set_num_threads``) with
``stridekit.copy_(dst, src)`` (the Python module over DLPack, after
``stridekit.set_num_threads``), the side going first swapping every round, and each side's
median over the rounds is kept. Row gathers compare ``torch.index_select(..., out=dst)``
with the C ABI's ``stridekit_row_gather`` (ctypes over the module's own library file).
``--via capi`` times the copies through the C ABI's ``stridekit_copy`` the same way instead
of the module's ``copy_``: the module imports both tensors over DLPack on every call, and
torch's Python-level ``__dlpack__``/``__dlpack_device__`` calls that takes measured as
slowing the copy that follows (torch's own ``copy_`` too) by tens of microseconds at 4 MiB.
Before each sample both pools' idle threads are left to stop spinning (``SETTLE_S``) and
the side to be timed makes one untimed call, so that neither side's spinning threads take
the cores the other's copy runs on (interleaved without that pause, the side timed after
torch lost 10-30% at 2 threads on 2 cores to libgomp's spinning threads). After timing, the
two sides' outputs are compared byte for byte.

The whole sweep runs ``--runs`` times; the table shows, per case and thread count, the
median over runs of each side's time and of the per-run ratio stridekit/torch (under 1:
stridekit is faster), and for 1 GiB transposes and permutes each side's rate as a share of the same run's
1 GiB memcpy rate (bytes written per second). The machine may be shared and noisy: compare
ratios, not absolute times.

Sizes: ``cache`` (about 4 MiB per operand) and ``1gib`` (1 GiB on the larger side; at most
about 3 GiB resident, freed after each case). Needs the module built in release
(``scripts/bench-cpu-vs-torch`` does that, then runs this).

    python scripts/bench_cpu_vs_torch.py --sizes cache,1gib --threads 1,2 --runs 3 \\
        --json bench/cpu_vs_torch.json --markdown bench/cpu_vs_torch.md
"""

import argparse
import ctypes
import gc
import json
import platform
import statistics
import sys
import time

import torch

import stridekit

MiB = 1 << 20


# --------------------------------------------------------------------------- C ABI (gather, copy)
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_CODES = {
    torch.float32: (2, 32),
    torch.float16: (2, 16),
    torch.bfloat16: (4, 16),
    torch.float64: (2, 64),
    torch.int64: (0, 64),
    torch.int32: (0, 32),
    torch.uint8: (1, 8),
}


def _dl(t: torch.Tensor, keep: list) -> _DLTensor:
    shape = (ctypes.c_int64 * t.dim())(*t.shape)
    strides = (ctypes.c_int64 * t.dim())(*t.stride())
    keep += [shape, strides]
    code, bits = _CODES[t.dtype]
    return _DLTensor(t.data_ptr(), _DLDevice(1, 0), t.dim(), _DLDataType(code, bits, 1), shape, strides, 0)


class _CAbi:
    """stridekit_row_gather and stridekit_copy over torch tensors, the DLTensor structs
    built once (ctypes over the module's own library file)."""

    def __init__(self):
        self.so = ctypes.CDLL(stridekit.library_path())
        self.so.stridekit_row_gather.argtypes = [ctypes.POINTER(_DLTensor)] * 3 + [ctypes.c_void_p]
        self.so.stridekit_copy.argtypes = [ctypes.POINTER(_DLTensor)] * 2 + [ctypes.c_void_p]
        self.so.stridekit_last_error.restype = ctypes.c_char_p

    def bind(self, *tensors):
        """A call of stridekit_copy(dst, src) or stridekit_row_gather(dst, src, index)."""
        keep = []
        args = [ctypes.byref(_dl(t, keep)) for t in tensors]
        fn = self.so.stridekit_row_gather if len(tensors) == 3 else self.so.stridekit_copy

        def run():
            if fn(*args, None) != 0:
                raise RuntimeError(self.so.stridekit_last_error().decode())

        run.keep = keep
        return run


# --------------------------------------------------------------------------- cases
def _data(shape, dtype):
    n = 1
    for s in shape:
        n *= s
    if dtype.is_floating_point:
        return torch.rand(n, dtype=torch.float32).to(dtype).view(shape)
    return torch.randint(0, 127, (n,), dtype=dtype).view(shape)


def _copy(src, dst_dtype=None, fmt=torch.contiguous_format):
    dst = torch.empty(src.shape, dtype=dst_dtype or src.dtype).contiguous(memory_format=fmt)
    return dst, src


def _cases(size):
    """name -> (bytes of the larger side, builder giving (dst, src) or (dst, src, index))."""
    big = size == "1gib"
    el = (1 << 30) if big else 4 * MiB  # bytes of the larger operand
    cases = {}

    def add(name, nbytes, build):
        cases[name] = (nbytes, build)

    n4 = el // 4
    add(f"memcpy_f32_{n4}", el, lambda: _copy(_data((n4,), torch.float32)))
    # 2-d transposes of every width (1, 2, 4, 8 bytes), square or 2:1.
    for dt in (torch.uint8, torch.float16, torch.float32, torch.float64):
        w = dt.itemsize
        n = el // w
        side = int(n**0.5)
        r, c = (side, side) if side * side == n else (int((n // 2) ** 0.5), 2 * int((n // 2) ** 0.5))
        name = f"transpose2d_{str(dt).split('.')[1]}_{r}x{c}"
        add(name, r * c * w, lambda r=r, c=c, dt=dt: _copy(_data((r, c), dt).t()))
        if w < 8:
            # The same off the 64-byte line grid: rows of neither side a multiple of 64 bytes.
            r2, c2 = r - 4, c + 4
            name = f"transpose2d_{str(dt).split('.')[1]}_{r2}x{c2}"
            add(name, r2 * c2 * w, lambda r=r2, c=c2, dt=dt: _copy(_data((r, c), dt).t()))
            # And far from powers of two: odd row lengths about 8% off the square's.
            r3, c3 = int(r * 0.92) | 1, int(c * 1.08) | 1
            name = f"transpose2d_{str(dt).split('.')[1]}_{r3}x{c3}"
            add(name, r3 * c3 * w, lambda r=r3, c=c3, dt=dt: _copy(_data((r, c), dt).t()))
    # Permutes of 3, 4 and 6 dimensions.
    s3 = (1024, 1024, 256) if big else (64, 128, 128)
    add(f"perm3d_201_f32_{'x'.join(map(str, s3))}", el, lambda: _copy(_data(s3, torch.float32).permute(2, 0, 1)))
    s4 = (128,) * 4 if big else (32,) * 4
    add(f"perm4d_3210_f32_{s4[0]}^4", el, lambda: _copy(_data(s4, torch.float32).permute(3, 2, 1, 0)))
    s6 = (32, 32, 16, 32, 16, 32) if big else (8, 8, 8, 8, 8, 32)
    add(f"perm6d_503142_f32_{'x'.join(map(str, s6))}", el,
        lambda: _copy(_data(s6, torch.float32).permute(5, 0, 3, 1, 4, 2)))
    # NCHW <-> NHWC: 64 channels (2- and 4-byte), and 3-channel images (an inference
    # server's image batches), u8 and f32.
    for dt, c, hw, small in ((torch.float16, 64, 128, (32, 32, 28, 28)), (torch.float32, 64, 128, (32, 32, 28, 28)),
                             (torch.uint8, 3, 224, (8, 3, 224, 224)), (torch.float32, 3, 224, (8, 3, 224, 224))):
        w = dt.itemsize
        shape = (el // w // (c * hw * hw), c, hw, hw) if big else small
        nb = shape[0] * shape[1] * shape[2] * shape[3] * w
        t = str(dt).split(".")[1]
        label = "x".join(map(str, shape))
        add(f"nchw2nhwc_{t}_{label}", nb,
            lambda s=shape, dt=dt: _copy(_data(s, dt), fmt=torch.channels_last))
        add(f"nhwc2nchw_{t}_{label}", nb,
            lambda s=shape, dt=dt: _copy(_data(s, dt).contiguous(memory_format=torch.channels_last)))
    # Strided slice (every other column), broadcast copies.
    r = 16384 if big else 1024
    c = el // 4 // r
    add(f"slice_step2_f32_{r}x{c}", el, lambda: _copy(_data((r, c), torch.float32)[:, ::2]))
    add(f"expand_rows_f32_{r}x{c}", el, lambda: _copy(_data((1, c), torch.float32).expand(r, c)))
    add(f"expand_cols_f32_{r}x{c}", el, lambda: _copy(_data((r, 1), torch.float32).expand(r, c)))
    # Converting copies f32 <-> f16 / bf16 (the f32 side is `el` bytes), and a converting
    # transpose.
    for lo in (torch.float16, torch.bfloat16):
        t = str(lo).split(".")[1]
        add(f"convert_f32_to_{t}_{n4}", el, lambda lo=lo: _copy(_data((n4,), torch.float32), lo))
        add(f"convert_{t}_to_f32_{n4}", el, lambda lo=lo: _copy(_data((n4,), lo), torch.float32))
    side = int(n4**0.5)
    add(f"convert_transpose_f32_to_float16_{side}x{side}", el,
        lambda: _copy(_data((side, side), torch.float32).t(), torch.float16))
    # Row gather (index_select / embedding lookup): half the rows, random order.
    row = 256
    rows = el // 4 // row
    add(f"gather_rows_f32_{rows}x{row}", el // 2, lambda: _gather_case(rows, row))
    return cases


def _gather_case(rows, row):
    src = _data((rows, row), torch.float32)
    index = torch.randint(0, rows, (rows // 2,), dtype=torch.int64)
    return torch.empty(rows // 2, row), src, index


# --------------------------------------------------------------------------- timing
# Idle threads of both pools spin for a while before they sleep: libgomp's under torch
# (3.6 ms of CPU time burnt after a 2-thread 4 MiB copy_ on the development VM), stridekit's
# for STRIDEKIT_SPIN_US (1 ms by default). On a machine with as many cores as threads, the
# side timed next would share its cores with the other's spinning threads, so each sample
# starts after this pause and one untimed call.
SETTLE_S = 0.02

def _time(fn, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def _bits(t):
    """The tensor's elements as integers of the same width (compared bit for bit)."""
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _measure(case, threads, rounds, min_s, capi, via):
    parts = case()
    if len(parts) == 3:
        dst, src, index = parts
        ours = capi.bind(dst, src, index)

        def theirs():
            torch.index_select(src, 0, index, out=dst)
    else:
        dst, src = parts
        if via == "capi":
            ours = capi.bind(dst, src)
        else:

            def ours():
                stridekit.copy_(dst, src)

        def theirs():
            dst.copy_(src)

    out = {}
    for n in threads:
        torch.set_num_threads(n)
        stridekit.set_num_threads(n)
        ours(), theirs()  # warm up (first touch, pools)
        reps = max(1, int(min_s / max(_time(theirs, 1), 1e-7)))
        t, s = [], []
        for r in range(rounds):
            order = [(theirs, t), (ours, s)] if r % 2 == 0 else [(ours, s), (theirs, t)]
            for fn, acc in order:
                # The other side's idle threads stop spinning first, and this side's
                # wake: each sample times one library alone with its own pool warm.
                time.sleep(SETTLE_S)
                fn()
                acc.append(_time(fn, reps))
        out[n] = (statistics.median(t), statistics.median(s))
    # Byte-exact: torch's result against stridekit's.
    theirs()
    want = dst.clone()
    dst.zero_()
    ours()
    same = torch.equal(_bits(dst), _bits(want))
    del parts, dst, src, want
    gc.collect()
    return out, same


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="cache,1gib")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds per case and thread count")
    ap.add_argument("--min-time", type=float, default=0.02, help="seconds per timed sample (at least one call)")
    ap.add_argument("--only", default="",
                    help="comma-separated substrings; a case runs when its name contains any (memcpy always runs)")
    ap.add_argument("--via", choices=("module", "capi"), default="module",
                    help="stridekit's copies through the Python module's copy_ (DLPack import per call) "
                         "or the C ABI's stridekit_copy (ctypes, DLTensors built once; row gathers always)")
    ap.add_argument("--json", help="write every run's figures here")
    ap.add_argument("--markdown", help="write the table here")
    a = ap.parse_args(argv)
    threads = [int(x) for x in a.threads.split(",")]
    only = [o for o in a.only.split(",") if o]
    capi = _CAbi()
    results = {}  # (size, name, threads) -> list of (torch_s, ours_s, memcpy_rate_torch, memcpy_rate_ours)
    nbytes = {}
    for run in range(a.runs):
        for size in a.sizes.split(","):
            memcpy = {}
            for name, (nb, build) in _cases(size).items():
                if only and not any(o in name for o in only) and not name.startswith("memcpy"):
                    continue
                t0 = time.perf_counter()
                out, same = _measure(build, threads, a.rounds, a.min_time, capi, a.via)
                if not same:
                    print(f"MISMATCH: {name}: stridekit's bytes differ from torch's", file=sys.stderr)
                    return 1
                nbytes[(size, name)] = nb
                for n, (t, s) in out.items():
                    if name.startswith("memcpy"):
                        memcpy[n] = (nb / t, nb / s)
                    results.setdefault((size, name, n), []).append((t, s, memcpy.get(n)))
                cells = "  ".join(f"{n}t {t * 1e3:.3f}/{s * 1e3:.3f} ms ({s / t:.2f}x)" for n, (t, s) in out.items())
                print(f"run {run + 1} {size:5} {name:45} {cells}  [{time.perf_counter() - t0:.1f} s]", flush=True)
    rows = []
    for (size, name, n), samples in results.items():
        nb = nbytes[(size, name)]
        t = statistics.median(x[0] for x in samples)
        s = statistics.median(x[1] for x in samples)
        ratio = statistics.median(x[1] / x[0] for x in samples)
        share = None
        layout_change = name.startswith(("transpose", "perm", "nchw", "nhwc"))
        if size == "1gib" and layout_change and all(x[2] for x in samples):
            share = (
                statistics.median((nb / x[0]) / x[2][0] for x in samples),
                statistics.median((nb / x[1]) / x[2][1] for x in samples),
            )
        rows.append(dict(size=size, case=name, threads=n, bytes=nb, torch_s=t, stridekit_s=s, ratio=ratio,
                         memcpy_share=share, runs=len(samples)))
    lines = [
        f"| size | case | threads | torch ms | stridekit ms | stridekit/torch | share of memcpy rate (torch / stridekit) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        share = f"{r['memcpy_share'][0]:.0%} / {r['memcpy_share'][1]:.0%}" if r["memcpy_share"] else ""
        lines.append(
            f"| {r['size']} | {r['case']} | {r['threads']} | {r['torch_s'] * 1e3:.3f} | {r['stridekit_s'] * 1e3:.3f} "
            f"| {r['ratio']:.2f} | {share} |"
        )
    table = "\n".join(lines)
    print(table)
    meta = dict(torch=torch.__version__, stridekit=stridekit.__version__, python=platform.python_version(),
                machine=platform.machine(), runs=a.runs, rounds=a.rounds, threads=threads, via=a.via)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(meta=meta, rows=rows), f, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
