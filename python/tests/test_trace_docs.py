"""docs/trace.md's examples are the code's output: every example program under
"### Examples" is run through `python -m stridekit trace` here, and the report lines the
page shows after it (a plain code block) must appear in the report, in order; the training
loop's table (a Markdown table after its program) must be the table the code prints."""

import json
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "trace.md")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def _examples():
    """(program, kind, expected): kind "lines" (a plain code block of report lines) or
    "table" (the Markdown table after the program)."""
    text = open(DOC).read()
    start = text.index("### Examples")
    end = text.index("\n### ", start + 1)
    sec = text[start:end]
    blocks = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(sec)]
    out = []
    for i, (lang, body, _, stop) in enumerate(blocks):
        if lang != "python":
            continue
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        between = sec[stop: nxt[2] if nxt else len(sec)]
        table = [l for l in between.splitlines() if l.startswith("|")]
        if table:
            out.append((body, "table", table))
        elif nxt is not None and nxt[0] == "":
            out.append((body, "lines", [l.rstrip() for l in nxt[1].splitlines() if l.strip()]))
    return out


def _trace(tmp_path, program, *flags):
    (tmp_path / "prog.py").write_text(program)
    r = subprocess.run([sys.executable, "-m", "stridekit", "trace", *flags, "prog.py"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def table(program, rep):
    """The training loop's table: one row per step, the predicted figures."""
    lines = program.splitlines()
    rows = ["| line | statement | predicted allocated | predicted reserved | segments |",
            "|---:|---|---:|---:|---:|"]
    for s in rep["steps"]:
        a = s["allocator"]
        src = lines[s["line"] - 1].strip()
        rows.append(f"| {s['line']} | `{src}` | {a['allocated_bytes.all.current']:,} | "
                    f"{a['reserved_bytes.all.current']:,} | {a['segment.all.current']} |")
    return rows


def test_the_page_has_the_examples_issue_20_lists():
    programs = [p for p, _, _ in _examples()]
    assert len(programs) == 5
    joined = "\n".join(programs)
    for needle in ("requires_grad=True", ".transpose(1, 2)", "contiguous()", "del log", "torch.save(head",
                   "opt.step()"):
        assert needle in joined, needle


@pytest.mark.parametrize("index", range(5))
def test_example_output_is_the_codes(tmp_path, index):
    program, kind, expected = _examples()[index]
    if kind == "lines":
        got = [l.rstrip() for l in _trace(tmp_path, program).splitlines()]
        pos = 0
        for line in expected:
            assert line in got[pos:], f"not in the report (after line {pos}): {line!r}; report: {got}"
            pos = got.index(line, pos) + 1
    else:
        _trace(tmp_path, program, "--device", "sim", "--json", "rep.json")
        rep = json.loads((tmp_path / "rep.json").read_text())
        assert expected == table(program, rep)
