#!/usr/bin/env python3
"""PyTorch's CUDA caching allocator against `stridekit explain`'s `allocator`, statement by statement.

For the golden programs (tests/golden/*.jsonl) that PyTorch runs without an error and that use
no device-specific feature, runs each one under PyTorch on CUDA (factories on cuda:0 through
torch.set_default_device, as `explain --device cuda` puts them; a fresh allocator per program:
a warm-up allocation so that the CUDA context is made, then gc, empty_cache and
reset_peak_memory_stats) and records torch.cuda.memory_allocated() and memory_reserved() after
every statement; then runs `stridekit explain --device DEVICE --json` on the same program and
compares them with each step's `allocated_bytes.all.current` and `reserved_bytes.all.current`.
Every difference is listed; the exit status is 1 when any program differs (with --known: when
a program not listed there differs, or a listed one that ran no longer does).

    python scripts/torch_allocator_golden.py --stridekit target/release/stridekit [--device cuda|sim]
        [--golden FILE ...] [--filter SUBSTRING] [--limit N] [--record FIGURES.jsonl]
        [--torch-figures FIGURES.jsonl] [--known NAMES.txt] [--json OUT.json] [--list]

  --device          what stridekit runs on: cuda (the real GPU's allocator, default) or sim
                    (the simulated device: its figures must be PyTorch's too)
  --record          also write PyTorch's figures ({"name", "allocated": [...], "reserved":
                    [...]} per line), to compare later without a GPU
  --torch-figures   take PyTorch's figures from such a file instead of running PyTorch (no GPU
                    or torch needed: with --device sim this runs anywhere)
  --known           the programs known to differ (one name a line, `#` comments: the reason),
                    e.g. tests/data/allocator/known_differences.txt
  --list            print the selected programs and exit

Needs torch with CUDA and a GPU unless --torch-figures or --list; exits 2 without one.
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from program_steps import BLOCKS, PER_LINE, STEP_FN, instrument  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_GOLDEN = [os.path.join(ROOT, "tests", "golden", f) for f in ("seeds.jsonl", "random.jsonl")]
# Programs with these are left out: they name devices or addresses (which differ by
# design), or use stridekit's own random generator.
EXCLUDED_WORDS = ("device", "cuda", "cpu()", "data_ptr", "torch.rand", "manual_seed")


def select(paths: list[str], needle: str | None, limit: int | None) -> list[tuple[str, str]]:
    """(name, program) of the golden cases PyTorch ran without an error."""
    chosen = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                case = json.loads(line)
                program = case["program"]
                if case["expected"].get("error") is not None:
                    continue
                if any(w in program for w in EXCLUDED_WORDS):
                    continue
                if needle and needle not in case["name"]:
                    continue
                chosen.append((case["name"], program))
    return chosen[:limit] if limit else chosen


def read_figures(path: str) -> dict:
    """The figures --record wrote: {name: record}; a line that is not such a record is a
    ValueError naming the file and the line."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                out[r["name"]] = r
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"{path}:{n}: not a figures record ({e})") from None
    return out


