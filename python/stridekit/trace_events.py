"""The program's line events for the live tracer (python/stridekit/tracer.py).

Two mechanisms give the same events to one step logic (:class:`FrameTracer`):

- ``sys.monitoring`` (PEP 669) on Python 3.12 and later: a tool id (``DEBUGGER_ID``, else a
  free one; freed when the trace stops), ``PY_START``/``PY_RESUME``/``PY_THROW`` enabled
  globally only to find the code objects of the program's own file as they start (every
  other code object answers ``DISABLE`` to PY_START/PY_RESUME and is not seen again),
  ``LINE``, ``PY_RETURN``, ``PY_YIELD`` enabled as local events on those code objects alone,
  and ``RAISE``, ``PY_UNWIND`` globally (they cannot be local events; other code objects'
  are ignored). Monitoring is process-wide: events from any thread but the one that started the
  trace are ignored, as the settrace path sees only that thread (its trace function is per
  thread; ``threading.settrace`` is not used);
- ``sys.settrace`` before 3.12, when every tool id is taken (a note in the report says so),
  or under ``STRIDEKIT_TRACE_LINES=settrace`` (a private switch for comparing the two).
"""

from __future__ import annotations

import os
import sys
import threading

from .trace_lines import EXPRESSION_FRAMES


def mechanism() -> str:
    """The mechanism a trace started now would ask for: "monitoring" or "settrace"."""
    if sys.version_info < (3, 12) or os.environ.get("STRIDEKIT_TRACE_LINES") == "settrace":
        return "settrace"
    return "monitoring"


class FrameTracer:
    """The step state of one running frame of the program's file (the statement whose end
    is pending). It keeps no reference to the frame (under settrace the frame's `f_trace`
    refers to it: a reference back would make a cycle that keeps every local of a returned
    function alive until the garbage collector runs)."""

    __slots__ = ("tracer", "pending", "is_root")

    def __init__(self, tracer, is_root):
        self.tracer, self.pending, self.is_root = tracer, None, is_root

    def __call__(self, frame, event, arg):
        """The settrace local trace function."""
        if not self.tracer._active:
            return None
        if event == "line":
            self.line(frame, frame.f_lineno)
        elif event == "exception":
            self.pending = None
        elif event == "return":
            self.returned(frame)
        return self

    def line(self, frame, lineno):
        t = self.tracer
        try:
            lines = t._lines
            stmt = lines.stmt.get(lineno)
            if self.is_root and lineno in lines.top:
                t._statement = lines.top[lineno]
            if stmt != self.pending:
                self.end(frame)
                self.pending = stmt
            t._line = stmt or lineno
        except Exception as e:  # the tracer's failure never stops the program
            t._failed(e)

    def returned(self, frame):
        try:
            self.end(frame)
        except Exception as e:
            self.tracer._failed(e)
        self.pending = None

    def end(self, frame):
        p = self.pending
        if p is None or p in self.tracer._lines.no_step:
            return
        self.tracer._step(p, frame, self.is_root)


