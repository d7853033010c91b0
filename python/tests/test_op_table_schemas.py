"""explain's op table speaks the names the tracer sees: every aten schema it declares is the
one torch 2.11 dispatches (`torch.ops.aten.NAME.OVERLOAD._schema`, which `stridekit trace`
reads from each op its TorchDispatchMode sees), string for string.

The table (src/explain/op_table) is printed into docs/explain.md between the op-table
markers (tests/explain_op_table.rs keeps that list equal to the table); this test reads the
list there. Entries that are Python-level signatures on purpose (`torch.nn.functional`,
`Tensor.to`/`size`/`float`/..., `torch.tensor`) are allowed to differ from, or be absent in,
aten, and only those.
"""

import pathlib
import re

import torch

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "explain.md"

# Python-level methods and functions the table writes in schema grammar (not aten's
# schema, or no aten op at all).
PYTHON_LEVEL = {
    "tensor", "to", "cuda", "cpu", "size", "stride", "float", "double", "half", "bfloat16",
    "int", "long", "short", "char", "byte", "bool", "nelement", "untyped_storage", "storage",
    "data_ptr", "tolist", "backward",
}


def _entries():
    text = DOCS.read_text()
    begin, end = text.index("<!-- op-table:begin"), text.index("<!-- op-table:end")
    for surfaces, schemas in re.findall(r"^- (.+?): (.+)$", text[begin:end], re.M):
        for schema in re.findall(r"`([^`]+)`", schemas):
            yield surfaces, schema


def _aten(schema):
    name, _, overload = schema.split("(", 1)[0].partition(".")
    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return None
    try:
        return getattr(packet, overload or "default")
    except AttributeError:
        return None


def test_aten_schemas_are_torchs_own():
    exact, wrong = 0, []
    for surfaces, schema in _entries():
        op = _aten(schema)
        python_level = surfaces.startswith("`F.") or schema.split("(")[0].split(".")[0] in PYTHON_LEVEL
        if op is not None and str(op._schema).removeprefix("aten::") == schema:
            exact += 1
        elif not python_level:
            wrong.append((surfaces, schema, op and str(op._schema)))
    assert not wrong, f"{len(wrong)} schemas differ from torch's: {wrong[:5]}"
    # The table holds 203 schemas, 173 of them aten's own (2026-12-02): a list that lost
    # its schemas (a broken marker, an empty table) must not pass.
    assert exact >= 170, exact
