"""Blocks: the same programs with some statements moved into loops, functions and try/except."""

from __future__ import annotations

import random
from torch_golden import explain
from .vocabulary import MAX_NUMEL


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

