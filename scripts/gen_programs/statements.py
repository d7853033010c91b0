"""The valid statements: views, in-place ops, copies, element-wise arithmetic, constructors from
tensors, queries, indexed assignment and `del`."""

from __future__ import annotations

import torch
from .vocabulary import (
    ALL_DTYPES, dt, FLOAT_DTYPES, fmt_shape, INT_DTYPES, is_float, literal_values, nested,
    numel_of, random_shape, scalar_for, Skip,
)


class Statements:
    """Builder's valid statement kinds."""

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

