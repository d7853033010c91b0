#!/usr/bin/env python3
"""Element-wise layout and promotion cases from PyTorch, for tests/elementwise_props.rs.

Writes tests/data/elementwise/layouts.jsonl and promotion.jsonl (deterministic):

    "$(scripts/python-env)"/bin/python scripts/torch_elementwise_cases.py --out tests/data/elementwise

layouts: random operands (contiguous, permuted, channels_last, sliced with steps, expanded,
size-1 and size-0 dims, 0-d) of broadcastable shapes, each line
{"inputs": [{"sizes", "strides"}...], "shape", "strides"} with the strides of `a + b` (two
operands), `a.abs()` (one) or `torch.where(c, a, b)` (three), or {"inputs", "error"} when
PyTorch refuses the broadcast.
promotion: {"operands": [["dim"|"zero"|"number", dtype-or-category]...], "dtype"} with
torch.result_type's answer.
"""

import argparse
import json
import os
import random

import torch

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]


def name(d):
    return str(d).removeprefix("torch.")


def random_operand(rng, shape):
    """A tensor of `shape` with a random layout: dense in a random order, a slice, expanded."""
    kind = rng.random()
    if kind < 0.2 or not shape:
        t = torch.zeros(shape)
    elif kind < 0.5:
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        base = torch.zeros([shape[p] for p in perm])
        inv = [perm.index(i) for i in range(len(shape))]
        t = base.permute(inv)
    elif kind < 0.6 and len(shape) == 4:
        t = torch.zeros(shape).contiguous(memory_format=torch.channels_last)
    elif kind < 0.8:
        steps = [rng.choice([1, 1, 2]) for _ in shape]
        big = torch.zeros([s * st + rng.randint(0, 1) for s, st in zip(shape, steps)])
        t = big[tuple(slice(0, s * st, st) for s, st in zip(shape, steps))]
        if rng.random() < 0.5 and len(shape) >= 2:
            t = t.transpose(0, len(shape) - 1).contiguous().transpose(0, len(shape) - 1)
    else:
        small = [1 if rng.random() < 0.5 else s for s in shape]
        t = torch.zeros(small).expand(shape)
    assert list(t.shape) == list(shape)
    return t


def broadcast_parts(rng, shape):
    """A shape that broadcasts to `shape`: some dims dropped from the front or set to 1."""
    lead = rng.randint(0, len(shape))
    part = list(shape[lead:])
    return [1 if rng.random() < 0.3 else s for s in part]


def layout_case(rng):
    rank = rng.choice([0, 1, 2, 2, 3, 3, 4, 4, 5])
    shape = [rng.choice([1, 1, 2, 3, 4]) for _ in range(rank)]
    if rank and rng.random() < 0.05:
        shape[rng.randrange(rank)] = 0
    n = rng.choice([1, 2, 2, 2, 3])
    ops = [random_operand(rng, shape)]
    for _ in range(n - 1):
        ops.append(random_operand(rng, broadcast_parts(rng, shape)))
    rng.shuffle(ops)
    if rng.random() < 0.05 and rank:
        bad = list(ops[-1].shape)
        if bad:
            bad[-1] += 1
            ops[-1] = torch.zeros(bad)
    if n == 3:
        ops[0] = ops[0] > 0  # the condition (its own layout, from TensorIterator)
    inputs = [{"sizes": list(t.shape), "strides": list(t.stride())} for t in ops]
    try:
        if n == 1:
            r = ops[0].abs()
        elif n == 2:
            r = ops[0] + ops[1]
        else:
            r = torch.where(ops[0], ops[1], ops[2])
    except RuntimeError as e:
        return {"inputs": inputs, "error": str(e)}
    return {"inputs": inputs, "shape": list(r.shape), "strides": list(r.stride())}


def promotion_case(rng):
    ops, values = [], []
    for _ in range(2):
        kind = rng.choice(["dim", "zero", "number"])
        if kind == "number":
            cat = rng.choice(["bool", "int", "float"])
            ops.append([kind, cat])
            values.append({"bool": True, "int": 3, "float": 2.5}[cat])
        else:
            d = rng.choice(DTYPES)
            ops.append([kind, name(d)])
            values.append(torch.zeros([2] if kind == "dim" else [], dtype=d))
    # torch.result_type takes two arguments, one of them a tensor.
    if len(values) != 2 or not any(isinstance(v, torch.Tensor) for v in values):
        return None
    dtype = torch.result_type(values[0], values[1])
    return {"operands": ops, "dtype": name(dtype)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/data/elementwise")
    ap.add_argument("--count", type=int, default=600)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(10)
    with open(os.path.join(args.out, "layouts.jsonl"), "w") as f:
        for _ in range(args.count):
            f.write(json.dumps(layout_case(rng), separators=(",", ":")) + "\n")
    with open(os.path.join(args.out, "promotion.jsonl"), "w") as f:
        written = 0
        while written < args.count:
            c = promotion_case(rng)
            if c:
                f.write(json.dumps(c, separators=(",", ":")) + "\n")
                written += 1


if __name__ == "__main__":
    main()
