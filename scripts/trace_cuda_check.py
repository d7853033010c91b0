#!/usr/bin/env python3
"""GPU check of `python -m stridekit trace --device cuda` (scripts/gpu-check step `trace-cuda`):
a small training loop (PROG: Linear-GELU-Linear, AdamW, 3 steps) traced on cuda:0, printing
after every step PyTorch's own torch.cuda.memory_stats() beside two predictions of them:

- `cuda`: the same run's storages on cuda:0 replayed into stridekit's PyTorch-policy caching
  allocator, plus the cuBLAS/cuBLASLt workspaces of python/stridekit/cuda_rules.py;
- `sim`: the program run on the CPU (`--device sim --step-counters device`: the step counters
  on cuda:0, as `--device cuda`'s default device puts them), the CPU-only prediction that
  python/tests/test_trace_cuda_figures.py checks against the H200's figures of 2026-12-04.

The rule: each prediction must equal PyTorch's allocated_bytes.all.current and
reserved_bytes.all.current after every step, exactly (the H200's recorded figures are
predicted exactly from a CPU run, so any difference is a modelling error). Exit 0 when both
do, 1 when a figure differs or a run fails (the differences and the cuda run's report notes
are printed), 2 without a GPU. It also prints PyTorch's figures in the form of
python/tests/data/h200_trace_cuda.json's `steps`, to refresh that file from a new run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

PROG = """\
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for i in range(3):
    x = torch.randn(64, 1024)
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
"""

KEYS = ("allocated_bytes.all.current", "reserved_bytes.all.current")


def _trace(path: str, *flags: str) -> tuple[dict | None, str]:
    r = subprocess.run([sys.executable, "-m", "stridekit", "trace", *flags, "--json", "-", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"exit status {r.returncode}\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
    return json.loads(r.stdout), ""


def differences(torch_steps: list[tuple[int, dict]], predicted: dict) -> list[str]:
    """One line per step and figure where `predicted` (a trace report) is not PyTorch's."""
    steps = predicted["steps"]
    if [s["line"] for s in steps] != [line for line, _ in torch_steps]:
        return [f"the steps differ: lines {[s['line'] for s in steps]} against {[line for line, _ in torch_steps]}"]
    out = []
    for i, (s, (line, m)) in enumerate(zip(steps, torch_steps)):
        for k in KEYS:
            want, got = m[k], (s["allocator"] or {}).get(k)
            if want != got:
                out.append(f"step {i} (line {line}) {k}: PyTorch {want}, predicted {got} ({(got or 0) - want:+d})")
    return out


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print("trace-cuda: torch sees no CUDA device")
        return 2
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "train.py")
        with open(p, "w") as f:
            f.write(PROG)
        cuda, err = _trace(p, "--device", "cuda")
        if cuda is None:
            print("trace --device cuda failed:", err)
            return 1
        sim, err = _trace(p, "--device", "sim", "--step-counters", "device")
    measured = [(s["line"], s["torch_cuda"]) for s in cuda["steps"]]
    print(f"{'line':>4} {'torch alloc':>12} {'cuda pred':>12} {'sim pred':>12} {'torch reserved':>14} "
          f"{'cuda pred':>12} {'sim pred':>12}")
    sim_steps = sim["steps"] if sim is not None else []
    for i, (line, m) in enumerate(measured):
        c = cuda["steps"][i]["allocator"]
        s = sim_steps[i]["allocator"] if i < len(sim_steps) else {}
        print(f"{line:>4} {m[KEYS[0]]:>12} {c[KEYS[0]]:>12} {s.get(KEYS[0], '-'):>12} {m[KEYS[1]]:>14} "
              f"{c[KEYS[1]]:>12} {s.get(KEYS[1], '-'):>12}")
    print("PyTorch's figures (python/tests/data/h200_trace_cuda.json's steps):")
    for line, m in measured:
        print("  " + json.dumps({"line": line, "allocated": m[KEYS[0]], "reserved": m[KEYS[1]]}))
    print("notes of the cuda run:")
    for n in cuda.get("notes", []):
        print("  " + n)
    bad = [f"cuda: {x}" for x in differences(measured, cuda)]
    bad += [f"sim: {x}" for x in differences(measured, sim)] if sim is not None else [f"sim: failed: {err}"]
    if bad:
        print(f"trace-cuda: {len(bad)} difference(s) from PyTorch's figures:")
        for x in bad:
            print("  " + x)
        return 1
    print(f"trace-cuda: both predictions equal PyTorch's allocated and reserved bytes at all {len(measured)} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
