"""The random programs' vocabulary: dtypes and their spellings, value ranges, names, error
kinds, and the helpers that write shapes, scalars and literal values."""

from __future__ import annotations

import random

import torch


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
