"""What the tracer's saved-tensor hooks keep of a tensor autograd saves, and the version
check PyTorch makes when the graph unpacks it.

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
