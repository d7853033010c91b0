"""The CUDA allocator predicted from a CPU run (`trace --device sim`) against figures PyTorch
recorded on a GPU (python/tests/data/h200_trace_cuda.json, see data/README.md), and the
cuBLAS/cuBLASLt workspace model (cuda_rules.BlasWorkspaces) that prediction and
`--device cuda` share."""

import importlib.util
import json
import os
import textwrap

import pytest

torch = pytest.importorskip("torch")
from stridekit import cuda_rules  # noqa: E402
from stridekit.trace_run import Tracer, run_file  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
MIB = 1 << 20


@pytest.fixture
def clean_env(monkeypatch):
    """The environment as in the recorded run: conftest.py unsets what PyTorch reads for its
    workspaces and the allocator's settings for every test; this hands the monkeypatch on."""
    return monkeypatch


def _h200():
    with open(os.path.join(HERE, "data", "h200_trace_cuda.json")) as f:
        return json.load(f)


def _sim(tmp_path, source, **options):
    p = tmp_path / "prog.py"
    p.write_text(textwrap.dedent(source))
    t = Tracer("sim", **options)
    assert run_file(str(p), [], t) == 0
    return t.to_json()


def _figures(rep):
    return [(s["line"], s["allocator"]["allocated_bytes.all.current"], s["allocator"]["reserved_bytes.all.current"])
            for s in rep["steps"]]


def _check_script():
    path = os.path.join(ROOT, "scripts", "trace_cuda_check.py")
    spec = importlib.util.spec_from_file_location("trace_cuda_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_recorded_program_is_the_gpu_checks():
    assert _check_script().PROG == _h200()["program"]


def test_the_gpu_checks_rule_passes_the_prediction_and_fails_a_wrong_one(tmp_path, clean_env):
    # scripts/trace_cuda_check.py's rule, on the recorded figures: the CPU prediction passes;
    # one with host step counters fails at each of the 12 steps after the first opt.step().
    check, data = _check_script(), _h200()
    measured = [(s["line"], {"allocated_bytes.all.current": s["allocated"], "reserved_bytes.all.current": s["reserved"]})
                for s in data["steps"]]
    assert check.differences(measured, _sim(tmp_path, data["program"], step_counters="device")) == []
    host = check.differences(measured, _sim(tmp_path, data["program"]))
    assert len(host) == 12 and all("allocated_bytes.all.current" in x and "(-2048)" in x for x in host), host
    assert host[0] == "step 7 (line 9) allocated_bytes.all.current: PyTorch 202721792, predicted 202719744 (-2048)"
    short = {"steps": _sim(tmp_path, data["program"], step_counters="device")["steps"][:-1]}
    assert check.differences(measured, short)[0].startswith("the steps differ")
    if not torch.cuda.is_available():
        import subprocess
        import sys

        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "trace_cuda_check.py")],
                           capture_output=True, text=True)
        assert r.returncode == 2 and "no CUDA device" in r.stdout, r.stdout + r.stderr


def test_h200_figures_predicted_exactly_from_a_cpu_run(tmp_path, clean_env):
    # The recording ran with cuda:0 as the default device, so AdamW's step counters were CUDA
    # tensors: step_counters="device" predicts that run. Exact at every step, both figures.
    data = _h200()
    rep = _sim(tmp_path, data["program"], step_counters="device")
    want = [(s["line"], s["allocated"], s["reserved"]) for s in data["steps"]]
    assert _figures(rep) == want
    assert any("cuBLAS 33554432 bytes (main thread), cuBLASLt 1048576 bytes (main thread), "
               "cuBLAS 33554432 bytes (autograd thread)" in n for n in rep["notes"]), rep["notes"]


def test_host_step_counters_are_the_only_difference(tmp_path, clean_env):
    # A model moved with .to(device) keeps the 4 counters on the host: 4 x 512 bytes fewer
    # from the first opt.step() (the recording's 9th step) on, nothing else.
    data = _h200()
    got = _figures(_sim(tmp_path, data["program"]))
    for i, ((line, a, r), s) in enumerate(zip(got, data["steps"])):
        assert (line, r) == (s["line"], s["reserved"]), i
        assert s["allocated"] - a == (4 * 512 if i >= 7 else 0), i


def test_workspace_sizes_follow_pytorchs_environment():
    assert cuda_rules.cublas_workspace_bytes(None) == 32 * MIB
    assert cuda_rules.cublas_workspace_bytes(None, sm90=False) == 8 * MIB + 128 * 1024
    assert cuda_rules.cublas_workspace_bytes(":4096:8") == 32 * MIB
    assert cuda_rules.cublas_workspace_bytes(":4096:2:16:8") == 8 * MIB + 128 * 1024
    assert cuda_rules.cublas_workspace_bytes(":16:8", sm90=False) == 128 * 1024
    assert cuda_rules.cublas_workspace_bytes(":0:0") == 0
    assert cuda_rules.cublas_workspace_bytes("4096") == 32 * MIB  # unreadable: the default
    lt = cuda_rules.cublaslt_workspace_bytes
    assert lt(None, None, 32 * MIB) == MIB
    assert lt("4096", None, 32 * MIB) == 4 * MIB
    assert lt(" 64kib", None, 32 * MIB) == 64 * 1024  # std::stoi reads the leading number
    assert lt("many", None, 32 * MIB) == MIB
    assert lt(None, None, 128 * 1024) == 128 * 1024  # capped at the cuBLAS workspace
    assert lt(None, "1", 128 * 1024) == 128 * 1024
    assert lt(None, "0", 128 * 1024) == MIB  # TORCH_CUBLASLT_UNIFIED_WORKSPACE=0: no cap
    with pytest.raises(ValueError, match="CUBLASLT_WORKSPACE_SIZE='-1' is negative"):
        lt("-1", None, 32 * MIB)