def torch_figures(program: str) -> dict:
    """memory_allocated() and memory_reserved() after every step (every simple statement of
    the program's own code, blocks included, each line at most PER_LINE times: the steps of
    `stridekit explain`), on a fresh allocator."""
    import torch

    torch.cuda.synchronize()
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = (torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
    ns: dict = {"torch": torch}
    allocated, reserved = [], []
    per_line: dict[int, int] = {}

    def record(line: int) -> None:
        if per_line.get(line, 0) >= PER_LINE:
            return
        per_line[line] = per_line.get(line, 0) + 1
        torch.cuda.synchronize()
        allocated.append(torch.cuda.memory_allocated() - base[0])
        reserved.append(torch.cuda.memory_reserved() - base[1])

    ns[STEP_FN] = record
    with open(os.devnull, "w") as null:
        for stmt in ast.parse(program).body:
            body = instrument([stmt]) if isinstance(stmt, BLOCKS) else [stmt]
            code = compile(ast.Module(body=body, type_ignores=[]), "<program>", "exec")
            stdout, sys.stdout = sys.stdout, null
            try:
                exec(code, ns)
            finally:
                sys.stdout = stdout
            if not isinstance(stmt, BLOCKS):
                record(stmt.lineno)
    del ns
    gc.collect()
    return {"allocated": allocated, "reserved": reserved, "baseline": list(base)}


def stridekit_figures(binary: str, device: str, program: str) -> dict:
    out = subprocess.run(
        [binary, "explain", "--device", device, "--json", "-e", program],
        capture_output=True,
        text=True,
    )
    if not out.stdout:
        return {"error": out.stderr.strip() or f"exit status {out.returncode}"}
    report = json.loads(out.stdout)
    if report.get("error") is not None:
        return {"error": f"{report['error']['kind']}: {report['error']['message']}"}
    steps = [s.get("allocator") or {} for s in report["steps"]]
    return {
        "allocated": [s.get("allocated_bytes.all.current") for s in steps],
        "reserved": [s.get("reserved_bytes.all.current") for s in steps],
    }


def compare(torch_fig: dict, sk: dict) -> list[str]:
    """The differences between PyTorch's figures and stridekit's, one line each."""
    if "error" in sk:
        return [f"stridekit: {sk['error']}"]
    diffs = []
    for key in ("allocated", "reserved"):
        want, got = torch_fig[key], sk[key]
        if len(want) != len(got):
            diffs.append(f"{key}: {len(want)} steps in PyTorch, {len(got)} in stridekit")
            continue
        for i, (w, g) in enumerate(zip(want, got)):
            if w != g:
                diffs.append(f"{key} after statement {i}: PyTorch {w}, stridekit {g}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stridekit", default=os.path.join(ROOT, "target", "release", "stridekit"))
    ap.add_argument("--device", choices=["cuda", "sim"], default="cuda")
    ap.add_argument("--golden", nargs="+", default=DEFAULT_GOLDEN)
    ap.add_argument("--filter")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--record")
    ap.add_argument("--torch-figures")
    ap.add_argument("--known")
    ap.add_argument("--json")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    programs = select(args.golden, args.filter, args.limit)
    if args.list:
        for name, _ in programs:
            print(name)
        print(f"{len(programs)} programs", file=sys.stderr)
        return 0
    recorded = None
    if args.torch_figures:
        try:
            recorded = read_figures(args.torch_figures)
        except (OSError, ValueError) as e:
            print(f"torch_allocator_golden: --torch-figures: {e}", file=sys.stderr)
            return 2
        programs = [(n, p) for n, p in programs if n in recorded]
    else:
        try:
            import torch
        except ImportError:
            print("torch_allocator_golden: torch is not installed", file=sys.stderr)
            return 2
        if not torch.cuda.is_available():
            print("torch_allocator_golden: no GPU (torch.cuda.is_available() is False)", file=sys.stderr)
            return 2
        torch.set_default_device("cuda")
        torch.empty(1)  # warm-up: the CUDA context, outside every program's figures
    if not os.access(args.stridekit, os.X_OK):
        print(f"torch_allocator_golden: no stridekit binary at {args.stridekit}", file=sys.stderr)
        return 2
    if not programs:
        print("torch_allocator_golden: no program selected", file=sys.stderr)
        return 2
    known = set()
    if args.known:
        try:
            with open(args.known, encoding="utf-8") as f:
                known = {line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")}
        except (OSError, UnicodeDecodeError) as e:
            print(f"torch_allocator_golden: --known: {e}", file=sys.stderr)
            return 2
    record = open(args.record, "w", encoding="utf-8") if args.record else None
    results = []
    for name, program in programs:
        if recorded is not None:
            fig = recorded[name]
        else:
            try:
                fig = torch_figures(program)
            except Exception as exc:  # PyTorch on CUDA refused what it ran on the CPU
                results.append({"name": name, "diffs": [f"PyTorch on CUDA: {exc}"]})
                continue
            if record:
                record.write(json.dumps({"name": name, **fig}) + "\n")
        diffs = compare(fig, stridekit_figures(args.stridekit, args.device, program))
        results.append({"name": name, "diffs": diffs})
    if record:
        record.close()
    bad = [r for r in results if r["diffs"]]
    for r in bad[:30]:
        print(f"{r['name']}:")
        for d in r["diffs"][:6]:
            print(f"  {d}")
    print(f"torch_allocator_golden: {len(results)} programs on --device {args.device}, {len(results) - len(bad)} match PyTorch's memory_allocated/memory_reserved after every statement, {len(bad)} differ")
    ran = {r["name"] for r in results}
    unexpected = sorted(r["name"] for r in bad if r["name"] not in known)
    fixed = sorted(n for n in known & ran if n not in {r["name"] for r in bad})
    if args.known:
        print(f"torch_allocator_golden: {len(bad) - len(unexpected)} known difference(s); "
              f"not known: {', '.join(unexpected) or 'none'}; known but now matching: {', '.join(fixed) or 'none'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"device": args.device, "programs": len(results), "differ": bad,
                       "unexpected": unexpected, "fixed": fixed}, f, indent=1)
    if args.known:
        return 1 if unexpected or fixed else 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
