#!/usr/bin/env python3
"""Run stridekit bench's suite through PyTorch on the same GPU and write a baseline file.

    python3 scripts/compare_torch.py --stridekit target/release/stridekit --out torch.json
    python3 scripts/compare_torch.py --spec spec.json --out torch.json   # spec from
        # `stridekit bench --list --json spec.json [--quick] [--cases PATTERN]`
    stridekit bench --baseline torch.json --plot bench.svg

The case list (names, shapes, dtypes, view steps, output formats, row-gather seeds) is
read from `stridekit bench --list --json`, so both sides run the same work; each view is
checked against the sizes, strides and storage offset stridekit computed for it.

Variants (`--variants`, default eager), tagged in each record's `variant`:
  "torch eager"    the PyTorch expression itself (`x.permute(1, 0).contiguous()`, ...)
  "torch.compile"  the same function through torch.compile (Inductor); torch._dynamo.reset()
                   before each case, the compiling call is made (and excluded) before warm-up.
                   An Inductor compile per case takes seconds: name a subset with --cases.

A run that may be cut short keeps what finished: `--out` is rewritten (atomically) after
every case, `--records FILE.jsonl` gets each record as one line the moment it is measured,
and `--budget SECONDS` starts no case that would end past the budget (judged by the longest
case so far), as `stridekit bench --budget` does. Every record carries `device_name` (the
GPU's name) and `build` (`--build`, else $STRIDEKIT_BUILD: `git describe --always --dirty`
of the stridekit build it runs beside).

Timing follows stridekit's rule: CUDA events around each sample, warm-ups first, samples
until the relative standard deviation is at most --max-rsd percent (after --min-samples and
--min-time) or --time-limit seconds, median/min/max of the kept samples; the L2 cache is
flushed (a fill of 2x its size) before each sample when the working set is under 4x L2;
with pynvml installed, samples taken while the SM clock is under 75% of its maximum are
discarded and counted, and power, energy, clocks, temperature and throttle reasons are
sampled every --telemetry-interval ms; power and energy come from a separate window of
back-to-back runs (--energy-window s), as in stridekit. `pct_of_memcpy` of both variants is against the
eager `x.clone()` of the 1 GiB memcpy case measured in the same run.

The output has stridekit's JSON form: {"header": {...}, "records": [...]}, the same record
fields plus `variant`.
"""

import argparse
import json
import math
import os
import shlex
import socket
import statistics
import subprocess
import sys
import threading
import time

MIX = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB)
SLEEP_CYCLES = 200_000  # torch.cuda._sleep before each sample: ~100 us at 2 GHz
THROTTLE_NAMES = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
]


