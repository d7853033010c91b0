#!/usr/bin/env python3
"""Golden cases for `stridekit explain --json`: hand-written seed programs and random programs.

Requirements: PyTorch 2.11 on the CPU (`pip install torch==2.11.0`).  Regenerate every golden
file with the single command (from the repository root):

    python scripts/gen_programs.py --out tests/golden

It writes tests/golden/seeds.jsonl (the worked examples of ../shared/seeds and edge cases),
tests/golden/large.jsonl.gz (the seeds whose reports are too large to keep as plain text, e.g.
expand(1000, 1000)), tests/golden/random.jsonl (random programs, fixed seeds, reproducible) and
tests/golden/autograd.jsonl (random autograd programs: scripts/gen_autograd_programs.py).
Every line is {"name", "program", "expected"} with `expected` from torch_golden.explain.

The random generator builds each program statement by statement while running it under torch,
so it knows every live tensor's shape, dtype and values and can pick arguments that are valid
(most statements) or deliberately invalid (the last executed statement of about a third of the
programs, spread over every error kind).  It never produces Python syntax errors, never reads
values of torch.empty before filling them, and drops statements whose result would depend on
behaviour PyTorch leaves undefined:
  * float -> integer conversions of values outside the integer type's range (C++ UB),
  * int32/int64 values beyond +-2**31 and float values beyond 1e6 or non-finite
    (keeps arithmetic exact and deterministic; the seeds cover inf/nan and wrapping),
  * copy_/indexed assignment whose source and destination share elements without PyTorch
    raising (the result depends on the kernel's iteration order),
  * in-place ops inside a longer expression (a statement fails or succeeds as a whole).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_golden import explain, golden_line  # noqa: E402

from golden_seeds import SEEDS  # noqa: E402
from gen_autograd_programs import autograd_cases  # noqa: E402

# The random programs are made by the package beside this script (scripts/gen_programs/: the
# vocabulary, the builder and its statement kinds, whole programs, blocks).
from gen_programs.programs import random_cases  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/golden", help="directory for the golden files")
    ap.add_argument("--count", type=int, default=1500, help="number of random programs")
    ap.add_argument("--first-seed", type=int, default=1, help="seed of the first random program")
    ap.add_argument("--autograd-count", type=int, default=600, help="number of random autograd programs")
    args = ap.parse_args()
    torch.manual_seed(0)
    os.makedirs(args.out, exist_ok=True)
    small, large = [], []
    for name, program in SEEDS:
        line = golden_line(name, program)
        (large if len(line) > 200_000 else small).append(line)
    with open(os.path.join(args.out, "seeds.jsonl"), "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in small)
    # mtime=0: the compressed file is byte-for-byte reproducible
    with open(os.path.join(args.out, "large.jsonl.gz"), "wb") as raw:
        with gzip.GzipFile(filename="large.jsonl", mode="wb", fileobj=raw, mtime=0) as gz:
            gz.write("".join(line + "\n" for line in large).encode())
    with open(os.path.join(args.out, "random.jsonl"), "w", encoding="utf-8") as f:
        for name, program in random_cases(args.count, args.first_seed):
            f.write(golden_line(name, program) + "\n")
    with open(os.path.join(args.out, "autograd.jsonl"), "w", encoding="utf-8") as f:
        for name, program in autograd_cases(args.autograd_count, explain):
            f.write(golden_line(name, program) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
