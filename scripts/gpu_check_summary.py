#!/usr/bin/env python3
"""The summary table of `scripts/gpu-check all`, from the folder it wrote.

    python3 scripts/gpu_check_summary.py OUTDIR

OUTDIR holds `steps.jsonl` (one line per step: step, rc, seconds, limit, log), each step's
log under logs/, and the quick bench's `bench-quick.json` (or, when that run was killed,
its `bench-quick.jsonl` stream). Per step: its status (ok, FAILED rc=N, TIMEOUT, not run),
seconds, the tests its test binaries passed and failed (libtest's `test result:` lines),
and compute-sanitizer's error count (memcheck's ERROR SUMMARY, racecheck's RACECHECK
SUMMARY). Then the totals: tests passed/failed and the failing tests' names, sanitizer
errors, bench cases verified, the worst % of memcpy (and its case), and which NVML fields
the bench records carry. Writes OUTDIR/summary.json too. Exit status 0 only when every step
passed, every test passed, no sanitizer reported an error and every bench case verified.
Standard library only (the GPU machine has no network).
"""

import json
import os
import re
import sys

TEST_RESULT = re.compile(r"test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed")
FAILED_TEST = re.compile(r"^test (\S+) \.\.\. FAILED", re.M)
# libtest's closing list of failed tests (its names are exact even when --nocapture output
# splits a "test NAME ... FAILED" line).
FAILURES_LIST = re.compile(r"^failures:\n((?:    \S+\n)+)", re.M)
MEMCHECK = re.compile(r"=+ ERROR SUMMARY: (\d+) errors?")
RACECHECK = re.compile(r"=+ RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
TELEMETRY = ["power_w_mean", "energy_j", "sm_mhz_mean", "mem_mhz_mean", "throttle_reasons",
             "ecc_uncorrected_before", "pcie_link_gen", "power_violation_ms_before"]
MEMCPY_CASE = "memcpy_f32_1GiB"


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def failed_tests(log):
    listed = [n.strip() for block in FAILURES_LIST.findall(log) for n in block.splitlines()]
    return listed or FAILED_TEST.findall(log)


def step_rows(outdir):
    rows = []
    text = read_text(os.path.join(outdir, "steps.jsonl"))
    if text is None:
        sys.exit(f"gpu_check_summary: {outdir}/steps.jsonl missing: did gpu-check all run?")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            s = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"gpu_check_summary: {outdir}/steps.jsonl line {n}: {e}")
        log = read_text(os.path.join(outdir, s.get("log", ""))) or ""
        results = [(int(p), int(f)) for p, f in TEST_RESULT.findall(log)]
        mem = [int(e) for e in MEMCHECK.findall(log)]
        race = [(int(e), int(w)) for e, w in RACECHECK.findall(log)]
        rc = s.get("rc")
        if rc is None:
            status = "not run"
        elif rc == 0:
            status = "ok"
        elif rc in (124, 137) and s.get("seconds", 0) >= s.get("limit", 0) > 0:
            status = "TIMEOUT"
        else:
            status = f"FAILED rc={rc}"
        rows.append({
            "step": s["step"],
            "status": status,
            "seconds": s.get("seconds", 0),
            "passed": sum(p for p, _ in results) if results else None,
            "failed": sum(f for _, f in results) if results else None,
            "failed_tests": failed_tests(log),
            "sanitizer_errors": (sum(mem) + sum(e for e, _ in race)) if (mem or race) else None,
            "racecheck_warnings": sum(w for _, w in race) if race else None,
        })
    return rows


def bench_summary(outdir):
    records, source = None, None
    text = read_text(os.path.join(outdir, "bench-quick.json"))
    if text:
        try:
            records, source = json.loads(text)["records"], "bench-quick.json"
        except (json.JSONDecodeError, KeyError, TypeError):
            records = None
    if records is None:
        text = read_text(os.path.join(outdir, "bench-quick.jsonl"))
        if text:
            records, source = [], "bench-quick.jsonl (the run was cut short)"
            for line in text.splitlines():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a line cut by the kill
    if not records:
        return None
    worst = min(
        (r for r in records if r.get("case") != MEMCPY_CASE and r.get("pct_of_memcpy") is not None),
        key=lambda r: r["pct_of_memcpy"],
        default=None,
    )
    return {
        "source": source,
        "cases": len(records),
        "verified": sum(1 for r in records if r.get("verified") is True),
        "worst_pct_of_memcpy": worst["pct_of_memcpy"] if worst else None,
        "worst_case": worst["case"] if worst else None,
        "telemetry": {k: sum(1 for r in records if r.get(k) is not None) for k in TELEMETRY},
    }


def dash(v, fmt="{}"):
    return "-" if v is None else fmt.format(v)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gpu_check_summary.py OUTDIR")
    outdir = sys.argv[1]
    rows = step_rows(outdir)
    bench = bench_summary(outdir)
    head = ["step", "status", "s", "tests passed", "failed", "sanitizer errors"]
    table = [head] + [
        [r["step"], r["status"], str(r["seconds"]), dash(r["passed"]), dash(r["failed"]),
         dash(r["sanitizer_errors"])]
        for r in rows
    ]
    widths = [max(len(t[c]) for t in table) for c in range(len(head))]
    lines = []
    for i, t in enumerate(table):
        lines.append("  ".join(
            t[c].ljust(widths[c]) if c < 2 else t[c].rjust(widths[c]) for c in range(len(head))
        ).rstrip())
        if i == 0:
            lines.append("-" * len(lines[0]))
    passed = sum(r["passed"] or 0 for r in rows)
    failed = sum(r["failed"] or 0 for r in rows)
    failed_tests = [t for r in rows for t in r["failed_tests"]]
    errors = sum(r["sanitizer_errors"] or 0 for r in rows)
    sanitized = [r["step"] for r in rows if r["sanitizer_errors"] is not None]
    bad_steps = [r["step"] for r in rows if r["status"] != "ok"]
    lines.append("")
    lines.append(f"tests: {passed} passed, {failed} failed"
                 + (f" ({', '.join(failed_tests)})" if failed_tests else ""))
    lines.append(f"sanitizer errors: {errors} (reported by {', '.join(sanitized) or 'no step'})")
    if bench:
        worst = "-" if bench["worst_pct_of_memcpy"] is None else \
            f"{bench['worst_pct_of_memcpy']:.1f}% ({bench['worst_case']})"
        tel = ", ".join(f"{k} {v}/{bench['cases']}" for k, v in bench["telemetry"].items())
        lines.append(f"bench: {bench['verified']}/{bench['cases']} cases verified, worst % of memcpy {worst}"
                     f" [{bench['source']}]")
        lines.append(f"NVML fields present: {tel}")
    else:
        lines.append("bench: no records")
    ok = (not bad_steps and failed == 0 and errors == 0
          and bench is not None and bench["verified"] == bench["cases"])
    lines.append("gpu-check all: " + ("PASSED" if ok else "FAILED"
                                     + (f": {', '.join(bad_steps)}" if bad_steps else "")))
    print("\n".join(lines))
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump({"steps": rows, "tests_passed": passed, "tests_failed": failed,
                   "failed_tests": failed_tests, "sanitizer_errors": errors, "bench": bench,
                   "passed": ok}, f, indent=1)
        f.write("\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
