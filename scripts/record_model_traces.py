#!/usr/bin/env python3
"""Record the allocation requests of real model steps as stridekit allocation traces.

Runs four workloads built from torch.nn with the public architectures' shapes (no weights
needed: the allocation sequence does not depend on the values) on PyTorch's CPU backend,
records every tensor storage allocation and free with torch.profiler (profile_memory=True:
the allocator's own [memory] events, with the address and the exact requested bytes, in
the order the allocator saw them) and writes what a CUDA caching allocator would be asked
for, in stridekit's anchors CSV (`a,ID,BYTES` / `f,ID,0`, one stream):

    gpt2_train     GPT-2 small (124M) training, AdamW (foreach), grad-norm clipping
    gpt2_generate  GPT-2 small greedy generation with a KV cache (a prompt, then N tokens)
    bert_serve     BERT-base inference over batches of varying sequence lengths
    resnet50_train ResNet-50 (v1.5 bottlenecks) training, SGD with momentum (foreach)

    "$(scripts/python-env)"/bin/python scripts/record_model_traces.py [--out DIR] [--only NAME ...]
    python scripts/record_model_traces.py --device cuda --out DIR [--only NAME ...]

With --device cuda (a GPU and a CUDA build of torch) the same workloads run on the GPU, each
in a fresh process, with PyTorch's allocator history on; each writes its snapshot
(`torch.cuda.memory._snapshot()`, DIR/NAME.pickle.gz, which `stridekit alloc replay` and
`alloc tune` read) and DIR/NAME.json (allocations, frees, peak requested bytes, the peak
figures of `memory_stats()`, and the CPU trace's header to compare with). Exit status 2
without a GPU. The CPU traces end with a check: the allocations still live are exactly the
model's parameters and buffers and the optimizer's state.

From the CPU allocator's events to the CUDA allocator's requests:

- kept: every allocation made by an operator (a dispatcher op is an ancestor of the event
  in the profiler's event tree) and its free, matched by address;
- dropped, host side on CUDA as well: allocations made outside every operator (Python
  scalars wrapped into 0-dim CPU tensors while arguments are parsed) and everything inside
  a `stridekit::host` scope (the inputs as the data loader makes them before `.to(device)`,
  and the optimizer's `torch.tensor` step counters, which stay on the CPU for a CUDA model
  unless capturable or fused);
- dropped, CPU kernel internals: an allocation freed inside the call of an operator that
  has its own CUDA kernel (its CPU kernel's scratch space, e.g. mm's packed copies, the
  per-thread buffers of layer_norm's backward, scalars cast inside TensorIterator); the CUDA
  kernel of the same operator does not make them. Composite operators (matmul, linear,
  layer_norm, cross_entropy, ...) decompose the same way on both devices, so temporaries
  inside them are kept;
- added, CUDA only: the cuBLAS workspace, which PyTorch 2.11 takes from the caching
  allocator at the first cuBLAS call of a (handle, stream) and keeps: 32 MiB on sm_90
  (H200; CUBLAS_WORKSPACE_CONFIG's default :4096:8, shared with cuBLASLt), right after the
  first matrix product's output;
- not modelled: cuDNN convolution workspaces (resnet50_train; sizes depend on the
  algorithm cuDNN picks on the GPU; each is allocated and freed inside one convolution
  call), and the internal buffers of CUDA kernels such as embedding_dense_backward's sort.

Dropout is written as the call F.dropout makes on CUDA (torch.native_dropout: a bool
mask and the output); the CPU's composite path would keep a float mask instead. Attention
is the architectures' own math (matmul, mask, softmax), not scaled_dot_product_attention,
whose fused kernels allocate differently on each device. Everything is seeded.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import gzip
import json
import math
import os
import platform
import pickle
import resource
import subprocess
import sys
import time
from contextlib import contextmanager

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "alloc", "real")
GZIP_ABOVE = 1 << 20


def _load_cuda_rules():
    """The CPU -> CUDA rules, shared with `stridekit trace --device sim`: the package's
    python/stridekit/cuda_rules.py, loaded by path (no build of the package needed)."""
    import importlib.util

    path = os.path.join(ROOT, "python", "stridekit", "cuda_rules.py")
    spec = importlib.util.spec_from_file_location("stridekit_cuda_rules", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cuda_rules = _load_cuda_rules()
HOST_SCOPE = cuda_rules.HOST_SCOPE
CUBLAS_WORKSPACE_BYTES = cuda_rules.CUBLAS_WORKSPACE_BYTES
GEMM_OPS = cuda_rules.GEMM_OPS


# ---------------------------------------------------------------------------------------
# Recording


host = cuda_rules.host


# "cpu": record on the CPU and convert (the default); "cuda": run on the GPU (--device cuda).
DEVICE = ["cpu"]


def to_device(t: torch.Tensor) -> torch.Tensor:
    """`t.to('cuda')` of a host tensor: one device allocation of its bytes and a copy."""
    return t.to(DEVICE[0]) if DEVICE[0] != "cpu" else t.clone()


def upload(model: nn.Module) -> None:
    """`model.to('cuda')`: one allocation per parameter and buffer, in Module._apply's order
    (children first, then the module's own parameters, then its buffers; tied parameters once)."""
    if DEVICE[0] != "cpu":
        model.to(DEVICE[0])
        return
    seen: set[int] = set()

    def apply(m: nn.Module) -> None:
        for child in m.children():
            apply(child)
        for tensors in (m._parameters, m._buffers):
            for t in tensors.values():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                t.data = t.data.clone()

    apply(model)


ops_with_cuda_kernels = cuda_rules.ops_with_cuda_kernels


class Alloc:
    __slots__ = ("time", "seq", "ptr", "size", "ops", "host", "free")

    def __init__(self, time, seq, ptr, size, ops, host):
        self.time, self.seq, self.ptr, self.size = time, seq, ptr, size
        self.ops, self.host, self.free = ops, host, None


def memory_events(prof):
    """(time_ns, seq, ptr, bytes, ancestors) of every CPU allocator event, in order;
    ancestors are the enclosing profiler events, outermost first."""
    out = []
    seq = 0
    stack = [(r, ()) for r in reversed(prof.profiler.kineto_results.experimental_event_tree())]
    while stack:
        e, anc = stack.pop()
        ef = e.extra_fields
        if type(ef).__name__ == "_ExtraFields_Allocation":
            if str(ef.device).startswith("cpu"):
                out.append((e.start_time_ns, seq, ef.ptr, ef.alloc_size, anc))
                seq += 1
            continue
        inner = anc + (e,)
        for c in reversed(e.children):
            stack.append((c, inner))
    out.sort(key=lambda x: (x[0], x[1]))
    return out


def to_requests(prof, counts, largest):
    """The CUDA caching allocator's requests, as ("a", id, bytes) / ("f", id) tuples, and
    {address: bytes} of the kept allocations still live at the end (the workspace aside);
    `counts` and `largest` receive the number and the largest size of each kind dropped."""
    live: dict[int, Alloc] = {}
    allocs: list[Alloc] = []
    for time_ns, seq, ptr, size, anc in memory_events(prof):
        if size > 0:
            if ptr in live:
                raise RuntimeError(f"address {ptr:#x} allocated twice without a free")
            ops = [e for e in anc if e.name.startswith("aten::")]
            a = Alloc(time_ns, seq, ptr, size, ops, any(e.name == HOST_SCOPE for e in anc))
            live[ptr] = a
            allocs.append(a)
        elif size < 0:
            a = live.pop(ptr, None)
            if a is None:
                counts["frees_of_earlier_storages"] += 1
                continue
            a.free = (time_ns, seq, anc)
    cuda_kernels = ops_with_cuda_kernels()
    events = []
    gemm_seen = False

    def drop(kind, a):
        counts[kind] += 1
        largest[kind] = max(largest.get(kind, 0), a.size)

    for a in allocs:
        freed_inside = None
        if a.free is not None:
            free_anc = {id(e) for e in a.free[2]}
            common = [e for e in a.ops if id(e) in free_anc]
            freed_inside = common[-1].name if common else None
        why = cuda_rules.drop_reason(a.host, [e.name for e in a.ops], freed_inside, cuda_kernels)
        if why is not None:
            drop(why, a)
            continue
        events.append(((a.time, a.seq), "a", a))
        if a.free is not None:
            events.append(((a.free[0], a.free[1]), "f", a))
        if not gemm_seen and cuda_rules.is_gemm(e.name for e in a.ops):
            gemm_seen = True
            events.append(((a.time, a.seq + 0.5), "w", None))
    events.sort(key=lambda x: x[0])
    ids: dict[int, int] = {}
    out = []
    live_at_end = {a.ptr: a.size for _, kind, a in events if kind == "a" and a.free is None}
    for _, kind, a in events:
        if kind == "w":
            out.append(("a", len(ids), CUBLAS_WORKSPACE_BYTES))
            ids[id(out)] = len(ids)  # never freed: the workspace lives as long as the handle
            counts["cublas_workspace"] += 1
        elif kind == "a":
            ids[id(a)] = len(ids)
            out.append(("a", ids[id(a)], a.size))
        else:
            out.append(("f", ids[id(a)]))
    return out, live_at_end


def record(fn, survivors):
    """Run `fn` under the profiler; `survivors()` names the device tensors that must be
    the only kept allocations live at the end (the model and the optimizer state), a check
    that every free was matched and nothing host-side was kept."""
    counts = {
        "host_inputs_and_step_counters": 0,
        "host_wrapped_scalars": 0,
        "cpu_kernel_internal": 0,
        "frees_of_earlier_storages": 0,
        "cublas_workspace": 0,
    }
    largest: dict[str, int] = {}
    gc.collect()  # storages of an earlier workload are not freed during this one
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, acc_events=True) as prof:
        fn()
    requests, live = to_requests(prof, counts, largest)
    expected = {}
    for t in survivors():
        st = t.untyped_storage()
        expected[st.data_ptr()] = st.nbytes()
    if live != expected:
        extra = {p: n for p, n in live.items() if expected.get(p) != n}
        missing = {p: n for p, n in expected.items() if live.get(p) != n}
        raise RuntimeError(
            f"live at the end: {len(extra)} allocations that are not the model's or the optimizer's "
            f"({sum(extra.values())} bytes, e.g. {sorted(extra.values())[-5:]}), "
            f"{len(missing)} of theirs not live ({sum(missing.values())} bytes)"
        )
    return requests, counts, largest


