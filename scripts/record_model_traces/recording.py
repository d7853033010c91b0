"""Recording: the CPU -> CUDA rules (python/stridekit/cuda_rules.py), the device the workloads
run on, and the profiler's allocator events turned into a CUDA caching allocator's requests."""

from __future__ import annotations

import gc
import os

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile

# The repository root (this file is scripts/record_model_traces/recording.py).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_cuda_rules():
    """The CPU -> CUDA rules, shared with `stridekit trace --device sim`: the package's
    python/stridekit/cuda_rules.py, loaded by path (no build of the package needed)."""
    import importlib.util

    path = os.path.join(ROOT, "python", "stridekit", "cuda_rules.py")
    spec = importlib.util.spec_from_file_location("stridekit_cuda_rules", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cuda_rules = _load_cuda_rules()
HOST_SCOPE = cuda_rules.HOST_SCOPE
CUBLAS_WORKSPACE_BYTES = cuda_rules.CUBLAS_WORKSPACE_BYTES
GEMM_OPS = cuda_rules.GEMM_OPS


host = cuda_rules.host


# "cpu": record on the CPU and convert (the default); "cuda": run on the GPU (--device cuda).
DEVICE = ["cpu"]


def to_device(t: torch.Tensor) -> torch.Tensor:
    """`t.to('cuda')` of a host tensor: one device allocation of its bytes and a copy."""
    return t.to(DEVICE[0]) if DEVICE[0] != "cpu" else t.clone()


def upload(model: nn.Module) -> None:
    """`model.to('cuda')`: one allocation per parameter and buffer, in Module._apply's order
    (children first, then the module's own parameters, then its buffers; tied parameters once)."""
    if DEVICE[0] != "cpu":
        model.to(DEVICE[0])
        return
    seen: set[int] = set()

    def apply(m: nn.Module) -> None:
        for child in m.children():
            apply(child)
        for tensors in (m._parameters, m._buffers):
            for t in tensors.values():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                t.data = t.data.clone()

    apply(model)


ops_with_cuda_kernels = cuda_rules.ops_with_cuda_kernels


class Alloc:
    __slots__ = ("time", "seq", "ptr", "size", "ops", "host", "free")

    def __init__(self, time, seq, ptr, size, ops, host):
        self.time, self.seq, self.ptr, self.size = time, seq, ptr, size
        self.ops, self.host, self.free = ops, host, None


def memory_events(prof):
    """(time_ns, seq, ptr, bytes, ancestors) of every CPU allocator event, in order;
    ancestors are the enclosing profiler events, outermost first."""
    out = []
    seq = 0
    stack = [(r, ()) for r in reversed(prof.profiler.kineto_results.experimental_event_tree())]
    while stack:
        e, anc = stack.pop()
        ef = e.extra_fields
        if type(ef).__name__ == "_ExtraFields_Allocation":
            if str(ef.device).startswith("cpu"):
                out.append((e.start_time_ns, seq, ef.ptr, ef.alloc_size, anc))
                seq += 1
            continue
        inner = anc + (e,)
        for c in reversed(e.children):
            stack.append((c, inner))
    out.sort(key=lambda x: (x[0], x[1]))
    return out


def to_requests(prof, counts, largest):
    """The CUDA caching allocator's requests, as ("a", id, bytes) / ("f", id) tuples, and
    {address: bytes} of the kept allocations still live at the end (the workspace aside);
    `counts` and `largest` receive the number and the largest size of each kind dropped."""
    live: dict[int, Alloc] = {}
    allocs: list[Alloc] = []
    for time_ns, seq, ptr, size, anc in memory_events(prof):
        if size > 0:
            if ptr in live:
                raise RuntimeError(f"address {ptr:#x} allocated twice without a free")
            ops = [e for e in anc if e.name.startswith("aten::")]
            a = Alloc(time_ns, seq, ptr, size, ops, any(e.name == HOST_SCOPE for e in anc))
            live[ptr] = a
            allocs.append(a)
        elif size < 0:
            a = live.pop(ptr, None)
            if a is None:
                counts["frees_of_earlier_storages"] += 1
                continue
            a.free = (time_ns, seq, anc)
    cuda_kernels = ops_with_cuda_kernels()
    events = []
    gemm_seen = False

    def drop(kind, a):
        counts[kind] += 1
        largest[kind] = max(largest.get(kind, 0), a.size)

    for a in allocs:
        freed_inside = None
        if a.free is not None:
            free_anc = {id(e) for e in a.free[2]}
            common = [e for e in a.ops if id(e) in free_anc]
            freed_inside = common[-1].name if common else None
        why = cuda_rules.drop_reason(a.host, [e.name for e in a.ops], freed_inside, cuda_kernels)
        if why is not None:
            drop(why, a)
            continue
        events.append(((a.time, a.seq), "a", a))
        if a.free is not None:
            events.append(((a.free[0], a.free[1]), "f", a))
        if not gemm_seen and cuda_rules.is_gemm(e.name for e in a.ops):
            gemm_seen = True
            events.append(((a.time, a.seq + 0.5), "w", None))
    events.sort(key=lambda x: x[0])
    ids: dict[int, int] = {}
    out = []
    live_at_end = {a.ptr: a.size for _, kind, a in events if kind == "a" and a.free is None}
    for _, kind, a in events:
        if kind == "w":
            out.append(("a", len(ids), CUBLAS_WORKSPACE_BYTES))
            ids[id(out)] = len(ids)  # never freed: the workspace lives as long as the handle
            counts["cublas_workspace"] += 1
        elif kind == "a":
            ids[id(a)] = len(ids)
            out.append(("a", ids[id(a)], a.size))
        else:
            out.append(("f", ids[id(a)]))
    return out, live_at_end


def record(fn, survivors):
    """Run `fn` under the profiler; `survivors()` names the device tensors that must be
    the only kept allocations live at the end (the model and the optimizer state), a check
    that every free was matched and nothing host-side was kept."""
    counts = {
        "host_inputs_and_step_counters": 0,
        "host_wrapped_scalars": 0,
        "cpu_kernel_internal": 0,
        "frees_of_earlier_storages": 0,
        "cublas_workspace": 0,
    }
    largest: dict[str, int] = {}
    gc.collect()  # storages of an earlier workload are not freed during this one
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, acc_events=True) as prof:
        fn()
    requests, live = to_requests(prof, counts, largest)
    expected = {}
    for t in survivors():
        st = t.untyped_storage()
        expected[st.data_ptr()] = st.nbytes()
    if live != expected:
        extra = {p: n for p, n in live.items() if expected.get(p) != n}
        missing = {p: n for p, n in expected.items() if live.get(p) != n}
        raise RuntimeError(
            f"live at the end: {len(extra)} allocations that are not the model's or the optimizer's "
            f"({sum(extra.values())} bytes, e.g. {sorted(extra.values())[-5:]}), "
            f"{len(missing)} of theirs not live ({sum(missing.values())} bytes)"
        )
    return requests, counts, largest


