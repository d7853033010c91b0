"""Deliberately invalid statements, one per error kind."""

from __future__ import annotations

import torch
from .vocabulary import fmt_shape, INT_DTYPES, Skip


class ErrorStatements:
    """Builder's statements meant to fail with a given error kind."""

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