# ---------------------------------------------------------------------------------------
# Models


class Dropout(nn.Module):
    """F.dropout as it runs on CUDA: the fused native_dropout (bool mask kept for backward)."""

    def __init__(self, p: float):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        return torch.native_dropout(x, self.p, True)[0]


class Conv1D(nn.Module):
    """GPT-2's projection (nn.Linear with the weight stored (in, out), as the original)."""

    def __init__(self, nx: int, nf: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(nx, nf).normal_(std=0.02))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        shape = x.size()[:-1] + (self.weight.size(1),)
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(shape)


class GPT2Attention(nn.Module):
    def __init__(self, d: int, heads: int, ctx: int, p: float):
        super().__init__()
        self.heads, self.d = heads, d
        self.c_attn = Conv1D(d, 3 * d)
        self.c_proj = Conv1D(d, d)
        self.attn_dropout, self.resid_dropout = Dropout(p), Dropout(p)
        self.register_buffer("bias", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)).view(1, 1, ctx, ctx), persistent=False)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.d // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, past=None):
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        if past is not None:
            k = torch.cat((past[0], k), dim=-2)
            v = torch.cat((past[1], v), dim=-2)
        present = (k, v)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(v.size(-1))
        ql, kl = q.size(-2), k.size(-2)
        mask = self.bias[:, :, kl - ql : kl, :kl]
        w = w.masked_fill(~mask, torch.finfo(w.dtype).min)
        w = self.attn_dropout(F.softmax(w, dim=-1))
        a = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size(0), a.size(1), self.d)
        return self.resid_dropout(self.c_proj(a)), present


