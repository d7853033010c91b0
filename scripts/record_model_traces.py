#!/usr/bin/env python3
"""Record the allocation requests of real model steps as stridekit allocation traces.

Runs four workloads built from torch.nn with the public architectures' shapes (no weights
needed: the allocation sequence does not depend on the values) on PyTorch's CPU backend,
records every tensor storage allocation and free with torch.profiler (profile_memory=True:
the allocator's own [memory] events, with the address and the exact requested bytes, in
the order the allocator saw them) and writes what a CUDA caching allocator would be asked
for, in stridekit's anchors CSV (`a,ID,BYTES` / `f,ID,0`, one stream):

    gpt2_train     GPT-2 small (124M) training, AdamW (foreach), grad-norm clipping
    gpt2_generate  GPT-2 small greedy generation with a KV cache (a prompt, then N tokens)
    bert_serve     BERT-base inference over batches of varying sequence lengths
    resnet50_train ResNet-50 (v1.5 bottlenecks) training, SGD with momentum (foreach)

    "$(scripts/python-env)"/bin/python scripts/record_model_traces.py [--out DIR] [--only NAME ...]
    python scripts/record_model_traces.py --device cuda --out DIR [--only NAME ...]

With --device cuda (a GPU and a CUDA build of torch) the same workloads run on the GPU, each
in a fresh process, with PyTorch's allocator history on; each writes its snapshot
(`torch.cuda.memory._snapshot()`, DIR/NAME.pickle.gz, which `stridekit alloc replay` and
`alloc tune` read) and DIR/NAME.json (allocations, frees, peak requested bytes, the peak
figures of `memory_stats()`, and the CPU trace's header to compare with). Exit status 2
without a GPU. The CPU traces end with a check: the allocations still live are exactly the
model's parameters and buffers and the optimizer's state.

From the CPU allocator's events to the CUDA allocator's requests:

- kept: every allocation made by an operator (a dispatcher op is an ancestor of the event
  in the profiler's event tree) and its free, matched by address;
- dropped, host side on CUDA as well: allocations made outside every operator (Python
  scalars wrapped into 0-dim CPU tensors while arguments are parsed) and everything inside
  a `stridekit::host` scope (the inputs as the data loader makes them before `.to(device)`,
  and the optimizer's `torch.tensor` step counters, which stay on the CPU for a CUDA model
  unless capturable or fused);
- dropped, CPU kernel internals: an allocation freed inside the call of an operator that
  has its own CUDA kernel (its CPU kernel's scratch space, e.g. mm's packed copies, the
  per-thread buffers of layer_norm's backward, scalars cast inside TensorIterator); the CUDA
  kernel of the same operator does not make them. Composite operators (matmul, linear,
  layer_norm, cross_entropy, ...) decompose the same way on both devices, so temporaries
  inside them are kept;
- added, CUDA only: the cuBLAS workspace, which PyTorch 2.11 takes from the caching
  allocator at the first cuBLAS call of a (handle, stream) and keeps: 32 MiB on sm_90
  (H200; CUBLAS_WORKSPACE_CONFIG's default :4096:8, shared with cuBLASLt), right after the
  first matrix product's output;
- not modelled: cuDNN convolution workspaces (resnet50_train; sizes depend on the
  algorithm cuDNN picks on the GPU; each is allocated and freed inside one convolution
  call), and the internal buffers of CUDA kernels such as embedding_dense_backward's sort.

Dropout is written as the call F.dropout makes on CUDA (torch.native_dropout: a bool
mask and the output); the CPU's composite path would keep a float mask instead. Attention
is the architectures' own math (matmul, mask, softmax), not scaled_dot_product_attention,
whose fused kernels allocate differently on each device. Everything is seeded.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import platform
import pickle
import resource
import subprocess
import sys
import time

import torch

# The parts live in the package beside this script (scripts/record_model_traces/): recording,
# models, workloads, output.
from record_model_traces.output import (
    DEFAULT_OUT,
    csv_text,
    peak_live,
    record_cuda,
    snapshot_figures,
    write_trace,
)
from record_model_traces.recording import CUBLAS_WORKSPACE_BYTES, DEVICE, ROOT, record
from record_model_traces.workloads import WORKLOADS


def main_cuda(args, names) -> int:
    """--device cuda: each workload in a fresh process (the cuBLAS workspace and the cache
    start empty), its snapshot written as NAME.pickle.gz, compared with the CPU trace."""
    if not torch.cuda.is_available():
        print("record_model_traces.py --device cuda: no CUDA device is available", file=sys.stderr)
        return 2
    if len(names) > 1:
        rc = 0
        for name in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--device", "cuda", "--out", args.out, "--only", name]
            rc = max(rc, subprocess.run(cmd).returncode)
        return rc
    DEVICE[0] = "cuda"
    name = names[0]
    make, cfg = WORKLOADS[name]
    torch.manual_seed(0)
    desc, run, _ = make(cfg)
    snap, stats = record_cuda(run)
    path = os.path.join(args.out, f"{name}.pickle.gz")
    with open(path, "wb") as f:
        f.write(gzip.compress(pickle.dumps(snap), mtime=0))
    allocs, frees, peak = snapshot_figures(snap)
    summary = {
        "workload": name,
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(),
        "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "default"),
        "allocations": allocs,
        "frees": frees,
        "peak_requested": peak,
        "memory_stats": {k: v for k, v in stats.items() if k.endswith(".peak") or k.startswith("num_")},
    }
    cpu_trace = os.path.join(DEFAULT_OUT, f"{name}.csv")
    if os.path.exists(cpu_trace):
        with open(cpu_trace, encoding="utf-8") as f:
            header = [line for line in f if line.startswith("#")]
        summary["cpu_trace_header"] = [h[2:].rstrip() for h in header]
    with open(os.path.join(args.out, f"{name}.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(
        f"{name} on {summary['gpu']}: {allocs} allocations, {frees} frees, peak requested {peak} bytes, "
        f"peak allocated {stats['allocated_bytes.all.peak']}, peak reserved {stats['reserved_bytes.all.peak']} "
        f"-> {path}",
        flush=True,
    )
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="folder for the traces (default: tests/data/alloc/real for cpu)")
    ap.add_argument("--only", nargs="*", choices=sorted(WORKLOADS), help="record only these workloads")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    ap.add_argument(
        "--device",
        choices=["cpu", "cuda"],
        default="cpu",
        help="cpu: record on the CPU and convert (default); cuda: run on the GPU and write "
        "PyTorch's own snapshot of each workload (NAME.pickle.gz, NAME.json; needs --out)",
    )
    args = ap.parse_args(argv)
    names = args.only or list(WORKLOADS)
    if args.device == "cuda":
        if args.out is None:
            ap.error("--device cuda needs --out (its snapshots are not the CPU traces)")
        os.makedirs(args.out, exist_ok=True)
        return main_cuda(args, names)
    args.out = args.out or DEFAULT_OUT
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    command = '"$(scripts/python-env)"/bin/python scripts/record_model_traces.py' + (
        f" --only {' '.join(args.only)}" if args.only else ""
    )
    for name in names:
        make, cfg = WORKLOADS[name]
        torch.manual_seed(0)
        t0 = time.time()
        desc, run, survivors = make(cfg)
        requests, counts, largest = record(run, survivors)
        allocs = sum(1 for r in requests if r[0] == "a")
        peak = peak_live(requests)
        header = [
            f"{name}: {desc}",
            f"recorded by {command} with torch {torch.__version__} on the CPU ({platform.machine()}), {date}",
            f"{allocs} allocations, {len(requests) - allocs} frees, peak requested {peak} bytes",
            "dropped: "
            + ", ".join(
                f"{k} {v}" + (f" (largest {largest[k]} bytes)" if k in largest else "")
                for k, v in counts.items()
                # frees of an earlier workload's storages depend on the collector's timing
                if k not in ("cublas_workspace", "frees_of_earlier_storages")
            ),
            f"added: cuBLAS workspace {CUBLAS_WORKSPACE_BYTES} bytes x {counts['cublas_workspace']}",
        ]
        path = write_trace(args.out, name, csv_text(requests, header))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20)
        print(
            f"{name}: {allocs} allocations, peak requested {peak / (1 << 20):.1f} MiB, {counts}, "
            f"{time.time() - t0:.1f} s, peak RSS so far {rss:.2f} GiB -> {os.path.relpath(path, ROOT)}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
