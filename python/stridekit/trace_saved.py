"""What the tracer's saved-tensor hooks keep of a tensor autograd saves, the version check
PyTorch makes when the graph unpacks it, and which graph node saved each (:func:`saved_list`).

Under ``torch.autograd.graph.saved_tensors_hooks`` PyTorch does not check a saved tensor's
version at unpack (``SavedVariable::unpack`` checks it only when no hooks packed it), so a
program that modifies a saved tensor in place and then runs backward would run on past the
error that plain PyTorch raises. The tracer must not change the program's behaviour: the
pack hook records what ``SavedVariable`` records (the version, the output number, and for a
saved output the node that made it) and the unpack hook raises PyTorch's own error, word for
word, where PyTorch without hooks would raise it.
"""

from __future__ import annotations


class Packed:
    """A tensor autograd saved (what the saved-tensor hook packs)."""

    __slots__ = ("t", "grad_fn", "version", "output_nr", "output_of", "__weakref__")

    def __init__(self, t):
        import torch

        self.t, self.grad_fn = t, None
        self.version = t._version
        self.output_nr = t.output_nr
        node = t.grad_fn
        # A node saves its inputs after it is made and its outputs after the op ran: a
        # tensor whose grad_fn is the newest node of this thread is an output of the node
        # saving it (SavedVariable then names that node, not the tensor's grad_fn at
        # unpack time, which an in-place op may have replaced). Only the name is kept: a
        # reference to the node would make a cycle (node -> saved -> node).
        self.output_of = None
        if node is not None and node._sequence_nr() == torch._C._autograd._get_sequence_nr() - 1:
            self.output_of = node.name()


def version_error(p: Packed) -> str | None:
    """PyTorch's message when the saved tensor changed since it was saved (None: it did
    not), as ``SavedVariable::unpack`` builds it."""
    import torch

    t = p.t
    now = t._version
    if now == p.version:
        return None
    msg = (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{t.type()} [{', '.join(str(s) for s in t.shape)}]]"
    )
    name = p.output_of
    if name is None and t.grad_fn is not None:
        name = t.grad_fn.name()
    if name is not None:
        msg += f", which is output {p.output_nr} of {name},"
    msg += f" is at version {now}; expected version {p.version} instead."
    if torch.is_anomaly_enabled():
        msg += (
            " Hint: the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good luck!"
        )
    else:
        msg += (
            " Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )
    return msg


def unpack(p):
    """The saved tensor, or PyTorch's RuntimeError when it was modified in place since."""
    if not isinstance(p, Packed):
        return p
    msg = version_error(p)
    if msg is not None:
        raise RuntimeError(msg)
    return p.t


def saved_list(tracer, named):
    """(meta, "NODE._saved_NAME") of every tensor `tracer` packed: the graph node that saved
    it, found by walking the graph of the `named` tensors ((name, tensor) pairs; `grad_fn`
    and `next_functions`) and reading its `_saved_*`; then the Python numbers the graph saved
    as 0-dim tensors (SavedVariable keeps those without the hooks)."""
    import torch

    # Matched by storage and layout, not identity: a saved output comes back as a new
    # Python object (its grad_fn restored).
    def key(x):
        return (id(x.untyped_storage()), tuple(x.shape), tuple(x.stride()), x.storage_offset())

    by_key = {}
    packed = [p for p in (r() for r in list(tracer._packed.values())) if p is not None]
    for p in packed:
        try:
            by_key.setdefault(key(p.t), []).append(p)
        except Exception:
            continue
    seen = {}
    wrapped = []
    todo = [t.grad_fn for _, t in named if getattr(t, "grad_fn", None) is not None]
    budget = 1_000_000
    while todo and budget > 0:
        budget -= 1
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node  # kept: a freed wrapper's id could be reused
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            try:
                v = getattr(node, attr)
            except Exception:
                continue
            for x in v if isinstance(v, (tuple, list)) else (v,):
                if not isinstance(x, torch.Tensor):
                    continue
                try:
                    cands = by_key.get(key(x), ())
                except Exception:
                    continue
                where = f"{type(node).__name__}.{attr}"
                for p in cands:
                    if p.grad_fn is None:
                        p.grad_fn = where
                        break
                else:
                    if x.dim() == 0 and not any(p.t is x for p in cands):
                        # A Python number the op wrapped into a 0-dim tensor: SavedVariable
                        # keeps wrapped numbers without the saved-tensor hooks (they never
                        # reach the pack hook), but the graph holds them all the same.
                        wrapped.append((x, where))
        todo += [n for n, _ in getattr(node, "next_functions", ()) if n is not None]
    out = [(tracer._meta("saved", p.t), p.grad_fn or "?") for p in packed if _has_storage(p.t)]
    return out + [(tracer._meta("saved", x), where) for x, where in wrapped if _has_storage(x)]


def _has_storage(t) -> bool:
    try:
        t.untyped_storage()
        return True
    except Exception:
        return False
