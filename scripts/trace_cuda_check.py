#!/usr/bin/env python3
"""GPU check of `python -m stridekit trace --device cuda` (scripts/gpu-check step
`trace-cuda`; never run on a GPU yet): a small training loop (Linear-GELU-Linear, AdamW, 3
steps) traced on cuda:0, printing after every step the prediction (the traced storages
replayed into stridekit's PyTorch-policy caching allocator) beside PyTorch's own
torch.cuda.memory_stats(), and the largest differences. Exit 0 when it ran (the
difference is reported, not judged); 2 without a GPU."""

import json
import os
import subprocess
import sys
import tempfile

import torch

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


def main() -> int:
    if not torch.cuda.is_available():
        print("trace-cuda: torch sees no CUDA device")
        return 2
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "train.py")
        with open(p, "w") as f:
            f.write(PROG)
        r = subprocess.run([sys.executable, "-m", "stridekit", "trace", "--device", "cuda", "--json", "-", p],
                           capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout[-3000:], r.stderr[-3000:])
        return 1
    rep = json.loads(r.stdout)
    keys = ("allocated_bytes.all.current", "reserved_bytes.all.current")
    print(f"{'line':>4} {'pred alloc':>12} {'torch alloc':>12} {'pred reserved':>14} {'torch reserved':>14}")
    worst = {k: 0 for k in keys}
    for s in rep["steps"]:
        p, m = s["allocator"], s.get("torch_cuda", {})
        print(f"{s['line']:>4} {p[keys[0]]:>12} {m.get(keys[0], 0):>12} {p[keys[1]]:>14} {m.get(keys[1], 0):>14}")
        for k in keys:
            worst[k] = max(worst[k], abs(s.get("difference", {}).get(k, 0)))
    print("largest |torch - prediction|:", json.dumps(worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
