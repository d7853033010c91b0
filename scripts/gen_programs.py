#!/usr/bin/env python3
"""Golden cases for `stridekit explain --json`: hand-written seed programs and random programs.

Requirements: PyTorch 2.11 on the CPU (`pip install torch==2.11.0`).  Regenerate every golden
file with the single command (from the repository root):

    python scripts/gen_programs.py --out tests/golden

It writes tests/golden/seeds.jsonl (the worked examples of ../shared/seeds and edge cases),
tests/golden/large.jsonl.gz (the seeds whose reports are too large to keep as plain text, e.g.
expand(1000, 1000)), tests/golden/random.jsonl (random programs, fixed seeds, reproducible) and
tests/golden/autograd.jsonl (random autograd programs: scripts/gen_autograd_programs.py).
Every line is {"name", "program", "expected"} with `expected` from torch_golden.explain.

The random generator builds each program statement by statement while running it under torch,
so it knows every live tensor's shape, dtype and values and can pick arguments that are valid
(most statements) or deliberately invalid (the last executed statement of about a third of the
programs, spread over every error kind).  It never produces Python syntax errors, never reads
values of torch.empty before filling them, and drops statements whose result would depend on
behaviour PyTorch leaves undefined:
  * float -> integer conversions of values outside the integer type's range (C++ UB),
  * int32/int64 values beyond +-2**31 and float values beyond 1e6 or non-finite
    (keeps arithmetic exact and deterministic; the seeds cover inf/nan and wrapping),
  * copy_/indexed assignment whose source and destination share elements without PyTorch
    raising (the result depends on the kernel's iteration order),
  * in-place ops inside a longer expression (a statement fails or succeeds as a whole).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_golden import element_offsets, error_kind, explain, golden_line  # noqa: E402

from golden_seeds import SEEDS  # noqa: E402
from gen_autograd_programs import autograd_cases  # noqa: E402

# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------
DTYPE_SPELLINGS = {
    torch.float32: ["float32", "float"],
    torch.float16: ["float16", "half"],
    torch.bfloat16: ["bfloat16"],
    torch.float64: ["float64", "double"],
    torch.int8: ["int8"],
    torch.uint8: ["uint8"],
    torch.int16: ["int16"],
    torch.int32: ["int32", "int"],
    torch.int64: ["int64", "long"],
    torch.bool: ["bool"],
}
ALL_DTYPES = list(DTYPE_SPELLINGS)
FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INT_DTYPES = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
INT_RANGE = {
    torch.int8: (-128, 127),
    torch.uint8: (0, 255),
    torch.int16: (-(2**15), 2**15 - 1),
    torch.int32: (-(2**31), 2**31 - 1),
    torch.int64: (-(2**31), 2**31 - 1),  # kept small on purpose (exact, no overflow UB)
}
NAMES = ["a", "b", "c", "d", "x", "y", "z", "w", "u", "v"]
MAX_NUMEL = 200

ERROR_KINDS = [
    "view_incompatible",
    "invalid_shape",
    "expand_invalid",
    "out_of_bounds_storage",
    "internal_overlap",
    "partial_overlap",
    "dim_out_of_range",
    "index_out_of_range",
    "bad_step",
    "bad_permutation",
    "dtype_unsupported",
    "assertion_failed",
    "other",
]


class Skip(Exception):
    """The builder cannot make this kind of statement for the current state."""


def dt(rng: random.Random, dtype: torch.dtype) -> str:
    return "torch." + rng.choice(DTYPE_SPELLINGS[dtype])


def is_float(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point


def numel_of(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def fmt_shape(rng: random.Random, shape, allow_varargs=True) -> str:
    """A size argument list: varargs `2, 3`, a tuple `(2, 3)` or a list `[2, 3]`."""
    items = [str(s) for s in shape]
    style = rng.random()
    if allow_varargs and style < 0.6 and items:
        return ", ".join(items)
    if style < 0.85 or not items:
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return "[" + ", ".join(items) + "]"


def random_shape(rng: random.Random, max_numel=48) -> list[int]:
    """A small shape of rank 0-5, sometimes with size-1 or size-0 dims."""
    rank = rng.choices([0, 1, 2, 3, 4, 5], weights=[3, 20, 35, 22, 15, 5])[0]
    while True:
        shape = [rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6]) for _ in range(rank)]
        if rank and rng.random() < 0.04:
            shape[rng.randrange(rank)] = 0
        if numel_of(shape) <= max_numel:
            return shape


def factorizations(rng: random.Random, n: int, rank: int) -> list[int]:
    """A random shape of the given rank with `n` elements (n > 0)."""
    shape = [1] * rank
    if rank == 0:
        return [] if n == 1 else [n]
    rest = n
    for i in range(rank - 1):
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        shape[i] = rng.choice(divs)
        rest //= shape[i]
    shape[-1] = rest
    rng.shuffle(shape)
    return shape


def scalar_for(rng: random.Random, dtype: torch.dtype, op: str):
    """A scalar literal valid for an in-place op on `dtype` (as source text)."""
    if dtype == torch.bool:
        return rng.choice(["True", "False"]) if op != "fill" else rng.choice(["True", "False", "0", "1"])
    if dtype in INT_DTYPES:
        lo, hi = INT_RANGE[dtype]
        if op == "mul":
            return str(rng.choice([2, -1, 3, 0, 1, -2]))
        if op == "fill":
            return str(rng.choice([0, 1, 7, -3 if lo < 0 else 9, hi, lo]))
        return str(rng.choice([1, -1, 2, 5, -7, 100]))
    if op == "mul":
        return rng.choice(["2", "-1", "0.5", "3", "-2.0", "1.5", "0"])
    if op == "fill":
        return rng.choice(["0", "1", "2.5", "-0.25", "7", "True", "-3.0"])
    return rng.choice(["1", "-1", "0.5", "2.25", "-3", "10", "1.5"])


def literal_values(rng: random.Random, dtype, n: int) -> list[str]:
    """`n` element literals for torch.tensor with the given (or inferred: None) dtype."""
    kind = dtype
    if kind is None:
        kind = rng.choice(["int", "float", "bool", "mixed"])
    out = []
    for _ in range(n):
        if kind == torch.bool or kind == "bool":
            out.append(rng.choice(["True", "False"]))
        elif kind in INT_DTYPES:
            lo, hi = INT_RANGE[kind]
            out.append(str(rng.randint(max(lo, -50), min(hi, 120))))
        elif kind == "int":
            out.append(str(rng.randint(-20, 40)))
        elif kind == "mixed":
            out.append(rng.choice([str(rng.randint(-5, 9)), rng.choice(["1.5", "-0.5", "2.0"]), "True"]))
        else:
            out.append(rng.choice([str(rng.randint(-9, 30)), f"{rng.randint(-40, 40) / 4}"]))
    return out


def nested(values: list[str], shape: list[int]) -> str:
    """Nested list source text for torch.tensor."""
    if not shape:
        return values[0]
    if len(shape) == 1:
        return "[" + ", ".join(values[: shape[0]]) + "]"
    step = numel_of(shape[1:])
    parts = [nested(values[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]
    return "[" + ", ".join(parts) + "]"


# --------------------------------------------------------------------------------------------
# Program builder
# --------------------------------------------------------------------------------------------
class Builder:
    """Builds one program while executing it, so every choice sees the live state."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.ns: dict = {"torch": torch}
        self.lines: list[str] = []
        self.copy_pair: tuple[str, str] | None = None  # (dst, src) of the last copy statement

    # ---- state helpers ------------------------------------------------------------------
    def live(self) -> list[str]:
        return [n for n, v in self.ns.items() if isinstance(v, torch.Tensor)]

    def pick(self) -> str:
        names = self.live()
        if not names:
            raise Skip
        return self.rng.choice(names)

    def new_name(self) -> str:
        live = self.live()
        free = [n for n in NAMES if n not in live]
        if live and (not free or self.rng.random() < 0.15):
            return self.rng.choice(live)  # rebinding keeps the name's position
        return self.rng.choice(free[:4])

    def eval(self, expr: str):
        return eval(expr, self.ns)

    def try_stmt(self, stmt: str) -> str | None:
        """Run `stmt`; return the error message, or None on success.

        A failing statement leaves no trace (PyTorch validates before writing); a successful one
        that must be dropped is undone with `reset`.
        """
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(stmt, self.ns)
        except Exception as exc:  # torch raises RuntimeError/IndexError/ValueError/TypeError
            return str(exc)
        return None

    def reset(self) -> None:
        """Rebuild the state from the kept lines (undoes a dropped in-place statement)."""
        self.ns = {"torch": torch}
        with contextlib.redirect_stdout(io.StringIO()):
            for line in self.lines:
                exec(line, self.ns)

    # ---- guards -------------------------------------------------------------------------
    def values_ok(self) -> bool:
        """Keep values exact and deterministic (see the module docstring)."""
        for v in self.ns.values():
            if not isinstance(v, torch.Tensor) or v.numel() == 0:
                continue
            if v.numel() > MAX_NUMEL:
                return False
            if is_float(v.dtype):
                f = v.double()
                if not bool(torch.isfinite(f).all()) or float(f.abs().max()) > 1e6:
                    return False
            elif v.dtype in (torch.int32, torch.int64):
                if int(v.abs().max()) >= 2**31:
                    return False
        return True

    def conversion_ok(self, src: torch.Tensor, dst_dtype: torch.dtype) -> bool:
        """A float -> integer conversion is defined only for values in the integer range."""
        if not is_float(src.dtype) or dst_dtype not in INT_DTYPES or src.numel() == 0:
            return True
        f = src.double()
        if not bool(torch.isfinite(f).all()):
            return False
        lo, hi = INT_RANGE[dst_dtype]
        if dst_dtype == torch.uint8:
            lo = -100  # uint8 goes through int64 in c10 (defined wrap); test a little of it
        return float(f.min()) > lo - 1 and float(f.max()) < hi + 1

    # ---- constructors -------------------------------------------------------------------
    def constructor(self) -> str:
        rng = self.rng
        kind = rng.choices(["arange", "zeros", "ones", "full", "tensor", "empty"], weights=[35, 12, 10, 10, 23, 10])[0]
        dtype = rng.choice(ALL_DTYPES) if rng.random() < 0.6 else None
        kw = f", dtype={dt(rng, dtype)}" if dtype is not None else ""
        if kind == "arange":
            if dtype == torch.bool:
                dtype, kw = None, ""
            floaty = dtype in FLOAT_DTYPES or (dtype is None and rng.random() < 0.4)
            n = rng.choice([1, 2, 4, 6, 8, 10, 12, 12, 16, 18, 20, 24, 24, 30, 36, 48, 60, 120])
            if dtype in INT_DTYPES and dtype != torch.int64:
                n = min(n, 48)
            form = rng.randrange(3)
            if form == 0:
                args = f"{n}." if floaty and not kw else str(n)
            elif form == 1:
                start = rng.randint(-5, 5)
                args = f"{start}, {start + n}" + ("." if floaty and not kw else "")
            else:
                step = rng.choice([2, 3, -1, -2]) if not floaty else rng.choice([0.5, 0.25, 2.0, -0.5, 1.5])
                start = rng.randint(-6, 6)
                if floaty:
                    start = float(start)
                end = start + n * step
                args = f"{start}, {end}, {step}"
            if dtype is not None and dtype in INT_DTYPES and floaty is False:
                pass
            lhs = self.new_name()
            stmt = f"{lhs} = torch.arange({args}{kw})"
            if dtype == torch.uint8 or dtype == torch.int8:
                # keep arange within range for small int types (wrapping is a seed case)
                stmt = f"{lhs} = torch.arange({rng.randint(0, 5)}, {rng.randint(6, 40)}{kw})"
            return stmt
        shape = random_shape(rng)
        lhs = self.new_name()
        if kind in ("zeros", "ones"):
            return f"{lhs} = torch.{kind}({fmt_shape(rng, shape)}{kw})"
        if kind == "empty":
            # torch.empty is always filled by the next statement (its values are never read)
            return f"{lhs} = torch.empty({fmt_shape(rng, shape)}{kw})"
        if kind == "full":
            fill = scalar_for(rng, dtype if dtype is not None else torch.float32, "fill")
            if dtype is None:
                fill = rng.choice(["7", "2.5", "True", "-1", "0.25"])
            return f"{lhs} = torch.full({fmt_shape(rng, shape, allow_varargs=False)}, {fill}{kw})"
        # torch.tensor(nested list)
        if not shape:
            shape = [rng.randint(1, 4)]
        shape = [max(1, s) for s in shape] if rng.random() < 0.95 else shape
        n = numel_of(shape)
        vals = literal_values(rng, dtype, n) if n else []
        return f"{lhs} = torch.tensor({nested(vals, shape)}{kw})"

    # ---- view / copy ops on an expression -----------------------------------------------
    def op_suffix(self, t: torch.Tensor) -> str:
        """One valid op (view or copy) for tensor `t`, as the text to append to its expression."""
        rng = self.rng
        nd = t.dim()
        shape = list(t.shape)
        ops = ["view", "reshape", "flatten", "permute", "transpose", "t", "T", "mT", "expand", "narrow",
               "select", "index", "unsqueeze", "squeeze", "diagonal", "unfold", "as_strided", "movedim",
               "contiguous", "clone", "to", "detach", "expand_as"]
        weights = [10, 6, 4, 8, 7, 3, 3, 3, 6, 5, 4, 14, 5, 4, 4, 5, 4, 4, 7, 5, 6, 2, 2]
        op = rng.choices(ops, weights=weights)[0]
        d = lambda: rng.randrange(nd) - (nd if rng.random() < 0.3 else 0)  # noqa: E731
        if op in ("view", "reshape"):
            n = t.numel()
            if n == 0:
                new = list(shape)
                rng.shuffle(new)
            else:
                new = factorizations(rng, n, rng.choice([0, 1, 1, 2, 2, 3, 3, 4]) if n > 1 else rng.choice([0, 1, 2]))
            if new and n > 0 and rng.random() < 0.4:
                new[rng.randrange(len(new))] = -1
            return f".{op}({fmt_shape(rng, new)})" if new else f".{op}(())"
        if op == "flatten":
            if nd == 0 or rng.random() < 0.3:
                return ".flatten()"
            a = rng.randrange(nd)
            b = rng.randrange(a, nd)
            return f".flatten({a}, {b})" if rng.random() < 0.7 else f".flatten({a - nd}, {b})"
        if op == "permute" and nd >= 1:
            p = list(range(nd))
            rng.shuffle(p)
            p = [x - nd if rng.random() < 0.2 else x for x in p]
            return f".permute({fmt_shape(rng, p)})"
        if op == "transpose" and nd >= 1:
            return f".transpose({d()}, {d()})"
        if op == "t" and nd <= 2:
            return ".t()"
        if op == "T" and (nd == 2 or (nd != 2 and rng.random() < 0.2)):
            return ".T"
        if op == "mT" and nd >= 2:
            return ".mT"
        if op == "expand":
            lead = rng.choice([0, 0, 1]) if nd < 4 else 0
            sizes = [rng.randint(1, 3) for _ in range(lead)]
            for s in shape:
                if s == 1 and rng.random() < 0.7:
                    sizes.append(rng.randint(1, 4))
                else:
                    sizes.append(-1 if rng.random() < 0.5 else s)
            return f".expand({fmt_shape(rng, sizes)})" if sizes else ".expand(())"
        if op == "expand_as":
            for other in self.live():
                o = self.ns[other]
                try:
                    t.expand_as(o)
                    return f".expand_as({other})"
                except RuntimeError:
                    pass
            raise Skip
        if op == "narrow" and nd >= 1:
            dim = rng.randrange(nd)
            size = shape[dim]
            start = rng.randint(0, size)
            length = rng.randint(0, size - start)
            if start < size and rng.random() < 0.3:
                start -= size
            return f".narrow({dim - nd if rng.random() < 0.2 else dim}, {start}, {length})"
        if op == "select" and nd >= 1:
            dim = rng.randrange(nd)
            if shape[dim] == 0:
                raise Skip
            i = rng.randrange(shape[dim])
            if rng.random() < 0.3:
                i -= shape[dim]
            return f".select({dim}, {i})"
        if op == "index":
            return self.index_text(t)
        if op == "unsqueeze":
            return f".unsqueeze({rng.randint(-nd - 1, nd)})"
        if op == "squeeze":
            r = rng.random()
            if r < 0.4 or nd == 0:
                return ".squeeze()"
            if r < 0.75:
                return f".squeeze({d()})"
            dims = sorted(rng.sample(range(nd), rng.randint(1, nd)))
            return f".squeeze({tuple(dims)})" if len(dims) > 1 else f".squeeze(({dims[0]},))"
        if op == "diagonal" and nd >= 2:
            a, b = rng.sample(range(nd), 2)
            off = rng.randint(-3, 3)
            form = rng.randrange(3)
            if form == 0:
                return ".diagonal()"
            if form == 1:
                return f".diagonal({off})"
            return f".diagonal({off}, {a}, {b})" if rng.random() < 0.6 else f".diagonal(offset={off}, dim1={a}, dim2={b})"
        if op == "unfold":
            if nd == 0:
                return ".unfold(0, 1, 1)"
            dim = rng.randrange(nd)
            size = rng.randint(0 if rng.random() < 0.05 else 1, max(1, shape[dim])) if shape[dim] else 0
            step = rng.randint(1, 3)
            return f".unfold({dim}, {size}, {step})"
        if op == "as_strided":
            n_st = t.untyped_storage().nbytes() // t.element_size()
            if n_st == 0:
                raise Skip
            rank = rng.randint(1, 3)
            sizes = [rng.randint(1, 4) for _ in range(rank)]
            strides = [rng.choice([0, 1, 1, 2, 3, 4]) for _ in range(rank)]
            span = sum((s - 1) * st for s, st in zip(sizes, strides))
            if span >= n_st:
                raise Skip
            off = rng.randint(0, n_st - 1 - span)
            if off and rng.random() < 0.5:
                return f".as_strided({fmt_shape(rng, sizes, False)}, {fmt_shape(rng, strides, False)}, {off})"
            if rng.random() < 0.3:
                return f".as_strided(size={fmt_shape(rng, sizes, False)}, stride={fmt_shape(rng, strides, False)}, storage_offset={off})"
            return f".as_strided({fmt_shape(rng, sizes, False)}, {fmt_shape(rng, strides, False)})"
        if op == "movedim" and nd >= 1:
            if rng.random() < 0.6:
                return f".movedim({d()}, {d()})"
            k = rng.randint(1, nd)
            src = rng.sample(range(nd), k)
            dst = rng.sample(range(nd), k)
            return f".movedim({tuple(src)}, {tuple(dst)})" if k > 1 else f".movedim(({src[0]},), ({dst[0]},))"
        if op == "contiguous":
            fmts = ["", "torch.contiguous_format"] + (["torch.channels_last"] * 3 if nd == 4 else []) + (["torch.channels_last_3d"] * 3 if nd == 5 else [])
            f = rng.choice(fmts)
            return f".contiguous(memory_format={f})" if f else ".contiguous()"
        if op == "clone":
            fmts = ["", "", "torch.preserve_format", "torch.contiguous_format"] + (["torch.channels_last"] * 3 if nd == 4 else []) + (["torch.channels_last_3d"] * 3 if nd == 5 else [])
            f = rng.choice(fmts)
            return f".clone(memory_format={f})" if f else ".clone()"
        if op == "to":
            if rng.random() < 0.3:
                fmts = ["torch.contiguous_format", "torch.preserve_format"] + (["torch.channels_last"] * 3 if nd == 4 else []) + (["torch.channels_last_3d"] * 3 if nd == 5 else [])
                return f".to(memory_format={rng.choice(fmts)})"
            target = rng.choice(ALL_DTYPES + [t.dtype])
            if not self.conversion_ok(t, target):
                raise Skip
            return f".to({dt(rng, target)})" if rng.random() < 0.7 else f".to(dtype={dt(rng, target)})"
        if op == "detach":
            return ".detach()"
        raise Skip

    def index_text(self, t: torch.Tensor) -> str:
        """A basic-indexing subscript: ints (negative too), slices, None, one Ellipsis."""
        rng = self.rng
        nd = t.dim()
        shape = list(t.shape)
        items = []
        dim = 0
        used_ellipsis = False
        while dim < nd and len(items) < nd + 2:
            r = rng.random()
            if r < 0.1:
                items.append("None")
                continue
            if r < 0.17 and not used_ellipsis:
                items.append("...")
                used_ellipsis = True
                dim = nd - rng.randint(0, nd - dim)  # the Ellipsis covers some dims
                continue
            if r < 0.45 and shape[dim] > 0:
                i = rng.randrange(shape[dim])
                items.append(str(i - shape[dim] if rng.random() < 0.3 else i))
            else:
                items.append(self.slice_text(shape[dim]))
            dim += 1
            if rng.random() < 0.25:
                break
        if not items:
            items = [rng.choice(["None", "...", ":"])] if nd else [rng.choice(["None", "..."])]
        if nd == 0:
            items = [i for i in items if i in ("None", "...")] or ["None"]
        return "[" + ", ".join(items) + "]"

    def slice_text(self, size: int) -> str:
        rng = self.rng
        start = rng.choice(["", "", str(rng.randint(-size - 2, size + 2))])
        stop = rng.choice(["", "", str(rng.randint(-size - 2, size + 3))])
        step = rng.choice(["", "", "", "1", "2", "3"])
        text = f"{start}:{stop}"
        return text + (f":{step}" if step else "")

    def chain(self, base: str, max_ops: int) -> tuple[str, torch.Tensor]:
        """`base` followed by 1..max_ops valid ops; returns the expression and its value."""
        expr = base
        t = self.eval(expr)
        for _ in range(self.rng.randint(1, max_ops)):
            for _attempt in range(8):
                try:
                    cand = expr + self.op_suffix(t)
                    val = self.eval(cand)
                except Skip:
                    continue
                except Exception:  # a random choice that torch refuses: try another
                    continue
                if val.numel() > MAX_NUMEL:
                    continue
                expr, t = cand, val
                break
        if expr == base:
            raise Skip
        return expr, t

    # ---- statements ---------------------------------------------------------------------
    def stmt_view(self) -> str:
        src = self.pick()
        expr, _ = self.chain(src, 3)
        return f"{self.new_name()} = {expr}"

    def inplace_target(self) -> tuple[str, torch.Tensor]:
        """A live tensor, or a view chain of one (views only: writes go through)."""
        src = self.pick()
        if self.rng.random() < 0.5:
            return src, self.ns[src]
        expr = src
        t = self.ns[src]
        for _ in range(self.rng.randint(1, 2)):
            for _attempt in range(6):
                try:
                    suf = self.op_suffix(t)
                except Skip:
                    continue
                if any(suf.startswith(p) for p in (".contiguous", ".clone", ".to", ".reshape", ".flatten")):
                    continue  # might copy: the write would not reach the name
                try:
                    val = self.eval(expr + suf)
                except Exception:
                    continue
                expr, t = expr + suf, val
                break
        return expr, t

    def stmt_inplace(self) -> str:
        rng = self.rng
        target, t = self.inplace_target()
        op = rng.choices(["add", "add_alpha", "mul", "fill", "zero", "copy"], weights=[6, 2, 5, 4, 2, 6])[0]
        if op == "add":
            text = f"{target}.add_({scalar_for(rng, t.dtype, 'add')})"
        elif op == "add_alpha":
            alpha = {torch.bool: "True"}.get(t.dtype, rng.choice(["2", "-1", "3"]) if t.dtype in INT_DTYPES else rng.choice(["2", "0.5", "-1.5"]))
            text = f"{target}.add_({scalar_for(rng, t.dtype, 'add')}, alpha={alpha})"
        elif op == "mul":
            text = f"{target}.mul_({scalar_for(rng, t.dtype, 'mul')})"
        elif op == "fill":
            text = f"{target}.fill_({scalar_for(rng, t.dtype, 'fill')})"
        elif op == "zero":
            text = f"{target}.zero_()"
        else:
            src = self.source_for(t)
            self.copy_pair = (target, src)
            text = f"{target}.copy_({src})"
        if rng.random() < 0.15 and target in self.live():
            text = f"{self.new_name()} = {text}"  # binds the very same tensor object
        return text

    def source_for(self, dst: torch.Tensor) -> str:
        """An expression broadcastable to `dst`'s shape (a live tensor, a view, or a constructor)."""
        rng = self.rng
        shape = list(dst.shape)
        cands = []
        for name in self.live():
            v = self.ns[name]
            try:
                torch.broadcast_shapes(tuple(v.shape), tuple(shape))
                if len(v.shape) <= len(shape) and torch.broadcast_shapes(tuple(v.shape), tuple(shape)) == tuple(shape):
                    if self.conversion_ok(v, dst.dtype):
                        cands.append(name)
            except RuntimeError:
                pass
        if cands and rng.random() < 0.6:
            return rng.choice(cands)
        # a fresh constructor with a trailing part of dst's shape (size-1 dims broadcast)
        k = rng.randint(0, len(shape))
        sub = [s if rng.random() < 0.8 else 1 for s in shape[len(shape) - k:]]
        dtype = rng.choice(ALL_DTYPES)
        if dst.dtype in INT_DTYPES and is_float(dtype):
            dtype = torch.int16
        n = numel_of(sub)
        if n == 0 or rng.random() < 0.3:
            return f"torch.ones({fmt_shape(rng, sub)}, dtype={dt(rng, dtype)})" if sub else f"torch.ones((), dtype={dt(rng, dtype)})"
        if not sub:
            sub = [1]
        vals = literal_values(rng, dtype if dtype not in INT_DTYPES else torch.int8, n)
        return f"torch.tensor({nested(vals, sub)}, dtype={dt(rng, dtype)})"

    # ---- element-wise arithmetic, constructors from tensors, the fences' Python ------------
    def operand_text(self, other: torch.Tensor | None = None) -> tuple[str, object]:
        """A live tensor (sometimes through a view), or a number literal; with its value."""
        rng = self.rng
        r = rng.random()
        if r < 0.25 or not self.live():
            dtype = other.dtype if other is not None else torch.float32
            lit = rng.choice(["2", "-1", "3", "0.5", "True", "1.5", "-2.0"]) if is_float(dtype) else rng.choice(["2", "-1", "3", "True", "7"])
            return lit, eval(lit)
        name = self.pick()
        if r < 0.45:
            try:
                suf = self.op_suffix(self.ns[name])
                return name + suf, self.eval(name + suf)
            except Exception:
                pass
        return name, self.ns[name]

    def stmt_arith(self) -> str:
        """An out-of-place element-wise op: arithmetic, comparison, unary, where, clamp."""
        rng = self.rng
        a_txt, a = self.operand_text()
        if not isinstance(a, torch.Tensor):
            raise Skip
        kind = rng.choices(["binary", "compare", "unary", "where", "clamp", "method"], weights=[10, 5, 4, 2, 2, 3])[0]
        lhs = self.new_name()
        if kind == "unary":
            ops = ["-{}", "{}.abs()", "{}.square()", "torch.abs({})", "{}.neg()"]
            # no sqrt/exp: PyTorch's CPU kernels (MKL VML) are not always correctly rounded
            if a.dtype == torch.bool or a.dtype in INT_DTYPES:
                ops.append("~{}")
            return f"{lhs} = " + rng.choice(ops).format(f"({a_txt})" if rng.random() < 0.5 else a_txt)
        b_txt, b = self.operand_text(a)
        if kind == "compare":
            op = rng.choice(["==", "!=", "<", "<=", ">", ">="])
            return f"{lhs} = {a_txt} {op} {b_txt}"
        if kind == "where":
            c_txt, _ = self.operand_text()
            return f"{lhs} = torch.where({a_txt} > {rng.choice(['0', '1', '2'])}, {b_txt}, {c_txt})"
        if kind == "clamp":
            lo, hi = rng.choice([("-1", "2"), ("0", None), (None, "1"), ("0.5", "3")])
            parts = [p for p in [f"min={lo}" if lo else None, f"max={hi}" if hi else None] if p]
            return f"{lhs} = {a_txt}.clamp({', '.join(parts)})"
        ints = not (is_float(a.dtype) or (isinstance(b, torch.Tensor) and is_float(b.dtype)) or isinstance(b, float))
        ops = ["+", "-", "*", "/", "&", "|", "^"] + (["//", "%"] if True else [])
        op = rng.choice(ops + ["+", "*", "-"])
        if kind == "method":
            name = {"+": "add", "-": "sub", "*": "mul", "/": "div"}.get(op, "mul")
            alpha = f", alpha={rng.choice(['2', '-1', '-2'])}" if name in ("add", "sub") and rng.random() < 0.4 else ""
            if rng.random() < 0.5:
                return f"{lhs} = torch.{name}({a_txt}, {b_txt}{alpha})"
            return f"{lhs} = ({a_txt}).{name}({b_txt}{alpha})"
        if op == "**":
            return f"{lhs} = {a_txt} ** 2"
        del ints
        return f"{lhs} = {a_txt} {op} {b_txt}"

    def stmt_inplace_tensor(self) -> str:
        """An in-place element-wise op with a tensor or number operand."""
        rng = self.rng
        target, t = self.inplace_target()
        b_txt, b = self.operand_text(t)
        op = rng.choice(["add_", "sub_", "mul_", "div_", "clamp_", "gt_", "lt_", "eq_", "ge_", "le_", "ne_", "masked_fill_"])
        if isinstance(b, torch.Tensor):
            self.copy_pair = (target, b_txt)
        if op == "clamp_":
            return f"{target}.clamp_({rng.choice(['-1', '0'])}, {rng.choice(['2', '5'])})"
        if op == "masked_fill_":
            return f"{target}.masked_fill_({target} > {rng.choice(['0', '1'])}, {scalar_for(rng, t.dtype, 'fill')})"
        alpha = f", alpha={rng.choice(['2', '-1'])}" if op in ("add_", "sub_") and rng.random() < 0.3 else ""
        return f"{target}.{op}({b_txt}{alpha})"

    def stmt_like(self) -> str:
        rng = self.rng
        name = self.pick()
        t = self.ns[name]
        fn = rng.choice(["zeros_like", "ones_like", "full_like", "empty_like", "new_zeros", "new_ones", "new_full"])
        fmts = [None, "torch.preserve_format", "torch.contiguous_format"] + (["torch.channels_last"] * 2 if t.dim() == 4 else [])
        f = rng.choice(fmts)
        kw = f", memory_format={f}" if f else ""
        if rng.random() < 0.3:
            kw += f", dtype={dt(rng, rng.choice(ALL_DTYPES))}"
        lhs = self.new_name()
        if fn.startswith("new_"):
            shape = random_shape(rng)
            extra = f", {scalar_for(rng, t.dtype, 'fill')}" if fn == "new_full" else ""
            return f"{lhs} = {name}.{fn}({fmt_shape(rng, shape, allow_varargs=False)}{extra})"
        if fn == "full_like":
            return f"{lhs} = torch.full_like({name}, {rng.choice(['7', '1', '0'])}{kw})"
        if fn == "empty_like":
            return f"{lhs} = torch.empty_like({name}{kw}).fill_(1)"
        return f"{lhs} = torch.{fn}({name}{kw})"

    def stmt_query(self) -> str:
        """An assert that holds, or a print of a query, as the seed fences write them."""
        rng = self.rng
        name = self.pick()
        t = self.ns[name]
        other = self.ns[self.pick()]
        same = t.untyped_storage()._cdata == other.untyped_storage()._cdata
        facts = [
            f"{name}.shape == {tuple(t.shape)}",
            f"{name}.stride() == {tuple(t.stride())}",
            f"{name}.storage_offset() == {t.storage_offset()}",
            f"{name}._version == {t._version}",
            f"({name}._base is None) is {t._base is None}",
            f"{name}.untyped_storage().nbytes() == {t.untyped_storage().nbytes()}",
            f"len({name}.shape) == {t.dim()}",
            f"{name}.dtype == torch.{str(t.dtype).removeprefix('torch.')}",
            f"{name}.is_contiguous() is {t.is_contiguous()}",
        ]
        o = self.pick()
        facts.append(f"({name}.untyped_storage().data_ptr() == {o}.untyped_storage().data_ptr()) is {same}")
        if rng.random() < 0.5:
            k = rng.randint(1, 2)
            return "assert " + " and ".join(rng.sample(facts, k))
        what = rng.choice([f"{name}.shape", f"{name}.stride()", f"{name}.dtype", f"{name}._version", f"{name}.shape[1:]", f"{name}", f"{name}.storage_offset(), {name}.is_contiguous()"])
        return f"print({what})"

    def stmt_copy(self) -> str:
        """A copying op: advanced indexing, repeat/tile, cat/stack, flip/roll, a reduction."""
        rng = self.rng
        name = self.pick()
        t = self.ns[name]
        nd = t.dim()
        lhs = self.new_name()
        kind = rng.choice(["index", "mask", "repeat", "cat", "stack", "flip", "roll", "reduce", "reduce", "setindex"])
        if kind in ("index", "setindex") and nd >= 1 and t.shape[0] > 0:
            dim = rng.randrange(nd)
            if t.shape[dim] == 0:
                raise Skip
            idx = [rng.randrange(-t.shape[dim], t.shape[dim]) for _ in range(rng.randint(1, 3))]
            sub = ", ".join([":"] * dim + [str(idx)])
            if kind == "setindex":
                return f"{name}[{sub}] = {scalar_for(rng, t.dtype, 'fill')}"
            return f"{lhs} = {name}[{sub}]"
        if kind == "mask" and nd >= 1:
            return f"{lhs} = {name}[{name} > {rng.choice(['0', '1', '3'])}]"
        if kind == "repeat":
            reps = [rng.randint(1, 2) for _ in range(nd + rng.randint(0, 1))] or [2]
            return f"{lhs} = {name}.repeat({fmt_shape(rng, reps)})" if rng.random() < 0.7 else f"{lhs} = {name}.tile({tuple(reps)})"
        if kind in ("cat", "stack") and nd >= 1:
            others = [n for n in self.live() if self.ns[n].shape == t.shape]
            o = rng.choice(others)
            d = rng.randrange(nd + (kind == "stack"))
            return f"{lhs} = torch.{kind}([{name}, {o}], {d})"
        if kind == "flip" and nd >= 1:
            dims = rng.sample(range(nd), rng.randint(1, nd))
            return f"{lhs} = {name}.flip({fmt_shape(rng, dims)})"
        if kind == "roll":
            if nd >= 1 and rng.random() < 0.6:
                return f"{lhs} = {name}.roll({rng.randint(-3, 3)}, {rng.randrange(nd)})"
            return f"{lhs} = {name}.roll({rng.randint(-3, 3)})"
        if kind == "reduce":
            small = t.numel() <= 48 and (t.numel() == 0 or t.dtype not in FLOAT_DTYPES or float(t.double().abs().max()) < 256)
            ops = ["amax", "amin"] + (["sum"] if small else []) + (["prod"] if t.numel() <= 6 and small else [])
            if small and t.dtype in (torch.float32, torch.float64):
                ops.append("mean")
            op = rng.choice(ops)
            if nd == 0 or rng.random() < 0.3:
                if op in ("amax", "amin") and t.numel() == 0:
                    raise Skip
                return f"{lhs} = {name}.{op}()"
            dim = rng.randrange(nd)
            keep = ", keepdim=True" if rng.random() < 0.3 else ""
            return f"{lhs} = {name}.{op}({dim}{keep})"
        raise Skip

    def stmt_setitem(self) -> str:
        rng = self.rng
        name = self.pick()
        t = self.ns[name]
        idx = self.index_text(t)
        sub = self.eval(name + idx)
        if rng.random() < 0.55:
            value = scalar_for(rng, t.dtype, "fill")
        else:
            value = self.source_for(sub)
            self.copy_pair = (name + idx, value)
        return f"{name}{idx} = {value}"

    def stmt_del(self) -> str:
        live = self.live()
        if len(live) < 2:
            raise Skip
        k = 1 if self.rng.random() < 0.8 else 2
        return "del " + ", ".join(self.rng.sample(live, k))

    # ---- deliberately invalid statements ------------------------------------------------
    def stmt_error(self, kind: str) -> str:
        """A statement meant to fail with `kind` (verified by the caller)."""
        rng = self.rng
        name = self.pick()
        t = self.ns[name]
        nd = t.dim()
        shape = list(t.shape)
        lhs = self.new_name()
        if kind == "view_incompatible":
            big = [i for i, s in enumerate(shape) if s > 1]
            if len(big) < 2:
                raise Skip
            a, b = rng.sample(big, 2)
            return f"{lhs} = {name}.transpose({a}, {b}).view({rng.choice(['-1', str(t.numel())])})"
        if kind == "invalid_shape":
            c = rng.randrange(6)
            if c == 0:
                return f"{lhs} = {name}.view({t.numel() + rng.randint(1, 5)})"
            if c == 1:
                return f"{lhs} = {name}.reshape(-1, -1)"
            if c == 2:
                return f"{lhs} = torch.{rng.choice(['zeros', 'ones', 'empty'])}({rng.randint(1, 3)}, -{rng.randint(1, 3)})"
            if c == 3 and nd:
                dim = rng.randrange(nd)
                return f"{lhs} = {name}.unfold({dim}, {shape[dim] + rng.randint(1, 3)}, 1)"
            if c == 4 and nd:
                return f"{lhs} = {name}.narrow({rng.randrange(nd)}, 0, -1)"
            return f"{lhs} = {name}.view(-2, {max(t.numel(), 1)})"
        if kind == "expand_invalid":
            c = rng.randrange(3)
            big = [i for i, s in enumerate(shape) if s > 1]
            if c == 0 and big:
                new = list(shape)
                new[rng.choice(big)] += 1
                return f"{lhs} = {name}.expand({fmt_shape(rng, new)})"
            if c == 1 and nd >= 1:
                return f"{lhs} = {name}.expand({fmt_shape(rng, shape[1:] or [2])})" if nd >= 2 else f"{lhs} = {name}.expand(())"
            if big:
                bad = list(shape)
                bad[rng.choice(big)] += 1
                return f"{name}.copy_(torch.zeros({fmt_shape(rng, bad)}))"
            raise Skip
        if kind == "out_of_bounds_storage":
            n_st = t.untyped_storage().nbytes() // t.element_size()
            return f"{lhs} = {name}.as_strided(({n_st + rng.randint(0, 3)}, 2), (1, {rng.randint(1, 3)}))"
        if kind == "internal_overlap":
            if nd == 0:
                raise Skip
            new = [rng.randint(2, 3)] + shape
            op = rng.choice(["add_(1)", "mul_(2)", "copy_({0})".format(name), "SET"])
            if op == "SET":
                return f"{lhs} = {name}.expand({fmt_shape(rng, new)})\n{lhs}[...] = 1"
            return f"{lhs} = {name}.expand({fmt_shape(rng, new)})\n{lhs}.{op}"
        if kind == "partial_overlap":
            if not t.is_contiguous() or t.numel() < 3:
                raise Skip
            n = t.numel()
            k = rng.randint(1, n - 1)
            s = rng.randint(1, n - k)
            if rng.random() < 0.5:
                return f"{lhs} = {name}.view(-1)\n{lhs}[{s}:{s + k}] = {lhs}[0:{k}]"
            return f"{lhs} = {name}.view(-1)\n{lhs}[0:{k}].copy_({lhs}[{s}:{s + k}])"
        if kind == "dim_out_of_range":
            bad = rng.choice([nd, nd + 1, -nd - 1]) if nd else rng.choice([1, -2])
            c = rng.choice(["transpose", "select", "unsqueeze", "squeeze", "flatten", "movedim", "diagonal", "narrow", "unfold", "t", "mT", "cl"])
            if c == "transpose":
                return f"{lhs} = {name}.transpose(0, {bad})"
            if c == "select":
                return f"{lhs} = {name}.select({bad}, 0)"
            if c == "unsqueeze":
                return f"{lhs} = {name}.unsqueeze({nd + 1 if rng.random() < 0.5 else -nd - 2})"
            if c == "squeeze":
                return f"{lhs} = {name}.squeeze({bad})"
            if c == "flatten":
                return f"{lhs} = {name}.flatten({bad})" if nd else f"{lhs} = {name}.flatten(0, {bad})"
            if c == "movedim":
                return f"{lhs} = {name}.movedim({bad}, 0)"
            if c == "diagonal":
                return f"{lhs} = {name}.diagonal(0, 0, {bad})"
            if c == "narrow":
                return f"{lhs} = {name}.narrow({bad}, 0, 1)"
            if c == "unfold":
                return f"{lhs} = {name}.unfold({bad}, 1, 1)"
            if c == "t" and nd > 2:
                return f"{lhs} = {name}.t()"
            if c == "mT" and nd < 2:
                return f"{lhs} = {name}.mT" if nd == 1 else f"{lhs} = {name}[None].mT"
            if c == "cl" and nd not in (4, 5):
                return f"{lhs} = {name}.contiguous(memory_format=torch.channels_last)"
            return f"{lhs} = {name}.transpose({bad}, 0)"
        if kind == "index_out_of_range":
            c = rng.randrange(5)
            if nd == 0:
                return f"{lhs} = {name}[0]" if c < 3 else f"{lhs} = {name}.select(0, 0)"
            dim = rng.randrange(nd)
            size = shape[dim]
            if c == 0:
                pre = ", ".join([":"] * dim)
                i = size + rng.randint(0, 2) if rng.random() < 0.6 else -size - 1 - rng.randint(0, 2)
                return f"{lhs} = {name}[{pre + ', ' if pre else ''}{i}]"
            if c == 1:
                return f"{lhs} = {name}.select({dim}, {size})"
            if c == 2:
                return f"{lhs} = {name}[{', '.join(['0'] * (nd + 1))}]"
            if c == 3:
                return f"{lhs} = {name}.narrow({dim}, {size}, 1)" if rng.random() < 0.5 else f"{lhs} = {name}.narrow({dim}, {size + 1}, 0)"
            return f"{name}[{size + rng.randint(0, 3)}] = 1" if dim == 0 or True else ""
        if kind == "bad_step":
            c = rng.randrange(4)
            if c == 0 and nd:
                return f"{lhs} = {name}[::{rng.choice([0, -1, -2])}]"
            if c == 1 and nd:
                return f"{lhs} = {name}.unfold({rng.randrange(nd)}, 1, 0)"
            if c == 2:
                return f"{lhs} = torch.arange(0, {rng.randint(1, 9)}, 0)"
            return f"{lhs} = torch.arange({rng.randint(3, 9)}, {rng.randint(-3, 2)}{rng.choice(['', ', 1', ', 2'])})"
        if kind == "bad_permutation":
            c = rng.randrange(4)
            if c == 0 and nd >= 2:
                p = list(range(nd))
                p[rng.randrange(nd)] = p[(rng.randrange(nd - 1) + 1 + p[0]) % nd] if nd > 1 else 0
                if len(set(p)) == nd:
                    p[0] = p[1]
                return f"{lhs} = {name}.permute({fmt_shape(rng, p)})"
            if c == 1:
                p = list(range(nd + 1)) if rng.random() < 0.5 else list(range(max(nd - 1, 0)))
                if not p:
                    p = [0, 1]
                return f"{lhs} = {name}.permute({fmt_shape(rng, p, allow_varargs=len(p) > 0)})"
            if c == 2 and nd >= 2:
                return f"{lhs} = {name}.movedim((0, 1), (1, 1))" if rng.random() < 0.5 else f"{lhs} = {name}.movedim((0, 1), (0,))"
            if nd >= 2:
                dd = rng.randrange(nd)
                return f"{lhs} = {name}.diagonal(0, {dd}, {dd})"
            raise Skip
        if kind == "dtype_unsupported":
            if t.dtype in INT_DTYPES:
                return rng.choice([f"{name}.add_(1.5)", f"{name}.mul_(0.5)", f"{name}.add_(1, alpha=0.5)"])
            if t.dtype == torch.bool:
                return rng.choice([f"{name}.add_(1)", f"{name}.mul_(2)", f"{name}.add_(0.5)"])
            if rng.random() < 0.5:
                return f"{name}.add_(1, alpha=True)"
            return f"{lhs} = torch.arange({rng.randint(1, 6)}, dtype=torch.bool)"
        if kind == "assertion_failed":
            wrong = tuple(s + 1 for s in shape) or (1,)
            return f"assert {name}.shape == {wrong}, {name}.shape" if rng.random() < 0.5 else f"assert {name}.stride() == {wrong}"
        if kind == "other":
            if t.dtype in (torch.int8, torch.uint8, torch.int16):
                return f"{name}.fill_({rng.choice([300, 70000, -70000])})"
            if nd >= 1 and rng.random() < 0.5:
                return f"{lhs} = {name}.as_strided(({shape[0] if shape[0] else 1},), (-1,))"
            return f"{lhs} = torch.ones({rng.randint(1, 4)}, dtype=torch.int8).fill_({rng.choice([200, -129, 1000])})"
        raise Skip


