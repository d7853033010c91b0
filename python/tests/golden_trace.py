"""Every golden program (tests/golden/seeds.jsonl, random.jsonl) through the tracer and
through `stridekit.explain`, compared: run by test_trace.py in a child process,

    python golden_trace.py cpu|sim

printing one JSON object: `differ` ([name, what] pairs), `programs`, `max_rss_kib`.

A child, because three programs ask the host allocator for 571 GB to 1 EB (i10_oom_*) and
expect PyTorch's "can't allocate memory": a host that overcommits memory grants them and
then fills them until the kernel's OOM killer ends the process (the likely end of the
first GPU run's pytest, killed during this test). The child runs under an address-space
limit (RLIMIT_AS: what it has mapped after the imports + 16 GiB), so those requests fail
on every host, and with CUDA hidden (CUDA_VISIBLE_DEVICES set empty by the caller): the
golden programs are CPU programs. The name of the program being run is written to
`--progress FILE` first, so a killed child still says where it was.
"""

import contextlib
import io
import json
import os
import resource
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT_MARGIN = 16 << 30


def golden_rows():
    root = os.path.join(HERE, "..", "..", "tests", "golden")
    rows = []
    for f in ("seeds.jsonl", "random.jsonl"):
        with open(os.path.join(root, f)) as fh:
            rows += [json.loads(line) for line in fh]
    return rows


def _mapped_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def limit_address_space() -> int:
    """RLIMIT_AS at what this process has mapped + LIMIT_MARGIN (within the hard limit): a
    larger request fails whatever the host's overcommit policy. The limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _mapped_bytes() + LIMIT_MARGIN
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit


def trace_golden(torch, tracer_cls, run_file, directory, program, device):
    path = os.path.join(directory, "prog.py")
    with open(path, "w") as f:
        f.write(program)
    t = tracer_cls(device, function_steps=False, values_limit=10**7)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_file(path, [], t, {"torch": torch})
    return t.to_json()


def compare_cpu(got, exp):
    """What differs between the tracer's report and explain's on the CPU."""
    bad = []
    # explain's steps carry the graph's figures (`autograd`); the tracer's steps do not.
    for s in exp["steps"]:
        s.pop("autograd", None)
    for k in ("tensors", "storages", "totals", "peak", "steps", "steps_omitted", "output"):
        if got[k] != exp[k]:
            bad.append(k)
    ge, ee = got["error"], exp["error"]
    if (ge is None) != (ee is None) or (
            ge and (ge["statement"], ge["line"], ge["col"]) != (ee["statement"], ee["line"], ee["col"])):
        bad.append("error")
    return bad


def compare_sim(got, exp):
    """Whether the allocator figures after every step and at the end differ."""
    g = [s["allocator"] for s in got["steps"]] + [got["allocator"]]
    e = [s["allocator"] for s in exp["steps"]] + [exp["allocator"]]
    return ["allocator"] if g != e else []


def main(argv):
    device = argv[0]
    if device not in ("cpu", "sim"):
        raise SystemExit(f"golden_trace.py: device cpu or sim, not {device!r}")
    progress = argv[argv.index("--progress") + 1] if "--progress" in argv else None
    import torch

    import stridekit
    from stridekit.trace_run import Tracer, run_file

    limit_address_space()
    differ, rows = [], golden_rows()
    with tempfile.TemporaryDirectory() as d:
        for r in rows:
            if progress:
                with open(progress, "w") as f:
                    f.write(r["name"] + "\n")
            got = trace_golden(torch, Tracer, run_file, d, r["program"], device)
            exp = stridekit.explain(r["program"], device=device)
            bad = compare_cpu(got, exp) if device == "cpu" else compare_sim(got, exp)
            differ += [[r["name"], k] for k in bad]
    print(json.dumps({"differ": differ, "programs": len(rows),
                      "max_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
