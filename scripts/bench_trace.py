#!/usr/bin/env python3
"""Overhead of `stridekit trace` on the CPU: a GPT-2-small forward (124M parameters,
batch 1 x 128 tokens) and a ResNet-50 training step (batch 4 x 224 x 224, SGD), each run
as a program file untraced and traced (`--device cpu` and `--device sim`), best of N
runs of the timed part (the program times itself after a warm-up step, so torch's import
and the model's construction are not in the figure). Prints a table and, with --json,
writes the figures. Target (issue 20): traced <= 3x untraced.

    python scripts/bench_trace.py [--repeat 3] [--json FILE] [--only gpt2|resnet50]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GPT2 = r'''
import math, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
torch.set_num_threads(int(sys.argv[1]))
L, H, D, V, T = 12, 12, 768, 50257, 128
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D); self.attn = nn.Linear(D, 3 * D); self.proj = nn.Linear(D, D)
        self.ln2 = nn.LayerNorm(D); self.fc = nn.Linear(D, 4 * D); self.out = nn.Linear(4 * D, D)
    def forward(self, x):
        B, T_, C = x.shape
        q, k, v = self.attn(self.ln1(x)).split(D, dim=2)
        q = q.view(B, T_, H, C // H).transpose(1, 2)
        k = k.view(B, T_, H, C // H).transpose(1, 2)
        v = v.view(B, T_, H, C // H).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // H)
        mask = torch.tril(torch.ones(T_, T_, dtype=torch.bool))
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T_, C)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))
class GPT2(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, D); self.wpe = nn.Embedding(1024, D)
        self.h = nn.ModuleList(Block() for _ in range(L)); self.ln_f = nn.LayerNorm(D)
    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for b in self.h:
            x = b(x)
        return self.ln_f(x) @ self.wte.weight.t()
model = GPT2().eval()
idx = torch.randint(0, V, (1, T))
def step():
    with torch.no_grad():
        logits = model(idx)
    return logits
step()
t0 = time.perf_counter()
logits = step()
print("TIMED", time.perf_counter() - t0)
'''

RESNET = r'''
import sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
torch.set_num_threads(int(sys.argv[1]))
class Bottleneck(nn.Module):
    def __init__(self, cin, mid, stride):
        super().__init__()
        cout = mid * 4
        self.c1 = nn.Conv2d(cin, mid, 1, bias=False); self.b1 = nn.BatchNorm2d(mid)
        self.c2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False); self.b2 = nn.BatchNorm2d(mid)
        self.c3 = nn.Conv2d(mid, cout, 1, bias=False); self.b3 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = F.relu(self.b2(self.c2(y)))
        y = self.b3(self.c3(y))
        return F.relu(y + (x if self.down is None else self.down(x)))
class ResNet50(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for mid, n, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(n):
                layers.append(Bottleneck(cin, mid, stride if i == 0 else 1)); cin = mid * 4
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(2048, 1000)
    def forward(self, x):
        return self.fc(self.layers(self.stem(x)).mean((2, 3)))
model = ResNet50()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(4, 3, 224, 224)
y = torch.randint(0, 1000, (4,))
def step():
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss
step()
t0 = time.perf_counter()
loss = step()
print("TIMED", time.perf_counter() - t0)
'''


def timed(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd}: {r.stderr[-2000:]}")
    for line in r.stdout.splitlines():
        if line.startswith("TIMED "):
            return float(line.split()[1])
    raise RuntimeError(f"no timing in {r.stdout[-500:]}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--only", choices=["gpt2", "resnet50"])
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for name, src in (("gpt2_small_forward", GPT2), ("resnet50_train_step", RESNET)):
            if args.only and not name.startswith(args.only):
                continue
            p = os.path.join(d, name + ".py")
            with open(p, "w") as f:
                f.write(src)
            base = [sys.executable, p, str(args.threads)]
            modes = {
                "untraced": base,
                "trace cpu": [sys.executable, "-m", "stridekit", "trace", "--json", os.devnull, p, str(args.threads)],
                "trace sim": [sys.executable, "-m", "stridekit", "trace", "--device", "sim", "--json", os.devnull, p, str(args.threads)],
            }
            fig = {m: min(timed(c) for _ in range(args.repeat)) for m, c in modes.items()}
            rows.append({"case": name, **{m: round(v, 4) for m, v in fig.items()},
                         "ratio_cpu": round(fig["trace cpu"] / fig["untraced"], 3),
                         "ratio_sim": round(fig["trace sim"] / fig["untraced"], 3)})
    print(f"{'case':<22} {'untraced s':>11} {'trace cpu s':>12} {'trace sim s':>12} {'x cpu':>6} {'x sim':>6}")
    for r in rows:
        print(f"{r['case']:<22} {r['untraced']:>11.3f} {r['trace cpu']:>12.3f} {r['trace sim']:>12.3f} "
              f"{r['ratio_cpu']:>6.2f} {r['ratio_sim']:>6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "repeat": args.repeat, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