class GPT2Block(nn.Module):
    def __init__(self, d, heads, ctx, p):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.attn = GPT2Attention(d, heads, ctx, p)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.c_fc, self.c_proj, self.dropout = Conv1D(d, 4 * d), Conv1D(4 * d, d), Dropout(p)

    def forward(self, x, past=None):
        a, present = self.attn(self.ln_1(x), past)
        x = x + a
        h = self.dropout(self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")))
        return x + h, present


class GPT2(nn.Module):
    """GPT-2 small: 12 layers, 12 heads, 768 wide, 1024 positions, 50257 tokens, tied head."""

    def __init__(self, vocab=50257, ctx=1024, d=768, layers=12, heads=12, p=0.1):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.drop = Dropout(p)
        self.h = nn.ModuleList(GPT2Block(d, heads, ctx, p) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, ids, past=None, last_only=False):
        start = 0 if past is None else past[0][0].size(-2)
        pos = torch.arange(start, start + ids.size(1), dtype=torch.long, device=ids.device).unsqueeze(0)
        x = self.drop(self.wte(ids) + self.wpe(pos))
        presents = []
        for i, block in enumerate(self.h):
            x, present = block(x, None if past is None else past[i])
            presents.append(present)
        x = self.ln_f(x)
        if last_only:
            x = x[:, -1:, :]
        return self.lm_head(x), presents


class BertLayer(nn.Module):
    def __init__(self, d=768, heads=12, inner=3072, p=0.1):
        super().__init__()
        self.heads, self.d = heads, d
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attn_dropout = Dropout(p)
        self.attn_out, self.attn_ln, self.attn_drop = nn.Linear(d, d), nn.LayerNorm(d, eps=1e-12), Dropout(p)
        self.intermediate, self.output = nn.Linear(d, inner), nn.Linear(inner, d)
        self.out_ln, self.out_drop = nn.LayerNorm(d, eps=1e-12), Dropout(p)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.d // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, ext_mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d // self.heads)
        s = self.attn_dropout(F.softmax(s + ext_mask, dim=-1))
        c = torch.matmul(s, v).permute(0, 2, 1, 3).contiguous()
        c = c.view(c.size(0), c.size(1), self.d)
        a = self.attn_ln(self.attn_drop(self.attn_out(c)) + x)
        h = F.gelu(self.intermediate(a))
        return self.out_ln(self.out_drop(self.output(h)) + a)


class Bert(nn.Module):
    """BERT-base (uncased): 12 layers, 768 wide, 12 heads, 3072 inner, 30522 tokens, 512 positions."""

    def __init__(self, vocab=30522, ctx=512, d=768, layers=12, p=0.1):
        super().__init__()
        self.word, self.position, self.token_type = nn.Embedding(vocab, d), nn.Embedding(ctx, d), nn.Embedding(2, d)
        self.emb_ln, self.emb_drop = nn.LayerNorm(d, eps=1e-12), Dropout(p)
        self.register_buffer("position_ids", torch.arange(ctx).unsqueeze(0), persistent=False)
        self.layers = nn.ModuleList(BertLayer(d, p=p) for _ in range(layers))
        self.pooler = nn.Linear(d, d)

    def forward(self, ids, token_types, mask):
        pos = self.position_ids[:, : ids.size(1)]
        x = self.word(ids) + self.token_type(token_types) + self.position(pos)
        x = self.emb_drop(self.emb_ln(x))
        ext = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, ext)
        return x, torch.tanh(self.pooler(x[:, 0]))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride=1, downsample=None):
        super().__init__()
        cout = width * self.expansion
        self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
        self.conv3, self.bn3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += identity
        return self.relu(out)


