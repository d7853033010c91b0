"""The models, from torch.nn with the public architectures' shapes (GPT-2, BERT, ResNet-50, ViT,
a mixture of experts, a small ResNet), and the state the end-of-trace check expects live."""

from __future__ import annotations

import math
from contextlib import contextmanager

import torch
import torch.nn as nn
import torch.nn.functional as F

from .recording import host


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
