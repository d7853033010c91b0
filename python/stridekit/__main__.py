"""``python -m stridekit trace PROG.py [ARGS...] [options]``: runs PROG as ``__main__``
under the live tracer and prints explain's report (or its JSON)."""

from __future__ import annotations

import argparse
import json
import sys

USAGE = "python -m stridekit trace [options] PROG.py [ARGS...]"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m stridekit trace", usage=USAGE, description=(
        "Run a PyTorch program as __main__ (its argv, stdout and exit status kept) and report "
        "every named tensor, every storage, the totals after each step, what autograd saved, "
        "and with --device sim the CUDA caching allocator's figures predicted from this run."))
    p.add_argument("--json", metavar="FILE", help="write the JSON report to FILE ('-': stdout) instead of the text")
    p.add_argument("--device", default="cpu", choices=["cpu", "sim", "cuda"],
                   help="cpu (default); sim: replay every storage into PyTorch's caching allocator as cuda:0; "
                        "cuda: run on the GPU (the program's own device choice) with torch.cuda.memory_stats() beside the prediction at every step")
    p.add_argument("--alloc-conf", metavar="S", help="the simulated allocator's settings (PYTORCH_CUDA_ALLOC_CONF syntax, policy:stridekit too)")
    p.add_argument("--save-trace", metavar="FILE", help="write the allocation requests (anchors CSV) that `stridekit alloc replay` / `alloc tune` read")
    p.add_argument("--fake", action="store_true", help="run under FakeTensorMode with device='cuda' (no data; forward only without a GPU)")
    p.add_argument("--retained-min-bytes", type=int, default=1 << 20, help="retained_storage: smallest storage (default 1 MiB)")
    p.add_argument("--retained-fraction", type=float, default=0.5, help="retained_storage: least unaddressed fraction (default 0.5)")
    p.add_argument("--save-min-extra-bytes", type=int, default=1, help="saves_whole_storage: least unaddressed bytes written (default 1)")
    p.add_argument("--no-function-steps", action="store_true", help="steps only outside function bodies (explain's rule)")
    p.add_argument("--step-counters", choices=["host", "device"], default="host",
                   help="sim: an optimizer's step counters on the host (default: a model moved with .to(device)) "
                        "or on cuda:0 (torch.set_default_device('cuda'), as --device cuda runs the program)")
    p.add_argument("program", help="the program (a .py file)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return p


def trace_main(argv: list[str]) -> int:
    from .trace_run import Tracer, run_file

    args = _parser().parse_args(argv)
    try:
        tracer = Tracer(
            args.device, args.alloc_conf,
            retained_min_bytes=args.retained_min_bytes, retained_fraction=args.retained_fraction,
            save_min_extra_bytes=args.save_min_extra_bytes,
            function_steps=not args.no_function_steps, fake=args.fake, step_counters=args.step_counters,
        )
    except Exception as e:
        print(f"stridekit trace: {e}", file=sys.stderr)
        return 2
    try:
        open(args.program, "rb").close()
    except OSError as e:
        print(f"stridekit trace: cannot read {args.program}: {e.strerror}", file=sys.stderr)
        return 2
    status = run_file(args.program, args.args, tracer)
    try:
        if args.json:
            text = json.dumps(tracer.to_json(), indent=1)
            if args.json == "-":
                sys.stdout.write(text + "\n")
            else:
                with open(args.json, "w") as f:
                    f.write(text + "\n")
        else:
            sys.stderr.flush()
            sys.stdout.write("\n" + tracer.report())
        if args.save_trace:
            tracer.save_trace(args.save_trace)
    except Exception as e:  # the report failed: say so, keep the program's status and error
        print(f"stridekit trace: the report failed: {type(e).__name__}: {e}", file=sys.stderr)
        if tracer._error is not None:
            _, line, col, cls, message = tracer._error
            print(f"stridekit trace: the program raised {cls} at line {line}, column {col}: {message}",
                  file=sys.stderr)
        return status or 3
    return status


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "trace":
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    return trace_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
