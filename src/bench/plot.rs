//! `--plot FILE.svg`: % of memcpy per case as horizontal bars, stridekit beside every
//! baseline series, with the 100% line marked. Hand-written SVG, no dependency.

use super::record::{Baseline, Record};
use crate::svg::{self, escape};

const COLORS: [&str; 6] = [
    "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];
const STRIDEKIT_COLOR: &str = "#1f77b4";

/// The plot. One group per record (case, and GPU when several ran): a stridekit bar, then
/// one bar per baseline series that has the case (a missing value draws no bar).
pub fn svg(title: &str, records: &[Record], baselines: &[Baseline]) -> String {
    let several = records
        .iter()
        .any(|r| r.place.gpu_index != records[0].place.gpu_index);
    let label = |r: &Record| match (several, r.place.gpu_index) {
        (true, Some(g)) => format!("{} (cuda:{g})", r.case),
        _ => r.case.clone(),
    };
    let series = 1 + baselines.len();
    // Series from another device model say which, in the legend and the tooltips.
    let names: Vec<String> = baselines
        .iter()
        .map(|b| {
            if records.iter().any(|r| b.same_device(r)) {
                b.label.clone()
            } else {
                b.label_on_device()
            }
        })
        .collect();
    let bar_h = 9.0f64;
    let group_h = bar_h * series as f64 + 8.0;
    let label_w = 7.0 * records.iter().map(|r| label(r).len()).max().unwrap_or(10) as f64 + 20.0;
    let (plot_w, mt, mb, mr) = (520.0f64, 60.0f64, 40.0f64, 60.0f64);
    let legend_h = 16.0 * series as f64;
    let h = mt + group_h * records.len() as f64 + mb + legend_h;
    let w = label_w + plot_w + mr;
    let value = |r: &Record, k: usize| -> Option<f64> {
        if k == 0 {
            r.pct_of_memcpy
        } else {
            baselines[k - 1]
                .by_case
                .get(&r.case)
                .and_then(|b| b.pct_of_memcpy)
        }
    };
    let xmax = records
        .iter()
        .flat_map(|r| (0..series).filter_map(move |k| value(r, k)))
        .fold(100.0f64, f64::max)
        .min(1000.0);
    let xmax = (xmax / 25.0).ceil() * 25.0;
    let sx = |v: f64| label_w + v.clamp(0.0, xmax) / xmax * plot_w;
    let mut s = svg::open(w, h, 11, label_w, title);
    let bottom = mt + group_h * records.len() as f64;
    let mut tick = 0.0;
    while tick <= xmax + 1e-9 {
        let (x, stroke) = if (tick - 100.0).abs() < 1e-9 {
            (sx(tick), "#444")
        } else {
            (sx(tick), "#ddd")
        };
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{bottom:.1}\" stroke=\"{stroke}\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{tick:.0}%</text>\n",
            mt - 6.0,
            mt - 10.0
        ));
        tick += if xmax > 200.0 { 50.0 } else { 25.0 };
    }
    for (i, r) in records.iter().enumerate() {
        let y0 = mt + group_h * i as f64 + 4.0;
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            label_w - 6.0,
            y0 + bar_h * series as f64 / 2.0 + 4.0,
            escape(&label(r))
        ));
        for k in 0..series {
            let Some(v) = value(r, k) else { continue };
            let (class, color, name) = if k == 0 {
                ("bar stridekit", STRIDEKIT_COLOR, "stridekit".to_string())
            } else {
                (
                    "bar baseline",
                    COLORS[(k - 1) % COLORS.len()],
                    names[k - 1].clone(),
                )
            };
            let y = y0 + bar_h * k as f64;
            s.push_str(&format!(
                "<rect class=\"{class}\" x=\"{label_w:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{color}\"><title>{}: {}: {v:.1}% of memcpy</title></rect>\n",
                sx(v) - label_w,
                bar_h - 1.0,
                escape(&r.case),
                escape(&name)
            ));
        }
    }
    for k in 0..series {
        let (color, name) = if k == 0 {
            (STRIDEKIT_COLOR, "stridekit")
        } else {
            (COLORS[(k - 1) % COLORS.len()], names[k - 1].as_str())
        };
        let y = bottom + 24.0 + 16.0 * k as f64;
        s.push_str(&format!(
            "<rect x=\"{label_w:.1}\" y=\"{:.1}\" width=\"12\" height=\"10\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{y:.1}\">{}</text>\n",
            y - 9.0,
            label_w + 18.0,
            escape(name)
        ));
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::Record;
    use crate::bench::record::tests::{baseline, record};

    fn rec(case: &str, pct: Option<f64>) -> Record {
        let mut r = record(case, Some(1.0), Some(0));
        r.pct_of_memcpy = pct;
        r
    }

    fn widths(svg: &str, class: &str) -> Vec<f64> {
        svg.split(&format!("class=\"{class}\""))
            .skip(1)
            .map(|rest| {
                let w = &rest[rest.find("width=\"").unwrap() + 7..];
                w[..w.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    #[test]
    fn one_bar_per_case_and_baseline_value() {
        let records = [
            rec("a<b", Some(50.0)),
            rec("c", Some(120.0)),
            rec("d", None),
        ];
        let b = baseline("torch & co", "c", 60.0);
        let s = svg("t", &records, &[b]);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        assert_eq!(s.matches("class=\"bar stridekit\"").count(), 2);
        assert_eq!(s.matches("class=\"bar baseline\"").count(), 1);
        assert!(s.contains("a&lt;b") && s.contains("torch &amp; co"));
        assert!(s.contains(">125%</text>"), "the axis reaches past 120%");
        // Bars scale with the value: 120% is twice as long as 60%, 50% is 5/12 of it.
        let (ours, theirs) = (widths(&s, "bar stridekit"), widths(&s, "bar baseline"));
        assert!((ours[1] / theirs[0] - 2.0).abs() < 1e-3);
        assert!((ours[0] / ours[1] - 50.0 / 120.0).abs() < 1e-3);
    }
}
