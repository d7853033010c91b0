"""``stridekit.trace()`` and ``python -m stridekit trace``: explain's report for a real PyTorch program, run by PyTorch itself.

What the tracer sees, and how:

- every aten operator's outputs, through a ``TorchDispatchMode`` (after autograd and after
  composite operators decompose: ``F.linear`` is ``aten.t`` + ``aten.addmm``): sizes,
  strides, storage offset and the untyped storage (one Python object per storage, so its
  identity is the storage's). Factories, ``torch.tensor`` (``aten.lift_fresh``),
  ``torch.load`` (``aten.set_`` on the unpickled storage), in-place and view operators all
  reach it;
- each storage's end, through a ``weakref.finalize`` on it;
- what autograd saves for backward, through ``torch.autograd.graph.saved_tensors_hooks``
  (a packed tensor lives as long as the graph node that saved it);
- ``backward()`` / ``torch.autograd.grad`` without the mode (it would change what the engine
  allocates): the engine's storages from torch.profiler's memory events (trace_backward.py);
- the program's own lines, through ``sys.monitoring`` on Python 3.12 and later, else
  ``sys.settrace`` (trace_events.py; only frames of the program's own file are seen). A
  step is one simple statement of that file that ran to completion, as in ``explain``; with
  ``function_steps`` (the default) statements inside the file's functions are steps too,
  and name that frame's tensors as ``FUNCTION:NAME``;
- ``torch.save``, wrapped while tracing (the ``saves_whole_storage`` warning).

Not seen: operators and lines run in threads the program starts (a dispatch mode is per
thread, line events are taken from the tracing thread; the report warns
``untraced_thread``), code under ``no_dispatch``, and memory that is no tensor storage
(cuBLAS/cuDNN workspaces: ``--device sim`` and ``--device cuda`` add the cuBLAS and
cuBLASLt ones, cuda_rules.BlasWorkspaces).

Every total, the steps, the peak, the warnings, the allocator figures and the report's
text come from stridekit's Rust accounting (``_stridekit.TraceSession``), the code
``stridekit explain`` uses.
"""

from __future__ import annotations

import ast
import json
import math
import sys
import threading
import weakref

from . import cuda_rules
from ._stridekit import TraceSession
from .trace_backward import BackwardWatch as _BackwardWatch
from .trace_events import LineEvents as _LineEvents
from .trace_lines import Lines as _Lines
from .trace_lines import error_of as _error_of
from .trace_saved import Packed as _Packed
from .trace_saved import saved_list as _saved_list
from .trace_saved import unpack as _unpack_saved

