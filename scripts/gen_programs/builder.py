"""The program builder: its live state (names, the namespace the program runs in), the guards
that keep values exact, and the constructors; the statement kinds come from the mixins."""

from __future__ import annotations

import contextlib
import io
import random

import torch

from .errors import ErrorStatements
from .statements import Statements
from .views import ViewOps
from .vocabulary import (
    ALL_DTYPES, dt, FLOAT_DTYPES, fmt_shape, INT_DTYPES, INT_RANGE, is_float, literal_values,
    MAX_NUMEL, NAMES, nested, numel_of, random_shape, scalar_for, Skip,
)


class Builder(ViewOps, Statements, ErrorStatements):
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

