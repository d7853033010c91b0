#!/usr/bin/env python3
"""Random autograd programs for `stridekit explain` (issue 21), checked against PyTorch 2.11.

Each program makes one or two leaves that require grad (small integer values, so every
gradient is exact), runs a chain of the ops explain differentiates (+, -, * with numbers and
broadcast tensors, `/ 2`, square, `** 2`, neg, sum/mean over a dim, and the views t,
transpose, permute, unsqueeze, select, slice, expand, reshape, flatten, diagonal, unfold,
plus clone/contiguous), binds every intermediate (some deleted again, so that only the graph
keeps their storages), then calls backward and prints the gradients and the nodes' names.
Variants: an in-place write after the value was saved (PyTorch's version error, caught and
printed), backward with retain_graph=True twice, backward with a `gradient=` tensor, a
second backward through freed buffers (caught), a `with torch.no_grad():` update of a leaf,
in-place writes on a leaf (caught).  gen_programs.py writes them to tests/golden/autograd.jsonl.
"""

from __future__ import annotations

import random

import torch


def values_of(rng: random.Random, shape: list[int]) -> str:
    n = 1
    for d in shape:
        n *= d
    vals = [f"{rng.randint(-3, 4)}." for _ in range(n)]
    flat = vals

    def nest(items: list[str], dims: list[int]) -> str:
        if not dims:
            return items[0]
        step = len(items) // dims[0] if dims[0] else 0
        return "[" + ", ".join(nest(items[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])) + "]"

    return nest(flat, shape)


def random_shape(rng: random.Random) -> list[int]:
    rank = rng.choice([1, 2, 2, 3])
    return [rng.randint(1, 4) for _ in range(rank)]


def broadcast_partner(rng: random.Random, shape: list[int]) -> list[int]:
    tail = shape[rng.randint(0, len(shape) - 1):] if shape else []
    return [1 if rng.random() < 0.3 else d for d in tail] or [1]


VIEWS = (".t()", ".T", "transpose", "permute", "unsqueeze", "[", "expand", "reshape",
         "flatten", "diagonal", "unfold", "narrow")


