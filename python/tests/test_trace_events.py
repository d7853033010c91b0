"""Which mechanism gives the tracer the program's lines (python/stridekit/trace_events.py):
sys.monitoring on 3.12 and later, sys.settrace before, and the same report from both."""

import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
import stridekit  # noqa: E402
from stridekit import trace_events  # noqa: E402
from stridekit.trace_run import Tracer, run_file  # noqa: E402

MONITORING = sys.version_info >= (3, 12)
needs_monitoring = pytest.mark.skipif(not MONITORING, reason="sys.monitoring is Python 3.12+")

# Prints what is installed while the program runs: the tool using DEBUGGER_ID, or whether a
# trace function is set.
PROBE = """\
import sys
import torch
x = torch.ones(3)
if hasattr(sys, "monitoring"):
    print("tool", sys.monitoring.get_tool(sys.monitoring.DEBUGGER_ID))
print("settrace", sys.gettrace() is not None)
"""

PROGRAMS = {
    "functions": """\
        import torch
        def f(x):
            y = x * 2
            z = y + 1
            return z
        def g(n):
            for i in range(n):
                w = torch.ones(i + 1)
                yield w
        a = torch.ones(4)
        b = f(a)
        c = [t.sum() for t in g(3)]
        d = f(f(b))
        h = (lambda q: q + 1)(a); k = a * 3
    """,
    "exceptions": """\
        import torch
        def bad(x):
            y = x + 1
            return y @ torch.ones(5)
        a = torch.ones(2)
        try:
            b = bad(a)
        except RuntimeError:
            e = torch.zeros(1)
        for i in range(3):
            try:
                if i == 1:
                    raise ValueError(i)
                m = a * i
            except ValueError:
                continue
        def gen():
            try:
                yield torch.ones(1)
            except KeyError:
                yield torch.ones(2)
        it = gen()
        first = next(it)
        second = it.throw(KeyError("k"))
        z = bad(a)
    """,
    "threads": """\
        import threading
        import torch
        def work():
            u = torch.ones(8)
            v = u * 2
        th = threading.Thread(target=work)
        th.start()
        th.join()
        work()
        r = torch.arange(4.0)
    """,
}


def run(tmp_path, source, monkeypatch, lines, **options):
    if lines is None:
        monkeypatch.delenv("STRIDEKIT_TRACE_LINES", raising=False)
    else:
        monkeypatch.setenv("STRIDEKIT_TRACE_LINES", lines)
    p = tmp_path / "prog.py"
    p.write_text(textwrap.dedent(source))
    t = Tracer(**options)
    status = run_file(str(p), [], t)
    return status, t


def test_the_mechanism_of_the_running_version(tmp_path, monkeypatch):
    status, t = run(tmp_path, PROBE, monkeypatch, None)
    assert status == 0
    out = t.to_json()["output"]
    if MONITORING:
        assert trace_events.mechanism() == "monitoring"
        assert t._events.kind == "monitoring"
        assert "tool stridekit trace\nsettrace False\n" in out
        # The tool id is freed when the trace stops.
        assert sys.monitoring.get_tool(sys.monitoring.DEBUGGER_ID) is None
    else:
        assert trace_events.mechanism() == "settrace"
        assert t._events.kind == "settrace"
        assert out == "settrace True\n"
    # `if` is a header, no step; the print inside it is one where monitoring exists.
    assert [s["line"] for s in t.to_json()["steps"]] == ([1, 2, 3, 5, 6] if MONITORING else [1, 2, 3, 6])


@needs_monitoring
def test_the_switch_forces_settrace(tmp_path, monkeypatch):
    status, t = run(tmp_path, PROBE, monkeypatch, "settrace")
    assert status == 0
    assert t._events.kind == "settrace"
    assert t.to_json()["output"] == "tool None\nsettrace True\n"


@needs_monitoring
@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("device", ["cpu", "sim"])
def test_monitoring_and_settrace_give_the_same_report(tmp_path, monkeypatch, name, device):
    reports = []
    for lines in (None, "settrace"):
        status, t = run(tmp_path, PROGRAMS[name], monkeypatch, lines, device=device)
        reports.append((status, t._events.kind, t.to_json(), t.report()))
    (s1, k1, j1, r1), (s2, k2, j2, r2) = reports
    assert (k1, k2) == ("monitoring", "settrace")
    assert len(j1["steps"]) >= 5
    assert (s1, j1, r1) == (s2, j2, r2)


def _helper(x):
    y = x * 2
    return y


def _block(monkeypatch, lines):
    if lines is None:
        monkeypatch.delenv("STRIDEKIT_TRACE_LINES", raising=False)
    else:
        monkeypatch.setenv("STRIDEKIT_TRACE_LINES", lines)
    with stridekit.trace() as t:
        a = torch.ones(3)
        b = _helper(a)
        c = b + a
    assert c.shape == (3,)
    return t


@needs_monitoring
def test_a_with_block_gives_the_same_report(monkeypatch):
    t1, t2 = _block(monkeypatch, None), _block(monkeypatch, "settrace")
    assert (t1._events.kind, t2._events.kind) == ("monitoring", "settrace")
    j1, j2 = t1.to_json(), t2.to_json()
    first = _block.__code__.co_firstlineno
    # a = ..., b = ..., c = ... (the steps are the block's statements: _helper's lines are
    # outside it, its frame's events must not end a step of the block)
    assert [s["line"] for s in j1["steps"]] == [first + 6, first + 7, first + 8]
    assert j1 == j2


@needs_monitoring
def test_settrace_when_every_tool_id_is_taken(tmp_path, monkeypatch):
    mon = sys.monitoring
    taken = []
    for tool in (mon.DEBUGGER_ID, 3, 4):
        if mon.get_tool(tool) is None:
            mon.use_tool_id(tool, "test")
            taken.append(tool)
    try:
        status, t = run(tmp_path, PROGRAMS["functions"], monkeypatch, None)
    finally:
        for tool in taken:
            mon.free_tool_id(tool)
    assert status == 0
    assert t._events.kind == "settrace"
    j = t.to_json()
    assert "line events through sys.settrace: every sys.monitoring tool id was taken" in j["notes"]
    _, t2 = run(tmp_path, PROGRAMS["functions"], monkeypatch, "settrace")
    assert j["steps"] == t2.to_json()["steps"]
