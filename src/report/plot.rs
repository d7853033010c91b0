//! `report --plot F.svg`: per GPU, memcpy GB/s and J/GB as horizontal bars beside its
//! group's band (median ± k robust sigmas, shaded, the median as a line); flagged GPUs'
//! bars are red. Hand-written SVG (the shared pieces are in `crate::svg`).

use super::fleet::{Band, Fleet, GpuRow};
use crate::svg::{self, escape};

const OK_COLOR: &str = "#1f77b4";
const FLAGGED_COLOR: &str = "#d62728";

/// One panel: a figure per GPU with its band.
struct Panel {
    title: &'static str,
    figure: &'static str,
    get: fn(&GpuRow) -> Option<f64>,
    digits: usize,
}

const PANELS: [Panel; 2] = [
    Panel {
        title: "memcpy GB/s",
        figure: "memcpy_gbps",
        get: |r| r.memcpy_gbps,
        digits: 0,
    },
    Panel {
        title: "J/GB (median over the suite)",
        figure: "j_per_gb",
        get: |r| r.j_per_gb,
        digits: 3,
    },
];

/// The plot.
pub fn svg(title: &str, fleet: &Fleet) -> String {
    let rows = &fleet.gpus;
    let label_w = 7.0 * rows.iter().map(|r| r.label().len()).max().unwrap_or(8) as f64 + 20.0;
    let (panel_w, gap, row_h, mt, mb) = (360.0f64, 40.0f64, 14.0f64, 64.0f64, 40.0f64);
    let w = label_w + PANELS.len() as f64 * (panel_w + gap);
    let h = mt + row_h * rows.len() as f64 + mb;
    let mut s = svg::open(w, h, 11, label_w, title);
    let bottom = mt + row_h * rows.len() as f64;
    for (i, r) in rows.iter().enumerate() {
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            label_w - 6.0,
            mt + row_h * i as f64 + row_h - 4.0,
            escape(&r.label())
        ));
    }
    for (p, panel) in PANELS.iter().enumerate() {
        let x0 = label_w + p as f64 * (panel_w + gap);
        let band = |r: &GpuRow| -> Option<Band> {
            fleet
                .group_of(r)
                .and_then(|g| g.bands.get(panel.figure).copied())
        };
        let xmax = rows
            .iter()
            .flat_map(|r| {
                let b = band(r).map(|b| b.median + fleet.mad_k * b.sigma);
                [(panel.get)(r), b]
            })
            .flatten()
            .fold(0.0f64, f64::max)
            * 1.05;
        let xmax = if xmax > 0.0 { xmax } else { 1.0 };
        let sx = |v: f64| x0 + v.clamp(0.0, xmax) / xmax * panel_w;
        s.push_str(&format!(
            "<text x=\"{x0:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>\n<line x1=\"{x0:.1}\" x2=\"{x0:.1}\" y1=\"{mt:.1}\" y2=\"{bottom:.1}\" stroke=\"#444\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            mt - 20.0,
            escape(panel.title),
            x0 + panel_w,
            bottom + 14.0,
            format_args!("{xmax:.prec$}", prec = panel.digits),
        ));
        for (i, r) in rows.iter().enumerate() {
            let y = mt + row_h * i as f64;
            if let Some(b) = band(r) {
                let lo = sx(b.median - fleet.mad_k * b.sigma);
                let hi = sx(b.median + fleet.mad_k * b.sigma);
                s.push_str(&format!(
                    "<rect class=\"band\" x=\"{lo:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{row_h:.1}\" fill=\"#e8e8e8\"/><line class=\"median\" x1=\"{m:.1}\" x2=\"{m:.1}\" y1=\"{y:.1}\" y2=\"{:.1}\" stroke=\"#888\"/>\n",
                    hi - lo,
                    y + row_h,
                    m = sx(b.median)
                ));
            }
            let Some(v) = (panel.get)(r) else { continue };
            let color = if r.flags.is_empty() {
                OK_COLOR
            } else {
                FLAGGED_COLOR
            };
            s.push_str(&format!(
                "<rect class=\"bar\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{color}\"><title>{}: {}: {v:.prec$}</title></rect>\n",
                y + 3.0,
                sx(v) - x0,
                row_h - 6.0,
                escape(&r.label()),
                escape(panel.title),
                prec = panel.digits
            ));
        }
    }
    s.push_str(&format!(
        "<text x=\"{label_w:.1}\" y=\"{:.1}\">grey: the group's median ± {} robust sigmas; red: a flagged GPU</text>\n</svg>\n",
        bottom + 30.0,
        fleet.mad_k
    ));
    s
}
