"""The tracer's view of autograd: the Python numbers the graph saves, and PyTorch's version
check kept under the tracer's saved-tensor hooks (python/stridekit/trace_saved.py)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
import stridekit  # noqa: E402
from stridekit.trace_run import Tracer, run_file  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _trace(tmp_path, source, device="cpu"):
    p = tmp_path / "prog.py"
    p.write_text(textwrap.dedent(source))
    t = Tracer(device)
    status = run_file(str(p), [], t)
    return status, t.to_json()


def _plain(tmp_path, source):
    p = tmp_path / "plain.py"
    p.write_text(textwrap.dedent(source))
    return subprocess.run([sys.executable, str(p)], capture_output=True, text=True)


WRAPPED = """\
import torch
x = torch.ones(3, requires_grad=True)
y = x * 2.0
z = (x + 1).pow(3)
"""


def test_saved_python_numbers_are_listed_as_the_graph_holds_them(tmp_path):
    status, rep = _trace(tmp_path, WRAPPED)
    assert status == 0
    saved = {s["grad_fn"]: s for s in rep["autograd"]["saved_tensors"]}
    # The graph's own: MulBackward0 keeps the wrapped 2.0 (a 0-dim float64 tensor, which
    # SavedVariable stores without the hooks); pow's exponent 3 is a Python int, no tensor.
    ns = {}
    exec(WRAPPED, ns)
    other = ns["y"].grad_fn._saved_other
    assert other.dim() == 0 and other.dtype == torch.float64
    s = saved["MulBackward0._saved_other"]
    assert (s["shape"], s["strides"], s["bytes"], s["storage_nbytes"], s["storage"]) == (
        [], [], other.element_size(), other.untyped_storage().nbytes(), None)
    assert set(saved) == {"MulBackward0._saved_other", "PowBackward0._saved_self"}
    assert rep["autograd"]["saved_storage_bytes"] == 12 + 8
    # explain lists the same (one accounting).
    exp = stridekit.explain(WRAPPED.replace("import torch\n", ""))
    key = lambda s: (s["grad_fn"], s["shape"], s["bytes"], s["storage_nbytes"])  # noqa: E731
    assert sorted(map(key, rep["autograd"]["saved_tensors"])) == sorted(map(key, exp["autograd"]["saved_tensors"]))
    assert rep["autograd"]["saved_storage_bytes"] == exp["autograd"]["saved_storage_bytes"]


def test_saved_python_numbers_are_no_cuda_requests(tmp_path):
    _, rep = _trace(tmp_path, WRAPPED, "sim")
    # x, y, z, the saved x + 1: four 512-byte blocks; the wrapped number is a host scalar.
    assert rep["allocator"]["allocated_bytes.all.current"] == 4 * 512


VERSION_PROGRAMS = {
    "saved_output": """\
        import torch
        x = torch.ones(3, requires_grad=True)
        e = x.exp()
        e.add_(1)
        e.sum().backward()
        """,
    "saved_leaf_no_grad": """\
        import torch
        x = torch.ones(3, requires_grad=True)
        q = x * x
        with torch.no_grad():
            x.mul_(2)
        q.sum().backward()
        """,
    # A saved input modified by an in-place op: PyTorch names its grad_fn now (AddBackward0).
    "saved_input_caught": """\
        import torch
        w = torch.ones(2, 3, requires_grad=True)
        y = w * 2
        z = y * y
        y.add_(1)
        try:
            z.sum().backward()
        except RuntimeError as err:
            print(str(err))
        """,
    "anomaly_hint": """\
        import torch
        torch.autograd.set_detect_anomaly(True)
        x = torch.ones(2, requires_grad=True)
        e = x.exp()
        e.mul_(2)
        try:
            e.sum().backward()
        except RuntimeError as err:
            print(str(err).splitlines()[-1])
        """,
    "unchanged_runs": """\
        import torch
        x = torch.ones(3, requires_grad=True)
        y = (x * x).exp()
        y.sum().backward()
        print(x.grad.tolist())
        """,
}


@pytest.mark.parametrize("name", sorted(VERSION_PROGRAMS))
def test_version_check_kept_under_the_tracers_hooks(tmp_path, name):
    src = VERSION_PROGRAMS[name]
    plain = _plain(tmp_path, src)
    p = tmp_path / "prog.py"
    p.write_text(textwrap.dedent(src))
    r = subprocess.run([sys.executable, "-m", "stridekit", "trace", "--json", str(tmp_path / "rep.json"), str(p)],
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == plain.returncode, (r.stderr[-2000:], plain.stderr[-2000:])
    assert r.stdout == plain.stdout
    rep = json.loads((tmp_path / "rep.json").read_text())
    if plain.returncode:
        want = plain.stderr.strip().splitlines()[-1]
        assert rep["error"]["class"] == "RuntimeError"
        assert want == "RuntimeError: " + rep["error"]["message"]
    else:
        assert rep["error"] is None


def test_version_error_message_word_for_word(tmp_path):
    from stridekit.trace_saved import Packed, version_error

    x = torch.ones(2, 3, requires_grad=True)
    y = x * 2
    p = Packed(y)
    assert version_error(p) is None
    with torch.no_grad():
        y.add_(1)
    assert version_error(p) == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [2, 3]], which is output 0 of MulBackward0, is at version 1; "
        "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _backward_allocations(mode):
    """The CPU allocator's events (bytes, + allocated, - freed) of `(x * x).sum().backward()`,
    from torch.profiler, with or without a TorchDispatchMode that only calls each op."""
    from torch.profiler import ProfilerActivity, profile
    from torch.utils._python_dispatch import TorchDispatchMode

    class Passthrough(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, acc_events=True) as p:
        if mode:
            with Passthrough():
                y.backward()
        else:
            y.backward()
    events, todo = [], list(p.profiler.kineto_results.experimental_event_tree())
    while todo:
        e = todo.pop()
        if type(e.extra_fields).__name__ == "_ExtraFields_Allocation":
            events.append((e.start_time_ns, e.extra_fields.alloc_size))
        todo += e.children
    return [b for _, b in sorted(events)]


def test_a_dispatch_mode_defeats_the_engines_in_place_accumulation():
    # trace_sim_divergences.txt class T2: bare, PyTorch adds x's second gradient into the
    # first (the ones, two products, one freed, the ones freed), as explain models it; under
    # any dispatch mode (the tracer's included) each output's Python object counts as a
    # reference, so the engine sums out of place (a third block).
    assert _backward_allocations(False) == [4, 8, 8, -8, -4]
    assert _backward_allocations(True) == [4, 8, 8, 8, -8, -8, -4]


def _allocated(rep):
    return [(s["allocator"]["allocated_bytes.all.current"], s["allocator"]["allocated_bytes.all.peak"]) for s in rep["steps"]]


T2_PROGRAM = """\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
y.backward()
"""


def test_backward_is_traced_as_pytorch_runs_it_bare(tmp_path):
    # trace_backward.py: the engine runs without the dispatch mode, so x's second gradient
    # is added into the first in place (as bare, the test above): the ones (512), two
    # products (1024) on top of x and y (1024): peak 2560, not the out-of-place 3072; then
    # the ones and one product freed, x.grad (512) kept.
    status, rep = _trace(tmp_path, T2_PROGRAM, "sim")
    assert status == 0
    assert _allocated(rep)[-1] == (1536, 2560)
    exp = stridekit.explain(T2_PROGRAM, device="sim")
    assert _allocated(rep) == _allocated(exp)
    assert not any("could not be found" in n for n in rep["notes"])


def test_storages_made_by_backward_keep_their_identity(tmp_path):
    # grad's results and .grad are made while the mode is off: the tracer finds their
    # storages after the engine returns, so their ends are seen (`del gx`, `x.grad = None`).
    src = """\
    import torch
    x = torch.ones(256, requires_grad=True)
    w = torch.ones(256, requires_grad=True)
    y = (x * w).sum()
    gx, = torch.autograd.grad(y, [x], retain_graph=True)
    del gx
    y.backward()
    x.grad = None
    """
    status, rep = _trace(tmp_path, src, "sim")
    assert status == 0
    cur = [c for c, _ in _allocated(rep)]
    # x, w (1024 each), y (512); gx 1024; both .grad 2048; x.grad freed.
    assert cur[3:] == [2560, 3584, 2560, 4608, 3584]
    assert not any("could not be found" in n for n in rep["notes"])
    named = {t["name"]: t for t in rep["tensors"]}
    assert named["x"]["storage"] != named["w"]["storage"]


def test_backward_under_the_programs_own_profiler(tmp_path):
    # One profiler at a time: under the program's own, backward runs under the mode (the
    # T2 figures) and the program's profiler still sees its events.
    src = """\
    import torch
    from torch.profiler import profile, ProfilerActivity
    x = torch.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, acc_events=True) as p:
        y.backward()
    n = sum(1 for e in p.events() if e.name == "aten::mul")
    print(n)
    """
    status, rep = _trace(tmp_path, src, "sim")
    assert status == 0
    assert int(rep["output"].split()[-1]) >= 2
    assert _allocated(rep)[-1][1] == 3072
