#!/usr/bin/env python3
"""PyTorch under stridekit's pluggable allocator, against PyTorch's own allocator, on a GPU.

Runs the same small workload (a transformer-like loop: activations of varying sizes, a
KV cache that grows, frees in between, views and transposed copies) twice, each in a fresh
process: once with PyTorch's native caching allocator, once after
torch.cuda.memory.change_current_allocator(stridekit.torch_allocator()). Both must give the
same results (checksums); it prints the peak reserved and allocated bytes of each
(torch.cuda.max_memory_reserved() natively; stridekit.torch_stats() under stridekit, whose
keys are PyTorch's) and fails when stridekit's peak reserved differs from PyTorch's by more
than --tolerance (default 0: the policy is PyTorch's, so the figures should be equal).

  python scripts/torch_pluggable_check.py [--tolerance FRACTION] [--json OUT.json]

Needs torch with CUDA, a GPU, and the stridekit Python module installed (scripts/test-python
or pip install ./python). Exits 2 without a GPU.
"""

import argparse
import json
import os
import subprocess
import sys


def workload():
    import torch

    torch.manual_seed(0)
    dev = torch.device("cuda:0")
    checksum = 0.0
    cache = []
    for step in range(40):
        b = 1 + step % 7
        x = torch.randn(b, 128, 512, device=dev)
        h = torch.relu(x @ torch.randn(512, 1024, device=dev))
        q = h.view(b, 128, 16, 64).transpose(1, 2).contiguous()
        cache.append(q.half())
        if len(cache) > 6:
            cache.pop(0)
        s = (q @ q.transpose(-1, -2)).softmax(-1)
        checksum += float(s.sum()) + float(torch.cat(cache, dim=0).float().mean())
        del x, h, q, s
    torch.cuda.synchronize()
    return checksum


def child(mode):
    import torch

    if not torch.cuda.is_available():
        print("torch_pluggable_check: no GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    if mode == "stridekit":
        import stridekit

        torch.cuda.memory.change_current_allocator(stridekit.torch_allocator())
    checksum = workload()
    if mode == "stridekit":
        import stridekit

        s = stridekit.torch_stats(0)
        out = {
            "peak_reserved": s["reserved_bytes.all.peak"],
            "peak_allocated": s["allocated_bytes.all.peak"],
            "segments": s["segment.all.peak"],
        }
    else:
        out = {
            "peak_reserved": torch.cuda.max_memory_reserved(),
            "peak_allocated": torch.cuda.max_memory_allocated(),
            "segments": torch.cuda.memory_stats()["segment.all.peak"],
        }
    out["checksum"] = checksum
    out["torch"] = torch.__version__
    print(json.dumps(out))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tolerance", type=float, default=0.0)
    ap.add_argument("--json")
    ap.add_argument("--child", choices=["native", "stridekit"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(a.child)
    res = {}
    for mode in ["native", "stridekit"]:
        env = dict(os.environ)
        env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
        p = subprocess.run([sys.executable, __file__, "--child", mode], capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print(p.stdout + p.stderr, file=sys.stderr)
            return p.returncode
        res[mode] = json.loads(p.stdout.strip().splitlines()[-1])
    n, s = res["native"], res["stridekit"]
    for k in ["peak_reserved", "peak_allocated", "segments"]:
        print(f"{k:16} native {n[k]:>14,}  stridekit {s[k]:>14,}")
    print(f"checksum         native {n['checksum']:.6g}  stridekit {s['checksum']:.6g}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    ok = abs(n["checksum"] - s["checksum"]) <= 1e-6 * max(1.0, abs(n["checksum"]))
    diff = abs(s["peak_reserved"] - n["peak_reserved"]) / max(1, n["peak_reserved"])
    if not ok:
        print("FAIL: results differ under the stridekit allocator", file=sys.stderr)
        return 1
    if diff > a.tolerance:
        print(f"FAIL: peak reserved differs by {diff:.2%} (> {a.tolerance:.2%})", file=sys.stderr)
        return 1
    print("ok: same results; peak reserved within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