class Chain:
    """Builds the program while running it, so every op is valid for the live shapes."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []
        self.ns: dict = {"torch": torch}
        self.names: list[str] = []
        self.made: list[torch.Tensor] = []  # every intermediate, deleted ones too

    def run(self, line: str) -> bool:
        try:
            exec(line, self.ns)
        except Exception:
            return False
        self.lines.append(line)
        return True

    def op(self, cur: str) -> str | None:
        rng, t = self.rng, self.ns[cur]
        nd, shape = t.dim(), list(t.shape)
        choices = [f"{cur} * {rng.randint(-2, 3)}", f"{cur} + {rng.randint(-2, 3)}",
                   f"{rng.randint(1, 3)} * {cur}", f"{cur} - {rng.randint(1, 3)}",
                   f"{rng.randint(1, 3)} - {cur}", f"{cur} / 2", f"{cur}.square()",
                   f"{cur} ** 2", f"-{cur}", f"{cur} * {cur}", f"{cur}.clone()",
                   f"{cur}.mul({rng.randint(1, 3)})", f"{cur}.add(b, alpha=2)",
                   f"{cur} * b", f"{cur} - b", f"torch.mul({cur}, b)", f"{cur}.reshape(-1)",
                   f"{cur}.flatten()", f"{cur}.unsqueeze(0)", f"{cur}.contiguous()"]
        if nd >= 2:
            choices += [f"{cur}.t()", f"{cur}.transpose(0, -1)", f"{cur}.permute({', '.join(str(d) for d in reversed(range(nd)))})",
                        f"{cur}.sum({rng.randint(-nd, nd - 1)})",
                        f"{cur}.sum(0, keepdim=True)", f"{cur}.T.contiguous()", f"{cur}.t().reshape(-1)",
                        f"{cur}.diagonal()", f"{cur}[:, 1:]" if shape[1] > 1 else f"{cur}[:, :1]"]
        if shape and shape[0] > 1:
            choices += [f"{cur}[{rng.randint(0, shape[0] - 1)}]", f"{cur}[1:]"]
        if shape and shape[-1] >= 2:
            choices += [f"{cur}.unfold(-1, 2, 1)", f"{cur}.narrow(-1, 1, 1)"]
        if shape and shape[-1] in (1, 2, 4) and nd >= 2:
            # a mean over 3 would round where the crate's sum order differs from PyTorch's
            choices.append(f"{cur}.mean(-1)")
        if 1 in shape:
            i = shape.index(1)
            new = list(shape)
            new[i] = 3
            choices.append(f"{cur}.expand({', '.join(map(str, new))})")
        if torch._debug_has_internal_overlap(t) != 0:
            # a view of a tensor whose elements overlap has no derivative in explain
            choices = [c for c in choices if not any(v in c for v in VIEWS)]
        return rng.choice(choices)

    def build(self) -> str:
        rng = self.rng
        shape = random_shape(rng)
        how = rng.random()
        if how < 0.5:
            self.run(f"a = torch.tensor({values_of(rng, shape)}, requires_grad=True)")
        else:
            self.run(f"a = torch.tensor({values_of(rng, shape)}).requires_grad_()")
        bshape = broadcast_partner(rng, shape)
        grad_b = rng.random() < 0.6
        self.run(f"b = torch.tensor({values_of(rng, bshape)}, requires_grad={grad_b})")
        cur = "a"
        for i in range(rng.randint(1, 5)):
            for _ in range(8):
                expr = self.op(cur)
                name = f"h{i}"
                t = None
                if expr and self.run(f"{name} = {expr}"):
                    t = self.ns[name]
                    if t.numel() == 0 or t.abs().max().item() > 1e4:
                        self.lines.pop()
                        t = None
                if t is not None:
                    cur = name
                    self.names.append(name)
                    self.made.append(t)
                    break
        if len(self.names) > 1 and rng.random() < 0.3:
            gone = rng.choice(self.names[:-1])
            self.run(f"del {gone}")
            self.names.remove(gone)
        v = rng.random()
        if v < 0.15:
            # an in-place write after the value was saved (never on a view: explain has no
            # CopySlices)
            # nor on a tensor other live tensors view (PyTorch regenerates their grad_fn)
            def shared(n: str) -> bool:
                st = self.ns[n].untyped_storage()._cdata
                return any(v is not self.ns[n] and v.untyped_storage()._cdata == st for v in self.made)
            cands = [n for n in self.names if self.ns[n]._base is None and n != cur and not shared(n)]
            if cands:
                n = rng.choice(cands)
                self.run(f"{n}.add_(1)")
        n = self.ns[cur].numel()
        means = [f"{cur}.mean()"] if n & (n - 1) == 0 else []
        loss = rng.choice([f"{cur}.sum()", f"({cur} * {cur}).sum()"] + means)
        self.run(f"loss = {loss}")
        names = ", ".join(f"type({n}.grad_fn).__name__" for n in self.names)
        self.lines.append(f"print({names})")
        if v < 0.15:
            self.lines += ["try:", "    loss.backward()", "except RuntimeError as e:", "    print(str(e))"]
        elif v < 0.35:
            self.lines += ["loss.backward(retain_graph=True)", "loss.backward()"]
        elif v < 0.45:
            self.lines += ["loss.backward()", "try:", "    loss.backward()",
                           "except RuntimeError as e:", "    print('twice', 'second time' in str(e))"]
        elif v < 0.55 and cur in self.ns and isinstance(self.ns.get(cur), torch.Tensor):
            self.lines += [f"{cur}.backward(torch.ones_like({cur}) * 2)"]
        else:
            self.lines.append("loss.backward()")
        self.lines.append("print(a.grad.tolist() if a.grad is not None else None, "
                          "b.grad.tolist() if b.grad is not None else None)")
        if rng.random() < 0.3:
            self.lines += ["with torch.no_grad():", "    a.sub_(a.grad * 0.5)", "    c = a * 2",
                           "print(a.tolist(), c.requires_grad, a.requires_grad)"]
        if rng.random() < 0.15:
            self.lines += ["try:", "    a.mul_(2)", "except RuntimeError as e:", "    print(str(e))"]
        return "\n".join(self.lines) + "\n"


def autograd_cases(count: int, explain) -> list[tuple[str, str]]:
    """`count` programs (seeds 1, 2, ...) whose PyTorch report is reproducible and has no
    error outside a try block."""
    out = []
    seed = 1
    while len(out) < count:
        program = Chain(random.Random(seed * 104729 + 21)).build()
        seed += 1
        first = explain(program)
        if first["error"] is not None or first != explain(program):
            continue
        out.append((f"random_autograd_{seed - 1}", program))
    return out