def make_empty_filled(b: Builder, stmt: str) -> str | None:
    """torch.empty is followed by a fill of the whole tensor so its values are never read."""
    if "torch.empty(" not in stmt:
        return None
    lhs = stmt.split("=")[0].strip()
    t = b.ns[lhs]
    if t.dtype == torch.bool:
        return f"{lhs}.fill_(True)"
    return f"{lhs}.{b.rng.choice(['fill_(3)', 'zero_()', 'fill_(1)'])}"


def shares_elements_ambiguously(b: Builder, dst_expr: str, src_expr: str) -> bool:
    """copy_/setitem whose source and destination share elements (result is order dependent).

    PyTorch itself refuses some of these (partial overlap of dense tensors); the others give
    values that depend on the copy kernel's iteration order, so they are not golden material.
    Copies where every element lands on itself are kept.
    """
    try:
        dst = b.eval(dst_expr)
        src = b.eval(src_expr)
    except Exception:
        return False  # the statement fails anyway
    if not isinstance(src, torch.Tensor) or dst.numel() == 0:
        return False
    if src.untyped_storage()._cdata != dst.untyped_storage()._cdata:
        return False
    try:
        s = element_offsets(src.expand_as(dst))
    except RuntimeError:
        return False  # not broadcastable: the statement fails anyway
    d = element_offsets(dst)
    if torch.equal(d, s):
        return False  # every element is copied onto itself
    return bool(torch.isin(d, s).any())