class Tracer:
    """A traced run: use :func:`trace` (a block) or ``python -m stridekit trace`` (a file)."""

    def __init__(
        self,
        device: str = "cpu",
        alloc_conf: str | None = None,
        *,
        retained_min_bytes: int = 1 << 20,
        retained_fraction: float = 0.5,
        save_min_extra_bytes: int = 1,
        function_steps: bool = True,
        values_limit: int = 1000,
        fake: bool = False,
        step_counters: str = "host",
    ):
        if device not in ("cpu", "sim", "cuda"):
            raise ValueError(f"unknown device '{device}': the tracer runs on cpu, sim or cuda")
        if step_counters not in ("host", "device"):
            raise ValueError(f"unknown step_counters '{step_counters}': host or device")
        sm90 = True
        if device == "cuda":
            import torch

            if not torch.cuda.is_available():
                raise ValueError("--device cuda: torch sees no CUDA device (use --device sim for the prediction)")
            sm90 = torch.cuda.get_device_capability(0) == (9, 0)
        self.device = device
        # Where the prediction of an optimizer's `torch.tensor` step counters goes under sim:
        # "host" (the model moved with .to(device): PyTorch keeps them on the CPU unless
        # capturable or fused) or "device" (torch.set_default_device("cuda"), as --device
        # cuda runs a program: a factory without a device makes them on cuda:0).
        self.step_counters = step_counters
        # --device cuda: which storages are requests is read from each storage's device.
        self._real_devices = device == "cuda" and not fake
        self.session_sim = device in ("sim", "cuda")
        self.fake = fake
        self.session = TraceSession(
            sim=device in ("sim", "cuda"),
            alloc_conf=alloc_conf,
            retained_min_bytes=retained_min_bytes,
            retained_fraction=retained_fraction,
            save_min_extra_bytes=save_min_extra_bytes,
        )
        self.function_steps = function_steps
        self.values_limit = values_limit
        self._rules = cuda_rules.CudaRequests()
        self._blas = cuda_rules.BlasWorkspaces(sm90=sm90) if self.session_sim else None
        self._keys: dict[int, int] = {}  # id(storage) -> key
        self._sizes: dict[int, int] = {}  # key -> nbytes when last seen
        self._addr: dict[int, int] = {}  # key -> the storage's data pointer (trace_backward)
        self._backward = _BackwardWatch(self)
        self._next_key = 0
        # The tensors autograd saved, in the order it saved them (a dict of weak references,
        # each removed when its graph node goes: a WeakSet's order is arbitrary).
        self._packed: dict[int, weakref.ref] = {}
        self._packed_n = 0
        self._active = False
        self._lines: _Lines | None = None
        self._filename: str | None = None
        self._root = None  # the frame whose namespace names the tensors
        self._statement = 0
        self._line = 0
        self._notes: list[str] = []
        self._tracer_error: str | None = None
        self._output: list[str] = []
        self._error = None
        self._result = None
        self._threads_warned = False
        # One entry per `x[index] = number` running: whether its number is still to be wrapped.
        self._scalar_setitem = []
        self._opt_depth = 0
        # --device cuda: (line, torch.cuda.memory_stats() figures) after every step.
        self._measured: list[tuple[int, dict]] = []

    # ---- storages -------------------------------------------------------------------
    def _key(self, st) -> int:
        """The key of a storage, registering it (without an allocation) on first sight."""
        k = self._keys.get(id(st))
        if k is None:
            k = self._next_key
            self._next_key += 1
            self._keys[id(st)] = k
            self._sizes[k] = st.nbytes()
            self._note_addr(st, k)
            weakref.finalize(st, self._storage_gone, id(st), k)
        return k

    def _note_addr(self, st, k):
        try:
            self._addr[k] = st.data_ptr()
        except Exception:  # no data (meta, fake)
            pass

    def _live_addresses(self) -> dict[int, int]:
        """data pointer -> key of the live storages."""
        return {a: k for k, a in self._addr.items() if a and k in self._sizes}

    def _made_outside_mode(self, nbytes, dropped) -> int:
        """A storage the autograd engine made while the mode was off (trace_backward); a
        CUDA request unless `dropped` (cuda_rules.drop_reason) says why not. Its key."""
        k = self._next_key
        self._next_key += 1
        if dropped is None:
            self.session.storage_created(k, nbytes)
        else:
            self._rules.dropped[dropped] = self._rules.dropped.get(dropped, 0) + 1
        return k

    def _adopt_storage(self, st, k):
        """`st` is the storage of key `k` (made while the mode was off)."""
        self._keys[id(st)] = k
        self._sizes[k] = st.nbytes()
        self._note_addr(st, k)
        weakref.finalize(st, self._storage_gone, id(st), k)

    def _storage_gone(self, sid, key):
        if self._keys.get(sid) == key:
            del self._keys[sid]
        self._sizes.pop(key, None)
        self._addr.pop(key, None)
        if self._backward.gone is not None:  # the engine runs: placed among its events later
            self._backward.storage_gone(key)
            return
        try:
            self.session.storage_freed(key)
        except Exception as e:
            self._failed(e)

    def _created(self, st, op_name):
        """A storage an operator made (or resized): a request of the CUDA allocator."""
        sid = id(st)
        known = self._keys.get(sid)
        nbytes = st.nbytes()
        if known is not None:
            if self._sizes.get(known) == nbytes:
                return
            # resize_: a new block for the new size, then the old one freed.
            old = known
            k = self._next_key
            self._next_key += 1
            self._keys[sid] = k
            self._sizes[k] = nbytes
            self._note_addr(st, k)
            if self._is_request(st, op_name, cuda_rules.in_host_scope()):
                self.session.storage_created(k, nbytes)
            self.session.storage_freed(old)
            weakref.finalize(st, self._storage_gone, sid, k)
            return
        k = self._key(st)
        if op_name == "aten::lift_fresh" and self._scalar_setitem and self._scalar_setitem[-1]:
            # `x[i] = 3.0` wraps the number into a tensor first; for a CUDA `x` PyTorch makes
            # it on the host (python_variable_indexing.cpp), so it is no CUDA request. The
            # index tensors a list index makes after it are on the device.
            self._scalar_setitem[-1] = False
            op_name = None
        # An optimizer's `torch.tensor` step counters stay on the host for a CUDA model
        # (not capturable, not fused), as record_model_traces.py marks them; under
        # step_counters="device" they follow the default device, cuda:0.
        counter = op_name == "aten::lift_fresh" and self._opt_depth > 0 and self.step_counters == "host"
        if self._is_request(st, op_name, cuda_rules.in_host_scope() or counter):
            self.session.storage_created(k, nbytes)

    def _is_request(self, st, op_name, host) -> bool:
        """Whether a storage an operator made is a request of the CUDA allocator: its device
        says so under --device cuda, the rules of cuda_rules under sim."""
        if self._real_devices:
            if st.device.type == "cuda":
                return True
            self._rules.dropped["host_storages"] = self._rules.dropped.get("host_storages", 0) + 1
            return False
        return self._rules.created(op_name, host)

    def _add_workspaces(self, sizes):
        """Workspaces the caching allocator hands cuBLAS/cuBLASLt: blocks kept for good."""
        for n in sizes:
            k = self._next_key
            self._next_key += 1
            self.session.storage_created(k, n)

    def _op(self, func, args, kwargs, out):
        import torch
        from torch.utils._pytree import tree_leaves

        if not self._active:
            return
        try:
            schema = func._schema
            name = schema.name
            T = torch.Tensor
            # A view or in-place operator returns an existing storage (resize_ may grow it).
            # (torch.tensor's `lift_fresh` aliases its input, a storage made outside every
            # operator: that one is new.)
            aliasing = name != "aten::lift_fresh" and any(r.alias_info is not None for r in schema.returns)
            after, temps = (), []
            if self.session_sim and self._on_device(args):
                before, after = cuda_rules.kernel_temporaries(name, args, kwargs)
                self._temporaries(before, temps)
            for t in tree_leaves(out):
                if isinstance(t, T):
                    st = t.untyped_storage()
                    if aliasing and id(st) not in self._keys:
                        self._key(st)
                    else:
                        self._created(st, name)
            if name == "aten::set_":
                for a in tree_leaves((args, kwargs)):
                    if isinstance(a, torch.UntypedStorage):
                        self._created(a, name)
            if self._blas is not None and name in cuda_rules.CUBLAS_OPS and self._on_device(args):
                # The engine runs cuda:0's backward nodes on a thread with a handle of its own.
                thread = "autograd" if torch._C._current_autograd_node() is not None else "main"
                first = next((t for t in tree_leaves(out) if isinstance(t, T)), None)
                self._add_workspaces(self._blas.after(name, args, kwargs, first, thread))
            self._temporaries(after, temps)
        except Exception as e:
            self._failed(e)

    def _on_device(self, args) -> bool:
        """Whether an operator runs on cuda:0: under sim every one outside a host scope,
        under --device cuda the ones given CUDA tensors."""
        if cuda_rules.in_host_scope():
            return False
        if not self._real_devices:
            return True
        return any(getattr(a, "is_cuda", False) for a in args)

    def _temporaries(self, events, keys):
        """Allocations a CUDA kernel makes and frees itself (cuda_rules.kernel_temporaries);
        `keys`: the temporaries' keys so far, in allocation order (extended here)."""
        for kind, v in events:
            if kind == "a":
                k = self._next_key
                self._next_key += 1
                keys.append(k)
                self.session.storage_created(k, v)
            else:
                self.session.storage_freed(keys[v])

    def _op_failed(self, func, args, kwargs, error):
        """An operator raised. Where the CPU kernel refused an index value that the CUDA
        kernel checks on the device, a GPU would have allocated the outputs first (the
        error surfaces later as a device-side assert): under sim they are allocated and
        freed here."""
        if not self._active or not self.session_sim:
            return
        try:
            name = func._schema.name
            if not cuda_rules.index_checked_on_device(name, error) or not self._on_device(args):
                return
            if any(r.alias_info is not None for r in func._schema.returns):
                return  # in place: nothing new
            sizes = cuda_rules.outputs_on_meta(func, args, kwargs)
            keys = []
            for n in sizes or ():
                k = self._next_key
                self._next_key += 1
                keys.append(k)
                self.session.storage_created(k, n)
            for k in reversed(keys):
                self.session.storage_freed(k)
        except Exception as e:
            self._failed(e)

    # ---- autograd --------------------------------------------------------------------
    def _pack(self, t):
        p = _Packed(t)  # trace_saved.Packed: keeps PyTorch's version check (see there)
        if self._active:
            n = self._packed_n
            self._packed_n += 1
            self._packed[n] = weakref.ref(p, lambda _, n=n, d=self._packed: d.pop(n, None))
        return p

    @staticmethod
    def _unpack(p):
        return _unpack_saved(p)

    # ---- names and steps -------------------------------------------------------------
    def _meta(self, name, t):
        st = t.untyped_storage()
        return (name, self._key(st), st.nbytes(), list(t.shape), list(t.stride()),
                t.storage_offset(), t.element_size())

    def _named(self, frame=None, is_root=True):
        """(name, tensor) of the named tensors: the root namespace's tensors and the
        parameters and buffers of its nn.Modules, then `frame`'s locals."""
        import torch

        T = torch.Tensor
        Module = torch.nn.Module
        out = []
        seen_names = set()

        def add(prefix, ns):
            for name, v in list(ns.items()):
                if name.startswith("__stridekit") or name in seen_names:
                    continue
                if isinstance(v, T):
                    out.append((prefix + name, v))
                elif isinstance(v, Module):
                    try:
                        for pn, p in v.named_parameters():
                            out.append((f"{prefix}{name}.{pn}", p))
                        for bn, b in v.named_buffers():
                            out.append((f"{prefix}{name}.{bn}", b))
                    except Exception:
                        pass

        root = self._root
        ns = root.f_globals if root is not None and self._root_is_module else (root.f_locals if root is not None else {})
        add("", ns)
        if frame is not None and not is_root:
            add(f"{frame.f_code.co_name}:", frame.f_locals)
        metas = []
        for name, t in out:
            try:
                metas.append(self._meta(name, t))
            except Exception:  # sparse, nested and other storage-less tensors
                continue
        return metas

    def _named_tensor_objects(self):
        """The tensors of the root namespace and its nn.Modules' parameters and buffers."""
        import torch

        root = self._root
        ns = root.f_globals if root is not None and self._root_is_module else (root.f_locals if root is not None else {})
        for v in list(ns.values()):
            if isinstance(v, torch.Tensor):
                yield v
            elif isinstance(v, torch.nn.Module):
                try:
                    yield from list(v.parameters())
                    yield from list(v.buffers())
                except Exception:
                    pass

    def _step(self, line, frame, is_root):
        if not is_root and not self.function_steps:
            return
        self._check_threads()
        if is_root and line in self._lines.multi:
            named = self._named(frame, is_root)
            for statement in self._lines.multi[line]:
                self.session.step(statement, line, named)
                self._measure(line)
            return
        statement = self._lines.top.get(line, self._statement) if is_root else self._statement
        self.session.step(statement, line, self._named(frame, is_root))
        self._measure(line)

    _MEASURED = ("allocated_bytes.all.current", "reserved_bytes.all.current", "active_bytes.all.current",
                 "inactive_split_bytes.all.current", "segment.all.current", "allocated_bytes.all.peak",
                 "reserved_bytes.all.peak")

    def _measure(self, line):
        if self.device == "cuda":
            import torch

            st = torch.cuda.memory_stats()
            self._measured.append((line, {k: st.get(k, 0) for k in self._MEASURED}))

    def _check_threads(self):
        if not self._threads_warned and self._thread_started:
            self._threads_warned = True
            self.session.warn(
                self._statement, self._line, "untraced_thread",
                "the program started a thread: the tracer sees only the main thread's operators "
                "and lines (a dispatch mode is per thread; line events are taken from the thread that "
                "started the trace)",
            )

    def _failed(self, e):
        if self._tracer_error is None:
            self._tracer_error = f"{type(e).__name__}: {e}"

    # ---- torch.save ------------------------------------------------------------------
    def _wrap_save(self, torch):
        original = torch.save
        tracer = self

        def save(obj, f, *args, **kwargs):
            if tracer._active:
                try:
                    tracer._saved_to_file(obj)
                except Exception as e:
                    tracer._failed(e)
            return original(obj, f, *args, **kwargs)

        save.__wrapped__ = original
        return original, save

    def _saved_to_file(self, obj):
        import torch

        names = {}
        root = self._root
        if root is not None:
            ns = root.f_globals if self._root_is_module else root.f_locals
            names = {id(v): k for k, v in ns.items() if isinstance(v, torch.Tensor)}
        todo = [(names.get(id(obj), "obj"), obj)]
        budget = 100000
        while todo and budget > 0:
            budget -= 1
            name, v = todo.pop()
            if isinstance(v, torch.Tensor):
                self.session.saved_to_file(self._statement, self._line, self._meta(name, v))
            elif isinstance(v, dict):
                todo += [(f"{name}[{k!r}]", x) for k, x in v.items()]
            elif isinstance(v, (list, tuple)):
                todo += [(f"{name}[{i}]", x) for i, x in enumerate(v)]
            elif isinstance(v, torch.nn.Module):
                todo += [(f"{name}.{k}", x) for k, x in v.state_dict(keep_vars=True).items()]

    # ---- running ---------------------------------------------------------------------
    def _start(self, root_frame, filename, lines, root_is_module, root_code=None):
        """Starts seeing the run. `root_frame`: the running frame that names the tensors (a
        ``with`` block), else `root_code`: the code whose first call is that frame."""
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        tracer = self

        class _Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                try:
                    out = func(*args, **kwargs)
                except Exception as e:
                    tracer._op_failed(func, args, kwargs, e)
                    raise
                tracer._op(func, args, kwargs, out)
                return out

        self._filename = filename
        self._lines = lines
        self._root = root_frame
        self._root_is_module = root_is_module
        self._thread_started = False
        self._orig_thread_start = threading.Thread.start
        orig_start = self._orig_thread_start

        def start(th, *a, **k):
            tracer._thread_started = True
            return orig_start(th, *a, **k)

        threading.Thread.start = start
        self._fake_mode = None
        if self.fake:
            from torch._subclasses.fake_tensor import FakeTensorMode

            self._fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
            self._fake_mode.__enter__()
            self._device_ctx = torch.device("cuda")
            self._device_ctx.__enter__()
            self._notes.append(
                "--fake: FakeTensorMode with device='cuda' (no data, no values); forward only "
                "without a GPU: backward needs a CUDA context PyTorch cannot fake (pytorch#92627)"
            )
        self._cuda_ctx = None
        if self.device == "cuda":
            # Factories without a device make CUDA tensors; the allocator starts clean: the
            # cuBLAS/cuBLASLt workspaces of earlier matrix products are dropped (PyTorch
            # takes new ones at the next, as the model predicts), the cache emptied.
            torch.cuda.synchronize()
            clear = getattr(torch._C, "_cuda_clearCublasWorkspaces", None)
            if clear is not None:
                clear()
            else:
                self._notes.append("cuda: this torch cannot drop its cuBLAS workspaces: earlier ones stay")
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            held = torch.cuda.memory_allocated()
            if held:
                self._notes.append(
                    f"cuda: {held} bytes were allocated on cuda:0 before the trace started: torch_cuda "
                    "counts them, the prediction does not")
            self._cuda_ctx = torch.device("cuda")
            self._cuda_ctx.__enter__()
        self._mode = _Mode()
        self._mode.__enter__()
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._hooks.__enter__()
        self._torch = torch
        self._orig_save, torch.save = self._wrap_save(torch)
        self._orig_setitem = torch.Tensor.__setitem__
        orig_setitem = self._orig_setitem

        def __setitem__(t, index, value):
            if isinstance(value, (int, float, bool, complex)):
                tracer._scalar_setitem.append(True)
                try:
                    return orig_setitem(t, index, value)
                finally:
                    tracer._scalar_setitem.pop()
            return orig_setitem(t, index, value)

        torch.Tensor.__setitem__ = __setitem__

        def pre(opt, args, kwargs):
            tracer._opt_depth += 1

        def post(opt, args, kwargs):
            tracer._opt_depth = max(0, tracer._opt_depth - 1)

        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        self._opt_hooks = (register_optimizer_step_pre_hook(pre), register_optimizer_step_post_hook(post))
        self._backward.install(torch)
        self._active = True
        self._events = _LineEvents(self, root_frame, root_code)
        self._root_tracer = self._events.root
        self._events.start()

    def _stop(self):
        self._active = False
        self._events.stop()
        self._torch.save = self._orig_save
        threading.Thread.start = self._orig_thread_start
        self._torch.Tensor.__setitem__ = self._orig_setitem
        self._backward.uninstall(self._torch)
        for h in self._opt_hooks:
            h.remove()
        self._hooks.__exit__(None, None, None)
        self._mode.__exit__(None, None, None)
        if self._cuda_ctx is not None:
            self._cuda_ctx.__exit__(None, None, None)
        if self._fake_mode is not None:
            self._device_ctx.__exit__(None, None, None)
            self._fake_mode.__exit__(None, None, None)

    def _finish(self):
        """Builds the report (once)."""
        if self._result is not None:
            return self._result
        try:
            self._check_threads()
        except Exception as e:
            self._failed(e)
        named = self._named_tensors_final()
        finals = [
            (meta, str(t.dtype).replace("torch.", ""), int(getattr(t, "_version", 0)), self._values(t))
            for meta, t in named
        ]
        saved = _saved_list(self, named)
        notes = list(self._notes)
        if self._blas is not None:
            note = self._blas.note(self.device)
            if note:
                notes.append(note)
        if self._rules.dropped:
            notes.append(f"{self.device}: not CUDA allocations: " + ", ".join(
                f"{k} {v}" for k, v in sorted(self._rules.dropped.items())))
        if self._tracer_error is not None:
            notes.append(f"the tracer failed and stopped seeing part of the run: {self._tracer_error}")
        self._result = self.session.finish(
            finals, saved, "".join(self._output),
            self._error, {k: v for k, v in self._lines.sources.items()} if self._lines else {}, notes,
        )
        return self._result

    def _named_tensors_final(self):
        import torch

        metas = self._named()
        # map names back to tensors (for dtype, version and values)
        root = self._root
        ns = {}
        if root is not None:
            ns = root.f_globals if self._root_is_module else root.f_locals
        out = []
        for m in metas:
            name = m[0]
            base, _, rest = name.partition(".")
            v = ns.get(base)
            if rest and isinstance(v, torch.nn.Module):
                v = dict(v.named_parameters()).get(rest, dict(v.named_buffers()).get(rest))
            if isinstance(v, torch.Tensor):
                out.append((m, v))
        return out

    def _values(self, t) -> str:
        if self.fake or t.numel() > self.values_limit or t.device.type == "cuda" or t.is_complex() or t.device.type == "meta":
            return ""
        try:
            vals = t.detach().reshape(-1).tolist()
        except Exception:
            return ""

        def conv(v):
            if isinstance(v, float) and not math.isfinite(v):
                return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
            return v

        return json.dumps([conv(v) for v in vals])

    # ---- results ---------------------------------------------------------------------
    def to_json(self) -> dict:
        """The report as a dict: explain's schema plus ``autograd`` and ``notes``; with
        ``device="cuda"`` every step also has ``torch_cuda`` (PyTorch's own
        ``torch.cuda.memory_stats()`` figures there) beside ``allocator`` (the prediction)."""
        rep = self._finish()[0]
        if self._measured:
            # Steps past the 100th run of a line are not listed (explain's rule): skip the
            # same measurements.
            listed, per_line = [], {}
            for line, m in self._measured:
                per_line[line] = per_line.get(line, 0) + 1
                if per_line[line] <= 100:
                    listed.append(m)
            for step, m in zip(rep["steps"], listed):
                step["torch_cuda"] = m
                step["difference"] = {k: m[k] - (step["allocator"] or {}).get(k, 0) for k in m}
        return rep

    def report(self) -> str:
        """The report's text."""
        return self._finish()[1]

    def save_trace(self, path: str) -> None:
        """Writes the allocation requests (anchors CSV) that ``stridekit alloc replay`` and
        ``alloc tune`` read."""
        text = self.session.trace_csv([f"stridekit trace ({self.device}): storages in creation order"])
        with open(path, "w") as f:
            f.write(text)

    def allocator(self):
        """The simulated allocator's figures now (None on the CPU)."""
        return self.session.allocator()

    # ---- the context manager ---------------------------------------------------------
    def __enter__(self):
        import inspect

        import linecache

        frame = sys._getframe(1)
        filename = frame.f_code.co_filename
        source = "".join(linecache.getlines(filename, frame.f_globals))
        if not source:
            self._notes.append(f"no source for {filename}: operators and storages traced, no steps")
        enter_line = frame.f_lineno

        def with_body(tree):
            best = None
            for node in ast.walk(tree):
                if isinstance(node, ast.With) and node.lineno <= enter_line <= node.body[0].lineno:
                    best = node.body
            return best

        lines = _Lines(source, with_body)
        self._start(frame, filename, lines, frame.f_code.co_name == "<module>")
        self._statement = 0
        return self

    def __exit__(self, et, ev, tb):
        # The last statement of the block ended (normally) or raised.
        if et is None:
            self._root_tracer.end(self._root)
        else:
            self._error = _error_of(ev, self._filename, self._lines, self._statement)
        self._root_tracer.pending = None
        self._stop()
        return False


def trace(device: str = "cpu", alloc_conf: str | None = None, **options) -> Tracer:
    """Traces a block of code::

        with stridekit.trace(device="sim") as t:
            y = x @ w + b
        print(t.report()); t.to_json()

    The names of the tensors are those of the namespace the ``with`` is written in (a
    function's locals or the module's globals). ``device``: "cpu", or "sim" (every storage
    replayed into PyTorch's caching allocator on a simulated cuda:0, ``alloc_conf`` in
    PYTORCH_CUDA_ALLOC_CONF syntax). Options: ``retained_min_bytes``,
    ``retained_fraction``, ``save_min_extra_bytes``, ``function_steps``, ``values_limit``,
    ``fake``, ``step_counters`` ("host", default: an optimizer's step counters are host
    tensors, as for a model moved with ``.to(device)``; "device": on cuda:0, as under
    ``torch.set_default_device("cuda")``)."""
    return Tracer(device, alloc_conf, **options)