def test_which_products_take_the_cublaslt_path():
    def lt(bias, m1, m2, **kw):
        out = torch.addmm(bias, m1, m2, **kw)
        return cuda_rules.uses_cublaslt("aten::addmm", (bias, m1, m2), kw, out)

    a, b = torch.ones(4, 3), torch.ones(3, 5)
    assert lt(torch.ones(5), a, b)
    assert lt(torch.ones(1, 5), a, b)
    assert not lt(torch.ones(4, 5), a, b)  # a 2-D bias: cuBLAS
    assert not lt(torch.ones(5), a, b, beta=0.5)
    assert not lt(torch.ones(5), torch.ones(1, 3), b)  # a batch of one row
    assert lt(torch.ones(5).double(), a.double(), b.double())
    assert not lt(torch.ones(5, dtype=torch.int64), a.long(), b.long())
    assert not cuda_rules.uses_cublaslt("aten::addmm", (torch.ones(5), a, b), {}, torch.ones(4, 5),
                                        lt_disabled=True)
    assert cuda_rules.calls_cublas("aten::mm", (a, b), {})
    assert not cuda_rules.calls_cublas("aten::mm", (torch.ones(4, 0), torch.ones(0, 5)), {})
    assert not cuda_rules.calls_cublas("aten::mm", (a.long(), b.long()), {})
    assert cuda_rules.calls_cublas("aten::dot", (torch.ones(0), torch.ones(0)), {})


LINEAR = """\
import torch
m = torch.nn.Linear(8, 16)
x = torch.ones({batch}, 8)
y = m(x)
z = m(x)
"""


@pytest.mark.parametrize("batch, env, workspaces", [
    (2, {}, 32 * MIB + MIB),
    (1, {}, 32 * MIB),  # one row: no cuBLASLt
    (2, {"TORCH_CUBLASLT_UNIFIED_WORKSPACE": "1"}, 32 * MIB),
    (2, {"DISABLE_ADDMM_CUDA_LT": "1"}, 32 * MIB),
    (2, {"CUBLAS_WORKSPACE_CONFIG": ":0:0"}, 0),
    (2, {"CUBLASLT_WORKSPACE_SIZE": "2048"}, 32 * MIB + 2 * MIB),
])
def test_linear_layer_workspaces_under_sim(tmp_path, clean_env, batch, env, workspaces):
    for k, v in env.items():
        clean_env.setenv(k, v)
    rep = _sim(tmp_path, LINEAR.format(batch=batch))
    alloc = [a for _, a, _ in _figures(rep)]
    params, x, y = 512 + 512, 512, 512 * (1 + (batch * 16 * 4 > 512))
    assert alloc == [0, params, params + x, params + x + y + workspaces, params + x + 2 * y + workspaces]


def test_the_engines_thread_takes_a_workspace_at_its_first_product(tmp_path, clean_env):
    rep = _sim(tmp_path, """\
        import torch
        w = torch.ones(4, 4, requires_grad=True)
        x = torch.ones(3, 4)
        y = (w * 2).sum()
        y.backward()
        w.grad = None
        s = (x @ w).sum()
        s.backward()
        w.grad = None
        s = (x @ w).sum()
        s.backward()
        """)
    ws = 32 * MIB
    # No product in the first backward; the forward's product takes the program thread's
    # workspace, the next backward's product the engine thread's, the last ones none.
    assert [a for _, a, _ in _figures(rep)] == [
        0, 512, 1024, 1536, 2048, 1536, 2048 + ws, 2560 + 2 * ws, 2048 + 2 * ws, 2048 + 2 * ws, 2560 + 2 * ws]
    assert any("cuBLAS 33554432 bytes (main thread), cuBLAS 33554432 bytes (autograd thread)" in n
               for n in rep["notes"]), rep["notes"]


def test_no_workspace_in_a_host_scope_or_on_the_cpu(tmp_path, clean_env):
    src = """\
        import torch
        from stridekit import cuda_rules
        a = torch.ones(4, 4)
        with cuda_rules.host():
            b = a @ a
        """
    assert [a for _, a, _ in _figures(_sim(tmp_path, src))] == [0, 0, 512, 512]
    p = tmp_path / "prog.py"
    t = Tracer("cpu")
    run_file(str(p), [], t)
    assert t.to_json()["allocator"] is None and not any("cuBLAS" in n for n in t.to_json()["notes"])


def test_options_are_checked():
    with pytest.raises(ValueError, match="step_counters"):
        Tracer("sim", step_counters="gpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            Tracer("cuda")