def build_program(seed: int) -> tuple[str, str | None]:
    """One random program (its text and the error kind it was built to end with, if any)."""
    rng = random.Random(seed)
    b = Builder(rng)
    n_stmts = rng.randint(3, 8)
    want_error = rng.choice(ERROR_KINDS) if rng.random() < 0.36 else None
    error_at = rng.randint(1, n_stmts - 1) if want_error else None
    guard = error_tries = 0
    while len(b.lines) < n_stmts and guard < 80:
        guard += 1
        i = len(b.lines)
        if want_error and i == error_at and error_tries >= 12:
            want_error = None  # this state cannot fail that way: finish the program normally
        if want_error and i == error_at:
            error_tries += 1
            try:
                stmt = b.stmt_error(want_error)
            except Skip:
                continue
            prefix, last = (stmt.rsplit("\n", 1) + [None])[:2] if "\n" in stmt else (None, stmt)
            if prefix is not None:
                if b.try_stmt(prefix) is not None or not b.values_ok():
                    b.reset()
                    continue
                b.lines.append(prefix)
            msg = b.try_stmt(last)
            if want_error == "assertion_failed" and msg is not None and last.startswith("assert"):
                msg = "assertion_failed"  # matched by kind, not by message
            if msg is None or (msg != "assertion_failed" and error_kind(msg) != want_error):
                if msg is None:
                    b.reset()  # it succeeded: undo it and try another statement
                continue
            b.lines.append(last)
            # statements after the failing one must never run: add a couple
            for _ in range(rng.randint(0, 2)):
                b.lines.append(f"{rng.choice(NAMES)} = torch.zeros({rng.randint(1, 4)})")
            break
        if i == 0 or not b.live() or rng.random() < 0.12:
            kind = "ctor"
        else:
            kind = rng.choices(
                ["view", "inplace", "setitem", "del", "arith", "inplace_tensor", "like", "query", "copy"],
                weights=[40, 16, 14, 5, 18, 8, 5, 8, 12],
            )[0]
        b.copy_pair = None
        try:
            stmt = {
                "ctor": b.constructor,
                "view": b.stmt_view,
                "inplace": b.stmt_inplace,
                "setitem": b.stmt_setitem,
                "del": b.stmt_del,
                "arith": b.stmt_arith,
                "inplace_tensor": b.stmt_inplace_tensor,
                "like": b.stmt_like,
                "query": b.stmt_query,
                "copy": b.stmt_copy,
            }[kind]()
        except Skip:
            continue
        except Exception:
            continue
        if b.copy_pair and shares_elements_ambiguously(b, *b.copy_pair):
            continue
        if b.try_stmt(stmt) is not None:
            continue  # unintended failure: drop the statement
        # torch.empty is filled at once, before any value is looked at (reproducibility)
        fill = make_empty_filled(b, stmt)
        if fill and b.try_stmt(fill) is not None:
            b.reset()
            continue
        if not b.values_ok():
            b.reset()
            continue
        b.lines.append(stmt)
        if fill:
            b.lines.append(fill)
    return "\n".join(b.lines) + "\n", want_error