class ResNet50(nn.Module):
    """ResNet-50 v1.5 (stride in the 3x3 convolution, as torchvision): [3, 4, 6, 3] bottlenecks."""

    def __init__(self, classes=1000):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64)
        self.relu, self.maxpool = nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)
        cin = 64
        stages = []
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            down = None
            if stride != 1 or cin != width * 4:
                down = nn.Sequential(nn.Conv2d(cin, width * 4, 1, stride, bias=False), nn.BatchNorm2d(width * 4))
            layers = [Bottleneck(cin, width, stride, down)]
            cin = width * 4
            layers += [Bottleneck(cin, width) for _ in range(blocks - 1)]
            stages.append(nn.Sequential(*layers))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool, self.fc = nn.AdaptiveAvgPool2d(1), nn.Linear(2048, classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class ViTBlock(nn.Module):
    def __init__(self, d, heads, mlp, p):
        super().__init__()
        self.heads, self.d = heads, d
        self.ln1, self.qkv, self.proj = nn.LayerNorm(d, eps=1e-6), nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln2, self.fc1, self.fc2 = nn.LayerNorm(d, eps=1e-6), nn.Linear(d, mlp), nn.Linear(mlp, d)
        self.drop = Dropout(p)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, self.d // self.heads).permute(2, 0, 3, 1, 4)
        w = F.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d // self.heads), dim=-1)
        a = torch.matmul(self.drop(w), v).transpose(1, 2).reshape(b, t, self.d)
        x = x + self.drop(self.proj(a))
        return x + self.drop(self.fc2(F.gelu(self.fc1(self.ln2(x)))))


class ViT(nn.Module):
    """ViT-S/16: 12 layers, 384 wide, 6 heads, 1536 inner, class token, 1000 classes."""

    def __init__(self, image=224, patch=16, d=384, layers=12, heads=6, mlp=1536, classes=1000, p=0.1):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.zeros(1, (image // patch) ** 2 + 1, d).normal_(std=0.02))
        self.blocks = nn.ModuleList(ViTBlock(d, heads, mlp, p) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d, eps=1e-6), nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls.expand(x.size(0), -1, -1), x), dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x[:, 0]))