class LineEvents:
    """Feeds the line events of `tracer._filename` to FrameTracers while the trace runs.
    `root_frame`: the running frame whose lines are the top-level statements (a ``with``
    block); else `root_code`: the code whose first call is that frame (a program file)."""

    def __init__(self, tracer, root_frame, root_code):
        self.tracer = tracer
        self.root_frame, self.root_code = root_frame, root_code
        self.root = FrameTracer(tracer, True)
        self.kind = mechanism()
        self.tool = None
        self._codes = []
        self._stack = []

    def start(self):
        if self.kind == "monitoring" and not self._start_monitoring():
            self.kind = "settrace"
            self.tracer._notes.append(
                "line events through sys.settrace: every sys.monitoring tool id was taken"
            )
        if self.kind == "settrace":
            self._start_settrace()

    def stop(self):
        if self.kind == "settrace":
            sys.settrace(self._prev_trace)
            if self.root_frame is not None:
                self.root_frame.f_trace = None
            return
        mon = sys.monitoring
        try:
            mon.set_events(self.tool, 0)
            for code in self._codes:
                mon.set_local_events(self.tool, code, 0)
            for ev in self._callbacks:
                mon.register_callback(self.tool, ev, None)
        finally:
            mon.free_tool_id(self.tool)
            self._codes, self._stack = [], []

    # ---- sys.settrace ----------------------------------------------------------------
    def _global(self, frame, event, arg):
        t = self.tracer
        if event != "call" or frame.f_code.co_filename != t._filename:
            return None
        if frame.f_code.co_name in EXPRESSION_FRAMES:
            return None
        return FrameTracer(t, False)

    def _start_settrace(self):
        self._prev_trace = sys.gettrace()
        if self.root_frame is not None:
            sys.settrace(self._global)
            self.root_frame.f_trace = self.root
            return
        root_code = self.root_code

        def root_hook(frame, event, arg):
            # The program's module frame is made by exec: it is found by its 'call' event.
            if event == "call" and frame.f_code is root_code:
                self.tracer._root = frame
                sys.settrace(self._global)
                return self.root
            return self._global(frame, event, arg)

        sys.settrace(root_hook)

    # ---- sys.monitoring ----------------------------------------------------------------
    def _start_monitoring(self) -> bool:
        mon = sys.monitoring
        for tool in (mon.DEBUGGER_ID, 3, 4):
            try:
                mon.use_tool_id(tool, "stridekit trace")
            except ValueError:
                continue
            self.tool = tool
            break
        else:
            return False
        ev = mon.events
        tracer, stack, codes = self.tracer, self._stack, self._codes
        filename, root_code = tracer._filename, self.root_code
        main = threading.get_ident()
        get_ident, getframe, DISABLE = threading.get_ident, sys._getframe, mon.DISABLE
        local = ev.LINE | ev.PY_RETURN | ev.PY_YIELD
        seen = set()
        state = {"root": self.root_frame is not None}

        def instrument(code):
            if id(code) not in seen:
                seen.add(id(code))
                codes.append(code)  # kept: the ids in `seen` stay unique
                mon.set_local_events(self.tool, code, local)

        # Each callback reads its frame as sys._getframe(1): the frame that ran the event.
        def started(code, offset):
            if code.co_filename != filename or code.co_name in EXPRESSION_FRAMES:
                return DISABLE
            if get_ident() != main or not tracer._active:
                return None
            if not state["root"] and code is root_code:
                state["root"] = True
                tracer._root = getframe(1)
                ft = self.root
            else:
                ft = FrameTracer(tracer, False)
            instrument(code)
            stack.append(ft)
            return None

        def thrown(code, offset, exc):  # an event DISABLE cannot answer
            if code.co_filename == filename and code.co_name not in EXPRESSION_FRAMES:
                started(code, offset)

        def line(code, lineno):
            if get_ident() == main and stack and tracer._active:
                stack[-1].line(getframe(1), lineno)

        # RAISE and PY_UNWIND cannot be local events: they come from every code object.
        def raised(code, offset, exc):
            if id(code) in seen and get_ident() == main and stack:
                stack[-1].pending = None

        def unwound(code, offset, exc):
            if id(code) in seen:
                returned(code, offset, exc)

        def returned(code, offset, arg):
            if get_ident() == main and stack:
                ft = stack.pop()
                if tracer._active:
                    ft.returned(getframe(1))

        self._callbacks = {
            ev.PY_START: started, ev.PY_RESUME: started, ev.PY_THROW: thrown, ev.LINE: line,
            ev.RAISE: raised, ev.PY_RETURN: returned, ev.PY_YIELD: returned, ev.PY_UNWIND: unwound,
        }
        for e, f in self._callbacks.items():
            mon.register_callback(self.tool, e, f)
        # A DISABLE answered to an earlier trace (another program file) would hide this
        # file's code objects.
        mon.restart_events()
        if self.root_frame is not None:
            instrument(self.root_frame.f_code)
            stack.append(self.root)
        mon.set_events(self.tool, ev.PY_START | ev.PY_RESUME | ev.PY_THROW | ev.RAISE | ev.PY_UNWIND)
        return True
