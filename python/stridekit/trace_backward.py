"""backward() seen without the tracer's dispatch mode (trace_sim_divergences.txt, class T2).

Under any ``TorchDispatchMode`` every operator output passes through Python, and the Python
object it gets counts as a reference: PyTorch's autograd ``InputBuffer`` then never adds a
second gradient into the first in place (``can_accumulate_inplace`` sees two references) and
sums out of place, one block more per summed gradient than the program makes bare. So while
the engine runs (``torch.autograd.backward``, which ``Tensor.backward`` calls, and
``torch.autograd.grad``, entered from the program) the mode is left off and the storages the
engine makes and frees are read from torch.profiler's memory events (address, bytes; a free
has negative bytes), fed in their order into the tracer's storage events after the engine
returns. Known storages freed meanwhile (saved tensors released with the graph) have their
frees placed by address among them. The storages that outlive the engine (``.grad``, the
results of ``grad``) get their identity after it returns: found by data pointer among the
tensors the call was given and returned, the leaves of their graphs, the named tensors and
the saved ones (the garbage collector's tensors last).

Under ``--device sim`` the engine's first matrix product gets the cuBLAS workspace of the
engine's own cuda:0 thread (cuda_rules.BlasWorkspaces), as on a GPU; under ``--device cuda``
the profiler sees the GPU's own allocations, that workspace among them, and no CPU rule
applies.

Not done this way (the mode stays on): when a profiler already runs (one profiler at a
time), under ``fake``, and a backward inside a backward (hooks).
"""

from __future__ import annotations

from . import cuda_rules


GONE = "stridekit::storage_gone:"