class MoELayer(nn.Module):
    """A top-2 mixture-of-experts feed-forward layer (Switch/Mixtral style) after an
    attention-free token mixer: tokens are routed by a linear gate, gathered per expert
    (index_select), run through the expert's MLP and scattered back (index_add_)."""

    def __init__(self, d=512, inner=2048, experts=8, top=2):
        super().__init__()
        self.top = top
        self.ln, self.gate = nn.LayerNorm(d), nn.Linear(d, experts, bias=False)
        self.w1 = nn.ModuleList(nn.Linear(d, inner) for _ in range(experts))
        self.w2 = nn.ModuleList(nn.Linear(inner, d) for _ in range(experts))

    def forward(self, x, skew):
        flat = x.reshape(-1, x.size(-1))
        logits = self.gate(self.ln(flat)) + skew
        weights, chosen = torch.topk(F.softmax(logits, dim=-1), self.top, dim=-1)
        out = torch.zeros_like(flat)
        for e in range(len(self.w1)):
            rows, slot = torch.nonzero(chosen == e, as_tuple=True)
            if rows.numel() == 0:
                continue
            h = self.w2[e](F.silu(self.w1[e](flat.index_select(0, rows))))
            out = out.index_add(0, rows, h * weights[rows, slot].unsqueeze(-1))
        return x + out.view_as(x)


class SmallResNet(nn.Module):
    """ResNet-18 (basic blocks [2, 2, 2, 2]) as an image-classification server runs it."""

    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], 64
        for width, stride in ((64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)):
            blocks.append(BasicBlock(cin, width, stride))
            cin = width
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        self.c2, self.b2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        out = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(out)) + idt)


def state_tensors(model: nn.Module, opt=None) -> list[torch.Tensor]:
    """The model's parameters and buffers and the optimizer's per-parameter state (its step
    counters are host tensors)."""
    out = list(model.parameters()) + list(model.buffers())
    if opt is not None:
        for st in opt.state.values():
            out += [v for k, v in st.items() if k != "step" and isinstance(v, torch.Tensor)]
    return out


@contextmanager
def host_tensor_factories():
    """The optimizer's `torch.tensor(...)` step counters and increments are host tensors on
    a CUDA model (not capturable, not fused): mark them as such while it steps."""
    original = torch.tensor

    def tensor(*args, **kwargs):
        if str(kwargs.get("device", "cpu")) != "cpu":
            return original(*args, **kwargs)
        with host():
            return original(*args, **kwargs)

    torch.tensor = tensor
    try:
        yield
    finally:
        torch.tensor = original


# ---------------------------------------------------------------------------------------
# Workloads: each returns (description, function run under the recorder)


