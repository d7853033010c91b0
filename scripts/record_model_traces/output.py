"""Output: the traces' CSV text and files, and the GPU run's snapshot and its figures."""

from __future__ import annotations

import gzip
import os

import torch

from .recording import DEVICE, ROOT

DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "alloc", "real")
GZIP_ABOVE = 1 << 20


def csv_text(requests, header):
    lines = [f"# {h}" for h in header]
    for r in requests:
        lines.append(f"a,{r[1]},{r[2]}" if r[0] == "a" else f"f,{r[1]},0")
    return "\n".join(lines) + "\n"


def peak_live(requests):
    cur, peak, sizes = 0, 0, {}
    for r in requests:
        if r[0] == "a":
            sizes[r[1]] = r[2]
            cur += r[2]
            peak = max(peak, cur)
        else:
            cur -= sizes[r[1]]
    return peak


def write_trace(out_dir, name, text):
    plain = os.path.join(out_dir, f"{name}.csv")
    packed = plain + ".gz"
    for stale in (plain, packed):
        if os.path.exists(stale):
            os.remove(stale)
    data = text.encode()
    if len(data) > GZIP_ABOVE:
        # mtime=0: the same trace gives the same bytes.
        with open(packed, "wb") as f:
            f.write(gzip.compress(data, compresslevel=9, mtime=0))
        return packed
    with open(plain, "wb") as f:
        f.write(data)
    return plain


def record_cuda(fn):
    """Run `fn` on the GPU with PyTorch's allocator history on, from an empty cache; the
    snapshot (`torch.cuda.memory._snapshot()`) and `memory_stats()` after it."""
    torch.empty(4, device=DEVICE[0])
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python")
    fn()
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    return snap, torch.cuda.memory_stats()


def snapshot_figures(snap):
    """(allocations, frees, peak requested bytes) of a snapshot's first device history."""
    entries = next((d for d in snap["device_traces"] if d), [])
    live, cur, peak, allocs, frees = {}, 0, 0, 0, 0
    for e in entries:
        if e["action"] == "alloc":
            live[e["addr"]] = e["size"]
            cur += e["size"]
            peak = max(peak, cur)
            allocs += 1
        elif e["action"] == "free_requested" and e["addr"] in live:
            cur -= live.pop(e["addr"])
            frees += 1
    return allocs, frees, peak