def mix_bits(i, bits, seed):
    """stridekit::bench::rng::mix_bits: a seeded bijection of 0..2^bits."""
    mask = (1 << bits) - 1
    shift = max(bits // 2, 1)
    x = i & mask
    for r, m in enumerate(MIX):
        x ^= (seed >> (20 * r)) & mask
        x = (x * m) & mask
        x ^= x >> shift
    return x


def gather_index(count, rows, seed):
    """stridekit::bench::rng::distinct_rows: `count` distinct rows below `rows`."""
    bits = (rows - 1).bit_length()
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is None:
        out = []
        for i in range(count):
            x = mix_bits(i, bits, seed)
            while x >= rows:
                x = mix_bits(x, bits, seed)
            out.append(x)
        return out
    mask = np.uint64((1 << bits) - 1)
    shift = np.uint64(max(bits // 2, 1))

    def mix(x):
        with np.errstate(over="ignore"):
            for r, m in enumerate(MIX):
                x = x ^ (np.uint64(seed >> (20 * r)) & mask)
                x = (x * np.uint64(m)) & mask
                x = x ^ (x >> shift)
        return x

    x = mix(np.arange(count, dtype=np.uint64) & mask)
    high = x >= rows
    while high.any():
        x[high] = mix(x[high])
        high = x >= rows
    return x.astype(np.int64).tolist()


def load_spec(args):
    if args.spec:
        with open(args.spec) as f:
            return json.load(f)
    cmd = [args.stridekit, "bench", "--list", "--json", "--seed", str(args.seed)]
    if args.quick:
        cmd.append("--quick")
    if args.cases:
        cmd += ["--cases", args.cases]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit(f"compare_torch: {args.stridekit} not found (give --stridekit PATH or --spec FILE)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"compare_torch: {' '.join(cmd)} failed: {e.stderr.strip()}")
    return json.loads(out)


def rsd(v):
    if len(v) < 2:
        return math.inf
    m = statistics.fmean(v)
    return statistics.stdev(v) / m if m > 0 else math.inf


class Telemetry:
    """pynvml readings for one GPU; every method returns None without pynvml."""

    def __init__(self, torch, device_index):
        self.nv = None
        self.h = None
        self.why = "available"
        try:
            import pynvml as nv

            nv.nvmlInit()
            h = None
            uuid = getattr(torch.cuda.get_device_properties(device_index), "uuid", None)
            if uuid is not None:
                try:
                    h = nv.nvmlDeviceGetHandleByUUID(f"GPU-{uuid}")
                except nv.NVMLError:
                    h = None
            if h is None:
                h = nv.nvmlDeviceGetHandleByIndex(device_index)
            self.nv, self.h = nv, h
        except Exception as e:  # no pynvml, no libnvidia-ml, no such device
            self.why = f"unavailable: {e}"
        self.readings = []
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def _q(self, f, *a):
        if self.nv is None:
            return None
        try:
            return f(self.h, *a)
        except Exception:
            return None

    def sm_mhz(self):
        return self._q(self.nv.nvmlDeviceGetClockInfo, self.nv.NVML_CLOCK_SM) if self.nv else None

    def max_clock(self, which):
        if self.nv is None:
            return None
        clock = {"sm": self.nv.NVML_CLOCK_SM, "mem": self.nv.NVML_CLOCK_MEM}[which]
        return self._q(self.nv.nvmlDeviceGetMaxClockInfo, clock)

    def bus_width(self):
        return self._q(self.nv.nvmlDeviceGetMemoryBusWidth) if self.nv else None

    def energy_mj(self):
        return self._q(self.nv.nvmlDeviceGetTotalEnergyConsumption) if self.nv else None

    def driver(self):
        if self.nv is None:
            return None
        try:
            d = self.nv.nvmlSystemGetDriverVersion()
            return d.decode() if isinstance(d, bytes) else d
        except Exception:
            return None

    def read(self):
        nv = self.nv
        p = self._q(nv.nvmlDeviceGetPowerUsage)
        return {
            "t": time.perf_counter(),
            "power_w": None if p is None else p / 1000.0,
            "sm_mhz": self.sm_mhz(),
            "mem_mhz": self._q(nv.nvmlDeviceGetClockInfo, nv.NVML_CLOCK_MEM),
            "temp_c": self._q(nv.nvmlDeviceGetTemperature, nv.NVML_TEMPERATURE_GPU),
            "throttle": self._q(nv.nvmlDeviceGetCurrentClocksThrottleReasons),
        }

    def push(self):
        if self.nv is not None:
            r = self.read()
            with self.lock:
                self.readings.append(r)

    def run(self, interval_s):
        while not self.stop.is_set():
            self.push()
            time.sleep(interval_s)

    def window(self, t0, t1):
        with self.lock:
            self.readings = [r for r in self.readings if r["t"] >= t0]
            return [r for r in self.readings if r["t"] <= t1]


def summarize(readings, energy_j, bytes_moved):
    def vals(k):
        return [r[k] for r in readings if r[k] is not None]

    def mean(v):
        return statistics.fmean(v) if v else None

    power = vals("power_w")
    bits = 0
    seen = False
    for b in vals("throttle"):
        bits |= b
        seen = True
    return {
        "power_w_mean": mean(power),
        "power_w_max": max(power) if power else None,
        "energy_j": energy_j,
        "j_per_gb": energy_j / (bytes_moved / 1e9) if energy_j is not None and bytes_moved else None,
        "sm_mhz_mean": mean(vals("sm_mhz")),
        "mem_mhz_mean": mean(vals("mem_mhz")),
        "temp_c_max": max(vals("temp_c")) if vals("temp_c") else None,
        "throttle_reasons": [n for bit, n in THROTTLE_NAMES if bits & bit] if seen else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stridekit", default=os.environ.get("STRIDEKIT", "target/release/stridekit"))
    ap.add_argument("--spec", help="case spec written by `stridekit bench --list --json FILE`")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cases", help="name substring or regular expression (as stridekit bench)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--variants", default="eager", help="comma list of eager, compile (default eager)")
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--min-time", type=float, default=0.25)
    ap.add_argument("--min-samples", type=int, default=10)
    ap.add_argument("--max-rsd", type=float, default=0.5, help="percent")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--telemetry-interval", type=float, default=50.0, help="ms")
    ap.add_argument("--energy-window", type=float, default=0.5,
                    help="seconds of back-to-back runs per case for power and energy (as stridekit)")
    ap.add_argument("--out", help="baseline JSON file to write (rewritten after every case)")
    ap.add_argument("--records", help="JSON-lines file: each record appended as it is measured")
    ap.add_argument("--budget", type=float, help="seconds: start no case that would end past them")
    ap.add_argument("--build", default=os.environ.get("STRIDEKIT_BUILD"),
                    help="label of the stridekit build (default $STRIDEKIT_BUILD)")
    ap.add_argument("--check-cpu", action="store_true",
                    help="no timing: build every case on the CPU, check each view against "
                         "stridekit's spec and each output against the view (use with --quick)")
    args = ap.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for v in variants:
        if v not in ("eager", "compile"):
            sys.exit(f"compare_torch: unknown variant {v!r} (eager, compile)")

    if not args.out and not args.check_cpu:
        sys.exit("compare_torch: give --out FILE (or --check-cpu)")
    spec = load_spec(args)
    import torch

    if args.check_cpu:
        dev = torch.device("cpu")
    else:
        if not torch.cuda.is_available():
            sys.exit("compare_torch: PyTorch sees no CUDA device")
        dev = torch.device(f"cuda:{args.device}")
        torch.cuda.set_device(dev)
        props = torch.cuda.get_device_properties(dev)
        l2 = int(getattr(props, "L2_cache_size", 50 << 20))
        flush_buf = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
        tel = Telemetry(torch, args.device)
        max_sm = tel.max_clock("sm")
        max_mem, bus = tel.max_clock("mem"), tel.bus_width()
        peak = 2 * max_mem * 1e6 * bus / 8 / 1e9 if max_mem and bus else None
        if tel.nv is not None:
            threading.Thread(target=tel.run, args=(args.telemetry_interval / 1000.0,), daemon=True).start()

    def apply_steps(x, steps):
        for s in steps:
            op = s["op"]
            if op == "permute":
                x = x.permute(*s["dims"])
            elif op == "slice":
                idx = [slice(None)] * s["dim"] + [slice(s["start"], s["end"], s["step"])]
                x = x[tuple(idx)]
            elif op == "expand":
                x = x.expand(*s["sizes"])
            elif op == "unfold":
                x = x.unfold(s["dim"], s["size"], s["step"])
            else:
                raise ValueError(f"unknown view step {op!r}")
        return x

    def make_case(c):
        """Input, the function to time, its extra arguments, the expected output (values) and
        the memory format the output must have."""
        dtype = getattr(torch, c["dtype"])
        fmt = torch.channels_last if c["input_format"] == "channels_last" else torch.contiguous_format
        x = torch.empty(c["shape"], dtype=dtype, device=dev, memory_format=fmt)
        if dtype.is_floating_point:
            x.uniform_(0.5, 2.0)  # never zero
        else:
            x.random_(1, 100)
        kind = c["kind"]
        if kind == "clone":
            return x, (lambda x: x.clone()), (), x, torch.contiguous_format
        if kind == "copy":
            steps = c["steps"]
            v = apply_steps(x, steps)
            want = c["view"]
            got = (list(v.shape), list(v.stride()), v.storage_offset())
            if got != (want["sizes"], want["strides"], want["offset"]):
                sys.exit(f"compare_torch: {c['case']}: PyTorch's view {got} differs from stridekit's {want} (spec drift)")
            out_fmt = torch.channels_last if c["output"] == "channels_last" else torch.contiguous_format

            def f(x):
                return apply_steps(x, steps).contiguous(memory_format=out_fmt)

            return x, f, (), v, out_fmt
        if kind == "index_select_rows":
            idx = torch.tensor(gather_index(c["count"], c["shape"][0], c["seed"]), dtype=torch.int64, device=dev)
            return x, (lambda x, idx: torch.index_select(x, 0, idx)), (idx,), x[idx], torch.contiguous_format
        raise ValueError(f"unknown case kind {kind!r}")

    def time_fn(fn, fargs, working_set):
        for _ in range(args.warmup):
            fn(*fargs)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush = working_set < 4 * l2
        kept, discarded = [], 0
        t0 = time.perf_counter()
        k = 0
        while True:
            el = time.perf_counter() - t0
            if el >= args.time_limit or len(kept) + discarded >= 100000:
                break
            if len(kept) >= max(args.min_samples, 2) and el >= args.min_time and rsd(kept) <= args.max_rsd / 100:
                break
            if flush:
                k += 1
                flush_buf.fill_(k & 0xFF)
            # Keep the stream busy (~100 us) so the start event is not recorded on an idle
            # stream, where it would also time Python's dispatch (and torch.compile's guards)
            # before the kernel; stridekit's side queues a memset for the same reason.
            torch.cuda._sleep(SLEEP_CYCLES)
            start.record()
            fn(*fargs)
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
            sm = tel.sm_mhz()
            if sm is not None and max_sm and sm < 0.75 * max_sm:
                discarded += 1
            else:
                kept.append(ms)
        # Power and energy of the case alone: back-to-back runs, no flush, one wait per batch.
        stats = summarize([], None, 0)
        if tel.nv is not None:
            torch.cuda.synchronize()
            e0, t0, runs = tel.energy_mj(), time.perf_counter(), 0
            tel.push()
            while True:
                for _ in range(64):
                    fn(*fargs)
                runs += 64
                torch.cuda.synchronize()
                if time.perf_counter() - t0 >= args.energy_window:
                    break
            tel.push()
            t1, e1 = time.perf_counter(), tel.energy_mj()
            energy = (e1 - e0) / 1000.0 if e0 is not None and e1 is not None else None
            stats = summarize(tel.window(t0, t1), energy, working_set * runs)
        return kept, discarded, stats

    if args.check_cpu:
        for c in spec["cases"]:
            x, fn, extra, want, out_fmt = make_case(c)
            out = fn(x, *extra)
            ok = out.shape == want.shape and out.is_contiguous(memory_format=out_fmt) and torch.equal(out, want)
            if not ok:
                sys.exit(f"compare_torch: {c['case']}: output differs from the view it materialises")
        print(f"check-cpu: {len(spec['cases'])} cases: views match stridekit's spec, outputs match", file=sys.stderr)
        return

    host = socket.gethostname()
    slurm_job = os.environ.get("SLURM_JOB_ID")
    slurm_task = os.environ.get("SLURM_PROCID") or os.environ.get("SLURM_ARRAY_TASK_ID")
    uuid = getattr(props, "uuid", None)
    records = []
    memcpy_gbps = None
    run_start, longest, not_run = time.perf_counter(), None, []
    stream = open(args.records, "w") if args.records else None

    def header():
        return {
            "gpu_name": props.name,
            "gpu_uuid": f"GPU-{uuid}" if uuid is not None else None,
            "driver": tel.driver(),
            "sm_mhz_max": max_sm,
            "mem_mhz_max": max_mem,
            "bus_width_bits": bus,
            "peak_gbps": peak,
            "stridekit_version": spec.get("stridekit_version"),
            "build": args.build,
            "kernel_image": None,
            "backend": "torch",
            "label": "torch",
            "torch_version": torch.__version__,
            "host": host,
            "command_line": " ".join(shlex.quote(a) for a in sys.argv),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "quick": spec.get("quick"),
            "seed": spec.get("seed"),
            "sampling": "CUDA events (torch.cuda.Event) around each sample; stridekit's rule (see scripts/compare_torch.py)",
            "verification": "output equal (torch.equal) to the view it materialises, with the requested memory format",
            "telemetry": tel.why,
            "cases_not_run": not_run,
        }

    def write_out():
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"header": header(), "records": records}, f, indent=1)
            f.write("\n")
        os.replace(tmp, args.out)

    for c in spec["cases"]:
        el = time.perf_counter() - run_start
        if args.budget is not None and longest is not None and el + longest > args.budget:
            not_run.append(c["case"])
            continue
        case_start = time.perf_counter()
        x, fn, extra, want, out_fmt = make_case(c)
        moved = c["bytes_read"] + c["bytes_written"]
        # The eager memcpy is every variant's 100% line: it runs whatever --variants says.
        case_variants = variants
        if c["case"] == spec["memcpy_case"] and "eager" not in variants:
            case_variants = ["eager"] + variants
        for variant in case_variants:
            label = "torch eager" if variant == "eager" else "torch.compile"
            print(f"[{label}] {c['case']}", file=sys.stderr, flush=True)
            f = fn
            if variant == "compile":
                torch._dynamo.reset()
                f = torch.compile(fn)
            try:
                out = f(x, *extra)  # compiles under torch.compile: excluded from timing
                torch.cuda.synchronize()
                verified = bool(
                    out.shape == want.shape
                    and out.is_contiguous(memory_format=out_fmt)
                    and torch.equal(out, want)
                )
                del out
                kept, discarded, stats = time_fn(f, (x, *extra), moved)
                error = None
            except Exception as e:  # one failing variant should not lose the run
                kept, discarded, stats, verified, error = [], 0, summarize([], None, 0), False, str(e)
                print(f"[{label}] {c['case']}: {e}", file=sys.stderr)
            med = statistics.median(kept) if kept else None
            gbps = moved / (med * 1e-3) / 1e9 if med else None
            if c["case"] == spec["memcpy_case"] and variant == "eager":
                memcpy_gbps = gbps
            rec = {
                "case": c["case"],
                "dtype": c["dtype"],
                "shape": c["shape"],
                "op": c["op"],
                "bytes_read": c["bytes_read"],
                "bytes_written": c["bytes_written"],
                "ms_median": med,
                "ms_min": min(kept) if kept else None,
                "ms_max": max(kept) if kept else None,
                "samples": len(kept),
                "gbps": gbps,
                "pct_of_memcpy": None,
                "pct_of_peak": 100 * gbps / peak if gbps and peak else None,
                **stats,
                "verified": verified,
                "host": host,
                "gpu_index": args.device,
                "gpu_uuid": f"GPU-{uuid}" if uuid is not None else None,
                "slurm_job_id": slurm_job,
                "slurm_task_id": slurm_task,
                "discarded_low_clock": discarded,
                "device_name": props.name,
                "build": args.build,
                "variant": label,
            }
            if error:
                rec["error"] = error
            # The memcpy case runs first, so its eager figure is known for every later one.
            if rec["gbps"] and memcpy_gbps:
                rec["pct_of_memcpy"] = rec["gbps"] / memcpy_gbps * 100
            records.append(rec)
            if stream:
                stream.write(json.dumps(rec) + "\n")
                stream.flush()
        del x, want, extra
        torch.cuda.empty_cache()
        took = time.perf_counter() - case_start
        longest = took if longest is None else max(longest, took)
        write_out()
    tel.stop.set()
    write_out()
    if not_run:
        print(f"compare_torch: the --budget of {args.budget} s left {len(not_run)} case(s) not run: "
              + ", ".join(not_run), file=sys.stderr)
    print(f"wrote {len(records)} records to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
