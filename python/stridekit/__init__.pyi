from typing import Any, Literal, Optional, Protocol, Sequence, Tuple, Union

__version__: str
build: str

class StridekitError(RuntimeError):
    """A refused or failed stridekit operation; the message is stridekit's."""

class _DLPack(Protocol):
    def __dlpack__(self, *, stream: Any = ..., max_version: Any = ...) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...

_Stream = Union[None, int, Any]
_MemoryFormat = Union[
    Literal["contiguous", "channels_last", "channels_last_3d", "preserve"], Any
]

class Array:
    """A tensor whose memory stridekit owns, exported through DLPack."""

    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def strides(self) -> Tuple[int, ...]:
        """In elements, as ``torch.Tensor.stride()``."""
    @property
    def dtype(self) -> str:
        """PyTorch's dtype name, e.g. ``"float32"``."""
    @property
    def device(self) -> str:
        """``"cpu"`` or ``"cuda:N"``."""
    @property
    def nbytes(self) -> int: ...
    def __dlpack__(
        self,
        *,
        stream: Optional[int] = None,
        max_version: Optional[Tuple[int, int]] = None,
        dl_device: Optional[Tuple[int, int]] = None,
        copy: Optional[bool] = None,
    ) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...

def copy_(dst: _DLPack, src: _DLPack, stream: _Stream = None) -> Any:
    """``dst.copy_(src)`` in place, zero-copy on both sides; returns ``dst``."""

def set_num_threads(n: int) -> None:
    """Threads of stridekit's CPU copies (0: ``STRIDEKIT_NUM_THREADS``, else the cores)."""

def get_num_threads() -> int:
    """The threads stridekit's CPU copies use."""

def cpu_capability() -> str:
    """The vector level of stridekit's CPU copies: "avx512", "avx2" or "default"."""

def contiguous(
    x: _DLPack, memory_format: _MemoryFormat = "contiguous", stream: _Stream = None
) -> Array:
    """A new stridekit-owned Array with ``x``'s values in ``memory_format``."""

def explain(source: str, device: str = "cpu") -> dict:
    """The report of ``stridekit explain --json`` for a program in the PyTorch subset.

    ``device``: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"sim"`` (a simulated cuda:0 whose
    storages are blocks of PyTorch's caching allocator); ``report["allocator"]`` and each
    ``report["steps"][i]["allocator"]`` hold ``torch.cuda.memory_stats()``'s figures
    (``allocated_bytes.all.current``, ...) on sim and cuda, None on the CPU.
    """

def replay(paths: Union[str, Sequence[str]], conf: str = "default") -> dict:
    """``{"runs": [...]}``: each trace replayed under each ``;``-separated setting."""

def torch_allocator() -> Any:
    """A ``torch.cuda.memory.CUDAPluggableAllocator`` over stridekit's caching allocator."""

def torch_stats(device: int = 0) -> Optional[dict]:
    """The pluggable allocator's statistics on ``device`` (None before its first allocation)."""

def library_path() -> str:
    """The shared library exporting the C ABI (this extension module's file)."""

def _export_counts() -> Tuple[int, int]: ...

def trace(device: str = "cpu", alloc_conf: Optional[str] = None, **options: Any) -> Any:
    """A context manager tracing a block of real PyTorch code (``stridekit.tracer.Tracer``):
    ``t.report()`` the text, ``t.to_json()`` explain's schema plus ``autograd``."""
