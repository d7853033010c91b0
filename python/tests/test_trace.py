"""stridekit.trace and `python -m stridekit trace` on the CPU with the pinned torch."""

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

torch = pytest.importorskip("torch")
import stridekit  # noqa: E402
from stridekit.trace_run import Tracer, run_file  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def run_prog(tmp_path, source, *args, **options):
    p = tmp_path / "prog.py"
    p.write_text(textwrap.dedent(source))
    t = Tracer(*args, **options)
    status = run_file(str(p), [], t)
    return status, t


def cli(tmp_path, source, *flags, argv=()):
    p = tmp_path / "prog.py"
    p.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "stridekit", "trace", *flags, str(p), *argv],
        capture_output=True, text=True, env=env, cwd=str(tmp_path),
    )


SEED001 = """\
import torch
import torch.nn as nn

device = torch.device("cpu")
model = nn.Linear(3, 2).to(device)
features = torch.tensor([[1.0, 0.0, -1.0]], device=device)

logits = model(features)
assert logits.device == features.device == next(model.parameters()).device
print(device, logits.shape)
"""


def test_seed001_linear_layer_parameters_and_saved_tensors(tmp_path):
    r = cli(tmp_path, SEED001, "--json", "-")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("cpu torch.Size([1, 2])\n")
    rep = json.loads(out[out.index("\n{") + 1:])
    names = [t["name"] for t in rep["tensors"]]
    assert names == ["model.weight", "model.bias", "features", "logits"]
    w = rep["tensors"][0]
    assert (w["shape"], w["strides"], w["itemsize"]) == ([2, 3], [3, 1], 4)
    assert rep["totals"]["unique_storage_bytes"] == 24 + 8 + 12 + 8
    assert rep["output"] == "cpu torch.Size([1, 2])\n"
    # The graph's own saved tensors, from the same program run untraced.
    ns = {}
    exec(compile(SEED001, "seed001", "exec"), ns)
    node = ns["logits"].grad_fn
    named = {"model.weight": ns["model"].weight, "model.bias": ns["model"].bias,
             "features": ns["features"], "logits": ns["logits"]}
    saved = []
    todo, seen = [node], set()
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        for a in dir(n):
            if a.startswith("_saved_"):
                v = getattr(n, a)
                if isinstance(v, torch.Tensor):
                    ptr = v.untyped_storage().data_ptr()
                    owners = sorted(k for k, t in named.items() if t.untyped_storage().data_ptr() == ptr)
                    saved.append((f"{type(n).__name__}.{a}", list(v.shape), list(v.stride()), v.storage_offset(),
                                  v.numel() * v.element_size(), v.untyped_storage().nbytes(), owners))
        todo += [m for m, _ in n.next_functions]
    # addmm(bias, input, weight.t()) saves the input for the weight's gradient (the weight
    # only when the input needs a gradient too, which `features` does not).
    assert [x[0] for x in saved] == ["AddmmBackward0._saved_mat1"]
    by_storage = {}
    for t in rep["tensors"]:
        by_storage.setdefault(t["storage"], []).append(t["name"])
    got = [(s["grad_fn"], s["shape"], s["strides"], s["storage_offset"], s["bytes"], s["storage_nbytes"],
            sorted(by_storage.get(s["storage"], []))) for s in rep["autograd"]["saved_tensors"]]
    assert sorted(got) == sorted(saved)
    assert got[0][1:] == ([1, 3], [3, 1], 0, 12, 12, ["features"])
    # addmm saves the input (for the weight's gradient): the features' storage, named.
    assert rep["autograd"]["saved_storage_bytes"] == sum(s[5] for s in saved) == 12
    assert rep["autograd"]["graph_only_storage_bytes"] == 0
    assert all(s["storage"] is not None for s in rep["autograd"]["saved_tensors"])


def test_graph_only_saved_storage(tmp_path):
    status, t = run_prog(tmp_path, """\
        import torch
        x = torch.randn(256, 256, requires_grad=True)
        y = x.exp().sum()
        """)
    rep = t.to_json()
    assert status == 0
    (s,) = [s for s in rep["autograd"]["saved_tensors"] if s["grad_fn"].startswith("ExpBackward")]
    assert s["storage"] is None and s["storage_nbytes"] == 256 * 256 * 4
    assert rep["autograd"]["graph_only_storage_bytes"] == 256 * 256 * 4
    assert "autograd: " in t.report()


