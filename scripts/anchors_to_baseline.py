#!/usr/bin/env python3
"""Turn the project's PyTorch anchor figures into a `stridekit bench --baseline` file.

    python3 scripts/anchors_to_baseline.py ANCHORS_DIR > bench/anchors/torch_h200_anchor.json

ANCHORS_DIR holds torch_layout_h200.json (PyTorch eager, median of 15) and peers_h200.json
(PyTorch eager, torch.compile and CuPy, median of 10), both measured on one NVIDIA H200
(driver 580.159.04, PyTorch 2.11.0+cu130) on 2026-11-29. Each becomes one or more series,
labelled by `variant`; `pct_of_memcpy` is against that run's own 1 GiB memcpy (eager clone).
These are recorded figures from another run: `scripts/compare_torch.py` measures the same
suite in the same run, which is the comparison to publish.
"""

import json
import os
import sys


def main():
    d = sys.argv[1]
    layout = json.load(open(os.path.join(d, "torch_layout_h200.json")))
    peers = json.load(open(os.path.join(d, "peers_h200.json")))
    records = []
    for r in layout["results"]:
        records.append({
            "case": r["case"], "variant": "torch eager (anchor run 1)", "dtype": r["dtype"].replace("torch.", ""),
            "shape": r["shape"], "bytes_read": r["read_bytes"], "bytes_written": r["write_bytes"],
            "ms_median": r["ms_median"], "gbps": r["gbps"], "pct_of_memcpy": r["pct_of_memcpy"],
        })
    memcpy = next(p for p in peers if p["case"] == "memcpy_f32_1GiB")
    for p in peers:
        for key, label in (("eager", "torch eager (anchor run 2)"), ("compiled", "torch.compile (anchor run 2)"),
                           ("cupy", "CuPy (anchor run 2)")):
            if p["case"] == "memcpy_f32_1GiB" and key == "cupy":
                continue  # CuPy's "copy" of an already contiguous array returns it: no work
            gbps = p[f"{key}_gbps"]
            records.append({
                "case": p["case"], "variant": label, "dtype": p["dtype"].replace("torch.", ""),
                "shape": p["shape"], "ms_median": p[f"{key}_ms"], "gbps": gbps,
                "pct_of_memcpy": 100.0 * gbps / memcpy["eager_gbps"],
            })
    header = {
        "label": "torch anchors (H200)",
        "gpu_name": "NVIDIA H200", "driver": "580.159.04", "torch_version": "2.11.0+cu130",
        "measured": "2026-11-29", "source": "the project's anchor figures (see bench/anchors/README.md)",
    }
    json.dump({"header": header, "records": records}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
