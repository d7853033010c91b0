"""Running a program file under the live tracer: ``python -m stridekit trace PROG.py``."""

from __future__ import annotations

import sys

from .trace_lines import Lines as _Lines
from .trace_lines import error_of as _error_of
from .tracer import Tracer


class _Tee:
    """The program's stdout: written through, and kept for the report's ``output``."""

    def __init__(self, out, keep):
        self._out, self._keep = out, keep

    def write(self, s):
        self._keep.append(s)
        return self._out.write(s)

    def flush(self):
        return self._out.flush()

    def __getattr__(self, name):
        return getattr(self._out, name)


def run_file(path: str, argv: list[str], tracer: Tracer, init_globals: dict | None = None) -> int:
    """Runs `path` as ``__main__`` with `argv` under `tracer`; returns its exit status (1
    when it raised, its own for SystemExit). `init_globals`: names the program finds bound
    (as runpy's)."""
    import os
    import types

    with open(path, "rb") as f:
        source_bytes = f.read()
    source = source_bytes.decode("utf-8")
    filename = os.path.abspath(path)
    code = compile(source_bytes, filename, "exec")
    lines = _Lines(source)
    module = types.ModuleType("__main__")
    module.__file__ = filename
    module.__builtins__ = __builtins__
    if init_globals:
        module.__dict__.update(init_globals)
    saved_main = sys.modules.get("__main__")
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.modules["__main__"] = module
    sys.argv = [path] + list(argv)
    if sys.path:
        sys.path[0] = os.path.dirname(filename)
    status = 0
    stdout = sys.stdout
    sys.stdout = _Tee(stdout, tracer._output)

    def body():
        # The program's module frame is made by exec: found as its code starts.
        tracer._start(None, filename, lines, True, root_code=code)
        exec(code, module.__dict__)

    try:
        body()
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # the program's exception: into the report
        tracer._error = _error_of(e, filename, lines, tracer._statement)
        status = 1
    finally:
        sys.stdout = stdout
        try:
            tracer._stop()
        except Exception as e:
            tracer._failed(e)
        sys.modules["__main__"] = saved_main
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0
    tracer._module = module  # keeps the namespace for the report
    return status