def gpt2_train(cfg):
    steps, batch, seq = cfg["steps"], cfg["batch"], cfg["seq"]
    model = GPT2()
    model.train()
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]

    held = {}

    def run():
        upload(model)
        opt = held["opt"] = torch.optim.AdamW(
            [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
            lr=6e-4, betas=(0.9, 0.95), eps=1e-8, foreach=True,
        )
        for _ in range(steps):
            with host():
                tokens = torch.randint(0, 50257, (batch, seq + 1))
            x, y = to_device(tokens[:, :-1].contiguous()), to_device(tokens[:, 1:].contiguous())
            logits, _ = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
            del logits
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
            with host_tensor_factories():
                opt.step()
            opt.zero_grad(set_to_none=True)
            loss.item()
            del x, y, loss

    return (
        f"GPT-2 small (124M parameters, fp32) training: {steps} steps of batch {batch} x {seq} tokens, "
        "dropout 0.1, AdamW (foreach, weight decay 0.1 on matrices), clip_grad_norm_ 1.0; "
        "starts with the model's upload (model.to(device))",
        run,
        lambda: state_tensors(model, held["opt"]),
    )


def gpt2_generate(cfg):
    batch, prompt, new = cfg["batch"], cfg["prompt"], cfg["new"]
    model = GPT2()
    model.eval()

    def run():
        upload(model)
        with torch.inference_mode():
            with host():
                prompt_ids = torch.randint(0, 50257, (batch, prompt))
            ids = to_device(prompt_ids)
            logits, past = model(ids, last_only=True)
            for _ in range(new):
                nxt = logits[:, -1, :].argmax(dim=-1, keepdim=True)
                ids = torch.cat((ids, nxt), dim=1)
                del logits
                logits, past = model(nxt, past, last_only=True)
            del logits, past
            ids.cpu()

    return (
        f"GPT-2 small (fp32) greedy generation, batch {batch}: a {prompt}-token prompt, then {new} tokens "
        "with a KV cache grown by torch.cat per layer and step, logits of the last position only; "
        "starts with the model's upload",
        run,
        lambda: state_tensors(model),
    )


def bert_serve(cfg):
    gen = torch.Generator().manual_seed(cfg["seed"])
    shapes = []
    for _ in range(cfg["requests"]):
        b = [1, 2, 4, 8, 16][int(torch.randint(0, 5, (1,), generator=gen))]
        t = int(torch.randint(16, 513, (1,), generator=gen))
        while b * t > cfg["max_tokens"]:
            b //= 2
        shapes.append((max(b, 1), t))
    model = Bert()
    model.eval()

    def run():
        upload(model)
        with torch.inference_mode():
            for b, t in shapes:
                with host():
                    ids = torch.randint(0, 30522, (b, t))
                    types = torch.zeros(b, t, dtype=torch.long)
                    mask = torch.ones(b, t, dtype=torch.long)
                    mask[:, t - t // 4 :] = 0
                ids, types, mask = to_device(ids), to_device(types), to_device(mask)
                hidden, pooled = model(ids, types, mask)
                hidden.cpu(), pooled.cpu()
                del ids, types, mask, hidden, pooled

    desc = ", ".join(f"{b}x{t}" for b, t in shapes)
    return (
        f"BERT-base (110M, fp32) inference, {len(shapes)} batches (batch x padded length): {desc}; "
        "returns the last hidden state and the pooled output; starts with the model's upload",
        run,
        lambda: state_tensors(model),
    )


def resnet50_train(cfg):
    steps, batch, size = cfg["steps"], cfg["batch"], cfg["image"]
    model = ResNet50()
    model.train()

    held = {}

    def run():
        upload(model)
        opt = held["opt"] = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4, foreach=True)
        for _ in range(steps):
            with host():
                images = torch.randn(batch, 3, size, size)
                labels = torch.randint(0, 1000, (batch,))
            x, y = to_device(images), to_device(labels)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            loss.item()
            del x, y, loss

    return (
        f"ResNet-50 v1.5 (25.6M, fp32, NCHW) training: {steps} steps of batch {batch} at {size}x{size}, "
        "SGD (foreach, momentum 0.9, weight decay 1e-4); no cuDNN workspaces (see the script); "
        "starts with the model's upload",
        run,
        lambda: state_tensors(model, held["opt"]),
    )


def llm_serve(cfg):
    """Continuous batching: requests (random prompt lengths) join a running batch, every step
    decodes one token for each, the KV caches grow by torch.cat, finished requests leave
    (their rows dropped from every cache by index_select) and new ones are prefilled."""
    gen = torch.Generator().manual_seed(cfg["seed"])
    rnd = lambda lo, hi: int(torch.randint(lo, hi, (1,), generator=gen))
    model = GPT2(ctx=1024, d=cfg["d"], layers=cfg["layers"], heads=cfg["heads"], p=0.0)
    model.eval()

    def prefill(n, plen):
        with host():
            ids = torch.randint(0, 50257, (n, plen))
        logits, past = model(to_device(ids), last_only=True)
        return logits, past

    def run():
        upload(model)
        with torch.inference_mode():
            past, left, logits = None, [], None
            for step in range(cfg["steps"]):
                if left and (len(left) >= cfg["max_batch"] or step % cfg["admit_every"]):
                    pass
                elif len(left) < cfg["max_batch"]:
                    n = min(rnd(1, 5), cfg["max_batch"] - len(left))
                    # A new group is padded to the running length (left-padding) so that it
                    # joins the batch's caches; with no running batch it starts fresh.
                    plen = past[0][0].size(-2) if past is not None else rnd(32, 257)
                    nl, npast = prefill(n, plen)
                    if past is None:
                        past, logits = npast, nl
                    else:
                        past = [(torch.cat((k, nk), 0), torch.cat((v, nv), 0)) for (k, v), (nk, nv) in zip(past, npast)]
                        logits = torch.cat((logits, nl), 0)
                        del npast, nl
                    left += [rnd(8, cfg["max_new"]) for _ in range(n)]
                nxt = logits[:, -1, :].argmax(dim=-1, keepdim=True)
                del logits
                logits, past = model(nxt, past, last_only=True)
                left = [x - 1 for x in left]
                keep = [i for i, x in enumerate(left) if x > 0]
                if len(keep) < len(left):
                    if not keep:
                        past, logits, left = None, None, []
                        continue
                    idx = to_device(torch.tensor(keep))
                    past = [(k.index_select(0, idx), v.index_select(0, idx)) for k, v in past]
                    logits = logits.index_select(0, idx)
                    left = [left[i] for i in keep]
                    del idx
                if past is not None and past[0][0].size(-2) >= 1000:
                    past, logits, left = None, None, []
            del past, logits

    return (
        f"decoder LLM serving (GPT-2 shape, {cfg['layers']} layers x {cfg['d']} wide, fp32) with continuous "
        f"batching over {cfg['steps']} decode steps: up to {cfg['max_batch']} requests, KV caches grown by "
        "torch.cat per layer and step, finished requests' rows dropped by index_select, new groups prefilled "
        f"and concatenated in (request lengths from a generator seeded {cfg['seed']}); "
        "starts with the model's upload",
        run,
        lambda: state_tensors(model),
    )


def moe_train(cfg):
    """Training steps of a stack of top-2 MoE layers whose gate is skewed so that expert loads
    are uneven (a few hot experts, some nearly idle), with varying batch x length."""
    gen = torch.Generator().manual_seed(cfg["seed"])
    model = nn.ModuleList(MoELayer(cfg["d"], cfg["inner"], cfg["experts"]) for _ in range(cfg["layers"]))
    skew = torch.linspace(2.0, -2.0, cfg["experts"])
    shapes = [([2, 4, 8][int(torch.randint(0, 3, (1,), generator=gen))], int(torch.randint(64, 257, (1,), generator=gen))) for _ in range(cfg["steps"])]
    held = {}

    def run():
        upload(model)
        s = to_device(skew)
        opt = held["opt"] = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
        for b, t in shapes:
            with host():
                xs = torch.randn(b, t, cfg["d"])
            x = to_device(xs)
            for layer in model:
                x = layer(x, s)
            loss = x.float().pow(2).mean()
            loss.backward()
            with host_tensor_factories():
                opt.step()
            opt.zero_grad(set_to_none=True)
            loss.item()
            del x, loss
        held["skew"] = s

    desc = ", ".join(f"{b}x{t}" for b, t in shapes)
    return (
        f"mixture-of-experts training: {cfg['layers']} top-2 MoE layers of {cfg['experts']} experts "
        f"({cfg['d']} -> {cfg['inner']} -> {cfg['d']}, SiLU), gate skewed linearly (+2 .. -2) so that expert "
        f"loads are uneven, AdamW (foreach); {len(shapes)} steps of batch x length {desc}; starts with the upload",
        run,
        lambda: state_tensors(model, held["opt"]) + [held["skew"]],
    )


def vit_train(cfg):
    steps, batch = cfg["steps"], cfg["batch"]
    model = ViT()
    model.train()
    held = {}

    def run():
        upload(model)
        opt = held["opt"] = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05, foreach=True)
        for _ in range(steps):
            with host():
                images = torch.randn(batch, 3, 224, 224)
                labels = torch.randint(0, 1000, (batch,))
            x, y = to_device(images), to_device(labels)
            loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
            with host_tensor_factories():
                opt.step()
            opt.zero_grad(set_to_none=True)
            loss.item()
            del x, y, loss

    return (
        f"ViT-S/16 (22M, fp32) training: {steps} steps of batch {batch} at 224x224, dropout 0.1, label smoothing "
        "0.1, AdamW (foreach, weight decay 0.05), clip_grad_norm_ 1.0; starts with the model's upload",
        run,
        lambda: state_tensors(model, held["opt"]),
    )