def test_context_manager_names_locals_and_reports(tmp_path):
    with stridekit.trace() as t:
        base = torch.arange(12, dtype=torch.float32).view(4, 3)
        tr = base.t()
        c = tr.contiguous()
    rep = t.to_json()
    by = {x["name"]: x for x in rep["tensors"]}
    assert set(by) == {"base", "tr", "c"}
    assert rep["totals"] == {"logical_bytes": 144, "unique_storage_bytes": 96, "addressed_bytes": 96}
    assert [s["line"] for s in rep["steps"]] == [s["line"] for s in rep["steps"]]
    assert len(rep["steps"]) == 3 and rep["peak"]["unique_storage_bytes"] == 96
    assert by["tr"]["storage"] == by["base"]["storage"] != by["c"]["storage"]
    text = t.report()
    assert "totals: logical 144 bytes, unique storage 96 bytes, addressed 96 bytes" in text


def test_attention_head_split_views_then_the_copy(tmp_path):
    status, t = run_prog(tmp_path, """\
        import torch
        B, T, H, D = 2, 5, 4, 8
        qkv = torch.randn(B, T, 3 * H * D)
        q = qkv[..., : H * D].view(B, T, H, D).transpose(1, 2)
        qc = q.contiguous()
        """)
    rep = t.to_json()
    by = {x["name"]: x for x in rep["tensors"]}
    assert by["q"]["storage"] == by["qkv"]["storage"]
    assert by["q"]["strides"] == [5 * 96, 8, 96, 1]
    assert by["qc"]["storage"] != by["qkv"]["storage"]
    steps = rep["steps"]
    assert steps[-1]["unique_storage_bytes"] - steps[-2]["unique_storage_bytes"] == 2 * 4 * 5 * 8 * 4


def test_retained_slice_warning_and_threshold(tmp_path):
    src = """\
        import torch
        big = torch.zeros(1 << 20)
        small = big[:10]
        del big
        """
    status, t = run_prog(tmp_path, src)
    (w,) = t.to_json()["warnings"]
    assert w["kind"] == "retained_storage" and w["line"] == 4
    assert "small = small.clone()" in w["message"] and "4194264 bytes are retained" in w["message"]
    _, t = run_prog(tmp_path, src, retained_min_bytes=8 << 20)
    assert t.to_json()["warnings"] == []
    _, t = run_prog(tmp_path, src.replace("big[:10]", "big[: (1 << 19) + 1]"))
    assert t.to_json()["warnings"] == [], "less than half unaddressed"
    with pytest.raises(stridekit.StridekitError):
        Tracer(retained_fraction=1.5)


def test_torch_save_of_a_view(tmp_path):
    status, t = run_prog(tmp_path, f"""\
        import torch
        x = torch.arange(1000.)
        row = x[10:20]
        torch.save(row, {str(tmp_path / 'r.pt')!r})
        torch.save({{"w": x}}, {str(tmp_path / 'w.pt')!r})
        y = torch.load({str(tmp_path / 'r.pt')!r})
        """)
    assert status == 0
    rep = t.to_json()
    (w,) = rep["warnings"]
    assert w["kind"] == "saves_whole_storage" and w["line"] == 4
    assert "'row' writes its whole storage, 4000 bytes, of which it addresses 40 bytes" in w["message"]
    # torch.load made a storage: the saved view's whole storage.
    by = {x["name"]: x for x in rep["tensors"]}
    st = rep["storages"][by["y"]["storage"]]
    assert st["nbytes"] == 4000 and st["addressed_bytes"] == 40
    assert by["y"]["storage_offset"] == 10


def test_module_parameters_functions_and_in_place(tmp_path):
    status, t = run_prog(tmp_path, """\
        import torch
        net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
        def f(a):
            z = a * 2
            z.add_(1)
            return z
        q = f(torch.ones(3))
        """)
    rep = t.to_json()
    names = [x["name"] for x in rep["tensors"]]
    assert names[:2] == ["net.0.weight", "net.0.bias"]
    assert "net.1.running_mean" in names and "net.1.num_batches_tracked" in names
    inner = [s for s in rep["steps"] if s["line"] in (4, 5)]
    assert [s["live_tensors"] for s in inner] == [len(names) + 1, len(names) + 1]
    assert {x["name"]: x for x in rep["tensors"]}["q"]["version"] == 1
    _, t2 = run_prog(tmp_path, (tmp_path / "prog.py").read_text(), function_steps=False)
    assert all(s["line"] not in (4, 5) for s in t2.to_json()["steps"])