class BackwardWatch:
    """Wraps torch.autograd.backward / grad while a Tracer runs."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.depth = 0
        self.gone: list[int] | None = None  # keys whose storage ended while the engine ran
        self._orig = None
        self._kernels = None  # cuda_rules.ops_with_cuda_kernels(), once

    def install(self, torch):
        ag = torch.autograd
        self._orig = (ag.backward, ag.grad)
        ag.backward = self._wrap(ag.backward)
        ag.grad = self._wrap(ag.grad)

    def uninstall(self, torch):
        if self._orig is not None:
            torch.autograd.backward, torch.autograd.grad = self._orig
            self._orig = None

    def _wrap(self, orig):
        watch = self

        def run(*args, **kwargs):
            return watch._run(orig, args, kwargs)

        run.__wrapped__ = orig
        run.__name__ = orig.__name__
        run.__doc__ = orig.__doc__
        return run

    def _run(self, orig, args, kwargs):
        import torch
        from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode, _push_mode

        t = self.tracer
        mode = getattr(t, "_mode", None)
        if (self.depth or not t._active or t.fake or mode is None
                or _get_current_dispatch_mode() is not mode or torch._C._autograd._profiler_enabled()):
            return orig(*args, **kwargs)
        from torch.autograd import profiler

        known = t._live_addresses()
        prof = profiler.profile(profile_memory=True)
        _pop_mode()
        try:
            prof.__enter__()
        except Exception as e:  # no profiler: the engine runs under the mode, as before
            _push_mode(mode)
            t._failed(e)
            return orig(*args, **kwargs)
        self.gone = []
        self.depth += 1
        out = None
        try:
            out = orig(*args, **kwargs)
            return out
        finally:
            try:
                prof.__exit__(None, None, None)
            except Exception as e:
                t._failed(e)
            _push_mode(mode)
            self.depth -= 1
            gone, self.gone = self.gone, None
            try:
                self._replay(prof, known, gone, (args, kwargs, out))
            except Exception as e:  # the tracer's failure never stops the program
                t._failed(e)

    def storage_gone(self, key):
        """A storage the tracer knows ended while the engine runs. Its memory was allocated
        before the profiler started, so the profiler records no free of it: a profiler event
        named after the key marks the moment instead."""
        self.gone.append(key)
        try:
            import torch

            with torch.profiler.record_function(f"{GONE}{key}"):
                pass
        except Exception as e:
            self.tracer._failed(e)

    def _events(self, prof):
        """(time, order, address, bytes, enclosing aten:: events outermost first) of the
        allocator's events on the traced device, in time order."""
        want = "cuda" if self.tracer.device == "cuda" else "cpu"
        results = getattr(prof, "kineto_results", None)
        if results is None:
            return []
        found, n = [], 0
        todo = [(e, ()) for e in reversed(results.experimental_event_tree())]
        while todo:
            e, ops = todo.pop()
            f = e.extra_fields
            if type(f).__name__ == "_ExtraFields_Allocation":
                if str(f.device).startswith(want):
                    found.append((e.start_time_ns, n, f.ptr, f.alloc_size, ops))
                    n += 1
                continue
            if e.name.startswith(GONE):  # a known storage ended here (see storage_gone)
                try:
                    found.append((e.start_time_ns, n, None, int(e.name[len(GONE):]), ops))
                    n += 1
                except ValueError:
                    pass
                continue
            inner = ops + (e,) if e.name.startswith("aten::") else ops
            todo += [(c, inner) for c in reversed(e.children)]
        found.sort(key=lambda x: (x[0], x[1]))
        return found

    def _cuda_kernels(self):
        if self._kernels is None:
            self._kernels = cuda_rules.ops_with_cuda_kernels()
        return self._kernels

    def _replay(self, prof, known, gone, roots):
        """The engine's storages into the session, in the order the profiler saw them: a
        storage allocated and freed inside an operator that has a CUDA kernel of its own
        is the CPU kernel's internal buffer (no CUDA request, cuda_rules.drop_reason), as
        are storages made outside every operator; under --device cuda every event is the
        GPU's own. After the first allocation inside a matrix product (its output) come the
        workspaces the engine's thread takes (sim; the GPU's are among the events)."""
        t = self.tracer
        session = t.session
        real = t._real_devices
        host = cuda_rules.in_host_scope()
        allocs, live, order = {}, {}, []  # allocs: order -> [bytes, ops, free ops or None]
        left = set(gone)
        reused, unseen = 0, []
        for _, n, ptr, size, ops in self._events(prof):
            if ptr is None:  # a known storage's end (its memory's free has no event)
                if size in left:
                    left.discard(size)
                    order.append(("k", size))
                continue
            if size > 0:
                m = live.pop(ptr, None)
                if m is not None:
                    # An allocator never hands out a live block: the one here was freed
                    # first (its free event is missing or ordered after this allocation).
                    reused += 1
                    allocs[m][2] = allocs[m][1]
                    order.append(("f", m))
                allocs[n] = [size, ops, None]
                live[ptr] = n
                order.append(("a", n))
                continue
            m = live.pop(ptr, None)
            if m is not None:
                allocs[m][2] = ops
                order.append(("f", m))
                continue
            k = known.pop(ptr, None)
            if k is not None and k in left:
                left.discard(k)
                order.append(("k", k))
            elif k is not None:  # its memory went, its storage object did not (yet)
                unseen.append(-size)
        keys = {}
        gemms = set()  # the matrix products whose first allocation was seen
        for kind, v in order:
            if kind == "k":
                session.storage_freed(v)
            elif kind == "a":
                size, ops, freed = allocs[v]
                why = None
                if not real:
                    inside = None
                    if freed is not None:
                        ids = {id(e) for e in freed}
                        common = [e for e in ops if id(e) in ids]
                        inside = common[-1].name if common else None
                    kernels = self._cuda_kernels() if inside is not None else ()
                    why = cuda_rules.drop_reason(host, [e.name for e in ops], inside, kernels)
                keys[v] = t._made_outside_mode(size, why)
                gemm = next((e for e in reversed(ops) if e.name in cuda_rules.CUBLAS_OPS), None)
                if gemm is not None and id(gemm) not in gemms and t._blas is not None and not host:
                    gemms.add(id(gemm))
                    sizes = t._blas.after_backward_op(gemm.name)
                    if not real:
                        t._add_workspaces(sizes)
            else:
                session.storage_freed(keys[v])
        for k in gone:
            if k in left:  # ended without an event of its own (no allocator memory)
                session.storage_freed(k)
        if reused:
            t._notes.append(f"backward(): {reused} allocation(s) at an address still live in the profiler's "
                            "events were taken as freed before it")
        if unseen:
            t._notes.append(f"backward(): {len(unseen)} block(s) of storages known before it were freed while "
                            f"their storage objects lived on (kept allocated until those end): {sorted(unseen)[:8]} bytes")
        info = {ptr: (allocs[n][0], allocs[n][1][-1].name if allocs[n][1] else "no operator")
                for ptr, n in live.items()}
        if real and t._blas is not None:
            # The GPU's workspaces (kept inside a matrix product, no tensor's): not looked for.
            sizes = {-(-n // 512) * 512 for n in (t._blas.cublas_bytes, t._blas.lt_bytes)}
            live = {p: n for p, n in live.items() if not (
                info[p][0] in sizes and any(e.name in cuda_rules.CUBLAS_OPS for e in allocs[n][1]))}
        survivors = {ptr: keys[n] for ptr, n in live.items()}
        if survivors:
            self._adopt(survivors, roots, info)

    def _adopt(self, live, roots, info):
        """Gives the engine's surviving storages their Python identity (see the module).
        `info`: address -> (bytes, innermost operator), for the note on those not found."""
        import gc

        import torch
        from torch.utils._pytree import tree_leaves

        t = self.tracer

        def take(x):
            if not isinstance(x, torch.Tensor):
                return
            for v in (x, x.grad if (x.is_leaf or x.retains_grad) else None):
                if v is None:
                    continue
                try:
                    st = v.untyped_storage()
                    ptr = st.data_ptr()
                except Exception:
                    continue
                k = live.get(ptr)
                if k is not None and st.nbytes() > 0:
                    del live[ptr]
                    t._adopt_storage(st, k)

        leaves = [x for x in tree_leaves(roots) if isinstance(x, torch.Tensor)]
        todo = [x.grad_fn for x in leaves if x.grad_fn is not None]
        seen = set()
        budget = 100000
        while todo and budget > 0 and live:
            budget -= 1
            node = todo.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            v = getattr(node, "variable", None)
            if v is not None:
                leaves.append(v)
            todo += [n for n, _ in getattr(node, "next_functions", ())]
        for x in leaves:
            take(x)
        if live:
            for x in t._named_tensor_objects():
                take(x)
        if live:
            for r in list(t._packed.values()):
                p = r()
                if p is not None:
                    take(p.t)
        if live:
            for o in gc.get_objects():
                if isinstance(o, torch.Tensor):
                    take(o)
                    if not live:
                        break
        if live:
            what = sorted(info[p] for p in live)
            shown = ", ".join(f"{n} bytes in {op}" for n, op in what[:8]) + (" ..." if len(what) > 8 else "")
            t._notes.append(
                f"backward(): {len(live)} storage(s) the engine made and kept could not be found "
                f"(they stay allocated in the figures): {shown}"
            )
