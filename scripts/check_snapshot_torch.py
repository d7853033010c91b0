"""Check that PyTorch's memory tools read stridekit's snapshots and report the same totals.

For every shipped trace, under a few settings, with the snapshot taken at the end and at
the peak of reserved bytes, this runs

    stridekit alloc replay TRACE --conf SETTING --snapshot F.pickle --snapshot-at AT --json

and then, with the torch installed in the running Python:
  - `python -m torch.cuda._memory_viz stats F.pickle` (a subprocess, as a user runs it):
    its total_reserved / total_allocated lines must print stridekit's current reserved and
    requested bytes (the tool's "allocated" is the requested size of active blocks), in
    the tool's own formatting;
  - the same totals computed exactly from the loaded pickle;
  - `segments` (flamegraph lines; the tool's flamegraph.pl step needs a download and is
    skipped: the lines must add up to the reserved bytes), `trace`, `trace_plot` and
    `segment_plot` must run without error.

usage: "$(scripts/python-env)"/bin/python scripts/check_snapshot_torch.py [path/to/stridekit]
(default target/release/stridekit; build it first with cargo build --release).
Needs torch (any CUDA or CPU build; no GPU). Not part of scripts/test: CI has no torch.
"""
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile

import torch
from torch.cuda import _memory_viz as mv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "stridekit")
TRACES = ["trace_llm_serving.csv", "trace_random.csv", "trace_training.csv"]
SETTINGS = ["default", "expandable_segments:True", "max_split_size_mb:128", "policy:stridekit"]


def main():
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as d:
        for t in TRACES:
            path = os.path.join(ROOT, "tests", "data", "alloc", t)
            for s in SETTINGS:
                for at in ["end", "peak"]:
                    f = os.path.join(d, f"{t}-{at}.pickle")
                    out = subprocess.run(
                        [EXE, "alloc", "replay", path, "--conf", s, "--snapshot", f,
                         "--snapshot-at", at, "--json"],
                        check=True, capture_output=True, text=True).stdout
                    want = json.loads(out)[0]["snapshot"]
                    res, req = want["reserved_bytes"], want["requested_bytes"]
                    stats = subprocess.run(
                        [sys.executable, "-W", "ignore", "-m", "torch.cuda._memory_viz", "stats", f],
                        check=True, capture_output=True, text=True).stdout
                    got_res = re.search(r"^total_reserved: (\S+)$", stats, re.M).group(1)
                    got_alloc = re.search(r"^total_allocated: (\S+)$", stats, re.M).group(1)
                    with open(f, "rb") as fh:
                        data = pickle.load(fh)
                    exact_res = sum(g["total_size"] for g in data["segments"])
                    exact_req = sum(b["requested_size"] for g in data["segments"]
                                    for b in g["blocks"] if b["state"] == "active_allocated")
                    lines = mv.segments(data, format_flamegraph=lambda x: x)
                    flame = sum(int(l.rsplit(" ", 1)[1]) for l in lines.splitlines() if l)
                    mv.trace(data)
                    mv.trace_plot(data)
                    mv.segment_plot(data)
                    ok = (got_res == mv._format_size(res) and got_alloc == mv._format_size(req)
                          and exact_res == res and exact_req == req and flame == res)
                    checked += 1
                    print(f"{'ok  ' if ok else 'FAIL'} {t} | {s} | {at}: reserved {res} "
                          f"(_memory_viz {got_res}), allocated {req} (_memory_viz {got_alloc}), "
                          f"{len(data['segments'])} segments, {len(data['device_traces'][0])} entries")
                    failures += not ok
    print(f"torch {torch.__version__}: {checked - failures}/{checked} snapshots read with the same totals")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
