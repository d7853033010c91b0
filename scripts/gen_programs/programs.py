"""Whole random programs: statement by statement under torch, with the fills and overlap
guards they need, and the reproducible list of random cases (some moved into blocks)."""

from __future__ import annotations

import random

import torch
from torch_golden import element_offsets, error_kind, explain
from .blocks import blockify
from .builder import Builder
from .vocabulary import ERROR_KINDS, NAMES, Skip


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
