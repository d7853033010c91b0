//! What `stridekit alloc tune` prints: the ranked table per trace, the JSON records and
//! the SVG plot.

use serde_json::{Value, json};

use super::tune::{TraceStudy, TuneRow};

const GIB: f64 = (1u64 << 30) as f64;

fn gib(v: i64) -> f64 {
    v as f64 / GIB
}

fn row_line(study: &TraceStudy, r: &TuneRow) -> String {
    let s = &r.report.stats;
    let mut notes = Vec::new();
    if r.oom() {
        notes.push(format!("OOM x{}", r.report.failed_allocs));
    }
    if r.is_default() {
        notes.push("default".to_string());
    }
    if r.stridekit {
        notes.push("stridekit".to_string());
    }
    format!(
        "{:>5} {:>10.3} {:>10.3} {:>8.3} {:>8} {:<16} {}",
        study.rank_of(r),
        gib(r.report.peak_reserved()),
        gib(s.allocated_bytes[0].peak),
        s.requested_bytes[0].peak as f64 / r.report.peak_reserved().max(1) as f64,
        r.device_calls(),
        notes.join(", "),
        r.setting
    )
}

/// The ranked table of each trace: the `top` best settings, then the default and the best
/// stridekit row when they rank lower, the saving and the winning string.
pub fn table(studies: &[TraceStudy], top: usize, capacity: u64) -> String {
    let mut out = String::new();
    for st in studies {
        let n = st.rows.len();
        let ooms = st.rows.iter().filter(|r| r.oom()).count();
        out.push_str(&format!(
            "trace {} ({} events, {} settings, capacity {:.1} GiB, {} ran out of memory)\n",
            st.trace,
            st.events,
            n,
            capacity as f64 / GIB,
            ooms
        ));
        out.push_str(&format!(
            "{:>5} {:>10} {:>10} {:>8} {:>8} {:<16} setting\n",
            "rank", "reserved", "allocated", "req/res", "dev", "notes"
        ));
        out.push_str(&format!(
            "{:>5} {:>10} {:>10} {:>8} {:>8}\n",
            "", "peak GiB", "peak GiB", "peak", "calls"
        ));
        for r in st.rows.iter().take(top) {
            out.push_str(&row_line(st, r));
            out.push('\n');
        }
        let mut extra: Vec<&TuneRow> = Vec::new();
        for r in [st.default_row(), st.best_stridekit()]
            .into_iter()
            .flatten()
        {
            if st.rank_of(r) > top && !extra.iter().any(|e| e.grid_index == r.grid_index) {
                extra.push(r);
            }
        }
        extra.sort_by_key(|r| st.rank_of(r));
        if !extra.is_empty() {
            out.push_str("  ...\n");
            for r in extra {
                out.push_str(&row_line(st, r));
                out.push('\n');
            }
        }
        if let Some(b) = st.best_pytorch() {
            match st.saving() {
                Some((saved, pct)) => out.push_str(&format!(
                    "best PyTorch setting saves {:.3} GiB ({:.1}%) of peak reserved against the default{}{}\n",
                    gib(saved),
                    pct,
                    if b.oom() { " (but runs out of memory)" } else { "" },
                    if st.default_row().is_some_and(|d| d.oom()) && !b.oom() {
                        ", which runs out of memory"
                    } else {
                        ""
                    }
                )),
                None => out.push_str("no default setting in the grid to compare with\n"),
            }
            out.push_str(&format!(
                "PYTORCH_CUDA_ALLOC_CONF={}\n",
                pytorch_string(&b.setting)
            ));
        }
        if let (Some(k), Some(b)) = (st.best_stridekit(), st.best_pytorch()) {
            let d = k.report.peak_reserved() - b.report.peak_reserved();
            out.push_str(&format!(
                "stridekit policy: {:.3} GiB peak reserved, {:+.3} GiB ({:+.2}%) against the best PyTorch setting, {} device calls ({} for the best PyTorch setting)\n",
                gib(k.report.peak_reserved()),
                gib(d),
                100.0 * d as f64 / b.report.peak_reserved().max(1) as f64,
                k.device_calls(),
                b.device_calls()
            ));
        }
        out.push('\n');
    }
    out
}

