"""The program's own lines for the live tracer (python/stridekit/tracer.py): which simple
statement each line belongs to (explain's steps), the top-level statement it is in, and
where an exception stopped the program."""

from __future__ import annotations

import ast

# Frames of the program's file that are expressions, not statements.
EXPRESSION_FRAMES = {"<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}
# Statements that end no step (as in explain).
_NO_STEP = (ast.Return, ast.Break, ast.Continue, ast.Raise)
_COMPOUND = (
    ast.If, ast.For, ast.While, ast.Try, ast.With, ast.AsyncFor, ast.AsyncWith,
    ast.AsyncFunctionDef,
) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ()) + ((ast.Match,) if hasattr(ast, "Match") else ())


class Lines:
    """The statements of one source file: for each line, the simple statement it belongs
    to (its first line; None on a compound statement's header) and the top-level
    statement's index."""

    def __init__(self, source: str, body_of=None):
        tree = ast.parse(source)
        body = tree.body
        if body_of is not None:
            body = body_of(tree) or body
        self.stmt: dict[int, int | None] = {}
        self.top: dict[int, int] = {}
        self.no_step: set[int] = set()
        self.sources: dict[int, str] = {}
        # Lines holding more than one simple statement (`a = 1; b = 2`): the top-level
        # index of each, in order (line events cannot tell them apart: each is a step
        # measured at the end of the line).
        self.multi: dict[int, list[int]] = {}
        # (line, col, end_line, end_col) of every statement, for an error's position.
        self.spans: list[tuple[int, int, int, int]] = []
        lines = source.splitlines()

        def mark(node, top):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                end = node.body[0].lineno - 1 if node.body else node.end_lineno
                for ln in range(first, max(end, node.lineno) + 1):
                    self.stmt[ln] = first
                    self.top.setdefault(ln, top)
                self.sources[first] = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
                for child in node.body:
                    mark(child, top)
                return
            if isinstance(node, _COMPOUND):
                children = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
                for h in getattr(node, "handlers", []):
                    children += h.body
                    self.stmt[h.lineno] = None
                    self.top.setdefault(h.lineno, top)
                first_child = min((c.lineno for c in children), default=node.end_lineno + 1)
                for ln in range(node.lineno, first_child):
                    self.stmt[ln] = None
                    self.top.setdefault(ln, top)
                for c in children:
                    mark(c, top)
                for c in getattr(node, "orelse", []) + getattr(node, "finalbody", []):
                    # `else:` / `finally:` lines are headers
                    pass
                return
            self.spans.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
            if self.stmt.get(node.lineno) is not None and node.lineno in self.sources:
                first = self.stmt[node.lineno]
                self.multi.setdefault(first, [self.top[first]]).append(top)
                for ln in range(node.lineno, node.end_lineno + 1):
                    self.stmt[ln] = first
                if node.end_lineno > node.lineno:
                    pass
                return
            for ln in range(node.lineno, node.end_lineno + 1):
                self.stmt[ln] = node.lineno
                self.top[ln] = top
            self.sources[node.lineno] = " ".join(
                l.strip() for l in lines[node.lineno - 1 : node.end_lineno]
            )
            if isinstance(node, _NO_STEP):
                self.no_step.add(node.lineno)

        for i, node in enumerate(body):
            mark(node, i)


def error_of(exc, filename, lines, statement):
    """(statement, line, col, class, message) of an exception: the innermost statement of
    the deepest frame of the program's own file that is not a lambda's or a
    comprehension's (as explain), and the top-level statement running then."""
    pos = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename and code.co_name not in EXPRESSION_FRAMES:
            line, col = tb.tb_lineno, 0
            try:
                p = list(code.co_positions())[tb.tb_lasti // 2]
                line, col = p[0] or line, p[2] or 0
            except Exception:
                pass
            pos = (line, col)
            if lines is not None and code.co_name == "<module>":
                statement = lines.top.get(line, statement)
        tb = tb.tb_next
    line, col = (pos[0], pos[1] + 1) if pos else (0, 0)
    if pos is not None and lines is not None:
        best = None
        for sl, sc, el, ec in lines.spans:
            if (sl, sc) <= pos <= (el, ec) and (best is None or (sl, sc) >= best):
                best = (sl, sc)
        if best is not None:
            line, col = best[0], best[1] + 1
    cls = type(exc)
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    return (statement, line, col, name, str(exc))