def test_program_error_exit_status_and_report(tmp_path):
    r = cli(tmp_path, """\
        import torch
        x = torch.arange(6.).view(2, 3)
        y = x.t()
        z = y.view(6)
        w = 1
        """, "--json", "-")
    assert r.returncode == 1
    rep = json.loads(r.stdout)
    e = rep["error"]
    assert (e["class"], e["line"], e["statement"]) == ("RuntimeError", 4, 3)
    assert "view size is not compatible" in e["message"]
    assert [x["name"] for x in rep["tensors"]] == ["x", "y"]
    assert [s["line"] for s in rep["steps"]] == [1, 2, 3]
    r = cli(tmp_path, "import sys\nprint('a', sys.argv[1:])\nsys.exit(3)\n", argv=["u", "v"])
    assert r.returncode == 3 and r.stdout.startswith("a ['u', 'v']\n")
    assert "error" not in r.stdout.split("tensors")[-1]


def test_tracer_failure_never_hides_the_program(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("tracer broke")

    p = tmp_path / "prog.py"
    p.write_text("import torch\nx = torch.ones(2)\nraise ValueError('mine')\n")
    t = Tracer()
    t._check_threads = boom
    status = run_file(str(p), [], t)
    rep = t.to_json()
    assert status == 1 and rep["error"]["class"] == "ValueError" and rep["error"]["message"] == "mine"
    assert any("tracer failed" in n and "tracer broke" in n for n in rep["notes"])


def test_sim_allocator_figures_and_saved_trace(tmp_path):
    src = """\
        import torch
        a = torch.empty(1000)
        b = torch.empty(3 << 18)
        del a
        c = torch.empty(100)
        """
    status, t = run_prog(tmp_path, src, "sim")
    steps = t.to_json()["steps"]
    alloc = [s["allocator"]["allocated_bytes.all.current"] for s in steps]
    assert alloc == [0, 4096, 4096 + (3 << 20), 3 << 20, (3 << 20) + 512]
    reserved = steps[-1]["allocator"]["reserved_bytes.all.current"]
    assert reserved == (2 << 20) + (20 << 20)
    assert t.to_json()["allocator"]["allocated_bytes.all.peak"] == 4096 + (3 << 20)
    path = tmp_path / "trace.csv"
    t.save_trace(str(path))
    run = stridekit.replay(str(path))["runs"][0]
    assert run["stats"]["allocated_bytes.all.peak"] == 4096 + (3 << 20)
    _, t2 = run_prog(tmp_path, src, "sim", "policy:stridekit")
    assert t2.to_json()["allocator"] is not None
    with pytest.raises(stridekit.StridekitError):
        Tracer("sim", "no_such_setting:3")
    if torch.cuda.is_available():  # a GPU: --device cuda is there to be used
        assert Tracer("cuda").device == "cuda"
    else:
        with pytest.raises(ValueError, match="no CUDA device"):
            Tracer("cuda")


def test_sim_cublas_workspace_after_the_first_matmul(tmp_path):
    _, t = run_prog(tmp_path, """\
        import torch
        a = torch.ones(4, 4)
        b = a @ a
        c = a @ a
        """, "sim")
    rep = t.to_json()
    alloc = [s["allocator"]["allocated_bytes.all.current"] for s in rep["steps"]]
    assert alloc == [0, 512, 1024 + (32 << 20), 1536 + (32 << 20)]
    assert any("cuBLAS 33554432 bytes (main thread)" in n for n in rep["notes"]), rep["notes"]


def test_scalar_setitem_is_no_cuda_request(tmp_path):
    _, t = run_prog(tmp_path, "import torch\nx = torch.zeros(4)\nx[1] = 3.0\n", "sim")
    steps = t.to_json()["steps"]
    assert steps[-1]["allocator"]["allocated_bytes.all.peak"] == 512


def test_scalar_setitem_with_a_list_index_makes_the_index_on_the_device(tmp_path):
    # The number is wrapped on the host; the list's index tensor after it is a cuda:0 block.
    _, t = run_prog(tmp_path, "import torch\nx = torch.zeros(2, 3)\nx[[0, 1]] = 1.0\nx[0] = 2.0\n", "sim")
    a = [s["allocator"] for s in t.to_json()["steps"]]
    assert [(s["allocated_bytes.all.current"], s["allocated_bytes.all.peak"]) for s in a] == [
        (0, 0), (512, 512), (512, 1024), (512, 1024)]


def test_untraced_thread_warning(tmp_path):
    _, t = run_prog(tmp_path, """\
        import threading, torch
        th = threading.Thread(target=lambda: torch.ones(3))
        th.start(); th.join()
        x = torch.ones(2)
        """)
    kinds = [w["kind"] for w in t.to_json()["warnings"]]
    assert "untraced_thread" in kinds


def test_fake_mode_forward_on_cuda(tmp_path):
    r = cli(tmp_path, """\
        import torch
        model = torch.nn.Linear(1024, 1024)
        x = torch.randn(64, 1024)
        y = model(x)
        """, "--fake", "--device", "sim", "--json", "-")
    assert r.returncode == 0, r.stderr[-2000:]
    rep = json.loads(r.stdout)
    by = {x["name"]: x for x in rep["tensors"]}
    assert by["model.weight"]["values"] == [] and by["y"]["shape"] == [64, 1024]
    assert rep["allocator"]["allocated_bytes.all.current"] >= (4 << 20) + (256 << 10) * 2
    assert any("forward only" in n for n in rep["notes"])


def _golden_child(tmp_path, device):
    """golden_trace.py's comparison of every golden program, in a child process (an
    address-space limit; CUDA hidden: see there). Its JSON result."""
    progress = tmp_path / "progress.txt"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([sys.executable, os.path.join(HERE, "golden_trace.py"), device, "--progress", str(progress)],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path))
    where = progress.read_text().strip() if progress.exists() else "before the first program"
    assert r.returncode == 0, (f"golden_trace.py {device}: exit status {r.returncode} while running {where}\n"
                               f"{r.stderr[-3000:]}")
    return json.loads(r.stdout.splitlines()[-1])