def dynamic_serve(cfg):
    """An image-classification server with dynamic shapes: every request has its own batch
    size and resolution (no padding to a fixed shape), answered with top-5 classes."""
    gen = torch.Generator().manual_seed(cfg["seed"])
    shapes = []
    for _ in range(cfg["requests"]):
        b = [1, 1, 2, 4, 8][int(torch.randint(0, 5, (1,), generator=gen))]
        h = 32 * int(torch.randint(4, 17, (1,), generator=gen))
        w = 32 * int(torch.randint(4, 17, (1,), generator=gen))
        shapes.append((b, h, w))
    model = SmallResNet()
    model.eval()

    def run():
        upload(model)
        with torch.inference_mode():
            for b, h, w in shapes:
                with host():
                    images = torch.randn(b, 3, h, w)
                x = to_device(images)
                top = torch.topk(F.softmax(model(x), dim=-1), 5, dim=-1)
                top.values.cpu(), top.indices.cpu()
                del x, top

    desc = ", ".join(f"{b}x{h}x{w}" for b, h, w in shapes)
    return (
        f"dynamic-shape inference server: ResNet-18 (11.7M, fp32) over {len(shapes)} requests of their own "
        f"batch x height x width ({desc}), top-5 of the softmax; starts with the model's upload",
        run,
        lambda: state_tensors(model),
    )


WORKLOADS = {
    "gpt2_train": (gpt2_train, {"steps": 3, "batch": 2, "seq": 256}),
    "gpt2_generate": (gpt2_generate, {"batch": 4, "prompt": 128, "new": 64}),
    "bert_serve": (bert_serve, {"seed": 11, "requests": 16, "max_tokens": 2048}),
    "resnet50_train": (resnet50_train, {"steps": 3, "batch": 16, "image": 224}),
    "llm_serve": (llm_serve, {"seed": 5, "steps": 160, "max_batch": 12, "admit_every": 6, "max_new": 96, "d": 512, "layers": 6, "heads": 8}),
    "moe_train": (moe_train, {"seed": 7, "steps": 6, "layers": 4, "d": 512, "inner": 2048, "experts": 8}),
    "vit_train": (vit_train, {"steps": 3, "batch": 16}),
    "dynamic_serve": (dynamic_serve, {"seed": 13, "requests": 24}),
}


