#!/usr/bin/env python3
"""Golden `stridekit explain --json` reports, produced by running programs under PyTorch.

Requirements: PyTorch 2.11 on the CPU, nothing else:

    pip install torch==2.11.0

`explain(program)` runs a program of stridekit's PyTorch subset (issue 2, section 8) one
top-level statement at a time, exactly as Python would after `import torch`, and returns the
JSON report that `stridekit explain --json` must print for it:

    {"tensors": [...], "storages": [...], "totals": {...}, "steps": [...],
     "peak": null | {...}, "output": "...", "error": null | {...}}

CLI:

    python scripts/torch_golden.py prog1.py prog2.py ...      # one golden line per file
    python scripts/torch_golden.py --jsonl programs.jsonl     # lines {"name", "program"}
    python scripts/torch_golden.py --self-check               # TV-209 must give 48/96/144

Each output line is `{"name": ..., "program": ..., "expected": {...}}` (written to stdout, or
to `--out FILE`).  The committed golden files are made by scripts/gen_programs.py, which
imports `explain` from here; see tests/golden/README.md.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import math
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from program_steps import BLOCKS, EXPRESSION_FRAMES, PER_LINE, STEP_FN, instrument  # noqa: E402

# `x.T` on tensors that are not 2-D is deprecated (a UserWarning); it still works in 2.11.
warnings.simplefilter("ignore")

# --------------------------------------------------------------------------------------------
# Error kinds.  The kind is derived from the exception's message, first match wins (order
# matters: "Dimension out of range" must be tested before the generic "out of range").  The
# Rust side assigns the same kinds to the same messages.  Every entry below was triggered in
# torch 2.11 (the example message follows each entry).
# --------------------------------------------------------------------------------------------
ERROR_KIND_TABLE: list[tuple[str, str]] = [
    # x.t().view(-1): "view size is not compatible with input tensor's size and stride (at
    # least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."
    ("view size is not compatible", "view_incompatible"),
    # "shape '[4, -1]' is invalid for input of size 6"
    ("is invalid for input of size", "invalid_shape"),
    # view(-1, -1): "only one dimension can be inferred"
    ("only one dimension can be inferred", "invalid_shape"),
    # view(-2, 3): "invalid shape dimension -2 at index 0 of shape [-2, 3]"
    ("invalid shape dimension", "invalid_shape"),
    # zeros(0, 3).view(-1, 0): "cannot reshape tensor of 0 elements into shape [-1, 0] because
    # the unspecified dimension size -1 can be any value and is ambiguous"
    ("cannot reshape tensor of 0 elements", "invalid_shape"),
    # empty(-1, 2) / ones(-2) / full((-1,), 2): "Trying to create tensor with negative
    # dimension -1: [-1, 2]"
    ("negative dimension", "invalid_shape"),
    # zeros(-1, 3): "zeros: Dimension size must be non-negative."
    ("Dimension size must be non-negative", "invalid_shape"),
    # unfold(1, 4, 1) on size 3: "maximum size for tensor at dimension 1 is 3 but size is 4"
    ("maximum size for tensor at dimension", "invalid_shape"),
    # narrow(1, 1, -1): "narrow(): length must be non-negative."
    ("length must be non-negative", "invalid_shape"),
    # unfold(1, -1, 1): "size is -1 but must be >= 0"
    ("but must be >= 0", "invalid_shape"),
    # as_strided((-4,), (1,)): "Storage size calculation overflowed with sizes=[-4] and
    # strides=[1]"
    ("Storage size calculation overflowed", "invalid_shape"),
    # as_strided((2, 2), (1, 2, 3)): "mismatch in length of strides and shape"
    ("mismatch in length of strides and shape", "invalid_shape"),
    # torch.tensor([[1, 2], [3]]): "expected sequence of length 2 at dim 1 (got 1)"
    ("expected sequence of length", "invalid_shape"),
    # expand(3, 3) of (2, 3): "The expanded size of the tensor (3) must match the existing size
    # (2) at non-singleton dimension 0.  Target sizes: [3, 3].  Tensor sizes: [2, 3]"
    # (also x[0] = t with a non-broadcastable t)
    ("The expanded size of the tensor", "expand_invalid"),
    # expand(3) of (2, 3): "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes
    # provided (1) must be greater or equal to the number of dimensions in the tensor (2)"
    ("the number of sizes provided", "expand_invalid"),
    # zeros(2, 3).copy_(zeros(3, 3)): "The size of tensor a (2) must match the size of tensor
    # b (3) at non-singleton dimension 0"
    ("must match the size of tensor", "expand_invalid"),
    # arange(6.).copy_(zeros(1, 6)): "output with shape [6] doesn't match the broadcast shape
    # [1, 6]"
    ("doesn't match the broadcast shape", "expand_invalid"),
    # as_strided((4, 4), (3, 1)) on 10 floats: "setStorage: sizes [4, 4], strides [3, 1],
    # storage offset 0, and itemsize 4 requiring a storage size of 52 are out of bounds for
    # storage of size 40"
    ("setStorage:", "out_of_bounds_storage"),
    # as_strided((4,), (1,), -1): "Tensor: invalid storage offset -1"
    ("invalid storage offset", "out_of_bounds_storage"),
    # expand(...).add_(1): "unsupported operation: more than one element of the written-to
    # tensor refers to a single memory location. Please clone() the tensor before performing
    # the operation."
    ("more than one element of the written-to tensor", "internal_overlap"),
    # a[1:4] = a[0:3]: "unsupported operation: some elements of the input tensor and the
    # written-to tensor refer to a single memory location. Please clone() the tensor before
    # performing the operation."
    ("some elements of the input tensor and the written-to tensor", "partial_overlap"),
    # transpose(0, 2) of 2-D: "Dimension out of range (expected to be in range of [-2, 1], but
    # got 2)"
    ("Dimension out of range", "dim_out_of_range"),
    # zeros(2, 3, 4).t(): "t() expects a tensor with <= 2 dimensions, but self is 3D"
    ("expects a tensor with <= 2 dimensions", "dim_out_of_range"),
    # arange(4.).mT: "tensor.mT is only supported on matrices or batches of matrices. Got 1-D
    # tensor."
    ("only supported on matrices", "dim_out_of_range"),
    # zeros(2, 3).contiguous(memory_format=torch.channels_last): "required rank 4 tensor to use
    # channels_last format" (and "required rank 5 tensor to use channels_last_3d format")
    ("required rank", "dim_out_of_range"),
    # flatten(1, 0): "flatten() has invalid args: start_dim cannot come after end_dim"
    ("start_dim cannot come after end_dim", "dim_out_of_range"),
    # x.index_select(0, tensor([2])) on 2 rows (negative indices too): "index out of range in
    # self"; a 2-d index: "index_select(): Index is supposed to be a vector"
    ("index out of range in self", "index_out_of_range"),
    ("Index is supposed to be a vector", "index_out_of_range"),
    # a float index: "index_select(): Expected dtype int32 or int64 for index"
    ("Expected dtype int32 or int64 for index", "dtype_unsupported"),
    # x[2] on size 2: "index 2 is out of bounds for dimension 0 with size 2"
    ("out of bounds for dimension", "index_out_of_range"),
    # x[0, 0, 0] on 2-D: "too many indices for tensor of dimension 2"
    ("too many indices", "index_out_of_range"),
    # select(1, 3): "select(): index 3 out of range for tensor of size [2, 3] at dimension 1"
    ("out of range for tensor of size", "index_out_of_range"),
    # narrow(1, 4, 0): "start out of range (expected to be in range of [-3, 3], but got 4)"
    ("start out of range", "index_out_of_range"),
    # narrow(1, 2, 2): "start (2) + length (2) exceeds dimension size (3)."
    ("exceeds dimension size", "index_out_of_range"),
    # tensor(1.)[0]: "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or
    # `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
    ("invalid index of a 0-dim", "index_out_of_range"),
    # select / narrow / slice of a 0-dim tensor: "select() cannot be applied to a 0-dim
    # tensor." ("narrow() ...", "slice() ...")
    ("cannot be applied to a 0-dim tensor", "index_out_of_range"),
    # x[:, ::-1]: "step must be greater than zero" (ValueError)
    ("step must be greater than zero", "bad_step"),
    # x[::0]: "slice step cannot be zero" (ValueError)
    ("slice step", "bad_step"),
    # unfold(1, 2, 0): "step is 0 but must be > 0"
    ("but must be > 0", "bad_step"),
    # arange(0, 5, 0): "step must be nonzero"
    ("step must be nonzero", "bad_step"),
    # arange(0, 5, -1) / arange(5, 0): "upper bound and lower bound inconsistent with step sign"
    ("inconsistent with step sign", "bad_step"),
    # permute(0, 0): "permute(): duplicate dims are not allowed."; permute(0) of 2-D:
    # "permute(sparse_coo): number of dimensions in the tensor input does not match the length
    # of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1"
    ("permute", "bad_permutation"),
    ("duplicate dims", "bad_permutation"),
    # movedim((0, 1), (0, 0)): "movedim: repeated dim in `destination` ([0, 0])"
    ("movedim: repeated", "bad_permutation"),
    # movedim((0, 1), (0,)): "movedim: Invalid source or destination dims: source ([0, 1] dims)
    # should contain the same number of dims as destination ([0] dims)"
    ("movedim: Invalid source or destination", "bad_permutation"),
    # diagonal(0, 0, 0): "diagonal dimensions cannot be identical 0, 0"
    ("diagonal dimensions cannot be identical", "bad_permutation"),
    # squeeze((0, 0)): "dim 0 appears multiple times in the list of dims"
    ("appears multiple times in the list of dims", "bad_permutation"),
    # -torch.tensor([True]): "Negation, the `-` operator, on a bool tensor is not supported. ..."
    ("on a bool tensor is not supported", "dtype_unsupported"),
    # bool - bool: "Subtraction, the `-` operator, with two bool tensors is not supported. ..."
    ("with two bool tensors is not supported", "dtype_unsupported"),
    # torch.where(int_tensor, a, b): "where expected condition to be a boolean tensor, but got a
    # tensor with dtype Long"
    ("where expected condition to be a boolean tensor", "dtype_unsupported"),
    # x.masked_fill_(float_mask, 0): "masked_fill_ only supports boolean masks, but got mask with
    # dtype float"
    ("only supports boolean masks", "dtype_unsupported"),
    # x[[0, 2]] = int tensor into a float one: "Index put requires the source and destination
    # dtypes match, got Float for the destination and Long for the source."
    ("Index put requires the source and destination dtypes match", "dtype_unsupported"),
    # x[torch.tensor([0.])]: "tensors used as indices must be long, int, byte or bool tensors"
    ("tensors used as indices must be", "index_out_of_range"),
    # x[[0, 1], [0, 1, 2]]: "shape mismatch: indexing tensors could not be broadcast together
    # with shapes [2], [3]"
    ("indexing tensors could not be broadcast", "index_out_of_range"),
    # x[[0, 1]] = t of a wrong shape: "shape mismatch: value tensor of shape [3] cannot be
    # broadcast to indexing result of shape [2]"
    ("cannot be broadcast to indexing result", "expand_invalid"),
    # x.repeat(2) of 2-d: "Number of dimensions of repeat dims can not be smaller than number of
    # dimensions of tensor"
    ("Number of dimensions of repeat dims", "invalid_shape"),
    # torch.cat([2-d, 1-d]): "Tensors must have same number of dimensions: got 2 and 1"
    ("Tensors must have same number of dimensions", "invalid_shape"),
    # torch.cat: "Sizes of tensors must match except in dimension 2. Expected size 3 but got
    # size 2 for tensor number 1 in the list."
    ("Sizes of tensors must match except in dimension", "invalid_shape"),
    # torch.stack: "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and
    # [3] at entry 1"
    ("stack expects each tensor to be equal size", "invalid_shape"),
    # torch.zeros(0, 3).amax(1) / amax() of an empty tensor: "amax(): Expected reduction dim 1
    # to have non-zero size." / "... Expected reduction dim to be specified for input.numel()
    # == 0 ..."
    ("Expected reduction dim", "index_out_of_range"),
    # torch.arange(3).mean(): "mean(): could not infer output dtype. Input dtype must be either
    # a floating point or complex dtype. Got: Long"
    ("could not infer output dtype", "dtype_unsupported"),
    # points.storage()[10] on 6 elements: "index 10 out of range for storage of size 6"
    ("out of range for storage of size", "index_out_of_range"),
    # int64 tensor .add_(1.5): "result type Float can't be cast to the desired output type Long"
    ("can't be cast to the desired output type", "dtype_unsupported"),
    # matmul / mm / bmm / mv / dot / addmm shapes and dtypes (issue 21): "mat1 and mat2 shapes
    # cannot be multiplied (2x3 and 4x5)", "size mismatch, got input (2), mat (2x3), vec (4)",
    # "inconsistent tensor size, expected tensor [3] and src [4] ...", "both arguments to
    # matmul need to be at least 1D ...", "self must be a matrix", "batch2 must be a 3D
    # tensor", "Expected size for first two dimensions of batch2 tensor ..."
    ("cannot be multiplied", "invalid_shape"),
    ("size mismatch, got input", "invalid_shape"),
    ("inconsistent tensor size", "invalid_shape"),
    ("need to be at least 1D", "invalid_shape"),
    ("must be a matrix", "invalid_shape"),
    ("must be a 3D tensor", "invalid_shape"),
    ("Expected size for first two dimensions of batch2", "invalid_shape"),
    ("Padding length", "invalid_shape"),
    # "expected m1 and m2 to have the same dtype, but got: float != double", "dot : expected
    # both vectors to have same dtype, but found Float and Double"
    ("to have the same dtype", "dtype_unsupported"),
    ("expected both vectors to have same dtype", "dtype_unsupported"),
    ("expected scalar type", "dtype_unsupported"),
    ("must have the same dtype", "dtype_unsupported"),
    ("Boolean inputs not supported", "dtype_unsupported"),
    # arange(5, dtype=torch.bool): '"arange_cpu" not implemented for \'Bool\''
    ("not implemented for", "dtype_unsupported"),
    # int tensor .add_(2, alpha=1.5): "For integral input tensors, argument alpha must not be a
    # floating point number."
    ("argument alpha must not be a floating point number", "dtype_unsupported"),
    # float tensor .add_(1, alpha=True): "Boolean alpha only supported for Boolean results."
    ("Boolean alpha only supported", "dtype_unsupported"),
    # torch.zeros(2**40): "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator:
    # can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot
    # allocate memory)"
    ("DefaultCPUAllocator: can't allocate memory", "out_of_memory"),
    # torch.empty(2**62): "Storage size calculation overflowed with sizes=[4611686018427387904]"
    # (listed above, with as_strided's overflow: invalid_shape)
    # Everything else is "other", e.g. int8 .fill_(300): "value cannot be converted to type
    # int8_t without overflow"; as_strided with a negative stride: "as_strided: Negative strides
    # are not supported at the moment, got strides: [3, -1]".
]


def error_kind(message: str) -> str:
    """The stridekit error kind for a PyTorch exception message (see ERROR_KIND_TABLE)."""
    for needle, kind in ERROR_KIND_TABLE:
        if needle in message:
            return kind
    return "other"


# --------------------------------------------------------------------------------------------
# Report fields
# --------------------------------------------------------------------------------------------
def dtype_name(dtype: torch.dtype) -> str:
    """PyTorch's name without the module prefix: torch.float32 -> "float32"."""
    return str(dtype).removeprefix("torch.")


