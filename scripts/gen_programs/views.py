"""View and copy ops on an expression: the ops a tensor allows, index and slice text, chains."""

from __future__ import annotations

import torch
from .vocabulary import ALL_DTYPES, dt, factorizations, fmt_shape, MAX_NUMEL, Skip


class ViewOps:
    """Builder's view and copy ops, over its state (`rng`, `ns`, `eval`, `live`) and guards."""

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

