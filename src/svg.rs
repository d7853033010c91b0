//! Hand-written SVG pieces shared by the plots (`alloc replay --plot`, `bench --plot`).

/// Text made safe inside SVG elements and attribute values.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The opening of a plot: a `w` x `h` SVG on white, sans-serif at `font_size`, with
/// `title` (escaped here) at (`title_x`, 22) in 14 px. Close it with `</svg>`.
pub fn open(w: f64, h: f64, font_size: u32, title_x: f64, title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"sans-serif\" font-size=\"{font_size}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{title_x:.0}\" y=\"22\" font-size=\"14\">{}</text>\n",
        escape(title)
    )
}

/// Five horizontal grid lines from 0 to `ymax` (data units) across `x0..x1`, each labelled
/// at the left of `x0` with `label(value)`; `sy` maps a value to its y pixel.
pub fn y_grid(
    x0: f64,
    x1: f64,
    ymax: f64,
    sy: impl Fn(f64) -> f64,
    label: impl Fn(f64) -> String,
) -> String {
    let mut s = String::new();
    for k in 0..=4 {
        let v = ymax * k as f64 / 4.0;
        let y = sy(v);
        s.push_str(&format!(
            "<line x1=\"{x0}\" x2=\"{x1:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            x0 - 6.0,
            y + 4.0,
            escape(&label(v))
        ));
    }
    s
}
