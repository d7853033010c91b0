"""What a CUDA caching allocator is asked for, given the storages a CPU run of the same
PyTorch program makes: the rules shared by ``stridekit trace --device sim`` and
``scripts/record_model_traces.py`` (which loads this file by path, so it imports nothing
of stridekit).

- kept: every storage made by an operator (an ``aten::`` op);
- dropped, host side on CUDA as well: storages made outside every operator (Python scalars
  wrapped into 0-dim CPU tensors while arguments are parsed) and everything made inside a
  :func:`host` scope (inputs as a data loader makes them before ``.to(device)``, an
  optimizer's step counters);
- dropped, CPU kernel internals: a storage freed inside the call of the operator that made
  it when that operator has its own CUDA kernel (its CPU kernel's scratch space); the
  tracer never sees those (a dispatch mode sees operators' outputs only);
- added, CUDA only: the cuBLAS workspace that PyTorch 2.11 takes from the caching allocator
  at the first cuBLAS call and keeps (32 MiB on sm_90), right after the first matrix
  product's output;
- not modelled: cuDNN workspaces, CUDA kernels' internal buffers.
"""

from __future__ import annotations

from contextlib import contextmanager

HOST_SCOPE = "stridekit::host"
# cuBLAS workspace on sm_90 (PyTorch 2.11, CUBLAS_WORKSPACE_CONFIG unset: 4096 KiB x 8).
CUBLAS_WORKSPACE_BYTES = 4096 * 1024 * 8
GEMM_OPS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addmv", "aten::mv", "aten::addbmm"}

_host_depth = [0]


@contextmanager
def host():
    """Code whose tensors live on the host even when the model runs on a GPU (a profiler
    scope named ``stridekit::host`` too, for recorders that read the profiler)."""
    from torch.profiler import record_function

    _host_depth[0] += 1
    try:
        with record_function(HOST_SCOPE):
            yield
    finally:
        _host_depth[0] -= 1


def in_host_scope() -> bool:
    """Whether a :func:`host` scope is open (in this process)."""
    return _host_depth[0] > 0


def ops_with_cuda_kernels() -> set[str]:
    """Operator names (the profiler's, without overload) of which some overload has a kernel
    registered for CUDA itself, i.e. not shared with the CPU through a composite."""
    import torch

    names = set()
    for full in torch._C._dispatch_get_all_op_names():
        base = full.split(".")[0]
        if base not in names and torch._C._dispatch_has_kernel_for_dispatch_key(full, "CUDA"):
            names.add(base)
    return names


def drop_reason(host: bool, op_names, freed_inside: str | None = None, cuda_kernels=()) -> str | None:
    """Why a CPU storage is no request of the CUDA allocator (None: it is one).
    `op_names`: the ``aten::`` operators enclosing its allocation, outermost first;
    `freed_inside`: the innermost of them still running when it was freed, if any."""
    if host:
        return "host_inputs_and_step_counters"
    if not op_names:
        return "host_wrapped_scalars"
    if freed_inside is not None and freed_inside in cuda_kernels:
        return "cpu_kernel_internal"
    return None


def is_gemm(op_names) -> bool:
    """Whether the storage was made by a matrix product (the cuBLAS workspace comes with
    the first one)."""
    return any(n in GEMM_OPS for n in op_names)


class CudaRequests:
    """The rules applied online, storage by storage (the tracer's form): ``created`` says
    whether the storage is a request and whether the cuBLAS workspace comes right after."""

    def __init__(self) -> None:
        self.gemm_seen = False
        self.dropped: dict[str, int] = {}

    def created(self, op_name: str | None, host: bool) -> tuple[bool, bool]:
        """(kept, add_workspace_after) for a storage made by `op_name` (None: outside every
        operator)."""
        ops = [op_name] if op_name else []
        why = drop_reason(host, ops)
        if why is not None:
            self.dropped[why] = self.dropped.get(why, 0) + 1
            return False, False
        workspace = not self.gemm_seen and is_gemm(ops)
        self.gemm_seen = self.gemm_seen or workspace
        return True, workspace
