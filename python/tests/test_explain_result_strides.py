"""The result layout of explain's ops against PyTorch's, on random inputs with size-1 dims.

A differential over `as_strided` inputs (permuted dense, gapped, expanded with stride 0,
any stride on a size-1 dim; sometimes a size-0 dim) and the element-wise, reduction and
layout ops whose output strides TensorIterator (or the op's own kernel) decides: every
program runs once under PyTorch and once under `stridekit.explain`, and the result's shape
and strides must agree. Programs explain refuses (ops it does not have) are counted and
skipped, not failed; PyTorch's own errors are skipped. Session 8 ran 9,400 such cases
(seeds 0-4) and found masked_fill's and roll's layouts (fixed); the fixed seeds here keep
them from coming back.
"""

import random
from collections import Counter

import pytest
import torch

import stridekit

OPS = [
    "-a", "a.exp()", "a.abs()", "a + b", "a * 2", "a + 1.5", "b + a", "a * b", "a > b", "a == 0",
    "torch.where(a > 0, a, b)", "torch.where(a > 0, a, 0.0)", "a.to(torch.float64)", "a.double()",
    "a.int()", "a.clone()", "a.float() + b", "a / b", "a.sqrt()", "a - b", "torch.maximum(a, b)",
    "a.bool()", "(a > 0) & (b > 0)",
    "a.sum(D, keepdim=True)", "a.sum(D)", "a.mean(D, keepdim=True)", "a.amax(D, keepdim=True)",
    "a.max(D, keepdim=True).values", "a.prod(D, keepdim=True)", "a.sum((0, D), keepdim=True)",
    "a.softmax(D)", "a.any(D, keepdim=True)", "torch.cat([a, a], D)", "a.flip(D)", "a.roll(1, D)",
    "a.min(D).indices", "a.clamp(min=1.0)", "a.masked_fill(a > 2, 0.0)", "a.float().pow(2)",
]


def _layout(rng, zero):
    nd = rng.randint(1, 4)
    sizes = [rng.choice([1, 1, 2, 3] + ([0] if zero else [])) for _ in range(nd)]
    if 1 not in sizes:
        sizes[rng.randrange(nd)] = 1
    order = list(range(nd))
    rng.shuffle(order)
    strides = [0] * nd
    step, gap = 1, rng.choice([1, 1, 2])
    for d in reversed(order):
        strides[d] = step
        step *= sizes[d] * gap
    for d in range(nd):
        if sizes[d] == 1:
            strides[d] = rng.choice([strides[d], 1, 0, 5, 7, 12])
        elif rng.random() < 0.15:
            strides[d] = 0
    return sizes, strides


def _broadcastable(rng, sizes):
    k = rng.randint(max(0, len(sizes) - 2), len(sizes))
    return [s if rng.random() < 0.6 else 1 for s in sizes[len(sizes) - k:]]


def _program(rng, zero):
    sa, ta = _layout(rng, zero)
    sb, tb = (None, None)
    if rng.random() < 0.15:
        sb, tb = _layout(rng, zero)
    if sb is None or len(sb) > len(sa):
        sb, tb = _broadcastable(rng, sa), None
    try:
        torch.broadcast_shapes(sa, sb)
    except RuntimeError:
        sb, tb = _broadcastable(rng, sa), None
    lines = ["base = torch.arange(200.)", f"a = base.as_strided({sa}, {ta})"]
    if tb is not None:
        lines.append(f"b = base.as_strided({sb}, {tb})")
    elif sb:
        n = 1
        for s in sb:
            n *= s
        lines.append(f"b = torch.arange(1., {1 + max(1, n)}.).reshape({sb})")
    else:
        lines.append("b = torch.tensor(2.)")
    lines.append("r = " + rng.choice(OPS).replace("D", str(rng.randrange(len(sa)))))
    return "\n".join(lines) + "\n"


def _torch_layout(program):
    ns = {"torch": torch}
    exec(program, ns)  # noqa: S102 - the test's own generated program
    return list(ns["r"].shape), list(ns["r"].stride())


def _explain_layout(program):
    report = stridekit.explain(program)
    if report["error"]:
        return None
    for t in report["tensors"]:
        if t["name"] == "r":
            return list(t["shape"]), list(t["strides"])
    return None


@pytest.mark.parametrize("seed,zero", [(0, False), (2, False), (3, True)])
def test_result_strides_match_pytorch(seed, zero):
    rng = random.Random(seed)
    seen, checked, refused, differ = set(), 0, 0, []
    while checked < 400:
        program = _program(rng, zero)
        if program in seen:
            continue
        seen.add(program)
        try:
            expected = _torch_layout(program)
        except Exception:  # PyTorch refuses it: nothing to compare
            continue
        got = _explain_layout(program)
        if got is None:
            refused += 1
            continue
        checked += 1
        if got != expected:
            differ.append((program, expected, got))
    by_op = Counter(p.strip().split("r = ")[-1] for p, _, _ in differ)
    assert not differ, f"{len(differ)} of {checked} differ: {by_op}; first: {differ[0]}"
    assert refused < checked, f"explain refused {refused} programs, checked {checked}"