# ---------------------------------------------------------------------------------------
# Output


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


def main_cuda(args, names) -> int:
    """--device cuda: each workload in a fresh process (the cuBLAS workspace and the cache
    start empty), its snapshot written as NAME.pickle.gz, compared with the CPU trace."""
    if not torch.cuda.is_available():
        print("record_model_traces.py --device cuda: no CUDA device is available", file=sys.stderr)
        return 2
    if len(names) > 1:
        rc = 0
        for name in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--device", "cuda", "--out", args.out, "--only", name]
            rc = max(rc, subprocess.run(cmd).returncode)
        return rc
    DEVICE[0] = "cuda"
    name = names[0]
    make, cfg = WORKLOADS[name]
    torch.manual_seed(0)
    desc, run, _ = make(cfg)
    snap, stats = record_cuda(run)
    path = os.path.join(args.out, f"{name}.pickle.gz")
    with open(path, "wb") as f:
        f.write(gzip.compress(pickle.dumps(snap), mtime=0))
    allocs, frees, peak = snapshot_figures(snap)
    summary = {
        "workload": name,
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(),
        "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "default"),
        "allocations": allocs,
        "frees": frees,
        "peak_requested": peak,
        "memory_stats": {k: v for k, v in stats.items() if k.endswith(".peak") or k.startswith("num_")},
    }
    cpu_trace = os.path.join(DEFAULT_OUT, f"{name}.csv")
    if os.path.exists(cpu_trace):
        with open(cpu_trace, encoding="utf-8") as f:
            header = [line for line in f if line.startswith("#")]
        summary["cpu_trace_header"] = [h[2:].rstrip() for h in header]
    with open(os.path.join(args.out, f"{name}.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(
        f"{name} on {summary['gpu']}: {allocs} allocations, {frees} frees, peak requested {peak} bytes, "
        f"peak allocated {stats['allocated_bytes.all.peak']}, peak reserved {stats['reserved_bytes.all.peak']} "
        f"-> {path}",
        flush=True,
    )
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="folder for the traces (default: tests/data/alloc/real for cpu)")
    ap.add_argument("--only", nargs="*", choices=sorted(WORKLOADS), help="record only these workloads")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    ap.add_argument(
        "--device",
        choices=["cpu", "cuda"],
        default="cpu",
        help="cpu: record on the CPU and convert (default); cuda: run on the GPU and write "
        "PyTorch's own snapshot of each workload (NAME.pickle.gz, NAME.json; needs --out)",
    )
    args = ap.parse_args(argv)
    names = args.only or list(WORKLOADS)
    if args.device == "cuda":
        if args.out is None:
            ap.error("--device cuda needs --out (its snapshots are not the CPU traces)")
        os.makedirs(args.out, exist_ok=True)
        return main_cuda(args, names)
    args.out = args.out or DEFAULT_OUT
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    command = '"$(scripts/python-env)"/bin/python scripts/record_model_traces.py' + (
        f" --only {' '.join(args.only)}" if args.only else ""
    )
    for name in names:
        make, cfg = WORKLOADS[name]
        torch.manual_seed(0)
        t0 = time.time()
        desc, run, survivors = make(cfg)
        requests, counts, largest = record(run, survivors)
        allocs = sum(1 for r in requests if r[0] == "a")
        peak = peak_live(requests)
        header = [
            f"{name}: {desc}",
            f"recorded by {command} with torch {torch.__version__} on the CPU ({platform.machine()}), {date}",
            f"{allocs} allocations, {len(requests) - allocs} frees, peak requested {peak} bytes",
            "dropped: "
            + ", ".join(
                f"{k} {v}" + (f" (largest {largest[k]} bytes)" if k in largest else "")
                for k, v in counts.items()
                # frees of an earlier workload's storages depend on the collector's timing
                if k not in ("cublas_workspace", "frees_of_earlier_storages")
            ),
            f"added: cuBLAS workspace {CUBLAS_WORKSPACE_BYTES} bytes x {counts['cublas_workspace']}",
        ]
        path = write_trace(args.out, name, csv_text(requests, header))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20)
        print(
            f"{name}: {allocs} allocations, peak requested {peak / (1 << 20):.1f} MiB, {counts}, "
            f"{time.time() - t0:.1f} s, peak RSS so far {rss:.2f} GiB -> {os.path.relpath(path, ROOT)}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