def test_the_golden_child_refuses_what_an_overcommitting_host_would_grant():
    # Under golden_trace.py's limit a request past the margin fails as the i10_oom_* programs
    # expect, even for a size this host would grant (lazily) without it.
    code = ("import sys, torch; sys.path.insert(0, %r); import golden_trace as g; g.limit_address_space()\n"
            "try:\n    torch.empty(g.LIMIT_MARGIN + (1 << 30), dtype=torch.uint8)\n"
            "except RuntimeError as e:\n    print('refused', 'DefaultCPUAllocator' in str(e))\n") % HERE
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    assert r.stdout.strip() == "refused True", r.stdout + r.stderr[-2000:]


def test_every_golden_program_matches_explain_on_the_cpu(tmp_path):
    # Tensors (values included), storages, totals, steps, peak, output and the error's
    # position. (The four version-error programs agree too: trace_saved.py keeps PyTorch's
    # version check under the tracer's saved-tensor hooks.)
    res = _golden_child(tmp_path, "cpu")
    assert res["programs"] > 1700
    assert res["differ"] == []


def test_golden_programs_sim_allocator_figures(tmp_path):
    """The allocator figures after every step under --device sim, against explain's: equal
    but for the known divergences (python/tests/data/trace_sim_divergences.txt: PyTorch's
    CPU operators against explain's own temporaries, see docs/trace.md)."""
    with open(os.path.join(HERE, "data", "trace_sim_divergences.txt")) as f:
        known = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    res = _golden_child(tmp_path, "sim")
    assert {name for name, _ in res["differ"]} == known


def test_sim_optimizer_step_counters_stay_on_the_host(tmp_path):
    _, t = run_prog(tmp_path, """\
        import torch
        w = torch.nn.Parameter(torch.ones(4))
        opt = torch.optim.Adam([w])
        w.sum().backward()
        opt.step()
        """, "sim")
    rep = t.to_json()
    # w, its grad, exp_avg, exp_avg_sq: 512 bytes each; the step counter is a host tensor.
    assert rep["steps"][-1]["allocator"]["allocated_bytes.all.current"] == 4 * 512
    assert any("host_inputs_and_step_counters 1" in n for n in rep["notes"])


def test_no_source_traces_storages_without_steps():
    code = compile("with stridekit.trace() as t:\n    x = torch.ones(3)\n", "<nosource>", "exec")
    ns = {"stridekit": stridekit, "torch": torch}
    exec(code, ns)
    rep = ns["t"].to_json()
    assert rep["steps"] == [] and [x["name"] for x in rep["tensors"]] == ["x"]
    assert any("no source" in n for n in rep["notes"])