def json_value(v):
    """One element as the JSON report writes it: bools as 0/1, non-finite floats as strings."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def is_channels_last(t: torch.Tensor) -> bool:
    """channels_last for 4-d, channels_last_3d for 5-d, false for every other rank."""
    if t.dim() == 4:
        return t.is_contiguous(memory_format=torch.channels_last)
    if t.dim() == 5:
        return t.is_contiguous(memory_format=torch.channels_last_3d)
    return False


def element_offsets(t: torch.Tensor) -> torch.Tensor:
    """Storage element offsets (offset + sum(i * stride)) of every element, as an int64 tensor."""
    off = torch.tensor([t.storage_offset()], dtype=torch.int64)
    for size, stride in zip(t.shape, t.stride()):
        steps = torch.arange(size, dtype=torch.int64) * stride
        off = (off.unsqueeze(-1) + steps).flatten()
    return off


def addressed_bytes(tensors: list[torch.Tensor]) -> int:
    """Size of the union of the byte ranges [itemsize*elem, +itemsize) over all elements."""
    parts = []
    for t in tensors:
        isz = t.element_size()
        start = element_offsets(t) * isz
        parts.append((start.unsqueeze(-1) + torch.arange(isz, dtype=torch.int64)).flatten())
    if not parts:
        return 0
    return int(torch.unique(torch.cat(parts)).numel())


def live_tensors(ns: dict) -> list[tuple[str, torch.Tensor]]:
    """The names bound to tensors in namespace `ns`, in dict order."""
    return [(n, v) for n, v in ns.items() if isinstance(v, torch.Tensor)]


def autograd_usage(live: list[tuple[str, torch.Tensor]], storage_ids: dict[int, int]) -> dict:
    """The report's `autograd` section (the tracer's schema): every tensor the nodes of the
    graph behind the live tensors saved (`_saved_*` attributes, named `Node._saved_slot`; freed
    ones, and ones written in place since, raise and are skipped), the bytes of their distinct
    storages, and the bytes of those storages no live name is on. `storage_ids`: the report's
    storage ids (StorageImpl pointer -> id)."""
    todo = [t.grad_fn for _, t in live if t.grad_fn is not None]
    seen: set[int] = set()
    kept = []  # the node objects visited, alive so that their id()s stay unique
    storages: dict[int, int] = {}
    saved = []
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        kept.append(node)
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            try:
                value = getattr(node, attr)
            except RuntimeError:  # freed by a backward without retain_graph, or version moved
                continue
            values = value if isinstance(value, (tuple, list)) else [value]
            for v in values:
                if isinstance(v, torch.Tensor):
                    st = v.untyped_storage()
                    storages[st._cdata] = st.nbytes()
                    saved.append(
                        {
                            "grad_fn": f"{type(node).__name__}.{attr}",
                            "shape": list(v.shape),
                            "strides": list(v.stride()),
                            "storage_offset": v.storage_offset(),
                            "itemsize": v.element_size(),
                            "bytes": v.numel() * v.element_size(),
                            "storage_nbytes": st.nbytes(),
                            "storage": storage_ids.get(st._cdata),
                        }
                    )
        todo.extend(n for n, _ in node.next_functions if n is not None)
    return {
        "saved_tensors": saved,
        "saved_storage_bytes": sum(storages.values()),
        "graph_only_storage_bytes": sum(b for k, b in storages.items() if k not in storage_ids),
    }


def step(index: int, line: int, ns: dict) -> dict:
    """One entry of the report's `steps`: the totals after the simple statement on `line` of
    top-level statement `index` ran."""
    r = report(ns, None)
    out = {
        "statement": index,
        "line": line,
        **r["totals"],
        "live_tensors": len(r["tensors"]),
        "live_storages": len(r["storages"]),
    }
    a = r["autograd"]
    if a["saved_tensors"]:  # no entry while the graph saves nothing
        out["autograd"] = {
            "saved_tensor_count": len(a["saved_tensors"]),
            "saved_storage_bytes": a["saved_storage_bytes"],
            "graph_only_storage_bytes": a["graph_only_storage_bytes"],
        }
    return out


class Steps:
    """The steps of one run: listed entries, the peak over every step, the omitted count."""

    def __init__(self) -> None:
        self.listed: list[dict] = []
        self.per_line: dict[int, int] = {}
        self.omitted = 0
        self.peak: dict | None = None

    def record(self, index: int, line: int, ns: dict) -> None:
        s = step(index, line, ns)
        if self.peak is None or s["unique_storage_bytes"] > self.peak["unique_storage_bytes"]:
            self.peak = {"statement": index, "line": line, "unique_storage_bytes": s["unique_storage_bytes"]}
        n = self.per_line.get(line, 0)
        if n < PER_LINE:
            self.per_line[line] = n + 1
            self.listed.append(s)
        else:
            self.omitted += 1


def report(ns: dict, error: dict | None, steps: Steps | None = None, output: str = "",
           warnings_seen: list | None = None) -> dict:
    """The JSON report for the tensors bound in namespace `ns` (in dict order)."""
    live = live_tensors(ns)
    storage_ids: dict[int, int] = {}  # StorageImpl pointer -> small id, in order of first use
    storages: list[dict] = []
    members: list[list[torch.Tensor]] = []
    tensors = []
    for name, t in live:
        st = t.untyped_storage()
        key = st._cdata  # identity of the StorageImpl; data_ptr() is 0 for empty storages
        if key not in storage_ids:
            storage_ids[key] = len(storages)
            storages.append({"id": len(storages), "nbytes": st.nbytes(), "tensors": []})
            members.append([])
        sid = storage_ids[key]
        storages[sid]["tensors"].append(name)
        members[sid].append(t)
        tensors.append(
            {
                "name": name,
                "dtype": dtype_name(t.dtype),
                "shape": list(t.shape),
                "strides": list(t.stride()),
                "storage_offset": t.storage_offset(),
                "storage": sid,
                "itemsize": t.element_size(),
                "numel": t.numel(),
                "is_contiguous": t.is_contiguous(),
                "is_channels_last": is_channels_last(t),
                "version": t._version,
                "values": [json_value(v) for v in t.flatten().tolist()],
            }
        )
    for s, ts in zip(storages, members):
        s["addressed_bytes"] = addressed_bytes(ts)
        s["retained_unaddressed_bytes"] = s["nbytes"] - s["addressed_bytes"]
    totals = {
        "logical_bytes": sum(t["numel"] * t["itemsize"] for t in tensors),
        "unique_storage_bytes": sum(s["nbytes"] for s in storages),
        "addressed_bytes": sum(s["addressed_bytes"] for s in storages),
    }
    steps = steps or Steps()
    return {
        "tensors": tensors,
        "storages": storages,
        "totals": totals,
        "steps": steps.listed,
        "steps_omitted": steps.omitted,
        "peak": steps.peak,
        "output": output,
        # PyTorch gives no warnings; stridekit's (random values, order-dependent overlaps) never
        # occur in golden programs; torch.save of a tensor addressing less than its storage
        # gets the tracer's saves_whole_storage (recorded by run()'s torch.save wrapper).
        "warnings": warnings_seen or [],
        "error": error,
        "autograd": autograd_usage(live, storage_ids),
    }


# --------------------------------------------------------------------------------------------
# Running a program
# --------------------------------------------------------------------------------------------
def split_statements(program: str) -> list[ast.stmt]:
    """Top-level statements in source order (statement i of the report is element i)."""
    return ast.parse(program).body


def failing_statement(program: list[ast.stmt], stmt: ast.stmt, exc: BaseException) -> tuple[int, int]:
    """(line, column), 1-based, of the innermost statement that raised `exc` while top-level
    statement `stmt` ran: the deepest frame of the program's own code (not a lambda's or a
    comprehension's), at the position of the instruction that failed there (in a function
    body, that is a statement of the `def`)."""
    pos = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == "<program>" and code.co_name not in EXPRESSION_FRAMES:
            positions = list(code.co_positions())
            i = tb.tb_lasti // 2
            line, _, col, _ = positions[i] if 0 <= i < len(positions) else (tb.tb_lineno, None, 0, None)
            pos = (line or tb.tb_lineno, col or 0)
        tb = tb.tb_next
    best = stmt
    if pos is not None:
        found = None
        for top in program:
            for node in ast.walk(top):
                if not isinstance(node, ast.stmt):
                    continue
                start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
                if start <= pos <= end and (found is None or start >= (found.lineno, found.col_offset)):
                    found = node
        best = found or stmt
    return best.lineno, best.col_offset + 1


def run(program: str) -> tuple[dict, dict | None, Steps, str]:
    """Execute statement by statement; stop at the first exception that is not caught.

    Returns the namespace, the error object (or None), the steps (the totals after every
    simple statement of the program's own code that ran, blocks included) and what the
    program printed.  The namespace then holds the state after the last successful
    statement: PyTorch validates before it writes, so a failing single-op statement leaves
    no partial effect.
    """
    ns: dict = {"torch": torch}
    steps = Steps()
    out = io.StringIO()
    original = split_statements(program)
    SAVE_WARNINGS.clear()
    for index, stmt in enumerate(split_statements(program)):
        CURRENT_STATEMENT[0] = index
        ns[STEP_FN] = lambda line, index=index: steps.record(index, line, ns)
        body = instrument([stmt]) if isinstance(stmt, BLOCKS) else [stmt]
        code = compile(ast.Module(body=body, type_ignores=[]), "<program>", "exec")
        try:
            with contextlib.redirect_stdout(out):
                exec(code, ns)
        except Exception as exc:  # torch raises RuntimeError/IndexError/ValueError/TypeError
            message = str(exc)
            kind = "assertion_failed" if isinstance(exc, AssertionError) else error_kind(message)
            line, col = failing_statement(original, original[index], exc)
            error = {"statement": index, "line": line, "col": col, "kind": kind, "message": message}
            return ns, error, steps, out.getvalue()
        finally:
            ns.pop(STEP_FN, None)
        if not isinstance(stmt, BLOCKS):
            steps.record(index, stmt.lineno, ns)
    return ns, None, steps, out.getvalue()


def explain(program: str) -> dict:
    """The `stridekit explain --json` report PyTorch gives for `program`."""
    ns, error, steps, output = run(program)
    return report(ns, error, steps, output, list(SAVE_WARNINGS))


# torch.save wrapped: the tracer's saves_whole_storage warning for a saved tensor whose storage
# is larger than what it addresses (stridekit's message; PyTorch writes the whole storage).
SAVE_WARNINGS: list[dict] = []
CURRENT_STATEMENT = [0]
_TORCH_SAVE = torch.save


def _saving(obj, f, *args, **kwargs):
    import inspect
    frame = inspect.currentframe().f_back
    while frame is not None and frame.f_code.co_filename != "<program>":
        frame = frame.f_back
    line = frame.f_lineno if frame is not None else 0
    found: list[torch.Tensor] = []

    def walk(v):
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            for i in v:
                walk(i)
        elif isinstance(v, dict):
            for i in v.values():
                walk(i)
    walk(obj)
    names = {id(v): k for k, v in reversed(list(frame.f_globals.items()))} if frame is not None else {}
    for t in found:
        addressed = addressed_bytes([t])
        whole = t.untyped_storage().nbytes()
        if whole > addressed:
            name = names.get(id(t), "a tensor")
            w = {"statement": CURRENT_STATEMENT[0], "line": line, "kind": "saves_whole_storage",
                 "message": f"torch.save of '{name}' writes its whole storage, {whole} bytes, of which it addresses {addressed} bytes; save `{name}.clone()` to write only those"}
            if w not in SAVE_WARNINGS:
                SAVE_WARNINGS.append(w)
    return _TORCH_SAVE(obj, f, *args, **kwargs)


torch.save = _saving


def golden_line(name: str, program: str) -> str:
    """One JSONL line of a golden file (compact, keys in a fixed order)."""
    record = {"name": name, "program": program, "expected": explain(program)}
    return json.dumps(record, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# Self-check and CLI
# --------------------------------------------------------------------------------------------
TV209 = """\
base = torch.arange(12, dtype=torch.float32).view(4, 3)
t = base.t()
c = t.contiguous()
"""


def self_check() -> None:
    """TV-209: three 12-element FP32 tensors, two storages: 144 logical, 96 unique, 48 shared."""
    r = explain(TV209)
    assert r["error"] is None, r["error"]
    base, t, c = r["tensors"]
    assert base["strides"] == [3, 1] and t["strides"] == [1, 3] and c["strides"] == [4, 1]
    assert base["storage"] == t["storage"] == 0 and c["storage"] == 1
    assert r["storages"][0]["nbytes"] == 48 and r["storages"][1]["nbytes"] == 48
    assert r["totals"] == {"logical_bytes": 144, "unique_storage_bytes": 96, "addressed_bytes": 96}
    # View index (2, 1) of the transpose: element 0 + 2*1 + 1*3 = 5, byte 20, value 5.
    assert t["values"][2 * 4 + 1] == 5.0
    # The row view keeps the whole 48-byte storage after the base is deleted.
    r = explain(TV209 + "row = base[1]\ndel base, t, c\n")
    (row,) = r["tensors"]
    assert row["storage_offset"] == 3 and row["values"] == [3.0, 4.0, 5.0]
    assert r["storages"][0]["nbytes"] == 48 and r["storages"][0]["retained_unaddressed_bytes"] == 36
    # Error kinds: the view error after a transpose.
    r = explain(TV209 + "f = t.view(-1)\n")
    assert r["error"]["statement"] == 3 and r["error"]["kind"] == "view_incompatible"
    print("self-check passed: TV-209 gives 48 / 96 / 144 bytes")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="program files; the golden name is the file name")
    ap.add_argument("--jsonl", help='JSONL of {"name": ..., "program": ...} lines')
    ap.add_argument("--out", help="write golden JSONL here instead of stdout")
    ap.add_argument("--self-check", action="store_true", help="check TV-209 and exit")
    args = ap.parse_args(argv)
    if args.self_check:
        self_check()
        return 0
    programs: list[tuple[str, str]] = []
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            programs.append((path.rsplit("/", 1)[-1], f.read()))
    if args.jsonl:
        with open(args.jsonl, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    programs.append((rec["name"], rec["program"]))
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        for name, program in programs:
            out.write(golden_line(name, program) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
