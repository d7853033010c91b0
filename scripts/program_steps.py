"""What a step of `stridekit explain` is, for the scripts that measure PyTorch step by step.

A step is a simple statement of the program's own code that ran to completion: at the top
level or inside `if`/`for`/`while`/`try` blocks (not inside function bodies), once per time it
ran; a line lists at most PER_LINE steps (stridekit's `steps::PER_LINE`). `instrument` adds a
call of STEP_FN(line) after each such statement of a top-level block; the caller records the
step after every top-level statement that is not a block. No torch import: the allocator
script uses this without PyTorch.
"""

from __future__ import annotations

import ast

# A line lists at most this many steps; later runs are measured for the peak and counted in
# `steps_omitted`.
PER_LINE = 100

# Blocks whose bodies hold steps (a block's header is not a step of its own).
BLOCKS = (ast.If, ast.For, ast.While, ast.Try, ast.With)
# Statements that end no step (they never complete normally).
JUMPS = (ast.Break, ast.Continue, ast.Return, ast.Raise)
STEP_FN = "__stridekit_step__"
# Frames of expressions, not statements: an error inside one belongs to the statement of the
# frame that called it.
EXPRESSION_FRAMES = ("<lambda>", "<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>")


def instrument(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`stmts` with a call of STEP_FN(line) after every simple statement that can complete,
    inside blocks too (not inside function bodies: their statements are not steps)."""
    out: list[ast.stmt] = []
    for s in stmts:
        out.append(s)
        if isinstance(s, BLOCKS):
            s.body = instrument(s.body)
            if not isinstance(s, ast.With):
                s.orelse = instrument(s.orelse)
            if isinstance(s, ast.Try):
                s.finalbody = instrument(s.finalbody)
                for h in s.handlers:
                    h.body = instrument(h.body)
        elif not isinstance(s, JUMPS):
            call = ast.Expr(ast.Call(ast.Name(STEP_FN, ast.Load()), [ast.Constant(s.lineno)], []))
            out.append(ast.fix_missing_locations(ast.copy_location(call, s)))
    return out