# --------------------------------------------------------------------------------------------
# Blocks: the same programs with some statements moved into loops, functions and try/except
# --------------------------------------------------------------------------------------------
EXCEPT_CLASSES = ["IndexError", "ValueError", "TypeError", "AssertionError", "RuntimeError"]


def report_ok(report: dict) -> bool:
    """The values of a report stay exact and deterministic (Builder.values_ok on the report)."""
    for t in report["tensors"]:
        if len(t["values"]) > MAX_NUMEL:
            return False
        for v in t["values"]:
            if isinstance(v, str) or abs(v) > 1e6:
                return False
    return True


def indent(block: list[str], pad: str) -> list[str]:
    return [pad + line for line in "\n".join(block).split("\n")]


def try_block(stmt: str, pad: str) -> list[str]:
    """`stmt` inside try, with one handler per class PyTorch raises: the output says which
    class caught it (explain's mapping of its error kinds must agree)."""
    lines = ["try:"] + indent([stmt], pad)
    for cls in EXCEPT_CLASSES:
        lines += [f"except {cls}:", f"{pad}print({cls!r})"]
    return lines


def loop_block(rng: random.Random, stmts: list[str], pad: str) -> list[str]:
    header = rng.choice(["for _i in range({n}):", "for _i in (0,) * {n}:", "for _i, _c in enumerate(range({n})):"])
    body = list(stmts)
    if rng.random() < 0.3:
        body.insert(rng.randrange(len(body) + 1), "# a comment inside the block")
    if rng.random() < 0.3:
        body.append("if _i > 5:\n" + pad + "break")
    return [header.format(n=rng.choice([1, 2, 3]))] + indent(body, pad)