def test_cli_sim_alloc_conf_json_file_and_saved_trace(tmp_path):
    r = cli(tmp_path, """\
        import torch
        a = torch.empty(1 << 20)
        del a
        b = torch.empty(1 << 20)
        """, "--device", "sim", "--alloc-conf", "expandable_segments:True",
        "--json", "rep.json", "--save-trace", "t.csv")
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / "rep.json").read_text())
    assert rep["allocator"]["allocated_bytes.all.current"] == 4 << 20
    assert (tmp_path / "t.csv").read_text().splitlines()[1:] == ["a,0,4194304", "f,0,0", "a,1,4194304"]
    r = cli(tmp_path, "x = 1\n", "--device", "sim", "--alloc-conf", "bogus:1")
    assert r.returncode == 2 and "bogus" in r.stderr


def test_session_refuses_hostile_metadata():
    s = stridekit._stridekit.TraceSession()
    with pytest.raises(stridekit.StridekitError, match="outside its storage"):
        s.step(0, 1, [("x", 1, 8, [4], [1], 0, 4)])
    with pytest.raises(stridekit.StridekitError, match="overflows"):
        s.step(0, 1, [("x", 1, 8, [2**62, 4], [1, 1], 0, 4)])
    with pytest.raises(OverflowError):
        s.step(0, 1, [("x", -1, 8, [1], [1], 0, 4)])
    s.storage_created(1, 8)
    with pytest.raises(stridekit.StridekitError, match="twice"):
        s.storage_created(1, 8)
    with pytest.raises(stridekit.StridekitError, match="unknown warning kind"):
        s.warn(0, 1, "made_up", "x")


def _alloc(rep, key="allocated_bytes.all.current"):
    return [s["allocator"][key] for s in rep["steps"]]


def test_sim_a_returned_functions_locals_are_freed(tmp_path):
    # The line tracer must not keep a returned frame (and its locals) alive.
    _, t = run_prog(tmp_path, """\
        import torch
        def rows(t, k=1):
            return t[k:]
        x = torch.zeros(1000)
        v = rows(x.clone())
        v = rows(x.clone())
        """, "sim", function_steps=False)
    assert _alloc(t.to_json()) == [0, 0, 4096, 8192, 8192]


def test_sim_equal_makes_cuda_equals_two_temporaries(tmp_path):
    # cuda_equal: at::eq(self, src).all().item(), unless same sizes fail or it is the same view.
    _, t = run_prog(tmp_path, """\
        import torch
        a = torch.arange(4.)
        b = a.clone()
        r = torch.equal(a, b)
        s = torch.equal(a, a)
        q = torch.equal(a, b[:2])
        """, "sim")
    peaks = _alloc(t.to_json(), "allocated_bytes.all.peak")
    assert peaks == [0, 512, 1024, 2048, 2048, 2048]
    assert _alloc(t.to_json())[-1] == 1024
    _, t = run_prog(tmp_path, "import torch\na = torch.arange(4.)\ns = torch.equal(a, a)\n", "sim")
    assert _alloc(t.to_json(), "allocated_bytes.all.peak") == [0, 512, 512]


def test_sim_roll_intermediates_and_contiguous_copy(tmp_path):
    # roll_cuda: several dims roll one at a time (each intermediate alive until the output
    # exists); a non-contiguous input is copied contiguous first.
    _, t = run_prog(tmp_path, """\
        import torch
        x = torch.arange(24.).view(2, 3, 4)
        h = x.roll((1, 2), (1, 2))
        p = x.permute(2, 0, 1)
        f = p.roll(1, 0)
        g = x.roll(1)
        """, "sim")
    rep = t.to_json()
    assert _alloc(rep) == [0, 512, 1024, 1024, 1536, 2048]
    assert _alloc(rep, "allocated_bytes.all.peak") == [0, 512, 1536, 1536, 2048, 2048]


def test_sim_index_error_checked_on_the_device_allocates_the_output(tmp_path):
    # The CPU kernel refuses index 5 before its output; CUDA's allocates the output and
    # asserts on the device. A dtype error is a host check on both: nothing allocated.
    src = """\
        import torch
        x = torch.arange(6.).view(2, 3)
        i = torch.tensor([5])
        y = x.index_select(0, i)
        """
    _, t = run_prog(tmp_path, src, "sim")
    rep = t.to_json()
    assert rep["error"]["class"] == "IndexError"
    assert rep["allocator"]["allocated_bytes.all.peak"] == 1536
    assert rep["allocator"]["allocated_bytes.all.current"] == 1024
    _, t = run_prog(tmp_path, src.replace("[5]", "[0.0]"), "sim")
    assert t.to_json()["allocator"]["allocated_bytes.all.peak"] == 1024
    _, t = run_prog(tmp_path, src, "cpu")
    assert t.to_json()["allocator"] is None


