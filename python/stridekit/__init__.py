"""stridekit from Python: PyTorch-exact strided copies over DLPack.

- ``copy_(dst, src, stream=None)``: ``dst.copy_(src)`` in place between any objects
  implementing ``__dlpack__`` (torch, numpy, stridekit arrays), zero-copy on both sides.
- ``contiguous(x, memory_format="contiguous", stream=None)``: a new stridekit-owned
  ``Array`` (``torch.from_dlpack`` / ``numpy.from_dlpack`` share its memory).
- ``explain(source, device="cpu")``: the report of ``stridekit explain --json``.
- ``replay(paths, conf="default")``: ``stridekit alloc replay --json`` over traces.
- ``trace(device="cpu", alloc_conf=None, ...)``: a context manager tracing a block of real
  PyTorch code (``python -m stridekit trace PROG.py`` for a file): explain's report with
  autograd's saved tensors, retained-storage warnings and, with ``device="sim"``, the CUDA
  caching allocator predicted from the CPU run (docs/trace.md).
- ``torch_allocator()``: a ``torch.cuda.memory.CUDAPluggableAllocator`` backed by stridekit's
  caching allocator (one per device, settings from ``STRIDEKIT_ALLOC_CONF``);
  ``torch_stats(device)`` its statistics.
- ``set_num_threads(n)`` / ``get_num_threads()``: the threads of CPU copies (as torch's;
  default ``STRIDEKIT_NUM_THREADS``, else the cores available); ``cpu_capability()`` their
  vector level (``"avx512"``, ``"avx2"`` or ``"default"``, capped by
  ``STRIDEKIT_CPU_CAPABILITY``).

Errors stridekit refuses raise ``StridekitError`` (a ``RuntimeError``) with stridekit's
message, PyTorch's wording where PyTorch has one.
"""

from . import _stridekit
from ._stridekit import _export_counts  # noqa: F401 (tests: capsule lifetime)
from ._stridekit import (
    Array,
    StridekitError,
    __version__,
    build,
    contiguous,
    copy_,
    cpu_capability,
    explain,
    get_num_threads,
    replay,
    set_num_threads,
    torch_stats,
)
from .tracer import trace  # noqa: E402  (imports torch only when a trace starts)

__all__ = [
    "Array",
    "StridekitError",
    "__version__",
    "build",
    "contiguous",
    "copy_",
    "cpu_capability",
    "explain",
    "get_num_threads",
    "library_path",
    "replay",
    "set_num_threads",
    "torch_allocator",
    "torch_stats",
    "trace",
]


def library_path() -> str:
    """The shared library holding the C ABI (``stridekit_copy``, ``stridekit_torch_malloc``,
    ...): this module's own extension file."""
    return _stridekit.__file__


def torch_allocator():
    """PyTorch's pluggable allocator over stridekit's caching allocator.

    Use it before the first CUDA allocation of the process::

        alloc = stridekit.torch_allocator()
        torch.cuda.memory.change_current_allocator(alloc)

    Each CUDA device gets its own stridekit caching allocator (PyTorch's policy) on its first
    allocation, with the settings of ``STRIDEKIT_ALLOC_CONF`` (``PYTORCH_CUDA_ALLOC_CONF``
    syntax); ``stridekit.torch_stats(device)`` gives its statistics.
    """
    import torch

    return torch.cuda.memory.CUDAPluggableAllocator(
        library_path(), "stridekit_torch_malloc", "stridekit_torch_free"
    )