def function_block(rng: random.Random, stmt: str, live: list[str], k: int, pad: str) -> list[str] | None:
    """`NAME = EXPR` as a call of a function that computes EXPR (from its parameter when EXPR
    starts with a live tensor's name, else from the program's globals)."""
    if " = " not in stmt or "\n" in stmt:
        return None
    name, expr = stmt.split(" = ", 1)
    if not name.isidentifier():
        return None
    fn = f"f{k}"
    for base in live:
        if expr.startswith(base + ".") or expr.startswith(base + "["):
            body = ["r = t" + expr[len(base):], "return r"] if rng.random() < 0.5 else ["return t" + expr[len(base):]]
            return [f"def {fn}(t, unused=None):"] + indent(body, pad) + [f"{name} = {fn}({base})"]
    return [f"def {fn}():"] + indent([f"return {expr}"], pad) + [f"{name} = {fn}()"]


def blockify(rng: random.Random, program: str, want_error: str | None) -> str:
    """Moves statements of a straight-line program into blocks, keeping each change only when
    PyTorch runs the new program as intended (same error kind, or none; values still exact)."""
    lines = program.rstrip("\n").split("\n")
    pad = rng.choice(["    ", "    ", "  ", "\t"])
    base = explain(program)
    base_error = base["error"]
    live: list[str] = [t["name"] for t in base["tensors"]]

    def accept(candidate: list[str], expect_error: bool) -> bool:
        text = "\n".join(candidate) + "\n"
        try:
            r = explain(text)
        except Exception:
            return False
        if r != explain(text) or not report_ok(r):
            return False
        if expect_error:
            return r["error"] is not None and r["error"]["kind"] == (base_error or {}).get("kind")
        return r["error"] is None

    # 1. the failing statement inside try/except (the program then runs on)
    if base_error is not None and rng.random() < 0.6:
        i = base_error["statement"]
        candidate = lines[:i] + try_block(lines[i], pad) + lines[i + 1:]
        if accept(candidate, False):
            lines, base_error = candidate, None
    # 2. a run of statements in a loop, 3. a statement as a function call, 4. a loop over
    # live tensors printing their layout (or a comprehension over a dict of them), 5. a
    # statement under `if`/`else`, 6. in a `while` loop
    for k in range(rng.randint(1, 3)):
        top = [i for i, line in enumerate(lines) if line and not line[0].isspace() and not line.startswith(("try:", "except", "for ", "def ", "if ", "else:", "while ", "_n "))]
        if base_error is not None:
            top = [i for i in top if i < len(lines) and i != base_error["statement"]] or top
        if not top:
            break
        i = rng.choice(top)
        what = rng.choice(["loop", "function", "layout", "if", "while"])
        if what == "if" and live:
            cond = f"{rng.choice(live)}.numel() > {rng.randint(0, 30)}"
            other = [rng.choice(["pass", "print('else')"])]
            candidate = lines[:i] + [f"if {cond}:"] + indent([lines[i]], pad) + ["else:"] + indent(other, pad) + lines[i + 1:]
        elif what == "while":
            body = [lines[i], "_n = _n + 1"]
            candidate = lines[:i] + ["_n = 0", f"while _n < {rng.randint(1, 3)}:"] + indent(body, pad) + lines[i + 1:]
        elif what == "loop":
            j = i + 1 if i + 1 in top and rng.random() < 0.5 else i
            candidate = lines[:i] + loop_block(rng, lines[i:j + 1], pad) + lines[j + 1:]
        elif what == "function":
            block = function_block(rng, lines[i], live, k, pad)
            if block is None:
                continue
            candidate = lines[:i] + block + lines[i + 1:]
        else:
            names = rng.sample(live, min(len(live), 2)) if live else []
            if not names:
                continue
            if rng.random() < 0.5:
                body = ["print(t.shape, t.stride(), t.storage_offset(), t.is_contiguous())"]
                candidate = lines[:i + 1] + [f"for t in ({', '.join(names)},):"] + indent(body, pad) + ["del t"] + lines[i + 1:]
            else:
                comp = f"print([(k, t.stride()) for k, t in {{{', '.join(f'{n!r}: {n}' for n in names)}}}.items() if t.dim() > 0], sum(t.numel() for t in ({', '.join(names)},)))"
                candidate = lines[:i + 1] + [comp] + lines[i + 1:]
        if accept(candidate, base_error is not None):
            lines = candidate
    return "\n".join(lines) + "\n"