def test_a_panic_in_the_trace_session_is_a_stridekit_error():
    s = stridekit._stridekit.TraceSession()
    with pytest.raises(stridekit.StridekitError, match="internal error.*boom"):
        s._panic_for_test("boom")
    # The session's books may be half written: it refuses every later call.
    with pytest.raises(stridekit.StridekitError, match="poisoned"):
        s.storage_created(1, 8)


def _panicking_tracer(*args, **kwargs):
    """A Tracer whose Rust session panics at the first storage (the panic barrier's path)."""
    t = Tracer(*args, **kwargs)
    real = t.session

    class Panicky:
        def __getattr__(self, name):
            return getattr(real, name)

        def storage_created(self, key, nbytes):
            real._panic_for_test("planted")

    t.session = Panicky()
    return t


def test_a_panic_while_tracing_never_hides_the_program(tmp_path, monkeypatch, capsys):
    import stridekit.__main__ as cli_main
    import stridekit.trace_run as trace_run

    p = tmp_path / "prog.py"
    p.write_text("import torch\nx = torch.ones(2)\nprint('ran', x.sum().item())\nraise ValueError('mine')\n")
    monkeypatch.setattr(trace_run, "Tracer", _panicking_tracer)
    status = cli_main.trace_main(["--device", "sim", str(p)])
    out, err = capsys.readouterr()
    assert status == 1 and "ran 2.0" in out
    assert "the report failed: StridekitError" in err
    assert "the program raised ValueError at line 4, column 1: mine" in err
    # A program that ended normally: status 3 says the report failed (and why).
    p.write_text("import torch\nx = torch.ones(2)\n")
    assert cli_main.trace_main([str(p)]) == 3
    assert "the report failed: StridekitError: trace session poisoned" in capsys.readouterr().err


def _stridekit_cli():
    """The stridekit binary of this checkout (cargo test builds it before scripts/test-python
    runs; built here when missing)."""
    repo = os.path.abspath(os.path.join(HERE, "..", ".."))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(repo, "target"))
    exe = os.path.join(target, "debug", "stridekit")
    if not os.path.exists(exe):
        subprocess.run(["cargo", "build", "--locked", "--bin", "stridekit"], cwd=repo, check=True)
    return exe


def test_saved_trace_end_to_end_through_alloc_replay_and_alloc_tune(tmp_path):
    r = cli(tmp_path, """\
        import torch
        m = torch.nn.Linear(256, 256)
        for i in range(3):
            x = torch.randn(64, 256)
            y = m(x).relu().sum()
            y.backward()
        """, "--device", "sim", "--json", "rep.json", "--save-trace", "t.csv")
    assert r.returncode == 0, r.stderr
    predicted = json.loads((tmp_path / "rep.json").read_text())["allocator"]
    exe = _stridekit_cli()
    rep = subprocess.run([exe, "alloc", "replay", "--json", "t.csv"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    (run,) = json.loads(rep.stdout)
    for k in ("allocated_bytes.all.peak", "reserved_bytes.all.peak", "allocated_bytes.all.current",
              "reserved_bytes.all.current", "segment.all.current"):
        assert run["stats"][k] == predicted[k], k
    (tmp_path / "grid.txt").write_text("default\nexpandable_segments:True\npolicy:stridekit\n")
    tune = subprocess.run([exe, "alloc", "tune", "--grid", "grid.txt", "--json", "t.csv"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert tune.returncode == 0, tune.stderr
    rows = {row["setting"]: row for row in json.loads(tune.stdout)}
    assert set(rows) == {"default", "expandable_segments:True", "policy:stridekit"}
    assert rows["default"]["stats"]["reserved_bytes.all.peak"] == predicted["reserved_bytes.all.peak"]
    # The same trace under --alloc-conf policy:stridekit predicts what tune's row replays.
    r = cli(tmp_path, (tmp_path / "prog.py").read_text(), "--device", "sim", "--alloc-conf",
            "policy:stridekit", "--json", "rep2.json")
    assert r.returncode == 0, r.stderr
    predicted = json.loads((tmp_path / "rep2.json").read_text())["allocator"]
    assert rows["policy:stridekit"]["stats"]["reserved_bytes.all.peak"] == predicted["reserved_bytes.all.peak"]
    assert rows["policy:stridekit"]["stats"]["allocated_bytes.all.peak"] == predicted["allocated_bytes.all.peak"]
