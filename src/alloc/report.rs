//! Human and machine readable views of an allocator: the snapshot (segments and blocks with
//! their state, as JSON), PyTorch's `memory_summary()` table, and an SVG plot of a replay.

use serde_json::{Value, json};

use super::device::RawDevice;
use super::error::format_size;
use super::state::DeviceCachingAllocator;
use super::stats::{DeviceStats, POOL_NAMES, Stat};

/// Segments (for expandable segments: each mapped range) with their blocks, sorted by
/// address, in the shape of `torch.cuda.memory_snapshot()`, and the statistics.
pub fn snapshot<D: RawDevice>(a: &DeviceCachingAllocator<D>) -> Value {
    json!({
        "segments": serde_json::to_value(super::snapshot::segments(a)).unwrap_or_default(),
        "stats": a.stats().to_json(),
    })
}

fn fmt_bytes(v: i64) -> String {
    let neg = v < 0;
    let s = format_size(v.unsigned_abs());
    let s = s.replace(" bytes", " B");
    if neg { format!("-{s}") } else { s }
}

/// A table of the statistics in the layout of PyTorch's `memory_summary()`.
pub fn memory_summary(s: &DeviceStats) -> String {
    let line = "|===========================================================================|\n";
    let thin = "|---------------------------------------------------------------------------|\n";
    let mut out = String::new();
    out.push_str(line);
    out.push_str("|                  stridekit caching allocator memory summary               |\n");
    out.push_str(thin);
    out.push_str(&format!(
        "|            CUDA OOMs: {:<12}|        cudaMalloc retries: {:<10}|\n",
        s.num_ooms, s.num_alloc_retries
    ));
    out.push_str(line);
    out.push_str("|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n");
    let rows: [(&str, &[Stat; 3], bool); 9] = [
        ("Allocated memory", &s.allocated_bytes, true),
        ("Active memory", &s.active_bytes, true),
        ("Requested memory", &s.requested_bytes, true),
        ("GPU reserved memory", &s.reserved_bytes, true),
        ("Non-releasable memory", &s.inactive_split_bytes, true),
        ("Allocations", &s.allocation, false),
        ("Active allocs", &s.active, false),
        ("GPU reserved segments", &s.segment, false),
        ("Non-releasable allocs", &s.inactive_split, false),
    ];
    for (name, arr, bytes) in rows {
        out.push_str(thin);
        for (k, st) in arr.iter().enumerate() {
            let label = if k == 0 {
                name.to_string()
            } else {
                format!("      from {} pool", if k == 1 { "small" } else { "large" })
            };
            let f = |v: i64| if bytes { fmt_bytes(v) } else { v.to_string() };
            out.push_str(&format!(
                "| {:<22}| {:>10} | {:>10} | {:>10} | {:>10} |\n",
                label,
                f(st.current),
                f(st.peak),
                f(st.allocated),
                f(st.freed)
            ));
        }
    }
    out.push_str(thin);
    out.push_str(&format!(
        "| Oversize allocations  | {:>10} | {:>10} | {:>10} | {:>10} |\n",
        s.oversize_allocations.current,
        s.oversize_allocations.peak,
        s.oversize_allocations.allocated,
        s.oversize_allocations.freed
    ));
    out.push_str(&format!(
        "| Oversize GPU segments | {:>10} | {:>10} | {:>10} | {:>10} |\n",
        s.oversize_segments.current,
        s.oversize_segments.peak,
        s.oversize_segments.allocated,
        s.oversize_segments.freed
    ));
    out.push_str(line);
    let _ = POOL_NAMES;
    out
}

/// An SVG line plot of reserved and allocated bytes over trace events.
/// `points` are (event index, allocated bytes, reserved bytes).
pub fn svg_plot(title: &str, points: &[(u64, u64, u64)]) -> String {
    let (w, h) = (900.0f64, 420.0f64);
    let (ml, mr, mt, mb) = (80.0, 20.0, 40.0, 50.0);
    let xmax = points.last().map(|p| p.0).unwrap_or(1).max(1) as f64;
    let ymax = points
        .iter()
        .map(|p| p.2.max(p.1))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let gib = (1u64 << 30) as f64;
    let sx = |x: f64| ml + x / xmax * (w - ml - mr);
    let sy = |y: f64| h - mb - y / ymax * (h - mt - mb);
    let path = |sel: &dyn Fn(&(u64, u64, u64)) -> u64| {
        let mut d = String::new();
        for (k, p) in points.iter().enumerate() {
            let cmd = if k == 0 { 'M' } else { 'L' };
            d.push_str(&format!(
                "{cmd}{:.1},{:.1} ",
                sx(p.0 as f64),
                sy(sel(p) as f64)
            ));
        }
        d
    };
    let mut s = crate::svg::open(w, h, 12, ml, title);
    s.push_str(&crate::svg::y_grid(ml, w - mr, ymax, sy, |y| {
        format!("{:.2} GiB", y / gib)
    }));
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">trace event</text>\n",
        (ml + w - mr) / 2.0,
        h - 12.0
    ));
    s.push_str(&format!(
        "<path d=\"{}\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\"/>\n",
        path(&|p| p.2)
    ));
    s.push_str(&format!(
        "<path d=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\"/>\n",
        path(&|p| p.1)
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" fill=\"#d62728\">reserved</text><text x=\"{}\" y=\"{}\" fill=\"#1f77b4\">allocated</text>\n</svg>\n",
        w - 170.0,
        22,
        w - 95.0,
        22
    ));
    s
}