def random_cases(count: int, first_seed: int) -> list[tuple[str, str]]:
    """`count` random programs with seeds first_seed, first_seed+1, ... (deterministic)."""
    out = []
    seed = first_seed
    while len(out) < count:
        program, want_error = build_program(seed)
        name = f"random_{seed}"
        # about 40% of the programs have blocks (a deterministic choice per seed)
        block_rng = random.Random(seed * 7919 + 1)
        if block_rng.random() < 0.4:
            program = blockify(block_rng, program, want_error)
            name = f"random_blocks_{seed}"
        seed += 1
        # the golden report must be reproducible: run it twice from scratch
        if explain(program) != explain(program):
            continue
        out.append((name, program))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/golden", help="directory for the golden files")
    ap.add_argument("--count", type=int, default=1500, help="number of random programs")
    ap.add_argument("--first-seed", type=int, default=1, help="seed of the first random program")
    ap.add_argument("--autograd-count", type=int, default=600, help="number of random autograd programs")
    args = ap.parse_args()
    torch.manual_seed(0)
    os.makedirs(args.out, exist_ok=True)
    small, large = [], []
    for name, program in SEEDS:
        line = golden_line(name, program)
        (large if len(line) > 200_000 else small).append(line)
    with open(os.path.join(args.out, "seeds.jsonl"), "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in small)
    # mtime=0: the compressed file is byte-for-byte reproducible
    with open(os.path.join(args.out, "large.jsonl.gz"), "wb") as raw:
        with gzip.GzipFile(filename="large.jsonl", mode="wb", fileobj=raw, mtime=0) as gz:
            gz.write("".join(line + "\n" for line in large).encode())
    with open(os.path.join(args.out, "random.jsonl"), "w", encoding="utf-8") as f:
        for name, program in random_cases(args.count, args.first_seed):
            f.write(golden_line(name, program) + "\n")
    with open(os.path.join(args.out, "autograd.jsonl"), "w", encoding="utf-8") as f:
        for name, program in autograd_cases(args.autograd_count, explain):
            f.write(golden_line(name, program) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
