"""The workloads: each returns (description, the function run under the recorder, a function
giving the tensors that must be live at the end); WORKLOADS names them with their settings."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from .models import GPT2, Bert, MoELayer, ResNet50, SmallResNet, ViT, host_tensor_factories, state_tensors
from .recording import host, to_device, upload


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