/// The setting as `PYTORCH_CUDA_ALLOC_CONF` takes it (`default` is the empty string).
pub fn pytorch_string(setting: &str) -> String {
    if setting.trim() == "default" {
        String::new()
    } else {
        setting.replace(' ', "")
    }
}

/// One JSON object per (trace, setting), statistics under PyTorch's names.
pub fn json_records(studies: &[TraceStudy]) -> Value {
    let mut arr = Vec::new();
    for st in studies {
        let best = st.best_pytorch().map(|b| b.grid_index);
        for r in &st.rows {
            arr.push(json!({
                "trace": st.trace,
                "setting": r.setting,
                "policy": if r.stridekit { "stridekit" } else { "pytorch" },
                "rank": st.rank_of(r),
                "is_default": r.is_default(),
                "is_best_pytorch": Some(r.grid_index) == best,
                "oom": r.oom(),
                "failed_allocs": r.report.failed_allocs,
                "events": r.report.events,
                "device_calls": r.report.device_calls,
                "stats": r.report.stats.to_json(),
            }));
        }
    }
    Value::Array(arr)
}

fn picks(st: &TraceStudy) -> [Option<&TuneRow>; 3] {
    [st.default_row(), st.best_pytorch(), st.best_stridekit()]
}

/// A bar chart of peak reserved GiB per trace: the default, the best PyTorch setting and
/// the stridekit policy, with peak requested bytes as a marker.
pub fn svg(studies: &[TraceStudy]) -> String {
    let series: [(&str, &str); 3] = [
        ("PyTorch default", "#d62728"),
        ("best PyTorch setting", "#1f77b4"),
        ("stridekit policy", "#2ca02c"),
    ];
    let group_w = 220.0;
    let (ml, mr, mt, mb) = (70.0, 20.0, 60.0, 60.0);
    let w = ml + mr + group_w * studies.len().max(1) as f64;
    let h = 420.0;
    let ymax = studies
        .iter()
        .flat_map(|st| picks(st).into_iter().flatten())
        .map(|r| r.report.peak_reserved())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let sy = |v: f64| h - mb - v / ymax * (h - mt - mb);
    let mut s = crate::svg::open(
        w,
        h,
        11,
        ml,
        "alloc tune: peak reserved GiB (black tick: peak requested)",
    );
    s.push_str(&crate::svg::y_grid(ml, w - mr, ymax, sy, |v| {
        format!("{:.1}", v / GIB)
    }));
    for (k, (name, color)) in series.iter().enumerate() {
        let x = ml + 10.0 + 190.0 * k as f64;
        s.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"32\" width=\"10\" height=\"10\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"41\">{}</text>\n",
            x + 14.0,
            crate::svg::escape(name)
        ));
    }
    for (g, st) in studies.iter().enumerate() {
        let x0 = ml + group_w * g as f64 + 20.0;
        let bw = 55.0;
        for (k, r) in picks(st).into_iter().enumerate() {
            let Some(r) = r else { continue };
            let v = r.report.peak_reserved() as f64;
            let x = x0 + k as f64 * (bw + 8.0);
            s.push_str(&format!(
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{bw}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {:.3} GiB</title></rect>\n",
                sy(v),
                h - mb - sy(v),
                series[k].1,
                crate::svg::escape(&r.setting),
                v / GIB
            ));
            s.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{:.2}</text>\n",
                x + bw / 2.0,
                sy(v) - 4.0,
                v / GIB
            ));
            let req = r.report.stats.requested_bytes[0].peak as f64;
            s.push_str(&format!(
                "<line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\" stroke-width=\"2\"/>\n",
                x + bw,
                sy(req),
                sy(req)
            ));
        }
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
            x0 + 1.5 * (bw + 8.0) - 4.0,
            h - mb + 18.0,
            crate::svg::escape(&st.trace)
        ));
    }
    s.push_str("</svg>\n");
    s
}
