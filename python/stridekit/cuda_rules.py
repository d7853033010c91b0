"""What a CUDA caching allocator is asked for, given the storages a CPU run of the same
PyTorch program makes: the rules shared by ``stridekit trace --device sim`` and
``scripts/record_model_traces.py`` (whose ``recording`` module loads this file by path, so
it imports nothing of stridekit).

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


# ---- what a CUDA kernel allocates that the CPU run never shows --------------------------
# A dispatch mode sees an operator's outputs only. Where the CUDA implementation makes
# temporaries of its own through the caching allocator (read from ATen's CUDA sources,
# PyTorch 2.11), they are added around the output as events: ("a", bytes) allocates the
# next temporary, ("f", i) frees temporary i (in allocation order).

# Operators whose CUDA kernels check indices on the device (CUDA_KERNEL_ASSERT) after their
# outputs are allocated, where the CPU kernel raises (IndexError / RuntimeError) first.
KERNEL_ASSERT_OPS = {
    "aten::index", "aten::index_select", "aten::gather", "aten::take", "aten::embedding",
    "aten::index_add", "aten::index_copy", "aten::index_fill", "aten::scatter",
    "aten::scatter_add", "aten::scatter_reduce",
}


def index_checked_on_device(op_name: str, error: BaseException) -> bool:
    """Whether the CPU kernel's `error` is an index value check that the CUDA kernel of
    `op_name` makes on the device (after its outputs exist). Checks of dtypes, ranks and
    shapes are host checks on both devices: nothing is allocated before them."""
    import re

    return op_name in KERNEL_ASSERT_OPS and re.search(r"out of (range|bounds)", str(error)) is not None


def _nbytes(t) -> int:
    return t.numel() * t.element_size()


def _same_view(a, b) -> bool:
    """cuda_equal's shortcut: the same elements in the same layout (no kernel runs)."""
    return (
        a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        and a.storage_offset() == b.storage_offset()
        and a.dtype == b.dtype
        and a.is_contiguous() == b.is_contiguous()
        and a.stride() == b.stride()
        and a.is_neg() == b.is_neg()
        and a.is_conj() == b.is_conj()
    )


def _roll_events(t, ndims: int, flatten: bool):
    """roll_cuda / roll_common: a non-contiguous input is first copied contiguous; with
    several dims every dim but the last makes an intermediate that stays alive until the
    output exists. Returns (before, after)."""
    before, after = [], []
    n = _nbytes(t)
    if n == 0:
        return before, after
    i = 0
    if not t.is_contiguous():
        before.append(("a", n))
        copy = i
        i += 1
        if flatten or ndims == 1:
            after.append(("f", copy))  # the copy is the rolled input: freed after the output
        else:
            before.append(("a", n))  # the first intermediate, then the copy goes
            before.append(("f", copy))
            inter = [i]
            i += 1
            for _ in range(ndims - 2):
                before.append(("a", n))
                inter.append(i)
                i += 1
            after += [("f", j) for j in reversed(inter)]
        return before, after
    inter = []
    for _ in range(ndims - 1):
        before.append(("a", n))
        inter.append(i)
        i += 1
    after += [("f", j) for j in reversed(inter)]
    return before, after


def kernel_temporaries(op_name: str, args, kwargs):
    """(before, after): the CUDA implementation's own temporaries of one operator call,
    as events around its output (see above); ([], []) for every other operator."""
    import torch

    if op_name == "aten::equal" and len(args) >= 2:
        a, b = args[0], args[1]
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return [], []
        if a.shape != b.shape or a.numel() == 0 or _same_view(a, b):
            return [], []
        # at::eq(self, src).all().item(): a bool tensor of the shape, then a 0-dim one.
        return [("a", a.numel()), ("a", 1), ("f", 1), ("f", 0)], []
    if op_name == "aten::roll" and args and isinstance(args[0], torch.Tensor):
        shifts = args[1] if len(args) > 1 else kwargs.get("shifts", ())
        dims = args[2] if len(args) > 2 else kwargs.get("dims", ())
        shifts = [shifts] if isinstance(shifts, int) else list(shifts)
        dims = [dims] if isinstance(dims, int) else list(dims)
        if not dims:
            if len(shifts) != 1:
                return [], []
            return _roll_events(args[0], 1, True)
        if len(dims) != len(shifts):
            return [], []
        return _roll_events(args[0], len(dims), False)
    return [], []


def outputs_on_meta(func, args, kwargs) -> list[int] | None:
    """The byte sizes of the outputs `func` makes for these arguments, found by running
    it on meta tensors (shapes only: no index or value checks); None when the meta kernel
    refuses them too (a shape error, which CUDA raises before allocating as well)."""
    import torch
    from torch.utils._pytree import tree_leaves, tree_map

    def meta(x):
        if isinstance(x, torch.Tensor):
            return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta")
        return x

    try:
        out = func(*tree_map(meta, args), **tree_map(meta, kwargs))
    except Exception:
        return None
    return [_nbytes(t) for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
